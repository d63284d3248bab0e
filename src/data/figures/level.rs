//! Every field of a sweep level: each static is the field of the same key (`TTFT_P50_S` is
//! `ttft_p50_s`), [`ALL`] lists them in the order of the sweep-levels download and table,
//! and [`LIMITS`] are the figures `[slo]` may bound.

use super::field::{Better, Field, Precision, Role, Value, field, text, whole};
use crate::data::SweepLevel;

/// One field of a sweep level, with the words its charts use.
pub struct LevelField {
    /// The key, label, unit, precision, role and getter.
    pub field: Field<SweepLevel>,
    /// Its column in the sweep-levels download, where it differs from the key.
    pub column: &'static str,
    /// Its name as a chart series (`TTFT p50`), for figures.
    pub series: &'static str,
    /// The title of its overlay of every sweep (`Time to first token p50`), when it has one.
    pub overlay: Option<&'static str>,
    /// The percentile it is over the level's succeeded requests (50 for a median), when it is
    /// one.
    pub percentile: Option<u8>,
    /// What a limit on it bounds of each request, for goodput: a request is good when it
    /// meets every limit so (`ttft_p95_s = 2`: its TTFT is at most 2 s), as vLLM judges.
    pub request: Option<RequestFigure>,
}

/// A figure of one request that a limit bounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RequestFigure {
    /// Due → first token, seconds.
    Ttft,
    /// Time per output token after the first, milliseconds.
    Tpot,
    /// Due → last token, seconds.
    Latency,
}

/// The fewest requests a tail percentile (above the median) is shown as one from: below it,
/// a p95 is the largest value or an interpolation between the two largest, and pages grey it
/// and name its n. `collect sweep` sends at least this many per level.
pub const TAIL_MIN_N: u64 = 20;

const fn level(field: Field<SweepLevel>) -> LevelField {
    LevelField {
        column: field.key,
        field,
        series: "",
        overlay: None,
        percentile: None,
        request: None,
    }
}

const fn judging(field: LevelField, request: RequestFigure) -> LevelField {
    LevelField {
        request: Some(request),
        ..field
    }
}

const fn percentile(field: LevelField, percentile: u8) -> LevelField {
    LevelField {
        percentile: Some(percentile),
        ..field
    }
}

impl LevelField {
    /// What a level's value of it is of, when it is a percentile (`p95 of 16 requests`).
    pub fn of_n(&self, level: &SweepLevel) -> Option<String> {
        let p = self.percentile?;
        let n = level.succeeded;
        Some(format!(
            "p{p} of {n} request{}",
            if n == 1 { "" } else { "s" }
        ))
    }

    /// Whether a level's value of it is a tail percentile of fewer than [`TAIL_MIN_N`]
    /// requests: shown greyed with its n, never drawn as a tail.
    pub fn weak_tail(&self, level: &SweepLevel) -> bool {
        self.is_tail() && level.succeeded < TAIL_MIN_N
    }

    /// Whether it is a tail percentile (above the median).
    pub fn is_tail(&self) -> bool {
        self.percentile.is_some_and(|p| p > 50)
    }
}

const fn chart(
    field: Field<SweepLevel>,
    series: &'static str,
    overlay: Option<&'static str>,
) -> LevelField {
    LevelField {
        series,
        overlay,
        ..level(field)
    }
}

fn measured(value: Option<f64>) -> Option<Value> {
    value.map(Value::Number)
}

const LOWER: Role = Role::Figure(Better::Lower);
const HIGHER: Role = Role::Figure(Better::Higher);

pub static CONCURRENCY: LevelField = level(field(
    "concurrency",
    "Concurrency",
    "",
    Precision::Exact,
    Role::Key,
    |l| l.concurrency.map(Value::Count),
));

pub static RATE_RPS: LevelField = level(field(
    "rate_rps",
    "Arrival rate (req/s)",
    "req/s",
    Precision::Exact,
    Role::Key,
    |l| measured(l.rate_rps),
));

pub static REQUESTS: LevelField = level(field(
    "requests",
    "Requests",
    "",
    Precision::Exact,
    Role::Detail,
    |l| whole(l.requests),
));

pub static SUCCEEDED: LevelField = level(field(
    "succeeded",
    "Succeeded",
    "",
    Precision::Exact,
    Role::Detail,
    |l| whole(l.succeeded),
));

pub static FAILED: LevelField = level(field(
    "failed",
    "Failed",
    "",
    Precision::Exact,
    LOWER,
    |l| whole(l.failed),
));

pub static STATUS: LevelField = level(field(
    "status",
    "Status",
    "",
    Precision::Exact,
    Role::Detail,
    |l| text(l.status.as_str()),
));

pub static PROMPT_TOKENS: LevelField = level(field(
    "prompt_tokens",
    "Prompt (tokens)",
    "tokens",
    Precision::Exact,
    Role::Detail,
    |l| l.prompt_tokens.map(Value::Count),
));

pub static OUTPUT_TOKENS: LevelField = LevelField {
    column: "output_tokens_per_request",
    ..level(field(
        "output_tokens",
        "Output (tokens)",
        "tokens",
        Precision::Exact,
        Role::Detail,
        |l| l.output_tokens.map(Value::Count),
    ))
};

pub static TTFT_P50_S: LevelField = judging(
    percentile(
        chart(
            field(
                "ttft_p50_s",
                "TTFT p50 (s)",
                "s",
                Precision::Decimals(3),
                LOWER,
                |l| measured(l.ttft_p50_s),
            ),
            "TTFT p50",
            Some("Time to first token p50"),
        ),
        50,
    ),
    RequestFigure::Ttft,
);

pub static TTFT_P95_S: LevelField = judging(
    percentile(
        chart(
            field(
                "ttft_p95_s",
                "TTFT p95 (s)",
                "s",
                Precision::Decimals(3),
                LOWER,
                |l| measured(l.ttft_p95_s),
            ),
            "TTFT p95",
            Some("Time to first token p95"),
        ),
        95,
    ),
    RequestFigure::Ttft,
);

pub static DECODE_TOK_S_PER_STREAM: LevelField = chart(
    field(
        "decode_tok_s_per_stream",
        "Decode tok/s per stream",
        "tok/s",
        Precision::Decimals(1),
        HIGHER,
        |l| measured(l.decode_tok_s_per_stream),
    ),
    "decode tok/s per stream",
    Some("Decode speed per stream"),
);

pub static TOTAL_TOK_S: LevelField = chart(
    field(
        "total_tok_s",
        "Output tok/s, all streams",
        "tok/s",
        Precision::Decimals(1),
        HIGHER,
        |l| measured(l.total_tok_s),
    ),
    "output tok/s, all streams",
    Some("Output throughput, all streams"),
);

pub static PROMPT_AND_OUTPUT_TOK_S: LevelField = level(field(
    "prompt_and_output_tok_s",
    "Prompt + output tok/s, all streams",
    "tok/s",
    Precision::Decimals(1),
    HIGHER,
    |l| measured(l.prompt_and_output_tok_s),
));

pub static LATENCY_P50_S: LevelField = judging(
    percentile(
        chart(
            field(
                "latency_p50_s",
                "Latency p50 (s)",
                "s",
                Precision::Decimals(2),
                LOWER,
                |l| measured(l.latency_p50_s),
            ),
            "latency p50",
            None,
        ),
        50,
    ),
    RequestFigure::Latency,
);

pub static LATENCY_P95_S: LevelField = judging(
    percentile(
        chart(
            field(
                "latency_p95_s",
                "Latency p95 (s)",
                "s",
                Precision::Decimals(2),
                LOWER,
                |l| measured(l.latency_p95_s),
            ),
            "latency p95",
            None,
        ),
        95,
    ),
    RequestFigure::Latency,
);

pub static TPOT_P50_MS: LevelField = judging(
    percentile(
        level(field(
            "tpot_p50_ms",
            "TPOT p50 (ms)",
            "ms",
            Precision::Decimals(1),
            LOWER,
            |l| measured(l.tpot_p50_ms),
        )),
        50,
    ),
    RequestFigure::Tpot,
);

pub static TPOT_P95_MS: LevelField = judging(
    percentile(
        level(field(
            "tpot_p95_ms",
            "TPOT p95 (ms)",
            "ms",
            Precision::Decimals(1),
            LOWER,
            |l| measured(l.tpot_p95_ms),
        )),
        95,
    ),
    RequestFigure::Tpot,
);

pub static ITL_P50_MS: LevelField = level(field(
    "itl_p50_ms",
    "ITL p50 (ms)",
    "ms",
    Precision::Decimals(2),
    LOWER,
    |l| measured(l.itl_p50_ms),
));

pub static ITL_P95_MS: LevelField = level(field(
    "itl_p95_ms",
    "ITL p95 (ms)",
    "ms",
    Precision::Decimals(2),
    LOWER,
    |l| measured(l.itl_p95_ms),
));

pub static ITL_P99_MS: LevelField = level(field(
    "itl_p99_ms",
    "ITL p99 (ms)",
    "ms",
    Precision::Decimals(2),
    LOWER,
    |l| measured(l.itl_p99_ms),
));

pub static MAX_STALL_MS: LevelField = level(field(
    "max_stall_ms",
    "Longest stall (ms)",
    "ms",
    Precision::Decimals(1),
    LOWER,
    |l| measured(l.max_stall_ms),
));

pub static ITL_GAPS: LevelField = level(field(
    "itl_gaps",
    "Inter-token gaps",
    "",
    Precision::Exact,
    Role::Detail,
    |l| l.itl_gaps.map(Value::Count),
));

pub static TOKENS_PER_CHUNK: LevelField = level(field(
    "tokens_per_chunk",
    "Tokens per chunk",
    "",
    Precision::Decimals(2),
    Role::Detail,
    |l| l.tokens_per_chunk.map(Value::Number),
));

pub static BUNCHED_SHARE: LevelField = level(field(
    "bunched_share",
    "Chunks in the read before's",
    "",
    Precision::Decimals(2),
    Role::Detail,
    |l| l.bunched_share.map(Value::Number),
));

pub static POWER_W: LevelField = level(field(
    "power_w",
    "GPU power (W)",
    "W",
    Precision::Decimals(0),
    Role::Figure(Better::Neither),
    |l| l.power_w.map(Value::Number),
));

pub static JOULES_PER_TOKEN: LevelField = level(field(
    "joules_per_token",
    "Energy (J/token)",
    "J/token",
    Precision::Decimals(3),
    LOWER,
    |l| l.joules_per_token.map(Value::Number),
));

pub static CACHED_PROMPT_TOKENS: LevelField = level(field(
    "cached_prompt_tokens",
    "Cached prompt tokens",
    "tokens",
    Precision::Exact,
    Role::Detail,
    |l| l.cached_prompt_tokens.map(Value::Count),
));

pub static ACHIEVED_RPS: LevelField = level(field(
    "achieved_rps",
    "Requests/s answered",
    "req/s",
    Precision::Decimals(2),
    HIGHER,
    |l| measured(l.achieved_rps),
));

pub static WALL_S: LevelField = level(field(
    "wall_s",
    "Wall time (s)",
    "s",
    Precision::Decimals(2),
    Role::Detail,
    |l| measured(l.wall_s),
));

pub static WAIT_P50_S: LevelField = level(field(
    "wait_p50_s",
    "Client wait p50 (s)",
    "s",
    Precision::Decimals(3),
    LOWER,
    |l| measured(l.wait_p50_s),
));

pub static WAIT_P95_S: LevelField = level(field(
    "wait_p95_s",
    "Client wait p95 (s)",
    "s",
    Precision::Decimals(3),
    LOWER,
    |l| measured(l.wait_p95_s),
));

pub static WAIT_MAX_S: LevelField = level(field(
    "wait_max_s",
    "Longest client wait (s)",
    "s",
    Precision::Decimals(3),
    LOWER,
    |l| measured(l.wait_max_s),
));

pub static PEAK_IN_FLIGHT: LevelField = level(field(
    "peak_in_flight",
    "Most in flight",
    "",
    Precision::Exact,
    Role::Detail,
    |l| l.peak_in_flight.map(Value::Count),
));

pub static UNSENT: LevelField = level(field(
    "unsent",
    "Arrivals never sent",
    "",
    Precision::Exact,
    LOWER,
    |l| l.unsent.map(Value::Count),
));

const fn scraped(
    key: &'static str,
    label: &'static str,
    get: fn(&SweepLevel) -> Option<Value>,
) -> LevelField {
    level(field(
        key,
        label,
        "",
        Precision::Decimals(1),
        Role::Detail,
        get,
    ))
}

pub static RUNNING_MEAN: LevelField = scraped("running_mean", "Running, mean", |l| {
    measured(l.running_mean)
});
pub static RUNNING_MAX: LevelField =
    scraped("running_max", "Running, most", |l| measured(l.running_max));
pub static WAITING_MEAN: LevelField = scraped("waiting_mean", "Waiting, mean", |l| {
    measured(l.waiting_mean)
});
pub static WAITING_MAX: LevelField =
    scraped("waiting_max", "Waiting, most", |l| measured(l.waiting_max));
pub static KV_USAGE_MEAN: LevelField =
    scraped("kv_usage_mean", "KV cache share in use, mean", |l| {
        measured(l.kv_usage_mean)
    });
pub static KV_USAGE_MAX: LevelField = scraped("kv_usage_max", "KV cache share in use, most", |l| {
    measured(l.kv_usage_max)
});
pub static PREEMPTIONS: LevelField = level(field(
    "preemptions",
    "Preemptions",
    "",
    Precision::Exact,
    LOWER,
    |l| l.preemptions.map(Value::Count),
));
pub static PREFIX_QUERIES: LevelField = level(field(
    "prefix_queries",
    "Prefix cache lookups (tokens)",
    "tokens",
    Precision::Exact,
    Role::Detail,
    |l| l.prefix_queries.map(Value::Count),
));
pub static PREFIX_HITS: LevelField = level(field(
    "prefix_hits",
    "Prefix cache hits (tokens)",
    "tokens",
    Precision::Exact,
    Role::Detail,
    |l| l.prefix_hits.map(Value::Count),
));
pub static METRIC_SCRAPES: LevelField = level(field(
    "metric_scrapes",
    "/metrics scrapes",
    "",
    Precision::Exact,
    Role::Detail,
    |l| l.metric_scrapes.map(Value::Count),
));

/// Time per output token from the level's mean per-stream decode rate (1000 / rate), for
/// limits on levels recorded before TPOT percentiles were. Not a field of the document.
pub static TPOT_FROM_RATE_MS: LevelField = judging(
    level(field(
        "tpot_ms",
        "1000 / per-stream rate (ms)",
        "ms",
        Precision::Decimals(1),
        LOWER,
        |l| {
            l.decode_tok_s_per_stream
                .filter(|&rate| rate > 0.0)
                .map(|rate| Value::Number(1000.0 / rate))
        },
    )),
    RequestFigure::Tpot,
);

/// Every field of a sweep level, in the order of the sweep-levels download and table.
pub static ALL: [&LevelField; 44] = [
    &CONCURRENCY,
    &RATE_RPS,
    &REQUESTS,
    &SUCCEEDED,
    &FAILED,
    &STATUS,
    &PROMPT_TOKENS,
    &OUTPUT_TOKENS,
    &TTFT_P50_S,
    &TTFT_P95_S,
    &DECODE_TOK_S_PER_STREAM,
    &TOTAL_TOK_S,
    &PROMPT_AND_OUTPUT_TOK_S,
    &LATENCY_P50_S,
    &LATENCY_P95_S,
    &TPOT_P50_MS,
    &TPOT_P95_MS,
    &ITL_P50_MS,
    &ITL_P95_MS,
    &ITL_P99_MS,
    &MAX_STALL_MS,
    &ITL_GAPS,
    &TOKENS_PER_CHUNK,
    &BUNCHED_SHARE,
    &POWER_W,
    &JOULES_PER_TOKEN,
    &CACHED_PROMPT_TOKENS,
    &ACHIEVED_RPS,
    &WALL_S,
    &WAIT_P50_S,
    &WAIT_P95_S,
    &WAIT_MAX_S,
    &PEAK_IN_FLIGHT,
    &UNSENT,
    &RUNNING_MEAN,
    &RUNNING_MAX,
    &WAITING_MEAN,
    &WAITING_MAX,
    &KV_USAGE_MEAN,
    &KV_USAGE_MAX,
    &PREEMPTIONS,
    &PREFIX_QUERIES,
    &PREFIX_HITS,
    &METRIC_SCRAPES,
];

/// The figures a latency limit (`[slo]`) may bound, by their key, in the order the limits
/// form shows them.
pub static LIMITS: [&LevelField; 7] = [
    &TTFT_P50_S,
    &TTFT_P95_S,
    &TPOT_P50_MS,
    &TPOT_P95_MS,
    &TPOT_FROM_RATE_MS,
    &LATENCY_P50_S,
    &LATENCY_P95_S,
];

/// The pairs of a percentile and a higher one of the same figure: the first may not exceed
/// the second.
pub static PERCENTILE_PAIRS: [(&LevelField, &LevelField); 8] = [
    (&TTFT_P50_S, &TTFT_P95_S),
    (&LATENCY_P50_S, &LATENCY_P95_S),
    (&TPOT_P50_MS, &TPOT_P95_MS),
    (&ITL_P50_MS, &ITL_P95_MS),
    (&ITL_P95_MS, &ITL_P99_MS),
    (&ITL_P99_MS, &MAX_STALL_MS),
    (&WAIT_P50_S, &WAIT_P95_S),
    (&WAIT_P95_S, &WAIT_MAX_S),
];

/// The measured figures of a sweep level: those its charts draw and a successful level
/// must have.
pub fn measured_figures() -> impl Iterator<Item = &'static LevelField> {
    ALL.iter().copied().filter(|f| !f.series.is_empty())
}

/// The limit figure of a `[slo]` key.
pub fn limit(key: &str) -> Option<&'static LevelField> {
    LIMITS.iter().copied().find(|f| f.field.key == key)
}

#[cfg(test)]
mod tests {
    use super::super::field::testing::{reads_its_key, schema_keys, seed};
    use super::*;

    #[test]
    fn every_field_of_a_level_is_an_entry_and_reads_its_own_key() {
        let mut keys: Vec<String> = ALL.iter().map(|f| f.field.key.to_owned()).collect();
        keys.extend(["source", "ci95", "delivery", "engine_view"].map(String::from));
        keys.sort();
        assert_eq!(keys, schema_keys("SweepLevel"));
        let seed = seed();
        let doc: crate::data::Results = serde_json::from_value(seed.clone()).unwrap();
        let fields: Vec<&Field<SweepLevel>> = ALL.iter().map(|f| &f.field).collect();
        for (sweep, json) in doc.sweeps.iter().zip(seed["sweeps"].as_array().unwrap()) {
            for (level, json) in sweep.levels.iter().zip(json["levels"].as_array().unwrap()) {
                reads_its_key(&fields, level, json);
            }
        }
    }

    #[test]
    fn limits_are_the_slo_keys_and_read_per_stream_time_from_the_rate() {
        let keys: Vec<&str> = LIMITS.iter().map(|f| f.field.key).collect();
        assert_eq!(
            keys,
            [
                "ttft_p50_s",
                "ttft_p95_s",
                "tpot_p50_ms",
                "tpot_p95_ms",
                "tpot_ms",
                "latency_p50_s",
                "latency_p95_s"
            ]
        );
        let level: SweepLevel = serde_json::from_value(serde_json::json!({
            "concurrency": 1, "requests": 1, "succeeded": 1, "failed": 0, "status": "ok",
            "decode_tok_s_per_stream": 40.0
        }))
        .unwrap();
        // 1000 ms / 40 tok/s = 25 ms per token.
        assert_eq!(TPOT_FROM_RATE_MS.field.number_in(&level), Some(25.0));
        assert!(limit("tpot_p99_ms").is_none());
    }

    #[test]
    fn a_name_is_the_label_without_its_unit() {
        assert_eq!(TTFT_P50_S.field.name(), "TTFT p50");
        assert_eq!(TPOT_FROM_RATE_MS.field.name(), "1000 / per-stream rate");
        // A label that does not end in its unit is its own name.
        assert_eq!(TOTAL_TOK_S.field.name(), "Output tok/s, all streams");
        assert_eq!(CONCURRENCY.field.name(), "Concurrency");
    }
}

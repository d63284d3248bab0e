//! The figure registry: every field of a run and of a sweep level stated once, with its
//! label, unit, which way is better and how to read it from the record. Checks, `diff`, the
//! CSV downloads, the tables, the charts and `collect` read these lists; adding a figure is
//! one entry here plus the struct field.

use super::model::{Run, SweepLevel};

/// Which way a figure is better.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Better {
    /// More is better (throughput).
    Higher,
    /// Less is better (latency).
    Lower,
    /// Neither (a size, a cold sample).
    Neither,
}

/// What a field is to a comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// The record's key: never compared.
    Key,
    /// A measured figure: compared as a number, with a better direction.
    Figure(Better),
    /// A setting or description: compared as written.
    Setting,
    /// Raw material of another figure (the decode samples): downloaded, not compared.
    Detail,
}

/// A field's value, raw.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// A measured number.
    Number(f64),
    /// A whole count.
    Count(u64),
    /// Text.
    Text(String),
    /// A switch.
    Bool(bool),
    /// A list of numbers.
    Numbers(Vec<f64>),
}

impl Value {
    /// The value as a number, when it is one.
    pub fn number(&self) -> Option<f64> {
        match self {
            Value::Number(value) => Some(*value),
            Value::Count(value) => Some(*value as f64),
            _ => None,
        }
    }

    /// The value as the document's JSON writes it: strings bare, lists space-separated.
    pub fn raw(&self) -> String {
        match self {
            Value::Number(value) => value.to_string(),
            Value::Count(value) => value.to_string(),
            Value::Text(text) => text.clone(),
            Value::Bool(on) => on.to_string(),
            Value::Numbers(values) => values
                .iter()
                .map(f64::to_string)
                .collect::<Vec<_>>()
                .join(" "),
        }
    }
}

/// One field of a record of type `R`.
pub struct Field<R> {
    /// The JSON key.
    pub key: &'static str,
    /// The column header for readers, with its unit where it has one.
    pub label: &'static str,
    /// The unit written after the value (`tok/s`), or empty.
    pub unit: &'static str,
    /// What it is to a comparison.
    pub role: Role,
    /// Its value in a record; `None` when absent.
    pub get: fn(&R) -> Option<Value>,
}

fn number(value: f64) -> Option<Value> {
    Some(Value::Number(value))
}

fn text(value: &str) -> Option<Value> {
    Some(Value::Text(value.to_owned()))
}

/// Every field of a run, in the order of the runs download.
pub const RUN: &[Field<Run>] = &[
    Field {
        key: "id",
        label: "Run",
        unit: "",
        role: Role::Key,
        get: |r| text(r.id.as_str()),
    },
    Field {
        key: "model",
        label: "Model",
        unit: "",
        role: Role::Setting,
        get: |r| text(&r.model),
    },
    Field {
        key: "checkpoint",
        label: "Checkpoint",
        unit: "",
        role: Role::Setting,
        get: |r| text(&r.checkpoint),
    },
    Field {
        key: "shape",
        label: "Shape",
        unit: "",
        role: Role::Setting,
        get: |r| text(&r.shape),
    },
    Field {
        key: "precision",
        label: "Precision",
        unit: "",
        role: Role::Setting,
        get: |r| text(&r.precision),
    },
    Field {
        key: "profile",
        label: "Profile",
        unit: "",
        role: Role::Setting,
        get: |r| text(&r.profile),
    },
    Field {
        key: "overrides",
        label: "Overrides",
        unit: "",
        role: Role::Setting,
        get: |r| text(&r.overrides),
    },
    Field {
        key: "weights_gb",
        label: "Weights (GB)",
        unit: "GB",
        role: Role::Figure(Better::Neither),
        get: |r| r.weights_gb.map(Value::Number),
    },
    Field {
        key: "max_model_len",
        label: "Context (tokens)",
        unit: "tokens",
        role: Role::Setting,
        get: |r| Some(Value::Count(r.max_model_len)),
    },
    Field {
        key: "vision",
        label: "Vision",
        unit: "",
        role: Role::Setting,
        get: |r| Some(Value::Bool(r.vision)),
    },
    Field {
        key: "cuda_graphs",
        label: "CUDA graphs",
        unit: "",
        role: Role::Setting,
        get: |r| Some(Value::Bool(r.cuda_graphs)),
    },
    Field {
        key: "spec_decode",
        label: "Speculative decoding",
        unit: "",
        role: Role::Setting,
        get: |r| Some(Value::Bool(r.spec_decode)),
    },
    Field {
        key: "decode_tok_s",
        label: "Decode tok/s",
        unit: "tok/s",
        role: Role::Figure(Better::Higher),
        get: |r| number(r.decode_tok_s),
    },
    Field {
        key: "decode_cold_sample",
        label: "Cold first request (tok/s)",
        unit: "tok/s",
        role: Role::Figure(Better::Neither),
        get: |r| r.decode_cold_sample.map(Value::Number),
    },
    Field {
        key: "decode_samples",
        label: "Decode samples (tok/s)",
        unit: "tok/s",
        role: Role::Detail,
        get: |r| Some(Value::Numbers(r.decode_samples.clone())),
    },
    Field {
        key: "prompt_tok_s",
        label: "Prompt tok/s",
        unit: "tok/s",
        role: Role::Figure(Better::Higher),
        get: |r| r.prompt_tok_s.map(Value::Number),
    },
    Field {
        key: "prompt_tokens",
        label: "Prompt (tokens)",
        unit: "tokens",
        role: Role::Setting,
        get: |r| r.prompt_tokens.map(Value::Count),
    },
    Field {
        key: "kv_tokens",
        label: "KV pool (tokens)",
        unit: "tokens",
        role: Role::Figure(Better::Higher),
        get: |r| r.kv_tokens.map(Value::Count),
    },
    Field {
        key: "max_concurrency",
        label: "Full-context sequences",
        unit: "",
        role: Role::Figure(Better::Higher),
        get: |r| r.max_concurrency.map(Value::Number),
    },
    Field {
        key: "kv_cache_dtype",
        label: "KV-cache dtype",
        unit: "",
        role: Role::Setting,
        get: |r| r.kv_cache_dtype.as_deref().and_then(text),
    },
    Field {
        key: "spec_acceptance",
        label: "Speculative acceptance",
        unit: "",
        role: Role::Figure(Better::Higher),
        get: |r| r.spec_acceptance.map(Value::Number),
    },
    Field {
        key: "vllm_version",
        label: "vLLM",
        unit: "",
        role: Role::Setting,
        get: |r| r.vllm_version.as_deref().and_then(text),
    },
    Field {
        key: "server",
        label: "Server software",
        unit: "",
        role: Role::Setting,
        get: |r| r.server.as_deref().and_then(text),
    },
    Field {
        key: "power_w",
        label: "GPU power (W)",
        unit: "W",
        role: Role::Figure(Better::Neither),
        get: |r| r.power_w.map(Value::Number),
    },
    Field {
        key: "joules_per_token",
        label: "Energy (J/token)",
        unit: "J/token",
        role: Role::Figure(Better::Lower),
        get: |r| r.joules_per_token.map(Value::Number),
    },
    Field {
        key: "source",
        label: "Imported from",
        unit: "",
        role: Role::Detail,
        get: |r| r.source.as_deref().and_then(text),
    },
    Field {
        key: "generated",
        label: "Measured",
        unit: "",
        role: Role::Detail,
        get: |r| text(r.generated.as_str()),
    },
];

/// One field of a sweep level, with the words its charts use.
pub struct LevelField {
    /// The key, label, unit, role and getter.
    pub field: Field<SweepLevel>,
    /// Its column in the sweep-levels download, where it differs from the key.
    pub column: &'static str,
    /// Its name as a chart series (`TTFT p50`), for figures.
    pub series: &'static str,
    /// The title of its overlay of every sweep (`Time to first token p50`), when it has one.
    pub overlay: Option<&'static str>,
}

const fn level(
    key: &'static str,
    label: &'static str,
    unit: &'static str,
    role: Role,
    get: fn(&SweepLevel) -> Option<Value>,
) -> LevelField {
    LevelField {
        field: Field {
            key,
            label,
            unit,
            role,
            get,
        },
        column: key,
        series: "",
        overlay: None,
    }
}

const fn chart(
    mut field: LevelField,
    series: &'static str,
    overlay: Option<&'static str>,
) -> LevelField {
    field.series = series;
    field.overlay = overlay;
    field
}

fn seconds(value: Option<f64>) -> Option<Value> {
    value.map(Value::Number)
}

/// Every field of a sweep level, in the order of the sweep-levels download and table.
pub const LEVEL: &[LevelField] = &[
    level("concurrency", "Concurrency", "", Role::Key, |l| {
        Some(Value::Count(l.concurrency))
    }),
    level("requests", "Requests", "", Role::Detail, |l| {
        Some(Value::Count(l.requests))
    }),
    level("succeeded", "Succeeded", "", Role::Detail, |l| {
        Some(Value::Count(l.succeeded))
    }),
    level("failed", "Failed", "", Role::Figure(Better::Lower), |l| {
        Some(Value::Count(l.failed))
    }),
    level("status", "Status", "", Role::Detail, |l| {
        text(l.status.as_str())
    }),
    level(
        "prompt_tokens",
        "Prompt (tokens)",
        "tokens",
        Role::Detail,
        |l| l.prompt_tokens.map(Value::Count),
    ),
    LevelField {
        column: "output_tokens_per_request",
        ..level(
            "output_tokens",
            "Output (tokens)",
            "tokens",
            Role::Detail,
            |l| l.output_tokens.map(Value::Count),
        )
    },
    chart(
        level(
            "ttft_p50_s",
            "TTFT p50 (s)",
            "s",
            Role::Figure(Better::Lower),
            |l| seconds(l.ttft_p50_s),
        ),
        "TTFT p50",
        Some("Time to first token p50"),
    ),
    chart(
        level(
            "ttft_p95_s",
            "TTFT p95 (s)",
            "s",
            Role::Figure(Better::Lower),
            |l| seconds(l.ttft_p95_s),
        ),
        "TTFT p95",
        Some("Time to first token p95"),
    ),
    chart(
        level(
            "decode_tok_s_per_stream",
            "Decode tok/s per stream",
            "tok/s",
            Role::Figure(Better::Higher),
            |l| seconds(l.decode_tok_s_per_stream),
        ),
        "decode tok/s per stream",
        Some("Decode speed per stream"),
    ),
    chart(
        level(
            "total_tok_s",
            "Total tok/s",
            "tok/s",
            Role::Figure(Better::Higher),
            |l| seconds(l.total_tok_s),
        ),
        "total tok/s",
        Some("Total throughput"),
    ),
    chart(
        level(
            "latency_p50_s",
            "Latency p50 (s)",
            "s",
            Role::Figure(Better::Lower),
            |l| seconds(l.latency_p50_s),
        ),
        "latency p50",
        None,
    ),
    chart(
        level(
            "latency_p95_s",
            "Latency p95 (s)",
            "s",
            Role::Figure(Better::Lower),
            |l| seconds(l.latency_p95_s),
        ),
        "latency p95",
        None,
    ),
    level(
        "tpot_p50_ms",
        "TPOT p50 (ms)",
        "ms",
        Role::Figure(Better::Lower),
        |l| seconds(l.tpot_p50_ms),
    ),
    level(
        "tpot_p95_ms",
        "TPOT p95 (ms)",
        "ms",
        Role::Figure(Better::Lower),
        |l| seconds(l.tpot_p95_ms),
    ),
    level(
        "power_w",
        "GPU power (W)",
        "W",
        Role::Figure(Better::Neither),
        |l| l.power_w.map(Value::Number),
    ),
    level(
        "joules_per_token",
        "Energy (J/token)",
        "J/token",
        Role::Figure(Better::Lower),
        |l| l.joules_per_token.map(Value::Number),
    ),
];

/// The sweep-level field with this key.
///
/// # Panics
/// When no field has the key: the names are the program's own.
pub fn level_field(key: &str) -> &'static LevelField {
    LEVEL
        .iter()
        .find(|f| f.field.key == key)
        .unwrap_or_else(|| panic!("no sweep-level field {key:?}"))
}

/// The run field with this key.
///
/// # Panics
/// When no field has the key.
pub fn run_field(key: &str) -> &'static Field<Run> {
    RUN.iter()
        .find(|f| f.key == key)
        .unwrap_or_else(|| panic!("no run field {key:?}"))
}

/// The measured figures of a sweep level: those its charts draw and a successful level
/// must have.
pub fn measured() -> impl Iterator<Item = &'static LevelField> {
    LEVEL.iter().filter(|f| !f.series.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(schema: &serde_json::Value, def: &str) -> Vec<String> {
        let mut keys: Vec<String> = schema["$defs"][def]["properties"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect();
        keys.sort();
        keys
    }

    #[test]
    fn the_registries_cover_every_field_of_their_structs() {
        let schema = crate::data::schema();
        let mut run: Vec<String> = RUN.iter().map(|f| f.key.to_owned()).collect();
        run.extend(
            [
                "status",
                "weights_source",
                "notes",
                "quality",
                "forced",
                "provenance",
            ]
            .map(String::from),
        );
        run.sort();
        assert_eq!(run, keys(schema, "Run"));
        let mut level: Vec<String> = LEVEL.iter().map(|f| f.field.key.to_owned()).collect();
        level.push("source".into());
        level.sort();
        assert_eq!(level, keys(schema, "SweepLevel"));
    }
}

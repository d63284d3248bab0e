//! guidellm's JSON report: each synchronous or concurrent benchmark is a level. Field names
//! are those of guidellm's `GenerativeBenchmarksReport` and `GenerativeRequestStats`.

use serde_json::Value;

use super::super::error::CollectError;
use super::super::level::{Request, counted, figures};
use super::common::{Imported, Loaded};
use crate::data::{Arrivals, Date, Load, Process, RequestLine, RequestStatus};
use crate::stats;

/// A guidellm JSON report's levels: its constant and Poisson benchmarks, each an open-loop
/// level at its rate, when it has any (a guidellm sweep's synchronous and throughput ones are
/// then left out: a sweep is one kind of load); else each synchronous or concurrent benchmark
/// at its streams. Throughput benchmarks have neither a rate nor a concurrency.
pub(super) fn levels(result: &Loaded) -> Result<Vec<Imported>, CollectError> {
    let benchmarks = result.json["benchmarks"].as_array();
    let rated: Vec<Imported> = benchmarks
        .into_iter()
        .flatten()
        .filter_map(|benchmark| {
            let strategy = &benchmark["config"]["strategy"];
            let process = match strategy["type_"].as_str()? {
                "constant" => Process::Constant,
                "poisson" => Process::Gamma,
                _ => return None,
            };
            let rate = strategy["rate"].as_f64().filter(|r| *r > 0.0)?;
            let mut imported = guidellm_level(&result.file, benchmark, Load::Rate(rate));
            imported.arrivals = Some(Arrivals {
                process,
                burstiness: 1.0,
                seed: strategy["random_seed"].as_u64(),
                max_concurrency: strategy["max_concurrency"].as_u64(),
                requests: imported.level.requests.max(1),
                duration_s: None,
            });
            Some(imported)
        })
        .collect();
    if !rated.is_empty() {
        return Ok(rated);
    }
    concurrency_levels(result)
}

/// Each synchronous or concurrent benchmark of a guidellm JSON report as a level.
fn concurrency_levels(result: &Loaded) -> Result<Vec<Imported>, CollectError> {
    let file = &result.file;
    let benchmarks = result.json["benchmarks"].as_array().ok_or_else(|| {
        CollectError::Usage(format!(
            "{file}: no `benchmarks` list: not a guidellm JSON report"
        ))
    })?;
    let mut levels = Vec::new();
    let mut other = Vec::new();
    for benchmark in benchmarks {
        let strategy = &benchmark["config"]["strategy"];
        let kind = strategy["type_"].as_str().unwrap_or("unknown");
        let concurrency = match kind {
            "synchronous" => 1,
            "concurrent" => strategy["streams"].as_u64().unwrap_or(0),
            _ => 0,
        };
        if concurrency == 0 {
            other.push(kind);
            continue;
        }
        levels.push(guidellm_level(
            file,
            benchmark,
            Load::Concurrency(concurrency),
        ));
    }
    if levels.is_empty() {
        return Err(CollectError::Usage(format!(
            "{file}: no synchronous, concurrent, constant or poisson benchmark (found: {}): a sweep is concurrency or rate levels; run guidellm with --profile concurrent, constant or poisson",
            if other.is_empty() {
                "none".to_owned()
            } else {
                other.join(", ")
            }
        )));
    }
    Ok(levels)
}

/// One guidellm benchmark at `load`: its streams, or its rate.
fn guidellm_level(file: &str, benchmark: &Value, load: Load) -> Imported {
    let metrics = &benchmark["metrics"];
    let totals = &metrics["request_totals"];
    let count = |key: &str| totals[key].as_u64().unwrap_or(0);
    let completed = count("successful");
    let mut level = counted(load, completed, count("errored") + count("incomplete"));
    let successful = |name: &str| &metrics[name]["successful"];
    let duration = benchmark["duration"].as_f64().filter(|&d| d > 0.0);
    level.wall_s = duration.map(|d| stats::round(d, 3));
    level.achieved_rps = duration.map(|d| stats::round(completed as f64 / d, 3));
    level.total_tok_s = successful("output_token_count")["total_sum"]
        .as_f64()
        .zip(duration)
        .filter(|_| completed > 0)
        .map(|(tokens, seconds)| stats::round(tokens / seconds, 1));
    let sampled = benchmark["requests"]["successful"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    let mut lines = Vec::new();
    if !sampled.is_empty() {
        let requests: Vec<Request> = sampled
            .iter()
            .filter_map(|request| {
                let timings = &request["info"]["timings"];
                let at = |key: &str| timings[key].as_f64();
                let start = at("request_start")?;
                let ttft = request["time_to_first_token_ms"]
                    .as_f64()
                    .map(|ms| ms / 1e3)
                    .or_else(|| Some(at("first_token_iteration")? - start))?;
                Some(Request {
                    ttft,
                    latency: at("last_token_iteration").map(|last| last - start),
                    output: request["output_tokens"].as_f64(),
                    prompt: request["prompt_tokens"].as_f64(),
                    // guidellm's benchmarks keep no inter-token gaps.
                    gaps: std::borrow::Cow::Borrowed(&[]),
                    chunks: None,
                })
            })
            .collect();
        figures(&mut level, &requests);
        // Every request's record, none failed: the sweep's per-request data (a sample, or
        // failures without records, would make goodput a sample's).
        if requests.len() as u64 == completed && level.failed == 0 {
            lines = requests.iter().enumerate().map(line).collect();
        }
        level.source = Some(format!(
            "{file}: recomputed from {} per-request records{}: TTFT to the first token, latency to the last token; total tok/s is output_token_count over the benchmark's duration",
            requests.len(),
            if (requests.len() as u64) < completed {
                format!(" (a sample of the {completed} successful)")
            } else {
                String::new()
            }
        ));
    } else {
        let value = |name: &str, key: &str| successful(name)[key].as_f64();
        let p95 = |name: &str| successful(name)["percentiles"]["p95"].as_f64();
        let seconds = |ms: Option<f64>| ms.map(|v| stats::round(v / 1e3, 4));
        level.ttft_p50_s = seconds(value("time_to_first_token_ms", "median"));
        level.ttft_p95_s = seconds(p95("time_to_first_token_ms"));
        level.latency_p50_s = value("request_latency", "median").map(|v| stats::round(v, 4));
        level.latency_p95_s = p95("request_latency").map(|v| stats::round(v, 4));
        level.tpot_p50_ms = value("inter_token_latency_ms", "median").map(|v| stats::round(v, 4));
        level.tpot_p95_ms = p95("inter_token_latency_ms").map(|v| stats::round(v, 4));
        level.decode_tok_s_per_stream = value("inter_token_latency_ms", "mean")
            .filter(|&ms| ms > 0.0)
            .map(|ms| stats::round(1e3 / ms, 1));
        level.output_tokens = value("output_token_count", "median").map(|v| v.round() as u64);
        level.prompt_tokens = value("prompt_token_count", "median").map(|v| v.round() as u64);
        level.source = Some(format!(
            "{file}: summary distributions only (no per-request records): latency is request_latency (to the response's end), TPOT p50 and p95 are inter_token_latency_ms's, decode tok/s per stream is 1000 / mean inter_token_latency_ms"
        ));
    }
    let backend = &benchmark["config"]["backend"];
    Imported {
        arrivals: None,
        lines,
        level,
        model: find_text(backend, "model").or_else(|| find_text(&benchmark["config"], "model")),
        date: benchmark["start_time"].as_f64().and_then(date_of_epoch),
        target: find_text(backend, "target"),
        file: file.to_owned(),
    }
}

/// Answered request `n` as the sweep's per-request data keeps it (guidellm's records keep no
/// chunk gaps, and no send time this import reads).
fn line((n, r): (usize, &Request)) -> RequestLine {
    RequestLine {
        level: 0,
        n: n as u64,
        due_s: None,
        sent_s: None,
        status: RequestStatus::Ok,
        ttft_s: Some(stats::round(r.ttft, 6)),
        latency_s: r.latency.map(|l| stats::round(l, 6)),
        output_tokens: r.output.map(|t| t as u64),
        prompt_tokens: r.prompt.map(|t| t as u64),
        chunks: None,
        gap_p50_ms: None,
        gap_max_ms: None,
        finish_reason: None,
        bursts: None,
        short: None,
        error: None,
    }
}

/// The first string under `key` anywhere in `value`, depth first.
fn find_text(value: &Value, key: &str) -> Option<String> {
    match value {
        Value::Object(map) => map
            .get(key)
            .and_then(Value::as_str)
            .map(str::to_owned)
            .or_else(|| map.values().find_map(|v| find_text(v, key))),
        Value::Array(items) => items.iter().find_map(|v| find_text(v, key)),
        _ => None,
    }
}

/// Seconds since 1970 (UTC) as a calendar date, for times after 1970 and before 5138.
fn date_of_epoch(seconds: f64) -> Option<Date> {
    if !(0.0..1e11).contains(&seconds) {
        return None;
    }
    Date::of_unix_seconds(seconds)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_of_epoch_seconds() {
        let shown = |s: f64| date_of_epoch(s).map(|d| d.to_string());
        assert_eq!(shown(0.0).as_deref(), Some("1970-01-01"));
        assert_eq!(shown(951_782_400.0).as_deref(), Some("2000-02-29"));
        assert_eq!(shown(1_796_306_262.5).as_deref(), Some("2026-12-03"));
    }
}

//! NVIDIA AIPerf's `profile_export_aiperf.json` and its predecessor genai-perf's
//! `profile_export_genai_perf.json` (AIPerf mimics its structure): one file per concurrency,
//! each a level. Metrics are stats blocks (`unit`, `avg`, `p50`, `p95`, …) under their names
//! (`aiperf/common/models/export_models.py`, `genai_perf/export_data/json_exporter.py`); the
//! concurrency is the load setting in `input_config`.

use serde_json::Value;

use super::super::error::CollectError;
use super::super::level::counted;
use super::common::{Imported, Loaded};
use crate::data::{Date, Load};
use crate::stats;

/// The concurrency a run was driven at, and where it was found: AIPerf's
/// `input_config.loadgen.concurrency`, its sweep point `run_info.variation_values`,
/// genai-perf's flat `input_config.concurrency` or its config file's
/// `input_config.perf_analyzer.stimulus.concurrency`.
fn concurrency(json: &Value) -> Option<u64> {
    let config = &json["input_config"];
    config["loadgen"]["concurrency"]
        .as_u64()
        .or_else(|| {
            json["run_info"]["variation_values"]
                .as_object()?
                .iter()
                .find(|(key, _)| key.contains("concurrency"))?
                .1
                .as_u64()
        })
        .or_else(|| config["concurrency"].as_u64())
        .or_else(|| config["perf_analyzer"]["stimulus"]["concurrency"].as_u64())
}

/// A statistic of a metric in seconds, by the block's unit.
fn seconds(json: &Value, metric: &str, stat: &str) -> Option<f64> {
    let block = &json[metric];
    let value = block[stat].as_f64()?;
    let scale = match block["unit"].as_str().unwrap_or("ms") {
        "ns" => 1e-9,
        "us" => 1e-6,
        "ms" => 1e-3,
        "s" | "sec" => 1.0,
        _ => return None,
    };
    Some(stats::round(value * scale, 4))
}

/// One AIPerf or genai-perf export as a level.
pub(super) fn level(result: &Loaded) -> Result<Imported, CollectError> {
    let json = &result.json;
    let file = &result.file;
    let concurrency = concurrency(json).ok_or_else(|| {
        CollectError::Usage(format!(
            "{file}: no concurrency in input_config (loadgen.concurrency, concurrency or perf_analyzer.stimulus.concurrency) or run_info.variation_values: run it with --concurrency, one file per value"
        ))
    })?;
    let avg = |metric: &str| json[metric]["avg"].as_f64();
    // AIPerf counts the requests; genai-perf's export has only the count it was asked for.
    let config = &json["input_config"];
    let completed = avg("request_count")
        .map(|n| n as u64)
        .or_else(|| config["request_count"].as_u64())
        .or_else(|| config["loadgen"]["request_count"].as_u64())
        .ok_or_else(|| {
            CollectError::Usage(format!(
                "{file}: no request_count (a metric, or in input_config): not an AIPerf or genai-perf export"
            ))
        })?;
    let failed = avg("error_request_count").unwrap_or(0.0) as u64;
    let mut level = counted(Load::Concurrency(concurrency), completed, failed);
    level.total_tok_s = avg("output_token_throughput")
        .filter(|_| completed > 0)
        .map(|v| stats::round(v, 1));
    level.ttft_p50_s = seconds(json, "time_to_first_token", "p50");
    level.ttft_p95_s = seconds(json, "time_to_first_token", "p95");
    level.latency_p50_s = seconds(json, "request_latency", "p50");
    level.latency_p95_s = seconds(json, "request_latency", "p95");
    let per_user = [
        "output_token_throughput_per_user",
        "output_token_throughput_per_request",
    ]
    .into_iter()
    .find_map(|metric| avg(metric).map(|v| (metric, v)));
    let (per_stream, per_stream_said) = match per_user {
        Some((metric, value)) => (Some(value), format!("the avg of {metric}")),
        None => (
            seconds(json, "inter_token_latency", "avg")
                .filter(|&itl| itl > 0.0)
                .map(|itl| 1.0 / itl),
            "1 / the avg of inter_token_latency".to_owned(),
        ),
    };
    level.decode_tok_s_per_stream = per_stream.map(|v| stats::round(v, 1));
    level.output_tokens = avg("output_sequence_length").map(|v| v.round() as u64);
    level.prompt_tokens = avg("input_sequence_length").map(|v| v.round() as u64);
    // Its inter_token_latency is per request (latency − TTFT) / (output − 1): a TPOT.
    let ms = |stat| seconds(json, "inter_token_latency", stat).map(|s| stats::round(s * 1e3, 4));
    level.tpot_p50_ms = ms("p50");
    level.tpot_p95_ms = ms("p95");
    let tool = match json["aiperf_version"].as_str() {
        Some(version) => format!("AIPerf {version}"),
        None => "genai-perf".to_owned(),
    };
    level.source = Some(format!(
        "{file} ({tool}): its stats blocks: TTFT, latency and TPOT p50 and p95 of time_to_first_token, request_latency and inter_token_latency, decode tok/s per stream {per_stream_said}, tokens the avg of output_sequence_length and input_sequence_length, total tok/s output_token_throughput"
    ));
    let model = config["endpoint"]["model_names"][0]
        .as_str()
        .or_else(|| config["model"].as_str())
        .or_else(|| config["model"][0].as_str())
        .map(str::to_owned);
    Ok(Imported {
        arrivals: None,
        lines: Vec::new(),
        level,
        model,
        date: json["start_time"]
            .as_str()
            .and_then(|t| Date::new(t.get(..10)?).ok()),
        target: config["endpoint"]["url"].as_str().map(str::to_owned),
        file: file.clone(),
    })
}

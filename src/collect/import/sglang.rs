//! SGLang's `python -m sglang.bench_serving --output-file X.jsonl`: the file is appended, one
//! JSON line per run, and each line at a `--max-concurrency` is a level. Field names are those
//! of `sglang/bench_serving.py`'s `result` dict. SGLang writes no model id and no date: the
//! model is `server_info.model_path` where the line has it.

use crate::data::Load;
use serde_json::Value;

use super::super::error::CollectError;
use super::super::level::{Request, counted, figures};
use super::common::{Imported, Loaded};
use crate::stats;

/// One `bench_serving` result line as a level.
pub(super) fn level(result: &Loaded) -> Result<Imported, CollectError> {
    let json = &result.json;
    let file = &result.file;
    let (concurrency, completed) = super::common::concurrency_and_completed(
        result,
        "sglang bench_serving",
        "run bench_serving with --max-concurrency, one value per line",
    )?;
    // Only --output-details says which requests failed: a non-empty error each.
    let errors = json["errors"].as_array();
    let failed = errors.map_or(0, |errors| {
        errors
            .iter()
            .filter(|e| e.as_str().is_some_and(|e| !e.is_empty()))
            .count() as u64
    });
    let mut level = counted(Load::Concurrency(concurrency), completed, failed);
    level.total_tok_s = json["output_throughput"]
        .as_f64()
        .filter(|_| completed > 0)
        .map(|v| stats::round(v, 1));
    let numbers = |key: &str| super::common::numbers(json, key);
    let failures_said = if errors.is_some() {
        "failures are its non-empty errors"
    } else {
        "its summary counts no failures (only --output-details lists them)"
    };
    let mut lines = Vec::new();
    if let (Some(ttfts), Some(outputs)) = (numbers("ttfts"), numbers("output_lens")) {
        let ok = |i: usize| {
            errors
                .and_then(|e| e.get(i))
                .and_then(Value::as_str)
                .is_none_or(str::is_empty)
        };
        let itls = json["itls"].as_array();
        let inputs = numbers("input_lens");
        let requests: Vec<Request> = (0..ttfts.len())
            .filter(|&i| ok(i))
            .map(|i| {
                let (gaps, chunks) = super::common::gaps_of(itls, i);
                Request {
                    ttft: ttfts[i],
                    // The last token's time: TTFT plus every inter-token gap.
                    latency: super::common::after_gaps(ttfts[i], itls, i),
                    output: outputs.get(i).copied(),
                    prompt: inputs.as_ref().and_then(|v| v.get(i).copied()),
                    gaps: std::borrow::Cow::Owned(gaps),
                    chunks,
                }
            })
            .collect();
        figures(&mut level, &requests);
        super::super::level::imported(&mut level, &requests);
        // Only --output-details lists failures: without the list, every request answered.
        let failed = |i: usize| {
            errors
                .and_then(|e| e.get(i))
                .and_then(Value::as_str)
                .filter(|e| !e.is_empty())
                .map(str::to_owned)
        };
        lines = super::common::request_lines(json, &ttfts, &outputs, &failed);
        level.source = Some(format!(
            "{file}: recomputed from the per-request ttfts, itls, output_lens{} (--output-details); total tok/s is output_throughput; {failures_said}",
            if inputs.is_some() { ", input_lens" } else { "" }
        ));
    } else {
        let seconds = |key: &str| json[key].as_f64().map(|ms| stats::round(ms / 1e3, 4));
        let mean_of = |total: &str| super::common::mean_of(json, total, completed);
        level.ttft_p50_s = seconds("median_ttft_ms");
        level.latency_p50_s = seconds("median_e2e_latency_ms");
        level.decode_tok_s_per_stream = json["mean_tpot_ms"]
            .as_f64()
            .filter(|&tpot| tpot > 0.0)
            .map(|tpot| stats::round(1e3 / tpot, 1));
        level.output_tokens = mean_of("total_output_tokens");
        level.prompt_tokens = mean_of("total_input_tokens");
        level.source = Some(format!(
            "{file}: summary fields only (no --output-details): TTFT p50 is median_ttft_ms, latency p50 median_e2e_latency_ms, decode tok/s per stream 1000 / mean_tpot_ms, tokens are totals over completed; SGLang's summary has no p95 of TTFT or latency (it writes p99, and p90 of latency); {failures_said}"
        ));
    }
    Ok(Imported {
        arrivals: None,
        lines,
        level,
        model: json["server_info"]["model_path"]
            .as_str()
            .map(str::to_owned),
        date: None,
        target: None,
        file: file.clone(),
    })
}

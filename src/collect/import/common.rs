//! What the importers of serving benchmarks share: a loaded result, a level read from it, and
//! the readers of the fields vLLM's and SGLang's results name alike.

use serde_json::Value;

use super::super::error::CollectError;
use crate::data::{Date, RequestLine, RequestStatus, SweepLevel};
use crate::stats;

/// One result object and the file it came from.
pub(super) struct Loaded {
    pub(super) file: String,
    pub(super) json: Value,
}

/// One level read from a tool's results, with what the record takes from it.
pub(super) struct Imported {
    pub(super) level: SweepLevel,
    /// An open-loop level's arrivals, as its file gives them.
    pub(super) arrivals: Option<crate::data::Arrivals>,
    /// Its requests, where the file keeps them one by one (their `level` set when the
    /// levels are in order).
    pub(super) lines: Vec<crate::data::RequestLine>,
    pub(super) model: Option<String>,
    pub(super) date: Option<Date>,
    pub(super) target: Option<String>,
    pub(super) file: String,
}

/// The `max_concurrency` and `completed` of a serving benchmark's result (vLLM's and SGLang's
/// name them alike); `run` says how to run `tool` so the file has them.
pub(super) fn concurrency_and_completed(
    result: &Loaded,
    tool: &str,
    run: &str,
) -> Result<(u64, u64), CollectError> {
    let (json, file) = (&result.json, &result.file);
    let concurrency = json["max_concurrency"].as_u64().ok_or_else(|| {
        CollectError::Usage(format!(
            "{file}: max_concurrency is {}: {run}",
            json.get("max_concurrency")
                .map_or("missing".to_owned(), Value::to_string)
        ))
    })?;
    let completed = json["completed"].as_u64().ok_or_else(|| {
        CollectError::Usage(format!("{file}: no `completed`: not a {tool} result"))
    })?;
    Ok((concurrency, completed))
}

/// A list of numbers in a result, NaN where an entry is not one.
pub(super) fn numbers(json: &Value, key: &str) -> Option<Vec<f64>> {
    json[key].as_array().map(|values| {
        values
            .iter()
            .map(|v| v.as_f64().unwrap_or(f64::NAN))
            .collect()
    })
}

/// Request `i`'s last token's time: its TTFT plus every inter-token gap of `itls`.
pub(super) fn after_gaps(ttft: f64, itls: Option<&Vec<Value>>, i: usize) -> Option<f64> {
    let gaps = itls?.get(i)?.as_array()?;
    Some(ttft + gaps.iter().filter_map(Value::as_f64).sum::<f64>())
}

/// Request `i`'s inter-chunk gaps in seconds, as the tool's per-request `itls` list them,
/// and its chunks (one more than its gaps); none where the file has no `itls`.
pub(super) fn gaps_of(itls: Option<&Vec<Value>>, i: usize) -> (Vec<f32>, Option<u64>) {
    match itls.and_then(|itls| itls.get(i)?.as_array()) {
        Some(gaps) => {
            let gaps: Vec<f32> = gaps
                .iter()
                .filter_map(Value::as_f64)
                .map(|g| g as f32)
                .collect();
            let chunks = gaps.len() as u64 + 1;
            (gaps, Some(chunks))
        }
        None => (Vec::new(), None),
    }
}

/// A total of a result over its `completed` requests, rounded; none when none completed.
pub(super) fn mean_of(json: &Value, total: &str, completed: u64) -> Option<u64> {
    json[total]
        .as_f64()
        .filter(|_| completed > 0)
        .map(|t| (t / completed as f64).round() as u64)
}

/// Each request of a serving benchmark's per-request arrays (vLLM's and SGLang's `ttfts`,
/// `itls`, `output_lens`, `input_lens`, vLLM's `latencies`) as the sweep's per-request data
/// keeps it: TTFT, latency, tokens and chunk gaps where it succeeded, its error (`failed`)
/// where it failed. Their files say when a request was sent only in terms this import does
/// not read, so `sent_s` is left out.
pub(super) fn request_lines(
    json: &Value,
    ttfts: &[f64],
    outputs: &[f64],
    failed: &dyn Fn(usize) -> Option<String>,
) -> Vec<RequestLine> {
    let (latencies, inputs) = (numbers(json, "latencies"), numbers(json, "input_lens"));
    let itls = json["itls"].as_array();
    (0..ttfts.len())
        .map(|i| {
            let (gaps, chunks) = gaps_of(itls, i);
            let ms: Vec<f64> = gaps.iter().map(|&g| f64::from(g) * 1e3).collect();
            let failed = failed(i);
            let ok = failed.is_none();
            RequestLine {
                level: 0,
                n: i as u64,
                due_s: None,
                sent_s: None,
                status: if ok {
                    RequestStatus::Ok
                } else {
                    RequestStatus::Failed
                },
                ttft_s: ok.then_some(stats::round(ttfts[i], 6)),
                latency_s: latencies
                    .as_ref()
                    .and_then(|l| l.get(i).copied())
                    .or_else(|| after_gaps(ttfts[i], itls, i))
                    .filter(|_| ok)
                    .map(|l| stats::round(l, 6)),
                output_tokens: outputs.get(i).filter(|_| ok).map(|&t| t as u64),
                prompt_tokens: inputs.as_ref().and_then(|v| v.get(i)).map(|&t| t as u64),
                chunks: chunks.filter(|_| ok),
                gap_p50_ms: stats::median(&ms).map(|g| stats::round(g, 3)),
                gap_max_ms: ms
                    .iter()
                    .copied()
                    .reduce(f64::max)
                    .map(|g| stats::round(g, 3)),
                finish_reason: None,
                bursts: None,
                short: None,
                error: failed,
            }
        })
        .collect()
}

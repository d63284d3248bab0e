//! `vllm bench serve --save-result`: each file (or line of an `--append-result` file) is a
//! level. Field names are those of `vllm/benchmarks/serve.py`.

use serde_json::Value;

use super::super::error::CollectError;
use super::super::level::{Request, counted, figures};
use super::common::{Imported, Loaded};
use crate::data::{Arrivals, Date, Load, SweepLevel};
use crate::stats;

/// `20250101-120000` → `2025-01-01`.
fn date_of(text: &str) -> Option<Date> {
    let day = text.get(..8)?;
    Date::new(&format!("{}-{}-{}", &day[..4], &day[4..6], &day[6..8])).ok()
}

/// One `vllm bench serve` result object as a level.
pub(super) fn level(result: &Loaded) -> Result<Imported, CollectError> {
    let json = &result.json;
    let file = &result.file;
    // A finite --request-rate is an open loop: its arrivals, capped where --max-concurrency
    // was given; `inf` sends every request at once, a closed loop at --max-concurrency.
    let rate = match &json["request_rate"] {
        Value::Number(n) => n.as_f64(),
        Value::String(text) => text.parse::<f64>().ok(),
        _ => None,
    }
    .filter(|r| r.is_finite() && *r > 0.0);
    let (load, completed, arrivals) = match rate {
        Some(rate) => {
            let completed = json["completed"].as_u64().ok_or_else(|| {
                CollectError::Usage(format!(
                    "{file}: no `completed`: not a vllm bench serve result"
                ))
            })?;
            let arrivals = Arrivals {
                process: crate::data::Process::Gamma,
                burstiness: json["burstiness"].as_f64().unwrap_or(1.0),
                seed: None,
                max_concurrency: json["max_concurrency"].as_u64(),
                requests: json["num_prompts"].as_u64().unwrap_or(completed).max(1),
                duration_s: None,
            };
            (Load::Rate(rate), completed, Some(arrivals))
        }
        None => {
            let (concurrency, completed) = super::common::concurrency_and_completed(
                result,
                "vllm bench serve",
                "run vllm bench serve with --max-concurrency, one value per file",
            )?;
            (Load::Concurrency(concurrency), completed, None)
        }
    };
    let failed = json["failed"]
        .as_u64()
        .or_else(|| {
            json["num_prompts"]
                .as_u64()
                .map(|n| n.saturating_sub(completed))
        })
        .unwrap_or(0);
    let numbers = |key: &str| super::common::numbers(json, key);
    let total_tok_s = json["output_throughput"]
        .as_f64()
        .filter(|_| completed > 0)
        .map(|v| stats::round(v, 1));
    let mut level = counted(load, completed, failed);
    level.total_tok_s = total_tok_s;
    // vLLM's `duration` is its first send to its last completion, and `request_throughput`
    // the completed requests over it: benchsite's wall time and requests answered a second.
    level.wall_s = json["duration"].as_f64().map(|d| stats::round(d, 3));
    level.achieved_rps = json["request_throughput"]
        .as_f64()
        .map(|r| stats::round(r, 3));
    let lines = match (numbers("ttfts"), numbers("output_lens")) {
        (Some(ttfts), Some(outputs)) => {
            per_request(json, file, &ttfts, &outputs, &mut level);
            // A failed request has its error, or (without the list) no first token.
            let errors = json["errors"].as_array();
            let failed = |i: usize| match errors {
                Some(errors) => errors
                    .get(i)
                    .and_then(Value::as_str)
                    .filter(|e| !e.is_empty())
                    .map(str::to_owned),
                None => (ttfts[i] <= 0.0).then(|| "no first token".to_owned()),
            };
            super::common::request_lines(json, &ttfts, &outputs, &failed)
        }
        _ => {
            summary(json, file, completed, &mut level);
            Vec::new()
        }
    };
    Ok(Imported {
        arrivals,
        lines,
        level,
        model: json["model_id"].as_str().map(str::to_owned),
        date: json["date"].as_str().and_then(date_of),
        target: None,
        file: file.clone(),
    })
}

/// A level's figures recomputed from the per-request arrays `--save-detailed` writes.
fn per_request(json: &Value, file: &str, ttfts: &[f64], outputs: &[f64], level: &mut SweepLevel) {
    let numbers = |key: &str| super::common::numbers(json, key);
    // Per request: the failed ones (an error, or no first token) are left out, as vLLM does.
    let errors = json["errors"].as_array();
    let ok = |i: usize| match errors {
        Some(errors) => errors
            .get(i)
            .and_then(Value::as_str)
            .is_none_or(str::is_empty),
        None => ttfts[i] > 0.0,
    };
    let itls = json["itls"].as_array();
    let latencies = numbers("latencies");
    let inputs = numbers("input_lens");
    let requests: Vec<Request> = (0..ttfts.len())
        .filter(|&i| ok(i))
        .map(|i| {
            let (gaps, chunks) = super::common::gaps_of(itls, i);
            Request {
                ttft: ttfts[i],
                // vLLM's latency is the last chunk's time: TTFT plus every inter-chunk gap.
                latency: latencies
                    .as_ref()
                    .and_then(|l| l.get(i).copied())
                    .or_else(|| super::common::after_gaps(ttfts[i], itls, i)),
                output: outputs.get(i).copied(),
                prompt: inputs.as_ref().and_then(|v| v.get(i).copied()),
                gaps: std::borrow::Cow::Owned(gaps),
                chunks,
            }
        })
        .collect();
    figures(level, &requests);
    super::super::level::imported(level, &requests);
    level.source = Some(format!(
        "{file}: recomputed from the per-request ttfts, {}output_lens{} (--save-detailed); total tok/s is output_throughput",
        if latencies.is_some() {
            "latencies, "
        } else {
            "itls, "
        },
        if inputs.is_some() { ", input_lens" } else { "" }
    ));
}

/// A level's figures from the summary fields alone, where there are no per-request arrays.
fn summary(json: &Value, file: &str, completed: u64, level: &mut SweepLevel) {
    let numbers = |key: &str| super::common::numbers(json, key);
    let ms = |key: &str| json[key].as_f64().map(|v| stats::round(v / 1e3, 4));
    let mean_of = |total: &str| super::common::mean_of(json, total, completed);
    level.ttft_p50_s = ms("median_ttft_ms");
    level.ttft_p95_s = ms("p95_ttft_ms");
    // Newer vLLM keeps `latencies` without --save-detailed (a failed request's is 0).
    let latencies: Option<Vec<f64>> =
        numbers("latencies").map(|l| l.into_iter().filter(|&v| v > 0.0).collect());
    match latencies.as_deref().filter(|l| !l.is_empty()) {
        Some(latencies) => {
            level.latency_p50_s = stats::quantile(latencies, 0.5).map(|v| stats::round(v, 4));
            level.latency_p95_s = stats::quantile(latencies, 0.95).map(|v| stats::round(v, 4));
        }
        None => {
            level.latency_p50_s = ms("median_e2el_ms");
            level.latency_p95_s = ms("p95_e2el_ms");
        }
    }
    let recomputed_latency = latencies.is_some_and(|l| !l.is_empty());
    level.tpot_p50_ms = json["median_tpot_ms"].as_f64().map(|v| stats::round(v, 4));
    level.tpot_p95_ms = json["p95_tpot_ms"].as_f64().map(|v| stats::round(v, 4));
    level.decode_tok_s_per_stream = json["mean_tpot_ms"]
        .as_f64()
        .filter(|&tpot| tpot > 0.0)
        .map(|tpot| stats::round(1e3 / tpot, 1));
    level.output_tokens = mean_of("total_output_tokens");
    level.prompt_tokens = mean_of("total_input_tokens");
    let missing: Vec<&str> = [
        ("p95_ttft_ms", level.ttft_p95_s),
        ("mean_tpot_ms", level.decode_tok_s_per_stream),
        ("p95_e2el_ms", level.latency_p95_s),
    ]
    .into_iter()
    .filter(|(_, value)| value.is_none())
    .map(|(key, _)| key)
    .collect();
    level.source = Some(format!(
        "{file}: summary fields only (no --save-detailed): TTFT p50 is median_ttft_ms, TPOT p50 and p95 median_tpot_ms and p95_tpot_ms (p95 only with --metric-percentiles 95), latency {}, decode tok/s per stream is 1000 / mean_tpot_ms (not a mean of per-request rates), tokens are totals over completed{}",
        if recomputed_latency {
            "recomputed from latencies"
        } else {
            "from median_e2el_ms and p95_e2el_ms"
        },
        if missing.is_empty() {
            String::new()
        } else {
            format!("; not in the file: {}", missing.join(", "))
        }
    ));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_of_vllm_result_files() {
        assert_eq!(
            date_of("20251203-141500").map(|d| d.to_string()),
            Some("2025-12-03".into())
        );
        assert_eq!(date_of("nope"), None);
    }
}

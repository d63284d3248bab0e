//! `collect import vllm-bench`: the result files `vllm bench serve --save-result` wrote for one
//! workload at several `--max-concurrency` values, as one sweep.
//!
//! Each file (or each line of an `--append-result` file) is a level. Where the per-request
//! arrays are there (`--save-detailed`: `ttfts`, `itls`, `output_lens`, `input_lens`, `errors`),
//! the level's figures are recomputed with the project's own quantile and definitions; where
//! only the summary is, the summary fields are taken and the level's `source` says which. Field
//! names are those of `vllm/benchmarks/serve.py`.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::CollectError;
use crate::data::{Date, Dimensions, Id, LevelStatus, Sweep, SweepLevel, Workload};
use crate::stats;

/// What `collect import vllm-bench` records.
#[derive(Debug, Clone)]
pub struct ImportOptions {
    /// The sweep's label.
    pub label: String,
    /// The permalink, when not the label's slug.
    pub id: Option<Id>,
    /// The result files, one level each (any order).
    pub files: Vec<PathBuf>,
    /// Free text for the record.
    pub notes: Option<String>,
    /// The date when the files do not say.
    pub today: Date,
    /// Dimensions given by hand.
    pub dimensions: Vec<(String, String)>,
}

/// One result object and the file it came from.
struct Loaded {
    file: String,
    json: Value,
}

/// Reads the files into one sweep; see the module documentation.
pub fn vllm_bench(root: &Path, options: &ImportOptions) -> Result<Sweep, CollectError> {
    if options.files.is_empty() {
        return Err(CollectError::Usage(
            "give the result files of `vllm bench serve --save-result`".into(),
        ));
    }
    let mut results = Vec::new();
    for path in &options.files {
        let shown = path
            .strip_prefix(root)
            .unwrap_or(path)
            .display()
            .to_string();
        let text = std::fs::read_to_string(path)
            .map_err(|error| CollectError::Usage(format!("{shown}: {error}")))?;
        // `--append-result` writes one object per line.
        for (line, chunk) in text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
        {
            let json: Value = serde_json::from_str(chunk).map_err(|error| {
                CollectError::Usage(format!(
                    "{shown}:{}: not a vllm bench serve result ({error})",
                    line + 1
                ))
            })?;
            results.push(Loaded {
                file: shown.clone(),
                json,
            });
        }
    }
    let mut levels: Vec<(u64, SweepLevel, &Loaded)> = results
        .iter()
        .map(|result| level(result).map(|(c, l)| (c, l, result)))
        .collect::<Result<_, _>>()?;
    levels.sort_by_key(|(concurrency, _, _)| *concurrency);
    if let Some(pair) = levels.windows(2).find(|w| w[0].0 == w[1].0) {
        return Err(CollectError::Usage(format!(
            "{} and {} both ran at --max-concurrency {}: one file per level",
            pair[0].2.file, pair[1].2.file, pair[0].0
        )));
    }
    let first = &levels[0].2.json;
    let model = first["model_id"].as_str().unwrap_or("unknown").to_owned();
    if let Some(other) = levels
        .iter()
        .find(|(_, _, r)| r.json["model_id"].as_str().unwrap_or("unknown") != model)
    {
        return Err(CollectError::Usage(format!(
            "{} measured {}, the others {model}: a sweep is one model's",
            other.2.file,
            other.2.json["model_id"].as_str().unwrap_or("no model_id")
        )));
    }
    let generated = first["date"]
        .as_str()
        .and_then(date_of)
        .unwrap_or_else(|| options.today.clone());
    let counts = |key: &str| {
        levels
            .iter()
            .filter_map(|(_, l, _)| key_of(l, key))
            .collect::<Vec<f64>>()
    };
    let median = |values: Vec<f64>| stats::median(&values).map(|v| v.round() as u64);
    let workload = Workload {
        prompt_words: None,
        prompt_tokens: median(counts("prompt")).filter(|&t| t > 0),
        output_tokens: median(counts("output")).unwrap_or(1).max(1),
        rounds: 1,
        ignore_eos: false,
        thinking: false,
    };
    let levels: Vec<SweepLevel> = levels.into_iter().map(|(_, level, _)| level).collect();
    let mut dimensions = Dimensions::new();
    dimensions.insert("model".into(), model.clone());
    if let Some(tokens) = workload.prompt_tokens {
        dimensions.insert("prompt".into(), format!("{tokens} tok"));
    }
    dimensions.insert("output".into(), format!("{} tok", workload.output_tokens));
    for (key, value) in &options.dimensions {
        dimensions.insert(key.clone(), value.clone());
    }
    let files: Vec<&str> = results.iter().map(|r| r.file.as_str()).collect();
    let mut notes: Vec<String> = options.notes.iter().cloned().collect();
    notes.push("Imported from vllm bench serve: the prompt and output lengths are the measured medians; ignore_eos, thinking and the server's version are not in its result files.".into());
    Ok(Sweep {
        label: options.label.clone(),
        id: options.id.clone(),
        model,
        base_url: "not recorded (vllm bench serve)".into(),
        generated,
        vllm_version: None,
        server: None,
        max_model_len: None,
        workload,
        levels,
        notes: Some(notes.join(" ")),
        source: Some(format!(
            "vllm bench serve --save-result: {}",
            files.join(", ")
        )),
        dimensions,
    })
}

/// The measured prompt (`prompt`) or output (`output`) tokens of a level.
fn key_of(level: &SweepLevel, key: &str) -> Option<f64> {
    match key {
        "prompt" => level.prompt_tokens.map(|t| t as f64),
        _ => level.output_tokens.map(|t| t as f64),
    }
}

/// `20250101-120000` → `2025-01-01`.
fn date_of(text: &str) -> Option<Date> {
    let day = text.get(..8)?;
    Date::new(&format!("{}-{}-{}", &day[..4], &day[4..6], &day[6..8])).ok()
}

/// One result object as a level, with its concurrency.
fn level(result: &Loaded) -> Result<(u64, SweepLevel), CollectError> {
    let json = &result.json;
    let file = &result.file;
    let concurrency = json["max_concurrency"].as_u64().ok_or_else(|| {
        CollectError::Usage(format!(
            "{file}: max_concurrency is {}: run vllm bench serve with --max-concurrency, one value per file",
            json.get("max_concurrency").map_or("missing".to_owned(), Value::to_string)
        ))
    })?;
    let completed = json["completed"].as_u64().ok_or_else(|| {
        CollectError::Usage(format!(
            "{file}: no `completed`: not a vllm bench serve result"
        ))
    })?;
    let failed = json["failed"]
        .as_u64()
        .or_else(|| {
            json["num_prompts"]
                .as_u64()
                .map(|n| n.saturating_sub(completed))
        })
        .unwrap_or(0);
    let numbers = |key: &str| -> Option<Vec<f64>> {
        json[key].as_array().map(|values| {
            values
                .iter()
                .map(|v| v.as_f64().unwrap_or(f64::NAN))
                .collect()
        })
    };
    let ms = |key: &str| json[key].as_f64().map(|v| stats::round(v / 1e3, 4));
    let total_tok_s = json["output_throughput"]
        .as_f64()
        .filter(|_| completed > 0)
        .map(|v| stats::round(v, 1));
    let mut level = SweepLevel {
        concurrency,
        requests: completed + failed,
        succeeded: completed,
        failed,
        status: if completed > 0 {
            LevelStatus::Ok
        } else {
            LevelStatus::Failed
        },
        prompt_tokens: None,
        output_tokens: None,
        ttft_p50_s: None,
        ttft_p95_s: None,
        decode_tok_s_per_stream: None,
        total_tok_s,
        latency_p50_s: None,
        latency_p95_s: None,
        source: None,
    };
    if let (Some(ttfts), Some(outputs)) = (numbers("ttfts"), numbers("output_lens")) {
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
        let mut ttft = Vec::new();
        let mut latency = Vec::new();
        let mut rates = Vec::new();
        let mut output = Vec::new();
        let mut prompt = Vec::new();
        for i in (0..ttfts.len()).filter(|&i| ok(i)) {
            // vLLM's latency is the last chunk's time: TTFT plus every inter-chunk gap.
            let end = latencies
                .as_ref()
                .and_then(|l| l.get(i).copied())
                .or_else(|| {
                    let gaps = itls?.get(i)?.as_array()?;
                    Some(ttfts[i] + gaps.iter().filter_map(Value::as_f64).sum::<f64>())
                });
            ttft.push(ttfts[i]);
            let tokens = outputs.get(i).copied().unwrap_or(0.0);
            output.push(tokens);
            if let Some(tokens) = inputs.as_ref().and_then(|v| v.get(i)) {
                prompt.push(*tokens);
            }
            if let Some(end) = end {
                latency.push(end);
                if tokens > 1.0 && end > ttfts[i] {
                    rates.push((tokens - 1.0) / (end - ttfts[i]));
                }
            }
        }
        let q = |values: &[f64], at: f64| stats::quantile(values, at).map(|v| stats::round(v, 4));
        let median_count = |values: &[f64]| stats::median(values).map(|v| v.round() as u64);
        level.ttft_p50_s = q(&ttft, 0.5);
        level.ttft_p95_s = q(&ttft, 0.95);
        level.latency_p50_s = q(&latency, 0.5);
        level.latency_p95_s = q(&latency, 0.95);
        level.decode_tok_s_per_stream = stats::mean(&rates).map(|v| stats::round(v, 1));
        level.output_tokens = median_count(&output);
        level.prompt_tokens = median_count(&prompt);
        level.source = Some(format!(
            "{file}: recomputed from the per-request ttfts, {}output_lens{} (--save-detailed); total tok/s is output_throughput",
            if latencies.is_some() {
                "latencies, "
            } else {
                "itls, "
            },
            if inputs.is_some() { ", input_lens" } else { "" }
        ));
    } else {
        let mean_of = |total: &str| {
            json[total]
                .as_f64()
                .filter(|_| completed > 0)
                .map(|t| (t / completed as f64).round() as u64)
        };
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
            "{file}: summary fields only (no --save-detailed): TTFT p50 is median_ttft_ms, latency {}, decode tok/s per stream is 1000 / mean_tpot_ms (not a mean of per-request rates), tokens are totals over completed{}",
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
    Ok((concurrency, level))
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

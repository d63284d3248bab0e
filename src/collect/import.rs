//! `collect import`: results other tools wrote, as one sweep.
//!
//! - `vllm-bench`: the files `vllm bench serve --save-result` wrote for one workload at several
//!   `--max-concurrency` values; each file (or line of an `--append-result` file) is a level.
//!   Field names are those of `vllm/benchmarks/serve.py`.
//! - `guidellm`: a JSON report; each synchronous or concurrent benchmark is a level. Field
//!   names are those of guidellm's `GenerativeBenchmarksReport` and `GenerativeRequestStats`.
//!
//! Where per-request data is there (`--save-detailed`; guidellm's request records), a level's
//! figures are recomputed with the project's own quantile and definitions; where only the
//! summary is, the summary fields are taken. Either way the level's `source` says which.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::CollectError;
use super::sweep::{Request, counted, figures};
use crate::data::{Date, Id, Sweep, SweepLevel, Workload};
use crate::stats;

/// What `collect import` records.
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

/// The tools whose result files can be imported.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tool {
    /// `vllm bench serve --save-result`: a file (or JSON line) per `--max-concurrency`.
    VllmBench,
    /// guidellm's JSON report: a benchmark per concurrent-streams level.
    Guidellm,
}

impl Tool {
    fn name(self) -> &'static str {
        match self {
            Tool::VllmBench => "vllm bench serve",
            Tool::Guidellm => "guidellm",
        }
    }
}

/// One result object and the file it came from.
struct Loaded {
    file: String,
    json: Value,
}

/// One level read from a tool's results, with what the record takes from it.
struct Imported {
    level: SweepLevel,
    model: Option<String>,
    date: Option<Date>,
    target: Option<String>,
    file: String,
}

/// Reads the files into one sweep; see the module documentation.
pub fn import(root: &Path, tool: Tool, options: &ImportOptions) -> Result<Sweep, CollectError> {
    let mut loaded = Vec::new();
    for path in &options.files {
        let shown = path
            .strip_prefix(root)
            .unwrap_or(path)
            .display()
            .to_string();
        let text = std::fs::read_to_string(path)
            .map_err(|error| CollectError::Usage(format!("{shown}: {error}")))?;
        let not_a_result = |line: Option<usize>, error: serde_json::Error| {
            let at = line.map_or(String::new(), |line| format!(":{line}"));
            CollectError::Usage(format!(
                "{shown}{at}: not a {} result ({error})",
                tool.name()
            ))
        };
        match tool {
            // `--append-result` writes one object per line.
            Tool::VllmBench => {
                for (line, chunk) in text
                    .lines()
                    .enumerate()
                    .filter(|(_, l)| !l.trim().is_empty())
                {
                    let json = serde_json::from_str(chunk)
                        .map_err(|error| not_a_result(Some(line + 1), error))?;
                    loaded.push(Loaded {
                        file: shown.clone(),
                        json,
                    });
                }
            }
            Tool::Guidellm => loaded.push(Loaded {
                file: shown.clone(),
                json: serde_json::from_str(&text).map_err(|error| not_a_result(None, error))?,
            }),
        }
    }
    let mut levels = Vec::new();
    for result in &loaded {
        match tool {
            Tool::VllmBench => levels.push(vllm_level(result)?),
            Tool::Guidellm => levels.extend(guidellm_levels(result)?),
        }
    }
    if levels.is_empty() {
        return Err(CollectError::Usage(format!(
            "no level in the files: give the results of {}",
            tool.name()
        )));
    }
    levels.sort_by_key(|l| l.level.concurrency);
    if let Some(pair) = levels
        .windows(2)
        .find(|w| w[0].level.concurrency == w[1].level.concurrency)
    {
        return Err(CollectError::Usage(format!(
            "{} and {} both ran at concurrency {}: one result per level",
            pair[0].file, pair[1].file, pair[0].level.concurrency
        )));
    }
    let model = levels[0].model.clone().unwrap_or_else(|| "unknown".into());
    if let Some(other) = levels
        .iter()
        .find(|l| l.model.as_deref().unwrap_or("unknown") != model)
    {
        return Err(CollectError::Usage(format!(
            "{} measured {}, the others {model}: a sweep is one model's",
            other.file,
            other.model.as_deref().unwrap_or("no named model")
        )));
    }
    let generated = levels[0]
        .date
        .clone()
        .unwrap_or_else(|| options.today.clone());
    let target = levels[0].target.clone();
    let median = |values: Vec<f64>| stats::median(&values).map(|v| v.round() as u64);
    let prompts = levels
        .iter()
        .filter_map(|l| l.level.prompt_tokens)
        .map(|t| t as f64);
    let outputs = levels
        .iter()
        .filter_map(|l| l.level.output_tokens)
        .map(|t| t as f64);
    let workload = Workload {
        prompt_words: None,
        prompt_tokens: median(prompts.collect()).filter(|&t| t > 0),
        output_tokens: median(outputs.collect()).unwrap_or(1).max(1),
        rounds: 1,
        ignore_eos: false,
        thinking: false,
    };
    let dimensions = super::sweep::dimensions(
        &model,
        workload.prompt_tokens,
        &workload,
        None,
        &options.dimensions,
    );
    let mut files: Vec<&str> = loaded.iter().map(|r| r.file.as_str()).collect();
    files.dedup();
    let mut notes: Vec<String> = options.notes.iter().cloned().collect();
    notes.push(format!(
        "Imported from {}: the prompt and output lengths are the measured medians; ignore_eos, thinking and the server's version are not in its result files.",
        tool.name()
    ));
    Ok(Sweep {
        label: options.label.clone(),
        id: options.id.clone(),
        model,
        base_url: target.unwrap_or_else(|| format!("not recorded ({})", tool.name())),
        generated,
        vllm_version: None,
        server: None,
        max_model_len: None,
        workload,
        levels: levels.into_iter().map(|l| l.level).collect(),
        notes: Some(notes.join(" ")),
        source: Some(format!(
            "{}{}: {}",
            tool.name(),
            match tool {
                Tool::VllmBench => " --save-result",
                Tool::Guidellm => " JSON report",
            },
            files.join(", ")
        )),
        dimensions,
        provenance: None,
    })
}

/// `20250101-120000` → `2025-01-01`.
fn date_of(text: &str) -> Option<Date> {
    let day = text.get(..8)?;
    Date::new(&format!("{}-{}-{}", &day[..4], &day[4..6], &day[6..8])).ok()
}

/// One `vllm bench serve` result object as a level.
fn vllm_level(result: &Loaded) -> Result<Imported, CollectError> {
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
    let mut level = counted(concurrency, completed, failed);
    level.total_tok_s = total_tok_s;
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
        let requests: Vec<Request> = (0..ttfts.len())
            .filter(|&i| ok(i))
            .map(|i| Request {
                ttft: ttfts[i],
                // vLLM's latency is the last chunk's time: TTFT plus every inter-chunk gap.
                latency: latencies
                    .as_ref()
                    .and_then(|l| l.get(i).copied())
                    .or_else(|| {
                        let gaps = itls?.get(i)?.as_array()?;
                        Some(ttfts[i] + gaps.iter().filter_map(Value::as_f64).sum::<f64>())
                    }),
                output: outputs.get(i).copied(),
                prompt: inputs.as_ref().and_then(|v| v.get(i).copied()),
            })
            .collect();
        figures(&mut level, &requests);
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
    Ok(Imported {
        level,
        model: json["model_id"].as_str().map(str::to_owned),
        date: json["date"].as_str().and_then(date_of),
        target: None,
        file: file.clone(),
    })
}

/// Each synchronous or concurrent benchmark of a guidellm JSON report as a level; the
/// rate-driven ones (throughput, constant, poisson) have no concurrency and are left out.
fn guidellm_levels(result: &Loaded) -> Result<Vec<Imported>, CollectError> {
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
        levels.push(guidellm_level(file, benchmark, concurrency));
    }
    if levels.is_empty() {
        return Err(CollectError::Usage(format!(
            "{file}: no synchronous or concurrent benchmark (found: {}): a sweep is concurrency levels; run guidellm with --profile concurrent",
            if other.is_empty() {
                "none".to_owned()
            } else {
                other.join(", ")
            }
        )));
    }
    Ok(levels)
}

/// One guidellm benchmark at `concurrency` streams.
fn guidellm_level(file: &str, benchmark: &Value, concurrency: u64) -> Imported {
    let metrics = &benchmark["metrics"];
    let totals = &metrics["request_totals"];
    let count = |key: &str| totals[key].as_u64().unwrap_or(0);
    let completed = count("successful");
    let mut level = counted(
        concurrency,
        completed,
        count("errored") + count("incomplete"),
    );
    let successful = |name: &str| &metrics[name]["successful"];
    let duration = benchmark["duration"].as_f64().filter(|&d| d > 0.0);
    level.total_tok_s = successful("output_token_count")["total_sum"]
        .as_f64()
        .zip(duration)
        .filter(|_| completed > 0)
        .map(|(tokens, seconds)| stats::round(tokens / seconds, 1));
    let sampled = benchmark["requests"]["successful"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
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
                })
            })
            .collect();
        figures(&mut level, &requests);
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
        level.decode_tok_s_per_stream = value("inter_token_latency_ms", "mean")
            .filter(|&ms| ms > 0.0)
            .map(|ms| stats::round(1e3 / ms, 1));
        level.output_tokens = value("output_token_count", "median").map(|v| v.round() as u64);
        level.prompt_tokens = value("prompt_token_count", "median").map(|v| v.round() as u64);
        level.source = Some(format!(
            "{file}: summary distributions only (no per-request records): latency is request_latency (to the response's end), decode tok/s per stream is 1000 / mean inter_token_latency_ms"
        ));
    }
    let backend = &benchmark["config"]["backend"];
    Imported {
        level,
        model: find_text(backend, "model").or_else(|| find_text(&benchmark["config"], "model")),
        date: benchmark["start_time"].as_f64().and_then(date_of_epoch),
        target: find_text(backend, "target"),
        file: file.to_owned(),
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

/// Seconds since 1970 (UTC) as a calendar date.
fn date_of_epoch(seconds: f64) -> Option<Date> {
    if !(0.0..1e11).contains(&seconds) {
        return None;
    }
    // Howard Hinnant's civil_from_days.
    let z = (seconds / 86_400.0).floor() as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    Date::new(&format!("{year:04}-{month:02}-{day:02}")).ok()
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

    #[test]
    fn dates_of_vllm_result_files() {
        assert_eq!(
            date_of("20251203-141500").map(|d| d.to_string()),
            Some("2025-12-03".into())
        );
        assert_eq!(date_of("nope"), None);
    }
}

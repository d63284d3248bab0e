//! What `/metrics` says of the KV-cache pool and speculative decoding.
//!
//! The scrape is read as the Prometheus text format (0.0.4) and OpenMetrics 1.0 define it,
//! line by line: `# HELP`/`# TYPE` without samples, `# EOF`, `_created` and `_total` samples,
//! escaped label values, `NaN`/`±Inf`, timestamps and exemplars. A line that cannot be read is
//! skipped and named in [`Metrics::problems`]; nothing here fails a measurement. (The crates
//! tried, prom_text_format_parser, prometheus-parse, openmetrics-parser and nom-openmetrics,
//! each reject or misread one of these cases.)

use super::stream::head;

/// The `Accept` header Prometheus itself sends when it scrapes.
pub const ACCEPT: &str = "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1";

/// The KV-cache pool, in tokens, and where the number came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KvPool {
    /// Tokens the pool holds.
    pub tokens: u64,
    /// How it was found.
    pub source: KvSource,
}

/// Where a KV pool size came from, best first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KvSource {
    /// The `kv_cache_size_tokens` label of `vllm:cache_config_info`.
    Label,
    /// The start-up log line `GPU KV cache size: N tokens`.
    Log,
    /// `num_gpu_blocks × block_size`: exact only for single-group full-attention models.
    Blocks,
    /// llama-server's `/slots`: the context of each slot, summed.
    Slots,
    /// SGLang's gauge `sglang:max_total_num_tokens` (0.5.23 and later), the pool's tokens.
    Gauge,
}

/// The speculative-decoding counters, summed over engines.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SpecCounters {
    /// Draft tokens proposed.
    pub drafted: f64,
    /// Draft tokens accepted.
    pub accepted: f64,
    /// Draft steps (`num_drafts`), where the server counts them.
    pub drafts: Option<f64>,
    /// Tokens accepted at each draft position (`num_accepted_tokens_per_pos`), by position.
    pub per_position: Vec<f64>,
}

/// How a speculative decoder did between two scrapes, by vLLM's definitions.
#[derive(Debug, Clone, PartialEq)]
pub struct Acceptance {
    /// Accepted over drafted tokens.
    pub rate: f64,
    /// Tokens per step: 1 + accepted ÷ draft steps, where the steps are counted.
    pub length: Option<f64>,
    /// Accepted at each position ÷ draft steps, where both are counted.
    pub per_position: Vec<f64>,
}

impl SpecCounters {
    /// The acceptance between `self` (before) and `after`; `None` when nothing was drafted
    /// in between.
    pub fn acceptance_until(&self, after: &SpecCounters) -> Option<Acceptance> {
        let drafted = after.drafted - self.drafted;
        if drafted <= 0.0 {
            return None;
        }
        let accepted = after.accepted - self.accepted;
        let steps = after
            .drafts
            .zip(self.drafts)
            .map(|(after, before)| after - before)
            .filter(|&steps| steps > 0.0);
        let per_position = match steps {
            Some(steps) if after.per_position.len() == self.per_position.len() => after
                .per_position
                .iter()
                .zip(&self.per_position)
                .map(|(after, before)| (after - before) / steps)
                .collect(),
            _ => Vec::new(),
        };
        Some(Acceptance {
            rate: accepted / drafted,
            length: steps.map(|steps| 1.0 + accepted / steps),
            per_position,
        })
    }
}

/// One scrape of `/metrics`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Metrics {
    /// The KV pool, when the server reports its cache config.
    pub kv_pool: Option<KvPool>,
    /// The counters, present only when the server decodes speculatively.
    pub spec: Option<SpecCounters>,
    /// Lines that could not be read, each with its number and why.
    pub problems: Vec<String>,
}

impl Metrics {
    /// The first problem in one sentence, for a warning or a record's note.
    pub fn problem(&self) -> Option<String> {
        let first = self.problems.first()?;
        Some(match self.problems.len() {
            1 => format!("one /metrics line could not be read ({first})"),
            n => format!("{n} /metrics lines could not be read (the first: {first})"),
        })
    }
}

/// One sample line: the metric name, its labels (unescaped) and its value.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    /// The sample's name (`vllm:spec_decode_num_draft_tokens_total`).
    pub name: String,
    /// Label pairs in order.
    pub labels: Vec<(String, String)>,
    /// The value (`NaN` and `±Inf` included).
    pub value: f64,
}

impl Sample {
    fn label(&self, key: &str) -> Option<&str> {
        self.labels
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

/// The sum of every finite sample named `name` (over its labels: vLLM's engines, say); `None`
/// when the scrape has none.
pub fn total(samples: &[Sample], name: &str) -> Option<f64> {
    let mut values = samples
        .iter()
        .filter(|s| s.name == name && s.value.is_finite())
        .map(|s| s.value)
        .peekable();
    values.peek()?;
    Some(values.sum())
}

/// Reads every sample of a scrape; unreadable lines are returned as problems, by line number.
pub fn samples(text: &str) -> (Vec<Sample>, Vec<String>) {
    let mut samples = Vec::new();
    let mut problems = Vec::new();
    for (index, line) in text.lines().enumerate() {
        if line.trim().is_empty() || line.starts_with('#') {
            // HELP, TYPE, UNIT, EOF and comments: nothing to take from them.
            continue;
        }
        match sample(line) {
            Ok(sample) => samples.push(sample),
            Err(why) => problems.push(format!("line {}: {why}", index + 1)),
        }
    }
    (samples, problems)
}

/// `name{label="value",...} value [timestamp] [# exemplar]`, or OpenMetrics' UTF-8 form
/// `{"name",label="value"} value`.
fn sample(line: &str) -> Result<Sample, String> {
    let line = line.trim_start();
    let name_end = line
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == ':'))
        .unwrap_or(line.len());
    let mut name = line[..name_end].to_owned();
    let mut rest = &line[name_end..];
    let mut labels = Vec::new();
    if let Some(after) = rest.strip_prefix('{') {
        let (quoted_name, after) = label_set(after, &mut labels)?;
        if let Some(quoted) = quoted_name {
            name = quoted;
        }
        rest = after;
    }
    if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) {
        return Err(format!("expected a metric name, found {:?}", head(line)));
    }
    let mut fields = rest.split_whitespace();
    let value = fields
        .next()
        .ok_or_else(|| format!("{name}: expected a value"))?;
    let value = number(value).ok_or_else(|| format!("{name}: {value:?} is not a number"))?;
    let mut after = fields.next();
    if after.is_some_and(|timestamp| number(timestamp).is_some()) {
        after = fields.next();
    }
    match after {
        None | Some("#") => {}
        Some(other) => return Err(format!("{name}: unexpected {other:?} after the value")),
    }
    Ok(Sample {
        name,
        labels,
        value,
    })
}

/// The labels after `{`, up to and including `}`: a bare quoted string among them is the
/// metric's name. Returns the name, if any, and what follows the `}`.
fn label_set<'a>(
    mut text: &'a str,
    labels: &mut Vec<(String, String)>,
) -> Result<(Option<String>, &'a str), String> {
    let mut name = None;
    loop {
        text = text.trim_start();
        if let Some(after) = text.strip_prefix('}') {
            return Ok((name, after));
        }
        let (key, after) = if text.starts_with('"') {
            let (key, after) = quoted(text)?;
            match after.trim_start().strip_prefix('=') {
                Some(after) => (key, after),
                None => {
                    name = Some(key);
                    text = after.trim_start();
                    text = text.strip_prefix(',').unwrap_or(text);
                    continue;
                }
            }
        } else {
            let eq = text
                .find('=')
                .ok_or_else(|| format!("expected label=\"value\" in {:?}", head(text)))?;
            (text[..eq].trim().to_owned(), &text[eq + 1..])
        };
        let (value, after) =
            quoted(after.trim_start()).map_err(|why| format!("label {key}: {why}"))?;
        labels.push((key, value));
        text = after.trim_start();
        text = text.strip_prefix(',').unwrap_or(text);
    }
}

/// A double-quoted string with `\\`, `\"` and `\n` escapes, and what follows it.
fn quoted(text: &str) -> Result<(String, &str), String> {
    let Some(body) = text.strip_prefix('"') else {
        return Err("expected a quoted value".into());
    };
    let mut value = String::new();
    let mut escaped = false;
    for (at, c) in body.char_indices() {
        if escaped {
            value.push(if c == 'n' { '\n' } else { c });
            escaped = false;
        } else if c == '\\' {
            escaped = true;
        } else if c == '"' {
            return Ok((value, &body[at + 1..]));
        } else {
            value.push(c);
        }
    }
    Err("the quoted value is not closed".into())
}

/// A sample value: Go's float syntax plus `NaN`, `+Inf`, `-Inf`.
fn number(text: &str) -> Option<f64> {
    match text {
        "+Inf" | "Inf" => Some(f64::INFINITY),
        "-Inf" => Some(f64::NEG_INFINITY),
        "NaN" => Some(f64::NAN),
        _ => text.parse().ok(),
    }
}

/// Reads a scrape: the figures it has, and the lines it could not read.
pub fn parse(text: &str) -> Metrics {
    let (samples, problems) = samples(text);
    let mut metrics = Metrics {
        problems,
        ..Metrics::default()
    };
    let mut drafted = None::<f64>;
    let mut accepted = None::<f64>;
    let mut drafts = None::<f64>;
    let mut per_position: Vec<f64> = Vec::new();
    for sample in &samples {
        // prometheus_client's OpenMetrics output writes `vllm:` as `vllm_` (its legacy
        // escaping): both spellings are the same metric.
        let name = sample.name.replace(':', "_");
        if name == "vllm_cache_config_info" {
            // One sample per engine; the pool is per engine, so the first one's.
            if metrics.kv_pool.is_some() {
                continue;
            }
            let label = |key: &str| sample.label(key).and_then(|v| v.parse::<u64>().ok());
            metrics.kv_pool = match (
                label("kv_cache_size_tokens"),
                label("num_gpu_blocks"),
                label("block_size"),
            ) {
                (Some(tokens), _, _) => Some(KvPool {
                    tokens,
                    source: KvSource::Label,
                }),
                (None, Some(blocks), Some(size)) => Some(KvPool {
                    tokens: blocks * size,
                    source: KvSource::Blocks,
                }),
                _ => None,
            };
        } else if name == "sglang_max_total_num_tokens" && sample.value > 0.0 {
            // SGLang's pool, one sample per rank; vLLM's label, where both, is kept.
            metrics.kv_pool.get_or_insert(KvPool {
                tokens: sample.value as u64,
                source: KvSource::Gauge,
            });
        } else if name.ends_with("_spec_decode_num_draft_tokens_total") {
            *drafted.get_or_insert(0.0) += sample.value;
        } else if name.ends_with("_spec_decode_num_accepted_tokens_total") {
            *accepted.get_or_insert(0.0) += sample.value;
        } else if name.ends_with("_spec_decode_num_drafts_total") {
            *drafts.get_or_insert(0.0) += sample.value;
        } else if name.ends_with("_spec_decode_num_accepted_tokens_per_pos_total")
            && let Some(position) = sample
                .label("position")
                .and_then(|p| p.parse::<usize>().ok())
        {
            if per_position.len() <= position {
                per_position.resize(position + 1, 0.0);
            }
            per_position[position] += sample.value;
        }
    }
    if let (Some(drafted), Some(accepted)) = (drafted, accepted) {
        metrics.spec = Some(SpecCounters {
            drafted,
            accepted,
            drafts,
            per_position,
        });
    }
    metrics
}

#[cfg(test)]
mod tests {
    use super::*;

    const VLLM: &str = r#"# HELP vllm:cache_config_info Information of the LLMEngine CacheConfig
# TYPE vllm:cache_config_info gauge
vllm:cache_config_info{block_size="16",cache_dtype="fp8",engine="0",kv_cache_size_tokens="370189",num_gpu_blocks="23136"} 1.0
# HELP vllm:spec_decode_num_draft_tokens_total Number of draft tokens.
# TYPE vllm:spec_decode_num_draft_tokens_total counter
vllm:spec_decode_num_draft_tokens_total{engine="0",model_name="Q"} 1200.0
vllm:spec_decode_num_draft_tokens_total{engine="1",model_name="Q"} 800.0
# HELP vllm:spec_decode_num_accepted_tokens_total Number of accepted tokens.
# TYPE vllm:spec_decode_num_accepted_tokens_total counter
vllm:spec_decode_num_accepted_tokens_total{engine="0",model_name="Q"} 1000.0
vllm:spec_decode_num_accepted_tokens_total{engine="1",model_name="Q"} 500.0
# HELP vllm:time_to_first_token_seconds Histogram of time to first token in seconds.
# TYPE vllm:time_to_first_token_seconds histogram
vllm:time_to_first_token_seconds_bucket{engine="0",le="0.001",model_name="Q"} 0.0
vllm:time_to_first_token_seconds_bucket{engine="0",le="+Inf",model_name="Q"} 3.0
vllm:time_to_first_token_seconds_count{engine="0",model_name="Q"} 3.0
vllm:time_to_first_token_seconds_sum{engine="0",model_name="Q"} 0.2
"#;

    /// SGLang's exposition of its pool (metrics_collector.py's `emit_constants`), one sample
    /// per rank.
    #[test]
    fn sglang_gives_its_pool_as_a_gauge() {
        let text = "# HELP sglang:max_total_num_tokens Maximum total number of tokens in the KV cache pool.\n# TYPE sglang:max_total_num_tokens gauge\nsglang:max_total_num_tokens{model_name=\"Qwen/Qwen3-8B\",tp_rank=\"0\"} 478144.0\nsglang:max_total_num_tokens{model_name=\"Qwen/Qwen3-8B\",tp_rank=\"1\"} 478144.0\nsglang:num_running_reqs{model_name=\"Qwen/Qwen3-8B\"} 0.0\n";
        assert_eq!(
            parse(text).kv_pool,
            Some(KvPool {
                tokens: 478_144,
                source: KvSource::Gauge
            })
        );
    }

    #[test]
    fn the_pool_label_and_the_counters_summed_over_engines() {
        let metrics = parse(VLLM);
        assert_eq!(
            metrics.kv_pool,
            Some(KvPool {
                tokens: 370_189,
                source: KvSource::Label
            })
        );
        let before = SpecCounters {
            drafted: 1000.0,
            accepted: 700.0,
            ..SpecCounters::default()
        };
        assert_eq!(
            metrics.spec,
            Some(SpecCounters {
                drafted: 2000.0,
                accepted: 1500.0,
                drafts: None,
                per_position: Vec::new(),
            })
        );
        let acceptance = before.acceptance_until(&metrics.spec.unwrap()).unwrap();
        assert_eq!((acceptance.rate, acceptance.length), (0.8, None));
        assert_eq!(before.acceptance_until(&before), None);
    }

    #[test]
    fn draft_steps_and_the_acceptance_at_each_position() {
        // Two engines, two positions: 300 + 200 steps, 400 + 250 accepted, 250 + 150 of them
        // at the first position and 150 + 100 at the second.
        let text = "vllm:spec_decode_num_draft_tokens_total{engine=\"0\"} 600\nvllm:spec_decode_num_draft_tokens_total{engine=\"1\"} 400\nvllm:spec_decode_num_accepted_tokens_total{engine=\"0\"} 400\nvllm:spec_decode_num_accepted_tokens_total{engine=\"1\"} 250\nvllm:spec_decode_num_drafts_total{engine=\"0\"} 300\nvllm:spec_decode_num_drafts_total{engine=\"1\"} 200\nvllm:spec_decode_num_accepted_tokens_per_pos_total{engine=\"0\",position=\"0\"} 250\nvllm:spec_decode_num_accepted_tokens_per_pos_total{engine=\"0\",position=\"1\"} 150\nvllm:spec_decode_num_accepted_tokens_per_pos_total{engine=\"1\",position=\"0\"} 150\nvllm:spec_decode_num_accepted_tokens_per_pos_total{engine=\"1\",position=\"1\"} 100\n";
        let after = parse(text).spec.unwrap();
        assert_eq!(after.drafts, Some(500.0));
        assert_eq!(after.per_position, [400.0, 250.0]);
        let before = SpecCounters {
            drafts: Some(0.0),
            per_position: vec![0.0, 0.0],
            ..SpecCounters::default()
        };
        // 650 of 1000 drafted accepted over 500 steps: 1 + 650 / 500 = 2.3 tokens a step;
        // 400 / 500 and 250 / 500 by position.
        let acceptance = before.acceptance_until(&after).unwrap();
        assert_eq!(acceptance.rate, 0.65);
        assert_eq!(acceptance.length, Some(2.3));
        assert_eq!(acceptance.per_position, [0.8, 0.5]);
    }

    #[test]
    fn older_servers_give_blocks_and_others_nothing() {
        let old = "# TYPE vllm:cache_config_info gauge\nvllm:cache_config_info{block_size=\"16\",engine=\"0\",num_gpu_blocks=\"100\"} 1.0\n";
        let metrics = parse(old);
        assert_eq!(
            metrics.kv_pool,
            Some(KvPool {
                tokens: 1600,
                source: KvSource::Blocks
            })
        );
        assert_eq!(metrics.spec, None);
        let llama =
            "# TYPE llamacpp:tokens_predicted_total counter\nllamacpp:tokens_predicted_total 5\n";
        assert_eq!(parse(llama), Metrics::default());
    }
    /// prometheus_client's own output for vLLM's families, in both formats (written by
    /// tests/fixtures/metrics/make.py).
    const PROMETHEUS: &str = include_str!("../../tests/fixtures/metrics/prometheus.txt");
    const OPENMETRICS: &str = include_str!("../../tests/fixtures/metrics/openmetrics.txt");

    #[test]
    fn prometheus_client_output_in_both_formats() {
        for text in [PROMETHEUS, OPENMETRICS] {
            let metrics = parse(text);
            assert_eq!(metrics.problems, Vec::<String>::new());
            assert_eq!(
                metrics.kv_pool,
                Some(KvPool {
                    tokens: 370_189,
                    source: KvSource::Label
                })
            );
            // The `_created` samples are not added to the `_total` ones.
            assert_eq!(
                metrics.spec,
                Some(SpecCounters {
                    drafted: 2000.0,
                    accepted: 1500.0,
                    ..SpecCounters::default()
                })
            );
        }
        // A family with HELP and TYPE and no sample yet reads as nothing.
        assert!(PROMETHEUS.contains("# TYPE vllm:request_success_total counter\n# HELP"));
        let (samples, _) = samples(OPENMETRICS);
        let escaped = samples
            .iter()
            .find(|s| s.name.ends_with("draft_tokens_total"))
            .unwrap();
        assert_eq!(
            escaped.label("model_name"),
            Some("Qwen/Qwen3 \"A3B\"\\path\nnext")
        );
        assert!(
            samples
                .iter()
                .any(|s| s.name == "vllm_gpu_cache_usage_perc" && s.value.is_nan())
        );
    }

    #[test]
    fn values_timestamps_exemplars_and_utf8_names() {
        let text = "y{a=\"1\"} +Inf 1700000000000\ny -Inf\nz_total{a=\"x\"} 2 # {trace_id=\"k\"} 1.0 1.7e9\n{\"vllm:cache_config_info\",num_gpu_blocks=\"10\",block_size=\"16\"} 1\n";
        let (samples, problems) = samples(text);
        assert!(problems.is_empty(), "{problems:?}");
        let values: Vec<f64> = samples.iter().map(|s| s.value).collect();
        assert_eq!(values, [f64::INFINITY, f64::NEG_INFINITY, 2.0, 1.0]);
        assert_eq!(samples[3].name, "vllm:cache_config_info");
        assert_eq!(parse(text).kv_pool.map(|p| p.tokens), Some(160));
    }

    #[test]
    fn an_unreadable_line_is_named_and_the_rest_is_read() {
        let text = format!("{VLLM}vllm:broken{{a=\"open}} 1\nvllm:odd 1 2 3\n");
        let metrics = parse(&text);
        assert_eq!(metrics.kv_pool.map(|p| p.tokens), Some(370_189));
        assert_eq!(metrics.problems.len(), 2, "{:?}", metrics.problems);
        assert!(metrics.problems[0].starts_with("line 18: label a:"));
        assert_eq!(
            metrics.problem().unwrap(),
            format!(
                "2 /metrics lines could not be read (the first: {})",
                metrics.problems[0]
            )
        );
        assert_eq!(parse(VLLM).problem(), None);
    }
}

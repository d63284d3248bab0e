//! What `/metrics` (Prometheus text) says of the KV-cache pool and speculative decoding.

use prom_text_format_parser::Scrape;

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
}

/// The speculative-decoding counters, summed over engines.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct SpecCounters {
    /// Draft tokens proposed.
    pub drafted: f64,
    /// Draft tokens accepted.
    pub accepted: f64,
}

impl SpecCounters {
    /// Accepted over drafted between `self` (before) and `after`; `None` when nothing was
    /// drafted in between.
    pub fn acceptance_until(&self, after: &SpecCounters) -> Option<f64> {
        let drafted = after.drafted - self.drafted;
        (drafted > 0.0).then(|| (after.accepted - self.accepted) / drafted)
    }
}

/// One scrape of `/metrics`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Metrics {
    /// The KV pool, when the server reports its cache config.
    pub kv_pool: Option<KvPool>,
    /// The counters, present only when the server decodes speculatively.
    pub spec: Option<SpecCounters>,
}

/// Reads a scrape; an unparsable one is an error naming the problem.
pub fn parse(text: &str) -> Result<Metrics, String> {
    let scrape = Scrape::parse(text).map_err(|error| format!("{error:?}"))?;
    let mut metrics = Metrics::default();
    let mut drafted = None;
    let mut accepted = None;
    for metric in &scrape.metrics {
        let name = metric.name.as_str();
        let sum = || {
            metric
                .samples
                .iter()
                .map(|sample| sample.value.value.as_f64())
                .sum::<f64>()
        };
        if name == "vllm:cache_config_info" {
            // One sample per engine; the pool is per engine, so the first one's.
            let Some(sample) = metric.samples.first() else {
                continue;
            };
            let label = |key: &str| {
                sample
                    .labels
                    .iter()
                    .find(|label| label.key == key)
                    .and_then(|label| label.value.parse::<u64>().ok())
            };
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
        } else if name.ends_with(":spec_decode_num_draft_tokens_total") {
            drafted = Some(sum());
        } else if name.ends_with(":spec_decode_num_accepted_tokens_total") {
            accepted = Some(sum());
        }
    }
    if let (Some(drafted), Some(accepted)) = (drafted, accepted) {
        metrics.spec = Some(SpecCounters { drafted, accepted });
    }
    Ok(metrics)
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

    #[test]
    fn the_pool_label_and_the_counters_summed_over_engines() {
        let metrics = parse(VLLM).unwrap();
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
        };
        assert_eq!(
            metrics.spec,
            Some(SpecCounters {
                drafted: 2000.0,
                accepted: 1500.0
            })
        );
        assert_eq!(before.acceptance_until(&metrics.spec.unwrap()), Some(0.8));
        assert_eq!(before.acceptance_until(&before), None);
    }

    #[test]
    fn older_servers_give_blocks_and_others_nothing() {
        let old = "# TYPE vllm:cache_config_info gauge\nvllm:cache_config_info{block_size=\"16\",engine=\"0\",num_gpu_blocks=\"100\"} 1.0\n";
        let metrics = parse(old).unwrap();
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
        assert_eq!(parse(llama).unwrap(), Metrics::default());
    }
}

//! One level of a sweep as the results document records it, and whether it produced
//! figures.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::load::Load;

/// Whether a sweep level produced figures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LevelStatus {
    /// At least one request succeeded.
    Ok,
    /// Every request failed.
    Failed,
}

impl LevelStatus {
    /// The status as written in the document.
    pub fn as_str(self) -> &'static str {
        match self {
            LevelStatus::Ok => "ok",
            LevelStatus::Failed => "failed",
        }
    }
}

/// One level of a sweep: a concurrency, or an arrival rate (see [`super::load`]). The figures
/// are absent when every request failed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(transform = super::load::one_load)]
pub struct SweepLevel {
    /// Requests in flight, in a closed loop.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub concurrency: Option<u64>,
    /// Requests per second arriving, in an open loop (the sweep's `workload.arrivals`): the
    /// rate the level's arrivals had, its drawn gaps scaled so that N arrivals span N / rate
    /// (as `vllm bench serve` does) since method version 3.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0))]
    pub rate_rps: Option<f64>,
    /// Closed loop: concurrency × the level's rounds (see `Workload::min_requests`); open
    /// loop: the arrivals sent. Warm-up requests are not counted.
    pub requests: u64,
    /// Requests that completed.
    pub succeeded: u64,
    /// Requests that failed (HTTP error, timeout, broken stream).
    pub failed: u64,
    /// `failed` when no request succeeded.
    pub status: LevelStatus,
    /// Prompt tokens per request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_tokens: Option<u64>,
    /// Output tokens per request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_tokens: Option<u64>,
    /// Median time to first token, seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0))]
    pub ttft_p50_s: Option<f64>,
    /// 95th percentile time to first token, seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0))]
    pub ttft_p95_s: Option<f64>,
    /// Mean per-request decode rate, tok/s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0))]
    pub decode_tok_s_per_stream: Option<f64>,
    /// Output tokens over the level's wall time, tok/s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0))]
    pub total_tok_s: Option<f64>,
    /// Prompt and output tokens over the level's wall time, tok/s: `vllm bench serve`'s
    /// "Total token throughput", where every answer's usage counted its prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0))]
    pub prompt_and_output_tok_s: Option<f64>,
    /// Median request latency, seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0))]
    pub latency_p50_s: Option<f64>,
    /// 95th percentile request latency, seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0))]
    pub latency_p95_s: Option<f64>,
    /// Median time per output token after the first, milliseconds: per request, (latency −
    /// TTFT) / (output tokens − 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0))]
    pub tpot_p50_ms: Option<f64>,
    /// 95th percentile time per output token after the first, milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0))]
    pub tpot_p95_ms: Option<f64>,
    /// Median inter-token latency, milliseconds: vLLM's ITL, the time between two chunks of an
    /// answer that carried text, over every such gap of the level's answers (`itl_gaps`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0))]
    pub itl_p50_ms: Option<f64>,
    /// 95th percentile inter-token latency, milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0))]
    pub itl_p95_ms: Option<f64>,
    /// 99th percentile inter-token latency, milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0))]
    pub itl_p99_ms: Option<f64>,
    /// The longest gap between two chunks of one answer, milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0))]
    pub max_stall_ms: Option<f64>,
    /// How many gaps the inter-token figures are over.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub itl_gaps: Option<u64>,
    /// Output tokens over the chunks that carried them, the level's answers together.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0))]
    pub tokens_per_chunk: Option<f64>,
    /// The share of those gaps that were 0: the chunk came in the same read as the one before.
    /// Near 1, the stream arrived in bursts (a proxy that buffers it, say), and the per-stream
    /// rate and inter-token figures are the bursts', not the server's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0, max = 1.0))]
    pub bunched_share: Option<f64>,
    /// Requests that succeeded over the level's wall time, per second (`vllm bench serve`'s
    /// "Request throughput"): below `rate_rps`, the server did not keep up.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0))]
    pub achieved_rps: Option<f64>,
    /// First request sent (or due, in an open loop) → last one finished, seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0))]
    pub wall_s: Option<f64>,
    /// Open loop: the median wait in the client, arrival due → request sent, seconds, over
    /// the requests sent. TTFT and latency include it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0))]
    pub wait_p50_s: Option<f64>,
    /// Open loop: the 95th percentile of the wait in the client, seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0))]
    pub wait_p95_s: Option<f64>,
    /// Open loop: the longest wait in the client, seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0))]
    pub wait_max_s: Option<f64>,
    /// The most requests in flight at once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peak_in_flight: Option<u64>,
    /// Open loop with a duration: arrivals due before it ran out that the cap still held, so
    /// never sent; more than 0 means the rate was above what the server answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unsent: Option<u64>,
    /// What the server said of its scheduler through the level, from its `/metrics` scraped
    /// every half second (and once after): the mean of the requests it ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0))]
    pub running_mean: Option<f64>,
    /// The most requests it ran at one scrape.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0))]
    pub running_max: Option<f64>,
    /// The mean of the requests waiting in its queue (vLLM's waiting, llama-server's
    /// deferred).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0))]
    pub waiting_mean: Option<f64>,
    /// The most requests waiting at one scrape.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0))]
    pub waiting_max: Option<f64>,
    /// The mean share of the KV cache in use (vLLM's `kv_cache_usage_perc`, 0 to 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0, max = 1.0))]
    pub kv_usage_mean: Option<f64>,
    /// The largest share of the KV cache in use at one scrape.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0, max = 1.0))]
    pub kv_usage_max: Option<f64>,
    /// Requests the server preempted during the level (its counter's increase).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preemptions: Option<u64>,
    /// Prompt tokens the server looked up in its prefix cache during the level.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefix_queries: Option<u64>,
    /// Of those, the tokens it found there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefix_hits: Option<u64>,
    /// How many scrapes of `/metrics` the figures above are over.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metric_scrapes: Option<u64>,
    /// How an imported level's figures were obtained: recomputed from per-request data, or
    /// taken from the tool's summary.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// Mean GPU power draw over the level, watts (all GPUs the measurement saw).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0))]
    pub power_w: Option<f64>,
    /// GPU energy over the level divided by its output tokens, joules per token.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0))]
    pub joules_per_token: Option<f64>,
    /// Prompt tokens the server answered from its prefix cache, over the level's requests
    /// (the usage report's `prompt_tokens_details.cached_tokens`), where it says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cached_prompt_tokens: Option<u64>,
    /// How the level's answers were delivered, as checked before its figures counted: bursts,
    /// short answers and usage; absent in records measured before the checks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delivery: Option<super::delivery::Delivery>,
    /// The engine's own figures over the level, from its `/metrics`, beside the client's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engine_view: Option<super::delivery::EngineView>,
    /// The 95% percentile-bootstrap interval of each percentile figure, by its key, where the
    /// level has at least 20 of the figure's requests (1000 resamples, seeded, so they can be
    /// recomputed).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub ci95: BTreeMap<String, [f64; 2]>,
}

impl SweepLevel {
    /// The level's load: its concurrency, or its arrival rate.
    pub fn load(&self) -> Load {
        match (self.concurrency, self.rate_rps) {
            (Some(c), _) => Load::Concurrency(c),
            (None, Some(r)) => Load::Rate(r),
            // The schema holds every level to one of the two.
            (None, None) => Load::Concurrency(0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn level_status_names_match_serde() {
        for status in [LevelStatus::Ok, LevelStatus::Failed] {
            assert_eq!(serde_json::to_value(status).unwrap(), status.as_str());
        }
    }
}

//! What the answers behind a run's or a sweep level's figures physically were, checked before
//! they counted (SPEC §3): how their tokens arrived (streamed, or in bursts), whether they
//! were whole, whether the usage reports agree with the stream, and the engine's own figures
//! over the same window. A record measured before these checks has neither, and its pages
//! say that its per-stream figures were not checked for bursts.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Where a record's per-stream figures (decode rate, time per output token, inter-token
/// latency) come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PerStream {
    /// The client's clock: the answers were streamed, their tokens spread in time.
    Client,
    /// The engine's own histograms (`engine_view`): the client saw bursts.
    Engine,
    /// Not recorded: the client saw bursts and the engine keeps no figures of its own.
    Withheld,
}

impl PerStream {
    /// The value as written in the document.
    pub fn as_str(self) -> &'static str {
        match self {
            PerStream::Client => "client",
            PerStream::Engine => "engine",
            PerStream::Withheld => "withheld",
        }
    }
}

/// How a run's samples or a level's answers were delivered, as the checks found them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Delivery {
    /// Answers the checks read.
    pub answers: u64,
    /// Of those, answers whose tokens arrived in bursts, not spread in time.
    pub bursts: u64,
    /// Where the per-stream figures come from.
    pub per_stream: PerStream,
    /// Why they are not the client's, in words; absent when they are.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cause: Option<String>,
    /// With `ignore_eos`, the output tokens the answers asked for (with drawn lengths, the
    /// most): what a whole answer has.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub asked: Option<u64>,
    /// With `ignore_eos`, answers that returned fewer tokens than asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub short: Option<u64>,
    /// What cut them, where the server says (its finish reason, its context).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub short_cause: Option<String>,
    /// Output tokens the client saw streamed (a chunk carrying text carries at least one), over
    /// the answers with a usage report.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub streamed_chunks: Option<u64>,
    /// Output tokens those answers' usage reports counted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage_tokens: Option<u64>,
    /// Answers whose usage report counted fewer tokens than the chunks that carried text:
    /// impossible for a true count (AIPerf's usage discrepancy, at its lower bound).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage_below_stream: Option<u64>,
}

/// The engine's own figures over exactly a run's samples or a level, from its `/metrics`: the
/// difference of its histograms' sums and counts, and of its counters, between the scrapes
/// before and after; beside them the client's means of the same figures over the same
/// answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EngineView {
    /// The metric family read: `vllm`, `llamacpp` or `sglang`.
    pub source: String,
    /// Requests the engine finished in the window (its end-to-end histogram's count).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requests: Option<u64>,
    /// Tokens it generated in the window.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_tokens: Option<u64>,
    /// Its mean time to first token, seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0))]
    pub ttft_mean_s: Option<f64>,
    /// Its mean time per output token after the first, per request, milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0))]
    pub tpot_mean_ms: Option<f64>,
    /// Its mean inter-token latency, milliseconds (vLLM: per engine step; SGLang: per token).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0))]
    pub itl_mean_ms: Option<f64>,
    /// Its mean end-to-end request latency, seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0))]
    pub e2e_mean_s: Option<f64>,
    /// Its per-stream decode rate, tok/s: 1000 / `tpot_mean_ms` (vLLM, SGLang), or the tokens
    /// predicted over the seconds spent predicting them (llama-server).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0))]
    pub decode_tok_s_per_stream: Option<f64>,
    /// The client's mean time to first token over the same answers, seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0))]
    pub client_ttft_mean_s: Option<f64>,
    /// The client's mean time per output token over the same answers, milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0))]
    pub client_tpot_mean_ms: Option<f64>,
    /// The client's mean latency over the same answers, seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0))]
    pub client_latency_mean_s: Option<f64>,
}

/// How far the client's mean and the engine's may differ before a page names the difference:
/// a share of the engine's figure, and more than an absolute floor (the client's clock adds
/// the HTTP round trip and its own reading): 5 ms for TTFT (compared in ms, as pages show
/// it) and latency (in s), 0.5 ms for TPOT.
pub const AGREE_SHARE: f64 = 0.25;

impl EngineView {
    /// The figures where the client's mean and the engine's differ beyond [`AGREE_SHARE`] and
    /// the figure's floor: each as (what, client, engine), in the figure's unit.
    pub fn differences(&self) -> Vec<(&'static str, f64, f64)> {
        let pairs = [
            (
                "TTFT (ms)",
                self.client_ttft_mean_s.map(|s| s * 1e3),
                self.ttft_mean_s.map(|s| s * 1e3),
                5.0,
            ),
            (
                "TPOT (ms)",
                self.client_tpot_mean_ms,
                self.tpot_mean_ms,
                0.5,
            ),
            (
                "latency (s)",
                self.client_latency_mean_s,
                self.e2e_mean_s,
                0.005,
            ),
        ];
        pairs
            .into_iter()
            .filter_map(|(what, client, engine, floor)| {
                let (client, engine) = (client?, engine?);
                let apart = (client - engine).abs();
                (apart > AGREE_SHARE * engine && apart > floor).then_some((what, client, engine))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn per_stream_names_match_serde() {
        for source in [PerStream::Client, PerStream::Engine, PerStream::Withheld] {
            assert_eq!(serde_json::to_value(source).unwrap(), source.as_str());
        }
    }

    /// By hand: TTFT 0.120 s against 0.100 s is 20% apart (within); TPOT 2.0 ms against
    /// 4.0 ms is 50% and 2 ms apart (named); latency 2.0 s against 1.5 s is 33% and 0.5 s
    /// apart (named); a TTFT of 0.006 s against 0.002 s is 200% but 4 ms apart (within).
    #[test]
    fn a_difference_is_named_beyond_both_the_share_and_the_floor() {
        let view = EngineView {
            source: "vllm".into(),
            requests: Some(10),
            output_tokens: Some(1000),
            ttft_mean_s: Some(0.100),
            tpot_mean_ms: Some(4.0),
            itl_mean_ms: None,
            e2e_mean_s: Some(1.5),
            decode_tok_s_per_stream: Some(250.0),
            client_ttft_mean_s: Some(0.120),
            client_tpot_mean_ms: Some(2.0),
            client_latency_mean_s: Some(2.0),
        };
        assert_eq!(
            view.differences(),
            [("TPOT (ms)", 2.0, 4.0), ("latency (s)", 2.0, 1.5)]
        );
        let fast = EngineView {
            ttft_mean_s: Some(0.002),
            client_ttft_mean_s: Some(0.006),
            tpot_mean_ms: None,
            e2e_mean_s: None,
            ..view
        };
        assert!(fast.differences().is_empty());
    }
}

//! The engine's own figures over exactly a run's samples or a level: the difference of its
//! histograms' sums and counts, and of its counters, between a `/metrics` scrape before and
//! one after (`EngineView`). What a client that saw bursts cannot time, the engine timed.
//!
//! The names each engine gives them, read from their sources:
//! - vLLM (`vllm/v1/metrics/loggers.py`, every family labelled `model_name` and `engine`,
//!   summed here): `vllm:time_to_first_token_seconds`, `vllm:request_time_per_output_token_seconds`
//!   (one observation per finished request, its (last − first token) / (tokens − 1) by the
//!   engine's clock), `vllm:inter_token_latency_seconds` (one per engine step; before 0.11
//!   `vllm:time_per_output_token_seconds`), `vllm:e2e_request_latency_seconds` (histograms)
//!   and `vllm:generation_tokens_total`. The per-stream rate is 1000 / TPOT, as for an
//!   imported `vllm bench serve` run.
//! - llama.cpp's llama-server with `--metrics` (`tools/server/server-context.cpp`): no
//!   histograms, but `llamacpp:tokens_predicted_total` and
//!   `llamacpp:tokens_predicted_seconds_total`, each finished request's tokens and the
//!   seconds its slot spent generating them (first sampled token → last, whole ms), so the
//!   per-stream rate is their quotient (n tokens over n − 1 gaps: a shade high on short
//!   answers).
//! - SGLang (`python/sglang/srt/metrics/collector.py`): `sglang:time_to_first_token_seconds`,
//!   `sglang:inter_token_latency_seconds` (observed per token, so its mean is a time per
//!   output token), `sglang:e2e_request_latency_seconds` and `sglang:generation_tokens_total`.

use super::metrics::{Sample, samples, total};
use crate::data::EngineView;
use crate::stats;

/// A histogram's `_sum` and `_count` at one scrape.
type Histogram = Option<(f64, f64)>;

/// What one scrape says of the engine's own timing, by the first family it has.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Counters {
    /// The family read (`vllm`, `llamacpp`, `sglang`); `None` when the scrape has none.
    family: Option<&'static str>,
    ttft: Histogram,
    tpot: Histogram,
    itl: Histogram,
    e2e: Histogram,
    /// Generated tokens.
    tokens: Option<f64>,
    /// Seconds spent generating them (llama-server).
    generating: Option<f64>,
}

/// One engine's names: each histogram's, the first the scrape has.
struct Family {
    name: &'static str,
    ttft: &'static [&'static str],
    tpot: &'static [&'static str],
    itl: &'static [&'static str],
    e2e: &'static [&'static str],
    tokens: &'static str,
    generating: Option<&'static str>,
    /// Whether its inter-token histogram is observed per token, so its mean is a TPOT.
    itl_per_token: bool,
}

const FAMILIES: [Family; 3] = [
    Family {
        name: "vllm",
        ttft: &["vllm:time_to_first_token_seconds"],
        tpot: &["vllm:request_time_per_output_token_seconds"],
        itl: &[
            "vllm:inter_token_latency_seconds",
            "vllm:time_per_output_token_seconds",
        ],
        e2e: &["vllm:e2e_request_latency_seconds"],
        tokens: "vllm:generation_tokens_total",
        generating: None,
        itl_per_token: false,
    },
    Family {
        name: "llamacpp",
        ttft: &[],
        tpot: &[],
        itl: &[],
        e2e: &[],
        tokens: "llamacpp:tokens_predicted_total",
        generating: Some("llamacpp:tokens_predicted_seconds_total"),
        itl_per_token: false,
    },
    Family {
        name: "sglang",
        ttft: &["sglang:time_to_first_token_seconds"],
        tpot: &[],
        itl: &["sglang:inter_token_latency_seconds"],
        e2e: &["sglang:e2e_request_latency_seconds"],
        tokens: "sglang:generation_tokens_total",
        generating: None,
        itl_per_token: true,
    },
];

/// Reads a scrape's text.
pub fn read(text: &str) -> Counters {
    let (samples, _) = samples(text);
    of_samples(&samples)
}

/// Reads a scrape already split into samples.
pub fn of_samples(samples: &[Sample]) -> Counters {
    let total = |name: &str| total(samples, name);
    let histogram = |names: &[&str]| -> Histogram {
        names.iter().find_map(|name| {
            Some((
                total(&format!("{name}_sum"))?,
                total(&format!("{name}_count"))?,
            ))
        })
    };
    let Some(family) = FAMILIES.iter().find(|f| total(f.tokens).is_some()) else {
        return Counters::default();
    };
    Counters {
        family: Some(family.name),
        ttft: histogram(family.ttft),
        tpot: histogram(family.tpot),
        itl: histogram(family.itl),
        e2e: histogram(family.e2e),
        tokens: total(family.tokens),
        generating: family.generating.and_then(total),
    }
}

impl Counters {
    /// Whether the scrape had an engine's figures.
    pub fn is_read(&self) -> bool {
        self.family.is_some()
    }

    /// The engine's figures from `self` (before) to `after`, without the client's; `None`
    /// when either scrape has none, they are of two families, or a counter went down (the
    /// server restarted).
    pub fn until(&self, after: &Counters) -> Option<EngineView> {
        let family = FAMILIES
            .iter()
            .find(|f| Some(f.name) == self.family && self.family == after.family)?;
        let delta = |before: Option<f64>, after: Option<f64>| -> Result<Option<f64>, ()> {
            match (before, after) {
                (Some(b), Some(a)) if a < b => Err(()),
                (Some(b), Some(a)) => Ok(Some(a - b)),
                _ => Ok(None),
            }
        };
        let mean = |before: Histogram, after: Histogram| -> Result<Option<(f64, f64)>, ()> {
            let sum = delta(before.map(|h| h.0), after.map(|h| h.0))?;
            let count = delta(before.map(|h| h.1), after.map(|h| h.1))?;
            Ok(sum
                .zip(count)
                .filter(|&(_, n)| n > 0.0)
                .map(|(s, n)| (s / n, n)))
        };
        let ttft = mean(self.ttft, after.ttft).ok()?;
        let tpot = mean(self.tpot, after.tpot).ok()?;
        let itl = mean(self.itl, after.itl).ok()?;
        let e2e = mean(self.e2e, after.e2e).ok()?;
        let tokens = delta(self.tokens, after.tokens).ok()?;
        let generating = delta(self.generating, after.generating).ok()?;
        let tpot_s = match (tpot, family.itl_per_token, tokens, generating) {
            (Some((tpot, _)), _, _, _) => Some(tpot),
            (None, true, _, _) => itl.map(|(itl, _)| itl),
            (None, false, Some(tokens), Some(seconds)) if tokens > 0.0 => Some(seconds / tokens),
            _ => None,
        }
        .filter(|&s| s > 0.0);
        let rate = match (tokens, generating) {
            (Some(tokens), Some(seconds)) if seconds > 0.0 && tokens > 0.0 => {
                Some(tokens / seconds)
            }
            _ => tpot_s.map(|s| 1.0 / s),
        };
        Some(EngineView {
            source: family.name.to_owned(),
            requests: e2e.map(|(_, n)| n.round() as u64),
            output_tokens: tokens.map(|t| t.round() as u64),
            ttft_mean_s: ttft.map(|(s, _)| stats::round(s, 4)),
            tpot_mean_ms: tpot_s.map(|s| stats::round(s * 1e3, 3)),
            itl_mean_ms: itl.map(|(s, _)| stats::round(s * 1e3, 3)),
            e2e_mean_s: e2e.map(|(s, _)| stats::round(s, 4)),
            decode_tok_s_per_stream: rate.map(|r| stats::round(r, 1)),
            client_ttft_mean_s: None,
            client_tpot_mean_ms: None,
            client_latency_mean_s: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vllm(ttft: (f64, f64), tpot: (f64, f64), e2e: (f64, f64), tokens: f64) -> String {
        format!(
            "# TYPE vllm:time_to_first_token_seconds histogram
vllm:time_to_first_token_seconds_bucket{{engine=\"0\",le=\"+Inf\",model_name=\"m\"}} {n}
vllm:time_to_first_token_seconds_sum{{engine=\"0\",model_name=\"m\"}} {}
vllm:time_to_first_token_seconds_count{{engine=\"0\",model_name=\"m\"}} {}
vllm:request_time_per_output_token_seconds_sum{{engine=\"0\",model_name=\"m\"}} {}
vllm:request_time_per_output_token_seconds_count{{engine=\"0\",model_name=\"m\"}} {}
vllm:e2e_request_latency_seconds_sum{{engine=\"0\",model_name=\"m\"}} {}
vllm:e2e_request_latency_seconds_count{{engine=\"0\",model_name=\"m\"}} {}
vllm:generation_tokens_total{{engine=\"0\",model_name=\"m\"}} {tokens}
",
            ttft.0,
            ttft.1,
            tpot.0,
            tpot.1,
            e2e.0,
            e2e.1,
            n = ttft.1
        )
    }

    /// By hand: between the scrapes, 4 requests took 0.8 − 0.4 = 0.4 s to their first token
    /// (0.1 s each), 0.0144 − 0.0064 = 0.008 s per token over 4 observations (2 ms: 500
    /// tok/s), 6 − 2 = 4 s end to end (1 s each) and generated 1,200 − 400 = 800 tokens.
    #[test]
    fn vllm_histograms_are_differenced_between_scrapes() {
        let before = read(&vllm((0.4, 4.0), (0.0064, 4.0), (2.0, 4.0), 400.0));
        let after = read(&vllm((0.8, 8.0), (0.0144, 8.0), (6.0, 8.0), 1200.0));
        let view = before.until(&after).unwrap();
        assert_eq!(view.source, "vllm");
        assert_eq!((view.requests, view.output_tokens), (Some(4), Some(800)));
        assert_eq!(view.ttft_mean_s, Some(0.1));
        assert_eq!(view.tpot_mean_ms, Some(2.0));
        assert_eq!(view.e2e_mean_s, Some(1.0));
        assert_eq!(view.decode_tok_s_per_stream, Some(500.0));
        assert_eq!(view.itl_mean_ms, None);
        // A restarted server (counters down) gives nothing; nor does a scrape of no engine.
        assert!(after.until(&before).is_none());
        assert!(!read("up 1\n").is_read());
        assert!(read("up 1\n").until(&after).is_none());
    }

    /// By hand: llama-server predicted 2,000 − 500 = 1,500 tokens in 12 − 2 = 10 s of
    /// generation: 150 tok/s per stream, 6.667 ms per token.
    #[test]
    fn llama_server_rate_is_tokens_over_generation_seconds() {
        let text = |tokens: f64, seconds: f64| {
            format!(
                "llamacpp:tokens_predicted_total {tokens}\nllamacpp:tokens_predicted_seconds_total {seconds}\n"
            )
        };
        let view = read(&text(500.0, 2.0))
            .until(&read(&text(2000.0, 12.0)))
            .unwrap();
        assert_eq!(view.source, "llamacpp");
        assert_eq!(view.decode_tok_s_per_stream, Some(150.0));
        assert_eq!(view.tpot_mean_ms, Some(6.667));
        assert_eq!((view.ttft_mean_s, view.requests), (None, None));
    }

    /// By hand: SGLang's inter-token histogram, per token: 0.5 s over 100 tokens is 5 ms per
    /// token, 200 tok/s.
    #[test]
    fn sglang_inter_token_mean_is_its_time_per_token() {
        let text = |sum: f64, count: f64, tokens: f64| {
            format!(
                "sglang:inter_token_latency_seconds_sum{{model_name=\"m\"}} {sum}\nsglang:inter_token_latency_seconds_count{{model_name=\"m\"}} {count}\nsglang:generation_tokens_total{{model_name=\"m\"}} {tokens}\n"
            )
        };
        let view = read(&text(1.0, 100.0, 100.0))
            .until(&read(&text(1.5, 200.0, 200.0)))
            .unwrap();
        assert_eq!(view.source, "sglang");
        assert_eq!(
            (
                view.tpot_mean_ms,
                view.itl_mean_ms,
                view.decode_tok_s_per_stream
            ),
            (Some(5.0), Some(5.0), Some(200.0))
        );
    }
}

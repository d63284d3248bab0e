//! A sweep level's figures from the requests it answered, by the project's own definitions
//! (and vLLM's for the inter-token latencies): what `collect sweep` and the importers that
//! recompute from per-request data share.

use std::borrow::Cow;

use crate::data::figures::level;
use crate::data::{Delivery, EngineView, LevelStatus, Load, PerStream, SweepLevel};
use crate::stats;

/// One request that succeeded, as a level's figures read it: seconds and tokens.
pub(super) struct Request<'g> {
    /// Request sent → first token.
    pub ttft: f64,
    /// Request sent → last token.
    pub latency: Option<f64>,
    /// Output tokens.
    pub output: Option<f64>,
    /// Prompt tokens.
    pub prompt: Option<f64>,
    /// Seconds between its chunks that carried text, each and the one before
    /// ([`super::stream::Timing::gaps`], borrowed from a measured answer); empty where they
    /// were not kept.
    pub gaps: Cow<'g, [f32]>,
    /// Chunks that carried text, where counted.
    pub chunks: Option<u64>,
}

/// A level at `load` with its request counts and no figures yet.
pub(super) fn counted(load: Load, succeeded: u64, failed: u64) -> SweepLevel {
    let (concurrency, rate_rps) = match load {
        Load::Concurrency(c) => (Some(c), None),
        Load::Rate(r) => (None, Some(r)),
    };
    SweepLevel {
        concurrency,
        rate_rps,
        requests: succeeded + failed,
        succeeded,
        failed,
        status: if succeeded > 0 {
            LevelStatus::Ok
        } else {
            LevelStatus::Failed
        },
        prompt_tokens: None,
        output_tokens: None,
        ttft_p50_s: None,
        ttft_p95_s: None,
        decode_tok_s_per_stream: None,
        total_tok_s: None,
        latency_p50_s: None,
        latency_p95_s: None,
        tpot_p50_ms: None,
        tpot_p95_ms: None,
        itl_p50_ms: None,
        itl_p95_ms: None,
        itl_p99_ms: None,
        max_stall_ms: None,
        itl_gaps: None,
        tokens_per_chunk: None,
        bunched_share: None,
        delivery: None,
        engine_view: None,
        source: None,
        power_w: None,
        joules_per_token: None,
        prompt_and_output_tok_s: None,
        cached_prompt_tokens: None,
        achieved_rps: None,
        wall_s: None,
        wait_p50_s: None,
        wait_p95_s: None,
        wait_max_s: None,
        peak_in_flight: None,
        unsent: None,
        running_mean: None,
        running_max: None,
        waiting_mean: None,
        waiting_max: None,
        kv_usage_mean: None,
        kv_usage_max: None,
        preemptions: None,
        prefix_queries: None,
        prefix_hits: None,
        metric_scrapes: None,
        ci95: std::collections::BTreeMap::new(),
    }
}

/// A level's figures from the requests that succeeded, by the project's own definitions:
/// TTFT and latency p50/p95 by [`stats::quantile`], the decode rate as the mean of
/// (output − 1) / (latency − TTFT) and the time per output token as the p50/p95 of its
/// inverse, the median token counts. Total tok/s is the caller's.
pub(super) fn figures(level: &mut SweepLevel, answered: &[Request]) {
    let q = |values: &[f64], at: f64| stats::quantile(values, at).map(|v| stats::round(v, 4));
    let median_count = |values: &[f64]| stats::median(values).map(|v| v.round() as u64);
    let ttft: Vec<f64> = answered.iter().map(|r| r.ttft).collect();
    let latency: Vec<f64> = answered.iter().filter_map(|r| r.latency).collect();
    let output: Vec<f64> = answered.iter().filter_map(|r| r.output).collect();
    let prompt: Vec<f64> = answered.iter().filter_map(|r| r.prompt).collect();
    let rates: Vec<f64> = answered
        .iter()
        .filter_map(|r| {
            let (tokens, end) = (r.output?, r.latency?);
            (tokens > 1.0 && end > r.ttft).then(|| (tokens - 1.0) / (end - r.ttft))
        })
        .collect();
    level.ttft_p50_s = q(&ttft, 0.5);
    level.ttft_p95_s = q(&ttft, 0.95);
    level.latency_p50_s = q(&latency, 0.5);
    level.latency_p95_s = q(&latency, 0.95);
    level.decode_tok_s_per_stream = stats::mean(&rates).map(|v| stats::round(v, 1));
    let tpot: Vec<f64> = rates.iter().map(|rate| 1e3 / rate).collect();
    level.tpot_p50_ms = q(&tpot, 0.5);
    level.tpot_p95_ms = q(&tpot, 0.95);
    level.output_tokens = median_count(&output);
    level.prompt_tokens = median_count(&prompt);
    inter_token(level, answered);
    let per_request = [
        (&level::TTFT_P50_S, &ttft),
        (&level::TTFT_P95_S, &ttft),
        (&level::LATENCY_P50_S, &latency),
        (&level::LATENCY_P95_S, &latency),
        (&level::TPOT_P50_MS, &tpot),
        (&level::TPOT_P95_MS, &tpot),
    ];
    for (figure, values) in per_request {
        let Some(percentile) = figure.percentile else {
            continue;
        };
        if (values.len() as u64) < level::TAIL_MIN_N {
            continue;
        }
        let at = f64::from(percentile) / 100.0;
        let resamples = stats::divergence::BOOTSTRAP_RESAMPLES;
        let seed = stats::divergence::BOOTSTRAP_SEED;
        if let Some([low, high]) = stats::quantile_ci95(values, at, resamples, seed) {
            level.ci95.insert(
                figure.field.key.to_owned(),
                [stats::round(low, 4), stats::round(high, 4)],
            );
        }
    }
}

/// A level's inter-token figures, by vLLM's definition (`vllm bench serve`'s ITL: the gaps
/// between an answer's chunks, every answer's together, and their percentiles): p50, p95,
/// p99 and the longest, in milliseconds, with their n; the tokens per chunk (output tokens
/// over the chunks of the answers that counted both); and the share of gaps that were 0, the
/// chunk in the same read as the one before.
fn inter_token(level: &mut SweepLevel, answered: &[Request]) {
    let gaps: Vec<f64> = answered
        .iter()
        .flat_map(|r| r.gaps.iter().map(|&gap| f64::from(gap) * 1e3))
        .collect();
    if !gaps.is_empty() {
        let q = |at: f64| stats::quantile(&gaps, at).map(|v| stats::round(v, 3));
        level.itl_p50_ms = q(0.5);
        level.itl_p95_ms = q(0.95);
        level.itl_p99_ms = q(0.99);
        level.max_stall_ms = gaps
            .iter()
            .copied()
            .reduce(f64::max)
            .map(|v| stats::round(v, 3));
        level.itl_gaps = Some(gaps.len() as u64);
        let zero = gaps.iter().filter(|&&gap| gap == 0.0).count();
        level.bunched_share = Some(stats::round(zero as f64 / gaps.len() as f64, 3));
    }
    let (tokens, chunks) = answered
        .iter()
        .filter_map(|r| Some((r.output?, r.chunks? as f64)))
        .fold((0.0, 0.0), |(t, c), (tokens, chunks)| {
            (t + tokens, c + chunks)
        });
    level.tokens_per_chunk = (chunks > 0.0).then(|| stats::round(tokens / chunks, 2));
}

/// A level's per-stream figures as its `delivery` allows: the client's when its answers were
/// streamed; else the engine's per-stream rate (its percentiles unknown), or nothing. The
/// inter-token figures are the bursts' and go either way.
pub(super) fn per_stream(level: &mut SweepLevel, delivery: &Delivery, engine: Option<&EngineView>) {
    if delivery.per_stream == PerStream::Client {
        return;
    }
    level.decode_tok_s_per_stream = engine
        .and_then(|e| e.decode_tok_s_per_stream)
        .filter(|_| delivery.per_stream == PerStream::Engine);
    (level.tpot_p50_ms, level.tpot_p95_ms) = (None, None);
    (level.itl_p50_ms, level.itl_p95_ms, level.itl_p99_ms) = (None, None, None);
    (level.max_stall_ms, level.itl_gaps) = (None, None);
    level.ci95.retain(|key, _| !key.starts_with("tpot_"));
}

/// An imported level's per-stream rate by its tool's definition (`vllm bench serve`'s and
/// SGLang's: 1000 / the mean of the per-request times per output token, (latency − TTFT) /
/// (output − 1)), its answers checked for bursts by the measured levels' rule where the file
/// keeps their gaps. A tool's file holds no engine figures, so a level with bursts has its
/// per-stream figures withheld.
pub(super) fn imported(level: &mut SweepLevel, answered: &[Request]) {
    let tpots: Vec<f64> = answered
        .iter()
        .filter_map(|r| {
            let (tokens, end) = (r.output?, r.latency?);
            (tokens > 1.0 && end > r.ttft).then(|| (end - r.ttft) / (tokens - 1.0))
        })
        .collect();
    level.decode_tok_s_per_stream = stats::mean(&tpots)
        .filter(|&tpot| tpot > 0.0)
        .map(|tpot| stats::round(1.0 / tpot, 1));
    let with_gaps: Vec<&Request> = answered.iter().filter(|r| !r.gaps.is_empty()).collect();
    if with_gaps.is_empty() {
        return;
    }
    let bursts: Vec<super::delivery::Burst> = with_gaps
        .iter()
        .filter_map(|r| super::delivery::burst(&r.gaps))
        .collect();
    let delivery = Delivery {
        answers: with_gaps.len() as u64,
        bursts: bursts.len() as u64,
        per_stream: match bursts.is_empty() {
            true => PerStream::Client,
            false => PerStream::Withheld,
        },
        cause: bursts.first().map(|first| {
            format!(
                "{} of {} answers arrived in bursts ({}), by the gaps the file keeps",
                bursts.len(),
                with_gaps.len(),
                first.words()
            )
        }),
        asked: None,
        short: None,
        short_cause: None,
        streamed_chunks: None,
        usage_tokens: None,
        usage_below_stream: None,
    };
    per_stream(level, &delivery, None);
    level.delivery = Some(delivery);
}

/// A level's per-stream figures over `streamed`, the answers that were (the others came in
/// bursts and are left out): its decode rate, TPOT and inter-token figures and intervals.
pub(super) fn per_stream_over(level: &mut SweepLevel, streamed: &[Request]) {
    let mut over = counted(level.load(), streamed.len() as u64, 0);
    figures(&mut over, streamed);
    level.decode_tok_s_per_stream = over.decode_tok_s_per_stream;
    (level.tpot_p50_ms, level.tpot_p95_ms) = (over.tpot_p50_ms, over.tpot_p95_ms);
    (level.itl_p50_ms, level.itl_p95_ms) = (over.itl_p50_ms, over.itl_p95_ms);
    (level.itl_p99_ms, level.max_stall_ms) = (over.itl_p99_ms, over.max_stall_ms);
    level.itl_gaps = over.itl_gaps;
    level.ci95.retain(|key, _| !key.starts_with("tpot_"));
    level.ci95.extend(
        over.ci95
            .into_iter()
            .filter(|(key, _)| key.starts_with("tpot_")),
    );
}

/// What a level's checks found that a reader must know, each said on the terminal at once and
/// kept in the record's notes: bursts, short answers, usage reports below the stream.
pub(super) fn checked(level: &SweepLevel) -> Vec<String> {
    let Some(delivery) = &level.delivery else {
        return Vec::new();
    };
    let at = level.load().words();
    let bursts = delivery.cause.as_ref().map(|cause| {
        let figure = match delivery.per_stream {
            PerStream::Client => "",
            PerStream::Engine => "; its per-stream decode rate is the engine's own (from its /metrics), and its TPOT and inter-token percentiles are not recorded",
            PerStream::Withheld => "; its per-stream decode rate, TPOT and inter-token figures are withheld (the server keeps no figures of its own to take them from)",
        };
        format!("{at}: {cause}{figure}")
    });
    let short = delivery
        .short_cause
        .as_ref()
        .map(|cause| format!("{at}: short answers: {cause}; the per-token figures include them"));
    let usage = delivery.usage_below_stream.filter(|&n| n > 0).map(|n| {
        format!("{at}: {n} answers' usage reports counted fewer tokens than the chunks that carried text, which is impossible for a true count")
    });
    bursts.into_iter().chain(short).chain(usage).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(gaps: &[f32], output: f64, chunks: u64) -> Request<'_> {
        Request {
            ttft: 0.1,
            latency: Some(1.0),
            output: Some(output),
            prompt: None,
            gaps: Cow::Borrowed(gaps),
            chunks: Some(chunks),
        }
    }

    /// By hand: the gaps of both answers together, in ms, sorted: 0, 0, 10, 10, 10, 20, 20,
    /// 40, 250 (n = 9). p50 is the 5th, 10; p95 at position 0.95 × 8 = 7.6, between 40 and
    /// 250: 40 + 0.6 × 210 = 166; p99 at 7.92: 40 + 0.92 × 210 = 233.2; the longest 250. Two
    /// of nine are 0: 0.222. Tokens per chunk: (12 + 8) / (6 + 5) = 1.82.
    #[test]
    fn inter_token_figures_by_hand() {
        let answered = [
            request(&[0.010, 0.020, 0.0, 0.040, 0.250], 12.0, 6),
            request(&[0.010, 0.0, 0.020, 0.010], 8.0, 5),
        ];
        let mut level = counted(Load::Concurrency(2), 2, 0);
        figures(&mut level, &answered);
        let close = |value: Option<f64>, expected: f64| {
            assert!(
                (value.unwrap() - expected).abs() < 1e-3,
                "{value:?} ≠ {expected}"
            )
        };
        close(level.itl_p50_ms, 10.0);
        close(level.itl_p95_ms, 166.0);
        close(level.itl_p99_ms, 233.2);
        close(level.max_stall_ms, 250.0);
        assert_eq!(level.itl_gaps, Some(9));
        assert_eq!(level.bunched_share, Some(0.222));
        assert_eq!(level.tokens_per_chunk, Some(1.82));
        // Without kept gaps, no inter-token figures.
        let mut level = counted(Load::Concurrency(1), 1, 0);
        figures(&mut level, &[request(&[], 5.0, 5)]);
        assert_eq!((level.itl_p50_ms, level.itl_gaps), (None, None));
    }
}

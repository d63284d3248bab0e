//! Whether each answer physically was what its figures assume, checked before it counts
//! (SPEC §3): streamed, its tokens spread in time rather than delivered in bursts; whole, with
//! `ignore_eos`, as many tokens as asked; and counted alike by the stream and the usage report.
//!
//! **The burst rule.** A client can only time a stream it sees as it is generated. Its decode
//! span (first token → last) is the answer's when its chunks arrive as they are made; chunks
//! that arrive together (a gap under [`TOGETHER_S`]: the chunk was already waiting when the
//! client read the one before) were made earlier than the client saw them. An answer came in
//! bursts when either:
//! - *held first*: the chunks that came together with its first hold more than
//!   [`HELD_FIRST`] of its gaps, and at least two: the client's decode span misses the time
//!   they took, and its rate is overstated by as much. (One pair at the start is a server's
//!   timer firing late once, as the fake server's 1 ms timers do on a loaded machine.) A buffering proxy that sends a stream whole, or vLLM 0.32
//!   on two loaded cores (an answer's 273 chunks within 2.6 ms, gaps of about 10 µs, none 0:
//!   why a test of gaps of exactly 0 never fired), hold it all; or
//! - *concentrated*: of an answer with at least [`CONCENTRATED_MIN_GAPS`] gaps, its longest
//!   tenth of gaps hold [`CONCENTRATED`] of its decode span: it waited, then its tokens came
//!   at once, as a proxy that flushes its buffer now and then sends them. A steady stream's
//!   longest tenth hold about a tenth of it; one held back by another request's prefill, or
//!   preempted once, far less than nine tenths.
//!
//! Chunks that come in pairs through the answer (llama-server's tiny model at 3,000 tok/s
//! sends about half its gaps under 0.1 ms) are neither: the pairs are spread over the span,
//! so the span is the answer's, and the engine's own time per token agrees with the client's.
//!
//! And a level or run came in bursts as a whole when the client's mean time per output token
//! is below [`BELOW_ENGINE`] of the engine's own over the same window (`engine_view`): the
//! client cannot see tokens faster than they were made.
//!
//! Where fewer than half of a level's or run's answers came in bursts, they are left out of its
//! per-stream figures, which are over the others (each physically checked), and the record says
//! how many. Where more did, or the engine rule holds, its per-stream figures are the engine's
//! own, labelled so, where the server keeps them; otherwise they are withheld ([`PerStream`]).

use super::stream::Timing;
use crate::data::{Delivery, EngineView, PerStream};
use crate::stats;

/// A gap shorter than this, in seconds, is two chunks delivered together.
pub const TOGETHER_S: f32 = 100e-6;

/// The share of an answer's gaps its first chunk's burst may hold before the answer came in
/// bursts: the most by which its client rate may be overstated.
pub const HELD_FIRST: f64 = 0.1;

/// The share of an answer's decode span its longest tenth of gaps hold when it came in
/// bursts.
pub const CONCENTRATED: f64 = 0.9;

/// The fewest gaps an answer needs to be judged concentrated.
pub const CONCENTRATED_MIN_GAPS: usize = 10;

/// The share of the engine's time per output token below which the client's mean is
/// impossible.
pub const BELOW_ENGINE: f64 = 0.5;

/// The share of the engine's mean time per output token below which one answer's own came
/// faster than it was made: stricter than [`BELOW_ENGINE`], since one answer may fairly beat
/// the mean of many (spared another's prefill).
pub const ANSWER_BELOW_ENGINE: f64 = 0.25;

/// How one answer's tokens arrived.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Burst {
    /// The chunks that came together with its first held this share of its gaps.
    HeldFirst(f64),
    /// Its longest tenth of gaps held this share of its decode span.
    Concentrated(f64),
    /// Its time per output token (ms, the first) was below [`ANSWER_BELOW_ENGINE`] of the
    /// engine's own mean over the same window (the second).
    Faster(f64, f64),
}

impl Burst {
    /// What the answer showed, in words.
    pub fn words(self) -> String {
        match self {
            Burst::HeldFirst(share) => format!(
                "{:.0}% of an answer's chunks came together with its first, each within 0.1 ms of the one before, so its decode time was not seen",
                share * 100.0
            ),
            Burst::Concentrated(share) => format!(
                "the longest tenth of an answer's gaps held {:.0}% of its decode time: it waited, then its tokens came at once",
                share * 100.0
            ),
            Burst::Faster(client, engine) => format!(
                "an answer's tokens came {client:.3} ms apart, under a quarter of the engine's own {engine:.3} ms per token over the same window: the client saw them after they were made, starved of CPU or behind a buffer"
            ),
        }
    }
}

/// Whether an answer with these gaps (seconds) came in bursts, and how.
pub fn burst(gaps: &[f32]) -> Option<Burst> {
    if gaps.len() < 2 {
        return None;
    }
    let held = gaps.iter().take_while(|&&g| g < TOGETHER_S).count();
    let share = held as f64 / gaps.len() as f64;
    if held >= 2 && share > HELD_FIRST {
        return Some(Burst::HeldFirst(share));
    }
    if gaps.len() < CONCENTRATED_MIN_GAPS {
        return None;
    }
    let mut sorted: Vec<f64> = gaps.iter().map(|&g| f64::from(g)).collect();
    sorted.sort_by(|a, b| b.total_cmp(a));
    let span: f64 = sorted.iter().sum();
    let longest: f64 = sorted[..gaps.len().div_ceil(10)].iter().sum();
    let held = longest / span;
    (span > 0.0 && held >= CONCENTRATED).then_some(Burst::Concentrated(held))
}

/// What the checks found of each answer, in the order given.
#[derive(Debug, Clone, PartialEq)]
pub struct Found {
    /// The record's delivery, and whether its per-stream figures are the client's.
    pub delivery: Delivery,
    /// Per answer: whether it came in bursts (and is left out of the client's per-stream
    /// figures).
    pub bursts: Vec<bool>,
    /// Per answer, with `ignore_eos`: whether it was short.
    pub short: Vec<Option<bool>>,
}

/// Checks `answers`: bursts, against `engine` where the server keeps its own figures; with
/// `ignore_eos` (`asked` holds the tokens each answer asked for, `None` without), short
/// answers, and what cut them given the server's `context` per sequence where known; the
/// usage reports against the stream. `engine` gets the client's means over the same answers.
pub fn check(
    answers: &[&Timing],
    asked: &[Option<u64>],
    context: Option<u64>,
    engine: Option<&mut EngineView>,
) -> Found {
    let found = bursts_of(answers, engine.as_deref());
    let bursts = found.iter().filter(|b| b.is_some()).count() as u64;
    let streamed = answers.len() as u64 - bursts;
    let mean = |values: Vec<f64>| stats::mean(&values);
    let client_tpot = mean(
        answers
            .iter()
            .zip(&found)
            .filter(|(_, burst)| burst.is_none())
            .filter_map(|(t, _)| t.decode_rate())
            .map(|rate| 1e3 / rate)
            .collect(),
    );
    // Fewer than half in bursts: the client's figures are over the others. More: they are not
    // the client's at all.
    let most = bursts > streamed;
    let mut cause = found.iter().flatten().next().map(|first| {
        format!(
            "{bursts} of {} answers arrived in bursts ({}): a proxy that buffers the stream, or a server that could not send its tokens as it made them{}",
            answers.len(),
            first.words(),
            match most {
                true => "",
                false => "; they are left out of the per-stream figures, which are over the other answers",
            }
        )
    });
    let mut engine_rate = None;
    let mut faster = false;
    if let Some(view) = engine {
        view.client_ttft_mean_s = mean(answers.iter().map(|t| t.ttft.as_secs_f64()).collect())
            .map(|v| stats::round(v, 4));
        view.client_latency_mean_s =
            mean(answers.iter().map(|t| t.latency.as_secs_f64()).collect())
                .map(|v| stats::round(v, 4));
        view.client_tpot_mean_ms = client_tpot.map(|v| stats::round(v, 3));
        if let (Some(client), Some(own)) = (client_tpot, view.tpot_mean_ms)
            && client < BELOW_ENGINE * own
            && !most
        {
            faster = true;
            cause = Some(format!(
                "the client's mean time per output token, {:.3} ms, is below half the engine's own, {:.3} ms: the client cannot see tokens faster than they were made, so they came in bursts",
                client, own
            ));
        }
        engine_rate = view.decode_tok_s_per_stream;
    }
    let per_stream = match (most || faster, engine_rate) {
        (false, _) => PerStream::Client,
        (true, Some(_)) => PerStream::Engine,
        (true, None) => PerStream::Withheld,
    };
    let short: Vec<Option<bool>> = answers
        .iter()
        .zip(asked.iter().chain(std::iter::repeat(&None)))
        .map(|(t, &asked)| is_short(t, asked))
        .collect();
    let most = asked.iter().flatten().copied().max();
    let shorts = most.map(|_| short.iter().filter(|s| **s == Some(true)).count() as u64);
    let short_cause = shorts
        .filter(|&n| n > 0)
        .map(|_| short_cause(answers, &short, most, context));
    let reported: Vec<(u64, u64)> = answers
        .iter()
        .filter_map(|t| Some((t.text_chunks, t.output_tokens()?)))
        .collect();
    let delivery = Delivery {
        answers: answers.len() as u64,
        bursts,
        per_stream,
        cause,
        asked: most,
        short: shorts,
        short_cause,
        streamed_chunks: (!reported.is_empty()).then(|| reported.iter().map(|r| r.0).sum()),
        usage_tokens: (!reported.is_empty()).then(|| reported.iter().map(|r| r.1).sum()),
        usage_below_stream: (!reported.is_empty()).then(|| {
            reported
                .iter()
                .filter(|(chunks, usage)| usage < chunks)
                .count() as u64
        }),
    };
    Found {
        delivery,
        bursts: found.iter().map(Option::is_some).collect(),
        short,
    }
}

/// How each answer came in bursts, if it did: by its gaps, or, where `engine` keeps its own
/// time per token, by coming faster than that.
fn bursts_of(answers: &[&Timing], engine: Option<&EngineView>) -> Vec<Option<Burst>> {
    let own = engine.and_then(|view| view.tpot_mean_ms);
    answers
        .iter()
        .map(|t| burst(&t.gaps).or_else(|| faster_than_made(t, own)))
        .collect()
}

/// Whether an answer came faster than the engine made tokens, by its mean time per output
/// token (`own`, ms) over the same window.
fn faster_than_made(timing: &Timing, own: Option<f64>) -> Option<Burst> {
    let own = own.filter(|ms| *ms > 0.0)?;
    let client = 1e3 / timing.decode_rate()?;
    (client < ANSWER_BELOW_ENGINE * own).then_some(Burst::Faster(client, own))
}

/// With `ignore_eos` (`asked`), whether an answer returned fewer tokens than asked.
fn is_short(timing: &Timing, asked: Option<u64>) -> Option<bool> {
    Some(timing.output_tokens()? < asked?)
}

/// What cut the short answers, from their finish reasons and the server's context.
fn short_cause(
    answers: &[&Timing],
    short: &[Option<bool>],
    most: Option<u64>,
    context: Option<u64>,
) -> String {
    let cut: Vec<&Timing> = answers
        .iter()
        .zip(short)
        .filter(|(_, s)| **s == Some(true))
        .map(|(t, _)| *t)
        .collect();
    let fewest = cut.iter().filter_map(|t| t.output_tokens()).min();
    let mut reasons: Vec<&str> = cut
        .iter()
        .filter_map(|t| t.finish_reason.as_deref())
        .collect();
    reasons.sort_unstable();
    reasons.dedup();
    let said = match reasons.as_slice() {
        [] => "the server gave no finish reason".to_owned(),
        list => format!("finish reason {}", list.join(", ")),
    };
    let limit = match (reasons.contains(&"length"), context) {
        (true, Some(context)) => format!(
            ": the server stopped them before max_tokens, at the context it gives a sequence ({context} tokens with the prompt)"
        ),
        (true, None) => ": the server stopped them before max_tokens, at a limit of its own (its context per sequence)".to_owned(),
        _ => String::new(),
    };
    format!(
        "{} of {} answers returned fewer tokens than the {} asked (the fewest {}; {said}{limit})",
        cut.len(),
        answers.len(),
        most.unwrap_or_default(),
        fewest.map_or_else(|| "unknown".to_owned(), |n| n.to_string()),
    )
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::collect::stream::Usage;

    fn timing(ttft: f64, gaps: Vec<f32>, tokens: u64, reason: &str) -> Timing {
        let span: f64 = gaps.iter().map(|&g| f64::from(g)).sum();
        Timing {
            ttft: Duration::from_secs_f64(ttft),
            latency: Duration::from_secs_f64(ttft + span),
            usage: Some(Usage {
                prompt_tokens: Some(10),
                completion_tokens: Some(tokens),
                prompt_tokens_details: None,
            }),
            text_chunks: gaps.len() as u64 + 1,
            text: String::new(),
            finish_reason: Some(reason.into()),
            logprob_tokens: 0,
            gaps,
        }
    }

    /// The two cases the rule was made for, and a steady stream beside each.
    #[test]
    fn bursts_are_found_by_how_the_tokens_spread_not_by_gaps_of_zero() {
        // vLLM's starved API server: 273 chunks within 2.6 ms, gaps of about 10 µs, none 0.
        let starved = vec![9.5e-6_f32; 272];
        assert!(matches!(burst(&starved), Some(Burst::HeldFirst(s)) if s == 1.0));
        // A proxy flushing every 50 chunks: 49 gaps of 1 µs, then 250 ms, five times: the
        // first burst holds 49 of 250 gaps, and the five long gaps all the span.
        let flushed: Vec<f32> = (0..250)
            .map(|i| if i % 50 == 49 { 0.25 } else { 1e-6 })
            .collect();
        assert!(matches!(burst(&flushed), Some(Burst::HeldFirst(s)) if (s - 0.196).abs() < 1e-9));
        let mut later: Vec<f32> = flushed.clone();
        later[..49].fill(0.004);
        assert!(matches!(burst(&later), Some(Burst::Concentrated(_))));
        // Four chunks at a time over eight: the first three gaps together, 3 of 7.
        let fours = [0.0, 0.0, 0.0, 0.08, 0.0, 0.0, 0.0];
        assert!(matches!(burst(&fours), Some(Burst::HeldFirst(s)) if (s - 3.0 / 7.0).abs() < 1e-9));
        // llama-server's tiny model: chunks in pairs, 10 µs then 0.7 ms, over 32 chunks; the
        // first pair holds 1 of 31 gaps.
        let pairs: Vec<f32> = (0..31)
            .map(|i| if i % 2 == 0 { 1e-5 } else { 7e-4 })
            .collect();
        assert_eq!(burst(&pairs), None);
        // Silence after the first token, then the rest 0.2 ms apart (not together): the
        // longest tenth (3 gaps of 25) holds (1 + 2 × 0.0002) / (1 + 24 × 0.0002) = 99.5%.
        let mut waited = vec![0.0002_f32; 24];
        waited.insert(0, 1.0);
        match burst(&waited) {
            Some(Burst::Concentrated(held)) => assert!((held - 0.9956).abs() < 1e-3, "{held}"),
            other => panic!("{other:?}"),
        }
        // A steady stream at 4 ms, one at 0.2 ms (a tiny model on a fast CPU, 5,000 tok/s),
        // and one stalled once for 200 ms by another request's prefill: none came in bursts.
        assert_eq!(burst(&[0.004; 255]), None);
        assert_eq!(burst(&[0.0002; 255]), None);
        let mut stalled = vec![0.02_f32; 255];
        stalled[100] = 0.2;
        assert_eq!(burst(&stalled), None);
        // Too few gaps to judge concentration; one gap judges nothing.
        assert_eq!(burst(&[1.0, 0.001, 0.001]), None);
        assert_eq!(burst(&[0.0]), None);
    }

    #[test]
    fn a_burst_takes_the_engines_rate_or_is_withheld() {
        let steady = timing(0.05, vec![0.004; 99], 100, "length");
        let starved = timing(1.0, vec![9.5e-6; 99], 100, "length");
        // Streamed: the client's.
        let found = check(&[&steady, &steady], &[], None, None);
        assert_eq!(found.delivery.per_stream, PerStream::Client);
        assert_eq!((found.delivery.bursts, found.delivery.cause), (0, None));
        // One burst of two: left out, the client's figures over the other, and said so.
        let found = check(&[&steady, &starved], &[], None, None);
        assert_eq!(found.delivery.per_stream, PerStream::Client);
        assert_eq!(found.bursts, [false, true]);
        let cause = found.delivery.cause.unwrap();
        assert!(
            cause.starts_with(
                "1 of 2 answers arrived in bursts (100% of an answer's chunks came together with its first"
            ) && cause.ends_with("they are left out of the per-stream figures, which are over the other answers"),
            "{cause}"
        );
        // Two bursts of three and no engine view: withheld.
        let found = check(&[&steady, &starved, &starved], &[], None, None);
        assert_eq!(found.delivery.per_stream, PerStream::Withheld);
        assert_eq!(found.delivery.bursts, 2);
        // With the engine's rate: the engine's.
        let mut view = EngineView {
            source: "vllm".into(),
            requests: Some(3),
            output_tokens: Some(300),
            ttft_mean_s: Some(0.04),
            tpot_mean_ms: Some(4.0),
            itl_mean_ms: None,
            e2e_mean_s: Some(0.44),
            decode_tok_s_per_stream: Some(250.0),
            client_ttft_mean_s: None,
            client_tpot_mean_ms: None,
            client_latency_mean_s: None,
        };
        let found = check(&[&steady, &starved, &starved], &[], None, Some(&mut view));
        assert_eq!(found.delivery.per_stream, PerStream::Engine);
        // The client's means beside it, by hand: TTFT (0.05 + 1.0 + 1.0) / 3 = 0.6833 s; TPOT
        // over the streamed answer alone, 4 ms.
        assert_eq!(view.client_ttft_mean_s, Some(0.6833));
        assert_eq!(view.client_tpot_mean_ms, Some(4.0));
    }

    /// By hand: the steady answers' TPOT is 4 ms, the engine's 10 ms: below half of it, so
    /// the client saw tokens faster than they were made, though no answer's gaps show it.
    #[test]
    fn a_client_faster_than_the_engine_is_a_burst() {
        let steady = timing(0.05, vec![0.004; 99], 100, "length");
        let mut view = EngineView {
            source: "vllm".into(),
            requests: Some(1),
            output_tokens: Some(100),
            ttft_mean_s: None,
            tpot_mean_ms: Some(10.0),
            itl_mean_ms: None,
            e2e_mean_s: None,
            decode_tok_s_per_stream: Some(100.0),
            client_ttft_mean_s: None,
            client_tpot_mean_ms: None,
            client_latency_mean_s: None,
        };
        let found = check(&[&steady], &[], None, Some(&mut view));
        assert_eq!(found.delivery.per_stream, PerStream::Engine);
        assert!(
            found
                .delivery
                .cause
                .unwrap()
                .starts_with("the client's mean time per output token, 4.000 ms, is below half the engine's own, 10.000 ms")
        );
    }

    /// What two Slurm tasks sharing two cores did to llama-server's tiny model: one sample
    /// at 1,709 tok/s, and one whose 16 tokens the starved client read within 0.6 ms
    /// (25,083 tok/s), its first gap 150 µs so no gaps rule fires, while the engine's own
    /// counters made a token every 0.612 ms. By hand: 0.598 ms / 15 = 0.0399 ms a token, under
    /// a quarter of 0.612; the run is over the other sample, 8.775 ms / 15 = 0.585 ms.
    #[test]
    fn an_answer_faster_than_the_engine_made_it_is_left_out() {
        let steady = timing(0.004, vec![0.000585; 15], 16, "length");
        let mut gaps = vec![32e-6_f32; 14];
        gaps.insert(0, 150e-6);
        let starved = timing(0.013, gaps.clone(), 16, "length");
        assert_eq!(burst(&gaps), None);
        let mut view = EngineView {
            source: "llamacpp".into(),
            requests: None,
            output_tokens: Some(32),
            ttft_mean_s: None,
            tpot_mean_ms: Some(0.612),
            itl_mean_ms: None,
            e2e_mean_s: None,
            decode_tok_s_per_stream: Some(1634.0),
            client_ttft_mean_s: None,
            client_tpot_mean_ms: None,
            client_latency_mean_s: None,
        };
        let found = check(&[&steady, &starved], &[], None, Some(&mut view));
        assert_eq!(found.bursts, [false, true]);
        assert_eq!(found.delivery.per_stream, PerStream::Client);
        assert_eq!(view.client_tpot_mean_ms, Some(0.585));
        let cause = found.delivery.cause.unwrap();
        assert!(
            cause.starts_with("1 of 2 answers arrived in bursts (an answer's tokens came 0.040 ms apart, under a quarter of the engine's own 0.612 ms"),
            "{cause}"
        );
        // Without the engine's figures nothing tells it.
        assert_eq!(
            check(&[&steady, &starved], &[], None, None).bursts,
            [false, false]
        );
    }

    #[test]
    fn short_answers_are_counted_and_their_cause_named() {
        let whole = timing(0.05, vec![0.004; 999], 1000, "length");
        let cut = timing(0.05, vec![0.004; 832], 833, "length");
        let found = check(&[&whole, &cut, &cut], &[Some(1000); 3], Some(2048), None);
        assert_eq!(found.short, [Some(false), Some(true), Some(true)]);
        assert_eq!(
            (found.delivery.short, found.delivery.asked),
            (Some(2), Some(1000))
        );
        assert_eq!(
            found.delivery.short_cause.as_deref(),
            Some(
                "2 of 3 answers returned fewer tokens than the 1000 asked (the fewest 833; finish reason length: the server stopped them before max_tokens, at the context it gives a sequence (2048 tokens with the prompt))"
            )
        );
        // Without ignore_eos nothing is short; the usage reports agree with the chunks.
        let found = check(&[&whole, &cut], &[None, None], None, None);
        assert_eq!(
            (found.delivery.short, found.delivery.short_cause),
            (None, None)
        );
        assert_eq!(found.short, [None, None]);
        assert_eq!(
            (
                found.delivery.streamed_chunks,
                found.delivery.usage_tokens,
                found.delivery.usage_below_stream
            ),
            (Some(1833), Some(1833), Some(0))
        );
        // A usage report of fewer tokens than the chunks that carried text.
        let undercounted = timing(0.05, vec![0.004; 99], 50, "length");
        let found = check(&[&undercounted], &[], None, None);
        assert_eq!(found.delivery.usage_below_stream, Some(1));
    }
}

//! A level's answers as its sweep's record keeps them: its figures (`level::figures`, with an
//! open loop's TTFT and latency from when each request was due), its wall time and request
//! rate, an open loop's waits in the client, the server's `/metrics` through it, its
//! per-request data, why requests failed, and the output tokens of answers that came without
//! a usage report.

use std::time::Duration;

use futures_util::StreamExt;

use super::delivery::Found;
use super::level::{Request, counted, figures};
use super::sending::Level;
use super::target::Target;
use crate::data::{self, Load, PerStream, SweepLevel};
use crate::stats;

impl Level {
    /// Why requests failed, each distinct cause once with its count, most frequent first:
    /// `3 × HTTP 500: out of memory`.
    pub fn causes(&self) -> Vec<String> {
        let mut counts: Vec<(String, usize)> = Vec::new();
        for error in &self.errors {
            let cause = error.to_string();
            match counts.iter_mut().find(|(c, _)| *c == cause) {
                Some((_, n)) => *n += 1,
                None => counts.push((cause, 1)),
            }
        }
        counts.sort_by_key(|(_, n)| std::cmp::Reverse(*n));
        counts
            .into_iter()
            .map(|(cause, n)| format!("{n} × {cause}"))
            .collect()
    }

    /// Counts the output tokens of the answers that came without a usage report, asked for
    /// at most `max_tokens` (`Target::count_tokens`), eight at a time; how they were counted.
    pub(crate) async fn count_tokens(
        &mut self,
        target: &Target,
        max_tokens: u64,
    ) -> Vec<super::target::Counted> {
        futures_util::stream::iter(
            self.timings
                .iter_mut()
                .map(|t| target.count_tokens(t, max_tokens)),
        )
        .buffer_unordered(8)
        .filter_map(std::future::ready)
        .collect::<Vec<_>>()
        .await
    }

    /// The level as the results document records it: at `load`, of `requests` requests (in
    /// an open loop, those sent). An open-loop answer's TTFT and latency run from when it was
    /// due, its wait in the client included. Its answers are checked (`delivery`): with
    /// `ignore_eos`, `asked` gives the tokens the request numbered n asked for, `context` is
    /// the server's context per sequence where known; what the checks found of each answer
    /// is returned beside it, for [`Level::lines`].
    pub fn summary(
        &self,
        load: Load,
        requests: u64,
        asked: Option<&dyn Fn(u64) -> u64>,
        context: Option<u64>,
    ) -> (SweepLevel, Found) {
        let answered: Vec<Request> = self
            .timings
            .iter()
            .enumerate()
            .map(|(index, t)| {
                let wait = self.sent.get(index).map_or(0.0, |s| s.wait().as_secs_f64());
                Request {
                    ttft: wait + t.ttft.as_secs_f64(),
                    latency: Some(wait + t.latency.as_secs_f64()),
                    output: t.output_tokens().map(|n| n as f64),
                    prompt: t.usage.and_then(|u| u.prompt_tokens).map(|n| n as f64),
                    gaps: std::borrow::Cow::Borrowed(&t.gaps),
                    chunks: Some(t.text_chunks),
                }
            })
            .collect();
        let succeeded = answered.len() as u64;
        let mut level = counted(load, succeeded, requests.saturating_sub(succeeded));
        figures(&mut level, &answered);
        self.timed(&mut level, load);
        level.cached_prompt_tokens = self
            .timings
            .iter()
            .filter_map(|t| t.usage.and_then(|u| u.cached_tokens()))
            .reduce(|a, b| a + b);
        let total_output: f64 = answered.iter().filter_map(|r| r.output).sum();
        let wall = self.wall.as_secs_f64();
        level.total_tok_s = (!answered.is_empty() && wall > 0.0 && total_output > 0.0)
            .then(|| stats::round(total_output / wall, 1));
        let prompts: Option<Vec<f64>> = answered.iter().map(|r| r.prompt).collect();
        let total_prompt: f64 = prompts.iter().flatten().sum();
        level.prompt_and_output_tok_s = (prompts.is_some() && level.total_tok_s.is_some())
            .then(|| stats::round((total_prompt + total_output) / wall, 1));
        (level.power_w, level.joules_per_token) = super::decode::energy(self.power, total_output);
        super::watch::summarise(&self.scrapes, &mut level);
        let mut engine = super::watch::engine_view(&self.scrapes);
        let timings: Vec<&super::stream::Timing> = self.timings.iter().collect();
        let asked: Vec<Option<u64>> = self
            .sent
            .iter()
            .map(|sent| asked.map(|asked| asked(sent.n)))
            .collect();
        let found = super::delivery::check(&timings, &asked, context, engine.as_mut());
        super::level::per_stream(&mut level, &found.delivery, engine.as_ref());
        if found.delivery.per_stream == PerStream::Client && found.delivery.bursts > 0 {
            let streamed: Vec<Request> = answered
                .into_iter()
                .zip(&found.bursts)
                .filter(|(_, burst)| !**burst)
                .map(|(request, _)| request)
                .collect();
            super::level::per_stream_over(&mut level, &streamed);
        }
        level.delivery = Some(found.delivery.clone());
        level.engine_view = engine;
        (level, found)
    }

    /// Each request of the level, level `index` of its sweep, as its per-request data keeps
    /// it: the answers in the order they finished, with what the checks `found` of each, then
    /// the failures.
    pub fn lines(&self, index: usize, found: &Found) -> Vec<data::RequestLine> {
        let seconds = |d: Duration| stats::round(d.as_secs_f64(), 6);
        let line = |sent: &super::sending::Sent| data::RequestLine {
            level: index,
            n: sent.n,
            due_s: sent.due.map(seconds),
            sent_s: Some(seconds(sent.at)),
            status: data::RequestStatus::Ok,
            ttft_s: None,
            latency_s: None,
            output_tokens: None,
            prompt_tokens: None,
            chunks: None,
            gap_p50_ms: None,
            gap_max_ms: None,
            finish_reason: None,
            bursts: None,
            short: None,
            error: None,
        };
        let checked = found.bursts.iter().zip(&found.short);
        let answered = self.timings.iter().zip(&self.sent).zip(checked);
        let answered = answered.map(|((t, sent), (&bursts, &short))| {
            let gaps: Vec<f64> = t.gaps.iter().map(|&g| f64::from(g) * 1e3).collect();
            data::RequestLine {
                ttft_s: Some(seconds(t.ttft)),
                latency_s: Some(seconds(t.latency)),
                output_tokens: t.output_tokens(),
                prompt_tokens: t.usage.and_then(|u| u.prompt_tokens),
                chunks: Some(t.text_chunks),
                gap_p50_ms: stats::median(&gaps).map(|g| stats::round(g, 3)),
                gap_max_ms: gaps
                    .iter()
                    .copied()
                    .reduce(f64::max)
                    .map(|g| stats::round(g, 3)),
                finish_reason: t.finish_reason.clone(),
                bursts: Some(bursts),
                short,
                ..line(sent)
            }
        });
        let failed = self
            .errors
            .iter()
            .zip(&self.failed_sent)
            .map(|(error, sent)| data::RequestLine {
                status: data::RequestStatus::Failed,
                error: Some(error.to_string()),
                ..line(sent)
            });
        answered.chain(failed).collect()
    }

    /// The level's wall time and the requests it answered per second; in an open loop, the
    /// waits in the client, the most in flight and the arrivals never sent.
    fn timed(&self, level: &mut SweepLevel, load: Load) {
        let wall = self.wall.as_secs_f64();
        level.wall_s = (wall > 0.0).then(|| stats::round(wall, 3));
        level.achieved_rps = (wall > 0.0).then(|| stats::round(level.succeeded as f64 / wall, 3));
        if !load.is_rate() {
            return;
        }
        let waits: Vec<f64> = self
            .sent
            .iter()
            .chain(&self.failed_sent)
            .map(|s| s.wait().as_secs_f64())
            .collect();
        let q = |at: f64| stats::quantile(&waits, at).map(|v| stats::round(v, 4));
        level.wait_p50_s = q(0.5);
        level.wait_p95_s = q(0.95);
        level.wait_max_s = q(1.0);
        level.peak_in_flight = self.peak_in_flight;
        level.unsent = Some(self.unsent);
    }
}

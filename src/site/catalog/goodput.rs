//! Goodput: of a level's requests, those that met every latency limit, judged request by
//! request as `vllm bench serve --goodput` does (a limit on `ttft_p95_s` of 2 bounds each
//! request's TTFT at 2 s; a failed request is never good), from the sweep's per-request data.
//! Times run from when a request was due, so an open loop's wait in the client counts.

use super::records::Catalog;
use crate::config::Slo;
use crate::data::figures::level::RequestFigure;
use crate::data::{RequestLine, RequestStatus, Sweep, SweepLevel};
use crate::stats;

/// The limits of `slo` as bounds on each request: the lowest bound of each figure.
pub fn request_bounds(slo: &Slo) -> Vec<(RequestFigure, f64)> {
    let mut bounds: Vec<(RequestFigure, f64)> = Vec::new();
    for bound in slo.bounds() {
        let Some(figure) = bound.figure.request else {
            continue;
        };
        match bounds.iter_mut().find(|(f, _)| *f == figure) {
            Some((_, at_most)) => *at_most = at_most.min(bound.at_most),
            None => bounds.push((figure, bound.at_most)),
        }
    }
    bounds
}

/// One request as goodput reads it: due → first token and → last token (seconds), time per
/// output token after the first (milliseconds; 0 for a one-token answer, as vLLM takes it)
/// and output tokens; `None` when it failed.
pub fn judged(line: &RequestLine) -> Option<[Option<f64>; 4]> {
    let one_token = line.output_tokens.is_some_and(|t| t <= 1);
    (line.status == RequestStatus::Ok).then(|| {
        [
            line.ttft_from_due(),
            line.tpot_ms().or(one_token.then_some(0.0)),
            line.latency_from_due(),
            line.output_tokens.map(|t| t as f64),
        ]
    })
}

/// Whether a request answered with `figures` ([`judged`]) meets every bound. A figure a
/// bound needs and the request lacks (its output tokens unknown) fails it.
fn meets(figures: &[Option<f64>; 4], bounds: &[(RequestFigure, f64)]) -> bool {
    bounds.iter().all(|(figure, at_most)| {
        let value = match figure {
            RequestFigure::Ttft => figures[0],
            RequestFigure::Tpot => figures[1],
            RequestFigure::Latency => figures[2],
        };
        value.is_some_and(|v| v <= *at_most)
    })
}

/// A level's goodput.
#[derive(Debug, Clone, PartialEq)]
pub struct Goodput {
    /// Requests that met every limit.
    pub good: u64,
    /// Requests sent.
    pub sent: u64,
    /// Good requests over the level's wall time, per second.
    pub per_second: Option<f64>,
    /// The good requests' output tokens over the level's wall time, per second.
    pub tokens_per_second: Option<f64>,
}

/// The goodput of `level`, whose requests are `lines`, under `bounds`.
pub fn goodput(
    level: &SweepLevel,
    lines: &[&RequestLine],
    bounds: &[(RequestFigure, f64)],
) -> Goodput {
    let (mut good, mut tokens) = (0, 0.0);
    for figures in lines.iter().filter_map(|line| judged(line)) {
        if meets(&figures, bounds) {
            good += 1;
            tokens += figures[3].unwrap_or(0.0);
        }
    }
    let wall = level.wall_s.filter(|&w| w > 0.0);
    Goodput {
        good,
        sent: lines.len() as u64,
        per_second: wall.map(|w| stats::round(good as f64 / w, 3)),
        tokens_per_second: wall.map(|w| stats::round(tokens / w, 1)),
    }
}

impl<'a> Catalog<'a> {
    /// The per-request data of the sweep at `index`, level by level, where it was kept.
    pub fn request_lines(&self, index: usize) -> Option<Vec<Vec<&'a RequestLine>>> {
        let lines = *self.requests.get(&index)?;
        let sweep: &Sweep = &self.doc.sweeps[index];
        let mut levels: Vec<Vec<&RequestLine>> = vec![Vec::new(); sweep.levels.len()];
        for line in lines {
            if let Some(level) = levels.get_mut(line.level) {
                level.push(line);
            }
        }
        Some(levels)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::figures::level;

    fn answered(ttft: f64, latency: f64, tokens: u64, wait: f64) -> RequestLine {
        RequestLine {
            level: 0,
            n: 0,
            due_s: Some(1.0),
            sent_s: Some(1.0 + wait),
            status: RequestStatus::Ok,
            ttft_s: Some(ttft),
            latency_s: Some(latency),
            output_tokens: Some(tokens),
            prompt_tokens: None,
            chunks: None,
            gap_p50_ms: None,
            gap_max_ms: None,
            finish_reason: None,
            bursts: None,
            short: None,
            error: None,
        }
    }

    /// Worked by hand. Four requests over a 2 s level:
    /// - a: TTFT 0.5 s, 1.5 s for 101 tokens: TPOT 10 ms, latency 1.5 s;
    /// - b: the same answer after a 1 s wait in the client: TTFT 1.5 s, latency 2.5 s;
    /// - c: TTFT 0.2 s, 3.2 s for 101 tokens: TPOT 30 ms;
    /// - d: failed.
    ///
    /// TTFT ≤ 1 s and TPOT ≤ 20 ms: only a is good: 1 of 4, 0.5 req/s, 101 / 2 = 50.5 tok/s.
    /// With no limit, every answer is: 3 of 4, 1.5 req/s, 303 / 2 = 151.5 tok/s.
    #[test]
    fn goodput_of_a_hand_worked_level() {
        let mut d = answered(0.0, 0.0, 0, 0.0);
        d.status = RequestStatus::Failed;
        let lines = [
            answered(0.5, 1.5, 101, 0.0),
            answered(0.5, 1.5, 101, 1.0),
            answered(0.2, 3.2, 101, 0.0),
            d,
        ];
        let refs: Vec<&RequestLine> = lines.iter().collect();
        let level: SweepLevel = serde_json::from_value(serde_json::json!({
            "rate_rps": 2.0, "requests": 4, "succeeded": 3, "failed": 1, "status": "ok",
            "wall_s": 2.0
        }))
        .unwrap();
        // Two TTFT limits: the lower one holds for each request.
        let slo = Slo::of([
            (&level::TTFT_P95_S, 1.0),
            (&level::TTFT_P50_S, 2.0),
            (&level::TPOT_P95_MS, 20.0),
        ]);
        let bounds = request_bounds(&slo);
        assert_eq!(
            bounds,
            [(RequestFigure::Ttft, 1.0), (RequestFigure::Tpot, 20.0)]
        );
        assert_eq!(
            goodput(&level, &refs, &bounds),
            Goodput {
                good: 1,
                sent: 4,
                per_second: Some(0.5),
                tokens_per_second: Some(50.5)
            }
        );
        assert_eq!(
            goodput(&level, &refs, &[]),
            Goodput {
                good: 3,
                sent: 4,
                per_second: Some(1.5),
                tokens_per_second: Some(151.5)
            }
        );
        // The wait counts: a latency limit of 2 s keeps a and drops b (2.5 s from due).
        let latency = request_bounds(&Slo::of([(&level::LATENCY_P95_S, 2.0)]));
        assert_eq!(goodput(&level, &refs, &latency).good, 1);
        // A one-token answer's TPOT is 0, as vLLM takes it: within any TPOT limit.
        let one = answered(0.5, 0.5, 1, 0.0);
        let tpot = request_bounds(&Slo::of([(&level::TPOT_P95_MS, 1.0)]));
        assert_eq!(goodput(&level, &[&one], &tpot).good, 1);
    }
}

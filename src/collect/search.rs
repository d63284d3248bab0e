//! Which load a sweep measures next. A plain sweep takes its levels in order. A limit search
//! (`collect sweep --search`) looks for the highest load that keeps the report's `[slo]`
//! (`Slo::holds`: every limit at its percentile, no failed request): it starts at the first
//! level given, doubles while each probe holds, up to the last level given, then bisects
//! between the highest that held and the lowest that broke until they are one apart
//! (concurrency) or within the tolerance of each other (rates, `--search-tolerance`). An
//! open-loop probe whose TTFT grew through it while the server answered under nine tenths of
//! the rate is over-saturated: it counts as broken whatever its percentiles say, and the
//! search goes no higher.

use super::error::CollectError;
use super::progress::Progress;
use crate::data::{self, LimitSearch, Load, RequestLine, RequestStatus, SweepLevel};
use crate::project::Layout;
use crate::stats;

/// Chooses each level's load.
#[derive(Debug, Clone)]
pub struct Planner {
    /// A plain sweep's loads still to measure, in order.
    fixed: std::collections::VecDeque<Load>,
    /// A limit search, when the sweep is one.
    search: Option<Search>,
}

#[derive(Debug, Clone)]
struct Search {
    rates: bool,
    start: f64,
    max: f64,
    tolerance: f64,
    held: Option<f64>,
    broke: Option<f64>,
    probes: u64,
    saturated: Option<f64>,
}

impl Planner {
    /// Measures `loads` in order.
    pub fn sweep(loads: Vec<Load>) -> Planner {
        Planner {
            fixed: loads.into(),
            search: None,
        }
    }

    /// Searches between the first and the last of `loads` (all of one kind).
    pub fn search(loads: &[Load], tolerance: f64) -> Planner {
        let first = loads.first().copied().unwrap_or(Load::Concurrency(1));
        Planner {
            fixed: Default::default(),
            search: Some(Search {
                rates: first.is_rate(),
                start: first.x(),
                max: loads.last().map_or(first.x(), |l| l.x()),
                tolerance,
                held: None,
                broke: None,
                probes: 0,
                saturated: None,
            }),
        }
    }

    /// The next load to measure; `None` when the sweep or the search is done.
    pub fn next(&mut self) -> Option<Load> {
        let Some(search) = &self.search else {
            return self.fixed.pop_front();
        };
        let x = match (search.held, search.broke) {
            (None, None) => search.start,
            (None, Some(_)) => return None,
            (Some(held), None) if held >= search.max => return None,
            (Some(held), None) => (held * 2.0).min(search.max),
            (Some(held), Some(broke)) => {
                let close = if search.rates {
                    broke / held <= 1.0 + search.tolerance
                } else {
                    broke - held <= 1.0
                };
                if close {
                    return None;
                }
                if search.rates {
                    significant((held + broke) / 2.0)
                } else {
                    ((held + broke) / 2.0).floor()
                }
            }
        };
        Some(if search.rates {
            Load::Rate(x)
        } else {
            Load::Concurrency(x as u64)
        })
    }

    /// What a probe at `load` showed: whether it held the limits, and whether it was
    /// over-saturated.
    pub fn record(&mut self, load: Load, holds: bool, saturated: bool) {
        let Some(search) = &mut self.search else {
            return;
        };
        search.probes += 1;
        let x = load.x();
        if saturated {
            search.saturated = Some(search.saturated.map_or(x, |s: f64| s.min(x)));
        }
        if holds && !saturated {
            search.held = Some(search.held.map_or(x, |h: f64| h.max(x)));
        } else {
            search.broke = Some(search.broke.map_or(x, |b: f64| b.min(x)));
        }
    }

    /// The search's answer, when the sweep is one.
    pub fn result(&self, limits: String) -> Option<LimitSearch> {
        let search = self.search.as_ref()?;
        Some(LimitSearch {
            limits,
            held: search.held,
            broke: search.broke,
            probes: search.probes,
            saturated: search.saturated,
            tolerance: search.rates.then_some(search.tolerance),
        })
    }
}

/// `x` to three significant digits, so a bisected rate reads as one a person would type.
fn significant(x: f64) -> f64 {
    if x <= 0.0 {
        return x;
    }
    let digits = 2 - x.log10().floor() as i32;
    stats::round(x, digits)
}

/// Whether an open-loop level was over-saturated: the server answered under nine tenths of
/// the rate, and the median TTFT (from when due) of the last third of its requests, by when
/// they were due, was over twice the first third's.
pub fn saturated(rate: f64, achieved: Option<f64>, lines: &[RequestLine]) -> bool {
    if achieved.is_none_or(|a| a >= 0.9 * rate) {
        return false;
    }
    let mut answered: Vec<(f64, f64)> = lines
        .iter()
        .filter(|l| l.status == RequestStatus::Ok)
        .filter_map(|l| Some((l.due_s?, l.ttft_from_due()?)))
        .collect();
    if answered.len() < 6 {
        return false;
    }
    answered.sort_by(|a, b| a.0.total_cmp(&b.0));
    let third = answered.len() / 3;
    let median = |part: &[(f64, f64)]| {
        stats::median(&part.iter().map(|(_, t)| *t).collect::<Vec<_>>()).unwrap_or(0.0)
    };
    let (first, last) = (
        median(&answered[..third]),
        median(&answered[answered.len() - third..]),
    );
    last > 2.0 * first
}

/// The report's limits, for a search: `[slo]` of benchsite.toml, which must give one.
pub(super) fn limits(
    layout: &Layout,
    search: bool,
) -> Result<Option<crate::config::Slo>, CollectError> {
    if !search {
        return Ok(None);
    }
    let config = crate::config::load(&layout.root)
        .map_err(|error| CollectError::Usage(error.to_string()))?;
    if config.slo.bounds().is_empty() {
        return Err(CollectError::Usage(
            "--search looks for the highest load within the report's limits: give [slo] in benchsite.toml, e.g. ttft_p95_s = 2".into(),
        ));
    }
    Ok(Some(config.slo))
}

/// A search's probes in load order, as a sweep's levels are, each request's `level` moved
/// with its level.
pub(super) fn in_load_order(levels: &mut Vec<SweepLevel>, lines: &mut [data::RequestLine]) {
    let mut order: Vec<usize> = (0..levels.len()).collect();
    order.sort_by(|&a, &b| levels[a].load().x().total_cmp(&levels[b].load().x()));
    let mut moved = vec![0; order.len()];
    for (to, &from) in order.iter().enumerate() {
        moved[from] = to;
    }
    for line in lines.iter_mut() {
        line.level = moved[line.level];
    }
    let mut taken: Vec<Option<SweepLevel>> = levels.drain(..).map(Some).collect();
    levels.extend(
        order
            .iter()
            .map(|&from| taken[from].take().expect("each once")),
    );
}

/// A search's probe judged, and said on the terminal: whether it held the limits, and
/// whether an open loop was over-saturated.
pub(super) fn probed(
    slo: &crate::config::Slo,
    load: Load,
    summary: &SweepLevel,
    lines: &[data::RequestLine],
    progress: &Progress,
) -> (bool, bool) {
    let saturated = match load {
        Load::Rate(rate) => saturated(rate, summary.achieved_rps, lines),
        Load::Concurrency(_) => false,
    };
    let holds = slo.holds(summary);
    progress.line(&format!(
        "search: {} {}",
        load.words(),
        match (saturated, holds) {
            (true, _) => "over-saturated: TTFT grew through the level",
            (false, true) => "holds the limits",
            (false, false) => "breaks the limits",
        }
    ));
    (holds, saturated)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Probes a server that holds the limits up to `boundary`, from the planner's first load:
    /// the loads it probed, in order.
    fn probed(mut planner: Planner, holds: impl Fn(f64) -> bool) -> (Vec<f64>, Planner) {
        let mut loads = Vec::new();
        while let Some(load) = planner.next() {
            loads.push(load.x());
            planner.record(load, holds(load.x()), false);
            assert!(loads.len() < 40, "{loads:?}");
        }
        (loads, planner)
    }

    #[test]
    fn a_concurrency_search_brackets_then_bisects_to_one_apart() {
        // Holds up to 5 (worked by hand): 1, 2, 4 hold, 8 breaks; 6 breaks, 5 holds.
        let loads = [Load::Concurrency(1), Load::Concurrency(64)];
        let (probes, planner) = probed(Planner::search(&loads, 0.1), |x| x <= 5.0);
        assert_eq!(probes, [1.0, 2.0, 4.0, 8.0, 6.0, 5.0]);
        let found = planner.result("TTFT p95 ≤ 1 s".into()).unwrap();
        assert_eq!(
            (found.held, found.broke, found.probes),
            (Some(5.0), Some(6.0), 6)
        );
        // Everything holds: up to the last level given, never past it.
        let (probes, _) = probed(Planner::search(&loads, 0.1), |_| true);
        assert_eq!(probes, [1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0]);
        // Nothing holds: one probe.
        let (probes, planner) = probed(Planner::search(&loads, 0.1), |_| false);
        assert_eq!(probes, [1.0]);
        assert_eq!(planner.result(String::new()).unwrap().held, None);
    }

    #[test]
    fn a_rate_search_stops_within_its_tolerance() {
        // Holds up to 3.3 req/s: 0.5, 1, 2 hold, 4 breaks; then 3 holds, 3.5 breaks, 3.25
        // holds, and 3.5 / 3.25 = 1.077 is within 10%.
        let loads = [Load::Rate(0.5), Load::Rate(16.0)];
        let (probes, planner) = probed(Planner::search(&loads, 0.1), |x| x <= 3.3);
        assert_eq!(probes, [0.5, 1.0, 2.0, 4.0, 3.0, 3.5, 3.25]);
        let found = planner.result(String::new()).unwrap();
        assert_eq!((found.held, found.broke), (Some(3.25), Some(3.5)));
        assert_eq!(found.tolerance, Some(0.1));
        assert_eq!(significant(4.56789), 4.57);
        assert_eq!(significant(123.456), 123.0);
    }

    #[test]
    fn a_plain_sweep_is_its_levels_in_order() {
        let mut planner = Planner::sweep(vec![Load::Concurrency(1), Load::Concurrency(4)]);
        assert_eq!(planner.next(), Some(Load::Concurrency(1)));
        planner.record(Load::Concurrency(1), false, false);
        assert_eq!(planner.next(), Some(Load::Concurrency(4)));
        assert_eq!(planner.next(), None);
        assert!(planner.result(String::new()).is_none());
    }

    fn due(at: f64, ttft: f64) -> RequestLine {
        RequestLine {
            level: 0,
            n: 0,
            due_s: Some(at),
            sent_s: Some(at),
            status: RequestStatus::Ok,
            ttft_s: Some(ttft),
            latency_s: Some(ttft + 1.0),
            output_tokens: Some(10),
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

    #[test]
    fn over_saturation_is_a_growing_ttft_while_the_server_falls_behind() {
        // TTFT 0.1 s at first, 0.5 s at the end: five times; answered 5 of 10 req/s.
        let growing: Vec<RequestLine> = (0..9)
            .map(|i| due(i as f64 * 0.1, 0.1 + 0.05 * i as f64))
            .collect();
        assert!(saturated(10.0, Some(5.0), &growing));
        // Kept up: not saturated, however TTFT moved.
        assert!(!saturated(10.0, Some(9.5), &growing));
        // Fell behind with a flat TTFT: not growing without bound.
        let flat: Vec<RequestLine> = (0..9).map(|i| due(i as f64 * 0.1, 0.1)).collect();
        assert!(!saturated(10.0, Some(5.0), &flat));
    }
}

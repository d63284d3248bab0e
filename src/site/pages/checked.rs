//! What the answers behind a record physically were, as collection checked them before they
//! counted (bursts, short answers, usage against the stream), and the engine's own figures
//! beside the client's: the sweep page's table and the run page's facts. A record measured
//! before the checks says that its per-stream figures were not checked for bursts.

use serde::Serialize;

use super::super::views::{Cell, Column, Fact, Row, Table};
use crate::data::figures::Precision;
use crate::data::{AGREE_SHARE, Delivery, EngineView, PerStream, Run, Sweep, SweepLevel};
use crate::format::{MISSING, count, figure};

/// What a record measured before the checks says of its per-stream figures.
pub const UNCHECKED: &str = "measured before benchsite checked each answer (method version 3): its per-stream figures were not checked for bursts, and an answer cut short was not told apart";

/// The words of a per-stream figure the client did not time: `delivered in bursts`.
pub const BURSTS: &str = "delivered in bursts";

/// A sweep page's section on its answers.
#[derive(Debug, Serialize)]
pub struct Checked {
    /// What the checks found, or that there were none, in a sentence or two.
    pub said: String,
    /// Per level: the answers checked, bursts, where the per-stream figures come from, short
    /// answers, the engine's means beside the client's; absent before the checks.
    pub table: Option<Table>,
}

/// The section of a sweep.
pub fn of_sweep(sweep: &Sweep) -> Checked {
    let checked: Vec<&SweepLevel> = sweep
        .levels
        .iter()
        .filter(|l| l.delivery.is_some() || l.engine_view.is_some())
        .collect();
    if checked.is_empty() {
        let said = match sweep.source.is_some() || sweep.levels.iter().any(|l| l.source.is_some())
        {
            true => "Imported from a file that keeps no chunk gaps: its per-stream figures could not be checked for bursts.".to_owned(),
            false => format!("This sweep was {UNCHECKED}."),
        };
        return Checked { said, table: None };
    }
    let bursty = checked
        .iter()
        .filter(|l| l.delivery.as_ref().is_some_and(|d| d.cause.is_some()))
        .count();
    let short = checked
        .iter()
        .filter(|l| {
            l.delivery
                .as_ref()
                .and_then(|d| d.short)
                .is_some_and(|n| n > 0)
        })
        .count();
    let apart = checked
        .iter()
        .filter(|l| {
            l.engine_view
                .as_ref()
                .is_some_and(|e| !e.differences().is_empty())
        })
        .count();
    let mut said = vec![match bursty {
        0 => "Every answer was streamed: its tokens arrived spread in time, so the client's clock times them.".to_owned(),
        n => format!(
            "At {n} of {} levels answers arrived in bursts (a proxy that buffers the stream, or a server that could not send its tokens as it made them): there the per-stream figures are the engine's own, from its /metrics, or withheld where it keeps none, and never drawn or ranked from the client's clock.",
            checked.len()
        ),
    }];
    if short > 0 {
        said.push(format!(
            "At {short} levels some answers returned fewer tokens than asked (ignore_eos): the per-token figures include them."
        ));
    }
    if checked.iter().any(|l| l.engine_view.is_some()) {
        said.push(format!(
            "The engine's means are over exactly each level's window (its histograms' sums and counts differenced between scrapes); a difference from the client's of more than {:.0}% (and 5 ms, 0.5 ms for TPOT) is named{}.",
            AGREE_SHARE * 100.0,
            match apart {
                0 => ", and there is none".to_owned(),
                n => format!(": at {n} levels"),
            }
        ));
    }
    Checked {
        said: said.join(" "),
        table: Some(table(sweep, &checked)),
    }
}

fn table(sweep: &Sweep, levels: &[&SweepLevel]) -> Table {
    let open = sweep.workload.open_loop();
    let mean = |x: Option<f64>, scale: f64| {
        // In ms to the hundredth: a mean of seconds × 1000 is not a number to print whole.
        x.map_or_else(Cell::missing, |v| {
            let ms = crate::stats::round(v * scale, 2);
            Cell::number(crate::format::fixed(ms, 2), ms)
        })
    };
    Table {
        caption: format!(
            "What each level's answers were, as checked before they counted, and the engine's own means beside the client's (TTFT and TPOT in ms) of {}",
            sweep.label
        ),
        columns: vec![
            Column::number(if open {
                "Arrivals (req/s)"
            } else {
                "Concurrency"
            }),
            Column::number("Answers checked"),
            Column::number("In bursts"),
            Column::text("Per-stream figures"),
            Column::number("Short answers"),
            Column::number("Client TTFT"),
            Column::number("Engine TTFT"),
            Column::number("Client TPOT"),
            Column::number("Engine TPOT"),
            Column::text("Differences"),
        ],
        rows: levels
            .iter()
            .map(|level| {
                let delivery = level.delivery.as_ref();
                let engine = level.engine_view.as_ref();
                Row {
                    id: Some(format!("checked-{}", level.load().anchor())),
                    class: None,
                    cells: vec![
                        super::shared::load_cell(level.load()),
                        delivery.map_or_else(Cell::missing, |d| {
                            Cell::number(count(d.answers), d.answers as f64)
                        }),
                        delivery.map_or_else(Cell::missing, |d| {
                            Cell::number(count(d.bursts), d.bursts as f64)
                        }),
                        delivery.map_or_else(Cell::missing, source_cell),
                        delivery.map_or_else(Cell::missing, short_cell),
                        mean(engine.and_then(|e| e.client_ttft_mean_s), 1e3),
                        mean(engine.and_then(|e| e.ttft_mean_s), 1e3),
                        mean(engine.and_then(|e| e.client_tpot_mean_ms), 1.0),
                        mean(engine.and_then(|e| e.tpot_mean_ms), 1.0),
                        Cell::text(engine.map_or(MISSING.to_owned(), differences)),
                    ],
                }
            })
            .collect(),
        csv: None,
    }
}

/// Where a record's per-stream figures come from, in a word, its cause on hover.
fn source_cell(delivery: &Delivery) -> Cell {
    let text = match delivery.per_stream {
        PerStream::Client => "the client's",
        PerStream::Engine => "the engine's",
        PerStream::Withheld => "withheld",
    };
    match &delivery.cause {
        Some(cause) => Cell::text(text).titled(cause.clone()),
        None => Cell::text(text),
    }
}

fn short_cell(delivery: &Delivery) -> Cell {
    match delivery.short {
        None => Cell::text("not asked (no ignore_eos)"),
        Some(n) => {
            let cell = Cell::number(count(n), n as f64);
            match &delivery.short_cause {
                Some(cause) => cell.titled(cause.clone()),
                None => cell,
            }
        }
    }
}

/// The client's and the engine's means that differ beyond the tolerance, in words.
fn differences(engine: &EngineView) -> String {
    let apart = engine.differences();
    if apart.is_empty() {
        return format!("none beyond {:.0}%", AGREE_SHARE * 100.0);
    }
    apart
        .iter()
        .map(|(what, client, own)| {
            format!(
                "{what}: client {} against the engine's {}",
                significant(*client),
                significant(*own)
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// `x` to three significant digits, as the figures beside it are read.
fn significant(x: f64) -> String {
    match Precision::Significant(3).decimals_for(x) {
        Some(decimals) => crate::format::fixed(x, decimals),
        None => figure(x),
    }
}

/// What a run's facts say of its samples' delivery and the engine's view.
pub fn run_facts(run: &Run) -> Vec<Fact> {
    let Some(delivery) = &run.delivery else {
        return match run.source {
            Some(_) => Vec::new(),
            None => vec![Fact::new("Answers", format!("{UNCHECKED}."))],
        };
    };
    let mut facts = vec![Fact::new(
        "Answers",
        match (&delivery.cause, delivery.per_stream) {
            (None, _) => format!(
                "{} samples checked: each streamed, its tokens spread in time",
                count(delivery.answers)
            ),
            (Some(cause), PerStream::Client) => format!(
                "{} of {} samples streamed, their tokens spread in time; {cause}",
                count(delivery.answers - delivery.bursts),
                count(delivery.answers)
            ),
            (Some(cause), PerStream::Engine) => format!(
                "{BURSTS}: {cause}; the decode speed is the engine's own per-stream rate, from its /metrics over the samples"
            ),
            (Some(cause), _) => format!("{BURSTS}: {cause}"),
        },
    )];
    if let Some(cause) = &delivery.short_cause {
        facts.push(Fact::new("Short samples", cause.clone()));
    }
    if let Some(engine) = &run.engine_view {
        let said = [
            engine
                .decode_tok_s_per_stream
                .map(|r| format!("{} tok/s per stream", figure(r))),
            engine.tpot_mean_ms.map(|t| {
                format!(
                    "TPOT {} ms (the client's {})",
                    significant(t),
                    engine
                        .client_tpot_mean_ms
                        .map_or(MISSING.to_owned(), significant)
                )
            }),
            engine.ttft_mean_s.map(|t| {
                format!(
                    "TTFT {} ms (the client's {})",
                    significant(t * 1e3),
                    engine
                        .client_ttft_mean_s
                        .map_or(MISSING.to_owned(), |c| significant(c * 1e3))
                )
            }),
        ];
        let said: Vec<String> = said.into_iter().flatten().collect();
        if !said.is_empty() {
            facts.push(Fact::new(
                "The engine's own view",
                format!(
                    "{} ({}, over the samples); {}",
                    said.join(", "),
                    engine.source,
                    differences(engine)
                ),
            ));
        }
    }
    facts
}

/// A level's per-stream decode cell where the client did not time it: the engine's rate,
/// marked, or the words that say it was delivered in bursts; `None` where the client's
/// clock timed it (or it was not checked).
pub fn per_stream_cell(level: &SweepLevel) -> Option<Cell> {
    let delivery = level.delivery.as_ref()?;
    let cause = delivery.cause.clone().unwrap_or_default();
    match (delivery.per_stream, level.decode_tok_s_per_stream) {
        (PerStream::Client, _) => None,
        (PerStream::Engine, Some(rate)) => Some(
            Cell::number(figure(rate), rate)
                .beside("engine")
                .titled(format!("the engine's own rate, from its /metrics: {cause}")),
        ),
        _ => Some(Cell::text(BURSTS).titled(cause)),
    }
}

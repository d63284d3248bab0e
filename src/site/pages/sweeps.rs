//! The sweeps index: every sweep in a table and overlaid on charts.

use serde::Serialize;

use super::super::catalog::Catalog;
use super::super::charts::{self, LineSeries};
use super::super::downloads;
use super::super::error::SiteError;
use super::super::filters::{self, FilteredTable};
use super::super::views::{Cell, Chart, Column, Row, Table};
use super::page::{Page, View};
use super::shared::{load_cell, most_recent, opt_cell, points};
use crate::data::Sweep;
use crate::data::figures::{LevelField, level};
use crate::format::{count, figure};

/// The sweeps index's content.
#[derive(Debug, Serialize)]
pub struct SweepsIndex {
    /// Whether some sweep is an open loop, drawn against its arrival rate.
    open: bool,
    charts: Vec<Chart>,
    sweeps: FilteredTable,
    tradeoffs: Option<super::tradeoffs::TradeOffs>,
}

/// The figures overlaid for every sweep, in order.
static OVERLAYS: [&LevelField; 4] = [
    &level::TOTAL_TOK_S,
    &level::DECODE_TOK_S_PER_STREAM,
    &level::TTFT_P50_S,
    &level::TTFT_P95_S,
];

/// At most this many sweeps on an overlay chart: the most recent.
pub const OVERLAY_SERIES: usize = 16;

/// The overlay charts of every sweep, a set per workload (prompt and output lengths never
/// share an axis), each of the most recent [`OVERLAY_SERIES`] sweeps of its workload.
pub fn overlays(c: &Catalog) -> Vec<Chart> {
    let mut workloads: Vec<(String, Vec<&Sweep>)> = Vec::new();
    for (index, sweep) in c.doc.sweeps.iter().enumerate() {
        let workload = c.workloads()[index].clone();
        match workloads.iter_mut().find(|(w, _)| *w == workload) {
            Some((_, sweeps)) => sweeps.push(sweep),
            None => workloads.push((workload, vec![sweep])),
        }
    }
    let mut charts = Vec::new();
    for (workload, all) in &workloads {
        let (sweeps, cut) = most_recent(
            all.iter().copied(),
            |s| s.generated.as_str(),
            OVERLAY_SERIES,
        );
        let of = if cut {
            format!(
                "the {} most recent of {} sweeps at {workload} (each model's page lists all of its own)",
                sweeps.len(),
                crate::format::count(all.len() as u64)
            )
        } else {
            format!("every sweep at {workload}")
        };
        for field in OVERLAYS {
            let series: Vec<LineSeries> = sweeps
                .iter()
                .map(|sweep| {
                    let points = points(sweep, field);
                    LineSeries {
                        name: sweep.label.clone(),
                        links: charts::level_links(
                            &c.sweep_url(sweep),
                            &points,
                            sweep.workload.open_loop(),
                        ),
                        points,
                        dashed: false,
                    }
                })
                .collect();
            let title = field
                .overlay
                .expect("overlaid figures have an overlay title");
            let drawn = if field.is_tail() {
                format!(
                    ", drawn where a level has {} requests or more",
                    level::TAIL_MIN_N
                )
            } else {
                String::new()
            };
            // A workload names its arrivals: its sweeps are all open loops or all closed.
            charts.push(c.concurrency_chart(
                &format!("{title}, {of}{drawn}"),
                &series,
                field.field.unit,
                all[0].workload.open_loop(),
                &[],
            ));
        }
    }
    charts
}

/// The table of every sweep.
pub fn table(c: &Catalog) -> Table {
    table_of(c, 0..c.doc.sweeps.len())
}

/// [`table`] of some records.
pub fn table_of(c: &Catalog, records: impl IntoIterator<Item = usize>) -> Table {
    let declared = c.machines.declared();
    let records: Vec<usize> = records.into_iter().collect();
    let open = records
        .iter()
        .any(|&i| c.doc.sweeps[i].workload.open_loop());
    Table {
        caption: if open { "Sweeps" } else { "Concurrency sweeps" }.into(),
        columns: [Column::text("Sweep")]
            .into_iter()
            .chain(declared.then(|| Column::text("Machine")))
            .chain([
                Column::text("Model"),
                Column::number("Prompt (words)"),
                Column::number("Output (tokens)"),
                Column::number("Levels"),
                Column::number("Peak output tok/s"),
                Column::number(if open {
                    "At (concurrency, or arrival rate)"
                } else {
                    "At concurrency"
                }),
                Column::number("Failed requests"),
            ])
            .collect(),
        rows: records
            .into_iter()
            .map(|i| {
                let sweep = &c.doc.sweeps[i];
                let peak = sweep
                    .levels
                    .iter()
                    .filter_map(|l| l.total_tok_s.map(|t| (t, l.load())))
                    .max_by(|a, b| a.0.total_cmp(&b.0));
                let failed: u64 = sweep.levels.iter().map(|l| l.failed).sum();
                let mut row = Row {
                    id: Some(format!("sweep-{}", sweep.slug())),
                    class: None,
                    cells: vec![
                        Cell::link(&sweep.label, c.sweep_url(sweep)),
                        Cell::text(&sweep.model),
                        opt_cell(sweep.workload.prompt_words.map(|w| w as f64), |w| {
                            count(w as u64)
                        }),
                        Cell::number(
                            count(sweep.workload.output_tokens),
                            sweep.workload.output_tokens as f64,
                        ),
                        Cell::number(sweep.levels.len().to_string(), sweep.levels.len() as f64),
                        opt_cell(peak.map(|p| p.0), figure),
                        peak.map_or_else(Cell::missing, |(_, load)| load_cell(load)),
                        Cell::number(count(failed), failed as f64),
                    ],
                };
                if let Some(machine) = c.machine_of::<Sweep>(i) {
                    row.cells.insert(1, c.machine_cell(machine));
                }
                row
            })
            .collect(),
        csv: Some(c.urls.page(&downloads::path(downloads::SWEEP_LEVELS))),
    }
}

/// Renders the sweeps index.
pub fn view(page: &Page) -> Result<View, SiteError> {
    let c = page.catalog();
    let index = SweepsIndex {
        open: c.doc.sweeps.iter().any(|s| s.workload.open_loop()),
        tradeoffs: super::tradeoffs::view(c, None),
        charts: overlays(c),
        sweeps: filters::filtered(
            table(c),
            (0..c.doc.sweeps.len()).map(|i| c.sweep_facets(i)).collect(),
        ),
    };
    View::new("Sweeps".into(), &index)
}

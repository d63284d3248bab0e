//! The runs index: every measured configuration, its decode chart and the method.

use serde::Serialize;

use super::super::catalog::Catalog;
use super::super::charts;
use super::super::downloads;
use super::super::error::SiteError;
use super::super::filters::{self, FilteredTable};
use super::super::views::{Cell, Chart, Column, Fact, Row, Table};
use super::page::{Page, View};
use super::shared::{field_cell, most_recent};
use crate::data::Run;
use crate::data::figures::{Field, run};
use crate::format::{figure, switch};

/// The runs index's content.
#[derive(Debug, Serialize)]
pub struct RunsIndex {
    decode_chart: Chart,
    runs: FilteredTable,
    method: Vec<Fact>,
}

/// The columns of the runs table, the most telling first: the registry's field and whether it
/// sorts as a number.
static COLUMNS: [(&Field<Run>, bool); 11] = [
    (&run::ID, false),
    (&run::DECODE_TOK_S, true),
    (&run::MODEL, false),
    (&run::KV_TOKENS, true),
    (&run::MAX_CONCURRENCY, true),
    (&run::SPEC_DECODE, true),
    (&run::PRECISION, false),
    (&run::MAX_MODEL_LEN, true),
    (&run::WEIGHTS_GIB, true),
    (&run::CUDA_GRAPHS, false),
    (&run::VISION, false),
];

/// A run's cell of the runs table.
fn cell(c: &Catalog, run: &Run, field: &Field<Run>) -> Cell {
    match field.key {
        key if key == run::ID.key => Cell::link(run.id.to_string(), c.run_url(run)),
        // Speculative decoding sorts by its acceptance.
        key if key == run::SPEC_DECODE.key => match run.spec_acceptance {
            Some(acceptance) => {
                Cell::number(format!("on, {} accepted", figure(acceptance)), acceptance)
            }
            None => Cell::number(switch(run.spec_decode), 0.0),
        },
        _ => field_cell(field, run),
    }
}

/// The table of every run.
pub fn table(c: &Catalog) -> Table {
    table_of(c, 0..c.doc.runs.len())
}

/// [`table`] of the runs at some indexes; with several machines, each run's machine after
/// its id.
pub fn table_of(c: &Catalog, runs: impl IntoIterator<Item = usize>) -> Table {
    let rows = runs
        .into_iter()
        .map(|i| {
            let run = &c.doc.runs[i];
            let mut cells: Vec<Cell> = COLUMNS
                .iter()
                .map(|(field, _)| cell(c, run, field))
                .collect();
            if let Some(machine) = c.machine_of::<Run>(i) {
                cells.insert(1, c.machine_cell(machine));
            }
            Row {
                id: Some(format!("run-{}", run.id)),
                class: None,
                cells,
            }
        })
        .collect();
    let mut columns: Vec<Column> = COLUMNS
        .iter()
        .map(|&(field, numeric)| {
            let label = field.label;
            if numeric {
                Column::number(label)
            } else {
                Column::text(label)
            }
        })
        .collect();
    if c.machines.declared() {
        columns.insert(1, Column::text("Machine"));
    }
    Table {
        caption: "Measured configurations: single-stream decode speed and KV-cache capacity".into(),
        columns,
        rows,
        csv: Some(c.urls.page(&downloads::path(downloads::RUNS))),
    }
}

/// At most this many bars on the decode chart: the most recent runs.
pub const CHART_BARS: usize = 30;

/// The bar chart of decode speed per run (the most recent [`CHART_BARS`]).
pub fn decode_chart(c: &Catalog) -> Chart {
    let (runs, cut) = most_recent(&c.doc.runs, |r| r.generated.as_str(), CHART_BARS);
    let names: Vec<String> = runs.iter().map(|r| r.id.to_string()).collect();
    let values: Vec<f64> = runs.iter().map(|r| r.decode_tok_s).collect();
    let links: Vec<String> = runs.iter().map(|r| c.run_url(r)).collect();
    let mut title = "Single-stream decode speed per configuration".to_owned();
    if cut {
        title.push_str(&format!(
            " (the {} most recent of {}; every run is in the table)",
            runs.len(),
            crate::format::count(c.doc.runs.len() as u64)
        ));
    }
    let alt = match (
        runs.iter()
            .min_by(|a, b| a.decode_tok_s.total_cmp(&b.decode_tok_s)),
        runs.iter()
            .max_by(|a, b| a.decode_tok_s.total_cmp(&b.decode_tok_s)),
    ) {
        (Some(low), Some(high)) => format!(
            "Bar chart of single-stream decode speed in tok/s for {}, from {} tok/s ({}) to {} tok/s ({})",
            crate::format::counted(runs.len(), "configuration", "configurations"),
            figure(low.decode_tok_s),
            low.id,
            figure(high.decode_tok_s),
            high.id
        ),
        _ => "Bar chart of single-stream decode speed, with no runs yet".to_owned(),
    };
    Chart {
        data_in: None,
        csv: None,
        title,
        alt,
        option: charts::bars(&names, &values, &links, "tok/s"),
        height: 380,
        table: Table {
            caption: "Decode speed per configuration".into(),
            columns: vec![Column::text("Run"), Column::number(run::DECODE_TOK_S.label)],
            rows: runs
                .iter()
                .map(|run| Row {
                    id: None,
                    class: None,
                    cells: vec![
                        Cell::link(run.id.to_string(), c.run_url(run)),
                        Cell::number(figure(run.decode_tok_s), run.decode_tok_s),
                    ],
                })
                .collect(),
            csv: None,
        },
    }
}

/// How the runs were measured.
pub fn method(c: &Catalog) -> Vec<Fact> {
    let m = &c.doc.method;
    [
        ("Workload", &m.workload),
        ("Prompt", &m.prompt),
        ("Warm-up", &m.warmup),
        ("KV pool", &m.kv_tokens),
        ("Acceptance", &m.acceptance),
    ]
    .into_iter()
    .filter_map(|(label, value)| value.as_ref().map(|v| Fact::new(label, v.clone())))
    .collect()
}

/// Renders the runs index.
pub fn view(page: &Page) -> Result<View, SiteError> {
    let c = page.catalog();
    let index = RunsIndex {
        decode_chart: decode_chart(c),
        runs: filters::filtered(
            table(c),
            (0..c.doc.runs.len()).map(|i| c.run_facets(i)).collect(),
        ),
        method: method(c),
    };
    View::new("Runs".into(), &index)
}

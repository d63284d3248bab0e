//! The models index: every model with what the report holds of it and its best figures.

use serde::Serialize;

use super::super::catalog::Catalog;
use super::super::error::SiteError;
use super::super::views::{Cell, Column, Row, Table};
use super::page::{Page, View};
use crate::format::{count, figure};

/// The models index's content.
#[derive(Debug, Serialize)]
pub struct ModelsIndex {
    models: Table,
}

/// The table of every model.
pub fn table(c: &Catalog) -> Table {
    let rows = c
        .models()
        .iter()
        .map(|model| {
            let best = model
                .runs
                .iter()
                .map(|&i| &c.doc.runs[i])
                .max_by(|a, b| a.decode_tok_s.total_cmp(&b.decode_tok_s));
            let peak = model
                .sweeps
                .iter()
                .map(|&i| &c.doc.sweeps[i])
                .filter_map(|s| {
                    s.levels
                        .iter()
                        .filter_map(|l| l.total_tok_s)
                        .max_by(f64::total_cmp)
                        .map(|t| (t, s))
                })
                .max_by(|a, b| a.0.total_cmp(&b.0));
            let number = |n: usize| Cell::number(count(n as u64), n as f64);
            Row {
                id: None,
                class: None,
                cells: vec![
                    Cell::link(&model.name, c.model_url(&model.name)),
                    match best {
                        Some(run) => Cell::link(
                            format!("{} ({})", figure(run.decode_tok_s), run.id),
                            c.run_url(run),
                        )
                        .sorted_by(run.decode_tok_s),
                        None => Cell::missing(),
                    },
                    match peak {
                        Some((total, sweep)) => Cell::link(
                            format!("{} ({})", figure(total), sweep.label),
                            c.sweep_url(sweep),
                        )
                        .sorted_by(total),
                        None => Cell::missing(),
                    },
                    number(model.runs.len()),
                    number(model.sweeps.len()),
                    number(model.comparisons.len()),
                    number(model.failures.len()),
                ],
            }
        })
        .collect();
    Table {
        caption: "Every model: its best single-stream decode, its peak throughput, and its records"
            .into(),
        columns: vec![
            Column::text("Model"),
            Column::number("Best decode tok/s"),
            Column::number("Peak output tok/s"),
            Column::number("Runs"),
            Column::number("Sweeps"),
            Column::number("Comparisons"),
            Column::number("Failures"),
        ],
        rows,
        csv: None,
    }
}

/// Renders the models index.
pub fn view(page: &Page) -> Result<View, SiteError> {
    View::new(
        "Models".into(),
        &ModelsIndex {
            models: table(page.catalog()),
        },
    )
}

//! The changes page: what changed since the baseline document.

use serde::Serialize;

use super::super::render::PageBuild;
use super::super::views::{Cell, Column, Row, Table};
use super::super::{PageFile, SiteError};
use crate::compare;
use crate::data;
use crate::format::figure;

/// The `/changes/` page: what changed since the baseline document.
#[derive(Debug, Serialize)]
pub struct ChangesPage {
    /// The baseline's path in the project.
    pub baseline: String,
    /// `5%`.
    pub threshold: String,
    /// Changed records, each with a table of its changes.
    pub records: Vec<ChangedRecord>,
    /// Records new since the baseline.
    pub added: Vec<String>,
    /// Records gone since the baseline.
    pub removed: Vec<String>,
    /// How many changes are regressions.
    pub regressions: usize,
}

/// One record's changes.
#[derive(Debug, Serialize)]
pub struct ChangedRecord {
    /// The anchor.
    pub id: String,
    /// `runs → qwen36-moe-default`.
    pub record: String,
    /// Its changes.
    pub table: Table,
}

/// The changes page of `diff` against the document at `baseline`.
pub fn changes_page(diff: &compare::Diff, baseline: &str, threshold: f64) -> ChangesPage {
    ChangesPage {
        baseline: baseline.to_owned(),
        threshold: format!("{}%", figure(threshold)),
        records: diff
            .records
            .iter()
            .map(|record| ChangedRecord {
                id: data::slugify(&record.record),
                record: record.record.clone(),
                table: Table {
                    caption: format!("{}: what changed", record.record),
                    columns: vec![
                        Column::text("Figure or setting"),
                        Column::text("Baseline"),
                        Column::text("Now"),
                        Column::text("Change"),
                    ],
                    rows: record
                        .changes
                        .iter()
                        .map(|change| {
                            let flag = change
                                .regression
                                .then(|| format!("regression beyond {}%", figure(threshold)));
                            Row {
                                id: None,
                                class: change.regression.then(|| "regression".to_owned()),
                                cells: vec![
                                    Cell::text(change.what.clone()),
                                    Cell::text(change.old_text()),
                                    Cell::text(change.new_text()),
                                    Cell::text(change.delta_text().unwrap_or_default())
                                        .warn(flag.as_ref()),
                                ],
                            }
                        })
                        .collect(),
                    csv: None,
                },
            })
            .collect(),
        added: diff.added.clone(),
        removed: diff.removed.clone(),
        regressions: diff.regressions().count(),
    }
}

/// Renders the changes page.
pub fn render(page: &PageBuild) -> Result<PageFile, SiteError> {
    let c = page.catalog();
    let (path, baseline) = c.baseline.expect("a changes page has a baseline");
    let diff = compare::diff(baseline, c.doc, c.threshold);
    page.render(
        "Changes since the baseline".into(),
        &changes_page(&diff, path, c.threshold),
    )
}

//! The changes page: what changed since the baseline document.

use serde::Serialize;

use super::super::error::SiteError;
use super::super::views::{Cell, Column, Link, Row, Table};
use super::page::{Page, View};
use crate::compare;
use crate::data;
use crate::format::figure;

/// The `/changes/` page: what changed since each machine's baseline document.
#[derive(Debug, Serialize)]
pub struct ChangesPage {
    /// One part per machine with a baseline.
    pub machines: Vec<MachineChanges>,
}

/// What changed on one machine since its baseline.
#[derive(Debug, Serialize)]
pub struct MachineChanges {
    /// The machine's page, in a report that declares machines.
    pub machine: Option<Link>,
    /// The prefix of this part's anchors (the machine's slug and a hyphen, or nothing).
    pub anchor: String,
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

/// The changes of `diff` against the document at `baseline`.
pub fn machine_changes(diff: &compare::Diff, baseline: &str, threshold: f64) -> MachineChanges {
    MachineChanges {
        machine: None,
        anchor: String::new(),
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
                            let flag = change.regression.then(|| {
                                format!(
                                    "regression beyond {}% ({})",
                                    figure(threshold),
                                    change.noise.words()
                                )
                            });
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

/// Renders the changes page: each machine's document against its baseline.
pub fn view(page: &Page) -> Result<View, SiteError> {
    let c = page.catalog();
    let machines = c
        .baselines
        .iter()
        .map(|baseline| {
            let now = c.machines.whole(baseline.machine, c.doc);
            let diff = compare::diff(&baseline.doc, &now, c.threshold);
            let mut part = machine_changes(&diff, &baseline.path, c.threshold);
            let machine = &c.machines.machines[baseline.machine];
            if c.machines.declared() {
                part.machine = Some(c.machine_link(machine));
                part.anchor = format!("{}-", machine.slug);
            }
            part
        })
        .collect();
    let title = if c.baselines.len() > 1 {
        "Changes since the baselines"
    } else {
        "Changes since the baseline"
    };
    View::new(title.into(), &ChangesPage { machines })
}

//! A machine's page, in a report that declares `[machines]`: its hardware and software, the
//! author's hardware notes (`content/hardware/<slug>.md`), its records, and the pairs that
//! compare it with another machine.

use serde::Serialize;

use super::super::catalog::Catalog;
use super::super::downloads;
use super::super::error::SiteError;
use super::super::views::{Fact, Link, Table};
use super::page::{Page, View};
use super::{failures, home, quality, runs, sweeps};
use crate::compare;
use crate::data::{Divergence, Failure, Jitter, Run, Sweep};

/// A machine's page.
#[derive(Debug, Serialize)]
pub struct MachinePage {
    /// What the report calls the machine.
    pub title: String,
    /// Its slug.
    pub slug: String,
    /// How many records of each kind, in words.
    pub summary: String,
    /// Its hardware.
    pub hardware: Vec<Fact>,
    /// Its serving stack.
    pub software: Vec<Fact>,
    /// Its runs.
    pub runs: Table,
    /// Its sweeps.
    pub sweeps: Table,
    /// Its comparisons.
    pub comparisons: Table,
    /// Its jitter measurements.
    pub jitter: Table,
    /// Its failures.
    pub failures: Table,
    /// The pairs of its records with the same configuration on another machine.
    pub across: Vec<Link>,
    /// Its results document.
    pub download: Link,
}

/// The page of machine `index`.
pub fn page(c: &Catalog, index: usize) -> MachinePage {
    let machines = c.machines;
    let machine = &machines.machines[index];
    let doc = &machines.documents[index];
    let mut runs = runs::table_of(c, machines.range::<Run>(index));
    runs.caption = format!(
        "Every configuration measured on {}",
        c.machine_title(machine)
    );
    let summary = crate::format::every_count(&[
        (
            machines.count::<Run>(index),
            "configuration",
            "configurations",
        ),
        (machines.count::<Sweep>(index), "sweep", "sweeps"),
        (
            machines.count::<Divergence>(index),
            "comparison",
            "comparisons",
        ),
        (
            machines.count::<Jitter>(index),
            "jitter measurement",
            "jitter measurements",
        ),
        (machines.count::<Failure>(index), "failure", "failures"),
    ]);
    let across = c
        .ablations()
        .iter()
        .filter(|ab| {
            ab.setting == compare::MACHINE && (ab.from == machine.slug || ab.to == machine.slug)
        })
        .map(|ab| {
            let (a, _) = c.record(ab.kind, ab.a);
            let (b, _) = c.record(ab.kind, ab.b);
            c.ablation_link(ab, format!("{a} against {b}"))
        })
        .collect();
    MachinePage {
        title: c.machine_title(machine),
        slug: machine.slug.clone(),
        summary,
        hardware: home::hardware(&doc.hardware),
        software: home::software(&doc.software),
        runs,
        sweeps: sweeps::table_of(c, machines.range::<Sweep>(index)),
        comparisons: quality::comparisons_table_of(
            c,
            &c.doc.divergence[machines.range::<Divergence>(index)],
        ),
        jitter: quality::jitter_table_of(c, &c.doc.jitter[machines.range::<Jitter>(index)]),
        failures: failures::table_of(c, &c.doc.failures[machines.range::<Failure>(index)]),
        across,
        download: Link {
            text: format!("{} (JSON)", machine.data),
            href: c.urls.page(&downloads::results_path(machine)),
            note: Some("this machine's results document as the project has it".into()),
            warning: None,
        },
    }
}

/// Renders a machine's page.
pub fn view(page: &Page) -> Result<View, SiteError> {
    let view = self::page(page.catalog(), page.index());
    View::new(view.title.clone(), &view)
}

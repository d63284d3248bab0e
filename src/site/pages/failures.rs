//! The failures index: every configuration that did not run.

use serde::Serialize;

use super::super::catalog::Catalog;
use super::super::downloads;
use super::super::error::SiteError;
use super::super::paging;
use super::super::views::{Cell, Column, Link, Row, Table};
use super::page::{Page, View};
use super::shared::{opt, opt_cell};
use crate::data::Failure;
use crate::data::figures::{Value, run};

/// The failures index's content.
#[derive(Debug, Serialize)]
pub struct FailuresIndex {
    failures: Table,
    /// The reasons of the failures on the table's first page.
    list: Vec<Link>,
    /// What the list leaves to the table, when it is bounded.
    more: Option<String>,
}

/// The table of every failure.
pub fn table(c: &Catalog) -> Table {
    table_of(c, &c.doc.failures)
}

/// [`table`] of some records.
pub fn table_of<'r>(c: &Catalog, records: impl IntoIterator<Item = &'r Failure>) -> Table {
    Table {
        caption: "Configurations that did not run".into(),
        columns: vec![
            Column::text("Failure"),
            Column::text("Checkpoint"),
            Column::text("Precision"),
            Column::number(run::WEIGHTS_GIB.label),
            Column::text("What happened"),
            Column::text("Settings tried"),
        ],
        rows: records
            .into_iter()
            .map(|failure| Row {
                id: Some(format!("failure-{}", failure.id)),
                class: None,
                cells: vec![
                    Cell::link(failure.id.to_string(), c.failure_url(failure)),
                    Cell::text(&failure.checkpoint),
                    Cell::text(&failure.precision),
                    opt_cell(failure.weights_gib, |gib| {
                        run::WEIGHTS_GIB.shown(&Value::Number(gib))
                    }),
                    Cell::text(failure.status.describe()),
                    Cell::text(opt(failure.config.clone())),
                ],
            })
            .collect(),
        csv: Some(c.urls.page(&downloads::path(downloads::FAILURES))),
    }
}

/// The list of failures with their one-paragraph reasons.
pub fn links(c: &Catalog) -> Vec<Link> {
    links_of(c, &c.doc.failures)
}

/// [`links`] of some failures.
fn links_of(c: &Catalog, failures: &[Failure]) -> Vec<Link> {
    failures
        .iter()
        .map(|failure| Link {
            text: failure.id.to_string(),
            href: c.failure_url(failure),
            note: Some(format!("{}: {}", failure.status.describe(), failure.reason)),
            warning: None,
        })
        .collect()
}

/// Renders the failures index.
pub fn view(page: &Page) -> Result<View, SiteError> {
    let c = page.catalog();
    let all = c.doc.failures.len();
    let list = links_of(c, &c.doc.failures[..all.min(paging::PAGE_ROWS)]);
    let more = (all > list.len()).then(|| {
        format!(
            "The reasons of the first {} of {} failures; each failure's page gives its own, and the table lists them all.",
            list.len(),
            crate::format::count(all as u64)
        )
    });
    let index = FailuresIndex {
        failures: table(c),
        list,
        more,
    };
    View::new("Failures".into(), &index)
}

//! The data page: every download of the report, what it holds, and how to read it.

use serde::Serialize;

use super::super::catalog::Catalog;
use super::super::downloads;
use super::super::error::SiteError;
use super::super::views::Link;
use super::page::{Page, View};

/// The data page's content.
#[derive(Debug, Serialize)]
pub struct DataPage {
    /// Each machine's results document.
    documents: Vec<Link>,
    /// The CSV tables.
    tables: Vec<Link>,
    /// The schema version the documents follow.
    schema_version: u32,
}

/// The downloads of the report.
pub fn page(c: &Catalog) -> DataPage {
    let declared = c.machines.declared();
    let documents = c
        .machines
        .machines
        .iter()
        .map(|machine| Link {
            text: if declared {
                format!("{}: results document (JSON)", c.machine_title(machine))
            } else {
                "The results document (JSON)".to_owned()
            },
            href: c.urls.page(&downloads::results_path(machine)),
            note: Some("every record as measured, the source of every page".into()),
            warning: None,
        })
        .collect();
    let tables = downloads::DESCRIBED
        .iter()
        .map(|(name, what)| Link {
            text: (*name).to_owned(),
            href: c.urls.page(&downloads::path(name)),
            note: Some(if declared {
                format!("{what}; each row starts with its machine")
            } else {
                (*what).to_owned()
            }),
            warning: None,
        })
        .collect();
    DataPage {
        documents,
        tables,
        schema_version: crate::data::SCHEMA_VERSION,
    }
}

/// Renders the data page.
pub fn view(page: &Page) -> Result<View, SiteError> {
    View::new("Data".into(), &self::page(page.catalog()))
}

//! A failure's write-up page.

use serde::Serialize;

use super::super::catalog::{Catalog, Related};
use super::super::error::SiteError;
use super::super::views::{Fact, Link};
use super::page::{Page, View};
use super::shared::provenance_facts;
use crate::data::{Failure, rules};
use crate::format::figure;

/// One failure's page.
pub fn page(c: &Catalog, failure: &Failure) -> FailurePage {
    let mut facts = vec![
        Fact::new("What happened", failure.status.describe()),
        Fact::new("Checkpoint", failure.checkpoint.clone()),
        Fact::new("Precision", failure.precision.clone()),
    ];
    if let Some(gb) = failure.weights_gb {
        facts.push(Fact::new("Weights", format!("{} GB", figure(gb))));
    }
    if let Some(config) = &failure.config {
        facts.push(Fact::new("Settings tried", config.clone()));
    }
    let models: Vec<_> = c
        .models()
        .iter()
        .filter(|m| rules::failure_concerns(failure, &m.name))
        .collect();
    FailurePage {
        id: failure.id.to_string(),
        title: failure.id.to_string(),
        status: failure.status.as_str().to_owned(),
        facts,
        reason: failure.reason.clone(),
        runs: Related::pick(
            models
                .iter()
                .flat_map(|m| &m.runs)
                .map(|&i| (false, Some(c.doc.runs[i].generated.as_str()), i))
                .collect(),
            |i| c.link_run(&c.doc.runs[i]),
            |n| {
                let first = models.first().map_or("", |m| m.name.as_str());
                c.all_on_model_page(first, "runs", "runs", n)
            },
        ),
        model_pages: models.iter().map(|m| c.model_link(&m.name)).collect(),
        log: c.log_link(failure),
        provenance: provenance_facts(failure.provenance.as_ref()),
    }
}

/// A failure's write-up page.
#[derive(Debug, Serialize)]
pub struct FailurePage {
    /// The id.
    pub id: String,
    /// The title.
    pub title: String,
    /// The status as written in the data.
    pub status: String,
    /// Its facts.
    pub facts: Vec<Fact>,
    /// The one-paragraph reason.
    pub reason: String,
    /// Runs of the models it concerns.
    pub runs: Related,
    /// The pages of the models it concerns.
    pub model_pages: Vec<Link>,
    /// Its server's log, when the project keeps it.
    pub log: Option<Link>,
    /// Where it was measured.
    pub provenance: Vec<Fact>,
}

/// Renders a failure's page.
pub fn view(page: &Page) -> Result<View, SiteError> {
    let c = page.catalog();
    let view = self::page(c, &c.doc.failures[page.index()]);
    View::new(view.title.clone(), &view)
}

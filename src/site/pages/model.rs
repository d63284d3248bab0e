//! A model's page: every configuration, sweep, comparison, jitter measurement and failure of
//! one model, in sortable tables. The hub record pages link to for "all of them".

use serde::Serialize;

use super::super::catalog::{Catalog, Model};
use super::super::error::SiteError;
use super::super::views::Table;
use super::page::{Page, View};
use super::{failures, quality, runs, sweeps};

/// A model's page.
#[derive(Debug, Serialize)]
pub struct ModelPage {
    /// The model's name.
    pub title: String,
    /// How many records of each kind, in words.
    pub summary: String,
    /// The best configurations of the model within the limits, first.
    pub decision: Option<super::decision::Decision>,
    /// Its runs.
    pub runs: Table,
    /// Its sweeps.
    pub sweeps: Table,
    /// Its comparisons.
    pub comparisons: Table,
    /// Its jitter measurements.
    pub jitter: Table,
    /// The failures that concern it.
    pub failures: Table,
    /// Its frontier, limits and costs across its sweeps.
    pub tradeoffs: Option<super::tradeoffs::TradeOffs>,
}

/// The page of `model`.
pub fn page(c: &Catalog, model: &Model) -> ModelPage {
    let doc = c.doc;
    let mut runs = runs::table_of(c, model.runs.iter().copied());
    runs.caption = format!("Every configuration of {}", model.name);
    let summary = crate::format::every_count(&[
        (model.runs.len(), "configuration", "configurations"),
        (model.sweeps.len(), "sweep", "sweeps"),
        (model.comparisons.len(), "comparison", "comparisons"),
        (
            model.jitter.len(),
            "jitter measurement",
            "jitter measurements",
        ),
        (model.failures.len(), "failure", "failures"),
    ]);
    ModelPage {
        title: model.name.clone(),
        summary,
        decision: super::decision::view(c, Some(&model.name)),
        runs,
        sweeps: sweeps::table_of(c, model.sweeps.iter().copied()),
        comparisons: quality::comparisons_table_of(
            c,
            model.comparisons.iter().map(|&i| &doc.divergence[i]),
        ),
        jitter: quality::jitter_table_of(c, model.jitter.iter().map(|&i| &doc.jitter[i])),
        failures: failures::table_of(c, model.failures.iter().map(|&i| &doc.failures[i])),
        tradeoffs: super::tradeoffs::view(c, Some(&model.name)),
    }
}

/// Renders a model's page.
pub fn view(page: &Page) -> Result<View, SiteError> {
    let c = page.catalog();
    let view = self::page(c, &c.models()[page.index()]);
    View::new(view.title.clone(), &view)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::Results;

    #[test]
    fn a_model_page_lists_exactly_its_records() {
        let doc: Results =
            serde_json::from_str(include_str!("../../../data/results.json")).unwrap();
        let documents = crate::project::Documents::single(doc.clone());
        let catalog = Catalog::new(
            &doc,
            &documents,
            &[],
            super::super::super::urls::Urls::new("/"),
            &[],
            5.0,
            true,
        );
        for model in catalog.models() {
            let view = page(&catalog, model);
            let expected = doc.runs.iter().filter(|r| r.model == model.name).count();
            assert_eq!(view.runs.rows.len(), expected, "{}", model.name);
            let sweeps = doc.sweeps.iter().filter(|s| s.model == model.name).count();
            assert_eq!(view.sweeps.rows.len(), sweeps, "{}", model.name);
        }
        assert!(catalog.models().len() >= 2);
    }
}

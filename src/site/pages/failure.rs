//! A failure's write-up page.

use crate::data::figures::{Value, run};
use serde::Serialize;

use super::super::catalog::{Catalog, RELATED, Related, index_in};
use super::super::error::SiteError;
use super::super::routes;
use super::super::views::{Fact, Link};
use super::head::Head;
use super::page::{Page, View};
use super::shared::provenance_facts;
use crate::data::{Failure, rules};

/// One failure's page.
pub fn page(c: &Catalog, failure: &Failure) -> FailurePage {
    let mut facts = vec![
        Fact::new("What happened", failure.status.describe()),
        Fact::new("Checkpoint", failure.checkpoint.clone()),
        Fact::new("Precision", failure.precision.clone()),
    ];
    if let Some(gib) = failure.weights_gib {
        facts.push(Fact::new(
            "Weights",
            format!("{} GiB", run::WEIGHTS_GIB.shown(&Value::Number(gib))),
        ));
    }
    if let Some(engine) = failure.engine {
        let named = failure
            .server
            .clone()
            .unwrap_or_else(|| engine.name().to_owned());
        facts.push(Fact::new("Engine", named));
    }
    if let Some(profile) = &failure.profile {
        facts.push(Fact::new("Profile", profile.clone()));
    }
    if let Some(config) = &failure.config {
        facts.push(Fact::new("Settings tried", config.clone()));
    }
    if !failure.settings.is_empty() {
        facts.push(Fact::new("Started with", failure.settings.join(" ")));
    }
    let models: Vec<_> = c
        .models()
        .iter()
        .filter(|m| rules::failure_concerns(failure, &m.name))
        .collect();
    let names: Vec<&str> = models.iter().map(|m| m.name.as_str()).collect();
    FailurePage {
        head: Head::of::<Failure>(
            c,
            None,
            index_in(&c.doc.failures, failure),
            &names,
            &routes::FAILURES,
            |_| None,
        ),
        id: failure.id.to_string(),
        title: failure.id.to_string(),
        status: failure.status.as_str().to_owned(),
        facts,
        reason: failure.reason.clone(),
        runs: {
            // The newest runs of all the models concerned are among each one's newest few.
            let mut newest: Vec<(&str, usize)> = models
                .iter()
                .flat_map(|m| m.newest.runs.iter().take(RELATED))
                .map(|&i| (c.doc.runs[i].generated.as_str(), i))
                .collect();
            newest.sort_unstable_by(|a, b| b.cmp(a));
            Related::pick(
                newest.into_iter().map(|(_, i)| i),
                models.iter().map(|m| m.runs.len()).sum(),
                |i| c.link_run(&c.doc.runs[i]),
                |n| {
                    let first = models.first().map_or("", |m| m.name.as_str());
                    c.all_on_model_page(first, "runs", "runs", n)
                },
            )
        },
        model_pages: models.iter().map(|m| c.model_link(&m.name)).collect(),
        log: c.log_link(failure),
        provenance: provenance_facts(failure.provenance.as_ref()),
    }
}

/// A failure's write-up page.
#[derive(Debug, Serialize)]
pub struct FailurePage {
    /// Model › Failures and the GPU.
    #[serde(flatten)]
    pub head: Head,
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
    let failure = &c.doc.failures[page.index()];
    let view = self::page(c, failure);
    let mut description = format!("{}: {}", view.title, failure.status.describe());
    if let Some(on) = &view.head.on {
        description.push_str(&format!(" on {on}"));
    }
    description.push_str(&format!(". {}", lead(&view.reason)));
    Ok(View::new(view.title.clone(), &view)?.described(description))
}

/// `text` cut to at most [`LEAD`] characters at a word's end, marked with `…` when cut.
fn lead(text: &str) -> String {
    if text.chars().count() <= LEAD {
        return text.to_owned();
    }
    let end = text.char_indices().nth(LEAD).map_or(text.len(), |(i, _)| i);
    let cut = text[..end].rfind(' ').unwrap_or(end);
    format!("{}…", text[..cut].trim_end_matches([',', ';', ':', '.']))
}

/// The most of a failure's reason a link preview carries.
const LEAD: usize = 200;

#[cfg(test)]
mod tests {
    #[test]
    fn a_long_reason_is_cut_at_a_word() {
        assert_eq!(super::lead("short."), "short.");
        let long = "word ".repeat(60);
        let cut = super::lead(&long);
        assert!(
            cut.ends_with("word…") && cut.chars().count() <= super::LEAD + 1,
            "{cut}"
        );
    }
}

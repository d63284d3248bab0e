//! The URLs of records and models, links to them, and the bounded handful of related
//! records a record page shows.

use crate::data::figures::divergence;
use crate::data::{self, Divergence, Failure, Run, Sweep};
use crate::format::figure;
use serde::Serialize;

use super::super::routes;
use super::super::views::Link;
use super::records::Catalog;

/// At most this many related records of a kind on a record page; the rest are on the model
/// page.
pub const RELATED: usize = 5;

/// Records related to the one a page is about: a handful, and a link to all of them.
#[derive(Debug, Clone, Serialize)]
pub struct Related {
    /// The ones shown, preferred first.
    pub links: Vec<Link>,
    /// "all N … on the model page", when there are more.
    pub more: Option<Link>,
}

impl Related {
    /// At most [`RELATED`] of `candidates` (each with whether it is preferred, its date and
    /// an index for `link`), preferred first, then the most recent, then the later in the
    /// document; the rest through `all` (its text gets the count). Only the links shown are
    /// made.
    pub fn pick(
        mut candidates: Vec<(bool, Option<&str>, usize)>,
        link: impl Fn(usize) -> Link,
        all: impl FnOnce(usize) -> Link,
    ) -> Self {
        let total = candidates.len();
        let order = |a: &(bool, Option<&str>, usize), b: &(bool, Option<&str>, usize)| {
            b.0.cmp(&a.0)
                .then_with(|| b.1.cmp(&a.1))
                .then(b.2.cmp(&a.2))
        };
        if total > RELATED {
            candidates.select_nth_unstable_by(RELATED - 1, order);
            candidates.truncate(RELATED);
        }
        candidates.sort_by(order);
        Related {
            links: candidates.into_iter().map(|(_, _, i)| link(i)).collect(),
            more: (total > RELATED).then(|| all(total)),
        }
    }
}

impl<'a> Catalog<'a> {
    /// The URL of a run's page.
    pub fn run_url(&self, run: &Run) -> String {
        self.urls.page(&routes::RUN.path(run.id.as_str()))
    }

    /// The URL of a sweep's page.
    pub fn sweep_url(&self, sweep: &Sweep) -> String {
        self.urls.page(&routes::SWEEP.path(&sweep.slug()))
    }

    /// The URL of a failure's page.
    pub fn failure_url(&self, failure: &Failure) -> String {
        self.urls.page(&routes::FAILURE.path(failure.id.as_str()))
    }

    /// The URL of a comparison's page.
    pub fn comparison_url(&self, divergence: &Divergence) -> String {
        self.urls.page(&routes::COMPARISON.path(&divergence.slug()))
    }

    /// The URL of a model's page.
    pub fn model_url(&self, name: &str) -> String {
        self.urls.page(&routes::MODEL.path(&data::slugify(name)))
    }

    /// The link to a model's page, for the records of the model.
    pub fn model_link(&self, model: &str) -> Link {
        Link {
            text: format!("Every record of {model}"),
            href: self.model_url(model),
            note: None,
            warning: None,
        }
    }

    /// The link "all N `noun` of `model`" to the model's page, at the section `anchor`.
    pub fn all_on_model_page(&self, model: &str, noun: &str, anchor: &str, total: usize) -> Link {
        Link {
            text: format!("all {total} {noun} of {model} on its page"),
            href: format!("{}#{anchor}", self.model_url(model)),
            note: None,
            warning: None,
        }
    }

    pub fn link_sweep(&self, sweep: &Sweep) -> Link {
        Link {
            text: sweep.label.clone(),
            href: self.sweep_url(sweep),
            note: sweep.notes.clone(),
            warning: None,
        }
    }

    pub fn link_comparison(&self, d: &Divergence) -> Link {
        Link {
            text: d.label.clone(),
            href: self.comparison_url(d),
            note: Some(format!(
                "{} {} {}{}",
                divergence::KLD_MEAN.name(),
                figure(d.teacher_forced.kld_mean),
                divergence::KLD_MEAN.unit,
                if d.is_floor() { " (noise floor)" } else { "" }
            )),
            warning: d.suspect.clone(),
        }
    }

    /// The runs of `model` a record page shows, `preferred` ones first.
    pub fn related_runs(&self, model: &str, preferred: impl Fn(&Run) -> bool) -> Related {
        self.related_runs_by(model, |_, run| preferred(run))
    }

    /// The runs of `model` whose quality comparison is record `comparison`, first.
    pub fn runs_measured_by(&self, model: &str, comparison: usize) -> Related {
        self.related_runs_by(model, |i, _| self.quality_of_index(i) == Some(comparison))
    }

    pub(super) fn related_runs_by(
        &self,
        model: &str,
        preferred: impl Fn(usize, &Run) -> bool,
    ) -> Related {
        let runs = self.model(model).map_or(&[][..], |m| &m.runs[..]);
        let candidates = runs
            .iter()
            .map(|&i| {
                let run = &self.doc.runs[i];
                (preferred(i, run), Some(run.generated.as_str()), i)
            })
            .collect();
        Related::pick(
            candidates,
            |i| self.link_run(&self.doc.runs[i]),
            |n| self.all_on_model_page(model, "runs", "runs", n),
        )
    }

    pub fn link_run(&self, run: &Run) -> Link {
        Link {
            text: run.id.to_string(),
            href: self.run_url(run),
            note: Some(format!("{} tok/s", figure(run.decode_tok_s))),
            warning: None,
        }
    }
}

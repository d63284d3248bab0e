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
    /// The first [`RELATED`] of `order` (the records best first: those preferred, then the
    /// rest newest first), each through `link`; the rest, `total` in all, through `all` (its
    /// text gets the count). Only the links shown are made, and `order` is read no further.
    pub fn pick(
        order: impl Iterator<Item = usize>,
        total: usize,
        link: impl Fn(usize) -> Link,
        all: impl FnOnce(usize) -> Link,
    ) -> Self {
        Related {
            links: order.take(RELATED).map(link).collect(),
            more: (total > RELATED).then(|| all(total)),
        }
    }

    /// `preferred` (newest first), then the records of `newest` (all of them, newest first)
    /// that are not `is_preferred`: the order [`Related::pick`] reads. It reads `newest` only
    /// as far as the handful shown, past at most as many preferred ones.
    pub fn preferred_first<'s>(
        preferred: &'s [usize],
        newest: &'s [usize],
        is_preferred: impl Fn(usize) -> bool + 's,
    ) -> impl Iterator<Item = usize> + 's {
        preferred
            .iter()
            .copied()
            .chain(newest.iter().copied().filter(move |&i| !is_preferred(i)))
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
            text: format!(
                "all {} {noun} of {model} on its page",
                crate::format::count(total as u64)
            ),
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

    /// The runs of `model` a record page shows, newest first.
    pub fn related_runs(&self, model: &str) -> Related {
        let newest = self.model(model).map_or(&[][..], |m| &m.newest.runs[..]);
        Related::pick(
            newest.iter().copied(),
            newest.len(),
            |i| self.link_run(&self.doc.runs[i]),
            |n| self.all_on_model_page(model, "runs", "runs", n),
        )
    }

    /// The runs of `model` whose quality comparison is record `comparison` first, then the
    /// others, each newest first.
    pub fn runs_measured_by(&self, model: &str, comparison: usize) -> Related {
        let newest = self.model(model).map_or(&[][..], |m| &m.newest.runs[..]);
        let measured: Vec<usize> = self
            .measured_by(comparison)
            .iter()
            .copied()
            .filter(|&i| self.doc.runs[i].model == model)
            .take(RELATED)
            .collect();
        Related::pick(
            Related::preferred_first(&measured, newest, |i| {
                self.quality_of_index(i) == Some(comparison)
            }),
            newest.len(),
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

#[cfg(test)]
mod tests {
    use super::*;

    fn link(i: usize) -> Link {
        Link {
            text: i.to_string(),
            href: format!("/r/{i}/"),
            note: None,
            warning: None,
        }
    }

    fn shown(related: &Related) -> Vec<String> {
        related.links.iter().map(|l| l.text.clone()).collect()
    }

    #[test]
    fn the_preferred_come_first_then_the_newest_others_at_most_a_handful() {
        // Records 0..=9, newest first by hand: 9, 7, 8, 6, 5, 4, 3, 2, 1, 0; 2 and 4 preferred.
        let newest = [9, 7, 8, 6, 5, 4, 3, 2, 1, 0];
        let preferred = [4, 2];
        let related = Related::pick(
            Related::preferred_first(&preferred, &newest, |i| i == 2 || i == 4),
            newest.len(),
            link,
            |n| link(1000 + n),
        );
        assert_eq!(shown(&related), ["4", "2", "9", "7", "8"]);
        assert_eq!(related.more.unwrap().text, "1010");
        // A handful or fewer: all of them, and no link to the rest.
        let few = Related::pick([3, 1].into_iter(), 2, link, |n| link(1000 + n));
        assert_eq!(shown(&few), ["3", "1"]);
        assert!(few.more.is_none());
        // More preferred than a handful: only the preferred are shown.
        let many: Vec<usize> = (0..7).collect();
        let all = Related::pick(
            Related::preferred_first(&many, &newest, |i| i < 7),
            newest.len(),
            link,
            |n| link(1000 + n),
        );
        assert_eq!(shown(&all), ["0", "1", "2", "3", "4"]);
    }
}

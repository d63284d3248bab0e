//! The page model: every page of the report computed from the validated records, as plain
//! structs for the templates, one module per page kind. No HTML is written here except the
//! author's rendered Markdown. [`Catalog`] holds the look-ups the kinds share.

pub mod ablations;
pub mod changes;
pub mod comparison;
pub mod failure;
pub mod failures;
pub mod free;
pub mod home;
pub mod quality;
pub mod run;
pub mod runs;
pub mod sweep;
pub mod sweeps;

use crate::compare::{self, Ablation, Kind};
use crate::data::figures::{LevelField, Value};
use crate::data::{self, Divergence, Failure, Results, Run, Sweep, SweepLevel};
use crate::format::{MISSING, count, switch};
use crate::profiles::Profile;

use super::Urls;
use super::charts::{self, LineSeries};
use super::routes;
use super::views::{Cell, Chart, Column, Link, Row, Table};
use crate::format::figure;

/// A value, or the missing-value mark.
pub fn opt(value: Option<String>) -> String {
    value.unwrap_or_else(|| MISSING.into())
}

/// A number cell, or the missing-value cell.
pub fn opt_cell(value: Option<f64>, text: impl Fn(f64) -> String) -> Cell {
    match value {
        Some(value) => Cell::number(text(value), value),
        None => Cell::missing(),
    }
}

/// A registry value as a table cell: numbers as the data has them, counts grouped.
pub fn value_cell(value: Option<Value>) -> Cell {
    match value {
        None => Cell::missing(),
        Some(Value::Number(x)) => Cell::number(figure(x), x),
        Some(Value::Count(n)) => Cell::number(count(n), n as f64),
        Some(Value::Bool(on)) => Cell::text(switch(on)),
        Some(other) => Cell::text(other.raw()),
    }
}

/// The value of one figure of a sweep level.
pub fn level_value(field: &LevelField, level: &SweepLevel) -> Option<f64> {
    (field.field.get)(level).and_then(|v| v.number())
}

/// The (concurrency, value) points of one figure of a sweep.
pub fn points(sweep: &Sweep, field: &LevelField) -> Vec<(f64, f64)> {
    sweep
        .levels
        .iter()
        .filter_map(|level| level_value(field, level).map(|v| (level.concurrency as f64, v)))
        .collect()
}

/// Everything derived from the data that pages and shortcodes share.
pub struct Catalog<'a> {
    /// The document.
    pub doc: &'a Results,
    /// The project's profiles.
    pub profiles: &'a [Profile],
    /// Where the site lives.
    pub urls: Urls,
    /// The document `/changes/` compares against, with its path as configured.
    pub baseline: Option<&'a (String, Results)>,
    /// The percentage beyond which a bad move is a regression.
    pub threshold: f64,
    /// The one-knob pairs of the document, found when a page first needs them (a Markdown
    /// edit under `serve` re-renders one page, usually without them).
    ablations: std::sync::OnceLock<Vec<Ablation>>,
}

impl<'a> Catalog<'a> {
    /// The catalog of `doc`.
    pub fn new(
        doc: &'a Results,
        profiles: &'a [Profile],
        urls: Urls,
        baseline: Option<&'a (String, Results)>,
        threshold: f64,
    ) -> Self {
        Self {
            ablations: std::sync::OnceLock::new(),
            doc,
            profiles,
            urls,
            baseline,
            threshold,
        }
    }

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

    /// A run by id.
    pub fn run(&self, id: &str) -> Option<&'a Run> {
        self.doc.runs.iter().find(|run| run.id.as_str() == id)
    }

    /// A sweep by label or slug.
    pub fn sweep(&self, key: &str) -> Option<&'a Sweep> {
        self.doc
            .sweeps
            .iter()
            .find(|sweep| sweep.label == key || sweep.slug() == key)
    }

    /// How many one-knob pairs the document has.
    pub fn ablation_count(&self) -> usize {
        self.ablations().len()
    }

    pub fn ablations(&self) -> &[Ablation] {
        self.ablations
            .get_or_init(|| compare::ablations(self.doc, self.profiles))
    }

    pub fn index_of_run(&self, run: &Run) -> Option<usize> {
        self.doc
            .runs
            .iter()
            .position(|other| std::ptr::eq(other, run))
    }

    /// The name and page of record `index` of a kind.
    pub fn record(&self, kind: Kind, index: usize) -> (String, String) {
        match kind {
            Kind::Run => {
                let run = &self.doc.runs[index];
                (run.id.to_string(), self.run_url(run))
            }
            Kind::Sweep => {
                let sweep = &self.doc.sweeps[index];
                (sweep.label.clone(), self.sweep_url(sweep))
            }
            Kind::Comparison => {
                let d = &self.doc.divergence[index];
                (d.label.clone(), self.comparison_url(d))
            }
        }
    }

    /// The anchor of a pair on the ablations page.
    pub fn ablation_id(&self, ablation: &Ablation) -> String {
        let kind = match ablation.kind {
            Kind::Run => "run",
            Kind::Sweep => "sweep",
            Kind::Comparison => "comparison",
        };
        let (a, _) = self.record(ablation.kind, ablation.a);
        let (b, _) = self.record(ablation.kind, ablation.b);
        format!("{kind}-{}-vs-{}", data::slugify(&a), data::slugify(&b))
    }

    /// `seqs: 8 → 32`.
    pub fn ablation_change(ablation: &Ablation) -> String {
        format!("{}: {} → {}", ablation.setting, ablation.from, ablation.to)
    }

    /// Links to the pairs record `index` of `kind` is part of.
    pub fn ablation_links(&self, kind: Kind, index: Option<usize>) -> Vec<Link> {
        let Some(index) = index else {
            return Vec::new();
        };
        self.ablations()
            .iter()
            .filter(|ab| ab.kind == kind && (ab.a == index || ab.b == index))
            .map(|ab| {
                let other = if ab.a == index { ab.b } else { ab.a };
                Link {
                    text: format!("against {}", self.record(kind, other).0),
                    href: format!(
                        "{}#{}",
                        self.urls.page(&routes::ABLATIONS.path("")),
                        self.ablation_id(ab)
                    ),
                    note: Some(Self::ablation_change(ab)),
                    warning: None,
                }
            })
            .collect()
    }

    /// The comparison that measures a run's quality, when the author linked one.
    pub fn quality_of(&self, run: &Run) -> Option<&'a Divergence> {
        let link = run.quality.as_ref()?;
        self.doc
            .divergence
            .iter()
            .find(|d| d.label == link.comparison || d.slug() == link.comparison)
    }

    /// The largest kld_mean of the floor comparisons of `model`.
    pub fn floor_of(&self, model: &str) -> Option<f64> {
        self.doc
            .divergence
            .iter()
            .filter(|d| d.is_floor() && d.model == model)
            .map(|d| d.teacher_forced.kld_mean)
            .reduce(f64::max)
    }

    pub fn concurrency_chart(&self, title: &str, series: &[LineSeries], unit: &str) -> Chart {
        let mut levels: Vec<f64> = series
            .iter()
            .flat_map(|s| s.points.iter().map(|(x, _)| *x))
            .collect();
        levels.sort_by(f64::total_cmp);
        levels.dedup();
        let mut columns = vec![Column::text("Series")];
        columns.extend(levels.iter().map(|c| Column::number(format!("c = {c}"))));
        let rows =
            series
                .iter()
                .map(|s| {
                    let mut cells = vec![Cell::text(&s.name)];
                    cells.extend(levels.iter().map(
                        |c| match s.points.iter().find(|(x, _)| x == c) {
                            Some(&(_, y)) => Cell::number(figure(y), y),
                            None => Cell::missing(),
                        },
                    ));
                    Row {
                        id: None,
                        class: None,
                        cells,
                    }
                })
                .collect();
        Chart {
            title: title.to_owned(),
            option: charts::lines_by_concurrency(series, unit),
            height: if series.len() > 4 { 480 } else { 380 },
            table: Table {
                caption: format!("{title} ({unit})"),
                columns,
                rows,
                csv: None,
            },
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
                "kld_mean {}{}",
                figure(d.teacher_forced.kld_mean),
                if d.is_floor() { " (noise floor)" } else { "" }
            )),
            warning: d.suspect.clone(),
        }
    }

    pub fn runs_of(&self, model: &str) -> Vec<Link> {
        self.doc
            .runs
            .iter()
            .filter(|run| run.model == model)
            .map(|run| self.link_run(run))
            .collect()
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

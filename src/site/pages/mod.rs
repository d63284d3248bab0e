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
mod kinds;
pub mod machine;
pub mod model;
pub mod quality;
pub mod run;
pub mod runs;
pub mod search;
pub mod sweep;
pub mod sweeps;

use crate::compare::{self, Ablation, Kind};
use crate::data::figures::{LevelField, Value};
use crate::data::{self, Divergence, Failure, Results, Run, Sweep, SweepLevel};
use crate::format::{MISSING, count, switch};
use crate::profiles::{self, Profile};
use crate::project::{Documents, Machine};

use super::charts::{self, LineSeries};
use super::content::Source;
use super::error::SiteError;
use super::filters::{self, Facets};
use super::render::Baseline;
use super::routes;
use super::urls::Urls;
use serde::Serialize;

use super::views::{Cell, Chart, Column, Link, Row, Table};
use crate::format::figure;

pub use kinds::kind;

/// What a page kind's `view` gets: the data's look-ups and which page.
pub struct Page<'a> {
    catalog: &'a Catalog<'a>,
    index: usize,
    key: &'a str,
    site_title: &'a str,
    source: Option<&'a Source>,
}

impl<'a> Page<'a> {
    /// The page of record `index` (key `key`), or of the free page `key` with its Markdown
    /// `source`, in a site called `site_title`.
    pub fn new(
        catalog: &'a Catalog<'a>,
        index: usize,
        key: &'a str,
        site_title: &'a str,
        source: Option<&'a Source>,
    ) -> Self {
        Page {
            catalog,
            index,
            key,
            site_title,
            source,
        }
    }

    /// The data's look-ups.
    pub fn catalog(&self) -> &Catalog<'a> {
        self.catalog
    }

    /// The record's index in its array.
    pub fn index(&self) -> usize {
        self.index
    }

    /// The record's key, or the free page's name.
    pub fn key(&self) -> &str {
        self.key
    }

    /// The site's title, from benchsite.toml.
    pub fn site_title(&self) -> &str {
        self.site_title
    }

    /// The free page's Markdown, for free pages.
    pub fn source(&self) -> Option<&Source> {
        self.source
    }
}

/// What a page kind returns: its title (a narrative's front matter may replace it) and what
/// its template gets as `page.content`.
pub struct View {
    /// The page's title.
    pub title: String,
    /// Its content, as the template reads it.
    pub content: serde_json::Value,
}

impl View {
    /// The view titled `title` showing `content`.
    pub fn new<T: Serialize>(title: String, content: &T) -> Result<View, SiteError> {
        let content = serde_json::to_value(content).map_err(|e| SiteError::Template {
            name: "page content".into(),
            message: e.to_string(),
        })?;
        Ok(View { title, content })
    }
}

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

/// The index of `item` in `slice`, when it is one of its elements (by address, in constant
/// time: record pages find their own record this way).
pub fn index_in<T>(slice: &[T], item: &T) -> Option<usize> {
    let size = std::mem::size_of::<T>().max(1);
    let offset = (item as *const T as usize).checked_sub(slice.as_ptr() as usize)?;
    (offset % size == 0 && offset / size < slice.len()).then_some(offset / size)
}

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

/// At most `limit` of `records`, the most recent by `date` (among equals the later in the
/// document), kept in document order; and whether any were left out.
pub fn most_recent<'r, T>(
    records: impl IntoIterator<Item = &'r T>,
    date: impl Fn(&T) -> &str,
    limit: usize,
) -> (Vec<&'r T>, bool) {
    let mut all: Vec<(usize, &T)> = records.into_iter().enumerate().collect();
    if all.len() <= limit {
        return (all.into_iter().map(|(_, r)| r).collect(), false);
    }
    all.sort_by(|a, b| date(b.1).cmp(date(a.1)).then(b.0.cmp(&a.0)));
    all.truncate(limit);
    all.sort_by_key(|(i, _)| *i);
    (all.into_iter().map(|(_, r)| r).collect(), true)
}

/// One model of the report and the indexes of its records.
#[derive(Debug)]
pub struct Model {
    /// Its name, as the records write it.
    pub name: String,
    /// Its runs.
    pub runs: Vec<usize>,
    /// Its sweeps.
    pub sweeps: Vec<usize>,
    /// Its comparisons.
    pub comparisons: Vec<usize>,
    /// The failures that concern it.
    pub failures: Vec<usize>,
    /// Its jitter measurements.
    pub jitter: Vec<usize>,
}

/// Every model of `doc` with its records, in [`data::rules::models`] order.
pub fn models_of(doc: &Results) -> Vec<Model> {
    let names = data::rules::models(doc);
    let mut models: Vec<Model> = names
        .iter()
        .map(|name| Model {
            name: (*name).to_owned(),
            runs: Vec::new(),
            sweeps: Vec::new(),
            comparisons: Vec::new(),
            failures: Vec::new(),
            jitter: Vec::new(),
        })
        .collect();
    let at: std::collections::HashMap<&str, usize> =
        names.iter().enumerate().map(|(i, n)| (*n, i)).collect();
    for (i, r) in doc.runs.iter().enumerate() {
        models[at[r.model.as_str()]].runs.push(i);
    }
    for (i, s) in doc.sweeps.iter().enumerate() {
        models[at[s.model.as_str()]].sweeps.push(i);
    }
    for (i, d) in doc.divergence.iter().enumerate() {
        models[at[d.model.as_str()]].comparisons.push(i);
    }
    for (i, j) in doc.jitter.iter().enumerate() {
        models[at[j.model.as_str()]].jitter.push(i);
    }
    for model in &mut models {
        model.failures = doc
            .failures
            .iter()
            .enumerate()
            .filter(|(_, f)| data::rules::failure_concerns(f, &model.name))
            .map(|(i, _)| i)
            .collect();
    }
    models
}

/// Everything derived from the data that pages and shortcodes share.
pub struct Catalog<'a> {
    /// Every machine's records in one document.
    pub doc: &'a Results,
    /// The machines and each one's own document.
    pub machines: &'a Documents,
    /// The project's profiles.
    pub profiles: &'a [Profile],
    /// Where the site lives.
    pub urls: Urls,
    /// The documents `/changes/` compares machines against.
    pub baselines: &'a [Baseline],
    /// The percentage beyond which a bad move is a regression.
    pub threshold: f64,
    /// Whether the site has search (`search` of benchsite.toml).
    pub search: bool,
    /// The one-knob pairs of the document, found when a page first needs them (a Markdown
    /// edit under `serve` re-renders one page, usually without them).
    ablations: std::sync::OnceLock<Vec<Ablation>>,
    /// The models with their records, found when a page first needs them.
    models: std::sync::OnceLock<Vec<Model>>,
    /// Each comparison's index by label and by slug (the first that has it).
    comparison_keys: std::sync::OnceLock<std::collections::HashMap<String, usize>>,
    /// Each run's quality comparison, by the run's index.
    run_quality: std::sync::OnceLock<Vec<Option<usize>>>,
    /// Each model's noise floor.
    floors: std::sync::OnceLock<std::collections::HashMap<String, f64>>,
    /// The failures' server logs the project has, by their path in the project.
    logs: std::collections::BTreeSet<&'a str>,
}

impl<'a> Catalog<'a> {
    /// The catalog of `doc`.
    pub fn new(
        doc: &'a Results,
        machines: &'a Documents,
        profiles: &'a [Profile],
        urls: Urls,
        baselines: &'a [Baseline],
        threshold: f64,
        search: bool,
    ) -> Self {
        Self {
            ablations: std::sync::OnceLock::new(),
            models: std::sync::OnceLock::new(),
            comparison_keys: std::sync::OnceLock::new(),
            run_quality: std::sync::OnceLock::new(),
            floors: std::sync::OnceLock::new(),
            logs: std::collections::BTreeSet::new(),
            doc,
            machines,
            profiles,
            urls,
            baselines,
            threshold,
            search,
        }
    }

    /// The catalog with the failures' server logs the project has (their paths in it).
    pub fn with_logs(mut self, logs: std::collections::BTreeSet<&'a str>) -> Self {
        self.logs = logs;
        self
    }

    /// The link to a failure's server log, when the project has it.
    pub fn log_link(&self, failure: &data::Failure) -> Option<Link> {
        let log = failure.log.as_deref()?;
        self.logs.contains(log).then(|| Link {
            text: "The server's log (gzip)".into(),
            href: self.urls.page(&super::downloads::log_path(log)),
            note: None,
            warning: None,
        })
    }

    /// The machine that measured record `index` of `R`'s array, in a report that declares
    /// machines.
    pub fn machine_of<R: data::Record>(&self, index: usize) -> Option<&'a Machine> {
        self.machines
            .declared()
            .then(|| &self.machines.machines[self.machines.machine_of::<R>(index)])
    }

    /// What pages call a machine: its configured title, else its GPU, else its slug.
    pub fn machine_title(&self, machine: &Machine) -> String {
        machine
            .title
            .clone()
            .or_else(|| self.machines.document(machine).hardware.gpu.clone())
            .unwrap_or_else(|| machine.slug.clone())
    }

    /// A table cell naming a machine, linked to its page.
    pub fn machine_cell(&self, machine: &Machine) -> Cell {
        let link = self.machine_link(machine);
        Cell::link(link.text, link.href)
    }

    /// The link to a machine's page.
    pub fn machine_link(&self, machine: &Machine) -> Link {
        Link {
            text: self.machine_title(machine),
            href: self.urls.page(&routes::MACHINE.path(&machine.slug)),
            note: None,
            warning: None,
        }
    }

    /// The machine facet of record `index` of `R`'s array, when the report declares machines.
    fn machine_facet<R: data::Record>(&self, index: usize) -> Option<(String, String)> {
        self.machine_of::<R>(index)
            .map(|m| (m.slug.clone(), self.machine_title(m)))
    }

    /// What the runs table filters run `index` by: its model, precision, speculative
    /// decoding, the KV-cache dtype of its effective settings ("auto" when the profile leaves
    /// it to vLLM) and machine.
    pub fn run_facets(&self, index: usize) -> Facets {
        let run = &self.doc.runs[index];
        let kv = self
            .profiles
            .iter()
            .find(|p| p.name == run.profile)
            .map(|profile| {
                let overrides = profiles::parse_overrides(&run.overrides).unwrap_or_default();
                profile
                    .effective(&overrides)
                    .get("KV_CACHE_DTYPE")
                    .unwrap_or("auto")
                    .to_owned()
            });
        [
            Some((data::slugify(&run.model), run.model.clone())),
            filters::facet(Some(&run.precision)),
            filters::switch(run.spec_decode),
            filters::facet(kv.as_deref()),
            self.machine_facet::<Run>(index),
        ]
    }

    /// What the sweeps table filters sweep `index` by: its model, its dimensions `quant`
    /// (or `precision`), `mtp` (or `spec`) and `kv`, and its machine.
    pub fn sweep_facets(&self, index: usize) -> Facets {
        let sweep = &self.doc.sweeps[index];
        dimension_facets(
            &sweep.model,
            &sweep.dimensions,
            self.machine_facet::<Sweep>(index),
        )
    }

    /// What the comparisons table filters comparison `index` by, from its dimensions as for
    /// a sweep.
    pub fn comparison_facets(&self, index: usize) -> Facets {
        let d = &self.doc.divergence[index];
        dimension_facets(
            &d.model,
            &d.dimensions,
            self.machine_facet::<Divergence>(index),
        )
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

    /// Every model with its records.
    pub fn models(&self) -> &[Model] {
        self.models.get_or_init(|| models_of(self.doc))
    }

    /// A model by name.
    pub fn model(&self, name: &str) -> Option<&Model> {
        self.models().iter().find(|m| m.name == name)
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
        self.ablations.get_or_init(|| {
            compare::ablations_across(self.doc, self.profiles, |kind, index| {
                let machine = match kind {
                    Kind::Run => self.machine_of::<Run>(index),
                    Kind::Sweep => self.machine_of::<Sweep>(index),
                    Kind::Comparison => self.machine_of::<Divergence>(index),
                };
                machine.map(|m| m.slug.as_str())
            })
        })
    }

    pub fn index_of_run(&self, run: &Run) -> Option<usize> {
        index_in(&self.doc.runs, run)
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

    /// Links to the pairs record `index` of `kind` is part of: a handful, the rest on the
    /// ablations page.
    pub fn ablation_links(&self, kind: Kind, index: Option<usize>) -> Related {
        let mut links = self.all_ablation_links(kind, index);
        let total = links.len();
        links.truncate(RELATED);
        Related {
            links,
            more: (total > RELATED).then(|| Link {
                text: format!("all {total} pairs on the ablations page"),
                href: self.urls.page(&routes::ABLATIONS.path("")),
                note: None,
                warning: None,
            }),
        }
    }

    fn all_ablation_links(&self, kind: Kind, index: Option<usize>) -> Vec<Link> {
        let Some(index) = index else {
            return Vec::new();
        };
        self.ablations()
            .iter()
            .filter(|ab| ab.kind == kind && (ab.a == index || ab.b == index))
            .map(|ab| {
                let other = if ab.a == index { ab.b } else { ab.a };
                self.ablation_link(ab, format!("against {}", self.record(kind, other).0))
            })
            .collect()
    }

    /// A link called `text` to a pair on the ablations page, noting its change.
    pub fn ablation_link(&self, ablation: &Ablation, text: String) -> Link {
        Link {
            text,
            href: format!(
                "{}#{}",
                self.urls.page(&routes::ABLATIONS.path("")),
                self.ablation_id(ablation)
            ),
            note: Some(Self::ablation_change(ablation)),
            warning: None,
        }
    }

    /// The comparison that measures a run's quality, when the author linked one.
    pub fn quality_of(&self, run: &Run) -> Option<&'a Divergence> {
        self.comparison_index(run).map(|i| &self.doc.divergence[i])
    }

    fn comparison_index(&self, run: &Run) -> Option<usize> {
        let link = run.quality.as_ref()?;
        let keys = self.comparison_keys.get_or_init(|| {
            let mut keys = std::collections::HashMap::new();
            for (i, d) in self.doc.divergence.iter().enumerate() {
                keys.entry(d.label.clone()).or_insert(i);
                keys.entry(d.slug()).or_insert(i);
            }
            keys
        });
        keys.get(&link.comparison).copied()
    }

    /// The index of the comparison that measures run `index`'s quality.
    fn quality_of_index(&self, index: usize) -> Option<usize> {
        self.run_quality.get_or_init(|| {
            self.doc
                .runs
                .iter()
                .map(|run| self.comparison_index(run))
                .collect()
        })[index]
    }

    /// The largest kld_mean of the floor comparisons of `model`.
    pub fn floor_of(&self, model: &str) -> Option<f64> {
        self.floors
            .get_or_init(|| {
                let mut floors = std::collections::HashMap::new();
                for d in self.doc.divergence.iter().filter(|d| d.is_floor()) {
                    let kld = d.teacher_forced.kld_mean;
                    floors
                        .entry(d.model.clone())
                        .and_modify(|f: &mut f64| *f = f.max(kld))
                        .or_insert(kld);
                }
                floors
            })
            .get(model)
            .copied()
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
        let alt = format!(
            "Line chart of {} in {unit} against concurrency on a log-2 axis: {} line{}{}",
            lowercase_first(title),
            series.len(),
            if series.len() == 1 { "" } else { "s" },
            match (levels.first(), levels.last()) {
                (Some(low), Some(high)) => format!(", concurrency {low} to {high}"),
                _ => String::new(),
            }
        );
        Chart {
            title: title.to_owned(),
            alt,
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

    /// The runs of `model` a record page shows, `preferred` ones first.
    pub fn related_runs(&self, model: &str, preferred: impl Fn(&Run) -> bool) -> Related {
        self.related_runs_by(model, |_, run| preferred(run))
    }

    /// The runs of `model` whose quality comparison is record `comparison`, first.
    pub fn runs_measured_by(&self, model: &str, comparison: usize) -> Related {
        self.related_runs_by(model, |i, _| self.quality_of_index(i) == Some(comparison))
    }

    fn related_runs_by(&self, model: &str, preferred: impl Fn(usize, &Run) -> bool) -> Related {
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

/// `text` with its first letter in lower case, to continue a sentence.
/// Where a record was measured, as facts: benchsite's version, the report's commit, the
/// campaign and the engine's job ids; none for a record that does not say.
pub fn provenance_facts(provenance: Option<&data::Provenance>) -> Vec<super::views::Fact> {
    use super::views::Fact;
    let Some(p) = provenance else {
        return Vec::new();
    };
    let mut facts = vec![Fact::new(
        "Measured with",
        format!("benchsite {}", p.benchsite),
    )];
    if let Some(commit) = &p.commit {
        facts.push(Fact::new("Report commit", commit.clone()));
    }
    if let Some(campaign) = &p.campaign {
        facts.push(Fact::new("Campaign", campaign.clone()));
    }
    for (name, value) in &p.engine {
        facts.push(Fact::new(name.clone(), value.clone()));
    }
    facts
}

pub fn lowercase_first(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_lowercase().chain(chars).collect()
    })
}

/// The first of `keys` that `dimensions` has.
fn dimensions_value<'d>(dimensions: &'d data::Dimensions, keys: &[&str]) -> Option<&'d str> {
    keys.iter()
        .find_map(|key| dimensions.get(*key))
        .map(String::as_str)
}

/// A record's facets from its model and `dimensions`.
fn dimension_facets(
    model: &str,
    dimensions: &data::Dimensions,
    machine: Option<(String, String)>,
) -> Facets {
    [
        Some((data::slugify(model), model.to_owned())),
        filters::facet(dimensions_value(dimensions, &["quant", "precision"])),
        filters::facet(dimensions_value(dimensions, &["mtp", "spec"])),
        filters::facet(dimensions_value(dimensions, &["kv"])),
        machine,
    ]
}

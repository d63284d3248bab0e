//! The catalog itself: the records, the models with their records, each record's quality
//! comparison and each model's noise floor, found once and shared by every page.

use crate::compare::{Ablation, Kind};
use crate::data::{self, Divergence, Results, Run, Sweep};
use crate::profiles::Profile;
use crate::project::Documents;

use super::super::urls::Urls;

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
    /// Its runs, sweeps, comparisons and failures newest first, for the handful a record page
    /// shows ([`super::links::Related`]).
    pub newest: Newest,
}

/// A model's records of each kind, newest first: the latest date first, then the later in the
/// document (failures, which have no date, by the document alone).
#[derive(Debug, Default)]
pub struct Newest {
    pub runs: Vec<usize>,
    pub sweeps: Vec<usize>,
    pub comparisons: Vec<usize>,
    pub failures: Vec<usize>,
}

/// `indices` newest first, by `date`, then the later index.
pub(super) fn newest_first<'d>(
    indices: &[usize],
    date: impl Fn(usize) -> Option<&'d str>,
) -> Vec<usize> {
    let mut sorted: Vec<(Option<&str>, usize)> = indices.iter().map(|&i| (date(i), i)).collect();
    sorted.sort_unstable_by(|a, b| b.cmp(a));
    sorted.into_iter().map(|(_, i)| i).collect()
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
            newest: Newest::default(),
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
        model.newest = Newest {
            runs: newest_first(&model.runs, |i| Some(doc.runs[i].generated.as_str())),
            sweeps: newest_first(&model.sweeps, |i| Some(doc.sweeps[i].generated.as_str())),
            comparisons: newest_first(&model.comparisons, |i| {
                Some(doc.divergence[i].generated.as_str())
            }),
            failures: newest_first(&model.failures, |_| None),
        };
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
    pub(super) ablations: std::sync::OnceLock<Vec<Ablation>>,
    /// The models with their records, found when a page first needs them.
    pub(super) models: std::sync::OnceLock<Vec<Model>>,
    /// The configurations measured more than once, found when a page first needs them.
    pub(super) histories: std::sync::OnceLock<Vec<crate::compare::History>>,
    /// Each measured-again record's history, by kind and index: its place in `histories`.
    pub(super) history_at: std::sync::OnceLock<std::collections::HashMap<(Kind, usize), usize>>,
    /// Where each record's pairs are in `ablations`, by kind and index.
    pub(super) ablations_at:
        std::sync::OnceLock<std::collections::HashMap<(Kind, usize), Vec<usize>>>,
    /// Each comparison's index by label and by slug (the first that has it).
    pub(super) comparison_keys: std::sync::OnceLock<std::collections::HashMap<String, usize>>,
    /// Each run's quality comparison, by the run's index.
    pub(super) run_quality: std::sync::OnceLock<Vec<Option<usize>>>,
    /// The runs each comparison measures the quality of, newest first, by its index.
    pub(super) measured_by: std::sync::OnceLock<std::collections::HashMap<usize, Vec<usize>>>,
    /// Each model's noise floor.
    pub(super) floors: std::sync::OnceLock<std::collections::HashMap<String, f64>>,
    /// The runs and sweeps of each server set-up, found when a page first needs them.
    pub(super) setups: std::sync::OnceLock<Setups>,
    /// The first floor comparison of each reference capture, by its id.
    pub(super) reference_floors: std::sync::OnceLock<std::collections::HashMap<String, usize>>,
    /// Each run's effective settings, worked out when a page first needs them.
    pub(super) run_settings:
        std::sync::OnceLock<Vec<Option<std::collections::BTreeMap<String, String>>>>,
    /// Each sweep's workload in words, found when a page first asks.
    pub(super) workloads: std::sync::OnceLock<Vec<String>>,
    /// Whether the sweeps were served by more than one engine, found when a page first asks.
    pub(super) several_engines: std::sync::OnceLock<bool>,
    /// The failures' server logs the project has, by their path in the project.
    pub(super) logs: std::collections::BTreeSet<&'a str>,
    /// Each sweep's per-request data, by the sweep's index, where it was kept.
    pub(super) requests: std::collections::HashMap<usize, &'a [crate::data::RequestLine]>,
    /// The latency limits of `[slo]`, or the report's defaults when it gives none.
    pub slo: crate::config::Slo,
    /// Whether [`Catalog::slo`] are the report's defaults, `[slo]` giving none.
    pub slo_defaulted: bool,
    /// The price of a GPU-hour, `[cost]`.
    pub cost: Option<crate::config::Cost>,
}

/// The runs and sweeps of each server set-up, by its key (`setups.rs` finds them).
#[derive(Default)]
pub struct Setups {
    pub(super) by_key: std::collections::HashMap<String, (Vec<usize>, Vec<usize>)>,
    /// Each run's key, where its profile is in the project.
    pub(super) run_keys: Vec<Option<String>>,
    /// Each sweep's key.
    pub(super) sweep_keys: Vec<String>,
}

/// A document `/changes/` compares a machine's against.
pub struct Baseline {
    /// The machine's index in [`Documents::machines`].
    pub machine: usize,
    /// Its path, as configured.
    pub path: String,
    /// The document.
    pub doc: Results,
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
            histories: std::sync::OnceLock::new(),
            history_at: std::sync::OnceLock::new(),
            ablations_at: std::sync::OnceLock::new(),
            comparison_keys: std::sync::OnceLock::new(),
            run_quality: std::sync::OnceLock::new(),
            measured_by: std::sync::OnceLock::new(),
            floors: std::sync::OnceLock::new(),
            setups: std::sync::OnceLock::new(),
            reference_floors: std::sync::OnceLock::new(),
            run_settings: std::sync::OnceLock::new(),
            several_engines: std::sync::OnceLock::new(),
            workloads: std::sync::OnceLock::new(),
            logs: std::collections::BTreeSet::new(),
            requests: std::collections::HashMap::new(),
            slo: crate::config::Slo::default(),
            slo_defaulted: false,
            cost: None,
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

    /// The catalog with each sweep's per-request data, by the sweep's index.
    pub fn with_requests(
        mut self,
        requests: std::collections::HashMap<usize, &'a [crate::data::RequestLine]>,
    ) -> Self {
        self.requests = requests;
        self
    }

    /// The catalog with the settings' latency limits (the report's defaults where `slo`
    /// gives none) and GPU price.
    pub fn with_limits(
        mut self,
        slo: crate::config::Slo,
        cost: Option<crate::config::Cost>,
    ) -> Self {
        (self.slo, self.slo_defaulted) = slo.or_report_default();
        self.cost = cost;
        self
    }

    /// Every model with its records.
    pub fn models(&self) -> &[Model] {
        self.models.get_or_init(|| models_of(self.doc))
    }

    /// A model by name.
    pub fn model(&self, name: &str) -> Option<&Model> {
        self.models().iter().find(|m| m.name == name)
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

    /// The comparison that measures a run's quality, when the author linked one.
    pub fn quality_of(&self, run: &Run) -> Option<&'a Divergence> {
        self.comparison_index(run).map(|i| &self.doc.divergence[i])
    }

    /// The index of the comparison that measures `run`'s quality.
    pub fn comparison_index(&self, run: &Run) -> Option<usize> {
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
    pub(super) fn quality_of_index(&self, index: usize) -> Option<usize> {
        self.run_quality.get_or_init(|| {
            self.doc
                .runs
                .iter()
                .map(|run| self.comparison_index(run))
                .collect()
        })[index]
    }

    /// The runs comparison `index` measures the quality of, newest first.
    pub(super) fn measured_by(&self, index: usize) -> &[usize] {
        let all = self.measured_by.get_or_init(|| {
            let mut all: std::collections::HashMap<usize, Vec<usize>> =
                std::collections::HashMap::new();
            for run in 0..self.doc.runs.len() {
                if let Some(comparison) = self.quality_of_index(run) {
                    all.entry(comparison).or_default().push(run);
                }
            }
            for runs in all.values_mut() {
                *runs = newest_first(runs, |i| Some(self.doc.runs[i].generated.as_str()));
            }
            all
        });
        all.get(&index).map_or(&[], |runs| &runs[..])
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
}

/// The index of `item` in `slice`, when it is one of its elements (by address, in constant
/// time: record pages find their own record this way).
pub fn index_in<T>(slice: &[T], item: &T) -> Option<usize> {
    let size = std::mem::size_of::<T>().max(1);
    let offset = (item as *const T as usize).checked_sub(slice.as_ptr() as usize)?;
    (offset % size == 0 && offset / size < slice.len()).then_some(offset / size)
}

//! A campaign's jobs on one machine and where each stands against that machine's document:
//! `done` (its record is there), `failed` (its configuration has a failure record), `conflict`
//! (a run of that id with other settings) or `pending`; with the command each job runs.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use serde::Serialize;
use serde_json::{Value, json};

use super::spec::{Campaign, Configuration};
use crate::collect;
use crate::data::{self, Keys, LabelKey};
use crate::profiles::{self, Setting, shell_quote};
use crate::project::Layout;

/// What a job measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// Single-stream decode: a run record.
    Run,
    /// A concurrency sweep (the campaign's n-th).
    Sweep,
    /// A capture for the quality comparison: a capture file.
    Capture,
    /// The divergence of a capture from the reference's: a divergence record.
    Divergence,
    /// Run-to-run noise: a jitter record.
    Jitter,
}

impl Kind {
    /// Its name in job ids and listings.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Run => "run",
            Kind::Sweep => "sweep",
            Kind::Capture => "capture",
            Kind::Divergence => "divergence",
            Kind::Jitter => "jitter",
        }
    }
}

/// Where a job stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Its record exists.
    Done,
    /// Its configuration has a failure record.
    Failed,
    /// A run of its id exists with other settings; it is left alone.
    Conflict,
    /// Still to measure.
    Pending,
}

impl Status {
    /// Its name in listings.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Done => "done",
            Status::Failed => "failed",
            Status::Conflict => "conflict",
            Status::Pending => "pending",
        }
    }
}

/// One measurement of one configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct Job {
    /// `<configuration>/<kind>`; for a sweep `<configuration>/<name>`, with `sweep-` before a
    /// name that does not start with it.
    pub id: String,
    /// What it measures.
    pub kind: Kind,
    /// Its configuration, an index into [`Campaign::configurations`].
    pub config: usize,
    /// The campaign's sweep it runs, for [`Kind::Sweep`].
    pub sweep: Option<usize>,
    /// The record's id or label (the capture's id for a capture).
    pub record: String,
    /// Where it stands.
    pub status: Status,
    /// The `benchsite collect` line that measures it with the configuration's server up.
    pub command: String,
}

/// Every job of `campaign` on `machine` (its slug; empty for a single-machine project), in
/// the order they run, with their statuses against the keys of its document and the
/// captures under `root`.
pub fn jobs(campaign: &Campaign, machine: &str, doc: &Keys, root: &Path) -> Vec<Job> {
    let known = Known::of(doc);
    let mut jobs = Vec::new();
    for (index, config) in campaign.configurations.iter().enumerate() {
        if config.machine != machine {
            continue;
        }
        let failed = known.failures.contains(config.id.as_str());
        let status = |done: bool| match (done, failed) {
            (true, _) => Status::Done,
            (false, true) => Status::Failed,
            (false, false) => Status::Pending,
        };
        let mut add =
            |kind: Kind, sweep: Option<usize>, suffix: &str, record: String, status: Status| {
                jobs.push(Job {
                    id: format!("{}/{suffix}", config.id),
                    kind,
                    config: index,
                    sweep,
                    command: command(campaign, config, kind, sweep, &record),
                    record,
                    status,
                });
            };
        if campaign.run.is_some() {
            let id = config.id.as_str();
            let status = match known.runs.get(id) {
                Some((profile, overrides)) if same_settings(config, profile, overrides) => {
                    Status::Done
                }
                Some(_) => Status::Conflict,
                None => status(false),
            };
            add(Kind::Run, None, "run", id.to_owned(), status);
        }
        for (n, sweep) in campaign.sweeps.iter().enumerate() {
            let label = sweep_label(config, &sweep.name);
            let done = known.sweeps.contains(&data::slugify(&label));
            let suffix = if sweep.name.starts_with("sweep") {
                sweep.name.clone()
            } else {
                format!("sweep-{}", sweep.name)
            };
            add(Kind::Sweep, Some(n), &suffix, label, status(done));
        }
        if campaign.quality.is_some() {
            let capture = config.id.to_string();
            let done = collect::capture_path(&Layout::new(root), &capture).exists();
            add(Kind::Capture, None, "capture", capture, status(done));
            if let Some(reference) = &config.reference {
                let label = divergence_label(reference.as_str(), config.id.as_str());
                let done = known.divergence.contains(&data::slugify(&label));
                add(Kind::Divergence, None, "divergence", label, status(done));
            }
        }
        if campaign.jitter.is_some() {
            let label = jitter_label(config);
            let done = known.jitter.contains(label.as_str());
            add(Kind::Jitter, None, "jitter", label, status(done));
        }
    }
    jobs
}

/// The record keys of a document, for statuses.
struct Known<'d> {
    /// Each run's profile and overrides, by id.
    runs: HashMap<&'d str, (&'d str, &'d str)>,
    failures: HashSet<&'d str>,
    sweeps: HashSet<String>,
    divergence: HashSet<String>,
    jitter: HashSet<&'d str>,
}

impl<'d> Known<'d> {
    fn of(doc: &'d Keys) -> Self {
        Self {
            runs: doc
                .runs
                .iter()
                .map(|r| (r.id.as_str(), (r.profile.as_str(), r.overrides.as_str())))
                .collect(),
            failures: doc.failures.iter().map(|f| f.id.as_str()).collect(),
            sweeps: doc.sweeps.iter().map(LabelKey::slug).collect(),
            divergence: doc.divergence.iter().map(LabelKey::slug).collect(),
            jitter: doc.jitter.iter().map(|j| j.label.as_str()).collect(),
        }
    }
}

/// Whether a run recorded with `profile` and `overrides` is this configuration.
fn same_settings(config: &Configuration, profile: &str, overrides: &str) -> bool {
    let Ok(recorded) = profiles::parse_overrides(overrides) else {
        return false;
    };
    let pairs = |settings: &[Setting]| {
        let mut pairs: Vec<(String, String)> = settings
            .iter()
            .map(|s| (s.key.clone(), s.value.clone()))
            .collect();
        pairs.sort();
        pairs
    };
    profile == config.profile && pairs(&recorded) == pairs(&config.settings)
}

/// The label of a configuration's sweep `name`.
pub fn sweep_label(config: &Configuration, name: &str) -> String {
    format!("{} {name}", config.id)
}

/// The label of the comparison of a configuration with its reference.
pub fn divergence_label(reference: &str, config: &str) -> String {
    format!("{config} vs {reference}")
}

/// The label of a configuration's jitter record.
pub fn jitter_label(config: &Configuration) -> String {
    format!("{} jitter", config.id)
}

/// The `benchsite collect` line of a job, as it runs against the configuration's server.
fn command(
    campaign: &Campaign,
    config: &Configuration,
    kind: Kind,
    sweep: Option<usize>,
    record: &str,
) -> String {
    let mut words: Vec<String> = vec!["benchsite".into(), "collect".into(), kind.as_str().into()];
    if !config.machine.is_empty() {
        flag(&mut words, "machine", config.machine.clone());
    }
    if let (Some(port), false) = (config.port, kind == Kind::Divergence) {
        flag(&mut words, "base-url", format!("http://127.0.0.1:{port}"));
    }
    let settings = |words: &mut Vec<String>| {
        flag(words, "profile", config.profile.clone());
        for setting in &config.settings {
            flag(words, "set", format!("{}={}", setting.key, setting.value));
        }
    };
    match kind {
        Kind::Run => {
            let run = campaign.run.as_ref().expect("a run job has [run]");
            flag(&mut words, "id", record.to_owned());
            settings(&mut words);
            words.extend(collect::flags(run));
            if let Some(shape) = &config.shape {
                flag(&mut words, "shape", shape.clone());
            }
            if let Some(precision) = &config.precision {
                flag(&mut words, "precision", precision.clone());
            }
        }
        Kind::Sweep => {
            let spec = &campaign.sweeps[sweep.expect("a sweep job has its sweep")];
            flag(&mut words, "label", record.to_owned());
            settings(&mut words);
            words.extend(collect::flags(&spec.params));
            for (key, value) in config.dimensions() {
                flag(&mut words, "dim", format!("{key}={value}"));
            }
        }
        Kind::Capture => {
            let quality = campaign
                .quality
                .as_ref()
                .expect("a capture job has [quality]");
            flag(&mut words, "id", record.to_owned());
            if let Some(reference) = &config.reference {
                flag(&mut words, "reference", reference.to_string());
            }
            words.extend(collect::flags(quality));
        }
        Kind::Divergence => {
            let reference = config
                .reference
                .as_ref()
                .expect("a comparison has a reference");
            flag(&mut words, "a", reference.to_string());
            flag(&mut words, "b", config.id.to_string());
            flag(&mut words, "label", record.to_owned());
            for (key, value) in config.dimensions() {
                flag(&mut words, "dim", format!("{key}={value}"));
            }
        }
        Kind::Jitter => {
            let jitter = campaign.jitter.as_ref().expect("a jitter job has [jitter]");
            flag(&mut words, "label", record.to_owned());
            words.extend(collect::flags(jitter));
        }
    }
    words
        .iter()
        .map(|word| shell_quote(word))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Adds `--name value` to `words`.
fn flag(words: &mut Vec<String>, name: &str, value: String) {
    words.push(format!("--{name}"));
    words.push(value);
}

/// The plan as `--format json` prints it: `{"campaign", "machine", "jobs": [{"id", "kind",
/// "record", "config": {"id", "profile", "settings"}, "status", "command"}]}`.
pub fn to_json(campaign: &Campaign, machine: &str, jobs: &[Job]) -> Value {
    json!({
        "campaign": campaign.name,
        "machine": machine,
        "jobs": jobs.iter().map(|job| {
            let config = &campaign.configurations[job.config];
            json!({
                "id": job.id,
                "kind": job.kind,
                "record": job.record,
                "config": {
                    "id": config.id,
                    "profile": config.profile,
                    "settings": config.settings.iter().map(|s| (s.key.clone(), Value::String(s.value.clone()))).collect::<serde_json::Map<_, _>>(),
                },
                "status": job.status,
                "command": job.command,
            })
        }).collect::<Vec<_>>(),
    })
}

/// The `{"include": [...]}` a workflow's `fromJson` takes: one entry per configuration with
/// work left, its machine, the runner label and the `campaign run` that does it.
pub fn github_matrix(campaign: &Campaign, machines: &[(String, String)], jobs: &[Job]) -> Value {
    let mut include = Vec::new();
    let mut seen = HashSet::new();
    for job in jobs.iter().filter(|j| j.status == Status::Pending) {
        let config = &campaign.configurations[job.config];
        if !seen.insert(config.id.as_str()) {
            continue;
        }
        let runner = machines
            .iter()
            .find(|(slug, _)| *slug == config.machine)
            .map_or("gpu", |(_, label)| label.as_str());
        let mut words = vec![
            "benchsite".to_owned(),
            "campaign".into(),
            "run".into(),
            campaign.name.clone(),
        ];
        if !config.machine.is_empty() {
            words.extend(["--machine".into(), config.machine.clone()]);
        }
        words.extend(["--only".into(), config.id.to_string()]);
        include.push(json!({
            "machine": config.machine,
            "runner": runner,
            "config": config.id,
            "jobs": jobs.iter().filter(|j| j.config == job.config && j.status == Status::Pending).count(),
            "command": words.iter().map(|w| shell_quote(w)).collect::<Vec<_>>().join(" "),
        }));
    }
    json!({ "include": include })
}

/// The plan as text: a line per configuration with its server's launch command, then a line
/// per job with its status, record and command; a count of each status at the end.
pub fn to_text(
    campaign: &Campaign,
    machine: &str,
    jobs: &[Job],
    launch: impl Fn(&Configuration) -> String,
) -> String {
    let mut out = String::new();
    let title = if machine.is_empty() {
        format!("campaign {}", campaign.name)
    } else {
        format!("campaign {} on {machine}", campaign.name)
    };
    out.push_str(&format!("{title}: {} jobs\n", jobs.len()));
    let mut last = None;
    for job in jobs {
        if last != Some(job.config) {
            let config = &campaign.configurations[job.config];
            out.push_str(&format!("\n{} (profile {}", config.id, config.profile));
            for setting in &config.settings {
                out.push_str(&format!(" {}={}", setting.key, setting.value));
            }
            out.push_str(&format!(")\n  server: {}\n", launch(config)));
            last = Some(job.config);
        }
        out.push_str(&format!(
            "  {:<8} {:<10} {}\n           {}\n",
            job.status.as_str(),
            job.kind.as_str(),
            job.record,
            job.command
        ));
    }
    let count = |status| jobs.iter().filter(|j| j.status == status).count();
    out.push_str(&format!(
        "\n{} done, {} failed, {} conflict, {} pending\n",
        count(Status::Done),
        count(Status::Failed),
        count(Status::Conflict),
        count(Status::Pending)
    ));
    out
}

//! A report project on disk: its layout, and `check`, which validates all of it and reports
//! every problem at once.

use std::collections::HashMap;

use rayon::prelude::*;
use sha2::Digest;
use std::path::{Path, PathBuf};

use crate::config::{self, Config, ConfigError};
use crate::data::{self, DataError, Problem, Record, Results, Run};
use crate::profiles::{self, Profile, ProfileError};

/// Where a project keeps its files, and which results document collection writes into.
#[derive(Debug, Clone)]
pub struct Layout {
    /// The project's root folder.
    pub root: PathBuf,
    /// The results document collection writes into.
    results: PathBuf,
    /// The other machines' documents, whose keys a new record must not take.
    others: Vec<PathBuf>,
}

impl Layout {
    /// The layout of the project at `root`.
    pub fn new(root: impl Into<PathBuf>) -> Self {
        let root = root.into();
        // `data/results.json` reads better in messages than `./data/results.json`.
        let root = if root == Path::new(".") {
            PathBuf::new()
        } else {
            root
        };
        Self {
            results: root.join(RESULTS),
            root,
            others: Vec::new(),
        }
    }

    /// The layout of the project at `root` whose collection writes into the document of the
    /// machine `--machine` names, or of the only machine; the error names the choices.
    pub fn for_machine(root: impl Into<PathBuf>, slug: Option<&str>) -> Result<Self, ProjectError> {
        let mut layout = Self::new(root);
        let config = config::load(&layout.root)?;
        let machines = machines(&config);
        let machine = pick(&machines, slug).map_err(ProjectError::Machine)?;
        layout.results = layout.document(machine);
        layout.others = machines
            .iter()
            .filter(|m| m.slug != machine.slug)
            .map(|m| layout.document(m))
            .collect();
        Ok(layout)
    }

    /// The results document collection writes into: `data/results.json`, or the chosen
    /// machine's.
    pub fn results(&self) -> PathBuf {
        self.results.clone()
    }

    /// The other machines' documents.
    pub fn others(&self) -> &[PathBuf] {
        &self.others
    }

    /// `profiles/`.
    pub fn profiles(&self) -> PathBuf {
        self.root.join("profiles")
    }

    /// The results document of `machine`.
    pub fn document(&self, machine: &Machine) -> PathBuf {
        self.root.join(&machine.data)
    }
}

/// The results document of a single-machine project, as `benchsite.toml` would name it.
pub const RESULTS: &str = "data/results.json";

/// One machine a project's records were measured on.
#[derive(Debug, Clone, PartialEq)]
pub struct Machine {
    /// Its `[machines.<slug>]` name and page, `/hardware/<slug>/`; empty in a
    /// single-machine project, which has no machine pages.
    pub slug: String,
    /// What its pages call it, when `benchsite.toml` says.
    pub title: Option<String>,
    /// Its results document, relative to the project.
    pub data: String,
    /// The earlier document of this machine `/changes/` compares against.
    pub baseline: Option<String>,
    /// The label of its self-hosted CI runner (`[machines.<slug>] runner`).
    pub runner: Option<String>,
}

/// The machines `config` declares, by slug; or the one machine of a single-machine project,
/// whose document is `data/results.json`.
pub fn machines(config: &Config) -> Vec<Machine> {
    if config.machines.is_empty() {
        return vec![single(config.baseline.clone())];
    }
    config
        .machines
        .iter()
        .map(|(slug, m)| Machine {
            slug: slug.clone(),
            title: m.title.clone(),
            data: m.data.clone(),
            baseline: m.baseline.clone(),
            runner: m.runner.clone(),
        })
        .collect()
}

fn single(baseline: Option<String>) -> Machine {
    Machine {
        slug: String::new(),
        title: None,
        data: RESULTS.into(),
        baseline,
        runner: None,
    }
}

/// The machine `--machine` names, or the only one; the error names the choices.
pub fn pick<'m>(machines: &'m [Machine], slug: Option<&str>) -> Result<&'m Machine, String> {
    let choices = || {
        machines
            .iter()
            .map(|m| m.slug.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    match (slug, machines) {
        (None, [only]) => Ok(only),
        (None, _) => Err(format!(
            "this report has several machines; pass --machine with one of: {}",
            choices()
        )),
        (Some(slug), [only]) if only.slug.is_empty() => Err(format!(
            "--machine {slug}: this report declares no [machines] in {}; leave --machine out",
            config::FILE_NAME
        )),
        (Some(slug), _) => machines.iter().find(|m| m.slug == slug).ok_or_else(|| {
            format!(
                "--machine {slug}: no such machine in {}; one of: {}",
                config::FILE_NAME,
                choices()
            )
        }),
    }
}

/// Every machine's valid document, and the whole report's records merged from them.
#[derive(Debug, Clone)]
pub struct Documents {
    /// The machines, in `benchsite.toml` order (by slug).
    pub machines: Vec<Machine>,
    /// Each machine's document, in the same order.
    pub documents: Vec<Results>,
    /// Where each machine's records start in the merged arrays, by array.
    starts: HashMap<&'static str, Vec<usize>>,
    /// How many records of each array each machine has, counted before
    /// [`Documents::take_merged`] moves them out.
    counts: HashMap<&'static str, Vec<usize>>,
    /// Whether [`Documents::take_merged`] moved the records out.
    taken: bool,
}

impl Documents {
    /// The documents of `machines`, one each, in the same order.
    pub fn new(machines: Vec<Machine>, documents: Vec<Results>) -> Self {
        assert_eq!(machines.len(), documents.len(), "one document per machine");
        fn counts_of<R: Record>(documents: &[Results]) -> (&'static str, Vec<usize>) {
            let counts = documents.iter().map(|doc| R::records(doc).len()).collect();
            (R::ARRAY, counts)
        }
        let counts = HashMap::from([
            counts_of::<data::Run>(&documents),
            counts_of::<data::Failure>(&documents),
            counts_of::<data::Sweep>(&documents),
            counts_of::<data::Jitter>(&documents),
            counts_of::<data::Divergence>(&documents),
        ]);
        let starts = counts
            .iter()
            .map(|(&array, counts)| {
                let mut at = 0;
                let starts = counts
                    .iter()
                    .map(|count| {
                        at += count;
                        at - count
                    })
                    .collect();
                (array, starts)
            })
            .collect();
        Self {
            machines,
            documents,
            starts,
            counts,
            taken: false,
        }
    }

    /// The one document of a single-machine project.
    pub fn single(doc: Results) -> Self {
        Self::new(vec![single(None)], vec![doc])
    }

    /// The document of `machine`, one of [`Documents::machines`].
    pub fn document(&self, machine: &Machine) -> &Results {
        let index = self
            .machines
            .iter()
            .position(|m| std::ptr::eq(m, machine))
            .expect("a machine of these documents");
        &self.documents[index]
    }

    /// Whether the project declares `[machines]` (and so has machine pages).
    pub fn declared(&self) -> bool {
        !self.machines[0].slug.is_empty()
    }

    /// Every machine's records in one document, machine after machine; its hardware,
    /// software and method are the first machine's, its date the latest. The records are
    /// moved, not copied: each machine's document keeps its hardware, software, method and
    /// date, and its records are the merged document's [`Documents::range`].
    pub fn take_merged(&mut self) -> Results {
        self.taken = true;
        // Each array sized once, and each document's array freed as its records move: a
        // fleet's arrays are hundreds of MB, which growing by doubling, or keeping the emptied
        // arrays, would hold twice.
        fn merged<T>(documents: &mut [Results], array: fn(&mut Results) -> &mut Vec<T>) -> Vec<T> {
            let total = documents.iter_mut().map(|doc| array(doc).len()).sum();
            let mut all = Vec::with_capacity(total);
            for doc in documents {
                all.extend(std::mem::take(array(doc)));
            }
            all
        }
        let documents = &mut self.documents;
        let runs = merged(documents, |doc| &mut doc.runs);
        let failures = merged(documents, |doc| &mut doc.failures);
        let sweeps = merged(documents, |doc| &mut doc.sweeps);
        let jitter = merged(documents, |doc| &mut doc.jitter);
        let divergence = merged(documents, |doc| &mut doc.divergence);
        let generated = self.documents.iter().map(|d| &d.generated).max().cloned();
        // The first machine's document, its records moved out, is the merged one's header.
        Results {
            generated: generated.expect("a project has a machine"),
            runs,
            failures,
            sweeps,
            jitter,
            divergence,
            ..self.documents[0].clone()
        }
    }

    /// Machine `machine`'s document whole: its own, or, once [`Documents::take_merged`] moved
    /// the records out, a copy with its records from `merged`, the document that made.
    pub fn whole(&self, machine: usize, merged: &Results) -> std::borrow::Cow<'_, Results> {
        if !self.taken {
            return std::borrow::Cow::Borrowed(&self.documents[machine]);
        }
        std::borrow::Cow::Owned(Results {
            runs: merged.runs[self.range::<data::Run>(machine)].to_vec(),
            failures: merged.failures[self.range::<data::Failure>(machine)].to_vec(),
            sweeps: merged.sweeps[self.range::<data::Sweep>(machine)].to_vec(),
            jitter: merged.jitter[self.range::<data::Jitter>(machine)].to_vec(),
            divergence: merged.divergence[self.range::<data::Divergence>(machine)].to_vec(),
            ..self.documents[machine].clone()
        })
    }

    /// How many records of `R` machine `machine` has.
    pub fn count<R: Record>(&self, machine: usize) -> usize {
        self.counts[R::ARRAY][machine]
    }

    /// Where machine `machine`'s records of `R` are in the merged array.
    pub fn range<R: Record>(&self, machine: usize) -> std::ops::Range<usize> {
        let start = self.starts[R::ARRAY][machine];
        start..start + self.count::<R>(machine)
    }

    /// The index of the machine that measured record `index` of the merged array of `R`.
    pub fn machine_of<R: Record>(&self, index: usize) -> usize {
        let starts = &self.starts[R::ARRAY];
        starts.partition_point(|&start| start <= index) - 1
    }
}

/// Any problem `check` finds, by the file it is in.
#[derive(Debug, thiserror::Error)]
pub enum ProjectError {
    /// In `benchsite.toml`.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// In a profile.
    #[error(transparent)]
    Profile(#[from] ProfileError),
    /// In the results document.
    #[error(transparent)]
    Data(#[from] DataError),
    /// In the quality prompt set.
    #[error("{0}")]
    Prompts(String),
    /// `--machine` names no machine, or is needed.
    #[error("{0}")]
    Machine(String),
}

/// What `check` found.
#[derive(Debug)]
pub struct CheckReport {
    /// The settings, when `benchsite.toml` is valid.
    pub config: Option<Config>,
    /// Every machine's valid results document, when all are valid.
    pub documents: Option<Documents>,
    /// Each machine's document as the site offers it for download, in the order of
    /// [`Documents::machines`], when all are valid.
    pub downloads: Vec<Download>,
    /// The SHA-256 of the downloads' bytes one after the other.
    pub digest: [u8; 32],
    /// The profiles that parsed.
    pub profiles: Vec<Profile>,
    /// The quality prompt set, when the project has one.
    pub prompts: Option<data::prompts::PromptSet>,
    /// Things worth knowing that do not make the project invalid.
    pub warnings: Vec<String>,
    /// Everything that makes it invalid.
    pub errors: Vec<ProjectError>,
}

impl CheckReport {
    /// Whether the project is valid.
    pub fn is_ok(&self) -> bool {
        self.errors.is_empty()
    }
}

/// A machine's results document as the site offers it for download. The file's bytes are not
/// kept: a report's documents may be hundreds of megabytes, which the site copies once.
#[derive(Debug)]
pub enum Download {
    /// The file as `check` read it, by its path and hash: read again when the site is
    /// written, and refused if it changed since.
    File {
        /// The file.
        path: PathBuf,
        /// The SHA-256 of what `check` read.
        sha256: [u8; 32],
    },
    /// A document of an earlier schema version, as this version stores it.
    Upgraded(Vec<u8>),
    /// A declared machine's document that does not exist yet: an empty one.
    Empty(Vec<u8>),
}

impl Download {
    /// Its bytes: the upgraded document, or the file read again; an error names the file when
    /// it cannot be read or is no longer what `check` read.
    pub fn read(&self) -> Result<Vec<u8>, DataError> {
        match self {
            Download::Upgraded(bytes) | Download::Empty(bytes) => Ok(bytes.clone()),
            Download::File { path, sha256 } => {
                let error = |source| DataError::Read {
                    path: path.clone(),
                    source,
                };
                let bytes = std::fs::read(path).map_err(error)?;
                if <[u8; 32]>::from(sha2::Sha256::digest(&bytes)) != *sha256 {
                    return Err(error(std::io::Error::other(
                        "it changed since it was checked; build again",
                    )));
                }
                Ok(bytes)
            }
        }
    }
}

/// The quality prompt set's place in a project.
pub const PROMPTS: &str = "data/prompts.jsonl";

/// Validates the settings, the profiles and every machine's results document of the project
/// at `root`, including that every run's profile exists and agrees with what the run
/// recorded, that record keys are unique across the machines, and the prompt set when there
/// is one.
pub fn check(root: &Path) -> CheckReport {
    let layout = Layout::new(root);
    let mut errors = Vec::new();
    let (config, machines) = match config::load(&layout.root) {
        Ok(config) => {
            let machines = machines(&config);
            (Some(config), machines)
        }
        Err(error) => {
            errors.push(ProjectError::Config(error));
            (None, vec![single(None)])
        }
    };
    let (profiles, profile_errors) = profiles::load_all(&layout.profiles());
    let profile_names = profiles::names(&layout.profiles());
    let mut warnings: Vec<String> = profiles
        .iter()
        .flat_map(|profile| profile.warnings.iter().cloned())
        .collect();
    errors.extend(profile_errors.into_iter().map(ProjectError::Profile));
    let mut documents = Vec::new();
    let mut downloads = Vec::new();
    let mut digest = sha2::Sha256::new();
    let mut seen: HashMap<(&'static str, String), (String, String)> = HashMap::new();
    let mut all_valid = true;
    // Each document read and parsed on its own thread with the checks it needs alone; then,
    // in order, the keys unique across them and the digest of their bytes.
    let parsed = parse_all(&layout, &machines, &profiles, &profile_names);
    for (machine, parsed) in machines.iter().zip(parsed) {
        let results = parsed.and_then(|(doc, download)| {
            let clashes = not_unique_across(&doc, &machine.data, &mut seen);
            if !clashes.is_empty() {
                return Err(located(&layout.document(machine), clashes));
            }
            let bytes = download_bytes(&download, machine, &mut warnings)?;
            digest.update(&*bytes);
            downloads.push(download);
            Ok(doc)
        });
        match results {
            Ok(results) => documents.push(results),
            Err(error) => {
                all_valid = false;
                errors.push(ProjectError::Data(error));
            }
        }
    }
    let documents = all_valid.then(|| Documents::new(machines, documents));
    let prompts = if layout.root.join(PROMPTS).exists() {
        match data::prompts::load(&layout.root, PROMPTS) {
            Ok(set) => Some(set),
            Err(error) => {
                errors.push(ProjectError::Prompts(error));
                None
            }
        }
    } else {
        None
    };
    CheckReport {
        config,
        documents,
        downloads: if all_valid { downloads } else { Vec::new() },
        digest: digest.finalize().into(),
        profiles,
        prompts,
        warnings,
        errors,
    }
}

/// Each machine's document read and parsed, on as many threads as there are, with the checks
/// a document needs alone (its runs against the profiles), and what the site offers for its
/// download.
/// A document's bytes as the site offers it, with what `check` says of how it was read.
fn download_bytes<'d>(
    download: &'d Download,
    machine: &Machine,
    warnings: &mut Vec<String>,
) -> Result<std::borrow::Cow<'d, [u8]>, DataError> {
    Ok(match download {
        Download::Upgraded(bytes) => {
            warnings.push(format!(
                "{} is of an earlier schema version, read as version {}: weights are \
                 GiB under weights_gib (REFERENCE.md, \"Schema versions\"); the next \
                 write stores it as version {}",
                machine.data,
                data::SCHEMA_VERSION,
                data::SCHEMA_VERSION
            ));
            std::borrow::Cow::Borrowed(bytes)
        }
        Download::Empty(bytes) => {
            warnings.push(format!(
                "{} does not exist yet: machine {} has no records until something measured there writes it",
                machine.data, machine.slug
            ));
            std::borrow::Cow::Borrowed(bytes)
        }
        Download::File { path, .. } => {
            std::borrow::Cow::Owned(std::fs::read(path).map_err(|source| DataError::Read {
                path: path.clone(),
                source,
            })?)
        }
    })
}

fn parse_all(
    layout: &Layout,
    machines: &[Machine],
    profiles: &[Profile],
    profile_names: &[String],
) -> Vec<Result<(Results, Download), DataError>> {
    machines
        .par_iter()
        .map(|machine| {
            let path = layout.document(machine);
            // A declared machine nothing has measured yet (a campaign creates its document
            // at its first write): no records.
            if !machine.slug.is_empty() && !path.exists() {
                let empty = Results::empty(data::Date::today());
                return Ok((
                    empty.clone(),
                    Download::Empty(data::to_json(&empty).into_bytes()),
                ));
            }
            let read = std::fs::read(&path).map_err(|source| DataError::Read {
                path: path.clone(),
                source,
            })?;
            let (doc, upgraded) = data::parse_upgrading(&path, &read, |doc| {
                run_profile_problems(doc, profiles, profile_names, &layout.profiles())
            })?;
            let download = if upgraded {
                // The site's download is the document as this version stores it.
                Download::Upgraded(data::to_json(&doc).into_bytes())
            } else {
                Download::File {
                    sha256: sha2::Sha256::digest(&read).into(),
                    path,
                }
            };
            Ok((doc, download))
        })
        .collect()
}

/// The error of the document at `path` with `problems`, each at its line and column: the
/// file is read and parsed again with them, as any document's problems are located.
fn located(path: &Path, problems: Vec<Problem>) -> DataError {
    let read = match std::fs::read(path) {
        Ok(read) => read,
        Err(source) => {
            return DataError::Read {
                path: path.to_owned(),
                source,
            };
        }
    };
    match data::parse_upgrading(path, &read, |_| problems) {
        Err(error) => error,
        Ok(_) => unreachable!("a document with problems does not parse"),
    }
}

/// The keys of `doc` another machine's document (recorded in `seen`, by array and key, with
/// its file and pointer) already has; records `doc`'s own. Ids and labels name permalinks,
/// so a sweep or comparison label is also compared by its slug.
fn not_unique_across(
    doc: &Results,
    file: &str,
    seen: &mut HashMap<(&'static str, String), (String, String)>,
) -> Vec<Problem> {
    let mut keys: Vec<(&'static str, String, String)> = Vec::new();
    let mut add = |array: &'static str, field: &str, index: usize, key: String| {
        keys.push((array, format!("/{array}/{index}/{field}"), key));
    };
    for (i, r) in doc.runs.iter().enumerate() {
        add("runs", "id", i, r.key().to_owned());
    }
    for (i, r) in doc.failures.iter().enumerate() {
        add("failures", "id", i, r.key().to_owned());
    }
    for (i, r) in doc.sweeps.iter().enumerate() {
        add("sweeps", "label", i, r.slug());
    }
    for (i, r) in doc.jitter.iter().enumerate() {
        add("jitter", "label", i, r.key().to_owned());
    }
    for (i, r) in doc.divergence.iter().enumerate() {
        add("divergence", "label", i, r.slug());
    }
    let mut problems = Vec::new();
    let mut own = Vec::new();
    for (array, pointer, key) in keys {
        match seen.get(&(array, key.clone())) {
            Some((other_file, other_pointer)) if other_file != file => {
                problems.push(Problem::new(
                    pointer.clone(),
                    format!(
                        "a key unique across the project's machines ({other_file} has it at \
                         {other_pointer})"
                    ),
                    format!("{key:?} again"),
                ));
            }
            _ => own.push(((array, key), (file.to_owned(), pointer))),
        }
    }
    for (key, place) in own {
        seen.entry(key).or_insert(place);
    }
    problems
}

/// The checks of a machine's document that need the rest of the project, as `check` runs
/// them: every run against its profile. Every writer runs them on the document it writes.
#[derive(Debug)]
pub struct ProfileChecks {
    profiles: Vec<Profile>,
    names: Vec<String>,
    dir: PathBuf,
}

impl ProfileChecks {
    /// The profiles of the project `layout` is in, read once.
    pub fn of(layout: &Layout) -> Self {
        let dir = layout.profiles();
        Self {
            profiles: profiles::load_all(&dir).0,
            names: profiles::names(&dir),
            dir,
        }
    }

    /// The problems of `doc`'s runs against their profiles.
    pub fn problems(&self, doc: &Results) -> Vec<Problem> {
        run_profile_problems(doc, &self.profiles, &self.names, &self.dir)
    }
}

/// Checks every run against its profile: the profile exists, the overrides parse, and the
/// settings they give agree with the fields the run recorded.
fn run_profile_problems(
    doc: &Results,
    profiles: &[Profile],
    names: &[String],
    dir: &Path,
) -> Vec<Problem> {
    let mut problems = Vec::new();
    for (index, run) in doc.runs.iter().enumerate() {
        let at = format!("/runs/{index}");
        if !names.contains(&run.profile) {
            problems.push(Problem::new(
                format!("{at}/profile"),
                format!(
                    "the name of a profile in {} (one of: {})",
                    dir.display(),
                    names.join(", ")
                ),
                format!("{:?}", run.profile),
            ));
            continue;
        }
        // A profile that exists but does not parse is reported on its own.
        let Some(profile) = profiles.iter().find(|p| p.name == run.profile) else {
            continue;
        };
        match profiles::parse_overrides(&run.overrides) {
            Ok(overrides) => {
                let effective = profile.effective(&overrides);
                problems.extend(disagreements(&at, run, &effective));
            }
            Err(error) => problems.push(Problem::new(
                format!("{at}/overrides"),
                "space-separated KEY=VALUE settings",
                error.to_string(),
            )),
        }
    }
    problems
}

fn disagreements(at: &str, run: &Run, effective: &profiles::Effective) -> Vec<Problem> {
    let source = if run.overrides.trim().is_empty() {
        format!("profile {}", run.profile)
    } else {
        format!("profile {} with {:?}", run.profile, run.overrides)
    };
    let mut problems = Vec::new();
    let mut compare = |field: &str, recorded: String, from_profile: Option<String>| {
        let forced = |from_profile: &str| {
            run.forced.iter().any(|forced| {
                forced.field == field && forced.profile == from_profile && forced.served == recorded
            })
        };
        if let Some(from_profile) = from_profile
            && from_profile != recorded
            && !forced(&from_profile)
        {
            problems.push(Problem::new(
                format!("{at}/{field}"),
                format!("{from_profile}, as {source} gives"),
                recorded,
            ));
        }
    };
    compare(
        "checkpoint",
        run.checkpoint.clone(),
        effective.get("MODEL").map(str::to_owned),
    );
    compare(
        "max_model_len",
        run.max_model_len.to_string(),
        effective.number("MAX_MODEL_LEN").map(|n| n.to_string()),
    );
    compare(
        "spec_decode",
        run.spec_decode.to_string(),
        Some(data::rules::spec_decode(effective).to_string()),
    );
    compare(
        "cuda_graphs",
        run.cuda_graphs.to_string(),
        Some(data::rules::cuda_graphs(effective).to_string()),
    );
    // A checkpoint folder this machine does not hold cannot say whether it has a tower.
    let elsewhere = effective
        .get("MODEL")
        .is_some_and(|model| model.starts_with('/') && !Path::new(model).exists());
    compare(
        "vision",
        run.vision.to_string(),
        (!elsewhere).then(|| data::rules::vision(effective).to_string()),
    );
    if let Some(dtype) = &run.kv_cache_dtype {
        compare(
            "kv_cache_dtype",
            dtype.clone(),
            Some(effective.get("KV_CACHE_DTYPE").unwrap_or("auto").to_owned()),
        );
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_download_is_refused_when_its_file_changed_since_the_check() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("results.json");
        std::fs::write(&path, "{\"a\": 1}").unwrap();
        let download = Download::File {
            path: path.clone(),
            sha256: sha2::Sha256::digest(b"{\"a\": 1}").into(),
        };
        assert_eq!(download.read().unwrap(), b"{\"a\": 1}");
        std::fs::write(&path, "{\"a\": 2}").unwrap();
        let error = download.read().unwrap_err().to_string();
        assert!(
            error.contains("results.json") && error.contains("changed since it was checked"),
            "{error}"
        );
    }

    #[test]
    fn merging_moves_the_records_and_each_machine_is_whole_again() {
        let seed =
            data::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("data/results.json")).unwrap();
        let (mut first, mut second) = (seed.clone(), seed.clone());
        let half = seed.runs.len() / 2;
        first.runs.truncate(half);
        second.runs.drain(..half);
        second.sweeps.clear();
        let ids = |runs: &[Run]| runs.iter().map(|r| r.id.to_string()).collect::<Vec<_>>();
        let mut documents = Documents::new(
            vec![single(None), single(None)],
            vec![first.clone(), second.clone()],
        );
        let merged = documents.take_merged();
        assert_eq!(ids(&merged.runs), ids(&seed.runs));
        assert_eq!(merged.sweeps.len(), seed.sweeps.len());
        assert!(documents.documents.iter().all(|d| d.runs.is_empty()));
        assert_eq!(documents.count::<Run>(1), seed.runs.len() - half);
        assert_eq!(documents.range::<Run>(1), half..seed.runs.len());
        assert_eq!(documents.count::<data::Sweep>(1), 0);
        let whole = documents.whole(1, &merged);
        assert_eq!(ids(&whole.runs), ids(&second.runs));
        assert_eq!(whole.failures.len(), second.failures.len());
        assert_eq!(whole.hardware.gpu, second.hardware.gpu);
    }
}

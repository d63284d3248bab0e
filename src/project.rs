//! A report project on disk: its layout, and `check`, which validates all of it and reports
//! every problem at once.

use std::path::{Path, PathBuf};

use crate::config::{self, ConfigError};
use crate::data::{self, DataError, Problem, Results, Run};
use crate::profiles::{self, Profile, ProfileError};

/// Where a project keeps its files.
#[derive(Debug, Clone)]
pub struct Layout {
    /// The project's root folder.
    pub root: PathBuf,
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
        Self { root }
    }

    /// `data/results.json`.
    pub fn results(&self) -> PathBuf {
        self.root.join("data").join("results.json")
    }

    /// `profiles/`.
    pub fn profiles(&self) -> PathBuf {
        self.root.join("profiles")
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
}

/// What `check` found.
#[derive(Debug)]
pub struct CheckReport {
    /// The valid results document, when it is valid.
    pub results: Option<Results>,
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

/// The quality prompt set's place in a project.
pub const PROMPTS: &str = "data/prompts.jsonl";

/// Validates the settings, the profiles and the results document of the project at `root`,
/// including that every run's profile exists and agrees with what the run recorded, and the
/// prompt set when there is one.
pub fn check(root: &Path) -> CheckReport {
    let layout = Layout::new(root);
    let mut errors = Vec::new();
    if let Err(error) = config::load(&layout.root) {
        errors.push(ProjectError::Config(error));
    }
    let (profiles, profile_errors) = profiles::load_all(&layout.profiles());
    let profile_names = profiles::names(&layout.profiles());
    let warnings = profiles
        .iter()
        .flat_map(|profile| profile.warnings.iter().cloned())
        .collect();
    errors.extend(profile_errors.into_iter().map(ProjectError::Profile));
    let results = data::load_with(&layout.results(), |doc| {
        run_profile_problems(doc, &profiles, &profile_names, &layout.profiles())
    });
    let results = match results {
        Ok(results) => Some(results),
        Err(error) => {
            errors.push(ProjectError::Data(error));
            None
        }
    };
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
        results,
        profiles,
        prompts,
        warnings,
        errors,
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
        if let Some(from_profile) = from_profile
            && from_profile != recorded
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
    compare(
        "vision",
        run.vision.to_string(),
        Some(data::rules::vision(effective).to_string()),
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

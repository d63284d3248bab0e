//! Campaigns: a matrix of configurations measured unattended from `campaigns/<name>.toml`,
//! resumed where it stopped, and spread over a fleet.
//!
//! [`load`] parses and expands a campaign file (`file.rs`, its ids in `ids.rs`) into a
//! [`Campaign`] (`spec.rs`); [`plan::jobs`] lists its jobs on a
//! machine with their statuses against that machine's document; [`run`] measures what is left
//! through the `collect` functions, a server per configuration; [`merge`] brings documents
//! measured elsewhere into the project; [`workflow`] writes the GitHub Actions workflow or the
//! Slurm script that runs it on several machines.

mod file;
mod ids;
mod merge;
pub mod plan;
mod runner;
mod spec;
pub mod workflow;

use std::path::{Path, PathBuf};

pub use file::DIR;
pub use merge::{Merged, MergedDocument, merge};
pub use plan::{Job, Kind, Status};
pub use runner::{RunOptions, Summary, run};
pub use spec::{Campaign, Configuration, SweepSpec};

use crate::collect::CollectError;
use crate::data::DataError;
use crate::profiles::ProfileError;
use crate::project::Machine;

/// What can go wrong with a campaign.
#[derive(Debug, thiserror::Error)]
pub enum CampaignError {
    /// The campaign file is not valid; the message carries the place and what was expected.
    #[error("{}:{line}:{column}: {message}", path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// No such campaign, or it cannot be read.
    #[error("{0}")]
    Missing(String),
    /// The campaign cannot do what was asked.
    #[error("{0}")]
    Usage(String),
    /// Documents could not be merged.
    #[error("{0}")]
    Merge(String),
    /// A file could not be written.
    #[error("cannot write {}: {source}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A results document could not be read or written.
    #[error(transparent)]
    Data(#[from] DataError),
    /// A profile is missing or invalid.
    #[error(transparent)]
    Profile(#[from] ProfileError),
    /// A measurement failed.
    #[error(transparent)]
    Collect(#[from] CollectError),
}

/// The names of the project's campaigns, `campaigns/*.toml`, sorted.
pub fn names(root: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(root.join(DIR))
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let name = entry.file_name().to_string_lossy().into_owned();
            name.strip_suffix(".toml").map(str::to_owned)
        })
        .collect();
    names.sort();
    names
}

/// Loads the campaign `name` of the project at `root`, whose machines are `machines`; every
/// problem of the file at once.
pub fn load(root: &Path, name: &str, machines: &[Machine]) -> Result<Campaign, Vec<CampaignError>> {
    let path = root.join(DIR).join(format!("{name}.toml"));
    let shown = Path::new(DIR).join(format!("{name}.toml"));
    let text = std::fs::read_to_string(&path).map_err(|error| {
        let known = names(root);
        vec![CampaignError::Missing(format!(
            "cannot read {}: {error} (campaigns: {})",
            path.display(),
            if known.is_empty() {
                "none yet; `benchsite init` writes an example".to_owned()
            } else {
                known.join(", ")
            }
        ))]
    })?;
    let profiles = root.join("profiles");
    let shown = if root.as_os_str().is_empty() {
        shown
    } else {
        path.clone()
    };
    file::parse(
        name,
        &shown,
        &text,
        &file::Context {
            machines,
            profiles: &profiles,
        },
    )
}

/// Every problem of every campaign of the project, for `check`.
pub fn check(root: &Path, machines: &[Machine]) -> Vec<CampaignError> {
    names(root)
        .iter()
        .flat_map(|name| load(root, name, machines).err().unwrap_or_default())
        .collect()
}

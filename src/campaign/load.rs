//! The project's campaigns, each read and expanded, every problem of a file at once.

use std::path::Path;

use super::error::CampaignError;
use super::file;
use super::spec::Campaign;
use super::text::DIR;
use crate::project::Machine;

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

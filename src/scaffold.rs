//! `benchsite init`: a new report project on the built-in theme, ready to build and publish.

use std::path::{Path, PathBuf};

use crate::data::{self, Date, Results};

/// Why a project could not be created.
#[derive(Debug, thiserror::Error)]
pub enum InitError {
    /// The folder exists and holds files.
    #[error("{} is not empty: init writes a new project into an empty or new folder", .0.display())]
    NotEmpty(PathBuf),
    /// A file could not be written.
    #[error("cannot write {}: {source}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

const CONFIG: &str = r#"# Site settings. `benchsite build --base-url` overrides base_url.
title = "LLM serving report"
description = "Decode speed, concurrency and quality of LLM serving configurations."
author = ""
base_url = "/"
language = "en"

[collect]
base_url = "http://127.0.0.1:8000"
request_timeout_s = 600

# A report measured on several machines declares each with its own results document
# (and its page /hardware/<slug>/); without this, the one machine is data/results.json.
# [machines.rtx-5090]
# data = "data/rtx-5090.json"
# title = "The desktop 5090"
"#;

const HOME: &str = r#"+++
title = "LLM serving report"
+++

Describe the machine and what this report measures here. The tables and charts below come from
`data/results.json`; shortcodes such as `{{ runs_table() }}` embed them in any page.
"#;

const PROFILE: &str = r#"# A launch profile: KEY=VALUE lines, applied to `vllm serve`.
# `benchsite profile show example` prints the effective settings and the command.
IMAGE=docker.io/vllm/vllm-openai:latest
MODEL=Qwen/Qwen3-0.6B
MAX_MODEL_LEN=8192
MAX_NUM_SEQS=8
KV_CACHE_DTYPE=auto
ENFORCE_EAGER=0
"#;

/// The benchsite a new report's Pages workflow installs: `cargo install --locked --git URL
/// --tag TAG`.
#[derive(Debug, Clone)]
pub struct Pinned {
    /// The git repository of benchsite.
    pub git: String,
    /// The tag installed from it.
    pub tag: String,
}

impl Default for Pinned {
    /// This build's own repository and release tag.
    fn default() -> Self {
        Pinned {
            git: env!("CARGO_PKG_REPOSITORY").to_owned(),
            tag: format!("v{}", env!("CARGO_PKG_VERSION")),
        }
    }
}

/// The command the Pages workflow builds a report with, `BASE_URL` being the Pages address.
pub const PAGES_BUILD: &str = r#"benchsite build --base-url "$BASE_URL""#;

const PAGES_WORKFLOW: &str = include_str!("scaffold/pages.yml");
/// How a workflow installs the pinned benchsite: the release binary for the runner's platform,
/// its SHA-256 checked, or `cargo install --locked` of the tag where the release has none.
/// Reads `BENCHSITE_GIT` and `BENCHSITE_TAG` (and `BENCHSITE_RELEASES`, where releases are
/// downloaded from, when not `<git>/releases/download`).
pub const INSTALL: &str = include_str!("scaffold/install.sh");
const CAMPAIGN: &str = include_str!("scaffold/campaign.toml");
const TEMPLATES: &str = include_str!("scaffold/templates-README.md");
const README: &str = include_str!("scaffold/README.md");
const TITLE: &str = "LLM serving report";

/// [`INSTALL`] as the body of a workflow step's `run: |`.
pub(crate) fn install_step() -> String {
    INSTALL
        .lines()
        .map(|line| {
            if line.is_empty() {
                String::new()
            } else {
                format!("          {line}")
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// `template` with each `{{name}}` replaced by its value.
pub(crate) fn fill(template: &str, values: &[(&str, &str)]) -> String {
    values
        .iter()
        .fold(template.to_owned(), |text, (name, value)| {
            text.replace(&format!("{{{{{name}}}}}"), value)
        })
}

/// Writes a new project into `dir`, which must be empty or absent: settings, a home page, a
/// profile, an example campaign, an empty results document dated `today`, a templates folder
/// that says how to override the built-in theme (and holds no copy of it), a README, a
/// `.gitignore` and the GitHub Pages workflow that installs `pinned`.
pub fn init(dir: &Path, today: Date, pinned: &Pinned) -> Result<Vec<PathBuf>, InitError> {
    if let Ok(mut entries) = std::fs::read_dir(dir)
        && entries.next().is_some()
    {
        return Err(InitError::NotEmpty(dir.to_owned()));
    }
    let results = Results::empty(today);
    let mut files: Vec<(PathBuf, String)> = vec![
        (PathBuf::from("benchsite.toml"), CONFIG.to_owned()),
        (PathBuf::from("content/_index.md"), HOME.to_owned()),
        (PathBuf::from("profiles/example.env"), PROFILE.to_owned()),
        (PathBuf::from("campaigns/example.toml"), CAMPAIGN.to_owned()),
        (PathBuf::from("data/results.json"), data::to_json(&results)),
        (
            PathBuf::from(".gitignore"),
            "/site/\n/.site.*\ndata/.*.lock\ndata/.*.tmp\n".to_owned(),
        ),
        (
            PathBuf::from("README.md"),
            fill(
                README,
                &[("title", TITLE), ("git", &pinned.git), ("tag", &pinned.tag)],
            ),
        ),
        (
            PathBuf::from(".github/workflows/pages.yml"),
            fill(
                PAGES_WORKFLOW,
                &[
                    ("git", &pinned.git),
                    ("tag", &pinned.tag),
                    ("build", PAGES_BUILD),
                    ("install", &install_step()),
                ],
            ),
        ),
    ];
    files.push((PathBuf::from("templates/README.md"), TEMPLATES.to_owned()));
    let mut written = Vec::new();
    for (relative, text) in files {
        let path = dir.join(&relative);
        let error = |source| InitError::Write {
            path: path.clone(),
            source,
        };
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(error)?;
        }
        std::fs::write(&path, text).map_err(error)?;
        written.push(relative);
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn init_refuses_a_folder_with_files() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("x"), "").unwrap();
        let error = init(dir.path(), Date::today(), &Pinned::default()).unwrap_err();
        assert!(error.to_string().contains("is not empty"), "{error}");
    }
}

//! What can be wrong with a profile, and where a setting comes from.

use std::fmt;
use std::path::PathBuf;

/// What can be wrong with a profile or an overrides string.
#[derive(Debug, thiserror::Error)]
pub enum ProfileError {
    /// The profile file could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// No such profile.
    #[error("no profile {name:?} in {}: expected one of {}", dir.display(), list(available))]
    NotFound {
        /// The name asked for.
        name: String,
        /// The profiles folder.
        dir: PathBuf,
        /// The profiles there.
        available: Vec<String>,
    },
    /// A line of a profile file is not `KEY=VALUE`.
    #[error("{}:{line}: expected {expected}, found {found}", path.display())]
    Syntax {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// What the line should be.
        expected: String,
        /// What it is.
        found: String,
    },
    /// A setting has a value its key cannot take.
    #[error("{origin}: {key} expected {expected}, found {value:?}")]
    Value {
        /// Where the setting comes from.
        origin: Origin,
        /// The key.
        key: String,
        /// The value.
        value: String,
        /// What the key takes.
        expected: &'static str,
    },
    /// A setting the launch command needs is missing.
    #[error("profile {profile}: {key} is not set; {hint}")]
    Missing {
        /// The profile.
        profile: String,
        /// The key.
        key: &'static str,
        /// What to do.
        hint: &'static str,
    },
    /// A setting the profile's engine does not take.
    #[error("{origin}: {refusal}")]
    NotForEngine {
        /// Where the setting comes from.
        origin: Origin,
        /// The key.
        key: String,
        /// Which engine refuses it and what it takes ([`super::engine::Spec::refusal`]).
        refusal: String,
    },
}

fn list(names: &[String]) -> String {
    if names.is_empty() {
        "none (the folder has no .env files)".into()
    } else {
        names.join(", ")
    }
}

/// Where a setting comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// A line of a profile file.
    File {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
    },
    /// An override (a run's `overrides` or `--set`).
    Override,
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::File { path, line } => write!(f, "{}:{line}", path.display()),
            Origin::Override => f.write_str("override"),
        }
    }
}

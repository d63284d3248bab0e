//! What can go wrong with a campaign.

use std::path::PathBuf;

use crate::collect::CollectError;
use crate::data::DataError;
use crate::profiles::ProfileError;

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

//! What can go wrong reading or writing a results document.

use std::path::PathBuf;

use super::problem::{Problem, Report};

/// What can go wrong reading or writing a results document.
#[derive(Debug, thiserror::Error)]
pub enum DataError {
    /// The file could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file could not be written; the previous document is untouched.
    #[error("cannot write {}: {source}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A line of a file of lines is not what it should be.
    #[error("{}:{line}: {message}", path.display())]
    Line {
        /// The file.
        path: PathBuf,
        /// The line, from 1.
        line: usize,
        /// What was expected and found.
        message: String,
    },
    /// The document is not valid; every problem is listed.
    #[error("{0}")]
    Invalid(Report),
    /// A write would have added problems to the document; nothing was written.
    #[error("nothing was written: the write would add what `benchsite check` rejects.\n{0}")]
    Refused(Report),
    /// Another machine's document has a record with the same key.
    #[error(
        "{array} of another machine already has {key:?} (in {}); keys are unique across the project's machines",
        path.display()
    )]
    ExistsElsewhere {
        /// The array.
        array: &'static str,
        /// The id or label.
        key: String,
        /// The other machine's document.
        path: PathBuf,
    },
    /// A record with the same key exists and replacing it was not asked for.
    #[error("{array} already has {key:?}; pass --replace to overwrite it")]
    Exists {
        /// The array (`runs`, `sweeps`, ...).
        array: &'static str,
        /// The id or label.
        key: String,
    },
}

impl DataError {
    /// The problems, when the document was invalid.
    pub fn problems(&self) -> &[Problem] {
        match self {
            DataError::Invalid(report) | DataError::Refused(report) => &report.problems,
            _ => &[],
        }
    }
}

//! What a measurement gives back, and the checks before measuring what could not be saved.

use super::error::CollectError;
use crate::data;

/// What a measurement gave: the record, or, when the server it launched did not serve, the
/// failure to record instead.
#[derive(Debug)]
pub enum Outcome<T> {
    /// Measured.
    Measured {
        /// The record.
        record: T,
        /// Things worth knowing (fields left out, fallbacks taken).
        warnings: Vec<String>,
    },
    /// Stopped early (Ctrl-C, the server went away); the record holds what was finished.
    Partial {
        /// The record.
        record: T,
        /// Why it stopped.
        why: String,
    },
    /// The launched server did not serve.
    Failed(Box<data::Failure>),
}

/// A record as the JSON `--dry-run` prints.
pub fn to_json<R: serde::Serialize>(record: &R) -> String {
    serde_json::to_string_pretty(record).expect("a record is JSON")
}

/// Refuses to measure what could not be saved: a record that `exists` (described by `what`)
/// is replaced only with `--replace`. The save checks again; failing early saves the time.
pub(crate) fn refuse_existing(exists: bool, what: &str) -> Result<(), CollectError> {
    if exists {
        Err(CollectError::Usage(format!(
            "{what} exists; --replace replaces it"
        )))
    } else {
        Ok(())
    }
}

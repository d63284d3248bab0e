//! Why a collection could not be done.

use crate::data::DataError;
use crate::profiles::ProfileError;

/// Why a collection could not be done.
#[derive(Debug, thiserror::Error)]
pub enum CollectError {
    /// The command was asked for something it cannot do.
    #[error("{0}")]
    Usage(String),
    /// The server could not be reached or answered wrongly.
    #[error("{0}")]
    Server(String),
    /// A request of the measurement failed.
    #[error("{0}")]
    Request(String),
    /// The results document could not be read or written.
    #[error(transparent)]
    Data(#[from] DataError),
    /// The profile is missing or invalid.
    #[error(transparent)]
    Profile(#[from] ProfileError),
    /// The server could not be started.
    #[error("{0}")]
    Launch(String),
    /// Ctrl-C before anything could be recorded.
    #[error("interrupted; nothing was written")]
    Interrupted,
}

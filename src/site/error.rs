//! Why a site could not be built: [`SiteError`], each variant naming the file and place.

use std::path::PathBuf;

use crate::project::ProjectError;

/// Why a site could not be built.
#[derive(Debug, thiserror::Error)]
pub enum SiteError {
    /// The settings, profiles or data are invalid.
    #[error("{}", join(.0))]
    Project(Vec<ProjectError>),
    /// A content file is wrong.
    #[error("{}:{line}: {message}", file.display())]
    Content {
        /// The file.
        file: PathBuf,
        /// 1-based line (0 when the whole file).
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// Several content files are wrong.
    #[error("{}", join(.0))]
    Many(Vec<SiteError>),
    /// A template is wrong.
    #[error("templates/{name}: {message}")]
    Template {
        /// The template.
        name: String,
        /// What is wrong, with Tera's position.
        message: String,
    },
    /// Pages link to files the site does not have.
    #[error("broken links:\n{}", .0.join("\n"))]
    Links(Vec<String>),
    /// The search index could not be built.
    #[error("the search index: {0}")]
    Search(String),
    /// The site could not be written; the previous one is untouched.
    #[error("cannot write {}: {source}", path.display())]
    Write {
        /// The path.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

/// Items one per line.
pub fn join<T: std::fmt::Display>(items: &[T]) -> String {
    items
        .iter()
        .map(|item| item.to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

/// One error, or several as [`SiteError::Many`].
pub fn many(mut errors: Vec<SiteError>) -> SiteError {
    if errors.len() == 1 {
        errors.remove(0)
    } else {
        SiteError::Many(errors)
    }
}

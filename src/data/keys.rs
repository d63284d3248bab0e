//! The keys of a results document read without the rest of it: what a campaign's plan
//! compares its jobs with. Reading them costs a fraction of a full load, as nothing else is
//! kept or validated; a document that is not JSON is still refused with its place.

use std::path::Path;

use serde::Deserialize;

use super::document::strip_position;
use super::error::DataError;
use super::model::Results;
use super::problem::{Problem, Report};
use super::types::{Id, slugify};

/// Every record's key in a document.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct Keys {
    /// Each run's id, profile and overrides.
    #[serde(default)]
    pub runs: Vec<RunKey>,
    /// Each failure's id.
    #[serde(default)]
    pub failures: Vec<IdKey>,
    /// Each sweep's label and id.
    #[serde(default)]
    pub sweeps: Vec<LabelKey>,
    /// Each jitter measurement's label.
    #[serde(default)]
    pub jitter: Vec<LabelKey>,
    /// Each comparison's label and id.
    #[serde(default)]
    pub divergence: Vec<LabelKey>,
}

/// A run's key and the settings it was measured with.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct RunKey {
    /// The id.
    pub id: String,
    /// The profile.
    pub profile: String,
    /// The overrides on top of it.
    #[serde(default)]
    pub overrides: String,
}

/// A record keyed by its id.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct IdKey {
    /// The id.
    pub id: String,
}

/// A record keyed by its label, whose permalink may be an id of its own.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct LabelKey {
    /// The label.
    pub label: String,
    /// The permalink, when not the label's slug.
    #[serde(default)]
    pub id: Option<String>,
}

impl LabelKey {
    /// The permalink slug: the id when given, else the label's slug.
    pub fn slug(&self) -> String {
        self.id.clone().unwrap_or_else(|| slugify(&self.label))
    }
}

impl Keys {
    /// The keys of a loaded document.
    pub fn of(doc: &Results) -> Self {
        let label = |label: &str, id: Option<&Id>| LabelKey {
            label: label.to_owned(),
            id: id.map(ToString::to_string),
        };
        Self {
            runs: doc
                .runs
                .iter()
                .map(|r| RunKey {
                    id: r.id.to_string(),
                    profile: r.profile.clone(),
                    overrides: r.overrides.clone(),
                })
                .collect(),
            failures: doc
                .failures
                .iter()
                .map(|f| IdKey {
                    id: f.id.to_string(),
                })
                .collect(),
            sweeps: doc
                .sweeps
                .iter()
                .map(|s| label(&s.label, s.id.as_ref()))
                .collect(),
            jitter: doc.jitter.iter().map(|j| label(&j.label, None)).collect(),
            divergence: doc
                .divergence
                .iter()
                .map(|d| label(&d.label, d.id.as_ref()))
                .collect(),
        }
    }

    /// Reads the keys of the document at `path`.
    pub fn read(path: &Path) -> Result<Self, DataError> {
        let bytes = std::fs::read(path).map_err(|source| DataError::Read {
            path: path.to_owned(),
            source,
        })?;
        let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&bytes);
        serde_json::from_slice(bytes).map_err(|error| {
            DataError::Invalid(Report {
                file: path.to_owned(),
                problems: vec![Problem::at(
                    (error.line(), error.column()),
                    "a results document",
                    strip_position(&error.to_string()),
                )],
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_keys_read_are_the_keys_of_the_loaded_document() {
        let path = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/data/results.json"));
        let loaded = super::super::document::load(path).unwrap();
        let keys = Keys::read(path).unwrap();
        assert_eq!(keys, Keys::of(&loaded));
        assert_eq!(keys.runs.len(), loaded.runs.len());
        assert!(keys.sweeps.iter().all(|s| !s.slug().is_empty()));
    }
}

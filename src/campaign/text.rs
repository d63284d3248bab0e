//! A campaign file as written: its tables with their places, and its problems, each at its
//! line and column.

use std::path::Path;

use indexmap::IndexMap;
use serde::Deserialize;
use toml::Spanned;

use super::error::CampaignError;
use crate::collect::{CaptureParams, JitterParams, LaunchParams, RunParams, SweepParams};
use crate::config::position;

/// The folder of a project's campaigns.
pub const DIR: &str = "campaigns";

/// A setting's value as the file writes it: a string, a number or a switch.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub(super) enum Scalar {
    Text(String),
    Integer(i64),
    Float(f64),
    Bool(bool),
}

impl Scalar {
    pub(super) fn text(&self) -> String {
        match self {
            Scalar::Text(text) => text.clone(),
            Scalar::Integer(n) => n.to_string(),
            Scalar::Float(x) => x.to_string(),
            Scalar::Bool(on) => u8::from(*on).to_string(),
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct FileText {
    #[serde(default)]
    pub(super) description: Option<String>,
    #[serde(default)]
    pub(super) machines: Option<Spanned<Vec<Spanned<String>>>>,
    #[serde(default)]
    pub(super) launch: Option<Spanned<LaunchParams>>,
    #[serde(rename = "config")]
    pub(super) configs: Spanned<Vec<ConfigText>>,
    #[serde(default)]
    pub(super) run: Option<RunParams>,
    #[serde(default)]
    pub(super) sweep: Vec<Spanned<SweepParams>>,
    #[serde(default)]
    pub(super) quality: Option<Spanned<CaptureParams>>,
    #[serde(default)]
    pub(super) jitter: Option<JitterParams>,
    #[serde(default)]
    pub(super) slurm: Option<Spanned<SlurmText>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ConfigText {
    pub(super) profile: Spanned<String>,
    #[serde(default)]
    pub(super) set: IndexMap<Spanned<String>, Spanned<Scalar>>,
    #[serde(default)]
    pub(super) matrix: IndexMap<Spanned<String>, Spanned<Vec<Scalar>>>,
    #[serde(default)]
    pub(super) id: Option<Spanned<String>>,
    #[serde(default)]
    pub(super) shape: Option<String>,
    #[serde(default)]
    pub(super) precision: Option<String>,
}

/// `[slurm]` as written, or one machine's table under it.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct SlurmText {
    #[serde(default)]
    pub(super) partition: Option<Spanned<String>>,
    #[serde(default)]
    pub(super) time: Option<Spanned<String>>,
    #[serde(default)]
    pub(super) gpus: Option<Spanned<i64>>,
    #[serde(default)]
    pub(super) gpu_type: Option<Spanned<String>>,
    #[serde(default)]
    pub(super) constraint: Option<Spanned<String>>,
    #[serde(default)]
    pub(super) cpus_per_task: Option<Spanned<i64>>,
    #[serde(default)]
    pub(super) extra: Option<Spanned<Vec<String>>>,
    #[serde(default)]
    pub(super) machines: IndexMap<Spanned<String>, Spanned<SlurmText>>,
}

/// Problems of one file, each at its place.
pub(super) struct Problems<'t> {
    pub(super) path: &'t Path,
    pub(super) text: &'t str,
    pub(super) found: Vec<CampaignError>,
}

impl Problems<'_> {
    pub(super) fn at(&mut self, offset: usize, message: impl Into<String>) {
        let (line, column) = position(self.text, offset);
        let problem = CampaignError::Invalid {
            path: self.path.to_owned(),
            line,
            column,
            message: message.into(),
        };
        // A template's problem is found once per configuration it makes: said once.
        if !self
            .found
            .iter()
            .any(|found| found.to_string() == problem.to_string())
        {
            self.found.push(problem);
        }
    }
}

/// Where the value of `key` starts in the table whose header is at `table` in `text` (the
/// header when the key is not written there): a problem of a value read through a type
/// shared with the command line is placed at its value.
pub(super) fn value_at(text: &str, table: usize, key: &str) -> usize {
    let Some(rest) = text.get(table..) else {
        return table;
    };
    let mut offset = table;
    for (number, line) in rest.split_inclusive('\n').enumerate() {
        let written = line.trim_start();
        if number > 0 && written.starts_with('[') {
            break;
        }
        if let Some(after) = written.strip_prefix(key)
            && let Some(value) = after.trim_start_matches([' ', '\t']).strip_prefix('=')
        {
            let value = value.trim_start_matches([' ', '\t']);
            return offset + line.len() - value.len();
        }
        offset += line.len();
    }
    table
}

//! What a campaign is once read: its configurations, each a profile with settings on one
//! machine, and the measurements every configuration gets, with their defaults.

use std::path::PathBuf;

use serde::Deserialize;

use crate::collect::{RunParams, SweepParams, defaults};
use crate::data::Id;
use crate::profiles::{Launcher, Setting};

/// A campaign: its configurations on each of its machines and what is measured of each.
#[derive(Debug, Clone)]
pub struct Campaign {
    /// `campaigns/<name>.toml`'s name.
    pub name: String,
    /// The file.
    pub path: PathBuf,
    /// What it is for, as the file says.
    pub description: Option<String>,
    /// Every configuration on every machine, the reference of the quality comparison first
    /// on each machine.
    pub configurations: Vec<Configuration>,
    /// The single-stream decode run (`[run]`, as `collect run` takes it), when the campaign
    /// has one.
    pub run: Option<RunParams>,
    /// The sweeps, each with its name.
    pub sweeps: Vec<SweepSpec>,
    /// The quality comparison against a reference configuration.
    pub quality: Option<QualitySpec>,
    /// Run-to-run noise.
    pub jitter: Option<JitterSpec>,
    /// How servers are started.
    pub launch: LaunchSpec,
}

/// One configuration on one machine: a profile with settings.
#[derive(Debug, Clone, PartialEq)]
pub struct Configuration {
    /// Its id: the run's id, the failure's, the prefix of its other records.
    pub id: Id,
    /// The machine's slug (empty in a single-machine project).
    pub machine: String,
    /// `profiles/<profile>.env`.
    pub profile: String,
    /// The settings on top of the profile: `set`, then this configuration's matrix values.
    pub settings: Vec<Setting>,
    /// The model's shape, for its run record.
    pub shape: Option<String>,
    /// The weights' precision, for its run and failure records.
    pub precision: Option<String>,
    /// The id of the configuration its quality is compared with, when it is not itself the
    /// reference.
    pub reference: Option<Id>,
    /// The port its server listens on (the profile's PORT), when the profile loads.
    pub port: Option<u16>,
}

impl Configuration {
    /// What distinguishes its sweeps and comparisons, beside what `collect sweep` derives
    /// from the profile (sequences, vision, CUDA graphs, speculative decoding): each of its
    /// settings, the KV-cache type as `kv` (the reports' filter), the others by their key in
    /// lowercase.
    pub fn dimensions(&self) -> Vec<(String, String)> {
        const DERIVED: [&str; 4] = [
            "MAX_NUM_SEQS",
            "LANGUAGE_MODEL_ONLY",
            "ENFORCE_EAGER",
            "SPEC_DECODE",
        ];
        self.settings
            .iter()
            .filter(|s| !DERIVED.contains(&s.key.as_str()))
            .map(|s| {
                let key = match s.key.as_str() {
                    "KV_CACHE_DTYPE" => "kv".to_owned(),
                    key => key.to_lowercase(),
                };
                (key, s.value.clone())
            })
            .collect()
    }
}

/// `[[sweep]]`: a sweep every configuration gets.
#[derive(Debug, Clone, PartialEq)]
pub struct SweepSpec {
    /// Its name within the configuration: the sweep's label is `<configuration> <name>`.
    pub name: String,
    /// What it sends, as `collect sweep` takes it.
    pub params: SweepParams,
}

/// `[quality]`: a capture of every configuration scored against the reference's, and the
/// divergence of each from the reference.
#[derive(Debug, Clone, PartialEq)]
pub struct QualitySpec {
    /// The reference configuration as the file names it.
    pub reference: String,
    /// The prompt set.
    pub prompts: String,
    /// Top-k logprobs per position.
    pub top_k: u64,
    /// Tokens generated per prompt.
    pub max_tokens: u64,
    /// Requests in flight.
    pub concurrency: usize,
    /// Leave the chat template's thinking on.
    pub thinking: bool,
}

/// `[jitter]`: the `collect jitter` options.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JitterSpec {
    /// How many prompts of the set.
    #[serde(default = "default_jitter_prompts")]
    pub prompts: usize,
    /// Scorings of each continuation.
    #[serde(default = "default_repeats")]
    pub repeats: usize,
    /// Tokens per continuation.
    #[serde(default = "default_jitter_tokens")]
    pub max_tokens: u64,
    /// Top-k logprobs per position.
    #[serde(default = "default_top_k")]
    pub top_k: u64,
    /// The prompt set.
    #[serde(default = "default_prompts")]
    pub prompt_set: String,
    /// Leave the chat template's thinking on.
    #[serde(default)]
    pub thinking: bool,
}

/// `[launch]`: how each configuration's server is started and stopped.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LaunchSpec {
    /// `podman` or `local` (`vllm serve`).
    #[serde(default)]
    pub launcher: Launcher,
    /// Seconds a server may take to become ready.
    #[serde(default = "default_ready")]
    pub ready_timeout_s: f64,
    /// Seconds a server may take to stop before it is killed.
    #[serde(default = "default_stop")]
    pub stop_timeout_s: f64,
}

impl Default for LaunchSpec {
    fn default() -> Self {
        Self {
            launcher: Launcher::default(),
            ready_timeout_s: default_ready(),
            stop_timeout_s: default_stop(),
        }
    }
}

fn default_jitter_prompts() -> usize {
    defaults::JITTER_PROMPTS
}
fn default_repeats() -> usize {
    defaults::JITTER_REPEATS
}
fn default_jitter_tokens() -> u64 {
    defaults::JITTER_MAX_TOKENS
}
pub(super) fn default_top_k() -> u64 {
    defaults::TOP_K
}
pub(super) fn default_prompts() -> String {
    crate::project::PROMPTS.to_owned()
}
fn default_ready() -> f64 {
    defaults::READY_TIMEOUT_S
}
fn default_stop() -> f64 {
    defaults::STOP_TIMEOUT_S
}

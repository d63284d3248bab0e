//! What a campaign is once read: its configurations, each a profile with settings on one
//! machine, and the measurements every configuration gets, with their defaults.

use std::path::PathBuf;

use crate::collect::{CaptureParams, JitterParams, LaunchParams, RunParams, SweepParams};
use crate::data::Id;
use crate::profiles::Setting;

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
    /// The quality comparison against a reference configuration (`[quality]`: a capture of
    /// every configuration, as `collect capture` takes it, scored against the reference's,
    /// and the divergence of each from the reference); its `reference` is set.
    pub quality: Option<CaptureParams>,
    /// Run-to-run noise (`[jitter]`, as `collect jitter` takes it).
    pub jitter: Option<JitterParams>,
    /// How servers are started (`[launch]`).
    pub launch: LaunchParams,
    /// Where its tasks run on Slurm (`[slurm]`).
    pub slurm: super::scheduler::Slurm,
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
    /// The GPUs its server takes (`Effective::gpus`), 1 when the profile does not load.
    pub gpus: u32,
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

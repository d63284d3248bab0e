//! Where a measurement runs: benchsite's version, the report's commit, the campaign and the
//! engine's job.

use crate::data;

/// The environment variables that identify the engine's job a measurement ran in: GitHub
/// Actions, Slurm, Buildkite, GitLab CI.
pub const ENGINE_VARIABLES: &[&str] = &[
    "GITHUB_REPOSITORY",
    "GITHUB_WORKFLOW",
    "GITHUB_RUN_ID",
    "GITHUB_RUN_ATTEMPT",
    "GITHUB_JOB",
    "RUNNER_NAME",
    "SLURM_JOB_ID",
    "SLURM_ARRAY_JOB_ID",
    "SLURM_ARRAY_TASK_ID",
    "SLURM_JOB_NODELIST",
    "BUILDKITE_BUILD_ID",
    "BUILDKITE_JOB_ID",
    "BUILDKITE_AGENT_NAME",
    "CI_PIPELINE_ID",
    "CI_JOB_ID",
];

/// Where a measurement runs: this benchsite's version, the commit of the report repository at
/// `root` (when it is a git work tree), the campaign, and the engine's job ids from
/// [`ENGINE_VARIABLES`].
pub fn provenance(root: &std::path::Path, campaign: Option<&str>) -> data::Provenance {
    let commit = std::process::Command::new("git")
        .arg("-C")
        .arg(if root.as_os_str().is_empty() {
            std::path::Path::new(".")
        } else {
            root
        })
        .args(["rev-parse", "--verify", "-q", "HEAD"])
        .stderr(std::process::Stdio::null())
        .output()
        .ok()
        .filter(|output| output.status.success())
        .map(|output| String::from_utf8_lossy(&output.stdout).trim().to_owned())
        .filter(|commit| !commit.is_empty());
    data::Provenance {
        benchsite: env!("CARGO_PKG_VERSION").to_owned(),
        commit,
        campaign: campaign.map(str::to_owned),
        engine: ENGINE_VARIABLES
            .iter()
            .filter_map(|name| {
                let value = std::env::var(name).ok()?;
                (!value.is_empty()).then(|| ((*name).to_owned(), value))
            })
            .collect(),
    }
}

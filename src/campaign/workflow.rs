//! `campaign workflow`: the campaign spread over a fleet on an engine that exists. For GitHub
//! Actions, `.github/workflows/campaign-<name>.yml`: a job per machine on its self-hosted
//! runner, each uploading its document and logs even when it fails, then one job that merges
//! them, checks the report and commits and publishes it (or opens a pull request). For Slurm,
//! `campaign-<name>.sbatch`: a job array with a task per configuration and a merge step.

use std::path::PathBuf;

use super::error::CampaignError;
use super::spec::Campaign;
use crate::project::Machine;
use crate::scaffold::{self, Pinned};

const WORKFLOW: &str = include_str!("workflow.yml");
const PUBLISH_COMMIT: &str = include_str!("publish-commit.yml");
const PUBLISH_PR: &str = include_str!("publish-pr.yml");
const SLURM: &str = include_str!("slurm.sh");

/// How the merged results are published.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Publish {
    /// Commit them to the branch, then build and deploy the site on GitHub Pages.
    Commit,
    /// Open a pull request with them; the Pages workflow publishes once it is merged.
    PullRequest,
}

/// The runner label of a machine: `[machines.<slug>] runner`, else its slug; `gpu` for the
/// one machine of a single-machine project.
pub fn runner(machine: &Machine) -> String {
    machine.runner.clone().unwrap_or_else(|| {
        if machine.slug.is_empty() {
            "gpu".to_owned()
        } else {
            machine.slug.clone()
        }
    })
}

/// The GitHub Actions workflow of `campaign` over `machines` (the campaign's), and the path it
/// goes to in the project.
pub fn github(
    campaign: &Campaign,
    machines: &[&Machine],
    pinned: &Pinned,
    publish: Publish,
) -> (PathBuf, String) {
    let matrix: Vec<String> = machines
        .iter()
        .map(|m| {
            format!(
                "          - machine: \"{}\"\n            runner: \"{}\"\n            document: \"{}\"",
                m.slug,
                runner(m),
                m.data
            )
        })
        .collect();
    let publish_steps = match publish {
        Publish::Commit => scaffold::fill(PUBLISH_COMMIT, &[("build", scaffold::PAGES_BUILD)]),
        Publish::PullRequest => PUBLISH_PR.to_owned(),
    };
    let summary = match publish {
        Publish::Commit => "commits them and publishes the report on GitHub Pages",
        Publish::PullRequest => "and opens a pull request with them",
    };
    let text = scaffold::fill(
        WORKFLOW,
        &[
            ("name", &campaign.name),
            ("git", &pinned.git),
            ("tag", &pinned.tag),
            ("install", &scaffold::install_step()),
            ("matrix", &matrix.join("\n")),
            ("publish", publish_steps.trim_end()),
            ("publish_summary", summary),
        ],
    );
    (
        PathBuf::from(format!(".github/workflows/campaign-{}.yml", campaign.name)),
        text,
    )
}

/// The Slurm batch script of `campaign`: a task per configuration; refused for a campaign
/// with `[quality]`, whose captures are scored against a reference another task measures.
pub fn slurm(campaign: &Campaign) -> Result<(PathBuf, String), CampaignError> {
    if campaign.quality.is_some() {
        return Err(CampaignError::Usage(format!(
            "campaign {}: a Slurm array runs its configurations in parallel, each in its own copy of the project, and [quality] scores every capture against the reference configuration's; run it with `benchsite campaign run {}` on one machine, or move [quality] to a campaign of its own",
            campaign.name, campaign.name
        )));
    }
    let script = format!("campaign-{}.sbatch", campaign.name);
    let words = |f: &dyn Fn(&super::spec::Configuration) -> String| {
        campaign
            .configurations
            .iter()
            .map(|c| format!("\"{}\"", f(c)))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let text = scaffold::fill(
        SLURM,
        &[
            ("name", &campaign.name),
            ("script", &script),
            (
                "last",
                &campaign.configurations.len().saturating_sub(1).to_string(),
            ),
            ("configs", &words(&|c| c.id.to_string())),
            ("machines", &words(&|c| c.machine.clone())),
        ],
    );
    Ok((PathBuf::from(script), text))
}

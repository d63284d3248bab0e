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

/// A measuring job's time limit when `[slurm] time` gives none: three days.
const DEFAULT_MINUTES: u64 = 4320;

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
                "          - machine: \"{}\"\n            runner: \"{}\"\n            document: \"{}\"\n            timeout: {}",
                m.slug,
                runner(m),
                m.data,
                campaign.slurm.of(&m.slug).minutes().unwrap_or(DEFAULT_MINUTES)
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

/// The Slurm batch script of `campaign` over the project's `machines`: submitted once, it
/// submits a job array per machine and GPU count (a task per configuration) and a merge after
/// them; refused for a campaign with `[quality]`, whose captures are scored against a
/// reference another task measures.
pub fn slurm(
    campaign: &Campaign,
    machines: &[Machine],
) -> Result<(PathBuf, String), CampaignError> {
    if campaign.quality.is_some() {
        return Err(CampaignError::Usage(format!(
            "campaign {}: a Slurm array runs its configurations in parallel, each in its own copy of the project, and [quality] scores every capture against the reference configuration's; run it with `benchsite campaign run {}` on one machine, or move [quality] to a campaign of its own",
            campaign.name, campaign.name
        )));
    }
    let script = format!("campaign-{}.sbatch", campaign.name);
    let quoted = |words: &[String]| {
        words
            .iter()
            .map(|w| shell_words::quote(w).into_owned())
            .collect::<Vec<_>>()
            .join(" ")
    };
    let arrays = arrays(campaign);
    let mut text = String::new();
    for (n, (machine, gpus, configs)) in arrays.iter().enumerate() {
        let k = n + 1;
        let options = campaign.slurm.of(machine);
        let document = machines
            .iter()
            .find(|m| m.slug == *machine)
            .map_or("data/results.json", |m| m.data.as_str());
        let on = match machine.is_empty() {
            true => String::new(),
            false => format!("machine {machine}, "),
        };
        let gpus = options.gpus_for(*gpus);
        text.push_str(&format!(
            "# {k}: {on}{} configuration{}, {gpus} GPU{} a task.\nARRAY_{k}_MACHINE={}\nARRAY_{k}_DOCUMENT={}\nARRAY_{k}_CONFIGS=({})\nARRAY_{k}_SBATCH=({})\n",
            configs.len(),
            if configs.len() == 1 { "" } else { "s" },
            if gpus == 1 { "" } else { "s" },
            shell_words::quote(machine),
            shell_words::quote(document),
            quoted(configs),
            quoted(&options.sbatch(gpus)),
        ));
    }
    // The submitting and merging jobs need no GPU: the campaign's partition, if any.
    let partition = campaign.slurm.all.partition.as_ref();
    let text = scaffold::fill(
        SLURM,
        &[
            ("name", &campaign.name),
            ("script", &script),
            ("arrays", &text),
            ("count", &arrays.len().to_string()),
            (
                "submit_options",
                &partition.map_or(String::new(), |p| format!("#SBATCH --partition={p}\n")),
            ),
            (
                "merge_options",
                &partition.map_or(String::new(), |p| format!("--partition={p} ")),
            ),
        ],
    );
    Ok((PathBuf::from(script), text))
}

/// The campaign's configurations by machine and GPU count, in the campaign's order: the job
/// arrays, since an array's tasks share their options.
fn arrays(campaign: &Campaign) -> Vec<(String, u32, Vec<String>)> {
    let mut arrays: Vec<(String, u32, Vec<String>)> = Vec::new();
    for config in &campaign.configurations {
        let key = (config.machine.as_str(), config.gpus);
        match arrays
            .iter_mut()
            .find(|(machine, gpus, _)| (machine.as_str(), *gpus) == key)
        {
            Some((_, _, ids)) => ids.push(config.id.to_string()),
            None => arrays.push((
                config.machine.clone(),
                config.gpus,
                vec![config.id.to_string()],
            )),
        }
    }
    arrays
}

/// What differs between a written script, `written`, and the one the campaign gives now,
/// `now`: the lines of each the other lacks, `-` the written one's and `+` today's; none when
/// they are the same.
pub fn stale(written: &str, now: &str) -> Vec<String> {
    if written == now {
        return Vec::new();
    }
    let old: Vec<&str> = written.lines().collect();
    let new: Vec<&str> = now.lines().collect();
    let mut differences: Vec<String> = old
        .iter()
        .filter(|line| !new.contains(line))
        .map(|line| format!("- {line}"))
        .collect();
    differences.extend(
        new.iter()
            .filter(|line| !old.contains(line))
            .map(|line| format!("+ {line}")),
    );
    if differences.is_empty() {
        differences.push("the same lines in another order".to_owned());
    }
    differences
}

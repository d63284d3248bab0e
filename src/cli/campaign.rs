//! `benchsite campaign`: plan, run, merge and spread a campaign of configurations.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use benchsite::campaign::{self, Campaign, plan, workflow};
use benchsite::project::{self, Layout, Machine};
use benchsite::{config, data, scaffold};
use clap::{Args, Subcommand, ValueEnum};

use super::Outcome;

#[derive(Debug, Args)]
pub struct CampaignArgs {
    #[command(subcommand)]
    command: CampaignCommand,
}

#[derive(Debug, Subcommand)]
enum CampaignCommand {
    /// List every job of the campaign with its status (done, failed, conflict, pending)
    /// against the machine's document, and the command it runs.
    Plan {
        /// The campaign: campaigns/NAME.toml.
        name: String,
        /// Only this machine's jobs (default: every machine of the campaign).
        #[arg(long, value_name = "SLUG")]
        machine: Option<String>,
        /// How to print the plan.
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
    /// Measure the campaign's pending jobs: for each configuration, start its server from the
    /// profile, run its jobs, stop it. Run it again to resume.
    Run(RunArgs),
    /// Merge machine documents measured elsewhere (CI artifacts, Slurm tasks' copies) into
    /// the project's: idempotent on record keys, conflicts refused with both places named.
    Merge {
        /// Folders holding machine documents (data/<file>.json as in the project, or the file
        /// name alone) and their logs/ and captures/.
        #[arg(required = true, value_name = "DIR")]
        dirs: Vec<PathBuf>,
    },
    /// Write the GitHub Actions workflow that runs the campaign on every machine's
    /// self-hosted runner, merges and publishes (or a Slurm script with --slurm).
    Workflow {
        /// The campaign: campaigns/NAME.toml.
        name: String,
        /// Write a Slurm job array script, campaign-NAME.sbatch, instead.
        #[arg(long)]
        slurm: bool,
        /// Write nothing: compare FILE with what would be written now, and fail naming what
        /// changed (the Slurm script's tasks run this before they start).
        #[arg(long, value_name = "FILE")]
        check: Option<PathBuf>,
        /// Open a pull request with the results instead of committing and deploying them.
        #[arg(long, conflicts_with = "slurm")]
        pull_request: bool,
        /// The git repository the workflow installs benchsite from.
        #[arg(long, value_name = "URL", default_value = env!("CARGO_PKG_REPOSITORY"))]
        benchsite_git: String,
        /// The tag of that repository it installs (default: this version's, v<version>).
        #[arg(long, value_name = "TAG")]
        benchsite_tag: Option<String>,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    /// A line per job, grouped by configuration with its server's command.
    Text,
    /// {"jobs": [{"id", "kind", "config", "status", "command"}]}.
    Json,
    /// The {"include": [...]} a workflow's fromJson takes: a configuration with work left
    /// per entry.
    GithubMatrix,
}

#[derive(Debug, Args)]
struct RunArgs {
    /// The campaign: campaigns/NAME.toml.
    name: String,
    /// The machine to run on (default: the only machine).
    #[arg(long, value_name = "SLUG")]
    machine: Option<String>,
    /// Only the jobs whose configuration id or job id matches GLOB (repeatable).
    #[arg(long, value_name = "GLOB")]
    only: Vec<String>,
    /// Run the configurations with a failure record again.
    #[arg(long)]
    retry_failed: bool,
    /// Print what would run; start nothing.
    #[arg(long)]
    dry_run: bool,
    /// How servers are started (default: the campaign's [launch] launcher, podman).
    #[arg(long, value_enum)]
    launcher: Option<benchsite::profiles::Launcher>,
    /// A program to run in place of podman or the engine's program, with the same arguments.
    #[arg(long, value_name = "PATH", env = "BENCHSITE_LAUNCH_PROGRAM")]
    launch_program: Option<String>,
    /// Seconds a server may take to become ready (default: the campaign's [launch]
    /// ready_timeout_s, 900 by default).
    #[arg(long, value_name = "SECONDS")]
    ready_timeout: Option<f64>,
    /// Seconds one request may take (default: [collect] request_timeout_s, 600).
    #[arg(long, value_name = "SECONDS")]
    timeout: Option<f64>,
    /// Start each server on a free port, whatever its profile's PORT: for runs that share a
    /// machine, as the tasks of a Slurm array on one node do.
    #[arg(long)]
    free_port: bool,
}

pub fn run(root: &Path, args: CampaignArgs) -> Outcome {
    match args.command {
        CampaignCommand::Plan {
            name,
            machine,
            format,
        } => plan(root, &name, machine.as_deref(), format),
        CampaignCommand::Run(args) => run_campaign(root, args),
        CampaignCommand::Merge { dirs } => merge(root, &dirs),
        CampaignCommand::Workflow {
            name,
            slurm,
            check,
            pull_request,
            benchsite_git,
            benchsite_tag,
        } => {
            let pinned = scaffold::Pinned {
                git: benchsite_git,
                tag: benchsite_tag.unwrap_or_else(|| scaffold::Pinned::default().tag),
            };
            write_workflow(root, &name, (slurm, check), pull_request, &pinned)
        }
    }
}

fn machines(root: &Path) -> anyhow::Result<Vec<Machine>> {
    Ok(project::machines(&config::load(root)?))
}

fn load(root: &Path, name: &str, machines: &[Machine]) -> anyhow::Result<Campaign> {
    campaign::load(root, name, machines).map_err(|errors| {
        anyhow::anyhow!(
            "{}",
            errors
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("\nerror: ")
        )
    })
}

/// The campaign's machines, or the one `--machine` names.
fn chosen<'m>(
    campaign: &Campaign,
    machines: &'m [Machine],
    machine: Option<&str>,
) -> anyhow::Result<Vec<&'m Machine>> {
    let of_campaign: Vec<&Machine> = machines
        .iter()
        .filter(|m| campaign.configurations.iter().any(|c| c.machine == m.slug))
        .collect();
    match machine {
        None => Ok(of_campaign),
        Some(slug) => {
            let picked = project::pick(machines, Some(slug)).map_err(anyhow::Error::msg)?;
            anyhow::ensure!(
                of_campaign.iter().any(|m| m.slug == picked.slug),
                "--machine {slug}: campaign {} does not run on it (its machines: {})",
                campaign.name,
                of_campaign
                    .iter()
                    .map(|m| m.slug.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            Ok(vec![picked])
        }
    }
}

/// The keys of a machine's document; none when it has no document yet.
fn keys(root: &Path, machine: &Machine) -> anyhow::Result<data::Keys> {
    let path = Layout::new(root).document(machine);
    if path.exists() {
        Ok(data::Keys::read(&path)?)
    } else {
        Ok(data::Keys::default())
    }
}

fn plan(root: &Path, name: &str, machine: Option<&str>, format: Format) -> Outcome {
    let machines = machines(root)?;
    let campaign = load(root, name, &machines)?;
    let chosen = chosen(&campaign, &machines, machine)?;
    let mut all = Vec::new();
    let mut texts = Vec::new();
    let mut json_jobs = Vec::new();
    for machine in &chosen {
        let doc = keys(root, machine)?;
        let jobs = plan::jobs(&campaign, &machine.slug, &doc, root);
        match format {
            Format::Text => texts.push(plan::to_text(&campaign, &machine.slug, &jobs, |config| {
                launch_line(root, &campaign, config)
            })),
            Format::Json => {
                let value = plan::to_json(&campaign, &machine.slug, &jobs);
                json_jobs.extend(
                    value["jobs"]
                        .as_array()
                        .cloned()
                        .unwrap_or_default()
                        .into_iter()
                        .map(|mut job| {
                            job["machine"] = serde_json::Value::String(machine.slug.clone());
                            job
                        }),
                );
            }
            Format::GithubMatrix => {}
        }
        all.extend(jobs);
    }
    match format {
        Format::Text => print!("{}", texts.join("\n")),
        Format::Json => println!(
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({
                "campaign": campaign.name,
                "jobs": json_jobs,
            }))?
        ),
        Format::GithubMatrix => {
            let labels: Vec<(String, String)> = chosen
                .iter()
                .map(|m| (m.slug.clone(), workflow::runner(m)))
                .collect();
            println!(
                "{}",
                serde_json::to_string(&plan::github_matrix(&campaign, &labels, &all))?
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The command that starts a configuration's server, as the campaign's launcher runs it.
fn launch_line(root: &Path, campaign: &Campaign, config: &campaign::Configuration) -> String {
    let launcher = campaign.launch.launcher;
    benchsite::profiles::load(&root.join("profiles"), &config.profile)
        .map_err(|e| e.to_string())
        .and_then(|p| {
            p.effective(&config.settings)
                .launch_command(launcher)
                .map(|c| c.to_string())
                .map_err(|e| e.to_string())
        })
        .unwrap_or_else(|error| format!("cannot be started: {error}"))
}

fn run_campaign(root: &Path, args: RunArgs) -> Outcome {
    let layout = Layout::for_machine(root, args.machine.as_deref())?;
    let machines = machines(root)?;
    let campaign = load(root, &args.name, &machines)?;
    let machine = project::pick(&machines, args.machine.as_deref())
        .map_err(anyhow::Error::msg)?
        .slug
        .clone();
    chosen(
        &campaign,
        &machines,
        args.machine
            .as_deref()
            .or(Some(&machine))
            .filter(|s| !s.is_empty()),
    )?;
    if !layout.results().exists() {
        data::save(
            &layout.results(),
            &data::Results::empty(data::Date::today()),
            &data::no_more_checks,
        )?;
        eprintln!("created {}", super::shown(&layout.root, &layout.results()));
    }
    let only = args
        .only
        .iter()
        .map(|glob| {
            globset::Glob::new(glob)
                .map(|g| g.compile_matcher())
                .with_context(|| format!("--only {glob}: not a glob"))
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    let seconds = match args.timeout {
        Some(seconds) => seconds,
        None => config::load(root)?.collect.request_timeout_s,
    };
    anyhow::ensure!(
        benchsite::collect::is_timeout(seconds),
        "--timeout: expected seconds above 0 and at most a week ({}), found {seconds}",
        benchsite::collect::MOST_SECONDS
    );
    if let Some(seconds) = args.ready_timeout {
        anyhow::ensure!(
            benchsite::collect::is_timeout(seconds),
            "--ready-timeout: expected seconds above 0 and at most a week ({}), found {seconds}",
            benchsite::collect::MOST_SECONDS
        );
    }
    let options = campaign::RunOptions {
        only,
        retry_failed: args.retry_failed,
        dry_run: args.dry_run,
        launch_program: args.launch_program,
        launcher: args.launcher,
        ready_timeout: args.ready_timeout.map(Duration::from_secs_f64),
        request_timeout: Duration::from_secs_f64(seconds),
        free_port: args.free_port,
        today: data::Date::today(),
    };
    let runtime = super::collect::runtime()?;
    let summary = runtime.block_on(campaign::run(&layout, &machine, &campaign, &options))?;
    if options.dry_run {
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(overhead) = summary.overhead_per_job() {
        eprintln!(
            "the campaign's own time (neither measuring nor starting and stopping servers): {} per job",
            benchsite::format::duration(overhead.as_secs_f64())
        );
    }
    eprintln!(
        "campaign {}{}: {} done, {} failed, {} errors, {} skipped, wall {}",
        campaign.name,
        if machine.is_empty() {
            String::new()
        } else {
            format!(" on {machine}")
        },
        summary.done,
        summary.failed,
        summary.errors,
        summary.skipped,
        benchsite::format::duration(summary.wall.as_secs_f64())
    );
    if let Some(kept) = &summary.kept {
        eprintln!("warning: {}", kept.kept());
    }
    if summary.interrupted {
        eprintln!("interrupted: every finished record is kept; run it again to resume");
        return Ok(ExitCode::FAILURE);
    }
    Ok(if summary.errors > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

fn merge(root: &Path, dirs: &[PathBuf]) -> Outcome {
    let machines = machines(root)?;
    // As for the files `collect import` reads: relative to the project.
    let dirs: Vec<PathBuf> = dirs.iter().map(|dir| root.join(dir)).collect();
    let merged = campaign::merge(root, &machines, &dirs)?;
    for m in &merged.documents {
        let added: Vec<String> = m
            .added
            .iter()
            .map(|(array, n)| format!("{n} {array}"))
            .collect();
        println!(
            "{}: added {}; {} already present",
            m.document,
            if added.is_empty() {
                "nothing".to_owned()
            } else {
                added.join(", ")
            },
            m.present
        );
        if m.replaced > 0 {
            println!(
                "{}: removed {} failure(s) whose configuration was measured since",
                m.document, m.replaced
            );
        }
        if let Some(hardware) = &m.hardware {
            eprintln!("warning: {hardware}");
        }
        if let Some(kept) = &m.kept {
            eprintln!("warning: {kept}");
        }
    }
    if merged.files > 0 {
        println!("copied {} logs and captures into data/", merged.files);
    }
    Ok(ExitCode::SUCCESS)
}

fn write_workflow(
    root: &Path,
    name: &str,
    (slurm, check): (bool, Option<PathBuf>),
    pull_request: bool,
    pinned: &scaffold::Pinned,
) -> Outcome {
    let machines = machines(root)?;
    let campaign = load(root, name, &machines)?;
    let (path, text) = if slurm {
        workflow::slurm(&campaign, &machines)?
    } else {
        let chosen = chosen(&campaign, &machines, None)?;
        let publish = if pull_request {
            workflow::Publish::PullRequest
        } else {
            workflow::Publish::Commit
        };
        workflow::github(&campaign, &chosen, pinned, publish)
    };
    if let Some(written) = check {
        return check_written(root, name, &written, &text, slurm);
    }
    let full = root.join(&path);
    if let Some(parent) = full.parent() {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("cannot create {}", parent.display()))?;
    }
    std::fs::write(&full, text).with_context(|| format!("cannot write {}", full.display()))?;
    println!("wrote {}", path.display());
    Ok(ExitCode::SUCCESS)
}

/// `workflow --check FILE`: whether FILE is what would be written now; what changed if not.
fn check_written(root: &Path, name: &str, written: &Path, now: &str, slurm: bool) -> Outcome {
    let path = root.join(written);
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("cannot read {}", path.display()))?;
    let changed = workflow::stale(&text, now);
    if changed.is_empty() {
        return Ok(ExitCode::SUCCESS);
    }
    let shown: Vec<&str> = changed.iter().take(24).map(String::as_str).collect();
    let more = match changed.len().saturating_sub(shown.len()) {
        0 => String::new(),
        n => format!("\n  … and {n} more lines"),
    };
    anyhow::bail!(
        "{} is stale: campaigns/{name}.toml, its profiles or the machines changed since it was written. What differs:\n  {}{more}\nWrite it again: benchsite campaign workflow {name}{}",
        written.display(),
        shown.join("\n  "),
        if slurm { " --slurm" } else { "" }
    )
}

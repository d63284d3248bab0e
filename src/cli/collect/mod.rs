//! `benchsite collect`: measure a running server and record the results. One file per
//! subcommand; the flag groups they share are in `flags.rs`, the writing in `output.rs`.

mod by_hand;
mod flags;
mod import;
mod output;
mod quality;
mod run;
mod sweep;

use std::path::Path;

use anyhow::Context;
use benchsite::data;
use benchsite::project::Layout;
use clap::{Args, Subcommand};

use super::Outcome as CommandOutcome;

#[derive(Debug, Args)]
pub struct CollectArgs {
    /// The machine whose results document to write into, by its [machines.<slug>] in
    /// benchsite.toml (default: the only machine).
    #[arg(long, global = true, value_name = "SLUG")]
    machine: Option<String>,
    #[command(subcommand)]
    command: CollectCommand,
}

#[derive(Debug, Subcommand)]
enum CollectCommand {
    /// Single-stream decode speed of one configuration: a cold request, then the median of
    /// the samples; the KV pool and speculative acceptance from /metrics.
    Run(Box<run::RunArgs>),
    /// A concurrency sweep: at each level, concurrency × rounds requests with exactly
    /// concurrency in flight.
    Sweep(Box<sweep::SweepArgs>),
    /// Capture a configuration's generations and teacher-forced scorings of a prompt set,
    /// for divergence against a reference.
    Capture(Box<quality::CaptureArgs>),
    /// Compare two captures of the same reference: a divergence record.
    Divergence(quality::DivergenceArgs),
    /// Run-to-run noise of one server: the same continuations scored repeatedly.
    Jitter(Box<quality::JitterArgs>),
    /// Fill `hardware` from nvidia-smi, /proc/meminfo, the CPU count, /etc/os-release and the
    /// container runtime.
    Hardware {
        /// Print the hardware instead of writing it.
        #[arg(long)]
        dry_run: bool,
    },
    /// Record by hand a configuration that did not run.
    Failure(by_hand::FailureArgs),
    /// Import results other tools wrote, as records of this report.
    #[command(subcommand)]
    Import(import::ImportCommand),
}

/// Runs a `collect` subcommand against the machine's document.
pub fn run(root: &Path, args: CollectArgs) -> CommandOutcome {
    let layout = Layout::for_machine(root, args.machine.as_deref())?;
    // A machine newly declared in benchsite.toml starts with an empty document.
    if args.machine.is_some() && !layout.results().exists() {
        data::save(
            &layout.results(),
            &data::Results::empty(data::Date::today()),
            &data::no_more_checks,
        )?;
        eprintln!("created {}", super::shown(&layout.root, &layout.results()));
    }
    match args.command {
        CollectCommand::Hardware { dry_run } => by_hand::hardware(&layout, dry_run),
        CollectCommand::Failure(args) => by_hand::failure(&layout, args),
        CollectCommand::Run(args) => runtime()?.block_on(run::run(&layout, *args)),
        CollectCommand::Sweep(args) => runtime()?.block_on(sweep::run(&layout, *args)),
        CollectCommand::Capture(args) => runtime()?.block_on(quality::capture(&layout, *args)),
        CollectCommand::Divergence(args) => quality::divergence(&layout, args),
        CollectCommand::Jitter(args) => runtime()?.block_on(quality::jitter(&layout, *args)),
        CollectCommand::Import(command) => import::run(&layout, command),
    }
}

/// The measurements' runtime (`collect::runtime`), for `collect` and `campaign run`.
pub(super) fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    benchsite::collect::runtime().context("cannot start the async runtime")
}

/// `collect` parsed from its arguments, as the subcommands' tests see it.
#[cfg(test)]
fn parsed(args: &[&str]) -> CollectCommand {
    #[derive(clap::Parser)]
    struct Line {
        #[command(flatten)]
        collect: CollectArgs,
    }
    let line: Line =
        clap::Parser::try_parse_from(std::iter::once("collect").chain(args.iter().copied()))
            .unwrap_or_else(|error| panic!("{args:?}: {error}"));
    line.collect.command
}

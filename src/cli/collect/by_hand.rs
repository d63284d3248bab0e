//! `collect hardware` and `collect failure`: what is recorded without measuring a server.

use std::process::ExitCode;

use benchsite::collect;
use benchsite::data::{self, FailureStatus};
use benchsite::project::{Layout, ProfileChecks};
use clap::Args;

use super::flags::{self, Writing};
use super::output::{warn_kept, write};
use crate::cli::Outcome as CommandOutcome;

#[derive(Debug, Args)]
pub struct FailureArgs {
    /// The failure's id: a slug, its permanent page.
    #[arg(long)]
    id: String,
    /// The checkpoint tried.
    #[arg(long)]
    checkpoint: String,
    /// The weights' precision.
    #[arg(long)]
    precision: String,
    /// What happened.
    #[arg(long, value_parser = failure_status)]
    status: FailureStatus,
    /// One paragraph: why it did not run.
    #[arg(long)]
    reason: String,
    /// The weights' size in GiB (2³⁰ bytes).
    #[arg(long, value_name = "GIB")]
    weights_gib: Option<f64>,
    /// The overrides tried, as KEY=VALUE pairs.
    #[arg(long)]
    config: Option<String>,
    /// The engine that was started.
    #[arg(long, value_enum)]
    engine: Option<benchsite::profiles::Engine>,
    #[command(flatten)]
    writing: Writing,
}

fn failure_status(text: &str) -> Result<FailureStatus, String> {
    FailureStatus::ALL
        .into_iter()
        .find(|status| status.as_str() == text)
        .ok_or_else(|| {
            let known: Vec<_> = FailureStatus::ALL.iter().map(|s| s.as_str()).collect();
            format!("expected one of: {}", known.join(", "))
        })
}

/// Reads this machine's hardware into the document (or prints it).
pub fn hardware(layout: &Layout, dry_run: bool) -> CommandOutcome {
    let found = collect::hardware();
    for warning in &found.warnings {
        eprintln!("warning: {warning}");
    }
    if dry_run {
        println!("{}", collect::to_json(&found.hardware));
        return Ok(ExitCode::SUCCESS);
    }
    let checks = ProfileChecks::of(layout);
    let written = data::update(&layout.results(), &|doc| checks.problems(doc), |doc| {
        collect::merge(&mut doc.hardware, found.hardware);
        Ok(())
    })?;
    warn_kept(written.kept.as_ref());
    eprintln!(
        "recorded hardware in {}",
        crate::cli::shown(&layout.root, &layout.results())
    );
    Ok(ExitCode::SUCCESS)
}

/// Records a configuration that did not run.
pub fn failure(layout: &Layout, args: FailureArgs) -> CommandOutcome {
    let record = data::Failure {
        id: flags::id(&args.id)?,
        checkpoint: args.checkpoint,
        precision: args.precision,
        weights_gib: args.weights_gib,
        status: args.status,
        config: args.config.filter(|c| !c.trim().is_empty()),
        profile: None,
        settings: Vec::new(),
        reason: args.reason,
        engine: args.engine,
        server: None,
        log: None,
        provenance: None,
    };
    write(layout, record, &args.writing)?;
    Ok(ExitCode::SUCCESS)
}

//! `benchsite diff`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use benchsite::compare::{self, Change};
use benchsite::data;
use benchsite::project::Layout;
use clap::Args;

use super::Outcome;

#[derive(Debug, Args)]
pub struct DiffArgs {
    /// The earlier results document.
    old: PathBuf,
    /// The later one (default: the project's current document of --machine, or of its only
    /// machine).
    new: Option<PathBuf>,
    /// The machine whose current document NEW defaults to, by its [machines.<slug>].
    #[arg(long, value_name = "SLUG", conflicts_with = "new")]
    machine: Option<String>,
    /// Percent beyond which a move in the bad direction is a regression.
    #[arg(long, default_value_t = 5.0, value_name = "PERCENT")]
    threshold: f64,
    /// Exit 1 when there is a regression (for CI).
    #[arg(long)]
    fail_on_regression: bool,
}

pub fn run(root: &Path, args: DiffArgs) -> Outcome {
    anyhow::ensure!(
        args.threshold >= 0.0 && args.threshold.is_finite(),
        "--threshold: expected a percentage of 0 or more"
    );
    let new_path = match args.new {
        Some(path) => path,
        None => Layout::for_machine(root, args.machine.as_deref())?.results(),
    };
    let old = data::load(&args.old)?;
    let new = data::load(&new_path)?;
    let diff = compare::diff(&old, &new, args.threshold);
    if diff.is_empty() {
        println!("no changes");
        return Ok(ExitCode::SUCCESS);
    }
    for record in &diff.records {
        println!("{}", record.record);
        for change in &record.changes {
            println!("  {}", line(change));
        }
    }
    for added in &diff.added {
        println!("added: {added}");
    }
    for removed in &diff.removed {
        println!("removed: {removed}");
    }
    let regressions = diff.regressions().count();
    let changes: usize = diff.records.iter().map(|r| r.changes.len()).sum();
    println!(
        "{changes} changes in {} records, {} added, {} removed; {regressions} regression(s) beyond {}%",
        diff.records.len(),
        diff.added.len(),
        diff.removed.len(),
        args.threshold
    );
    Ok(if args.fail_on_regression && regressions > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// `decode_tok_s: 289.0 → 260.1 (−28.9, −10.0%)  REGRESSION, beyond both intervals`; a bad
/// move within both records' noise says so instead.
pub fn line(change: &Change) -> String {
    let mut text = format!(
        "{}: {} → {}",
        change.what,
        change.old_text(),
        change.new_text()
    );
    if let Some(delta) = change.delta_text() {
        text.push_str(&format!(" ({delta})"));
    }
    if change.regression {
        text.push_str(&format!("  REGRESSION, {}", change.noise.words()));
    } else if change.noise == benchsite::compare::Noise::Within {
        text.push_str("  within noise");
    }
    text
}

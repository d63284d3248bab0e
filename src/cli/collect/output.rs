//! Writing (or printing) what a measurement gave, and saying so.

use std::process::ExitCode;

use benchsite::collect::{self, Outcome};
use benchsite::data::{self, Record};
use benchsite::project::Layout;
use serde::Serialize;

use super::flags::Writing;
use crate::cli::Outcome as CommandOutcome;

/// Writes a measurement's record, its warnings and `summary`'s line; a partial or failed
/// measurement writes what it has and exits non-zero.
pub fn record<R: Record + Serialize>(
    layout: &Layout,
    outcome: Outcome<R>,
    writing: &Writing,
    summary: impl Fn(&R) -> String,
) -> CommandOutcome {
    match outcome {
        Outcome::Measured { record, warnings } => {
            let record = stamped(layout, record);
            for warning in warnings {
                eprintln!("warning: {warning}");
            }
            let line = summary(&record);
            write(layout, record, writing)?;
            println!("{line}");
            Ok(ExitCode::SUCCESS)
        }
        Outcome::Partial { record, why } => {
            let record = stamped(layout, record);
            let line = summary(&record);
            write(layout, record, writing)?;
            println!("{line}");
            eprintln!("stopped early: {why}; the finished levels were recorded");
            Ok(ExitCode::FAILURE)
        }
        Outcome::Failed(failure) => {
            let failure = stamped(layout, *failure);
            let line = format!(
                "failure {}: {}: {}",
                failure.id,
                failure.status.as_str(),
                failure.reason
            );
            write(layout, failure, writing)?;
            eprintln!("{line}");
            Ok(ExitCode::FAILURE)
        }
    }
}

/// `record` with where it was measured.
pub fn stamped<R: Record>(layout: &Layout, mut record: R) -> R {
    *record.provenance() = Some(collect::provenance(&layout.root, None));
    record
}

/// Saves `record` into the machine's document, or prints it with `--dry-run`.
pub fn write<R: Record + Serialize>(
    layout: &Layout,
    record: R,
    writing: &Writing,
) -> anyhow::Result<()> {
    if writing.dry_run {
        println!("{}", collect::to_json(&record));
        return Ok(());
    }
    let key = record.key().to_owned();
    let kept = collect::save(layout, record, writing.replace)?;
    warn_kept(kept.as_ref());
    eprintln!(
        "recorded {} {key:?} in {}",
        R::ARRAY,
        crate::cli::shown(&layout.root, &layout.results())
    );
    Ok(())
}

/// Says which problems the document already had and still has after a write.
pub fn warn_kept(kept: Option<&data::Report>) {
    if let Some(kept) = kept {
        eprintln!("warning: {}", kept.kept());
    }
}

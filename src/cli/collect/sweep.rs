//! `collect sweep`: a concurrency sweep.

use benchsite::collect::{self, Progress};
use benchsite::project::Layout;
use clap::Args;

use super::flags::{self, LaunchArgs, Notes, ServerArgs, Settings, Writing};
use super::output::record;
use crate::cli::Outcome as CommandOutcome;

#[derive(Debug, Args)]
pub struct SweepArgs {
    /// The sweep's label; its slug is the permanent page unless --id is given.
    #[arg(long)]
    label: String,
    /// The permanent page's slug, when not the label's.
    #[arg(long)]
    id: Option<String>,
    #[command(flatten)]
    params: collect::SweepParams,
    /// The profile the server runs (for the dimensions, and needed by --launch).
    #[arg(long)]
    profile: Option<String>,
    #[command(flatten)]
    set: Settings,
    #[command(flatten)]
    server: ServerArgs,
    #[command(flatten)]
    launch: LaunchArgs,
    /// A dimension of the sweep (repeatable), e.g. --dim mtp=on.
    #[arg(long = "dim", value_name = "KEY=VALUE")]
    dims: Vec<String>,
    /// The weights' precision, for a failure record when the launch fails.
    #[arg(long)]
    precision: Option<String>,
    #[command(flatten)]
    notes: Notes,
    #[command(flatten)]
    writing: Writing,
}

/// Measures the sweep and records it (the finished levels, when it stops early).
pub async fn run(layout: &Layout, args: SweepArgs) -> CommandOutcome {
    let set = args.set.parsed()?;
    anyhow::ensure!(
        args.profile.is_some() || set.is_empty(),
        "--set needs --profile"
    );
    if let Err(unusable) = args.params.usable() {
        anyhow::bail!(unusable.for_flags());
    }
    let port = match &args.profile {
        Some(profile) => args.launch.port(layout, profile, &set)?,
        None => None,
    };
    let options = collect::SweepOptions {
        label: args.label,
        id: args.id.as_deref().map(flags::id).transpose()?,
        params: args.params,
        server: args.server.options(layout, port)?,
        profile: args.profile.map(|name| (name, set)),
        launch: args.launch.options(port)?,
        precision: args.precision,
        dimensions: flags::dimensions(&args.dims)?,
        notes: args.notes.notes,
        today: benchsite::data::Date::today(),
        replace: args.writing.replace,
        request_log: !args.writing.dry_run,
    };
    let progress = Progress::new(options.params.planned_total());
    let outcome = collect::sweep(layout, &options, &progress).await;
    progress.finish();
    record(layout, outcome?, &args.writing, |sweep| {
        format!("sweep {:?}: {} levels", sweep.label, sweep.levels.len())
    })
}

#[cfg(test)]
mod tests {
    use benchsite::collect::defaults;

    use super::super::{CollectCommand, parsed};

    #[test]
    fn defaults_are_the_libraries() {
        let CollectCommand::Sweep(sweep) = parsed(&["sweep", "--label", "s", "--notes", "n"])
        else {
            panic!("not a sweep");
        };
        assert_eq!(sweep.params.levels, [1, 2, 4, 8, 16, 32]);
        assert_eq!(sweep.params.output_tokens, defaults::SWEEP_OUTPUT_TOKENS);
        assert_eq!(sweep.params.prompt_words, defaults::SWEEP_PROMPT_WORDS);
        assert_eq!(sweep.notes.notes.as_deref(), Some("n"));
    }
}

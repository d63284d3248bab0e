//! `collect sweep`: a concurrency sweep.

use benchsite::collect::{self, Progress, defaults};
use benchsite::data::Workload;
use benchsite::project::Layout;
use clap::Args;

use super::flags::{self, LaunchArgs, Notes, ServerArgs, Settings, Thinking, Writing};
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
    /// The concurrency levels.
    #[arg(long, value_delimiter = ',', default_value = "1,2,4,8,16,32")]
    levels: Vec<u64>,
    /// Words per prompt (distinct deterministic text per request).
    #[arg(long, default_value_t = defaults::SWEEP_PROMPT_WORDS)]
    prompt_words: u64,
    /// Tokens per answer.
    #[arg(long, default_value_t = defaults::SWEEP_OUTPUT_TOKENS)]
    output_tokens: u64,
    /// Requests per stream at each level.
    #[arg(long, default_value_t = defaults::SWEEP_ROUNDS)]
    rounds: u64,
    /// Generate every output token even past the end of the answer.
    #[arg(long)]
    ignore_eos: bool,
    #[command(flatten)]
    thinking: Thinking,
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
    let port = match &args.profile {
        Some(profile) => args.launch.port(layout, profile, &set)?,
        None => None,
    };
    let options = collect::SweepOptions {
        label: args.label,
        id: args.id.as_deref().map(flags::id).transpose()?,
        levels: args.levels,
        workload: Workload {
            prompt_words: Some(args.prompt_words),
            prompt_tokens: None,
            output_tokens: args.output_tokens,
            rounds: args.rounds.max(1),
            ignore_eos: args.ignore_eos,
            thinking: args.thinking.thinking,
        },
        server: args.server.options(layout, port)?,
        profile: args.profile.map(|name| (name, set)),
        launch: args.launch.options(),
        precision: args.precision,
        dimensions: flags::dimensions(&args.dims)?,
        notes: args.notes.notes,
        today: benchsite::data::Date::today(),
        replace: args.writing.replace,
    };
    let total: u64 = options
        .levels
        .iter()
        .map(|c| c * options.workload.rounds)
        .sum();
    let progress = Progress::new(total);
    let outcome = collect::sweep(layout, &options, &progress).await;
    progress.finish();
    record(layout, outcome?, &args.writing, |sweep| {
        format!("sweep {:?}: {} levels", sweep.label, sweep.levels.len())
    })
}

#[cfg(test)]
mod tests {
    use super::super::{CollectCommand, parsed};
    use super::*;

    #[test]
    fn defaults_are_the_libraries() {
        let CollectCommand::Sweep(sweep) = parsed(&["sweep", "--label", "s", "--notes", "n"])
        else {
            panic!("not a sweep");
        };
        assert_eq!(sweep.levels, [1, 2, 4, 8, 16, 32]);
        assert_eq!(sweep.output_tokens, defaults::SWEEP_OUTPUT_TOKENS);
        assert_eq!(sweep.prompt_words, defaults::SWEEP_PROMPT_WORDS);
        assert_eq!(sweep.notes.notes.as_deref(), Some("n"));
    }
}

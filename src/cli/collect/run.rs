//! `collect run`: single-stream decode speed of one configuration.

use benchsite::collect::{self, Progress};
use benchsite::project::Layout;
use clap::Args;

use super::flags::{self, LaunchArgs, Notes, ServerArgs, Settings, Writing};
use super::output::record;
use crate::cli::Outcome as CommandOutcome;

#[derive(Debug, Args)]
pub struct RunArgs {
    /// The run's id: a slug, its permanent page.
    #[arg(long)]
    id: String,
    /// The profile the server runs: profiles/NAME.env.
    #[arg(long)]
    profile: String,
    #[command(flatten)]
    set: Settings,
    #[command(flatten)]
    server: ServerArgs,
    #[command(flatten)]
    launch: LaunchArgs,
    /// The model's shape, e.g. "MoE, 35B total / 3B active" (default: an earlier run's).
    #[arg(long)]
    shape: Option<String>,
    /// The weights' precision, e.g. NVFP4 (default: an earlier run's).
    #[arg(long)]
    precision: Option<String>,
    /// The weights' size in GiB (read from vLLM's log with --launch).
    #[arg(long, value_name = "GIB")]
    weights_gib: Option<f64>,
    #[command(flatten)]
    notes: Notes,
    #[command(flatten)]
    params: collect::RunParams,
    /// Record the run even when the server serves another model or context than the profile
    /// names.
    #[arg(long)]
    force: bool,
    #[command(flatten)]
    writing: Writing,
}

/// Measures the run and records it.
pub async fn run(layout: &Layout, args: RunArgs) -> CommandOutcome {
    let set = args.set.parsed()?;
    let port = args.launch.port(layout, &args.profile, &set)?;
    let options = collect::RunOptions {
        id: flags::id(&args.id)?,
        profile: args.profile.clone(),
        overrides: set,
        server: args.server.options(layout, port)?,
        launch: args.launch.options(port)?,
        server_log: None,
        shape: args.shape,
        precision: args.precision,
        weights_gib: args.weights_gib,
        notes: args.notes.notes,
        params: collect::RunParams {
            samples: args.params.samples.max(1),
            ..args.params
        },
        today: benchsite::data::Date::today(),
        replace: args.writing.replace,
        force: args.force,
    };
    let progress = Progress::new(options.params.samples as u64 + 1);
    let outcome = collect::run(layout, &options, &progress).await;
    progress.finish();
    record(layout, outcome?, &args.writing, |run| {
        format!(
            "run {}: {} tok/s (samples {:?}, cold {})",
            run.id,
            run.decode_tok_s,
            run.decode_samples,
            run.decode_cold_sample
                .map_or("not measured".to_owned(), |c| c.to_string())
        )
    })
}

#[cfg(test)]
mod tests {
    use super::super::{CollectCommand, parsed};
    use benchsite::collect::defaults;

    #[test]
    fn defaults_are_the_libraries() {
        let CollectCommand::Run(run) = parsed(&["run", "--id", "a", "--profile", "p"]) else {
            panic!("not a run");
        };
        assert_eq!(run.params.max_tokens, defaults::RUN_MAX_TOKENS);
        assert_eq!(run.params.samples, defaults::RUN_SAMPLES);
    }
}

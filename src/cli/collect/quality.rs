//! `collect capture`, `divergence` and `jitter`: quality drift between configurations and a
//! server's run-to-run noise.

use std::process::ExitCode;

use benchsite::collect::{self, Progress};
use benchsite::data::figures::{Value, divergence};
use benchsite::profiles;
use benchsite::project::Layout;
use clap::Args;

use super::flags::{self, Labelled, LaunchArgs, Notes, ServerArgs, Settings, Writing};
use super::output::{stamped, write};
use crate::cli::Outcome as CommandOutcome;

#[derive(Debug, Args)]
pub struct CaptureArgs {
    /// The capture's id: data/captures/ID.jsonl.gz.
    #[arg(long)]
    id: String,
    /// The root capture whose generations to score (default: this capture's own).
    #[arg(long)]
    reference: Option<String>,
    #[command(flatten)]
    params: collect::CaptureParams,
    #[command(flatten)]
    server: ServerArgs,
    /// The profile the server runs: kept in the capture, so that two captures of the same
    /// settings make a noise floor; needed by --launch.
    #[arg(long)]
    profile: Option<String>,
    #[command(flatten)]
    set: Settings,
    #[command(flatten)]
    launch: LaunchArgs,
    /// Capture again over an existing capture.
    #[arg(long)]
    replace: bool,
}

#[derive(Debug, Args)]
pub struct DivergenceArgs {
    /// The reference side's capture id.
    #[arg(long)]
    a: String,
    /// The other side's capture id.
    #[arg(long)]
    b: String,
    #[command(flatten)]
    record: Labelled,
    #[command(flatten)]
    writing: Writing,
}

#[derive(Debug, Args)]
pub struct JitterArgs {
    /// The record's label.
    #[arg(long)]
    label: String,
    #[command(flatten)]
    params: collect::JitterParams,
    #[command(flatten)]
    server: ServerArgs,
    #[command(flatten)]
    notes: Notes,
    #[command(flatten)]
    writing: Writing,
}

/// Captures a configuration's generations and scorings into its capture file.
pub async fn capture(layout: &Layout, args: CaptureArgs) -> CommandOutcome {
    flags::id(&args.id)?;
    let set = args.set.parsed()?;
    let (profile, port) = match &args.profile {
        Some(name) => (
            Some(profiles::load(&layout.profiles(), name)?.effective(&set)),
            args.launch.port(layout, name, &set)?,
        ),
        None => {
            anyhow::ensure!(
                set.is_empty() && !args.launch.launch,
                "--set and --launch need --profile"
            );
            (None, None)
        }
    };
    let options = collect::CaptureOptions {
        id: args.id,
        reference: args.reference,
        params: collect::CaptureParams {
            concurrency: args.params.concurrency.max(1),
            ..args.params
        },
        server: args.server.options(layout, port)?,
        replace: args.replace,
        profile,
        launch: args.launch.options(port)?,
    };
    let total = collect::prompt_set(&layout.root, &options.params.prompts)?
        .prompts
        .len();
    let progress = Progress::new(total as u64);
    let outcome = collect::capture(&layout.root, &options, &progress).await;
    progress.finish();
    let (path, captured) = outcome?;
    println!(
        "captured {captured} prompts into {}",
        crate::cli::shown(&layout.root, &path)
    );
    Ok(ExitCode::SUCCESS)
}

/// Compares two captures and records the divergence.
pub fn divergence(layout: &Layout, args: DivergenceArgs) -> CommandOutcome {
    let options = collect::DivergenceOptions {
        label: args.record.label,
        id: args.record.id.as_deref().map(flags::id).transpose()?,
        a: args.a,
        b: args.b,
        dimensions: flags::dimensions(&args.record.dims)?,
        notes: args.record.notes.notes,
        today: benchsite::data::Date::today(),
    };
    let record = stamped(layout, collect::divergence(&layout.root, &options)?);
    let line = format!(
        "divergence {:?}: teacher-forced {} {} {}, top-1 agreement {}, {} of {} prompts identical",
        record.label,
        divergence::KLD_MEAN.name(),
        divergence::KLD_MEAN.shown(&Value::Number(record.teacher_forced.kld_mean)),
        divergence::KLD_MEAN.unit,
        divergence::TOP1_AGREE.shown(&Value::Number(record.teacher_forced.top1_agree)),
        record.generation.identical,
        record.generation.prompts
    );
    write(layout, record, &args.writing)?;
    println!("{line}");
    Ok(ExitCode::SUCCESS)
}

/// Measures the server's run-to-run noise and records it.
pub async fn jitter(layout: &Layout, args: JitterArgs) -> CommandOutcome {
    let options = collect::JitterOptions {
        label: args.label,
        params: args.params,
        server: args.server.options(layout, None)?,
        notes: args.notes.notes,
        today: benchsite::data::Date::today(),
    };
    let progress = Progress::new(0);
    let record = collect::jitter(&layout.root, &options, &progress).await;
    progress.finish();
    let record = stamped(layout, record?);
    let line = format!(
        "jitter {:?}: {} {} {} over {} positions, top-1 flip rate {}",
        record.label,
        divergence::JITTER_KLD_MEAN.name(),
        divergence::JITTER_KLD_MEAN.shown(&Value::Number(record.kld_mean)),
        divergence::JITTER_KLD_MEAN.unit,
        record.positions,
        divergence::JITTER_TOP1_FLIP_RATE.shown(&Value::Number(record.top1_flip_rate))
    );
    write(layout, record, &args.writing)?;
    println!("{line}");
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use benchsite::collect::defaults;
    use benchsite::project::PROMPTS;

    use super::super::{CollectCommand, parsed};

    #[test]
    fn each_measurement_has_its_own_defaults() {
        let CollectCommand::Capture(capture) = parsed(&["capture", "--id", "a"]) else {
            panic!("not a capture");
        };
        assert_eq!(capture.params.max_tokens, defaults::CAPTURE_MAX_TOKENS);
        assert_eq!(capture.params.top_k, defaults::TOP_K);
        assert_eq!(capture.params.concurrency, defaults::CAPTURE_CONCURRENCY);
        assert_eq!(capture.params.prompts, PROMPTS);
        let CollectCommand::Jitter(jitter) = parsed(&["jitter", "--label", "j"]) else {
            panic!("not a jitter");
        };
        assert_eq!(jitter.params.max_tokens, defaults::JITTER_MAX_TOKENS);
        assert_eq!(jitter.params.prompts, defaults::JITTER_PROMPTS);
        assert_eq!(jitter.params.repeats, defaults::JITTER_REPEATS);
        assert!(!jitter.params.thinking);
    }
}

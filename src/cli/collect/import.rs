//! `collect import`: results other tools wrote.

use std::path::PathBuf;
use std::process::ExitCode;

use benchsite::collect;
use benchsite::project::Layout;
use clap::{Args, Subcommand};

use super::flags::{self, Labelled, Notes, Writing};
use super::output::{stamped, warn_kept, write};
use crate::cli::Outcome as CommandOutcome;

/// The tools whose result files can be imported.
#[derive(Debug, Subcommand)]
pub enum ImportCommand {
    /// The result files of `vllm bench serve --save-result` (optionally --save-detailed) for
    /// one workload at several --max-concurrency values: one sweep, a level per file.
    VllmBench(ImportArgs),
    /// A guidellm JSON report (`--output json`): each synchronous or concurrent-streams
    /// benchmark is a level of one sweep.
    Guidellm(ImportArgs),
    /// SGLang's `python -m sglang.bench_serving --output-file X.jsonl` (one JSON line per
    /// run, appended) at several --max-concurrency values: a level per line.
    Sglang(ImportArgs),
    /// AIPerf's `profile_export_aiperf.json` or genai-perf's `profile_export_genai_perf.json`,
    /// one file per --concurrency: a level per file.
    Aiperf(ImportArgs),
    /// llama.cpp's `llama-bench -o json` (or jsonl, csv): each tg test a run, its decode
    /// speed the median of its repetitions, with the prompt speed of the pp test of the same
    /// settings; the row's settings go on top of --profile as the run's overrides.
    LlamaBench(LlamaBenchArgs),
}

#[derive(Debug, Args)]
pub struct LlamaBenchArgs {
    /// llama-bench's output files (-o json, jsonl or csv).
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
    /// The run's id; with several tg tests, the start of each run's id, followed by what
    /// tells them apart (tg128, d4096, fa-1).
    #[arg(long)]
    id: String,
    /// The configuration's profile, profiles/NAME.env: its MODEL is the checkpoint.
    #[arg(long)]
    profile: String,
    /// The model's shape, e.g. "Dense, 8B" (default: llama-bench's architecture and size).
    #[arg(long)]
    shape: Option<String>,
    #[command(flatten)]
    notes: Notes,
    /// Record the runs even when llama-bench's model file is not the profile's MODEL.
    #[arg(long)]
    force: bool,
    #[command(flatten)]
    writing: Writing,
}

#[derive(Debug, Args)]
pub struct ImportArgs {
    /// The result files (vllm bench: JSON, or JSON lines from --append-result; guidellm: its
    /// JSON report).
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
    /// The benchmark was run with ignore_eos (`vllm bench serve --ignore-eos`): its result
    /// files do not say.
    #[arg(long)]
    ignore_eos: bool,
    #[command(flatten)]
    record: Labelled,
    #[command(flatten)]
    writing: Writing,
}

/// Imports the files (one sweep, or llama-bench's runs) and records them.
pub fn run(layout: &Layout, command: ImportCommand) -> CommandOutcome {
    let (tool, args) = match command {
        ImportCommand::VllmBench(args) => (collect::ImportTool::VllmBench, args),
        ImportCommand::Guidellm(args) => (collect::ImportTool::Guidellm, args),
        ImportCommand::Sglang(args) => (collect::ImportTool::Sglang, args),
        ImportCommand::Aiperf(args) => (collect::ImportTool::Aiperf, args),
        ImportCommand::LlamaBench(args) => return llama_bench(layout, args),
    };
    let options = collect::ImportOptions {
        label: args.record.label,
        id: args.record.id.as_deref().map(flags::id).transpose()?,
        files: args.files.iter().map(|f| layout.root.join(f)).collect(),
        notes: args.record.notes.notes,
        today: benchsite::data::Date::today(),
        dimensions: flags::dimensions(&args.record.dims)?,
        request_log: !args.writing.dry_run,
        ignore_eos: args.ignore_eos,
    };
    let sweep = collect::import(&layout.root, tool, &options)?;
    let line = format!(
        "sweep {:?}: {} levels imported ({})",
        sweep.label,
        sweep.levels.len(),
        sweep.source.as_deref().unwrap_or_default()
    );
    write(layout, sweep, &args.writing)?;
    println!("{line}");
    Ok(ExitCode::SUCCESS)
}

/// Imports llama-bench's tg tests as runs, written together or not at all.
fn llama_bench(layout: &Layout, args: LlamaBenchArgs) -> CommandOutcome {
    let options = collect::LlamaBenchOptions {
        id: flags::id(&args.id)?,
        profile: args.profile,
        files: args.files.iter().map(|f| layout.root.join(f)).collect(),
        shape: args.shape,
        notes: args.notes.notes,
        today: benchsite::data::Date::today(),
        force: args.force,
    };
    let imported = collect::import_llama_bench(layout, &options)?;
    for warning in &imported.warnings {
        eprintln!("warning: {warning}");
    }
    let runs: Vec<_> = imported
        .runs
        .into_iter()
        .map(|run| stamped(layout, run))
        .collect();
    let lines: Vec<String> = runs
        .iter()
        .map(|run| {
            let prompt = run.prompt_tok_s.map_or(String::new(), |p| {
                format!(
                    ", prompt {p} tok/s at {} tokens",
                    run.prompt_tokens.unwrap_or(0)
                )
            });
            format!(
                "run {}: {} tok/s (samples {:?}{prompt})",
                run.id, run.decode_tok_s, run.decode_samples
            )
        })
        .collect();
    if args.writing.dry_run {
        for run in &runs {
            println!("{}", collect::to_json(run));
        }
        return Ok(ExitCode::SUCCESS);
    }
    let keys: Vec<String> = runs.iter().map(|run| run.id.to_string()).collect();
    let kept = collect::save_all(layout, runs, args.writing.replace)?;
    warn_kept(kept.as_ref());
    eprintln!(
        "recorded runs {} in {}",
        keys.join(", "),
        crate::cli::shown(&layout.root, &layout.results())
    );
    for line in lines {
        println!("{line}");
    }
    Ok(ExitCode::SUCCESS)
}

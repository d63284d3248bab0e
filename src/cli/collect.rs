//! `benchsite collect`: measure a running server and record the results.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use benchsite::collect::{self, LaunchOptions, Outcome, Progress, ServerOptions};
use benchsite::data::{self, FailureStatus, Id, Record, Workload};
use benchsite::profiles::{self, Launcher, Setting};
use benchsite::project::Layout;
use benchsite::scaffold;
use clap::{Args, Subcommand, ValueEnum};
use serde::Serialize;

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
    Run(Box<RunArgs>),
    /// A concurrency sweep: at each level, concurrency × rounds requests with exactly
    /// concurrency in flight.
    Sweep(Box<SweepArgs>),
    /// Capture a configuration's generations and teacher-forced scorings of a prompt set,
    /// for divergence against a reference.
    Capture(Box<CaptureArgs>),
    /// Compare two captures of the same reference: a divergence record.
    Divergence(DivergenceArgs),
    /// Run-to-run noise of one server: the same continuations scored repeatedly.
    Jitter(Box<JitterArgs>),
    /// Fill `hardware` from nvidia-smi, /proc/meminfo, the CPU count, /etc/os-release and the
    /// container runtime.
    Hardware {
        /// Print the hardware instead of writing it.
        #[arg(long)]
        dry_run: bool,
    },
    /// Record by hand a configuration that did not run.
    Failure(FailureArgs),
    /// Import results other tools wrote, as records of this report.
    #[command(subcommand)]
    Import(ImportCommand),
}

/// The tools whose result files can be imported.
#[derive(Debug, Subcommand)]
enum ImportCommand {
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
}

#[derive(Debug, Args)]
struct ImportArgs {
    /// The result files (vllm bench: JSON, or JSON lines from --append-result; guidellm: its
    /// JSON report).
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
    #[command(flatten)]
    record: Labelled,
    #[command(flatten)]
    writing: Writing,
}

/// What names and describes a labelled record made from files, not a server.
#[derive(Debug, Args)]
struct Labelled {
    /// The record's label; its slug is the permanent page unless --id is given.
    #[arg(long)]
    label: String,
    /// The permanent page's slug, when not the label's.
    #[arg(long)]
    id: Option<String>,
    /// A dimension (repeatable), e.g. --dim kv=fp8.
    #[arg(long = "dim", value_name = "KEY=VALUE")]
    dims: Vec<String>,
    /// Free text for the record.
    #[arg(long)]
    notes: Option<String>,
}

/// How to reach the server.
#[derive(Debug, Args)]
struct ServerArgs {
    /// The server (default: [collect] base_url of benchsite.toml; with --launch, the
    /// profile's port on 127.0.0.1).
    #[arg(long, value_name = "URL")]
    base_url: Option<String>,
    /// The model to ask for (default: the first the server lists).
    #[arg(long)]
    model: Option<String>,
    /// Seconds one request may take (default: [collect] request_timeout_s, 600).
    #[arg(long, value_name = "SECONDS")]
    timeout: Option<f64>,
    /// A PEM file of the certificate authorities an https:// server's certificate may be
    /// signed by (a private CA), beside the system's.
    #[arg(long, value_name = "FILE")]
    ca_cert: Option<std::path::PathBuf>,
}

/// Starting the server from its profile.
#[derive(Debug, Args)]
struct LaunchArgs {
    /// Start the server from the profile, wait until it is ready, stop it afterwards; a
    /// server that does not come up is recorded as a failure.
    #[arg(long)]
    launch: bool,
    /// How the server is started.
    #[arg(long, value_enum, default_value_t = LauncherArg::Podman)]
    launcher: LauncherArg,
    /// A program to run in place of podman or vllm, with the same arguments.
    #[arg(long, value_name = "PATH", env = "BENCHSITE_LAUNCH_PROGRAM")]
    launch_program: Option<String>,
    /// Seconds the server may take to become ready.
    #[arg(long, default_value_t = 900.0, value_name = "SECONDS")]
    ready_timeout: f64,
    /// Seconds the server may take to stop before it is killed.
    #[arg(long, default_value_t = 30.0, value_name = "SECONDS")]
    stop_timeout: f64,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum LauncherArg {
    /// podman with the profile's IMAGE.
    Podman,
    /// vllm serve on this machine.
    Local,
}

/// How a record is written.
#[derive(Debug, Args)]
struct Writing {
    /// Replace a record with the same id or label.
    #[arg(long)]
    replace: bool,
    /// Print the record instead of writing it.
    #[arg(long)]
    dry_run: bool,
}

#[derive(Debug, Args)]
struct RunArgs {
    /// The run's id: a slug, its permanent page.
    #[arg(long)]
    id: String,
    /// The profile the server runs: profiles/NAME.env.
    #[arg(long)]
    profile: String,
    /// A setting on top of the profile (repeatable); EXTRA_ARGS=... takes the whole value.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
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
    /// The weights' size in GB (read from the log with --launch).
    #[arg(long, value_name = "GB")]
    weights_gb: Option<f64>,
    /// Free text for the record.
    #[arg(long)]
    notes: Option<String>,
    /// Samples after the cold request.
    #[arg(long, default_value_t = 3)]
    samples: usize,
    /// Tokens per request.
    #[arg(long, default_value_t = 300)]
    max_tokens: u64,
    /// The prompt (default: method.prompt of the results document).
    #[arg(long)]
    prompt: Option<String>,
    /// Record the run even when the server serves another model than the profile names.
    #[arg(long)]
    force: bool,
    #[command(flatten)]
    writing: Writing,
}

#[derive(Debug, Args)]
struct SweepArgs {
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
    #[arg(long, default_value_t = 700)]
    prompt_words: u64,
    /// Tokens per answer.
    #[arg(long, default_value_t = 256)]
    output_tokens: u64,
    /// Requests per stream at each level.
    #[arg(long, default_value_t = 2)]
    rounds: u64,
    /// Generate every output token even past the end of the answer.
    #[arg(long)]
    ignore_eos: bool,
    /// Leave the chat template's thinking on.
    #[arg(long)]
    thinking: bool,
    /// The profile the server runs (for the dimensions, and needed by --launch).
    #[arg(long)]
    profile: Option<String>,
    /// A setting on top of the profile (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
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
    /// Free text for the record.
    #[arg(long)]
    notes: Option<String>,
    #[command(flatten)]
    writing: Writing,
}

#[derive(Debug, Args)]
struct CaptureArgs {
    /// The capture's id: data/captures/ID.jsonl.gz.
    #[arg(long)]
    id: String,
    /// The root capture whose generations to score (default: this capture's own).
    #[arg(long)]
    reference: Option<String>,
    /// The prompt set.
    #[arg(long, default_value = "data/prompts.jsonl")]
    prompts: String,
    /// Top-k logprobs per position (vLLM caps it at --max-logprobs, 20 by default).
    #[arg(long, default_value_t = 20)]
    top_k: u64,
    /// Tokens generated per prompt.
    #[arg(long, default_value_t = 256)]
    max_tokens: u64,
    /// Requests in flight.
    #[arg(long, default_value_t = 4)]
    concurrency: usize,
    /// Leave the chat template's thinking on.
    #[arg(long)]
    thinking: bool,
    #[command(flatten)]
    server: ServerArgs,
    /// Capture again over an existing capture.
    #[arg(long)]
    replace: bool,
}

#[derive(Debug, Args)]
struct DivergenceArgs {
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
struct JitterArgs {
    /// The record's label.
    #[arg(long)]
    label: String,
    /// How many prompts of the set (the first ones).
    #[arg(long, default_value_t = 8)]
    prompts: usize,
    /// Scorings of each continuation.
    #[arg(long, default_value_t = 4)]
    repeats: usize,
    /// Tokens per continuation.
    #[arg(long, default_value_t = 128)]
    max_tokens: u64,
    /// Top-k logprobs per position.
    #[arg(long, default_value_t = 20)]
    top_k: u64,
    /// The prompt set.
    #[arg(long, default_value = "data/prompts.jsonl")]
    prompt_set: String,
    /// Leave the chat template's thinking on.
    #[arg(long)]
    thinking: bool,
    #[command(flatten)]
    server: ServerArgs,
    /// Free text for the record.
    #[arg(long)]
    notes: Option<String>,
    #[command(flatten)]
    writing: Writing,
}

#[derive(Debug, Args)]
struct FailureArgs {
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
    /// The weights' size in GB.
    #[arg(long, value_name = "GB")]
    weights_gb: Option<f64>,
    /// The overrides tried, as KEY=VALUE pairs.
    #[arg(long)]
    config: Option<String>,
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

pub fn run(root: &Path, args: CollectArgs) -> CommandOutcome {
    let layout = Layout::for_machine(root, args.machine.as_deref())?;
    // A machine newly declared in benchsite.toml starts with an empty document.
    if args.machine.is_some() && !layout.results().exists() {
        data::save(&layout.results(), &data::Results::empty(scaffold::today()))?;
        eprintln!("created {}", super::shown(&layout.root, &layout.results()));
    }
    match args.command {
        CollectCommand::Hardware { dry_run } => hardware(&layout, dry_run),
        CollectCommand::Failure(args) => failure(&layout, args),
        CollectCommand::Run(args) => runtime()?.block_on(decode(&layout, *args)),
        CollectCommand::Sweep(args) => runtime()?.block_on(sweep(&layout, *args)),
        CollectCommand::Capture(args) => runtime()?.block_on(capture(&layout, *args)),
        CollectCommand::Divergence(args) => divergence(&layout, args),
        CollectCommand::Jitter(args) => runtime()?.block_on(jitter(&layout, *args)),
        CollectCommand::Import(ImportCommand::VllmBench(args)) => {
            import(&layout, collect::ImportTool::VllmBench, args)
        }
        CollectCommand::Import(ImportCommand::Guidellm(args)) => {
            import(&layout, collect::ImportTool::Guidellm, args)
        }
        CollectCommand::Import(ImportCommand::Sglang(args)) => {
            import(&layout, collect::ImportTool::Sglang, args)
        }
        CollectCommand::Import(ImportCommand::Aiperf(args)) => {
            import(&layout, collect::ImportTool::Aiperf, args)
        }
    }
}

fn import(layout: &Layout, tool: collect::ImportTool, args: ImportArgs) -> CommandOutcome {
    let options = collect::ImportOptions {
        label: args.record.label,
        id: args.record.id.as_deref().map(id).transpose()?,
        files: args.files.iter().map(|f| layout.root.join(f)).collect(),
        notes: args.record.notes,
        today: scaffold::today(),
        dimensions: dimensions(&args.record.dims)?,
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

fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")
}

fn overrides(set: &[String]) -> anyhow::Result<Vec<Setting>> {
    set.iter()
        .map(|text| profiles::parse_set(text))
        .collect::<Result<Vec<_>, _>>()
        .context("invalid --set")
}

fn server_options(
    layout: &Layout,
    args: &ServerArgs,
    launch_port: Option<u16>,
) -> anyhow::Result<ServerOptions> {
    let config = benchsite::config::load(&layout.root)?;
    let base_url = match (&args.base_url, launch_port) {
        (Some(url), _) => url.clone(),
        (None, Some(port)) => format!("http://127.0.0.1:{port}"),
        (None, None) => config.collect.base_url.clone(),
    };
    let seconds = args.timeout.unwrap_or(config.collect.request_timeout_s);
    anyhow::ensure!(
        seconds > 0.0 && seconds.is_finite(),
        "--timeout: expected a positive number of seconds"
    );
    Ok(ServerOptions {
        base_url,
        model: args.model.clone(),
        api_key: collect::Client::api_key_from_env(),
        timeout: Duration::from_secs_f64(seconds),
        ca_cert: args.ca_cert.clone(),
    })
}

fn launch_options(args: &LaunchArgs) -> Option<LaunchOptions> {
    args.launch.then(|| LaunchOptions {
        launcher: match args.launcher {
            LauncherArg::Podman => Launcher::Podman,
            LauncherArg::Local => Launcher::Local,
        },
        program: args.launch_program.clone(),
        ready_timeout: Duration::from_secs_f64(args.ready_timeout),
        stop_timeout: Duration::from_secs_f64(args.stop_timeout),
    })
}

/// The port a launched server of the profile listens on.
fn launch_port(layout: &Layout, profile: &str, set: &[Setting]) -> anyhow::Result<u16> {
    Ok(profiles::load(&layout.profiles(), profile)?
        .effective(set)
        .port())
}

fn id(text: &str) -> anyhow::Result<Id> {
    Id::new(text).map_err(|message| anyhow::anyhow!("--id: {message}"))
}

async fn decode(layout: &Layout, args: RunArgs) -> CommandOutcome {
    let set = overrides(&args.set)?;
    let port = if args.launch.launch {
        Some(launch_port(layout, &args.profile, &set)?)
    } else {
        None
    };
    let options = collect::RunOptions {
        id: id(&args.id)?,
        profile: args.profile.clone(),
        overrides: set,
        server: server_options(layout, &args.server, port)?,
        launch: launch_options(&args.launch),
        server_log: None,
        shape: args.shape,
        precision: args.precision,
        weights_gb: args.weights_gb,
        notes: args.notes,
        samples: args.samples.max(1),
        max_tokens: args.max_tokens,
        prompt: args.prompt,
        today: scaffold::today(),
        replace: args.writing.replace,
        force: args.force,
    };
    let progress = Progress::new(options.samples as u64 + 1);
    let outcome = collect::run(layout, &options, &progress).await;
    progress.finish();
    record(layout, outcome?, &args.writing, |run| {
        format!(
            "run {}: {} tok/s (samples {:?}, cold {})",
            run.id, run.decode_tok_s, run.decode_samples, run.decode_cold_sample
        )
    })
}

async fn sweep(layout: &Layout, args: SweepArgs) -> CommandOutcome {
    let set = overrides(&args.set)?;
    anyhow::ensure!(
        args.profile.is_some() || set.is_empty(),
        "--set needs --profile"
    );
    let port = match (&args.profile, args.launch.launch) {
        (Some(profile), true) => Some(launch_port(layout, profile, &set)?),
        _ => None,
    };
    let dims = dimensions(&args.dims)?;
    let options = collect::SweepOptions {
        label: args.label,
        id: args.id.as_deref().map(id).transpose()?,
        levels: args.levels,
        workload: Workload {
            prompt_words: Some(args.prompt_words),
            prompt_tokens: None,
            output_tokens: args.output_tokens,
            rounds: args.rounds.max(1),
            ignore_eos: args.ignore_eos,
            thinking: args.thinking,
        },
        server: server_options(layout, &args.server, port)?,
        profile: args.profile.map(|name| (name, set)),
        launch: launch_options(&args.launch),
        precision: args.precision,
        dimensions: dims,
        notes: args.notes,
        today: scaffold::today(),
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

/// Writes (or prints) what a measurement gave, and says so.
fn record<R: Record + Serialize>(
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
fn stamped<R: Record>(layout: &Layout, mut record: R) -> R {
    *record.provenance() = Some(collect::provenance(&layout.root, None));
    record
}

fn write<R: Record + Serialize>(
    layout: &Layout,
    record: R,
    writing: &Writing,
) -> anyhow::Result<()> {
    if writing.dry_run {
        println!("{}", collect::to_json(&record));
        return Ok(());
    }
    let key = record.key().to_owned();
    collect::save(layout, record, writing.replace)?;
    eprintln!(
        "recorded {} {key:?} in {}",
        R::ARRAY,
        super::shown(&layout.root, &layout.results())
    );
    Ok(())
}

fn hardware(layout: &Layout, dry_run: bool) -> CommandOutcome {
    let found = collect::hardware();
    for warning in &found.warnings {
        eprintln!("warning: {warning}");
    }
    if dry_run {
        println!("{}", collect::to_json(&found.hardware));
        return Ok(ExitCode::SUCCESS);
    }
    data::update(&layout.results(), |doc| {
        collect::merge(&mut doc.hardware, found.hardware);
        Ok(())
    })?;
    eprintln!(
        "recorded hardware in {}",
        super::shown(&layout.root, &layout.results())
    );
    Ok(ExitCode::SUCCESS)
}

fn failure(layout: &Layout, args: FailureArgs) -> CommandOutcome {
    let record = data::Failure {
        id: id(&args.id)?,
        checkpoint: args.checkpoint,
        precision: args.precision,
        weights_gb: args.weights_gb,
        status: args.status,
        config: args.config.filter(|c| !c.trim().is_empty()),
        reason: args.reason,
        log: None,
        provenance: None,
    };
    write(layout, record, &args.writing)?;
    Ok(ExitCode::SUCCESS)
}

fn dimensions(dims: &[String]) -> anyhow::Result<Vec<(String, String)>> {
    dims.iter()
        .map(|text| {
            text.split_once('=')
                .map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned()))
                .with_context(|| format!("--dim {text}: expected KEY=VALUE"))
        })
        .collect()
}

async fn capture(layout: &Layout, args: CaptureArgs) -> CommandOutcome {
    id(&args.id)?;
    let options = collect::CaptureOptions {
        id: args.id,
        reference: args.reference,
        prompts: args.prompts,
        top_k: args.top_k,
        max_tokens: args.max_tokens,
        concurrency: args.concurrency,
        thinking: args.thinking,
        server: server_options(layout, &args.server, None)?,
        replace: args.replace,
    };
    let total = collect::prompt_set(&layout.root, &options.prompts)?
        .prompts
        .len();
    let progress = Progress::new(total as u64);
    let outcome = collect::capture(&layout.root, &options, &progress).await;
    progress.finish();
    let (path, captured) = outcome?;
    println!(
        "captured {captured} prompts into {}",
        super::shown(&layout.root, &path)
    );
    Ok(ExitCode::SUCCESS)
}

fn divergence(layout: &Layout, args: DivergenceArgs) -> CommandOutcome {
    let options = collect::DivergenceOptions {
        label: args.record.label,
        id: args.record.id.as_deref().map(id).transpose()?,
        a: args.a,
        b: args.b,
        dimensions: dimensions(&args.record.dims)?,
        notes: args.record.notes,
        today: scaffold::today(),
    };
    let record = stamped(layout, collect::divergence(&layout.root, &options)?);
    let line = format!(
        "divergence {:?}: teacher-forced kld_mean {}, top-1 agreement {}, {} of {} prompts identical",
        record.label,
        record.teacher_forced.kld_mean,
        record.teacher_forced.top1_agree,
        record.generation.identical,
        record.generation.prompts
    );
    write(layout, record, &args.writing)?;
    println!("{line}");
    Ok(ExitCode::SUCCESS)
}

async fn jitter(layout: &Layout, args: JitterArgs) -> CommandOutcome {
    let options = collect::JitterOptions {
        label: args.label,
        prompt_set: args.prompt_set,
        prompts: args.prompts,
        repeats: args.repeats,
        max_tokens: args.max_tokens,
        top_k: args.top_k,
        thinking: args.thinking,
        server: server_options(layout, &args.server, None)?,
        notes: args.notes,
        today: scaffold::today(),
    };
    let progress = Progress::new(0);
    let record = collect::jitter(&layout.root, &options, &progress).await;
    progress.finish();
    let record = stamped(layout, record?);
    let line = format!(
        "jitter {:?}: kld_mean {} over {} positions, top-1 flip rate {}",
        record.label, record.kld_mean, record.positions, record.top1_flip_rate
    );
    write(layout, record, &args.writing)?;
    println!("{line}");
    Ok(ExitCode::SUCCESS)
}

//! `campaign run`: for each configuration with jobs to do, start its server from the
//! profile, wait until it is ready, run its jobs, each record written at once through the
//! atomic writer, and stop the server, keeping its log compressed. A server that does not come
//! up or dies becomes a failure record and the campaign goes on; Ctrl-C stops the server and
//! keeps every finished record, and a second `campaign run` does only what is left.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use indicatif::{MultiProgress, ProgressBar, ProgressStyle};

use super::error::CampaignError;
use super::plan::{self, Job, Kind, Status};
use super::spec::{Campaign, Configuration};
use crate::collect::{self, CollectError, Outcome, Phase, Progress, ServerOptions};
use crate::data::figures::{Value, divergence};
use crate::data::{self, Date, Failure, Id, Record};
use crate::profiles::{self, Launcher};
use crate::project::{Layout, ProfileChecks};

/// How `campaign run` runs.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// Only the jobs whose configuration id or job id matches one of these globs.
    pub only: Vec<globset::GlobMatcher>,
    /// Run the jobs of configurations with a failure record again.
    pub retry_failed: bool,
    /// Print what would run and start nothing.
    pub dry_run: bool,
    /// A program to run in place of podman or the engine's program, with the same arguments.
    pub launch_program: Option<String>,
    /// How servers are started, in place of the campaign's `[launch] launcher`.
    pub launcher: Option<Launcher>,
    /// How long a server may take to become ready, in place of the campaign's.
    pub ready_timeout: Option<Duration>,
    /// How long one request may take.
    pub request_timeout: Duration,
    /// Start each server on a free port, whatever its profile names: for runs that share a
    /// machine (Slurm tasks on one node).
    pub free_port: bool,
    /// The date of the records.
    pub today: Date,
}

/// What a campaign run did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Summary {
    /// Jobs measured and recorded.
    pub done: usize,
    /// Jobs whose configuration's server did not come up or died.
    pub failed: usize,
    /// Jobs that could not be measured (a request or a file failed) and stay pending.
    pub errors: usize,
    /// Jobs not run: done before, failed before, in conflict, or not selected.
    pub skipped: usize,
    /// Wall time.
    pub wall: Duration,
    /// Whether Ctrl-C stopped it.
    pub interrupted: bool,
    /// The wall time spent neither measuring nor starting and stopping servers: planning,
    /// reading and writing documents, compressing logs.
    pub overhead: Duration,
    /// The problems the document had before the campaign wrote into it and still has.
    pub kept: Option<data::Report>,
}

impl Summary {
    /// The campaign's own time per job it ran.
    pub fn overhead_per_job(&self) -> Option<Duration> {
        let jobs = self.done + self.errors;
        (jobs > 0).then(|| self.overhead / jobs as u32)
    }
}

/// What every job of a run shares.
struct Session<'a> {
    layout: &'a Layout,
    campaign: &'a Campaign,
    options: &'a RunOptions,
    /// Where the records are measured, found once.
    provenance: data::Provenance,
    /// Time spent measuring and starting and stopping servers.
    inside: std::cell::Cell<Duration>,
    /// The problems the document had and still has, as its last write found them.
    kept: std::cell::RefCell<Option<data::Report>>,
}

impl Session<'_> {
    /// Runs `work`, counting its time as measurement.
    async fn timed<T>(&self, work: impl std::future::Future<Output = T>) -> T {
        let started = Instant::now();
        let result = work.await;
        self.inside.set(self.inside.get() + started.elapsed());
        result
    }

    /// Writes `record` with the campaign's provenance through the atomic writer.
    fn save<R: Record>(&self, mut record: R, replace: bool) -> Result<(), CampaignError> {
        *record.provenance() = Some(self.provenance.clone());
        let kept = collect::save(self.layout, record, replace)?;
        self.kept.replace(kept);
        Ok(())
    }
}

/// Runs the selected jobs of `campaign` on the machine of `layout`; see the module
/// documentation.
pub async fn run(
    layout: &Layout,
    machine: &str,
    campaign: &Campaign,
    options: &RunOptions,
) -> Result<Summary, CampaignError> {
    let started = Instant::now();
    let session = Session {
        layout,
        campaign,
        options,
        provenance: collect::provenance(&layout.root, Some(&campaign.name)),
        inside: std::cell::Cell::new(Duration::ZERO),
        kept: std::cell::RefCell::new(None),
    };
    let doc = data::load(&layout.results())?;
    let jobs = plan::jobs(campaign, machine, &data::Keys::of(&doc), &layout.root);
    let selected: Vec<&Job> = jobs
        .iter()
        .filter(|job| chosen(job, campaign, options))
        .collect();
    let mut summary = Summary {
        skipped: jobs.len() - selected.len(),
        ..Summary::default()
    };
    only_matches(campaign, machine, &jobs, options)?;
    let launcher = options.launcher.unwrap_or(campaign.launch.launcher);
    let board = Board::new(selected.len(), options.dry_run);
    // Listening from the start: a Ctrl-C (or SIGTERM) between two jobs is heard at the next.
    let mut ctrl_c = collect::Stop::listen().map_err(|error| {
        CampaignError::Usage(format!("cannot listen for Ctrl-C and SIGTERM: {error}"))
    })?;
    for (index, group) in by_configuration(selected) {
        if ctrl_c.heard() {
            summary.interrupted = true;
            break;
        }
        let config = &campaign.configurations[index];
        let effective =
            profiles::load(&layout.profiles(), &config.profile)?.effective(&config.settings);
        let command = effective.launch_command(launcher)?;
        if options.dry_run {
            print_dry_run(config, &command, &group);
            continue;
        }
        let log = collect::log_path(layout, config.id.as_str());
        let (server, started) = start(&session, config, &effective, launcher, &log, &board).await;
        let mut launched = match started {
            Ok(Ok(launched)) => launched,
            Ok(Err(diagnosis)) => {
                record_failure(&session, config, &effective, &doc, diagnosis, &log)?;
                board.line(&format!(
                    "{}: the server did not come up; recorded as a failure",
                    config.id
                ));
                summary.failed += group.len();
                board.advance(group.len());
                continue;
            }
            Err(CollectError::Interrupted) => {
                summary.interrupted = true;
                break;
            }
            Err(error) => {
                return Err(CampaignError::Usage(format!("{}: {error}", config.id)));
            }
        };
        let died = run_group(
            &session,
            config,
            &group,
            (&server, &log),
            &mut launched,
            &mut ctrl_c,
            &board,
            &mut summary,
        )
        .await;
        session.timed(launched.shut_down()).await;
        drop(launched);
        match died {
            Some(diagnosis) => {
                record_failure(&session, config, &effective, &doc, diagnosis, &log)?;
                board.line(&format!(
                    "{}: the server died; recorded as a failure",
                    config.id
                ));
            }
            None => mended(&session, machine, index, &log, summary.interrupted, &board)?,
        }
    }
    board.clear();
    summary.wall = started.elapsed();
    summary.overhead = summary.wall.saturating_sub(session.inside.get());
    summary.kept = session.kept.take();
    Ok(summary)
}

/// What `--dry-run` says of one configuration: the server it would start and its jobs.
fn print_dry_run(config: &Configuration, command: &impl std::fmt::Display, group: &[&Job]) {
    println!(
        "{} (profile {}): would start {}",
        config.id, config.profile, command
    );
    for job in group {
        println!("  {} → {}", job.id, job.command);
    }
}

/// A configuration whose server lived through its jobs: its log compressed and, under
/// `--retry-failed`, the failure it mends forgotten.
fn mended(
    session: &Session,
    machine: &str,
    index: usize,
    log: &Path,
    interrupted: bool,
    board: &Board,
) -> Result<(), CampaignError> {
    compress(log)?;
    if session.options.retry_failed && !interrupted {
        forget_mended_failure(session, machine, index, board)?;
    }
    Ok(())
}

/// Starts a configuration's server, its progress on the board: where it answers, and
/// whether it came up.
async fn start(
    session: &Session<'_>,
    config: &Configuration,
    effective: &profiles::Effective,
    launcher: Launcher,
    log: &Path,
    board: &Board,
) -> (
    ServerOptions,
    Result<Result<collect::Launched, collect::Diagnosis>, CollectError>,
) {
    let (server, launch) =
        server_and_launch(session.campaign, session.options, launcher, effective);
    let progress = board.job(0);
    board.line(&format!("{}: starting its server", config.id));
    let started = session
        .timed(collect::launch(effective, &launch, log, &server, &progress))
        .await;
    progress.finish();
    (server, started)
}

/// Where a configuration's server answers and how it is started and stopped.
fn server_and_launch(
    campaign: &Campaign,
    options: &RunOptions,
    launcher: Launcher,
    effective: &profiles::Effective,
) -> (ServerOptions, collect::LaunchOptions) {
    let port = match options.free_port {
        true => collect::free_port().unwrap_or_else(|| effective.port()),
        false => collect::launch_port(effective),
    };
    let server = ServerOptions {
        base_url: format!("http://127.0.0.1:{port}"),
        model: None,
        api_key: collect::Client::api_key_from_env(),
        timeout: options.request_timeout,
        ca_cert: None,
    };
    let launch = collect::LaunchOptions {
        launcher,
        program: options.launch_program.clone(),
        ready_timeout: options
            .ready_timeout
            .unwrap_or_else(|| Duration::from_secs_f64(campaign.launch.ready_timeout_s)),
        stop_timeout: Duration::from_secs_f64(campaign.launch.stop_timeout_s),
        port: Some(port),
    };
    (server, launch)
}

/// Records the configuration as a failure with its diagnosis and log.
fn record_failure(
    session: &Session<'_>,
    config: &Configuration,
    effective: &profiles::Effective,
    doc: &data::Results,
    diagnosis: collect::Diagnosis,
    log: &Path,
) -> Result<(), CampaignError> {
    let failure = failure(session, config, effective, doc, diagnosis, log)?;
    session.save(failure, true)
}

/// With `--only`, at least one job of the campaign must match.
fn only_matches(
    campaign: &Campaign,
    machine: &str,
    jobs: &[Job],
    options: &RunOptions,
) -> Result<(), CampaignError> {
    if options.only.is_empty()
        || jobs
            .iter()
            .any(|job| selected_by(job, campaign, &options.only))
    {
        return Ok(());
    }
    Err(CampaignError::Usage(format!(
        "--only matches no job of campaign {} (its configurations: {})",
        campaign.name,
        campaign
            .configurations
            .iter()
            .filter(|c| c.machine == machine)
            .map(|c| c.id.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    )))
}

/// The jobs in runs of one configuration each, in order: a server per run.
fn by_configuration(selected: Vec<&Job>) -> Vec<(usize, Vec<&Job>)> {
    let mut groups: Vec<(usize, Vec<&Job>)> = Vec::new();
    for job in selected {
        match groups.last_mut() {
            Some((config, group)) if *config == job.config => group.push(job),
            _ => groups.push((job.config, vec![job])),
        }
    }
    groups
}

/// Runs a configuration's jobs against its launched server, counting each in `summary`;
/// the diagnosis when the server died under one of them (its remaining jobs count as failed).
#[allow(clippy::too_many_arguments)]
async fn run_group(
    session: &Session<'_>,
    config: &Configuration,
    group: &[&Job],
    (server, log): (&ServerOptions, &Path),
    launched: &mut collect::Launched,
    ctrl_c: &mut collect::Stop,
    board: &Board,
    summary: &mut Summary,
) -> Option<collect::Diagnosis> {
    let mut died = None;
    let mut finished = 0;
    for (n, job) in group.iter().enumerate() {
        let progress = board.job(0);
        progress.step(&job.id);
        // Ctrl-C drops the job unfinished: nothing of it is written, and it stays pending.
        let result = tokio::select! {
            biased;
            _ = ctrl_c.recv() => None,
            result = execute(session, config, job, server, log, &progress) => Some(result),
        };
        progress.finish();
        // Either listener may hear Ctrl-C first: this one, or the measurement's own.
        let result = match result {
            Some(Err(CampaignError::Collect(CollectError::Interrupted))) | None => None,
            other => other,
        };
        let Some(result) = result else {
            summary.interrupted = true;
            break;
        };
        match result {
            Ok(line) => {
                summary.done += 1;
                finished += 1;
                board.line(&format!("{}: {line}", job.id));
            }
            Err(error) => {
                if let Some(what) = session.timed(launched.died(server)).await {
                    let served = if finished == 0 {
                        String::new()
                    } else {
                        format!(" after {finished} finished job(s)")
                    };
                    died = Some(launched.diagnose(
                        Phase::FirstRequest,
                        &format!("{what} during {}{served} (the error: “{error}”)", job.id),
                    ));
                    summary.failed += group.len() - n;
                    board.advance(group.len() - n);
                    break;
                }
                summary.errors += 1;
                board.line(&format!("{}: error: {error}", job.id));
            }
        }
        board.advance(1);
    }
    died
}

/// A configuration that failed before and now measured in full is no failure: its failure
/// record goes.
fn forget_mended_failure(
    session: &Session<'_>,
    machine: &str,
    index: usize,
    board: &Board,
) -> Result<(), CampaignError> {
    let (layout, campaign) = (session.layout, session.campaign);
    let config = &campaign.configurations[index];
    let now = data::load(&layout.results())?;
    let left = plan::jobs(campaign, machine, &data::Keys::of(&now), &layout.root)
        .iter()
        .any(|j| j.config == index && j.status != Status::Done);
    if !left && now.failures.iter().any(|f| f.id == config.id) {
        let checks = ProfileChecks::of(layout);
        let written = data::update(&layout.results(), &|doc| checks.problems(doc), |doc| {
            doc.failures.retain(|f| f.id != config.id);
            Ok(())
        })?;
        session.kept.replace(written.kept);
        board.line(&format!(
            "{}: measured in full; its failure record is removed",
            config.id
        ));
    }
    Ok(())
}

/// Whether `job` runs: pending (or failed, with `--retry-failed`) and selected by `--only`.
fn chosen(job: &Job, campaign: &Campaign, options: &RunOptions) -> bool {
    let wanted = match job.status {
        Status::Pending => true,
        Status::Failed => options.retry_failed,
        Status::Done | Status::Conflict => false,
    };
    wanted && (options.only.is_empty() || selected_by(job, campaign, &options.only))
}

/// Whether one of the `--only` globs matches the job's id or its configuration's.
fn selected_by(job: &Job, campaign: &Campaign, only: &[globset::GlobMatcher]) -> bool {
    let config = campaign.configurations[job.config].id.as_str();
    only.iter()
        .any(|p| p.is_match(config) || p.is_match(&job.id))
}

/// Measures one job and records what it gave; the line that says so.
async fn execute(
    session: &Session<'_>,
    config: &Configuration,
    job: &Job,
    server: &ServerOptions,
    log: &Path,
    progress: &Progress,
) -> Result<String, CampaignError> {
    let (layout, campaign) = (session.layout, session.campaign);
    let today = session.options.today.clone();
    match job.kind {
        Kind::Run => run_job(session, config, server, log, progress).await,
        Kind::Sweep => sweep_job(session, config, job, server, progress).await,
        Kind::Capture => {
            let quality = campaign
                .quality
                .as_ref()
                .expect("a capture job has [quality]");
            let capture_options = collect::CaptureOptions {
                id: job.record.clone(),
                reference: config.reference.as_ref().map(Id::to_string),
                params: quality.clone(),
                server: server.clone(),
                replace: false,
                profile: Some(
                    profiles::load(&layout.profiles(), &config.profile)?
                        .effective(&config.settings),
                ),
                launch: None,
            };
            let (_, captured) = session
                .timed(collect::capture(&layout.root, &capture_options, progress))
                .await?;
            Ok(format!("{captured} prompts captured"))
        }
        Kind::Divergence => {
            let reference = config
                .reference
                .as_ref()
                .expect("a comparison has a reference");
            let divergence_options = collect::DivergenceOptions {
                label: job.record.clone(),
                id: None,
                a: reference.to_string(),
                b: config.id.to_string(),
                dimensions: config.dimensions(),
                notes: None,
                today,
            };
            let record = session
                .timed(async { collect::divergence(&layout.root, &divergence_options) })
                .await?;
            let line = format!(
                "{} {} {}",
                divergence::KLD_MEAN.name(),
                divergence::KLD_MEAN.shown(&Value::Number(record.teacher_forced.kld_mean)),
                divergence::KLD_MEAN.unit
            );
            session.save(record, false)?;
            Ok(line)
        }
        Kind::Jitter => {
            let spec = campaign.jitter.as_ref().expect("a jitter job has [jitter]");
            let jitter_options = collect::JitterOptions {
                label: job.record.clone(),
                params: spec.clone(),
                server: server.clone(),
                notes: None,
                today,
            };
            let record = session
                .timed(collect::jitter(&layout.root, &jitter_options, progress))
                .await?;
            let line = format!(
                "{} {} {}",
                divergence::JITTER_KLD_MEAN.name(),
                record.kld_mean,
                divergence::JITTER_KLD_MEAN.unit
            );
            session.save(record, false)?;
            Ok(line)
        }
    }
}

/// A configuration's run, measured against its running server and recorded.
async fn run_job(
    session: &Session<'_>,
    config: &Configuration,
    server: &ServerOptions,
    log: &Path,
    progress: &Progress,
) -> Result<String, CampaignError> {
    let (layout, campaign) = (session.layout, session.campaign);
    let today = session.options.today.clone();
    let spec = campaign.run.as_ref().expect("a run job has [run]");
    let precision = match &config.precision {
        Some(given) => Some(given.clone()),
        None => precision(&data::load(&layout.results())?, layout, config),
    };
    let run_options = collect::RunOptions {
        id: config.id.clone(),
        profile: config.profile.clone(),
        overrides: config.settings.clone(),
        server: server.clone(),
        launch: None,
        server_log: Some(log.to_owned()),
        shape: config.shape.clone(),
        precision,
        weights_gib: None,
        notes: None,
        params: collect::RunParams {
            samples: spec.samples.max(1),
            ..spec.clone()
        },
        today,
        // A failed configuration run again under --retry-failed: its run takes the
        // failure's place (one id is never both).
        replace: session.options.retry_failed,
        force: false,
    };
    let outcome = session
        .timed(collect::run(layout, &run_options, progress))
        .await?;
    let Outcome::Measured { record, warnings } = outcome else {
        unreachable!("a run without --launch is measured or an error")
    };
    for warning in warnings {
        progress.line(&format!("warning: {warning}"));
    }
    let line = format!("{:.1} tok/s", record.decode_tok_s);
    session.save(record, session.options.retry_failed)?;
    Ok(line)
}

/// One of a configuration's sweeps, measured against its running server and recorded (the
/// levels it finished, when it stopped early for another reason than Ctrl-C).
async fn sweep_job(
    session: &Session<'_>,
    config: &Configuration,
    job: &Job,
    server: &ServerOptions,
    progress: &Progress,
) -> Result<String, CampaignError> {
    let (layout, campaign) = (session.layout, session.campaign);
    let today = session.options.today.clone();
    let spec = &campaign.sweeps[job.sweep.expect("a sweep job has its sweep")];
    let sweep_options = collect::SweepOptions {
        label: job.record.clone(),
        id: None,
        params: spec.params.clone(),
        server: server.clone(),
        profile: Some((config.profile.clone(), config.settings.clone())),
        launch: None,
        precision: config.precision.clone(),
        dimensions: config.dimensions(),
        notes: None,
        today,
        replace: false,
        request_log: true,
    };
    match session
        .timed(collect::sweep(layout, &sweep_options, progress))
        .await?
    {
        Outcome::Measured { record, .. } => {
            let line = format!("{} levels", record.levels.len());
            session.save(record, false)?;
            Ok(line)
        }
        // Ctrl-C: the sweep is left to the next run, not written in part.
        Outcome::Partial { why, .. } if why.starts_with(collect::INTERRUPTED) => {
            Err(CollectError::Interrupted.into())
        }
        Outcome::Partial { record, why } => {
            let line = format!("{} levels, stopped early: {why}", record.levels.len());
            session.save(record, false)?;
            Ok(line)
        }
        Outcome::Failed(_) => unreachable!("a sweep without --launch records no failure"),
    }
}

/// The precision of an earlier record of the configuration's checkpoint.
fn precision(doc: &data::Results, layout: &Layout, config: &Configuration) -> Option<String> {
    let checkpoint = profiles::load(&layout.profiles(), &config.profile)
        .ok()?
        .effective(&config.settings)
        .get("MODEL")?
        .to_owned();
    doc.runs
        .iter()
        .find(|r| r.checkpoint == checkpoint)
        .map(|r| r.precision.clone())
        .or_else(|| {
            doc.failures
                .iter()
                .find(|f| f.checkpoint == checkpoint)
                .map(|f| f.precision.clone())
        })
}

/// The failure record of a configuration whose server did not serve, its log compressed.
fn failure(
    session: &Session<'_>,
    config: &Configuration,
    effective: &profiles::Effective,
    doc: &data::Results,
    diagnosis: collect::Diagnosis,
    log: &Path,
) -> Result<Failure, CampaignError> {
    let layout = session.layout;
    let log = compress(log)?;
    let overrides = config
        .settings
        .iter()
        .map(|s| format!("{}={}", s.key, s.value))
        .collect::<Vec<_>>()
        .join(" ");
    let precision = config
        .precision
        .clone()
        .or_else(|| precision(doc, layout, config))
        .unwrap_or_else(|| "not given".to_owned());
    let mut failure = collect::failure(&config.id, effective, &precision, &overrides, diagnosis);
    failure.log = log.map(|path| {
        path.strip_prefix(&layout.root)
            .unwrap_or(&path)
            .to_string_lossy()
            .into_owned()
    });
    failure.provenance = Some(session.provenance.clone());
    Ok(failure)
}

/// The server's log compressed beside it ([`collect::keep_log`]).
fn compress(log: &Path) -> Result<Option<PathBuf>, CampaignError> {
    collect::keep_log(log).map_err(|source| CampaignError::Write {
        path: log.to_owned(),
        source,
    })
}

/// The campaign's progress: on a terminal, an overall bar with the ETA from the jobs timed so
/// far and the current job's bar under it; plain lines elsewhere.
struct Board {
    group: Option<MultiProgress>,
    overall: Option<ProgressBar>,
    total: usize,
    started: Instant,
    /// Jobs over.
    over: std::sync::Mutex<usize>,
}

impl Board {
    fn new(total: usize, quiet: bool) -> Self {
        let terminal = std::io::stderr().is_terminal() && !quiet;
        let group = terminal.then(MultiProgress::new);
        let overall = group.as_ref().map(|group| {
            let bar = group.add(ProgressBar::new(total as u64));
            bar.set_style(
                ProgressStyle::with_template("{bar:30} {pos}/{len} jobs {elapsed} {msg}")
                    .expect("a valid template"),
            );
            bar
        });
        Self {
            group,
            overall,
            total,
            started: Instant::now(),
            over: std::sync::Mutex::new(0),
        }
    }

    /// The current job's progress.
    fn job(&self, total: u64) -> Progress {
        Progress::within(self.group.as_ref(), total)
    }

    fn line(&self, text: &str) {
        match &self.overall {
            Some(bar) => bar.println(text),
            None => eprintln!("{text}"),
        }
    }

    /// `jobs` more are over; the ETA is the time so far (servers started and stopped
    /// included) per job over, times the jobs left.
    fn advance(&self, jobs: usize) {
        let mut over = self.over.lock().expect("not poisoned");
        *over += jobs;
        let over = *over;
        let left = self.total.saturating_sub(over);
        let spent = self.started.elapsed();
        let eta = (over > 0 && left > 0).then(|| spent / over as u32 * left as u32);
        let eta = eta.map_or(String::new(), |eta| {
            format!("ETA {}", crate::format::duration(eta.as_secs_f64()))
        });
        match &self.overall {
            Some(bar) => {
                bar.set_position(over as u64);
                bar.set_message(eta);
            }
            None => eprintln!("[{over}/{}] {eta}", self.total),
        }
    }

    fn clear(&self) {
        if let Some(bar) = &self.overall {
            bar.finish_and_clear();
        }
    }
}

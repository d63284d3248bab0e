//! `collect sweep`: for each concurrency level, `warmup` requests per stream sent and
//! discarded, then `concurrency × rounds` requests (rounds: max(`--rounds`, ⌈`--min-requests` /
//! concurrency⌉)) with exactly `concurrency` in flight, each with its own deterministic prompt
//! after the sweep's nonce, so no earlier measurement's prefix cache answers for the server; a
//! failed request is counted and never stops the sweep, and Ctrl-C keeps the levels already
//! finished.

use std::time::Duration;

use serde_json::{Value, json};

use super::arrivals::schedule;
use super::client::Endpoint;
use super::decode::{failure, log_path, overrides_text};
use super::error::CollectError;
use super::launch::{self, LaunchOptions, Launched};
use super::level_report::{gone, level_line, level_warnings, not_measured, note_failures, warn};
use super::outcome::Outcome;
use super::params::planned_requests;
use super::power::{self, Sampler};
use super::progress::Progress;
use super::runtime::interrupted;
use super::search::Planner;
use super::sending::{Level, OpenLoop, run_level, run_open_level};
use super::server::Server;
use super::server_log::{Diagnosis, Phase};
use super::target::{ServerOptions, Target, connect};
use super::watch::Watcher;
use super::workload::Requests;
use crate::data::{self, Date, Dimensions, Id, LevelStatus, Load, Sweep, SweepLevel, Workload};
use crate::profiles::{self, Setting};
use crate::project::Layout;
use crate::stats;

/// What `collect sweep` measures.
#[derive(Debug, Clone)]
pub struct SweepOptions {
    /// The sweep's label (its slug is the permalink unless `id` is given).
    pub label: String,
    /// The permalink, when not the label's slug.
    pub id: Option<Id>,
    /// The concurrency levels and the shape of every request.
    pub params: super::params::SweepParams,
    /// The server.
    pub server: ServerOptions,
    /// The profile the server runs, with overrides: for its dimensions and `--launch`.
    pub profile: Option<(String, Vec<Setting>)>,
    /// Start the server from the profile first.
    pub launch: Option<LaunchOptions>,
    /// The weights' precision, for a failure record if the launch fails.
    pub precision: Option<String>,
    /// Dimensions given by hand; they replace the derived ones of the same name.
    pub dimensions: Vec<(String, String)>,
    /// Free text for the record.
    pub notes: Option<String>,
    /// The date of the record.
    pub today: Date,
    /// Replace a sweep of the same label.
    pub replace: bool,
    /// Keep its per-request data (`data/requests/<slug>.jsonl.gz`, which the record names);
    /// not for a dry run.
    pub request_log: bool,
}

/// How a sweep that Ctrl-C stopped says why (`Outcome::Partial`'s `why` starts with it).
pub const INTERRUPTED: &str = "interrupted (Ctrl-C)";

/// A streamed chat request of the sweep's workload, in `server`'s terms. Every sampling field
/// it reads is explicit.
pub fn request_body(server: &Server, model: &str, prompt: &str, workload: &Workload) -> Value {
    body_asking(server, model, prompt, workload.output_tokens, workload)
}

/// [`request_body`] asking for `output_tokens`.
fn body_asking(
    server: &Server,
    model: &str,
    prompt: &str,
    output_tokens: u64,
    workload: &Workload,
) -> Value {
    let mut body = server.chat_stream(model, prompt, output_tokens, workload.thinking);
    if server.reads_ignore_eos() {
        body["ignore_eos"] = json!(workload.ignore_eos);
    }
    body
}

/// Runs the sweep; see the module documentation.
pub async fn sweep(
    layout: &Layout,
    options: &SweepOptions,
    progress: &Progress,
) -> Result<Outcome<Sweep>, CollectError> {
    let doc = data::load(&layout.results())?;
    super::outcome::refuse_existing(
        !options.replace && doc.sweeps.iter().any(|s| s.label == options.label),
        &format!("a sweep labelled {:?}", options.label),
    )?;
    options
        .params
        .usable()
        .map_err(|unusable| CollectError::Usage(unusable.for_flags()))?;
    let effective = match &options.profile {
        Some((name, overrides)) => Some((
            profiles::load(&layout.profiles(), name)?.effective(overrides),
            overrides,
        )),
        None => None,
    };
    let slug = slug_of(options);
    // A launch that failed keeps its log, compressed, with its failure record.
    let failed_launch = |diagnosis| -> Result<Outcome<Sweep>, CollectError> {
        let (effective, overrides) = effective.as_ref().expect("launched from a profile");
        let checkpoint = effective.get("MODEL").unwrap_or_default();
        let mut failure = failure(
            &Id::new(&slug).map_err(CollectError::Usage)?,
            effective,
            &precision_of(&doc, checkpoint, options)?,
            &overrides_text(overrides),
            diagnosis,
        );
        failure.log = launch::failure_log(&layout.root, &log_path(layout, &slug))?;
        Ok(Outcome::Failed(Box::new(failure)))
    };
    let mut launched = match (&options.launch, &effective) {
        (Some(launch), Some((effective, _))) => {
            let log = log_path(layout, &slug);
            match launch::launch(effective, launch, &log, &options.server, progress).await? {
                Ok(server) => Some(server),
                Err(diagnosis) => return failed_launch(diagnosis),
            }
        }
        (Some(_), None) => return Err(CollectError::Usage("--launch needs --profile".into())),
        (None, _) => None,
    };
    let mut target = connect(&options.server).await?;
    progress.line(&format!("measuring {}", target.server.describe()));
    let nonce = nonce();
    let slo = super::search::limits(layout, options.params.search)?;
    let mut workload = options.params.workload();
    let dataset = match &options.params.dataset {
        Some(file) => Some(super::workload::read_dataset(
            &layout.root,
            file,
            options.params.seed,
        )?),
        None => None,
    };
    workload.dataset = dataset.as_ref().map(|(d, _)| d.clone());
    let requests = Requests {
        workload: &workload,
        prompts: dataset.as_ref().map(|(_, p)| p.as_slice()),
    };
    let measured = measure_levels(
        &mut target,
        options,
        &nonce,
        launched.as_mut(),
        slo.as_ref(),
        &requests,
        progress,
    )
    .await;
    // Stopped with the runtime running, Ctrl-C or not (`Launched::shut_down`).
    if let Some(server) = launched.as_mut() {
        server.shut_down().await;
    }
    let measured = match measured {
        Ok(measured) => measured,
        Err(diagnosis) => return failed_launch(diagnosis),
    };
    drop(launched);
    let measurement = Measurement {
        layout,
        options,
        requests: &requests,
        target: &target,
        nonce: &nonce,
        slug: &slug,
    };
    recorded(&measurement, measured, effective.as_ref(), progress)
}

/// What a sweep's record is made from besides its levels.
struct Measurement<'a> {
    layout: &'a Layout,
    options: &'a SweepOptions,
    requests: &'a Requests<'a>,
    target: &'a Target,
    nonce: &'a str,
    slug: &'a str,
}

/// The sweep's record of what its levels gave, its per-request data written: measured, or
/// partial when it stopped early; an error when no level finished.
fn recorded(
    m: &Measurement,
    measured: Levels,
    effective: Option<&(profiles::Effective, &Vec<Setting>)>,
    progress: &Progress,
) -> Result<Outcome<Sweep>, CollectError> {
    let Levels {
        levels,
        mut lines,
        search,
        stopped,
        mut notes,
        counted,
        uncounted,
    } = measured;
    if levels.is_empty() {
        return Err(match stopped {
            Some(_) => CollectError::Interrupted,
            None => CollectError::Server("no level finished".into()),
        });
    }
    let workload = m.requests.workload;
    closing_notes(
        m.target,
        workload,
        &counted,
        uncounted,
        stopped.as_deref(),
        &mut notes,
        progress,
    );
    let method = method_of(m.options, m.requests, &levels, m.nonce, counted.is_empty());
    let mut record = record(m.options, m.target, workload, levels, notes, effective);
    record.method = Some(method);
    // A dataset's prompts are its own lengths: the sweep's is the median the server measured.
    if record.workload.dataset.is_some() {
        let measured: Vec<f64> = record
            .levels
            .iter()
            .filter_map(|l| l.prompt_tokens)
            .map(|t| t as f64)
            .collect();
        if let Some(median) = stats::median(&measured) {
            record.workload.prompt_words = None;
            record.workload.prompt_tokens = Some(median.round() as u64);
        }
    }
    if search.is_some() {
        super::search::in_load_order(&mut record.levels, &mut lines);
    }
    record.search = search;
    record.request_log = keep_requests(m.layout, m.options, m.slug, &lines)?;
    Ok(match stopped {
        Some(why) => Outcome::Partial { record, why },
        None => Outcome::Measured {
            record,
            warnings: Vec::new(),
        },
    })
}

/// Writes the sweep's per-request data beside its document, unless a dry run: its path in
/// the project.
fn keep_requests(
    layout: &Layout,
    options: &SweepOptions,
    slug: &str,
    lines: &[data::RequestLine],
) -> Result<Option<String>, CollectError> {
    if !options.request_log {
        return Ok(None);
    }
    let path = data::request_log_path(slug);
    data::write_request_log(&layout.root.join(&path), lines)?;
    Ok(Some(path))
}

/// What the levels of a sweep gave.
struct Levels {
    levels: Vec<SweepLevel>,
    /// What a limit search found, when the sweep was one.
    search: Option<data::LimitSearch>,
    /// Every request of every level, for the per-request data.
    lines: Vec<data::RequestLine>,
    /// Why the sweep stopped before its last level.
    stopped: Option<String>,
    notes: Vec<String>,
    /// Output tokens the server counted where the stream did not say.
    counted: Vec<super::target::Counted>,
    /// Whether some request's output tokens are known from neither.
    uncounted: bool,
}

/// Sends every level in turn, until Ctrl-C or a server that is gone. `Err` is the diagnosis
/// of a launched server that never answered one request: the configuration failed under load.
async fn measure_levels(
    target: &mut Target,
    options: &SweepOptions,
    nonce: &str,
    mut launched: Option<&mut Launched>,
    slo: Option<&crate::config::Slo>,
    requests: &Requests<'_>,
    progress: &Progress,
) -> Result<Levels, Diagnosis> {
    let workload = requests.workload;
    let requests_of = requests;
    let context = sequence_context(target).await;
    let mut levels = Vec::new();
    let mut lines = Vec::new();
    let mut stopped = None;
    let mut notes: Vec<String> = options.notes.iter().cloned().collect();
    let mut counted = Vec::new();
    let mut uncounted = false;
    let sending = Sending {
        workload,
        prompts: requests.prompts,
        watch: target.client.metrics().await.is_ok(),
        nonce,
        warmup: options.params.warmup,
    };
    let mut planner = match &slo {
        Some(_) => Planner::search(&options.params.loads(), options.params.search_tolerance),
        None => Planner::sweep(options.params.loads()),
    };
    let mut index = 0;
    while let Some(load) = planner.next() {
        let planned = planned_requests(workload, load);
        progress.step(&format!("{}: {planned} requests", load.words()));
        let Some(mut level) = send_level(target, index, load, &sending, progress).await else {
            stopped = Some(format!("{INTERRUPTED} during {}", load.words()));
            break;
        };
        // A launched server that exited, or whose port another process answers, was not what
        // the level measured: the level is not recorded.
        if let Some(server) = launched.as_deref_mut()
            && let Some(what) = not_measured(server, load)
        {
            let diagnosis = server.diagnose(Phase::FirstRequest, &what);
            if levels.is_empty() {
                return Err(diagnosis);
            }
            stopped = Some(format!("{} The level is not recorded.", diagnosis.reason));
            break;
        }
        let requests = match load {
            Load::Concurrency(_) => planned,
            Load::Rate(_) => (level.timings.len() + level.errors.len()) as u64,
        };
        counted.extend(level.count_tokens(target, workload.output_tokens).await);
        uncounted |= level.timings.iter().any(|t| t.output_tokens().is_none());
        let eos = options.params.ignore_eos;
        let (summary, found) =
            summarised(&level, requests_of, (index, load, requests), eos, context);
        let level_lines = level.lines(index, &found);
        if let Some(slo) = &slo {
            let (holds, saturated) =
                super::search::probed(slo, load, &summary, &level_lines, progress);
            planner.record(load, holds, saturated);
        }
        index += 1;
        lines.extend(level_lines);
        note_failures(target, &level, load, requests, &mut notes, progress);
        warn(level_warnings(&summary, load), &mut notes, progress);
        progress.line(&level_line(&summary));
        let all_failed = summary.status == LevelStatus::Failed;
        levels.push(summary);
        if all_failed {
            let died = launched
                .as_deref_mut()
                .and_then(|server| server.exited())
                .is_some();
            if let Some(gone) = gone(target, died, load).await {
                if let (Some(server), true) = (launched.as_deref(), levels.len() == 1) {
                    return Err(server.diagnose(Phase::FirstRequest, &gone));
                }
                stopped = Some(gone);
                break;
            }
        }
    }
    let search = slo.as_ref().and_then(|slo| planner.result(slo.words()));
    Ok(Levels {
        levels,
        lines,
        search,
        stopped,
        notes,
        counted,
        uncounted,
    })
}

/// Level `index`'s record at `load` of its `requests`, and what its checks found: with
/// `ignore_eos`, each answer held to the tokens its request asked for.
fn summarised(
    level: &Level,
    shaped: &Requests,
    (index, load, requests): (usize, Load, u64),
    ignore_eos: bool,
    context: Option<u64>,
) -> (SweepLevel, super::delivery::Found) {
    let asked = |n: u64| shaped.request(index, n).1;
    let asked = ignore_eos.then_some(&asked as &dyn Fn(u64) -> u64);
    level.summary(load, requests, asked, context)
}

/// The context a sequence gets: a llama-server slot's, else the model's.
async fn sequence_context(target: &Target) -> Option<u64> {
    match target.client.slots_context().await {
        Some((sum, slots)) => Some(sum / slots as u64),
        None => target.max_model_len,
    }
}

/// What every level of a sweep sends besides its own prompts.
struct Sending<'a> {
    /// The prompts' and answers' lengths, and the arrivals of an open loop.
    workload: &'a Workload,
    /// The dataset's prompts, when its prompts are sampled from one.
    prompts: Option<&'a [String]>,
    /// Whether the server has `/metrics` to scrape through each level.
    watch: bool,
    /// Starts every prompt, so no earlier measurement's prefix cache answers.
    nonce: &'a str,
    /// Requests per stream sent and discarded before the level.
    warmup: u64,
}

/// Where the warm-up requests' numbers start: never a measured request's.
const WARMUP_SEEDS: u64 = 900_000;

/// A sweep's own nonce: the clock and the process, hashed.
fn nonce() -> String {
    use sha2::Digest;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    let seed = format!("{} {}", now.as_nanos(), std::process::id());
    let digest = sha2::Sha256::digest(seed.as_bytes());
    digest[..6].iter().map(|b| format!("{b:02x}")).collect()
}

/// sha256 of the measured prompts of the levels at `loads`, in order, each followed by a
/// newline, before the nonce: every request each planned, sent or not.
fn prompts_sha256(requests: &Requests, loads: &[Load]) -> String {
    use sha2::Digest;
    let mut hash = sha2::Sha256::new();
    for (index, &load) in loads.iter().enumerate() {
        for n in 0..planned_requests(requests.workload, load) {
            hash.update(requests.request(index, n).0.as_bytes());
            hash.update(b"\n");
        }
    }
    hash.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// One level's requests sent at `load`, after its warm-up (an open loop's warms up at its
/// cap, else one at a time); a level every request of which was refused over one optional
/// field is sent again without it. `None` when Ctrl-C stopped it.
async fn send_level(
    target: &mut Target,
    index: usize,
    load: Load,
    sending: &Sending<'_>,
    progress: &Progress,
) -> Option<Level> {
    let workload = sending.workload;
    let arrivals = workload.arrivals.as_ref();
    let streams = match load {
        Load::Concurrency(c) => c,
        Load::Rate(_) => arrivals.and_then(|a| a.max_concurrency).unwrap_or(1),
    };
    let due = match (load, arrivals) {
        (Load::Rate(rate), Some(arrivals)) => schedule(rate, arrivals),
        _ => Vec::new(),
    };
    // An open loop's requests are its schedule's, drawn once here.
    let requests = match load {
        Load::Rate(_) => due.len() as u64,
        Load::Concurrency(_) => planned_requests(workload, load),
    };
    let shaped = Requests {
        workload,
        prompts: sending.prompts,
    };
    let body = |target: &Target, n: u64| {
        let (prompt, output) = shaped.request(index, n);
        let text = format!("{} {prompt}", sending.nonce);
        target.accepted(body_asking(
            &target.server,
            &target.model,
            &text,
            output,
            workload,
        ))
    };
    loop {
        let warmup: Vec<Value> = (0..streams * sending.warmup)
            .map(|n| body(target, WARMUP_SEEDS + n))
            .collect();
        if !warmup.is_empty() {
            let quiet = Progress::hidden();
            tokio::select! {
                _ = run_level(&target.client, Endpoint::Chat, warmup, streams as usize, &quiet) => {}
                () = interrupted() => return None,
            }
        }
        let bodies: Vec<Value> = (0..requests).map(|n| body(target, n)).collect();
        let probe = bodies[0].clone();
        let sampler = Sampler::start(power::INTERVAL);
        let plan = OpenLoop {
            due: &due,
            cap: arrivals.and_then(|a| a.max_concurrency).map(|c| c as usize),
            until: arrivals
                .and_then(|a| a.duration_s)
                .map(Duration::from_secs_f64),
        };
        let sent = async {
            match load {
                Load::Concurrency(c) => {
                    run_level(&target.client, Endpoint::Chat, bodies, c as usize, progress).await
                }
                Load::Rate(_) => {
                    run_open_level(&target.client, Endpoint::Chat, bodies, &plan, progress).await
                }
            }
        };
        let watcher = match sending.watch {
            true => Some(Watcher::start(&target.client).await),
            false => None,
        };
        let mut level = tokio::select! {
            level = sent => Level { power: sampler.and_then(Sampler::stop), ..level },
            () = interrupted() => return None,
        };
        if let Some(watcher) = watcher {
            level.scrapes = watcher.stop().await;
        }
        // Every request refused over one optional field: send the level again without it.
        let refused = level.timings.is_empty()
            && level
                .errors
                .first()
                .is_some_and(|error| target.refuse(&probe, error, progress));
        if !refused {
            return Some(level);
        }
    }
}

/// The notes every sweep ends with: the server's, how tokens were counted, what is missing
/// (also said on the terminal) and why it stopped early.
fn closing_notes(
    target: &Target,
    workload: &Workload,
    counted: &[super::target::Counted],
    uncounted: bool,
    stopped: Option<&str>,
    notes: &mut Vec<String>,
    progress: &Progress,
) {
    notes.extend(target.notes());
    let mut gaps = Vec::new();
    if uncounted {
        gaps.push("the server sent no usage report and has no tokenizer endpoint; output tokens, decode and total tok/s are left out where it was missing".to_owned());
    } else if !counted.is_empty() {
        notes.push(super::target::counted_note(counted));
    }
    if !target.server.reads_ignore_eos() && workload.ignore_eos {
        gaps.push(format!(
            "the server ({}) has no ignore_eos; answers end where the model stops",
            target.server.describe()
        ));
    }
    gaps.extend(target.version_gap());
    for gap in gaps {
        progress.line(&format!("warning: {gap}"));
        notes.push(super::target::sentence(&gap));
    }
    if let Some(why) = stopped {
        notes.push(format!("Stopped early: {why}; the levels before are kept."));
    }
}

/// The sweep record of the levels measured.
fn record(
    options: &SweepOptions,
    target: &Target,
    workload: &Workload,
    levels: Vec<SweepLevel>,
    notes: Vec<String>,
    effective: Option<&(profiles::Effective, &Vec<Setting>)>,
) -> Sweep {
    Sweep {
        label: options.label.clone(),
        id: options.id.clone(),
        model: target.model.clone(),
        base_url: options.server.base_url.clone(),
        generated: options.today.clone(),
        vllm_version: target.vllm_version(),
        server: Some(target.server.describe()),
        engine: target.server.engine(),
        max_model_len: target.max_model_len,
        workload: workload.clone(),
        dimensions: dimensions(
            &target.model,
            levels.iter().find_map(|l| l.prompt_tokens),
            workload,
            effective.map(|(e, _)| e),
            &options.dimensions,
        ),
        levels,
        notes: (!notes.is_empty()).then(|| notes.join(" ")),
        source: None,
        method: None,
        provenance: None,
        search: None,
        request_log: None,
    }
}

/// How the sweep measured: the definitions' version, the prompts and their hash, the warm-up,
/// how tokens were counted and the cache's isolation.
fn method_of(
    options: &SweepOptions,
    requests: &Requests,
    levels: &[SweepLevel],
    nonce: &str,
    usage_only: bool,
) -> data::RecordMethod {
    let loads: Vec<Load> = levels.iter().map(SweepLevel::load).collect();
    let workload = requests.workload;
    let source = match &workload.dataset {
        Some(d) => format!(
            "prompts of {} ({} of them, sha256 {}) drawn with seed {} per level and request number",
            d.file, d.prompts, d.sha256, d.seed
        ),
        None => format!(
            "generated text of {} words per request, one per level and request number",
            workload.prompt_words.unwrap_or(1)
        ),
    };
    let shape = workload
        .shape()
        .filter(|_| workload.lengths.is_some() || workload.shared_prefix.is_some())
        .map_or(String::new(), |shape| format!(", {shape}"));
    data::RecordMethod {
        version: super::defaults::METHOD_VERSION,
        client: super::defaults::CLIENT.to_owned(),
        prompt_source: format!("{source}{shape}, after the sweep's nonce ({nonce})"),
        prompt_sha256: prompts_sha256(requests, &loads),
        warmup: options.params.warmup,
        token_count: if usage_only {
            "usage".into()
        } else {
            "usage where the server sent it, else counted as the notes say".into()
        },
        cache: data::CacheIsolation::Nonce,
    }
}

fn slug_of(options: &SweepOptions) -> String {
    data::permalink(options.id.as_ref(), &options.label)
}

fn precision_of(
    doc: &data::Results,
    checkpoint: &str,
    options: &SweepOptions,
) -> Result<String, CollectError> {
    options
        .precision
        .clone()
        .or_else(|| doc.runs.iter().find(|r| r.checkpoint == checkpoint).map(|r| r.precision.clone()))
        .or_else(|| doc.failures.iter().find(|f| f.checkpoint == checkpoint).map(|f| f.precision.clone()))
        .ok_or_else(|| CollectError::Usage(format!("the launch failed and there is no run of {checkpoint} to take its precision from: give --precision")))
}

/// What distinguishes the sweep: the model, prompt (in tokens, as measured) and output
/// lengths, and from the profile the sequences, vision, CUDA graphs, MTP and the GPUs (where
/// more than one); then the ones
/// given by hand.
pub(super) fn dimensions(
    model: &str,
    prompt_tokens: Option<u64>,
    workload: &Workload,
    effective: Option<&profiles::Effective>,
    given: &[(String, String)],
) -> Dimensions {
    let mut dims = Dimensions::new();
    dims.insert("model".into(), model.to_owned());
    if let Some(tokens) = prompt_tokens {
        dims.insert("prompt".into(), format!("{tokens} tok"));
    }
    dims.insert("output".into(), format!("{} tok", workload.output_tokens));
    if let Some(arrivals) = &workload.arrivals {
        dims.insert("arrivals".into(), arrivals.words());
    }
    if let Some(shape) = workload.shape() {
        dims.insert("requests".into(), shape);
    }
    if let Some(effective) = effective {
        for (key, value) in data::rules::server_dimensions(effective) {
            dims.insert(key.into(), value);
        }
    }
    for (key, value) in given {
        dims.insert(key.clone(), value.clone());
    }
    dims
}

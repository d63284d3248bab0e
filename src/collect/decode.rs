//! `collect run`: single-stream decode speed of one configuration. One cold request is
//! discarded (kept as `decode_cold_sample`), then the median of the samples is the figure; the
//! KV pool and the speculative-decoding acceptance come from `/metrics`.

use std::path::PathBuf;

use serde_json::Value;

use super::acceptance::{Spread, acceptance, metrics_gap, over_prompt_set};
use super::client::Endpoint;
use super::engine_view::{self, Counters};
use super::error::CollectError;
use super::launch::{self, LaunchOptions};
use super::metrics::{self, KvSource, Metrics};
use super::outcome::Outcome;
use super::power::{self, Drawn, Sampler};
use super::progress::Progress;
use super::runtime::interrupted;
use super::samples::{checked_rates, failed_gap, weights};
use super::server_log::{self, Diagnosis, Phase};
use super::stream::Timing;
use super::target::{ServerOptions, Target, connect};
use crate::data::{self, Date, Failure, Id, Results, Run, RunStatus};
use crate::profiles::{self, Effective, Setting};
use crate::project::Layout;
use crate::stats;

/// What `collect run` measures.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// The run's id (its permalink).
    pub id: Id,
    /// The profile the server runs (`profiles/<name>.env`).
    pub profile: String,
    /// Settings on top of the profile (`--set`).
    pub overrides: Vec<Setting>,
    /// The server.
    pub server: ServerOptions,
    /// Start the server from the profile first.
    pub launch: Option<LaunchOptions>,
    /// The log of a server the caller started, for the weights and the KV pool.
    pub server_log: Option<PathBuf>,
    /// The model's shape ("MoE, 35B total / 3B active"); default: an earlier record's.
    pub shape: Option<String>,
    /// The weights' precision; default: an earlier record's.
    pub precision: Option<String>,
    /// The weights' size in GiB, when not launched.
    pub weights_gib: Option<f64>,
    /// Free text for the record.
    pub notes: Option<String>,
    /// The samples, their length and their prompt (default: the document's `method.prompt`).
    pub params: super::params::RunParams,
    /// The date of the record.
    pub today: Date,
    /// Replace a run of the same id.
    pub replace: bool,
    /// Record it even when the server serves another model than the profile's.
    pub force: bool,
}

/// Measures the configuration; see the module documentation.
pub async fn run(
    layout: &Layout,
    options: &RunOptions,
    progress: &Progress,
) -> Result<Outcome<Run>, CollectError> {
    let doc = data::load(&layout.results())?;
    // A run takes the place of a failure of its id, as of an earlier run.
    let existing = match () {
        _ if doc.runs.iter().any(|run| run.id == options.id) => Some("a run"),
        _ if doc.failures.iter().any(|f| f.id == options.id) => Some("a failure"),
        _ => None,
    };
    super::outcome::refuse_existing(
        !options.replace && existing.is_some(),
        &format!("{} {}", existing.unwrap_or("a run"), options.id),
    )?;
    let plan = Planned::of(layout, &doc, options)?;
    let prompt = prompt_of(options, &doc)?;
    let profile_names: Vec<String> = std::iter::once(plan.checkpoint.clone())
        .chain(plan.effective.get("SERVED_MODEL_NAME").map(str::to_owned))
        .collect();
    let log = log_path(layout, options.id.as_str());
    // A launch that failed keeps its log, compressed, with its failure record.
    let failed = |diagnosis| -> Result<Outcome<Run>, CollectError> {
        let mut failure = failure(
            &options.id,
            &plan.effective,
            &plan.precision,
            &plan.overrides,
            diagnosis,
        );
        failure.log = launch::failure_log(&layout.root, &log)?;
        Ok(Outcome::Failed(Box::new(failure)))
    };

    let mut launched = match &options.launch {
        Some(launch) => {
            match launch::launch(&plan.effective, launch, &log, &options.server, progress).await? {
                Ok(server) => Some(server),
                Err(diagnosis) => return failed(diagnosis),
            }
        }
        None => None,
    };

    let context = plan.effective.number("MAX_MODEL_LEN");
    let measuring = async {
        let mut measured = match measured_or_died(
            options,
            &prompt,
            &profile_names,
            context,
            launched.as_mut(),
            progress,
        )
        .await?
        {
            Ok(measured) => measured,
            Err(diagnosis) => return Ok(Err(diagnosis)),
        };
        if data::rules::spec_decode(&plan.effective) && options.params.acceptance_prompts > 0 {
            measured.spread = Some(tokio::select! {
                spread = over_prompt_set(layout, &mut measured.target, &options.params, progress) => spread,
                () = interrupted() => return Err(CollectError::Interrupted),
            });
        }
        Ok(Ok(measured))
    };
    let measured = measuring.await;
    let log = server_log(launched.as_ref(), options);
    // Stopped here, even when interrupted, with the runtime running (`Launched::shut_down`).
    if let Some(server) = launched.as_mut() {
        server.shut_down().await;
    }
    match measured? {
        Ok(measured) => record(options, &doc, plan, measured, log.as_deref(), &prompt).await,
        Err(diagnosis) => failed(diagnosis),
    }
}

/// What a run is known to be before the server is asked anything: its profile's settings
/// with the overrides, and the model's facts.
struct Planned {
    effective: profiles::Effective,
    checkpoint: String,
    shape: String,
    precision: String,
    /// The overrides as the record writes them.
    overrides: String,
}

impl Planned {
    fn of(layout: &Layout, doc: &Results, options: &RunOptions) -> Result<Self, CollectError> {
        let profile = profiles::load(&layout.profiles(), &options.profile)?;
        let effective = profile.effective(&options.overrides);
        let checkpoint = effective
            .get("MODEL")
            .ok_or_else(|| {
                CollectError::Usage(format!("profile {}: MODEL is not set", options.profile))
            })?
            .to_owned();
        let (shape, precision) = model_facts(doc, &checkpoint, options)?;
        Ok(Planned {
            effective,
            checkpoint,
            shape,
            precision,
            overrides: overrides_text(&options.overrides),
        })
    }
}

/// The run's record from what was measured; what is missing is said on the terminal (the
/// warnings) and in the record's notes.
async fn record(
    options: &RunOptions,
    doc: &Results,
    plan: Planned,
    measured: Measured,
    log: Option<&str>,
    prompt: &str,
) -> Result<Outcome<Run>, CollectError> {
    let Measured {
        target,
        before,
        samples,
        after,
        power,
        counted,
        failed,
        mismatch,
        forced,
        spread,
        slots,
        engine,
    } = measured;
    let effective = &plan.effective;
    let mut warnings = Vec::new();
    let mut notes = first_notes(options, &target, &counted, mismatch);
    let mut gaps = failed_gap(&failed, samples.len() - 1);
    let context = slots
        .map(|(sum, n)| sum / n as u64)
        .or(target.max_model_len);
    let asked = options.params.max_tokens;
    let checked = checked_rates(&samples, engine, context, asked, &mut gaps)?;
    let max_model_len = target
        .max_model_len
        .or_else(|| effective.number("MAX_MODEL_LEN"))
        .ok_or_else(|| CollectError::Server(NO_CONTEXT.into()))?;
    let kv_tokens = kv_tokens(slots, &after, log, &mut notes, &mut gaps);
    let spec_decode = data::rules::spec_decode(effective);
    let (acceptance, acceptance_over) =
        acceptance(spread, spec_decode, (&before, &after), &mut gaps);
    let model = effective.get("MODEL");
    let (weights_gib, weights_source) = weights(options.weights_gib, log, model, &mut warnings);
    gaps.extend(target.version_gap());
    let tokens = samples[1..].iter().filter_map(Timing::output_tokens);
    let (power_w, joules_per_token) = energy(power, tokens.sum::<u64>() as f64);
    for gap in gaps {
        notes.push(super::target::sentence(&gap));
        warnings.push(gap);
    }
    let (vllm_version, server) = (target.vllm_version(), target.server.describe());
    let (workload, method) = run_method(options, &samples, prompt, counted.is_empty());
    let record = Run {
        id: options.id.clone(),
        status: RunStatus::Ok,
        profile: options.profile.clone(),
        overrides: plan.overrides,
        model: target.model,
        checkpoint: plan.checkpoint,
        shape: plan.shape,
        precision: plan.precision,
        weights_gib,
        weights_source,
        max_model_len,
        vision: data::rules::vision(effective),
        cuda_graphs: data::rules::cuda_graphs(effective),
        spec_decode,
        decode_tok_s: checked.decode,
        decode_cold_sample: checked.cold,
        decode_samples: checked.measured,
        prompt_tok_s: None,
        prompt_tokens: None,
        generated: options.today.clone(),
        vllm_version,
        server: Some(server),
        engine: target.server.engine(),
        kv_tokens,
        max_concurrency: kv_tokens
            .map(|tokens| data::rules::max_concurrency(tokens, max_model_len)),
        kv_cache_dtype: effective.get("KV_CACHE_DTYPE").map(str::to_owned),
        spec_acceptance: acceptance.as_ref().map(|a| a.rate),
        spec_acceptance_length: acceptance.as_ref().and_then(|a| a.length),
        spec_acceptance_per_position: acceptance.map(|a| a.per_position).unwrap_or_default(),
        spec_acceptance_over: acceptance_over,
        notes: (!notes.is_empty()).then(|| notes.join(" ")),
        delivery: Some(checked.delivery),
        engine_view: checked.engine_view,
        quality: kept_quality(doc, &options.id),
        power_w,
        joules_per_token,
        source: None,
        forced,
        workload: Some(workload),
        method: Some(method),
        provenance: None,
    };
    Ok(Outcome::Measured { record, warnings })
}

/// The samples measured; when they fail because the server launched for them died under
/// the first requests, the diagnosis of that failure of the configuration instead.
async fn measured_or_died(
    options: &RunOptions,
    prompt: &str,
    profile_names: &[String],
    context: Option<u64>,
    mut launched: Option<&mut launch::Launched>,
    progress: &Progress,
) -> Result<Result<Measured, Diagnosis>, CollectError> {
    // The launched server is watched throughout: one that exits stops the measurement, and
    // nothing else answering its port is measured in its place.
    let outcome = tokio::select! {
        measured = measure(options, prompt, profile_names, context, progress) => Ok(measured),
        status = launch::exit_of(launched.as_deref_mut()) => Err(status),
        () = interrupted() => return Err(CollectError::Interrupted),
    };
    let measured = match (outcome, launched.as_deref()) {
        (Ok(measured), _) => measured,
        (Err(status), Some(server)) => {
            return Ok(Err(server.diagnose(
                Phase::FirstRequest,
                &format!("exited during the measurement ({status})"),
            )));
        }
        (Err(_), None) => unreachable!("only a launched server exits"),
    };
    match (measured, launched) {
        (Ok(measured), _) => Ok(Ok(measured)),
        (Err(error), Some(server)) => match server.died(&options.server).await {
            Some(what) => Ok(Err(server.diagnose(
                Phase::FirstRequest,
                &format!("{what} on the first requests (the request: “{error}”)"),
            ))),
            None => Err(error),
        },
        (Err(error), None) => Err(error),
    }
}

/// The server's log: the launched server's, or the one the caller names.
fn server_log(launched: Option<&launch::Launched>, options: &RunOptions) -> Option<String> {
    launched.map(|server| server.log_text()).or_else(|| {
        let bytes = std::fs::read(options.server_log.as_ref()?).ok()?;
        Some(String::from_utf8_lossy(&bytes).into_owned())
    })
}

/// Why a run has no context when neither the server nor the profile says it.
const NO_CONTEXT: &str =
    "the server does not say its max_model_len, and the profile sets no MAX_MODEL_LEN";

/// The prompt: given, or the document's `method.prompt`.
fn prompt_of(options: &RunOptions, doc: &Results) -> Result<String, CollectError> {
    options
        .params
        .prompt
        .clone()
        .or_else(|| doc.method.prompt.clone())
        .ok_or_else(|| {
            CollectError::Usage(
                "no prompt: give --prompt, or set method.prompt in data/results.json".into(),
            )
        })
}

/// The notes a run starts with: the given ones, the server's, how tokens were counted and
/// what `--force` recorded.
fn first_notes(
    options: &RunOptions,
    target: &Target,
    counted: &[super::target::Counted],
    mismatch: Vec<String>,
) -> Vec<String> {
    let mut notes: Vec<String> = options.notes.iter().cloned().collect();
    notes.extend(target.notes());
    if !counted.is_empty() {
        notes.push(super::target::counted_note(counted));
    }
    for what in mismatch {
        notes.push(super::target::sentence(&format!(
            "recorded with --force: {what}"
        )));
    }
    notes
}

/// What the requests gave.
struct Measured {
    target: Target,
    before: Result<Metrics, String>,
    samples: Vec<Timing>,
    after: Result<Metrics, String>,
    /// What the GPUs drew over the samples, where nvidia-smi reads it.
    power: Option<Drawn>,
    /// How the output tokens were counted, where there was no usage report.
    counted: Vec<super::target::Counted>,
    /// The samples that failed, each with why.
    failed: Vec<String>,
    /// How the server differs from the profile (its model, its context), recorded with
    /// --force.
    mismatch: Vec<String>,
    /// The fields the run holds as served, where the profile gives other values.
    forced: Vec<data::Forced>,
    /// With speculative decoding: the counters around prompts of the prompt set, or why
    /// they could not be measured; `None` when the acceptance is the samples'.
    spread: Option<Result<Spread, String>>,
    /// llama-server's `/slots` after the samples, asked while the server (a launched one
    /// stops before the record is made) still answers: their context summed, and how many.
    slots: Option<(u64, usize)>,
    /// The engine's own timing at the scrapes before and after the samples.
    engine: (Counters, Counters),
}

/// One scrape of `/metrics`: what the KV pool and the acceptance read, and the engine's own
/// timing.
async fn scrape(target: &Target) -> (Result<Metrics, String>, Counters) {
    match target.client.metrics().await {
        Ok(text) => (Ok(metrics::parse(&text)), engine_view::read(&text)),
        Err(why) => (Err(why), Counters::default()),
    }
}

/// The cold request and the samples, with the metrics scraped around the samples.
async fn measure(
    options: &RunOptions,
    prompt: &str,
    profile_names: &[String],
    profile_context: Option<u64>,
    progress: &Progress,
) -> Result<Measured, CollectError> {
    let mut target = connect(&options.server).await?;
    let (mismatch, forced) =
        differences(&target, options, profile_names, profile_context, progress)?;
    progress.line(&format!("measuring {}", target.server.describe()));
    let body = decode_body(&target, prompt, options.params.max_tokens);
    let mut samples = Vec::with_capacity(options.params.samples + 1);
    let mut failed = Vec::new();
    let mut counted = Vec::new();
    let mut before = (Err("not scraped".to_owned()), Counters::default());
    let mut sampler = None;
    for index in 0..=options.params.samples {
        if index == 1 {
            before = scrape(&target).await;
            sampler = Sampler::start(power::INTERVAL);
        }
        let what = if index == 0 {
            "cold request".to_owned()
        } else {
            format!("sample {index}/{}", options.params.samples)
        };
        progress.step(&what);
        let mut timing = match target.stream(Endpoint::Chat, &body, progress).await {
            Ok(timing) => timing,
            // A failed sample costs that sample, never those taken.
            Err(error) if index > 0 => {
                progress.line(&format!("{what} failed: {error}"));
                failed.push(format!("{what} failed ({error})"));
                progress.advance(1);
                continue;
            }
            Err(error) => return Err(CollectError::Request(format!("{what} failed: {error}"))),
        };
        counted.extend(
            target
                .count_tokens(&mut timing, options.params.max_tokens)
                .await,
        );
        let ttft = crate::format::duration(timing.ttft.as_secs_f64());
        match (super::delivery::burst(&timing.gaps), timing.decode_rate()) {
            (Some(burst), _) => progress.line(&format!(
                "{what}: delivered in bursts ({}), TTFT {ttft}",
                burst.words()
            )),
            (None, Some(rate)) => progress.line(&format!("{what}: {rate:.1} tok/s, TTFT {ttft}")),
            (None, None) => {}
        }
        progress.advance(1);
        samples.push(timing);
    }
    let power = sampler.and_then(Sampler::stop);
    if samples.len() == 1 {
        return Err(CollectError::Request(format!(
            "every sample failed: {}",
            failed.join("; ")
        )));
    }
    let after = scrape(&target).await;
    let slots = target.client.slots_context().await;
    Ok(Measured {
        engine: (before.1, after.1),
        before: before.0,
        after: after.0,
        slots,
        failed,
        mismatch,
        forced,
        target,
        samples,
        power,
        counted,
        spread: None,
    })
}

/// How the server differs from the profile: its model (not one of `profile_names`) and its
/// context (not `profile_context`), refused unless `--force`; with it, said on the terminal
/// and returned in words, the context as the field the run holds as served.
fn differences(
    target: &Target,
    options: &RunOptions,
    profile_names: &[String],
    profile_context: Option<u64>,
    progress: &Progress,
) -> Result<(Vec<String>, Vec<data::Forced>), CollectError> {
    let names: Vec<&str> = profile_names.iter().map(String::as_str).collect();
    let mut mismatch = Vec::new();
    let mut forced = Vec::new();
    let mut differs = |what: String| {
        if !options.force {
            return Err(CollectError::Usage(format!(
                "{what}: measure it with the profile of what the server serves, or give --force to record it as {} anyway",
                options.profile
            )));
        }
        progress.line(&format!("warning: {what}; recorded anyway (--force)"));
        mismatch.push(what);
        Ok(())
    };
    if let Err(what) = super::target::serves(target, &options.profile, &names) {
        differs(what)?;
    }
    // The context is the run's own field, which `check` holds to the profile.
    if let (Some(served), Some(asked)) = (target.max_model_len, profile_context)
        && served != asked
    {
        let overrides = overrides_text(&options.overrides);
        let with = if overrides.is_empty() {
            String::new()
        } else {
            format!(" with {overrides}")
        };
        differs(format!(
            "the server serves a context of {served} tokens, but profile {}{with} gives MAX_MODEL_LEN={asked}",
            options.profile
        ))?;
        forced.push(data::Forced {
            field: "max_model_len".into(),
            profile: asked.to_string(),
            served: served.to_string(),
        });
    }
    Ok((mismatch, forced))
}

/// The KV pool in tokens: from `/metrics` or the log, else the context llama.cpp's slots
/// share; how it was read goes into `notes`, and what is missing or approximate into `gaps`.
fn kv_tokens(
    slots: Option<(u64, usize)>,
    after: &Result<Metrics, String>,
    log: Option<&str>,
    notes: &mut Vec<String>,
    gaps: &mut Vec<String>,
) -> Option<u64> {
    let mut kv = kv_pool(after.as_ref().ok(), log);
    if kv.is_none()
        && let Some((tokens, slots)) = slots
    {
        notes.push(format!(
            "kv_tokens is the context the server gives its {slots} slots (GET /slots: the sum of their n_ctx)."
        ));
        kv = Some((tokens, KvSource::Slots));
    }
    match kv {
        Some((tokens, source)) => {
            if source == KvSource::Blocks {
                gaps.push("kv_tokens is num_gpu_blocks × block_size (the server reports no kv_cache_size_tokens); exact only for single-group full-attention models".into());
            }
            Some(tokens)
        }
        None => {
            gaps.push(format!(
                "{}; kv_tokens and max_concurrency are left out",
                metrics_gap(
                    after,
                    "reports no KV-cache pool (vllm:cache_config_info, sglang:max_total_num_tokens)"
                )
            ));
            None
        }
    }
}

/// The author's link to the comparison that measures the run being replaced, which stays.
fn kept_quality(doc: &Results, id: &Id) -> Option<data::QualityLink> {
    doc.runs
        .iter()
        .find(|run| &run.id == id)
        .and_then(|run| run.quality.clone())
}

/// What a run's samples asked for and how it measured them: one stream, the prompt (its
/// tokens as the server counted them), the cold request discarded, no cache isolation (every
/// sample sends the same prompt).
fn run_method(
    options: &RunOptions,
    samples: &[Timing],
    prompt: &str,
    usage_only: bool,
) -> (data::Workload, data::RecordMethod) {
    use sha2::Digest;
    let workload = data::Workload {
        prompt_words: None,
        prompt_tokens: samples
            .iter()
            .find_map(|t| t.usage.and_then(|u| u.prompt_tokens)),
        output_tokens: options.params.max_tokens,
        rounds: options.params.samples as u64,
        ignore_eos: false,
        thinking: false,
        min_requests: None,
        arrivals: None,
        dataset: None,
        lengths: None,
        shared_prefix: None,
    };
    let sha = sha2::Sha256::digest(format!("{prompt}\n").as_bytes());
    let method = data::RecordMethod {
        version: super::defaults::METHOD_VERSION,
        client: super::defaults::CLIENT.to_owned(),
        prompt_source: if options.params.prompt.is_some() {
            "the prompt given with --prompt".into()
        } else {
            "the document's method.prompt".into()
        },
        prompt_sha256: sha.iter().map(|b| format!("{b:02x}")).collect(),
        warmup: 1,
        token_count: if usage_only {
            "usage".into()
        } else {
            "usage where the server sent it, else counted as the notes say".into()
        },
        cache: data::CacheIsolation::None,
    };
    (workload, method)
}

/// The decode request: the method's prompt through the chat template, thinking off, greedy,
/// no ignore_eos (speculative decoding should see natural text).
pub(crate) fn decode_body(target: &Target, prompt: &str, max_tokens: u64) -> Value {
    target
        .server
        .chat_stream(&target.model, prompt, max_tokens, false)
}

/// The mean power and the joules per output token of a window that gave `tokens`, rounded as
/// the record keeps them; nothing without a reading.
pub(super) fn energy(power: Option<Drawn>, tokens: f64) -> (Option<f64>, Option<f64>) {
    let Some(drawn) = power else {
        return (None, None);
    };
    (
        Some(stats::round(drawn.watts, 1)),
        drawn.joules_per(tokens).map(|j| stats::round(j, 4)),
    )
}

/// The KV pool: the metrics label, then the start-up log, then blocks × block size.
fn kv_pool(metrics: Option<&Metrics>, log: Option<&str>) -> Option<(u64, KvSource)> {
    let pool = metrics.and_then(|m| m.kv_pool);
    match pool {
        Some(pool) if matches!(pool.source, KvSource::Label | KvSource::Gauge) => {
            Some((pool.tokens, pool.source))
        }
        _ => log
            .and_then(server_log::kv_tokens)
            .map(|tokens| (tokens, KvSource::Log))
            .or(pool.map(|pool| (pool.tokens, pool.source))),
    }
}

/// Shape and precision: as given, else from an earlier run or failure of the checkpoint.
fn model_facts(
    doc: &Results,
    checkpoint: &str,
    options: &RunOptions,
) -> Result<(String, String), CollectError> {
    let earlier = doc.runs.iter().find(|run| run.checkpoint == checkpoint);
    let shape = options
        .shape
        .clone()
        .or_else(|| earlier.map(|run| run.shape.clone()))
        .ok_or_else(|| {
            CollectError::Usage(format!(
                "no run of {checkpoint} yet: give --shape (e.g. \"MoE, 35B total / 3B active\")"
            ))
        })?;
    let precision = options
        .precision
        .clone()
        .or_else(|| earlier.map(|run| run.precision.clone()))
        .or_else(|| {
            doc.failures
                .iter()
                .find(|failure| failure.checkpoint == checkpoint)
                .map(|failure| failure.precision.clone())
        })
        .ok_or_else(|| {
            CollectError::Usage(format!(
                "no run of {checkpoint} yet: give --precision (e.g. NVFP4)"
            ))
        })?;
    Ok((shape, precision))
}

/// The overrides as a run records them: `KEY=VALUE` pairs, EXTRA_ARGS last.
pub fn overrides_text(overrides: &[Setting]) -> String {
    let mut pairs: Vec<&Setting> = overrides.iter().filter(|s| s.key != "EXTRA_ARGS").collect();
    pairs.extend(overrides.iter().filter(|s| s.key == "EXTRA_ARGS"));
    pairs
        .iter()
        .map(|setting| format!("{}={}", setting.key, setting.value))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Where a launched server's log goes.
pub fn log_path(layout: &Layout, id: &str) -> PathBuf {
    layout
        .root
        .join("data")
        .join("logs")
        .join(format!("{id}.log"))
}

/// The failure record of a launch of `effective` that did not serve.
pub fn failure(
    id: &Id,
    effective: &Effective,
    precision: &str,
    overrides: &str,
    diagnosis: Diagnosis,
) -> Failure {
    Failure {
        id: id.clone(),
        checkpoint: effective.get("MODEL").unwrap_or_default().to_owned(),
        precision: precision.to_owned(),
        weights_gib: diagnosis.weights_gib,
        status: diagnosis.status,
        config: (!overrides.is_empty()).then(|| overrides.to_owned()),
        profile: Some(effective.profile.clone()),
        settings: effective.pairs(),
        reason: diagnosis.reason,
        engine: Some(diagnosis.engine),
        server: diagnosis.server,
        log: None,
        provenance: None,
    }
}

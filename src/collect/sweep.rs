//! `collect sweep`: for each concurrency level, `concurrency × rounds` requests with exactly
//! `concurrency` in flight, each with its own deterministic prompt; a failed request is
//! counted and never stops the sweep, and Ctrl-C keeps the levels already finished.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::client::{Client, Endpoint};
use super::decode::{failure, log_path, overrides_text};
use super::launch::{self, LaunchOptions, Phase};
use super::progress::Progress;
use super::prompt::prompt;
use super::stream::{RequestError, Timing};
use super::{CollectError, Outcome, ServerOptions, connect, interrupted};
use crate::data::{self, Date, Dimensions, Id, LevelStatus, Sweep, SweepLevel, Workload};
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
    /// The concurrency levels, increasing.
    pub levels: Vec<u64>,
    /// The shape of every request.
    pub workload: Workload,
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
}

/// The requests of one level as they came back.
#[derive(Debug, Default)]
pub struct Level {
    /// The requests that streamed to the end.
    pub timings: Vec<Timing>,
    /// The ones that failed, and why.
    pub errors: Vec<RequestError>,
    /// First request sent → last one finished.
    pub wall: Duration,
}

/// A streamed chat request of the sweep's workload. Every sampling field is explicit.
pub fn request_body(model: &str, prompt: &str, workload: &Workload) -> Value {
    let mut body =
        super::client::chat_stream(model, prompt, workload.output_tokens, workload.thinking);
    body["ignore_eos"] = json!(workload.ignore_eos);
    body
}

/// Sends every body with exactly `concurrency` requests in flight until all are done.
pub async fn run_level(
    client: &Client,
    endpoint: Endpoint,
    bodies: Vec<Value>,
    concurrency: usize,
    progress: &Progress,
) -> Level {
    let bodies = Arc::new(bodies);
    let next = Arc::new(AtomicUsize::new(0));
    let started = Instant::now();
    let (done, mut finished) = tokio::sync::mpsc::unbounded_channel();
    let workers: Vec<_> = (0..concurrency.max(1))
        .map(|_| {
            let (client, bodies, next, done) =
                (client.clone(), bodies.clone(), next.clone(), done.clone());
            tokio::spawn(async move {
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    let Some(body) = bodies.get(index) else {
                        return;
                    };
                    let result = client.stream(endpoint, body).await;
                    if done.send(result).is_err() {
                        return;
                    }
                }
            })
        })
        .collect();
    drop(done);
    let mut level = Level::default();
    while let Some(result) = finished.recv().await {
        match result {
            Ok(timing) => level.timings.push(timing),
            Err(error) => level.errors.push(error),
        }
        progress.advance(1);
    }
    level.wall = started.elapsed();
    for worker in workers {
        let _ = worker.await;
    }
    level
}

impl Level {
    /// The level as the results document records it.
    pub fn summary(&self, concurrency: u64, requests: u64) -> SweepLevel {
        let succeeded = self.timings.len() as u64;
        let seconds =
            |values: Vec<f64>, q: f64| stats::quantile(&values, q).map(|v| stats::round(v, 4));
        let ttfts: Vec<f64> = self.timings.iter().map(|t| t.ttft.as_secs_f64()).collect();
        let latencies: Vec<f64> = self
            .timings
            .iter()
            .map(|t| t.latency.as_secs_f64())
            .collect();
        let median_count = |counts: Vec<f64>| stats::median(&counts).map(|v| v.round() as u64);
        let output: Vec<f64> = self
            .timings
            .iter()
            .filter_map(|t| t.output_tokens())
            .map(|n| n as f64)
            .collect();
        let prompt: Vec<f64> = self
            .timings
            .iter()
            .filter_map(|t| t.usage.and_then(|u| u.prompt_tokens))
            .map(|n| n as f64)
            .collect();
        let rates: Vec<f64> = self
            .timings
            .iter()
            .filter_map(Timing::decode_rate)
            .collect();
        let total_output: f64 = output.iter().sum();
        let wall = self.wall.as_secs_f64();
        let ok = succeeded > 0;
        SweepLevel {
            concurrency,
            requests,
            succeeded,
            failed: requests - succeeded,
            status: if ok {
                LevelStatus::Ok
            } else {
                LevelStatus::Failed
            },
            prompt_tokens: median_count(prompt),
            output_tokens: median_count(output),
            ttft_p50_s: seconds(ttfts.clone(), 0.5),
            ttft_p95_s: seconds(ttfts, 0.95),
            decode_tok_s_per_stream: stats::mean(&rates).map(|v| stats::round(v, 1)),
            total_tok_s: (ok && wall > 0.0 && total_output > 0.0)
                .then(|| stats::round(total_output / wall, 1)),
            latency_p50_s: seconds(latencies.clone(), 0.5),
            latency_p95_s: seconds(latencies, 0.95),
        }
    }
}

/// Runs the sweep; see the module documentation.
pub async fn sweep(
    layout: &Layout,
    options: &SweepOptions,
    progress: &Progress,
) -> Result<Outcome<Sweep>, CollectError> {
    let doc = data::load(&layout.results())?;
    super::refuse_existing(
        !options.replace && doc.sweeps.iter().any(|s| s.label == options.label),
        &format!("a sweep labelled {:?}", options.label),
    )?;
    if options.levels.is_empty()
        || options.levels.windows(2).any(|w| w[0] >= w[1])
        || options.levels[0] == 0
    {
        return Err(CollectError::Usage(
            "--levels: expected increasing concurrencies of at least 1, e.g. 1,2,4,8".into(),
        ));
    }
    let effective = match &options.profile {
        Some((name, overrides)) => Some((
            profiles::load(&layout.profiles(), name)?.effective(overrides),
            overrides,
        )),
        None => None,
    };
    let failed_launch = |diagnosis| -> Result<Outcome<Sweep>, CollectError> {
        let (effective, overrides) = effective.as_ref().expect("launched from a profile");
        let checkpoint = effective.get("MODEL").unwrap_or_default();
        Ok(Outcome::Failed(failure(
            &Id::new(&slug_of(options)).map_err(CollectError::Usage)?,
            checkpoint,
            &precision_of(&doc, checkpoint, options)?,
            &overrides_text(overrides),
            diagnosis,
        )))
    };
    let slug = slug_of(options);
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
    let target = connect(&options.server).await?;
    let workload = &options.workload;
    let mut levels = Vec::new();
    let mut stopped = None;
    for (index, &concurrency) in options.levels.iter().enumerate() {
        let requests = concurrency * workload.rounds;
        let bodies = (0..requests)
            .map(|n| {
                let seed = (index as u64 + 1) * 1_000_000 + n;
                request_body(
                    &target.model,
                    &prompt(workload.prompt_words, seed),
                    workload,
                )
            })
            .collect();
        progress.step(&format!("concurrency {concurrency}: {requests} requests"));
        let level = tokio::select! {
            level = run_level(&target.client, Endpoint::Chat, bodies, concurrency as usize, progress) => level,
            () = interrupted() => {
                stopped = Some(format!("interrupted (Ctrl-C) during concurrency {concurrency}"));
                break;
            }
        };
        let summary = level.summary(concurrency, requests);
        if let Some(error) = level.errors.first() {
            progress.line(&format!(
                "concurrency {concurrency}: {} of {requests} requests failed; the first: {error}",
                level.errors.len()
            ));
        }
        progress.line(&level_line(&summary));
        let all_failed = summary.status == LevelStatus::Failed;
        levels.push(summary);
        if all_failed {
            let died = launched.as_mut().and_then(|server| server.exited());
            let healthy = matches!(target.client.health().await, Ok(200));
            if died.is_some() || !healthy {
                if let (Some(server), true) = (launched.as_ref(), levels.len() == 1) {
                    // Nothing ever succeeded: the configuration failed under load.
                    let diagnosis = server.diagnose(
                        Phase::FirstRequest,
                        &format!("stopped answering at concurrency {concurrency}"),
                    );
                    return failed_launch(diagnosis);
                }
                stopped = Some(format!(
                    "the server stopped answering at concurrency {concurrency}"
                ));
                break;
            }
        }
    }
    drop(launched);
    if levels.is_empty() {
        return Err(match stopped {
            Some(_) => CollectError::Interrupted,
            None => CollectError::Server("no level finished".into()),
        });
    }
    let mut notes: Vec<String> = options.notes.iter().cloned().collect();
    if let Some(why) = &stopped {
        notes.push(format!("Stopped early: {why}; the levels before are kept."));
    }
    let record = Sweep {
        label: options.label.clone(),
        id: options.id.clone(),
        model: target.model.clone(),
        base_url: options.server.base_url.clone(),
        generated: options.today.clone(),
        vllm_version: target.vllm_version.clone(),
        max_model_len: target.max_model_len,
        workload: workload.clone(),
        dimensions: dimensions(
            &target.model,
            &levels,
            workload,
            effective.as_ref().map(|(e, _)| e),
            &options.dimensions,
        ),
        levels,
        notes: (!notes.is_empty()).then(|| notes.join(" ")),
    };
    Ok(match stopped {
        Some(why) => Outcome::Partial { record, why },
        None => Outcome::Measured {
            record,
            warnings: Vec::new(),
        },
    })
}

fn slug_of(options: &SweepOptions) -> String {
    data::rules::permalink(options.id.as_ref(), &options.label)
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

/// The figures of a level its terminal line shows, by key.
const LINE: [&str; 4] = [
    "ttft_p50_s",
    "latency_p50_s",
    "decode_tok_s_per_stream",
    "total_tok_s",
];

/// One level in a line, for the terminal; durations under a second in milliseconds.
fn level_line(level: &SweepLevel) -> String {
    let shown: Vec<String> = LINE
        .iter()
        .map(|key| {
            let field = &data::figures::level_field(key).field;
            let value = (field.get)(level).and_then(|v| v.number());
            let text = match (value, field.unit) {
                (None, _) => crate::format::MISSING.to_owned(),
                (Some(s), "s") if s < 1.0 => format!("{:.1} ms", s * 1e3),
                (Some(s), "s") => format!("{s:.2} s"),
                (Some(v), unit) => format!("{v:.1} {unit}"),
            };
            format!("{} {text}", data::figures::level_field(key).series)
        })
        .collect();
    format!(
        "concurrency {:>3}: {}/{} ok, {}",
        level.concurrency,
        level.succeeded,
        level.requests,
        shown.join(", ")
    )
}

/// What distinguishes the sweep: the model, prompt and output lengths, and from the profile
/// the sequences, vision, CUDA graphs and MTP; then the ones given by hand.
fn dimensions(
    model: &str,
    levels: &[SweepLevel],
    workload: &Workload,
    effective: Option<&profiles::Effective>,
    given: &[(String, String)],
) -> Dimensions {
    let on = |yes: bool| crate::format::switch(yes).to_owned();
    let mut dims = Dimensions::new();
    dims.insert("model".into(), model.to_owned());
    if let Some(tokens) = levels.iter().find_map(|l| l.prompt_tokens) {
        dims.insert("prompt".into(), format!("{tokens} tok"));
    }
    dims.insert("output".into(), format!("{} tok", workload.output_tokens));
    if let Some(effective) = effective {
        if let Some(seqs) = effective.get("MAX_NUM_SEQS") {
            dims.insert("seqs".into(), seqs.to_owned());
        }
        dims.insert("vision".into(), on(data::rules::vision(effective)));
        dims.insert("graphs".into(), on(data::rules::cuda_graphs(effective)));
        dims.insert("mtp".into(), on(data::rules::spec_decode(effective)));
    }
    for (key, value) in given {
        dims.insert(key.clone(), value.clone());
    }
    dims
}

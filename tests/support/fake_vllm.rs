//! A fake vLLM server for the collection tests: the OpenAI protocol subset `collect` uses,
//! with scripted timing (TTFT, delay between chunks, tokens per chunk), the chat endpoint's
//! role-only first chunk, the usage chunk, `/metrics` with the cache config and the
//! speculative-decoding counters, a limit of sequences in flight (the rest queue), and
//! scripted faults: HTTP 500s, streams cut short, stalls, errors inside the stream, and dying;
//! and a deterministic fake model for the quality captures.

#![allow(dead_code)]

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Value, json};
use tokio::sync::{Semaphore, mpsc, watch};
use tokio::time::Instant;

/// How the server behaves.
#[derive(Debug, Clone)]
pub struct Script {
    pub model: String,
    pub max_model_len: u64,
    pub version: Option<String>,
    /// Request start (after queueing) → first token chunk.
    pub ttft: Duration,
    /// Between token chunks.
    pub chunk_interval: Duration,
    /// Tokens each chunk carries.
    pub tokens_per_chunk: u64,
    /// Tokens per answer, at most max_tokens.
    pub tokens: u64,
    /// Sequences served at once; the rest wait.
    pub max_seqs: usize,
    /// The KV pool label, if any.
    pub kv_tokens: Option<u64>,
    /// Draft tokens proposed and accepted per request, if speculative.
    pub spec: Option<(u64, u64)>,
    /// The first request's drafted and accepted tokens, when they differ from `spec`'s.
    pub first_spec: Option<(u64, u64)>,
    /// Whether the usage chunk is sent.
    pub usage: bool,
    /// Request numbers (1-based) that get an HTTP 500.
    pub fail: Vec<u64>,
    /// Request numbers whose stream is cut after half the chunks, without [DONE].
    pub cut: Vec<u64>,
    /// Request numbers whose stream stalls after two chunks.
    pub stall: Vec<u64>,
    /// Request numbers that get an error object inside the stream.
    pub error_in_stream: Vec<u64>,
    /// The server shuts down once this many requests have finished.
    pub die_after: Option<u64>,
    /// A file created when the first chat request arrives (a fake launcher can watch it).
    pub touch_on_first_request: Option<PathBuf>,
    /// Shifts the next-token distributions (0: the reference distributions).
    pub perturbation: f64,
    /// Answers without prompt_logprobs, as llama.cpp's server does.
    pub no_prompt_logprobs: bool,
    /// Run-to-run noise: every second scoring of the same prompt (by arrival) is shifted by
    /// this much more than `perturbation`.
    pub jitter: f64,
    /// A request field answered with HTTP 500 and a validation error naming it, as
    /// llama-cpp-python answers `top_k: -1`.
    pub refuse: Option<String>,
    /// Whether `/health` exists (llama-cpp-python has none: 404).
    pub health: bool,
    /// Answers `/props` with this `build_info` and lists the model as `owned_by: llamacpp`,
    /// as llama.cpp's llama-server does.
    pub llama_server: Option<String>,
    /// `/metrics` served as is, instead of the scripted families.
    pub metrics_text: Option<String>,
    /// `/health` answers 503 while this file is missing: the server of a stand-in launcher,
    /// ready once it started and gone once it stopped.
    pub ready_file: Option<PathBuf>,
    /// A last chunk without text carrying this finish reason, this long after the last text
    /// chunk (as vLLM ends on a stop string); none when `None`.
    pub finish: Option<(String, Duration)>,
    /// Request numbers whose finish chunk says `abort` instead.
    pub abort: Vec<u64>,
    /// Prompt tokens the usage report says came from the prefix cache, per request.
    pub cached_tokens: Option<u64>,
    /// With `spec`: draft steps per request, and the tokens accepted at each draft position by
    /// the first request and by each later one (vLLM's `num_drafts` and
    /// `num_accepted_tokens_per_pos` counters).
    pub spec_steps: Option<(u64, Vec<u64>, Vec<u64>)>,
    /// With `spec`: the drafted and accepted tokens of a chat request whose last message
    /// contains the text, instead of `spec`'s.
    pub spec_by_text: Vec<(String, (u64, u64))>,
    /// Text chunks written together, this many at a time (0 or 1: each on its own), as a
    /// proxy that buffers the stream delivers them.
    pub burst: usize,
    /// Whether `/metrics` has vLLM's own latency histograms and generated-token counter.
    pub engine_metrics: bool,
}

impl Default for Script {
    fn default() -> Self {
        Self {
            model: "Fake-Model-7B".into(),
            max_model_len: 32768,
            version: Some("0.28.0".into()),
            ttft: Duration::from_millis(40),
            chunk_interval: Duration::from_millis(4),
            tokens_per_chunk: 1,
            tokens: 300,
            max_seqs: 64,
            kv_tokens: Some(131_072),
            spec: None,
            first_spec: None,
            usage: true,
            fail: Vec::new(),
            cut: Vec::new(),
            stall: Vec::new(),
            error_in_stream: Vec::new(),
            die_after: None,
            touch_on_first_request: None,
            perturbation: 0.0,
            no_prompt_logprobs: false,
            jitter: 0.0,
            refuse: None,
            health: true,
            llama_server: None,
            metrics_text: None,
            ready_file: None,
            finish: None,
            abort: Vec::new(),
            cached_tokens: None,
            spec_steps: None,
            spec_by_text: Vec::new(),
            burst: 0,
            engine_metrics: true,
        }
    }
}

struct Shared {
    script: Script,
    seqs: Semaphore,
    started: AtomicU64,
    finished: AtomicU64,
    in_flight: AtomicUsize,
    peak: AtomicUsize,
    /// Prompt tokens of every chat or completion request so far.
    prompt_tokens_seen: AtomicU64,
    bodies: Mutex<Vec<Value>>,
    /// The Authorization header of each chat request, empty when there was none.
    authorizations: Mutex<Vec<String>>,
    /// Scorings so far, by prompt.
    scorings: Mutex<std::collections::HashMap<Vec<u32>, u64>>,
    /// What `spec_by_text` added to the drafted and accepted counters beyond `spec`'s.
    spec_extra: Mutex<(i64, i64)>,
    /// What each chat request really got, by request number.
    traces: Mutex<std::collections::BTreeMap<u64, Trace>>,
    /// The engine's own timing of every answer it finished, for its `/metrics` histograms.
    engine: Mutex<Engine>,
    die: watch::Sender<bool>,
}

/// vLLM's own histograms' sums and counts, by its definitions (`vllm/v1/metrics/stats.py`):
/// per finished request, arrival → first token, its (last − first token) / (tokens − 1) and
/// arrival → last token, each timed as its tokens were made (handed on, before any proxy);
/// per chunk after the first, the gap since the one before; and the tokens generated.
#[derive(Debug, Default, Clone, Copy)]
pub struct Engine {
    pub requests: u64,
    pub ttft: f64,
    pub tpot: f64,
    pub e2e: f64,
    pub itl: f64,
    pub itl_count: u64,
    pub tokens: u64,
}

/// When one chat request's handler ran and when each chunk carrying text was handed to the
/// connection, in this process's clock: what the server really did, timers' lateness on a
/// loaded machine included, for tests to hold the client's figures to.
#[derive(Debug, Clone)]
pub struct Trace {
    pub arrived: std::time::Instant,
    pub text_sent: Vec<std::time::Instant>,
    /// Tokens generated (those the usage chunk reports).
    pub tokens: u64,
}

impl Trace {
    /// Arrival → first text chunk, in seconds.
    pub fn ttft(&self) -> f64 {
        (self.text_sent[0] - self.arrived).as_secs_f64()
    }

    /// Arrival → last text chunk, in seconds.
    pub fn latency(&self) -> f64 {
        (*self.text_sent.last().unwrap() - self.arrived).as_secs_f64()
    }

    /// (tokens − 1) / (last text chunk − first), in tok/s.
    pub fn decode_rate(&self) -> f64 {
        let span = *self.text_sent.last().unwrap() - self.text_sent[0];
        (self.tokens - 1) as f64 / span.as_secs_f64()
    }

    /// The decode rates a client can measure for this request when it sees the first and the
    /// last text chunk each late by a different amount, at most `slack` seconds apart:
    /// (tokens − 1) / (span ± slack).
    pub fn decode_rates_within(&self, slack: f64) -> std::ops::RangeInclusive<f64> {
        let span = (*self.text_sent.last().unwrap() - self.text_sent[0]).as_secs_f64();
        let tokens = (self.tokens - 1) as f64;
        tokens / (span + slack)..=tokens / (span - slack)
    }
}

/// A running fake server; dropping it stops it.
pub struct FakeVllm {
    pub addr: SocketAddr,
    shared: Arc<Shared>,
    runtime: Option<tokio::runtime::Runtime>,
}

impl FakeVllm {
    /// Starts on a free port of 127.0.0.1.
    pub fn start(script: Script) -> Self {
        Self::start_on(script, 0)
    }

    /// Starts on `port` (0: any free one).
    pub fn start_on(script: Script, port: u16) -> Self {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let (die, mut dead) = watch::channel(false);
        let shared = Arc::new(Shared {
            seqs: Semaphore::new(script.max_seqs),
            script,
            started: AtomicU64::new(0),
            finished: AtomicU64::new(0),
            spec_extra: Mutex::new((0, 0)),
            in_flight: AtomicUsize::new(0),
            peak: AtomicUsize::new(0),
            prompt_tokens_seen: AtomicU64::new(0),
            bodies: Mutex::new(Vec::new()),
            authorizations: Mutex::new(Vec::new()),
            scorings: Mutex::new(std::collections::HashMap::new()),
            traces: Mutex::new(std::collections::BTreeMap::new()),
            engine: Mutex::new(Engine::default()),
            die,
        });
        let listener = runtime
            .block_on(tokio::net::TcpListener::bind(("127.0.0.1", port)))
            .unwrap();
        let addr = listener.local_addr().unwrap();
        let app = Router::new()
            .route("/health", get(health))
            .route("/version", get(version))
            .route("/props", get(props))
            .route("/v1/models", get(models))
            .route("/metrics", get(metrics))
            .route("/tokenize", post(tokenize))
            .route("/v1/chat/completions", post(chat))
            .route("/v1/completions", post(completions))
            .with_state(shared.clone());
        // As uvicorn does: without it, Nagle's algorithm holds the first token behind the
        // client's delayed ACK of the role chunk.
        let listener = axum::serve::ListenerExt::tap_io(listener, |tcp| {
            let _ = tcp.set_nodelay(true);
        });
        runtime.spawn(async move {
            axum::serve(listener, app)
                .with_graceful_shutdown(async move {
                    let _ = dead.wait_for(|dead| *dead).await;
                })
                .await
                .unwrap();
        });
        Self {
            addr,
            shared,
            runtime: Some(runtime),
        }
    }

    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Requests that reached a generation endpoint.
    pub fn requests(&self) -> u64 {
        self.shared.started.load(Ordering::SeqCst)
    }

    /// The most generation requests open at once.
    pub fn peak_in_flight(&self) -> usize {
        self.shared.peak.load(Ordering::SeqCst)
    }

    /// Every generation request's body.
    pub fn bodies(&self) -> Vec<Value> {
        self.shared.bodies.lock().unwrap().clone()
    }

    /// The Authorization header of each chat request.
    pub fn authorizations(&self) -> Vec<String> {
        self.shared.authorizations.lock().unwrap().clone()
    }

    /// The engine's own timing so far, as its `/metrics` histograms say it.
    pub fn engine(&self) -> Engine {
        *self.shared.engine.lock().unwrap()
    }

    /// The trace of every chat request that sent text, by request number.
    pub fn traces(&self) -> Vec<(u64, Trace)> {
        let traces = self.shared.traces.lock().unwrap();
        traces
            .iter()
            .filter(|(_, trace)| !trace.text_sent.is_empty())
            .map(|(number, trace)| (*number, trace.clone()))
            .collect()
    }
}

impl Drop for FakeVllm {
    fn drop(&mut self) {
        let _ = self.shared.die.send(true);
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_timeout(Duration::from_secs(1));
        }
    }
}

/// Whether process `pid` runs: it exists and is not a zombie waiting for a parent to reap it
/// (a dead benchsite's children are reparented, and not every machine's init reaps at once).
pub fn running(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| {
            let state = stat[stat.rfind(')')? + 1..]
                .split_whitespace()
                .next()?
                .to_owned();
            Some(state != "Z")
        })
        .unwrap_or(false)
}

async fn health(State(shared): State<Arc<Shared>>) -> StatusCode {
    // Ready while the file exists and, where it names the stand-in's pid, that process lives:
    // a stand-in killed without its trap running (SIGKILL) takes the server down with it.
    if let Some(file) = &shared.script.ready_file {
        let Ok(text) = std::fs::read_to_string(file) else {
            return StatusCode::SERVICE_UNAVAILABLE;
        };
        if let Ok(pid) = text.trim().parse::<u32>()
            && !running(pid)
        {
            return StatusCode::SERVICE_UNAVAILABLE;
        }
    }
    match shared.script.health {
        true => StatusCode::OK,
        false => StatusCode::NOT_FOUND,
    }
}

async fn props(State(shared): State<Arc<Shared>>) -> Response {
    match &shared.script.llama_server {
        Some(build) => json_response(
            json!({"build_info": build, "total_slots": 1, "default_generation_settings": {"n_ctx": shared.script.max_model_len}}),
        ),
        None => StatusCode::NOT_FOUND.into_response(),
    }
}

async fn version(State(shared): State<Arc<Shared>>) -> Response {
    match &shared.script.version {
        Some(version) => json_response(json!({ "version": version })),
        None => StatusCode::NOT_FOUND.into_response(),
    }
}

async fn models(State(shared): State<Arc<Shared>>) -> Response {
    let script = &shared.script;
    json_response(json!({
        "object": "list",
        "data": [{"id": script.model, "object": "model", "owned_by": if script.llama_server.is_some() { "llamacpp" } else { "vllm" }, "root": format!("example/{}", script.model), "max_model_len": script.max_model_len}],
    }))
}

async fn metrics(State(shared): State<Arc<Shared>>) -> Response {
    let script = &shared.script;
    if let Some(text) = &script.metrics_text {
        return text.clone().into_response();
    }
    // What vLLM says of its scheduler: the requests it runs (at most max_seqs), those that
    // wait, the share of the KV cache the running ones hold (each its share of the sequences),
    // no preemption, and the prompt tokens looked up in the prefix cache and found there.
    let open = shared.in_flight.load(Ordering::SeqCst);
    let running = open.min(script.max_seqs);
    let hits = script.cached_tokens.unwrap_or(0) * shared.finished.load(Ordering::SeqCst);
    let mut text = format!(
        "# HELP vllm:num_requests_running Number of requests.\n# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running{{engine=\"0\",model_name=\"m\"}} {running}.0\n# HELP vllm:num_requests_waiting Waiting.\n# TYPE vllm:num_requests_waiting gauge\nvllm:num_requests_waiting{{engine=\"0\",model_name=\"m\"}} {}.0\n# HELP vllm:kv_cache_usage_perc KV-cache usage. 1 means 100 percent usage.\n# TYPE vllm:kv_cache_usage_perc gauge\nvllm:kv_cache_usage_perc{{engine=\"0\",model_name=\"m\"}} {}\n# HELP vllm:num_preemptions_total Preemptions.\n# TYPE vllm:num_preemptions_total counter\nvllm:num_preemptions_total{{engine=\"0\",model_name=\"m\"}} 0.0\n# HELP vllm:prefix_cache_queries_total Prefix cache queries, in terms of number of queried tokens.\n# TYPE vllm:prefix_cache_queries_total counter\nvllm:prefix_cache_queries_total{{engine=\"0\",model_name=\"m\"}} {}.0\n# HELP vllm:prefix_cache_hits_total Prefix cache hits, in terms of number of cached tokens.\n# TYPE vllm:prefix_cache_hits_total counter\nvllm:prefix_cache_hits_total{{engine=\"0\",model_name=\"m\"}} {hits}.0\n",
        open - running,
        running as f64 / script.max_seqs.max(1) as f64,
        shared.prompt_tokens_seen.load(Ordering::SeqCst),
    );
    if script.engine_metrics {
        let engine = *shared.engine.lock().unwrap();
        let n = engine.requests;
        for (name, sum, count) in [
            ("vllm:time_to_first_token_seconds", engine.ttft, n),
            ("vllm:request_time_per_output_token_seconds", engine.tpot, n),
            ("vllm:e2e_request_latency_seconds", engine.e2e, n),
            (
                "vllm:inter_token_latency_seconds",
                engine.itl,
                engine.itl_count,
            ),
        ] {
            text.push_str(&format!("# HELP {name} Histogram.\n# TYPE {name} histogram\n{name}_bucket{{engine=\"0\",le=\"+Inf\",model_name=\"m\"}} {count}.0\n{name}_sum{{engine=\"0\",model_name=\"m\"}} {sum}\n{name}_count{{engine=\"0\",model_name=\"m\"}} {count}.0\n"));
        }
        text.push_str(&format!("# HELP vllm:generation_tokens_total Generation tokens.\n# TYPE vllm:generation_tokens_total counter\nvllm:generation_tokens_total{{engine=\"0\",model_name=\"m\"}} {}.0\n", engine.tokens));
    }
    if let Some(kv) = script.kv_tokens {
        text.push_str(&format!("# HELP vllm:cache_config_info Information of the LLMEngine CacheConfig\n# TYPE vllm:cache_config_info gauge\nvllm:cache_config_info{{block_size=\"16\",cache_dtype=\"fp8\",engine=\"0\",kv_cache_size_tokens=\"{kv}\",num_gpu_blocks=\"{}\"}} 1.0\n", kv / 16));
    }
    if let Some((drafted, accepted)) = script.spec {
        let done = shared.finished.load(Ordering::SeqCst);
        let (first_drafted, first_accepted) = script.first_spec.unwrap_or((drafted, accepted));
        let total = |first: u64, each: u64| match done {
            0 => 0.0,
            n => (first + (n - 1) * each) as f64,
        };
        let (extra_drafted, extra_accepted) = *shared.spec_extra.lock().unwrap();
        text.push_str(&format!("# HELP vllm:spec_decode_num_draft_tokens_total Draft tokens.\n# TYPE vllm:spec_decode_num_draft_tokens_total counter\nvllm:spec_decode_num_draft_tokens_total{{engine=\"0\",model_name=\"m\"}} {:.1}\n", total(first_drafted, drafted) + extra_drafted as f64));
        text.push_str(&format!("# HELP vllm:spec_decode_num_accepted_tokens_total Accepted tokens.\n# TYPE vllm:spec_decode_num_accepted_tokens_total counter\nvllm:spec_decode_num_accepted_tokens_total{{engine=\"0\",model_name=\"m\"}} {:.1}\n", total(first_accepted, accepted) + extra_accepted as f64));
        if let Some((steps, first, each)) = &script.spec_steps {
            text.push_str(&format!("# HELP vllm:spec_decode_num_drafts_total Draft steps.\n# TYPE vllm:spec_decode_num_drafts_total counter\nvllm:spec_decode_num_drafts_total{{engine=\"0\",model_name=\"m\"}} {:.1}\n", total(*steps, *steps)));
            text.push_str("# HELP vllm:spec_decode_num_accepted_tokens_per_pos_total Accepted tokens per position.\n# TYPE vllm:spec_decode_num_accepted_tokens_per_pos_total counter\n");
            for (position, (first, each)) in first.iter().zip(each).enumerate() {
                text.push_str(&format!("vllm:spec_decode_num_accepted_tokens_per_pos_total{{engine=\"0\",model_name=\"m\",position=\"{position}\"}} {:.1}\n", total(*first, *each)));
            }
        }
    }
    text.into_response()
}

/// vLLM's `/tokenize`: every word of the fake's text is one token; messages go through a
/// fake chat template.
async fn tokenize(body: Bytes) -> Response {
    let request: Value = serde_json::from_slice(&body).unwrap();
    if let Some(messages) = request["messages"].as_array() {
        let thinking = request["chat_template_kwargs"]["enable_thinking"] == true;
        let tokens = tokenize_messages(messages, thinking);
        return json_response(
            json!({"count": tokens.len(), "max_model_len": 32768, "tokens": tokens}),
        );
    }
    let count = request["prompt"]
        .as_str()
        .unwrap_or_default()
        .split_whitespace()
        .count();
    json_response(json!({"count": count, "max_model_len": 32768, "tokens": vec![0; count]}))
}

/// The fake chat template: a start token, one token per word, an end token for thinking on
/// or off.
pub fn tokenize_messages(messages: &[Value], thinking: bool) -> Vec<u32> {
    let mut tokens = vec![1];
    for message in messages {
        for word in message["content"]
            .as_str()
            .unwrap_or_default()
            .split_whitespace()
        {
            let hash = word.bytes().fold(2166136261u32, |h, b| {
                (h ^ u32::from(b)).wrapping_mul(16777619)
            });
            tokens.push(hash % VOCAB);
        }
    }
    tokens.push(if thinking { 2 } else { 3 });
    tokens
}

/// The vocabulary of the fake model.
pub const VOCAB: u32 = 64;

/// The fake model's next-token logprobs after `context`, shifted by `perturbation`.
pub fn distribution(context: &[u32], perturbation: f64) -> Vec<f64> {
    let hash = context
        .iter()
        .rev()
        .take(4)
        .fold(7u64, |h, &t| h.wrapping_mul(31).wrapping_add(u64::from(t)));
    let peak = (hash % u64::from(VOCAB)) as usize;
    let logits: Vec<f64> = (0..VOCAB as usize)
        .map(|i| {
            let base = 2.0 * ((hash % 997) as f64 * 0.013 + i as f64 * 0.7).sin();
            let bump = if i == peak { 3.5 } else { 0.0 };
            base + bump + perturbation * ((i as f64) * 1.3 + (hash % 101) as f64 * 0.05).cos()
        })
        .collect();
    let max = logits.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let total: f64 = logits.iter().map(|l| (l - max).exp()).sum();
    logits.iter().map(|l| l - max - total.ln()).collect()
}

/// The `k` most probable tokens (lowest id first on ties).
pub fn top(logprobs: &[f64], k: usize) -> Vec<(u32, f64)> {
    let mut order: Vec<u32> = (0..logprobs.len() as u32).collect();
    order.sort_by(|&a, &b| {
        logprobs[b as usize]
            .total_cmp(&logprobs[a as usize])
            .then(a.cmp(&b))
    });
    order
        .into_iter()
        .take(k)
        .map(|t| (t, logprobs[t as usize]))
        .collect()
}

/// `/v1/completions`: streamed requests are timed like chat; others answer with generation
/// logprobs (keyed `token_id:N`) or prompt logprobs from the fake model.
async fn completions(State(shared): State<Arc<Shared>>, body: Bytes) -> Response {
    let request: Value = serde_json::from_slice(&body).unwrap();
    if request["stream"] == true {
        return chat(State(shared), axum::http::HeaderMap::new(), body).await;
    }
    let script = &shared.script;
    let prompt: Vec<u32> = request["prompt"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_u64().unwrap() as u32)
        .collect();
    let refuse = |what: &str, k: u64| {
        let message = format!("Requested {what} of {k}, which is greater than max allowed: 20");
        (
            StatusCode::BAD_REQUEST,
            [("content-type", "application/json")],
            json!({"error": {"message": message, "type": "BadRequestError", "code": 400}})
                .to_string(),
        )
            .into_response()
    };
    if let Some(k) = request["prompt_logprobs"].as_u64() {
        if k > 20 {
            return refuse("prompt logprobs", k);
        }
        if script.no_prompt_logprobs {
            return json_response(
                json!({"choices": [{"index": 0, "text": "x", "logprobs": null}]}),
            );
        }
        let arrival = {
            let mut scorings = shared.scorings.lock().unwrap();
            let count = scorings.entry(prompt.clone()).or_insert(0);
            *count += 1;
            *count
        };
        let shift = script.perturbation + if arrival % 2 == 0 { script.jitter } else { 0.0 };
        let mut entries = vec![Value::Null];
        for t in 1..prompt.len() {
            let logprobs = distribution(&prompt[..t], shift);
            let actual = prompt[t];
            let mut entry = serde_json::Map::new();
            for (rank, (token, logprob)) in top(&logprobs, logprobs.len()).iter().enumerate() {
                if rank < k as usize || *token == actual {
                    entry.insert(
                        token.to_string(),
                        json!({"logprob": logprob, "rank": rank + 1, "decoded_token": format!("t{token}")}),
                    );
                }
            }
            entries.push(Value::Object(entry));
        }
        return json_response(
            json!({"choices": [{"index": 0, "text": "x", "logprobs": null, "prompt_logprobs": entries}]}),
        );
    }
    let k = request["logprobs"].as_u64().unwrap_or(0);
    if k > 20 {
        return refuse("sample logprobs", k);
    }
    let max_tokens = request["max_tokens"].as_u64().unwrap_or(16);
    let mut context = prompt;
    let (mut tokens, mut token_logprobs, mut tops) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..max_tokens {
        let logprobs = distribution(&context, script.perturbation);
        let best = top(&logprobs, k.max(1) as usize);
        let chosen = best[0].0;
        tokens.push(format!("token_id:{chosen}"));
        token_logprobs.push(logprobs[chosen as usize]);
        let map: serde_json::Map<String, Value> = best
            .iter()
            .map(|(t, lp)| (format!("token_id:{t}"), json!(lp)))
            .collect();
        tops.push(map);
        context.push(chosen);
    }
    json_response(json!({
        "choices": [{"index": 0, "text": "x", "logprobs": {"tokens": tokens, "token_logprobs": token_logprobs, "top_logprobs": tops, "text_offset": []}}],
        "usage": {"prompt_tokens": 0, "completion_tokens": max_tokens},
    }))
}

fn json_response(value: Value) -> Response {
    ([("content-type", "application/json")], value.to_string()).into_response()
}

fn event(value: &Value) -> Bytes {
    Bytes::from(format!("data: {value}\n\n"))
}

async fn chat(
    State(shared): State<Arc<Shared>>,
    headers: axum::http::HeaderMap,
    body: Bytes,
) -> Response {
    shared.authorizations.lock().unwrap().push(
        headers
            .get(axum::http::header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned(),
    );
    let arrived = std::time::Instant::now();
    let request: Value = serde_json::from_slice(&body).unwrap();
    let number = shared.started.fetch_add(1, Ordering::SeqCst) + 1;
    shared.bodies.lock().unwrap().push(request.clone());
    let script = shared.script.clone();
    if let Some((drafted, accepted)) = script.spec {
        let last = request["messages"]
            .as_array()
            .and_then(|m| m.last())
            .and_then(|m| m["content"].as_str())
            .unwrap_or_default();
        if let Some((_, (d, a))) = script.spec_by_text.iter().find(|(t, _)| last.contains(t)) {
            let mut extra = shared.spec_extra.lock().unwrap();
            extra.0 += *d as i64 - drafted as i64;
            extra.1 += *a as i64 - accepted as i64;
        }
    }
    if number == 1
        && let Some(path) = &script.touch_on_first_request
    {
        std::fs::write(path, "").unwrap();
    }
    let open = shared.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
    shared.peak.fetch_max(open, Ordering::SeqCst);
    if script.fail.contains(&number) {
        finish(&shared);
        return (StatusCode::INTERNAL_SERVER_ERROR, "scripted failure").into_response();
    }
    if let Some(field) = script
        .refuse
        .as_ref()
        .filter(|f| request.get(f.as_str()).is_some())
    {
        finish(&shared);
        let message = format!(
            "1 validation error:\n  {{'type': 'greater_than_equal', 'loc': ('body', '{field}'), 'msg': 'Input should be greater than or equal to 0'}}\n\n  File \"app.py\", line 376"
        );
        let body = json!({"error": {"message": message, "type": "internal_server_error"}});
        return (StatusCode::INTERNAL_SERVER_ERROR, json_response(body)).into_response();
    }
    let chat = request.get("messages").is_some();
    let max_tokens = request["max_tokens"].as_u64().unwrap_or(16);
    let tokens = script.tokens.min(max_tokens);
    let prompt_tokens = request["messages"][0]["content"]
        .as_str()
        .or(request["prompt"].as_str())
        .map_or(0, |text| text.split_whitespace().count() as u64 + 10);
    shared
        .prompt_tokens_seen
        .fetch_add(prompt_tokens, Ordering::SeqCst);
    shared.traces.lock().unwrap().insert(
        number,
        Trace {
            arrived,
            text_sent: Vec::new(),
            tokens,
        },
    );
    // Each event goes with whether it carries text, so the body can note when it left.
    let (send, receive) = mpsc::channel::<(Bytes, bool)>(64);
    let shared_task = shared.clone();
    tokio::spawn(async move {
        let shared = shared_task;
        let _seq = shared.seqs.acquire().await.unwrap();
        let start = Instant::now();
        let delta = |text: &str| {
            if chat {
                json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "model": script.model,
                       "choices": [{"index": 0, "delta": {"content": text}, "logprobs": null, "finish_reason": null}]})
            } else {
                json!({"id": "cmpl-1", "object": "text_completion", "model": script.model,
                       "choices": [{"index": 0, "text": text, "logprobs": null, "finish_reason": null}], "usage": null})
            }
        };
        if chat {
            let role = json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "model": script.model,
                              "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}, "logprobs": null, "finish_reason": null}]});
            if send.send((event(&role), false)).await.is_err() {
                return finish(&shared);
            }
        }
        if script.error_in_stream.contains(&number) {
            let error = json!({"error": {"message": "scripted engine error", "type": "InternalServerError", "param": null, "code": 500}});
            let _ = send.send((event(&error), false)).await;
            let _ = send.send((Bytes::from("data: [DONE]\n\n"), false)).await;
            return finish(&shared);
        }
        let chunks = tokens.div_ceil(script.tokens_per_chunk);
        let mut made = Vec::with_capacity(chunks as usize);
        for chunk in 0..chunks {
            if script.cut.contains(&number) && chunk == chunks / 2 {
                return finish(&shared);
            }
            if script.stall.contains(&number) && chunk == 2 {
                tokio::time::sleep(Duration::from_secs(3600)).await;
            }
            tokio::time::sleep_until(start + script.ttft + script.chunk_interval * chunk as u32)
                .await;
            let carried = script
                .tokens_per_chunk
                .min(tokens - chunk * script.tokens_per_chunk);
            let text = " tok".repeat(carried as usize);
            made.push(std::time::Instant::now());
            if send.send((event(&delta(&text)), true)).await.is_err() {
                return finish(&shared);
            }
        }
        if let (Some(first), Some(last)) = (made.first(), made.last()) {
            let mut engine = shared.engine.lock().unwrap();
            engine.requests += 1;
            engine.ttft += (*first - arrived).as_secs_f64();
            engine.e2e += (*last - arrived).as_secs_f64();
            if tokens > 1 {
                engine.tpot += (*last - *first).as_secs_f64() / (tokens - 1) as f64;
            }
            engine.itl += (*last - *first).as_secs_f64();
            engine.itl_count += made.len() as u64 - 1;
            engine.tokens += tokens;
        }
        let reason = if script.abort.contains(&number) {
            Some(("abort".to_owned(), Duration::ZERO))
        } else {
            script.finish.clone()
        };
        if let Some((reason, after)) = reason {
            let last =
                start + script.ttft + script.chunk_interval * chunks.saturating_sub(1) as u32;
            tokio::time::sleep_until(last + after).await;
            let mut end = delta("");
            end["choices"][0]["finish_reason"] = json!(reason);
            if chat {
                end["choices"][0]["delta"] = json!({});
            }
            if send.send((event(&end), false)).await.is_err() {
                return finish(&shared);
            }
        }
        if script.usage {
            let mut usage = json!({"id": "x", "object": "chat.completion.chunk", "model": script.model, "choices": [],
                               "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": tokens, "total_tokens": prompt_tokens + tokens}});
            if let Some(cached) = script.cached_tokens {
                usage["usage"]["prompt_tokens_details"] = json!({"cached_tokens": cached});
            }
            let _ = send.send((event(&usage), false)).await;
        }
        let _ = send.send((Bytes::from("data: [DONE]\n\n"), false)).await;
        finish(&shared);
    });
    // Polled by the connection just before it writes: the moment a text chunk is taken here
    // is when it leaves for the socket.
    let burst = shared.script.burst;
    let stream = futures_util::stream::unfold(receive, move |mut receive| {
        let shared = shared.clone();
        async move {
            let (mut bytes, text) = receive.recv().await?;
            if burst > 1 && text {
                let mut whole = bytes.to_vec();
                let mut texts = 1;
                while texts < burst {
                    let Some((more, text)) = receive.recv().await else {
                        break;
                    };
                    whole.extend_from_slice(&more);
                    texts += usize::from(text);
                }
                bytes = Bytes::from(whole);
            }
            if text {
                let sent = std::time::Instant::now();
                let mut traces = shared.traces.lock().unwrap();
                traces.get_mut(&number).unwrap().text_sent.push(sent);
            }
            Some((Ok::<_, std::io::Error>(bytes), receive))
        }
    });
    Response::builder()
        .header("content-type", "text/event-stream")
        .body(Body::from_stream(stream))
        .unwrap()
}

fn finish(shared: &Shared) {
    shared.in_flight.fetch_sub(1, Ordering::SeqCst);
    let finished = shared.finished.fetch_add(1, Ordering::SeqCst) + 1;
    if shared.script.die_after == Some(finished) {
        let _ = shared.die.send(true);
    }
}

//! A fake vLLM server for the collection tests: the OpenAI protocol subset `collect` uses,
//! with scripted timing (TTFT, delay between chunks, tokens per chunk), the chat endpoint's
//! role-only first chunk, the usage chunk, `/metrics` with the cache config and the
//! speculative-decoding counters, a limit of sequences in flight (the rest queue), and
//! scripted faults: HTTP 500s, streams cut short, stalls, errors inside the stream, and dying.

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
            usage: true,
            fail: Vec::new(),
            cut: Vec::new(),
            stall: Vec::new(),
            error_in_stream: Vec::new(),
            die_after: None,
            touch_on_first_request: None,
        }
    }
}

impl Script {
    /// The decode rate a client should measure for an answer of `tokens` tokens:
    /// (tokens − 1) over the span from the first to the last token chunk.
    pub fn decode_rate(&self, tokens: u64) -> f64 {
        let chunks = tokens.div_ceil(self.tokens_per_chunk);
        (tokens - 1) as f64 / ((chunks - 1) as f64 * self.chunk_interval.as_secs_f64())
    }
}

struct Shared {
    script: Script,
    seqs: Semaphore,
    started: AtomicU64,
    finished: AtomicU64,
    in_flight: AtomicUsize,
    peak: AtomicUsize,
    bodies: Mutex<Vec<Value>>,
    die: watch::Sender<bool>,
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
            in_flight: AtomicUsize::new(0),
            peak: AtomicUsize::new(0),
            bodies: Mutex::new(Vec::new()),
            die,
        });
        let listener = runtime
            .block_on(tokio::net::TcpListener::bind(("127.0.0.1", port)))
            .unwrap();
        let addr = listener.local_addr().unwrap();
        let app = Router::new()
            .route("/health", get(|| async { StatusCode::OK }))
            .route("/version", get(version))
            .route("/v1/models", get(models))
            .route("/metrics", get(metrics))
            .route("/tokenize", post(tokenize))
            .route("/v1/chat/completions", post(chat))
            .route("/v1/completions", post(chat))
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
}

impl Drop for FakeVllm {
    fn drop(&mut self) {
        let _ = self.shared.die.send(true);
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_timeout(Duration::from_secs(1));
        }
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
        "data": [{"id": script.model, "object": "model", "owned_by": "vllm", "max_model_len": script.max_model_len}],
    }))
}

async fn metrics(State(shared): State<Arc<Shared>>) -> Response {
    let script = &shared.script;
    let mut text = String::from(
        "# HELP vllm:num_requests_running Number of requests.\n# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running{engine=\"0\",model_name=\"m\"} 0.0\n",
    );
    if let Some(kv) = script.kv_tokens {
        text.push_str(&format!("# HELP vllm:cache_config_info Information of the LLMEngine CacheConfig\n# TYPE vllm:cache_config_info gauge\nvllm:cache_config_info{{block_size=\"16\",cache_dtype=\"fp8\",engine=\"0\",kv_cache_size_tokens=\"{kv}\",num_gpu_blocks=\"{}\"}} 1.0\n", kv / 16));
    }
    if let Some((drafted, accepted)) = script.spec {
        let done = shared.finished.load(Ordering::SeqCst) as f64;
        text.push_str(&format!("# HELP vllm:spec_decode_num_draft_tokens_total Draft tokens.\n# TYPE vllm:spec_decode_num_draft_tokens_total counter\nvllm:spec_decode_num_draft_tokens_total{{engine=\"0\",model_name=\"m\"}} {:.1}\n", done * drafted as f64));
        text.push_str(&format!("# HELP vllm:spec_decode_num_accepted_tokens_total Accepted tokens.\n# TYPE vllm:spec_decode_num_accepted_tokens_total counter\nvllm:spec_decode_num_accepted_tokens_total{{engine=\"0\",model_name=\"m\"}} {:.1}\n", done * accepted as f64));
    }
    text.into_response()
}

/// vLLM's `/tokenize`: every word of the fake's text is one token.
async fn tokenize(body: Bytes) -> Response {
    let request: Value = serde_json::from_slice(&body).unwrap();
    let count = request["prompt"]
        .as_str()
        .unwrap_or_default()
        .split_whitespace()
        .count();
    json_response(json!({"count": count, "max_model_len": 32768, "tokens": vec![0; count]}))
}

fn json_response(value: Value) -> Response {
    ([("content-type", "application/json")], value.to_string()).into_response()
}

fn event(value: &Value) -> Bytes {
    Bytes::from(format!("data: {value}\n\n"))
}

async fn chat(State(shared): State<Arc<Shared>>, body: Bytes) -> Response {
    let request: Value = serde_json::from_slice(&body).unwrap();
    let number = shared.started.fetch_add(1, Ordering::SeqCst) + 1;
    shared.bodies.lock().unwrap().push(request.clone());
    let script = shared.script.clone();
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
    let chat = request.get("messages").is_some();
    let max_tokens = request["max_tokens"].as_u64().unwrap_or(16);
    let tokens = script.tokens.min(max_tokens);
    let prompt_tokens = request["messages"][0]["content"]
        .as_str()
        .or(request["prompt"].as_str())
        .map_or(0, |text| text.split_whitespace().count() as u64 + 10);
    let (send, receive) = mpsc::channel::<Bytes>(64);
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
            if send.send(event(&role)).await.is_err() {
                return finish(&shared);
            }
        }
        if script.error_in_stream.contains(&number) {
            let error = json!({"error": {"message": "scripted engine error", "type": "InternalServerError", "param": null, "code": 500}});
            let _ = send.send(event(&error)).await;
            let _ = send.send(Bytes::from("data: [DONE]\n\n")).await;
            return finish(&shared);
        }
        let chunks = tokens.div_ceil(script.tokens_per_chunk);
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
            if send.send(event(&delta(&text))).await.is_err() {
                return finish(&shared);
            }
        }
        if script.usage {
            let usage = json!({"id": "x", "object": "chat.completion.chunk", "model": script.model, "choices": [],
                               "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": tokens, "total_tokens": prompt_tokens + tokens}});
            let _ = send.send(event(&usage)).await;
        }
        let _ = send.send(Bytes::from("data: [DONE]\n\n")).await;
        finish(&shared);
    });
    let stream = futures_util::stream::unfold(receive, |mut receive| async move {
        receive
            .recv()
            .await
            .map(|bytes| (Ok::<_, std::io::Error>(bytes), receive))
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

//! The collector's ingest rate: how many streamed tokens and requests per second `collect`
//! takes in, and the CPU it spends per token, at concurrency 1, 16 and 64, on the runtime
//! `collect` uses (`collect::runtime`), against servers that cost almost nothing:
//! - nginx from Debian's packages, answering every POST with one pre-rendered SSE body of
//!   256 one-token chunks (in one burst);
//! - a one-thread server of this bench's own that writes each chunk separately, as fast as
//!   it can: the most the client takes in. The client is then busy all the time and reads
//!   several events at once whenever it falls behind, so its CPU per token says how it
//!   batches as much as what a token costs;
//! - the same server paced as vLLM decodes: every step (1 ms) it writes the next event of
//!   every stream in flight, one write each. The client keeps up, so every token arrives in
//!   a read of its own: this is the CPU a token costs in a real sweep.
//!
//! Per-token timestamps are taken as in a real sweep: the same `run_level` and stream reader.
//!
//! `cargo bench --bench ingest` (needs /usr/sbin/nginx: `apt-get install nginx-light`);
//! `cargo bench --bench ingest -- per-token` skips nginx; `-- paced` runs the paced server
//! alone.

use std::path::Path;
use std::process::{Child, Command};
use std::time::{Duration, Instant};

use benchsite::collect::{self, Client, Endpoint, Progress};
use serde_json::json;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

const TOKENS: usize = 256;

/// The paced server's decode step.
const STEP: Duration = Duration::from_millis(1);

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(at) = args.iter().position(|a| a == "--per-token-server") {
        let step = args
            .get(at + 2)
            .map(|us| Duration::from_micros(us.parse().unwrap()));
        per_token_server(args[at + 1].parse().unwrap(), step);
        return;
    }
    parse();
    if args.iter().any(|a| a == "parse") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let runtime = collect::runtime().unwrap();

    // `cargo bench --bench ingest -- per-token` measures against that server alone.
    let asked = |name: &str| args.iter().any(|a| a == name);
    let only_per_token = asked("per-token") || asked("paced");
    if !only_per_token {
        let port = free_port();
        let mut nginx = start_nginx(dir.path(), port);
        let workers = nginx_pids(nginx.id());
        measure(
            &runtime,
            port,
            "nginx, one process: each body in one burst",
            &workers,
            &[(1, 1500), (16, 6000), (64, 12000)],
            false,
        );
        let _ = nginx.kill();
        let _ = nginx.wait();
    }

    // The same events, one write each, as fast as the server writes them.
    if !asked("paced") {
        let mut server = PerTokenServer::start(None);
        measure(
            &runtime,
            server.port,
            "per-token writes, 1 thread, unpaced: one event per write, as fast as it can",
            &[server.child.id()],
            &[(1, 1500), (16, 6000), (64, 12000)],
            true,
        );
        server.stop();
    }

    // Paced as a server that decodes: the client wakes once per token.
    let mut server = PerTokenServer::start(Some(STEP));
    measure(
        &runtime,
        server.port,
        &format!(
            "per-token writes, 1 thread, paced: the next event of every stream each {} ms",
            STEP.as_secs_f64() * 1e3
        ),
        &[server.child.id()],
        &[(1, 20), (16, 320), (64, 640)],
        true,
    );
    server.stop();
}

/// What reading the events costs with no I/O: the servers' answer given to the stream reader
/// one event per read, as a server that streams sends it.
fn parse() {
    let events = events();
    let rounds = 2000;
    let started = Instant::now();
    for _ in 0..rounds {
        let at = Instant::now();
        let mut reader = collect::stream::Reader::new(at);
        for event in &events {
            reader.feed(event.as_bytes(), at).unwrap();
        }
        assert_eq!(reader.finish().unwrap().text_chunks as usize, TOKENS);
    }
    let per_event = started.elapsed().as_secs_f64() / (rounds * events.len()) as f64;
    println!(
        "events read with no I/O: {:.3} µs per event",
        per_event * 1e6
    );
}

/// This bench run again as the per-token server, on a port of its own.
struct PerTokenServer {
    child: Child,
    port: u16,
}

impl PerTokenServer {
    fn start(step: Option<Duration>) -> Self {
        let port = free_port();
        let mut command = Command::new(std::env::current_exe().unwrap());
        command.args(["--per-token-server", &port.to_string()]);
        if let Some(step) = step {
            command.arg(step.as_micros().to_string());
        }
        let child = command.spawn().unwrap();
        wait_for(port, "the per-token server");
        Self { child, port }
    }

    fn stop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn wait_for(port: u16, what: &str) {
    let deadline = Instant::now() + Duration::from_secs(5);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "{what} did not start");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Runs the levels (concurrency, requests) against the server on `port` and prints a table:
/// a row for `collect` and, when `with_floor` (the answer is chunked), one for the floor
/// (`floor`).
fn measure(
    runtime: &tokio::runtime::Runtime,
    port: u16,
    server_name: &str,
    server: &[u32],
    levels: &[(usize, usize)],
    with_floor: bool,
) {
    let client = Client::new(
        &format!("http://127.0.0.1:{port}"),
        None,
        Duration::from_secs(30),
        None,
    )
    .unwrap();
    let body = json!({"model": "m", "messages": [{"role": "user", "content": "hi"}], "max_tokens": TOKENS, "stream": true});
    // Warm up: connections, allocator, page cache.
    runtime.block_on(collect::run_level(
        &client,
        Endpoint::Chat,
        vec![body.clone(); 64],
        16,
        &Progress::hidden(),
    ));
    println!("\n{server_name}");
    println!(
        "{:>11} {:>9} {:>8} {:>12} {:>10} {:>11} {:>15} {:>11}",
        "concurrency",
        "requests",
        "client",
        "tokens/s",
        "requests/s",
        "client CPU",
        "client µs/token",
        "server CPU"
    );
    for &(concurrency, requests) in levels {
        let row = |client: &str, run: &dyn Fn()| {
            let (cpu_before, server_before) = (own_cpu(), cpu_of(server));
            let started = Instant::now();
            run();
            let wall = started.elapsed().as_secs_f64();
            let (cpu, server_cpu) = (own_cpu() - cpu_before, cpu_of(server) - server_before);
            let tokens = (requests * TOKENS) as f64;
            println!(
                "{concurrency:>11} {requests:>9} {client:>8} {:>12.0} {:>10.0} {:>10.0}% {:>15.2} {:>10.0}%",
                tokens / wall,
                requests as f64 / wall,
                cpu / wall * 100.0,
                cpu / tokens * 1e6,
                server_cpu / wall * 100.0
            );
        };
        row("collect", &|| {
            let level = runtime.block_on(collect::run_level(
                &client,
                Endpoint::Chat,
                vec![body.clone(); requests],
                concurrency,
                &Progress::hidden(),
            ));
            assert!(level.errors.is_empty(), "{:?}", level.errors.first());
            let tokens: u64 = level.timings.iter().filter_map(|t| t.output_tokens()).sum();
            assert_eq!(tokens as usize, requests * TOKENS);
            assert!(
                level
                    .timings
                    .iter()
                    .all(|t| t.text_chunks as usize == TOKENS)
            );
        });
        if with_floor {
            row("floor", &|| {
                runtime.block_on(floor(port, &body.to_string(), requests, concurrency))
            });
        }
    }
}

/// The least a client can spend on these streams on this runtime: a connection per stream in
/// flight, each answer read as it arrives into one buffer, with no HTTP, no events, no JSON
/// and no clock. What `collect` spends above it is its own.
async fn floor(port: u16, body: &str, requests: usize, concurrency: usize) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let request = std::sync::Arc::new(format!(
        "POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    ));
    let next = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let streams: Vec<_> = (0..concurrency)
        .map(|_| {
            let (request, next) = (request.clone(), next.clone());
            tokio::spawn(async move {
                let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", port))
                    .await
                    .unwrap();
                stream.set_nodelay(true).unwrap();
                let mut buffer = vec![0; 64 * 1024];
                while next.fetch_add(1, std::sync::atomic::Ordering::Relaxed) < requests {
                    stream.write_all(request.as_bytes()).await.unwrap();
                    // The answer is chunked; it ends with the empty chunk.
                    let mut tail = [0u8; 5];
                    while &tail != b"0\r\n\r\n" {
                        let n = stream.read(&mut buffer).await.unwrap();
                        assert!(n > 0, "the server closed the connection");
                        let read = &buffer[..n];
                        let keep = 5usize.saturating_sub(n);
                        tail.copy_within(5 - keep.., 0);
                        tail[keep..].copy_from_slice(&read[n - (5 - keep)..]);
                    }
                }
            })
        })
        .collect();
    for stream in streams {
        stream.await.unwrap();
    }
}

/// The streamed answer: the role chunk, one chunk per token, the usage chunk, `[DONE]`.
fn events() -> Vec<String> {
    let chunk = |delta: serde_json::Value| {
        format!(
            "data: {}\n\n",
            json!({"id": "chatcmpl-0123456789abcdef", "object": "chat.completion.chunk", "created": 1764720000, "model": "m", "choices": [{"index": 0, "delta": delta, "logprobs": null, "finish_reason": null}]})
        )
    };
    let mut events = vec![chunk(json!({"role": "assistant", "content": ""}))];
    for n in 0..TOKENS {
        events.push(chunk(json!({"content": format!(" w{n}")})));
    }
    events.push(format!("data: {}\n\n", json!({"id": "chatcmpl-0123456789abcdef", "object": "chat.completion.chunk", "created": 1764720000, "model": "m", "choices": [], "usage": {"prompt_tokens": 10, "completion_tokens": TOKENS, "total_tokens": TOKENS + 10}})));
    events.push("data: [DONE]\n\n".into());
    events
}

/// A server on one thread that writes each event of the answer separately, yielding between
/// them so that each goes out in its own write; with a `step`, every stream in flight writes
/// its next event at each step, as a server that decodes a batch.
fn per_token_server(port: u16, step: Option<Duration>) {
    use axum::body::{Body, Bytes};
    use axum::routing::{get, post};
    let events: std::sync::Arc<Vec<Bytes>> =
        std::sync::Arc::new(events().into_iter().map(Bytes::from).collect());
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async move {
        let (tick, steps) = tokio::sync::watch::channel(());
        if let Some(step) = step {
            tokio::spawn(async move {
                let mut interval = tokio::time::interval(step);
                interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
                loop {
                    interval.tick().await;
                    tick.send_replace(());
                }
            });
        }
        let app = axum::Router::new()
            .route(
                "/v1/models",
                get(|| async {
                    json!({"object": "list", "data": [{"id": "m", "object": "model"}]}).to_string()
                }),
            )
            .route(
                "/v1/chat/completions",
                post(move || {
                    let events = events.clone();
                    let mut steps = steps.clone();
                    steps.mark_unchanged();

                    async move {
                        let stream =
                            futures_util::stream::unfold((0, steps), move |(n, mut steps)| {
                                let events = events.clone();
                                async move {
                                    if step.is_some() {
                                        steps.changed().await.ok()?;
                                    } else {
                                        tokio::task::yield_now().await;
                                    }
                                    let event = events.get(n)?.clone();
                                    Some((Ok::<_, std::convert::Infallible>(event), (n + 1, steps)))
                                }
                            });
                        (
                            [("content-type", "text/event-stream")],
                            Body::from_stream(stream),
                        )
                    }
                }),
            );
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
            .await
            .unwrap();
        let listener = axum::serve::ListenerExt::tap_io(listener, |tcp| {
            let _ = tcp.set_nodelay(true);
        });
        axum::serve(listener, app).await.unwrap();
    });
}

fn start_nginx(dir: &Path, port: u16) -> Child {
    let root = dir.join("root");
    std::fs::create_dir_all(root.join("v1/chat")).unwrap();
    let sse = events().concat();
    std::fs::write(root.join("v1/chat/completions"), &sse).unwrap();
    std::fs::write(
        root.join("v1/models"),
        json!({"object": "list", "data": [{"id": "m", "object": "model", "max_model_len": 4096}]})
            .to_string(),
    )
    .unwrap();
    let conf = dir.join("nginx.conf");
    std::fs::write(
        &conf,
        format!(
            "worker_processes 1;\nmaster_process off;\ndaemon off;\npid {dir}/nginx.pid;\nerror_log {dir}/error.log;\nevents {{ worker_connections 1024; }}\nhttp {{\n  access_log off;\n  keepalive_requests 1000000;\n  client_body_temp_path {dir}/body;\n  proxy_temp_path {dir}/proxy;\n  fastcgi_temp_path {dir}/fastcgi;\n  uwsgi_temp_path {dir}/uwsgi;\n  scgi_temp_path {dir}/scgi;\n  server {{\n    listen 127.0.0.1:{port};\n    root {root};\n    default_type text/event-stream;\n    # Static files answer GET; a POST is turned into a GET of the same file.\n    error_page 405 =200 $uri;\n  }}\n}}\n",
            dir = dir.display(),
            root = root.display(),
        ),
    )
    .unwrap();
    let child = Command::new("/usr/sbin/nginx")
        .args(["-c", conf.to_str().unwrap(), "-p", dir.to_str().unwrap()])
        .spawn()
        .expect("nginx: apt-get install nginx-light");
    let deadline = Instant::now() + Duration::from_secs(5);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            Instant::now() < deadline,
            "nginx did not start: {}",
            std::fs::read_to_string(dir.join("error.log")).unwrap_or_default()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    child
}

/// nginx's master and its workers.
fn nginx_pids(master: u32) -> Vec<u32> {
    let mut pids = vec![master];
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        let after = &stat[stat.rfind(')').unwrap() + 2..];
        if after.split(' ').nth(1) == Some(&master.to_string()) {
            pids.push(pid);
        }
    }
    pids
}

/// CPU seconds (user + system) of processes, from /proc.
fn cpu_of(pids: &[u32]) -> f64 {
    let ticks = ticks_per_second();
    pids.iter()
        .filter_map(|pid| std::fs::read_to_string(format!("/proc/{pid}/stat")).ok())
        .map(|stat| {
            let fields: Vec<&str> = stat[stat.rfind(')').unwrap() + 2..].split(' ').collect();
            // utime and stime are fields 14 and 15 of stat, 12 and 13 after the name.
            (fields[11].parse::<f64>().unwrap() + fields[12].parse::<f64>().unwrap()) / ticks
        })
        .sum()
}

fn own_cpu() -> f64 {
    cpu_of(&[std::process::id()])
}

fn ticks_per_second() -> f64 {
    let output = Command::new("getconf").arg("CLK_TCK").output().unwrap();
    String::from_utf8_lossy(&output.stdout)
        .trim()
        .parse()
        .unwrap()
}

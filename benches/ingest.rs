//! The collector's ingest rate: how many streamed tokens and requests per second `collect`
//! takes in, and the CPU it spends per token, at concurrency 1, 16 and 64, against two
//! servers that cost almost nothing: nginx from Debian's packages answering every POST with
//! one pre-rendered SSE body of 256 one-token chunks (in one burst), and a one-thread server
//! of this bench's own that writes each chunk separately (one event per token, as a real
//! server streams). Per-token timestamps are taken as in a real sweep: the same `run_level`
//! and stream reader.
//!
//! `cargo bench --bench ingest` (needs /usr/sbin/nginx: `apt-get install nginx-light`);
//! `cargo bench --bench ingest -- per-token` skips nginx.

use std::path::Path;
use std::process::{Child, Command};
use std::time::{Duration, Instant};

use benchsite::collect::{self, Client, Endpoint, Progress};
use serde_json::json;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

const TOKENS: usize = 256;

fn main() {
    if let Some(port) = std::env::args()
        .skip_while(|a| a != "--per-token-server")
        .nth(1)
    {
        per_token_server(port.parse().unwrap());
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    println!(
        "client: tokio on {} threads",
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );

    // `cargo bench --bench ingest -- per-token` measures against that server alone.
    let only_per_token = std::env::args().any(|a| a == "per-token");
    if !only_per_token {
        let port = free_port();
        let mut nginx = start_nginx(dir.path(), port);
        let workers = nginx_pids(nginx.id());
        measure(
            &runtime,
            port,
            "nginx, one process: each body in one burst",
            &workers,
        );
        let _ = nginx.kill();
        let _ = nginx.wait();
    }

    // The same events, one write each: the client wakes once per token, as against a real
    // server that streams as it decodes.
    let port = free_port();
    let mut server = Command::new(std::env::current_exe().unwrap())
        .args(["--per-token-server", &port.to_string()])
        .spawn()
        .unwrap();
    wait_for(port, "the per-token server");
    measure(
        &runtime,
        port,
        "per-token writes, 1 thread: one event per write",
        &[server.id()],
    );
    let _ = server.kill();
    let _ = server.wait();
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

/// Runs the three levels against the server on `port` and prints a table.
fn measure(runtime: &tokio::runtime::Runtime, port: u16, server_name: &str, server: &[u32]) {
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
        vec![body.clone(); 200],
        16,
        &Progress::hidden(),
    ));
    println!("\n{server_name}");
    println!(
        "{:>11} {:>9} {:>12} {:>10} {:>11} {:>15} {:>11}",
        "concurrency",
        "requests",
        "tokens/s",
        "requests/s",
        "client CPU",
        "client µs/token",
        "server CPU"
    );
    for (concurrency, requests) in [(1, 1500), (16, 6000), (64, 12000)] {
        let bodies = vec![body.clone(); requests];
        let (cpu_before, server_before) = (own_cpu(), cpu_of(server));
        let started = Instant::now();
        let level = runtime.block_on(collect::run_level(
            &client,
            Endpoint::Chat,
            bodies,
            concurrency,
            &Progress::hidden(),
        ));
        let wall = started.elapsed().as_secs_f64();
        let (cpu, server_cpu) = (own_cpu() - cpu_before, cpu_of(server) - server_before);
        assert!(level.errors.is_empty(), "{:?}", level.errors.first());
        let tokens: u64 = level.timings.iter().filter_map(|t| t.output_tokens()).sum();
        assert_eq!(tokens as usize, requests * TOKENS);
        assert!(
            level
                .timings
                .iter()
                .all(|t| t.text_chunks as usize == TOKENS)
        );
        println!(
            "{concurrency:>11} {requests:>9} {:>12.0} {:>10.0} {:>10.0}% {:>15.2} {:>10.0}%",
            tokens as f64 / wall,
            requests as f64 / wall,
            cpu / wall * 100.0,
            cpu / tokens as f64 * 1e6,
            server_cpu / wall * 100.0
        );
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
/// them so that each goes out in its own write.
fn per_token_server(port: u16) {
    use axum::body::{Body, Bytes};
    use axum::routing::{get, post};
    let events: std::sync::Arc<Vec<Bytes>> =
        std::sync::Arc::new(events().into_iter().map(Bytes::from).collect());
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async move {
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
                    async move {
                        let stream = futures_util::stream::unfold(0, move |n| {
                            let events = events.clone();
                            async move {
                                tokio::task::yield_now().await;
                                let event = events.get(n)?.clone();
                                Some((Ok::<_, std::convert::Infallible>(event), n + 1))
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

//! Edit-to-reload latency of `benchsite serve`: from a file written to the reload message
//! received by an open page's websocket, with the default 50 ms debounce included.
//!
//! `cargo bench --bench serve` makes 20 edits of a Markdown page and 20 of the results
//! document at seed scale and prints p50 and p95 of each; `-- 100` runs the same on a document
//! 100 times the seed's size.

mod common;

use std::net::TcpStream;
use std::path::Path;
use std::time::{Duration, Instant};

use benchsite::serve;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

const EDITS: usize = 20;

fn main() {
    let times: usize = std::env::args()
        .skip(1)
        .find_map(|arg| arg.parse().ok())
        .unwrap_or(1);
    let root = common::project_with(
        &format!("serve-x{times}"),
        &common::scaled(&common::seed(), times),
    );
    let options = serve::Options {
        root: root.clone(),
        bind: [127, 0, 0, 1].into(),
        port: 0,
        debounce: Duration::from_millis(50),
        drafts: false,
    };
    let server = serve::start(&options, Box::new(|_| {})).unwrap();
    let stream = TcpStream::connect(server.addr()).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .unwrap();
    let url = format!("ws://{}{}", server.addr(), serve::LIVERELOAD);
    let (mut socket, _) = tungstenite::client(url, stream).unwrap();
    let mut build = next_build(&mut socket);

    let page = root.join("content/method.md");
    let original = std::fs::read_to_string(&page).unwrap();
    let markdown = measure(&mut socket, &mut build, |n| {
        write(&page, &format!("{original}\nEdit number {n}.\n"));
    });
    let data = root.join("data/results.json");
    let original = std::fs::read_to_string(&data).unwrap();
    assert!(original.contains("\"os\": \"Arch Linux\""));
    let json = measure(&mut socket, &mut build, |n| {
        write(
            &data,
            &original.replace(
                "\"os\": \"Arch Linux\"",
                &format!("\"os\": \"Arch Linux {n}\""),
            ),
        );
    });
    server.stop();
    println!("seed x{times}, {EDITS} edits each, debounce 50 ms included");
    report("markdown edit", markdown);
    report("data edit", json);
}

/// Writes `text` to `path` as an editor or `collect` does: whole, by a rename from outside the
/// project, so the watcher never sees half a large document.
fn write(path: &Path, text: &str) {
    let project = path.ancestors().nth(2).unwrap();
    let temporary = project.parent().unwrap().join(format!(
        ".serve-bench-{}",
        path.file_name().unwrap().to_string_lossy()
    ));
    std::fs::write(&temporary, text).unwrap();
    std::fs::rename(&temporary, path).unwrap();
}

/// Milliseconds from each edit written to its reload message.
fn measure(
    socket: &mut tungstenite::WebSocket<TcpStream>,
    build: &mut u64,
    edit: impl Fn(usize),
) -> Vec<f64> {
    (0..EDITS)
        .map(|n| {
            edit(n);
            let written = Instant::now();
            let now = next_build(socket);
            assert!(now > *build, "a reload after edit {n}");
            *build = now;
            let elapsed = written.elapsed().as_secs_f64() * 1e3;
            // Let the watcher go quiet so edits do not merge.
            std::thread::sleep(Duration::from_millis(100));
            elapsed
        })
        .collect()
}

/// The build number of the next message; panics on an error message.
fn next_build(socket: &mut tungstenite::WebSocket<TcpStream>) -> u64 {
    loop {
        if let tungstenite::Message::Text(text) = socket.read().unwrap() {
            let message: serde_json::Value = serde_json::from_str(&text).unwrap();
            assert!(message["error"].is_null(), "{message}");
            return message["build"].as_u64().unwrap();
        }
    }
}

fn report(what: &str, mut millis: Vec<f64>) {
    millis.sort_by(f64::total_cmp);
    let at = |q: f64| millis[((millis.len() - 1) as f64 * q).round() as usize];
    println!(
        "{what:>14}: p50 {:.1} ms, p95 {:.1} ms (min {:.1}, max {:.1})",
        at(0.5),
        at(0.95),
        millis[0],
        millis[millis.len() - 1]
    );
}

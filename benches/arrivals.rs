//! Whether the client keeps time in an open loop: `collect sweep --rates 100 --requests 3000
//! --max-concurrency 256` against the project's fake vLLM streaming one token per chunk (20 ms
//! to the first, then one every 10 ms, 200 tokens: about 2 s a request, so about 200 in
//! flight and 20,000 chunks a second for the client's one thread to read).
//!
//! Two figures of how late requests left against their schedule:
//! - the client's own, the level's `wait_p50_s`, `wait_p95_s` and `wait_max_s` (due → its
//!   task started the request);
//! - the server's, independent of the client's clock: each request's arrival at the fake,
//!   after the first's, against its due time (`collect::schedule` of the same seed), both in
//!   order; the p50, p99 and largest lateness.
//!
//! `cargo bench --bench arrivals`

mod common;

#[path = "../tests/support/fake_vllm.rs"]
mod fake_vllm;

use std::process::Command;
use std::time::Duration;

use benchsite::data::Arrivals;

const RATE: f64 = 100.0;
const REQUESTS: u64 = 3000;
const CAP: u64 = 256;

fn main() {
    let server = fake_vllm::FakeVllm::start(fake_vllm::Script {
        ttft: Duration::from_millis(20),
        chunk_interval: Duration::from_millis(10),
        tokens: 200,
        tokens_per_chunk: 1,
        max_seqs: 1024,
        ..fake_vllm::Script::default()
    });
    let root = common::project_with("arrivals", &common::seed());
    let output = Command::new(env!("CARGO_BIN_EXE_benchsite"))
        .args(["--root", root.to_str().unwrap()])
        .args(["collect", "sweep", "--label", "clock", "--dry-run"])
        .args([
            "--rates",
            &RATE.to_string(),
            "--requests",
            &REQUESTS.to_string(),
        ])
        .args(["--max-concurrency", &CAP.to_string(), "--warmup", "0"])
        .args([
            "--prompt-words",
            "20",
            "--output-tokens",
            "200",
            "--ignore-eos",
        ])
        .args(["--base-url", &server.url()])
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    // The record first, then what else --dry-run prints.
    let record: serde_json::Value = serde_json::Deserializer::from_slice(&output.stdout)
        .into_iter()
        .next()
        .unwrap()
        .unwrap();
    let level = &record["levels"][0];
    let ms = |key: &str| level[key].as_f64().unwrap_or(f64::NAN) * 1e3;
    println!(
        "client: {} of {} answered, at most {} in flight; wait p50 {:.2} ms, p95 {:.2} ms, max {:.2} ms",
        level["succeeded"],
        level["requests"],
        level["peak_in_flight"],
        ms("wait_p50_s"),
        ms("wait_p95_s"),
        ms("wait_max_s")
    );
    let due = benchsite::collect::schedule(
        RATE,
        &Arrivals {
            process: benchsite::data::Process::Gamma,
            burstiness: 1.0,
            seed: Some(0),
            max_concurrency: Some(CAP),
            requests: REQUESTS,
            duration_s: None,
        },
    );
    let mut arrived: Vec<std::time::Instant> = server
        .traces()
        .into_iter()
        .map(|(_, trace)| trace.arrived)
        .collect();
    arrived.sort();
    assert_eq!(arrived.len(), due.len());
    let mut late: Vec<f64> = arrived
        .iter()
        .zip(&due)
        .map(|(at, due)| ((*at - arrived[0]).as_secs_f64() - due.as_secs_f64()) * 1e3)
        .collect();
    late.sort_by(f64::total_cmp);
    let q = |at: f64| benchsite::stats::quantile(&late, at).unwrap();
    println!(
        "server: arrivals after the first against the schedule: p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms (n = {})",
        q(0.5),
        q(0.99),
        late[late.len() - 1],
        late.len()
    );
}

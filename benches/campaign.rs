//! What a campaign costs beyond its measurements.
//!
//! - `plan`: loading a campaign of 1,000 jobs and the keys of its machine's document and working out
//!   every job's status and command, against the seed and against a document 353 times its
//!   size (12,000 pages' worth of records). The projects stay in
//!   `target/bench-projects/campaign-x{1,353}` so the whole command can be timed too:
//!   `target/release/benchsite campaign plan thousand --format json --root
//!   target/bench-projects/campaign-x353 > /dev/null`.
//! - `overhead`: a campaign of 10 configurations × (a run and a sweep) measured against the
//!   project's fake vLLM, with a stand-in for podman: the wall time neither measuring nor
//!   starting and stopping servers, per job (`Summary::overhead_per_job`), with the seed's
//!   document and with one 29 times its size.
//!
//! `cargo bench --bench campaign`

mod common;

#[path = "../tests/support/fake_vllm.rs"]
mod fake_vllm;

use std::path::Path;
use std::time::{Duration, Instant};

use benchsite::campaign::{self, plan};
use benchsite::data;
use benchsite::project::{self, Layout};

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// 1 profile × 10 × 10 × 5 configurations × (a run and a sweep) = 1,000 jobs.
const THOUSAND: &str = r#"
[[config]]
profile = "qwen3.6-35b-a3b"
matrix = { MAX_NUM_SEQS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], MAX_MODEL_LEN = [4096, 8192, 12288, 16384, 20480, 24576, 28672, 32768, 36864, 40960], KV_CACHE_DTYPE = ["auto", "fp8", "fp8_e4m3", "fp8_e5m2", "bf16"] }
[run]
[[sweep]]
levels = [1, 2, 4, 8]
"#;

fn main() {
    let seed = common::seed();
    for times in [1, 353] {
        let root =
            common::project_with(&format!("campaign-x{times}"), &common::scaled(&seed, times));
        std::fs::create_dir_all(root.join("campaigns")).unwrap();
        std::fs::write(root.join("campaigns/thousand.toml"), THOUSAND).unwrap();
        let mut took = Vec::new();
        let mut jobs = 0;
        for _ in 0..11 {
            let started = Instant::now();
            jobs = plan_once(&root);
            took.push(started.elapsed());
        }
        println!(
            "plan of {jobs} jobs against the {times}x document: median {:.1} ms (of 11)",
            median(&mut took).as_secs_f64() * 1e3
        );
    }
    for times in [1, 29] {
        overhead(&seed, times);
    }
}

/// The library's part of `campaign plan`: the campaign, the document, every job's status.
fn plan_once(root: &Path) -> usize {
    let machines = project::machines(&benchsite::config::load(root).unwrap());
    let campaign = campaign::load(root, "thousand", &machines).unwrap();
    let doc = data::Keys::read(&Layout::new(root).results()).unwrap();
    plan::jobs(&campaign, "", &doc, root).len()
}

fn median(values: &mut [Duration]) -> Duration {
    values.sort();
    values[values.len() / 2]
}

/// A campaign of 20 jobs against the fake vLLM, its own time per job.
fn overhead(seed: &data::Results, times: usize) {
    let root = common::project_with(
        &format!("campaign-overhead-x{times}"),
        &common::scaled(seed, times),
    );
    let up = root.join("up");
    let server = fake_vllm::FakeVllm::start(fake_vllm::Script {
        ttft: Duration::from_millis(2),
        chunk_interval: Duration::from_micros(200),
        tokens: 20,
        ready_file: Some(up.clone()),
        ..fake_vllm::Script::default()
    });
    let port = server.url().rsplit(':').next().unwrap().to_owned();
    std::fs::write(
        root.join("profiles/fake.env"),
        format!("IMAGE=example/vllm:test\nMODEL=example/Fake-Model-7B\nPORT={port}\nMAX_MODEL_LEN=32768\n"),
    )
    .unwrap();
    let launcher = root.join("fake-podman");
    std::fs::write(
        &launcher,
        format!(
            "#!/bin/sh\ntrap 'rm -f {0}; exit 0' TERM\ntouch {0}\nwhile true; do sleep 0.01; done\n",
            up.display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&launcher, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::create_dir_all(root.join("campaigns")).unwrap();
    std::fs::write(
        root.join("campaigns/overhead.toml"),
        "[[config]]\nprofile = \"fake\"\nmatrix = { MAX_NUM_SEQS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] }\nshape = \"Dense, 7B\"\nprecision = \"BF16\"\n[run]\nsamples = 1\nmax_tokens = 20\nprompt = \"A story.\"\n[[sweep]]\nlevels = [1]\nprompt_words = 10\noutput_tokens = 20\nrounds = 1\n[launch]\nready_timeout_s = 5\nstop_timeout_s = 5\n",
    )
    .unwrap();
    let machines = project::machines(&benchsite::config::load(&root).unwrap());
    let campaign = campaign::load(&root, "overhead", &machines).unwrap();
    let options = campaign::RunOptions {
        only: Vec::new(),
        retry_failed: false,
        dry_run: false,
        launch_program: Some(launcher.display().to_string()),
        launcher: None,
        ready_timeout: None,
        request_timeout: Duration::from_secs(30),
        free_port: false,
        today: data::Date::new("2026-12-04").unwrap(),
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let summary = runtime
        .block_on(campaign::run(&Layout::new(&root), "", &campaign, &options))
        .unwrap();
    assert_eq!(summary.done, 20, "{summary:?}");
    println!(
        "campaign of {} jobs with the {times}x document: wall {:.0} ms, its own time {:.1} ms per job",
        summary.done,
        summary.wall.as_secs_f64() * 1e3,
        summary.overhead_per_job().unwrap().as_secs_f64() * 1e3
    );
}

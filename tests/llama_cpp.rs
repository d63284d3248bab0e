//! Collection against a real llama.cpp server: llama-cpp-python's OpenAI server with a tiny
//! GGUF model the test writes itself (tests/support/tiny_gguf.py), so nothing is downloaded.
//! Needs llama-cpp-python and gguf (tests/requirements.txt), which `support::setup` installs
//! when they are missing.

mod support;

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use support::{Project, free_port, repo};

/// The model's alias on the server.
const MODEL: &str = "tiny";

/// A running llama-cpp-python server; dropping it stops it.
struct LlamaServer {
    child: Child,
    url: String,
}

/// Writes the tiny GGUF model into `dir`; the Python that serves it and the model's path.
fn tiny_model(dir: &Path) -> (String, std::path::PathBuf) {
    let python = support::setup("python");
    let model = dir.join("tiny.gguf");
    let made = Command::new(&python)
        .arg(repo().join("tests/support/tiny_gguf.py"))
        .arg(&model)
        .status()
        .unwrap();
    assert!(made.success(), "tiny_gguf.py failed");
    (python, model)
}

impl LlamaServer {
    /// Starts the server; `interrupt` keeps llama-cpp-python's default of cancelling a
    /// running request when the next one arrives.
    fn start(dir: &Path, interrupt: bool) -> Self {
        let (python, model) = tiny_model(dir);
        let port = free_port();
        let log = std::fs::File::create(dir.join("server.log")).unwrap();
        // Requests queue instead of interrupting each other (llama-cpp-python's default
        // cancels a running request when the next one arrives).
        let child = Command::new(&python)
            .args(["-m", "llama_cpp.server", "--model"])
            .arg(&model)
            .args([
                "--model_alias",
                MODEL,
                "--n_ctx",
                "2048",
                "--n_threads",
                "1",
            ])
            .args([
                "--interrupt_requests",
                if interrupt { "True" } else { "False" },
            ])
            .args(["--host", "127.0.0.1"])
            .args(["--port", &port.to_string()])
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .stdin(Stdio::null())
            .spawn()
            .unwrap();
        let server = Self {
            child,
            url: format!("http://127.0.0.1:{port}"),
        };
        let started = Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "llama-cpp-python did not listen within 60 s: {}",
                std::fs::read_to_string(dir.join("server.log")).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        server
    }
}

impl Drop for LlamaServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn run_and_sweep_against_llama_cpp_python() {
    let dir = tempfile::tempdir().unwrap();
    let server = LlamaServer::start(dir.path(), false);
    let project = Project::copy_of_repo();
    project.write(
        "profiles/tiny.env",
        "IMAGE=none\nMODEL=tiny\nPORT=8000\nMAX_MODEL_LEN=2048\n",
    );

    let run = project.run(&[
        "collect",
        "run",
        "--id",
        "tiny-llama",
        "--profile",
        "tiny",
        "--base-url",
        &server.url,
        "--shape",
        "Dense, tiny",
        "--precision",
        "F32",
        "--max-tokens",
        "48",
    ]);
    run.assert_success();
    assert!(
        run.stderr.contains("measuring llama-cpp-python 0.3."),
        "{}",
        run.stderr
    );
    // Paths as the README writes them, relative to the project, not under --root's absolute.
    assert!(
        run.stderr
            .contains("recorded runs \"tiny-llama\" in data/results.json"),
        "{}",
        run.stderr
    );
    // Greedy in llama.cpp's terms: top_k 0, never vLLM's -1, which it refuses.
    assert!(!run.stderr.contains("refused"), "{}", run.stderr);
    let doc = project.results();
    let record = doc
        .runs
        .iter()
        .find(|r| r.id.as_str() == "tiny-llama")
        .unwrap();
    assert!(
        record
            .server
            .as_deref()
            .unwrap()
            .starts_with("llama-cpp-python 0.3.")
    );
    assert_eq!(samples_and_bursts(record), 3, "{record:?}");
    assert!(record.decode_tok_s > 0.0);
    assert_eq!(
        (record.vllm_version.as_deref(), record.kv_tokens),
        (None, None)
    );
    let notes = record.notes.as_deref().unwrap();
    for said in [
        "output tokens were counted as max_tokens where an answer stopped there (finish_reason length)",
        "The server has no /metrics (HTTP 404 Not Found); kv_tokens and max_concurrency are left out.",
        "The server has no /version (it is llama-cpp-python 0.3.",
    ] {
        assert!(notes.contains(said), "{said:?} in {notes}");
    }

    let sweep = project.run(&[
        "collect",
        "sweep",
        "--label",
        "tiny llama",
        "--levels",
        "1,2",
        "--prompt-words",
        "40",
        "--output-tokens",
        "24",
        "--rounds",
        "2",
        "--min-requests",
        "0",
        "--warmup",
        "0",
        "--ignore-eos",
        "--base-url",
        &server.url,
    ]);
    sweep.assert_success();
    let doc = project.results();
    let record = doc.sweeps.iter().find(|s| s.label == "tiny llama").unwrap();
    let levels: Vec<_> = record
        .levels
        .iter()
        .map(|l| (l.concurrency, l.succeeded, l.failed, l.output_tokens))
        .collect();
    // The model never writes EOS, so every answer is the 24 tokens asked for, counted as
    // generated: its text re-tokenized is about half as many (the tiny vocabulary merges
    // every pair of the characters the model writes one at a time).
    assert_eq!(
        levels,
        [(Some(1), 2, 0, Some(24)), (Some(2), 4, 0, Some(24))]
    );
    assert!(
        record
            .levels
            .iter()
            .all(|l| l.decode_tok_s_per_stream.is_some())
    );
    let notes = record.notes.as_deref().unwrap();
    assert!(
        notes.contains("counted as max_tokens where an answer stopped there")
            && !notes.contains("re-tokenizing"),
        "{notes}"
    );
    // It has no ignore_eos, so the record says so rather than sending a field it ignores.
    assert!(
        notes.contains(
            "The server (llama-cpp-python 0.3.36) has no ignore_eos; answers end where the model stops."
        ),
        "{notes}"
    );
    assert!(record.workload.ignore_eos);

    // Quality captures need teacher-forced prompt_logprobs, which it does not have: refused
    // with the reason, before any request.
    project.write(
        "data/prompts.jsonl",
        &std::fs::read_to_string(repo().join("data/prompts.jsonl")).unwrap(),
    );
    let capture = project.run(&[
        "collect",
        "capture",
        "--id",
        "tiny-cap",
        "--base-url",
        &server.url,
        "--max-tokens",
        "8",
    ]);
    assert!(!capture.status.success(), "{}", capture.stderr);
    assert!(
        capture.stderr.contains("llama-cpp-python 0.3.")
            && capture.stderr.contains("never prompt_logprobs"),
        "{}",
        capture.stderr
    );
    assert!(
        !project
            .root
            .path()
            .join("data/captures/tiny-cap.jsonl.gz")
            .exists()
    );
    let check = project.run(&["check"]);
    check.assert_success();
}

#[test]
fn a_sweep_says_why_llama_cpp_python_cut_its_answers() {
    let dir = tempfile::tempdir().unwrap();
    let server = LlamaServer::start(dir.path(), true);
    let project = Project::copy_of_repo();
    let sweep = project.run(&[
        "collect",
        "sweep",
        "--label",
        "interrupted",
        "--levels",
        "2",
        "--prompt-words",
        "40",
        "--output-tokens",
        "64",
        "--rounds",
        "2",
        "--min-requests",
        "0",
        "--warmup",
        "0",
        "--base-url",
        &server.url,
    ]);
    sweep.assert_success();
    let doc = project.results();
    let record = doc
        .sweeps
        .iter()
        .find(|s| s.label == "interrupted")
        .unwrap();
    assert!(record.levels[0].failed > 0, "{:?}", record.levels[0]);
    let hint = "llama-cpp-python cancels a running request when the next one arrives unless it is started with --interrupt_requests False";
    assert!(sweep.stderr.contains(hint), "{}", sweep.stderr);
    assert!(record.notes.as_deref().unwrap().contains(hint));
}

/// A campaign that starts llama-cpp-python itself, through a launch program standing in for
/// `vllm serve` (the same arguments: it takes the port and serves the tiny model there), for
/// two configurations: every run and sweep level measured against the real server, each
/// server stopped and its log kept.
#[test]
fn a_campaign_launches_llama_cpp_python_and_measures_each_configuration() {
    let dir = tempfile::tempdir().unwrap();
    let (python, model) = tiny_model(dir.path());
    let launcher = dir.path().join("serve-tiny");
    std::fs::write(
        &launcher,
        r#"#!/bin/sh
port=""
previous=""
for arg in "$@"; do
    [ "$previous" = "--port" ] && port="$arg"
    previous="$arg"
done
exec "$PYTHON" -m llama_cpp.server --model "$TINY" --model_alias tiny --n_ctx 2048 --n_threads 1 --interrupt_requests False --host 127.0.0.1 --port "$port"
"#,
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&launcher, std::fs::Permissions::from_mode(0o755)).unwrap();
    let project = Project::copy_of_repo();
    project.write(
        "profiles/tiny.env",
        &format!(
            "IMAGE=none\nMODEL=tiny\nPORT={}\nMAX_MODEL_LEN=2048\n",
            free_port()
        ),
    );
    project.write(
        "campaigns/tiny.toml",
        "[[config]]\nprofile = \"tiny\"\nmatrix = { MAX_NUM_SEQS = [1, 2] }\nshape = \"Dense, tiny\"\nprecision = \"F32\"\n[run]\nsamples = 2\nmax_tokens = 24\nprompt = \"Tell a long story about the sea.\"\n[[sweep]]\nlevels = [1, 2]\nprompt_words = 20\noutput_tokens = 16\nrounds = 1\n[launch]\nlauncher = \"local\"\nready_timeout_s = 120\nstop_timeout_s = 10\n",
    );
    let output = project.run_with(
        &["campaign", "run", "tiny"],
        &[
            ("BENCHSITE_LAUNCH_PROGRAM", launcher.to_str().unwrap()),
            ("PYTHON", &python),
            ("TINY", model.to_str().unwrap()),
        ],
    );
    output.assert_success();
    assert!(
        output
            .stderr
            .contains("campaign tiny: 4 done, 0 failed, 0 errors, 0 skipped"),
        "{}",
        output.stderr
    );
    let mut doc = project.results();
    doc.runs.retain(|r| r.id.as_str().starts_with("tiny-"));
    doc.sweeps.retain(|s| s.label.starts_with("tiny-"));
    let ids: Vec<&str> = doc.runs.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids, ["tiny-max-num-seqs-1", "tiny-max-num-seqs-2"]);
    for run in &doc.runs {
        assert!(
            run.server
                .as_deref()
                .unwrap()
                .starts_with("llama-cpp-python 0.3."),
            "{:?}",
            run.server
        );
        assert_eq!(samples_and_bursts(run), 2, "{run:?}");
        assert!(run.decode_tok_s > 0.0);
        assert_eq!(
            run.provenance.as_ref().and_then(|p| p.campaign.as_deref()),
            Some("tiny")
        );
    }
    assert_eq!(doc.sweeps.len(), 2);
    for sweep in &doc.sweeps {
        for level in &sweep.levels {
            assert_eq!(level.succeeded, level.requests, "{}", sweep.label);
            assert!(level.total_tok_s.unwrap() > 0.0, "{}", sweep.label);
        }
    }
    for id in ids {
        let log = project.root.path().join(format!("data/logs/{id}.log.gz"));
        assert!(log.exists(), "{id}'s server log is kept");
    }
    // Every server it started was stopped: the port answers nothing now.
    let profile = std::fs::read_to_string(project.root.path().join("profiles/tiny.env")).unwrap();
    let port: u16 = profile
        .lines()
        .find_map(|l| l.strip_prefix("PORT="))
        .unwrap()
        .parse()
        .unwrap();
    assert!(std::net::TcpStream::connect(("127.0.0.1", port)).is_err());
}

/// llama.cpp's own `llama-server` (built by `setup.sh llama-server` from the llama.cpp the
/// llama-cpp-python sdist vendors), serving the tiny model with four slots and its metrics.
struct RealLlamaServer {
    child: std::process::Child,
    url: String,
}

impl RealLlamaServer {
    fn start(dir: &Path) -> Self {
        Self::start_with(dir, "16384", "4")
    }

    /// Serving `context` tokens over `slots` slots.
    fn start_with(dir: &Path, context: &str, slots: &str) -> Self {
        let binary = support::setup("llama-server");
        let (_, model) = tiny_model(dir);
        let port = free_port();
        let log = std::fs::File::create(dir.join("llama-server.log")).unwrap();
        let child = Command::new(&binary)
            .arg("-m")
            .arg(&model)
            .args([
                "--alias",
                MODEL,
                "-c",
                context,
                "-np",
                slots,
                "-t",
                "1",
                "--metrics",
            ])
            .args(["--host", "127.0.0.1", "--port", &port.to_string()])
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .stdin(Stdio::null())
            .spawn()
            .unwrap();
        let server = Self {
            child,
            url: format!("http://127.0.0.1:{port}"),
        };
        // Ready when /health answers 200 (it answers 503 while the model loads).
        let started = Instant::now();
        loop {
            use std::io::{Read, Write};
            let healthy = std::net::TcpStream::connect(("127.0.0.1", port))
                .and_then(|mut stream| {
                    stream.write_all(b"GET /health HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")?;
                    let mut answer = String::new();
                    stream.read_to_string(&mut answer)?;
                    Ok(answer.starts_with("HTTP/1.1 200") || answer.starts_with("HTTP/1.0 200"))
                })
                .unwrap_or(false);
            if healthy {
                break;
            }
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "llama-server was not healthy within 60 s: {}",
                std::fs::read_to_string(dir.join("llama-server.log")).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        server
    }
}

impl Drop for RealLlamaServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A run's samples kept and those left out for coming in bursts; its samples asked for when
/// they are the client's, and the same when the engine's rate stands for them all.
fn samples_and_bursts(run: &benchsite::data::Run) -> u64 {
    let delivery = run.delivery.as_ref().unwrap();
    match delivery.per_stream {
        benchsite::data::PerStream::Client => run.decode_samples.len() as u64 + delivery.bursts,
        _ => delivery.answers,
    }
}

/// The real llama-server with two slots of 256 tokens (`-c 512 -np 2`), asked with
/// `--ignore-eos` for 400 tokens after a prompt of about 40: every answer stops where its
/// slot's context is full, at fewer tokens than asked, with finish reason `length`, as if
/// max_tokens had cut it. Each level counts and names them, on the terminal, in the record,
/// in the per-request data and on the sweep's page.
#[test]
fn short_answers_from_a_slot_of_short_context_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let server = RealLlamaServer::start_with(dir.path(), "512", "2");
    let project = Project::copy_of_repo();
    let sweep = project.run(&[
        "collect",
        "sweep",
        "--label",
        "short slots",
        "--levels",
        "1,2",
        "--prompt-words",
        "30",
        "--output-tokens",
        "400",
        "--rounds",
        "1",
        "--min-requests",
        "0",
        "--warmup",
        "0",
        "--ignore-eos",
        "--base-url",
        &server.url,
    ]);
    sweep.assert_success();
    assert!(
        sweep.stderr.contains("short answers: ")
            && sweep
                .stderr
                .contains("answers returned fewer tokens than the 400 asked"),
        "{}",
        sweep.stderr
    );
    let doc = project.results();
    let record = doc
        .sweeps
        .iter()
        .find(|s| s.label == "short slots")
        .unwrap();
    for level in &record.levels {
        let delivery = level.delivery.as_ref().unwrap();
        assert_eq!(delivery.asked, Some(400));
        assert_eq!(delivery.short, Some(level.succeeded), "{level:?}");
        let cause = delivery.short_cause.as_deref().unwrap();
        assert!(
            cause.contains("finish reason length")
                && cause
                    .contains("at the context it gives a sequence (256 tokens with the prompt)"),
            "{cause}"
        );
        // Each answer holds its slot's 256 tokens, the prompt's included.
        assert!(level.output_tokens.unwrap() < 256, "{level:?}");
    }
    let path = benchsite::data::request_log_path(&record.slug());
    let lines = benchsite::data::read_request_log(&project.root.path().join(path)).unwrap();
    assert!(
        lines
            .iter()
            .all(|l| l.short == Some(true) && l.finish_reason.as_deref() == Some("length")),
        "{lines:?}"
    );
    project.run(&["build"]).assert_success();
    let page = project.page("sweeps/short-slots/index.html");
    assert!(
        page.contains("At 2 levels some answers returned fewer tokens than asked"),
        "{page}"
    );
}

#[test]
fn the_real_llama_server_is_measured_whole_run_after_run() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = RealLlamaServer::start(dir.path());
    let project = Project::copy_of_repo();
    project.write(
        "profiles/tiny.env",
        "IMAGE=none\nMODEL=tiny\nPORT=8000\nMAX_MODEL_LEN=4096\n",
    );
    let run = |id: &str, max_tokens: &str| {
        project.run(&[
            "collect",
            "run",
            "--id",
            id,
            "--profile",
            "tiny",
            "--base-url",
            &server.url,
            "--shape",
            "Dense, tiny",
            "--precision",
            "F32",
            "--max-tokens",
            max_tokens,
        ])
    };
    // Twenty runs in a row: every one records its three samples; a kept-alive connection the
    // server closed is never a failure.
    for i in 0..20 {
        let output = run(&format!("tiny-server-{i}"), "32");
        output.assert_success();
        assert!(
            output.stderr.contains("measuring llama.cpp llama-server"),
            "{}",
            output.stderr
        );
        assert!(
            !output.stderr.contains("failed"),
            "run {i}: {}",
            output.stderr
        );
    }
    let doc = project.results();
    let runs: Vec<_> = doc
        .runs
        .iter()
        .filter(|r| r.id.as_str().starts_with("tiny-server-"))
        .collect();
    assert_eq!(runs.len(), 20);
    assert!(runs.iter().all(|r| samples_and_bursts(r) == 3), "{runs:?}");
    // The KV pool is what the server gives its four slots: 2,048 tokens each (the model's
    // training context caps the 16,384 / 4 asked for), read from GET /slots.
    assert_eq!(runs[0].kv_tokens, Some(4 * 2048));
    let notes = runs[0].notes.as_deref().unwrap_or_default();
    assert!(
        notes.contains("kv_tokens is the context the server gives its 4 slots (GET /slots"),
        "{notes}"
    );
    // A sweep at 1 to 8 in flight on four slots: every request answered, each with the
    // tokens asked for (the model never writes EOS and the server reads ignore_eos).
    let sweep = project.run(&[
        "collect",
        "sweep",
        "--label",
        "tiny server",
        "--levels",
        "1,2,4,8",
        "--prompt-words",
        "30",
        "--output-tokens",
        "16",
        "--ignore-eos",
        "--base-url",
        &server.url,
    ]);
    sweep.assert_success();
    let doc = project.results();
    let record = doc
        .sweeps
        .iter()
        .find(|s| s.label == "tiny server")
        .unwrap();
    let levels: Vec<_> = record
        .levels
        .iter()
        .map(|l| (l.concurrency, l.succeeded, l.failed, l.output_tokens))
        .collect();
    // The defaults: max(2, ⌈20 / concurrency⌉) rounds, so 20, 20, 20 and 3 × 8 = 24
    // requests, each level after a discarded warm-up request per stream.
    assert_eq!(
        levels,
        [
            (Some(1), 20, 0, Some(16)),
            (Some(2), 20, 0, Some(16)),
            (Some(4), 20, 0, Some(16)),
            (Some(8), 24, 0, Some(16))
        ]
    );
    let method = record.method.as_ref().unwrap();
    assert_eq!(
        (method.warmup, method.cache),
        (1, benchsite::data::CacheIsolation::Nonce)
    );
    // The server ends each stream with its finish reason; where its usage report counts
    // cached prompt tokens, the record has them (the chat template before the nonce, at
    // most, since every prompt starts with the sweep's nonce).
    for level in &record.levels {
        if let (Some(cached), Some(prompt)) = (level.cached_prompt_tokens, level.prompt_tokens) {
            assert!(cached < prompt * level.succeeded / 2, "{level:?}");
        }
    }
    // Open-loop arrivals at three rates, Poisson and seeded: every request answered with the
    // tokens asked for, each level with its rate, what it answered per second and the wait in
    // the client (none: nothing caps what is in flight).
    let open = project.run(&[
        "collect",
        "sweep",
        "--label",
        "tiny server arrivals",
        "--rates",
        "2,4,8",
        "--requests",
        "12",
        "--prompt-words",
        "30",
        "--output-tokens",
        "16",
        "--ignore-eos",
        "--base-url",
        &server.url,
    ]);
    open.assert_success();
    let doc = project.results();
    let record = doc
        .sweeps
        .iter()
        .find(|s| s.label == "tiny server arrivals")
        .unwrap();
    let levels: Vec<_> = record
        .levels
        .iter()
        .map(|l| {
            (
                l.rate_rps,
                l.requests,
                l.succeeded,
                l.failed,
                l.output_tokens,
            )
        })
        .collect();
    assert_eq!(
        levels,
        [
            (Some(2.0), 12, 12, 0, Some(16)),
            (Some(4.0), 12, 12, 0, Some(16)),
            (Some(8.0), 12, 12, 0, Some(16))
        ]
    );
    for level in &record.levels {
        assert!(level.achieved_rps.unwrap() > 0.0, "{level:?}");
        assert!(level.wait_max_s.unwrap() < 0.05, "{level:?}");
        assert_eq!(level.unsent, Some(0));
        // What the server said through the level (it runs with --metrics): the requests it
        // processed and deferred, and the prompt tokens it processed or found cached: the
        // 12 prompts' (each the median's length within a token or two, the nonce's), and
        // of them, found cached, what the answers' usage reports summed say.
        assert!(level.metric_scrapes.unwrap() >= 2, "{level:?}");
        assert!(
            level.running_max.is_some() && level.waiting_max.is_some(),
            "{level:?}"
        );
        let (queries, prompt) = (level.prefix_queries.unwrap(), level.prompt_tokens.unwrap());
        assert!(
            (12 * (prompt - 2)..=12 * (prompt + 2)).contains(&queries),
            "{level:?}"
        );
        assert_eq!(
            level.prefix_hits,
            Some(level.cached_prompt_tokens.unwrap_or(0)),
            "{level:?}"
        );
        assert_eq!((level.kv_usage_max, level.preemptions), (None, None));
    }
    // Measured with the profile of another model, the run is refused before any request,
    // naming both; --force records it, saying so.
    project.write(
        "profiles/other.env",
        "IMAGE=none\nMODEL=nvidia/Qwen3.6-35B-A3B-NVFP4\nPORT=8000\nMAX_MODEL_LEN=4096\n",
    );
    let other = |extra: &[&str]| {
        let mut args = vec![
            "collect",
            "run",
            "--id",
            "tiny-as-other",
            "--profile",
            "other",
            "--base-url",
            &server.url,
            "--shape",
            "MoE, 35B total / 3B active",
            "--precision",
            "NVFP4",
            "--max-tokens",
            "16",
        ];
        args.extend_from_slice(extra);
        project.run(&args)
    };
    let refused = other(&[]);
    assert!(!refused.status.success());
    assert!(
        refused.stderr.contains(
            "the server serves tiny, but profile other is nvidia/Qwen3.6-35B-A3B-NVFP4: measure it with the profile of what the server serves, or give --force"
        ),
        "{}",
        refused.stderr
    );
    other(&["--force"]).assert_success();
    let doc = project.results();
    let forced = doc
        .runs
        .iter()
        .find(|r| r.id.as_str() == "tiny-as-other")
        .unwrap();
    assert!(
        forced
            .notes
            .as_deref()
            .unwrap_or_default()
            .contains("Recorded with --force: the server serves tiny, but profile other is nvidia/Qwen3.6-35B-A3B-NVFP4."),
        "{:?}",
        forced.notes
    );
    // The server killed under a run's cold request: the run fails, naming the broken stream
    // or connection, and records nothing. (Killed later, the samples already taken would be
    // kept and the failed ones named in the record.)
    let killer = {
        let pid = server.child.id();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(300));
            let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
        })
    };
    let output = run("tiny-server-killed", "3500");
    killer.join().unwrap();
    let _ = server.child.wait();
    let named = |text: &str| {
        text.contains("the stream ended before [DONE]")
            || text.contains("transport: error decoding response body")
            || text.contains("Connection refused")
    };
    if output.status.success() {
        let doc = project.results();
        let killed = doc
            .runs
            .iter()
            .find(|r| r.id.as_str() == "tiny-server-killed")
            .unwrap();
        let notes = killed.notes.as_deref().unwrap_or_default();
        assert!(notes.contains("failed (") && named(notes), "{notes}");
    } else {
        assert!(
            output.stderr.contains("cold request failed") && named(&output.stderr),
            "{}",
            output.stderr
        );
        assert!(
            !project
                .results()
                .runs
                .iter()
                .any(|r| r.id.as_str() == "tiny-server-killed")
        );
    }
}

/// Waits until nothing listens on `port` any more (a stopped server's socket closes as it
/// exits), for at most ten seconds; whether it is free.
fn freed(port: u16) -> bool {
    let started = Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
        if started.elapsed() > Duration::from_secs(10) {
            return false;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    true
}

/// llama.cpp's own llama-server, started by benchsite from a profile that names it
/// (`ENGINE=llama-server`, `PROGRAM` the binary the test setup built): once by `collect run
/// --launch --launcher local`, then by a two-configuration campaign over its slots
/// (`MAX_NUM_SEQS`, its `--parallel`). Each is measured, stopped and its log kept, and the
/// records say the engine and its build. Then a context the machine cannot hold: the same
/// binary under a 1 GiB address-space limit asked for 4,194,304 tokens of KV cache (2 GiB on
/// the tiny model), which becomes a failure classified from llama-server's own log.
#[test]
fn llama_server_is_launched_from_its_profile_alone_and_in_a_campaign() {
    use benchsite::profiles::Engine;
    let dir = tempfile::tempdir().unwrap();
    let binary = support::setup("llama-server");
    let (_, model) = tiny_model(dir.path());
    let model = model.to_str().unwrap();
    let project = Project::copy_of_repo();
    let port = free_port();
    project.write(
        "profiles/tiny-ls.env",
        &format!(
            "ENGINE=llama-server\nPROGRAM={binary}\nMODEL={model}\nSERVED_MODEL_NAME=tiny\nPORT={port}\nMAX_MODEL_LEN=4096\nMAX_NUM_SEQS=2\nTHREADS=1\n"
        ),
    );
    let shown = project.run(&["profile", "show", "tiny-ls"]);
    shown.assert_success();
    let command = format!(
        "{binary} --model {model} --alias tiny --port {port} --ctx-size 4096 --parallel 2 --threads 1 --metrics --host 127.0.0.1"
    );
    assert!(
        shown.stdout.contains(&format!(
            "# llama.cpp llama-server on this machine (--launcher local)\n{command}\n"
        )),
        "{}",
        shown.stdout
    );

    // Every flag the llama-server table can give is one this llama-server says it takes.
    let help = Command::new(&binary).arg("--help").output().unwrap();
    let help = String::from_utf8_lossy(&[help.stdout, help.stderr].concat()).into_owned();
    let every = benchsite::profiles::parse(
        "every",
        Path::new("profiles/every.env"),
        "ENGINE=llama-server\nMODEL=m.gguf\nSERVED_MODEL_NAME=m\nMAX_MODEL_LEN=4096\nMAX_NUM_SEQS=2\nKV_CACHE_DTYPE=q8_0\nN_GPU_LAYERS=all\nFLASH_ATTN=on\nTHREADS=2\n",
    )
    .unwrap()
    .effective(&[]);
    for launcher in [
        benchsite::profiles::Launcher::Local,
        benchsite::profiles::Launcher::Podman,
    ] {
        let mut every = every.clone();
        every.settings.push(benchsite::profiles::Setting {
            key: "IMAGE".into(),
            value: "ghcr.io/ggml-org/llama.cpp:server".into(),
            origin: benchsite::profiles::Origin::Override,
        });
        let command = every.launch_command(launcher).unwrap();
        let flags: Vec<&String> = command
            .args
            .iter()
            .skip_while(|word| {
                !word.starts_with("ghcr.io") && launcher != benchsite::profiles::Launcher::Local
            })
            .filter(|word| word.starts_with("--"))
            .collect();
        assert!(flags.len() >= 11, "{command}");
        for flag in flags {
            assert!(
                help.contains(&format!("{flag} ")) || help.contains(&format!("{flag},")),
                "{flag} of {command} is not in llama-server --help"
            );
        }
    }

    let launched = project.run(&[
        "collect",
        "run",
        "--id",
        "tiny-launched",
        "--profile",
        "tiny-ls",
        "--launch",
        "--launcher",
        "local",
        "--ready-timeout",
        "120",
        "--stop-timeout",
        "10",
        "--shape",
        "Dense, tiny",
        "--precision",
        "F32",
        "--samples",
        "2",
        "--max-tokens",
        "24",
    ]);
    launched.assert_success();
    assert!(freed(port), "the launched llama-server was stopped");
    let doc = project.results();
    let run = doc
        .runs
        .iter()
        .find(|r| r.id.as_str() == "tiny-launched")
        .unwrap();
    assert_eq!(run.engine, Some(Engine::LlamaServer));
    let build = run.server.clone().unwrap();
    assert!(build.starts_with("llama.cpp llama-server b"), "{build}");
    assert_eq!(samples_and_bursts(run), 2, "{run:?}");
    assert_eq!((run.max_model_len, run.checkpoint.as_str()), (4096, model));
    // The pool is what /slots gave while the server was up: --ctx-size 4096 over two slots,
    // 2,048 tokens each. The log has no load report: the weights are the GGUF file's size, in
    // GiB to the thousandth, and the record says where they come from.
    assert_eq!(run.kv_tokens, Some(2 * 2048));
    let bytes = std::fs::metadata(model).unwrap().len() as f64;
    let gib = (bytes / (1u64 << 30) as f64 * 1000.0).round() / 1000.0;
    assert_eq!(run.weights_gib, Some(gib), "{run:?}");
    assert!(
        run.weights_source
            .as_deref()
            .unwrap()
            .starts_with("the checkpoint's weight files on disk"),
        "{run:?}"
    );
    let log =
        std::fs::read_to_string(project.root.path().join("data/logs/tiny-launched.log")).unwrap();
    assert!(log.contains("llama_server"), "{log}");

    project.write(
        "campaigns/tiny-ls.toml",
        "[[config]]\nprofile = \"tiny-ls\"\nmatrix = { MAX_NUM_SEQS = [1, 2] }\nshape = \"Dense, tiny\"\nprecision = \"F32\"\n[run]\nsamples = 2\nmax_tokens = 24\nprompt = \"Tell a long story about the sea.\"\n[[sweep]]\nlevels = [1, 2]\nprompt_words = 20\noutput_tokens = 16\nrounds = 1\n[launch]\nlauncher = \"local\"\nready_timeout_s = 120\nstop_timeout_s = 10\n",
    );
    let plan = project.run(&["campaign", "plan", "tiny-ls"]);
    plan.assert_success();
    assert!(
        plan.stdout.contains(&format!(
            "server: {}",
            command.replace("--parallel 2", "--parallel 1")
        )),
        "{}",
        plan.stdout
    );
    let campaign = project.run(&["campaign", "run", "tiny-ls"]);
    campaign.assert_success();
    assert!(
        campaign
            .stderr
            .contains("campaign tiny-ls: 4 done, 0 failed, 0 errors, 0 skipped"),
        "{}",
        campaign.stderr
    );
    assert!(freed(port), "the campaign's servers were stopped");
    let doc = project.results();
    let ids = ["tiny-ls-max-num-seqs-1", "tiny-ls-max-num-seqs-2"];
    for id in ids {
        let run = doc.runs.iter().find(|r| r.id.as_str() == id).unwrap();
        assert_eq!(
            (run.engine, run.server.as_deref()),
            (Some(Engine::LlamaServer), Some(build.as_str()))
        );
        // Samples whose first tokens came together are left out (a tiny model at 3,000
        // tokens a second outruns the server's sending now and then), unless most did.
        assert_eq!(samples_and_bursts(run), 2, "{id}: {run:?}");
        let sweep = doc.sweeps.iter().find(|s| s.label.starts_with(id)).unwrap();
        assert_eq!(sweep.engine, Some(Engine::LlamaServer));
        for level in &sweep.levels {
            assert_eq!(level.succeeded, level.requests, "{}", sweep.label);
            // llama-server streams a token a chunk: 16 tokens are 15 gaps an answer.
            assert_eq!(level.output_tokens, Some(16), "{level:?}");
            // The answers that came in bursts, if any, are left out of the inter-token
            // figures; where most did, the figures are the engine's and there are none.
            let delivery = level.delivery.as_ref().unwrap();
            let gaps = match delivery.per_stream {
                benchsite::data::PerStream::Client => {
                    Some((level.succeeded - delivery.bursts) * 15)
                }
                _ => None,
            };
            assert_eq!(
                (level.tokens_per_chunk, level.itl_gaps),
                (Some(1.0), gaps),
                "{level:?}"
            );
            // (Whether they came one read each depends on how fast this machine reads 3,000
            // tokens a second: not asserted.)
            assert!(level.bunched_share.is_some(), "{level:?}");
        }
        let log = project.root.path().join(format!("data/logs/{id}.log.gz"));
        assert!(log.exists(), "{id}'s server log is kept");
    }
    // The report says which engine served them, on the run's page and in its start command.
    project.run(&["build"]).assert_success();
    let page = project.page("runs/tiny-ls-max-num-seqs-2/index.html");
    assert!(
        page.contains("<dt>Engine</dt><dd>llama.cpp llama-server</dd>"),
        "{page}"
    );
    assert!(
        page.contains("Start the server (llama-server)")
            && page.contains("--parallel 2 --threads 1 --metrics")
            && page.contains("--set MAX_NUM_SEQS=2 --launch --launcher local"),
        "{page}"
    );

    let wrapper = dir.path().join("llama-server-1g");
    std::fs::write(
        &wrapper,
        format!("#!/bin/sh\nulimit -v 1048576\nexec {binary} \"$@\"\n"),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    project.write(
        "profiles/tiny-huge.env",
        &format!(
            "ENGINE=llama-server\nPROGRAM={}\nMODEL={model}\nSERVED_MODEL_NAME=tiny\nPORT={port}\nMAX_MODEL_LEN=4194304\nMAX_NUM_SEQS=1\nTHREADS=1\n",
            wrapper.display()
        ),
    );
    let failed = project.run(&[
        "collect",
        "run",
        "--id",
        "tiny-huge",
        "--profile",
        "tiny-huge",
        "--launch",
        "--launcher",
        "local",
        "--ready-timeout",
        "120",
        "--shape",
        "Dense, tiny",
        "--precision",
        "F32",
    ]);
    assert_eq!(failed.status.code(), Some(1), "{}", failed.stderr);
    let doc = project.results();
    let failure = doc
        .failures
        .iter()
        .find(|f| f.id.as_str() == "tiny-huge")
        .unwrap();
    assert_eq!(
        failure.status,
        benchsite::data::FailureStatus::InsufficientKv,
        "{}",
        failure.reason
    );
    assert!(
        failure
            .reason
            .contains("failed to initialize the context: failed to allocate buffer for kv cache"),
        "{}",
        failure.reason
    );
    assert_eq!(
        (failure.engine, failure.server.as_deref()),
        (Some(Engine::LlamaServer), Some(build.as_str())),
        "the build its --version gave is the one its /props gave"
    );
    assert_eq!(failure.log.as_deref(), Some("data/logs/tiny-huge.log.gz"));
    project.run(&["check"]).assert_success();
    // The failure's page names the engine and its build; the trade-off view, where vLLM's
    // sweeps (the seed's) sit beside llama-server's, names each sweep's engine.
    project.run(&["build"]).assert_success();
    let page = project.page("failures/tiny-huge/index.html");
    assert!(
        page.contains(&format!("<dt>Engine</dt><dd>{build}</dd>")),
        "{page}"
    );
    // Two slots and one are a one-knob pair on llama-server (the runs are paired by the
    // first record of each configuration, the launched run at two slots; the sweeps though a
    // nonce may make one's prompt a token longer), and the launched run and the campaign's
    // two-slot one are one configuration measured twice.
    let ablations = project.page("ablations/index.html");
    assert!(
        ablations.contains("MAX_NUM_SEQS: 2 → 1 (on llama.cpp llama-server)")
            && ablations.contains("seqs: 1 → 2 (on llama.cpp llama-server)"),
        "{ablations}"
    );
    let history = project.page("history/index.html");
    assert!(
        history.contains("tiny on llama.cpp llama-server (tiny-launched and its reruns)"),
        "{history}"
    );
    let sweeps = project.page("sweeps/index.html");
    assert!(
        sweeps.contains("tiny-ls-max-num-seqs-1 sweep (llama-server)")
            && sweeps.contains("<td>llama.cpp llama-server</td>")
            && sweeps.contains("<td>vLLM</td>"),
        "{sweeps}"
    );
}

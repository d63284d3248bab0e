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
    assert_eq!(record.decode_samples.len(), 3);
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
    assert_eq!(levels, [(1, 2, 0, Some(24)), (2, 4, 0, Some(24))]);
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
        assert_eq!(run.decode_samples.len(), 2);
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

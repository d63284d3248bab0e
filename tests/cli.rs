//! The command line as a user meets it: the shipped project checks clean, profiles show
//! their settings and launch commands, and mistakes exit with the documented status.

mod support;

use benchsite::data;
use benchsite::profiles::{self, Launcher};
use support::{Project, repo, run_benchsite, run_in_repo};

#[test]
fn the_shipped_project_checks_clean() {
    let output = run_in_repo(&["check"]);
    output.assert_success();
    assert!(
        output
            .stdout
            .contains("6 runs, 4 failures, 13 sweeps (77 levels), 5 jitter, 11 divergence"),
        "{}",
        output.stdout
    );
    assert!(output.stdout.contains("profiles: 3"), "{}", output.stdout);
}

/// Every run of the seed follows from its profile and overrides: the settings the run
/// recorded are the ones its launch command starts the server with.
#[test]
fn seed_runs_follow_from_their_profiles() {
    let doc = data::load(&repo().join("data/results.json")).unwrap();
    for run in &doc.runs {
        let profile = profiles::load(&repo().join("profiles"), &run.profile).unwrap();
        let overrides = profiles::parse_overrides(&run.overrides).unwrap();
        let effective = profile.effective(&overrides);
        assert_eq!(
            effective.get("MODEL"),
            Some(run.checkpoint.as_str()),
            "{}",
            run.id
        );
        assert_eq!(
            effective.number("MAX_MODEL_LEN"),
            Some(run.max_model_len),
            "{}",
            run.id
        );
        assert_eq!(
            effective.get("KV_CACHE_DTYPE"),
            run.kv_cache_dtype.as_deref(),
            "{}",
            run.id
        );
        let command = effective
            .launch_command(Launcher::Local)
            .unwrap()
            .to_string();
        let has = |flag: &str| command.split(' ').any(|word| word == flag);
        assert!(
            command.starts_with(&format!("vllm serve {} ", run.checkpoint)),
            "{command}"
        );
        assert!(
            command.contains(&format!("--max-model-len {} ", run.max_model_len)),
            "{command}"
        );
        assert_eq!(
            has("--speculative-config"),
            run.spec_decode,
            "{}: {command}",
            run.id
        );
        assert_eq!(
            has("--enforce-eager"),
            !run.cuda_graphs,
            "{}: {command}",
            run.id
        );
        assert_eq!(
            has("--language-model-only"),
            !run.vision,
            "{}: {command}",
            run.id
        );
        let podman = effective
            .launch_command(Launcher::Podman)
            .unwrap()
            .to_string();
        assert!(
            podman.contains("docker.io/vllm/vllm-openai:v0.28.0 --model "),
            "{podman}"
        );
    }
}

#[test]
fn the_official_fp8_run_reproduces_exactly() {
    let output = run_in_repo(&[
        "profile",
        "show",
        "qwen3.8-27b",
        "--launcher",
        "local",
        "--set",
        "MODEL=Qwen/Qwen3.8-27B-FP8",
        "--set",
        "MAX_MODEL_LEN=4096",
        "--set",
        "MAX_NUM_SEQS=2",
        "--set",
        "GPU_MEMORY_UTILIZATION=0.93",
        "--set",
        "LANGUAGE_MODEL_ONLY=1",
        "--set",
        "EXTRA_ARGS=--max-num-batched-tokens 1024",
    ]);
    output.assert_success();
    assert!(
        output.stdout.contains(
            "vllm serve Qwen/Qwen3.8-27B-FP8 --served-model-name Qwen3.8-27B --port 8000 \
             --max-model-len 4096 --max-num-seqs 2 --gpu-memory-utilization 0.93 \
             --kv-cache-dtype fp8 --enforce-eager --language-model-only --host 127.0.0.1 \
             --max-num-batched-tokens 1024\n"
        ),
        "{}",
        output.stdout
    );
    assert!(
        output.stdout.contains("MAX_MODEL_LEN=4096"),
        "{}",
        output.stdout
    );
    assert!(output.stdout.contains("# override"), "{}", output.stdout);
}

#[test]
fn an_unknown_profile_lists_the_known_ones() {
    let output = run_in_repo(&["profile", "show", "qwen"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        output.stderr.contains("no profile \"qwen\" in ")
            && output.stderr.contains(
                "profiles: expected one of nemotron-3.5-lightning, qwen3.6-35b-a3b, qwen3.8-27b"
            ),
        "{}",
        output.stderr
    );
}

#[test]
fn a_bad_set_is_invalid_input() {
    let output = run_in_repo(&["profile", "show", "qwen3.8-27b", "--set", "SPEC_DECODE=yes"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        output
            .stderr
            .contains("SPEC_DECODE expected 0 or 1, found \"yes\""),
        "{}",
        output.stderr
    );
}

/// A timeout no wait can make (NaN, negative, beyond a week) is an error naming the flag or the
/// campaign file's place, never a panic, and nothing is started or written.
#[test]
fn a_bad_timeout_is_an_error_not_a_panic() {
    let project = Project::copy_of_repo();
    let before = std::fs::read(project.root.path().join("data/results.json")).unwrap();
    for (flag, value) in [
        ("--ready-timeout", "NaN"),
        ("--ready-timeout", "-5"),
        ("--stop-timeout", "1e30"),
        ("--timeout", "inf"),
    ] {
        let given = format!("{flag}={value}");
        let output = project.run(&[
            "collect",
            "run",
            "--id",
            "x",
            "--profile",
            "qwen3.8-27b",
            "--launch",
            &given,
        ]);
        assert_eq!(
            output.status.code(),
            Some(1),
            "{flag} {value}: {}",
            output.stderr
        );
        assert!(
            output.stderr.contains(&format!(
                "{flag}: expected seconds above 0 and at most a week (604800), found"
            )),
            "{flag} {value}: {}",
            output.stderr
        );
        assert!(!output.stderr.contains("panicked"), "{}", output.stderr);
    }
    project.write(
        "campaigns/night.toml",
        "[[config]]\nprofile = \"qwen3.8-27b\"\n[run]\n[launch]\nready_timeout_s = -1.0\n",
    );
    let output = project.run(&["campaign", "run", "night", "--ready-timeout", "60"]);
    assert_eq!(output.status.code(), Some(1), "{}", output.stderr);
    assert!(
        output.stderr.contains(
            "campaigns/night.toml:5:19: launch.ready_timeout_s: expected seconds above 0 and at most a week (604800), found -1"
        ),
        "{}",
        output.stderr
    );
    project.write(
        "campaigns/night.toml",
        "[[config]]\nprofile = \"qwen3.8-27b\"\n[run]\n",
    );
    let output = project.run(&["campaign", "run", "night", "--ready-timeout", "NaN"]);
    assert_eq!(output.status.code(), Some(1), "{}", output.stderr);
    assert!(
        output
            .stderr
            .contains("--ready-timeout: expected seconds above 0"),
        "{}",
        output.stderr
    );
    assert_eq!(
        std::fs::read(project.root.path().join("data/results.json")).unwrap(),
        before
    );
}

#[test]
fn usage_errors_exit_2() {
    let output = run_benchsite(&["chekc"]);
    assert_eq!(output.status.code(), Some(2));
    let output = run_benchsite(&["profile", "show"]);
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn version_names_the_commit_it_was_built_from() {
    let output = run_benchsite(&["--version"]);
    output.assert_success();
    let commit = std::process::Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .current_dir(support::repo())
        .output()
        .unwrap();
    let commit = String::from_utf8(commit.stdout).unwrap();
    assert_eq!(
        output.stdout.trim(),
        format!(
            "benchsite {} ({})",
            env!("CARGO_PKG_VERSION"),
            commit.trim()
        )
    );
    let sub = run_benchsite(&["campaign", "--version"]);
    assert!(sub.stdout.contains(commit.trim()), "{}", sub.stdout);
}

#[test]
fn help_lists_only_working_commands() {
    let output = run_benchsite(&["--help"]);
    output.assert_success();
    let commands: Vec<&str> = output
        .stdout
        .lines()
        .skip_while(|line| !line.starts_with("Commands:"))
        .skip(1)
        .take_while(|line| !line.is_empty())
        .filter_map(|line| line.split_whitespace().next())
        .collect();
    assert_eq!(
        commands,
        [
            "build",
            "collect",
            "campaign",
            "serve",
            "check",
            "diff",
            "schema",
            "init",
            "theme",
            "profile",
            "completions",
            "help"
        ]
    );
}

#[test]
fn schema_prints_the_embedded_schema() {
    let output = run_benchsite(&["schema"]);
    output.assert_success();
    let printed: serde_json::Value = serde_json::from_str(&output.stdout).unwrap();
    assert_eq!(&printed, data::schema());
    assert_eq!(printed["title"], "benchsite results document");
}

#[test]
fn check_reports_every_broken_file_at_once() {
    let project = Project::with_results(b"{");
    let root = project.root.path();
    std::fs::write(
        root.join("profiles/broken.env"),
        "MODEL=x\nMAX_MODEL_LEN=lots\n",
    )
    .unwrap();
    std::fs::write(root.join("profiles/odd.env"), "MODEL=x\nCOLOUR=red\n").unwrap();
    std::fs::write(
        root.join("profiles/gguf.env"),
        "ENGINE=llama-server\nMODEL=m.gguf\nGPU_MEMORY_UTILIZATION=0.9\n",
    )
    .unwrap();
    std::fs::write(
        root.join("benchsite.toml"),
        "title = \"x\"\nbase_ulr = \"/\"\n",
    )
    .unwrap();
    let output = project.run(&["check"]);
    assert_eq!(output.status.code(), Some(1));
    let report = output.stderr;
    assert!(
        report.contains("benchsite.toml:2:1: unknown field `base_ulr`"),
        "{report}"
    );
    assert!(
        report.contains(
            "profiles/broken.env:2: MAX_MODEL_LEN expected a whole number above 0, found \"lots\""
        ),
        "{report}"
    );
    assert!(
        report.contains(
            "profiles/gguf.env:3: GPU_MEMORY_UTILIZATION is not a setting of llama-server (ENGINE=llama-server takes ENGINE, PROGRAM, ENV, IMAGE, MODEL, PORT, EXTRA_ARGS, SERVED_MODEL_NAME, MAX_MODEL_LEN, MAX_NUM_SEQS, KV_CACHE_DTYPE, N_GPU_LAYERS, FLASH_ATTN, THREADS)"
        ),
        "{report}"
    );
    assert!(
        report.contains("profiles/odd.env:2: unknown key COLOUR is ignored"),
        "{report}"
    );
    assert!(report.contains("it ends too early"), "{report}");
    assert!(
        report.contains("check failed: 4 files with problems"),
        "{report}"
    );
}

#[test]
fn completions_are_generated() {
    let output = run_benchsite(&["completions", "bash"]);
    output.assert_success();
    assert!(output.stdout.contains("benchsite"));
}

#[test]
fn errors_name_project_files_relative_to_the_project() {
    let project = Project::copy_of_repo();
    let output = project.run(&[
        "collect",
        "capture",
        "--id",
        "x",
        "--prompts",
        "data/nope.jsonl",
        "--base-url",
        "http://127.0.0.1:9",
    ]);
    assert!(!output.status.success());
    assert!(
        output
            .stderr
            .starts_with("error: data/nope.jsonl: No such file or directory"),
        "{}",
        output.stderr
    );
    assert!(
        !output.stderr.contains(project.root_str()),
        "{}",
        output.stderr
    );
}

/// `init --engine llama-server --model FILE.gguf` starts a report whose example profile serves
/// that file with llama-server and whose example campaign runs over llama-server's own knobs;
/// `--engine sglang` one that starts SGLang.
#[test]
fn init_writes_a_starting_profile_for_each_engine() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("gguf-report");
    let root = root.to_str().unwrap();
    run_benchsite(&[
        "init",
        root,
        "--engine",
        "llama-server",
        "--model",
        "/models/Qwen3-8B-Q4_K_M.gguf",
    ])
    .assert_success();
    let shown = run_benchsite(&["--root", root, "profile", "show", "example"]);
    shown.assert_success();
    assert!(
        shown.stdout.ends_with(
            "# llama.cpp llama-server on this machine (--launcher local)\n\
             llama-server --model /models/Qwen3-8B-Q4_K_M.gguf --alias example --port 8000 \
             --ctx-size 16384 --parallel 4 --n-gpu-layers all --flash-attn auto --metrics \
             --host 127.0.0.1\n"
        ),
        "{}",
        shown.stdout
    );
    let plan = run_benchsite(&["--root", root, "campaign", "plan", "example"]);
    plan.assert_success();
    assert!(
        plan.stdout.contains(
            "server: llama-server --model /models/Qwen3-8B-Q4_K_M.gguf --alias example --port 8000 --ctx-size 16384 --parallel 1 --n-gpu-layers all --flash-attn on --metrics"
        ) && plan.stdout.contains("0 done, 0 failed, 0 conflict, 8 pending"),
        "{}",
        plan.stdout
    );
    run_benchsite(&["--root", root, "check"]).assert_success();

    let root = dir.path().join("sglang-report");
    let root = root.to_str().unwrap();
    run_benchsite(&["init", root, "--engine", "sglang"]).assert_success();
    let shown = run_benchsite(&["--root", root, "profile", "show", "example"]);
    shown.assert_success();
    assert!(
        shown.stdout.contains(
            "# SGLang on this machine (--launcher local)\n\
             python3 -m sglang.launch_server --model-path Qwen/Qwen3-0.6B --port 8000 \
             --context-length 8192 --max-running-requests 8 --kv-cache-dtype auto --enable-metrics \
             --host 127.0.0.1\n"
        ),
        "{}",
        shown.stdout
    );
    run_benchsite(&["--root", root, "campaign", "plan", "example"]).assert_success();
}

//! `benchsite campaign` end to end, with the project's fake vLLM servers and a fake launcher
//! standing in for podman: every configuration measured, a server that never becomes ready
//! recorded as a failure, resuming after SIGKILL, merging, and the GitHub Actions workflow run
//! under bash. The Slurm script runs on a real Slurm in tests/slurm.rs.

mod support;

#[path = "support/fake_vllm.rs"]
mod fake_vllm;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use benchsite::data::{self, FailureStatus, Results};
use fake_vllm::{FakeVllm, Script};
use serde_json::Value;
use support::{Output, Project, free_port};
use yaml_rust2::{Yaml, YamlLoader};

/// Held by every test here: they start servers and binaries that time requests.
static TIMING: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn timed() -> std::sync::MutexGuard<'static, ()> {
    TIMING
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A stand-in for podman: notes its arguments and pid by port, stops on SIGTERM, and
/// behaves as `$FAKE_DIR/mode-<port>` says (default: serves until stopped, the fake vLLM on its
/// port answering `/health` while `$FAKE_DIR/up-<port>` exists; `hang`: never becomes ready).
fn fake_launcher(dir: &Path) -> PathBuf {
    let path = dir.join("fake-podman");
    std::fs::write(
        &path,
        r#"#!/bin/sh
port=""
previous=""
for arg in "$@"; do
    [ "$previous" = "--port" ] && port="$arg"
    previous="$arg"
done
echo "$@" > "$FAKE_DIR/args-$port"
echo $$ > "$FAKE_DIR/pid-$port"
trap 'rm -f "$FAKE_DIR/up-$port"; echo stopped >> "$FAKE_DIR/stopped-$port"; exit 0' TERM
echo "INFO 09-07 12:00:01 [api_server.py:1000] vLLM API server version 0.28.0"
echo "INFO 09-07 12:00:30 [gpu_model_runner.py:2000] Model loading took 13.5 GiB and 8.1 seconds"
mode=serve
[ -f "$FAKE_DIR/mode-$port" ] && mode=$(cat "$FAKE_DIR/mode-$port")
case "$mode" in
serve)
    echo "INFO 09-07 12:00:41 [kv_cache_utils.py:1087] GPU KV cache size: 200,000 tokens"
    echo $$ > "$FAKE_DIR/up-$port"
    while true; do sleep 0.05; done ;;
hang)
    echo "INFO 09-07 12:00:31 [core.py:70] compiling the graphs"
    while true; do sleep 0.05; done ;;
esac
"#,
    )
    .unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// A stand-in for nvidia-smi that reads 250 W.
fn fake_nvidia_smi(dir: &Path) -> PathBuf {
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let path = bin.join("nvidia-smi");
    std::fs::write(
        &path,
        "#!/bin/sh\ncase \"$*\" in *power.draw*) echo 250.00 ;; *) exit 9 ;; esac\n",
    )
    .unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    bin
}

fn profile(project: &Project, name: &str, port: u16) {
    project.write(
        &format!("profiles/{name}.env"),
        &format!(
            "IMAGE=example/vllm:test\nMODEL=example/Fake-Model-7B\nSERVED_MODEL_NAME=Fake-Model-7B\nPORT={port}\nMAX_MODEL_LEN=32768\nMAX_NUM_SEQS=4\nKV_CACHE_DTYPE=fp8\nENFORCE_EAGER=0\n"
        ),
    );
}

fn quick() -> Script {
    Script {
        ttft: Duration::from_millis(5),
        chunk_interval: Duration::from_millis(1),
        tokens: 40,
        ..Script::default()
    }
}

/// An empty project with a fake launcher and profiles `alpha`, `beta` (each served on its own
/// port) and `gamma` (whose server never comes up).
struct Fleet {
    project: Project,
    launcher: PathBuf,
    ports: [u16; 3],
}

impl Fleet {
    fn new() -> Self {
        let empty = data::to_json(&Results::empty(data::Date::new("2026-12-01").unwrap()));
        let project = Project::with_results(empty.as_bytes());
        let launcher = fake_launcher(project.root.path());
        let ports = [free_port(), free_port(), free_port()];
        for (name, port) in ["alpha", "beta", "gamma"].iter().zip(ports) {
            profile(&project, name, port);
        }
        std::fs::write(
            project.root.path().join(format!("mode-{}", ports[2])),
            "hang",
        )
        .unwrap();
        Self {
            project,
            launcher,
            ports,
        }
    }

    fn env(&self) -> Vec<(&'static str, String)> {
        let dir = self.project.root.path();
        vec![
            (
                "BENCHSITE_LAUNCH_PROGRAM",
                self.launcher.display().to_string(),
            ),
            ("FAKE_DIR", dir.display().to_string()),
        ]
    }

    fn run(&self, args: &[&str]) -> Output {
        let env = self.env();
        let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
        self.project.run_with(args, &env)
    }

    fn path(&self, relative: &str) -> PathBuf {
        self.project.root.path().join(relative)
    }

    /// The fake vLLM of profile `index`'s port, ready while its launched stand-in runs.
    fn serve(&self, index: usize, script: Script) -> FakeVllm {
        let port = self.ports[index];
        FakeVllm::start_on(
            Script {
                ready_file: Some(self.path(&format!("up-{port}"))),
                ..script
            },
            port,
        )
    }
}

const NIGHT: &str = r#"
description = "Two profiles at two batch limits, and one that never starts."

[[config]]
profile = "alpha"
matrix = { MAX_NUM_SEQS = [4, 8] }
shape = "Dense, 7B"
precision = "BF16"

[[config]]
profile = "beta"
matrix = { MAX_NUM_SEQS = [4, 8] }
shape = "Dense, 7B"
precision = "BF16"

[[config]]
profile = "gamma"
id = "gamma-never-ready"
shape = "Dense, 7B"
precision = "BF16"

[run]
samples = 2
max_tokens = 40
prompt = "Tell a long story about the sea."

[[sweep]]
levels = [1, 2]
prompt_words = 30
output_tokens = 40
rounds = 1

[launch]
ready_timeout_s = 1
stop_timeout_s = 5
"#;

const MEASURED: [&str; 4] = [
    "alpha-max-num-seqs-4",
    "alpha-max-num-seqs-8",
    "beta-max-num-seqs-4",
    "beta-max-num-seqs-8",
];

fn plan_statuses(fleet: &Fleet, name: &str) -> Vec<(String, String)> {
    let output = fleet.run(&["campaign", "plan", name, "--format", "json"]);
    output.assert_success();
    let plan: Value = serde_json::from_str(&output.stdout).unwrap();
    plan["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|job| {
            (
                job["id"].as_str().unwrap().to_owned(),
                job["status"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn count(statuses: &[(String, String)], status: &str) -> usize {
    statuses.iter().filter(|(_, s)| s == status).count()
}

#[test]
fn a_campaign_measures_every_configuration_records_a_dead_one_and_resumes_nothing_twice() {
    let _timed = timed();
    let fleet = Fleet::new();
    let _alpha = fleet.serve(0, quick());
    let _beta = fleet.serve(1, quick());
    fleet.project.write("campaigns/night.toml", NIGHT);
    let bin = fake_nvidia_smi(fleet.project.root.path());

    let before = plan_statuses(&fleet, "night");
    assert_eq!(before.len(), 10, "{before:?}");
    assert_eq!(count(&before, "pending"), 10);
    let text = fleet.run(&["campaign", "plan", "night"]);
    text.assert_success();
    assert!(
        text.stdout.contains(&format!(
            "benchsite collect run --base-url http://127.0.0.1:{} --id alpha-max-num-seqs-8 --profile alpha --set MAX_NUM_SEQS=8 --samples 2 --max-tokens 40",
            fleet.ports[0]
        )),
        "{}",
        text.stdout
    );
    assert!(
        text.stdout.contains("server: podman run") && text.stdout.contains("--max-num-seqs 8"),
        "{}",
        text.stdout
    );

    let dry = fleet.run(&["campaign", "run", "night", "--dry-run"]);
    dry.assert_success();
    assert!(
        dry.stdout
            .contains("alpha-max-num-seqs-8 (profile alpha): would start ")
            && dry
                .stdout
                .contains("alpha-max-num-seqs-8/sweep → benchsite collect sweep"),
        "{}",
        dry.stdout
    );
    assert!(
        fleet.project.results().runs.is_empty(),
        "a dry run writes nothing"
    );
    assert!(
        !fleet.path(&format!("args-{}", fleet.ports[0])).exists(),
        "and starts nothing"
    );

    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
    let mut env = fleet.env();
    env.push(("PATH", path));
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let output = fleet.project.run_with(&["campaign", "run", "night"], &env);
    output.assert_success();
    assert!(
        output
            .stderr
            .contains("campaign night: 8 done, 2 failed, 0 errors, 0 skipped"),
        "{}",
        output.stderr
    );

    let doc = fleet.project.results();
    let runs: Vec<&str> = doc.runs.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(runs, MEASURED);
    let sweeps: Vec<String> = doc.sweeps.iter().map(|s| s.label.clone()).collect();
    assert_eq!(sweeps, MEASURED.map(|id| format!("{id} sweep")).to_vec());
    // Each sweep keeps its per-request data beside the document, a line per request sent,
    // and a merge elsewhere carries it along.
    let merged = Fleet::new();
    for sweep in &doc.sweeps {
        let log = sweep.request_log.as_deref().unwrap();
        assert_eq!(log, format!("data/requests/{}.jsonl.gz", sweep.slug()));
        let lines = data::read_request_log(&fleet.path(log)).unwrap();
        let sent: u64 = sweep.levels.iter().map(|l| l.requests).sum();
        assert_eq!(lines.len() as u64, sent, "{}", sweep.label);
    }
    support::copy_dir(&fleet.path("data"), &merged.path("elsewhere/data"));
    let copied = merged.run(&["campaign", "merge", "elsewhere"]);
    copied.assert_success();
    for sweep in &doc.sweeps {
        assert!(merged.path(sweep.request_log.as_deref().unwrap()).exists());
    }
    for run in &doc.runs {
        assert_eq!(run.checkpoint, "example/Fake-Model-7B");
        assert_eq!(
            run.weights_gib,
            Some(13.5),
            "from the launched server's log"
        );
        assert_eq!(run.kv_tokens, Some(131_072), "from /metrics");
        let provenance = run.provenance.as_ref().unwrap();
        assert_eq!(provenance.campaign.as_deref(), Some("night"));
        assert_eq!(provenance.benchsite, env!("CARGO_PKG_VERSION"));
        // 250 W over the samples' window: the joules per token are 250 W over the rate the
        // window saw, a little slower than the decode rate (the window holds the TTFTs).
        assert_eq!(run.power_w, Some(250.0));
        let joules = run.joules_per_token.unwrap();
        let ratio = joules * run.decode_tok_s / 250.0;
        assert!(
            (0.9..2.0).contains(&ratio),
            "{joules} J/token at {} tok/s",
            run.decode_tok_s
        );
    }
    assert!(doc.runs.iter().any(|r| r.overrides == "MAX_NUM_SEQS=8"));
    for sweep in &doc.sweeps {
        assert_eq!(sweep.levels.len(), 2);
        for level in &sweep.levels {
            assert_eq!(level.succeeded, level.requests, "{}", sweep.label);
            assert_eq!(level.power_w, Some(250.0));
            // Over a level, energy per token is power over the total rate.
            let product = level.joules_per_token.unwrap() * level.total_tok_s.unwrap();
            assert!((product - 250.0).abs() < 250.0 * 0.15, "{product}");
        }
        let seqs = if sweep.label.contains("-4 ") {
            "4"
        } else {
            "8"
        };
        assert_eq!(sweep.dimensions.get("seqs").map(String::as_str), Some(seqs));
        assert_eq!(
            sweep.dimensions.get("kv"),
            None,
            "the profile's, not a setting"
        );
    }
    let failure = doc
        .failures
        .iter()
        .find(|f| f.id.as_str() == "gamma-never-ready")
        .unwrap();
    assert_eq!(failure.status, FailureStatus::Crashed);
    assert!(
        failure.reason.contains("was not ready after 1 s"),
        "{}",
        failure.reason
    );
    assert!(
        failure.reason.contains("compiling the graphs"),
        "{}",
        failure.reason
    );
    assert_eq!(
        failure.log.as_deref(),
        Some("data/logs/gamma-never-ready.log.gz")
    );
    assert_eq!(failure.precision, "BF16");
    // Every server was stopped, and its log kept compressed.
    for port in fleet.ports {
        let stopped = std::fs::read_to_string(fleet.path(&format!("stopped-{port}"))).unwrap();
        let starts = if port == fleet.ports[2] { 1 } else { 2 };
        assert_eq!(stopped.lines().count(), starts, "port {port}");
    }
    for id in MEASURED.iter().chain(["gamma-never-ready"].iter()) {
        let gz = fleet.path(&format!("data/logs/{id}.log.gz"));
        let mut text = String::new();
        use std::io::Read;
        flate2::read::GzDecoder::new(std::fs::File::open(&gz).unwrap())
            .read_to_string(&mut text)
            .unwrap();
        assert!(text.contains("vLLM API server version"), "{id}");
        assert!(!fleet.path(&format!("data/logs/{id}.log")).exists());
    }

    let after = plan_statuses(&fleet, "night");
    assert_eq!(
        (count(&after, "done"), count(&after, "failed")),
        (8, 2),
        "{after:?}"
    );

    // Again: nothing to do, nothing written.
    let bytes = std::fs::read(fleet.path("data/results.json")).unwrap();
    let again = fleet.run(&["campaign", "run", "night"]);
    again.assert_success();
    assert!(
        again
            .stderr
            .contains("0 done, 0 failed, 0 errors, 10 skipped"),
        "{}",
        again.stderr
    );
    assert_eq!(
        bytes,
        std::fs::read(fleet.path("data/results.json")).unwrap()
    );

    // The report checks and builds; the failure's page links its server log.
    fleet.project.run(&["check"]).assert_success();
    fleet.project.run(&["build"]).assert_success();
    let page = fleet.project.page("failures/gamma-never-ready/index.html");
    assert!(
        page.contains("href=\"/data/logs/gamma-never-ready.log.gz\""),
        "{page}"
    );
    assert!(
        fleet
            .path("site/data/logs/gamma-never-ready.log.gz")
            .exists()
    );
    assert!(page.contains("<h2>Where it was measured</h2>") && page.contains("night"));
    let run_page = fleet.project.page("runs/alpha-max-num-seqs-4/index.html");
    assert!(run_page.contains("Where it was measured"), "{run_page}");
    let joules = doc.runs[0].joules_per_token.unwrap();
    assert!(
        run_page.contains(&format!(
            "<dd>250.0 W over the samples, {joules} J per output token</dd>"
        )),
        "{run_page}"
    );

    // Its server comes up now: --retry-failed measures it and drops the failure.
    let _gamma = fleet.serve(2, quick());
    std::fs::remove_file(fleet.path(&format!("mode-{}", fleet.ports[2]))).unwrap();
    let retried = fleet.run(&["campaign", "run", "night", "--retry-failed"]);
    retried.assert_success();
    assert!(
        retried.stderr.contains("2 done, 0 failed"),
        "{}",
        retried.stderr
    );
    let doc = fleet.project.results();
    assert!(
        doc.runs
            .iter()
            .any(|r| r.id.as_str() == "gamma-never-ready")
    );
    assert!(doc.failures.is_empty(), "{:?}", doc.failures);
}

#[test]
fn a_killed_campaign_resumes_and_leaves_finished_records_as_they_were() {
    let _timed = timed();
    let fleet = Fleet::new();
    let slow = Script {
        chunk_interval: Duration::from_millis(5),
        ..quick()
    };
    let _alpha = fleet.serve(0, slow);
    fleet.project.write(
        "campaigns/night.toml",
        "[[config]]\nprofile = \"alpha\"\nmatrix = { MAX_NUM_SEQS = [4, 8] }\nshape = \"Dense, 7B\"\nprecision = \"BF16\"\n[run]\nsamples = 1\nmax_tokens = 40\nprompt = \"A story.\"\n[[sweep]]\nlevels = [1, 2]\nprompt_words = 20\noutput_tokens = 40\nrounds = 2\n[launch]\nready_timeout_s = 5\nstop_timeout_s = 5\n",
    );
    let mut child = Command::new(env!("CARGO_BIN_EXE_benchsite"))
        .arg("--root")
        .arg(fleet.project.root.path())
        .args(["campaign", "run", "night"])
        .envs(fleet.env())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let document = fleet.path("data/results.json");
    let started = Instant::now();
    let first = loop {
        let doc = data::load(&document).unwrap();
        if let Some(run) = doc.runs.first() {
            break run.clone();
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "no run recorded"
        );
        assert!(
            child.try_wait().unwrap().is_none(),
            "the campaign ended early"
        );
        std::thread::sleep(Duration::from_millis(5));
    };
    child.kill().unwrap();
    child.wait().unwrap();
    // SIGKILL leaves no launched server behind: its guard stops it within a second, so the
    // campaign resumed at once measures its next configuration with a server of its own.
    let pid: i32 = std::fs::read_to_string(fleet.path(&format!("pid-{}", fleet.ports[0])))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let killed = Instant::now();
    while fake_vllm::running(pid as u32) {
        assert!(
            killed.elapsed() < Duration::from_secs(1),
            "the launched server outlived its campaign"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    let first_json = serde_json::to_string(&first).unwrap();
    let statuses = plan_statuses(&fleet, "night");
    assert_eq!(
        statuses[0],
        ("alpha-max-num-seqs-4/run".into(), "done".into())
    );
    assert!(count(&statuses, "pending") >= 2, "{statuses:?}");

    let resumed = fleet.run(&["campaign", "run", "night"]);
    resumed.assert_success();
    let doc = fleet.project.results();
    assert_eq!(doc.runs.len(), 2);
    assert_eq!(doc.sweeps.len(), 2);
    assert_eq!(serde_json::to_string(&doc.runs[0]).unwrap(), first_json);
    let statuses = plan_statuses(&fleet, "night");
    assert_eq!(count(&statuses, "done"), 4, "{statuses:?}");
}

#[test]
fn campaign_files_are_checked_with_their_place() {
    let fleet = Fleet::new();
    fleet.project.write(
        "campaigns/bad.toml",
        "[[config]]\nprofile = \"delta\"\n\n[[sweep]]\nlevels = [8, 4]\n",
    );
    let output = fleet.project.run(&["check"]);
    assert_eq!(output.status.code(), Some(1), "{}", output.stderr);
    assert!(
        output
            .stderr
            .contains("campaigns/bad.toml:2:11: profile: expected the name of a profile in")
            && output.stderr.contains("found \"delta\""),
        "{}",
        output.stderr
    );
    assert!(
        output
            .stderr
            .contains("campaigns/bad.toml:5:10: sweep.levels: expected increasing concurrencies"),
        "{}",
        output.stderr
    );
    assert!(
        output.stderr.contains("check failed: 1 file with problems"),
        "{}",
        output.stderr
    );
    let plan = fleet.project.run(&["campaign", "plan", "bad"]);
    assert_eq!(plan.status.code(), Some(1));
    let missing = fleet.project.run(&["campaign", "plan", "nope"]);
    assert!(
        missing.stderr.contains("campaigns: bad"),
        "{}",
        missing.stderr
    );
}

/// Two machines, each with its runner label and document.
fn two_machines(fleet: &Fleet) {
    let config = std::fs::read_to_string(fleet.path("benchsite.toml")).unwrap();
    fleet.project.write(
        "benchsite.toml",
        &format!(
            "{config}\n[machines.box-a]\ndata = \"data/box-a.json\"\nrunner = \"gpu-a\"\n\n[machines.box-b]\ndata = \"data/box-b.json\"\n"
        ),
    );
    let empty = data::to_json(&Results::empty(data::Date::new("2026-12-01").unwrap()));
    for name in ["box-a", "box-b"] {
        fleet.project.write(&format!("data/{name}.json"), &empty);
    }
    std::fs::remove_file(fleet.path("data/results.json")).unwrap();
    fleet.project.write(
        "campaigns/night.toml",
        "[[config]]\nprofile = \"alpha\"\nmatrix = { MAX_NUM_SEQS = [4, 8] }\nshape = \"Dense, 7B\"\nprecision = \"BF16\"\n[run]\nsamples = 1\nmax_tokens = 40\nprompt = \"A story.\"\n[launch]\nready_timeout_s = 5\n",
    );
}

fn keys(path: &Path) -> Vec<String> {
    let doc = data::load(path).unwrap();
    let mut keys: Vec<String> = doc.runs.iter().map(|r| format!("run {}", r.id)).collect();
    keys.extend(doc.failures.iter().map(|f| format!("failure {}", f.id)));
    keys.extend(doc.sweeps.iter().map(|s| format!("sweep {}", s.label)));
    keys
}

fn step<'y>(job: &'y Yaml, name: &str) -> &'y Yaml {
    job["steps"]
        .as_vec()
        .unwrap()
        .iter()
        .find(|s| s["name"].as_str() == Some(name))
        .unwrap_or_else(|| panic!("no step {name}"))
}

/// Runs a workflow step's `run` under bash in `dir`, with benchsite on the PATH.
fn bash(dir: &Path, script: &str, env: &[(&str, String)]) {
    let bin = Path::new(env!("CARGO_BIN_EXE_benchsite")).parent().unwrap();
    let status = Command::new("bash")
        .args(["-euo", "pipefail", "-c", script])
        .current_dir(dir)
        .env(
            "PATH",
            format!("{}:{}", bin.display(), std::env::var("PATH").unwrap()),
        )
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
        .status()
        .unwrap();
    assert!(status.success(), "{script}");
}

#[test]
fn the_fleet_workflow_runs_each_machine_and_merges_what_one_box_would_record() {
    let _timed = timed();
    let fleet = Fleet::new();
    let _alpha = fleet.serve(0, quick());
    two_machines(&fleet);
    fleet.run(&["check"]).assert_success();
    let written = fleet.run(&["campaign", "workflow", "night"]);
    written.assert_success();
    let text = std::fs::read_to_string(fleet.path(".github/workflows/campaign-night.yml")).unwrap();
    let yaml = &YamlLoader::load_from_str(&text).unwrap()[0];
    for line in text.lines().filter(|l| l.contains("uses:")) {
        let uses = line.split("uses:").nth(1).unwrap().trim();
        let (_, commit) = uses.split_once('@').unwrap();
        let commit = commit.split_whitespace().next().unwrap();
        assert!(
            commit.len() == 40 && commit.chars().all(|c| c.is_ascii_hexdigit()),
            "{line}"
        );
    }
    let measure = &yaml["jobs"]["measure"];
    let include = measure["strategy"]["matrix"]["include"].as_vec().unwrap();
    let entries: Vec<(&str, &str, &str)> = include
        .iter()
        .map(|e| {
            (
                e["machine"].as_str().unwrap(),
                e["runner"].as_str().unwrap(),
                e["document"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        entries,
        [
            ("box-a", "gpu-a", "data/box-a.json"),
            ("box-b", "box-b", "data/box-b.json")
        ]
    );
    let runs_on: Vec<&str> = measure["runs-on"]
        .as_vec()
        .unwrap()
        .iter()
        .map(|y| y.as_str().unwrap())
        .collect();
    assert_eq!(runs_on, ["self-hosted", "${{ matrix.runner }}"]);
    let upload = step(measure, "Upload the results and server logs");
    assert_eq!(upload["if"].as_str(), Some("always()"));
    let publish = &yaml["jobs"]["publish"];
    assert_eq!(publish["if"].as_str(), Some("always()"));

    // Each machine's job on its own box: a copy of the repository, the step as written.
    let run_step = step(measure, "Run the campaign")["run"]
        .as_str()
        .unwrap()
        .to_owned();
    let artifacts = fleet.path("artifacts");
    for (index, (machine, runner, document)) in entries.iter().enumerate() {
        let remote = tempfile::tempdir().unwrap();
        for item in ["benchsite.toml", "profiles", "campaigns", "data"] {
            let from = fleet.path(item);
            if from.is_dir() {
                support::copy_dir(&from, &remote.path().join(item));
            } else {
                std::fs::copy(&from, remote.path().join(item)).unwrap();
            }
        }
        let mut env = fleet.env();
        env.push(("CAMPAIGN", "night".into()));
        env.push(("MACHINE", (*machine).to_owned()));
        bash(remote.path(), &run_step, &env);
        // What upload-artifact keeps: the paths below their common folder, data/.
        let artifact = artifacts.join(format!("campaign-night-{runner}-{index}"));
        std::fs::create_dir_all(&artifact).unwrap();
        std::fs::copy(
            remote.path().join(document),
            artifact.join(Path::new(document).file_name().unwrap()),
        )
        .unwrap();
        support::copy_dir(&remote.path().join("data/logs"), &artifact.join("logs"));
    }
    let merge_step = step(publish, "Merge the results")["run"].as_str().unwrap();
    bash(fleet.project.root.path(), merge_step, &[]);
    let merged: Vec<Vec<String>> = ["data/box-a.json", "data/box-b.json"]
        .iter()
        .map(|d| keys(&fleet.path(d)))
        .collect();
    assert!(
        fleet
            .path("data/logs/alpha-max-num-seqs-4-box-b.log.gz")
            .exists()
    );
    // Merging again changes nothing.
    let bytes = std::fs::read(fleet.path("data/box-a.json")).unwrap();
    let again = fleet.run(&["campaign", "merge", "artifacts/campaign-night-gpu-a-0"]);
    again.assert_success();
    assert!(
        again
            .stdout
            .contains("data/box-a.json: added nothing; 2 already present"),
        "{}",
        again.stdout
    );
    assert_eq!(bytes, std::fs::read(fleet.path("data/box-a.json")).unwrap());
    fleet.run(&["check"]).assert_success();

    // One box running both machines' campaigns records the same records.
    let single = Fleet::new();
    let _single_alpha = single.serve(0, quick());
    two_machines(&single);
    for machine in ["box-a", "box-b"] {
        single
            .run(&["campaign", "run", "night", "--machine", machine])
            .assert_success();
    }
    let one_box: Vec<Vec<String>> = ["data/box-a.json", "data/box-b.json"]
        .iter()
        .map(|d| keys(&single.path(d)))
        .collect();
    assert_eq!(merged, one_box);
    assert_eq!(
        merged[0],
        [
            "run alpha-max-num-seqs-4-box-a",
            "run alpha-max-num-seqs-8-box-a"
        ]
    );
}

#[test]
fn a_merge_refuses_a_conflicting_record_and_names_both_places() {
    let fleet = Fleet::new();
    let mut doc = data::load(&support::repo().join("data/results.json")).unwrap();
    doc.runs.truncate(1);
    doc.failures.clear();
    doc.sweeps.clear();
    doc.jitter.clear();
    doc.divergence.clear();
    for run in &mut doc.runs {
        run.quality = None;
    }
    std::fs::write(fleet.path("data/results.json"), data::to_json(&doc)).unwrap();
    let id = doc.runs[0].id.to_string();
    doc.runs[0].decode_tok_s += 1.0;
    doc.runs[0].decode_samples = vec![doc.runs[0].decode_tok_s];
    let elsewhere = fleet.path("elsewhere/data");
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::fs::write(elsewhere.join("results.json"), data::to_json(&doc)).unwrap();
    let before = std::fs::read(fleet.path("data/results.json")).unwrap();
    let output = fleet.run(&["campaign", "merge", "elsewhere"]);
    assert_eq!(output.status.code(), Some(1), "{}", output.stderr);
    assert!(
        output.stderr.contains(&format!("runs \"{id}\" differs:"))
            && output
                .stderr
                .contains("elsewhere/data/results.json has it at /runs/0")
            && output.stderr.contains("data/results.json at /runs/0"),
        "{}",
        output.stderr
    );
    assert_eq!(
        before,
        std::fs::read(fleet.path("data/results.json")).unwrap()
    );
}

#[test]
fn quality_and_jitter_jobs_score_each_configuration_against_the_reference() {
    let _timed = timed();
    let fleet = Fleet::new();
    let _alpha = fleet.serve(0, Script::default());
    let prompts: String = std::fs::read_to_string(support::repo().join("data/prompts.jsonl"))
        .unwrap()
        .lines()
        .take(4)
        .map(|line| format!("{line}\n"))
        .collect();
    fleet.project.write("data/prompts-small.jsonl", &prompts);
    fleet.project.write(
        "campaigns/drift.toml",
        "[[config]]\nprofile = \"alpha\"\nmatrix = { KV_CACHE_DTYPE = [\"fp8\", \"auto\"] }\n[quality]\nreference = \"alpha-kv-cache-dtype-auto\"\nprompts = \"data/prompts-small.jsonl\"\ntop_k = 5\nmax_tokens = 8\n[jitter]\nprompts = 2\nrepeats = 2\nmax_tokens = 8\ntop_k = 5\nprompt_set = \"data/prompts-small.jsonl\"\n[launch]\nready_timeout_s = 5\n",
    );
    let statuses = plan_statuses(&fleet, "drift");
    let ids: Vec<&str> = statuses.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "alpha-kv-cache-dtype-auto/capture",
            "alpha-kv-cache-dtype-auto/jitter",
            "alpha-kv-cache-dtype-fp8/capture",
            "alpha-kv-cache-dtype-fp8/divergence",
            "alpha-kv-cache-dtype-fp8/jitter",
        ],
        "the reference first, and no comparison of it with itself"
    );
    let output = fleet.run(&["campaign", "run", "drift"]);
    output.assert_success();
    assert!(
        output.stderr.contains("5 done, 0 failed, 0 errors"),
        "{}",
        output.stderr
    );
    for id in ["alpha-kv-cache-dtype-auto", "alpha-kv-cache-dtype-fp8"] {
        assert!(
            fleet.path(&format!("data/captures/{id}.jsonl.gz")).exists(),
            "{id}"
        );
    }
    let doc = fleet.project.results();
    let comparison = &doc.divergence[0];
    assert_eq!(
        comparison.dimensions.get("kv").map(String::as_str),
        Some("fp8")
    );
    assert_eq!(
        comparison.label,
        "alpha-kv-cache-dtype-fp8 vs alpha-kv-cache-dtype-auto"
    );
    assert_eq!(
        (comparison.a.as_str(), comparison.b.as_str()),
        ("alpha-kv-cache-dtype-auto", "alpha-kv-cache-dtype-fp8")
    );
    // The same fake model on both sides: no divergence at all.
    assert_eq!(comparison.teacher_forced.kld_mean, 0.0);
    assert_eq!(comparison.teacher_forced.prompts, 4);
    let jitter: Vec<&str> = doc.jitter.iter().map(|j| j.label.as_str()).collect();
    assert_eq!(
        jitter,
        [
            "alpha-kv-cache-dtype-auto jitter",
            "alpha-kv-cache-dtype-fp8 jitter"
        ]
    );
    assert_eq!(
        comparison
            .provenance
            .as_ref()
            .and_then(|p| p.campaign.as_deref()),
        Some("drift")
    );
    let again = plan_statuses(&fleet, "drift");
    assert_eq!(count(&again, "done"), 5, "{again:?}");
    // --only picks configurations or jobs by glob; one that picks nothing is said.
    let done = fleet.run(&["campaign", "run", "drift", "--only", "*fp8*"]);
    done.assert_success();
    assert!(
        done.stderr
            .contains("0 done, 0 failed, 0 errors, 5 skipped"),
        "{}",
        done.stderr
    );
    let none = fleet.run(&["campaign", "run", "drift", "--only", "nothing-*"]);
    assert_eq!(none.status.code(), Some(1));
    assert!(
        none.stderr.contains("--only matches no job of campaign drift (its configurations: alpha-kv-cache-dtype-auto, alpha-kv-cache-dtype-fp8)"),
        "{}",
        none.stderr
    );
}

#[test]
fn ctrl_c_stops_the_server_and_keeps_every_finished_record() {
    let _timed = timed();
    let fleet = Fleet::new();
    let slow = Script {
        chunk_interval: Duration::from_millis(10),
        ..quick()
    };
    let _alpha = fleet.serve(0, slow);
    fleet.project.write(
        "campaigns/night.toml",
        "[[config]]\nprofile = \"alpha\"\nshape = \"Dense, 7B\"\nprecision = \"BF16\"\n[run]\nsamples = 1\nmax_tokens = 40\nprompt = \"A story.\"\n[[sweep]]\nlevels = [1, 2]\nprompt_words = 20\noutput_tokens = 40\nrounds = 3\n[launch]\nready_timeout_s = 5\nstop_timeout_s = 5\n",
    );
    let child = Command::new(env!("CARGO_BIN_EXE_benchsite"))
        .arg("--root")
        .arg(fleet.project.root.path())
        .args(["campaign", "run", "night"])
        .envs(fleet.env())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let document = fleet.path("data/results.json");
    let started = Instant::now();
    while data::load(&document).unwrap().runs.is_empty() {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "no run recorded"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    std::thread::sleep(Duration::from_millis(100));
    unsafe {
        libc::kill(child.id() as i32, libc::SIGINT);
    }
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("interrupted: every finished record is kept"),
        "{stderr}"
    );
    let stopped = std::fs::read_to_string(fleet.path(&format!("stopped-{}", fleet.ports[0])));
    assert_eq!(stopped.unwrap().trim(), "stopped", "the server was stopped");
    let doc = fleet.project.results();
    assert_eq!(doc.runs.len(), 1);
    assert!(
        doc.sweeps.is_empty(),
        "an interrupted sweep is left to the next run"
    );
    let statuses = plan_statuses(&fleet, "night");
    assert_eq!(
        statuses,
        [
            ("alpha/run".to_owned(), "done".to_owned()),
            ("alpha/sweep".to_owned(), "pending".to_owned())
        ]
    );
}

/// The Slurm script's arrays, offline: one per machine and GPU count (tensor parallel 2 asks
/// for two GPUs of the campaign's type), each with its machine's options; `--check` passes
/// on the script as written and, once a configuration is added, fails naming the lines that
/// changed; a campaign with [quality] is refused.
#[test]
fn the_slurm_script_groups_tasks_by_machine_and_gpus_and_knows_when_it_is_stale() {
    let fleet = Fleet::new();
    two_machines(&fleet);
    let campaign = "[[config]]\nprofile = \"alpha\"\nmatrix = { TENSOR_PARALLEL_SIZE = [1, 2] }\n[run]\n[slurm]\ngpu_type = \"h100\"\ntime = \"4:00:00\"\n[slurm.machines.box-b]\npartition = \"b\"\n";
    fleet.project.write("campaigns/night.toml", campaign);
    fleet
        .run(&["campaign", "workflow", "night", "--slurm"])
        .assert_success();
    let script = std::fs::read_to_string(fleet.path("campaign-night.sbatch")).unwrap();
    let arrays: Vec<&str> = script.lines().filter(|l| l.starts_with("ARRAY")).collect();
    assert_eq!(
        arrays,
        [
            "ARRAYS=4",
            "ARRAY_1_MACHINE=box-a",
            "ARRAY_1_DOCUMENT=data/box-a.json",
            "ARRAY_1_CONFIGS=(alpha-tensor-parallel-size-1-box-a)",
            "ARRAY_1_SBATCH=('--time=4:00:00' '--gpus=h100:1')",
            "ARRAY_2_MACHINE=box-b",
            "ARRAY_2_DOCUMENT=data/box-b.json",
            "ARRAY_2_CONFIGS=(alpha-tensor-parallel-size-1-box-b)",
            "ARRAY_2_SBATCH=('--partition=b' '--time=4:00:00' '--gpus=h100:1')",
            "ARRAY_3_MACHINE=box-a",
            "ARRAY_3_DOCUMENT=data/box-a.json",
            "ARRAY_3_CONFIGS=(alpha-tensor-parallel-size-2-box-a)",
            "ARRAY_3_SBATCH=('--time=4:00:00' '--gpus=h100:2')",
            "ARRAY_4_MACHINE=box-b",
            "ARRAY_4_DOCUMENT=data/box-b.json",
            "ARRAY_4_CONFIGS=(alpha-tensor-parallel-size-2-box-b)",
            "ARRAY_4_SBATCH=('--partition=b' '--time=4:00:00' '--gpus=h100:2')",
        ]
    );
    assert!(script.contains("# 3: machine box-a, 1 configuration, 2 GPUs a task."));
    let check = [
        "campaign",
        "workflow",
        "night",
        "--slurm",
        "--check",
        "campaign-night.sbatch",
    ];
    fleet.run(&check).assert_success();
    fleet.project.write(
        "campaigns/night.toml",
        &campaign.replace("[1, 2]", "[1, 2, 4]"),
    );
    let stale = fleet.run(&check);
    assert_eq!(stale.status.code(), Some(1), "{}", stale.stderr);
    assert!(
        stale.stderr.contains("campaign-night.sbatch is stale: campaigns/night.toml, its profiles or the machines changed since it was written")
            && stale.stderr.contains("- ARRAYS=4\n  + ARRAYS=6")
            && stale.stderr.contains("+ ARRAY_5_CONFIGS=(alpha-tensor-parallel-size-4-box-a)")
            && stale.stderr.contains("Write it again: benchsite campaign workflow night --slurm"),
        "{}",
        stale.stderr
    );
    assert_eq!(
        std::fs::read_to_string(fleet.path("campaign-night.sbatch")).unwrap(),
        script,
        "--check writes nothing"
    );
}

/// A task's `--retry-failed` measured a configuration the project has as a failure: the
/// merge takes the run and drops the failure (a run and a failure never share an id), and
/// says so; merging again changes nothing.
#[test]
fn a_merge_replaces_a_failure_the_task_measured_since() {
    let fleet = Fleet::new();
    let mut doc = data::load(&support::repo().join("data/results.json")).unwrap();
    doc.runs.truncate(1);
    doc.sweeps.clear();
    doc.jitter.clear();
    doc.divergence.clear();
    doc.runs[0].quality = None;
    let id = doc.runs[0].id.clone();
    let mut project = doc.clone();
    project.runs.clear();
    let mut failure = doc.failures[0].clone();
    failure.id = id.clone();
    project.failures = vec![failure];
    doc.failures.clear();
    std::fs::write(fleet.path("data/results.json"), data::to_json(&project)).unwrap();
    fleet.project.run(&["check"]).assert_success();
    let elsewhere = fleet.path("task/data");
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::fs::write(elsewhere.join("results.json"), data::to_json(&doc)).unwrap();
    let merged = fleet.run(&["campaign", "merge", "task"]);
    merged.assert_success();
    assert!(
        merged.stdout.contains(
            "data/results.json: removed 1 failure(s) whose configuration was measured since"
        ),
        "{}",
        merged.stdout
    );
    assert_eq!(
        keys(&fleet.path("data/results.json")),
        [format!("run {id}")]
    );
    fleet.project.run(&["check"]).assert_success();
    let again = fleet.run(&["campaign", "merge", "task"]);
    again.assert_success();
    assert!(
        again.stdout.contains("added nothing; 1 already present"),
        "{}",
        again.stdout
    );
}

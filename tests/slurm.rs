//! Campaigns on a real Slurm: Debian's slurmctld, slurmd and munge (installed, with
//! shellcheck, by
//! `setup.sh slurm`) started as a one-node cluster from a configuration in a temporary folder
//! (`SLURM_CONF`), each daemon stopped by its pid. The node has the features `node-a` and
//! `node-b`, the two machines' constraints. The campaigns launch llama.cpp's own llama-server
//! (`setup.sh llama-server`) on the tiny model of tests/support/tiny_gguf.py. The daemons and
//! the jobs run as root, as slurmd needs.

mod support;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use benchsite::data::{self, Results};
use support::{free_port, repo};

/// Held by every test here: each starts a cluster whose jobs time requests.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// A one-node Slurm cluster of this machine; dropping it cancels its jobs and stops its
/// daemons.
struct Cluster {
    dir: tempfile::TempDir,
}

impl Cluster {
    fn start() -> Self {
        support::setup("slurm");
        let uid = Command::new("id").arg("-u").output().unwrap().stdout;
        assert_eq!(
            String::from_utf8_lossy(&uid).trim(),
            "0",
            "the Slurm tests run slurmd, which runs jobs as their user: run them as root"
        );
        let dir = tempfile::tempdir().unwrap();
        let at = |name: &str| dir.path().join(name).display().to_string();
        for folder in ["munge", "state", "spool", "log"] {
            std::fs::create_dir(dir.path().join(folder)).unwrap();
        }
        // munged checks that its key is private and its socket's folder reachable.
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        let key: Vec<u8> = (0..1024).map(|_| fastrand::u8(..)).collect();
        std::fs::write(at("munge/munge.key"), key).unwrap();
        std::fs::set_permissions(
            at("munge/munge.key"),
            std::fs::Permissions::from_mode(0o400),
        )
        .unwrap();
        std::fs::set_permissions(at("munge"), std::fs::Permissions::from_mode(0o755)).unwrap();
        let started = Command::new("munged")
            .arg("--force")
            .arg(format!("--socket={}", at("munge/munge.socket")))
            .arg(format!("--key-file={}", at("munge/munge.key")))
            .arg(format!("--log-file={}", at("log/munged.log")))
            .arg(format!("--pid-file={}", at("munge/munged.pid")))
            .arg(format!("--seed-file={}", at("munge/munged.seed")))
            .status()
            .unwrap();
        assert!(started.success(), "munged did not start");
        let host = String::from_utf8(Command::new("hostname").arg("-s").output().unwrap().stdout)
            .unwrap()
            .trim()
            .to_owned();
        let cpus = std::thread::available_parallelism().map_or(2, |n| n.get());
        let conf = format!(
            "ClusterName=benchsite-tests\nSlurmctldHost={host}\nSlurmUser=root\nSlurmdUser=root\n\
             AuthType=auth/munge\nAuthInfo=socket={socket}\nCredType=cred/munge\n\
             SlurmctldPort={ctld_port}\nSlurmdPort={d_port}\nStateSaveLocation={state}\n\
             SlurmdSpoolDir={spool}\nSlurmctldPidFile={ctld_pid}\nSlurmdPidFile={d_pid}\n\
             SlurmctldLogFile={ctld_log}\nSlurmdLogFile={d_log}\nProctrackType=proctrack/pgid\n\
             TaskPlugin=task/none\nSchedulerType=sched/backfill\nSelectType=select/cons_tres\n\
             SelectTypeParameters=CR_CPU\nReturnToService=2\nMpiDefault=none\n\
             JobAcctGatherType=jobacct_gather/none\nAccountingStorageType=accounting_storage/none\n\
             SwitchType=switch/none\n\
             NodeName={host} CPUs={cpus} Features=node-a,node-b State=UNKNOWN\n\
             PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP\n",
            socket = at("munge/munge.socket"),
            ctld_port = free_port(),
            d_port = free_port(),
            state = at("state"),
            spool = at("spool"),
            ctld_pid = at("slurmctld.pid"),
            d_pid = at("slurmd.pid"),
            ctld_log = at("log/slurmctld.log"),
            d_log = at("log/slurmd.log"),
        );
        std::fs::write(at("slurm.conf"), conf).unwrap();
        let cluster = Self { dir };
        for (daemon, args) in [("slurmctld", &["-i"][..]), ("slurmd", &[][..])] {
            let status = cluster.command(daemon).args(args).status().unwrap();
            assert!(
                status.success(),
                "{daemon} did not start: {}",
                cluster.logs()
            );
        }
        let started = Instant::now();
        loop {
            let idle = cluster
                .command("sinfo")
                .args(["-h", "-o", "%T"])
                .output()
                .unwrap();
            if String::from_utf8_lossy(&idle.stdout).trim() == "idle" {
                break;
            }
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "the node was not idle within 60 s: {}",
                cluster.logs()
            );
            std::thread::sleep(Duration::from_millis(250));
        }
        cluster
    }

    fn conf(&self) -> PathBuf {
        self.dir.path().join("slurm.conf")
    }

    /// A Slurm command against this cluster.
    fn command(&self, program: &str) -> Command {
        let mut command = Command::new(program);
        command.env("SLURM_CONF", self.conf());
        command
    }

    fn logs(&self) -> String {
        ["slurmctld.log", "slurmd.log"]
            .iter()
            .map(|log| {
                let text = std::fs::read_to_string(self.dir.path().join("log").join(log))
                    .unwrap_or_default();
                let tail: Vec<&str> = text.lines().rev().take(15).collect();
                format!(
                    "--- {log}\n{}",
                    tail.into_iter().rev().collect::<Vec<_>>().join("\n")
                )
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The jobs in the queue, as `squeue -h -o "%i %T"` lists them.
    fn queue(&self) -> Vec<(String, String)> {
        let out = self
            .command("squeue")
            .args(["-h", "-r", "-o", "%i %T"])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| l.split_once(' '))
            .map(|(id, state)| (id.to_owned(), state.to_owned()))
            .collect()
    }

    /// Waits until the queue is empty; the most array tasks seen running at once.
    fn drain(&self, within: Duration) -> usize {
        let started = Instant::now();
        let mut most = 0;
        loop {
            let queue = self.queue();
            if queue.is_empty() {
                return most;
            }
            let running = queue
                .iter()
                .filter(|(id, state)| id.contains('_') && state == "RUNNING")
                .count();
            most = most.max(running);
            assert!(
                started.elapsed() < within,
                "the jobs did not finish within {within:?}: {queue:?}\n{}",
                self.logs()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = self.command("scancel").args(["--user", "root"]).status();
        std::thread::sleep(Duration::from_millis(500));
        for pid in ["slurmd.pid", "slurmctld.pid", "munge/munged.pid"] {
            let Ok(text) = std::fs::read_to_string(self.dir.path().join(pid)) else {
                continue;
            };
            let Ok(pid) = text.trim().parse::<i32>() else {
                continue;
            };
            let pid = nix::unistd::Pid::from_raw(pid);
            let _ = nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM);
            let deadline = Instant::now() + Duration::from_secs(10);
            while nix::sys::signal::kill(pid, None).is_ok() && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(50));
            }
            let _ = nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGKILL);
        }
    }
}

/// A project `benchsite init` wrote, with the machines node-a and node-b (neither measured
/// yet), the profile `tiny` of the real llama-server on the tiny model, and the profile `huge`
/// of the same server under a 1 GiB address-space limit asked for a context it cannot hold.
struct Fleet {
    dir: tempfile::TempDir,
    root: PathBuf,
}

impl Fleet {
    fn new() -> Self {
        let binary = support::setup("llama-server");
        let python = support::setup("python");
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("report");
        let init = support::run_benchsite(&["init", root.to_str().unwrap()]);
        init.assert_success();
        let model = dir.path().join("tiny.gguf");
        let made = Command::new(&python)
            .arg(repo().join("tests/support/tiny_gguf.py"))
            .arg(&model)
            .status()
            .unwrap();
        assert!(made.success(), "tiny_gguf.py failed");
        let fleet = Self { dir, root };
        let mut toml = std::fs::read_to_string(fleet.path("benchsite.toml")).unwrap();
        toml.push_str(
            "\n[machines.node-a]\ndata = \"data/node-a.json\"\n\n[machines.node-b]\ndata = \"data/node-b.json\"\n",
        );
        fleet.write("benchsite.toml", &toml);
        std::fs::remove_file(fleet.path("data/results.json")).unwrap();
        std::fs::remove_file(fleet.path("campaigns/example.toml")).unwrap();
        std::fs::remove_file(fleet.path("profiles/example.env")).unwrap();
        // Both profiles name one port: the tasks sharing the node must not take it.
        let model = model.display();
        fleet.write(
            "profiles/tiny.env",
            &format!(
                "ENGINE=llama-server\nPROGRAM={binary}\nMODEL={model}\nSERVED_MODEL_NAME=tiny\nPORT=8090\nMAX_MODEL_LEN=2048\nMAX_NUM_SEQS=2\nTHREADS=1\n"
            ),
        );
        let wrapper = fleet.dir.path().join("llama-server-1g");
        std::fs::write(
            &wrapper,
            format!("#!/bin/sh\nulimit -v 1048576\nexec {binary} \"$@\"\n"),
        )
        .unwrap();
        std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
        fleet.write(
            "profiles/huge.env",
            &format!(
                "ENGINE=llama-server\nPROGRAM={}\nMODEL={model}\nSERVED_MODEL_NAME=tiny\nPORT=8090\nMAX_MODEL_LEN=4194304\nMAX_NUM_SEQS=1\nTHREADS=1\n",
                wrapper.display()
            ),
        );
        fleet
    }

    fn path(&self, relative: &str) -> PathBuf {
        self.root.join(relative)
    }

    fn write(&self, relative: &str, text: &str) {
        let path = self.path(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    fn run(&self, args: &[&str]) -> support::Output {
        let mut all = vec!["--root", self.root.to_str().unwrap()];
        all.extend_from_slice(args);
        support::run_benchsite(&all)
    }

    /// `sbatch campaign-NAME.sbatch` from the project's root, with the benchsite under test.
    fn submit(&self, cluster: &Cluster, name: &str) {
        self.submit_with(cluster, name, &[]);
    }

    fn submit_with(&self, cluster: &Cluster, name: &str, env: &[(&str, &str)]) {
        let out = cluster
            .command("sbatch")
            .arg(format!("campaign-{name}.sbatch"))
            .current_dir(&self.root)
            .env("BENCHSITE", env!("CARGO_BIN_EXE_benchsite"))
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "sbatch failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    fn doc(&self, machine: &str) -> Results {
        data::load(&self.path(&format!("data/{machine}.json"))).unwrap()
    }

    /// The text of every file of campaign-runs/NAME/ whose name starts with `prefix`.
    fn outputs(&self, name: &str, prefix: &str) -> String {
        let mut texts = Vec::new();
        for entry in std::fs::read_dir(self.path(&format!("campaign-runs/{name}"))).unwrap() {
            let path = entry.unwrap().path();
            let file = path.file_name().unwrap().to_string_lossy().into_owned();
            if file.starts_with(prefix) && path.is_file() {
                texts.push(format!(
                    "--- {file}\n{}",
                    std::fs::read_to_string(&path).unwrap()
                ));
            }
        }
        texts.sort();
        texts.join("\n")
    }
}

const RUN: &str = "[run]\nsamples = 2\nmax_tokens = 16\nprompt = \"Tell a story about the sea.\"\n";
const LAUNCH: &str = "[launch]\nlauncher = \"local\"\nready_timeout_s = 120\nstop_timeout_s = 10\n";
const SLURM: &str = "[slurm]\ngpus = 0\ntime = \"30\"\n\n[slurm.machines.node-a]\nconstraint = \"node-a\"\n\n[slurm.machines.node-b]\nconstraint = \"node-b\"\n";

/// One `sbatch` of the written script, on the first submit, into a project whose machine
/// documents do not exist yet: two configurations on each of two machines, the four tasks
/// running two at a time on the one node, each on a port of its own though both profiles
/// name the same; then a merge that runs after them. Each record measured its own server:
/// the slots llama-server reports are its configuration's, and the tokens the server's own
/// counters saw are exactly the ones the run received. A configuration that cannot start is
/// a failure record with its log, and the array still finishes.
#[test]
fn one_sbatch_runs_the_campaign_and_each_task_measures_its_own_server() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let cluster = Cluster::start();
    let fleet = Fleet::new();
    fleet.write(
        "campaigns/night.toml",
        &format!(
            "[[config]]\nprofile = \"tiny\"\nmatrix = {{ MAX_NUM_SEQS = [1, 2] }}\nshape = \"Dense, tiny\"\nprecision = \"F32\"\n\n[[config]]\nprofile = \"huge\"\nshape = \"Dense, tiny\"\nprecision = \"F32\"\n\n{RUN}\n{LAUNCH}\n{SLURM}"
        ),
    );
    // Neither machine's document exists yet, and the project checks clean.
    let check = fleet.run(&["check"]);
    check.assert_success();
    assert!(
        check.stderr.contains("data/node-a.json does not exist yet"),
        "{}",
        check.stderr
    );
    fleet
        .run(&["campaign", "workflow", "night", "--slurm"])
        .assert_success();
    let script = std::fs::read_to_string(fleet.path("campaign-night.sbatch")).unwrap();
    assert!(
        script.contains("ARRAY_1_SBATCH=('--time=30' '--constraint=node-a')")
            && script.contains("ARRAY_2_SBATCH=('--time=30' '--constraint=node-b')")
            && !script.contains("--gpus"),
        "{script}"
    );
    // The script as shellcheck reads it: no finding.
    let lint = Command::new("shellcheck")
        .arg("campaign-night.sbatch")
        .current_dir(&fleet.root)
        .output()
        .unwrap();
    assert!(
        lint.status.success(),
        "{}",
        String::from_utf8_lossy(&lint.stdout)
    );
    fleet.submit(&cluster, "night");
    let most = cluster.drain(Duration::from_secs(600));
    let submitted = fleet.outputs("night", "submit-");
    assert!(
        submitted.contains("campaign night: job arrays "),
        "{submitted}"
    );
    assert!(most >= 2, "at most {most} tasks ran at once");
    let merged = fleet.outputs("night", "merge-");
    assert!(
        merged.contains("data/node-a.json: added 1 failures, 2 runs")
            && merged.contains("ok: no problems"),
        "{merged}\n{}",
        fleet.outputs("night", "slurm-")
    );
    let mut ports = Vec::new();
    for machine in ["node-a", "node-b"] {
        let doc = fleet.doc(machine);
        assert_eq!(doc.hardware.host.as_deref().map(str::is_empty), Some(false));
        assert_eq!(doc.runs.len(), 2, "{machine}");
        for run in &doc.runs {
            let seqs = if run.id.as_str().contains("max-num-seqs-1") {
                1
            } else {
                2
            };
            // llama-server's /slots: a slot per sequence of this configuration's server.
            let notes = run.notes.as_deref().unwrap_or_default();
            assert!(
                notes.contains(&format!("the context the server gives its {seqs} slots")),
                "{}: {notes}",
                run.id
            );
            let delivery = run.delivery.as_ref().unwrap();
            let view = run.engine_view.as_ref().unwrap();
            assert_eq!(
                view.output_tokens, delivery.usage_tokens,
                "{}: the server's own counters saw exactly this run's tokens",
                run.id
            );
            let log = gunzip(&fleet.path(&format!("data/logs/{}.log.gz", run.id)));
            let port = log
                .split("listening on http://127.0.0.1:")
                .nth(1)
                .and_then(|rest| rest.split(|c: char| !c.is_ascii_digit()).next())
                .unwrap_or_else(|| panic!("{}: no listening line in {log}", run.id))
                .to_owned();
            assert_ne!(
                port, "8090",
                "{}: the profile's port, shared by all",
                run.id
            );
            ports.push(port);
        }
        let failure = &doc.failures[0];
        assert_eq!(
            failure.status,
            data::FailureStatus::InsufficientKv,
            "{}",
            failure.reason
        );
        assert_eq!(
            failure.log.as_deref(),
            Some(format!("data/logs/huge-{machine}.log.gz").as_str())
        );
        assert!(fleet.path(failure.log.as_deref().unwrap()).exists());
    }
    ports.sort();
    ports.dedup();
    assert_eq!(ports.len(), 4, "each server on its own port: {ports:?}");
    fleet.run(&["build"]).assert_success();
    let page = std::fs::read_to_string(fleet.path("site/hardware/node-a/index.html")).unwrap();
    assert!(page.contains("<dt>Host</dt>"), "{page}");

    // The failed configuration mended (its context one the server can hold) and submitted
    // again with RETRY_FAILED=1: measured, and the merge takes its run over its failure.
    let huge = std::fs::read_to_string(fleet.path("profiles/huge.env")).unwrap();
    let binary = support::setup("llama-server");
    let mended: String = huge
        .lines()
        .map(|line| match line.split_once('=') {
            Some(("PROGRAM", _)) => format!("PROGRAM={binary}\n"),
            Some(("MAX_MODEL_LEN", _)) => "MAX_MODEL_LEN=2048\n".to_owned(),
            _ => format!("{line}\n"),
        })
        .collect();
    fleet.write("profiles/huge.env", &mended);
    fleet.submit_with(&cluster, "night", &[("RETRY_FAILED", "1")]);
    cluster.drain(Duration::from_secs(600));
    for machine in ["node-a", "node-b"] {
        let doc = fleet.doc(machine);
        assert!(doc.failures.is_empty(), "{machine}: {:?}", doc.failures);
        assert!(
            doc.runs
                .iter()
                .any(|r| r.id.as_str() == format!("huge-{machine}")),
            "{}",
            fleet.outputs("night", "slurm-")
        );
    }
    let merged = fleet.outputs("night", "merge-");
    assert!(
        merged.contains(
            "data/node-a.json: removed 1 failure(s) whose configuration was measured since"
        ),
        "{merged}"
    );
    fleet.run(&["check"]).assert_success();
}

fn gunzip(path: &Path) -> String {
    use std::io::Read;
    let mut text = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(path).unwrap())
        .read_to_string(&mut text)
        .unwrap();
    text
}

/// The array job ids the submitting job printed, in order, from its latest output.
fn arrays(fleet: &Fleet, name: &str) -> Vec<String> {
    let text = fleet.outputs(name, "submit-");
    let line = text
        .lines()
        .rfind(|l| l.starts_with(&format!("campaign {name}: job arrays ")))
        .unwrap_or_else(|| panic!("no submission in {text}"));
    let ids = line
        .trim_start_matches(&format!("campaign {name}: job arrays "))
        .split(", then")
        .next()
        .unwrap();
    ids.split_whitespace().map(str::to_owned).collect()
}

/// A task cancelled half way (`scancel` after its run, during its sweep) keeps its finished
/// record and both attempts' logs, and the array submitted again measures only what is
/// missing. A campaign changed without writing the script again: a new `[[sweep]]` is measured
/// and renames none of the others; a new configuration is refused as stale, naming the change,
/// until the script is written again.
#[test]
fn a_cancelled_task_resumes_and_a_changed_campaign_is_measured_as_it_is_now() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let cluster = Cluster::start();
    let fleet = Fleet::new();
    let sweep = "[[sweep]]\nlevels = [1, 2]\nprompt_words = 20\noutput_tokens = 128\nrounds = 40\n";
    let campaign = |seqs: &str, more: &str| {
        format!(
            "machines = [\"node-a\"]\n\n[[config]]\nprofile = \"tiny\"\nmatrix = {{ MAX_NUM_SEQS = [{seqs}] }}\nshape = \"Dense, tiny\"\nprecision = \"F32\"\n\n{RUN}\n{sweep}\n{more}{LAUNCH}\n{SLURM}"
        )
    };
    fleet.write("campaigns/night.toml", &campaign("1, 2", ""));
    fleet
        .run(&["campaign", "workflow", "night", "--slurm"])
        .assert_success();
    fleet.submit(&cluster, "night");
    let first = "tiny-max-num-seqs-1-node-a";
    let own = fleet.path(&format!("campaign-runs/night/{first}/data/node-a.json"));
    let started = Instant::now();
    while !data::load(&own).is_ok_and(|doc| doc.runs.len() == 1) {
        assert!(
            started.elapsed() < Duration::from_secs(300),
            "{first} recorded no run within 300 s: {}",
            fleet.outputs("night", "slurm-")
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let array = arrays(&fleet, "night")[0].clone();
    let cancelled = cluster
        .command("scancel")
        .arg(format!("{array}_0"))
        .status()
        .unwrap();
    assert!(cancelled.success());
    cluster.drain(Duration::from_secs(600));
    let task =
        std::fs::read_to_string(fleet.path(&format!("campaign-runs/night/slurm-{array}_0.out")))
            .unwrap();
    assert!(
        task.contains("interrupted: every finished record is kept"),
        "{task}"
    );
    let doc = fleet.doc("node-a");
    let run = doc
        .runs
        .iter()
        .find(|r| r.id.as_str() == first)
        .cloned()
        .unwrap();
    let sweeps: Vec<&str> = doc.sweeps.iter().map(|s| s.label.as_str()).collect();
    assert_eq!(sweeps, ["tiny-max-num-seqs-2-node-a sweep"], "{sweeps:?}");

    // Submitted again: only the cancelled task's sweep is measured.
    fleet.submit(&cluster, "night");
    cluster.drain(Duration::from_secs(600));
    let doc = fleet.doc("node-a");
    assert_eq!(doc.runs.iter().find(|r| r.id.as_str() == first), Some(&run));
    assert_eq!(doc.sweeps.len(), 2, "{}", fleet.outputs("night", "slurm-"));
    let second = arrays(&fleet, "night")[0].clone();
    let untouched =
        std::fs::read_to_string(fleet.path(&format!("campaign-runs/night/slurm-{second}_1.out")))
            .unwrap();
    assert!(
        untouched.contains(": 0 done, 0 failed, 0 errors"),
        "{untouched}"
    );
    // Each attempt's server log is kept: the one that measured the run, and the resumed one.
    for log in [format!("{first}.log.gz"), format!("{first}.2.log.gz")] {
        assert!(fleet.path(&format!("data/logs/{log}")).exists(), "{log}");
    }

    // A sweep added: the script is still current, the new sweep is measured on both, and the
    // first sweep's jobs keep their ids (done, not measured again).
    fleet.write(
        "campaigns/night.toml",
        &campaign(
            "1, 2",
            "[[sweep]]\nname = \"short\"\nlevels = [1]\nprompt_words = 10\noutput_tokens = 16\nrounds = 2\n\n",
        ),
    );
    fleet.submit(&cluster, "night");
    cluster.drain(Duration::from_secs(600));
    let doc = fleet.doc("node-a");
    let mut labels: Vec<&str> = doc.sweeps.iter().map(|s| s.label.as_str()).collect();
    labels.sort_unstable();
    assert_eq!(
        labels,
        [
            "tiny-max-num-seqs-1-node-a short",
            "tiny-max-num-seqs-1-node-a sweep",
            "tiny-max-num-seqs-2-node-a short",
            "tiny-max-num-seqs-2-node-a sweep"
        ],
        "{}",
        fleet.outputs("night", "slurm-")
    );

    // A configuration added: the script is stale, and the submission says what changed.
    fleet.write("campaigns/night.toml", &campaign("1, 2, 3", ""));
    let before = std::fs::read(fleet.path("data/node-a.json")).unwrap();
    fleet.submit(&cluster, "night");
    cluster.drain(Duration::from_secs(120));
    let refused = fleet.outputs("night", "submit-");
    assert!(
        refused.contains("campaign-night.sbatch is stale")
            && refused.contains("+ ARRAY_1_CONFIGS=(tiny-max-num-seqs-1-node-a tiny-max-num-seqs-2-node-a tiny-max-num-seqs-3-node-a)"),
        "{refused}"
    );
    assert_eq!(
        std::fs::read(fleet.path("data/node-a.json")).unwrap(),
        before
    );
    fleet
        .run(&["campaign", "workflow", "night", "--slurm"])
        .assert_success();
    fleet.submit(&cluster, "night");
    cluster.drain(Duration::from_secs(600));
    let doc = fleet.doc("node-a");
    assert!(
        doc.runs
            .iter()
            .any(|r| r.id.as_str() == "tiny-max-num-seqs-3-node-a"),
        "{}",
        fleet.outputs("night", "slurm-")
    );
    fleet.run(&["check"]).assert_success();
}

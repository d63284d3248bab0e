//! Starting the server from its profile, reading its log, and stopping it again: the log
//! goes to `data/logs/<id>.log`, readiness is `GET /health`, and a server that dies or never
//! becomes ready is classified from what its log says.

use std::fs::File;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;

use super::client::{Client, Liveness};
use super::error::CollectError;
use super::orphans::Guard;
use super::progress::Progress;
use super::runtime::interrupted;
use super::server_log::{Diagnosis, Phase, diagnose, llama_build};
use super::target::ServerOptions;
use crate::profiles::{self, Effective, Engine, LaunchCommand, Launcher};

/// How to start and stop the server.
#[derive(Debug, Clone)]
pub struct LaunchOptions {
    /// podman, or the engine's program on this machine.
    pub launcher: Launcher,
    /// A program to run in place of `podman` or `vllm`, with the same arguments.
    pub program: Option<String>,
    /// How long the server may take to become ready.
    pub ready_timeout: Duration,
    /// How long it may take to stop before it is killed.
    pub stop_timeout: Duration,
    /// The port to start it on ([`launch_port`]): the profile's, or a free one where the
    /// profile names none.
    pub port: Option<u16>,
}

/// The port a launch of `effective` listens on: the one its profile names, else a free one of
/// this machine's, so that two launches on one node (two tasks of a campaign) never collide.
pub fn launch_port(effective: &Effective) -> u16 {
    effective
        .named_port()
        .or_else(free_port)
        .unwrap_or_else(|| effective.port())
}

/// A port no process of this machine listens on now, as the system hands one out.
pub fn free_port() -> Option<u16> {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|socket| socket.local_addr())
        .map(|address| address.port())
        .ok()
}

/// A server this process started; dropping it stops it. A guard stops it should this process
/// die first (`orphans`).
pub struct Launched {
    child: Child,
    guard: Guard,
    /// The port it listens on, where whose socket that is can be checked (a process of this
    /// machine, not a container behind podman's forwarding).
    port: Option<u16>,
    engine: Engine,
    /// The engine and its version, where asking its program told (llama-server's
    /// `--version`).
    version: Option<String>,
    log: PathBuf,
    stop_timeout: Duration,
    stopped: bool,
    /// When a stop under way gives up waiting and kills the server.
    until: Option<Instant>,
}

impl Launched {
    /// Starts `engine`'s `command` (with `program` in place of its own when given) on `port`
    /// in a process group of its own, its output going to `log`, with its guard.
    pub fn start(
        command: &LaunchCommand,
        engine: Engine,
        options: &LaunchOptions,
        log: &Path,
        port: u16,
    ) -> Result<Self, String> {
        if let Some(parent) = log.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
        }
        let file =
            File::create(log).map_err(|e| format!("cannot create {}: {e}", log.display()))?;
        let stderr = file
            .try_clone()
            .map_err(|e| format!("cannot write {}: {e}", log.display()))?;
        let program = options.program.as_deref().unwrap_or(&command.program);
        let version = (options.launcher == Launcher::Local)
            .then(|| asked_version(program, engine))
            .flatten();
        let child = Command::new(program)
            .args(&command.args)
            .envs(command.env.iter().map(|(name, value)| (name, value)))
            .stdin(Stdio::null())
            .stdout(file)
            .stderr(stderr)
            // Its own group: a Ctrl-C in the terminal reaches benchsite, which stops it.
            .process_group(0)
            .spawn()
            .map_err(|e| format!("cannot start {program}: {e}"))?;
        let podman = options.launcher == Launcher::Podman;
        let container = podman.then(|| profiles::container_name(port));
        let guard = Guard::start(child.id(), log, container.as_deref());
        Ok(Self {
            child,
            guard,
            port: (!podman).then_some(port),
            engine,
            version,
            log: log.to_owned(),
            stop_timeout: options.stop_timeout,
            stopped: false,
            until: None,
        })
    }

    /// The log so far.
    pub fn log_text(&self) -> String {
        std::fs::read(&self.log)
            .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
            .unwrap_or_default()
    }

    /// The exit status, once the server has exited.
    pub fn exited(&mut self) -> Option<ExitStatus> {
        self.child.try_wait().ok().flatten()
    }

    /// Waits until the server is alive (`/health`, or `/v1/models` where it has none) and,
    /// where it can be told, the socket answering its port is its own; on failure, what the
    /// log says went wrong.
    pub async fn wait_ready(
        &mut self,
        client: &Client,
        timeout: Duration,
    ) -> Result<Duration, Diagnosis> {
        let started = Instant::now();
        let poll = Duration::from_millis(200)
            .min(timeout / 10)
            .max(Duration::from_millis(10));
        let mut foreign = false;
        loop {
            if let Some(status) = self.exited() {
                let also = match foreign {
                    true => " while another process answered on its port",
                    false => "",
                };
                return Err(self.diagnose(
                    Phase::Startup,
                    &format!("exited during start-up ({status}){also}"),
                ));
            }
            if matches!(client.liveness().await, Liveness::Alive) {
                foreign = self.answered_by_another();
                if !foreign {
                    return Ok(started.elapsed());
                }
            }
            if started.elapsed() > timeout {
                let what = match (foreign, self.port) {
                    (true, Some(port)) => format!(
                        "was not ready after {} s, and what answers on port {port} is another process's socket, not the launched server's",
                        timeout.as_secs_f64()
                    ),
                    _ => format!("was not ready after {} s", timeout.as_secs_f64()),
                };
                return Err(self.diagnose(Phase::Startup, &what));
            }
            tokio::time::sleep(poll).await;
        }
    }

    /// Whether what answers on the server's port is known to be another process's socket,
    /// not one of the launched process group's.
    pub fn answered_by_another(&self) -> bool {
        let Some(port) = self.port else {
            return false;
        };
        super::listener::held_by_group(port, self.child.id() as i32) == Some(false)
    }

    /// Resolves when the server exits, with its status: raced against a measurement, so a
    /// server that dies mid-way stops it rather than leaving whatever answers the port to be
    /// measured.
    pub async fn exit(&mut self) -> ExitStatus {
        loop {
            if let Some(status) = self.exited() {
                return status;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// After a failed request: whether the server died, waiting a few seconds for it to exit
    /// or to stop being alive; what was seen.
    pub async fn died(&mut self, server: &ServerOptions) -> Option<String> {
        let client = Client::new(
            &server.base_url,
            None,
            Duration::from_secs(2),
            server.ca_cert.as_deref(),
        )
        .ok()?;
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if let Some(status) = self.exited() {
                return Some(format!("exited ({status})"));
            }
            match client.liveness().await {
                Liveness::Alive => {}
                Liveness::Unwell(why) => return Some(format!("reported itself unwell ({why})")),
                Liveness::Gone(_) => return Some("stopped answering".to_owned()),
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        None
    }

    /// What the log says of a failure in `phase`; `what` says what was seen.
    pub fn diagnose(&self, phase: Phase, what: &str) -> Diagnosis {
        let mut diagnosis = diagnose(&self.log_text(), self.engine, phase, what);
        if diagnosis.server.is_none() {
            diagnosis.server = self.version.clone();
        }
        diagnosis
    }

    /// Stops the server: SIGTERM to its group, then SIGKILL after the stop timeout. Its guard
    /// stands down only once it is gone: were this benchsite killed while it waits (Slurm's
    /// SIGKILL after a cancel's grace), the guard still stops the server. Blocking: `Drop`'s
    /// way; where a runtime runs, [`Launched::shut_down`].
    pub fn stop(&mut self) {
        if self.stopping() {
            while self.exited().is_none() && Instant::now() < self.deadline() {
                std::thread::sleep(Duration::from_millis(20));
            }
            self.stopped_now();
        }
    }

    /// [`Launched::stop`] that lets the runtime run while it waits: requests dropped unfinished
    /// (by Ctrl-C or SIGTERM) close their connections, which a server such as llama-server
    /// waits for before it exits.
    pub async fn shut_down(&mut self) {
        if !self.stopped && self.exited().is_none() {
            // Requests dropped unfinished close first, and the server cancels them: llama-server
            // that gets SIGTERM while its loop holds its task queue deadlocks (seen under a
            // cancelled sweep: its signal handler waits for the lock its own thread holds) and
            // waits out the whole stop timeout.
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
        if self.stopping() {
            while self.exited().is_none() && Instant::now() < self.deadline() {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            self.stopped_now();
        }
    }

    /// Sends SIGTERM to a server still running and notes when the stop timeout ends; whether
    /// there is anything to wait for.
    fn stopping(&mut self) -> bool {
        if self.stopped {
            return false;
        }
        self.stopped = true;
        if self.exited().is_none() {
            let _ = killpg(Pid::from_raw(self.child.id() as i32), Signal::SIGTERM);
        }
        self.until = Some(Instant::now() + self.stop_timeout);
        true
    }

    fn deadline(&self) -> Instant {
        self.until.unwrap_or_else(Instant::now)
    }

    /// The group killed (it may live on: podman's conmon, vLLM's workers), the server reaped,
    /// then the guard stood down.
    fn stopped_now(&mut self) {
        let _ = killpg(Pid::from_raw(self.child.id() as i32), Signal::SIGKILL);
        let _ = self.child.wait();
        self.guard.release();
    }
}

/// Resolves when `launched` exits, with its status; never when there is none.
pub async fn exit_of(launched: Option<&mut Launched>) -> ExitStatus {
    match launched {
        Some(server) => server.exit().await,
        None => std::future::pending().await,
    }
}

impl Drop for Launched {
    fn drop(&mut self) {
        self.stop();
    }
}

/// The version `program` gives when asked, where `engine`'s program answers at once:
/// llama-server's `--version`, `version: 0.5.0-dev (build 1, commit 0c1e570)`, as its
/// `/props` spells it (`b1-0c1e570`). Given up after five seconds.
fn asked_version(program: &str, engine: Engine) -> Option<String> {
    if engine != Engine::LlamaServer {
        return None;
    }
    let mut child = Command::new(program)
        .arg("--version")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .ok()?;
    let deadline = Instant::now() + Duration::from_secs(5);
    while child.try_wait().ok()?.is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let output = child.wait_with_output().ok()?;
    let text = [output.stdout, output.stderr].concat();
    let build = llama_build(&String::from_utf8_lossy(&text))?;
    Some(format!("{} {build}", engine.name()))
}

/// Starts the server of `effective` and waits until it is ready: the running server, or the
/// diagnosis of why it did not come up.
pub async fn launch(
    effective: &Effective,
    options: &LaunchOptions,
    log: &Path,
    server: &ServerOptions,
    progress: &Progress,
) -> Result<Result<Launched, Diagnosis>, CollectError> {
    let port = options.port.unwrap_or_else(|| effective.port());
    let on_port;
    let effective = match effective.named_port() == Some(port) {
        true => effective,
        false => {
            on_port = effective.on_port(port);
            &on_port
        }
    };
    let command = effective
        .launch_command(options.launcher)
        .map_err(|error| CollectError::Launch(error.to_string()))?;
    // A server an earlier benchsite of this project left when it was killed (its guard too).
    if let Some(folder) = log.parent() {
        for pid in super::orphans::stop_left(folder, options.stop_timeout) {
            progress.line(&format!(
                "stopped the server (pid {pid}) an earlier benchsite left running"
            ));
        }
    }
    // The log of an attempt that was killed before it could keep it: kept now, not
    // overwritten by this one, since what that attempt finished was measured under it.
    if log.exists()
        && let Ok(Some(kept)) = keep_log(log)
    {
        progress.line(&format!(
            "kept the log an earlier, interrupted attempt left as {}",
            kept.display()
        ));
    }
    let client = Client::new(
        &server.base_url,
        server.api_key.as_deref(),
        server.timeout,
        server.ca_cert.as_deref(),
    )?;
    // A server already there (one a killed benchsite left running, say) would answer the
    // readiness check and be measured in place of this one.
    let probe = Client::new(
        &server.base_url,
        None,
        Duration::from_secs(2),
        server.ca_cert.as_deref(),
    )?;
    if matches!(probe.liveness().await, Liveness::Alive) {
        return Err(CollectError::Launch(format!(
            "a server already answers on {} before this one was started (one left running by an earlier benchsite?); stop it, then measure again",
            server.base_url
        )));
    }
    progress.step(&format!(
        "starting the server; its log goes to {}",
        log.display()
    ));
    let mut launched = Launched::start(&command, effective.engine(), options, log, port)
        .map_err(CollectError::Launch)?;
    let ready = tokio::select! {
        ready = launched.wait_ready(&client, options.ready_timeout) => ready,
        () = interrupted() => return Err(CollectError::Interrupted),
    };
    Ok(match ready {
        Ok(took) => {
            progress.line(&format!("server ready after {:.1} s", took.as_secs_f64()));
            Ok(launched)
        }
        Err(diagnosis) => Err(diagnosis),
    })
}

/// Compresses a server's log into `<id>.log.gz` beside it (written whole, then renamed) and
/// removes the plain one; the compressed file, or `None` when there was no log. An earlier
/// attempt's compressed log is never replaced: a later one is `<id>.2.log.gz`, and so on.
pub fn keep_log(log: &Path) -> std::io::Result<Option<PathBuf>> {
    use std::io::Write;
    let Ok(text) = std::fs::read(log) else {
        return Ok(None);
    };
    let gz = unused_gz(log);
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    encoder.write_all(&text)?;
    let bytes = encoder.finish()?;
    let mut temporary = gz.as_os_str().to_owned();
    temporary.push(".tmp");
    std::fs::write(&temporary, bytes)?;
    std::fs::rename(&temporary, &gz)?;
    std::fs::remove_file(log)?;
    Ok(Some(gz))
}

/// `<log>.gz`, or where that exists `<stem>.<n>.log.gz` with the first `n` from 2 unused.
fn unused_gz(log: &Path) -> PathBuf {
    let with = |suffix: &str| {
        let mut name = log.as_os_str().to_owned();
        name.push(suffix);
        PathBuf::from(name)
    };
    let first = with(".gz");
    if !first.exists() {
        return first;
    }
    let stem = log.with_extension("");
    (2..)
        .map(|n| {
            let mut name = stem.as_os_str().to_owned();
            name.push(format!(".{n}.log.gz"));
            PathBuf::from(name)
        })
        .find(|path| !path.exists())
        .unwrap_or(first)
}

/// A launched server's log kept compressed for its failure record: the compressed file's
/// path relative to the project, as `Failure::log` holds it.
pub(super) fn failure_log(root: &Path, log: &Path) -> Result<Option<String>, CollectError> {
    let kept = keep_log(log).map_err(|source| {
        CollectError::Data(crate::data::DataError::Write {
            path: log.to_owned(),
            source,
        })
    })?;
    Ok(kept.map(|gz| {
        gz.strip_prefix(root)
            .unwrap_or(&gz)
            .to_string_lossy()
            .into_owned()
    }))
}

#[cfg(test)]
mod tests {
    use super::keep_log;

    /// Each attempt's log is kept under a name of its own: a resumed attempt never replaces
    /// the log of the one that measured what it resumed.
    #[test]
    fn a_later_attempts_log_gets_a_name_of_its_own() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("cfg.log");
        let mut kept = Vec::new();
        for attempt in ["first", "second", "third"] {
            std::fs::write(&log, attempt).unwrap();
            kept.push(keep_log(&log).unwrap().unwrap());
            assert!(!log.exists());
        }
        let names: Vec<String> = kept
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["cfg.log.gz", "cfg.2.log.gz", "cfg.3.log.gz"]);
        use std::io::Read;
        let mut first = String::new();
        flate2::read::GzDecoder::new(std::fs::File::open(&kept[0]).unwrap())
            .read_to_string(&mut first)
            .unwrap();
        assert_eq!(first, "first");
        assert_eq!(keep_log(&log).unwrap(), None, "no log, nothing kept");
    }
}

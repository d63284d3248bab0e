//! No launched server outlives the benchsite that launched it, SIGKILL included.
//!
//! - A *guard*: a small shell in a process group of its own, blocked reading a pipe whose only
//!   writer is this benchsite. However benchsite ends, the kernel closes the pipe, the read
//!   returns, and the guard kills the server's process group (and removes its container, for
//!   podman: killing the `podman run` client leaves the container running). A server stopped
//!   the ordinary way stops its guard first.
//! - A *pid file* beside the server's log (`<log>.pid`: the server's pid, its start time in
//!   clock ticks, and the launching benchsite's pid). A launch first stops any server whose
//!   file is in the same folder, is still the process the file names, and whose benchsite is
//!   gone: one a crash left when its guard was killed too. A server whose benchsite still
//!   runs (another task's, on the same node) is never touched.

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill, killpg};
use nix::unistd::Pid;

/// What the guard runs: `$1` the server's process group, `$2` its container's name (or
/// empty). It waits for its standard input to close.
const GUARD: &str = r#"read _ignored; kill -KILL "-$1" 2>/dev/null; [ -n "$2" ] && podman rm -f "$2" >/dev/null 2>&1; exit 0"#;

/// A launched server's guard (whose standard input is the pipe) and pid file.
#[derive(Debug)]
pub struct Guard {
    guard: Option<Child>,
    pid_file: PathBuf,
}

impl Guard {
    /// Guards the server `pid` (a process group's leader), whose log is `log`, and whose
    /// container is `container` when podman runs it.
    pub fn start(pid: u32, log: &Path, container: Option<&str>) -> Guard {
        let guard = Command::new("sh")
            .args(["-c", GUARD, "benchsite-guard", &pid.to_string()])
            .arg(container.unwrap_or(""))
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            // Not in the terminal's group: a Ctrl-C reaches benchsite, which stops the server
            // itself, and not the guard.
            .process_group(0)
            .spawn()
            .ok();
        let pid_file = pid_file(log);
        if let Some(started) = start_ticks(pid as i32) {
            let _ = std::fs::write(
                &pid_file,
                format!("{pid} {started} {}\n", std::process::id()),
            );
        }
        Guard { guard, pid_file }
    }

    /// Stands the guard down: the server is being stopped the ordinary way.
    pub fn release(&mut self) {
        if let Some(mut guard) = self.guard.take() {
            let _ = guard.kill();
            let _ = guard.wait();
        }
        let _ = std::fs::remove_file(&self.pid_file);
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        self.release();
    }
}

/// `<log>.pid`.
fn pid_file(log: &Path) -> PathBuf {
    let mut name = log.as_os_str().to_owned();
    name.push(".pid");
    PathBuf::from(name)
}

/// Process `pid`'s start time, in clock ticks after boot (field 22 of `/proc/<pid>/stat`): with
/// the pid, what tells the process from a later one given the same number.
fn start_ticks(pid: i32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(19)?.parse().ok()
}

/// Stops every server a pid file in `folder` names that a benchsite now gone left running,
/// SIGTERM to its group and SIGKILL after `grace`; the pids stopped.
pub fn stop_left(folder: &Path, grace: Duration) -> Vec<i32> {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return Vec::new();
    };
    let mut stopped = Vec::new();
    for path in entries.flatten().map(|e| e.path()) {
        if path.extension().is_none_or(|e| e != "pid") {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let fields: Vec<u64> = text
            .split_whitespace()
            .filter_map(|f| f.parse().ok())
            .collect();
        let [pid, started, launcher] = fields[..] else {
            continue;
        };
        let (pid, launcher) = (pid as i32, launcher as i32);
        let alive = |p: i32| kill(Pid::from_raw(p), None).is_ok();
        if alive(launcher) && launcher != std::process::id() as i32 {
            continue;
        }
        if start_ticks(pid) == Some(started) {
            let group = Pid::from_raw(pid);
            let _ = killpg(group, Signal::SIGTERM);
            let deadline = Instant::now() + grace;
            while start_ticks(pid) == Some(started) && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(20));
            }
            let _ = killpg(group, Signal::SIGKILL);
            stopped.push(pid);
        }
        let _ = std::fs::remove_file(&path);
    }
    stopped
}

#[cfg(test)]
mod tests {
    use super::*;

    fn group_of_sleep() -> Child {
        Command::new("sleep")
            .arg("30")
            .process_group(0)
            .spawn()
            .unwrap()
    }

    fn gone(child: &mut Child, within: Duration) -> bool {
        let deadline = Instant::now() + within;
        while Instant::now() < deadline {
            if child.try_wait().unwrap().is_some() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        false
    }

    /// A guard whose pipe closes (as when benchsite dies) kills the group it guards; one
    /// released first leaves it.
    #[test]
    fn a_guard_kills_its_server_when_its_pipe_closes() {
        let dir = tempfile::tempdir().unwrap();
        let mut server = group_of_sleep();
        let mut guard = Guard::start(server.id(), &dir.path().join("a.log"), None);
        assert!(dir.path().join("a.log.pid").exists());
        // What benchsite's death does: the pipe's writer closes, the guard lives on.
        drop(guard.guard.as_mut().unwrap().stdin.take());
        assert!(gone(&mut server, Duration::from_secs(2)));
        let _ = guard.guard.take().map(|mut g| g.wait());
        let mut kept = group_of_sleep();
        let mut released = Guard::start(kept.id(), &dir.path().join("b.log"), None);
        released.release();
        assert!(!dir.path().join("b.log.pid").exists());
        assert!(!gone(&mut kept, Duration::from_millis(300)));
        kept.kill().unwrap();
        kept.wait().unwrap();
    }

    /// A pid file whose benchsite is gone: its server is stopped. One whose benchsite still
    /// runs (here, pid 1): left alone.
    #[test]
    fn a_server_left_by_a_gone_benchsite_is_stopped() {
        let dir = tempfile::tempdir().unwrap();
        let mut left = group_of_sleep();
        let mut running = group_of_sleep();
        let ticks = |c: &Child| start_ticks(c.id() as i32).unwrap();
        // A launcher pid no process has: the largest pid the kernel allows, plus one.
        let dead = std::fs::read_to_string("/proc/sys/kernel/pid_max")
            .map_or(4_194_304, |t| t.trim().parse::<u64>().unwrap())
            + 1;
        std::fs::write(
            dir.path().join("left.log.pid"),
            format!("{} {} {dead}\n", left.id(), ticks(&left)),
        )
        .unwrap();
        std::fs::write(
            dir.path().join("running.log.pid"),
            format!("{} {} 1\n", running.id(), ticks(&running)),
        )
        .unwrap();
        let stopped = stop_left(dir.path(), Duration::from_secs(1));
        assert_eq!(stopped, [left.id() as i32]);
        assert!(gone(&mut left, Duration::from_secs(2)));
        assert!(!dir.path().join("left.log.pid").exists());
        assert!(!gone(&mut running, Duration::from_millis(200)));
        running.kill().unwrap();
        running.wait().unwrap();
    }
}

//! The whole `benchsite build` command on reports that grow: the seed repeated 1×, 29× and
//! 353× (records copied under new ids and labels), and a three-machine project (the seed and
//! two altered copies, `common::three_machines`).
//!
//! `cargo bench --bench growth` prints, per project, the pages, the wall time of a rebuild
//! (and of the first build, into no site), the ms per page of the rebuild, the process's
//! peak RSS, the median page, the largest run page and the whole output. `cargo bench --bench growth -- 29` runs one size, `-- machines` the three-machine
//! project. The projects stay in `target/bench-projects/growth-*` for timing the command by
//! hand.

mod common;

use std::path::Path;
use std::process::Command;
use std::time::Instant;

/// What to build: the seed repeated some times, or the three-machine project.
#[derive(Clone, Copy)]
enum Project {
    Times(usize),
    Machines,
}

fn main() {
    let projects: Vec<Project> = match std::env::args().skip(1).find(|a| !a.starts_with('-')) {
        Some(arg) if arg == "machines" => vec![Project::Machines],
        Some(size) => vec![Project::Times(
            size.parse()
                .expect("a size (how many times the seed), or machines"),
        )],
        None => vec![
            Project::Times(1),
            Project::Times(29),
            Project::Times(353),
            Project::Machines,
        ],
    };
    let seed = common::seed();
    let mut previous: Option<(usize, f64)> = None;
    for project in projects {
        let (name, root) = match project {
            Project::Times(times) => (
                format!("x{times}"),
                common::project_with(&format!("growth-x{times}"), &common::scaled(&seed, times)),
            ),
            Project::Machines => {
                let root = common::repo().join("target/bench-projects/growth-machines");
                common::three_machines(&root, &seed);
                ("3 machines".to_owned(), root)
            }
        };
        // The first build, into no site; a second, which keeps the first as `.site.prev`;
        // then the measured one, a rebuild as an author's is, recycling that folder.
        let (first, _) = build(&root);
        build(&root);
        let (wall, rss_kib) = build(&root);
        let site = root.join("site");
        let mut pages: Vec<u64> = Vec::new();
        let mut total = 0u64;
        for entry in walkdir::WalkDir::new(&site) {
            let entry = entry.unwrap();
            if entry.file_type().is_file() {
                let size = entry.metadata().unwrap().len();
                total += size;
                if entry.file_name() == "index.html" {
                    pages.push(size);
                }
            }
        }
        pages.sort_unstable();
        let median = pages[pages.len() / 2];
        let run_page = std::fs::metadata(site.join("runs/qwen36-moe-default/index.html"))
            .unwrap()
            .len();
        let seconds = wall.as_secs_f64();
        println!(
            "{name}: {} pages, rebuild {:.3} s (first build {:.3} s), {:.3} ms/page, peak RSS {} MiB, median page {:.1} KB, run page {:.1} KB, output {:.1} MB",
            pages.len(),
            seconds,
            first.as_secs_f64(),
            seconds * 1e3 / pages.len() as f64,
            rss_kib / 1024,
            median as f64 / 1e3,
            run_page as f64 / 1e3,
            total as f64 / 1e6,
        );
        if let Project::Times(times) = project {
            if let Some((before, time)) = previous {
                println!("  time(x{times}) / time(x{before}) = {:.2}", seconds / time);
            }
            previous = Some((times, seconds));
        }
    }
}

/// Runs `benchsite build` on the project: its wall time and peak RSS in KiB.
// The child is reaped by wait4, which also gives its own peak RSS.
#[allow(clippy::zombie_processes)]
fn build(root: &Path) -> (std::time::Duration, i64) {
    let start = Instant::now();
    let child = Command::new(env!("CARGO_BIN_EXE_benchsite"))
        .arg("--root")
        .arg(root)
        .arg("build")
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: wait4 on our own child, with valid pointers to a status and a rusage; std's
    // Child is never waited on afterwards.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let wall = start.elapsed();
    assert_eq!(waited, pid, "wait4 failed");
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "the build failed"
    );
    (wall, usage.ru_maxrss)
}

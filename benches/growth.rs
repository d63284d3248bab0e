//! The whole `benchsite build` command on reports that grow: the seed repeated 1×, 29× and
//! 353× (records copied under new ids and labels, as the same configurations measured
//! nightly), 12,000 distinct configurations over 12 models each measured once
//! (`common::distinct`), and a three-machine project (the seed and two altered copies,
//! `common::three_machines`).
//!
//! `cargo bench --bench growth` prints, per project, the pages, the wall time of a rebuild
//! (the median of three; and of the first build, into no site, with its peak RSS, which
//! indexes every page for search), the ms per page of the
//! rebuild, the process's peak RSS, the median page, the largest run page and the whole
//! output. Then, each the median of three: a rebuild (search on, the default), a rebuild
//! after one line is added to a failure's Markdown (so one searched page changes), and a
//! rebuild with `search = false`, with search's share of the rebuild and of its peak memory.
//! Each prints its HTML pages' weight percentiles and its five largest pages, and the most
//! chart data a page fetches when it loads (`data-option` files); the distinct
//! and fleet projects, whose builds are long, not the second set of three. The copies of
//! the repeated projects are measured a night apart. `cargo bench --bench growth -- 29` runs
//! one size, `-- machines` the three-machine project, `-- distinct` the 12,000 distinct
//! configurations, `-- fleet` the 353× project and then a fleet of 10 machines, each its own
//! results document of the seed repeated 353× (120,000 records, `common::fleet`), whose time
//! (one rebuild) it says as a multiple of the 353× project's, with its largest document. The
//! projects stay in `target/bench-projects/growth-*` for timing the command by hand. Where
//! `hugo` is installed, the bench first builds 12,000 pages of `common::hugo_site` with it (the
//! median of three, back to back), and says each 12,000-page project's time and HTML as a
//! multiple of Hugo's: of those builds, and of three more that alternate with the project's
//! three rebuilds, so both are measured in the same minutes of a shared machine.

mod common;

use std::path::Path;
use std::process::Command;
use std::time::Instant;

/// What to build: the seed repeated some times, the three-machine project, or 12,000
/// distinct configurations over 12 models, each measured once.
#[derive(Clone, Copy)]
enum Project {
    Times(usize),
    Machines,
    Distinct,
    Fleet,
}

fn main() {
    let projects: Vec<Project> = match std::env::args().skip(1).find(|a| !a.starts_with('-')) {
        Some(arg) if arg == "machines" => vec![Project::Machines],
        Some(arg) if arg == "distinct" => vec![Project::Distinct],
        // The fleet's time is judged against the 353× project's, measured in the same run.
        Some(arg) if arg == "fleet" => vec![Project::Times(353), Project::Fleet],
        Some(size) => vec![Project::Times(
            size.parse()
                .expect("a size (how many times the seed), or machines"),
        )],
        None => vec![
            Project::Times(1),
            Project::Times(29),
            Project::Times(353),
            Project::Distinct,
            Project::Machines,
        ],
    };
    let seed = common::seed();
    let mut previous: Option<(usize, f64)> = None;
    // Hugo's time for 12,000 pages, measured in the same run, where Hugo is installed.
    let hugo = projects
        .iter()
        .any(|p| matches!(p, Project::Distinct) || matches!(p, Project::Times(353)))
        .then(hugo)
        .flatten();
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
            Project::Distinct => (
                "12,000 distinct".to_owned(),
                common::project_with("growth-distinct", &common::distinct(&seed, 12, 1000)),
            ),
            Project::Fleet => {
                let root = common::repo().join("target/bench-projects/growth-fleet");
                common::fleet(&root, &seed, 10, 353);
                ("fleet of 10 × 353".to_owned(), root)
            }
        };
        // The first build, into no site; a second, which keeps the first as `.site.prev`;
        // then the measured ones, rebuilds as an author's are, recycling that folder: the
        // median of three, as Hugo's is (the fleet's, one, for its length).
        let (first, first_rss_kib) = build(&root);
        build(&root);
        // A 12,000-page project's rebuilds alternate with Hugo's builds, so that both medians
        // are of the same minutes of a shared machine.
        let beside_hugo = hugo
            .as_ref()
            .filter(|_| matches!(project, Project::Times(353) | Project::Distinct));
        let mut hugo_runs: Vec<f64> = Vec::new();
        let (wall, rss_kib) = match project {
            Project::Fleet => build(&root),
            _ => {
                let mut runs = Vec::new();
                for _ in 0..3 {
                    if let Some(hugo) = beside_hugo {
                        hugo_runs.push(hugo_build(&hugo.2).0);
                    }
                    runs.push(build(&root));
                }
                runs.sort_by_key(|run| run.0);
                runs[1]
            }
        };
        hugo_runs.sort_by(f64::total_cmp);
        let site = root.join("site");
        let mut pages: Vec<(u64, String)> = Vec::new();
        let mut total = 0u64;
        for entry in walkdir::WalkDir::new(&site) {
            let entry = entry.unwrap();
            if entry.file_type().is_file() {
                let size = entry.metadata().unwrap().len();
                total += size;
                if entry.file_name() == "index.html" {
                    let path = entry.path().strip_prefix(&site).unwrap();
                    let folder = path.parent().unwrap().display().to_string();
                    pages.push((size, format!("/{folder}/").replace("//", "/")));
                }
            }
        }
        pages.sort_unstable();
        let (fetched, fetching) = charts_fetched(&site, &pages);
        let at = |q: f64| pages[((pages.len() - 1) as f64 * q).round() as usize].0 as f64 / 1e3;
        let median = pages[pages.len() / 2].0;
        let run_page = std::fs::metadata(site.join("runs/qwen36-moe-default/index.html"))
            .or_else(|_| std::fs::metadata(site.join("runs/qwen36-moe-default-m0-c0/index.html")))
            .unwrap()
            .len();
        let html: u64 = pages.iter().map(|p| p.0).sum();
        let seconds = wall.as_secs_f64();
        println!(
            "{name}: {} pages, rebuild {:.3} s (first build {:.3} s, {} MiB), {:.3} ms/page, peak RSS {} MiB, median page {:.1} KB, run page {:.1} KB, output {:.1} MB",
            pages.len(),
            seconds,
            first.as_secs_f64(),
            first_rss_kib / 1024,
            seconds * 1e3 / pages.len() as f64,
            rss_kib / 1024,
            median as f64 / 1e3,
            run_page as f64 / 1e3,
            total as f64 / 1e6,
        );
        println!(
            "  HTML pages {:.1} MB in all; page weight p50 {:.1} KB, p90 {:.1} KB, p99 {:.1} KB, largest {:.1} KB; the largest: {}",
            html as f64 / 1e6,
            at(0.5),
            at(0.9),
            at(0.99),
            at(1.0),
            pages
                .iter()
                .rev()
                .take(5)
                .map(|(size, path)| format!("{path} {:.1} MB", *size as f64 / 1e6))
                .collect::<Vec<_>>()
                .join(", ")
        );
        println!(
            "  chart data fetched when a page loads (beside its HTML, scripts and styles): {} page{} fetch any; the most {:.1} KB ({})",
            fetched.len(),
            if fetched.len() == 1 { "" } else { "s" },
            fetching.0 as f64 / 1e3,
            fetching.1,
        );
        if let (Project::Fleet, Some((353, time))) = (project, previous) {
            println!(
                "  against the 353× project's 12,000 pages: {:.2} × its time; largest document {:.1} MB",
                seconds / time,
                largest_document(&root) as f64 / 1e6
            );
        }
        if let (Some(hugo), Some(&between)) = (&hugo, hugo_runs.get(1)) {
            println!(
                "  against Hugo's 12,000 pages: a rebuild with nothing changed {:.2} × its time built back to back first ({:.3} s), {:.2} × built between these rebuilds ({between:.3} s); a build from nothing (no site, no memo) {:.2} × and {:.2} ×; {:.2} × its HTML",
                seconds / hugo.0,
                hugo.0,
                seconds / between,
                first.as_secs_f64() / hugo.0,
                first.as_secs_f64() / between,
                html as f64 / hugo.1 as f64
            );
        }
        // The distinct project's builds are long; one rebuild says enough of it.
        if matches!(project, Project::Distinct | Project::Fleet) {
            continue;
        }
        let (on, edited, off) = search_costs(&root);
        println!(
            "  medians of 3: rebuild {:.3} s / {} MiB; after a one-line edit of a searched page {:.3} s / {} MiB; without search {:.3} s / {} MiB; search adds {:.0}% time, {:.0}% memory",
            on.0,
            on.1 / 1024,
            edited.0,
            edited.1 / 1024,
            off.0,
            off.1 / 1024,
            (on.0 / off.0 - 1.0) * 100.0,
            (on.1 as f64 / off.1 as f64 - 1.0) * 100.0,
        );
        if let Project::Times(times) = project {
            if let Some((before, time)) = previous {
                println!("  time(x{times}) / time(x{before}) = {:.2}", seconds / time);
            }
            previous = Some((times, seconds));
        }
    }
}

/// The pages (of `pages`, by size and folder) that fetch chart options when they load, and
/// the most bytes one page fetches with its path. A chart's long option is a file its
/// `data-option` names; every chart of a page is fetched at once, so its first chart waits on
/// all of them.
fn charts_fetched(site: &Path, pages: &[(u64, String)]) -> (Vec<String>, (u64, String)) {
    let mut fetching = Vec::new();
    let mut most = (0, String::new());
    for (_, folder) in pages {
        let html = std::fs::read_to_string(site.join(&folder[1..]).join("index.html")).unwrap();
        let bytes: u64 = html
            .split("data-option=\"")
            .skip(1)
            .map(|rest| {
                let src = &rest[..rest.find('"').unwrap()];
                std::fs::metadata(site.join(src.trim_start_matches('/')))
                    .unwrap_or_else(|e| panic!("{folder}: {src}: {e}"))
                    .len()
            })
            .sum();
        if bytes > 0 {
            fetching.push(folder.clone());
        }
        if bytes > most.0 {
            most = (bytes, folder.clone());
        }
    }
    (fetching, most)
}

/// The size of the project's largest results document, in bytes.
fn largest_document(root: &Path) -> u64 {
    std::fs::read_dir(root.join("data"))
        .unwrap()
        .map(|e| e.unwrap().metadata().unwrap().len())
        .max()
        .unwrap_or(0)
}

/// Hugo's build of `common::hugo_site`'s 12,000 pages, when `hugo` is on the PATH: the median
/// wall time of three builds (each into an emptied folder) in seconds and the HTML's bytes.
fn hugo() -> Option<(f64, u64, std::path::PathBuf)> {
    let version = Command::new("hugo").arg("version").output().ok()?;
    let root = common::hugo_site("hugo-12000", 12_000);
    let public = root.join("public");
    let mut runs: Vec<(f64, i64)> = (0..3).map(|_| hugo_build(&root)).collect();
    runs.sort_by(|a, b| a.0.total_cmp(&b.0));
    let (mut pages, mut html) = (0, 0);
    for entry in walkdir::WalkDir::new(&public) {
        let entry = entry.unwrap();
        if entry.file_name().to_string_lossy().ends_with(".html") {
            pages += 1;
            html += entry.metadata().unwrap().len();
        }
    }
    println!(
        "Hugo ({}): {pages} pages, build {:.3} s (median of 3), peak RSS {} MiB, HTML pages {:.1} MB",
        String::from_utf8_lossy(&version.stdout)
            .split_whitespace()
            .nth(1)
            .unwrap_or("?"),
        runs[1].0,
        runs[1].1 / 1024,
        html as f64 / 1e6
    );
    Some((runs[1].0, html, root))
}

/// One Hugo build of the site at `root` into an emptied folder: its wall time in seconds and
/// peak RSS in KiB.
fn hugo_build(root: &Path) -> (f64, i64) {
    let _ = std::fs::remove_dir_all(root.join("public"));
    let mut command = Command::new("hugo");
    command.arg("--quiet").arg("--source").arg(root);
    let (wall, rss) = timed(command);
    (wall.as_secs_f64(), rss)
}

/// The median of three rebuilds (seconds, peak RSS in KiB): with search, after a line is
/// added to a failure's narrative (one searched page changes, the line taken out again
/// before the next), and with `search = false`. The project is left as it was.
fn search_costs(root: &Path) -> ((f64, i64), (f64, i64), (f64, i64)) {
    let median = |mut runs: Vec<(f64, i64)>| {
        runs.sort_by(|a, b| a.0.total_cmp(&b.0));
        let mut memory: Vec<i64> = runs.iter().map(|r| r.1).collect();
        memory.sort_unstable();
        (runs[1].0, memory[1])
    };
    let timed = |root: &Path| {
        let (wall, rss) = build(root);
        (wall.as_secs_f64(), rss)
    };
    let on = median((0..3).map(|_| timed(root)).collect());
    let failures = root.join("content/failures");
    let narrative = std::fs::read_dir(&failures)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .min()
        .expect("the seed has failure write-ups");
    let text = std::fs::read_to_string(&narrative).unwrap();
    let edited = median(
        (0..3)
            .map(|i| {
                std::fs::write(&narrative, format!("{text}\nEdited once more ({i}).\n")).unwrap();
                let cost = timed(root);
                std::fs::write(&narrative, &text).unwrap();
                build(root);
                cost
            })
            .collect(),
    );
    let settings_path = root.join("benchsite.toml");
    let settings = std::fs::read_to_string(&settings_path).unwrap();
    std::fs::write(&settings_path, format!("search = false\n{settings}")).unwrap();
    build(root);
    let off = median((0..3).map(|_| timed(root)).collect());
    std::fs::write(&settings_path, settings).unwrap();
    build(root);
    build(root);
    (on, edited, off)
}

/// Runs `benchsite build` on the project: its wall time and peak RSS in KiB.
fn build(root: &Path) -> (std::time::Duration, i64) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_benchsite"));
    command.arg("--root").arg(root).arg("build");
    timed(command)
}

/// Runs `command` to success: its wall time and peak RSS in KiB.
// The child is reaped by wait4, which also gives its own peak RSS.
#[allow(clippy::zombie_processes)]
fn timed(mut command: Command) -> (std::time::Duration, i64) {
    let start = Instant::now();
    let child = command.stdout(std::process::Stdio::null()).spawn().unwrap();
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
        "the command failed"
    );
    (wall, usage.ru_maxrss)
}

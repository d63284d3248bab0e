//! The site in a real headless Chromium (Debian's `chromium`), driven by playwright-core:
//! every built page loads without a console error and without an axe-core violation (light,
//! dark, 390 px), every chart renders with its CSV download, the sort buttons reorder a
//! table, the filters follow the URL, the search finds record pages; a long table of a large
//! report pages through every record; a page served by `benchsite serve` reloads itself after
//! an edit and shows a broken one as an overlay. Debian's `chromium`, node and the npm packages of
//! `tests/browser/package-lock.json` are installed where missing (`support::setup`).

#[path = "../benches/common/mod.rs"]
mod common;
mod support;

use std::process::Command;

use support::{Project, repo};

/// `node`, to run a script of `tests/browser/`, with Chromium and the locked npm packages
/// installed where missing (`support::setup`) and Chromium's path in `CHROMIUM`.
fn node() -> Command {
    let mut node = Command::new("node");
    node.env("CHROMIUM", support::setup("browser"));
    node
}

/// Loads the pages of the built `site` (those `only` lists, or all) in Chromium under
/// `base`, asserts that none has a problem, and returns what the script printed.
fn pages_in_chromium(site: &std::path::Path, base: &str, only: Option<&str>) -> String {
    pages_in_chromium_with(site, base, only, &[])
}

fn pages_in_chromium_with(
    site: &std::path::Path,
    base: &str,
    only: Option<&str>,
    env: &[(&str, &std::path::Path)],
) -> String {
    let output = node()
        .envs(env.iter().copied())
        .arg(repo().join("tests/browser/pages.mjs"))
        .arg(site)
        .arg(base)
        .args(only)
        .output()
        .expect("node runs");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains(", 0 problems"), "{stdout}");
    stdout
}

#[test]
fn every_page_works_in_chromium() {
    let project = Project::copy_of_repo();
    // A baseline that differs from the results, so /changes/ has rows to show.
    let root = project.root.path();
    let mut baseline = benchsite::data::load(&root.join("data/results.json")).unwrap();
    baseline.runs[0].decode_tok_s = 320.0;
    baseline.runs[0].decode_samples = vec![320.0, 320.0, 320.0];
    std::fs::write(
        root.join("data/baseline.json"),
        benchsite::data::to_json(&baseline),
    )
    .unwrap();
    // The default configuration and the baseline sweep measured again under a later vLLM,
    // slower: two histories.
    let mut results = benchsite::data::load(&root.join("data/results.json")).unwrap();
    let mut rerun = results
        .runs
        .iter()
        .find(|r| r.id.as_str() == "qwen36-moe-default")
        .unwrap()
        .clone();
    rerun.id = benchsite::data::Id::new("qwen36-moe-default-v029").unwrap();
    rerun.overrides = "IMAGE=docker.io/vllm/vllm-openai:v0.29.0".into();
    rerun.vllm_version = Some("0.29.0".into());
    rerun.generated = benchsite::data::Date::new("2026-10-01").unwrap();
    rerun.decode_tok_s = 270.0;
    rerun.decode_samples = vec![268.0, 270.0, 271.0];
    results.runs.push(rerun);
    let mut again = results.sweeps[0].clone();
    again.label = format!("{}, vLLM 0.29.0", again.label);
    again.vllm_version = Some("0.29.0".into());
    again.generated = benchsite::data::Date::new("2026-10-01").unwrap();
    // Each stream 1% slower (within the threshold), so no level of it is on a frontier.
    for level in &mut again.levels {
        level.decode_tok_s_per_stream = level.decode_tok_s_per_stream.map(|r| r * 0.99);
    }
    let c8 = again
        .levels
        .iter_mut()
        .find(|l| l.concurrency == Some(8))
        .unwrap();
    assert_eq!(c8.total_tok_s, Some(1223.0));
    c8.total_tok_s = Some(1100.0);
    results.sweeps.push(again);
    // Power recorded at one level: its energy beside its cost.
    let seqs = results
        .sweeps
        .iter_mut()
        .find(|s| s.label == "qwen3.6-35b-a3b max-num-seqs 32")
        .unwrap();
    let c32 = seqs
        .levels
        .iter_mut()
        .find(|l| l.concurrency == Some(32))
        .unwrap();
    c32.power_w = Some(500.0);
    c32.joules_per_token = Some(0.196);
    open_loop_sweep(root, &mut results);
    std::fs::write(
        root.join("data/results.json"),
        benchsite::data::to_json(&results),
    )
    .unwrap();
    let settings = std::fs::read_to_string(root.join("benchsite.toml")).unwrap();
    std::fs::write(
        root.join("benchsite.toml"),
        format!("baseline = \"data/baseline.json\"\n{settings}\n[cost]\ngpu_hour = 2.5\n"),
    )
    .unwrap();
    let output = project.run(&["build", "--base-url", "https://user.github.io/report/"]);
    output.assert_success();
    let stdout = pages_in_chromium(&project.root.path().join("site"), "/report/", None);
    assert!(
        stdout.contains("goodput: at TTFT ≤ 0.5 s 3 and 1 good"),
        "{stdout}"
    );
    assert!(root.join("site/changes/index.html").exists());
    assert!(root.join("site/ablations/index.html").exists());
    assert!(root.join("site/history/index.html").exists());
}

/// An open-loop sweep of two rates with its per-request data, made by hand, 4 s a level,
/// every answer 101 tokens and sent when due: at 1 req/s TTFTs 0.1, 0.2, 0.4 and 0.8 s, at
/// 2 req/s 0.3, 0.6 and 1.2 s and one failure. pages.mjs holds the page's goodput at TTFT ≤
/// 0.5 s to what that gives by hand.
fn open_loop_sweep(root: &std::path::Path, results: &mut benchsite::data::Results) {
    use benchsite::data::{RequestLine, RequestStatus};
    let mut sweep = results.sweeps[0].clone();
    sweep.label = "qwen3.6-35b-a3b arrivals".into();
    sweep.workload.rounds = 1;
    sweep.workload.min_requests = None;
    sweep.workload.arrivals = Some(benchsite::data::Arrivals {
        process: benchsite::data::Process::Gamma,
        burstiness: 1.0,
        seed: Some(0),
        max_concurrency: None,
        requests: 4,
        duration_s: None,
    });
    let mut lines = Vec::new();
    let ttfts: [&[f64]; 2] = [&[0.1, 0.2, 0.4, 0.8], &[0.3, 0.6, 1.2]];
    sweep.levels.truncate(2);
    for (index, level) in sweep.levels.iter_mut().enumerate() {
        level.concurrency = None;
        level.rate_rps = Some((index + 1) as f64);
        level.requests = 4;
        level.succeeded = ttfts[index].len() as u64;
        level.failed = 4 - level.succeeded;
        level.wall_s = Some(4.0);
        level.ci95.clear();
        for (n, &ttft) in ttfts[index].iter().enumerate() {
            lines.push(RequestLine {
                level: index,
                n: n as u64,
                due_s: Some(n as f64),
                sent_s: Some(n as f64),
                status: RequestStatus::Ok,
                ttft_s: Some(ttft),
                latency_s: Some(ttft + 1.0),
                output_tokens: Some(101),
                prompt_tokens: None,
                chunks: None,
                gap_p50_ms: None,
                gap_max_ms: None,
                finish_reason: None,
                bursts: None,
                short: None,
                error: None,
            });
        }
    }
    lines.push(RequestLine {
        level: 1,
        n: 3,
        due_s: Some(3.0),
        sent_s: Some(3.0),
        status: RequestStatus::Failed,
        ttft_s: None,
        latency_s: None,
        output_tokens: None,
        prompt_tokens: None,
        chunks: None,
        gap_p50_ms: None,
        gap_max_ms: None,
        finish_reason: None,
        bursts: None,
        short: None,
        error: Some("HTTP 500".into()),
    });
    let path = benchsite::data::request_log_path(&sweep.slug());
    benchsite::data::write_request_log(&root.join(&path), &lines).unwrap();
    sweep.request_log = Some(path);
    results.sweeps.push(sweep);
}

/// The picture README.md shows is the shipped report's quality page (its divergence heatmap)
/// as Chromium renders it, 1280 × 800; `BENCHSITE_UPDATE_SCREENSHOT=1 cargo test --test browser` takes it again into
/// `.github/report.png`.
#[test]
fn the_readme_screenshot_is_the_shipped_report_in_chromium() {
    let project = Project::copy_of_repo();
    project.run(&["build"]).assert_success();
    let shot = repo().join("target/screenshot/report.png");
    std::fs::create_dir_all(shot.parent().unwrap()).unwrap();
    let output = pages_in_chromium_with(
        &project.root.path().join("site"),
        "/",
        Some("quality/"),
        &[
            ("SCREENSHOT", &shot),
            ("SCREENSHOT_PAGE", std::path::Path::new("quality/")),
        ],
    );
    assert!(
        output.contains("screenshot of /quality/ at 1280 × 800"),
        "{output}"
    );
    let committed = repo().join(".github/report.png");
    if std::env::var_os("BENCHSITE_UPDATE_SCREENSHOT").is_some() {
        std::fs::copy(&shot, &committed).unwrap();
    }
    for png in [&shot, &committed] {
        let bytes = std::fs::read(png).unwrap_or_else(|e| panic!("{}: {e}", png.display()));
        assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "{}", png.display());
        let width = u32::from_be_bytes(bytes[16..20].try_into().unwrap());
        let height = u32::from_be_bytes(bytes[20..24].try_into().unwrap());
        assert_eq!((width, height), (1280, 800), "{}", png.display());
    }
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    assert!(
        readme.contains("(.github/report.png)"),
        "README.md shows the screenshot"
    );
}

#[test]
fn machine_and_model_pages_of_a_three_machine_report_work_in_chromium() {
    let project = Project::copy_of_repo();
    let root = project.root.path();
    common::three_machines(root, &common::seed());
    project.run(&["build"]).assert_success();
    let stdout = pages_in_chromium(
        &root.join("site"),
        "/",
        Some(",hardware/,models/,ablations/,runs/"),
    );
    // The home page, three machine pages, the models, the ablations and the runs.
    let checked: usize = stdout
        .lines()
        .find_map(|line| line.split(" pages, ").next()?.parse().ok())
        .expect("a count of pages");
    let models = std::fs::read_dir(root.join("site/models")).unwrap().count();
    let runs = std::fs::read_dir(root.join("site/runs")).unwrap().count() - 1;
    assert_eq!(checked, 1 + 3 + models + 1 + (1 + runs), "{stdout}");
}

#[test]
fn the_long_tables_of_a_large_report_page_through_every_record_in_chromium() {
    // The seed's configurations measured 353 nights running, the 12,000-page report of the
    // growth bench: 4,589 sweeps in ten data files of rows (500 each), and 353 measurements of
    // each configuration.
    let project = Project::copy_of_repo();
    let root = project.root.path();
    project.write(
        "data/results.json",
        &benchsite::data::to_json(&common::scaled(&common::seed(), 353)),
    );
    project.run(&["build"]).assert_success();
    let sweeps = std::fs::read_to_string(root.join("site/sweeps/index.html")).unwrap();
    assert!(
        sweeps.contains("data-rows=\"4589\""),
        "the sweeps table is paged"
    );
    assert!(
        root.join("site/sweeps/concurrency-sweeps.10.rows.json")
            .exists()
    );
    let output = node()
        .arg(repo().join("tests/browser/paged.mjs"))
        .arg(root.join("site"))
        .arg("/")
        .arg("sweep-qwen3-6-35b-a3b-baseline")
        // The last copy's first failure: on the table's last page.
        .arg("failure-qwen38-bf16-x352")
        .output()
        .expect("node runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("paged through 4589 of 4589 sweeps"),
        "{stdout}"
    );
    assert!(stdout.contains("paged through 353 of 353 measurements, 353 to compare"));
    assert!(stdout.contains("0 problems"), "{stdout}");
}

#[test]
fn an_open_page_reloads_itself_after_an_edit_in_chromium() {
    let project = Project::copy_of_repo();
    let mut serve = Command::new(env!("CARGO_BIN_EXE_benchsite"))
        .args(["serve", "--port", "0", "--root", project.root_str()])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = std::io::BufRead::lines(std::io::BufReader::new(serve.stdout.take().unwrap()));
    let url = lines
        .find_map(|line| line.ok()?.strip_prefix("serving ").map(str::to_owned))
        .expect("serve prints its address");
    // Keep reading so serve never blocks on a full pipe.
    std::thread::spawn(move || lines.for_each(drop));
    let output = node()
        .arg(repo().join("tests/browser/reload.mjs"))
        .arg(&url)
        .arg(project.root.path())
        .output()
        .expect("node runs");
    let _ = serve.kill();
    let _ = serve.wait();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("0 problems"), "{stdout}");
    // The overlay was read in both schemes.
    assert!(
        stdout.contains(" light, ") && stdout.contains(" dark\n"),
        "{stdout}"
    );
    eprintln!("{stdout}");
}

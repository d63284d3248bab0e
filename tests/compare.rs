//! `benchsite diff`: the seed against a copy with known changes reports exactly those, flags
//! the regressions, and fails with `--fail-on-regression`; against itself, nothing.

mod support;

use benchsite::data::{self, FailureStatus, Results};
use support::{repo, run_benchsite};

fn seed() -> Results {
    data::load(&repo().join("data/results.json")).unwrap()
}

/// The seed with one run 10% slower, one sweep level with a failure, one comparison with a
/// higher KL, a failure added, a jitter record removed and a sweep's vLLM version bumped.
fn changed() -> Results {
    let mut doc = seed();
    let run = &mut doc.runs[0];
    assert_eq!(run.decode_tok_s, 289.0);
    run.decode_tok_s = 260.1;
    run.decode_samples = vec![260.2, 260.1, 260.1];
    let level = &mut doc.sweeps[0].levels[1];
    level.succeeded -= 1;
    level.failed += 1;
    let tf = &mut doc.divergence[1].teacher_forced;
    tf.kld_mean = 0.0055;
    tf.kld_mean_ci95[1] = tf.kld_mean_ci95[1].max(0.006);
    doc.sweeps[2].vllm_version = Some("0.29.0".into());
    let mut failure = doc.failures[0].clone();
    failure.id = data::Id::new("new-failure").unwrap();
    failure.status = FailureStatus::Crashed;
    doc.failures.push(failure);
    doc.jitter.pop();
    doc
}

/// A change as (what, old, new, regression).
type Shown = (String, String, String, bool);

#[test]
fn the_changes_made_are_the_changes_reported() {
    let (old, new) = (seed(), changed());
    data::validate(&new).unwrap();
    let diff = benchsite::compare::diff(&old, &new, 5.0);
    let summary: Vec<(String, Vec<Shown>)> = diff
        .records
        .iter()
        .map(|r| {
            (
                r.record.clone(),
                r.changes
                    .iter()
                    .map(|c| (c.what.clone(), c.old_text(), c.new_text(), c.regression))
                    .collect(),
            )
        })
        .collect();
    let change = |what: &str, old: &str, new: &str, regression| {
        (what.to_owned(), old.to_owned(), new.to_owned(), regression)
    };
    assert_eq!(
        summary,
        vec![
            (
                "runs → qwen36-moe-default".to_owned(),
                vec![change("decode_tok_s", "289.0", "260.1", true)]
            ),
            (
                format!("sweeps → {}", old.sweeps[0].label),
                vec![change("concurrency 2: failed", "0", "1", true)]
            ),
            (
                format!("sweeps → {}", old.sweeps[2].label),
                vec![change("vllm_version", "0.28.0", "0.29.0", false)]
            ),
            (
                format!("divergence → {}", old.divergence[1].label),
                vec![change(
                    "teacher_forced.kld_mean",
                    "0.004865",
                    "0.0055",
                    true
                )]
            ),
        ]
    );
    assert_eq!(diff.added, ["failures → new-failure"]);
    assert_eq!(
        diff.removed,
        [format!("jitter → {}", old.jitter.last().unwrap().label)]
    );
    assert_eq!(diff.regressions().count(), 3);
    let percent = diff.records[0].changes[0].percent.unwrap();
    assert!((percent + 10.0).abs() < 1e-9, "{percent}");
}

#[test]
fn the_command_flags_regressions_and_fails_on_them_when_asked() {
    let dir = tempfile::tempdir().unwrap();
    let new = dir.path().join("new.json");
    std::fs::write(&new, data::to_json(&changed())).unwrap();
    let old = repo().join("data/results.json");
    let (old, new) = (old.to_str().unwrap(), new.to_str().unwrap());
    let output = run_benchsite(&["diff", old, new]);
    output.assert_success();
    assert!(
        output.stdout.contains(
            "  decode_tok_s: 289.0 → 260.1 (−28.9, −10.0%)  REGRESSION, beyond both intervals"
        ),
        "{}",
        output.stdout
    );
    assert!(
        output.stdout.contains("added: failures → new-failure"),
        "{}",
        output.stdout
    );
    assert!(
        output.stdout.contains("3 regression(s) beyond 5%"),
        "{}",
        output.stdout
    );
    let failing = run_benchsite(&["diff", old, new, "--fail-on-regression"]);
    assert_eq!(failing.status.code(), Some(1));
    let lenient = run_benchsite(&[
        "diff",
        old,
        new,
        "--fail-on-regression",
        "--threshold",
        "50",
    ]);
    assert!(
        lenient.stdout.contains("1 regression(s) beyond 50%"),
        "{}",
        lenient.stdout
    );

    let same = run_benchsite(&["diff", old, old, "--fail-on-regression"]);
    same.assert_success();
    assert_eq!(same.stdout.trim(), "no changes");
}

/// The one-knob pairs of the seed, read off its records by hand: (kind, A, B, setting).
const SEED_ABLATIONS: &[(&str, &str, &str, &str)] = &[
    ("run", "qwen36-moe-default", "qwen36-moe-mtp", "SPEC_DECODE"),
    (
        "sweep",
        "qwen3.6-35b-a3b baseline",
        "qwen3.6-35b-a3b max-num-seqs 32",
        "seqs",
    ),
    (
        "sweep",
        "qwen3.6-35b-a3b baseline",
        "qwen3.6-35b-a3b 16K prompt, seqs 8",
        "prompt",
    ),
    (
        "sweep",
        "qwen3.6-35b-a3b max-num-seqs 32",
        "qwen3.6-35b-a3b 16K prompt, seqs 32",
        "prompt",
    ),
    (
        "sweep",
        "qwen3.6-35b-a3b max-num-seqs 32",
        "qwen3.6-35b-a3b 4K output, seqs 32",
        "output",
    ),
    (
        "sweep",
        "qwen3.6-35b-a3b 16K prompt, seqs 8",
        "qwen3.6-35b-a3b 16K prompt, seqs 32",
        "seqs",
    ),
    (
        "sweep",
        "qwen3.8-27b default",
        "qwen3.8-27b seqs 32",
        "seqs",
    ),
    (
        "sweep",
        "qwen3.8-27b seqs 32",
        "qwen3.8-27b text-only, eager",
        "vision",
    ),
    (
        "sweep",
        "qwen3.8-27b text-only, CUDA graphs",
        "qwen3.8-27b text-only, eager",
        "graphs",
    ),
    (
        "sweep",
        "qwen3.8-27b text-only, CUDA graphs",
        "qwen3.8-27b 4K output, text-only, CUDA graphs",
        "output",
    ),
    (
        "sweep",
        "nemotron-3.5-lightning",
        "nemotron-3.5-lightning 4K output",
        "output",
    ),
    (
        "comparison",
        "Qwen3.8 FP8 → NVFP4",
        "Qwen3.8 FP8 → NVFP4 + fp8 KV",
        "kv",
    ),
    (
        "comparison",
        "Qwen3.8 FP8 → NVFP4",
        "Qwen3.8 FP8 → NVFP4, CUDA graphs",
        "graphs",
    ),
    (
        "comparison",
        "Qwen3.8 FP8 → NVFP4",
        "Qwen3.8 FP8 → NVFP4 + MTP",
        "mtp",
    ),
];

#[test]
fn the_seed_ablations_are_exactly_its_single_difference_pairs() {
    use benchsite::compare::{Kind, ablations};
    let doc = seed();
    let (profiles, errors) = benchsite::profiles::load_all(&repo().join("profiles"));
    assert!(errors.is_empty());
    let found: Vec<(&str, String, String, String)> = ablations(&doc, &profiles)
        .into_iter()
        .map(|ab| {
            let (kind, a, b) = match ab.kind {
                Kind::Run => (
                    "run",
                    doc.runs[ab.a].id.to_string(),
                    doc.runs[ab.b].id.to_string(),
                ),
                Kind::Sweep => (
                    "sweep",
                    doc.sweeps[ab.a].label.clone(),
                    doc.sweeps[ab.b].label.clone(),
                ),
                Kind::Comparison => (
                    "comparison",
                    doc.divergence[ab.a].label.clone(),
                    doc.divergence[ab.b].label.clone(),
                ),
            };
            (kind, a, b, ab.setting)
        })
        .collect();
    let expected: Vec<(&str, String, String, String)> = SEED_ABLATIONS
        .iter()
        .map(|(k, a, b, s)| (*k, a.to_string(), b.to_string(), s.to_string()))
        .collect();
    // Exactly these: pairs that differ in two settings (qwen38-dense-default against
    // qwen38-dense-mtp: vision and MTP) are not in the list.
    assert_eq!(found, expected);
}

#[test]
fn the_ablations_page_links_both_records_of_every_pair() {
    let project = support::Project::copy_of_repo();
    let output = project.run(&["build"]);
    output.assert_success();
    let page = project.page("ablations/index.html");
    assert!(
        page.contains(&format!("{} pairs of records", SEED_ABLATIONS.len())),
        "{page}"
    );
    let run = project.page("runs/qwen36-moe-mtp/index.html");
    assert!(
        run.contains("href=\"/ablations/#run-qwen36-moe-default-vs-qwen36-moe-mtp\""),
        "{run}"
    );
    assert!(run.contains("SPEC_DECODE: 0 → 1"));
    let sweep = project.page("sweeps/qwen3-8-27b-text-only-eager/index.html");
    assert_eq!(sweep.matches("/ablations/#sweep-").count(), 2, "{sweep}");
    // Each sweep pair's chart says which of its ratios are better above 1: throughput and
    // per-stream decode are better higher, TTFT lower.
    let sweep_pairs = page.matches("<section id=\"sweep-").count();
    assert!(sweep_pairs > 0);
    assert_eq!(
        page.matches("Above 1, B is higher: better for “output tok/s, all streams” and “decode tok/s per stream”, worse for “TTFT p50” (dashed).").count(),
        sweep_pairs,
        "{page}"
    );
    // The decode figures of the run pair, side by side, and their ratio.
    assert!(
        page.contains(">289.0<") && page.contains(">358.0<") && page.contains(">1.24×<"),
        "{page}"
    );
    let comparison = project.page("quality/qwen3-8-fp8-nvfp4/index.html");
    assert_eq!(
        comparison.matches("/ablations/#comparison-").count(),
        3,
        "{comparison}"
    );
}

#[test]
fn speed_against_quality_places_each_linked_run_at_its_records_figures() {
    let project = support::Project::copy_of_repo();
    let output = project.run(&["build"]);
    output.assert_success();
    let page = project.page("quality/index.html");
    let doc = seed();
    let mut drawn = 0;
    for run in &doc.runs {
        let Some(link) = &run.quality else { continue };
        let d = doc
            .divergence
            .iter()
            .find(|d| d.label == link.comparison)
            .unwrap();
        // A point opens its run.
        let point = serde_json::to_string(&serde_json::json!({
            "name": run.id.as_str(),
            "url": format!("/runs/{}/", run.id),
            "value": [run.decode_tok_s, d.teacher_forced.kld_mean],
        }))
        .unwrap();
        // Suspect comparisons are in the table, not on the chart.
        assert_eq!(page.contains(&point), d.suspect.is_none(), "{point}");
        drawn += usize::from(d.suspect.is_none());
        assert!(page.contains(&format!("id=\"speed-quality-{}\"", run.id)));
        let run_page = project.page(&format!("runs/{}/index.html", run.id));
        let shown = benchsite::format::figure(d.teacher_forced.kld_mean);
        assert!(
            run_page.contains(&format!(
                "Teacher-forced KLD mean {shown} nats against the reference"
            )),
            "{}",
            run.id
        );
    }
    assert_eq!(
        drawn, 4,
        "five runs are linked, one to a suspect comparison"
    );
    // Each model's band reaches its largest floor.
    assert!(
        page.contains(r#"{"name":"Qwen3.8-27B noise floor","yAxis":0},{"yAxis":0.026583}"#),
        "{page}"
    );
}

#[test]
fn a_dangling_quality_link_is_a_check_error_naming_its_place() {
    let mut doc = seed();
    doc.runs[0].quality.as_mut().unwrap().comparison = "no such comparison".into();
    let project = support::Project::copy_of_repo();
    std::fs::write(
        project.root.path().join("data/results.json"),
        data::to_json(&doc),
    )
    .unwrap();
    let output = project.run(&["check"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        output.stderr.contains("/runs/0/quality/comparison"),
        "{}",
        output.stderr
    );
    assert!(
        output.stderr.contains("no divergence record has"),
        "{}",
        output.stderr
    );
    assert!(output.stderr.contains("results.json:"), "{}", output.stderr);
}

#[test]
fn the_changes_page_shows_the_diff_against_the_configured_baseline() {
    let project = support::Project::copy_of_repo();
    let root = project.root.path();
    assert!(
        !project_builds_page(&project, "changes/index.html"),
        "no baseline, no page"
    );
    assert!(!project.page("index.html").contains("/changes/"));

    std::fs::copy(
        root.join("data/results.json"),
        root.join("data/baseline.json"),
    )
    .unwrap();
    std::fs::write(root.join("data/results.json"), data::to_json(&changed())).unwrap();
    let settings = std::fs::read_to_string(root.join("benchsite.toml")).unwrap();
    std::fs::write(
        root.join("benchsite.toml"),
        format!("baseline = \"data/baseline.json\"\n{settings}"),
    )
    .unwrap();
    assert!(project_builds_page(&project, "changes/index.html"));
    let page = project.page("changes/index.html");
    assert!(
        page.contains("4 changed records, 1 added, 1 removed; 3 changes are regressions"),
        "{page}"
    );
    assert_eq!(page.matches("class=\"regression\"").count(), 3, "{page}");
    assert!(page.contains("−28.9, −10.0%"), "{page}");
    assert!(page.contains("failures → new-failure"));
    assert!(project.page("index.html").contains("href=\"/changes/\""));
}

/// Builds the project; whether the site has `page`.
fn project_builds_page(project: &support::Project, page: &str) -> bool {
    let output = project.run(&["build"]);
    output.assert_success();
    project.root.path().join("site").join(page).exists()
}

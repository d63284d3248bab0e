//! `benchsite check` over the malformed-document corpus in tests/fixtures/invalid: every
//! defect is reported with its place and substance, and nothing is written.

mod support;

use std::path::Path;

use benchsite::data::{self, Results};
use support::Project;

/// Whether the schema and the Rust types both reject a fixture (a defect of shape), or both
/// accept it and only the checks beyond the schema catch it.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Defect {
    /// Not JSON at all: neither schema nor types see it.
    Syntax,
    /// The shape is wrong: schema and types both reject it.
    Shape,
    /// The schema rejects a value the types alone would take (a range or format rule).
    SchemaRule,
    /// Well-shaped, wrong in substance: only the checks reject it.
    Check,
    /// Well-shaped and self-consistent, wrong against the rest of the project.
    Project,
}

struct Case {
    file: &'static str,
    defect: Defect,
    /// The pointer the first problem names (empty for the whole document).
    pointer: &'static str,
    /// Line and column the first problem is placed at.
    position: (usize, usize),
    /// Words the report must contain.
    says: &'static [&'static str],
}

const CASES: &[Case] = &[
    Case {
        file: "wrong-type",
        defect: Defect::Shape,
        pointer: "/runs/0/decode_tok_s",
        position: (46, 7),
        says: &["expected a number", "found a string, \"289.0\""],
    },
    Case {
        file: "missing-required-field",
        defect: Defect::Shape,
        pointer: "/runs/0/model",
        position: (31, 5),
        says: &[
            "expected the required key \"model\"",
            "runs → qwen36-moe-default",
        ],
    },
    Case {
        file: "unknown-top-level-key",
        defect: Defect::Shape,
        pointer: "/runz",
        position: (336, 3),
        says: &["did you mean \"runs\"?", "found unknown key \"runz\""],
    },
    Case {
        file: "unknown-key-in-record",
        defect: Defect::Shape,
        pointer: "/runs/0/decode_toks",
        position: (58, 7),
        says: &[
            "did you mean \"decode_tok_s\"?",
            "unknown key \"decode_toks\"",
        ],
    },
    Case {
        file: "unknown-key-in-nested-block",
        defect: Defect::Shape,
        pointer: "/divergence/0/teacher_forced/kld_p95",
        position: (301, 9),
        says: &["unknown key \"kld_p95\""],
    },
    Case {
        file: "bad-enum-value",
        defect: Defect::Shape,
        pointer: "/failures/0/status",
        position: (94, 7),
        says: &[
            "expected one of \"not_attempted\", \"oom_at_startup\"",
            "\"oom\"",
        ],
    },
    Case {
        file: "missing-nullable-field",
        defect: Defect::Shape,
        pointer: "/divergence/0/generation/first_divergence_p10",
        position: (302, 7),
        says: &["the required key \"first_divergence_p10\""],
    },
    Case {
        file: "top-level-array",
        defect: Defect::Shape,
        pointer: "",
        position: (1, 1),
        says: &["expected an object", "found an array"],
    },
    Case {
        file: "schema-version-3",
        defect: Defect::Shape,
        pointer: "/schema_version",
        position: (2, 3),
        says: &["expected 2", "found a number, 3"],
    },
    Case {
        file: "bad-date",
        defect: Defect::Shape,
        pointer: "/generated",
        position: (3, 3),
        says: &["a calendar date written YYYY-MM-DD", "\"2026-02-30\""],
    },
    Case {
        file: "id-not-a-slug",
        defect: Defect::Shape,
        pointer: "/runs/0/id",
        position: (32, 7),
        says: &["expected a slug", "\"Qwen36 MoE\""],
    },
    Case {
        file: "negative-count",
        defect: Defect::Shape,
        pointer: "/runs/0/kv_tokens",
        position: (55, 7),
        says: &["a number ≥ 0", "-5"],
    },
    Case {
        file: "several-schema-problems",
        defect: Defect::Shape,
        pointer: "/runs/0/decode_tok_s",
        position: (46, 7),
        says: &[
            "(4 problems)",
            "/failures/0/status",
            "/sweeps/0/levels/1/colour",
            "/jitter/0/kld_max",
        ],
    },
    Case {
        file: "acceptance-above-one",
        defect: Defect::SchemaRule,
        pointer: "/runs/1/spec_acceptance",
        position: (86, 7),
        says: &["a number ≤ 1.0", "found a number, 1.39"],
    },
    Case {
        file: "duplicate-id",
        defect: Defect::Check,
        pointer: "/runs/1/id",
        position: (60, 7),
        says: &["id unique among runs (/runs/0 has it already)"],
    },
    Case {
        file: "duplicate-label",
        defect: Defect::Check,
        pointer: "/sweeps/1/label",
        position: (173, 7),
        says: &["label unique among sweeps", "(1 problem)"],
    },
    Case {
        file: "slug-collision",
        defect: Defect::Check,
        pointer: "/sweeps/1/label",
        position: (173, 7),
        says: &["the slug \"qwen3-6-35b-a3b-baseline\" again"],
    },
    Case {
        file: "requests-not-concurrency-times-rounds",
        defect: Defect::Check,
        pointer: "/sweeps/0/levels/1/requests",
        position: (132, 11),
        says: &["concurrency × rounds = 2 × 2 = 4", "found 3"],
    },
    Case {
        file: "succeeded-plus-failed-not-requests",
        defect: Defect::Check,
        pointer: "/sweeps/0/levels/0/failed",
        position: (119, 11),
        says: &["succeeded + failed = requests = 2", "found 2 + 1 = 3"],
    },
    Case {
        file: "decode-not-median",
        defect: Defect::Check,
        pointer: "/runs/0/decode_tok_s",
        position: (46, 7),
        says: &["the median of decode_samples, 289.0", "found 289.5"],
    },
    Case {
        file: "max-concurrency-inconsistent",
        defect: Defect::Check,
        pointer: "/runs/0/max_concurrency",
        position: (56, 7),
        says: &[
            "kv_tokens / max_model_len = 370189 / 65536 = 5.65",
            "found 6.65",
        ],
    },
    Case {
        file: "percentiles-out-of-order",
        defect: Defect::Check,
        pointer: "/divergence/0/teacher_forced/kld_p99",
        position: (215, 9),
        says: &["a value ≥ kld_p90 (0.013553)", "found 0.001"],
    },
    Case {
        file: "ci-not-bracketing-mean",
        defect: Defect::Check,
        pointer: "/divergence/0/teacher_forced/kld_mean_ci95",
        position: (229, 9),
        says: &["an interval containing kld_mean (0.004865)", "[0.01, 0.02]"],
    },
    Case {
        file: "per-prompt-sums-not-the-prompts",
        defect: Defect::Check,
        pointer: "/divergence/0/teacher_forced/per_prompt",
        position: (233, 9),
        says: &["one entry per prompt compared (96)", "1 entry"],
    },
    Case {
        file: "spec-acceptance-without-spec-decode",
        defect: Defect::Check,
        pointer: "/runs/0/spec_acceptance",
        position: (58, 7),
        says: &["no spec_acceptance, since spec_decode is false"],
    },
    Case {
        file: "level-status-contradicts-counts",
        defect: Defect::Check,
        pointer: "/sweeps/0/levels/0/status",
        position: (120, 11),
        says: &["\"ok\", since some requests succeeded", "found \"failed\""],
    },
    Case {
        file: "first-divergence-without-divergence",
        defect: Defect::Check,
        pointer: "/divergence/0/generation/first_divergence_p10",
        position: (324, 9),
        says: &["null, since no prompt diverged", "found 14.0"],
    },
    Case {
        file: "identical-plus-diverged-not-prompts",
        defect: Defect::Check,
        pointer: "/divergence/0/generation/diverged",
        position: (323, 9),
        says: &["identical + diverged = prompts = 96", "found 6 + 80 = 86"],
    },
    Case {
        file: "levels-not-increasing",
        defect: Defect::Check,
        pointer: "/sweeps/0/levels/2/concurrency",
        position: (146, 11),
        says: &["a concurrency above the previous level's 2"],
    },
    Case {
        file: "several-check-problems",
        defect: Defect::Check,
        pointer: "/runs/0/decode_tok_s",
        position: (46, 7),
        says: &["(3 problems)", "/runs/1/max_concurrency", "/failures/1/id"],
    },
    Case {
        file: "profile-does-not-exist",
        defect: Defect::Project,
        pointer: "/runs/0/profile",
        position: (34, 7),
        says: &[
            "the name of a profile in",
            "qwen3.6-35b-a3b",
            "found \"qwen3.6-35b\"",
        ],
    },
    Case {
        file: "run-disagrees-with-profile",
        defect: Defect::Project,
        pointer: "/runs/0/max_model_len",
        position: (42, 7),
        says: &["65536, as profile qwen3.6-35b-a3b gives", "found 32768"],
    },
    Case {
        file: "duplicate-key",
        defect: Defect::Syntax,
        pointer: "",
        position: (47, 20),
        says: &["duplicate field `decode_tok_s`"],
    },
    Case {
        file: "truncated",
        defect: Defect::Syntax,
        pointer: "",
        position: (152, 3),
        says: &["it ends too early"],
    },
    Case {
        file: "empty",
        defect: Defect::Syntax,
        pointer: "",
        position: (1, 1),
        says: &["found an empty file"],
    },
    Case {
        file: "not-utf8",
        defect: Defect::Syntax,
        pointer: "",
        position: (14, 23),
        says: &["expected UTF-8 text", "the byte 0xFF"],
    },
    Case {
        file: "nan",
        defect: Defect::Syntax,
        pointer: "",
        position: (46, 23),
        says: &["JSON has no NaN or Infinity", "found NaN"],
    },
    Case {
        file: "trailing-comma",
        defect: Defect::Syntax,
        pointer: "",
        position: (58, 5),
        says: &["expected valid JSON", "trailing comma"],
    },
];

/// A defective document: `<name>.patch` applied to the corpus's valid base, or `<name>.json`
/// where the defect is the whole file (an empty one).
fn fixture(name: &str) -> Vec<u8> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/invalid");
    let whole = dir.join(format!("{name}.json"));
    if whole.exists() {
        return std::fs::read(&whole).unwrap();
    }
    let path = dir.join(format!("{name}.patch"));
    let text = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let patch =
        diffy::Patch::from_bytes(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    diffy::apply_bytes(&support::valid_minimal(), &patch)
        .unwrap_or_else(|e| panic!("{}: does not apply to minimal.json: {e}", path.display()))
}

#[test]
fn the_corpus_is_complete() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/invalid");
    let mut files: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            e.unwrap()
                .path()
                .file_stem()
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    files.sort();
    let mut named: Vec<String> = CASES.iter().map(|case| case.file.to_owned()).collect();
    named.sort();
    assert_eq!(
        files, named,
        "every fixture has a case and every case a fixture"
    );
    assert!(CASES.len() >= 20);
}

#[test]
fn the_base_of_the_corpus_is_valid() {
    let project = Project::with_results(&support::valid_minimal());
    let output = project.run(&["check"]);
    output.assert_success();
    assert!(
        output.stdout.contains("2 runs, 1 failures"),
        "{}",
        output.stdout
    );
}

#[test]
fn every_defect_is_reported_with_its_place_and_nothing_is_written() {
    let mut failures = Vec::new();
    for case in CASES {
        let bytes = fixture(case.file);
        let project = Project::with_results(&bytes);
        let before = project.snapshot();
        let output = project.run(&["check"]);
        let report = &output.stderr;
        let mut wrong = Vec::new();
        if output.status.code() != Some(1) {
            wrong.push(format!("exit status {:?}", output.status.code()));
        }
        let place = format!("data/results.json:{}:{}", case.position.0, case.position.1);
        let first = report
            .lines()
            .find(|line| line.trim_start().starts_with("at "))
            .unwrap_or_default();
        if !first.ends_with(&place) {
            wrong.push(format!("first problem at {first:?}, expected {place}"));
        }
        if !case.pointer.is_empty()
            && !report.contains(&format!(": {}\n", case.pointer))
            && !report.contains(&format!("  {}\n", case.pointer))
        {
            wrong.push(format!("pointer {} not named", case.pointer));
        }
        for words in case.says {
            if !report.contains(words) {
                wrong.push(format!("does not say {words:?}"));
            }
        }
        if project.snapshot() != before {
            wrong.push("the project changed".into());
        }
        if !wrong.is_empty() {
            failures.push(format!("{}: {}\n{report}", case.file, wrong.join("; ")));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The schema is derived from the types; on this corpus they must agree on what a
/// well-shaped document is.
#[test]
fn schema_and_types_agree_on_the_corpus() {
    let schema = jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .should_validate_formats(true)
        .build(data::schema())
        .unwrap();
    let mut disagreements = Vec::new();
    let seed =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("data/results.json"))
            .unwrap();
    let mut documents: Vec<(&str, Vec<u8>, Defect)> = CASES
        .iter()
        .map(|case| (case.file, fixture(case.file), case.defect))
        .collect();
    documents.push(("seed", seed.into_bytes(), Defect::Project));
    documents.push(("minimal", support::valid_minimal(), Defect::Project));
    for (name, bytes, defect) in documents {
        let Ok(value) = serde_json::from_slice::<serde_json::Value>(&bytes) else {
            assert_eq!(defect, Defect::Syntax, "{name} is not JSON");
            continue;
        };
        let schema_accepts = schema.is_valid(&value);
        let types_accept = serde_json::from_value::<Results>(value).is_ok();
        let expected = match defect {
            Defect::Syntax => continue,
            Defect::Shape => (false, false),
            Defect::SchemaRule => (false, true),
            Defect::Check | Defect::Project => (true, true),
        };
        if (schema_accepts, types_accept) != expected {
            disagreements.push(format!(
                "{name}: schema accepts {schema_accepts}, types accept {types_accept}, expected {expected:?}"
            ));
        }
    }
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));
}

/// A document that is well-shaped but fails its checks cannot be saved over a good one.
#[test]
fn the_atomic_save_refuses_every_checked_defect() {
    for case in CASES.iter().filter(|case| case.defect == Defect::Check) {
        let doc: Results = serde_json::from_slice(&fixture(case.file)).unwrap();
        let project = Project::with_results(&support::valid_minimal());
        let path = project.root.path().join("data/results.json");
        let before = project.snapshot();
        let error = data::save(&path, &doc, &data::no_more_checks).expect_err(case.file);
        assert!(
            error.to_string().contains(case.pointer),
            "{}: {error}",
            case.file
        );
        assert_eq!(
            project.snapshot(),
            before,
            "{}: the save changed the project",
            case.file
        );
    }
}

#[test]
fn a_version_1_document_loads_as_version_2_and_its_next_write_stores_version_2() {
    let v1 = std::fs::read(support::repo().join("tests/fixtures/valid/seed-v1.json")).unwrap();
    let upgraded = data::parse(Path::new("seed-v1.json"), &v1).unwrap();
    let mut shipped = data::load(&support::repo().join("data/results.json")).unwrap();
    // Version 1's `weights_gb` of the runs came from vLLM's "Model loading took 21.9 GiB":
    // GiB already, renamed only.
    assert_eq!(upgraded.runs[0].weights_gib, Some(21.9));
    // The BF16 failure's 55.6 was GB (27.8 billion parameters × 2 bytes): 55.6 × 10⁹ / 2³⁰
    // = 51.782 GiB.
    let bf16 = upgraded
        .failures
        .iter()
        .find(|f| f.id.as_str() == "qwen38-bf16")
        .unwrap();
    assert_eq!(bf16.weights_gib, Some(51.782));
    // The shipped document is the seed upgraded, its one mixed-unit sentence rewritten.
    let reason = |doc: &mut Results| {
        let failure = doc
            .failures
            .iter_mut()
            .find(|f| f.id.as_str() == "qwen38-bf16")
            .unwrap();
        std::mem::take(&mut failure.reason)
    };
    let mut upgraded = upgraded;
    assert!(reason(&mut upgraded).starts_with("55.6 GB of weights against 31.4 GiB"));
    assert!(reason(&mut shipped).starts_with("51.8 GiB of weights against 31.4 GiB"));
    assert_eq!(upgraded, shipped);

    // In a project: `check` takes it, and the next write stores version 2 with nothing lost.
    let project = Project::with_results(&v1);
    let check = project.run(&["check"]);
    check.assert_success();
    let said = format!("{}{}", check.stdout, check.stderr);
    assert!(
        said.contains("data/results.json is of an earlier schema version, read as version 2"),
        "{said}"
    );
    // The site offers the document as version 2 stores it.
    project.run(&["build"]).assert_success();
    let offered = project.page("data/results.json");
    assert!(
        offered.contains("\"schema_version\": 2") && offered.contains("\"weights_gib\": 51.782")
    );
    assert!(!offered.contains("weights_gb"));
    project
        .run(&[
            "collect",
            "failure",
            "--id",
            "by-hand",
            "--checkpoint",
            "x/y",
            "--precision",
            "BF16",
            "--status",
            "not_attempted",
            "--weights-gib",
            "40",
            "--reason",
            "too large",
        ])
        .assert_success();
    let text = std::fs::read_to_string(project.root.path().join("data/results.json")).unwrap();
    assert!(text.contains("\"schema_version\": 2"));
    assert!(!text.contains("weights_gb"));
    let written = project.results();
    assert_eq!(
        written.runs,
        data::parse(Path::new("v1"), &v1).unwrap().runs
    );
    assert_eq!(written.failures.last().unwrap().weights_gib, Some(40.0));
}

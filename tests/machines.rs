//! Several machines in one report: a three-machine project made from the seed and two altered
//! copies (`benches/common`): machine pages, cross-machine pairs, keys unique across the
//! machines, and collection into one machine's document.

#[path = "../benches/common/mod.rs"]
mod common;
mod support;

use support::Project;

/// A built three-machine project.
fn three_machines() -> Project {
    let project = Project::copy_of_repo();
    common::three_machines(project.root.path(), &common::seed());
    std::fs::remove_file(project.root.path().join("data/results.json")).ok();
    project
}

fn built() -> Project {
    let project = three_machines();
    project.run(&["build"]).assert_success();
    project
}

#[test]
fn every_machine_has_a_page_with_its_hardware_and_records() {
    let project = built();
    let seed = common::seed();
    let seed_gpu = seed.hardware.gpu.clone().unwrap();
    for (slug, _, gpu, _) in common::MACHINES {
        let page = project.page(&format!("hardware/{slug}/index.html"));
        let gpu = if gpu.is_empty() { &seed_gpu } else { gpu };
        assert!(page.contains(gpu), "{slug}: no {gpu}");
        assert!(
            page.contains(&seed.software.vllm.clone().unwrap()),
            "{slug}"
        );
        // Its runs, and only its runs.
        let suffix = match slug {
            "rtx-5090" => String::new(),
            other => format!("-{}", other.trim_start_matches("rtx-")),
        };
        for run in &seed.runs {
            let id = format!("{}{suffix}", run.id);
            assert!(
                page.contains(&format!("id=\"run-{id}\"")),
                "{slug}: no run {id}"
            );
        }
        assert_eq!(
            page.matches("<tr id=\"run-").count(),
            seed.runs.len(),
            "{slug}"
        );
        assert!(
            page.contains(&format!("/data/{slug}/results.json")),
            "{slug}"
        );
    }
    let home = project.page("index.html");
    // The decision ranks per machine, in the machines' order, each row naming the machine:
    // the seed's answer (Nemotron at c32, 2652.4 tok/s; Qwen3.6 seqs 32 at c32, 2546.4;
    // Qwen3.8 CUDA graphs at c8, 391.5), on the 4090 at half the speed (every per-user rate
    // stays over 20 tok/s), on the next vLLM at twice.
    let decision = &home[home.find("<section id=\"decision\"").unwrap()..];
    let decision = &decision[..decision.find("</tbody>").unwrap()];
    let ranked: Vec<(&str, &str)> = decision
        .split("<tr><td class=\"num\" data-label=\"#\">")
        .skip(1)
        .map(|row| {
            let rank = &row[..row.find('<').unwrap()];
            let strong = &row[row.find("<strong>").unwrap() + 8..];
            (rank, &strong[..strong.find('<').unwrap()])
        })
        .collect();
    assert_eq!(
        ranked,
        [
            ("1", "1326.2"),
            ("2", "1273.2"),
            ("3", "195.8"),
            ("1", "2652.4"),
            ("2", "2546.4"),
            ("3", "391.5"),
            ("1", "5304.8"),
            ("2", "5092.8"),
            ("3", "783.0"),
        ]
    );
    assert!(decision.contains("<td data-label=\"Machine\">NVIDIA GeForce RTX 4090</td>"));
    for (slug, ..) in common::MACHINES {
        assert!(
            home.contains(&format!("href=\"/hardware/{slug}/\"")),
            "{slug}"
        );
    }
    let run = project.page("runs/qwen36-moe-default-4090/index.html");
    assert!(
        run.contains("Measured on <a href=\"/hardware/rtx-4090/\">NVIDIA GeForce RTX 4090</a>"),
        "the run page names its machine"
    );
    let sweep = project.page("sweeps/qwen3-6-35b-a3b-baseline-5090-next/index.html");
    assert!(sweep.contains("Measured on <a href=\"/hardware/rtx-5090-next/\">"));
    // The frontier spans the machines: each level names the one it was measured on.
    let sweeps = project.page("sweeps/index.html");
    let level = &sweeps[sweeps
        .find("<tr id=\"level-qwen3-6-35b-a3b-baseline-5090-next-c8\"")
        .expect("the level is on the frontier's table")..];
    let level = &level[..level.find("</tr>").unwrap()];
    assert!(
        level.contains("<a href=\"/hardware/rtx-5090-next/\">"),
        "{level}"
    );
    assert!(sweeps.contains("qwen3.6-35b-a3b baseline 5090-next at concurrency 8 on "));
    // Each machine's document is published as it is, and the CSVs say the machine.
    let published =
        std::fs::read(project.root.path().join("site/data/rtx-4090/results.json")).unwrap();
    assert_eq!(
        published,
        std::fs::read(project.root.path().join("data/rtx-4090.json")).unwrap()
    );
    let runs_csv = std::fs::read_to_string(project.root.path().join("site/data/runs.csv")).unwrap();
    assert!(runs_csv.starts_with("machine,id,"), "{runs_csv}");
    assert!(runs_csv.contains("\nrtx-4090,qwen36-moe-default-4090,"));
    assert_eq!(runs_csv.lines().count(), 1 + 3 * seed.runs.len());
}

#[test]
fn the_same_configuration_on_two_machines_is_a_pair_with_the_machine_as_its_knob() {
    let project = built();
    let page = project.page("ablations/index.html");
    let row_of = |id: &str| {
        let start = page
            .find(&format!("<tr id=\"{id}\""))
            .unwrap_or_else(|| panic!("no row {id}"));
        page[start..].split("</tr>").next().unwrap().to_owned()
    };
    // 289.0 tok/s on the 5090, half on the 4090, twice on the next: B / A per pair.
    let row = row_of("run-qwen36-moe-default-4090-vs-qwen36-moe-default");
    assert!(row.contains("machine: rtx-4090 → rtx-5090"), "{row}");
    assert!(row.contains(">144.5<") && row.contains(">289.0<"), "{row}");
    assert!(row.contains(">2.00×<"), "{row}");
    let row = row_of("run-qwen36-moe-default-4090-vs-qwen36-moe-default-5090-next");
    assert!(row.contains(">4.00×<"), "{row}");
    // Sweeps: the next machine twice as fast at every level, so its peak is 2.00× as high; the
    // pair is past the 12 drawn, so it is a row of the sweep pairs' table, its anchor there.
    let row = row_of("sweep-qwen3-6-35b-a3b-baseline-vs-qwen3-6-35b-a3b-baseline-5090-next");
    assert!(row.contains("machine: rtx-5090 → rtx-5090-next"), "{row}");
    assert!(row.contains(">2.00×<"), "{row}");
    assert_eq!(page.matches("<section id=\"sweep-").count(), 12);
    // Each machine page links to its pairs.
    let machine = project.page("hardware/rtx-4090/index.html");
    assert!(machine.contains("/ablations/#run-qwen36-moe-default-4090-vs-qwen36-moe-default\""));
}

#[test]
fn a_key_two_machines_share_is_named_in_both_places() {
    let project = three_machines();
    // The next machine's document with the seed's own ids.
    project.write(
        "data/rtx-5090-next.json",
        &std::fs::read_to_string(support::repo().join("data/results.json")).unwrap(),
    );
    let out = project.run(&["check"]);
    assert!(!out.status.success());
    assert!(
        out.stderr.contains("data/rtx-5090-next.json"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains(
            "a key unique across the project's machines (data/rtx-5090.json has it at /runs/0/id)"
        ),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("\"qwen36-moe-default\" again"),
        "{}",
        out.stderr
    );
    let build = project.run(&["build"]);
    assert!(!build.status.success());
    assert!(!project.root.path().join("site").exists());
}

#[test]
fn collect_machine_writes_into_that_machines_document() {
    let project = three_machines();
    let before = |file: &str| std::fs::read(project.root.path().join(file)).unwrap();
    let (others, next) = (
        before("data/rtx-5090.json"),
        before("data/rtx-5090-next.json"),
    );
    let failure = |machine: Option<&str>, id: &str| {
        let mut args = vec![
            "collect",
            "failure",
            "--id",
            id,
            "--checkpoint",
            "org/model",
            "--precision",
            "bf16",
            "--status",
            "oom_at_startup",
            "--reason",
            "did not fit",
        ];
        if let Some(machine) = machine {
            args.extend(["--machine", machine]);
        }
        project.run(&args)
    };
    failure(Some("rtx-4090"), "too-big-4090").assert_success();
    let doc = benchsite::data::load(&project.root.path().join("data/rtx-4090.json")).unwrap();
    assert!(doc.failures.iter().any(|f| f.id.as_str() == "too-big-4090"));
    assert_eq!(before("data/rtx-5090.json"), others);
    assert_eq!(before("data/rtx-5090-next.json"), next);

    let out = failure(None, "too-big");
    assert!(!out.status.success());
    assert!(
        out.stderr
            .contains("pass --machine with one of: rtx-4090, rtx-5090, rtx-5090-next"),
        "{}",
        out.stderr
    );
    let out = failure(Some("rtx-3090"), "too-big");
    assert!(
        out.stderr.contains("--machine rtx-3090: no such machine"),
        "{}",
        out.stderr
    );
    // A key another machine has is refused.
    let out = failure(Some("rtx-4090"), "qwen38-bf16");
    assert!(!out.status.success());
    assert!(out.stderr.contains("data/rtx-5090.json"), "{}", out.stderr);
    assert_eq!(before("data/rtx-5090.json"), others);

    // A machine newly declared starts with an empty document.
    let config = std::fs::read_to_string(project.root.path().join("benchsite.toml")).unwrap();
    project.write(
        "benchsite.toml",
        &format!("{config}\n[machines.a100]\ndata = \"data/a100.json\"\n"),
    );
    failure(Some("a100"), "too-big-a100").assert_success();
    let doc = benchsite::data::load(&project.root.path().join("data/a100.json")).unwrap();
    assert_eq!(doc.failures.len(), 1);
    project.run(&["build"]).assert_success();
    assert!(
        project
            .page("hardware/a100/index.html")
            .contains("collect hardware --machine a100")
    );
}

#[test]
fn changes_and_diff_work_per_machine() {
    let project = three_machines();
    // The 4090's baseline: its document before the first run got slower.
    let mut doc = benchsite::data::load(&project.root.path().join("data/rtx-4090.json")).unwrap();
    let baseline = benchsite::data::to_json(&doc);
    project.write("data/rtx-4090-old.json", &baseline);
    let run = &mut doc.runs[0];
    run.decode_tok_s /= 2.0;
    run.decode_cold_sample = run.decode_cold_sample.map(|cold| cold / 2.0);
    for sample in &mut run.decode_samples {
        *sample /= 2.0;
    }
    project.write("data/rtx-4090.json", &benchsite::data::to_json(&doc));
    let config = std::fs::read_to_string(project.root.path().join("benchsite.toml")).unwrap();
    project.write(
        "benchsite.toml",
        &config.replace(
            "data = \"data/rtx-4090.json\"\n",
            "data = \"data/rtx-4090.json\"\nbaseline = \"data/rtx-4090-old.json\"\n",
        ),
    );
    project.run(&["build"]).assert_success();
    let page = project.page("changes/index.html");
    assert!(page.contains("<section id=\"rtx-4090-changes\">"), "{page}");
    assert!(page.contains("href=\"/hardware/rtx-4090/\""));
    assert!(
        page.contains("id=\"rtx-4090-runs-qwen36-moe-default-4090\""),
        "{page}"
    );
    assert!(page.contains("144.5") && page.contains("72.25"), "{page}");
    assert!(!page.contains("rtx-5090-changes"));

    // OLD is a path from the shell's folder; NEW is the machine's document in the project.
    let old = project.root.path().join("data/rtx-4090-old.json");
    let out = project.run(&["diff", old.to_str().unwrap(), "--machine", "rtx-4090"]);
    out.assert_success();
    assert!(
        out.stdout.contains("runs → qwen36-moe-default-4090"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("decode_tok_s: 144.5 → 72.25"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("REGRESSION"), "{}", out.stdout);
}

#[test]
fn a_report_without_machines_has_no_machine_pages() {
    let project = Project::copy_of_repo();
    project.run(&["build"]).assert_success();
    assert!(!project.root.path().join("site/hardware").exists());
    let run = project.page("runs/qwen36-moe-default/index.html");
    assert!(!run.contains("Measured on"));
    assert!(
        project
            .page("index.html")
            .contains("<section id=\"hardware\">")
    );
}

#[test]
fn a_machine_page_holds_its_hardware_notes_and_tables_name_their_machine() {
    let project = three_machines();
    project.write(
        "content/hardware/rtx-4090.md",
        "The 4090 sits in a rack with {{ run(id=\"qwen36-moe-default-4090\", field=\"decode_tok_s\") }} on the MoE.\n",
    );
    project.write(
        "content/method.md",
        "# Method\n\n{{ software_table(machine=\"rtx-5090-next\") }}\n",
    );
    project.run(&["build"]).assert_success();
    let page = project.page("hardware/rtx-4090/index.html");
    assert!(
        page.contains("The 4090 sits in a rack with"),
        "the narrative"
    );
    assert!(page.contains("144.5"), "{page}");
    assert!(project.page("method/index.html").contains("vLLM"));

    // With several machines, a table of one machine must say which.
    project.write("content/method.md", "# Method\n\n{{ hardware_table() }}\n");
    let out = project.run(&["build"]);
    assert!(!out.status.success());
    assert!(
        out.stderr.contains(
            "hardware_table: this report has several machines; pass machine with one of: rtx-4090, rtx-5090, rtx-5090-next"
        ),
        "{}",
        out.stderr
    );
    project.write("content/method.md", "# Method\n");
    project.write("content/hardware/rtx-3090.md", "Not here.\n");
    let out = project.run(&["build"]);
    assert!(
        out.stderr.contains("content/hardware/rtx-3090.md"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("no machine \"rtx-3090\" in the report's data; expected one of: rtx-4090, rtx-5090, rtx-5090-next"),
        "{}",
        out.stderr
    );
}

#[test]
fn the_tables_filter_by_machine_and_the_search_finds_machine_pages() {
    let project = built();
    let seed = common::seed();
    for page in ["runs/index.html", "sweeps/index.html", "quality/index.html"] {
        let html = project.page(page);
        let select = html
            .split("<select name=\"machine\">")
            .nth(1)
            .unwrap_or_else(|| panic!("{page}: no machine filter"));
        let select = &select[..select.find("</select>").unwrap()];
        for (slug, ..) in common::MACHINES {
            assert!(
                select.contains(&format!("<option value=\"{slug}\">")),
                "{page}: {slug}"
            );
        }
        for (slug, ..) in common::MACHINES {
            assert!(
                html.contains(&format!("data-machine=\"{slug}\"")),
                "{page}: {slug}"
            );
        }
    }
    let meta: serde_json::Value =
        serde_json::from_str(&project.page("search/data/meta.json")).unwrap();
    let models = std::fs::read_dir(project.root.path().join("site/models"))
        .unwrap()
        .filter(|entry| entry.as_ref().unwrap().path().is_dir())
        .count();
    let per_machine =
        seed.runs.len() + seed.sweeps.len() + seed.divergence.len() + seed.failures.len();
    assert_eq!(
        meta["pages"],
        3 * per_machine + models + common::MACHINES.len()
    );
}

/// A machine declared in benchsite.toml that nothing has measured yet has no document: the
/// project checks clean and builds, the machine with no records, and `check` says why.
#[test]
fn a_declared_machine_without_a_document_checks_clean() {
    let project = three_machines();
    std::fs::remove_file(project.root.path().join("data/rtx-4090.json")).unwrap();
    let check = project.run(&["check"]);
    check.assert_success();
    assert!(
        check.stderr.contains(
            "warning: data/rtx-4090.json does not exist yet: machine rtx-4090 has no records until something measured there writes it"
        ),
        "{}",
        check.stderr
    );
    assert!(
        check.stdout.contains(
            "data/rtx-4090.json: 0 runs, 0 failures, 0 sweeps (0 levels), 0 jitter, 0 divergence"
        ),
        "{}",
        check.stdout
    );
    project.run(&["build"]).assert_success();
    assert!(
        !project.root.path().join("data/rtx-4090.json").exists(),
        "checking and building create no document"
    );
}

//! Reports that grow: record pages show a bounded handful of related records and link to the
//! model page, which lists them all; index charts stay bounded.

#[path = "../benches/common/mod.rs"]
mod common;
mod support;

use support::{Project, walk};

/// The `<li>` count of every `<ul class="links">` list of a page.
fn list_lengths(html: &str) -> Vec<usize> {
    html.split("<ul class=\"links\">")
        .skip(1)
        .map(|list| list.split("</ul>").next().unwrap().matches("<li>").count())
        .collect()
}

#[test]
fn record_pages_stay_bounded_as_the_report_grows() {
    let times = 8;
    let doc = common::scaled(&common::seed(), times);
    let project = Project::copy_of_repo();
    project.write("data/results.json", &benchsite::data::to_json(&doc));
    project.run(&["build"]).assert_success();
    let site = project.root.path().join("site");
    let mut record_pages = 0;
    for folder in ["runs", "sweeps", "failures", "quality"] {
        for path in walk(&site.join(folder)) {
            if path.parent().unwrap() == site.join(folder) {
                continue; // the index page
            }
            let html = std::fs::read_to_string(&path).unwrap();
            for length in list_lengths(&html) {
                assert!(length <= 5, "{}: a list of {length}", path.display());
            }
            record_pages += 1;
        }
    }
    assert_eq!(
        record_pages,
        doc.runs.len() + doc.sweeps.len() + doc.failures.len() + doc.divergence.len()
    );
    // A run's page: five sweeps of its model, and the rest on the model page.
    let run = project.page("runs/qwen36-moe-default/index.html");
    let model = &doc.runs[0].model;
    let sweeps = doc.sweeps.iter().filter(|s| &s.model == model).count();
    assert!(sweeps > 5);
    assert!(
        run.contains(&format!("all {sweeps} sweeps of {model} on its page")),
        "{run}"
    );
    let model_page = project.page("models/qwen3-6-35b-a3b/index.html");
    let runs = doc.runs.iter().filter(|r| &r.model == model).count();
    assert_eq!(model_page.matches("<tr id=\"run-").count(), runs);
    assert_eq!(model_page.matches("<tr id=\"sweep-").count(), sweeps);
}

#[test]
fn index_charts_draw_a_bounded_number_of_series() {
    let doc = common::scaled(&common::seed(), 6);
    let project = Project::copy_of_repo();
    project.write("data/results.json", &benchsite::data::to_json(&doc));
    project.run(&["build"]).assert_success();
    let sweeps = project.page("sweeps/index.html");
    // The overlays are a set per workload, each saying how many of its sweeps it draws.
    let at = |prompt: &str, output: u64| {
        doc.sweeps
            .iter()
            .filter(|s| s.dimensions.get("prompt").map(String::as_str) == Some(prompt))
            .filter(|s| s.workload.output_tokens == output)
            .count()
    };
    assert!(
        sweeps.contains(&format!(
            "the 16 most recent of {} sweeps at 786 tokens in, 256 tokens out",
            at("786 tok", 256)
        )),
        "the overlay says what it leaves out"
    );
    let home = project.page("index.html");
    assert!(home.contains(&format!("the 30 most recent of {}", doc.runs.len())));
    // Every run is still in the table.
    assert_eq!(home.matches("<tr id=\"run-").count(), doc.runs.len());
}

/// The seed with run `qwen36-moe-default` and sweep `qwen3.6-35b-a3b baseline` measured
/// `times` times in all, one night apart, as a nightly campaign would.
fn measured_nightly(times: usize) -> benchsite::data::Results {
    let mut doc = common::seed();
    let run = doc.runs[0].clone();
    let sweep = doc
        .sweeps
        .iter()
        .find(|s| s.label == "qwen3.6-35b-a3b baseline")
        .unwrap()
        .clone();
    for night in 1..times {
        let date = benchsite::data::Date::new(&format!(
            "2027-{:02}-{:02}",
            night / 28 + 1,
            night % 28 + 1
        ))
        .unwrap();
        let mut again = run.clone();
        again.id = benchsite::data::Id::new(&format!("{}-night-{night}", run.id)).unwrap();
        again.generated = date.clone();
        doc.runs.push(again);
        let mut again = sweep.clone();
        again.label = format!("{} night {night}", sweep.label);
        again.generated = date;
        doc.sweeps.push(again);
    }
    doc
}

/// The option of the chart named `name` on the page at `page` (a path under `site/`): in the
/// page, or in the file its `data-option` names, which the page fetches when it loads.
fn chart_option(project: &Project, page: &str, name: &str) -> String {
    let html = project.page(page);
    let figure = &html[html
        .find(&format!("data-name=\"{name}\""))
        .unwrap_or_else(|| panic!("{page} has no chart {name}"))..];
    let figure = &figure[..figure.find("</figure>").unwrap()];
    match figure.split("data-option=\"").nth(1) {
        Some(src) => project.page(src[..src.find('"').unwrap()].trim_start_matches('/')),
        None => {
            let inline = figure
                .split("<script type=\"application/json\">")
                .nth(1)
                .unwrap();
            inline[..inline.find("</script>").unwrap()].to_owned()
        }
    }
}

#[test]
fn a_record_page_weighs_the_same_however_often_its_configuration_was_measured() {
    let mut decisions: Vec<usize> = Vec::new();
    let mut speed_quality: Vec<(usize, usize)> = Vec::new();
    let sizes: Vec<(usize, usize)> = [1, 10, 100]
        .iter()
        .map(|&times| {
            let project = Project::copy_of_repo();
            project.write(
                "data/results.json",
                &benchsite::data::to_json(&measured_nightly(times)),
            );
            project.run(&["build"]).assert_success();
            if times == 100 {
                // The oldest measurement's page shows itself, marked, then the 7 latest; the
                // latest's, the 8 latest.
                let oldest = project.page("runs/qwen36-moe-default/index.html");
                assert!(oldest.contains("this measurement and the 7 most recent of 100"));
                assert!(oldest.contains("<tr class=\"current\">"));
                assert!(oldest.contains(">qwen36-moe-default (this page)</a>"));
                let trend = &oldest[oldest.find("<section id=\"history\">").unwrap()..];
                let trend = &trend[..trend.find("</section>").unwrap()];
                assert_eq!(trend.matches("<tr").count(), 1 + 8, "a heading and 8 rows");
                // Nights 93 to 99 are the 7 latest of nights 1 to 99.
                assert!(trend.contains(">qwen36-moe-default-night-93</a>"));
                assert!(!trend.contains(">qwen36-moe-default-night-92</a>"));
                let latest = project.page("runs/qwen36-moe-default-night-99/index.html");
                assert!(latest.contains("its 8 most recent of 100 measurements"));
                assert!(latest.contains(">qwen36-moe-default-night-99 (this page)</a>"));
            }
            // The speed-against-quality chart places each configuration's latest run: the
            // seed's 4 runs with a sound comparison, however often one was measured again.
            let option = chart_option(&project, "quality/index.html", "decode-speed-against-quality-cost");
            speed_quality.push((option.matches("\"url\":").count(), option.len()));
            if times == 100 {
                let quality = project.page("quality/index.html");
                assert!(
                    quality.contains("for 4 runs of 2 models, each model&#39;s noise floor drawn as a band from 0; 99 earlier measurements of a configuration measured again and 1 with a suspect comparison are in the table only"),
                    "the chart says what it leaves to the table"
                );
                // And the table beside it keeps every run with a comparison: the seed's 5 and
                // the 99 nights'.
                assert!(quality.contains("data-rows=\"104\""), "every run in the table");
            }
            let run = project.page("runs/qwen36-moe-default/index.html").len();
            let sweep = project
                .page("sweeps/qwen3-6-35b-a3b-baseline/index.html")
                .len();
            // The decision answers from each configuration's latest measurement.
            for decision in ["decision.json", "models/qwen3-6-35b-a3b/decision.json"] {
                decisions.push(project.page(decision).len());
            }
            (run, sweep)
        })
        .collect();
    // Only the latest night's sweep is in the data file. Its label and URL, and the launch
    // links of the two sweeps of its set-up (to the latest night's run), are longer by
    // " night 9" or "-night-9": 4 × 8 bytes at 10 nights, one digit more each at 100. On the
    // model page the label is also the row's name and key: 6 × 8.
    assert_eq!(decisions[2], decisions[0] + 4 * 8, "{decisions:?}");
    assert_eq!(decisions[4], decisions[2] + 4, "{decisions:?}");
    assert_eq!(decisions[3], decisions[1] + 6 * 8, "{decisions:?}");
    assert_eq!(decisions[5], decisions[3] + 6, "{decisions:?}");
    assert!(
        speed_quality.iter().all(|&(points, _)| points == 4),
        "{speed_quality:?}"
    );
    // Its one point of that configuration is the latest night's, whose name and URL are
    // longer by "-night-9" twice at 10 nights, one digit more each at 100.
    assert_eq!(
        speed_quality[1].1,
        speed_quality[0].1 + 2 * 8,
        "{speed_quality:?}"
    );
    assert_eq!(
        speed_quality[2].1,
        speed_quality[1].1 + 2,
        "{speed_quality:?}"
    );
    eprintln!("run and sweep page bytes at 1, 10 and 100 measurements: {sizes:?}");
    let (first, last) = (sizes[0], sizes[2]);
    // The trend on a record page holds its 8 most recent measurements only: from 1
    // measurement (no history section) to 100, a page gains the section and its 8 points,
    // about 6 KB for the run and 8 KB for the sweep, whose links are longer.
    for (what, one, hundred) in [("run", first.0, last.0), ("sweep", first.1, last.1)] {
        assert!(
            hundred.abs_diff(one) <= 8 * 1024,
            "the {what} page went from {one} to {hundred} bytes"
        );
    }
    // And from 10 measurements to 100 it does not grow at all but for the counts it states.
    assert!(sizes[2].0.abs_diff(sizes[1].0) <= 512, "{sizes:?}");
    assert!(sizes[2].1.abs_diff(sizes[1].1) <= 512, "{sizes:?}");
}

#[test]
fn a_configuration_measured_again_without_a_comparison_keeps_its_linked_run_on_the_chart() {
    // Nights 1 and 2 measure the seed's first run again and link no comparison to it: the
    // configuration's quality cost is still the one its first run was linked to.
    let mut doc = measured_nightly(3);
    for run in doc
        .runs
        .iter_mut()
        .filter(|r| r.id.as_str().contains("-night-"))
    {
        run.quality = None;
    }
    let project = Project::copy_of_repo();
    project.write("data/results.json", &benchsite::data::to_json(&doc));
    project.run(&["build"]).assert_success();
    let option = chart_option(
        &project,
        "quality/index.html",
        "decode-speed-against-quality-cost",
    );
    assert_eq!(option.matches("\"url\":").count(), 4, "{option}");
    assert!(
        option.contains("\"url\":\"/runs/qwen36-moe-default/\""),
        "{option}"
    );
    let quality = project.page("quality/index.html");
    assert!(
        quality.contains("for 4 runs of 2 models, each model&#39;s noise floor drawn as a band from 0; 1 with a suspect comparison are in the table only"),
        "no run of a configuration is left out"
    );
}

#[test]
fn sweeps_and_ablations_draw_a_bounded_number_of_charts_however_many_configurations() {
    // 12 models, each with 18 sweeps, some along a `variant` dimension: dozens of models and
    // workloads, and dozens of one-knob sweep pairs.
    let project = Project::copy_of_repo();
    let doc = common::distinct(&common::seed(), 12, 60);
    project.write("data/results.json", &benchsite::data::to_json(&doc));
    project.run(&["build"]).assert_success();
    let sweeps = project.page("sweeps/index.html");
    // Eight models and workloads drawn; the others linked to their model page's chart.
    assert_eq!(sweeps.matches("<section id=\"frontier-").count(), 8);
    let others = sweeps
        .split("The other models and workloads, each on its model's page:")
        .nth(1)
        .expect("the others are linked");
    let linked = list_lengths(others)[0];
    assert!(linked > 8, "{linked} other models and workloads");
    assert!(
        others.contains("<a href=\"/models/qwen3-6-35b-a3b-no-11/#frontier-qwen3-6-35b-a3b-no-11-")
    );
    // Twelve sweep pairs drawn, every pair in the table, anchored there past the twelfth.
    let ablations = project.page("ablations/index.html");
    assert_eq!(ablations.matches("<section id=\"sweep-").count(), 12);
    let table = ablations
        .split("Sweeps that differ in one setting")
        .nth(1)
        .unwrap();
    let rows: usize = match table.split_once("data-rows=\"") {
        Some((before, after)) if before.len() < 200 => {
            after[..after.find('"').unwrap()].parse().unwrap()
        }
        _ => {
            table
                .split("</table>")
                .next()
                .unwrap()
                .matches("<tr")
                .count()
                - 1
        }
    };
    assert!(rows > 12, "{rows} sweep pairs");
    assert!(ablations.contains("Sweeps</a> ("), "{ablations}");
    assert!(ablations.contains(&format!("({rows} pairs, the first 12 drawn)")));
}

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

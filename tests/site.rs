//! `benchsite build` end to end: the seed's figures on the right pages, every link resolving
//! with and without a base path, escaping, failed builds leaving the old site, determinism.

mod support;

use std::collections::BTreeMap;
use std::path::Path;

use benchsite::data::{self, Results};
use support::{Project, repo, run_benchsite, walk};

fn build(project: &Project, extra: &[&str]) -> support::Output {
    let mut args = vec!["build", "--root", project.root_str()];
    args.extend_from_slice(extra);
    run_benchsite(&args)
}

fn built_seed(extra: &[&str]) -> Project {
    let project = Project::copy_of_repo();
    let output = build(&project, extra);
    output.assert_success();
    project
}

fn seed() -> Results {
    data::load(&repo().join("data/results.json")).unwrap()
}

/// A figure as the report writes it: the number's shortest form, thousands grouped when
/// the integer part is long.
fn shown(value: f64) -> String {
    let text = format!("{value:?}");
    let (int, frac) = text.split_once('.').unwrap_or((&text, ""));
    let int = if int.len() > 4 {
        let mut grouped = String::new();
        for (i, c) in int.chars().enumerate() {
            if i > 0 && (int.len() - i) % 3 == 0 {
                grouped.push(',');
            }
            grouped.push(c);
        }
        grouped
    } else {
        int.to_owned()
    };
    if frac.is_empty() {
        int
    } else {
        format!("{int}.{frac}")
    }
}

fn site_files(project: &Project) -> BTreeMap<String, Vec<u8>> {
    let site = project.root.path().join("site");
    walk(&site)
        .into_iter()
        .map(|path| {
            let bytes = std::fs::read(&path).unwrap();
            (
                path.strip_prefix(&site)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned(),
                bytes,
            )
        })
        .collect()
}

#[test]
fn every_page_kind_exists_at_its_url() {
    let project = built_seed(&[]);
    let doc = seed();
    let files = site_files(&project);
    // Every page names what built it, as Hugo's and Zola's do.
    let generator = format!(
        "<meta name=\"generator\" content=\"benchsite {}\">",
        env!("CARGO_PKG_VERSION")
    );
    for (path, bytes) in &files {
        if path.ends_with(".html") {
            let page = String::from_utf8_lossy(bytes);
            assert!(page.contains(&generator), "{path}");
        }
    }
    let mut expected: Vec<String> = [
        "index.html",
        "runs/index.html",
        "sweeps/index.html",
        "failures/index.html",
        "quality/index.html",
        "method/index.html",
        "search/index.html",
        "search/data/meta.json",
        "404.html",
        "sitemap.xml",
        "robots.txt",
        ".nojekyll",
        "data/results.json",
        "data/runs.csv",
        "data/sweep-levels.csv",
        "data/failures.csv",
        "data/jitter.csv",
        "data/divergence.csv",
        "data/divergence-categories.csv",
        "assets/echarts.min.js",
        "assets/echarts-LICENSE.txt",
        "assets/style.css",
        "assets/benchsite.js",
    ]
    .map(str::to_owned)
    .into();
    expected.extend(doc.runs.iter().map(|r| format!("runs/{}/index.html", r.id)));
    expected.extend(
        doc.failures
            .iter()
            .map(|f| format!("failures/{}/index.html", f.id)),
    );
    expected.extend(
        doc.sweeps
            .iter()
            .map(|s| format!("sweeps/{}/index.html", s.slug())),
    );
    expected.extend(
        doc.divergence
            .iter()
            .map(|d| format!("quality/{}/index.html", d.slug())),
    );
    for path in &expected {
        assert!(files.contains_key(path), "missing {path}");
    }
    assert_eq!(
        files["data/results.json"],
        std::fs::read(repo().join("data/results.json")).unwrap()
    );
    let sitemap = String::from_utf8_lossy(&files["sitemap.xml"]);
    assert!(
        sitemap.contains("<loc>/runs/qwen36-moe-mtp/</loc>"),
        "{sitemap}"
    );
}

#[test]
fn the_seed_figures_are_on_the_right_pages() {
    let project = built_seed(&[]);
    let doc = seed();

    let mtp = project.page("runs/qwen36-moe-mtp/index.html");
    assert!(mtp.contains("<dd>358.0 tok/s</dd>"), "decode speed");
    assert!(
        mtp.contains(
            "<dd>0.39 (39% of drafted tokens accepted, over the decode samples: one prompt, sent again)</dd>"
        ),
        "acceptance"
    );
    assert!(mtp.contains("111,009 tokens"), "KV pool");
    // The KV-pool table's configured row reads as the text above it, and as vLLM logs its
    // maximum concurrency, to two places: 370,189 / 65,536 = 5.6486, 5.65 (not cut to 5.64).
    let default = project.page("runs/qwen36-moe-default/index.html");
    assert!(default.contains("5.65 sequences of the full 65,536-token context"));
    let configured = &default[default.find("<tr class=\"configured\">").unwrap()..];
    let configured = &configured[..configured.find("</tr>").unwrap()];
    assert!(configured.contains(">5.65</td>"), "{configured}");
    // 370,189 / 32,768 = 11.297: 11.3.
    assert!(default.contains(
        "<td data-sort=\"32768\">32,768</td><td data-sort=\"11.297271728515625\">11.3</td>"
    ));
    assert!(mtp.contains("--speculative-config"), "launch command");
    assert!(
        mtp.contains("benchsite collect run --id qwen36-moe-mtp --profile qwen3.6-35b-a3b --set SPEC_DECODE=1 --launch"),
        "reproduce line"
    );
    for sample in ["361.9", "358.0", "355.3", "359.8"] {
        assert!(mtp.contains(&format!(">{sample}<")), "sample {sample}");
    }
    assert!(
        mtp.contains("href=\"/sweeps/qwen3-6-35b-a3b-baseline/\""),
        "related sweep"
    );
    assert!(
        mtp.contains("href=\"/quality/qwen3-6-bf16-kv-mtp/\""),
        "related comparison"
    );

    for run in &doc.runs {
        let page = project.page(&format!("runs/{}/index.html", run.id));
        assert!(
            page.contains(&format!("<dd>{} tok/s</dd>", shown(run.decode_tok_s))),
            "{}",
            run.id
        );
        assert!(
            page.contains(&format!("profiles/{}.env", run.profile)),
            "{}",
            run.id
        );
    }

    for sweep in &doc.sweeps {
        let page = project.page(&format!("sweeps/{}/index.html", sweep.slug()));
        let table = &page[page.find("id=\"levels\"").unwrap()..page.find("id=\"charts\"").unwrap()];
        for level in &sweep.levels {
            let row_start = table
                .find(&format!("<tr id=\"c{}\"", level.concurrency.unwrap()))
                .unwrap_or_else(|| {
                    panic!(
                        "{}: no row for concurrency {:?}",
                        sweep.label, level.concurrency
                    )
                });
            let row = &table[row_start..row_start + table[row_start..].find("</tr>").unwrap()];
            // Each figure to its precision (seconds of TTFT to the millisecond, latency to
            // the hundredth, rates to a tenth), sorted by the value as recorded.
            for (value, decimals) in [
                (level.ttft_p50_s, 3),
                (level.ttft_p95_s, 3),
                (level.decode_tok_s_per_stream, 1),
                (level.total_tok_s, 1),
                (level.latency_p50_s, 2),
                (level.latency_p95_s, 2),
            ]
            .into_iter()
            .filter_map(|(value, decimals)| Some((value?, decimals)))
            {
                // (The seed's figures are all under 10,000, where grouping starts.)
                assert!(value < 10_000.0);
                let text = format!("{value:.decimals$}");
                assert!(
                    // Sorted by its recorded value: given where the text rounds it, else
                    // the text itself.
                    row.contains(&format!("data-sort=\"{value}\""))
                        || (text.parse::<f64>() == Ok(value) && row.contains(&format!(">{text}<"))),
                    "{} c={:?}: {value} not sorted by in {row}",
                    sweep.label,
                    level.concurrency
                );
                // A tail of too few requests is followed by its n, greyed.
                assert!(
                    row.contains(&format!(">{text}<"))
                        || row.contains(&format!(">{text} <small>(p95 of ")),
                    "{} c={:?}: {text} not in {row}",
                    sweep.label,
                    level.concurrency,
                );
            }
        }
    }

    for failure in &doc.failures {
        let page = project.page(&format!("failures/{}/index.html", failure.id));
        assert!(
            page.contains(&benchsite::site::escape(&failure.reason)),
            "{}",
            failure.id
        );
        assert!(page.contains(failure.status.describe()), "{}", failure.id);
    }
    let narrative = project.page("failures/qwen38-mtp-with-vision/index.html");
    assert!(
        narrative.contains("What to do instead"),
        "the failure write-up narrative"
    );

    let home = project.page("index.html");
    for fact in [
        "<dd>30 GiB</dd>",
        "<dd>31.4 GiB</dd>",
        "<dd>32,607 MiB</dd>",
        "<dd>0.28.0</dd>",
    ] {
        assert!(home.contains(fact), "home page lacks {fact}");
    }

    let comparison = project.page("quality/qwen3-6-bf16-kv-mtp/index.html");
    assert!(comparison.contains("Suspect measurement"), "suspect banner");
}

/// The heatmap's cells are the teacher-forced per-category kld_mean of each comparison, in
/// the chart and in the table beside it.
#[test]
fn heatmap_cells_are_the_per_category_means() {
    let project = built_seed(&[]);
    let doc = seed();
    let page = project.page("quality/index.html");
    let start = page.find("<script type=\"application/json\">").unwrap() + 32;
    let end = start + page[start..].find("</script>").unwrap();
    let option: serde_json::Value = serde_json::from_str(&page[start..end]).unwrap();
    let columns: Vec<&str> = option["xAxis"]["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    // The rows in scale, then the suspect rows, out of it.
    let cells: Vec<&serde_json::Value> = (0..2)
        .flat_map(|i| option["series"][i]["data"].as_array().unwrap())
        .collect();
    let expected: usize = doc
        .divergence
        .iter()
        .map(|d| d.teacher_forced.per_category.len())
        .sum();
    assert_eq!(cells.len(), expected);
    for cell in cells {
        let cell = &cell["value"];
        let column = cell[0].as_f64().unwrap() as usize;
        let row = cell[1].as_f64().unwrap() as usize;
        let value = cell[2].as_f64().unwrap();
        let divergence = &doc.divergence[row];
        // Only a suspect row is out of the scale.
        assert_eq!(cell.get(3).is_none(), divergence.suspect.is_some());
        assert_eq!(
            value, divergence.teacher_forced.per_category[columns[column]].kld_mean,
            "{} / {}",
            divergence.label, columns[column]
        );
    }
    // Suspect rows are flagged, floors marked.
    let rows: Vec<&str> = option["yAxis"]["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    for (row, divergence) in rows.iter().zip(&doc.divergence) {
        assert_eq!(row.contains('⚠'), divergence.suspect.is_some(), "{row}");
        assert_eq!(row.contains("(floor)"), divergence.is_floor(), "{row}");
    }
    assert!(page.contains(">0.003105<"), "the table beside the chart");
}

/// Every internal href and src of every page resolves to a file of the site.
fn assert_links_resolve(project: &Project, base_path: &str) {
    let files = site_files(project);
    let mut checked = 0;
    for (path, bytes) in &files {
        if !path.ends_with(".html") {
            continue;
        }
        let html = String::from_utf8_lossy(bytes);
        for attribute in ["href=\"", "src=\""] {
            for piece in html.split(attribute).skip(1) {
                let url = &piece[..piece.find('"').unwrap()];
                if url.starts_with("http") || url.starts_with('#') || url.starts_with("data:") {
                    continue;
                }
                assert!(
                    url.starts_with(base_path),
                    "{path}: {url} is outside {base_path}"
                );
                let inside = url[base_path.len()..].split('#').next().unwrap();
                let target = if inside.is_empty() || inside.ends_with('/') {
                    format!("{inside}index.html")
                } else {
                    inside.to_owned()
                };
                assert!(
                    files.contains_key(&target),
                    "{path}: {url} does not resolve"
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 500, "only {checked} links checked");
}

#[test]
fn links_resolve_at_the_root() {
    assert_links_resolve(&built_seed(&[]), "/");
}

#[test]
fn links_resolve_under_a_project_path() {
    let project = built_seed(&["--base-url", "https://user.github.io/report/"]);
    assert_links_resolve(&project, "/report/");
    let page = project.page("runs/qwen36-moe-mtp/index.html");
    assert!(
        page.contains("<meta property=\"og:url\" content=\"https://user.github.io/report/runs/qwen36-moe-mtp/\">"),
        "Open Graph URL"
    );
    let sitemap = project.page("sitemap.xml");
    assert!(sitemap.contains("<loc>https://user.github.io/report/quality/</loc>"));
}

#[test]
fn two_builds_are_byte_identical() {
    let first = built_seed(&[]);
    let second = built_seed(&[]);
    assert_eq!(site_files(&first), site_files(&second));
    let output = build(&first, &[]);
    output.assert_success();
    assert_eq!(site_files(&first), site_files(&second));
}

/// The pages a build wrote and how many of them it took unchanged from the last build, as
/// it says: `built 48 pages (… files) into … ms (47 unchanged since the last build, …)`.
fn pages_and_unchanged(output: &support::Output) -> (usize, usize) {
    let line = output.stdout.lines().next().unwrap_or_default();
    let number = |after: &str| -> usize {
        let rest = &line[line.find(after).unwrap_or_else(|| panic!("{line}")) + after.len()..];
        rest[..rest.find(' ').unwrap()].parse().unwrap()
    };
    (number("built "), number(" ms ("))
}

/// The pages whose bytes differ between two sites, and those only one has.
fn differing(a: &BTreeMap<String, Vec<u8>>, b: &BTreeMap<String, Vec<u8>>) -> Vec<String> {
    a.keys()
        .chain(b.keys())
        .filter(|path| path.ends_with(".html") && a.get(*path) != b.get(*path))
        .cloned()
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect()
}

#[test]
fn a_rebuild_renders_only_the_pages_whose_inputs_changed() {
    let project = built_seed(&[]);
    let first = site_files(&project);
    // Nothing changed: every page but the 404 page (not memoized) is taken as it was.
    let output = build(&project, &[]);
    output.assert_success();
    let (pages, unchanged) = pages_and_unchanged(&output);
    assert_eq!(pages, first.keys().filter(|p| p.ends_with(".html")).count());
    assert_eq!(unchanged, pages - 1, "{}", output.stdout);
    assert_eq!(site_files(&project), first);

    // One failure's write-up edited: its page is rendered again, and the site is the one a
    // build from nothing makes of the edited project.
    let edit = |project: &Project| {
        let path = "content/failures/qwen38-bf16.md";
        let text = std::fs::read_to_string(project.root.path().join(path)).unwrap();
        project.write(path, &format!("{text}\nWritten up once more.\n"));
    };
    edit(&project);
    let output = build(&project, &[]);
    output.assert_success();
    let edited = site_files(&project);
    let changed = differing(&first, &edited);
    assert!(
        changed.contains(&"failures/qwen38-bf16/index.html".to_owned()),
        "{changed:?}"
    );
    assert_eq!(pages_and_unchanged(&output).1, pages - 1 - changed.len());
    let from_nothing = Project::copy_of_repo();
    edit(&from_nothing);
    build(&from_nothing, &[]).assert_success();
    assert_eq!(edited, site_files(&from_nothing));

    // A page changed by hand in the output is rendered again, not taken.
    let page = "runs/nemotron-default/index.html";
    assert!(edited.contains_key(page), "the seed has {page}");
    project.write(&format!("site/{page}"), "changed by hand");
    let output = build(&project, &[]);
    assert_eq!(pages_and_unchanged(&output).1, pages - 2);
    assert_eq!(site_files(&project), edited);

    // A download made from the records changed by hand is made again.
    project.write("site/data/runs.csv", "changed by hand");
    build(&project, &[]).assert_success();
    assert_eq!(site_files(&project), edited);

    // The search index's page records changed by hand: the pages are read again for them.
    project.write("site/search/data/p-0.json", "[]");
    let output = build(&project, &[]);
    output.assert_success();
    assert_eq!(pages_and_unchanged(&output).1, pages - 1);
    assert_eq!(site_files(&project), edited);

    // The memo damaged: every page is rendered again.
    let memo = project.root.path().join(".site.memo");
    let mut bytes = std::fs::read(&memo).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 1;
    std::fs::write(&memo, bytes).unwrap();
    let output = build(&project, &[]);
    output.assert_success();
    assert_eq!(pages_and_unchanged(&output).1, 0);
    assert_eq!(site_files(&project), edited);

    // A template changed: every page is rendered again.
    let template = support::default_template("templates/run.html");
    project.write("templates/run.html", &format!("{template}\n"));
    let output = build(&project, &[]);
    output.assert_success();
    assert_eq!(pages_and_unchanged(&output).1, 0, "{}", output.stdout);
    assert_eq!(site_files(&project), edited);

    // A setting that some views read and no page's frame shows (the limits): the pages
    // whose views changed are rendered again, the others are taken as they were, and the
    // site is the one a build from nothing makes.
    let limits = |project: &Project| {
        let toml = std::fs::read_to_string(project.root.path().join("benchsite.toml")).unwrap();
        project.write(
            "benchsite.toml",
            &format!("{toml}\n[slo]\nttft_p95_s = 0.05\n"),
        );
    };
    limits(&project);
    let output = build(&project, &[]);
    output.assert_success();
    let limited = site_files(&project);
    let changed = differing(&edited, &limited);
    assert!(
        changed.contains(&"sweeps/index.html".to_owned()),
        "{changed:?}"
    );
    let unchanged = pages_and_unchanged(&output).1;
    assert!(
        unchanged > 0 && unchanged <= pages - 1 - changed.len(),
        "{unchanged} of {pages} taken, {} changed",
        changed.len()
    );
    for file in ["content/failures/qwen38-bf16.md", "templates/run.html"] {
        let text = std::fs::read_to_string(project.root.path().join(file)).unwrap();
        from_nothing.write(file, &text);
    }
    limits(&from_nothing);
    std::fs::remove_dir_all(from_nothing.root.path().join("site")).unwrap();
    build(&from_nothing, &[]).assert_success();
    assert_eq!(limited, site_files(&from_nothing));

    // A record edited: the site is again the one a build from nothing makes.
    let record = |project: &Project| {
        let path = project.root.path().join("data/results.json");
        let mut doc: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        doc["failures"][0]["reason"] = "Edited after the build.".into();
        project.write(
            "data/results.json",
            &serde_json::to_string_pretty(&doc).unwrap(),
        );
    };
    record(&project);
    build(&project, &[]).assert_success();
    let recorded = site_files(&project);
    assert_ne!(recorded, limited);
    record(&from_nothing);
    std::fs::remove_dir_all(from_nothing.root.path().join("site")).unwrap();
    build(&from_nothing, &[]).assert_success();
    assert_eq!(recorded, site_files(&from_nothing));
}

#[test]
fn hostile_strings_are_escaped() {
    let mut doc: serde_json::Value = serde_json::from_slice(&support::valid_minimal()).unwrap();
    doc["sweeps"][0]["label"] = "<script>alert(\"sweep\")</script> & 'quotes'".into();
    doc["sweeps"][0]["notes"] = "</script><img src=x onerror=alert(1)>".into();
    doc["sweeps"][0]["dimensions"]["model"] = "Модель 模型 & <b>".into();
    doc["failures"][0]["reason"] = "<b>bold</b> & \"quoted\"".into();
    doc["runs"][0]["model"] = "<i>model</i>".into();
    doc["runs"][1]["model"] = "<i>model</i>".into();
    doc["divergence"][0]["label"] = "<svg onload=alert(2)> → ünïcödé".into();
    doc["divergence"][0]["suspect"] = "\"><script>alert(3)</script>".into();
    // The hostile sweep in a one-knob pair, and the hostile comparison linked to a run, so
    // the ablations and speed-against-quality views show them too.
    let mut twin = doc["sweeps"][0].clone();
    twin["label"] = "<script>alert(\"twin\")</script>".into();
    twin["dimensions"]["knob"] = "<b>turned</b>".into();
    doc["sweeps"].as_array_mut().unwrap().push(twin);
    doc["runs"][0]["quality"] = serde_json::json!({
        "comparison": "<svg onload=alert(2)> → ünïcödé",
        "note": "<script>alert(4)</script>",
    });
    let project = Project::with_results(serde_json::to_string_pretty(&doc).unwrap().as_bytes());
    let output = build(&project, &[]);
    output.assert_success();
    for (path, bytes) in site_files(&project) {
        if !path.ends_with(".html") {
            continue;
        }
        let html = String::from_utf8(bytes).unwrap();
        for raw in [
            "<script>alert",
            "<img src=x",
            "<b>bold",
            "<i>model",
            "<svg onload",
            "\"><script>",
        ] {
            assert!(!html.contains(raw), "{path} contains {raw:?} unescaped");
        }
        // Every script element is one of ours: the page script or chart data.
        assert_eq!(
            html.matches("<script").count(),
            html.matches("</script>").count(),
            "{path}: a data string closed or opened a script element"
        );
    }
    let ablations = project.page("ablations/index.html");
    assert!(
        ablations.contains("knob: — → &lt;b&gt;turned&lt;/b&gt;"),
        "{ablations}"
    );
    let quality = project.page("quality/index.html");
    assert!(
        quality.contains("&lt;script&gt;alert(4)&lt;/script&gt;"),
        "the link's note"
    );
    assert!(
        quality.contains("&lt;svg onload=alert(2)&gt; → ünïcödé"),
        "escaped label in the table"
    );
    let failure = project.page("failures/qwen38-fp8-8k/index.html");
    assert!(failure.contains("&lt;b&gt;bold&lt;/b&gt; &amp; &quot;quoted&quot;"));
    let sweep_slug = data::slugify("<script>alert(\"sweep\")</script> & 'quotes'");
    let sweep = project.page(&format!("sweeps/{sweep_slug}/index.html"));
    assert!(sweep.contains("Модель 模型 &amp; &lt;b&gt;"));
}

/// Every string of the seed's document that the schema and checks let hold markup holds
/// markup: each is replaced by a string that is a tag, an attribute and a script at once, and
/// the fields that refuse it (ids, dates, kinds, references, what a profile fixes) keep their
/// value. The site builds, no page carries the markup as markup, and the search index has it
/// as text.
#[test]
fn markup_in_every_data_field_builds_and_is_escaped() {
    const HOSTILE: &str = "<img src=x onerror=alert(1)> </script><script>alert(2)</script> \"q\" 'a' & <a href=/nowhere/>";
    fn strings(value: &serde_json::Value, at: &str, out: &mut Vec<String>) {
        match value {
            serde_json::Value::String(_) => out.push(at.to_owned()),
            serde_json::Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    strings(item, &format!("{at}/{i}"), out);
                }
            }
            serde_json::Value::Object(map) => {
                for (key, item) in map {
                    strings(
                        item,
                        &format!("{at}/{}", key.replace('~', "~0").replace('/', "~1")),
                        out,
                    );
                }
            }
            _ => {}
        }
    }
    let mut seed: serde_json::Value =
        serde_json::from_slice(&std::fs::read(repo().join("data/results.json")).unwrap()).unwrap();
    // The seed's runs have no notes: one has.
    seed["runs"][0]["notes"] = "notes".into();
    let mut all = Vec::new();
    strings(&seed, "", &mut all);
    // What a run's profile fixes is held to the profile by `check`, not by the document.
    let fixed = ["/profile", "/overrides", "/checkpoint", "/kv_cache_dtype"];
    let mut hostile: Vec<String> = all
        .into_iter()
        .filter(|at| !(at.starts_with("/runs/") && fixed.iter().any(|f| at.ends_with(f))))
        .collect();
    let with = |fields: &[String]| {
        // One markup string per original value: labels stay unique, and a reference to a
        // label (a run's comparison) names it as it becomes.
        let mut doc = seed.clone();
        let mut values: Vec<String> = Vec::new();
        for at in fields {
            let original = seed.pointer(at).unwrap().as_str().unwrap().to_owned();
            let n = values
                .iter()
                .position(|v| *v == original)
                .unwrap_or_else(|| {
                    values.push(original);
                    values.len() - 1
                });
            *doc.pointer_mut(at).unwrap() = format!("{HOSTILE} #{n}").into();
        }
        doc
    };
    for _ in 0..20 {
        let text = serde_json::to_vec(&with(&hostile)).unwrap();
        match data::parse(Path::new("results.json"), &text) {
            Ok(_) => break,
            Err(error) => {
                let refused: Vec<&str> = error
                    .problems()
                    .iter()
                    .map(|p| p.pointer.as_str())
                    .collect();
                assert!(!refused.is_empty(), "{error}");
                let before = hostile.len();
                hostile.retain(|at| {
                    !refused.iter().any(|r| {
                        !r.is_empty()
                            && (at == r
                                || at.starts_with(&format!("{r}/"))
                                || r.starts_with(&format!("{at}/")))
                    })
                });
                assert!(hostile.len() < before, "no field named by:\n{error}");
            }
        }
    }
    let doc = with(&hostile);
    data::parse(
        Path::new("results.json"),
        &serde_json::to_vec(&doc).unwrap(),
    )
    .unwrap();
    // The fields a reader sees carry it: reasons, notes, labels, hardware and software.
    for at in [
        "/failures/0/reason",
        "/runs/0/notes",
        "/runs/0/model",
        "/sweeps/0/label",
        "/sweeps/0/notes",
        "/divergence/0/label",
        "/hardware/gpu",
        "/software/vllm",
    ] {
        assert!(hostile.iter().any(|h| h == at), "{at} refused markup");
    }
    assert!(
        hostile.len() > 100,
        "only {} fields hold markup",
        hostile.len()
    );

    let project = Project::with_results(serde_json::to_string_pretty(&doc).unwrap().as_bytes());
    build(&project, &[]).assert_success();
    let mut pages = 0;
    for (path, bytes) in site_files(&project) {
        if !path.ends_with(".html") {
            continue;
        }
        pages += 1;
        let html = String::from_utf8(bytes).unwrap();
        for raw in ["<img src=x", "<script>alert", "<a href=/nowhere/"] {
            assert!(!html.contains(raw), "{path} contains {raw:?} unescaped");
        }
        assert_eq!(
            html.matches("<script").count(),
            html.matches("</script>").count(),
            "{path}: a data string closed or opened a script element"
        );
    }
    assert!(pages > 20, "{pages} pages");
    let failure_id = seed["failures"][0]["id"].as_str().unwrap();
    let failure = project.page(&format!("failures/{failure_id}/index.html"));
    assert!(
        failure.contains("&lt;img src=x onerror=alert(1)&gt;"),
        "the reason, escaped, on its page"
    );
    let index: String = walk(&project.root.path().join("site/search/data"))
        .iter()
        .map(|path| std::fs::read_to_string(path).unwrap())
        .collect();
    assert!(
        index.contains("<img src=x onerror=alert(1)>"),
        "the search index has the reason as text"
    );
}

fn assert_failed_build_keeps_site(project: &Project, says: &[&str]) {
    let before = site_files(project);
    assert!(!before.is_empty());
    let output = build(project, &[]);
    assert_eq!(output.status.code(), Some(1), "{}", output.stdout);
    for words in says {
        assert!(
            output.stderr.contains(words),
            "does not say {words:?}:\n{}",
            output.stderr
        );
    }
    assert_eq!(site_files(project), before, "the previous site changed");
    let leftovers: Vec<_> = std::fs::read_dir(project.root.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        // The memo of the last good build stays beside it.
        .filter(|name| name.starts_with(".site") && name != ".site.memo")
        .collect();
    assert!(
        leftovers.is_empty(),
        "temporary folders left: {leftovers:?}"
    );
}

#[test]
fn a_broken_template_fails_with_file_and_line() {
    let project = built_seed(&[]);
    let template = support::default_template("templates/run.html");
    project.write(
        "templates/run.html",
        &template.replacen("{% block main %}", "{% block main %}\n{% if %}", 1),
    );
    assert_failed_build_keeps_site(
        &project,
        &["templates/run.html", "Failed to parse", "--> 4:"],
    );
}

#[test]
fn an_unknown_shortcode_fails_with_file_and_line() {
    let project = built_seed(&[]);
    project.write(
        "content/notes.md",
        "+++\ntitle = \"Notes\"\n+++\n\nIntro.\n\n{{ no_such_view() }}\n",
    );
    assert_failed_build_keeps_site(
        &project,
        &["content/notes.md:7:", "unknown shortcode \"no_such_view\""],
    );
}

#[test]
fn an_unknown_id_in_a_shortcode_fails_with_file_and_line() {
    let project = built_seed(&[]);
    project.write(
        "content/notes.md",
        "Speed: {{ run(id=\"nope\", field=\"decode_tok_s\") }}\n",
    );
    assert_failed_build_keeps_site(
        &project,
        &["content/notes.md:1:", "no run \"nope\"", "qwen36-moe-mtp"],
    );
}

#[test]
fn a_front_matter_error_fails_with_file_and_line() {
    let project = built_seed(&[]);
    project.write(
        "content/notes.md",
        "+++\ntitle = \"Notes\"\nweight = \"heavy\"\n+++\nText.\n",
    );
    assert_failed_build_keeps_site(&project, &["content/notes.md:3:", "front matter"]);
}

#[test]
fn a_link_to_a_missing_page_fails_with_file_and_line() {
    let project = built_seed(&[]);
    project.write(
        "content/notes.md",
        "Intro.\n\nSee [the runs](/runs/nope/).\n",
    );
    assert_failed_build_keeps_site(&project, &["content/notes.md:3:", "link to /runs/nope/"]);
}

#[test]
fn a_narrative_for_a_missing_record_fails() {
    let project = built_seed(&[]);
    project.write("content/runs/not-a-run.md", "Text.\n");
    assert_failed_build_keeps_site(
        &project,
        &["content/runs/not-a-run.md:1:", "no run \"not-a-run\""],
    );
}

#[test]
fn invalid_data_fails_the_build_and_keeps_the_site() {
    let project = built_seed(&[]);
    let text = std::fs::read_to_string(project.root.path().join("data/results.json")).unwrap();
    project.write(
        "data/results.json",
        &text.replacen("\"decode_tok_s\": 358.0", "\"decode_tok_s\": \"fast\"", 1),
    );
    assert_failed_build_keeps_site(&project, &["/runs/1/decode_tok_s", "expected a number"]);
}

#[test]
fn shortcodes_in_code_are_left_alone_and_drafts_left_out() {
    let project = built_seed(&[]);
    project.write(
        "content/notes.md",
        "+++\ntitle = \"Notes\"\n+++\n\n{{ runs_table() }}\n\nFastest: {{ run(id=\"nemotron-default\", field=\"decode_tok_s\") }}.\n\n```\n{{ heatmap() }}\n```\n",
    );
    project.write("content/wip.md", "+++\ndraft = true\n+++\nNot yet.\n");
    let output = build(&project, &[]);
    output.assert_success();
    let notes = project.page("notes/index.html");
    assert!(notes.contains("Fastest: 392.4 tok/s."), "inline shortcode");
    assert!(
        notes.contains("id=\"run-qwen36-moe-mtp\""),
        "block shortcode"
    );
    assert!(
        notes.contains("<code>{{ heatmap() }}\n</code>"),
        "code block untouched"
    );
    assert!(
        !project.root.path().join("site/wip/index.html").exists(),
        "draft built"
    );
    let output = build(&project, &["--drafts"]);
    output.assert_success();
    assert!(
        project.root.path().join("site/wip/index.html").exists(),
        "draft not built with --drafts"
    );
}

#[test]
fn a_project_without_templates_builds_from_the_defaults() {
    let project = Project::with_results(&support::valid_minimal());
    assert!(!project.root.path().join("templates").exists());
    let output = build(&project, &[]);
    output.assert_success();
    assert!(
        project
            .page("runs/qwen36-moe-default/index.html")
            .contains("289.0 tok/s")
    );
}

#[test]
fn init_makes_a_project_that_builds() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("report");
    let output = run_benchsite(&["init", root.to_str().unwrap()]);
    output.assert_success();
    for file in [
        "benchsite.toml",
        "content/_index.md",
        "data/results.json",
        "templates/README.md",
    ] {
        assert!(root.join(file).exists(), "{file}");
    }
    // No copy of the theme: the report follows benchsite's.
    let templates: Vec<_> = std::fs::read_dir(root.join("templates")).unwrap().collect();
    assert_eq!(templates.len(), 1, "{templates:?}");
    // What the first `collect run` and a capture need: the shipped report's decode prompt in
    // the document, and its prompt set, byte for byte.
    let shipped: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(repo().join("data/results.json")).unwrap())
            .unwrap();
    let written: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("data/results.json")).unwrap())
            .unwrap();
    assert_eq!(written["method"]["prompt"], shipped["method"]["prompt"]);
    assert_eq!(
        std::fs::read(root.join("data/prompts.jsonl")).unwrap(),
        std::fs::read(repo().join("data/prompts.jsonl")).unwrap()
    );
    run_benchsite(&["check", "--root", root.to_str().unwrap()]).assert_success();
    let output = run_benchsite(&["build", "--root", root.to_str().unwrap()]);
    output.assert_success();
    assert!(Path::new(&root.join("site/index.html")).exists());
    let output = run_benchsite(&["init", root.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
}

#[test]
fn check_covers_content_and_templates() {
    let project = Project::copy_of_repo();
    let output = project.run(&["check"]);
    output.assert_success();
    assert!(
        output
            .stdout
            .contains("site: 48 pages, every template renders"),
        "{}",
        output.stdout
    );
    project.write("content/notes.md", "Intro.\n\n{{ heatmap(kind=\"x\") }}\n");
    let output = project.run(&["check"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        output
            .stderr
            .contains("content/notes.md:3: heatmap: unknown argument kind"),
        "{}",
        output.stderr
    );
    std::fs::remove_file(project.root.path().join("content/notes.md")).unwrap();
    let template = support::default_template("templates/sweep.html");
    project.write(
        "templates/sweep.html",
        &template.replacen("{{ sweep.title }}", "{{ sweep.no_such_field }}", 1),
    );
    let output = project.run(&["check"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        output.stderr.contains("templates/sweep.html"),
        "{}",
        output.stderr
    );
    assert!(
        !project.root.path().join("site").exists(),
        "check wrote a site"
    );
}

#[test]
fn generation_top1_agreement_is_shown_as_the_methods_not_a_finding() {
    let project = Project::copy_of_repo();
    project.run(&["build"]).assert_success();
    let doc = project.results();
    let d = doc
        .divergence
        .iter()
        .find(|d| d.generation.top1_agree == 1.0)
        .expect("a seed comparison with generation top-1 of 1");
    let page = project.page(&format!("quality/{}/index.html", d.slug()));
    let row = page
        .split("<tr")
        .find(|row| row.contains("Top-1 agreement"))
        .unwrap();
    assert!(
        row.contains("(by construction: before the first difference)"),
        "{row}"
    );
}

/// The `<select name="...">` of a page's filter form and its choices (value, text).
fn filter_choices(page: &str, name: &str) -> Option<Vec<(String, String)>> {
    let start = page.find(&format!("<select name=\"{name}\">"))?;
    let select = &page[start..start + page[start..].find("</select>")?];
    Some(
        select
            .split("<option value=\"")
            .skip(2)
            .map(|option| {
                let (value, rest) = option.split_once("\">").unwrap();
                let text = rest.rsplit_once(" (").unwrap().0;
                (value.to_owned(), text.to_owned())
            })
            .collect(),
    )
}

#[test]
fn the_index_tables_filter_by_what_their_rows_differ_in() {
    let project = built_seed(&[]);
    let seed = seed();
    let runs = project.page("runs/index.html");
    // Runs: two models... every model of the seed, its precisions, spec on and off.
    let mut models: Vec<String> = seed.runs.iter().map(|r| r.model.clone()).collect();
    models.sort();
    models.dedup();
    let choices = filter_choices(&runs, "model").expect("a model filter");
    assert_eq!(
        choices
            .iter()
            .map(|(_, text)| text.clone())
            .collect::<Vec<_>>(),
        models
    );
    assert_eq!(
        filter_choices(&runs, "spec").unwrap(),
        [("off".into(), "off".into()), ("on".into(), "on".into())]
    );
    let precisions = filter_choices(&runs, "precision").unwrap();
    assert!(
        precisions.contains(&("fp8-official".into(), "FP8 (official)".into())),
        "{precisions:?}"
    );
    // One KV-cache dtype among the seed's runs and one machine: no filter for either.
    assert!(filter_choices(&runs, "kv").is_none());
    assert!(filter_choices(&runs, "machine").is_none());
    // Each row says what it is filtered by, and the form waits for the script.
    for run in &seed.runs {
        let row = format!(
            "<tr id=\"run-{}\" data-model=\"{}\" data-precision=\"{}\" data-spec=\"{}\">",
            run.id,
            data::slugify(&run.model),
            data::slugify(&run.precision),
            if run.spec_decode { "on" } else { "off" }
        );
        assert!(runs.contains(&row), "{row}");
    }
    assert!(runs.contains("<form class=\"filters\" hidden>"));
    // Comparisons filter by their dimensions: fp8 KV, NVFP4, MTP.
    let quality = project.page("quality/index.html");
    let kv = filter_choices(&quality, "kv").unwrap();
    assert_eq!(
        kv,
        [
            ("fp8".into(), "fp8".into()),
            ("none".into(), "not recorded".into())
        ]
    );
    assert!(filter_choices(&quality, "precision").is_some());
    assert!(filter_choices(&quality, "spec").is_some());
    // Sweeps differ in model and MTP.
    let sweeps = project.page("sweeps/index.html");
    assert!(filter_choices(&sweeps, "model").is_some());
    assert_eq!(
        filter_choices(&sweeps, "spec").unwrap(),
        [("off".into(), "off".into()), ("on".into(), "on".into())]
    );
}

#[test]
fn the_search_index_holds_every_record_page() {
    let project = built_seed(&[]);
    let seed = seed();
    let meta: serde_json::Value =
        serde_json::from_str(&project.page("search/data/meta.json")).unwrap();
    let models = std::fs::read_dir(project.root.path().join("site/models"))
        .unwrap()
        .filter(|entry| entry.as_ref().unwrap().path().is_dir())
        .count();
    let searched =
        seed.runs.len() + seed.sweeps.len() + seed.divergence.len() + seed.failures.len() + models;
    assert_eq!(meta["pages"], searched);
    assert_eq!(meta["language"], "en");
    // Every page is in a chunk, by path, with its kind; every shard meta names is there.
    let mut pages = Vec::new();
    for n in 0..searched.div_ceil(meta["chunk"].as_u64().unwrap() as usize) {
        let chunk: Vec<serde_json::Value> =
            serde_json::from_str(&project.page(&format!("search/data/p-{n}.json"))).unwrap();
        pages.extend(chunk);
    }
    let urls: Vec<&str> = pages.iter().map(|p| p["u"].as_str().unwrap()).collect();
    let mut sorted = urls.clone();
    sorted.sort();
    assert_eq!(urls, sorted);
    assert_eq!(urls.len(), searched);
    let run = pages
        .iter()
        .find(|p| p["u"] == "/runs/qwen36-moe-mtp/")
        .unwrap();
    assert_eq!(run["k"], "Run");
    assert_eq!(run["t"], "Qwen3.6-35B-A3B with MTP (qwen36-moe-mtp)");
    for shard in meta["shards"].as_array().unwrap() {
        let shard = shard.as_str().unwrap();
        let postings: serde_json::Value =
            serde_json::from_str(&project.page(&format!("search/data/t-{shard}.json"))).unwrap();
        assert!(
            postings.as_object().is_some_and(|p| !p.is_empty()),
            "{shard}"
        );
    }
    // The run's id is found whole: `qwen36-moe-mtp` is in the shard of `q`.
    let qw: serde_json::Value =
        serde_json::from_str(&project.page("search/data/t-71.json")).unwrap();
    let page = urls
        .iter()
        .position(|u| *u == "/runs/qwen36-moe-mtp/")
        .unwrap();
    let postings: Vec<u64> = serde_json::from_value(qw["qwen36-moe-mtp"].clone()).unwrap();
    let weight = postings
        .chunks(2)
        .find(|pair| pair[0] == page as u64)
        .map(|pair| pair[1]);
    assert!(
        weight.is_some_and(|w| w >= 8),
        "its title counts: {postings:?}"
    );
    let search = project.page("search/index.html");
    assert!(search.contains(r#"data-index="/search/data/""#), "{search}");
    // Every page's header has the box that opens it.
    for page in [
        "index.html",
        "runs/qwen36-moe-default/index.html",
        "method/index.html",
    ] {
        assert!(
            project
                .page(page)
                .contains(r#"<form class="site-search" role="search" action="/search/""#),
            "{page}"
        );
    }
    // A record page is found by its marked head: title, summary, facts, narrative.
    let run = project.page("runs/qwen36-moe-default/index.html");
    let head = run.find("data-pagefind-body").unwrap();
    assert!(
        run[head..]
            .find("<h1>Qwen3.6-35B-A3B, NVFP4 (qwen36-moe-default)</h1>")
            .is_some()
    );
}

#[test]
fn search_can_be_left_out() {
    let project = Project::copy_of_repo();
    let settings = std::fs::read_to_string(project.root.path().join("benchsite.toml")).unwrap();
    project.write("benchsite.toml", &format!("search = false\n{settings}"));
    build(&project, &[]).assert_success();
    let site = project.root.path().join("site");
    assert!(!site.join("search").exists());
    assert!(!project.page("index.html").contains("site-search"));
}

#[test]
fn every_chart_has_its_data_as_csv_and_says_what_it_shows() {
    let project = built_seed(&[]);
    let quality = project.page("quality/index.html");
    let charts = quality.matches("<figure class=\"chart\"").count();
    assert_eq!(charts, 2);
    assert_eq!(
        quality
            .matches("<a class=\"download\" href=\"data:text/csv;charset=utf-8,")
            .count(),
        charts
    );
    // The heatmap's CSV starts with its table's header, its label with what it shows.
    assert!(
        quality
            .contains("download=\"kl-divergence-by-prompt-category-teacher-forced-kld-mean.csv\"")
    );
    assert!(quality.contains("href=\"data:text/csv;charset=utf-8,Comparison,"));
    let seed = seed();
    assert!(quality.contains(&format!(
        "aria-label=\"Heatmap of teacher-forced KLD mean in nats for {} comparisons by",
        seed.divergence.len()
    )));
    // Each model's rows are shaded on its own scale, to its largest per-category value of the
    // rows in scale (by hand from the seed: Qwen3.6's fp8 KV on writing, Qwen3.8's NVFP4 + MTP);
    // the suspect MTP row of Qwen3.6 (4.995286 at its largest) sets none.
    assert!(quality.contains(
        "each model&#39;s rows shaded from 0 to its own largest value (Qwen3.6-35B-A3B to 0.007453 nats, Qwen3.8-27B to 0.152818 nats); 1 suspect row out of the scale, grey and hatched"
    ));
}

#[test]
fn check_and_build_agree_on_anchors_and_name_the_markdown_line() {
    let project = built_seed(&[]);
    let method = std::fs::read_to_string(project.root.path().join("content/method.md")).unwrap();
    let line = method.lines().count() + 2;
    // An anchor that exists passes both.
    project.write(
        "content/method.md",
        &format!(
            "{method}\nSee [the statistics](/quality/qwen3-8-fp8-same-server-again/#statistics).\n"
        ),
    );
    project.run(&["check"]).assert_success();
    build(&project, &[]).assert_success();
    // One that does not fails both, named by the Markdown file and line, not the page.
    project.write(
        "content/method.md",
        &format!("{method}\nSee [nothing](/quality/qwen3-8-fp8-same-server-again/#nope).\n"),
    );
    let says = format!(
        "content/method.md:{line}: link to /quality/qwen3-8-fp8-same-server-again/#nope: its page has no element with the id \"nope\""
    );
    let check = project.run(&["check"]);
    assert_eq!(check.status.code(), Some(1), "{}", check.stdout);
    assert!(check.stderr.contains(&says), "{}", check.stderr);
    assert_failed_build_keeps_site(&project, &[&says]);
}

#[test]
fn the_header_leads_to_models_method_and_data_and_ablations_has_contents() {
    let project = built_seed(&[]);
    let seed = seed();
    let home = project.page("index.html");
    let nav = &home[home.find("<nav aria-label=\"Sections\">").unwrap()..];
    let nav = &nav[..nav.find("</nav>").unwrap()];
    for (text, href) in [
        ("Models", "/models/"),
        ("Method", "/method/"),
        ("Data", "/data/"),
    ] {
        assert!(
            nav.contains(&format!("<a href=\"{href}\">{text}</a>")),
            "{nav}"
        );
    }
    assert!(nav.find(">Method<").unwrap() < nav.find(">Data<").unwrap());
    // Every model with its best decode speed, linked to that run.
    let models = project.page("models/index.html");
    for name in [
        "Qwen3.6-35B-A3B",
        "Qwen3.8-27B",
        "Nemotron-3.5-Lightning-30B-A3B",
    ] {
        let best = seed
            .runs
            .iter()
            .filter(|r| r.model == name)
            .max_by(|a, b| a.decode_tok_s.total_cmp(&b.decode_tok_s))
            .unwrap();
        assert!(
            models.contains(&format!(
                "<a href=\"/runs/{}/\">{} ({})</a>",
                best.id,
                shown(best.decode_tok_s),
                best.id
            )),
            "{name}"
        );
    }
    // Every download, linked from /data/.
    let data = project.page("data/index.html");
    for file in [
        "results.json",
        "runs.csv",
        "sweep-levels.csv",
        "divergence.csv",
        "divergence-categories.csv",
        "jitter.csv",
        "failures.csv",
    ] {
        assert!(data.contains(&format!("href=\"/data/{file}\"")), "{file}");
    }
    // The ablations page opens with its contents, each sweep pair linked to its section.
    let ablations = project.page("ablations/index.html");
    let contents = &ablations[ablations.find("<nav class=\"contents\"").unwrap()..];
    let contents = &contents[..contents.find("</nav>").unwrap()];
    let sections = ablations.matches("<section id=\"").count();
    let linked = contents.matches("<a href=\"#").count();
    assert!(linked >= 3 && linked <= sections, "{contents}");
    for id in contents
        .split("<a href=\"#")
        .skip(1)
        .map(|s| &s[..s.find('"').unwrap()])
    {
        assert!(ablations.contains(&format!("id=\"{id}\"")), "#{id}");
    }
}

/// Appends `more` to the project's `benchsite.toml`.
fn append_settings(project: &Project, more: &str) {
    let settings = std::fs::read_to_string(project.root.path().join("benchsite.toml")).unwrap();
    project.write("benchsite.toml", &format!("{settings}\n{more}"));
}

/// The `<tr>` of `html` whose id is `id`.
fn row<'h>(html: &'h str, id: &str) -> &'h str {
    let start = html
        .find(&format!("<tr id=\"{id}\""))
        .unwrap_or_else(|| panic!("no row {id}"));
    let row = &html[start..];
    &row[..row.find("</tr>").unwrap()]
}

/// The decision section's body rows, each as its cells' text, tags dropped.
fn decision_rows(page: &str) -> Vec<String> {
    let section = &page[page
        .find("<section id=\"decision\"")
        .expect("a decision section")..];
    let body = &section[section.find("<tbody>").unwrap()..section.find("</tbody>").unwrap()];
    let text = |cell: &str| {
        let mut out = String::new();
        let mut inside = false;
        for ch in cell.chars() {
            match ch {
                '<' => inside = true,
                '>' => inside = false,
                _ if !inside => out.push(ch),
                _ => {}
            }
        }
        out.trim().to_owned()
    };
    body.split("<tr>")
        .skip(1)
        .map(|row| {
            row.split("</td>")
                .map(text)
                .filter(|cell| !cell.is_empty())
                .collect::<Vec<_>>()
                .join(" | ")
        })
        .collect()
}

#[test]
fn the_home_page_answers_first_by_hand() {
    let project = built_seed(&[]);
    let home = project.page("index.html");
    // By hand from the seed, 700 words in and 256 tokens out (8 sweeps, the most measured),
    // at the stated defaults (no [slo]): TTFT p95 ≤ 2 s and at least 20 output tok/s per user,
    // no failed request. Nemotron: c32, 2652.4 tok/s, TTFT p95 0.9858 s of 64, 100.7 per
    // user. Qwen3.6: seqs 32 at c32, 2546.4 (the baseline's best is c8, 1223.0). Qwen3.8:
    // CUDA graphs at c8, 391.5 (its c16 waits 5.87 s; eager's c16, 354.4, is less). None of
    // the three has a run of its server set-up, so no KV pool and no quality verdict.
    assert_eq!(
        decision_rows(&home),
        [
            "1 | Nemotron-3.5-Lightning-30B-A3B | nemotron-3.5-lightning | 2652.4 | concurrency 32 | 0.9858 s n = 64 | 100.7 | — | not measured | sweep settings",
            "2 | Qwen3.6-35B-A3B | qwen3.6-35b-a3b max-num-seqs 32 | 2546.4 | concurrency 32 | 0.8837 s n = 64 | 100.1 | — | not measured | sweep settings",
            "3 | Qwen3.8-27B | qwen3.8-27b text-only, CUDA graphs | 391.5 | concurrency 8 | 0.6186 s n = 16 | 53.9 | — | not measured | sweep settings",
        ]
    );
    assert!(home.contains(
        "For <strong class=\"d-workload\">700 words in, 256 tokens out</strong> within <strong class=\"d-limits\">TTFT p95 ≤ 2 s and at least 20 output tok/s per user</strong>"
    ));
    assert!(
        home.contains("<a href=\"/sweeps/nemotron-3-5-lightning/#c32\">nemotron-3.5-lightning</a>")
    );
    assert!(home.contains("so these are the report's defaults"));
    // Every model was measured at this workload: none is said unmeasured.
    assert!(home.contains("<p class=\"d-unmeasured\" hidden>Not measured at this workload: .</p>"));
    // The answer comes before the author's narrative and the hardware.
    let decision = home.find("<section id=\"decision\"").unwrap();
    assert!(decision < home.find("One consumer card").unwrap());
    assert!(decision < home.find("<section id=\"hardware\"").unwrap());
    // A model's page ranks its configurations. MTP has a run of its set-up
    // (qwen38-dense-mtp): its KV pool, its comparison (whose floor measured 0) and its
    // launch command.
    let model = project.page("models/qwen3-8-27b/index.html");
    let rows = decision_rows(&model);
    assert_eq!(
        rows.iter()
            .map(|r| r.split(" | ").take(3).collect::<Vec<_>>().join(" | "))
            .collect::<Vec<_>>(),
        [
            "1 | qwen3.8-27b text-only, CUDA graphs | 391.5",
            "2 | qwen3.8-27b text-only, eager | 354.4",
            "3 | qwen3.8-27b MTP, text-only | 257.9",
            "4 | qwen3.8-27b seqs 32 | 179.7",
            "5 | qwen3.8-27b default | 179.5",
        ]
    );
    assert!(
        rows[2].ends_with("70,087 tokens | beyond noise (floor 0) | launch command"),
        "{}",
        rows[2]
    );
    assert!(model.contains("<a href=\"/runs/qwen38-dense-mtp/#launch\">launch command</a>"));
    // The copy: counts in the singular for one, the Data section opens the data page as the
    // header's link does, no author line the settings do not give, and a sweep on the
    // measuring machine's own address shows no server fact.
    assert!(home.contains(
        "Nemotron-3.5-Lightning-30B-A3B</a> <span class=\"note\">1 configuration, 2 sweeps, 0 comparisons</span>"
    ));
    assert!(home.contains("<a href=\"/data/\">Data</a> <span class=\"note\">"));
    assert!(!home.contains("· benchsite · built with"));
    assert!(
        !project
            .page("sweeps/nemotron-3-5-lightning/index.html")
            .contains("127.0.0.1")
    );
    // Contents on the home page and /sweeps/, each entry an anchor of its page.
    let sweeps = project.page("sweeps/index.html");
    for page in [&home, &sweeps] {
        let contents = &page[page.find("<nav class=\"contents\"").unwrap()..];
        let contents = &contents[..contents.find("</nav>").unwrap()];
        let anchors: Vec<&str> = contents
            .split("<a href=\"#")
            .skip(1)
            .map(|s| &s[..s.find('"').unwrap()])
            .collect();
        assert!(anchors.len() >= 4, "{contents}");
        for id in anchors {
            assert!(page.contains(&format!("id=\"{id}\"")), "#{id}");
        }
    }
    assert!(home.contains("every model on one table at <a href=\"/models/\">Models</a>"));
    // /sweeps/ holds the same defaults: the default's highest load within them is c8 (its
    // c16 waits 12.1 s for a first token), where without limits it was c32.
    assert!(row(&sweeps, "within-qwen3-8-27b-default").contains("<td>8<"));
}

#[test]
fn the_decision_follows_the_settings_limits_and_price() {
    let project = Project::copy_of_repo();
    append_settings(
        &project,
        "[slo]\nttft_p95_s = 0.5\ntpot_ms = 20.0\nlatency_p95_s = 10\n\n[cost]\ngpu_hour = 2.5\n",
    );
    build(&project, &[]).assert_success();
    let home = project.page("index.html");
    // By hand: TTFT p95 ≤ 0.5 s and 1000 / per-stream rate ≤ 20 ms (at least 50 tok/s per
    // user). Nemotron's c32 waits 0.9858 s, so c16: 1873.4 tok/s, 0.4995 s of 32, 136.2 per
    // user, 2.5 / 3600 / 1873.4 × 10⁶ = 0.371 per million. Qwen3.6 seqs 32 at c16: 1860.8,
    // 0.373. Qwen3.8: MTP at c4, 257.9 (CUDA graphs' c8 is 53.9 per user, c4 0.3148 s but
    // 203.1 tok/s), 2.693.
    let rows = decision_rows(&home);
    assert_eq!(rows.len(), 3, "{rows:?}");
    assert!(rows[0].starts_with("1 | Nemotron-3.5-Lightning-30B-A3B | nemotron-3.5-lightning | 1873.4 | concurrency 16 | 0.4995 s n = 32 | 136.2 | — | not measured | $0.371"), "{}", rows[0]);
    assert!(
        rows[1].contains("| 1860.8 | concurrency 16 |") && rows[1].contains("| $0.373 |"),
        "{}",
        rows[1]
    );
    assert!(
        rows[2].contains("qwen3.8-27b MTP, text-only | 257.9 | concurrency 4 |")
            && rows[2].contains("| $2.693 |"),
        "{}",
        rows[2]
    );
    assert!(home.contains(
        "within <strong class=\"d-limits\">TTFT p95 ≤ 0.5 s and at least 50 output tok/s per user and latency p95 ≤ 10 s</strong>"
    ));
    assert!(!home.contains("so these are the report's defaults"));
}

#[test]
fn a_run_is_named_for_what_departs_from_its_profile_on_every_page() {
    let project = built_seed(&[]);
    // By hand from profiles/*.env and each run's overrides: SPEC_DECODE=1 with the profile's
    // SPEC_METHOD=mtp is MTP; LANGUAGE_MODEL_ONLY=1 against the profile's 0 is text-only;
    // qwen38-fp8-official's MODEL is the FP8 checkpoint, MAX_MODEL_LEN=4096 against 32768 is
    // 4K context, MAX_NUM_SEQS=2 against 8; GPU_MEMORY_UTILIZATION and EXTRA_ARGS are two
    // more. A run of its profile as it is names its precision. The profile's defaults
    // (MAX_MODEL_LEN=32768, MAX_NUM_SEQS=8) never appear.
    for (id, name) in [
        (
            "qwen36-moe-default",
            "Qwen3.6-35B-A3B, NVFP4 (qwen36-moe-default)",
        ),
        (
            "qwen36-moe-mtp",
            "Qwen3.6-35B-A3B with MTP (qwen36-moe-mtp)",
        ),
        (
            "qwen38-dense-mtp",
            "Qwen3.8-27B with MTP and text-only (qwen38-dense-mtp)",
        ),
        (
            "qwen38-fp8-official",
            "Qwen3.8-27B with the FP8 (official) checkpoint, 4K context, text-only, at most 2 sequences and 2 more settings (qwen38-fp8-official)",
        ),
    ] {
        let page = project.page(&format!("runs/{id}/index.html"));
        assert!(page.contains(&format!("<h1>{name}")), "{id}");
        assert!(page.contains(&format!("<title>{name} · ")), "{id}");
        assert!(
            page.contains(&format!("og:title\" content=\"{name}\"")),
            "{id}"
        );
    }
    // The search result's title is the same name.
    let chunks: String = (0..2)
        .map(|n| project.page(&format!("search/data/p-{n}.json")))
        .collect();
    assert!(chunks.contains("Qwen3.8-27B with MTP and text-only (qwen38-dense-mtp)"));
}

#[test]
fn the_frontier_and_the_limits_answer_by_hand() {
    let project = Project::copy_of_repo();
    append_settings(
        &project,
        "[slo]\nttft_p95_s = 0.5\ntpot_ms = 6.0\n\n[cost]\ngpu_hour = 2.5\n",
    );
    build(&project, &[]).assert_success();
    let sweeps = project.page("sweeps/index.html");
    // Limits, by hand from the seed's levels: TTFT p95 at most 0.5 s and 1000 / per-stream
    // rate at most 6 ms. The baseline's c16 has TTFT p95 1.9177 s, so c8 (0.2279 s, 1000 /
    // 173.9 = 5.75 ms), 1223.0 tok/s, 2.5 / 3600 / 1223.0 × 10⁶ = 0.568 per million; seqs 32's
    // c16 has 1000 / 140.9 = 7.10 ms, so c8 (5.81 ms), 1179.5 tok/s; MTP's best rate is 75.5,
    // 13.25 ms: none.
    let baseline = row(&sweeps, "within-qwen3-6-35b-a3b-baseline");
    for cell in ["<td>8<", ">1223.0<", ">$0.568<"] {
        assert!(baseline.contains(cell), "{cell}: {baseline}");
    }
    let seqs = row(&sweeps, "within-qwen3-6-35b-a3b-max-num-seqs-32");
    assert!(
        seqs.contains("<td>8<") && seqs.contains(">1179.5<"),
        "{seqs}"
    );
    assert!(row(&sweeps, "within-qwen3-8-27b-mtp-text-only").contains(">none within<"));
    // The best of Qwen3.6 at 786 tokens in, 256 out is the baseline.
    let best = &sweeps[sweeps
        .find("The best configuration of each model and workload")
        .unwrap()..];
    let best = &best[..best.find("</table>").unwrap()];
    assert!(
        best.contains("<a href=\"/sweeps/qwen3-6-35b-a3b-baseline/\">qwen3.6-35b-a3b baseline</a></td><td>786 tokens in, 256 tokens out</td>"),
        "{best}"
    );
    // The frontier of Qwen3.6-35B-A3B at 786 tokens in, 256 out, by hand: down the
    // per-user axis, a level is on it when it produces more per GPU than every faster one:
    // baseline c1 (280.1, 261.9), c2 (215.4, 388.7), c4 (206.9, 746.4), c8 (173.9, 1223.0),
    // then seqs 32 c16 (140.9, 1860.8) and c32 (100.1, 2546.4). The others are beaten.
    let group = &sweeps[sweeps
        .find("Every level of Qwen3.6-35B-A3B, 786 tokens in, 256 tokens out")
        .unwrap()..];
    let group = &group[..group.find("</table>").unwrap()];
    let on: Vec<String> = group
        .split(" class=\"frontier\">")
        .skip(1)
        .map(|r| {
            let label = &r[r.find("\">").unwrap() + 2..r.find("</a>").unwrap()];
            let cell = "</a></td><td>";
            let c = &r[r.find(cell).unwrap() + cell.len()..];
            format!("{label} c{}", &c[..c.find('<').unwrap()])
        })
        .collect();
    let mut on = on;
    on.sort();
    assert_eq!(
        on,
        [
            "qwen3.6-35b-a3b baseline c1",
            "qwen3.6-35b-a3b baseline c2",
            "qwen3.6-35b-a3b baseline c4",
            "qwen3.6-35b-a3b baseline c8",
            "qwen3.6-35b-a3b max-num-seqs 32 c16",
            "qwen3.6-35b-a3b max-num-seqs 32 c32",
        ]
    );
    assert_eq!(
        group.matches("<tr id=\"level-").count(),
        11,
        "the six on the frontier and the five beaten levels"
    );
    // Each level's cost at 2.5 a GPU-hour: seqs 32's c32, 2.5 / 3600 / 2546.4 × 10⁶ = 0.273.
    assert!(row(&sweeps, "level-qwen3-6-35b-a3b-max-num-seqs-32-c32").contains(">$0.273<"));
    // Without [cost] the cost column is absent, not empty; without power, the energy columns.
    let plain = built_seed(&[]);
    let page = plain.page("sweeps/index.html");
    // (The page's script data names both columns' headers whether or not they are shown.)
    assert!(!page.contains(">Per million output tokens</th>"));
    assert!(!page.contains(">J per output token</th>"));
}

/// A sweep that asked for the same prompt as another of its model but measured it a token
/// longer (its nonce tokenized differently) shares that workload's frontier, and is still one
/// setting away from its sibling.
#[test]
fn a_prompt_measured_a_token_longer_shares_its_workloads_frontier() {
    let project = Project::copy_of_repo();
    let mut doc = seed();
    doc.sweeps
        .iter_mut()
        .find(|s| s.label == "qwen3.6-35b-a3b max-num-seqs 32")
        .unwrap()
        .dimensions
        .insert("prompt".into(), "787 tok".into());
    project.write("data/results.json", &data::to_json(&doc));
    build(&project, &[]).assert_success();
    let sweeps = project.page("sweeps/index.html");
    assert!(!sweeps.contains("787 tokens in"), "no workload of its own");
    let group = &sweeps[sweeps
        .find("Every level of Qwen3.6-35B-A3B, 786 tokens in, 256 tokens out")
        .unwrap()..];
    let group = &group[..group.find("</table>").unwrap()];
    assert_eq!(
        group.matches("<tr id=\"level-").count(),
        11,
        "the baseline's and seqs 32's levels, as before"
    );
    let ablations = project.page("ablations/index.html");
    assert!(
        ablations.contains("qwen3.6-35b-a3b max-num-seqs 32</a></td><td>seqs: 8 → 32</td>"),
        "{ablations}"
    );
}

/// A sweep of the same model and settings served by another engine is not the same server
/// set-up: the vLLM run names its vLLM sweep, never the llama-server one; and where sweeps
/// of two engines stand side by side, the trade-off view names each one's engine.
#[test]
fn another_engine_is_another_server_set_up() {
    let project = Project::copy_of_repo();
    let mut doc = seed();
    let mut llama = doc
        .sweeps
        .iter()
        .find(|s| s.label == "qwen3.8-27b default")
        .unwrap()
        .clone();
    llama.label = "qwen3.8-27b on llama".into();
    llama.vllm_version = None;
    llama.server = Some("llama.cpp llama-server b6500-1a2b3c".into());
    llama.engine = Some(benchsite::profiles::Engine::LlamaServer);
    // Newer than the vLLM one, so it would be named first were it a counterpart.
    llama.generated = data::Date::new("2026-09-10").unwrap();
    doc.sweeps.push(llama);
    project.write("data/results.json", &data::to_json(&doc));
    build(&project, &[]).assert_success();
    let run = project.page("runs/qwen38-dense-default/index.html");
    let counterparts: Vec<&str> = run
        .split("<p class=\"counterpart\">")
        .skip(1)
        .map(|p| &p[..p.find("</p>").unwrap()])
        .collect();
    assert!(
        counterparts.len() == 1
            && counterparts[0].starts_with("<a href=\"/sweeps/qwen3-8-27b-default/\">"),
        "{counterparts:?}"
    );
    let sweep = project.page("sweeps/qwen3-8-27b-on-llama/index.html");
    assert!(
        !sweep.contains("/runs/qwen38-dense-default/\">qwen38-dense-default</a> measures"),
        "{sweep}"
    );
    assert!(
        sweep.contains("<dt>Engine</dt><dd>llama.cpp llama-server</dd>"),
        "{sweep}"
    );
    let sweeps = project.page("sweeps/index.html");
    assert!(
        sweeps.contains("qwen3.8-27b on llama (llama-server)")
            && sweeps.contains("qwen3.8-27b default (vLLM)")
            && sweeps.contains("<td>llama.cpp llama-server</td>"),
        "{sweeps}"
    );
}

#[test]
fn energy_stands_beside_throughput_where_power_was_recorded() {
    let project = Project::copy_of_repo();
    let mut doc = seed();
    let seqs = doc
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
    project.write("data/results.json", &data::to_json(&doc));
    build(&project, &[]).assert_success();
    let sweeps = project.page("sweeps/index.html");
    // By hand: 2546.4 tok/s over 500 W is 5.093 tok/s per W, beside the recorded 0.196 J.
    for id in [
        "level-qwen3-6-35b-a3b-max-num-seqs-32-c32",
        "within-qwen3-6-35b-a3b-max-num-seqs-32",
    ] {
        let row = row(&sweeps, id);
        assert!(row.contains(">0.196</td><td>5.093<"), "{id}: {row}");
    }
    // A level without power shows the missing mark there.
    assert!(row(&sweeps, "level-qwen3-6-35b-a3b-baseline-c8").contains(">—</td><td"));
    assert!(sweeps.contains("<th scope=\"col\" class=\"num\">J per output token</th>"));
}

#[test]
fn a_run_page_reached_by_a_link_says_what_it_is() {
    let project = built_seed(&[]);
    let page = project.page("runs/qwen36-moe-mtp/index.html");
    // Its title: the model and what its launch departs from its profile in.
    assert!(page.contains("<h1>Qwen3.6-35B-A3B with MTP (qwen36-moe-mtp)</h1>"));
    // The trail, and the GPU at the top.
    assert!(page.contains("<nav class=\"breadcrumb\" aria-label=\"Breadcrumb\"><a href=\"/models/qwen3-6-35b-a3b/\">Qwen3.6-35B-A3B</a> › <a href=\"/runs/\">Runs</a> › <span aria-current=\"page\">qwen36-moe-mtp</span></nav>"));
    assert!(page.contains("on NVIDIA GeForce RTX 5090.</p>"));
    // Against its one-knob sibling, by hand from the seed: decode 358.0 against 289.0 is
    // +24%, the KV pool 111,009 against 370,189 tokens is −70%.
    let seed = seed();
    let (mtp, default) = (
        seed.runs
            .iter()
            .find(|r| r.id.as_str() == "qwen36-moe-mtp")
            .unwrap(),
        seed.runs
            .iter()
            .find(|r| r.id.as_str() == "qwen36-moe-default")
            .unwrap(),
    );
    assert_eq!((mtp.decode_tok_s, default.decode_tok_s), (358.0, 289.0));
    assert_eq!(
        (mtp.kv_tokens, default.kv_tokens),
        (Some(111_009), Some(370_189))
    );
    assert!(page.contains("<a href=\"/runs/qwen36-moe-default/\">+24% decode (beyond both sample ranges), −70% KV pool against qwen36-moe-default</a> <span class=\"note\">(SPEC_DECODE: 0 there, 1 here)</span>"));
    // Link previews carry the headline figures.
    assert!(page.contains("<meta property=\"og:description\" content=\"Qwen3.6-35B-A3B with MTP (qwen36-moe-mtp): 358.0 tok/s single-stream decode, 111,009 tokens of KV cache, on NVIDIA GeForce RTX 5090.\">"));
}

#[test]
fn a_new_report_says_what_to_run_next_instead_of_empty_frames() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("report");
    run_benchsite(&["init", root.to_str().unwrap()]).assert_success();
    run_benchsite(&["--root", root.to_str().unwrap(), "build"]).assert_success();
    let page = |path: &str| std::fs::read_to_string(root.join("site").join(path)).unwrap();
    let home = page("index.html");
    assert!(home.contains("<h2>What to run next</h2>"), "{home}");
    for command in [
        "benchsite collect hardware",
        "benchsite collect run --id example-default --profile example --launch",
        "benchsite campaign plan example",
    ] {
        assert!(
            home.contains(&format!("<code>{command}</code>")),
            "{command}"
        );
    }
    assert!(home.contains("Not recorded yet: <code>benchsite collect hardware</code>"));
    // No chart frame and no table of headers alone on any index page.
    for path in [
        "index.html",
        "runs/index.html",
        "sweeps/index.html",
        "quality/index.html",
        "failures/index.html",
        "models/index.html",
    ] {
        let html = page(path);
        assert!(
            !html.contains("<figure class=\"chart\""),
            "{path} draws an empty chart"
        );
        assert!(!html.contains("<table"), "{path} has a table with no rows");
    }
}

#[test]
fn a_configuration_measured_again_has_a_history() {
    let project = Project::copy_of_repo();
    // Without a rerun there is no history page and no link to one.
    let plain = built_seed(&[]);
    assert!(!plain.root.path().join("site/history").exists());
    assert!(!plain.page("index.html").contains("href=\"/history/\""));
    let mut doc = seed();
    let mut rerun = doc.runs[0].clone();
    assert_eq!(rerun.id.as_str(), "qwen36-moe-default");
    rerun.id = data::Id::new("qwen36-moe-default-v029").unwrap();
    rerun.overrides = "IMAGE=docker.io/vllm/vllm-openai:v0.29.0".into();
    rerun.vllm_version = Some("0.29.0".into());
    rerun.generated = data::Date::new("2026-10-01").unwrap();
    rerun.decode_tok_s = 270.0;
    rerun.decode_samples = vec![268.0, 270.0, 271.0];
    doc.runs.push(rerun);
    project.write("data/results.json", &data::to_json(&doc));
    build(&project, &[]).assert_success();
    let index = project.page("history/index.html");
    assert!(
        project
            .page("index.html")
            .contains("<a href=\"/history/\">History</a>")
    );
    // `/history/` has a row for the configuration: its first and latest decode speed, and the
    // change between them, (270.0 − 289.0) / 289.0 = −6.6%, leading to its own page.
    assert!(index.contains("<tr id=\"run-qwen36-moe-default\"><td><a href=\"/history/run-qwen36-moe-default/\">Qwen3.6-35B-A3B (qwen36-moe-default and its reruns)</a></td><td>decode tok/s</td><td>2</td><td>vLLM 0.28.0, 2026-09-07</td><td>289.0</td><td>vLLM 0.29.0, 2026-10-01</td><td>270.0</td><td data-sort=\"-6.5743944636678195\">−6.6%</td></tr>"), "{index}");
    let history = project.page("history/run-qwen36-moe-default/index.html");
    // Every measurement's figures are in a data file beside the page, for comparing any two.
    let figures = project.page("history/run-qwen36-moe-default/figures.json");
    let figures: serde_json::Value = serde_json::from_str(&figures).unwrap();
    assert_eq!(figures["members"].as_array().unwrap().len(), 2);
    assert!(history.contains("data-figures=\"/history/run-qwen36-moe-default/figures.json\""));
    // 289.0 → 270.0 tok/s is −6.6%, past the 5% threshold: marked; the KV pool did not move.
    assert!(history.contains("<tr class=\"regression\"><td>Decode tok/s</td><td>289.0</td><td>270.0</td><td data-sort=\"-6.5743944636678195\">−6.6%</td></tr>"), "{history}");
    assert_eq!(history.matches("<tr class=\"regression\">").count(), 1);
    assert!(history.contains("vLLM 0.29.0, 2026-10-01 against vLLM 0.28.0, 2026-09-07"));
    // Both runs' pages show the trend and link to the comparison.
    for id in ["qwen36-moe-default", "qwen36-moe-default-v029"] {
        let page = project.page(&format!("runs/{id}/index.html"));
        assert!(page.contains("<section id=\"history\">"), "{id}");
        assert!(
            page.contains("href=\"/history/run-qwen36-moe-default/\""),
            "{id}"
        );
    }
}

#[test]
fn sweep_comparison_and_failure_pages_reached_by_a_link_say_what_they_are() {
    let project = built_seed(&[]);
    // A sweep: its trail, its range, peak and single-stream rate, the GPU, and its peak
    // against its one-knob sibling: by hand from the seed, seqs 32 peaks at 2,546.4 tok/s
    // (c32), the baseline at 1,223.0 (c8): 2546.4 / 1223.0 = 2.082, +108%.
    let sweep = project.page("sweeps/qwen3-6-35b-a3b-max-num-seqs-32/index.html");
    assert!(sweep.contains("<nav class=\"breadcrumb\" aria-label=\"Breadcrumb\"><a href=\"/models/qwen3-6-35b-a3b/\">Qwen3.6-35B-A3B</a> › <a href=\"/sweeps/\">Sweeps</a> › <span aria-current=\"page\">qwen3.6-35b-a3b max-num-seqs 32</span></nav>"));
    let summary = "concurrency 1 to 32, at most 2546.4 output tok/s over all streams (at concurrency 32), 276.6 tok/s per stream at concurrency 1";
    assert!(sweep.contains(&format!(
        "<p class=\"lede\">Sweep of {summary}, on NVIDIA GeForce RTX 5090.</p>"
    )));
    assert!(sweep.contains("<a href=\"/sweeps/qwen3-6-35b-a3b-baseline/\">+108% peak throughput (one measurement each, no interval) against qwen3.6-35b-a3b baseline</a> <span class=\"note\">(seqs: 8 there, 32 here)</span>"));
    assert!(sweep.contains(&format!(
        "<meta property=\"og:description\" content=\"qwen3.6-35b-a3b max-num-seqs 32: {summary}, on NVIDIA GeForce RTX 5090.\">"
    )));
    // A comparison: its mean KL against its sibling's, 0.100724 [0.092225, 0.110782] against
    // 0.102945 [0.094588, 0.113446]: −2%, but d = −0.002221 with a lower half-width of
    // √(0.008499² + 0.008357²) ≈ 0.0119: within noise.
    let cmp = project.page("quality/qwen3-8-fp8-nvfp4-fp8-kv/index.html");
    assert!(cmp.contains("<a href=\"/models/qwen3-8-27b/\">Qwen3.8-27B</a> › <a href=\"/quality/\">Quality</a> › <span aria-current=\"page\">Qwen3.8 FP8 → NVFP4 + fp8 KV</span>"));
    assert!(cmp.contains(
        "<a href=\"/quality/qwen3-8-fp8-nvfp4/\">mean KL within noise (95% intervals) against Qwen3.8 FP8 → NVFP4</a>"
    ));
    assert!(cmp.contains("Comparison of q38-nvfp4-kvfp8 against q38-fp8: mean KL divergence 0.101 nats and top-1 agreement 0.897 over 23,856 teacher-forced positions, on NVIDIA GeForce RTX 5090."));
    // A failure: its trail, what happened where, and its reason in the preview.
    let failure = project.page("failures/qwen38-fp8-8k/index.html");
    assert!(failure.contains("<a href=\"/models/qwen3-8-27b/\">Qwen3.8-27B</a> › <a href=\"/failures/\">Failures</a> › <span aria-current=\"page\">qwen38-fp8-8k</span>"));
    assert!(failure.contains("out of memory at the first request, on NVIDIA GeForce RTX 5090</p>"));
    assert!(failure.contains("<meta property=\"og:description\" content=\"qwen38-fp8-8k: out of memory at the first request on NVIDIA GeForce RTX 5090. Profiles fine, reports a 21,845-token KV pool"));
}

#[test]
fn a_sweep_measured_again_has_a_history_diffed_level_by_level() {
    let project = Project::copy_of_repo();
    let mut doc = seed();
    let mut rerun = doc.sweeps[0].clone();
    assert_eq!(rerun.label, "qwen3.6-35b-a3b baseline");
    rerun.label = "qwen3.6-35b-a3b baseline, vLLM 0.29.0".into();
    rerun.vllm_version = Some("0.29.0".into());
    rerun.generated = data::Date::new("2026-10-01").unwrap();
    let c8 = rerun
        .levels
        .iter_mut()
        .find(|l| l.concurrency == Some(8))
        .unwrap();
    assert_eq!(c8.total_tok_s, Some(1223.0));
    c8.total_tok_s = Some(1100.0);
    doc.sweeps.push(rerun);
    project.write("data/results.json", &data::to_json(&doc));
    build(&project, &[]).assert_success();
    let history = project.page("history/sweep-qwen3-6-35b-a3b-baseline/index.html");
    // By hand: c8's total throughput 1223.0 → 1100.0 is −10.1%, past the 5% threshold; no
    // other figure moved. The peak, 1223.0 at c8 before, is 1210.9 at c16 after.
    assert!(history.contains("<tr class=\"regression\"><td>c = 8: Output tok/s, all streams</td><td>1223.0</td><td>1100.0</td><td data-sort=\"-10.057236304170074\">−10.1%</td></tr>"), "{history}");
    assert_eq!(history.matches("<tr class=\"regression\">").count(), 1);
    // Both sweeps' pages show the trend of the peak and link to the comparison.
    for slug in [
        "qwen3-6-35b-a3b-baseline",
        "qwen3-6-35b-a3b-baseline-vllm-0-29-0",
    ] {
        let page = project.page(&format!("sweeps/{slug}/index.html"));
        assert!(page.contains("<section id=\"history\">"), "{slug}");
        assert!(
            page.contains("href=\"/history/sweep-qwen3-6-35b-a3b-baseline/\""),
            "{slug}"
        );
        assert!(page.contains(">1210.9<"), "{slug}");
    }
}

#[test]
fn a_tpot_percentile_limit_holds_where_levels_measured_it() {
    let project = Project::copy_of_repo();
    let mut doc = seed();
    let seqs = doc
        .sweeps
        .iter_mut()
        .find(|s| s.label == "qwen3.6-35b-a3b max-num-seqs 32")
        .unwrap();
    for (level, tpot) in seqs.levels.iter_mut().zip([4.0, 5.0, 5.0, 6.0, 8.0, 11.0]) {
        level.tpot_p50_ms = Some(tpot - 0.5);
        level.tpot_p95_ms = Some(tpot);
    }
    project.write("data/results.json", &data::to_json(&doc));
    append_settings(&project, "[slo]\ntpot_p95_ms = 8\n");
    build(&project, &[]).assert_success();
    let sweeps = project.page("sweeps/index.html");
    // TPOT p95 at most 8 ms: seqs 32's c16 (8.0) holds, c32 (11.0) does not: 1860.8 tok/s.
    // The baseline measured no TPOT percentile, so none of its levels is within.
    let within = row(&sweeps, "within-qwen3-6-35b-a3b-max-num-seqs-32");
    assert!(
        within.contains("<td>16<") && within.contains(">1860.8<"),
        "{within}"
    );
    assert!(row(&sweeps, "within-qwen3-6-35b-a3b-baseline").contains(">none within<"));
    // The sweep's levels table shows the percentiles; a sweep without them has no such columns.
    let page = project.page("sweeps/qwen3-6-35b-a3b-max-num-seqs-32/index.html");
    assert!(page.contains(">TPOT p95 (ms)</th>"));
    assert!(row(&page, "c16").contains(">7.5</td><td title=\"p95 of 32 requests\">8.0<"));
    let baseline = project.page("sweeps/qwen3-6-35b-a3b-baseline/index.html");
    assert!(!baseline.contains("TPOT p95"));
}

#[test]
fn a_tail_percentile_of_too_few_requests_is_greyed_with_its_n_and_never_drawn() {
    let project = built_seed(&[]);
    let page = project.page("sweeps/qwen3-8-27b-default/index.html");
    // The shipped sweep ran 2 rounds: concurrency 1 has 2 requests, 8 has 16, 16 has 32.
    let c1 = row(&page, "c1");
    assert!(
        c1.contains(
            "<td class=\"weak\" data-sort=\"0.1211\" title=\"p95 of 2 requests; recorded 0.1211\">0.121 <small>(p95 of 2 requests)</small></td>"
        ),
        "{c1}"
    );
    assert!(c1.contains("title=\"p50 of 2 requests"), "{c1}");
    assert!(row(&page, "c8").contains("(p95 of 16 requests)"));
    let c16 = row(&page, "c16");
    assert!(
        c16.contains("<td title=\"p95 of 32 requests\">12.089</td>"),
        "{c16}"
    );
    // The TTFT p95 line is drawn at 16 and 32 only; the p50 line at every level.
    let option = |title: &str| {
        let at = page
            .find(title)
            .unwrap_or_else(|| panic!("no chart {title}"));
        let script = &page[at..];
        let open = "<script type=\"application/json\">";
        let start = script.find(open).unwrap() + open.len();
        let end = script[start..].find("</script>").unwrap();
        serde_json::from_str::<serde_json::Value>(&script[start..start + end]).unwrap()
    };
    let chart = option("Time to first token against concurrency");
    let series = chart["series"].as_array().unwrap();
    let points = |name: &str| -> Vec<f64> {
        let s = series.iter().find(|s| s["name"] == name).unwrap();
        s["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p[0].as_f64().or_else(|| p["value"][0].as_f64()).unwrap())
            .collect()
    };
    assert_eq!(points("TTFT p95 (levels of 20+ requests)"), [16.0, 32.0]);
    assert_eq!(points("TTFT p50"), [1.0, 2.0, 4.0, 8.0, 16.0, 32.0]);
}

#[test]
fn the_fp8_kv_comparison_is_judged_against_its_floor_by_hand() {
    let project = built_seed(&[]);
    let page = project.page("quality/qwen3-6-bf16-kv-fp8-kv/index.html");
    // fp8 KV: 0.004865 [0.004338, 0.005378]; its floor, the same server again (same
    // reference q36-root): 0.004159 [0.003735, 0.004601]. d = 0.000706; its interval is
    // d − √(0.000527² + 0.000442²) = 0.0000182 to d + √(0.000513² + 0.000424²) = 0.00137:
    // above zero, so beyond noise, at 0.004865 / 0.004159 = 1.17 × the floor.
    for words in [
        "Beyond noise: 1.17 × its floor, Qwen3.6 bf16 KV → same server again",
        "The difference, 0.000706 nats, has the 95% interval 0.0000182 – 0.00137, which leaves out zero.",
        // Its KL from the top 20 understates, and says by how much room: support mass 0.99799.
        "a lower bound: computed from each side&#39;s top-20 logprobs",
        "The tokens both top-20 lists held carried 99.8% of the reference&#39;s probability",
        "the weaker test",
    ] {
        assert!(page.contains(words), "{words}");
    }
    let quality = project.page("quality/index.html");
    assert!(row(&quality, "comparison-qwen3-6-bf16-kv-fp8-kv").contains(">1.17 × floor</td>"));
    // Eager against the same floor: 0.004447 [0.003977, 0.004926]; d = 0.000288, low =
    // 0.000288 − √(0.00047² + 0.000442²) < 0: within noise.
    assert!(row(&quality, "comparison-qwen3-6-bf16-kv-eager").contains(">within noise</td>"));
    // Qwen3.8 FP8's floor measured 0 [0, 0]: the comparison's own interval, 0.094588 –
    // 0.113446, leaves out zero, so beyond noise.
    assert!(row(&quality, "comparison-qwen3-8-fp8-nvfp4").contains(">beyond noise (floor 0)</td>"));
    let page = project.page("quality/qwen3-8-fp8-nvfp4/index.html");
    assert!(
        page.contains(
            "Beyond noise: its floor, Qwen3.8 FP8 → same server again, measured 0 nats (the \
             server gave the same logprobs when run again), so there is no noise, and its own \
             0.103 nats have the 95% interval 0.0946 – 0.113, which leaves out zero."
        ),
        "{page}"
    );
}

#[test]
fn a_comparison_with_per_prompt_sums_is_judged_by_a_paired_bootstrap() {
    // The fp8 KV comparison and its floor, rewritten over four prompts of ten positions.
    // Floor: KL sums 0.1, 0.3, 0.5, 0.7 (mean 0.04); fp8 KV: 0.2, 0.4, 0.6, 0.8 (mean 0.05).
    // Their recorded intervals, [0.02, 0.06] and [0.03, 0.07], overlap so much that the
    // two-interval test holds zero (d = 0.01, half-width √(0.02² + 0.02²) = 0.028). Paired,
    // every prompt is 0.01 a position higher, whichever prompts a resample draws: the interval
    // is 0.01 – 0.01, beyond zero, at 0.05 / 0.04 = 1.25 × the floor.
    let mut doc = seed();
    let rewrite = |d: &mut data::Divergence, sums: [f64; 4], ci: [f64; 2]| {
        let tf = &mut d.teacher_forced;
        tf.prompts = 4;
        tf.positions = 40;
        tf.kld_mean = sums.iter().sum::<f64>() / 40.0;
        tf.kld_mean_ci95 = ci;
        tf.per_category.clear();
        tf.per_prompt = sums
            .iter()
            .enumerate()
            .map(|(i, &kl_sum)| {
                let sum = data::PromptSum {
                    kl_sum,
                    positions: 10,
                };
                (format!("p{i}"), sum)
            })
            .collect();
    };
    let floor = doc
        .divergence
        .iter()
        .position(|d| d.label == "Qwen3.6 bf16 KV → same server again");
    let fp8 = doc
        .divergence
        .iter()
        .position(|d| d.label == "Qwen3.6 bf16 KV → fp8 KV");
    rewrite(
        &mut doc.divergence[floor.unwrap()],
        [0.1, 0.3, 0.5, 0.7],
        [0.02, 0.06],
    );
    rewrite(
        &mut doc.divergence[fp8.unwrap()],
        [0.2, 0.4, 0.6, 0.8],
        [0.03, 0.07],
    );
    let project = Project::with_results(&serde_json::to_vec_pretty(&doc).unwrap());
    build(&project, &[]).assert_success();
    let page = project.page("quality/qwen3-6-bf16-kv-fp8-kv/index.html");
    for words in [
        "Beyond noise: 1.25 × its floor, Qwen3.6 bf16 KV → same server again (0.04 nats",
        "The difference, 0.0100 nats, has the 95% interval 0.0100 – 0.0100, which leaves out zero.",
        "Judged by a bootstrap paired over the 4 prompts both scored",
    ] {
        assert!(page.contains(words), "{words}");
    }
    assert!(!page.contains("the weaker test"));
    let quality = project.page("quality/index.html");
    assert!(row(&quality, "comparison-qwen3-6-bf16-kv-fp8-kv").contains(">1.25 × floor</td>"));
    // Eager keeps no per-prompt sums: judged from the two intervals, and says so.
    let eager = project.page("quality/qwen3-6-bf16-kv-eager/index.html");
    assert!(eager.contains("the weaker test"));
}

#[test]
fn memory_is_in_gib_on_every_page() {
    let project = built_seed(&[]);
    // The BF16 failure: 55.6 GB in schema version 1, 55.6 × 10⁹ / 2³⁰ = 51.782 GiB, shown
    // to the registry's one decimal.
    let failures = project.page("failures/index.html");
    assert!(failures.contains("Weights (GiB)"));
    assert!(row(&failures, "failure-qwen38-bf16").contains(">51.8</td>"));
    let failure = project.page("failures/qwen38-bf16/index.html");
    assert!(failure.contains("<dd>51.8 GiB</dd>"));
    // Its reason, one unit in a sentence (the narrative may still speak of a card's GB).
    assert!(failure.contains("51.8 GiB of weights against 31.4 GiB of VRAM"));
    // A run's weights from vLLM's "Model loading took 21.9 GiB".
    let run = project.page("runs/qwen36-moe-default/index.html");
    assert!(run.contains("21.9 GiB (loaded on the GPU, from vLLM&#39;s load report)"));
    assert!(
        project
            .page("method/index.html")
            .contains("Memory is in GiB (2³⁰ bytes) throughout")
    );
}

#[test]
fn a_run_and_the_sweep_of_its_set_up_name_each_other_with_their_methods() {
    let project = built_seed(&[]);
    let run = project.page("runs/qwen38-dense-mtp/index.html");
    // The profile qwen3.8-27b with SPEC_DECODE=1 LANGUAGE_MODEL_ONLY=1 is 8 sequences,
    // vision off, eager, MTP on: the sweep "qwen3.8-27b MTP, text-only".
    for words in [
        "<a href=\"/sweeps/qwen3-8-27b-mtp-text-only/\">",
        "it sent generated prompts of 700 words (786 tokens as served), 256 output tokens, ignore_eos on",
        "this run sent the report&#39;s decode method, as Requests above says.",
        "<dt>Requests</dt><dd>the report&#39;s decode method: single request, 300 output tokens cut from a longer answer (no ignore_eos",
        "The run&#39;s decode is 53.1 tok/s; the sweep&#39;s per-stream decode at concurrency 1 is 75.5 tok/s.",
    ] {
        assert!(run.contains(words), "{words}");
    }
    let sweep = project.page("sweeps/qwen3-8-27b-mtp-text-only/index.html");
    assert!(sweep.contains("<a href=\"/runs/qwen38-dense-mtp/\">"));
    assert!(sweep.contains(
        "it sent the report&#39;s decode method: single request, 300 output tokens cut from a longer answer (no ignore_eos"
    ));
    assert!(sweep.contains("none: each level&#39;s first requests are measured cold"));
    // Its levels predate intervals, and the table says so rather than promising them.
    assert!(
        sweep.contains("without intervals (its levels recorded none, as before method version 2)")
    );
    // The default run is not the MTP sweep's set-up.
    assert!(
        !sweep
            .contains("<a href=\"/runs/qwen38-dense-default/\">qwen38-dense-default</a> measures")
    );
}

#[test]
fn a_percentile_with_an_interval_shows_how_far_it_could_move() {
    let project = Project::copy_of_repo();
    let mut doc = seed();
    let sweep = doc
        .sweeps
        .iter_mut()
        .find(|s| s.label == "qwen3.8-27b default")
        .unwrap();
    let c16 = sweep
        .levels
        .iter_mut()
        .find(|l| l.concurrency == Some(16))
        .unwrap();
    c16.ci95.insert("ttft_p50_s".into(), [5.9, 6.3]);
    project.write("data/results.json", &data::to_json(&doc));
    build(&project, &[]).assert_success();
    let page = project.page("sweeps/qwen3-8-27b-default/index.html");
    let value = c16_ttft_p50(&doc);
    // TTFT to the millisecond: 5.900–6.300, and the interval as recorded on hover.
    let cell = format!(
        "title=\"p50 of 32 requests; 95% interval 5.9 – 6.3\">{value:.3} <small>5.900–6.300</small></td>"
    );
    assert!(
        row(&page, "c16").contains(&cell),
        "{cell} in {}",
        row(&page, "c16")
    );
    // A key that is not a percentile of the level is refused by check.
    let mut bad = doc.clone();
    bad.sweeps[0].levels[0]
        .ci95
        .insert("total_tok_s".into(), [1.0, 2.0]);
    project.write("data/results.json", &data::to_json(&bad));
    let check = project.run(&["check"]);
    assert!(!check.status.success());
    assert!(
        check.stderr.contains("/sweeps/0/levels/0/ci95/total_tok_s"),
        "{}",
        check.stderr
    );
}

fn c16_ttft_p50(doc: &Results) -> f64 {
    doc.sweeps
        .iter()
        .find(|s| s.label == "qwen3.8-27b default")
        .unwrap()
        .levels
        .iter()
        .find(|l| l.concurrency == Some(16))
        .unwrap()
        .ttft_p50_s
        .unwrap()
}

#[test]
fn a_change_of_method_is_said_and_never_marked_a_regression() {
    let project = Project::copy_of_repo();
    let mut doc = seed();
    let mut rerun = doc.sweeps[0].clone();
    rerun.label = "qwen3.6-35b-a3b baseline, method 2".into();
    rerun.generated = data::Date::new("2026-10-01").unwrap();
    rerun.method = Some(data::RecordMethod {
        version: 2,
        client: "benchsite 0.1.0".into(),
        prompt_source: "generated text".into(),
        prompt_sha256: "0".repeat(64),
        warmup: 1,
        token_count: "usage".into(),
        cache: data::CacheIsolation::Nonce,
    });
    let c8 = rerun
        .levels
        .iter_mut()
        .find(|l| l.concurrency == Some(8))
        .unwrap();
    c8.total_tok_s = Some(1100.0);
    doc.sweeps.push(rerun);
    project.write("data/results.json", &data::to_json(&doc));
    build(&project, &[]).assert_success();
    let history = project.page("history/sweep-qwen3-6-35b-a3b-baseline/index.html");
    // The same −10.1% as measured by one method is listed, not marked: the definitions moved.
    assert!(history.contains("<td>c = 8: Output tok/s, all streams</td><td>1223.0</td>"));
    assert_eq!(history.matches("<tr class=\"regression\">").count(), 0);
    assert!(
        history
            .contains("measured by methods 1 and 2, whose definitions differ, so no row is marked")
    );
    // The sweep page says how it was measured.
    let page = project.page("sweeps/qwen3-6-35b-a3b-baseline-method-2/index.html");
    assert!(page.contains("version 2, measured by benchsite 0.1.0"));
    assert!(page.contains("1 request per stream before each level, discarded"));
}

#[test]
fn charts_follow_the_limits() {
    let project = built_seed(&[]);
    // Of Qwen3.8-27B's 30 levels at 786 tokens in and 256 out, 20 have no failed request, TTFT
    // p95 ≤ 2 s and ≥ 20 tok/s per user (the report's defaults; counted with python from
    // data/results.json); the others are grey, and the frontier's points carry their load.
    let sweeps = project.page("sweeps/index.html");
    assert!(
        sweeps.contains(
            "30 levels of 5 sweeps of Qwen3.8-27B, 786 tokens in, 256 tokens out; 7 levels are on \
             the frontier, which a dashed line joins, each labelled with its load; 20 within the \
             limits (TTFT p95 ≤ 2 s and at least 20 output tok/s per user), the others grey"
        ),
        "the frontier's description"
    );
    assert!(sweeps.contains("\"label\":{\"formatter\":\"limit: 20 tok/s per user\""));
    assert!(sweeps.contains("\"color\":\"#9ca3af\""), "a grey point");
    // A sweep's charts draw the limits on the figures they bound.
    let sweep = project.page("sweeps/qwen3-6-35b-a3b-baseline/index.html");
    assert!(sweep.contains(
        "{\"label\":{\"formatter\":\"limit: TTFT p95 ≤ 2 s\",\"position\":\"insideEndTop\"},\"lineStyle\":{\"color\":\"#6b7280\",\"type\":\"dotted\"},\"yAxis\":2.0}"
    ));
    assert!(sweep.contains("\"formatter\":\"limit: at least 20 tok/s per user\""));
    // The price field is there without a configured price.
    assert!(sweeps.contains(
        "Price per GPU-hour <input type=\"number\" min=\"0\" step=\"any\" name=\"gpu_hour\">"
    ));
}

#[test]
fn a_count_of_one_takes_the_singular() {
    let project = built_seed(&[]);
    // The seed has one pair of runs one setting apart: qwen36-moe-default and qwen36-moe-mtp
    // (SPEC_DECODE=1); qwen38-dense-mtp departs from its default in two.
    let ablations = project.page("ablations/index.html");
    assert!(
        ablations.contains("<a href=\"#runs\">Runs</a> (1 pair)"),
        "{ablations}"
    );
    assert!(!ablations.contains(" 1 pairs"));
}

//! The built-in theme: a report made by the previous release's `init`, which copied every
//! template, builds with this one and is told which copies are old and what they lack; a
//! one-block override keeps the rest of its page the default's; ejected copies render the same
//! site, and `check` says when the default they came from has moved on.

mod support;

use std::path::Path;

use support::{Project, copy_dir, repo, run_benchsite};

/// Every page of a built site, by path.
fn pages(root: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    support::walk(&root.join("site"))
        .into_iter()
        .map(|path| {
            let bytes = std::fs::read(&path).unwrap();
            (
                path.strip_prefix(root.join("site"))
                    .unwrap()
                    .display()
                    .to_string(),
                bytes,
            )
        })
        .collect()
}

#[test]
fn a_report_from_the_previous_init_builds_and_is_told_its_copies_are_old() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("report");
    copy_dir(&repo().join("tests/fixtures/init-0.1.0"), &root);
    assert!(
        root.join("templates/run.html").exists(),
        "the fixture froze the theme"
    );
    let root_str = root.to_str().unwrap();
    // Its search page and script drive Pagefind's UI, which is gone: both are named, with
    // the fix, and nothing is built.
    let check = run_benchsite(&["--root", root_str, "check"]);
    assert!(!check.status.success());
    for name in ["search.html", "static/benchsite.js"] {
        assert!(
            check
                .stderr
                .contains(&format!("templates/{name}: uses Pagefind's search UI"))
                && check
                    .stderr
                    .contains(&format!("Delete templates/{name} to use the default")),
            "{name}: {}",
            check.stderr
        );
    }
    let build = run_benchsite(&["--root", root_str, "build"]);
    assert!(
        !build.status.success()
            && build
                .stderr
                .contains("templates/search.html: uses Pagefind's search UI"),
        "{}",
        build.stderr
    );
    assert!(!root.join("site").exists());
    std::fs::remove_file(root.join("templates/search.html")).unwrap();
    std::fs::remove_file(root.join("templates/static/benchsite.js")).unwrap();
    // Then it builds, and is told which other copies are old.
    let check = run_benchsite(&["--root", root_str, "check"]);
    check.assert_success();
    assert!(
        !check.stderr.contains("extends \"benchsite/static/"),
        "a static file cannot extend: {}",
        check.stderr
    );
    assert!(
        check.stderr.contains(
            "warning: templates/run.html is a copy of an earlier benchsite's default (as `benchsite init` wrote them); it lacks the default's block figures"
        ) && check.stderr.contains("{% extends \"benchsite/run.html\" %}"),
        "{}",
        check.stderr
    );
    run_benchsite(&["--root", root_str, "build"]).assert_success();
    let list = run_benchsite(&["--root", root_str, "theme", "list"]);
    list.assert_success();
    assert!(
        list.stdout
            .contains("run.html           overridden by a copy of an earlier default"),
        "{}",
        list.stdout
    );
    // The fix the warning names: without the copies, the report is on the current theme.
    std::fs::remove_dir_all(root.join("templates")).unwrap();
    let check = run_benchsite(&["--root", root_str, "check"]);
    check.assert_success();
    assert!(
        !check.stderr.contains("warning: templates/"),
        "{}",
        check.stderr
    );
}

#[test]
fn a_one_block_override_keeps_the_rest_of_its_page_the_defaults() {
    let project = Project::copy_of_repo();
    let root = project.root.path();
    project.run(&["build"]).assert_success();
    let default = pages(root);
    project.write(
        "templates/run.html",
        "{% extends \"benchsite/run.html\" %}\n{% block samples %}<section id=\"samples\"><h2>Samples, as we read them</h2></section>{% endblock samples %}\n",
    );
    project.run(&["check"]).assert_success();
    project.run(&["build"]).assert_success();
    let overridden = pages(root);
    assert_eq!(
        default.keys().collect::<Vec<_>>(),
        overridden.keys().collect::<Vec<_>>()
    );
    // Outside its block every run page is the default's, so whatever changes there reaches
    // it; no other page changes at all.
    let cut = |bytes: &[u8]| {
        let text = String::from_utf8(bytes.to_vec()).unwrap();
        let start = text.find("<section id=\"samples\">").unwrap();
        let end = start + text[start..].find("</section>").unwrap() + "</section>".len();
        (
            text[..start].to_owned(),
            text[start..end].to_owned(),
            text[end..].to_owned(),
        )
    };
    let mut runs = 0;
    for (path, bytes) in &overridden {
        if path.starts_with("runs/") && path != "runs/index.html" {
            let (before, block, after) = cut(bytes);
            let (default_before, _, default_after) = cut(&default[path]);
            assert!(
                block.contains("<h2>Samples, as we read them</h2>"),
                "{path}"
            );
            assert!(before == default_before && after == default_after, "{path}");
            runs += 1;
        } else if path.ends_with(".html") {
            assert!(bytes == &default[path], "{path} changed");
        }
    }
    assert_eq!(runs, 6);
}

#[test]
fn ejected_copies_render_the_same_site_and_check_names_older_ones() {
    let project = Project::copy_of_repo();
    let root = project.root.path();
    project.run(&["build"]).assert_success();
    let default = pages(root);
    let ejected = project.run(&["theme", "eject"]);
    ejected.assert_success();
    assert!(
        ejected.stdout.contains("wrote templates/run.html"),
        "{}",
        ejected.stdout
    );
    let copy = std::fs::read_to_string(root.join("templates/run.html")).unwrap();
    assert!(
        copy.starts_with(&format!(
            "{{# benchsite theme: run.html of benchsite {}, sha256 ",
            env!("CARGO_PKG_VERSION")
        )),
        "{copy}"
    );
    let check = project.run(&["check"]);
    check.assert_success();
    assert!(
        !check.stderr.contains("warning: templates/"),
        "{}",
        check.stderr
    );
    project.run(&["build"]).assert_success();
    assert_eq!(
        pages(root),
        default,
        "the ejected theme renders the same site"
    );

    // A copy can be ejected again only on purpose.
    let again = project.run(&["theme", "eject", "run.html"]);
    assert_eq!(again.status.code(), Some(1));
    assert!(
        again
            .stderr
            .contains("templates/run.html exists; --force replaces it")
    );
    let unknown = project.run(&["theme", "eject", "nope.html"]);
    assert!(
        unknown.stderr.contains("no default template \"nope.html\""),
        "{}",
        unknown.stderr
    );

    // Ejected from an older default, whose hash is not this one's, and lacking a block.
    let older = copy
        .replacen(
            &format!("of benchsite {}, sha256 ", env!("CARGO_PKG_VERSION")),
            "of benchsite 0.0.9, sha256 0000",
            1,
        )
        .replace("{% block launch %}", "")
        .replace("{% endblock launch %}", "");
    project.write("templates/run.html", &older);
    let check = project.run(&["check"]);
    check.assert_success();
    assert!(
        check.stderr.contains(
            "warning: templates/run.html was ejected from the default of benchsite 0.0.9, which has changed since; it lacks the default's block launch: delete it to use the default, or `benchsite theme eject --force run.html`"
        ),
        "{}",
        check.stderr
    );
    let list = project.run(&["theme", "list"]);
    assert!(
        list.stdout.contains(
            "run.html           overridden (ejected from benchsite 0.0.9; the default has changed)"
        ),
        "{}",
        list.stdout
    );
    project
        .run(&["theme", "eject", "--force", "run.html"])
        .assert_success();
    let check = project.run(&["check"]);
    assert!(
        !check.stderr.contains("warning: templates/run.html"),
        "{}",
        check.stderr
    );
}

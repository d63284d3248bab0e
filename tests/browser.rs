//! The built seed site in a real headless Chromium (Debian's `chromium`), driven by
//! playwright-core: every page loads without a console error, every chart renders, and the
//! sort buttons reorder a table. Needs `chromium` and `npm ci --prefix tests/browser`
//! (`.ci/run` installs both).

mod support;

use std::process::Command;

use support::{Project, repo, run_benchsite};

#[test]
fn every_page_works_in_chromium() {
    let script = repo().join("tests/browser/pages.mjs");
    assert!(
        repo()
            .join("tests/browser/node_modules/playwright-core")
            .exists(),
        "playwright-core is not installed: run `npm ci --prefix tests/browser` (and `apt-get install chromium`)"
    );
    let project = Project::copy_of_repo();
    let output = run_benchsite(&[
        "build",
        "--root",
        project.root_str(),
        "--base-url",
        "https://user.github.io/report/",
    ]);
    assert!(output.status.success(), "{}", output.stderr);
    let site = project.root.path().join("site");
    let output = Command::new("node")
        .arg(&script)
        .arg(&site)
        .arg("/report/")
        .output()
        .expect("node runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains(", 0 problems"), "{stdout}");
}

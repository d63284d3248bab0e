//! The crate `cargo package` makes: what building benchsite needs (the sources with the
//! built-in theme, the vendored ECharts, the build script and the lock file) and nothing of
//! the demo report, the tests, the build output or node_modules, at a size worth downloading.

mod support;

use std::process::Command;

use support::repo;

fn cargo() -> Command {
    let mut command = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    command.current_dir(repo());
    command
}

#[test]
fn the_packaged_crate_holds_what_it_needs_and_nothing_else() {
    let output = cargo()
        .args(["package", "--list", "--locked", "--allow-dirty"])
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let listed = String::from_utf8(output.stdout).unwrap();
    let files: Vec<&str> = listed.lines().collect();
    for needed in [
        "Cargo.toml",
        "Cargo.lock",
        "build.rs",
        "README.md",
        "src/main.rs",
        "src/lib.rs",
        "src/site/vendor/echarts/echarts.min.js",
        "src/scaffold/install.sh",
        "src/campaign/workflow.yml",
        "src/site/theme/base.html",
        "src/site/theme/static/style.css",
        "src/site/theme-history.txt",
    ] {
        assert!(files.contains(&needed), "{needed} is not packaged");
    }
    for file in &files {
        for left_out in [
            "site/",
            "templates/",
            "target/",
            "tests/",
            "benches/",
            "data/",
            "content/",
            "profiles/",
            ".github/",
        ] {
            assert!(!file.starts_with(left_out), "{file} is packaged");
        }
        assert!(!file.contains("node_modules"), "{file} is packaged");
    }

    let target = tempfile::tempdir().unwrap();
    let output = cargo()
        .args([
            "package",
            "--locked",
            "--no-verify",
            "--allow-dirty",
            "--target-dir",
        ])
        .arg(target.path())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let crate_file = target.path().join(format!(
        "package/benchsite-{}.crate",
        env!("CARGO_PKG_VERSION")
    ));
    let size = std::fs::metadata(&crate_file).unwrap().len();
    // ECharts is most of it (368 KB of its 1.1 MB compressed).
    assert!(
        size < 1024 * 1024,
        "{} is {size} bytes",
        crate_file.display()
    );
}

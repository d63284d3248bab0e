//! The GitHub workflows: the repository's CI and Pages workflows and the one `init` writes for
//! a report parse as YAML, pin every action to a commit, and build with exactly the command
//! this test runs locally; CI runs README.md's test command.

mod support;

use std::path::Path;
use std::process::Command;

use support::{Project, repo, run_benchsite};
use yaml_rust2::{Yaml, YamlLoader};

fn load(path: &Path) -> Yaml {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut documents = YamlLoader::load_from_str(&text)
        .unwrap_or_else(|e| panic!("{} is not YAML: {e}", path.display()));
    assert_eq!(documents.len(), 1, "{}", path.display());
    documents.remove(0)
}

/// Every step of every job.
fn steps(workflow: &Yaml) -> Vec<&Yaml> {
    let jobs = workflow["jobs"].as_hash().expect("jobs");
    jobs.values()
        .flat_map(|job| job["steps"].as_vec().expect("steps").iter())
        .collect()
}

fn step<'a>(workflow: &'a Yaml, run: &str) -> &'a Yaml {
    steps(workflow)
        .into_iter()
        .find(|step| step["run"].as_str().map(str::trim) == Some(run))
        .unwrap_or_else(|| panic!("no step runs {run:?}"))
}

fn uses(workflow: &Yaml) -> Vec<&str> {
    steps(workflow)
        .into_iter()
        .filter_map(|step| step["uses"].as_str())
        .collect()
}

/// `owner/name@<40 hex digits>`: an action pinned to a commit, not a movable tag.
fn assert_pinned(path: &str, workflow: &Yaml) {
    let actions = uses(workflow);
    assert!(!actions.is_empty(), "{path}");
    for action in actions {
        let (name, commit) = action.split_once('@').expect("owner/name@ref");
        assert_eq!(name.split('/').count(), 2, "{path}: {action}");
        assert!(
            commit.len() == 40 && commit.bytes().all(|b| b.is_ascii_hexdigit()),
            "{path}: {action} is not pinned to a commit"
        );
    }
}

/// The Pages workflow's shape: check, configure, build with the Pages base URL, upload
/// `site`, deploy; `on` push to main.
fn assert_publishes(path: &str, workflow: &Yaml) {
    assert_pinned(path, workflow);
    assert_eq!(
        workflow["on"]["push"]["branches"][0].as_str(),
        Some("main"),
        "{path}"
    );
    assert_eq!(
        workflow["permissions"]["pages"].as_str(),
        Some("write"),
        "{path}"
    );
    step(workflow, "benchsite check");
    let build = step(workflow, benchsite::scaffold::PAGES_BUILD);
    assert_eq!(
        build["env"]["BASE_URL"].as_str(),
        Some("${{ steps.pages.outputs.base_url }}/"),
        "{path}"
    );
    let actions = uses(workflow);
    for official in [
        "actions/configure-pages@",
        "actions/upload-pages-artifact@",
        "actions/deploy-pages@",
    ] {
        assert!(
            actions.iter().any(|a| a.starts_with(official)),
            "{path}: {official}"
        );
    }
    let upload = steps(workflow)
        .into_iter()
        .find(|s| {
            s["uses"]
                .as_str()
                .is_some_and(|u| u.starts_with("actions/upload-pages-artifact@"))
        })
        .unwrap();
    assert_eq!(upload["with"]["path"].as_str(), Some("site"), "{path}");
}

/// Runs a workflow step's `run` in `dir` as the runner would (bash), with the built
/// benchsite first on PATH.
fn run_step(dir: &Path, run: &str, env: &[(&str, &str)]) -> std::process::Output {
    let bin = Path::new(env!("CARGO_BIN_EXE_benchsite")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let output = Command::new("bash")
        .args(["-eo", "pipefail", "-c", run])
        .current_dir(dir)
        .env("PATH", path)
        .envs(env.iter().copied())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{run}: {}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

#[test]
fn the_repository_workflows_parse_and_pin_their_actions() {
    let ci = load(&repo().join(".github/workflows/ci.yml"));
    assert_pinned("ci.yml", &ci);
    assert!(!ci["on"]["push"].is_badvalue(), "ci.yml runs on push");
    assert!(
        !ci["on"]["pull_request"].is_badvalue(),
        "ci.yml runs on pull requests"
    );
    // CI runs .ci/run, which runs README.md's test command as written.
    step(&ci, "bash .ci/run");
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let test_command = readme
        .split("```sh\n")
        .nth(1)
        .and_then(|block| block.lines().nth(1))
        .and_then(|line| line.split('#').next())
        .map(str::trim)
        .expect("README.md's second command");
    let ci_run = std::fs::read_to_string(repo().join(".ci/run")).unwrap();
    assert_eq!(
        ci_run.lines().rfind(|line| !line.trim().is_empty()),
        Some(test_command),
        ".ci/run ends with README.md's test command"
    );

    let pages = load(&repo().join(".github/workflows/pages.yml"));
    assert_publishes("pages.yml", &pages);
    // The repository's own build is cached.
    assert!(
        uses(&pages).iter().any(|a| a.starts_with("actions/cache@")),
        "pages.yml caches its build"
    );
}

#[test]
fn init_writes_a_pages_workflow_that_installs_the_pinned_benchsite() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("report");
    let git = "https://example.org/forks/benchsite.git";
    run_benchsite(&[
        "init",
        root.to_str().unwrap(),
        "--benchsite-git",
        git,
        "--benchsite-tag",
        "v9.8.7",
    ])
    .assert_success();
    let workflow = load(&root.join(".github/workflows/pages.yml"));
    assert_publishes("init's pages.yml", &workflow);
    assert_eq!(workflow["env"]["BENCHSITE_GIT"].as_str(), Some(git));
    assert_eq!(workflow["env"]["BENCHSITE_TAG"].as_str(), Some("v9.8.7"));
    let install = step(
        &workflow,
        r#"cargo install --locked --git "$BENCHSITE_GIT" --tag "$BENCHSITE_TAG" benchsite"#,
    );
    // Installed only when the cache, keyed by the repository and tag, misses.
    assert_eq!(
        install["if"].as_str(),
        Some("steps.benchsite.outputs.cache-hit != 'true'")
    );
    let cache = steps(&workflow)
        .into_iter()
        .find(|s| s["id"].as_str() == Some("benchsite"))
        .expect("the cache step");
    assert_eq!(
        cache["with"]["path"].as_str(),
        Some("~/.cargo/bin/benchsite")
    );
    let key = cache["with"]["key"].as_str().unwrap();
    assert!(
        key.contains("env.BENCHSITE_GIT") && key.contains("env.BENCHSITE_TAG"),
        "{key}"
    );

    let gitignore = std::fs::read_to_string(root.join(".gitignore")).unwrap();
    assert!(
        gitignore.lines().any(|line| line == "/site/"),
        "{gitignore}"
    );
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    for says in [
        "## Preview",
        "benchsite serve",
        "## Collect",
        "benchsite collect run",
        "## Publish",
        "Source: GitHub Actions",
        &format!("cargo install --locked --git {git} --tag v9.8.7 benchsite"),
    ] {
        assert!(readme.contains(says), "README.md lacks {says:?}:\n{readme}");
    }
}

#[test]
fn the_pages_build_step_builds_a_new_report_and_the_seed_for_a_project_site() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("report");
    run_benchsite(&["init", root.to_str().unwrap()]).assert_success();
    let workflow = load(&root.join(".github/workflows/pages.yml"));
    let base = [("BASE_URL", "https://someone.github.io/report/")];
    let seed = Project::copy_of_repo();
    for project in [root.as_path(), seed.root.path()] {
        for run in ["benchsite check", benchsite::scaffold::PAGES_BUILD] {
            let command = step(&workflow, run)["run"].as_str().unwrap();
            run_step(project, command, &base);
        }
        let home = std::fs::read_to_string(project.join("site/index.html")).unwrap();
        assert!(
            home.contains(r#"href="/report/assets/style.css""#),
            "{}",
            project.display()
        );
        let sitemap = std::fs::read_to_string(project.join("site/sitemap.xml")).unwrap();
        assert!(
            sitemap.contains("<loc>https://someone.github.io/report/</loc>"),
            "{sitemap}"
        );
    }
}

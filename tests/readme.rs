//! What README.md and REFERENCE.md say is true: every `benchsite` command in their shell
//! blocks parses (run with `--help` after its arguments, so an unknown subcommand or flag fails
//! it), and the templates REFERENCE.md lists are exactly the defaults compiled into benchsite.

mod support;

use support::{repo, run_benchsite};

/// The `benchsite` commands of the ```sh blocks of `text`: continuation lines joined,
/// comments dropped, `&&` chains split.
fn commands(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut in_shell = false;
    let mut pending = String::new();
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed.starts_with("```") {
            in_shell = !in_shell && trimmed == "```sh";
            continue;
        }
        if !in_shell {
            continue;
        }
        pending.push_str(trimmed.trim_end_matches('\\'));
        pending.push(' ');
        if trimmed.ends_with('\\') {
            continue;
        }
        let line = std::mem::take(&mut pending);
        let code = match line.find(" #") {
            Some(at) => &line[..at],
            None => &line,
        };
        for part in code.split("&&") {
            let part = part.trim();
            if part.starts_with("benchsite ") {
                found.push(part.to_owned());
            }
        }
    }
    found
}

#[test]
fn every_command_in_the_readme_and_the_reference_parses() {
    let mut checked = 0;
    for doc in ["README.md", "REFERENCE.md"] {
        let text = std::fs::read_to_string(repo().join(doc)).unwrap();
        for command in commands(&text) {
            let mut words = shell_words::split(&command).unwrap();
            words.remove(0);
            words.push("--help".into());
            let args: Vec<&str> = words.iter().map(String::as_str).collect();
            let output = run_benchsite(&args);
            assert!(
                output.status.success() && output.stdout.contains("Usage: benchsite"),
                "{doc}: `{command}` does not parse:\n{}",
                output.stderr
            );
            checked += 1;
        }
    }
    assert!(checked >= 12, "only {checked} commands found");
}

#[test]
fn the_template_list_is_the_embedded_theme() {
    let reference = std::fs::read_to_string(repo().join("REFERENCE.md")).unwrap();
    let table = reference
        .split("| template | what it renders |")
        .nth(1)
        .expect("REFERENCE.md's template table");
    let mut listed: Vec<String> = table
        .lines()
        .skip(2)
        .take_while(|line| line.starts_with('|'))
        .flat_map(|line| {
            let first = line.split('|').nth(1).unwrap_or_default();
            first
                .split('`')
                .skip(1)
                .step_by(2)
                .map(str::to_owned)
                .collect::<Vec<_>>()
        })
        .collect();
    listed.sort();
    let mut embedded: Vec<String> = benchsite::site::DEFAULT_TEMPLATES
        .iter()
        .map(|(name, _)| (*name).to_owned())
        .chain(
            benchsite::site::DEFAULT_STATIC
                .iter()
                .map(|(name, _)| format!("static/{name}")),
        )
        .collect();
    embedded.sort();
    assert_eq!(listed, embedded);
}

#[test]
fn the_readme_reads_in_two_minutes() {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let lines = readme.lines().count();
    assert!(lines <= 250, "README.md has {lines} lines");
    for linked in ["REFERENCE.md", "CONTRIBUTING.md", "ARCHITECTURE.md"] {
        assert!(
            readme.contains(&format!("({linked}")),
            "README.md links {linked}"
        );
        assert!(repo().join(linked).exists(), "{linked}");
    }
}

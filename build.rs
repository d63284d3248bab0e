//! The version `benchsite --version` prints: the package's, and the commit it was built from
//! (from git in a checkout, from `.cargo_vcs_info.json` in a packaged crate; left out where
//! neither says).

use std::process::Command;

fn main() {
    let version = std::env::var("CARGO_PKG_VERSION").expect("cargo sets the version");
    let commit = git_commit().or_else(packaged_commit);
    let long = match &commit {
        Some(commit) => format!("{version} ({commit})"),
        None => version,
    };
    println!("cargo:rustc-env=BENCHSITE_VERSION={long}");
    println!("cargo:rerun-if-changed=.cargo_vcs_info.json");
    // The commit moves with HEAD and with the branch it names.
    if let Some(git) = git_dir() {
        println!("cargo:rerun-if-changed={git}/HEAD");
        if let Ok(head) = std::fs::read_to_string(format!("{git}/HEAD"))
            && let Some(reference) = head.trim().strip_prefix("ref: ")
        {
            println!("cargo:rerun-if-changed={git}/{reference}");
        }
        println!("cargo:rerun-if-changed={git}/packed-refs");
    }
}

fn git(args: &[&str]) -> Option<String> {
    let output = Command::new("git").args(args).output().ok()?;
    let text = String::from_utf8(output.stdout).ok()?.trim().to_owned();
    (output.status.success() && !text.is_empty()).then_some(text)
}

fn git_dir() -> Option<String> {
    git(&["rev-parse", "--absolute-git-dir"])
}

/// The commit of the checkout being built, 12 hex digits.
fn git_commit() -> Option<String> {
    // Only the crate's own repository: a packaged crate unpacked inside another checkout
    // must not take that checkout's commit.
    let top = git(&["rev-parse", "--show-toplevel"])?;
    let manifest = std::env::var("CARGO_MANIFEST_DIR").ok()?;
    if std::fs::canonicalize(&top).ok()? != std::fs::canonicalize(&manifest).ok()? {
        return None;
    }
    git(&["rev-parse", "--short=12", "HEAD"])
}

/// The commit `cargo package` recorded.
fn packaged_commit() -> Option<String> {
    let text = std::fs::read_to_string(".cargo_vcs_info.json").ok()?;
    let start = text.find("\"sha1\"")?;
    let rest = &text[start + 6..];
    let hex: String = rest
        .chars()
        .skip_while(|c| !c.is_ascii_hexdigit())
        .take_while(char::is_ascii_hexdigit)
        .collect();
    (hex.len() >= 12).then(|| hex[..12].to_owned())
}

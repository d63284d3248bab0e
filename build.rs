//! The version `benchsite --version` prints: the package's, and the commit it was built from
//! (from git in a checkout, from `.cargo_vcs_info.json` in a packaged crate; left out where
//! neither says); and the embedded theme: every file of `src/site/theme/`, listed by what is
//! there rather than by hand.

use std::process::Command;

fn main() {
    theme();
    let version = std::env::var("CARGO_PKG_VERSION").expect("cargo sets the version");
    let commit = git_commit().or_else(packaged_commit);
    let long = match &commit {
        Some(commit) => format!("{version} ({commit})"),
        None => version,
    };
    println!("cargo:rustc-env=BENCHSITE_VERSION={long}");
    // Only paths that exist: cargo takes a missing one as changed, and ran this script again,
    // recompiling the crate, on every build of a checkout (which has no .cargo_vcs_info.json)
    // and of a fresh clone (which has no packed-refs until git packs them).
    let watch = |path: &str| {
        if std::path::Path::new(path).exists() {
            println!("cargo:rerun-if-changed={path}");
        }
    };
    watch(".cargo_vcs_info.json");
    // The commit moves with HEAD and with the branch it names: its loose ref, or, where git
    // keeps it packed, packed-refs and the folder a loose ref would be written to.
    if let Some(git) = git_dir() {
        watch(&format!("{git}/HEAD"));
        if let Ok(head) = std::fs::read_to_string(format!("{git}/HEAD"))
            && let Some(reference) = head.trim().strip_prefix("ref: ")
        {
            let loose = format!("{git}/{reference}");
            watch(&loose);
            if !std::path::Path::new(&loose).exists()
                && let Some(folder) = std::path::Path::new(&loose).parent()
            {
                watch(&folder.display().to_string());
            }
        }
        watch(&format!("{git}/packed-refs"));
    }
}

/// `$OUT_DIR/theme.rs`: the default templates and static files, each `(name, text)`.
fn theme() {
    let dir = std::path::Path::new("src/site/theme");
    println!("cargo:rerun-if-changed={}", dir.display());
    let list = |sub: &std::path::Path| -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(sub)
            .expect("src/site/theme")
            .filter_map(|entry| {
                let entry = entry.ok()?;
                entry
                    .file_type()
                    .ok()?
                    .is_file()
                    .then(|| entry.file_name().to_string_lossy().into_owned())
            })
            .collect();
        names.sort();
        names
    };
    let entries = |names: &[String], sub: &str| -> String {
        names
            .iter()
            .map(|name| {
                format!(
                    "    ({name:?}, include_str!(concat!(env!(\"CARGO_MANIFEST_DIR\"), \"/src/site/theme/{sub}{name}\"))),\n"
                )
            })
            .collect()
    };
    let templates: Vec<String> = list(dir)
        .into_iter()
        .filter(|n| n.ends_with(".html"))
        .collect();
    let statics = list(&dir.join("static"));
    for name in templates
        .iter()
        .map(|n| n.to_owned())
        .chain(statics.iter().map(|n| format!("static/{n}")))
    {
        println!("cargo:rerun-if-changed={}/{name}", dir.display());
    }
    let code = format!(
        "/// The default templates, compiled into the binary: every `.html` of `src/site/theme/`.\npub const DEFAULTS: &[(&str, &str)] = &[\n{}];\n\n/// The default static files, written under `assets/` of the site: `src/site/theme/static/`.\npub const STATIC: &[(&str, &str)] = &[\n{}];\n",
        entries(&templates, ""),
        entries(&statics, "static/")
    );
    let out = std::path::Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"))
        .join("theme.rs");
    std::fs::write(out, code).expect("OUT_DIR is writable");
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

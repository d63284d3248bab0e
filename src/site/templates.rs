//! The Tera templates: the embedded theme (`src/site/theme/`), each file overridable by one of
//! the same name in the project's `templates/`, and the static assets that go with them. Where
//! a project overrides any template, every default is also there as `benchsite/<name>`, so an
//! override can extend its default and replace one block. `eject` copies defaults on purpose,
//! marked with where they came from, and `warnings` names overrides that fell behind.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::error::SiteError;

include!(concat!(env!("OUT_DIR"), "/theme.rs"));

/// The defaults of earlier benchsite versions, by template and sha256 prefix.
const HISTORY: &str = include_str!("theme-history.txt");

/// The name under which a default stays reachable beside a project's override of it.
pub const PREFIX: &str = "benchsite/";

/// The first 16 hex digits of the sha256 of `text`.
fn digest(text: &[u8]) -> String {
    Sha256::digest(text)
        .iter()
        .take(8)
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The comment `eject` puts before the first line of a file it copies: which default, of which
/// benchsite, and its hash. Nothing follows it on its line but the file's own first line, so
/// the output is the default's (a template comment renders to nothing).
fn origin_line(name: &str, text: &str) -> String {
    let what = format!(
        "benchsite theme: {name} of benchsite {}, sha256 {}",
        env!("CARGO_PKG_VERSION"),
        digest(text.as_bytes())
    );
    if name.ends_with(".html") {
        format!("{{# {what} #}}")
    } else {
        format!("/* {what} */")
    }
}

/// `text` without the origin comment `eject` put first.
fn without_origin(text: &str) -> &str {
    if origin_of(text).is_none() {
        return text;
    }
    let end = ["#}", "*/"]
        .iter()
        .filter_map(|close| text.find(close).map(|at| at + close.len()))
        .min()
        .unwrap_or(0);
    &text[end..]
}

/// The version and hash an ejected file's first line names.
fn origin_of(text: &str) -> Option<(String, String)> {
    let line = text.lines().next()?;
    let rest = line.split("benchsite theme: ").nth(1)?;
    let version = rest
        .split(" of benchsite ")
        .nth(1)?
        .split(',')
        .next()?
        .to_owned();
    let hash = rest.split("sha256 ").nth(1)?.get(..16)?.to_owned();
    Some((version, hash))
}

/// Every default of the theme: templates, then static files as `static/<name>`.
fn defaults() -> impl Iterator<Item = (String, &'static str)> {
    DEFAULTS
        .iter()
        .map(|(name, text)| ((*name).to_owned(), *text))
        .chain(
            STATIC
                .iter()
                .map(|(name, text)| (format!("static/{name}"), *text)),
        )
}

/// The blocks and macros a template defines, sorted; nothing for a file that is not one.
fn parts(name: &str, text: &str) -> (Vec<String>, Vec<String>) {
    if !name.ends_with(".html") {
        return (Vec::new(), Vec::new());
    }
    match tera::Template::new(name, None, text) {
        Ok(template) => {
            let mut blocks: Vec<String> = template.blocks.keys().cloned().collect();
            let mut macros: Vec<String> = template.macros.keys().cloned().collect();
            blocks.sort();
            macros.sort();
            (blocks, macros)
        }
        Err(_) => (Vec::new(), Vec::new()),
    }
}

/// Where a project's copy of a default stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Override {
    /// The project has none: the default is used.
    Default,
    /// Ejected from this benchsite's default (changed or not since).
    Current,
    /// Ejected from an older default, which has changed since (its version).
    Older(String),
    /// Byte for byte the default: nothing to override.
    Unchanged,
    /// A copy of an earlier benchsite's default (as `init` once wrote them).
    EarlierCopy,
    /// The project's own.
    Own,
}

/// One default of the theme and the project's override of it.
#[derive(Debug, Clone)]
pub struct ThemeFile {
    /// `run.html`, `static/style.css`.
    pub name: String,
    /// Where the project's copy stands.
    pub state: Override,
    /// The blocks the default offers an override that extends it.
    pub blocks: Vec<String>,
    /// Blocks and macros of the default that the project's copy lacks.
    pub lacks: Vec<String>,
}

/// Every default of the theme with the project's override of it, if any.
pub fn files(root: &Path) -> Vec<ThemeFile> {
    defaults()
        .map(|(name, default)| {
            let path = root.join("templates").join(&name);
            let (blocks, macros) = parts(&name, default);
            let Ok(text) = std::fs::read_to_string(&path) else {
                return ThemeFile {
                    name,
                    state: Override::Default,
                    blocks,
                    lacks: Vec::new(),
                };
            };
            let body = without_origin(&text);
            let state = match origin_of(&text) {
                Some((_, hash)) if hash == digest(default.as_bytes()) => Override::Current,
                Some((version, _)) => Override::Older(version),
                None if text == default => Override::Unchanged,
                None if earlier(&name, &digest(text.as_bytes())) => Override::EarlierCopy,
                None => Override::Own,
            };
            // What the copy lacks matters where it stands in for the whole default.
            let extends_default = body.contains(&format!("\"{PREFIX}{name}\""));
            let (own_blocks, own_macros) = parts(&name, body);
            let lacks = if extends_default {
                Vec::new()
            } else {
                blocks
                    .iter()
                    .filter(|b| !own_blocks.contains(b))
                    .map(|b| format!("block {b}"))
                    .chain(
                        macros
                            .iter()
                            .filter(|m| !own_macros.contains(m))
                            .map(|m| format!("macro {m}")),
                    )
                    .collect()
            };
            ThemeFile {
                name,
                state,
                blocks,
                lacks,
            }
        })
        .collect()
}

/// Whether `hash` is that of an earlier benchsite's default `name`.
fn earlier(name: &str, hash: &str) -> bool {
    HISTORY
        .lines()
        .filter(|line| !line.starts_with('#'))
        .any(|line| line.split_once(' ') == Some((name, hash)))
}

/// What `check` says of a project's templates: overrides that fell behind their default, and
/// copies that only freeze it.
pub fn warnings(root: &Path) -> Vec<String> {
    files(root)
        .into_iter()
        .filter_map(|file| {
            let at = format!("templates/{}", file.name);
            let lacking = if file.lacks.is_empty() {
                String::new()
            } else {
                format!("; it lacks the default's {}", file.lacks.join(", "))
            };
            let mut fix = format!(
                "delete it to use the default, or `benchsite theme eject --force {}` and make your changes again",
                file.name
            );
            // A template can extend its default and keep only its blocks; a static file
            // cannot.
            if !file.name.starts_with("static/") {
                fix.push_str(&format!(
                    ", or keep only your blocks under {{% extends \"{PREFIX}{}\" %}}",
                    file.name
                ));
            }
            match file.state {
                Override::Default | Override::Current | Override::Own => None,
                Override::Older(version) => Some(format!(
                    "{at} was ejected from the default of benchsite {version}, which has changed since{lacking}: {fix}"
                )),
                Override::Unchanged => Some(format!(
                    "{at} is the default as it is: delete it, and the report follows the default's fixes"
                )),
                Override::EarlierCopy => Some(format!(
                    "{at} is a copy of an earlier benchsite's default (as `benchsite init` wrote them){lacking}: {fix}"
                )),
            }
        })
        .collect()
}

/// Why defaults could not be ejected.
#[derive(Debug, thiserror::Error)]
pub enum EjectError {
    /// No default has that name.
    #[error("no default template {name:?}; the theme has: {known}")]
    Unknown {
        /// The name asked for.
        name: String,
        /// The names there are.
        known: String,
    },
    /// The project already overrides it.
    #[error("{} exists; --force replaces it", .0.display())]
    Exists(PathBuf),
    /// A file could not be written.
    #[error("cannot write {}: {source}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

/// Copies the defaults `names` (every one when empty) into the project's `templates/`, each
/// marked with where it came from; an existing file is replaced only with `force`.
pub fn eject(root: &Path, names: &[String], force: bool) -> Result<Vec<PathBuf>, EjectError> {
    let all: Vec<(String, &str)> = defaults().collect();
    let chosen: Vec<&(String, &str)> = if names.is_empty() {
        all.iter().collect()
    } else {
        names
            .iter()
            .map(|name| {
                let name = name.strip_prefix(PREFIX).unwrap_or(name);
                all.iter()
                    .find(|(n, _)| n == name)
                    .ok_or_else(|| EjectError::Unknown {
                        name: name.to_owned(),
                        known: all
                            .iter()
                            .map(|(n, _)| n.as_str())
                            .collect::<Vec<_>>()
                            .join(", "),
                    })
            })
            .collect::<Result<_, _>>()?
    };
    let paths: Vec<PathBuf> = chosen
        .iter()
        .map(|(name, _)| root.join("templates").join(name))
        .collect();
    if !force && let Some(existing) = paths.iter().find(|p| p.exists()) {
        return Err(EjectError::Exists(existing.clone()));
    }
    for ((name, text), path) in chosen.iter().zip(&paths) {
        let write = |source| EjectError::Write {
            path: path.clone(),
            source,
        };
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(write)?;
        }
        std::fs::write(path, format!("{}{text}", origin_line(name, text))).map_err(write)?;
    }
    Ok(paths)
}

/// Loads the templates: a project file where there is one, else the default; with the
/// SHA-256 of their names and sources, which a page's bytes depend on.
pub fn load(root: &Path) -> Result<(tera::Tera, [u8; 32]), SiteError> {
    let mut tera = tera::Tera::default();
    tera.autoescape_on(vec![".html", ".xml"]);
    tera.set_escape_fn(super::escape);
    tera.register_filter("counted", counted);
    let mut sources = Vec::new();
    let mut overridden = false;
    let mut stale = Vec::new();
    for (name, _) in STATIC {
        let path = root.join("templates").join("static").join(name);
        if let Ok(text) = std::fs::read_to_string(path) {
            stale.extend(pagefind_era(&format!("static/{name}"), &text));
        }
    }
    for (name, default) in DEFAULTS {
        let path = root.join("templates").join(name);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => {
                overridden = true;
                stale.extend(pagefind_era(name, &text));
                text
            }
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => (*default).to_owned(),
            Err(error) => {
                return Err(SiteError::Template {
                    name: name.to_string(),
                    message: format!("cannot read {}: {error}", path.display()),
                });
            }
        };
        sources.push((name.to_string(), text));
    }
    if !stale.is_empty() {
        return Err(super::error::many(stale));
    }
    // Overrides can extend their default; without any, nothing needs the second names.
    if overridden {
        for (name, default) in DEFAULTS {
            sources.push((format!("{PREFIX}{name}"), (*default).to_owned()));
        }
    }
    let mut digest = Sha256::new();
    for (name, text) in &sources {
        for part in [name, text] {
            digest.update(part.as_bytes());
            digest.update([0]);
        }
    }
    // Parsed on every core (parsing is most of the time a small site takes), then macros and
    // inheritance checked across the set, as `Tera::add_raw_templates` does; a syntax error
    // names its template, line and column.
    use rayon::prelude::*;
    let as_site_error = |error: tera::Error| SiteError::Template {
        name: template_of(&error),
        message: chain(&error),
    };
    let parsed: Vec<tera::Template> = sources
        .par_iter()
        .map(|(name, text)| {
            tera::Template::new(name, None, text)
                .map_err(|e| tera::Error::chain(format!("Failed to parse '{name}'"), e))
        })
        .collect::<Result<_, _>>()
        .map_err(as_site_error)?;
    for template in parsed {
        tera.templates.insert(template.name.clone(), template);
    }
    tera.build_inheritance_chains().map_err(as_site_error)?;
    tera.check_macro_files().map_err(as_site_error)?;
    Ok((tera, digest.finalize().into()))
}

/// A project's static file where there is one, else the default.
/// `{{ n | counted(one="pair", many="pairs") }}`: `1 pair`, `2 pairs`, by the helper every
/// count the site prints goes through (`format::counted`).
fn counted(
    value: &tera::Value,
    args: &std::collections::HashMap<String, tera::Value>,
) -> tera::Result<tera::Value> {
    let n = value
        .as_u64()
        .ok_or_else(|| tera::Error::msg(format!("counted: {value} is not a count")))?;
    let word = |name: &str| {
        args.get(name)
            .and_then(tera::Value::as_str)
            .ok_or_else(|| tera::Error::msg(format!("counted needs {name}=\"…\"")))
    };
    Ok(crate::format::counted(n as usize, word("one")?, word("many")?).into())
}

pub fn static_file(root: &Path, name: &str, default: &str) -> Result<Vec<u8>, SiteError> {
    let path = root.join("templates").join("static").join(name);
    match std::fs::read(&path) {
        // The comment `eject` marks its copy with stays out of the site.
        Ok(bytes) => Ok(match std::str::from_utf8(&bytes) {
            Ok(text) => without_origin(text).as_bytes().to_vec(),
            Err(_) => bytes,
        }),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            Ok(default.as_bytes().to_vec())
        }
        Err(error) => Err(SiteError::Template {
            name: format!("static/{name}"),
            message: format!("cannot read {}: {error}", path.display()),
        }),
    }
}

/// The error of an override copied from a release whose search was Pagefind's (up to 0.1):
/// its page would load files no build writes any more, or drive a UI no page loads.
fn pagefind_era(name: &str, text: &str) -> Option<SiteError> {
    let mark = ["pagefind/pagefind-ui", "PagefindUI"]
        .into_iter()
        .find(|mark| text.contains(mark))?;
    Some(SiteError::Template {
        name: name.to_owned(),
        message: format!(
            "uses Pagefind's search UI (`{mark}`), which benchsite no longer writes: the search now has an index of its own under search/data/, read by the default static/benchsite.js. Delete templates/{name} to use the default, or `benchsite theme eject --force {name}` for a copy of the current one to change"
        ),
    })
}

/// The template a Tera error is about, from its message (`Failed to parse 'run.html'`).
fn template_of(error: &tera::Error) -> String {
    let text = error.to_string();
    text.split('\'').nth(1).unwrap_or("templates").to_owned()
}

/// A Tera error with its causes, one per line (the parser's position is in a cause).
pub fn chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str("\n  ");
        text.push_str(&cause.to_string().replace('\n', "\n  "));
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The templates every page is made with beside its own: the frame, the shared pieces,
    /// the shortcodes' blocks and the missing page's.
    const FRAME: [&str; 4] = ["base.html", "macros.html", "shortcode.html", "404.html"];

    #[test]
    fn the_theme_is_the_route_tables_templates_and_the_frame() {
        let mut expected: Vec<&str> = super::super::routes::ROUTES
            .iter()
            .map(|route| route.template)
            .chain(FRAME)
            .collect();
        expected.sort_unstable();
        expected.dedup();
        let mut embedded: Vec<&str> = DEFAULTS.iter().map(|(name, _)| *name).collect();
        embedded.sort_unstable();
        assert_eq!(embedded, expected);
    }

    #[test]
    fn an_ejected_file_names_its_origin_and_renders_as_its_default() {
        let (name, text) = DEFAULTS
            .iter()
            .find(|(name, _)| *name == "run.html")
            .unwrap();
        let line = origin_line(name, text);
        let (version, hash) = origin_of(&line).unwrap();
        assert_eq!(version, env!("CARGO_PKG_VERSION"));
        assert_eq!(hash, digest(text.as_bytes()));
        // The comment trims its own line break: the template's output is unchanged.
        let mut tera = tera::Tera::default();
        tera.add_raw_template("a", &format!("{}<p>x</p>", origin_line("a.html", "x")))
            .unwrap();
        assert_eq!(tera.render("a", &tera::Context::new()).unwrap(), "<p>x</p>");
        let css = origin_line("static/style.css", "body{}");
        assert!(css.starts_with("/* benchsite theme: static/style.css of benchsite "));
        assert!(origin_of(&css).is_some());
    }

    #[test]
    fn earlier_defaults_are_known_by_their_hash() {
        let line = HISTORY.lines().find(|l| !l.starts_with('#')).unwrap();
        let (name, hash) = line.split_once(' ').unwrap();
        assert!(earlier(name, hash));
        assert!(!earlier(name, "0000000000000000"));
    }
}

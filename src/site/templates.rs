//! The Tera templates: embedded defaults, each overridable by a file of the same name in the
//! project's `templates/`, and the static assets that go with them.

use std::path::Path;

use super::SiteError;

/// The default templates, compiled into the binary.
pub const DEFAULTS: &[(&str, &str)] = &[
    ("base.html", include_str!("../../templates/base.html")),
    ("macros.html", include_str!("../../templates/macros.html")),
    ("index.html", include_str!("../../templates/index.html")),
    ("runs.html", include_str!("../../templates/runs.html")),
    ("run.html", include_str!("../../templates/run.html")),
    ("sweeps.html", include_str!("../../templates/sweeps.html")),
    ("sweep.html", include_str!("../../templates/sweep.html")),
    (
        "failures.html",
        include_str!("../../templates/failures.html"),
    ),
    ("failure.html", include_str!("../../templates/failure.html")),
    ("quality.html", include_str!("../../templates/quality.html")),
    (
        "comparison.html",
        include_str!("../../templates/comparison.html"),
    ),
    ("page.html", include_str!("../../templates/page.html")),
    ("model.html", include_str!("../../templates/model.html")),
    ("machine.html", include_str!("../../templates/machine.html")),
    (
        "ablations.html",
        include_str!("../../templates/ablations.html"),
    ),
    ("changes.html", include_str!("../../templates/changes.html")),
    ("search.html", include_str!("../../templates/search.html")),
    ("404.html", include_str!("../../templates/404.html")),
    (
        "shortcode.html",
        include_str!("../../templates/shortcode.html"),
    ),
];

/// The default static files, written under `assets/` of the site.
pub const STATIC: &[(&str, &str)] = &[
    (
        "style.css",
        include_str!("../../templates/static/style.css"),
    ),
    (
        "benchsite.js",
        include_str!("../../templates/static/benchsite.js"),
    ),
];

/// Loads the templates: a project file where there is one, else the default.
pub fn load(root: &Path) -> Result<tera::Tera, SiteError> {
    let mut tera = tera::Tera::default();
    tera.autoescape_on(vec![".html", ".xml"]);
    tera.set_escape_fn(super::escape);
    let mut sources = Vec::new();
    for (name, default) in DEFAULTS {
        let path = root.join("templates").join(name);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
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
    Ok(tera)
}

/// A project's static file where there is one, else the default.
pub fn static_file(root: &Path, name: &str, default: &str) -> Result<Vec<u8>, SiteError> {
    let path = root.join("templates").join("static").join(name);
    match std::fs::read(&path) {
        Ok(bytes) => Ok(bytes),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            Ok(default.as_bytes().to_vec())
        }
        Err(error) => Err(SiteError::Template {
            name: format!("static/{name}"),
            message: format!("cannot read {}: {error}", path.display()),
        }),
    }
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

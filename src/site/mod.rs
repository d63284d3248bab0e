//! The static site: the page model computed from the validated data, the author's Markdown
//! with shortcodes, Tera templates, charts, and the output link-checked and written
//! atomically.
//!
//! [`render`] builds the whole site in memory; [`build`] renders and swaps it into `site/`.
//! The route table (`routes.rs`) says which pages there are; each page kind has its module
//! under `pages/`.

mod charts;
mod content;
mod downloads;
mod filters;
mod links;
mod live;
mod markdown;
mod narrative;
mod output;
mod pages;
mod render;
mod routes;
mod search;
mod shortcodes;
mod sitemap;
mod templates;
mod urls;
mod views;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use bytes::Bytes;

use crate::project::{self, ProjectError};

pub use live::{Live, Rebuild};
pub use render::Built;
pub use search::Indexed as SearchIndexed;
pub use templates::{
    DEFAULTS as DEFAULT_TEMPLATES, EjectError, Override, PREFIX as THEME_PREFIX,
    STATIC as DEFAULT_STATIC, ThemeFile, eject as eject_theme, files as theme_files,
    warnings as theme_warnings,
};
pub use urls::Urls;

/// The vendored ECharts build every site carries.
const ECHARTS: &[u8] = include_bytes!("vendor/echarts/echarts.min.js");
/// Its sha256, as recorded in `vendor/echarts/VENDOR.md`.
pub const ECHARTS_SHA256: &str = "b66b25aeb4df84e33199dc21694014d336d222cbd9deb0e5a7c14bd6aa0d0fd0";
const ECHARTS_LICENSE: &[u8] = include_bytes!("vendor/echarts/LICENSE");
const ECHARTS_NOTICE: &[u8] = include_bytes!("vendor/echarts/NOTICE");

/// Why a site could not be built.
#[derive(Debug, thiserror::Error)]
pub enum SiteError {
    /// The settings, profiles or data are invalid.
    #[error("{}", join(.0))]
    Project(Vec<ProjectError>),
    /// A content file is wrong.
    #[error("{}:{line}: {message}", file.display())]
    Content {
        /// The file.
        file: PathBuf,
        /// 1-based line (0 when the whole file).
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// Several content files are wrong.
    #[error("{}", join(.0))]
    Many(Vec<SiteError>),
    /// A template is wrong.
    #[error("templates/{name}: {message}")]
    Template {
        /// The template.
        name: String,
        /// What is wrong, with Tera's position.
        message: String,
    },
    /// Pages link to files the site does not have.
    #[error("broken links:\n{}", .0.join("\n"))]
    Links(Vec<String>),
    /// The search index could not be built.
    #[error("the search index: {0}")]
    Search(String),
    /// The site could not be written; the previous one is untouched.
    #[error("cannot write {}: {source}", path.display())]
    Write {
        /// The path.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

fn join<T: std::fmt::Display>(items: &[T]) -> String {
    items
        .iter()
        .map(|item| item.to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

fn many(mut errors: Vec<SiteError>) -> SiteError {
    if errors.len() == 1 {
        errors.remove(0)
    } else {
        SiteError::Many(errors)
    }
}

/// How to render.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Overrides `base_url` of benchsite.toml.
    pub base_url: Option<String>,
    /// Include pages marked `draft = true`.
    pub drafts: bool,
}

/// A rendered site: every file by its path inside the site.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Site {
    /// Path (`runs/x/index.html`) to bytes; cheap to clone, so a site can be shared and
    /// changed page by page.
    pub files: BTreeMap<String, Bytes>,
}

impl Site {
    /// The HTML pages.
    pub fn pages(&self) -> impl Iterator<Item = &str> {
        self.files
            .keys()
            .filter(|path| path.ends_with(".html"))
            .map(String::as_str)
    }
}

/// One rendered file: its path inside the site and its bytes.
pub type PageFile = (String, Bytes);

/// Renders the site of the project at `root` in memory: validates the project, renders
/// every page, and checks every internal link.
pub fn render(root: &Path, options: &Options) -> Result<Site, SiteError> {
    render::Inputs::read(root, options)?.render()
}

/// Checks the project as `render` would, rendering every content page but only one page of
/// each data kind: the data, content, shortcodes, content links and every template are
/// checked without the cost of rendering every record's page. `report` is the project's
/// [`project::check`]. The returned site holds the other data pages as empty files.
pub fn check(root: &Path, report: project::CheckReport) -> Result<Site, SiteError> {
    render::Inputs::load(root, report, &Options::default())?.check()
}

/// Renders the site and writes it to `out`: into a temporary folder beside it first, each
/// page as soon as it is rendered, swapped in only when everything succeeded, so a failed
/// build leaves the previous site as it was. Memory does not grow with the site's size.
pub fn build(root: &Path, out: &Path, options: &Options) -> Result<Built, SiteError> {
    render::Inputs::read(root, options)?.build(out)
}

/// The search index of a rendered site's searched pages, built alone (a build builds it
/// beside the rendering): the files under `search/data/`, and what indexing took. The index
/// the site already holds, if any, is reused as a rebuild reuses the previous site's.
pub fn search_index(
    site: &Site,
    language: &str,
) -> Result<(Vec<PageFile>, SearchIndexed), SiteError> {
    let searched: Vec<(&String, &Bytes, &str)> = site
        .files
        .iter()
        .filter_map(|(path, bytes)| Some((path, bytes, routes::searched(path)?)))
        .collect();
    let previous = |path: &str| site.files.get(path).cloned();
    let indexer = search::Indexer::start(searched.len(), language, &previous);
    for (rank, (path, html, noun)) in searched.into_iter().enumerate() {
        let html = std::str::from_utf8(html).unwrap_or_default();
        indexer.add(rank, search::Record::of(path, noun, html));
    }
    indexer.finish()
}

/// HTML-escapes text for element content and quoted attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use sha2::{Digest, Sha256};

    use super::*;

    #[test]
    fn the_vendored_echarts_is_the_recorded_file() {
        let digest: String = Sha256::digest(ECHARTS)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(digest, ECHARTS_SHA256);
        let vendor = include_str!("vendor/echarts/VENDOR.md");
        assert!(vendor.contains(ECHARTS_SHA256));
    }
}

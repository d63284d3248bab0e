//! The static site: the page model computed from the validated data, the author's Markdown
//! with shortcodes, Tera templates, charts, and the output link-checked and written
//! atomically.
//!
//! [`render`] builds the whole site in memory; [`build`] renders and swaps it into `site/`.
//! The route table (`routes.rs`) says which pages there are; each page kind has its module
//! under `pages/`.

mod assets;
mod catalog;
mod charts;
mod content;
mod downloads;
mod error;
mod escape;
mod filters;
mod html;
mod inputs;
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

use std::path::Path;

use crate::project;

pub use assets::ECHARTS_SHA256;
pub use error::SiteError;
pub use escape::escape;
pub use inputs::{Built, Options};
pub use live::{Live, Rebuild};
pub use output::{PageFile, Site};
pub use search::Indexed as SearchIndexed;
pub use templates::{
    DEFAULTS as DEFAULT_TEMPLATES, EjectError, Override, PREFIX as THEME_PREFIX,
    STATIC as DEFAULT_STATIC, ThemeFile, eject as eject_theme, files as theme_files,
    warnings as theme_warnings,
};
pub use urls::Urls;

/// Renders the site of the project at `root` in memory: validates the project, renders
/// every page, and checks every internal link.
pub fn render(root: &Path, options: &Options) -> Result<Site, SiteError> {
    inputs::Inputs::read(root, options)?.render()
}

/// Checks the project as `render` would, rendering every content page but only one page of
/// each data kind: the data, content, shortcodes, content links and every template are
/// checked without the cost of rendering every record's page. `report` is the project's
/// [`project::check`]. The returned site holds the other data pages as empty files.
pub fn check(root: &Path, report: project::CheckReport) -> Result<Site, SiteError> {
    inputs::Inputs::load(root, report, &Options::default())?.check()
}

/// Renders the site and writes it to `out`: into a temporary folder beside it first, each
/// page as soon as it is rendered, swapped in only when everything succeeded, so a failed
/// build leaves the previous site as it was. Memory does not grow with the site's size.
pub fn build(root: &Path, out: &Path, options: &Options) -> Result<Built, SiteError> {
    inputs::Inputs::read(root, options)?.build(out)
}

/// The search index of a rendered site's searched pages, built alone (a build builds it
/// beside the rendering): the files under `search/data/`, and what indexing took. The index
/// the site already holds, if any, is reused as a rebuild reuses the previous site's.
pub fn search_index(
    site: &Site,
    language: &str,
) -> Result<(Vec<PageFile>, SearchIndexed), SiteError> {
    search::index_site(site, language)
}

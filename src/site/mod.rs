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
mod jobs;
mod links;
mod live;
mod markdown;
mod memo;
mod memo_file;
mod narrative;
mod output;
mod packed;
mod pages;
mod paging;
mod render;
mod routes;
mod search;
mod shortcodes;
mod sitemap;
mod templates;
mod urls;
mod views;

pub use assets::ECHARTS_SHA256;
pub use error::SiteError;
pub use escape::escape;
pub use inputs::{Built, Options, build, check, render};
pub use live::{Live, Rebuild};
pub use output::{PageFile, Site};
pub use search::{Indexed as SearchIndexed, index_site as search_index};
pub use templates::{
    DEFAULTS as DEFAULT_TEMPLATES, EjectError, Override, PREFIX as THEME_PREFIX,
    STATIC as DEFAULT_STATIC, ThemeFile, eject as eject_theme, files as theme_files,
    warnings as theme_warnings,
};
pub use urls::Urls;

//! A free page of the author's: its Markdown alone.

use serde::Serialize;

use super::super::render::PageBuild;
use super::super::error::SiteError;
use super::super::output::PageFile;

/// A free page has no content but its narrative.
#[derive(Debug, Serialize)]
struct Empty {}

/// Renders a free page.
pub fn render(page: &PageBuild) -> Result<PageFile, SiteError> {
    let source = page.source().expect("free pages have their Markdown");
    let title = source
        .front
        .title
        .clone()
        .unwrap_or_else(|| page.key().to_owned());
    page.render(title, &Empty {})
}

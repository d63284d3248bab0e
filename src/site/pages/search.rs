//! The search page: its script reads the index of the record pages (`search.rs`), with the query of the
//! header's search box.

use serde::Serialize;

use super::super::render::PageBuild;
use super::super::error::SiteError;
use super::super::output::PageFile;

/// The search page has no content but the UI its template loads.
#[derive(Debug, Serialize)]
struct Empty {}

/// Renders the search page.
pub fn render(page: &PageBuild) -> Result<PageFile, SiteError> {
    page.render("Search".to_owned(), &Empty {})
}

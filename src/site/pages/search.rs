//! The search page: its script reads the index of the record pages (`search.rs`), with the query of the
//! header's search box.

use serde::Serialize;

use super::super::error::SiteError;
use super::page::{Page, View};

/// The search page has no content but the UI its template loads.
#[derive(Debug, Serialize)]
struct Empty {}

/// Renders the search page.
pub fn view(_: &Page) -> Result<View, SiteError> {
    View::new("Search".to_owned(), &Empty {})
}

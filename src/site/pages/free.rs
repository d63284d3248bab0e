//! A free page of the author's: its Markdown alone.

use serde::Serialize;

use super::super::error::SiteError;
use super::page::{Page, View};

/// A free page has no content but its narrative.
#[derive(Debug, Serialize)]
struct Empty {}

/// Renders a free page.
pub fn view(page: &Page) -> Result<View, SiteError> {
    let source = page.source().expect("free pages have their Markdown");
    let title = source
        .front
        .title
        .clone()
        .unwrap_or_else(|| page.key().to_owned());
    View::new(title, &Empty {})
}

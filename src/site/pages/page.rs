//! What a page kind's `view` gets ([`Page`]) and returns ([`View`]).

use serde::Serialize;

use super::super::catalog::Catalog;
use super::super::content::Source;
use super::super::error::SiteError;

/// What a page kind's `view` gets: the data's look-ups and which page.
pub struct Page<'a> {
    catalog: &'a Catalog<'a>,
    index: usize,
    key: &'a str,
    site_title: &'a str,
    source: Option<&'a Source>,
}

impl<'a> Page<'a> {
    /// The page of record `index` (key `key`), or of the free page `key` with its Markdown
    /// `source`, in a site called `site_title`.
    pub fn new(
        catalog: &'a Catalog<'a>,
        index: usize,
        key: &'a str,
        site_title: &'a str,
        source: Option<&'a Source>,
    ) -> Self {
        Page {
            catalog,
            index,
            key,
            site_title,
            source,
        }
    }

    /// The data's look-ups.
    pub fn catalog(&self) -> &Catalog<'a> {
        self.catalog
    }

    /// The record's index in its array.
    pub fn index(&self) -> usize {
        self.index
    }

    /// The record's key, or the free page's name.
    pub fn key(&self) -> &str {
        self.key
    }

    /// The site's title, from benchsite.toml.
    pub fn site_title(&self) -> &str {
        self.site_title
    }

    /// The free page's Markdown, for free pages.
    pub fn source(&self) -> Option<&Source> {
        self.source
    }
}

/// What a page kind returns: its title (a narrative's front matter may replace it) and what
/// its template gets as `page.content`.
pub struct View {
    /// The page's title.
    pub title: String,
    /// Its content, as the template reads it.
    pub content: serde_json::Value,
    /// One sentence for link previews, when the page has its own (else the site's).
    pub description: Option<String>,
}

impl View {
    /// The view titled `title` showing `content`.
    pub fn new<T: Serialize>(title: String, content: &T) -> Result<View, SiteError> {
        let content = serde_json::to_value(content).map_err(|e| SiteError::Template {
            name: "page content".into(),
            message: e.to_string(),
        })?;
        Ok(View {
            title,
            content,
            description: None,
        })
    }

    /// The view with its own description for link previews.
    pub fn described(mut self, description: String) -> Self {
        self.description = Some(description);
        self
    }
}

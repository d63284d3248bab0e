//! The author's narratives: each content file must belong to a page the site has, and its
//! Markdown renders with the shortcodes of the registry.

use std::path::Path;

use super::catalog::Catalog;
use super::content::{Place, Source};
use super::error::SiteError;
use super::markdown::{self, Expansion};
use super::pages;
use super::routes::{self, Pages};
use super::shortcodes::{self, Output, View};

/// A narrative's page must exist: its record must be in the data, and a free page may not
/// take a name the site uses itself.
pub fn check_place(catalog: &Catalog, place: &Place, file: &Path) -> Result<(), SiteError> {
    match place {
        Place::Home => Ok(()),
        Place::Record(folder, key) => {
            let route = routes::records_in(folder).expect("places are made from routes");
            let Pages::PerRecord { noun } = &route.pages else {
                unreachable!("records_in finds record routes")
            };
            let known = (pages::kind(route).keys)(catalog);
            if known.contains(key) {
                return Ok(());
            }
            let message = if known.is_empty() && std::ptr::eq(route, &routes::MACHINE) {
                format!(
                    "no machine {key:?}: machine pages are those of [machines.<slug>] in \
                     benchsite.toml, and this report declares none"
                )
            } else {
                let place = if catalog.machines.declared() {
                    "the report's data"
                } else {
                    "data/results.json"
                };
                format!(
                    "no {noun} {key:?} in {place}; expected one of: {}",
                    crate::format::choices(key, &known)
                )
            };
            Err(SiteError::Content {
                file: file.to_owned(),
                line: 1,
                message,
            })
        }
        Place::Free(name) if routes::is_reserved(name) => Err(SiteError::Content {
            file: file.to_owned(),
            line: 1,
            message: format!(
                "a free page may not be called {name:?}: the site uses /{name}/ itself"
            ),
        }),
        Place::Free(_) => Ok(()),
    }
}

/// A content file's Markdown rendered with its shortcodes: the HTML and the site links it
/// holds with their lines. `block` renders a block view through `shortcode.html`.
pub fn render(
    catalog: &Catalog,
    base_path: &str,
    source: &Source,
    block: &dyn Fn(&View) -> Result<String, String>,
) -> Result<(String, Vec<(String, usize)>), SiteError> {
    let rendered = markdown::render(&source.body, source.body_line, base_path, &mut |call| {
        match shortcodes::expand(catalog, call)? {
            Output::Block(view) => Ok(Expansion {
                html: block(&view).map_err(|error| format!("{}: {error}", call.name))?,
                block: true,
            }),
            Output::Inline(html) => Ok(Expansion { html, block: false }),
        }
    })
    .map_err(|error| SiteError::Content {
        file: source.file.clone(),
        line: error.line,
        message: error.message,
    })?;
    Ok((rendered.html, rendered.links))
}

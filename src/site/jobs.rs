//! The pages a site renders ([`Job`], one per page of the route table) and what the author's
//! Markdown tells of each.

use std::collections::BTreeMap;

use super::catalog::Catalog;
use super::content::{Place, Source};
use super::pages;
use super::routes::{self, Pages, Route};

/// One page to render: its kind, the record's index and key, or the free page's source.
pub struct Job<'s> {
    /// The kind.
    pub route: &'static Route,
    /// The record's index in its array (0 for single pages).
    pub index: usize,
    /// The record's key, or the free page's name (empty for single pages).
    pub key: String,
    /// The free page's Markdown.
    pub source: Option<&'s Source>,
}

impl<'s> Job<'s> {
    /// The page's path inside the site.
    pub fn path(&self) -> String {
        self.route.path(&self.key)
    }

    /// What the author's Markdown tells of a page: the narrative at its place, and the source
    /// whose front matter may set its title and description.
    pub fn told(&self, narrative: &Narratives<'s>) -> Told<'s> {
        let place = match &self.route.pages {
            Pages::PerRecord { .. } => Some(Place::Record(self.route.folder, self.key.clone())),
            Pages::Free => Some(Place::Free(self.key.clone())),
            Pages::One if std::ptr::eq(self.route, &routes::HOME) => Some(Place::Home),
            Pages::One => None,
        };
        let (narrative, source) = match &place {
            Some(place) => narrative(place),
            None => (String::new(), None),
        };
        Told {
            narrative,
            source: source.or(self.source),
        }
    }
}

/// Every page of the site, in route-table order: each shown single page, a page per record,
/// and the free pages.
pub fn jobs<'s>(
    catalog: &Catalog,
    free: impl Iterator<Item = (&'s str, &'s Source)>,
) -> Vec<Job<'s>> {
    let mut jobs = Vec::new();
    let mut free: Vec<_> = free.collect();
    for route in routes::ROUTES {
        let kind = pages::kind(route);
        match &route.pages {
            Pages::One => {
                if (kind.shown)(catalog) {
                    jobs.push(Job {
                        route,
                        index: 0,
                        key: String::new(),
                        source: None,
                    });
                }
            }
            Pages::PerRecord { .. } => {
                jobs.extend(
                    (kind.keys)(catalog)
                        .into_iter()
                        .enumerate()
                        .map(|(index, key)| Job {
                            route,
                            index,
                            key,
                            source: None,
                        }),
                );
            }
            Pages::Free => {
                jobs.extend(free.drain(..).map(|(name, source)| Job {
                    route,
                    index: 0,
                    key: name.to_owned(),
                    source: Some(source),
                }));
            }
        }
    }
    jobs
}

/// Each content file's rendered Markdown, by its place.
pub type Narrated<'s> = BTreeMap<Place, (String, &'s Source)>;

/// The narrative HTML of a place and its source, or nothing.
pub type Narratives<'s> = dyn Fn(&Place) -> (String, Option<&'s Source>) + Sync + 's;

/// What the author's Markdown tells of a page ([`Job::told`]).
pub struct Told<'s> {
    pub narrative: String,
    pub source: Option<&'s Source>,
}

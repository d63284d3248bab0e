//! The route table: every page kind of the site, where its pages live, its template, its
//! place in the navigation and on the home page, and the function that renders it. The only
//! place that knows where a page lives; adding a page kind is a module under `pages/`, a
//! template and one entry in [`ROUTES`].

use super::content::Source;
use super::pages::{self, Catalog};
use super::render::PageBuild;
use super::views::Link;
use super::error::SiteError;
use super::output::PageFile;
use crate::data::{Divergence, Failure, Record, Run, Sweep};

/// How a page kind renders one page.
pub type Render = fn(&PageBuild<'_, '_>) -> Result<PageFile, SiteError>;

/// Which pages a kind has.
pub enum Pages {
    /// One page at the kind's folder, when `shown` says the project has what it shows.
    One {
        /// Whether the page exists in this project.
        shown: fn(&Catalog) -> bool,
    },
    /// One page per record at `<folder>/<key>/`; the author's narrative of one is
    /// `content/<folder>/<key>.md`.
    PerRecord {
        /// The record in words, for messages (`run`).
        noun: &'static str,
        /// The keys of the records, in document order.
        keys: fn(&Catalog) -> Vec<String>,
        /// The page of the machine that measured record `index`, in a report that
        /// declares machines.
        machine: fn(&Catalog, usize) -> Option<Link>,
    },
    /// The author's free pages: `content/<name>.md` at `/<name>/`.
    Free,
}

/// One page kind.
pub struct Route {
    /// Its name (`run`); `check` renders one page of each.
    pub kind: &'static str,
    /// The folder its pages live in (`runs`); empty for the home page and free pages.
    pub folder: &'static str,
    /// Its template.
    pub template: &'static str,
    /// Its pages.
    pub pages: Pages,
    /// Its link in the navigation bar, in table order.
    pub nav: Option<&'static str>,
    /// Its line on the home page's list of sections, with what it holds.
    pub section: Option<fn(&Catalog) -> String>,
    /// Whether its pages are in the site search.
    pub search: bool,
    /// Renders one of its pages.
    pub render: Render,
}

impl Route {
    /// The path inside the site of its page for `key` (ignored by single pages):
    /// `runs/x/`, `runs/`, or the empty path of the home page.
    pub fn path(&self, key: &str) -> String {
        match (&self.pages, self.folder) {
            (Pages::One { .. }, "") => String::new(),
            (Pages::One { .. }, folder) => format!("{folder}/"),
            (Pages::PerRecord { .. }, folder) => format!("{folder}/{key}/"),
            (Pages::Free, _) => format!("{key}/"),
        }
    }

    /// Whether it has one page that lists records of the whole document.
    pub fn is_index(&self) -> bool {
        matches!(self.pages, Pages::One { .. })
    }
}

fn always(_: &Catalog) -> bool {
    true
}

/// The machine page of record `index` of `R`.
fn machine_of<R: Record>(c: &Catalog, index: usize) -> Option<Link> {
    c.machine_of::<R>(index).map(|m| c.machine_link(m))
}

/// For the pages that are not of one machine's record.
fn no_machine(_: &Catalog, _: usize) -> Option<Link> {
    None
}

/// The home page.
pub static HOME: Route = Route {
    kind: "home",
    folder: "",
    template: "index.html",
    pages: Pages::One { shown: always },
    nav: None,
    section: None,
    search: false,
    render: pages::home::render,
};

/// Every run, with the decode chart and the method.
pub static RUNS: Route = Route {
    kind: "runs",
    folder: "runs",
    template: "runs.html",
    pages: Pages::One { shown: always },
    nav: Some("Runs"),
    section: Some(|c| {
        format!(
            "{} measured configurations, one page each",
            c.doc.runs.len()
        )
    }),
    search: false,
    render: pages::runs::render,
};

/// One measured configuration.
pub static RUN: Route = Route {
    kind: "run",
    folder: "runs",
    template: "run.html",
    pages: Pages::PerRecord {
        noun: "run",
        keys: |c| c.doc.runs.iter().map(|r| r.id.to_string()).collect(),
        machine: machine_of::<Run>,
    },
    nav: None,
    section: None,
    search: true,
    render: pages::run::render,
};

/// Every sweep, with overlay charts.
pub static SWEEPS: Route = Route {
    kind: "sweeps",
    folder: "sweeps",
    template: "sweeps.html",
    pages: Pages::One { shown: always },
    nav: Some("Sweeps"),
    section: Some(|c| format!("{} concurrency sweeps", c.doc.sweeps.len())),
    search: false,
    render: pages::sweeps::render,
};

/// One concurrency sweep.
pub static SWEEP: Route = Route {
    kind: "sweep",
    folder: "sweeps",
    template: "sweep.html",
    pages: Pages::PerRecord {
        noun: "sweep",
        keys: |c| c.doc.sweeps.iter().map(|s| s.slug()).collect(),
        machine: machine_of::<Sweep>,
    },
    nav: None,
    section: None,
    search: true,
    render: pages::sweep::render,
};

/// The heatmap, speed against quality, every comparison and the jitter.
pub static QUALITY: Route = Route {
    kind: "quality",
    folder: "quality",
    template: "quality.html",
    pages: Pages::One { shown: always },
    nav: Some("Quality"),
    section: Some(|c| {
        format!(
            "{} comparisons and {} jitter measurements",
            c.doc.divergence.len(),
            c.doc.jitter.len()
        )
    }),
    search: false,
    render: pages::quality::render,
};

/// One quality comparison.
pub static COMPARISON: Route = Route {
    kind: "comparison",
    folder: "quality",
    template: "comparison.html",
    pages: Pages::PerRecord {
        noun: "comparison",
        keys: |c| c.doc.divergence.iter().map(|d| d.slug()).collect(),
        machine: machine_of::<Divergence>,
    },
    nav: None,
    section: None,
    search: true,
    render: pages::comparison::render,
};

/// Every failure.
pub static FAILURES: Route = Route {
    kind: "failures",
    folder: "failures",
    template: "failures.html",
    pages: Pages::One { shown: always },
    nav: Some("Failures"),
    section: Some(|c| format!("{} configurations that did not run", c.doc.failures.len())),
    search: false,
    render: pages::failures::render,
};

/// One failure's write-up.
pub static FAILURE: Route = Route {
    kind: "failure",
    folder: "failures",
    template: "failure.html",
    pages: Pages::PerRecord {
        noun: "failure",
        keys: |c| c.doc.failures.iter().map(|f| f.id.to_string()).collect(),
        machine: machine_of::<Failure>,
    },
    nav: None,
    section: None,
    search: true,
    render: pages::failure::render,
};

/// One model: every record of it.
pub static MODEL: Route = Route {
    kind: "model",
    folder: "models",
    template: "model.html",
    pages: Pages::PerRecord {
        noun: "model",
        keys: |c| {
            crate::data::rules::models(c.doc)
                .into_iter()
                .map(crate::data::slugify)
                .collect()
        },
        machine: no_machine,
    },
    nav: None,
    section: None,
    search: true,
    render: pages::model::render,
};

/// One machine of a report that declares `[machines]`: its hardware, software, notes and
/// records.
pub static MACHINE: Route = Route {
    kind: "machine",
    folder: "hardware",
    template: "machine.html",
    pages: Pages::PerRecord {
        noun: "machine",
        keys: |c| {
            if c.machines.declared() {
                c.machines.machines.iter().map(|m| m.slug.clone()).collect()
            } else {
                Vec::new()
            }
        },
        machine: no_machine,
    },
    nav: None,
    section: None,
    search: true,
    render: pages::machine::render,
};

/// The one-knob pairs.
pub static ABLATIONS: Route = Route {
    kind: "ablations",
    folder: "ablations",
    template: "ablations.html",
    pages: Pages::One { shown: always },
    nav: Some("Ablations"),
    section: Some(|c| {
        format!(
            "{} pairs of records that differ in exactly one setting",
            c.ablation_count()
        )
    }),
    search: false,
    render: pages::ablations::render,
};

/// What changed since the baseline document, when one is configured.
pub static CHANGES: Route = Route {
    kind: "changes",
    folder: "changes",
    template: "changes.html",
    pages: Pages::One {
        shown: |c| !c.baselines.is_empty(),
    },
    nav: Some("Changes"),
    section: None,
    search: false,
    render: pages::changes::render,
};

/// The author's free pages.
pub static FREE: Route = Route {
    kind: "page",
    folder: "",
    template: "page.html",
    pages: Pages::Free,
    nav: None,
    section: None,
    search: false,
    render: pages::free::render,
};

/// The site search, reached from the search box of every page.
pub static SEARCH: Route = Route {
    kind: "search",
    folder: "search",
    template: "search.html",
    pages: Pages::One {
        shown: |c| c.search,
    },
    nav: None,
    section: None,
    search: false,
    render: pages::search::render,
};

/// Every page kind, in the order of the navigation and the home page's sections.
pub static ROUTES: &[&Route] = &[
    &HOME,
    &RUNS,
    &RUN,
    &SWEEPS,
    &SWEEP,
    &QUALITY,
    &COMPARISON,
    &FAILURES,
    &FAILURE,
    &MODEL,
    &MACHINE,
    &ABLATIONS,
    &CHANGES,
    &SEARCH,
    &FREE,
];

/// The noun of the page at `path` (`runs/x/index.html` is a `run`) when it is a page of a
/// searched kind.
pub fn searched(path: &str) -> Option<&'static str> {
    let mut parts = path.split('/');
    let (Some(folder), Some(key), Some("index.html"), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return None;
    };
    if key.is_empty() {
        return None;
    }
    ROUTES.iter().find_map(|route| match route.pages {
        Pages::PerRecord { noun, .. } if route.search && route.folder == folder => Some(noun),
        _ => None,
    })
}

/// Folders of the site that hold files rather than pages.
pub const FILE_FOLDERS: [&str; 3] = ["data", "assets", super::search::FOLDER];

/// The kind whose record pages live in `folder`, for a narrative `content/<folder>/<key>.md`.
pub fn records_in(folder: &str) -> Option<&'static Route> {
    ROUTES
        .iter()
        .copied()
        .find(|route| route.folder == folder && matches!(route.pages, Pages::PerRecord { .. }))
}

/// Whether a free page may not be called `name`: the site uses `/<name>/` itself.
pub fn is_reserved(name: &str) -> bool {
    FILE_FOLDERS.contains(&name)
        || ROUTES
            .iter()
            .any(|route| !route.folder.is_empty() && route.folder == name)
}

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

impl Job<'_> {
    /// The page's path inside the site.
    pub fn path(&self) -> String {
        self.route.path(&self.key)
    }
}

/// Every page of the project: its single pages, one per record, and `free` pages.
pub fn jobs<'s>(
    catalog: &Catalog,
    free: impl Iterator<Item = (&'s str, &'s Source)>,
) -> Vec<Job<'s>> {
    let mut jobs = Vec::new();
    let mut free: Vec<_> = free.collect();
    for route in ROUTES {
        match &route.pages {
            Pages::One { shown } => {
                if shown(catalog) {
                    jobs.push(Job {
                        route,
                        index: 0,
                        key: String::new(),
                        source: None,
                    });
                }
            }
            Pages::PerRecord { keys, .. } => {
                jobs.extend(
                    keys(catalog)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths() {
        assert_eq!(HOME.path(""), "");
        assert_eq!(RUNS.path(""), "runs/");
        assert_eq!(RUN.path("a"), "runs/a/");
        assert_eq!(COMPARISON.path("x"), "quality/x/");
        assert_eq!(FREE.path("method"), "method/");
    }

    #[test]
    fn reserved_names_are_the_site_folders() {
        for name in [
            "runs",
            "sweeps",
            "failures",
            "quality",
            "ablations",
            "changes",
            "hardware",
            "data",
            "assets",
        ] {
            assert!(is_reserved(name), "{name}");
        }
        assert!(!is_reserved("method"));
        assert!(!is_reserved(""));
    }

    #[test]
    fn narratives_of_records_by_folder() {
        assert_eq!(records_in("runs").map(|r| r.kind), Some("run"));
        assert_eq!(records_in("quality").map(|r| r.kind), Some("comparison"));
        assert!(records_in("ablations").is_none());
    }
}

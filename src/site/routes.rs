//! The route table: every page kind of the site as plain data — where its pages live, its
//! template, its place in the navigation, whether its pages are searched. The only place that
//! knows where a page lives. What a kind shows and computes is its module under `pages/`
//! (`pages::kind`); this file imports nothing else of the site.

/// Which pages a kind has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pages {
    /// One page at the kind's folder (when its kind says the project has what it shows).
    One,
    /// One page per record at `<folder>/<key>/`; the author's narrative of one is
    /// `content/<folder>/<key>.md`.
    PerRecord {
        /// The record in words, for messages and search results (`run`).
        noun: &'static str,
    },
    /// The author's free pages: `content/<name>.md` at `/<name>/`.
    Free,
}

/// One page kind.
#[derive(Debug)]
pub struct Route {
    /// Its name (`run`); `check` renders one page of each.
    pub kind: &'static str,
    /// The folder its pages live in (`runs`); empty for the home page and free pages.
    pub folder: &'static str,
    /// Its template.
    pub template: &'static str,
    /// Its pages.
    pub pages: Pages,
    /// Its link in the navigation bar (and its line on the home page), in table order.
    pub nav: Option<&'static str>,
    /// Whether its pages are in the site search.
    pub search: bool,
}

impl Route {
    /// The path inside the site of its page for `key` (ignored by single pages):
    /// `runs/x/`, `runs/`, or the empty path of the home page.
    pub fn path(&self, key: &str) -> String {
        match (&self.pages, self.folder) {
            (Pages::One, "") => String::new(),
            (Pages::One, folder) => format!("{folder}/"),
            (Pages::PerRecord { .. }, folder) => format!("{folder}/{key}/"),
            (Pages::Free, _) => format!("{key}/"),
        }
    }

    /// Whether it has one page that lists records of the whole document.
    pub fn is_index(&self) -> bool {
        matches!(self.pages, Pages::One)
    }
}

/// The home page.
pub static HOME: Route = Route {
    kind: "home",
    folder: "",
    template: "index.html",
    pages: Pages::One,
    nav: None,
    search: false,
};

/// Every run, with the decode chart and the method.
pub static RUNS: Route = Route {
    kind: "runs",
    folder: "runs",
    template: "runs.html",
    pages: Pages::One,
    nav: Some("Runs"),
    search: false,
};

/// One measured configuration.
pub static RUN: Route = Route {
    kind: "run",
    folder: "runs",
    template: "run.html",
    pages: Pages::PerRecord { noun: "run" },
    nav: None,
    search: true,
};

/// Every sweep, with overlay charts.
pub static SWEEPS: Route = Route {
    kind: "sweeps",
    folder: "sweeps",
    template: "sweeps.html",
    pages: Pages::One,
    nav: Some("Sweeps"),
    search: false,
};

/// One concurrency sweep.
pub static SWEEP: Route = Route {
    kind: "sweep",
    folder: "sweeps",
    template: "sweep.html",
    pages: Pages::PerRecord { noun: "sweep" },
    nav: None,
    search: true,
};

/// The heatmap, speed against quality, every comparison and the jitter.
pub static QUALITY: Route = Route {
    kind: "quality",
    folder: "quality",
    template: "quality.html",
    pages: Pages::One,
    nav: Some("Quality"),
    search: false,
};

/// One quality comparison.
pub static COMPARISON: Route = Route {
    kind: "comparison",
    folder: "quality",
    template: "comparison.html",
    pages: Pages::PerRecord { noun: "comparison" },
    nav: None,
    search: true,
};

/// Every failure.
pub static FAILURES: Route = Route {
    kind: "failures",
    folder: "failures",
    template: "failures.html",
    pages: Pages::One,
    nav: Some("Failures"),
    search: false,
};

/// One failure's write-up.
pub static FAILURE: Route = Route {
    kind: "failure",
    folder: "failures",
    template: "failure.html",
    pages: Pages::PerRecord { noun: "failure" },
    nav: None,
    search: true,
};

/// One model: every record of it.
pub static MODEL: Route = Route {
    kind: "model",
    folder: "models",
    template: "model.html",
    pages: Pages::PerRecord { noun: "model" },
    nav: None,
    search: true,
};

/// One machine of a report that declares `[machines]`: its hardware, software, notes and
/// records.
pub static MACHINE: Route = Route {
    kind: "machine",
    folder: "hardware",
    template: "machine.html",
    pages: Pages::PerRecord { noun: "machine" },
    nav: None,
    search: true,
};

/// Every model, with what the report holds of each.
pub static MODELS: Route = Route {
    kind: "models",
    folder: "models",
    template: "models.html",
    pages: Pages::One,
    nav: Some("Models"),
    search: false,
};

/// The configurations measured more than once, over versions and dates, when there are any.
pub static HISTORY: Route = Route {
    kind: "history",
    folder: "history",
    template: "history.html",
    pages: Pages::One,
    nav: Some("History"),
    search: false,
};

/// One configuration measured more than once: its headline figure over every measurement,
/// and any two of them compared.
pub static CONFIGURATION: Route = Route {
    kind: "configuration",
    folder: "history",
    template: "configuration.html",
    pages: Pages::PerRecord {
        noun: "configuration",
    },
    nav: None,
    search: false,
};

/// The downloads: each results document and a CSV per table, with what each holds.
pub static DATA: Route = Route {
    kind: "data",
    folder: "data",
    template: "data.html",
    pages: Pages::One,
    nav: Some("Data"),
    search: false,
};

/// The free page the navigation links as "Method" when the report has it
/// (`content/method.md`), before "Data".
pub const METHOD_PAGE: &str = "method";

/// The one-knob pairs.
pub static ABLATIONS: Route = Route {
    kind: "ablations",
    folder: "ablations",
    template: "ablations.html",
    pages: Pages::One,
    nav: Some("Ablations"),
    search: false,
};

/// What changed since the baseline document, when one is configured.
pub static CHANGES: Route = Route {
    kind: "changes",
    folder: "changes",
    template: "changes.html",
    pages: Pages::One,
    nav: Some("Changes"),
    search: false,
};

/// The author's free pages.
pub static FREE: Route = Route {
    kind: "page",
    folder: "",
    template: "page.html",
    pages: Pages::Free,
    nav: None,
    search: false,
};

/// The site search, reached from the search box of every page.
pub static SEARCH: Route = Route {
    kind: "search",
    folder: "search",
    template: "search.html",
    pages: Pages::One,
    nav: None,
    search: false,
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
    &MODELS,
    &MODEL,
    &MACHINE,
    &ABLATIONS,
    &CHANGES,
    &HISTORY,
    &CONFIGURATION,
    &DATA,
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
        Pages::PerRecord { noun } if route.search && route.folder == folder => Some(noun),
        _ => None,
    })
}

/// Folders of the site that hold files rather than pages.
pub const FILE_FOLDERS: [&str; 2] = ["data", "assets"];

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
        assert_eq!(records_in("history").map(|r| r.kind), Some("configuration"));
        assert!(records_in("ablations").is_none());
    }
}

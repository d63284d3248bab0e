//! What each page kind of the route table shows: whether its one page exists, the keys of
//! its records, the machine a record page names, its line on the home page, and its view.
//! [`kind`] finds a route's; a test holds every route to one.

use super::super::catalog::Catalog;
use super::super::error::SiteError;
use super::super::routes::{self, Route};
use super::super::views::Link;
use super::page::{Page, View};
use super::{
    ablations, changes, comparison, data, failure, failures, free, history, home, machine, model,
    models, quality, run, runs, search, sweep, sweeps,
};
use crate::data::{Divergence, Failure, Record, Run, Sweep};

/// The behaviour of one page kind; where its pages live is its [`Route`].
pub struct PageKind {
    /// Its route.
    pub route: &'static Route,
    /// For a kind of one page, whether the project has it.
    pub shown: fn(&Catalog) -> bool,
    /// For a kind of a page per record, the keys of the records, in document order.
    pub keys: fn(&Catalog) -> Vec<String>,
    /// The page of the machine that measured record `index`, in a report that declares
    /// machines.
    pub machine: fn(&Catalog, usize) -> Option<Link>,
    /// What one of its pages shows.
    pub view: fn(&Page) -> Result<View, SiteError>,
}

fn always(_: &Catalog) -> bool {
    true
}

fn no_keys(_: &Catalog) -> Vec<String> {
    Vec::new()
}

/// The machine page of record `index` of `R`.
fn machine_of<R: Record>(c: &Catalog, index: usize) -> Option<Link> {
    c.machine_of::<R>(index).map(|m| c.machine_link(m))
}

/// For the pages that are not of one machine's record.
fn no_machine(_: &Catalog, _: usize) -> Option<Link> {
    None
}

/// The kind of `route`.
pub fn kind(route: &Route) -> &'static PageKind {
    let kind: &'static PageKind = match route.kind {
        "home" => &HOME,
        "runs" => &RUNS,
        "run" => &RUN,
        "sweeps" => &SWEEPS,
        "sweep" => &SWEEP,
        "quality" => &QUALITY,
        "comparison" => &COMPARISON,
        "failures" => &FAILURES,
        "failure" => &FAILURE,
        "models" => &MODELS,
        "model" => &MODEL,
        "machine" => &MACHINE,
        "ablations" => &ABLATIONS,
        "changes" => &CHANGES,
        "history" => &HISTORY,
        "configuration" => &CONFIGURATION,
        "data" => &DATA,
        "page" => &FREE,
        "search" => &SEARCH,
        other => unreachable!("the route table has no kind {other}"),
    };
    debug_assert!(std::ptr::eq(kind.route, route), "{}", route.kind);
    kind
}

/// The behaviour of [`routes::HOME`].
static HOME: PageKind = PageKind {
    route: &routes::HOME,
    shown: always,
    keys: no_keys,
    machine: no_machine,
    view: home::view,
};

/// The behaviour of [`routes::RUNS`].
static RUNS: PageKind = PageKind {
    route: &routes::RUNS,
    shown: always,
    keys: no_keys,
    machine: no_machine,
    view: runs::view,
};

/// The behaviour of [`routes::RUN`].
static RUN: PageKind = PageKind {
    route: &routes::RUN,
    shown: always,
    keys: |c| c.doc.runs.iter().map(|r| r.id.to_string()).collect(),
    machine: machine_of::<Run>,
    view: run::view,
};

/// The behaviour of [`routes::SWEEPS`].
static SWEEPS: PageKind = PageKind {
    route: &routes::SWEEPS,
    shown: always,
    keys: no_keys,
    machine: no_machine,
    view: sweeps::view,
};

/// The behaviour of [`routes::SWEEP`].
static SWEEP: PageKind = PageKind {
    route: &routes::SWEEP,
    shown: always,
    keys: |c| c.doc.sweeps.iter().map(|s| s.slug()).collect(),
    machine: machine_of::<Sweep>,
    view: sweep::view,
};

/// The behaviour of [`routes::QUALITY`].
static QUALITY: PageKind = PageKind {
    route: &routes::QUALITY,
    shown: always,
    keys: no_keys,
    machine: no_machine,
    view: quality::view,
};

/// The behaviour of [`routes::COMPARISON`].
static COMPARISON: PageKind = PageKind {
    route: &routes::COMPARISON,
    shown: always,
    keys: |c| c.doc.divergence.iter().map(|d| d.slug()).collect(),
    machine: machine_of::<Divergence>,
    view: comparison::view,
};

/// The behaviour of [`routes::FAILURES`].
static FAILURES: PageKind = PageKind {
    route: &routes::FAILURES,
    shown: always,
    keys: no_keys,
    machine: no_machine,
    view: failures::view,
};

/// The behaviour of [`routes::FAILURE`].
static FAILURE: PageKind = PageKind {
    route: &routes::FAILURE,
    shown: always,
    keys: |c| c.doc.failures.iter().map(|f| f.id.to_string()).collect(),
    machine: machine_of::<Failure>,
    view: failure::view,
};

/// The behaviour of [`routes::MODEL`].
static MODEL: PageKind = PageKind {
    route: &routes::MODEL,
    shown: always,
    keys: |c| {
        crate::data::rules::models(c.doc)
            .into_iter()
            .map(crate::data::slugify)
            .collect()
    },
    machine: no_machine,
    view: model::view,
};

/// The behaviour of [`routes::MACHINE`].
static MACHINE: PageKind = PageKind {
    route: &routes::MACHINE,
    shown: always,
    keys: |c| {
        if c.machines.declared() {
            c.machines.machines.iter().map(|m| m.slug.clone()).collect()
        } else {
            Vec::new()
        }
    },
    machine: no_machine,
    view: machine::view,
};

/// The behaviour of [`routes::MODELS`].
static MODELS: PageKind = PageKind {
    route: &routes::MODELS,
    shown: always,
    keys: no_keys,
    machine: no_machine,
    view: models::view,
};

/// The behaviour of [`routes::HISTORY`]: shown when a configuration was measured twice.
static HISTORY: PageKind = PageKind {
    route: &routes::HISTORY,
    shown: |c| !c.histories().is_empty(),
    keys: no_keys,
    machine: no_machine,
    view: history::view,
};

/// The behaviour of [`routes::CONFIGURATION`]: a page per configuration measured twice.
static CONFIGURATION: PageKind = PageKind {
    route: &routes::CONFIGURATION,
    shown: always,
    keys: |c| {
        c.histories()
            .iter()
            .map(|h| history::anchor(c, h))
            .collect()
    },
    machine: no_machine,
    view: history::configuration_view,
};

/// The behaviour of [`routes::DATA`].
static DATA: PageKind = PageKind {
    route: &routes::DATA,
    shown: always,
    keys: no_keys,
    machine: no_machine,
    view: data::view,
};

/// The behaviour of [`routes::ABLATIONS`].
static ABLATIONS: PageKind = PageKind {
    route: &routes::ABLATIONS,
    shown: always,
    keys: no_keys,
    machine: no_machine,
    view: ablations::view,
};

/// The behaviour of [`routes::CHANGES`].
static CHANGES: PageKind = PageKind {
    route: &routes::CHANGES,
    shown: |c| !c.baselines.is_empty(),
    keys: no_keys,
    machine: no_machine,
    view: changes::view,
};

/// The behaviour of [`routes::FREE`].
static FREE: PageKind = PageKind {
    route: &routes::FREE,
    shown: always,
    keys: no_keys,
    machine: no_machine,
    view: free::view,
};

/// The behaviour of [`routes::SEARCH`].
static SEARCH: PageKind = PageKind {
    route: &routes::SEARCH,
    shown: |c| c.search,
    keys: no_keys,
    machine: no_machine,
    view: search::view,
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_route_has_its_kind() {
        for route in routes::ROUTES {
            assert!(std::ptr::eq(kind(route).route, *route), "{}", route.kind);
        }
    }
}

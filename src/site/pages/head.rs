//! The top of a record's page for a reader who arrives by a link: the trail from its model,
//! the GPU it was measured on, and its headline against each record that differs from it in
//! one setting.

use serde::Serialize;

use super::super::catalog::Catalog;
use super::super::routes::Route;
use super::super::views::Link;
use crate::compare::Kind;
use crate::data::Record;

/// What a record page shows above its figures.
#[derive(Debug, Serialize)]
pub struct Head {
    /// Model › kind, the links before the record's own name.
    pub breadcrumb: Vec<Link>,
    /// The machine or GPU it was measured on.
    pub on: Option<String>,
    /// The headline against each one-knob sibling, in words and figures.
    pub siblings: Vec<Link>,
}

impl Head {
    /// The head of record `index` of type `R`, listed on `index_route`, about `models`;
    /// `versus(other)` puts its headline against record `other` of its kind in words
    /// (`+24% decode, −70% KV pool`), when they can be compared.
    pub fn of<R: Record>(
        c: &Catalog,
        kind: Option<Kind>,
        index: Option<usize>,
        models: &[&str],
        index_route: &Route,
        versus: impl Fn(usize) -> Option<String>,
    ) -> Head {
        let mut breadcrumb: Vec<Link> = models
            .iter()
            .map(|model| plain(model.to_string(), c.model_url(model)))
            .collect();
        breadcrumb.push(plain(
            index_route.nav.unwrap_or(index_route.kind).to_owned(),
            c.urls.page(&index_route.path("")),
        ));
        Head {
            breadcrumb,
            on: index.and_then(|i| measured_on::<R>(c, i)),
            siblings: match (kind, index) {
                (Some(kind), Some(index)) => siblings(c, kind, index, versus),
                _ => Vec::new(),
            },
        }
    }
}

impl Head {
    /// A link-preview description: `text`, then the GPU it was measured on, as a sentence.
    pub fn sentence(&self, mut text: String) -> String {
        if let Some(on) = &self.on {
            text.push_str(&format!(", on {on}"));
        }
        text.push('.');
        text
    }
}

fn plain(text: String, href: String) -> Link {
    Link {
        text,
        href,
        note: None,
        warning: None,
    }
}

/// The GPU record `index` was measured on: its machine's title, else the document's GPU.
fn measured_on<R: Record>(c: &Catalog, index: usize) -> Option<String> {
    match c.machine_of::<R>(index) {
        Some(machine) => Some(c.machine_title(machine)),
        None => c.doc.hardware.gpu.clone(),
    }
}

/// Record `index` against each record of its kind that differs from it in one setting.
fn siblings(
    c: &Catalog,
    kind: Kind,
    index: usize,
    versus: impl Fn(usize) -> Option<String>,
) -> Vec<Link> {
    c.ablations_of(kind, index)
        .filter_map(|ab| {
            let (other, from, to) = if ab.a == index {
                (ab.b, &ab.to, &ab.from)
            } else {
                (ab.a, &ab.from, &ab.to)
            };
            let words = versus(other)?;
            let (name, href) = c.record(kind, other);
            Some(Link {
                text: format!("{words} against {name}"),
                href,
                note: Some(format!("{}: {from} there, {to} here", ab.setting)),
                warning: None,
            })
        })
        .collect()
}

/// A change judged against both sides' noise: `+24% decode` where the two intervals set it
/// apart (`stats::noise`), `decode within noise` where they do not, and `+24% decode (no
/// interval)` where a side has none; `intervals` names them (`sample ranges`).
pub fn judged_change(
    what: &str,
    now: (f64, Option<(f64, f64)>),
    before: (f64, Option<(f64, f64)>),
    intervals: &str,
) -> String {
    worded_change(
        what,
        (now.0, before.0),
        crate::stats::noise::judge(now, before),
        &format!("beyond both {intervals}"),
        intervals,
    )
}

/// A change from `before` to `now` in words by its verdict: `+24% decode ({beyond})`,
/// `decode within noise ({within})`, or `+24% decode (no interval)` without one.
pub fn worded_change(
    what: &str,
    (now, before): (f64, f64),
    verdict: Option<crate::stats::noise::Verdict>,
    beyond: &str,
    within: &str,
) -> String {
    use crate::stats::noise::Verdict;
    let change = change(now, before);
    match verdict {
        None => format!("{change} {what} (no interval)"),
        Some(Verdict::Beyond { .. }) => format!("{change} {what} ({beyond})"),
        Some(Verdict::Within { .. }) => format!("{what} within noise ({within})"),
    }
}

/// A change as a signed whole percentage: +24%, −70%.
pub fn change(now: f64, before: f64) -> String {
    let percent = ((now - before) / before * 100.0).round();
    if percent < 0.0 {
        format!("−{}%", -percent)
    } else {
        format!("+{percent}%")
    }
}

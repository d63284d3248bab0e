//! `/history/`: each configuration measured more than once, a row each, with its first and
//! latest headline figure; and `/history/<anchor>/`, one configuration's page: its headline
//! figure over every measurement, and any two of its measurements compared figure by figure,
//! a move in the bad direction beyond the regression threshold marked as `diff` marks it.
//! `benchsite.js` compares the two a reader picks from the figures in a data file beside the
//! page, so neither page grows with how often a configuration was measured but by its table,
//! which pages (`site::paging`).

use serde::Serialize;

use super::super::catalog::Catalog;
use super::super::charts::{self, LineSeries};
use super::super::error::SiteError;
use super::super::paging;
use super::super::routes;
use super::super::views::{Cell, Chart, Column, Row, Table};
use super::page::{Page, View};
use crate::compare::{History, Kind};
use crate::data::figures::{Better, Value, level, run};
use crate::data::rules;
use crate::format::{count, figure};
use crate::profiles::Engine;

/// `/history/`'s content: a row per configuration measured more than once.
#[derive(Debug, Serialize)]
pub struct HistoryPage {
    configurations: Table,
    threshold: f64,
}

/// One configuration over its measurements: its page's content.
#[derive(Debug, Serialize)]
pub struct Series {
    title: String,
    /// Each measurement: its version and date.
    versions: Vec<String>,
    chart: Chart,
    /// The first measurement against the last, figure by figure.
    diff: Table,
    /// Each measurement's figures, for the page's script: the URL of the data file beside the
    /// page, or the JSON itself (`<` escaped) where there is no page to put it beside.
    figures: Option<String>,
    data: Option<String>,
    threshold: f64,
}

/// One comparable figure of a record: its label, value, better direction, whether it is a
/// whole count, and how far it could move (a run's samples' range, a level's bootstrap
/// interval), where the record says.
type Figure = (String, f64, Better, bool, Option<(f64, f64)>);

/// The version of the definitions a record was measured by.
fn method(c: &Catalog, kind: Kind, index: usize) -> u64 {
    match kind {
        Kind::Run => rules::method_version(c.doc.runs[index].method.as_ref()),
        _ => rules::method_version(c.doc.sweeps[index].method.as_ref()),
    }
}

/// What a measurement is called: the server's version and the date.
fn version(c: &Catalog, kind: Kind, index: usize) -> String {
    let (server, date) = match kind {
        Kind::Run => {
            let run = &c.doc.runs[index];
            (
                run.vllm_version
                    .as_ref()
                    .map(|v| format!("vLLM {v}"))
                    .or_else(|| run.server.clone()),
                run.generated.as_str(),
            )
        }
        _ => {
            let sweep = &c.doc.sweeps[index];
            (
                sweep
                    .vllm_version
                    .as_ref()
                    .map(|v| format!("vLLM {v}"))
                    .or_else(|| sweep.server.clone()),
                sweep.generated.as_str(),
            )
        }
    };
    match server {
        Some(server) => format!("{server}, {date}"),
        None => date.to_owned(),
    }
}

/// Every comparable figure of a record: a run's figures, a sweep's at each level.
fn figures_of(c: &Catalog, kind: Kind, index: usize) -> Vec<Figure> {
    match kind {
        Kind::Run => run::ALL
            .iter()
            .filter_map(|f| {
                let run = &c.doc.runs[index];
                let value = (f.get)(run)?;
                let whole = matches!(value, Value::Count(_));
                let interval = (f.key == run::DECODE_TOK_S.key)
                    .then(|| rules::decode_range(run))
                    .flatten();
                Some((
                    f.label.to_owned(),
                    value.number()?,
                    f.better()?,
                    whole,
                    interval,
                ))
            })
            .collect(),
        _ => c.doc.sweeps[index]
            .levels
            .iter()
            .flat_map(|level| {
                level::ALL.iter().filter_map(move |f| {
                    let value = (f.field.get)(level)?;
                    let whole = matches!(value, Value::Count(_));
                    Some((
                        format!("{}: {}", load_short(level.load()), f.field.label),
                        value.number()?,
                        f.field.better()?,
                        whole,
                        level.ci95.get(f.field.key).map(|[low, high]| (*low, *high)),
                    ))
                })
            })
            .collect(),
    }
}

/// A level's load before a figure's name: `c = 8`, `2.5 req/s`.
fn load_short(load: crate::data::Load) -> String {
    match load {
        crate::data::Load::Concurrency(c) => format!("c = {c}"),
        crate::data::Load::Rate(_) => load.words(),
    }
}

/// The headline figure of a record: a run's decode speed, a sweep's peak total throughput.
fn headline(c: &Catalog, kind: Kind, index: usize) -> Option<f64> {
    match kind {
        Kind::Run => Some(c.doc.runs[index].decode_tok_s),
        _ => c.doc.sweeps[index]
            .levels
            .iter()
            .filter_map(|l| l.total_tok_s)
            .max_by(f64::total_cmp),
    }
}

/// Whether moving from `from` to `to` is a regression beyond `threshold` percent; never one
/// within both measurements' intervals (`stats::noise`), where they have them.
fn regression(
    from: (f64, Option<(f64, f64)>),
    to: (f64, Option<(f64, f64)>),
    better: Better,
    threshold: f64,
) -> bool {
    use crate::stats::noise::{self, Verdict};
    if from.0 == 0.0 || matches!(noise::judge(to, from), Some(Verdict::Within { .. })) {
        return false;
    }
    let change = (to.0 - from.0) / from.0 * 100.0;
    match better {
        Better::Higher => change < -threshold,
        Better::Lower => change > threshold,
        Better::Neither => false,
    }
}

/// The figures of two measurements side by side, regressions marked: a bad move beyond the
/// threshold and both measurements' intervals, between measurements of one method.
pub fn diff(c: &Catalog, kind: Kind, from: usize, to: usize) -> Table {
    let (a, b) = (figures_of(c, kind, from), figures_of(c, kind, to));
    let methods = (method(c, kind, from), method(c, kind, to));
    let rows = a
        .iter()
        .filter_map(|(label, old, better, whole, old_range)| {
            let (_, new, _, _, new_range) = b.iter().find(|(l, ..)| l == label)?;
            let shown = |v: f64| {
                if *whole {
                    crate::format::count(v as u64)
                } else {
                    figure(v)
                }
            };
            let change = if *old == 0.0 {
                None
            } else {
                Some((new - old) / old * 100.0)
            };
            Some(Row {
                id: None,
                class: (methods.0 == methods.1
                    && regression((*old, *old_range), (*new, *new_range), *better, c.threshold))
                .then(|| "regression".to_owned()),
                cells: vec![
                    Cell::text(label),
                    Cell::number(shown(*old), *old),
                    Cell::number(shown(*new), *new),
                    match change {
                        Some(change) => {
                            Cell::number(format!("{change:+.1}%").replace('-', "−"), change)
                        }
                        None => Cell::missing(),
                    },
                ],
            })
        })
        .collect();
    Table {
        caption: if methods.0 == methods.1 {
            format!(
                "{} against {}; marked rows moved the bad way by more than {}% and beyond both measurements' intervals, where they have them",
                version(c, kind, to),
                version(c, kind, from),
                figure(c.threshold)
            )
        } else {
            format!(
                "{} against {}: measured by methods {} and {}, whose definitions differ, so no row is marked",
                version(c, kind, to),
                version(c, kind, from),
                methods.0,
                methods.1
            )
        },
        columns: vec![
            Column::text("Figure"),
            Column::number("Before"),
            Column::number("After"),
            Column::number("Change"),
        ],
        rows,
        csv: None,
    }
}

/// At most this many measurements in a record page's trend, the most recent: the page does
/// not grow with how often its configuration was measured.
pub const TREND_POINTS: usize = 8;

/// The CSV of every measurement's headline, beside a configuration's page.
const TREND_CSV: &str = "trend.csv";

/// The trend of a history's headline figure over its measurements.
pub fn trend(c: &Catalog, history: &History) -> Chart {
    trend_of(c, history, &history.members, None)
}

/// The trend of a history's headline figure over `members`, some of its measurements in
/// order; the title says when they are not all of them, and `this`, the measurement of the
/// page it is on, is marked.
fn trend_of(c: &Catalog, history: &History, members: &[usize], this: Option<usize>) -> Chart {
    let kind = history.kind;
    let versions: Vec<String> = members.iter().map(|&i| version(c, kind, i)).collect();
    let (name, unit) = match kind {
        Kind::Run => ("Decode tok/s", "tok/s"),
        _ => ("Peak output tok/s", "tok/s"),
    };
    let values: Vec<Option<f64>> = members.iter().map(|&i| headline(c, kind, i)).collect();
    let points: Vec<(f64, f64)> = values
        .iter()
        .enumerate()
        .filter_map(|(i, v)| v.map(|v| (i as f64, v)))
        .collect();
    let links: Vec<String> = points
        .iter()
        .map(|&(i, _)| c.record(kind, members[i as usize]).1)
        .collect();
    let title = trend_title(c, history, name, members, this);
    let rows = members
        .iter()
        .zip(&versions)
        .zip(&values)
        .map(|((&i, version), value)| {
            let (key, url) = c.record(kind, i);
            let here = this == Some(i);
            Row {
                id: None,
                class: here.then(|| "current".to_owned()),
                cells: vec![
                    Cell::text(version),
                    Cell::link(
                        if here {
                            format!("{key} (this page)")
                        } else {
                            key
                        },
                        url,
                    ),
                    match value {
                        Some(v) => Cell::number(figure(*v), *v),
                        None => Cell::missing(),
                    },
                ],
            }
        })
        .collect();
    Chart {
        data_in: None,
        csv: None,
        alt: format!(
            "Line chart of {} over {} measurements of the same configuration, from {} to {}",
            name.to_lowercase(),
            versions.len(),
            versions.first().cloned().unwrap_or_default(),
            versions.last().cloned().unwrap_or_default()
        ),
        option: charts::lines_by_category(
            &versions,
            &[LineSeries {
                name: name.to_owned(),
                points,
                dashed: false,
                links,
            }],
            unit,
            false,
        ),
        height: 320,
        table: Table {
            caption: format!("{title} ({unit})"),
            columns: vec![
                Column::text("Measured with"),
                Column::text("Record"),
                Column::number(name),
            ],
            rows,
            csv: None,
        },
        title,
    }
}

/// The trend's title: over every measurement, the latest few, or this one and the latest.
fn trend_title(
    c: &Catalog,
    history: &History,
    name: &str,
    members: &[usize],
    this: Option<usize>,
) -> String {
    let all = history.members.len();
    let latest = &history.members[all - members.len().min(all)..];
    if members.len() < all && this.is_some_and(|this| !latest.contains(&this)) {
        format!(
            "{name} of {}: this measurement and the {} most recent of {}",
            title(c, history),
            members.len() - 1,
            count(all as u64)
        )
    } else if members.len() < all {
        format!(
            "{name} of {}, its {} most recent of {} measurements",
            title(c, history),
            members.len(),
            count(all as u64)
        )
    } else {
        format!("{name} of {} over its measurements", title(c, history))
    }
}

/// What a history is of: the model, the engine where it is not vLLM, and its first record.
fn title(c: &Catalog, history: &History) -> String {
    let first = history.members[0];
    let on = |engine: Option<Engine>| match engine {
        Some(engine) if engine != Engine::Vllm => format!(" on {}", engine.name()),
        _ => String::new(),
    };
    match history.kind {
        Kind::Run => {
            let run = &c.doc.runs[first];
            let engine = on(rules::run_engine(run));
            format!("{}{engine} ({} and its reruns)", run.model, run.id)
        }
        _ => {
            let sweep = &c.doc.sweeps[first];
            let engine = on(rules::sweep_engine(sweep));
            format!("{}{engine} ({} and its reruns)", sweep.model, sweep.label)
        }
    }
}

/// The key of a history's page, `/history/<anchor>/`.
pub fn anchor(c: &Catalog, history: &History) -> String {
    let (key, _) = c.record(history.kind, history.members[0]);
    let kind = if history.kind == Kind::Run {
        "run"
    } else {
        "sweep"
    };
    format!("{kind}-{}", crate::data::slugify(&key))
}

/// The URL of a history's page.
fn url(c: &Catalog, history: &History) -> String {
    c.urls
        .page(&routes::CONFIGURATION.path(&anchor(c, history)))
}

/// A figure for the page's script: `[label, value, better, whole]`, then `low, high` where it
/// has an interval.
fn figure_data((label, value, better, whole, range): Figure) -> serde_json::Value {
    let better = match better {
        Better::Higher => 1,
        Better::Lower => -1,
        Better::Neither => 0,
    };
    match range {
        Some((low, high)) => serde_json::json!([label, value, better, whole, low, high]),
        None => serde_json::json!([label, value, better, whole]),
    }
}

/// A record's configuration over its measurements, for the record's own page.
#[derive(Debug, Serialize)]
pub struct RecordHistory {
    /// Its headline figure at each.
    pub chart: Chart,
    /// Its configuration's page, where any two are compared.
    pub href: String,
}

/// The history of record `index` of `kind`, when its configuration was measured more than once.
pub fn of_record(c: &Catalog, kind: Kind, index: usize) -> Option<RecordHistory> {
    let history = c.history_of(kind, index)?;
    let all = &history.members;
    let mut shown = all[all.len().saturating_sub(TREND_POINTS)..].to_vec();
    // An older measurement's page shows itself first, then the latest but one, so the
    // reader sees where it stands against them.
    if !shown.contains(&index) {
        shown.remove(0);
        shown.insert(0, index);
    }
    let mut chart = trend_of(c, history, &shown, Some(index));
    // Every measurement's CSV, beside the configuration's page.
    chart.csv = Some(format!("{}{TREND_CSV}", url(c, history)));
    Some(RecordHistory {
        chart,
        href: url(c, history),
    })
}

/// `/history/`: a row per configuration, its first and latest measurement and headline.
pub fn page(c: &Catalog) -> HistoryPage {
    let rows = c
        .histories()
        .iter()
        .map(|history| {
            let kind = history.kind;
            let (first, last) = (
                history.members[0],
                history.members[history.members.len() - 1],
            );
            let cell = |i: usize| match headline(c, kind, i) {
                Some(v) => Cell::number(figure(v), v),
                None => Cell::missing(),
            };
            let change = match (headline(c, kind, first), headline(c, kind, last)) {
                (Some(from), Some(to)) if from != 0.0 => {
                    let change = (to - from) / from * 100.0;
                    Cell::number(format!("{change:+.1}%").replace('-', "−"), change)
                }
                _ => Cell::missing(),
            };
            Row {
                id: Some(anchor(c, history)),
                class: None,
                cells: vec![
                    Cell::link(title(c, history), url(c, history)),
                    Cell::text(match kind {
                        Kind::Run => "decode tok/s",
                        _ => "peak output tok/s",
                    }),
                    Cell::number(
                        crate::format::count(history.members.len() as u64),
                        history.members.len() as f64,
                    ),
                    Cell::text(version(c, kind, first)),
                    cell(first),
                    Cell::text(version(c, kind, last)),
                    cell(last),
                    change,
                ],
            }
        })
        .collect();
    HistoryPage {
        configurations: Table {
            caption: "Configurations measured more than once".into(),
            columns: vec![
                Column::text("Configuration"),
                Column::text("Headline figure"),
                Column::number("Measurements"),
                Column::text("First measured with"),
                Column::number("First"),
                Column::text("Latest measured with"),
                Column::number("Latest"),
                Column::number("Change"),
            ],
            rows,
            csv: None,
        },
        threshold: c.threshold,
    }
}

/// Renders `/history/`.
pub fn view(page: &Page) -> Result<View, SiteError> {
    View::new("History".into(), &self::page(page.catalog()))
}

/// One configuration's page: its headline over every measurement, the first against the
/// latest, and every measurement's figures in a data file for comparing any two.
pub fn series(c: &Catalog, history: &History) -> Series {
    let kind = history.kind;
    let members = &history.members;
    let json = || {
        serde_json::json!({
            "threshold": c.threshold,
            "members": members.iter().map(|&i| serde_json::json!({
                "version": version(c, kind, i),
                "method": method(c, kind, i),
                "figures": figures_of(c, kind, i).into_iter().map(figure_data).collect::<Vec<_>>(),
            })).collect::<Vec<_>>(),
        })
        .to_string()
    };
    let figures = paging::beside("figures", "json", || json().into_bytes());
    let mut chart = trend(c, history);
    let csv = chart.table.csv();
    chart.csv = paging::beside("trend", "csv", || csv.into_bytes());
    Series {
        title: title(c, history),
        versions: members.iter().map(|&i| version(c, kind, i)).collect(),
        chart,
        diff: diff(c, kind, members[0], members[members.len() - 1]),
        data: figures.is_none().then(|| json().replace('<', "\\u003c")),
        figures,
        threshold: c.threshold,
    }
}

/// Renders `/history/<anchor>/`.
pub fn configuration_view(page: &Page) -> Result<View, SiteError> {
    let c = page.catalog();
    let history = &c.histories()[page.index()];
    let series = series(c, history);
    let description = format!(
        "{}: measured {} times, from {} to {}.",
        series.title,
        history.members.len(),
        series.versions.first().cloned().unwrap_or_default(),
        series.versions.last().cloned().unwrap_or_default()
    );
    View::new(format!("History of {}", series.title), &series).map(|v| v.described(description))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_regression_is_a_bad_move_beyond_the_threshold() {
        let plain = |from, to, better| regression((from, None), (to, None), better, 5.0);
        assert!(plain(100.0, 94.0, Better::Higher));
        assert!(!plain(100.0, 96.0, Better::Higher));
        assert!(plain(1.0, 1.06, Better::Lower));
        assert!(!plain(1.0, 0.5, Better::Lower));
        assert!(!plain(1.0, 9.0, Better::Neither));
        // −6% within samples that overlap: 100 [95, 105] to 94 [90, 98], d = −6 against
        // √(4² + 5²) ≈ 6.4: within noise, not a regression; with tight samples, one.
        let wide = regression(
            (100.0, Some((95.0, 105.0))),
            (94.0, Some((90.0, 98.0))),
            Better::Higher,
            5.0,
        );
        assert!(!wide);
        let tight = regression(
            (100.0, Some((99.5, 100.5))),
            (94.0, Some((93.5, 94.5))),
            Better::Higher,
            5.0,
        );
        assert!(tight);
    }
}

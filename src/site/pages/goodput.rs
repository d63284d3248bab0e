//! A sweep's goodput section: per level, the requests that met every latency limit, judged
//! request by request from the sweep's per-request data (`catalog::goodput`), at the
//! report's `[slo]`; a form takes other limits, and the page's script works goodput out
//! again from each level's requests, a file beside the page fetched when a limit changes.

use serde::Serialize;

use super::super::catalog::{Catalog, goodput, judged, request_bounds};
use super::super::paging;
use super::super::views::{Cell, Column, Row, Table};
use super::tradeoffs::{Bound, bounds};
use crate::data::figures::level::{self, RequestFigure};
use crate::data::{RequestLine, Sweep, SweepLevel};
use crate::format::{count, figure, percent};

/// The goodput section of a sweep's page.
#[derive(Debug, Serialize)]
pub struct GoodputSection {
    /// The limits the form takes, with `[slo]`'s values.
    pub bounds: Vec<Bound>,
    /// Whether the limits give any a request can be judged by.
    pub configured: bool,
    /// The sentence saying these are the report's default limits, when `[slo]` gives none.
    pub defaults: Option<String>,
    /// Per level: requests, good ones, their share, goodput and good output tokens a second.
    pub table: Table,
    /// Each level's requests for the page's script (its URL beside the page).
    pub data: Option<String>,
    /// The per-request data, for download.
    pub download: String,
}

/// The goodput section of the sweep at `index`, when it kept its per-request data.
pub fn section(c: &Catalog, index: usize, sweep: &Sweep) -> Option<GoodputSection> {
    let levels = c.request_lines(index)?;
    let bounds_now = request_bounds(&c.slo);
    let axis = sweep
        .levels
        .first()
        .map_or("Concurrency", |l| l.load().axis());
    let table = Table {
        caption: format!(
            "Goodput of {}: the requests of each level that met every limit, each judged on its own; a failed request never does",
            sweep.label
        ),
        columns: vec![
            Column::number(axis),
            Column::number("Requests"),
            Column::number("Good"),
            Column::number("Good share"),
            Column::number("Goodput (req/s)"),
            Column::number("Good output tok/s"),
        ],
        rows: sweep
            .levels
            .iter()
            .zip(&levels)
            .map(|(level, lines)| {
                let g = goodput(level, lines, &bounds_now);
                let share =
                    (g.sent > 0).then(|| crate::stats::round(g.good as f64 / g.sent as f64, 3));
                let rate =
                    |v: Option<f64>| v.map_or_else(Cell::missing, |v| Cell::number(figure(v), v));
                Row {
                    id: Some(format!("good-{}", level.load().anchor())),
                    class: None,
                    cells: vec![
                        Cell::number(level.load().cell(), level.load().x()),
                        Cell::number(count(g.sent), g.sent as f64),
                        Cell::number(count(g.good), g.good as f64),
                        share.map_or_else(Cell::missing, |s| Cell::number(percent(s), s)),
                        rate(g.per_second),
                        rate(g.tokens_per_second),
                    ],
                }
            })
            .collect(),
        csv: None,
    };
    let data = paging::beside("requests", "json", || {
        requests_json(&sweep.levels, &levels).into_bytes()
    });
    Some(GoodputSection {
        bounds: bounds(&c.slo),
        configured: !bounds_now.is_empty(),
        defaults: c.limits_defaults(),
        table,
        data,
        download: c
            .urls
            .page(sweep.request_log.as_deref().unwrap_or_default()),
    })
}

/// Each level's requests as the page's script judges them: its row's anchor, wall time,
/// requests sent, and per answered request `[TTFT s, TPOT ms, latency s, output tokens]`
/// from when it was due (a failed request only counts in `sent`); and which of the four each
/// limit bounds.
fn requests_json(levels: &[SweepLevel], lines: &[Vec<&RequestLine>]) -> String {
    let round = |v: Option<f64>, places: i32| v.map(|v| crate::stats::round(v, places));
    let levels: Vec<serde_json::Value> = levels
        .iter()
        .zip(lines)
        .map(|(level, lines)| {
            let answered: Vec<[Option<f64>; 4]> = lines
                .iter()
                .filter_map(|line| judged(line))
                .map(|[ttft, tpot, latency, tokens]| {
                    [round(ttft, 4), round(tpot, 3), round(latency, 4), tokens]
                })
                .collect();
            serde_json::json!({
                "anchor": level.load().anchor(),
                "wall": level.wall_s,
                "sent": lines.len(),
                "r": answered,
            })
        })
        .collect();
    // Which of a request's figures each limit bounds, from the registry.
    let limits: Vec<(&str, usize)> = level::LIMITS
        .iter()
        .filter_map(|figure| {
            let at = match figure.request? {
                RequestFigure::Ttft => 0,
                RequestFigure::Tpot => 1,
                RequestFigure::Latency => 2,
            };
            Some((figure.field.key, at))
        })
        .collect();
    serde_json::json!({ "levels": levels, "limits": limits }).to_string()
}

//! A sweep's page: its settings, charts and levels.

use serde::Serialize;

use super::super::catalog::{Catalog, Related};
use super::super::charts::{LineSeries, Mark};
use super::super::downloads;
use super::super::error::SiteError;
use super::super::routes;
use super::super::views::{Cell, Chart, Column, Fact, Link, Row, Table};
use super::head::{Head, change};
use super::page::{Page, View};
use super::shared::{engine_fact, field_cell, points};
use crate::compare::Kind;
use crate::config::Slo;
use crate::data::figures::{LevelField, level};
use crate::data::{Load, Sweep, SweepLevel};
use crate::format::{MISSING, count, figure, switch};

/// The fields of a level the levels table shows.
static TABLE: [&LevelField; 10] = [
    &level::CONCURRENCY,
    &level::TOTAL_TOK_S,
    &level::DECODE_TOK_S_PER_STREAM,
    &level::TTFT_P50_S,
    &level::TTFT_P95_S,
    &level::LATENCY_P50_S,
    &level::LATENCY_P95_S,
    &level::FAILED,
    &level::SUCCEEDED,
    &level::REQUESTS,
];

/// One chart of a sweep: its name for the `sweep_chart` shortcode, title, unit, and its
/// figures, the second dashed.
pub struct SweepChart {
    /// The shortcode's `metric`.
    pub name: &'static str,
    /// The chart's title.
    pub title: &'static str,
    /// The y axis's unit.
    pub unit: &'static str,
    /// The figures drawn, solid then dashed.
    pub figures: [&'static LevelField; 2],
}

/// The charts of a sweep's page, in order; the first is the shortcode's default.
pub const CHARTS: &[SweepChart] = &[
    SweepChart {
        name: "throughput",
        title: "Throughput against concurrency",
        unit: "tok/s",
        figures: [&level::TOTAL_TOK_S, &level::DECODE_TOK_S_PER_STREAM],
    },
    SweepChart {
        name: "ttft",
        title: "Time to first token against concurrency",
        unit: "s",
        figures: [&level::TTFT_P50_S, &level::TTFT_P95_S],
    },
    SweepChart {
        name: "latency",
        title: "Request latency against concurrency",
        unit: "s",
        figures: [&level::LATENCY_P50_S, &level::LATENCY_P95_S],
    },
];

/// The figures a levels table shows where some level of the sweep has them, after the
/// latency.
static WHERE_MEASURED: [&LevelField; 19] = [
    &level::ACHIEVED_RPS,
    &level::WAIT_P50_S,
    &level::WAIT_P95_S,
    &level::WAIT_MAX_S,
    &level::PEAK_IN_FLIGHT,
    &level::UNSENT,
    &level::RUNNING_MEAN,
    &level::RUNNING_MAX,
    &level::WAITING_MEAN,
    &level::WAITING_MAX,
    &level::KV_USAGE_MAX,
    &level::PREEMPTIONS,
    &level::PROMPT_AND_OUTPUT_TOK_S,
    &level::TPOT_P50_MS,
    &level::TPOT_P95_MS,
    &level::ITL_P50_MS,
    &level::ITL_P99_MS,
    &level::ITL_GAPS,
    &level::CACHED_PROMPT_TOKENS,
];

/// The charts an open loop's page adds: what the server answered of what arrived, and the
/// wait in the client.
const OPEN_CHARTS: &[SweepChart] = &[
    SweepChart {
        name: "answered",
        title: "Requests answered per second against the arrival rate",
        unit: "req/s",
        figures: [&level::ACHIEVED_RPS, &level::RATE_RPS],
    },
    SweepChart {
        name: "wait",
        title: "Wait in the client against the arrival rate",
        unit: "s",
        figures: [&level::WAIT_P50_S, &level::WAIT_P95_S],
    },
];

/// What the server said it ran and kept waiting, where its `/metrics` were scraped.
const SERVER_CHART: SweepChart = SweepChart {
    name: "server",
    title: "Requests the server ran and kept waiting against concurrency",
    unit: "requests",
    figures: [&level::RUNNING_MEAN, &level::WAITING_MEAN],
};

/// The levels table of one sweep.
pub fn levels_table(c: &Catalog, sweep: &Sweep) -> Table {
    let mut fields: Vec<&LevelField> = TABLE.to_vec();
    let open = sweep.workload.open_loop();
    if open {
        fields[0] = &level::RATE_RPS;
    }
    let at = fields
        .iter()
        .position(|f| f.field.key == level::LATENCY_P95_S.field.key)
        .map_or(0, |i| i + 1);
    let measured = WHERE_MEASURED
        .into_iter()
        .filter(|field| sweep.levels.iter().any(|l| (field.field.get)(l).is_some()));
    fields.splice(at..at, measured);
    let itl = sweep.levels.iter().any(|l| l.itl_gaps.is_some());
    Table {
        caption: format!(
            "{} levels of {}: each percentile is of the level's succeeded requests{}, {}; a p95 of fewer than {} is greyed",
            if open { "Arrival-rate" } else { "Concurrency" },
            sweep.label,
            if itl {
                " (ITL's of the gaps between their chunks, as many as the inter-token gaps)"
            } else {
                ""
            },
            if sweep.levels.iter().any(|l| !l.ci95.is_empty()) {
                format!(
                    "with its 95% bootstrap interval where there are at least {}",
                    level::TAIL_MIN_N
                )
            } else {
                "without intervals (its levels recorded none, as before method version 2)"
                    .to_owned()
            },
            level::TAIL_MIN_N
        ),
        columns: fields
            .iter()
            .map(|f| Column::number(f.field.label))
            .collect(),
        rows: sweep
            .levels
            .iter()
            .map(|level| Row {
                id: Some(level.load().anchor()),
                class: (level.failed > 0).then(|| "failed".to_owned()),
                cells: fields.iter().map(|f| level_cell(f, level)).collect(),
            })
            .collect(),
        csv: Some(c.urls.page(&downloads::path(downloads::SWEEP_LEVELS))),
    }
}

/// A level's cell of a figure: a percentile says on hover what it is of, and a tail of too
/// few requests is greyed with its n.
fn level_cell(field: &LevelField, level: &SweepLevel) -> Cell {
    if std::ptr::eq(field, &level::DECODE_TOK_S_PER_STREAM)
        && let Some(cell) = super::checked::per_stream_cell(level)
    {
        return cell;
    }
    let mut cell = field_cell(&field.field, level);
    let recorded = cell.title.take();
    let of = field.of_n(level);
    let interval = level.ci95.get(field.field.key).map(|[low, high]| {
        let shown = |x: f64| field.field.shown(&crate::data::figures::Value::Number(x));
        (
            format!("{}–{}", shown(*low), shown(*high)),
            format!("95% interval {low} – {high}"),
        )
    });
    let title: Vec<String> = [
        of.clone(),
        recorded,
        interval.as_ref().map(|(_, t)| t.clone()),
    ]
    .into_iter()
    .flatten()
    .collect();
    if !title.is_empty() {
        cell = cell.titled(title.join("; "));
    }
    if let Some((aside, _)) = interval {
        cell = cell.beside(aside);
    }
    match of {
        Some(of) if field.weak_tail(level) && (field.field.get)(level).is_some() => {
            cell.weakened(of)
        }
        _ => cell,
    }
}

/// The charts of one sweep: throughput, time to first token, latency; an open loop's against
/// its arrival rate, with what the server answered and the wait in the client.
pub fn charts(c: &Catalog, sweep: &Sweep) -> Vec<Chart> {
    let open = sweep.workload.open_loop();
    let extra = if open { OPEN_CHARTS } else { &[] };
    let scraped = sweep.levels.iter().any(|l| l.running_mean.is_some());
    let engine = sweep.levels.iter().any(|l| {
        l.delivery
            .as_ref()
            .is_some_and(|d| d.per_stream == crate::data::PerStream::Engine)
    });
    let server = if scraped { &[SERVER_CHART][..] } else { &[] };
    CHARTS
        .iter()
        .chain(extra)
        .chain(server)
        .map(|chart| {
            let series: Vec<LineSeries> = chart
                .figures
                .iter()
                .enumerate()
                .map(|(i, field)| LineSeries {
                    name: if sweep.levels.iter().any(|l| field.weak_tail(l)) {
                        format!(
                            "{} (levels of {}+ requests)",
                            field.series,
                            level::TAIL_MIN_N
                        )
                    } else if field.series.is_empty() {
                        field.field.name().to_owned()
                    } else if engine && std::ptr::eq(*field, &level::DECODE_TOK_S_PER_STREAM) {
                        format!(
                            "{} (the engine's own where answers came in bursts)",
                            field.series
                        )
                    } else {
                        field.series.to_owned()
                    },
                    points: points(sweep, field),
                    dashed: i == 1,
                    links: Vec::new(),
                })
                .collect();
            let title = if open {
                chart.title.replace("concurrency", "the arrival rate")
            } else {
                chart.title.to_owned()
            };
            // A limit search's boundary, the highest load that held the limits; then the
            // limits.
            let marks: Vec<Mark> = sweep
                .search
                .as_ref()
                .and_then(|s| s.held)
                .map(|held| Mark::Load(held, "highest within the limits".into()))
                .into_iter()
                .chain(
                    limit_lines(&c.slo, &chart.figures)
                        .into_iter()
                        .map(|(y, label)| Mark::Limit(y, label)),
                )
                .collect();
            c.concurrency_chart(&title, &series, chart.unit, open, &marks)
        })
        .collect()
}

/// The limits a chart of `figures` draws: each bounded figure's, and the least tok/s per
/// user on the per-stream decode rate's (the bound on 1000 / that rate).
fn limit_lines(slo: &Slo, figures: &[&LevelField]) -> Vec<(f64, String)> {
    figures
        .iter()
        .filter_map(|f| {
            if f.field.key == level::DECODE_TOK_S_PER_STREAM.field.key {
                let least = super::limits::least_per_user(slo)?;
                return Some((least, format!("limit: at least {least} tok/s per user")));
            }
            let bound = slo.bound(f)?;
            let name = if f.series.is_empty() {
                f.field.name()
            } else {
                f.series
            };
            Some((bound, format!("limit: {name} ≤ {bound} {}", f.field.unit)))
        })
        .collect()
}

/// One sweep's page.
pub fn page(c: &Catalog, sweep: &Sweep) -> SweepPage {
    let w = &sweep.workload;
    let mut facts = vec![
        Fact::new("Model", sweep.model.clone()),
        Fact::new(
            "Workload",
            format!(
                "{}, {} output tokens{}, {}, thinking {}",
                match (w.prompt_words, w.prompt_tokens) {
                    (Some(words), _) => format!("{} prompt words", count(words)),
                    (None, Some(tokens)) => format!("{} prompt tokens", count(tokens)),
                    (None, None) => "prompt length not recorded".to_owned(),
                },
                count(w.output_tokens),
                if w.ignore_eos { " (ignore_eos)" } else { "" },
                super::measured::rounds(w),
                switch(w.thinking)
            ) + &w
                .shape()
                .map_or(String::new(), |shape| format!(", {shape}")),
        ),
        engine_fact(sweep.engine, sweep.vllm_version.as_ref()),
        Fact::new(
            "Context",
            sweep
                .max_model_len
                .map_or(MISSING.into(), |n| format!("{} tokens", count(n))),
        ),
        Fact::new("Measured", sweep.generated.to_string()),
    ];
    // A server on this machine's own address tells a reader nothing.
    if !loopback(&sweep.base_url) {
        facts.push(Fact::new("Server", sweep.base_url.clone()));
    }
    if let Some(server) = &sweep.server {
        facts.push(Fact::new("Server software", server.clone()));
    }
    if let Some(source) = &sweep.source {
        facts.push(Fact::new("Imported from", source.clone()));
    }
    for level in &sweep.levels {
        if let Some(source) = &level.source {
            facts.push(Fact::new(level.load().title(), source.clone()));
        }
    }
    if let Some(search) = &sweep.search {
        facts.push(Fact::new("Limit search", search_words(sweep, search)));
    }
    if let Some(notes) = &sweep.notes {
        facts.push(Fact::new("Notes", notes.clone()));
    }
    let index = super::super::catalog::index_in(&c.doc.sweeps, sweep);
    SweepPage {
        head: Head::of::<Sweep>(
            c,
            Some(Kind::Sweep),
            index,
            &[&sweep.model],
            &routes::SWEEPS,
            |other| {
                let (own, theirs) = (peak(sweep)?, peak(&c.doc.sweeps[other])?);
                Some(format!(
                    "{} peak throughput (one measurement each, no interval)",
                    change(own.1, theirs.1)
                ))
            },
        ),
        summary: summary(sweep),
        history: index.and_then(|i| super::history::of_record(c, Kind::Sweep, i)),
        provenance: super::shared::provenance_facts(sweep.provenance.as_ref()),
        measured: super::measured::of_sweep(c, sweep),
        slug: sweep.slug(),
        title: sweep.label.clone(),
        facts,
        dimensions: sweep
            .dimensions
            .iter()
            .map(|(k, v)| Fact::new(k.clone(), v.clone()))
            .collect(),
        // Every number they draw is in the levels table above them.
        charts: charts(c, sweep)
            .into_iter()
            .map(|chart| chart.data_in("levels", "#levels"))
            .collect(),
        levels: levels_table(c, sweep),
        checked: super::checked::of_sweep(sweep),
        goodput: index.and_then(|i| super::goodput::section(c, i, sweep)),
        runs: c.related_runs(&sweep.model),
        model_page: c.model_link(&sweep.model),
        ablations: c.ablation_links(Kind::Sweep, index),
    }
}

/// What a limit search found, in words: `TTFT p95 ≤ 0.05 s: concurrency 4 holds, 5 breaks
/// (6 probes)`.
fn search_words(sweep: &Sweep, search: &crate::data::LimitSearch) -> String {
    let load = |x: f64| {
        if sweep.workload.open_loop() {
            Load::Rate(x).words()
        } else {
            Load::Concurrency(x as u64).words()
        }
    };
    let found = match (search.held, search.broke) {
        (Some(held), Some(broke)) => format!("{} holds, {} breaks", load(held), load(broke)),
        (Some(held), None) => format!("{} holds, the most asked for", load(held)),
        (None, Some(broke)) => format!("none holds; {} breaks", load(broke)),
        (None, None) => "nothing was measured".to_owned(),
    };
    let saturated = search.saturated.map_or(String::new(), |x| {
        format!("; over-saturated from {}", load(x))
    });
    format!(
        "{}: {found}{saturated} ({} probe{})",
        search.limits,
        search.probes,
        if search.probes == 1 { "" } else { "s" }
    )
}

/// The level with the most total throughput: its load and tok/s.
fn peak(sweep: &Sweep) -> Option<(Load, f64)> {
    sweep
        .levels
        .iter()
        .filter_map(|l| l.total_tok_s.map(|t| (l.load(), t)))
        .max_by(|a, b| a.1.total_cmp(&b.1))
}

/// The sweep in one sentence: its range of load, its peak throughput and its rate per stream
/// at its lightest load.
fn summary(sweep: &Sweep) -> String {
    let by_load = |a: &&SweepLevel, b: &&SweepLevel| a.load().x().total_cmp(&b.load().x());
    let low = sweep.levels.iter().min_by(by_load).map(SweepLevel::load);
    let high = sweep.levels.iter().max_by(by_load).map(SweepLevel::load);
    let mut words = match (low, high) {
        (Some(Load::Concurrency(low)), Some(Load::Concurrency(high))) if low < high => {
            format!("concurrency {} to {}", count(low), count(high))
        }
        (Some(Load::Rate(low)), Some(Load::Rate(high))) if low < high => {
            format!("arrivals at {low} to {high} req/s")
        }
        (Some(only), _) => only.words(),
        _ => "no levels".to_owned(),
    };
    if let Some((at, total)) = peak(sweep) {
        words.push_str(&format!(
            ", at most {} output tok/s over all streams (at {})",
            figure(total),
            at.words()
        ));
    }
    let lowest = sweep.levels.iter().min_by(by_load);
    if let Some((l, rate)) = lowest.and_then(|l| l.decode_tok_s_per_stream.map(|r| (l, r))) {
        words.push_str(&format!(
            ", {} tok/s per stream at {}",
            figure(rate),
            l.load().words()
        ));
    }
    words
}

/// A sweep's page.
#[derive(Debug, Serialize)]
pub struct SweepPage {
    /// Model › Sweeps, the GPU, its peak against each one-knob sibling.
    #[serde(flatten)]
    pub head: Head,
    /// Its range, peak and single-stream rate in one sentence.
    pub summary: String,
    /// Its goodput per level, where it kept its per-request data.
    pub goodput: Option<super::goodput::GoodputSection>,
    /// Its configuration's peak throughput over every measurement of it, when measured again.
    pub history: Option<super::history::RecordHistory>,
    /// How it was measured, and the runs of its server set-up.
    pub measured: super::measured::Measured,
    /// Where it was measured.
    pub provenance: Vec<Fact>,
    /// The permalink slug.
    pub slug: String,
    /// The label.
    pub title: String,
    /// Its settings.
    pub facts: Vec<Fact>,
    /// What distinguishes it.
    pub dimensions: Vec<Fact>,
    /// Its charts.
    pub charts: Vec<Chart>,
    /// Its levels.
    pub levels: Table,
    /// What its answers were, as checked before they counted.
    pub checked: super::checked::Checked,
    /// Runs of the same model.
    pub runs: Related,
    /// The model's page.
    pub model_page: Link,
    /// One-knob pairs this sweep is part of.
    pub ablations: Related,
}

/// Renders a sweep's page.
pub fn view(page: &Page) -> Result<View, SiteError> {
    let c = page.catalog();
    let view = self::page(c, &c.doc.sweeps[page.index()]);
    let description = view
        .head
        .sentence(format!("{}: {}", view.title, view.summary));
    Ok(View::new(view.title.clone(), &view)?.described(description))
}

/// Whether a server address is the measuring machine's own (`127.0.0.1`, `localhost`,
/// `[::1]`, `0.0.0.0`).
fn loopback(base_url: &str) -> bool {
    let rest = base_url
        .split_once("://")
        .map_or(base_url, |(_, rest)| rest);
    let host = match rest.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or(""),
        None => rest.split([':', '/']).next().unwrap_or(""),
    };
    host == "localhost" || host == "::1" || host == "0.0.0.0" || host.starts_with("127.")
}

#[cfg(test)]
mod tests {
    use super::loopback;

    #[test]
    fn the_measuring_machines_own_address_is_loopback() {
        for local in [
            "http://127.0.0.1:8000",
            "http://localhost:8080/v1",
            "https://[::1]:8443",
            "http://0.0.0.0:8000",
            "127.0.0.2",
        ] {
            assert!(loopback(local), "{local}");
        }
        for remote in [
            "http://10.0.0.7:8000",
            "https://gpu-box.example:443",
            "http://127x.example",
        ] {
            assert!(!loopback(remote), "{remote}");
        }
    }
}

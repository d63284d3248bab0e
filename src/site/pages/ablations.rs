//! The one-knob ablations page: pairs of records that differ in exactly one setting.

use serde::Serialize;

use super::super::catalog::Catalog;
use super::super::charts::{self, LineSeries};
use super::super::error::SiteError;
use super::super::views::{Cell, Chart, Column, Link, Row, Table};
use super::page::{Page, View};
use super::shared::level_value;
use crate::compare::{Ablation, Kind};
use crate::data::figures::{Better, LevelField, divergence, level};
use crate::data::rules;
use crate::format::{count, figure};
use crate::profiles::Engine;

/// The ablations page: run pairs side by side, sweep pairs as ratios per level,
/// comparison pairs side by side.
pub fn page(c: &Catalog) -> AblationsPage {
    AblationsPage {
        count: c.ablations().len(),
        runs: runs(c),
        sweeps: of(c, Kind::Sweep)
            .take(SWEEP_CHARTS)
            .map(|ab| sweep(c, ab))
            .collect(),
        sweep_pairs: sweep_pairs(c),
        comparisons: comparisons(c),
    }
}

/// At most this many sweep pairs drawn; the table lists every pair.
pub const SWEEP_CHARTS: usize = 12;

/// Every sweep pair with its peak throughput: anchored here, but for the drawn ones, whose
/// section holds the anchor.
fn sweep_pairs(c: &Catalog) -> Table {
    let peak = |i: usize| {
        c.doc.sweeps[i]
            .levels
            .iter()
            .filter_map(|l| l.total_tok_s)
            .max_by(f64::total_cmp)
    };
    let number = |v: Option<f64>| v.map_or_else(Cell::missing, |v| Cell::number(figure(v), v));
    Table {
        caption: "Sweeps that differ in one setting: peak output tok/s over all streams".into(),
        columns: pair_columns(&["Peak A (tok/s)", "Peak B (tok/s)", "B / A"]),
        rows: of(c, Kind::Sweep)
            .enumerate()
            .map(|(i, ab)| {
                let (a, b) = (peak(ab.a), peak(ab.b));
                let mut cells = pair_cells(c, ab);
                cells.extend([number(a), number(b), ratio(a, b)]);
                Row {
                    id: (i >= SWEEP_CHARTS).then(|| c.ablation_id(ab)),
                    class: None,
                    cells,
                }
            })
            .collect(),
        csv: None,
    }
}

/// The one-knob pairs of a kind.
fn of<'c>(c: &'c Catalog<'_>, kind: Kind) -> impl Iterator<Item = &'c Ablation> {
    c.ablations().iter().filter(move |ab| ab.kind == kind)
}

/// A pair's first cells: A, B and the setting that differs, with the engine both ran on
/// where it is not vLLM.
fn pair_cells(c: &Catalog, ab: &Ablation) -> Vec<Cell> {
    let (a, a_url) = c.record(ab.kind, ab.a);
    let (b, b_url) = c.record(ab.kind, ab.b);
    let engine = match ab.kind {
        Kind::Run => rules::run_engine(&c.doc.runs[ab.a]),
        Kind::Sweep => rules::sweep_engine(&c.doc.sweeps[ab.a]),
        Kind::Comparison => None,
    };
    let on = match engine {
        Some(engine) if engine != Engine::Vllm && !ab.setting.eq_ignore_ascii_case("engine") => {
            format!(" (on {})", engine.name())
        }
        _ => String::new(),
    };
    vec![
        Cell::link(a, a_url),
        Cell::link(b, b_url),
        Cell::text(format!("{}{on}", Catalog::ablation_change(ab))),
    ]
}

/// B / A, where A is above 0.
fn ratio(a: Option<f64>, b: Option<f64>) -> Cell {
    match (a, b) {
        (Some(a), Some(b)) if a > 0.0 => {
            let r = b / a;
            Cell::number(format!("{r:.2}×"), r)
        }
        _ => Cell::missing(),
    }
}

/// A pair's columns: A, B and the setting, then its figures.
fn pair_columns(figures: &[&str]) -> Vec<Column> {
    ["A", "B", "Setting"]
        .map(Column::text)
        .into_iter()
        .chain(figures.iter().map(|f| Column::number(*f)))
        .collect()
}

/// Runs that differ in one setting, side by side.
fn runs(c: &Catalog) -> Table {
    Table {
        caption: "Runs that differ in one setting: decode speed and KV pool".into(),
        columns: pair_columns(&[
            "Decode A (tok/s)",
            "Decode B (tok/s)",
            "B / A",
            "KV pool A",
            "KV pool B",
        ]),
        rows: of(c, Kind::Run)
            .map(|ab| {
                let (a, b) = (&c.doc.runs[ab.a], &c.doc.runs[ab.b]);
                let mut cells = pair_cells(c, ab);
                cells.push(Cell::number(figure(a.decode_tok_s), a.decode_tok_s));
                cells.push(Cell::number(figure(b.decode_tok_s), b.decode_tok_s));
                cells.push(ratio(Some(a.decode_tok_s), Some(b.decode_tok_s)));
                for run in [a, b] {
                    cells.push(match run.kv_tokens {
                        Some(kv) => Cell::number(count(kv), kv as f64),
                        None => Cell::missing(),
                    });
                }
                Row {
                    id: Some(c.ablation_id(ab)),
                    class: None,
                    cells,
                }
            })
            .collect(),
        csv: None,
    }
}

/// Comparisons against the same reference that differ in one setting, side by side.
fn comparisons(c: &Catalog) -> Table {
    Table {
        caption: "Comparisons against the same reference that differ in one setting".into(),
        columns: pair_columns(&[
            &format!("{} A", divergence::KLD_MEAN.label),
            &format!("{} B", divergence::KLD_MEAN.label),
            &format!("{} A", divergence::TOP1_AGREE.label),
            &format!("{} B", divergence::TOP1_AGREE.label),
        ]),
        rows: of(c, Kind::Comparison)
            .map(|ab| {
                let (a, b) = (&c.doc.divergence[ab.a], &c.doc.divergence[ab.b]);
                let mut cells = pair_cells(c, ab);
                for value in [
                    a.teacher_forced.kld_mean,
                    b.teacher_forced.kld_mean,
                    a.teacher_forced.top1_agree,
                    b.teacher_forced.top1_agree,
                ] {
                    cells.push(Cell::number(figure(value), value));
                }
                cells[1] = cells[1].clone().warn(b.suspect.as_ref());
                cells[0] = cells[0].clone().warn(a.suspect.as_ref());
                Row {
                    id: Some(c.ablation_id(ab)),
                    class: None,
                    cells,
                }
            })
            .collect(),
        csv: None,
    }
}

/// A sweep pair as ratios per level: B / A of throughput, per-stream decode and TTFT p50.
fn sweep(c: &Catalog, ab: &Ablation) -> SweepAblation {
    let (a, b) = (&c.doc.sweeps[ab.a], &c.doc.sweeps[ab.b]);
    let ratios = |field: &LevelField, dashed| {
        let pick = |level| level_value(field, level);
        let points = a
            .levels
            .iter()
            .filter_map(|la| {
                let lb = b.levels.iter().find(|lb| lb.load() == la.load())?;
                let (va, vb) = (pick(la)?, pick(lb)?);
                (va > 0.0).then(|| (la.load().x(), crate::stats::round(vb / va, 3)))
            })
            .collect::<Vec<_>>();
        LineSeries {
            name: format!("{}, B / A", field.series),
            links: charts::level_links(&c.sweep_url(b), &points, b.workload.open_loop()),
            points,
            dashed,
        }
    };
    let drawn = [
        (&level::TOTAL_TOK_S, false),
        (&level::DECODE_TOK_S_PER_STREAM, false),
        (&level::TTFT_P50_S, true),
    ];
    let series = drawn.map(|(field, dashed)| ratios(field, dashed));
    let title = format!("{} against {}", b.label, a.label);
    SweepAblation {
        id: c.ablation_id(ab),
        a: c.link_sweep(a),
        b: c.link_sweep(b),
        change: Catalog::ablation_change(ab),
        reading: reading(&drawn),
        chart: c.concurrency_chart(
            &format!("{title}: B / A per level"),
            &series,
            "×",
            a.workload.open_loop(),
            &[],
        ),
        title,
    }
}

/// How to read a ratio chart, figure by figure, from the registry's better direction:
/// `Above 1, B is higher: better for “output tok/s, all streams” and “decode tok/s per
/// stream”, worse for “TTFT p50” (dashed).`
fn reading(drawn: &[(&LevelField, bool)]) -> String {
    let named = |better: Better| {
        drawn
            .iter()
            .filter(|(field, _)| field.field.better() == Some(better))
            .map(|(field, dashed)| match dashed {
                true => format!("“{}” (dashed)", field.series),
                false => format!("“{}”", field.series),
            })
            .collect::<Vec<_>>()
    };
    let mut parts = Vec::new();
    for (better, words) in [(Better::Higher, "better"), (Better::Lower, "worse")] {
        let names = named(better);
        if !names.is_empty() {
            parts.push(format!("{words} for {}", crate::format::and_list(&names)));
        }
    }
    format!("Above 1, B is higher: {}.", parts.join(", "))
}

/// The `/ablations/` page.
#[derive(Debug, Serialize)]
pub struct AblationsPage {
    /// How many pairs in all.
    pub count: usize,
    /// Run pairs.
    pub runs: Table,
    /// The first sweep pairs, each with its ratio chart.
    pub sweeps: Vec<SweepAblation>,
    /// Every sweep pair.
    pub sweep_pairs: Table,
    /// Comparison pairs.
    pub comparisons: Table,
}

/// Two sweeps that differ in one setting.
#[derive(Debug, Serialize)]
pub struct SweepAblation {
    /// The anchor.
    pub id: String,
    /// B against A.
    pub title: String,
    /// The earlier sweep.
    pub a: Link,
    /// The later one.
    pub b: Link,
    /// `seqs: 8 → 32`.
    pub change: String,
    /// How to read its ratios: which are better above 1, which worse.
    pub reading: String,
    /// B / A per concurrency level.
    pub chart: Chart,
}

/// Renders the ablations page.
pub fn view(page: &Page) -> Result<View, SiteError> {
    View::new("One-knob ablations".into(), &self::page(page.catalog()))
}

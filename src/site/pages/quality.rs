//! The quality index: the divergence heatmap, speed against quality, every comparison and the jitter.

use serde::Serialize;

use super::super::catalog::Catalog;
use super::super::charts::{self, ScatterGroup};
use super::super::downloads;
use super::super::error::SiteError;
use super::super::filters::{self, FilteredTable};
use super::super::views::{Cell, Chart, Column, Row, Table};
use super::page::{Page, View};
use super::shared::{most_recent, opt_cell};
use crate::compare::Kind;
use crate::data::figures::{divergence, run};
use crate::data::{Divergence, Jitter, Results, Run};
use crate::format::{count, counted, figure};

/// The quality index's content.
#[derive(Debug, Serialize)]
pub struct QualityIndex {
    heatmap: Chart,
    speed_quality: Chart,
    comparisons: FilteredTable,
    jitter: Table,
}

/// Every linked configuration's latest linked run placed by decode speed against quality cost, so
/// the chart does not grow with a configuration's repeats; earlier runs and suspect
/// comparisons are in the table, not on the chart.
pub fn speed_quality(c: &Catalog) -> Chart {
    let linked: Vec<(&Run, &Divergence, Option<&String>)> = c
        .doc
        .runs
        .iter()
        .filter_map(|run| {
            let note = run.quality.as_ref().and_then(|link| link.note.as_ref());
            c.quality_of(run).map(|d| (run, d, note))
        })
        .collect();
    // A configuration's latest run with a comparison: a later run linked to none leaves
    // the configuration on the chart.
    let with_comparison: std::collections::HashSet<usize> = linked
        .iter()
        .filter_map(|(run, _, _)| c.index_of_run(run))
        .collect();
    let superseded = c.superseded(Kind::Run, |i| with_comparison.contains(&i));
    let latest = |run: &Run| {
        c.index_of_run(run)
            .is_none_or(|index| !superseded.contains(&index))
    };
    let mut models: Vec<&str> = linked.iter().map(|(_, d, _)| d.model.as_str()).collect();
    models.sort_unstable();
    models.dedup();
    let groups: Vec<ScatterGroup> = models
        .iter()
        .map(|model| {
            let drawn: Vec<&(&Run, &Divergence, Option<&String>)> = linked
                .iter()
                .filter(|(run, d, _)| d.model == *model && d.suspect.is_none() && latest(run))
                .collect();
            ScatterGroup {
                name: (*model).to_owned(),
                points: drawn
                    .iter()
                    .map(|(run, d, _)| {
                        (
                            run.decode_tok_s,
                            d.teacher_forced.kld_mean,
                            run.id.to_string(),
                        )
                    })
                    .collect(),
                links: drawn.iter().map(|(run, _, _)| c.run_url(run)).collect(),
                floor: c.floor_of(model),
            }
        })
        .collect();
    let table = speed_quality_table(c, &linked);
    let drawn: usize = groups.iter().map(|g| g.points.len()).sum();
    let alt = format!(
        "Scatter chart of decode speed in tok/s (x) against quality cost, teacher-forced {} in {} (y), for {drawn} run{} of {} model{}, each model's noise floor drawn as a band from 0{}",
        divergence::KLD_MEAN.name(),
        divergence::KLD_MEAN.unit,
        if drawn == 1 { "" } else { "s" },
        groups.len(),
        if groups.len() == 1 { "" } else { "s" },
        in_table_only(&linked, |run| latest(run))
    );
    Chart {
        data_in: None,
        csv: None,
        title: "Decode speed against quality cost".into(),
        alt,
        option: charts::scatter(&groups, "decode tok/s", divergence::KLD_MEAN.label),
        height: 420,
        table,
    }
}

/// What of `linked` the speed-against-quality chart leaves to its table, as the end of its
/// description: the runs of a configuration measured again later, and those with a suspect
/// comparison.
fn in_table_only(
    linked: &[(&Run, &Divergence, Option<&String>)],
    latest: impl Fn(&Run) -> bool,
) -> String {
    let earlier = linked.iter().filter(|(run, _, _)| !latest(run)).count();
    let suspect = linked
        .iter()
        .filter(|(run, d, _)| latest(run) && d.suspect.is_some())
        .count();
    let mut left = Vec::new();
    if earlier > 0 {
        left.push(format!(
            "{} earlier measurement{} of a configuration measured again",
            count(earlier as u64),
            if earlier == 1 { "" } else { "s" }
        ));
    }
    if suspect > 0 {
        left.push(format!("{suspect} with a suspect comparison"));
    }
    if left.is_empty() {
        String::new()
    } else {
        format!("; {} are in the table only", left.join(" and "))
    }
}

/// The table beside the speed-against-quality chart: every linked run, suspect ones too.
fn speed_quality_table(c: &Catalog, linked: &[(&Run, &Divergence, Option<&String>)]) -> Table {
    Table {
        caption: format!(
            "Decode speed against quality cost: each run with the comparison that measures it (teacher-forced {} against the reference)",
            divergence::KLD_MEAN.name()
        ),
        columns: vec![
            Column::text("Run"),
            Column::number(run::DECODE_TOK_S.label),
            Column::text("Comparison"),
            Column::number(divergence::KLD_MEAN.label),
            Column::number("Noise floor"),
            Column::number(divergence::TOP1_AGREE.label),
            Column::text("Note"),
        ],
        rows: linked
            .iter()
            .map(|(run, d, note)| Row {
                id: Some(format!("speed-quality-{}", run.id)),
                class: None,
                cells: vec![
                    Cell::link(run.id.to_string(), c.run_url(run)),
                    Cell::number(figure(run.decode_tok_s), run.decode_tok_s),
                    Cell::link(d.label.clone(), c.comparison_url(d)).warn(d.suspect.as_ref()),
                    Cell::number(figure(d.teacher_forced.kld_mean), d.teacher_forced.kld_mean),
                    opt_cell(c.floor_of(&d.model), figure),
                    Cell::number(
                        figure(d.teacher_forced.top1_agree),
                        d.teacher_forced.top1_agree,
                    ),
                    Cell::text(note.cloned().unwrap_or_default()),
                ],
            })
            .collect(),
        csv: None,
    }
}

/// At most this many rows of a model on the heatmap: its most recent comparisons.
pub const HEATMAP_ROWS_PER_MODEL: usize = 12;

/// The divergence heatmap: comparisons × prompt categories, teacher-forced kld_mean.
pub fn heatmap(c: &Catalog) -> Chart {
    // Grouped by model, each model's most recent comparisons.
    let mut shown: Vec<&Divergence> = Vec::new();
    let mut cut = false;
    for model in c.models() {
        let (recent, left_out) = most_recent(
            model.comparisons.iter().map(|&i| &c.doc.divergence[i]),
            |d| d.generated.as_str(),
            HEATMAP_ROWS_PER_MODEL,
        );
        shown.extend(recent);
        cut |= left_out;
    }
    let columns = categories(c.doc);
    let rows: Vec<String> = shown.iter().map(|d| heatmap_label(d)).collect();
    let cells: Vec<Vec<Option<f64>>> = shown
        .iter()
        .map(|d| {
            columns
                .iter()
                .map(|c| d.teacher_forced.per_category.get(c).map(|s| s.kld_mean))
                .collect()
        })
        .collect();
    let (table_columns, table_rows) = heatmap_table(c, &shown, &columns, &cells);
    let in_scale: Vec<bool> = shown.iter().map(|d| d.suspect.is_none()).collect();
    let models: Vec<&str> = shown.iter().map(|d| d.model.as_str()).collect();
    let tops = charts::heatmap_tops(&cells, &models, &in_scale);
    let mut scales: Vec<(&str, f64)> = Vec::new();
    for (model, top) in models.iter().zip(&tops) {
        if let Some(top) = top
            && !scales.iter().any(|(m, _)| m == model)
        {
            scales.push((model, *top));
        }
    }
    let suspect = in_scale.iter().filter(|s| !**s).count();
    Chart {
        data_in: None,
        csv: None,
        alt: heatmap_alt(rows.len(), columns.len(), &scales, suspect),
        title: if cut {
            format!(
                "KL divergence by prompt category (teacher-forced {}), each model's {HEATMAP_ROWS_PER_MODEL} most recent comparisons",
                divergence::KLD_MEAN.name()
            )
        } else {
            format!(
                "KL divergence by prompt category (teacher-forced {})",
                divergence::KLD_MEAN.name()
            )
        },
        option: charts::heatmap(
            &rows,
            &columns,
            &cells,
            &shown
                .iter()
                .map(|d| {
                    let url = c.comparison_url(d);
                    columns
                        .iter()
                        .map(|column| format!("{url}#category-{}", crate::data::slugify(column)))
                        .collect()
                })
                .collect::<Vec<_>>(),
            &tops,
            divergence::KLD_MEAN.unit,
        ),
        height: 160 + 34 * rows.len() as u32,
        table: Table {
            caption: format!(
                "Teacher-forced {} per prompt category; floors measure noise, ⚠ marks a suspect measurement",
                divergence::KLD_MEAN.name()
            ),
            columns: table_columns,
            rows: table_rows,
            csv: Some(
                c.urls
                    .page(&downloads::path(downloads::DIVERGENCE_CATEGORIES)),
            ),
        },
    }
}

/// The heatmap's table: a row per comparison shown, its value per category and overall.
fn heatmap_table(
    c: &Catalog,
    shown: &[&Divergence],
    columns: &[String],
    cells: &[Vec<Option<f64>>],
) -> (Vec<Column>, Vec<Row>) {
    let mut table_columns = vec![Column::text("Comparison")];
    table_columns.extend(columns.iter().map(|c| Column::number(c.clone())));
    table_columns.push(Column::number("all"));
    let table_rows = shown
        .iter()
        .zip(cells)
        .map(|(d, values)| {
            let mut row =
                vec![Cell::link(heatmap_label(d), c.comparison_url(d)).warn(d.suspect.as_ref())];
            row.extend(values.iter().map(|v| opt_cell(*v, figure)));
            row.push(Cell::number(
                figure(d.teacher_forced.kld_mean),
                d.teacher_forced.kld_mean,
            ));
            Row {
                id: Some(format!("cmp-{}", d.slug())),
                class: comparison_class(d),
                cells: row,
            }
        })
        .collect();
    (table_columns, table_rows)
}

/// What the heatmap shows, for a reader who cannot see it.
fn heatmap_alt(rows: usize, columns: usize, scales: &[(&str, f64)], suspect: usize) -> String {
    let unit = divergence::KLD_MEAN.unit;
    let scales: Vec<String> = scales
        .iter()
        .map(|(model, top)| format!("{model} to {} {unit}", figure(*top)))
        .collect();
    format!(
        "Heatmap of teacher-forced {} in {unit} for {} by {}, each model's rows shaded from 0 to its own largest value ({}){}",
        divergence::KLD_MEAN.name(),
        counted(rows, "comparison", "comparisons"),
        counted(columns, "prompt category", "prompt categories"),
        scales.join(", "),
        if suspect > 0 {
            format!(
                "; {} out of the scale, grey and hatched",
                counted(suspect, "suspect row", "suspect rows")
            )
        } else {
            String::new()
        }
    )
}

/// The table of every comparison.
pub fn comparisons_table(c: &Catalog) -> Table {
    comparisons_table_of(c, &c.doc.divergence)
}

/// [`comparisons_table`] of some records.
pub fn comparisons_table_of<'r>(
    c: &Catalog,
    records: impl IntoIterator<Item = &'r Divergence>,
) -> Table {
    Table {
        caption: "Quality comparisons (a → b)".into(),
        columns: vec![
            Column::text("Comparison"),
            Column::text("Model"),
            Column::text("Kind"),
            Column::number(divergence::KLD_MEAN.label),
            Column::text("95% interval"),
            Column::text("Against its floor"),
            Column::number(divergence::TOP1_AGREE.label),
            Column::number(divergence::IDENTICAL_RATE.label),
            Column::number("First divergence p50"),
        ],
        rows: records
            .into_iter()
            .map(|d| {
                let tf = &d.teacher_forced;
                let generation = &d.generation;
                Row {
                    id: Some(format!("comparison-{}", d.slug())),
                    class: comparison_class(d),
                    cells: vec![
                        Cell::link(&d.label, c.comparison_url(d)).warn(d.suspect.as_ref()),
                        Cell::text(&d.model),
                        Cell::text(if d.is_floor() { "floor" } else { "change" }),
                        Cell::number(figure(tf.kld_mean), tf.kld_mean),
                        Cell::text(format!(
                            "{} – {}",
                            figure(tf.kld_mean_ci95[0]),
                            figure(tf.kld_mean_ci95[1])
                        )),
                        match c.judged(d) {
                            Some(judged) => Cell::text(judged.short).titled(judged.sentence),
                            None => Cell::text("a floor"),
                        },
                        Cell::number(figure(tf.top1_agree), tf.top1_agree),
                        Cell::number(
                            format!(
                                "{} of {}",
                                count(generation.identical),
                                count(generation.prompts)
                            ),
                            generation.identical_rate,
                        ),
                        opt_cell(generation.first_divergence_p50, figure),
                    ],
                }
            })
            .collect(),
        csv: Some(c.urls.page(&downloads::path(downloads::DIVERGENCE))),
    }
}

/// The jitter table.
pub fn jitter_table(c: &Catalog) -> Table {
    jitter_table_of(c, &c.doc.jitter)
}

/// [`jitter_table`] of some records.
pub fn jitter_table_of<'r>(c: &Catalog, records: impl IntoIterator<Item = &'r Jitter>) -> Table {
    Table {
        caption: "Run-to-run jitter: the same server scoring the same continuations again".into(),
        columns: vec![
            Column::text("Server"),
            Column::text("Model"),
            Column::number("Prompts × repeats"),
            Column::number("Positions"),
            Column::number(divergence::JITTER_KLD_MEAN.label),
            Column::number(divergence::JITTER_KLD_P50.label),
            Column::number(divergence::JITTER_KLD_P99.label),
            Column::number(divergence::JITTER_KLD_MAX.label),
            Column::number(divergence::JITTER_TOP1_FLIP_RATE.label),
            Column::text("Notes"),
        ],
        rows: records
            .into_iter()
            .map(|j| Row {
                id: Some(format!("jitter-{}", crate::data::slugify(&j.label))),
                class: None,
                cells: vec![
                    Cell::text(&j.label),
                    Cell::text(&j.model),
                    Cell::number(
                        format!("{} × {}", j.prompts, j.repeats),
                        (j.prompts * j.repeats) as f64,
                    ),
                    Cell::number(count(j.positions), j.positions as f64),
                    Cell::number(figure(j.kld_mean), j.kld_mean),
                    Cell::number(figure(j.kld_p50), j.kld_p50),
                    Cell::number(figure(j.kld_p99), j.kld_p99),
                    Cell::number(figure(j.kld_max), j.kld_max),
                    Cell::number(figure(j.top1_flip_rate), j.top1_flip_rate),
                    Cell::text(j.notes.clone().unwrap_or_default()),
                ],
            })
            .collect(),
        csv: Some(c.urls.page(&downloads::path(downloads::JITTER))),
    }
}

/// The prompt categories in the order the heatmap shows them: as the first comparison that
/// has them lists them, then any others.
fn categories(doc: &Results) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for divergence in &doc.divergence {
        for name in divergence.teacher_forced.per_category.keys() {
            if !names.contains(name) {
                names.push(name.clone());
            }
        }
    }
    names
}

fn heatmap_label(d: &Divergence) -> String {
    let mut label = d.label.clone();
    if d.is_floor() {
        label.push_str(" (floor)");
    }
    if d.suspect.is_some() {
        label.push_str(" ⚠");
    }
    label
}

fn comparison_class(d: &Divergence) -> Option<String> {
    match (d.is_floor(), d.suspect.is_some()) {
        (_, true) => Some("suspect".into()),
        (true, false) => Some("floor".into()),
        _ => None,
    }
}

/// Renders the quality index.
pub fn view(page: &Page) -> Result<View, SiteError> {
    let c = page.catalog();
    let index = QualityIndex {
        heatmap: heatmap(c),
        speed_quality: speed_quality(c),
        comparisons: filters::filtered(
            comparisons_table(c),
            (0..c.doc.divergence.len())
                .map(|i| c.comparison_facets(i))
                .collect(),
        ),
        jitter: jitter_table(c),
    };
    View::new("Quality".into(), &index)
}

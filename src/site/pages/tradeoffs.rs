//! The trade-offs across sweeps, on `/sweeps/` and each model's page: the frontier of
//! throughput per GPU against tokens per second per user for each model and workload, the
//! highest load each sweep takes within the latency limits (`[slo]`, which readers change on
//! the page), and what a million output tokens cost (`[cost]`). `benchsite.js` recomputes the
//! limits and the costs from the levels this view embeds, with the same rules.

use serde::Serialize;

use super::super::catalog::{Catalog, Group, per_watt};
use super::super::charts::{self, LinkedPoint};
use super::super::views::{Cell, Chart, Column, Link, Row, Table};
use crate::config::Slo;
use crate::data::figures::{level, table};
use crate::data::{Load, Sweep, SweepLevel, rules};
use crate::format::figure;
use crate::stats;

use super::super::paging;
use super::shared::{load_cell, opt_cell};

/// The trade-offs section.
#[derive(Debug, Serialize)]
pub struct TradeOffs {
    /// One frontier chart per model and workload (on `/sweeps/`, the first
    /// [`FRONTIER_GROUPS`]).
    frontiers: Vec<Frontier>,
    /// The other models and workloads, each a link to its chart on its model's page.
    more: Vec<Link>,
    /// The limits, each sweep's answer, and the best configuration per model.
    limits: Limits,
    /// How throughput per GPU is counted.
    gpus: String,
    /// The limits the charts grey points beyond, in words.
    within: String,
    /// The levels as JSON, for the page's script: the URL of the data file beside the page,
    /// which the script fetches when the reader changes a limit or the price.
    levels: Option<String>,
    /// The same JSON in the page (`<` escaped, so it cannot end the element), where there is
    /// no page to put the file beside.
    data: Option<String>,
}

/// One model at one workload.
#[derive(Debug, Serialize)]
struct Frontier {
    id: String,
    title: String,
    chart: Chart,
}

/// The limits and what they allow.
#[derive(Debug, Serialize)]
struct Limits {
    bounds: Vec<Bound>,
    /// The sentence saying these are the report's default limits, when `[slo]` gives none.
    defaults: Option<String>,
    sweeps: Table,
    best: Table,
    /// Whether any level shown recorded GPU power.
    energy: bool,
    cost: Option<Price>,
}

/// One limit as the form shows it.
#[derive(Debug, Serialize)]
pub struct Bound {
    key: &'static str,
    label: String,
    value: Option<f64>,
}

/// Every limit the form takes, each with `slo`'s value where it gives one.
pub fn bounds(slo: &Slo) -> Vec<Bound> {
    level::LIMITS
        .iter()
        .map(|figure| Bound {
            key: figure.field.key,
            label: format!("{} at most ({})", figure.field.name(), figure.field.unit),
            value: slo.bound(figure),
        })
        .collect()
}

/// The GPU-hour price as the form shows it.
#[derive(Debug, Serialize)]
struct Price {
    currency: String,
    gpu_hour: f64,
}

/// At most this many models and workloads drawn on `/sweeps/`.
pub const FRONTIER_GROUPS: usize = 8;

/// The anchor of a model and workload's frontier section.
fn frontier_id(model: &str, workload: &str) -> String {
    format!(
        "frontier-{}",
        crate::data::slugify(&format!("{model}, {workload}"))
    )
}

/// At most this many configurations on a frontier chart.
pub const FRONTIER_SERIES: usize = 16;

/// The trade-offs of every sweep, or of one model's; none when no sweep has a level with
/// both figures.
pub fn view(c: &Catalog, model: Option<&str>) -> Option<TradeOffs> {
    let groups = c.frontier_groups(model);
    if groups.is_empty() {
        return None;
    }
    let sweeps: Vec<usize> = (0..c.doc.sweeps.len())
        .filter(|&i| model.is_none_or(|m| c.doc.sweeps[i].model == m))
        .collect();
    // Beside the page, or in it where there is no page to put it beside.
    let levels = paging::beside("levels", "json", || data(c, &sweeps).into_bytes());
    let data = levels.is_none().then(|| data(c, &sweeps));
    // `/sweeps/` draws a bounded number of groups; each model's page draws all of its own.
    let drawn = if model.is_none() {
        groups.len().min(FRONTIER_GROUPS)
    } else {
        groups.len()
    };
    let more = groups[drawn..]
        .iter()
        .map(|g| Link {
            text: format!("{}, {}", g.model, g.workload),
            href: format!(
                "{}#{}",
                c.model_url(&g.model),
                frontier_id(&g.model, &g.workload)
            ),
            note: None,
            warning: None,
        })
        .collect();
    Some(TradeOffs {
        frontiers: groups[..drawn].iter().map(|g| frontier(c, g)).collect(),
        more,
        limits: limits(c, &sweeps),
        gpus: "Throughput per GPU is the level's total output tok/s divided by the GPUs one \
               server ran on: its sweep's gpus dimension, which collect sweep takes from the \
               profile (TENSOR_PARALLEL_SIZE × PIPELINE_PARALLEL_SIZE × DATA_PARALLEL_SIZE), \
               1 when absent. Tokens per second per user is the level's mean per-stream \
               decode rate."
            .into(),
        within: super::limits::words_of(&c.slo),
        levels,
        data,
    })
}

fn frontier(c: &Catalog, group: &Group) -> Frontier {
    let title = format!("{}, {}", group.model, group.workload);
    let mut series: Vec<(String, Vec<LinkedPoint>)> = Vec::new();
    // Each configuration's place in `series`, so a group of many sweeps is read once.
    let mut place: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for point in &group.points {
        let sweep = &c.doc.sweeps[point.sweep];
        // With several machines, a point names the one it was measured on.
        let on = c
            .machine_of::<Sweep>(point.sweep)
            .map_or(String::new(), |m| format!(" on {}", c.machine_title(m)));
        let name = c.sweep_name(sweep);
        let linked = LinkedPoint {
            xy: (point.per_user, point.per_gpu),
            name: format!("{name} at {}{on}", point.load.words()),
            url: format!("{}#{}", c.sweep_url(sweep), point.load.anchor()),
            frontier: point.frontier,
            within: point.within,
            load: point.load.short(),
        };
        match place.get(sweep.label.as_str()) {
            Some(&at) => series[at].1.push(linked),
            None => {
                place.insert(&sweep.label, series.len());
                series.push((name, vec![linked]));
            }
        }
    }
    // A bounded chart: the configurations with a level on the frontier first, then in
    // document order; every level stays in the table.
    let configurations = series.len();
    if configurations > FRONTIER_SERIES {
        series.sort_by_key(|(_, points)| !points.iter().any(|p| p.frontier));
        series.truncate(FRONTIER_SERIES);
    }
    let drawn = if configurations > FRONTIER_SERIES {
        format!(
            " ({FRONTIER_SERIES} of {configurations} configurations drawn, those on the frontier first; every level is in the table)"
        )
    } else {
        String::new()
    };
    let on = group.points.iter().filter(|p| p.frontier).count();
    let within = group.points.iter().filter(|p| p.within).count();
    let table = frontier_table(c, group, &title);
    Frontier {
        id: frontier_id(&group.model, &group.workload),
        chart: Chart {
            data_in: None,
            csv: None,
            alt: format!(
                "Scatter chart of output tok/s per GPU against tok/s per user for {} of {} of {title}; {} on the frontier, which a dashed line joins, each labelled with its load; {within} within the limits ({}), the others grey",
                crate::format::counted(group.points.len(), "level", "levels"),
                crate::format::counted(series.len(), "sweep", "sweeps"),
                crate::format::counted(on, "level is", "levels are"),
                super::limits::words_of(&c.slo),
            ),
            option: charts::frontier(&series, super::limits::least_per_user(&c.slo)),
            height: 420,
            table,
            title: format!("Throughput against interactivity: {title}{drawn}"),
        },
        title,
    }
}

/// Every level of a frontier's group in a table, the frontier first.
fn frontier_table(c: &Catalog, group: &Group, title: &str) -> Table {
    let mut rows: Vec<&super::super::catalog::Point> = group.points.iter().collect();
    rows.sort_by(|a, b| {
        b.frontier
            .cmp(&a.frontier)
            .then(a.per_user.total_cmp(&b.per_user))
    });
    let energy = group
        .points
        .iter()
        .any(|p| p.joules.is_some() || p.per_watt.is_some());
    let declared = c.machines.declared();
    let mut columns = vec![Column::text("Configuration")];
    if declared {
        columns.push(Column::text("Machine"));
    }
    let engines = c.several_engines();
    if engines {
        columns.push(Column::text("Engine"));
    }
    // A group is of one kind: its workload names open-loop arrivals.
    let axis = group
        .points
        .first()
        .map_or("Concurrency", |p| p.load.axis());
    columns.extend([
        Column::number(axis),
        Column::number("tok/s per user"),
        Column::number("tok/s per GPU"),
        Column::text("On the frontier"),
    ]);
    columns.extend(extra_columns(c, energy));
    Table {
        caption: format!("Every level of {title}; the frontier first"),
        columns,
        rows: rows
            .into_iter()
            .map(|p| {
                let sweep = &c.doc.sweeps[p.sweep];
                let mut cells = vec![Cell::link(
                    &sweep.label,
                    format!("{}#{}", c.sweep_url(sweep), p.load.anchor()),
                )];
                if let Some(machine) = c.machine_of::<Sweep>(p.sweep) {
                    cells.push(c.machine_cell(machine));
                }
                if engines {
                    cells.push(c.engine_cell(sweep));
                }
                cells.extend([
                    Cell::number(p.load.cell(), p.load.x()),
                    Cell::number(figure(p.per_user), p.per_user),
                    Cell::number(figure(p.per_gpu), p.per_gpu),
                    Cell::text(if p.frontier { "yes" } else { "no" }),
                ]);
                let cost = c.cost_per_million(p.total, rules::sweep_gpus(sweep));
                cells.extend(extra_cells(c, energy, cost, p.joules, p.per_watt));
                Row {
                    id: Some(format!("level-{}-{}", sweep.slug(), p.load.anchor())),
                    class: p.frontier.then(|| "frontier".to_owned()),
                    cells,
                }
            })
            .collect(),
        csv: None,
    }
}

/// Each sweep's highest load within the limits, and the best configuration per model.
fn limits(c: &Catalog, sweeps: &[usize]) -> Limits {
    let slo = &c.slo;
    let bounds = bounds(slo);
    let answers: Vec<(usize, Option<Answer>)> = sweeps
        .iter()
        .map(|&i| (i, answer(c, &c.doc.sweeps[i], slo)))
        .collect();
    let energy = sweeps.iter().any(|&i| {
        c.doc.sweeps[i]
            .levels
            .iter()
            .any(|l| l.power_w.is_some() || l.joules_per_token.is_some())
    });
    let open = sweeps.iter().any(|&i| c.doc.sweeps[i].workload.open_loop());
    let sweeps_table = within_table(c, &answers, energy, open);
    let best = best_table(c, &answers, energy, open);
    Limits {
        defaults: c.limits_defaults(),
        bounds,
        sweeps: sweeps_table,
        best,
        energy,
        cost: c.cost.as_ref().map(|cost| Price {
            currency: cost.currency.clone(),
            gpu_hour: cost.gpu_hour,
        }),
    }
}

/// Each sweep's answer within the limits in a table.
fn within_table(
    c: &Catalog,
    answers: &[(usize, Option<Answer>)],
    energy: bool,
    open: bool,
) -> Table {
    let mut columns = vec![
        Column::text("Sweep"),
        Column::text("Model"),
        Column::text("Workload"),
        Column::number(if open {
            "Highest load within (concurrency, or arrival rate)"
        } else {
            "Highest concurrency within"
        }),
        Column::number("Output tok/s there"),
        Column::number("tok/s per GPU"),
    ];
    columns.extend(extra_columns(c, energy));
    Table {
        caption: "The most load each sweep takes within the limits".into(),
        columns,
        rows: answers
            .iter()
            .map(|(i, answer)| {
                let sweep = &c.doc.sweeps[*i];
                let mut cells = vec![
                    Cell::link(c.sweep_name(sweep), c.sweep_url(sweep)),
                    Cell::text(&sweep.model),
                    Cell::text(c.workloads()[*i].clone()),
                ];
                match answer {
                    Some(a) => {
                        cells.extend([
                            load_cell(a.load),
                            Cell::number(figure(a.total), a.total),
                            Cell::number(figure(a.per_gpu), a.per_gpu),
                        ]);
                        cells.extend(extra_cells(c, energy, a.cost, a.joules, a.per_watt));
                    }
                    None => {
                        cells.push(Cell::text("none within"));
                        cells.extend([Cell::missing(), Cell::missing()]);
                        cells.extend(extra_cells(c, energy, None, None, None));
                    }
                }
                Row {
                    id: Some(format!("within-{}", sweep.slug())),
                    class: None,
                    cells,
                }
            })
            .collect(),
        csv: None,
    }
}

/// Per model and workload, the sweep whose answer has the most throughput per GPU, in a table.
fn best_table(c: &Catalog, answers: &[(usize, Option<Answer>)], energy: bool, open: bool) -> Table {
    // Per model and workload, the sweep whose answer has the most throughput per GPU (the
    // first of equals).
    let mut best: Vec<(String, usize, Answer)> = Vec::new();
    for (i, answer) in answers {
        let Some(answer) = answer else { continue };
        let sweep = &c.doc.sweeps[*i];
        let key = format!("{}\u{0}{}", sweep.model, c.workloads()[*i]);
        match best.iter_mut().find(|(k, _, _)| *k == key) {
            Some(entry) if entry.2.per_gpu >= answer.per_gpu => {}
            Some(entry) => *entry = (key, *i, answer.clone()),
            None => best.push((key, *i, answer.clone())),
        }
    }
    let mut best_columns = vec![
        Column::text("Model"),
        Column::text("Best configuration"),
        Column::text("Workload"),
        Column::number(if open {
            "Load (concurrency, or arrival rate)"
        } else {
            level::CONCURRENCY.field.label
        }),
        Column::number("tok/s per GPU"),
    ];
    best_columns.extend(extra_columns(c, energy));
    Table {
        caption: "The best configuration of each model and workload within the limits: the most throughput per GPU".into(),
        columns: best_columns,
        rows: best
            .iter()
            .map(|(_, i, a)| {
                let sweep = &c.doc.sweeps[*i];
                let model = &sweep.model;
                let mut cells = vec![
                    Cell::link(model, c.model_url(model)),
                    Cell::link(c.sweep_name(sweep), c.sweep_url(sweep)),
                    Cell::text(c.workloads()[*i].clone()),
                    load_cell(a.load),
                    Cell::number(figure(a.per_gpu), a.per_gpu),
                ];
                cells.extend(extra_cells(c, energy, a.cost, a.joules, a.per_watt));
                Row {
                    id: None,
                    class: None,
                    cells,
                }
            })
            .collect(),
        csv: None,
    }
}

/// The header of the cost column, by which the page's script finds it.
const COST_COLUMN: &str = "Per million output tokens";

/// The header of the energy column, by which the page's script finds it.
const ENERGY_COLUMN: &str = "J per output token";

/// The columns beside a level's throughput: its cost where `[cost]` gives a price, its
/// energy where any level shown recorded power.
fn extra_columns(c: &Catalog, energy: bool) -> Vec<Column> {
    let mut columns = Vec::new();
    if c.cost.is_some() {
        columns.push(Column::number(COST_COLUMN));
    }
    if energy {
        columns.push(Column::number(ENERGY_COLUMN));
        columns.push(Column::number("Output tok/s per W"));
    }
    columns
}

/// The cells of [`extra_columns`].
fn extra_cells(
    c: &Catalog,
    energy: bool,
    cost: Option<f64>,
    joules: Option<f64>,
    per_watt: Option<f64>,
) -> Vec<Cell> {
    let mut cells = Vec::new();
    if c.cost.is_some() {
        cells.push(opt_cell(cost, |v| format!("{}{}", currency(c), figure(v))));
    }
    if energy {
        cells.push(opt_cell(joules, figure));
        cells.push(opt_cell(per_watt, figure));
    }
    cells
}

fn currency(c: &Catalog) -> String {
    c.cost
        .as_ref()
        .map(|cost| cost.currency.clone())
        .unwrap_or_default()
}

/// One sweep's answer to the limits.
#[derive(Debug, Clone)]
struct Answer {
    load: Load,
    total: f64,
    per_gpu: f64,
    cost: Option<f64>,
    joules: Option<f64>,
    per_watt: Option<f64>,
}

fn answer(c: &Catalog, sweep: &Sweep, slo: &Slo) -> Option<Answer> {
    let gpus = rules::sweep_gpus(sweep);
    let level = sweep
        .levels
        .iter()
        .filter(|level| slo.holds(level) && level.total_tok_s.is_some())
        .max_by(|a, b| a.load().x().total_cmp(&b.load().x()))?;
    let total = level.total_tok_s?;
    Some(Answer {
        load: level.load(),
        total,
        per_gpu: stats::round(total / gpus as f64, 1),
        cost: c.cost_per_million(total, gpus),
        joules: level.joules_per_token,
        per_watt: per_watt(level),
    })
}

/// The levels of `sweeps` for the page's script: what it needs to answer other limits and
/// prices the way [`answer`] does.
fn data(c: &Catalog, sweeps: &[usize]) -> String {
    // Written straight from the records, in the key order of the JSON maps the file has always
    // had (sorted), without building a tree of values.
    #[derive(Serialize)]
    struct Data<'a> {
        columns: serde_json::Value,
        currency: String,
        limits: serde_json::Value,
        sweeps: Vec<SweepData<'a>>,
    }
    #[derive(Serialize)]
    struct SweepData<'a> {
        gpus: u64,
        label: String,
        levels: Vec<LevelData<'a>>,
        model: &'a str,
        #[serde(rename = "modelUrl")]
        model_url: String,
        slug: String,
        url: String,
        workload: String,
    }
    let data = Data {
        columns: serde_json::json!({ "cost": COST_COLUMN, "energy": ENERGY_COLUMN }),
        currency: currency(c),
        limits: serde_json::to_value(table::limits()).expect("the limits serialize"),
        sweeps: sweeps
            .iter()
            .map(|&i| {
                let sweep = &c.doc.sweeps[i];
                SweepData {
                    gpus: rules::sweep_gpus(sweep),
                    label: c.sweep_name(sweep),
                    levels: sweep.levels.iter().map(LevelData).collect(),
                    model: &sweep.model,
                    model_url: c.model_url(&sweep.model),
                    slug: sweep.slug(),
                    url: c.sweep_url(sweep),
                    workload: c.workloads()[i].clone(),
                }
            })
            .collect(),
    };
    serde_json::to_string(&data)
        .expect("the levels serialize")
        .replace('<', "\\u003c")
}

/// One level for a page's script: what the limits and prices are answered from, each
/// limited figure under its registry key, the keys sorted; `n` is its requests answered.
pub(super) struct LevelData<'a>(pub(super) &'a SweepLevel);

impl Serialize for LevelData<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let l = self.0;
        let load = match l.load() {
            Load::Concurrency(c) => ("c", c.into()),
            Load::Rate(r) => ("r", r.into()),
        };
        let mut entries: Vec<(&str, serde_json::Value)> = vec![
            load,
            ("failed", l.failed.into()),
            ("n", l.succeeded.into()),
            ("perUser", l.decode_tok_s_per_stream.into()),
            ("total", l.total_tok_s.into()),
            ("joules", l.joules_per_token.into()),
            ("perWatt", per_watt(l).into()),
        ];
        entries.extend(
            level::LIMITS
                .iter()
                .map(|figure| (figure.field.key, figure.field.number_in(l).into())),
        );
        entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
        let mut map = serializer.serialize_map(Some(entries.len()))?;
        for (key, value) in &entries {
            map.serialize_entry(key, value)?;
        }
        map.end()
    }
}

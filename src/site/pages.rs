//! The page model: every page of the report computed from the validated records, as plain
//! structs for the templates. No HTML is written here except the author's rendered Markdown.

use serde::Serialize;

use crate::compare::{self, Ablation, Kind};
use crate::data::{self, Divergence, Failure, Results, Run, Sweep, SweepLevel};
use crate::profiles::{self, Launcher, Profile};

use super::Urls;
use super::charts::{self, LineSeries, ScatterGroup};
use super::format::{count, figure, percent, switch};
use super::views::{Cell, Chart, Column, Fact, Link, Row, Table};

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

/// Whether a failure's checkpoint is of `model`.
pub fn failure_concerns(failure: &Failure, model: &str) -> bool {
    failure
        .checkpoint
        .to_lowercase()
        .contains(&model.to_lowercase())
}

fn opt(value: Option<String>) -> String {
    value.unwrap_or_else(|| "—".into())
}

fn opt_cell(value: Option<f64>, text: impl Fn(f64) -> String) -> Cell {
    match value {
        Some(value) => Cell::number(text(value), value),
        None => Cell::missing(),
    }
}

/// Everything derived from the data that pages and shortcodes show.
pub struct Catalog<'a> {
    /// The document.
    pub doc: &'a Results,
    /// The project's profiles.
    pub profiles: &'a [Profile],
    urls: Urls,
    /// The one-knob pairs of the document, found when a page first needs them (a Markdown
    /// edit under `serve` re-renders one page, usually without them).
    ablations: std::sync::OnceLock<Vec<Ablation>>,
}

impl<'a> Catalog<'a> {
    /// The catalog of `doc`.
    pub fn new(doc: &'a Results, profiles: &'a [Profile], urls: Urls) -> Self {
        Self {
            ablations: std::sync::OnceLock::new(),
            doc,
            profiles,
            urls,
        }
    }

    /// The URL of a run's page.
    pub fn run_url(&self, run: &Run) -> String {
        self.urls.page(&format!("runs/{}/", run.id))
    }

    /// The URL of a sweep's page.
    pub fn sweep_url(&self, sweep: &Sweep) -> String {
        self.urls.page(&format!("sweeps/{}/", sweep.slug()))
    }

    /// The URL of a failure's page.
    pub fn failure_url(&self, failure: &Failure) -> String {
        self.urls.page(&format!("failures/{}/", failure.id))
    }

    /// The URL of a comparison's page.
    pub fn comparison_url(&self, divergence: &Divergence) -> String {
        self.urls.page(&format!("quality/{}/", divergence.slug()))
    }

    /// A run by id.
    pub fn run(&self, id: &str) -> Option<&'a Run> {
        self.doc.runs.iter().find(|run| run.id.as_str() == id)
    }

    /// A sweep by label or slug.
    pub fn sweep(&self, key: &str) -> Option<&'a Sweep> {
        self.doc
            .sweeps
            .iter()
            .find(|sweep| sweep.label == key || sweep.slug() == key)
    }

    /// How many one-knob pairs the document has.
    pub fn ablation_count(&self) -> usize {
        self.ablations().len()
    }

    fn ablations(&self) -> &[Ablation] {
        self.ablations
            .get_or_init(|| compare::ablations(self.doc, self.profiles))
    }

    fn index_of_run(&self, run: &Run) -> Option<usize> {
        self.doc
            .runs
            .iter()
            .position(|other| std::ptr::eq(other, run))
    }

    /// The name and page of record `index` of a kind.
    fn record(&self, kind: Kind, index: usize) -> (String, String) {
        match kind {
            Kind::Run => {
                let run = &self.doc.runs[index];
                (run.id.to_string(), self.run_url(run))
            }
            Kind::Sweep => {
                let sweep = &self.doc.sweeps[index];
                (sweep.label.clone(), self.sweep_url(sweep))
            }
            Kind::Comparison => {
                let d = &self.doc.divergence[index];
                (d.label.clone(), self.comparison_url(d))
            }
        }
    }

    /// The anchor of a pair on the ablations page.
    fn ablation_id(&self, ablation: &Ablation) -> String {
        let kind = match ablation.kind {
            Kind::Run => "run",
            Kind::Sweep => "sweep",
            Kind::Comparison => "comparison",
        };
        let (a, _) = self.record(ablation.kind, ablation.a);
        let (b, _) = self.record(ablation.kind, ablation.b);
        format!("{kind}-{}-vs-{}", data::slugify(&a), data::slugify(&b))
    }

    /// `seqs: 8 → 32`.
    fn ablation_change(ablation: &Ablation) -> String {
        format!("{}: {} → {}", ablation.setting, ablation.from, ablation.to)
    }

    /// Links to the pairs record `index` of `kind` is part of.
    fn ablation_links(&self, kind: Kind, index: Option<usize>) -> Vec<Link> {
        let Some(index) = index else {
            return Vec::new();
        };
        self.ablations()
            .iter()
            .filter(|ab| ab.kind == kind && (ab.a == index || ab.b == index))
            .map(|ab| {
                let other = if ab.a == index { ab.b } else { ab.a };
                Link {
                    text: format!("against {}", self.record(kind, other).0),
                    href: format!("{}#{}", self.urls.page("ablations/"), self.ablation_id(ab)),
                    note: Some(Self::ablation_change(ab)),
                    warning: None,
                }
            })
            .collect()
    }

    /// The ablations page: run pairs side by side, sweep pairs as ratios per level,
    /// comparison pairs side by side.
    pub fn ablations_page(&self) -> AblationsPage {
        let of = |kind: Kind| self.ablations().iter().filter(move |ab| ab.kind == kind);
        let pair_cells = |ab: &Ablation| {
            let (a, a_url) = self.record(ab.kind, ab.a);
            let (b, b_url) = self.record(ab.kind, ab.b);
            vec![
                Cell::link(a, a_url),
                Cell::link(b, b_url),
                Cell::text(Self::ablation_change(ab)),
            ]
        };
        let ratio = |a: Option<f64>, b: Option<f64>| match (a, b) {
            (Some(a), Some(b)) if a > 0.0 => {
                let r = b / a;
                Cell::number(format!("{r:.2}×"), r)
            }
            _ => Cell::missing(),
        };
        let runs = Table {
            caption: "Runs that differ in one setting: decode speed and KV pool".into(),
            columns: ["A", "B", "Setting"]
                .map(Column::text)
                .into_iter()
                .chain(
                    [
                        "Decode A (tok/s)",
                        "Decode B (tok/s)",
                        "B / A",
                        "KV pool A",
                        "KV pool B",
                    ]
                    .map(Column::number),
                )
                .collect(),
            rows: of(Kind::Run)
                .map(|ab| {
                    let (a, b) = (&self.doc.runs[ab.a], &self.doc.runs[ab.b]);
                    let mut cells = pair_cells(ab);
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
                        id: Some(self.ablation_id(ab)),
                        class: None,
                        cells,
                    }
                })
                .collect(),
            csv: None,
        };
        let comparisons = Table {
            caption: "Comparisons against the same reference that differ in one setting".into(),
            columns: ["A", "B", "Setting"]
                .map(Column::text)
                .into_iter()
                .chain(
                    [
                        "kld_mean A",
                        "kld_mean B",
                        "top-1 agreement A",
                        "top-1 agreement B",
                    ]
                    .map(Column::number),
                )
                .collect(),
            rows: of(Kind::Comparison)
                .map(|ab| {
                    let (a, b) = (&self.doc.divergence[ab.a], &self.doc.divergence[ab.b]);
                    let mut cells = pair_cells(ab);
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
                        id: Some(self.ablation_id(ab)),
                        class: None,
                        cells,
                    }
                })
                .collect(),
            csv: None,
        };
        let sweeps = of(Kind::Sweep)
            .map(|ab| {
                let (a, b) = (&self.doc.sweeps[ab.a], &self.doc.sweeps[ab.b]);
                let ratios = |name: &str, pick: fn(&SweepLevel) -> Option<f64>, dashed| {
                    let points = a
                        .levels
                        .iter()
                        .filter_map(|la| {
                            let lb = b
                                .levels
                                .iter()
                                .find(|lb| lb.concurrency == la.concurrency)?;
                            let (va, vb) = (pick(la)?, pick(lb)?);
                            (va > 0.0)
                                .then(|| (la.concurrency as f64, crate::stats::round(vb / va, 3)))
                        })
                        .collect();
                    LineSeries {
                        name: name.to_owned(),
                        points,
                        dashed,
                    }
                };
                let series = [
                    ratios("total tok/s, B / A", |l| l.total_tok_s, false),
                    ratios(
                        "decode tok/s per stream, B / A",
                        |l| l.decode_tok_s_per_stream,
                        false,
                    ),
                    ratios("TTFT p50, B / A", |l| l.ttft_p50_s, true),
                ];
                let title = format!("{} against {}", b.label, a.label);
                SweepAblation {
                    id: self.ablation_id(ab),
                    a: self.link_sweep(a),
                    b: self.link_sweep(b),
                    change: Self::ablation_change(ab),
                    chart: self.concurrency_chart(
                        &format!("{title}: B / A per level"),
                        &series,
                        "×",
                    ),
                    title,
                }
            })
            .collect();
        AblationsPage {
            count: self.ablations().len(),
            runs,
            sweeps,
            comparisons,
        }
    }

    /// The comparison that measures a run's quality, when the author linked one.
    pub fn quality_of(&self, run: &Run) -> Option<&'a Divergence> {
        let link = run.quality.as_ref()?;
        self.doc
            .divergence
            .iter()
            .find(|d| d.label == link.comparison || d.slug() == link.comparison)
    }

    /// The largest kld_mean of the floor comparisons of `model`.
    fn floor_of(&self, model: &str) -> Option<f64> {
        self.doc
            .divergence
            .iter()
            .filter(|d| d.is_floor() && d.model == model)
            .map(|d| d.teacher_forced.kld_mean)
            .reduce(f64::max)
    }

    /// Every linked run placed by decode speed against quality cost; suspect comparisons are
    /// in the table, not on the chart.
    pub fn speed_quality(&self) -> Chart {
        let linked: Vec<(&Run, &Divergence, Option<&String>)> = self
            .doc
            .runs
            .iter()
            .filter_map(|run| {
                let note = run.quality.as_ref().and_then(|link| link.note.as_ref());
                self.quality_of(run).map(|d| (run, d, note))
            })
            .collect();
        let mut models: Vec<&str> = linked.iter().map(|(_, d, _)| d.model.as_str()).collect();
        models.sort_unstable();
        models.dedup();
        let groups: Vec<ScatterGroup> = models
            .iter()
            .map(|model| ScatterGroup {
                name: (*model).to_owned(),
                points: linked
                    .iter()
                    .filter(|(_, d, _)| d.model == *model && d.suspect.is_none())
                    .map(|(run, d, _)| {
                        (
                            run.decode_tok_s,
                            d.teacher_forced.kld_mean,
                            run.id.to_string(),
                        )
                    })
                    .collect(),
                floor: self.floor_of(model),
            })
            .collect();
        let table = Table {
            caption: "Decode speed against quality cost: each run with the comparison that measures it (teacher-forced kld_mean against the reference)".into(),
            columns: vec![
                Column::text("Run"),
                Column::number("Decode (tok/s)"),
                Column::text("Comparison"),
                Column::number("kld_mean"),
                Column::number("Noise floor"),
                Column::number("Top-1 agreement"),
                Column::text("Note"),
            ],
            rows: linked
                .iter()
                .map(|(run, d, note)| Row {
                    id: Some(format!("speed-quality-{}", run.id)),
                    class: None,
                    cells: vec![
                        Cell::link(run.id.to_string(), self.run_url(run)),
                        Cell::number(figure(run.decode_tok_s), run.decode_tok_s),
                        Cell::link(d.label.clone(), self.comparison_url(d)).warn(d.suspect.as_ref()),
                        Cell::number(figure(d.teacher_forced.kld_mean), d.teacher_forced.kld_mean),
                        opt_cell(self.floor_of(&d.model), figure),
                        Cell::number(figure(d.teacher_forced.top1_agree), d.teacher_forced.top1_agree),
                        Cell::text(note.cloned().unwrap_or_default()),
                    ],
                })
                .collect(),
            csv: None,
        };
        Chart {
            title: "Decode speed against quality cost".into(),
            option: charts::scatter(&groups, "decode tok/s", "kld_mean (nats)"),
            height: 420,
            table,
        }
    }

    /// A run's quality cost, for its page.
    fn run_quality(&self, run: &Run) -> Option<RunQuality> {
        let d = self.quality_of(run)?;
        let note = run.quality.as_ref().and_then(|link| link.note.as_ref());
        Some(RunQuality {
            comparison: self.link_comparison(d),
            kld_mean: figure(d.teacher_forced.kld_mean),
            top1_agree: figure(d.teacher_forced.top1_agree),
            floor: self.floor_of(&d.model).map(figure),
            note: note.cloned(),
            chart: self
                .urls
                .page(&format!("quality/#speed-quality-{}", run.id)),
        })
    }

    /// The table of every run.
    pub fn runs_table(&self) -> Table {
        let rows = self
            .doc
            .runs
            .iter()
            .map(|run| Row {
                id: Some(format!("run-{}", run.id)),
                class: None,
                cells: vec![
                    Cell::link(run.id.to_string(), self.run_url(run)),
                    Cell::text(&run.model),
                    Cell::text(&run.precision),
                    Cell::number(figure(run.decode_tok_s), run.decode_tok_s),
                    match run.spec_acceptance {
                        Some(acceptance) => {
                            Cell::number(format!("on, {} accepted", figure(acceptance)), acceptance)
                        }
                        None => Cell::number(switch(run.spec_decode), 0.0),
                    },
                    opt_cell(run.kv_tokens.map(|v| v as f64), |v| count(v as u64)),
                    Cell::number(count(run.max_model_len), run.max_model_len as f64),
                    opt_cell(run.max_concurrency, figure),
                    opt_cell(run.weights_gb, figure),
                    Cell::text(switch(run.cuda_graphs)),
                    Cell::text(switch(run.vision)),
                ],
            })
            .collect();
        Table {
            caption: "Measured configurations: single-stream decode speed and KV-cache capacity"
                .into(),
            columns: vec![
                Column::text("Run"),
                Column::text("Model"),
                Column::text("Precision"),
                Column::number("Decode tok/s"),
                Column::number("Speculative decoding"),
                Column::number("KV pool (tokens)"),
                Column::number("Context (tokens)"),
                Column::number("Full-context sequences"),
                Column::number("Weights (GB)"),
                Column::text("CUDA graphs"),
                Column::text("Vision"),
            ],
            rows,
            csv: Some(self.urls.page("data/runs.csv")),
        }
    }

    /// The bar chart of decode speed per run.
    pub fn decode_chart(&self) -> Chart {
        let names: Vec<String> = self.doc.runs.iter().map(|r| r.id.to_string()).collect();
        let values: Vec<f64> = self.doc.runs.iter().map(|r| r.decode_tok_s).collect();
        Chart {
            title: "Single-stream decode speed per configuration".into(),
            option: charts::bars(&names, &values, "tok/s"),
            height: 380,
            table: Table {
                caption: "Decode speed per configuration".into(),
                columns: vec![Column::text("Run"), Column::number("Decode tok/s")],
                rows: self
                    .doc
                    .runs
                    .iter()
                    .map(|run| Row {
                        id: None,
                        class: None,
                        cells: vec![
                            Cell::link(run.id.to_string(), self.run_url(run)),
                            Cell::number(figure(run.decode_tok_s), run.decode_tok_s),
                        ],
                    })
                    .collect(),
                csv: None,
            },
        }
    }

    /// The table of every failure.
    pub fn failures_table(&self) -> Table {
        Table {
            caption: "Configurations that did not run".into(),
            columns: vec![
                Column::text("Failure"),
                Column::text("Checkpoint"),
                Column::text("Precision"),
                Column::number("Weights (GB)"),
                Column::text("What happened"),
                Column::text("Settings tried"),
            ],
            rows: self
                .doc
                .failures
                .iter()
                .map(|failure| Row {
                    id: Some(format!("failure-{}", failure.id)),
                    class: None,
                    cells: vec![
                        Cell::link(failure.id.to_string(), self.failure_url(failure)),
                        Cell::text(&failure.checkpoint),
                        Cell::text(&failure.precision),
                        opt_cell(failure.weights_gb, figure),
                        Cell::text(failure.status.describe()),
                        Cell::text(opt(failure.config.clone())),
                    ],
                })
                .collect(),
            csv: Some(self.urls.page("data/failures.csv")),
        }
    }

    /// The list of failures with their one-paragraph reasons.
    pub fn failure_links(&self) -> Vec<Link> {
        self.doc
            .failures
            .iter()
            .map(|failure| Link {
                text: failure.id.to_string(),
                href: self.failure_url(failure),
                note: Some(format!("{}: {}", failure.status.describe(), failure.reason)),
                warning: None,
            })
            .collect()
    }

    /// The levels table of one sweep.
    pub fn sweep_table(&self, sweep: &Sweep) -> Table {
        Table {
            caption: format!("Concurrency levels of {}", sweep.label),
            columns: vec![
                Column::number("Concurrency"),
                Column::number("Requests"),
                Column::number("Succeeded"),
                Column::number("Failed"),
                Column::number("TTFT p50 (s)"),
                Column::number("TTFT p95 (s)"),
                Column::number("Decode tok/s per stream"),
                Column::number("Total tok/s"),
                Column::number("Latency p50 (s)"),
                Column::number("Latency p95 (s)"),
            ],
            rows: sweep
                .levels
                .iter()
                .map(|level| Row {
                    id: Some(format!("c{}", level.concurrency)),
                    class: (level.failed > 0).then(|| "failed".to_owned()),
                    cells: vec![
                        Cell::number(count(level.concurrency), level.concurrency as f64),
                        Cell::number(count(level.requests), level.requests as f64),
                        Cell::number(count(level.succeeded), level.succeeded as f64),
                        Cell::number(count(level.failed), level.failed as f64),
                        opt_cell(level.ttft_p50_s, figure),
                        opt_cell(level.ttft_p95_s, figure),
                        opt_cell(level.decode_tok_s_per_stream, figure),
                        opt_cell(level.total_tok_s, figure),
                        opt_cell(level.latency_p50_s, figure),
                        opt_cell(level.latency_p95_s, figure),
                    ],
                })
                .collect(),
            csv: Some(self.urls.page("data/sweep-levels.csv")),
        }
    }

    /// The charts of one sweep: throughput, time to first token, latency.
    pub fn sweep_charts(&self, sweep: &Sweep) -> Vec<Chart> {
        let series = |name: &str, pick: fn(&SweepLevel) -> Option<f64>, dashed| LineSeries {
            name: name.to_owned(),
            points: points(sweep, pick),
            dashed,
        };
        let throughput = [
            series("total tok/s", |l| l.total_tok_s, false),
            series(
                "decode tok/s per stream",
                |l| l.decode_tok_s_per_stream,
                true,
            ),
        ];
        let ttft = [
            series("TTFT p50", |l| l.ttft_p50_s, false),
            series("TTFT p95", |l| l.ttft_p95_s, true),
        ];
        let latency = [
            series("latency p50", |l| l.latency_p50_s, false),
            series("latency p95", |l| l.latency_p95_s, true),
        ];
        vec![
            self.concurrency_chart("Throughput against concurrency", &throughput, "tok/s"),
            self.concurrency_chart("Time to first token against concurrency", &ttft, "s"),
            self.concurrency_chart("Request latency against concurrency", &latency, "s"),
        ]
    }

    /// The overlay charts of every sweep.
    pub fn sweep_overlays(&self) -> Vec<Chart> {
        let overlay = |title: &str, pick: fn(&SweepLevel) -> Option<f64>, unit: &str| {
            let series: Vec<LineSeries> = self
                .doc
                .sweeps
                .iter()
                .map(|sweep| LineSeries {
                    name: sweep.label.clone(),
                    points: points(sweep, pick),
                    dashed: false,
                })
                .collect();
            self.concurrency_chart(title, &series, unit)
        };
        vec![
            overlay("Total throughput, every sweep", |l| l.total_tok_s, "tok/s"),
            overlay(
                "Decode speed per stream, every sweep",
                |l| l.decode_tok_s_per_stream,
                "tok/s",
            ),
            overlay(
                "Time to first token p50, every sweep",
                |l| l.ttft_p50_s,
                "s",
            ),
            overlay(
                "Time to first token p95, every sweep",
                |l| l.ttft_p95_s,
                "s",
            ),
        ]
    }

    fn concurrency_chart(&self, title: &str, series: &[LineSeries], unit: &str) -> Chart {
        let mut levels: Vec<f64> = series
            .iter()
            .flat_map(|s| s.points.iter().map(|(x, _)| *x))
            .collect();
        levels.sort_by(f64::total_cmp);
        levels.dedup();
        let mut columns = vec![Column::text("Series")];
        columns.extend(levels.iter().map(|c| Column::number(format!("c = {c}"))));
        let rows =
            series
                .iter()
                .map(|s| {
                    let mut cells = vec![Cell::text(&s.name)];
                    cells.extend(levels.iter().map(
                        |c| match s.points.iter().find(|(x, _)| x == c) {
                            Some(&(_, y)) => Cell::number(figure(y), y),
                            None => Cell::missing(),
                        },
                    ));
                    Row {
                        id: None,
                        class: None,
                        cells,
                    }
                })
                .collect();
        Chart {
            title: title.to_owned(),
            option: charts::lines_by_concurrency(series, unit),
            height: if series.len() > 4 { 480 } else { 380 },
            table: Table {
                caption: format!("{title} ({unit})"),
                columns,
                rows,
                csv: None,
            },
        }
    }

    /// The table of every sweep.
    pub fn sweeps_table(&self) -> Table {
        Table {
            caption: "Concurrency sweeps".into(),
            columns: vec![
                Column::text("Sweep"),
                Column::text("Model"),
                Column::number("Prompt (words)"),
                Column::number("Output (tokens)"),
                Column::number("Levels"),
                Column::number("Peak total tok/s"),
                Column::number("At concurrency"),
                Column::number("Failed requests"),
            ],
            rows: self
                .doc
                .sweeps
                .iter()
                .map(|sweep| {
                    let peak = sweep
                        .levels
                        .iter()
                        .filter_map(|l| l.total_tok_s.map(|t| (t, l.concurrency)))
                        .max_by(|a, b| a.0.total_cmp(&b.0));
                    let failed: u64 = sweep.levels.iter().map(|l| l.failed).sum();
                    Row {
                        id: Some(format!("sweep-{}", sweep.slug())),
                        class: None,
                        cells: vec![
                            Cell::link(&sweep.label, self.sweep_url(sweep)),
                            Cell::text(&sweep.model),
                            Cell::number(
                                count(sweep.workload.prompt_words),
                                sweep.workload.prompt_words as f64,
                            ),
                            Cell::number(
                                count(sweep.workload.output_tokens),
                                sweep.workload.output_tokens as f64,
                            ),
                            Cell::number(sweep.levels.len().to_string(), sweep.levels.len() as f64),
                            opt_cell(peak.map(|p| p.0), figure),
                            opt_cell(peak.map(|p| p.1 as f64), |c| count(c as u64)),
                            Cell::number(count(failed), failed as f64),
                        ],
                    }
                })
                .collect(),
            csv: Some(self.urls.page("data/sweep-levels.csv")),
        }
    }

    /// The divergence heatmap: comparisons × prompt categories, teacher-forced kld_mean.
    pub fn heatmap(&self) -> Chart {
        let columns = categories(self.doc);
        let rows: Vec<String> = self.doc.divergence.iter().map(heatmap_label).collect();
        let cells: Vec<Vec<Option<f64>>> = self
            .doc
            .divergence
            .iter()
            .map(|d| {
                columns
                    .iter()
                    .map(|c| d.teacher_forced.per_category.get(c).map(|s| s.kld_mean))
                    .collect()
            })
            .collect();
        let mut table_columns = vec![Column::text("Comparison")];
        table_columns.extend(columns.iter().map(|c| Column::number(c.clone())));
        table_columns.push(Column::number("all"));
        let table_rows = self
            .doc
            .divergence
            .iter()
            .zip(&cells)
            .map(|(d, values)| {
                let mut row = vec![
                    Cell::link(heatmap_label(d), self.comparison_url(d)).warn(d.suspect.as_ref()),
                ];
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
        Chart {
            title: "KL divergence by prompt category (teacher-forced kld_mean)".into(),
            option: charts::heatmap(
                &rows,
                &columns,
                &cells,
                &self
                    .doc
                    .divergence
                    .iter()
                    .map(|d| d.suspect.is_none())
                    .collect::<Vec<_>>(),
            ),
            height: 160 + 34 * rows.len() as u32,
            table: Table {
                caption: "Teacher-forced kld_mean per prompt category; floors measure noise, ⚠ marks a suspect measurement".into(),
                columns: table_columns,
                rows: table_rows,
                csv: Some(self.urls.page("data/divergence-categories.csv")),
            },
        }
    }

    /// The table of every comparison.
    pub fn comparisons_table(&self) -> Table {
        Table {
            caption: "Quality comparisons (a → b)".into(),
            columns: vec![
                Column::text("Comparison"),
                Column::text("Model"),
                Column::text("Kind"),
                Column::number("kld_mean"),
                Column::text("95% interval"),
                Column::number("Top-1 agreement"),
                Column::number("Identical continuations"),
                Column::number("First divergence p50"),
            ],
            rows: self
                .doc
                .divergence
                .iter()
                .map(|d| {
                    let tf = &d.teacher_forced;
                    let generation = &d.generation;
                    Row {
                        id: Some(format!("comparison-{}", d.slug())),
                        class: comparison_class(d),
                        cells: vec![
                            Cell::link(&d.label, self.comparison_url(d)).warn(d.suspect.as_ref()),
                            Cell::text(&d.model),
                            Cell::text(if d.is_floor() { "floor" } else { "change" }),
                            Cell::number(figure(tf.kld_mean), tf.kld_mean),
                            Cell::text(format!(
                                "{} – {}",
                                figure(tf.kld_mean_ci95[0]),
                                figure(tf.kld_mean_ci95[1])
                            )),
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
            csv: Some(self.urls.page("data/divergence.csv")),
        }
    }

    /// The jitter table.
    pub fn jitter_table(&self) -> Table {
        Table {
            caption: "Run-to-run jitter: the same server scoring the same continuations again"
                .into(),
            columns: vec![
                Column::text("Server"),
                Column::text("Model"),
                Column::number("Prompts × repeats"),
                Column::number("Positions"),
                Column::number("kld_mean"),
                Column::number("kld_p50"),
                Column::number("kld_p99"),
                Column::number("kld_max"),
                Column::number("Top-1 flip rate"),
                Column::text("Notes"),
            ],
            rows: self
                .doc
                .jitter
                .iter()
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
            csv: Some(self.urls.page("data/jitter.csv")),
        }
    }

    /// The hardware facts.
    pub fn hardware(&self) -> Vec<Fact> {
        let h = &self.doc.hardware;
        let mut facts = Vec::new();
        let mut add = |label: &str, value: Option<String>| {
            if let Some(value) = value {
                facts.push(Fact::new(label, value));
            }
        };
        add("GPU", h.gpu.clone());
        add("Architecture", h.arch.clone());
        add(
            "VRAM",
            h.vram_total_mib.map(|v| format!("{} MiB", count(v))),
        );
        add(
            "VRAM usable",
            h.vram_usable_gib.as_ref().map(|v| format!("{v} GiB")),
        );
        add(
            "VRAM taken before the server starts",
            h.vram_baseline_mib.map(|v| match &h.vram_baseline_note {
                Some(note) => format!("{} MiB ({note})", count(v)),
                None => format!("{} MiB", count(v)),
            }),
        );
        add("Driver", h.driver.clone());
        add(
            "Host RAM",
            h.host_ram_gib.as_ref().map(|v| format!("{v} GiB")),
        );
        add("CPU threads", h.cpu_threads.map(count));
        add("Operating system", h.os.clone());
        add("Container runtime", h.runtime.clone());
        facts
    }

    /// The software facts.
    pub fn software(&self) -> Vec<Fact> {
        let s = &self.doc.software;
        let mut facts = Vec::new();
        for (label, value) in [
            ("Image", &s.image),
            ("vLLM", &s.vllm),
            ("PyTorch", &s.torch),
            ("Transformers", &s.transformers),
        ] {
            if let Some(value) = value {
                facts.push(Fact::new(label, value.clone()));
            }
        }
        for (name, value) in &s.other {
            facts.push(Fact::new(name.clone(), value.clone()));
        }
        facts
    }

    /// How the runs were measured.
    pub fn method(&self) -> Vec<Fact> {
        let m = &self.doc.method;
        [
            ("Workload", &m.workload),
            ("Prompt", &m.prompt),
            ("Warm-up", &m.warmup),
            ("KV pool", &m.kv_tokens),
            ("Acceptance", &m.acceptance),
        ]
        .into_iter()
        .filter_map(|(label, value)| value.as_ref().map(|v| Fact::new(label, v.clone())))
        .collect()
    }

    /// One run's page.
    pub fn run_page(&self, run: &Run) -> RunPage {
        let mut figures = vec![
            Fact::new(
                "Decode speed",
                format!("{} tok/s", figure(run.decode_tok_s)),
            ),
            Fact::new(
                "Cold first request (discarded)",
                format!("{} tok/s", figure(run.decode_cold_sample)),
            ),
        ];
        if let Some(acceptance) = run.spec_acceptance {
            figures.push(Fact::new(
                "Speculative acceptance",
                format!(
                    "{} ({} of drafted tokens accepted)",
                    figure(acceptance),
                    percent(acceptance)
                ),
            ));
        }
        figures.extend([
            Fact::new("Model", run.model.clone()),
            Fact::new("Checkpoint", run.checkpoint.clone()),
            Fact::new("Shape", run.shape.clone()),
            Fact::new("Precision", run.precision.clone()),
            Fact::new(
                "Weights",
                match (&run.weights_gb, &run.weights_source) {
                    (Some(gb), Some(source)) => format!("{} GB ({source})", figure(*gb)),
                    (Some(gb), None) => format!("{} GB", figure(*gb)),
                    _ => "not recorded".into(),
                },
            ),
            Fact::new("Context", format!("{} tokens", count(run.max_model_len))),
            Fact::new("KV-cache dtype", opt(run.kv_cache_dtype.clone())),
            Fact::new("CUDA graphs", switch(run.cuda_graphs)),
            Fact::new("Vision tower", switch(run.vision)),
            Fact::new("Speculative decoding", switch(run.spec_decode)),
            Fact::new("vLLM", opt(run.vllm_version.clone())),
            Fact::new("Measured", run.generated.to_string()),
        ]);
        if let Some(notes) = &run.notes {
            figures.push(Fact::new("Notes", notes.clone()));
        }
        let samples = Table {
            caption: "Decode samples (tok/s); the reported figure is their median".into(),
            columns: vec![Column::text("Request"), Column::number("Decode tok/s")],
            rows: std::iter::once(("cold (discarded)".to_owned(), run.decode_cold_sample))
                .chain(
                    run.decode_samples
                        .iter()
                        .enumerate()
                        .map(|(i, v)| (format!("sample {}", i + 1), *v)),
                )
                .map(|(name, value)| Row {
                    id: None,
                    class: None,
                    cells: vec![Cell::text(name), Cell::number(figure(value), value)],
                })
                .collect(),
            csv: None,
        };
        let kv = run.kv_tokens.map(|kv| KvPool {
            tokens: count(kv),
            full_context: run.max_concurrency.map(figure).unwrap_or_else(|| {
                figure((kv as f64 / run.max_model_len as f64 * 100.0).round() / 100.0)
            }),
            context: count(run.max_model_len),
            fits: kv_fits(kv, run.max_model_len),
        });
        let launch = self.launch(run);
        RunPage {
            id: run.id.to_string(),
            title: format!("{} ({})", run.id, run.model),
            figures,
            samples,
            kv,
            launch,
            sweeps: self
                .doc
                .sweeps
                .iter()
                .filter(|s| s.model == run.model)
                .map(|s| self.link_sweep(s))
                .collect(),
            comparisons: self
                .doc
                .divergence
                .iter()
                .filter(|d| d.model == run.model)
                .map(|d| self.link_comparison(d))
                .collect(),
            ablations: self.ablation_links(Kind::Run, self.index_of_run(run)),
            quality: self.run_quality(run),
            failures: self
                .doc
                .failures
                .iter()
                .filter(|f| failure_concerns(f, &run.model))
                .map(|f| Link {
                    text: f.id.to_string(),
                    href: self.failure_url(f),
                    note: Some(f.status.describe().to_owned()),
                    warning: None,
                })
                .collect(),
        }
    }

    fn launch(&self, run: &Run) -> Launch {
        let profile = self.profiles.iter().find(|p| p.name == run.profile);
        let overrides = profiles::parse_overrides(&run.overrides).unwrap_or_default();
        let mut collect = format!(
            "benchsite collect run --id {} --profile {}",
            run.id, run.profile
        );
        for setting in &overrides {
            collect.push_str(&format!(
                " --set {}",
                profiles::shell_quote(&format!("{}={}", setting.key, setting.value))
            ));
        }
        collect.push_str(" --launch");
        let (settings, podman, local) = match profile {
            Some(profile) => {
                let effective = profile.effective(&overrides);
                let settings = effective
                    .settings
                    .iter()
                    .map(|s| Setting {
                        key: s.key.clone(),
                        value: s.value.clone(),
                        from_override: s.origin == profiles::Origin::Override,
                    })
                    .collect();
                (
                    settings,
                    effective
                        .launch_command(Launcher::Podman)
                        .ok()
                        .map(|c| c.to_string()),
                    effective
                        .launch_command(Launcher::Local)
                        .ok()
                        .map(|c| c.to_string()),
                )
            }
            None => (Vec::new(), None, None),
        };
        Launch {
            profile: run.profile.clone(),
            overrides: run.overrides.clone(),
            settings,
            podman,
            local,
            collect,
        }
    }

    fn link_sweep(&self, sweep: &Sweep) -> Link {
        Link {
            text: sweep.label.clone(),
            href: self.sweep_url(sweep),
            note: sweep.notes.clone(),
            warning: None,
        }
    }

    fn link_comparison(&self, d: &Divergence) -> Link {
        Link {
            text: d.label.clone(),
            href: self.comparison_url(d),
            note: Some(format!(
                "kld_mean {}{}",
                figure(d.teacher_forced.kld_mean),
                if d.is_floor() { " (noise floor)" } else { "" }
            )),
            warning: d.suspect.clone(),
        }
    }

    fn runs_of(&self, model: &str) -> Vec<Link> {
        self.doc
            .runs
            .iter()
            .filter(|run| run.model == model)
            .map(|run| self.link_run(run))
            .collect()
    }

    fn link_run(&self, run: &Run) -> Link {
        Link {
            text: run.id.to_string(),
            href: self.run_url(run),
            note: Some(format!("{} tok/s", figure(run.decode_tok_s))),
            warning: None,
        }
    }

    /// One sweep's page.
    pub fn sweep_page(&self, sweep: &Sweep) -> SweepPage {
        let w = &sweep.workload;
        let mut facts = vec![
            Fact::new("Model", sweep.model.clone()),
            Fact::new(
                "Workload",
                format!(
                    "{} prompt words, {} output tokens{}, {} round{} per level, thinking {}",
                    count(w.prompt_words),
                    count(w.output_tokens),
                    if w.ignore_eos { " (ignore_eos)" } else { "" },
                    w.rounds,
                    if w.rounds == 1 { "" } else { "s" },
                    switch(w.thinking)
                ),
            ),
            Fact::new("Server", sweep.base_url.clone()),
            Fact::new("vLLM", opt(sweep.vllm_version.clone())),
            Fact::new(
                "Context",
                sweep
                    .max_model_len
                    .map_or("—".into(), |n| format!("{} tokens", count(n))),
            ),
            Fact::new("Measured", sweep.generated.to_string()),
        ];
        if let Some(notes) = &sweep.notes {
            facts.push(Fact::new("Notes", notes.clone()));
        }
        SweepPage {
            slug: sweep.slug(),
            title: sweep.label.clone(),
            facts,
            dimensions: sweep
                .dimensions
                .iter()
                .map(|(k, v)| Fact::new(k.clone(), v.clone()))
                .collect(),
            charts: self.sweep_charts(sweep),
            levels: self.sweep_table(sweep),
            runs: self.runs_of(&sweep.model),
            ablations: self.ablation_links(
                Kind::Sweep,
                self.doc.sweeps.iter().position(|s| std::ptr::eq(s, sweep)),
            ),
        }
    }

    /// One failure's page.
    pub fn failure_page(&self, failure: &Failure) -> FailurePage {
        let mut facts = vec![
            Fact::new("What happened", failure.status.describe()),
            Fact::new("Checkpoint", failure.checkpoint.clone()),
            Fact::new("Precision", failure.precision.clone()),
        ];
        if let Some(gb) = failure.weights_gb {
            facts.push(Fact::new("Weights", format!("{} GB", figure(gb))));
        }
        if let Some(config) = &failure.config {
            facts.push(Fact::new("Settings tried", config.clone()));
        }
        FailurePage {
            id: failure.id.to_string(),
            title: failure.id.to_string(),
            status: failure.status.as_str().to_owned(),
            facts,
            reason: failure.reason.clone(),
            runs: self
                .doc
                .runs
                .iter()
                .filter(|run| failure_concerns(failure, &run.model))
                .map(|run| self.link_run(run))
                .collect(),
        }
    }

    /// One comparison's page.
    pub fn comparison_page(&self, d: &Divergence) -> ComparisonPage {
        let tf = &d.teacher_forced;
        let g = &d.generation;
        let both = |label: &str, a: String, b: String| Row {
            id: None,
            class: None,
            cells: vec![Cell::text(label), Cell::text(a), Cell::text(b)],
        };
        let mut rows = vec![
            both("Positions", count(tf.positions), count(g.positions)),
            both("Prompts", count(tf.prompts), count(g.prompts)),
            both("kld_mean", figure(tf.kld_mean), figure(g.kld_mean)),
            both(
                "kld_mean 95% interval",
                format!(
                    "{} – {}",
                    figure(tf.kld_mean_ci95[0]),
                    figure(tf.kld_mean_ci95[1])
                ),
                "—".into(),
            ),
        ];
        for ((name, a), (_, b)) in tf.kld_profile().into_iter().zip(g.kld_profile()) {
            rows.push(both(name, figure(a), figure(b)));
        }
        rows.extend([
            both(
                "Top-1 agreement",
                figure(tf.top1_agree),
                figure(g.top1_agree),
            ),
            both("dp_mean_abs", figure(tf.dp_mean_abs), figure(g.dp_mean_abs)),
        ]);
        for ((name, a), (_, b)) in tf.dp_profile().into_iter().zip(g.dp_profile()) {
            rows.push(both(name, figure(a), figure(b)));
        }
        rows.extend([
            both(
                "Shared-support mass",
                figure(tf.support_mass_mean),
                figure(g.support_mass_mean),
            ),
            both("Perplexity a", figure(tf.ppl_a), figure(g.ppl_a)),
            both("Perplexity b", figure(tf.ppl_b), figure(g.ppl_b)),
            both(
                "Identical continuations",
                "—".into(),
                format!(
                    "{} of {} ({})",
                    count(g.identical),
                    count(g.prompts),
                    figure(g.identical_rate)
                ),
            ),
            both(
                "First divergence min / p10 / p50",
                "—".into(),
                match (
                    g.first_divergence_min,
                    g.first_divergence_p10,
                    g.first_divergence_p50,
                ) {
                    (Some(min), Some(p10), Some(p50)) => {
                        format!("{} / {} / {}", count(min), figure(p10), figure(p50))
                    }
                    _ => "no prompt diverged".into(),
                },
            ),
            both(
                "Tokens generated a / b",
                "—".into(),
                format!("{} / {}", count(g.gen_tokens_a), count(g.gen_tokens_b)),
            ),
        ]);
        let statistics = Table {
            caption: "Teacher-forced and generation statistics".into(),
            columns: vec![
                Column::text("Statistic"),
                Column::number("Teacher-forced"),
                Column::number("Generation"),
            ],
            rows,
            csv: None,
        };
        let names: Vec<String> = tf
            .kld_profile()
            .iter()
            .map(|(n, _)| n.to_string())
            .collect();
        // A log axis cannot show zero: the profile drops zero points.
        let profile_points = |values: [(&str, f64); 5]| {
            values
                .iter()
                .enumerate()
                .map(|(i, (_, v))| (i as f64, *v))
                .collect::<Vec<_>>()
        };
        let all_positive = tf
            .kld_profile()
            .iter()
            .chain(g.kld_profile().iter())
            .all(|(_, v)| *v > 0.0);
        let profile_chart = Chart {
            title: "KL divergence percentile profile".into(),
            option: charts::lines_by_category(
                &names,
                &[
                    LineSeries {
                        name: "teacher-forced".into(),
                        points: profile_points(tf.kld_profile()),
                        dashed: false,
                    },
                    LineSeries {
                        name: "generation".into(),
                        points: profile_points(g.kld_profile()),
                        dashed: false,
                    },
                ],
                "KL (nats)",
                all_positive,
            ),
            height: 340,
            table: Table {
                caption: "KL divergence percentiles".into(),
                columns: vec![
                    Column::text("Percentile"),
                    Column::number("Teacher-forced"),
                    Column::number("Generation"),
                ],
                rows: tf
                    .kld_profile()
                    .into_iter()
                    .zip(g.kld_profile())
                    .map(|((name, a), (_, b))| Row {
                        id: None,
                        class: None,
                        cells: vec![
                            Cell::text(name),
                            Cell::number(figure(a), a),
                            Cell::number(figure(b), b),
                        ],
                    })
                    .collect(),
                csv: None,
            },
        };
        let categories = Table {
            caption: "Teacher-forced statistics per prompt category".into(),
            columns: vec![
                Column::text("Category"),
                Column::number("Positions"),
                Column::number("kld_mean"),
                Column::number("Top-1 agreement"),
                Column::number("dp_mean_abs"),
            ],
            rows: tf
                .per_category
                .iter()
                .map(|(name, c)| Row {
                    id: Some(format!("category-{}", crate::data::slugify(name))),
                    class: None,
                    cells: vec![
                        Cell::text(name.clone()),
                        Cell::number(count(c.positions), c.positions as f64),
                        Cell::number(figure(c.kld_mean), c.kld_mean),
                        Cell::number(figure(c.top1_agree), c.top1_agree),
                        Cell::number(figure(c.dp_mean_abs), c.dp_mean_abs),
                    ],
                })
                .collect(),
            csv: Some(self.urls.page("data/divergence-categories.csv")),
        };
        let s = &d.settings;
        let mut facts = vec![
            Fact::new("Reference (a)", d.a.to_string()),
            Fact::new("Compared (b)", d.b.to_string()),
            Fact::new("Model", d.model.clone()),
            Fact::new(
                "Kind",
                if d.is_floor() {
                    "noise floor"
                } else {
                    "configuration change"
                },
            ),
            Fact::new("Prompt set", d.prompt_set.clone()),
            Fact::new(
                "Capture settings",
                format!(
                    "{} tokens, top-{} logprobs, thinking {}, temperature {}, seed {}, {} in flight",
                    count(s.max_tokens),
                    s.top_k,
                    switch(s.thinking),
                    figure(s.temperature),
                    s.seed,
                    s.concurrency
                ),
            ),
            Fact::new("vLLM", opt(d.vllm_version.clone())),
            Fact::new("Measured", d.generated.to_string()),
        ];
        if let Some(notes) = &d.notes {
            facts.push(Fact::new("Notes", notes.clone()));
        }
        ComparisonPage {
            slug: d.slug(),
            title: d.label.clone(),
            suspect: d.suspect.clone(),
            floor: d.is_floor(),
            facts,
            dimensions: d
                .dimensions
                .iter()
                .map(|(k, v)| Fact::new(k.clone(), v.clone()))
                .collect(),
            statistics,
            profile_chart,
            categories,
            runs: self.runs_of(&d.model),
            ablations: self.ablation_links(
                Kind::Comparison,
                self.doc
                    .divergence
                    .iter()
                    .position(|other| std::ptr::eq(other, d)),
            ),
        }
    }
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

fn points(sweep: &Sweep, pick: fn(&SweepLevel) -> Option<f64>) -> Vec<(f64, f64)> {
    sweep
        .levels
        .iter()
        .filter_map(|level| pick(level).map(|v| (level.concurrency as f64, v)))
        .collect()
}

/// How many sequences of a few request lengths the KV pool holds at once.
fn kv_fits(kv_tokens: u64, max_model_len: u64) -> Table {
    let mut lengths: Vec<u64> = [1024, 4096, 8192, 16384, 32768, 65536, 131072]
        .into_iter()
        .filter(|&len| len < max_model_len)
        .collect();
    lengths.push(max_model_len);
    Table {
        caption: "Sequences the KV pool holds at once, by tokens per sequence (prompt + output)"
            .into(),
        columns: vec![
            Column::number("Tokens per sequence"),
            Column::number("Sequences"),
        ],
        rows: lengths
            .into_iter()
            .map(|len| {
                let fit = kv_tokens as f64 / len as f64;
                Row {
                    id: None,
                    class: (len == max_model_len).then(|| "configured".to_owned()),
                    cells: vec![
                        Cell::number(count(len), len as f64),
                        Cell::number(figure((fit * 100.0).floor() / 100.0), fit),
                    ],
                }
            })
            .collect(),
        csv: None,
    }
}

/// A configuration page.
#[derive(Debug, Serialize)]
pub struct RunPage {
    /// The run id.
    pub id: String,
    /// The page title.
    pub title: String,
    /// Every figure of the run.
    pub figures: Vec<Fact>,
    /// The decode samples.
    pub samples: Table,
    /// The KV pool, when measured.
    pub kv: Option<KvPool>,
    /// How to start the server and repeat the measurement.
    pub launch: Launch,
    /// Sweeps of the same model.
    pub sweeps: Vec<Link>,
    /// Comparisons of the same model.
    pub comparisons: Vec<Link>,
    /// One-knob pairs this run is part of.
    pub ablations: Vec<Link>,
    /// Its quality cost, when the author linked the comparison that measures it.
    pub quality: Option<RunQuality>,
    /// Failures of the same model.
    pub failures: Vec<Link>,
}

/// A run's KV pool and what it means for concurrency.
#[derive(Debug, Serialize)]
pub struct KvPool {
    /// Tokens in the pool.
    pub tokens: String,
    /// Full-length sequences it holds.
    pub full_context: String,
    /// The configured context.
    pub context: String,
    /// Sequences it holds at shorter lengths.
    pub fits: Table,
}

/// How a run's server is started.
#[derive(Debug, Serialize)]
pub struct Launch {
    /// The profile's name.
    pub profile: String,
    /// The overrides applied.
    pub overrides: String,
    /// The effective settings.
    pub settings: Vec<Setting>,
    /// The podman command.
    pub podman: Option<String>,
    /// The `vllm serve` command.
    pub local: Option<String>,
    /// The `benchsite collect run` line that repeats the measurement.
    pub collect: String,
}

/// One effective setting.
#[derive(Debug, Serialize)]
pub struct Setting {
    /// The key.
    pub key: String,
    /// The value.
    pub value: String,
    /// Whether the run's overrides set it.
    pub from_override: bool,
}

/// A sweep's page.
#[derive(Debug, Serialize)]
pub struct SweepPage {
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
    /// Runs of the same model.
    pub runs: Vec<Link>,
    /// One-knob pairs this sweep is part of.
    pub ablations: Vec<Link>,
}

/// A failure's write-up page.
#[derive(Debug, Serialize)]
pub struct FailurePage {
    /// The id.
    pub id: String,
    /// The title.
    pub title: String,
    /// The status as written in the data.
    pub status: String,
    /// Its facts.
    pub facts: Vec<Fact>,
    /// The one-paragraph reason.
    pub reason: String,
    /// Runs of the same model.
    pub runs: Vec<Link>,
}

/// A comparison's page.
#[derive(Debug, Serialize)]
pub struct ComparisonPage {
    /// The permalink slug.
    pub slug: String,
    /// The label.
    pub title: String,
    /// A known measurement problem.
    pub suspect: Option<String>,
    /// Whether it measures noise.
    pub floor: bool,
    /// Its settings.
    pub facts: Vec<Fact>,
    /// What distinguishes it.
    pub dimensions: Vec<Fact>,
    /// Teacher-forced and generation side by side.
    pub statistics: Table,
    /// The percentile profile.
    pub profile_chart: Chart,
    /// Per prompt category.
    pub categories: Table,
    /// Runs of the same model.
    pub runs: Vec<Link>,
    /// One-knob pairs this comparison is part of.
    pub ablations: Vec<Link>,
}

/// The `/ablations/` page.
#[derive(Debug, Serialize)]
pub struct AblationsPage {
    /// How many pairs in all.
    pub count: usize,
    /// Run pairs.
    pub runs: Table,
    /// Sweep pairs, each with its ratio chart.
    pub sweeps: Vec<SweepAblation>,
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
    /// B / A per concurrency level.
    pub chart: Chart,
}

/// A run's quality cost.
#[derive(Debug, Serialize)]
pub struct RunQuality {
    /// The comparison that measures it.
    pub comparison: Link,
    /// Its teacher-forced kld_mean.
    pub kld_mean: String,
    /// Its teacher-forced top-1 agreement.
    pub top1_agree: String,
    /// The model's noise floor, when measured.
    pub floor: Option<String>,
    /// Where the link is approximate.
    pub note: Option<String>,
    /// The run's row under the speed-against-quality chart.
    pub chart: String,
}

/// The `/changes/` page: what changed since the baseline document.
#[derive(Debug, Serialize)]
pub struct ChangesPage {
    /// The baseline's path in the project.
    pub baseline: String,
    /// `5%`.
    pub threshold: String,
    /// Changed records, each with a table of its changes.
    pub records: Vec<ChangedRecord>,
    /// Records new since the baseline.
    pub added: Vec<String>,
    /// Records gone since the baseline.
    pub removed: Vec<String>,
    /// How many changes are regressions.
    pub regressions: usize,
}

/// One record's changes.
#[derive(Debug, Serialize)]
pub struct ChangedRecord {
    /// The anchor.
    pub id: String,
    /// `runs → qwen36-moe-default`.
    pub record: String,
    /// Its changes.
    pub table: Table,
}

/// The changes page of `diff` against the document at `baseline`.
pub fn changes_page(diff: &compare::Diff, baseline: &str, threshold: f64) -> ChangesPage {
    ChangesPage {
        baseline: baseline.to_owned(),
        threshold: format!("{}%", figure(threshold)),
        records: diff
            .records
            .iter()
            .map(|record| ChangedRecord {
                id: data::slugify(&record.record),
                record: record.record.clone(),
                table: Table {
                    caption: format!("{}: what changed", record.record),
                    columns: vec![
                        Column::text("Figure or setting"),
                        Column::text("Baseline"),
                        Column::text("Now"),
                        Column::text("Change"),
                    ],
                    rows: record
                        .changes
                        .iter()
                        .map(|change| {
                            let flag = change
                                .regression
                                .then(|| format!("regression beyond {}%", figure(threshold)));
                            Row {
                                id: None,
                                class: change.regression.then(|| "regression".to_owned()),
                                cells: vec![
                                    Cell::text(change.what.clone()),
                                    Cell::text(change.old.clone()),
                                    Cell::text(change.new.clone()),
                                    Cell::text(change.delta_text().unwrap_or_default())
                                        .warn(flag.as_ref()),
                                ],
                            }
                        })
                        .collect(),
                    csv: None,
                },
            })
            .collect(),
        added: diff.added.clone(),
        removed: diff.removed.clone(),
        regressions: diff.regressions().count(),
    }
}

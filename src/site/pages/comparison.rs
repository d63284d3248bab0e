//! A comparison's page: teacher-forced and generation statistics, the KL profile and the categories.

use serde::Serialize;

use super::super::catalog::{Catalog, Related, Test, kl_difference};
use super::super::charts::{self, LineSeries};
use super::super::downloads;
use super::super::error::SiteError;
use super::super::routes;
use super::super::views::{Cell, Chart, Column, Fact, Link, Row, Table};
use super::head::{Head, worded_change};
use super::page::{Page, View};
use super::shared::opt;
use crate::compare::Kind;
use crate::data::figures::{Field, Value, divergence};
use crate::data::{Block, Divergence};
use crate::format::{MISSING, count, figure, switch};

/// One comparison's page.
pub fn page(c: &Catalog, d: &Divergence) -> ComparisonPage {
    let index = super::super::catalog::index_in(&c.doc.divergence, d);
    let tf = &d.teacher_forced;
    let statistics = statistics(d);
    // Its percentiles are rows of the statistics table above it.
    let profile_chart = profile_chart(d).data_in("statistics", "#statistics");
    let categories = categories(c, d);
    let mut facts = facts(d);
    if let Some(judged) = c.judged(d) {
        facts.insert(0, Fact::new("Against noise", judged.sentence));
    }
    ComparisonPage {
        head: Head::of::<Divergence>(
            c,
            Some(Kind::Comparison),
            index,
            &[&d.model],
            &routes::QUALITY,
            |other| {
                let other = &c.doc.divergence[other];
                let theirs = other.teacher_forced.kld_mean;
                (theirs > 0.0).then(|| {
                    let judged = kl_difference(d, other);
                    let test = judged.test.short();
                    let beyond = match judged.test {
                        Test::Paired(_) => format!("beyond noise, {test}"),
                        Test::Intervals => format!("beyond both {test}"),
                    };
                    worded_change(
                        "mean KL",
                        (tf.kld_mean, theirs),
                        Some(judged.verdict),
                        &beyond,
                        &test,
                    )
                })
            },
        ),
        summary: format!(
            "{} against {}: mean KL divergence {} nats and top-1 agreement {} over {} teacher-forced positions",
            d.b,
            d.a,
            divergence::KLD_MEAN.shown(&Value::Number(tf.kld_mean)),
            divergence::TOP1_AGREE.shown(&Value::Number(tf.top1_agree)),
            count(tf.positions)
        ),
        provenance: super::shared::provenance_facts(d.provenance.as_ref()),
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
        runs: match index {
            Some(index) => c.runs_measured_by(&d.model, index),
            None => c.related_runs(&d.model),
        },
        model_page: c.model_link(&d.model),
        ablations: c.ablation_links(Kind::Comparison, index),
    }
}

/// A registry value in words: counts grouped, figures as recorded.
fn shown(value: Option<Value>) -> String {
    match value {
        Some(Value::Count(n)) => count(n),
        Some(Value::Number(v)) => figure(v),
        Some(other) => other.raw(),
        None => MISSING.into(),
    }
}

/// Every statistic of a comparison, teacher-forced beside generation.
fn statistics(d: &Divergence) -> Table {
    let (tf, g) = (&d.teacher_forced, &d.generation);
    let both = |label: &str, a: String, b: String| Row {
        id: None,
        class: None,
        cells: vec![Cell::text(label), Cell::text(a), Cell::text(b)],
    };
    let (tb, gb) = (tf.block(), g.block());
    let figures = |fields: &[&Field<Block>]| -> Vec<Row> {
        fields
            .iter()
            .map(|f| both(f.label, shown((f.get)(&tb)), shown((f.get)(&gb))))
            .collect()
    };
    let mut rows = figures(&[
        &divergence::POSITIONS,
        &divergence::PROMPTS,
        &divergence::KLD_MEAN,
    ]);
    rows.extend([both(
        &format!("{} 95% interval", divergence::KLD_MEAN.name()),
        format!(
            "{} – {}",
            figure(tf.kld_mean_ci95[0]),
            figure(tf.kld_mean_ci95[1])
        ),
        MISSING.into(),
    )]);
    rows.extend(figures(&divergence::KLD_PROFILE));
    rows.extend([both(
        divergence::TOP1_AGREE.label,
        figure(tf.top1_agree),
        // The compared positions end before the first differing token, where both
        // greedy picks agree: 1 is the method's, not a finding.
        if g.top1_agree == 1.0 {
            format!(
                "{} (by construction: before the first difference)",
                figure(1.0)
            )
        } else {
            figure(g.top1_agree)
        },
    )]);
    rows.extend(figures(&[&divergence::DP_MEAN_ABS]));
    rows.extend(figures(&divergence::DP_PROFILE));
    rows.extend(figures(&[
        &divergence::SUPPORT_MASS_MEAN,
        &divergence::PPL_A,
        &divergence::PPL_B,
    ]));
    rows.extend([
        both(
            divergence::IDENTICAL_RATE.label,
            MISSING.into(),
            format!(
                "{} of {} ({})",
                count(g.identical),
                count(g.prompts),
                figure(g.identical_rate)
            ),
        ),
        both(
            "First divergence min / p10 / p50",
            MISSING.into(),
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
            MISSING.into(),
            format!("{} / {}", count(g.gen_tokens_a), count(g.gen_tokens_b)),
        ),
    ]);
    Table {
        caption: "Teacher-forced and generation statistics".into(),
        columns: vec![
            Column::text("Statistic"),
            Column::number("Teacher-forced"),
            Column::number("Generation"),
        ],
        rows,
        csv: None,
    }
}

/// The KL divergence at each percentile, teacher-forced and generation.
fn profile_chart(d: &Divergence) -> Chart {
    let (tf, g) = (d.teacher_forced.block(), d.generation.block());
    let profile = &divergence::KLD_PROFILE;
    let names: Vec<String> = profile.iter().map(|f| f.name().to_owned()).collect();
    let values = |block: &Block| -> Vec<f64> {
        profile
            .iter()
            .map(|f| divergence::value(f, block))
            .collect()
    };
    let (tv, gv) = (values(&tf), values(&g));
    let profile_points = |values: &[f64]| {
        values
            .iter()
            .enumerate()
            .map(|(i, v)| (i as f64, *v))
            .collect::<Vec<_>>()
    };
    // A log axis cannot show zero.
    let all_positive = tv.iter().chain(&gv).all(|v| *v > 0.0);
    Chart {
        data_in: None,
        csv: None,
        title: "KL divergence percentile profile".into(),
        alt: format!(
            "Line chart of the per-token KL divergence in nats at each percentile ({}), teacher-forced and generation{}",
            names.join(", "),
            if all_positive { ", on a log axis" } else { "" }
        ),
        option: charts::lines_by_category(
            &names,
            &[
                LineSeries {
                    name: "teacher-forced".into(),
                    points: profile_points(&tv),
                    dashed: false,
                    links: Vec::new(),
                },
                LineSeries {
                    name: "generation".into(),
                    points: profile_points(&gv),
                    dashed: false,
                    links: Vec::new(),
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
            rows: names
                .iter()
                .zip(tv.iter().zip(&gv))
                .map(|(name, (&a, &b))| Row {
                    id: None,
                    class: None,
                    cells: vec![
                        Cell::text(name.clone()),
                        Cell::number(figure(a), a),
                        Cell::number(figure(b), b),
                    ],
                })
                .collect(),
            csv: None,
        },
    }
}

/// The teacher-forced statistics per prompt category.
fn categories(c: &Catalog, d: &Divergence) -> Table {
    let tf = &d.teacher_forced;
    Table {
        caption: "Teacher-forced statistics per prompt category".into(),
        columns: vec![
            Column::text("Category"),
            Column::number(divergence::CATEGORY_POSITIONS.label),
            Column::number(divergence::CATEGORY_KLD_MEAN.label),
            Column::number(divergence::CATEGORY_TOP1_AGREE.label),
            Column::number(divergence::CATEGORY_DP_MEAN_ABS.label),
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
        csv: Some(
            c.urls
                .page(&downloads::path(downloads::DIVERGENCE_CATEGORIES)),
        ),
    }
}

/// What a comparison compares and how it was captured.
fn facts(d: &Divergence) -> Vec<Fact> {
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
        Fact::new(
            "Mean KL is",
            format!(
                "a lower bound: computed from each side's top-{k} logprobs, the rest of each \
                 side's probability taken as one outcome, which can only understate it. The \
                 tokens both top-{k} lists held carried {:.1}% of the reference's probability, \
                 on average over the positions.",
                100.0 * d.teacher_forced.support_mass_mean,
                k = s.top_k,
            ),
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
    facts
}

/// A comparison's page.
#[derive(Debug, Serialize)]
pub struct ComparisonPage {
    /// Model › Quality, the GPU, its mean KL against each one-knob sibling.
    #[serde(flatten)]
    pub head: Head,
    /// What it compares and its headline figures, in one sentence.
    pub summary: String,
    /// Where it was measured.
    pub provenance: Vec<Fact>,
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
    pub runs: Related,
    /// The model's page.
    pub model_page: Link,
    /// One-knob pairs this comparison is part of.
    pub ablations: Related,
}

/// Renders a comparison's page.
pub fn view(page: &Page) -> Result<View, SiteError> {
    let c = page.catalog();
    let view = self::page(c, &c.doc.divergence[page.index()]);
    let description = view
        .head
        .sentence(format!("{}: {}", view.title, view.summary));
    Ok(View::new(view.title.clone(), &view)?.described(description))
}

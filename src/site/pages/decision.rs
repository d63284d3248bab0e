//! The deployment decision, first on the home page and on each model's page: for one
//! workload (the most measured one unless the reader picks another) and the limits (`[slo]`,
//! or the report's stated defaults, which the reader changes), the most output per GPU any
//! level reaches within them, ranked. The home page has a row per model (per machine, ranked
//! per machine), a model's page a row per configuration. `benchsite.js` answers again by the
//! same rules from the data file beside the page when the reader changes a choice.

use serde::Serialize;

use super::super::catalog::{Catalog, asked_workload};
use super::super::paging;
use super::limits::{least_per_user, others, words_of};
use super::tradeoffs::LevelData;
use crate::compare::Kind;
use crate::config::Slo;
use crate::data::figures::level;
use crate::data::{Run, Sweep, SweepLevel, rules};
use crate::format::{count, figure};

/// At most this many rows are shown; the rest are counted.
pub const ROWS: usize = 12;

/// At most this many workloads are offered, the most measured first.
pub const WORKLOADS: usize = 12;

/// The decision section.
#[derive(Debug, Serialize)]
pub struct Decision {
    /// The workloads offered, the most measured first; the first is answered.
    workloads: Vec<String>,
    /// The bound on TTFT p95 (s) the answer holds, when there is one.
    ttft: Option<f64>,
    /// The least output tok/s per user the answer holds (1000 / the `tpot_ms` bound).
    per_user: Option<f64>,
    /// The other limits held, in words, when `[slo]` gives any beside those two.
    others: Option<String>,
    /// Every limit the answer holds, in words.
    limits: String,
    /// The sentence saying the limits are the report's defaults, when `[slo]` gives none.
    defaults: Option<String>,
    /// Whether rows name their machine (a report with several).
    machines: bool,
    /// The ranked rows.
    rows: Vec<DecisionRow>,
    /// The models (or configurations) with no level within the limits, by name.
    none: Vec<String>,
    /// Those measured at other workloads but not this one, by name.
    unmeasured: Vec<String>,
    /// How many rows the answer has beyond those shown.
    more: usize,
    /// Where every sweep's answer is: `/sweeps/#limits`.
    sweeps: String,
    /// What a row is: `model` on the home page, `configuration` on a model's page.
    group: &'static str,
    /// The URL of the data file beside the page, for the page's script.
    data: Option<String>,
    /// The price of a GPU-hour, when `[cost]` gives one.
    price: Option<f64>,
    /// Its currency.
    currency: String,
}

/// One row of the answer.
#[derive(Debug, Serialize)]
struct DecisionRow {
    rank: usize,
    model: String,
    model_url: String,
    machine: Option<String>,
    configuration: String,
    url: String,
    per_gpu: String,
    load: String,
    ttft: String,
    n: u64,
    per_user: Option<String>,
    kv: Option<String>,
    quality: Option<Chip>,
    cost: Option<String>,
    launch: String,
    launch_text: &'static str,
}

/// A configuration's quality verdict against its floor, with its comparison.
#[derive(Debug, Clone, Serialize)]
struct Chip {
    text: String,
    href: String,
    /// `within`, `beyond`, `untested` (no floor to test against) or `suspect`.
    class: &'static str,
}

/// What a sweep brings to the answer, besides its levels: found once per sweep.
#[derive(Debug, Clone, Serialize)]
struct Candidate<'a> {
    model: &'a str,
    #[serde(rename = "modelUrl")]
    model_url: String,
    machine: Option<String>,
    name: String,
    url: String,
    /// Its workload's place in the offered list; `None` when it is not offered.
    workload: Option<usize>,
    gpus: u64,
    kv: Option<u64>,
    quality: Option<Chip>,
    launch: String,
    #[serde(rename = "launchText")]
    launch_text: &'static str,
    /// Rows are grouped by this: the machine and model, or the configuration.
    group: String,
    /// What the group is called: the model, or the configuration.
    #[serde(rename = "groupName")]
    group_name: String,
}

/// The most output per GPU of a sweep's levels within `slo`: the level and that figure (the
/// first of equals, so the lower load).
pub fn best_level<'s>(sweep: &'s Sweep, slo: &Slo) -> Option<(&'s SweepLevel, f64)> {
    let gpus = rules::sweep_gpus(sweep) as f64;
    let mut best: Option<(&SweepLevel, f64)> = None;
    for level in &sweep.levels {
        let Some(total) = level.total_tok_s.filter(|_| slo.holds(level)) else {
            continue;
        };
        let per_gpu = total / gpus;
        if best.is_none_or(|(_, b)| per_gpu > b) {
            best = Some((level, per_gpu));
        }
    }
    best
}

/// The workloads of `sweeps` as asked, the most measured first (the first seen of equals).
fn workloads(c: &Catalog, sweeps: &[usize]) -> Vec<String> {
    let mut counted: Vec<(String, usize)> = Vec::new();
    for &i in sweeps {
        let workload = asked_workload(&c.doc.sweeps[i]);
        match counted.iter_mut().find(|(w, _)| *w == workload) {
            Some((_, n)) => *n += 1,
            None => counted.push((workload, 1)),
        }
    }
    counted.sort_by_key(|w| std::cmp::Reverse(w.1));
    counted
        .into_iter()
        .map(|(w, _)| w)
        .take(WORKLOADS)
        .collect()
}

/// The newest run of a sweep's server set-up, which measured its KV pool and links its
/// quality and launch command.
fn twin<'c>(c: &'c Catalog<'_>, sweep: &Sweep) -> Option<&'c Run> {
    c.runs_of_setup(sweep, 1).0.into_iter().next()
}

fn chip(c: &Catalog, run: &Run) -> Option<Chip> {
    let comparison = c.quality_of(run)?;
    let href = c.comparison_url(comparison);
    if comparison.suspect.is_some() {
        return Some(Chip {
            text: "suspect".into(),
            href,
            class: "suspect",
        });
    }
    let judged = c.judged(comparison)?;
    let class = match judged.beyond {
        Some(false) => "within",
        Some(true) => "beyond",
        None => "untested",
    };
    Some(Chip {
        text: judged.short,
        href,
        class,
    })
}

fn candidate<'a>(c: &Catalog<'a>, i: usize, offered: &[String], by_model: bool) -> Candidate<'a> {
    let sweep = &c.doc.sweeps[i];
    let machine = c.machine_of::<Sweep>(i).map(|m| c.machine_title(m));
    let twin = twin(c, sweep);
    let name = c.sweep_name(sweep);
    let (launch, launch_text) = match twin {
        Some(run) => (format!("{}#launch", c.run_url(run)), "launch command"),
        None => (
            format!("{}#dimensions", c.sweep_url(sweep)),
            "sweep settings",
        ),
    };
    let group_name = match by_model {
        true => sweep.model.clone(),
        false => sweep.label.clone(),
    };
    let group = format!("{}\u{0}{group_name}", machine.as_deref().unwrap_or(""));
    let workload = asked_workload(sweep);
    Candidate {
        model: &sweep.model,
        model_url: c.model_url(&sweep.model),
        machine,
        url: c.sweep_url(sweep),
        name,
        workload: offered.iter().position(|w| *w == workload),
        gpus: rules::sweep_gpus(sweep),
        kv: twin.and_then(|run| run.kv_tokens),
        quality: twin.and_then(|run| chip(c, run)),
        launch,
        launch_text,
        group,
        group_name,
    }
}

/// The decision for the latest sweep of every configuration (a row per model and machine)
/// or of one model's (a row per configuration); `None` when no sweep has a level. A
/// configuration measured again is answered from its latest measurement only: the best of
/// its repeats would pick the luckiest noise, and the answer should not grow with them.
pub fn view(c: &Catalog, model: Option<&str>) -> Option<Decision> {
    let superseded = c.superseded(Kind::Sweep, |_| true);
    let sweeps: Vec<usize> = (0..c.doc.sweeps.len())
        .filter(|i| !superseded.contains(i))
        .filter(|&i| model.is_none_or(|m| c.doc.sweeps[i].model == m))
        .filter(|&i| !c.doc.sweeps[i].levels.is_empty())
        .collect();
    if sweeps.is_empty() {
        return None;
    }
    let offered = workloads(c, &sweeps);
    let candidates: Vec<(usize, Candidate)> = sweeps
        .iter()
        .map(|&i| (i, candidate(c, i, &offered, model.is_none())))
        .collect();
    let data = paging::beside("decision", "json", || {
        data_json(c, &offered, &candidates).into_bytes()
    });
    let (rows, none) = answer(c, &candidates);
    let unmeasured = unmeasured(c, &candidates);
    let shown = rows.len().min(ROWS);
    let more = rows.len() - shown;
    let bounded = |figure| c.slo.bound(figure);
    let others = others(&c.slo);
    Some(Decision {
        workloads: offered,
        ttft: bounded(&level::TTFT_P95_S),
        per_user: least_per_user(&c.slo),
        limits: words_of(&c.slo),
        others: (!others.bounds().is_empty()).then(|| others.words()),
        defaults: c.limits_defaults(),
        machines: c.machines.declared(),
        rows: rows.into_iter().take(ROWS).collect(),
        none,
        unmeasured,
        more,
        sweeps: format!("{}#limits", c.urls.page("sweeps/")),
        group: if model.is_none() {
            "model"
        } else {
            "configuration"
        },
        data,
        price: c.cost.as_ref().map(|cost| cost.gpu_hour),
        currency: c
            .cost
            .as_ref()
            .map(|cost| cost.currency.clone())
            .unwrap_or_default(),
    })
}

/// The rows for the most measured workload at the report's limits, ranked (per machine,
/// in machine order), and the groups with no level within them.
fn answer(c: &Catalog, candidates: &[(usize, Candidate)]) -> (Vec<DecisionRow>, Vec<String>) {
    // Per group, the sweep and level with the most output per GPU (the first of equals).
    let mut best: Vec<(&Candidate, &SweepLevel, f64)> = Vec::new();
    let mut without: Vec<&Candidate> = Vec::new();
    for (i, candidate) in candidates.iter().filter(|(_, k)| k.workload == Some(0)) {
        let found = best_level(&c.doc.sweeps[*i], &c.slo);
        match (
            found,
            best.iter_mut().find(|b| b.0.group == candidate.group),
        ) {
            (Some((level, per_gpu)), Some(entry)) if per_gpu > entry.2 => {
                *entry = (candidate, level, per_gpu)
            }
            (Some(_), Some(_)) => {}
            (Some((level, per_gpu)), None) => best.push((candidate, level, per_gpu)),
            (None, _) => without.push(candidate),
        }
    }
    let machine_order = |k: &Candidate| {
        c.machines
            .machines
            .iter()
            .position(|m| Some(c.machine_title(m)) == k.machine)
    };
    best.sort_by(|a, b| {
        machine_order(a.0)
            .cmp(&machine_order(b.0))
            .then(b.2.total_cmp(&a.2))
    });
    let mut none: Vec<String> = Vec::new();
    for k in without {
        let name = named(c, k);
        if !best.iter().any(|b| b.0.group == k.group) && !none.contains(&name) {
            none.push(name);
        }
    }
    let mut rank = 0;
    let rows = best
        .iter()
        .enumerate()
        .map(|(at, (k, level, per_gpu))| {
            let first_of_machine = at == 0 || best[at - 1].0.machine != k.machine;
            rank = if first_of_machine { 1 } else { rank + 1 };
            row(c, rank, k, level, *per_gpu)
        })
        .collect();
    (rows, none)
}

/// The groups with no sweep of the answered workload, by name, sorted.
fn unmeasured(c: &Catalog, candidates: &[(usize, Candidate)]) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for (_, k) in candidates {
        if candidates
            .iter()
            .any(|(_, other)| other.group == k.group && other.workload == Some(0))
        {
            continue;
        }
        let name = named(c, k);
        if !names.contains(&name) {
            names.push(name);
        }
    }
    names.sort();
    names
}

/// A group's name, with its machine in a report of several.
fn named(c: &Catalog, k: &Candidate) -> String {
    match c.machines.declared() {
        true => format!("{} on {}", k.group_name, k.machine.as_deref().unwrap_or("")),
        false => k.group_name.clone(),
    }
}

fn row(c: &Catalog, rank: usize, k: &Candidate, level: &SweepLevel, per_gpu: f64) -> DecisionRow {
    let load = level.load();
    DecisionRow {
        rank,
        model: k.model.to_owned(),
        model_url: k.model_url.clone(),
        machine: k.machine.clone(),
        configuration: k.name.clone(),
        url: format!("{}#{}", k.url, load.anchor()),
        per_gpu: figure(crate::stats::round(per_gpu, 1)),
        load: load.words(),
        ttft: level.ttft_p95_s.map_or_else(
            || crate::format::MISSING.to_owned(),
            |t| format!("{} s", figure(t)),
        ),
        n: level.succeeded,
        per_user: level.decode_tok_s_per_stream.map(figure),
        kv: k.kv.map(|kv| format!("{} tokens", count(kv))),
        quality: k.quality.clone(),
        cost: level.total_tok_s.and_then(|total| {
            let cost = c.cost_per_million(total, k.gpus)?;
            Some(format!(
                "{}{}",
                c.cost.as_ref().map_or("", |p| p.currency.as_str()),
                figure(cost)
            ))
        }),
        launch: k.launch.clone(),
        launch_text: k.launch_text,
    }
}

/// The data file of the page's script: the offered workloads, the limits it may bound, and
/// the sweeps with the levels that can answer some limits the form sets (`answerable`).
fn data_json(c: &Catalog, offered: &[String], candidates: &[(usize, Candidate)]) -> String {
    #[derive(Serialize)]
    struct Data<'a> {
        limits: Vec<&'static str>,
        /// The bounds held besides the two the form takes.
        fixed: Vec<(&'static str, f64)>,
        currency: String,
        workloads: &'a [String],
        /// The machines' titles in order, which rows are ranked within.
        machines: Vec<String>,
        /// At most this many rows are shown.
        shown: usize,
        sweeps: Vec<SweepData<'a>>,
    }
    #[derive(Serialize)]
    struct SweepData<'a> {
        #[serde(flatten)]
        candidate: &'a Candidate<'a>,
        levels: Vec<LevelData<'a>>,
    }
    let fixed = others(&c.slo);
    let offered_candidates: Vec<&(usize, Candidate)> = candidates
        .iter()
        .filter(|(_, k)| k.workload.is_some())
        .collect();
    let kept = kept_levels(c, &fixed, &offered_candidates);
    // A group's first sweep at a workload stays, levels or none, so the script names it.
    let mut named: std::collections::HashSet<(&str, usize)> = std::collections::HashSet::new();
    let sweeps = offered_candidates
        .iter()
        .zip(&kept)
        .filter(|((_, k), levels)| {
            let first = named.insert((k.group.as_str(), k.workload.unwrap_or(0)));
            first || !levels.is_empty()
        })
        .map(|((i, candidate), levels)| SweepData {
            candidate,
            levels: levels
                .iter()
                .map(|&l| LevelData(&c.doc.sweeps[*i].levels[l]))
                .collect(),
        })
        .collect();
    let data = Data {
        limits: level::LIMITS.iter().map(|f| f.field.key).collect(),
        fixed: fixed
            .bounds()
            .iter()
            .map(|b| (b.figure.field.key, b.at_most))
            .collect(),
        currency: c
            .cost
            .as_ref()
            .map(|cost| cost.currency.clone())
            .unwrap_or_default(),
        workloads: offered,
        machines: match c.machines.declared() {
            true => c
                .machines
                .machines
                .iter()
                .map(|m| c.machine_title(m))
                .collect(),
            false => Vec::new(),
        },
        shown: ROWS,
        sweeps,
    };
    serde_json::to_string(&data).expect("the decision data serializes")
}

/// Of each candidate's levels, those `answerable` within its group and workload.
fn kept_levels(c: &Catalog, fixed: &Slo, candidates: &[&(usize, Candidate)]) -> Vec<Vec<usize>> {
    // Per group and workload, its levels (candidate, level) in the order the script reads them.
    let mut pool_of: std::collections::HashMap<(&str, usize), usize> = Default::default();
    let mut pools: Vec<Vec<(usize, usize)>> = Vec::new();
    for (at, (i, k)) in candidates.iter().enumerate() {
        let key = (k.group.as_str(), k.workload.unwrap_or(0));
        let p = *pool_of.entry(key).or_insert_with(|| {
            pools.push(Vec::new());
            pools.len() - 1
        });
        pools[p].extend((0..c.doc.sweeps[*i].levels.len()).map(|l| (at, l)));
    }
    let mut kept: Vec<Vec<usize>> = vec![Vec::new(); candidates.len()];
    for pool in &pools {
        let points: Vec<Option<Point>> = pool
            .iter()
            .map(|&(at, l)| {
                let (i, k) = candidates[at];
                let level = &c.doc.sweeps[*i].levels[l];
                let total = level.total_tok_s.filter(|_| fixed.holds(level))?;
                Some(Point {
                    per_gpu: total / k.gpus as f64,
                    ttft: level::TTFT_P95_S.field.number_in(level),
                    tpot: level::TPOT_FROM_RATE_MS.field.number_in(level),
                })
            })
            .collect();
        let answers = answerable(&points);
        for (&(at, l), yes) in pool.iter().zip(answers) {
            if yes {
                kept[at].push(l);
            }
        }
    }
    kept
}

/// A level as the form's limits see it: what it gives and the two figures they bound (`None`
/// when not measured, which no bound holds).
#[derive(Debug, Clone, Copy)]
struct Point {
    per_gpu: f64,
    ttft: Option<f64>,
    tpot: Option<f64>,
}

/// Which of one group's levels (in reading order; `None` for those no limits admit) some
/// bounds on TTFT p95 and time per output token would answer with. A level is not when
/// another gives as much output per GPU or more (equal and read earlier: the answer keeps the
/// first of equals) with TTFT p95 and time per output token no higher, since it is within
/// every limit the level is within.
fn answerable(points: &[Option<Point>]) -> Vec<bool> {
    let mut order: Vec<usize> = (0..points.len()).filter(|&i| points[i].is_some()).collect();
    let point = |i: usize| points[i].expect("only points are ordered");
    // Stable: equals stay in reading order.
    order.sort_by(|&a, &b| point(b).per_gpu.total_cmp(&point(a).per_gpu));
    let no_higher = |a: Option<f64>, b: Option<f64>| match (a, b) {
        (_, None) => true,
        (None, Some(_)) => false,
        (Some(a), Some(b)) => a <= b,
    };
    let mut kept: Vec<Point> = Vec::new();
    let mut answers = vec![false; points.len()];
    for i in order {
        let p = point(i);
        if kept
            .iter()
            .any(|k| no_higher(k.ttft, p.ttft) && no_higher(k.tpot, p.tpot))
        {
            continue;
        }
        kept.push(p);
        answers[i] = true;
    }
    answers
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sweep(levels: serde_json::Value, gpus: Option<&str>) -> Sweep {
        let mut dimensions = serde_json::json!({});
        if let Some(gpus) = gpus {
            dimensions["gpus"] = gpus.into();
        }
        serde_json::from_value(serde_json::json!({
            "label": "s", "model": "m", "base_url": "http://x", "generated": "2026-01-01",
            "workload": {"prompt_words": 10, "output_tokens": 8, "rounds": 1, "ignore_eos": true, "thinking": false},
            "levels": levels, "dimensions": dimensions,
        }))
        .unwrap()
    }

    fn level(c: u64, total: f64, ttft_p95: f64, per_user: f64, failed: u64) -> serde_json::Value {
        serde_json::json!({
            "concurrency": c, "requests": 4, "succeeded": 4 - failed, "failed": failed,
            "status": "ok", "total_tok_s": total, "ttft_p95_s": ttft_p95,
            "decode_tok_s_per_stream": per_user,
        })
    }

    #[test]
    fn the_best_level_is_the_most_output_per_gpu_within_the_limits() {
        let levels = serde_json::json!([
            level(1, 100.0, 0.1, 90.0, 0),
            level(2, 180.0, 0.2, 80.0, 0),
            // More output, but a failed request.
            level(4, 300.0, 0.3, 70.0, 1),
            // Within, but less than c2: throughput fell.
            level(8, 170.0, 0.5, 25.0, 0),
            // More output, TTFT beyond 2 s.
            level(16, 400.0, 2.5, 21.0, 0),
            // More output, under 20 tok/s per user (1000 / 19 = 52.6 ms > 50).
            level(32, 420.0, 1.0, 19.0, 0),
        ]);
        let slo = Slo::report_default();
        let one = sweep(levels.clone(), None);
        let (best, per_gpu) = best_level(&one, &slo).unwrap();
        assert_eq!((best.concurrency, per_gpu), (Some(2), 180.0));
        // On two GPUs, half as much per GPU, at the same level.
        let two = sweep(levels, Some("2"));
        let (best, per_gpu) = best_level(&two, &slo).unwrap();
        assert_eq!((best.concurrency, per_gpu), (Some(2), 90.0));
        // Equal output: the first, the lower load.
        let tied = sweep(
            serde_json::json!([level(1, 50.0, 0.1, 90.0, 0), level(2, 50.0, 0.1, 90.0, 0)]),
            None,
        );
        assert_eq!(best_level(&tied, &slo).unwrap().0.concurrency, Some(1));
        // Nothing within.
        let none = sweep(serde_json::json!([level(1, 50.0, 3.0, 90.0, 0)]), None);
        assert!(best_level(&none, &slo).is_none());
    }

    #[test]
    fn only_levels_some_limits_would_answer_with_are_kept() {
        let p = |per_gpu, ttft, tpot| {
            Some(Point {
                per_gpu,
                ttft,
                tpot: Some(tpot),
            })
        };
        let points = [
            p(100.0, Some(0.1), 10.0),
            p(180.0, Some(0.2), 12.0),
            // Beyond a fixed bound, or failed.
            None,
            // Less output, slower on both: 180 answers wherever it would.
            p(170.0, Some(0.5), 40.0),
            // 180 measured again, read later: the answer keeps the first of equals.
            p(180.0, Some(0.2), 12.0),
            // The most output, but the slowest.
            p(400.0, Some(2.5), 47.0),
            // TTFT not measured: only without a TTFT bound, where it is the one within 5 ms.
            p(90.0, None, 5.0),
            // Less output than any, but the quickest first token.
            p(50.0, Some(0.05), 10.0),
            // Equal to the first in every figure.
            p(100.0, Some(0.1), 10.0),
        ];
        assert_eq!(
            answerable(&points),
            [true, true, false, false, false, true, true, true, false]
        );
    }
}

//! The checks a schema cannot express: uniqueness, arithmetic between fields, ordering.

use std::collections::HashMap;

use super::delivery::{Delivery, EngineView, PerStream};
use super::figures::{divergence, level, numbers};
use super::model::{Results, Run, Sweep};
use super::problem::{Problem, pointer_segment};
use super::quality::{Divergence, Generation, TeacherForced};
use crate::format::decimals;

/// Every semantic problem of `doc`, in document order.
pub fn problems(doc: &Results) -> Vec<Problem> {
    let mut out = Vec::new();
    unique(
        &mut out,
        "runs",
        "id",
        doc.runs.iter().map(|run| run.id.to_string()),
    );
    for (index, run) in doc.runs.iter().enumerate() {
        check_run(&mut out, &format!("/runs/{index}"), run);
        if let Some(link) = &run.quality
            && !doc
                .divergence
                .iter()
                .any(|d| d.label == link.comparison || d.slug() == link.comparison)
        {
            let known: Vec<String> = doc.divergence.iter().map(|d| d.slug()).collect();
            out.push(Problem::new(
                format!("/runs/{index}/quality/comparison"),
                format!(
                    "the label or slug of a divergence record: {}",
                    known.join(", ")
                ),
                format!("{:?}, which no divergence record has", link.comparison),
            ));
        }
    }
    unique(
        &mut out,
        "failures",
        "id",
        doc.failures.iter().map(|failure| failure.id.to_string()),
    );
    served_or_not(&mut out, doc);
    unique(
        &mut out,
        "sweeps",
        "label",
        doc.sweeps.iter().map(|sweep| sweep.label.clone()),
    );
    unique_slugs(
        &mut out,
        "sweeps",
        doc.sweeps
            .iter()
            .map(|sweep| (sweep.label.as_str(), sweep.slug())),
    );
    for (index, sweep) in doc.sweeps.iter().enumerate() {
        check_sweep(&mut out, &format!("/sweeps/{index}"), sweep);
    }
    unique(
        &mut out,
        "jitter",
        "label",
        doc.jitter.iter().map(|jitter| jitter.label.clone()),
    );
    for (index, jitter) in doc.jitter.iter().enumerate() {
        let at = format!("/jitter/{index}");
        ordered(
            &mut out,
            &at,
            &numbers(&divergence::JITTER_KLD_PROFILE, jitter),
        );
        if jitter.kld_mean > jitter.kld_max {
            out.push(Problem::new(
                format!("{at}/kld_mean"),
                format!("a mean no larger than kld_max ({})", num(jitter.kld_max)),
                num(jitter.kld_mean),
            ));
        }
        let most = jitter.prompts * jitter.repeats.saturating_sub(1) * jitter.max_tokens;
        if jitter.positions > most {
            out.push(Problem::new(
                format!("{at}/positions"),
                format!("at most prompts × (repeats − 1) × max_tokens = {most}"),
                jitter.positions.to_string(),
            ));
        }
    }
    unique(
        &mut out,
        "divergence",
        "label",
        doc.divergence.iter().map(|d| d.label.clone()),
    );
    unique_slugs(
        &mut out,
        "divergence",
        doc.divergence.iter().map(|d| (d.label.as_str(), d.slug())),
    );
    for (index, divergence) in doc.divergence.iter().enumerate() {
        check_divergence(&mut out, &format!("/divergence/{index}"), divergence);
    }
    out
}

/// A record's delivery agrees with its per-stream figure: a withheld one is absent, an
/// engine's is the engine view's.
fn check_delivery(
    out: &mut Vec<Problem>,
    at: &str,
    delivery: Option<&Delivery>,
    engine: Option<&EngineView>,
    figure: Option<f64>,
    key: &str,
) {
    let Some(delivery) = delivery else {
        return;
    };
    match delivery.per_stream {
        PerStream::Withheld if figure.is_some() => out.push(Problem::new(
            format!("{at}/{key}"),
            "no per-stream figure, since delivery.per_stream is \"withheld\"",
            num(figure.unwrap_or_default()),
        )),
        PerStream::Engine => {
            let own = engine.and_then(|e| e.decode_tok_s_per_stream);
            if own.is_none() || own != figure {
                out.push(Problem::new(
                    format!("{at}/{key}"),
                    format!(
                        "engine_view.decode_tok_s_per_stream ({}), since delivery.per_stream is \"engine\"",
                        own.map_or_else(|| "absent".to_owned(), num)
                    ),
                    figure.map_or_else(|| "no such key".to_owned(), num),
                ));
            }
        }
        _ => {}
    }
}

fn check_run(out: &mut Vec<Problem>, at: &str, run: &Run) {
    check_delivery(
        out,
        at,
        run.delivery.as_ref(),
        run.engine_view.as_ref(),
        Some(run.decode_tok_s),
        "decode_tok_s",
    );
    let engine = run
        .delivery
        .as_ref()
        .is_some_and(|d| d.per_stream == PerStream::Engine);
    if run.decode_samples.is_empty() && !engine {
        out.push(Problem::new(
            format!("{at}/decode_samples"),
            "at least one sample, unless delivery.per_stream is \"engine\"",
            "[]",
        ));
    }
    let places = run
        .decode_samples
        .iter()
        .chain([&run.decode_tok_s])
        .map(|value| decimals(*value) as i32)
        .max()
        .unwrap_or(0);
    if let Some(median) = crate::stats::median(&run.decode_samples)
        && !close_at(median, run.decode_tok_s, places)
    {
        out.push(Problem::new(
            format!("{at}/decode_tok_s"),
            format!(
                "the median of decode_samples, {:.*}",
                places as usize, median
            ),
            num(run.decode_tok_s),
        ));
    }
    if let (Some(kv_tokens), Some(max_concurrency)) = (run.kv_tokens, run.max_concurrency) {
        let ratio = super::rules::kv_concurrency(kv_tokens, run.max_model_len);
        if (ratio - max_concurrency).abs() > 0.005 + 1e-9 {
            out.push(Problem::new(
                format!("{at}/max_concurrency"),
                format!(
                    "kv_tokens / max_model_len = {kv_tokens} / {} = {ratio:.2}",
                    run.max_model_len
                ),
                num(max_concurrency),
            ));
        }
    }
    if run.spec_acceptance.is_some() && !run.spec_decode {
        out.push(Problem::new(
            format!("{at}/spec_acceptance"),
            "no spec_acceptance, since spec_decode is false",
            num(run.spec_acceptance.unwrap_or_default()),
        ));
    }
    if run.spec_acceptance_over.is_some() && run.spec_acceptance.is_none() {
        out.push(Problem::new(
            format!("{at}/spec_acceptance_over"),
            "no spec_acceptance_over without a spec_acceptance",
            "the prompts of an acceptance",
        ));
    }
    if run.spec_acceptance_length.is_some() && !run.spec_decode {
        out.push(Problem::new(
            format!("{at}/spec_acceptance_length"),
            "no spec_acceptance_length, since spec_decode is false",
            num(run.spec_acceptance_length.unwrap_or_default()),
        ));
    }
    if let Some(rate) = run
        .spec_acceptance_per_position
        .iter()
        .find(|r| !(0.0..=1.0).contains(*r))
    {
        out.push(Problem::new(
            format!("{at}/spec_acceptance_per_position"),
            "rates from 0 to 1",
            num(*rate),
        ));
    }
}

/// A level's load: of its sweep's kind (a rate where the workload has arrivals, else a
/// concurrency), above the level before, and a closed loop's requests its rounds'.
fn check_load(
    out: &mut Vec<Problem>,
    at: &str,
    sweep: &Sweep,
    level: &super::level::SweepLevel,
    previous: Option<f64>,
) {
    let load = level.load();
    let (key, noun) = if sweep.workload.open_loop() {
        ("rate_rps", "an arrival rate")
    } else {
        ("concurrency", "a concurrency")
    };
    if load.is_rate() != sweep.workload.open_loop() {
        let expected = if sweep.workload.open_loop() {
            "rate_rps, as workload.arrivals makes the sweep open-loop"
        } else {
            "concurrency, as the workload has no arrivals (a closed loop)"
        };
        out.push(Problem::new(format!("{at}/{key}"), expected, "absent"));
        return;
    }
    if let Some(previous) = previous
        && load.x() <= previous
    {
        out.push(Problem::new(
            format!("{at}/{key}"),
            format!("{noun} above the previous level's {previous}"),
            load.x().to_string(),
        ));
    }
    let Some(concurrency) = level.concurrency else {
        return;
    };
    let rounds = super::rules::rounds_at(&sweep.workload, concurrency);
    let requests = concurrency * rounds;
    // An imported sweep's request counts are its tool's (`--num-prompts`), not rounds'.
    if sweep.source.is_none() && level.requests != requests {
        let least = match sweep.workload.min_requests {
            Some(least) => format!(
                " (max({}, ⌈{least} / {concurrency}⌉) rounds)",
                sweep.workload.rounds
            ),
            None => String::new(),
        };
        out.push(Problem::new(
            format!("{at}/requests"),
            format!("concurrency × rounds = {concurrency} × {rounds} = {requests}{least}"),
            level.requests.to_string(),
        ));
    }
}

fn check_sweep(out: &mut Vec<Problem>, at: &str, sweep: &Sweep) {
    let workload = &sweep.workload;
    if workload.prompt_words.is_none() && workload.prompt_tokens.is_none() {
        out.push(Problem::new(
            format!("{at}/workload"),
            "a prompt length: prompt_words or prompt_tokens",
            "neither",
        ));
    }
    if let Some(search) = &sweep.search {
        for (key, x) in [("held", search.held), ("broke", search.broke)] {
            if let Some(x) = x
                && !sweep.levels.iter().any(|l| l.load().x() == x)
            {
                out.push(Problem::new(
                    format!("{at}/search/{key}"),
                    "the load of one of the sweep's levels, its probes",
                    x.to_string(),
                ));
            }
        }
    }
    let mut previous: Option<f64> = None;
    for (index, level) in sweep.levels.iter().enumerate() {
        let at = format!("{at}/levels/{index}");
        check_load(out, &at, sweep, level, previous);
        previous = Some(level.load().x());
        if level.succeeded + level.failed != level.requests {
            out.push(Problem::new(
                format!("{at}/failed"),
                format!("succeeded + failed = requests = {}", level.requests),
                format!(
                    "{} + {} = {}",
                    level.succeeded,
                    level.failed,
                    level.succeeded + level.failed
                ),
            ));
        }
        let all_failed = level.succeeded == 0;
        let status_failed = level.status == super::level::LevelStatus::Failed;
        if all_failed != status_failed {
            out.push(Problem::new(
                format!("{at}/status"),
                if all_failed {
                    "\"failed\", since no request succeeded"
                } else {
                    "\"ok\", since some requests succeeded"
                },
                format!("{:?}", level.status.as_str()),
            ));
        }
        check_delivery(
            out,
            &at,
            level.delivery.as_ref(),
            level.engine_view.as_ref(),
            level.decode_tok_s_per_stream,
            "decode_tok_s_per_stream",
        );
        let withheld = level
            .delivery
            .as_ref()
            .is_some_and(|d| d.per_stream == PerStream::Withheld);
        // An imported level has what its tool wrote; its `source` names what is not there. A
        // per-stream rate withheld for bursts is not there either.
        if !status_failed && level.source.is_none() {
            for figure in level::measured_figures() {
                let per_stream = std::ptr::eq(figure, &level::DECODE_TOK_S_PER_STREAM);
                if (figure.field.get)(level).is_none() && !(withheld && per_stream) {
                    out.push(Problem::new(
                        format!("{at}/{}", figure.field.key),
                        "a figure, since the level succeeded",
                        "no such key",
                    ));
                }
            }
        }
        for (low, high) in level::PERCENTILE_PAIRS {
            ordered(out, &at, &numbers(&[&low.field, &high.field], level));
        }
        for (key, [low, high]) in &level.ci95 {
            let figure = level::ALL
                .iter()
                .find(|f| f.field.key == key && f.percentile.is_some());
            let value = figure.and_then(|f| f.field.number_in(level));
            if value.is_none() || low > high {
                out.push(Problem::new(
                    format!("{at}/ci95/{}", pointer_segment(key)),
                    "the [low, high] interval of a percentile figure the level has",
                    format!("[{}, {}]", num(*low), num(*high)),
                ));
            }
        }
    }
}

fn check_divergence(out: &mut Vec<Problem>, at: &str, divergence: &Divergence) {
    if divergence.a == divergence.b {
        out.push(Problem::new(
            format!("{at}/b"),
            "a capture other than a",
            divergence.b.to_string(),
        ));
    }
    check_teacher_forced(
        out,
        &format!("{at}/teacher_forced"),
        &divergence.teacher_forced,
    );
    check_generation(out, &format!("{at}/generation"), &divergence.generation);
}

/// Per-prompt sums, when kept, are the block's prompts, positions and mean, taken apart.
fn check_per_prompt(out: &mut Vec<Problem>, at: &str, block: &TeacherForced) {
    if block.per_prompt.is_empty() {
        return;
    }
    let at = format!("{at}/per_prompt");
    let n = block.per_prompt.len() as u64;
    if n != block.prompts {
        out.push(Problem::new(
            at.clone(),
            format!("one entry per prompt compared ({})", block.prompts),
            if n == 1 {
                "1 entry".to_owned()
            } else {
                format!("{n} entries")
            },
        ));
    }
    let positions: u64 = block.per_prompt.values().map(|p| p.positions).sum();
    if positions != block.positions {
        out.push(Problem::new(
            at.clone(),
            format!("prompts whose positions add up to {}", block.positions),
            format!("a sum of {positions}"),
        ));
    } else if positions > 0 {
        let mean = block.per_prompt.values().map(|p| p.kl_sum).sum::<f64>() / positions as f64;
        if (mean - block.kld_mean).abs() > 1e-9 * block.kld_mean.abs().max(1.0) {
            out.push(Problem::new(
                at,
                format!("KL sums whose mean is kld_mean ({})", num(block.kld_mean)),
                format!("a mean of {}", num(mean)),
            ));
        }
    }
}

fn check_teacher_forced(out: &mut Vec<Problem>, at: &str, block: &TeacherForced) {
    ordered(out, at, &numbers(&divergence::KLD_PROFILE, &block.block()));
    ordered(out, at, &numbers(&divergence::DP_PROFILE, &block.block()));
    let [low, high] = block.kld_mean_ci95;
    if !(low <= block.kld_mean && block.kld_mean <= high) {
        out.push(Problem::new(
            format!("{at}/kld_mean_ci95"),
            format!("an interval containing kld_mean ({})", num(block.kld_mean)),
            format!("[{}, {}]", num(low), num(high)),
        ));
    }
    if !block.per_category.is_empty() {
        let sum: u64 = block.per_category.values().map(|c| c.positions).sum();
        if sum != block.positions {
            out.push(Problem::new(
                format!("{at}/per_category"),
                format!("categories whose positions add up to {}", block.positions),
                format!("a sum of {sum}"),
            ));
        }
    }
    check_per_prompt(out, at, block);
    for (name, category) in &block.per_category {
        if category.positions > block.positions {
            out.push(Problem::new(
                format!("{at}/per_category/{}/positions", pointer_segment(name)),
                format!("at most the block's {} positions", block.positions),
                category.positions.to_string(),
            ));
        }
    }
}

fn check_generation(out: &mut Vec<Problem>, at: &str, block: &Generation) {
    ordered(out, at, &numbers(&divergence::KLD_PROFILE, &block.block()));
    ordered(out, at, &numbers(&divergence::DP_PROFILE, &block.block()));
    if block.identical + block.diverged != block.prompts {
        out.push(Problem::new(
            format!("{at}/diverged"),
            format!("identical + diverged = prompts = {}", block.prompts),
            format!(
                "{} + {} = {}",
                block.identical,
                block.diverged,
                block.identical + block.diverged
            ),
        ));
    }
    if block.prompts > 0 {
        let rate = block.identical as f64 / block.prompts as f64;
        let places = decimals(block.identical_rate) as i32;
        if !close_at(rate, block.identical_rate, places) {
            out.push(Problem::new(
                format!("{at}/identical_rate"),
                format!(
                    "identical / prompts = {} / {} = {:.*}",
                    block.identical, block.prompts, places as usize, rate
                ),
                num(block.identical_rate),
            ));
        }
    }
    let firsts = [
        ("first_divergence_p10", block.first_divergence_p10),
        ("first_divergence_p50", block.first_divergence_p50),
    ];
    let none_diverged = block.diverged == 0;
    for (name, value) in firsts.into_iter().chain([(
        "first_divergence_min",
        block.first_divergence_min.map(|v| v as f64),
    )]) {
        if value.is_some() == none_diverged {
            out.push(Problem::new(
                format!("{at}/{name}"),
                if none_diverged {
                    "null, since no prompt diverged"
                } else {
                    "a position, since some prompts diverged"
                },
                value.map_or("null".into(), num),
            ));
        }
    }
    if let (Some(min), Some(p10), Some(p50)) = (
        block.first_divergence_min,
        block.first_divergence_p10,
        block.first_divergence_p50,
    ) {
        ordered(
            out,
            at,
            &[
                ("first_divergence_min", min as f64),
                ("first_divergence_p10", p10),
                ("first_divergence_p50", p50),
            ],
        );
    }
}

/// Reports the first pair of named values that is out of ascending order.
fn ordered(out: &mut Vec<Problem>, at: &str, values: &[(&str, f64)]) {
    for pair in values.windows(2) {
        let [(low_name, low), (high_name, high)] = pair else {
            continue;
        };
        if low > high {
            out.push(Problem::new(
                format!("{at}/{high_name}"),
                format!(
                    "a value ≥ {low_name} ({}): percentiles rise in order",
                    num(*low)
                ),
                num(*high),
            ));
            return;
        }
    }
}

/// Reports every repeated key of one array, at the later occurrence.
/// A configuration either served or did not: no failure has a run's id.
fn served_or_not(out: &mut Vec<Problem>, doc: &Results) {
    for (index, failure) in doc.failures.iter().enumerate() {
        if let Some(run) = doc.runs.iter().position(|run| run.id == failure.id) {
            out.push(Problem::new(
                format!("/failures/{index}/id"),
                "an id no run has (a configuration either served or did not)",
                format!("{:?}, which /runs/{run} has too", failure.id.as_str()),
            ));
        }
    }
}

fn unique(out: &mut Vec<Problem>, array: &str, field: &str, keys: impl Iterator<Item = String>) {
    let mut seen: HashMap<String, usize> = HashMap::new();
    for (index, key) in keys.enumerate() {
        if let Some(first) = seen.get(&key) {
            out.push(Problem::new(
                format!("/{array}/{index}/{field}"),
                format!("{field} unique among {array} (/{array}/{first} has it already)"),
                format!("{key:?} again"),
            ));
        } else {
            seen.insert(key, index);
        }
    }
}

/// Reports records of one page kind whose permalinks collide (a repeated label is reported
/// as such already).
fn unique_slugs<'a>(
    out: &mut Vec<Problem>,
    array: &str,
    records: impl Iterator<Item = (&'a str, String)>,
) {
    let mut seen: HashMap<String, (usize, &str)> = HashMap::new();
    for (index, (label, slug)) in records.enumerate() {
        if let Some(&(first, first_label)) = seen.get(&slug) {
            if first_label == label {
                continue;
            }
            out.push(Problem::new(
                format!("/{array}/{index}/label"),
                format!(
                    "a label whose permalink slug differs from /{array}/{first}'s (or an explicit id)"
                ),
                format!("the slug {slug:?} again"),
            ));
        } else {
            seen.insert(slug, (index, label));
        }
    }
}

/// A figure as written in JSON: 14.0 stays 14.0.
fn num(value: f64) -> String {
    format!("{value:?}")
}

/// Whether `written` is `exact` rounded to `places` decimals, by either rounding convention.
fn close_at(exact: f64, written: f64, places: i32) -> bool {
    (exact - written).abs() <= 0.5 * 10f64.powi(-places) + 1e-12
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn precision_follows_the_written_value() {
        assert_eq!(decimals(358.0), 0);
        assert_eq!(decimals(0.0312), 4);
        assert!(close_at(2.55, 2.6, 1));
        assert!(close_at(0.03125, 0.0312, 4));
        assert!(!close_at(357.6, 358.0, 1));
        assert!(close_at(358.0, 358.0, 1));
    }
}

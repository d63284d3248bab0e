//! How a run or a sweep was measured, for its page: its method (recorded from method
//! version 2; before it, what the report's `method` and the sweep's workload say), and the
//! records of the same server set-up measured the other way, each with how the two methods
//! differ, so a reader never takes a run's and a sweep's single-stream speed for one figure.

use serde::Serialize;

use super::super::catalog::Catalog;
use super::super::views::{Fact, Link};
use crate::data::{RecordMethod, Run, Sweep, Workload};
use crate::format::{count, switch};

/// A record's method and its counterparts.
#[derive(Debug, Serialize)]
pub struct Measured {
    facts: Vec<Fact>,
    /// The records of the same server set-up measured the other way: the most recent
    /// [`COUNTERPARTS`].
    others: Vec<Other>,
    /// How many more there are, when there are.
    more: Option<String>,
}

/// At most this many counterparts on a page, the most recent: a page does not grow with how
/// often its set-up was measured.
pub const COUNTERPARTS: usize = 3;

/// The most recent [`COUNTERPARTS`] of a set-up's records (`kept`, of `all`), each made an
/// [`Other`], and how many were left out, in words.
fn bounded<'r, T>(
    (kept, all): (Vec<&'r T>, usize),
    noun: &str,
    other: impl Fn(&'r T) -> Other,
) -> (Vec<Other>, Option<String>) {
    let more = (all > COUNTERPARTS).then(|| {
        format!(
            "The {COUNTERPARTS} most recent of {} {noun}s of this set-up; its model's page lists them all.",
            crate::format::count(all as u64)
        )
    });
    (kept.into_iter().map(other).collect(), more)
}

/// A record of the same server set-up, and how it was measured differently.
#[derive(Debug, Serialize)]
struct Other {
    link: Link,
    differs: String,
}

/// The method facts every recorded method has.
fn recorded(method: &RecordMethod) -> Vec<Fact> {
    vec![
        Fact::new(
            "Method",
            format!("version {}, measured by {}", method.version, method.client),
        ),
        Fact::new(
            "Prompts",
            format!(
                "{}; sha256 {}…",
                method.prompt_source,
                &method.prompt_sha256[..12.min(method.prompt_sha256.len())]
            ),
        ),
        Fact::new("Tokens counted from", method.token_count.clone()),
        Fact::new("Prefix cache", method.cache.describe()),
    ]
}

/// What a run's samples sent, in words.
fn run_sends(c: &Catalog, run: &Run) -> String {
    match (&run.workload, &run.source) {
        (Some(w), _) => format!(
            "one request at a time of {}{}, up to {} output tokens, ignore_eos {}",
            run.method
                .as_ref()
                .map_or("its prompt", |m| m.prompt_source.as_str()),
            w.prompt_tokens
                .map_or(String::new(), |t| format!(" ({} tokens)", count(t))),
            count(w.output_tokens),
            switch(w.ignore_eos)
        ),
        (None, Some(source)) => format!("what {source} sent"),
        (None, None) => match &c.doc.method.workload {
            Some(workload) => format!("the report's decode method: {workload}"),
            None => "the report's decode method, which it does not describe".to_owned(),
        },
    }
}

/// What a sweep's levels sent, in words.
fn sweep_sends(sweep: &Sweep) -> String {
    let w = &sweep.workload;
    let prompt = match (w.prompt_words, w.prompt_tokens) {
        (Some(words), _) => format!("generated prompts of {} words", count(words)),
        (None, Some(tokens)) => format!("prompts of {} tokens", count(tokens)),
        (None, None) => "prompts of an unrecorded length".to_owned(),
    };
    let served = sweep
        .levels
        .iter()
        .find_map(|l| l.prompt_tokens)
        .map_or(String::new(), |t| {
            format!(" ({} tokens as served)", count(t))
        });
    format!(
        "{prompt}{served}, {} output tokens, ignore_eos {}",
        count(w.output_tokens),
        switch(w.ignore_eos)
    )
}

/// The requests of each level, in words: an open loop's arrivals, else its rounds.
pub fn rounds(w: &Workload) -> String {
    if let Some(a) = &w.arrivals {
        let bound = match a.duration_s {
            Some(seconds) => format!(
                "{} arrivals per level or {seconds} s of them, whichever ends first",
                count(a.requests)
            ),
            None => format!("{} arrivals per level", count(a.requests)),
        };
        let seed = a
            .seed
            .map_or("seed not recorded".to_owned(), |s| format!("seed {s}"));
        return format!("{}, {seed}, {bound}", a.words());
    }
    let plural = if w.rounds == 1 { "" } else { "s" };
    match w.min_requests {
        Some(least) => format!(
            "max({}, ⌈{least} / concurrency⌉) rounds per level, so at least {least} requests",
            w.rounds
        ),
        None => format!("{} round{plural} per level", w.rounds),
    }
}

/// A run's single-stream decode beside a sweep's per-stream decode at concurrency 1.
fn speeds(run: &Run, sweep: &Sweep) -> String {
    let at_one = sweep
        .levels
        .iter()
        .find(|l| l.concurrency == Some(1))
        .and_then(|l| l.decode_tok_s_per_stream);
    match at_one {
        Some(rate) => format!(
            " The run's decode is {} tok/s; the sweep's per-stream decode at concurrency 1 is {} tok/s.",
            crate::format::figure(run.decode_tok_s),
            crate::format::figure(rate)
        ),
        None => String::new(),
    }
}

/// How a run was measured, and the sweeps of its server set-up.
pub fn of_run(c: &Catalog, run: &Run) -> Measured {
    let mut facts = match &run.method {
        Some(method) => recorded(method),
        None => vec![Fact::new(
            "Method",
            match &run.source {
                Some(source) => format!("imported from {source}: its tool's definitions"),
                None => "version 1: measured before records said how; the report's method \
                         follows"
                    .to_owned(),
            },
        )],
    };
    facts.push(Fact::new("Requests", run_sends(c, run)));
    if run.method.is_none() && run.source.is_none() {
        if let Some(prompt) = &c.doc.method.prompt {
            facts.push(Fact::new("Prompt", prompt.clone()));
        }
        if let Some(warmup) = &c.doc.method.warmup {
            facts.push(Fact::new("Warm-up", warmup.clone()));
        }
    }
    if let (Some(method), Some(w)) = (&run.method, &run.workload) {
        facts.push(Fact::new(
            "Warm-up",
            format!(
                "{} cold request{} discarded, then {} sample{}",
                method.warmup,
                if method.warmup == 1 { "" } else { "s" },
                w.rounds,
                if w.rounds == 1 { "" } else { "s" }
            ),
        ));
    }
    let (others, more) = bounded(c.sweeps_of_setup(run, COUNTERPARTS), "sweep", |sweep| {
        Other {
            link: c.link_sweep(sweep),
            differs: format!(
                "measures the same server set-up as a sweep: it sent {}; this run sent {}.{}",
                sweep_sends(sweep),
                // The report's method is written out under Requests just above.
                if run.workload.is_none() && run.source.is_none() {
                    "the report's decode method, as Requests above says".to_owned()
                } else {
                    run_sends(c, run)
                },
                speeds(run, sweep)
            ),
        }
    });
    Measured {
        facts,
        others,
        more,
    }
}

/// How a sweep was measured, and the runs of its server set-up.
pub fn of_sweep(c: &Catalog, sweep: &Sweep) -> Measured {
    let mut facts = match (&sweep.method, &sweep.source) {
        (Some(method), _) => recorded(method),
        (None, Some(source)) => vec![Fact::new(
            "Method",
            format!("imported from {source}: its tool's definitions"),
        )],
        (None, None) => vec![
            Fact::new("Method", "version 1: measured before records said how"),
            Fact::new("Prefix cache", crate::data::CacheIsolation::None.describe()),
        ],
    };
    facts.push(Fact::new("Requests", rounds(&sweep.workload)));
    facts.push(Fact::new(
        "Warm-up",
        match (&sweep.method, &sweep.source) {
            (Some(method), _) => format!(
                "{} request{} per stream before each level, discarded",
                method.warmup,
                if method.warmup == 1 { "" } else { "s" }
            ),
            (None, Some(_)) => "the tool's".to_owned(),
            (None, None) => "none: each level's first requests are measured cold".to_owned(),
        },
    ));
    let (others, more) = bounded(c.runs_of_setup(sweep, COUNTERPARTS), "run", |run| Other {
        link: c.link_run(run),
        differs: format!(
            "measures the same server set-up as a run: it sent {}; this sweep sent {}.{}",
            run_sends(c, run),
            sweep_sends(sweep),
            speeds(run, sweep)
        ),
    });
    Measured {
        facts,
        others,
        more,
    }
}

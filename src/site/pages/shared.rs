//! Helpers the page kinds share: cells, a sweep's points, the most recent records, a
//! record's provenance.

use crate::data::figures::{Field, LevelField, Value};
use crate::data::{self, Load, Sweep, SweepLevel};
use crate::format::{MISSING, count, figure, switch};
use crate::profiles::Engine;

use super::super::views::{Cell, Fact};

/// Which engine served a record: its vLLM version where it is vLLM's or says no engine (as
/// records from before engines were kept), else the engine by name.
pub fn engine_fact(engine: Option<Engine>, vllm_version: Option<&String>) -> Fact {
    match engine {
        Some(engine) if engine != Engine::Vllm => Fact::new("Engine", engine.name()),
        _ => Fact::new("vLLM", opt(vllm_version.cloned())),
    }
}

/// A value, or the missing-value mark.
pub fn opt(value: Option<String>) -> String {
    value.unwrap_or_else(|| MISSING.into())
}

/// A number cell, or the missing-value cell.
pub fn opt_cell(value: Option<f64>, text: impl Fn(f64) -> String) -> Cell {
    match value {
        Some(value) => Cell::number(text(value), value),
        None => Cell::missing(),
    }
}

/// A registry value as a table cell: numbers as the data has them, counts grouped.
pub fn value_cell(value: Option<Value>) -> Cell {
    match value {
        None => Cell::missing(),
        Some(Value::Number(x)) => Cell::number(figure(x), x),
        Some(Value::Count(n)) => Cell::number(count(n), n as f64),
        Some(Value::Bool(on)) => Cell::text(switch(on)),
        Some(other) => Cell::text(other.raw()),
    }
}

/// A record's value of a registry field as a table cell: a number to its precision, sorted by
/// the recorded value, which the tooltip gives in full where the two differ.
pub fn field_cell<R>(field: &Field<R>, record: &R) -> Cell {
    match (field.get)(record) {
        Some(Value::Number(x)) => {
            let shown = field.shown(&Value::Number(x));
            let recorded = figure(x);
            let cell = Cell::number(shown.clone(), x);
            if shown == recorded {
                cell
            } else {
                cell.titled(format!("recorded {recorded}"))
            }
        }
        value => value_cell(value),
    }
}

/// A level's load in a table that may hold sweeps of both kinds: `8`, or `2.5 req/s` (as
/// the page's script writes it), sorted by its number.
pub fn load_cell(load: Load) -> Cell {
    match load {
        Load::Concurrency(c) => Cell::number(crate::format::count(c), c as f64),
        Load::Rate(r) => Cell::number(load.words(), r),
    }
}

/// The value of one figure of a sweep level.
pub fn level_value(field: &LevelField, level: &SweepLevel) -> Option<f64> {
    (field.field.get)(level).and_then(|v| v.number())
}

/// The (load, value) points of one figure of a sweep (its concurrency or arrival rate); a tail percentile of too few
/// requests is never drawn.
pub fn points(sweep: &Sweep, field: &LevelField) -> Vec<(f64, f64)> {
    sweep
        .levels
        .iter()
        .filter(|level| !field.weak_tail(level))
        .filter_map(|level| level_value(field, level).map(|v| (level.load().x(), v)))
        .collect()
}

/// At most `limit` of `records`, the most recent by `date` (among equals the later in the
/// document), kept in document order; and whether any were left out.
pub fn most_recent<'r, T>(
    records: impl IntoIterator<Item = &'r T>,
    date: impl Fn(&T) -> &str,
    limit: usize,
) -> (Vec<&'r T>, bool) {
    let mut all: Vec<(usize, &T)> = records.into_iter().enumerate().collect();
    if all.len() <= limit {
        return (all.into_iter().map(|(_, r)| r).collect(), false);
    }
    all.sort_by(|a, b| date(b.1).cmp(date(a.1)).then(b.0.cmp(&a.0)));
    all.truncate(limit);
    all.sort_by_key(|(i, _)| *i);
    (all.into_iter().map(|(_, r)| r).collect(), true)
}

/// Where a record was measured, as facts: benchsite's version, the report's commit, the
/// campaign and the engine's job ids; none for a record that does not say.
pub fn provenance_facts(provenance: Option<&data::Provenance>) -> Vec<Fact> {
    let Some(p) = provenance else {
        return Vec::new();
    };
    let mut facts = vec![Fact::new(
        "Measured with",
        format!("benchsite {}", p.benchsite),
    )];
    if let Some(commit) = &p.commit {
        facts.push(Fact::new("Report commit", commit.clone()));
    }
    if let Some(campaign) = &p.campaign {
        facts.push(Fact::new("Campaign", campaign.clone()));
    }
    for (name, value) in &p.engine {
        facts.push(Fact::new(name.clone(), value.clone()));
    }
    facts
}

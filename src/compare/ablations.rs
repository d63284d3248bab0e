//! One-knob ablations: pairs of records of the same model that differ in exactly one setting.
//!
//! Runs are compared by their effective settings (profile with overrides), sweeps by their
//! `dimensions` (with the same ignore_eos and thinking), comparisons by their `dimensions`
//! (with the same reference capture). A configuration recorded more than once takes part
//! through its first record.

use std::collections::BTreeMap;

use crate::data::Results;
use crate::format::MISSING;
use crate::profiles::{self, Profile};

/// What kind of records a pair is of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// `runs`.
    Run,
    /// `sweeps`.
    Sweep,
    /// `divergence`.
    Comparison,
}

/// Two records that differ in one setting.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ablation {
    /// Their kind.
    pub kind: Kind,
    /// The earlier record's index in its array.
    pub a: usize,
    /// The later one's.
    pub b: usize,
    /// The setting.
    pub setting: String,
    /// Its value in `a` (`—` when unset).
    pub from: String,
    /// Its value in `b`.
    pub to: String,
}

/// Every one-knob pair of the document, runs first, each kind in document order.
pub fn ablations(doc: &Results, profiles: &[Profile]) -> Vec<Ablation> {
    ablations_across(doc, profiles, |_, _| None)
}

/// [`ablations`] of a document merged from several machines' documents: `machine` names the
/// machine of record `index` of a kind, and counts as one more setting, so the same
/// configuration on two machines is a pair whose setting is `machine`.
pub fn ablations_across<'m>(
    doc: &Results,
    profiles: &[Profile],
    machine: impl Fn(Kind, usize) -> Option<&'m str>,
) -> Vec<Ablation> {
    let with_machine = |kind: Kind, index: usize, mut settings: Settings| {
        if let Some(slug) = machine(kind, index) {
            settings.insert(MACHINE.to_owned(), slug.to_owned());
        }
        settings
    };
    let runs = doc.runs.iter().enumerate().map(|(i, run)| {
        let profile = profiles.iter().find(|p| p.name == run.profile)?;
        let overrides = profiles::parse_overrides(&run.overrides).ok()?;
        let settings = profile
            .effective(&overrides)
            .settings
            .into_iter()
            .map(|s| (s.key, s.value))
            .collect();
        Some((run.model.clone(), with_machine(Kind::Run, i, settings)))
    });
    let sweeps = doc.sweeps.iter().enumerate().map(|(i, sweep)| {
        let group = format!(
            "{}|{}|{}",
            sweep.model, sweep.workload.ignore_eos, sweep.workload.thinking
        );
        let settings = sweep.dimensions.clone().into_iter().collect();
        Some((group, with_machine(Kind::Sweep, i, settings)))
    });
    let comparisons = doc.divergence.iter().enumerate().map(|(i, d)| {
        let group = format!("{}|{}", d.model, d.a);
        let settings = d.dimensions.clone().into_iter().collect();
        Some((group, with_machine(Kind::Comparison, i, settings)))
    });
    let mut found = pairs(Kind::Run, runs);
    found.extend(pairs(Kind::Sweep, sweeps));
    found.extend(pairs(Kind::Comparison, comparisons));
    found
}

type Settings = BTreeMap<String, String>;

/// The setting a pair of records measured on two machines differs in.
pub const MACHINE: &str = "machine";

fn pairs(kind: Kind, records: impl Iterator<Item = Option<(String, Settings)>>) -> Vec<Ablation> {
    // Within a group, each distinct configuration once, by its first record.
    let mut groups: BTreeMap<String, Vec<(usize, Settings)>> = BTreeMap::new();
    for (index, record) in records.enumerate() {
        let Some((group, settings)) = record else {
            continue;
        };
        let members = groups.entry(group).or_default();
        if !members.iter().any(|(_, other)| *other == settings) {
            members.push((index, settings));
        }
    }
    let mut found = Vec::new();
    for members in groups.values() {
        for (i, (a, first)) in members.iter().enumerate() {
            for (b, second) in &members[i + 1..] {
                if let Some((setting, from, to)) = single_difference(first, second) {
                    found.push(Ablation {
                        kind,
                        a: *a,
                        b: *b,
                        setting,
                        from,
                        to,
                    });
                }
            }
        }
    }
    found.sort_by_key(|ablation| (ablation.a, ablation.b));
    found
}

/// The one key whose value differs, when exactly one does.
fn single_difference(a: &Settings, b: &Settings) -> Option<(String, String, String)> {
    let mut keys: Vec<&String> = a.keys().chain(b.keys()).collect();
    keys.sort();
    keys.dedup();
    let mut differing = keys.into_iter().filter(|key| a.get(*key) != b.get(*key));
    let key = differing.next()?;
    if differing.next().is_some() {
        return None;
    }
    let value = |settings: &Settings| settings.get(key).cloned().unwrap_or_else(|| MISSING.into());
    Some((key.clone(), value(a), value(b)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(pairs: &[(&str, &str)]) -> Settings {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn exactly_one_difference() {
        let a = settings(&[("seqs", "8"), ("mtp", "off")]);
        assert_eq!(
            single_difference(&a, &settings(&[("seqs", "32"), ("mtp", "off")])),
            Some(("seqs".into(), "8".into(), "32".into()))
        );
        assert_eq!(
            single_difference(&a, &settings(&[("seqs", "32"), ("mtp", "on")])),
            None
        );
        assert_eq!(single_difference(&a, &a), None);
        assert_eq!(
            single_difference(
                &a,
                &settings(&[("seqs", "8"), ("mtp", "off"), ("kv", "fp8")])
            ),
            Some(("kv".into(), MISSING.into(), "fp8".into()))
        );
    }

    #[test]
    fn a_configuration_recorded_twice_pairs_once() {
        let a = settings(&[("graphs", "on")]);
        let b = settings(&[("graphs", "off")]);
        let records = [a.clone(), b, a].map(|s| Some(("m".to_owned(), s)));
        let found = pairs(Kind::Sweep, records.into_iter());
        assert_eq!(found.len(), 1);
        assert_eq!((found[0].a, found[0].b), (0, 1));
    }
}

//! One-knob ablations: pairs of records of the same model that differ in exactly one setting.
//!
//! Runs are compared by their effective settings (profile with overrides), sweeps by their
//! `dimensions` (with the same ignore_eos and thinking), comparisons by their `dimensions`
//! (with the same reference capture). A configuration recorded more than once takes part
//! through its first record.

use std::collections::BTreeMap;

use crate::data::{Results, rules};
use crate::format::MISSING;
use crate::profiles::{self, Engine, Profile};

/// What kind of records a pair is of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
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
        let mut settings: Settings = profile
            .effective(&overrides)
            .settings
            .into_iter()
            .map(|s| (s.key, s.value))
            .collect();
        engine(&mut settings, "ENGINE", rules::run_engine(run));
        Some((run.model.clone(), with_machine(Kind::Run, i, settings)))
    });
    // The `prompt` dimension is the prompt's measured length, which a nonce moves by a token
    // from one sweep to the next: sweeps that asked for the same prompt take the first one's.
    let mut measured: std::collections::HashMap<(&str, String), &str> =
        std::collections::HashMap::new();
    let sweeps = doc.sweeps.iter().enumerate().map(move |(i, sweep)| {
        let mut group = format!(
            "{}|{}|{}",
            sweep.model, sweep.workload.ignore_eos, sweep.workload.thinking
        );
        // An open loop's levels are rates: never paired with a closed loop's.
        if let Some(arrivals) = &sweep.workload.arrivals {
            group.push_str(&format!("|{}", arrivals.words()));
        }
        // So is a sweep of other prompts: a dataset, drawn lengths, shared prefixes.
        if let Some(shape) = sweep.workload.shape() {
            group.push_str(&format!("|{shape}"));
        }
        let mut settings: Settings = sweep.dimensions.clone().into_iter().collect();
        if let (Some(asked), Some(prompt)) = (
            rules::asked_prompt(&sweep.workload),
            sweep.dimensions.get("prompt"),
        ) {
            let first = measured
                .entry((sweep.model.as_str(), asked))
                .or_insert(prompt);
            settings.insert("prompt".to_owned(), (*first).to_owned());
        }
        engine(&mut settings, "engine", rules::sweep_engine(sweep));
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

/// Puts the record's engine among its settings as `key`, in place of what its profile says:
/// a pair of two engines differs in it, and records of one engine agree on it whether or not
/// their profiles spelled it out.
fn engine(settings: &mut Settings, key: &str, engine: Option<Engine>) {
    settings.remove("ENGINE");
    if let Some(engine) = engine {
        settings.insert(key.to_owned(), engine.as_str().to_owned());
    }
}

/// A line of configurations: the setting it runs along, and every other setting's value.
type Line<'s> = (&'s str, Vec<(&'s str, &'s str)>);

/// The setting a pair of records measured on two machines differs in.
pub const MACHINE: &str = "machine";

/// A line of at most this many configurations pairs every two of them; a longer one, each
/// with its neighbours.
pub const ALL_PAIRS_UP_TO: usize = 4;

/// The pairs of one kind. Within a group, each distinct configuration takes part once, by its
/// first record. Configurations that agree on every setting but one lie on a line along that
/// setting. On a line of at most [`ALL_PAIRS_UP_TO`], every two are a pair; on a longer one,
/// each is paired with its neighbours, its values in order (numbers by value, unset first),
/// so a knob swept over many values gives a chain of pairs, not every pair of values: linear
/// in the records, as a report that explores many values needs.
fn pairs(kind: Kind, records: impl Iterator<Item = Option<(String, Settings)>>) -> Vec<Ablation> {
    let mut groups: BTreeMap<String, Vec<(usize, Settings)>> = BTreeMap::new();
    let mut seen: std::collections::HashSet<(String, Settings)> = std::collections::HashSet::new();
    for (index, record) in records.enumerate() {
        let Some((group, settings)) = record else {
            continue;
        };
        if seen.insert((group.clone(), settings.clone())) {
            groups.entry(group).or_default().push((index, settings));
        }
    }
    let mut found = Vec::new();
    for members in groups.values() {
        // Each line: the setting it runs along and every other setting's value. Hashed, not
        // ordered: a pair lies on one line only, and `found` is sorted at the end.
        let mut lines: std::collections::HashMap<Line, Vec<(usize, &str)>> =
            std::collections::HashMap::new();
        let keys: std::collections::BTreeSet<&str> = members
            .iter()
            .flat_map(|(_, settings)| settings.keys().map(String::as_str))
            .collect();
        for (index, settings) in members {
            for &key in &keys {
                let rest: Vec<(&str, &str)> = settings
                    .iter()
                    .filter(|(k, _)| k.as_str() != key)
                    .map(|(k, v)| (k.as_str(), v.as_str()))
                    .collect();
                let value = settings.get(key).map_or(MISSING, String::as_str);
                lines.entry((key, rest)).or_default().push((*index, value));
            }
        }
        for ((key, _), mut line) in lines {
            line.sort_by(|a, b| in_order(a.1, b.1).then(a.0.cmp(&b.0)));
            // A short line pairs every two of its values; a long one its neighbours.
            let reach = if line.len() <= ALL_PAIRS_UP_TO {
                line.len()
            } else {
                1
            };
            let pairs = (0..line.len())
                .flat_map(|i| (i + 1..line.len().min(i + 1 + reach)).map(move |j| (i, j)));
            for (i, j) in pairs {
                let (first, second) = if line[i].0 < line[j].0 {
                    (line[i], line[j])
                } else {
                    (line[j], line[i])
                };
                found.push(Ablation {
                    kind,
                    a: first.0,
                    b: second.0,
                    setting: key.to_owned(),
                    from: first.1.to_owned(),
                    to: second.1.to_owned(),
                });
            }
        }
    }
    found.sort_by(|x, y| (x.a, x.b, &x.setting).cmp(&(y.a, y.b, &y.setting)));
    found
}

/// The order of a setting's values along a line: unset first, then numbers by value, then
/// the rest as text.
fn in_order(a: &str, b: &str) -> std::cmp::Ordering {
    let rank = |v: &str| match (v == MISSING, v.parse::<f64>()) {
        (true, _) => (0, 0.0),
        (false, Ok(x)) if x.is_finite() => (1, x),
        _ => (2, 0.0),
    };
    let (ra, rb) = (rank(a), rank(b));
    ra.0.cmp(&rb.0)
        .then(ra.1.total_cmp(&rb.1))
        .then_with(|| a.cmp(b))
}

/// The one key whose value differs, when exactly one does: the brute-force oracle of the
/// tests.
#[cfg(test)]
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
    fn with_two_values_a_knob_every_one_knob_pair_is_found() {
        // Three on/off knobs: eight configurations, the twelve edges of a cube, each found
        // by comparing every pair by brute force.
        let configurations: Vec<Settings> = (0..8)
            .map(|bits: u32| {
                let on = |bit: u32| if bits & (1 << bit) == 0 { "off" } else { "on" };
                settings(&[("graphs", on(0)), ("mtp", on(1)), ("vision", on(2))])
            })
            .collect();
        let found = pairs(
            Kind::Run,
            configurations
                .iter()
                .map(|s| Some(("m".to_owned(), s.clone()))),
        );
        let mut brute = Vec::new();
        for a in 0..8 {
            for b in a + 1..8 {
                if let Some((setting, from, to)) =
                    single_difference(&configurations[a], &configurations[b])
                {
                    brute.push((a, b, setting, from, to));
                }
            }
        }
        let found: Vec<_> = found
            .into_iter()
            .map(|x| (x.a, x.b, x.setting, x.from, x.to))
            .collect();
        assert_eq!(brute.len(), 12);
        assert_eq!(found, brute);
    }

    #[test]
    fn a_knob_of_many_values_pairs_its_neighbours() {
        // MAX_NUM_SEQS at 8, 1, 32, 2 and unset (recorded in that order), five values, more
        // than ALL_PAIRS_UP_TO: neighbours by value, unset first: — ~ 1, 1 ~ 2, 2 ~ 8,
        // 8 ~ 32; never 1 ~ 32.
        let records = ["8", "1", "32", "2", ""].map(|seqs| {
            let s = if seqs.is_empty() {
                settings(&[("kv", "fp8")])
            } else {
                settings(&[("kv", "fp8"), ("seqs", seqs)])
            };
            Some(("m".to_owned(), s))
        });
        let found: Vec<_> = pairs(Kind::Run, records.into_iter())
            .into_iter()
            .map(|x| (x.a, x.b, x.from, x.to))
            .collect();
        let pair = |a, b, from: &str, to: &str| (a, b, from.to_owned(), to.to_owned());
        assert_eq!(
            found,
            [
                pair(0, 2, "8", "32"),
                pair(0, 3, "8", "2"),
                pair(1, 3, "1", "2"),
                pair(1, 4, "1", MISSING),
            ]
        );
    }

    #[test]
    fn a_knob_of_few_values_pairs_every_two() {
        // Three machines: every two of them, as brute force finds them.
        let records = ["rtx-4090", "rtx-5090", "a100"]
            .map(|machine| Some(("m".to_owned(), settings(&[("machine", machine)]))));
        let found: Vec<_> = pairs(Kind::Run, records.into_iter())
            .into_iter()
            .map(|x| (x.a, x.b))
            .collect();
        assert_eq!(found, [(0, 1), (0, 2), (1, 2)]);
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

    /// Two sweeps that asked for the same prompt are compared as such, though a nonce made
    /// one measure a token longer; sweeps that asked for other prompts still differ in it.
    #[test]
    fn a_prompt_a_token_longer_is_the_same_prompt() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/results.json");
        let mut doc = crate::data::load(&path).unwrap();
        doc.sweeps.truncate(1);
        let base = doc.sweeps[0].clone();
        let mut more = base.clone();
        more.label = "more seqs".into();
        more.dimensions.insert("seqs".into(), "64".into());
        more.dimensions.insert("prompt".into(), "787 tok".into());
        let mut longer = base.clone();
        longer.label = "longer".into();
        longer.workload.prompt_words = Some(1400);
        longer
            .dimensions
            .insert("prompt".into(), "1,571 tok".into());
        doc.sweeps.extend([more, longer]);
        let found: Vec<(usize, usize, String, String, String)> = ablations(&doc, &[])
            .into_iter()
            .filter(|ab| ab.kind == Kind::Sweep)
            .map(|ab| (ab.a, ab.b, ab.setting, ab.from, ab.to))
            .collect();
        assert_eq!(
            found,
            [
                (0, 1, "seqs".into(), "8".into(), "64".into()),
                (0, 2, "prompt".into(), "786 tok".into(), "1,571 tok".into()),
            ]
        );
    }
}

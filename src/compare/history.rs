//! Histories: the records of one configuration measured more than once (under another
//! server version, or on another date), in the order they were measured. A run's
//! configuration is its model, engine and effective settings but the image, which carries
//! the server's version; a sweep's, its model, engine, workload (lengths and switches) and
//! dimensions. With several
//! machines, the machine is part of the configuration.

use std::collections::BTreeMap;

use super::ablations::Kind;
use crate::data::{Results, rules};
use crate::profiles::{self, Profile};

/// The records of one configuration, oldest first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct History {
    /// Their kind.
    pub kind: Kind,
    /// Their indexes in their array, by date then version.
    pub members: Vec<usize>,
}

/// The setting that names a server's version in a profile, left out of a configuration.
pub const VERSIONED: &str = "IMAGE";

/// Every history of the document with two records or more: runs first, each kind in the
/// order of its first record.
pub fn histories<'m>(
    doc: &Results,
    profiles: &[Profile],
    machine: impl Fn(Kind, usize) -> Option<&'m str>,
) -> Vec<History> {
    let runs = doc.runs.iter().enumerate().map(|(i, run)| {
        let profile = profiles.iter().find(|p| p.name == run.profile)?;
        let overrides = profiles::parse_overrides(&run.overrides).ok()?;
        let settings: BTreeMap<String, String> = profile
            .effective(&overrides)
            .settings
            .into_iter()
            .filter(|s| s.key != VERSIONED && s.key != "PORT" && s.key != "ENGINE")
            .map(|s| (s.key, s.value))
            .collect();
        Some(format!(
            "{}|{:?}|{:?}|{:?}",
            run.model,
            rules::run_engine(run),
            machine(Kind::Run, i),
            settings
        ))
    });
    let sweeps = doc.sweeps.iter().enumerate().map(|(i, sweep)| {
        // The measured prompt length moves by a token with the nonce; where the workload says
        // what it asked for, that is in the key already.
        let asked = rules::asked_prompt(&sweep.workload).is_some();
        let dimensions: BTreeMap<&String, &String> = sweep
            .dimensions
            .iter()
            .filter(|(key, _)| !(asked && key.as_str() == "prompt"))
            .collect();
        let w = &sweep.workload;
        // An open loop is measured again only at the same arrivals.
        let arrivals = w
            .arrivals
            .as_ref()
            .map_or(String::new(), |a| format!("|{}", a.words()))
            + &w.shape().map_or(String::new(), |shape| format!("|{shape}"));
        Some(format!(
            "{}|{:?}|{:?}|{:?}|{}|{}|{}|{:?}|{:?}{arrivals}",
            sweep.model,
            rules::sweep_engine(sweep),
            w.prompt_words,
            w.prompt_tokens,
            w.output_tokens,
            w.ignore_eos,
            w.thinking,
            machine(Kind::Sweep, i),
            dimensions
        ))
    });
    let mut found = group(Kind::Run, runs, |i| {
        (
            doc.runs[i].generated.as_str(),
            doc.runs[i].vllm_version.as_deref(),
        )
    });
    found.extend(group(Kind::Sweep, sweeps, |i| {
        (
            doc.sweeps[i].generated.as_str(),
            doc.sweeps[i].vllm_version.as_deref(),
        )
    }));
    found
}

fn group<'d>(
    kind: Kind,
    keys: impl Iterator<Item = Option<String>>,
    when: impl Fn(usize) -> (&'d str, Option<&'d str>),
) -> Vec<History> {
    let mut groups: Vec<(String, Vec<usize>)> = Vec::new();
    for (index, key) in keys.enumerate() {
        let Some(key) = key else { continue };
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, members)) => members.push(index),
            None => groups.push((key, vec![index])),
        }
    }
    groups
        .into_iter()
        .filter(|(_, members)| members.len() > 1)
        .map(|(_, mut members)| {
            members.sort_by(|&a, &b| when(a).cmp(&when(b)).then(a.cmp(&b)));
            History { kind, members }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seed() -> Results {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/results.json");
        crate::data::load(&path).unwrap()
    }

    #[test]
    fn a_sweep_measured_again_at_its_workload_is_a_history_and_at_another_is_not() {
        let mut doc = seed();
        assert!(histories(&doc, &[], |_, _| None).is_empty());
        let mut again = doc.sweeps[0].clone();
        again.vllm_version = Some("0.29.0".into());
        again.generated = crate::data::Date::new("2026-10-01").unwrap();
        let mut longer = again.clone();
        longer.workload.output_tokens *= 2;
        doc.sweeps.extend([again, longer]);
        let found = histories(&doc, &[], |_, _| None);
        let n = doc.sweeps.len();
        assert_eq!(
            found,
            [History {
                kind: Kind::Sweep,
                members: vec![0, n - 2],
            }]
        );
    }

    /// A sweep measured again whose prompt, asked for the same, measured a token longer (a
    /// nonce tokenizes differently) is the same configuration.
    #[test]
    fn a_prompt_a_token_longer_is_the_same_configuration() {
        let mut doc = seed();
        let mut again = doc.sweeps[0].clone();
        again.generated = crate::data::Date::new("2026-10-01").unwrap();
        again.dimensions.insert("prompt".into(), "787 tok".into());
        doc.sweeps.push(again);
        let n = doc.sweeps.len();
        assert_eq!(
            histories(&doc, &[], |_, _| None),
            [History {
                kind: Kind::Sweep,
                members: vec![0, n - 1],
            }]
        );
    }

    /// A configuration measured again under another engine is another configuration; one
    /// measured again by a benchsite that records the engine is the same one.
    #[test]
    fn another_engine_is_another_history() {
        use crate::profiles::Engine;
        let mut doc = seed();
        let mut again = doc.sweeps[0].clone();
        again.vllm_version = Some("0.29.0".into());
        again.engine = Some(Engine::Vllm);
        again.generated = crate::data::Date::new("2026-10-01").unwrap();
        let mut llama = again.clone();
        llama.vllm_version = None;
        llama.engine = Some(Engine::LlamaServer);
        doc.sweeps.extend([again, llama]);
        let n = doc.sweeps.len();
        assert_eq!(
            histories(&doc, &[], |_, _| None),
            [History {
                kind: Kind::Sweep,
                members: vec![0, n - 2],
            }]
        );
        let profiles = crate::profiles::load_all(
            &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("profiles"),
        )
        .0;
        let mut doc = seed();
        let mut run = doc.runs[0].clone();
        run.engine = Some(Engine::LlamaServer);
        run.vllm_version = None;
        doc.runs.push(run);
        assert!(
            histories(&doc, &profiles, |_, _| None)
                .iter()
                .all(|h| h.kind != Kind::Run || !h.members.contains(&(doc.runs.len() - 1)))
        );
        doc.runs.last_mut().unwrap().engine = Some(Engine::Vllm);
        assert!(
            histories(&doc, &profiles, |_, _| None)
                .iter()
                .any(|h| h.kind == Kind::Run && h.members.contains(&(doc.runs.len() - 1)))
        );
    }
}

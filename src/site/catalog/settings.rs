//! Each run's effective launch settings, worked out once, and what its launch departs from
//! its profile in, which names it.

use std::collections::BTreeMap;

use super::records::Catalog;
use crate::profiles;

impl Catalog<'_> {
    /// Run `index`'s effective settings, `KEY` → value, where its profile is in the project
    /// and its overrides parse.
    pub fn run_settings(&self, index: usize) -> Option<&BTreeMap<String, String>> {
        self.run_settings
            .get_or_init(|| {
                self.doc
                    .runs
                    .iter()
                    .map(|run| {
                        let profile = self.profiles.iter().find(|p| p.name == run.profile)?;
                        let overrides = profiles::parse_overrides(&run.overrides).ok()?;
                        Some(
                            profile
                                .effective(&overrides)
                                .settings
                                .into_iter()
                                .map(|s| (s.key, s.value))
                                .collect(),
                        )
                    })
                    .collect()
            })
            .get(index)?
            .as_ref()
    }

    /// What run `index`'s launch departs from its profile in, in words, the most telling
    /// first: speculative decoding, the checkpoint's precision, the KV cache's type, the
    /// context, then vision, CUDA graphs, sequences and any other setting. An override that
    /// restates its profile's value is no departure; `PORT` never is. Without its profile
    /// in the project, each override is one.
    pub fn departures(&self, index: usize) -> Vec<String> {
        let run = &self.doc.runs[index];
        let Ok(overrides) = profiles::parse_overrides(&run.overrides) else {
            return Vec::new();
        };
        let profile = self
            .profiles
            .iter()
            .find(|p| p.name == run.profile)
            .map(|p| p.effective(&[]));
        let effective = self.run_settings(index);
        let own = |key: &str| effective.and_then(|e| e.get(key)).map(String::as_str);
        let mut departures: Vec<(usize, String)> = overrides
            .iter()
            .filter(|o| o.key != "PORT")
            .filter(|o| profile.as_ref().and_then(|p| p.get(&o.key)) != Some(o.value.as_str()))
            .map(|o| departure(&o.key, &o.value, &run.precision, own("SPEC_METHOD")))
            .collect();
        departures.sort_by_key(|(rank, _)| *rank);
        departures.into_iter().map(|(_, words)| words).collect()
    }

    /// A run's name, the same on every page: its model and what its launch departs from its
    /// profile in (at most [`NAMED`], the rest counted), else its checkpoint's precision;
    /// then its id.
    pub fn run_name(&self, index: usize) -> String {
        let run = &self.doc.runs[index];
        let departures = self.departures(index);
        if departures.is_empty() {
            return format!("{}, {} ({})", run.model, run.precision, run.id);
        }
        let mut named: Vec<String> = departures.iter().take(NAMED).cloned().collect();
        let rest = departures.len() - named.len();
        if rest > 0 {
            named.push(format!(
                "{rest} more {}",
                if rest == 1 { "setting" } else { "settings" }
            ));
        }
        let last = named.pop().expect("one departure at least");
        let words = match named.is_empty() {
            true => last,
            false => format!("{} and {last}", named.join(", ")),
        };
        format!("{} with {words} ({})", run.model, run.id)
    }
}

/// At most this many departures are named in a run's name.
pub const NAMED: usize = 4;

/// One setting's departure in words, with its place in the order of what tells most.
fn departure(key: &str, value: &str, precision: &str, method: Option<&str>) -> (usize, String) {
    let on = matches!(value, "1" | "true" | "on" | "yes");
    match key {
        "SPEC_DECODE" if on => (
            0,
            match method {
                Some(m) if m.eq_ignore_ascii_case("mtp") => "MTP".to_owned(),
                Some(m) => format!("speculative decoding ({m})"),
                None => "speculative decoding".to_owned(),
            },
        ),
        "SPEC_DECODE" => (0, "no speculative decoding".to_owned()),
        "MODEL" => (1, format!("the {precision} checkpoint")),
        "KV_CACHE_DTYPE" => (2, format!("{value} KV cache")),
        "MAX_MODEL_LEN" => (3, format!("{} context", context(value))),
        "LANGUAGE_MODEL_ONLY" if on => (4, "text-only".to_owned()),
        "LANGUAGE_MODEL_ONLY" => (4, "vision".to_owned()),
        "ENFORCE_EAGER" if on => (5, "eager".to_owned()),
        "ENFORCE_EAGER" => (5, "CUDA graphs".to_owned()),
        "MAX_NUM_SEQS" => (6, format!("at most {value} sequences")),
        _ => (7, format!("{key}={value}")),
    }
}

/// A context length as readers say it: 4096 as 4K, 32768 as 32K, 1000 as 1000.
fn context(value: &str) -> String {
    match value.parse::<u64>() {
        Ok(tokens) if tokens >= 1024 && tokens % 1024 == 0 => format!("{}K", tokens / 1024),
        _ => value.to_owned(),
    }
}

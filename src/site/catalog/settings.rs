//! Each run's effective launch settings, worked out once, and the settings that tell a run
//! from the other runs of its model.

use std::collections::{BTreeMap, HashMap};

use super::records::{Catalog, ModelSettings};
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

    /// The settings that tell run `index` from the other runs of its model: its effective
    /// settings whose value some other run of the model (with settings) does not share, as
    /// `KEY=value`, at most three, `PORT` never.
    pub fn distinguishing(&self, index: usize) -> Vec<String> {
        let Some(own) = self.run_settings(index) else {
            return Vec::new();
        };
        let counts = self.settings_counts.get_or_init(|| {
            let mut counts: HashMap<String, ModelSettings> = HashMap::new();
            for (i, run) in self.doc.runs.iter().enumerate() {
                let Some(settings) = self.run_settings(i) else {
                    continue;
                };
                let model = counts.entry(run.model.clone()).or_default();
                model.runs += 1;
                for (key, value) in settings {
                    *model
                        .values
                        .entry((key.clone(), value.clone()))
                        .or_default() += 1;
                }
            }
            counts
        });
        let model = &counts[&self.doc.runs[index].model];
        // The other runs that share a value: its count but this run.
        let others = model.runs - 1;
        own.iter()
            .filter(|(key, value)| {
                let same = model.values[&((*key).clone(), (*value).clone())] - 1;
                key.as_str() != "PORT" && same < others
            })
            .take(3)
            .map(|(key, value)| format!("{key}={value}"))
            .collect()
    }
}

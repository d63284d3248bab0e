//! A run and the sweeps of the same server set-up: the same model and engine, and the
//! sequences, vision,
//! CUDA graphs, MTP and GPUs the run's profile settings give equal to the sweep's dimensions
//! (`data::rules::server_dimensions`, which `collect sweep` writes them from). They measure one
//! server two ways, so each page names the other and how their methods differ. The set-ups
//! are indexed once, so a page finds its counterparts without reading every record.

use super::records::{Catalog, Setups, newest_first};
use crate::data::{Run, Sweep, rules};
use crate::profiles;

/// The dimensions that make a server set-up, in the order its key names them.
const SETUP: [&str; 5] = ["seqs", "vision", "graphs", "mtp", "gpus"];

/// A set-up's key: the model, the engine, and its set-up dimensions, as `name=value` lines.
fn key<'v>(
    model: &str,
    engine: Option<profiles::Engine>,
    value: impl Fn(&str) -> Option<&'v str>,
) -> String {
    let mut key = format!("{model}\n{engine:?}");
    for name in SETUP {
        if let Some(v) = value(name) {
            key.push_str(&format!("\n{name}={v}"));
        }
    }
    key
}

impl Catalog<'_> {
    fn setups(&self) -> &Setups {
        self.setups.get_or_init(|| {
            let mut setups = Setups::default();
            for (i, run) in self.doc.runs.iter().enumerate() {
                let dims = self.setup_of(run);
                let key = dims.map(|dims| {
                    key(&run.model, rules::run_engine(run), |name| {
                        dims.iter()
                            .find(|(n, _)| *n == name)
                            .map(|(_, v)| v.as_str())
                    })
                });
                if let Some(key) = &key {
                    setups.by_key.entry(key.clone()).or_default().0.push(i);
                }
                setups.run_keys.push(key);
            }
            for (i, sweep) in self.doc.sweeps.iter().enumerate() {
                let key = key(&sweep.model, rules::sweep_engine(sweep), |name| {
                    sweep.dimensions.get(name).map(String::as_str)
                });
                setups.by_key.entry(key.clone()).or_default().1.push(i);
                setups.sweep_keys.push(key);
            }
            // Each set-up's records newest first, so a page takes its few most recent without
            // sorting them all.
            for (runs, sweeps) in setups.by_key.values_mut() {
                *runs = newest_first(runs, |i| Some(self.doc.runs[i].generated.as_str()));
                *sweeps = newest_first(sweeps, |i| Some(self.doc.sweeps[i].generated.as_str()));
            }
            setups
        })
    }

    /// The server set-up a run's profile and overrides give, as sweep dimensions; `None` when
    /// its profile is not in the project.
    fn setup_of(&self, run: &Run) -> Option<Vec<(&'static str, String)>> {
        let profile = self.profiles.iter().find(|p| p.name == run.profile)?;
        let overrides = profiles::parse_overrides(&run.overrides).ok()?;
        Some(rules::server_dimensions(&profile.effective(&overrides)))
    }

    /// The `limit` most recent sweeps of a run's server set-up (the latest date, then the
    /// later in the document), in document order, and how many it has.
    pub fn sweeps_of_setup(&self, run: &Run, limit: usize) -> (Vec<&Sweep>, usize) {
        let setups = self.setups();
        let index = super::records::index_in(&self.doc.runs, run);
        let newest = index
            .and_then(|i| setups.run_keys[i].as_ref())
            .and_then(|key| setups.by_key.get(key))
            .map_or(&[][..], |(_, sweeps)| &sweeps[..]);
        (recent(newest, &self.doc.sweeps, limit), newest.len())
    }

    /// The `limit` most recent runs of a sweep's server set-up, in document order, and how
    /// many it has.
    pub fn runs_of_setup(&self, sweep: &Sweep, limit: usize) -> (Vec<&Run>, usize) {
        let setups = self.setups();
        let index = super::records::index_in(&self.doc.sweeps, sweep);
        let newest = index
            .and_then(|i| setups.by_key.get(&setups.sweep_keys[i]))
            .map_or(&[][..], |(runs, _)| &runs[..]);
        (recent(newest, &self.doc.runs, limit), newest.len())
    }
}

/// The first `limit` of `newest` (indexes of `records`, newest first), in document order.
fn recent<'r, T>(newest: &[usize], records: &'r [T], limit: usize) -> Vec<&'r T> {
    let mut kept: Vec<usize> = newest.iter().copied().take(limit).collect();
    kept.sort_unstable();
    kept.into_iter().map(|i| &records[i]).collect()
}

//! A run and the sweeps of the same server set-up: the same model, and the sequences, vision,
//! CUDA graphs, MTP and GPUs the run's profile settings give equal to the sweep's dimensions
//! (`data::rules::server_dimensions`, which `collect sweep` writes them from). They measure one
//! server two ways, so each page names the other and how their methods differ.

use super::records::Catalog;
use crate::data::{Run, Sweep, rules};
use crate::profiles;

impl Catalog<'_> {
    /// The server set-up a run's profile and overrides give, as sweep dimensions; `None` when
    /// its profile is not in the project.
    fn setup_of(&self, run: &Run) -> Option<Vec<(&'static str, String)>> {
        let profile = self.profiles.iter().find(|p| p.name == run.profile)?;
        let overrides = profiles::parse_overrides(&run.overrides).ok()?;
        Some(rules::server_dimensions(&profile.effective(&overrides)))
    }

    fn same_setup(setup: &[(&'static str, String)], run: &Run, sweep: &Sweep) -> bool {
        sweep.model == run.model
            && setup
                .iter()
                .all(|(key, value)| sweep.dimensions.get(*key) == Some(value))
    }

    /// The sweeps of a run's server set-up, in document order.
    pub fn sweeps_of_setup(&self, run: &Run) -> Vec<&Sweep> {
        let Some(setup) = self.setup_of(run) else {
            return Vec::new();
        };
        self.doc
            .sweeps
            .iter()
            .filter(|sweep| Self::same_setup(&setup, run, sweep))
            .collect()
    }

    /// The runs of a sweep's server set-up, in document order.
    pub fn runs_of_setup(&self, sweep: &Sweep) -> Vec<&Run> {
        self.doc
            .runs
            .iter()
            .filter(|run| {
                self.setup_of(run)
                    .is_some_and(|setup| Self::same_setup(&setup, run, sweep))
            })
            .collect()
    }
}

//! What the index tables filter each row by (`filters::FACETS`).

use crate::data::{self, Divergence, Run, Sweep};
use crate::profiles::{self};

use super::super::filters::{self, Facets};
use super::records::Catalog;

/// The first of `keys` that `dimensions` has.
fn dimensions_value<'d>(dimensions: &'d data::Dimensions, keys: &[&str]) -> Option<&'d str> {
    keys.iter()
        .find_map(|key| dimensions.get(*key))
        .map(String::as_str)
}

/// A record's facets from its model and `dimensions`.
fn dimension_facets(
    model: &str,
    dimensions: &data::Dimensions,
    machine: Option<(String, String)>,
) -> Facets {
    [
        Some((data::slugify(model), model.to_owned())),
        filters::facet(dimensions_value(dimensions, &["quant", "precision"])),
        filters::facet(dimensions_value(dimensions, &["mtp", "spec"])),
        filters::facet(dimensions_value(dimensions, &["kv"])),
        machine,
    ]
}

impl<'a> Catalog<'a> {
    /// The machine facet of record `index` of `R`'s array, when the report declares machines.
    pub(super) fn machine_facet<R: data::Record>(&self, index: usize) -> Option<(String, String)> {
        self.machine_of::<R>(index)
            .map(|m| (m.slug.clone(), self.machine_title(m)))
    }

    /// What the runs table filters run `index` by: its model, precision, speculative
    /// decoding, the KV-cache dtype of its effective settings ("auto" when the profile leaves
    /// it to vLLM) and machine.
    pub fn run_facets(&self, index: usize) -> Facets {
        let run = &self.doc.runs[index];
        let kv = self
            .profiles
            .iter()
            .find(|p| p.name == run.profile)
            .map(|profile| {
                let overrides = profiles::parse_overrides(&run.overrides).unwrap_or_default();
                profile
                    .effective(&overrides)
                    .get("KV_CACHE_DTYPE")
                    .unwrap_or("auto")
                    .to_owned()
            });
        [
            Some((data::slugify(&run.model), run.model.clone())),
            filters::facet(Some(&run.precision)),
            filters::switch(run.spec_decode),
            filters::facet(kv.as_deref()),
            self.machine_facet::<Run>(index),
        ]
    }

    /// What the sweeps table filters sweep `index` by: its model, its dimensions `quant`
    /// (or `precision`), `mtp` (or `spec`) and `kv`, and its machine.
    pub fn sweep_facets(&self, index: usize) -> Facets {
        let sweep = &self.doc.sweeps[index];
        dimension_facets(
            &sweep.model,
            &sweep.dimensions,
            self.machine_facet::<Sweep>(index),
        )
    }

    /// What the comparisons table filters comparison `index` by, from its dimensions as for
    /// a sweep.
    pub fn comparison_facets(&self, index: usize) -> Facets {
        let d = &self.doc.divergence[index];
        dimension_facets(
            &d.model,
            &d.dimensions,
            self.machine_facet::<Divergence>(index),
        )
    }
}

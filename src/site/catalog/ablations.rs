//! The one-knob pairs of the document and links to them, and the configurations measured
//! more than once.

use crate::compare::{self, Ablation, Kind};
use crate::data::{self, Divergence, Run, Sweep};

use super::super::routes;
use super::super::views::Link;
use super::links::{RELATED, Related};
use super::records::Catalog;

impl<'a> Catalog<'a> {
    /// How many one-knob pairs the document has.
    pub fn ablation_count(&self) -> usize {
        self.ablations().len()
    }

    pub fn ablations(&self) -> &[Ablation] {
        self.ablations.get_or_init(|| {
            compare::ablations_across(self.doc, self.profiles, |kind, index| {
                let machine = match kind {
                    Kind::Run => self.machine_of::<Run>(index),
                    Kind::Sweep => self.machine_of::<Sweep>(index),
                    Kind::Comparison => self.machine_of::<Divergence>(index),
                };
                machine.map(|m| m.slug.as_str())
            })
        })
    }

    /// The one-knob pairs record `index` of `kind` is part of, in the document's order.
    pub fn ablations_of(&self, kind: Kind, index: usize) -> impl Iterator<Item = &Ablation> {
        // Looked up, not searched: every record page asks, and a search through every pair
        // made the pages' time grow with the square of the records.
        let at = self.ablations_at.get_or_init(|| {
            let mut at: std::collections::HashMap<(Kind, usize), Vec<usize>> =
                std::collections::HashMap::new();
            for (place, ab) in self.ablations().iter().enumerate() {
                at.entry((ab.kind, ab.a)).or_default().push(place);
                if ab.b != ab.a {
                    at.entry((ab.kind, ab.b)).or_default().push(place);
                }
            }
            at
        });
        at.get(&(kind, index))
            .into_iter()
            .flatten()
            .map(|&place| &self.ablations()[place])
    }

    /// The configurations measured more than once, each oldest first.
    pub fn histories(&self) -> &[compare::History] {
        self.histories.get_or_init(|| {
            compare::histories(self.doc, self.profiles, |kind, index| {
                let machine = match kind {
                    Kind::Run => self.machine_of::<Run>(index),
                    Kind::Sweep => self.machine_of::<Sweep>(index),
                    Kind::Comparison => self.machine_of::<Divergence>(index),
                };
                machine.map(|m| m.slug.as_str())
            })
        })
    }

    /// The records of `kind` that `among` admits and that a later one it admits measured
    /// again: of each history, every admitted member but the latest. An answer or a chart
    /// over configurations shows the latest measurement of each, so it does not grow with the
    /// repeats, nor pick the luckiest of them.
    pub fn superseded(
        &self,
        kind: Kind,
        among: impl Fn(usize) -> bool,
    ) -> std::collections::HashSet<usize> {
        self.histories()
            .iter()
            .filter(|h| h.kind == kind)
            .flat_map(|h| {
                let mut admitted: Vec<usize> =
                    h.members.iter().copied().filter(|&i| among(i)).collect();
                // The latest stays.
                admitted.pop();
                admitted
            })
            .collect()
    }

    /// The history record `index` of `kind` is part of.
    pub fn history_of(&self, kind: Kind, index: usize) -> Option<&compare::History> {
        // Looked up, not searched: every record page asks, and a search through every
        // history's members made the pages' time grow with the square of the records.
        let at = self.history_at.get_or_init(|| {
            let mut at = std::collections::HashMap::new();
            for (place, history) in self.histories().iter().enumerate() {
                for &member in &history.members {
                    at.entry((history.kind, member)).or_insert(place);
                }
            }
            at
        });
        at.get(&(kind, index))
            .map(|&place| &self.histories()[place])
    }

    /// The anchor of a pair on the ablations page.
    pub fn ablation_id(&self, ablation: &Ablation) -> String {
        let kind = match ablation.kind {
            Kind::Run => "run",
            Kind::Sweep => "sweep",
            Kind::Comparison => "comparison",
        };
        let (a, _) = self.record(ablation.kind, ablation.a);
        let (b, _) = self.record(ablation.kind, ablation.b);
        format!("{kind}-{}-vs-{}", data::slugify(&a), data::slugify(&b))
    }

    /// `seqs: 8 → 32`.
    pub fn ablation_change(ablation: &Ablation) -> String {
        format!("{}: {} → {}", ablation.setting, ablation.from, ablation.to)
    }

    /// Links to the pairs record `index` of `kind` is part of: a handful, the rest on the
    /// ablations page.
    pub fn ablation_links(&self, kind: Kind, index: Option<usize>) -> Related {
        let mut links = self.all_ablation_links(kind, index);
        let total = links.len();
        links.truncate(RELATED);
        Related {
            links,
            more: (total > RELATED).then(|| Link {
                text: format!(
                    "all {} on the ablations page",
                    crate::format::counted(total, "pair", "pairs")
                ),
                href: self.urls.page(&routes::ABLATIONS.path("")),
                note: None,
                warning: None,
            }),
        }
    }

    pub(super) fn all_ablation_links(&self, kind: Kind, index: Option<usize>) -> Vec<Link> {
        let Some(index) = index else {
            return Vec::new();
        };
        self.ablations_of(kind, index)
            .map(|ab| {
                let other = if ab.a == index { ab.b } else { ab.a };
                self.ablation_link(ab, format!("against {}", self.record(kind, other).0))
            })
            .collect()
    }

    /// A link called `text` to a pair on the ablations page, noting its change.
    pub fn ablation_link(&self, ablation: &Ablation, text: String) -> Link {
        Link {
            text,
            href: format!(
                "{}#{}",
                self.urls.page(&routes::ABLATIONS.path("")),
                self.ablation_id(ablation)
            ),
            note: Some(Self::ablation_change(ablation)),
            warning: None,
        }
    }
}

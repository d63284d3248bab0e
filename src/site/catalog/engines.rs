//! Which engine served a sweep, told apart on the pages that put sweeps of several engines
//! side by side.

use crate::data::{Sweep, rules};
use crate::format::MISSING;

use super::super::views::Cell;
use super::records::Catalog;

impl Catalog<'_> {
    /// Whether the sweeps were served by more than one engine (a sweep whose engine is not
    /// known counts as one more): the trade-off tables then name each one's engine.
    pub fn several_engines(&self) -> bool {
        *self.several_engines.get_or_init(|| {
            let mut engines = self.doc.sweeps.iter().map(rules::sweep_engine);
            match engines.next() {
                Some(first) => engines.any(|engine| engine != first),
                None => false,
            }
        })
    }

    /// A table cell naming the engine that served `sweep`.
    pub fn engine_cell(&self, sweep: &Sweep) -> Cell {
        match rules::sweep_engine(sweep) {
            Some(engine) => Cell::text(engine.name()),
            None => Cell::text(sweep.server.as_deref().unwrap_or(MISSING)),
        }
    }

    /// A sweep's label as charts name its series: with its engine's short name where the
    /// sweeps beside it were served by others and the label does not already say it.
    pub fn sweep_name(&self, sweep: &Sweep) -> String {
        match rules::sweep_engine(sweep) {
            Some(engine)
                if self.several_engines()
                    && !sweep
                        .label
                        .to_lowercase()
                        .contains(&engine.short().to_lowercase()) =>
            {
                format!("{} ({})", sweep.label, engine.short())
            }
            _ => sweep.label.clone(),
        }
    }
}

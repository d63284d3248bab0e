//! Comparisons: the one-knob pairs within a results document ([`ablations`]), the records of
//! one configuration measured more than once ([`histories`]), and what changed between two
//! documents ([`diff`]).

mod ablations;
mod diff;
mod history;

pub use ablations::{Ablation, Kind, MACHINE, ablations, ablations_across};
pub use diff::{Change, Diff, Noise, Of, RecordChanges, diff};
pub use history::{History, VERSIONED, histories};

//! Comparisons: the one-knob pairs within a results document ([`ablations`]) and what changed
//! between two documents ([`diff`]).

mod ablations;
mod diff;

pub use ablations::{Ablation, Kind, MACHINE, ablations, ablations_across};
pub use diff::{Change, Diff, Of, RecordChanges, diff};

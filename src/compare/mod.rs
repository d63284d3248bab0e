//! Comparisons: what changed between two results documents ([`diff`]).

mod diff;

pub use diff::{Change, Diff, RecordChanges, diff};

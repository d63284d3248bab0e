//! The statistics the figures are made of: percentiles by linear interpolation between
//! closest ranks (numpy's default), medians and means, and the divergence statistics of
//! SPEC §4 ([`divergence`]), and whether a difference is beyond two measurements' noise
//! ([`noise`]). Pure functions: no I/O.

pub mod divergence;
pub mod noise;
mod pareto;
mod summary;

pub use pareto::pareto;
pub use summary::{mean, median, quantile, quantile_ci95, quantile_sorted, round};

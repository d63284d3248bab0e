//! Everything derived from the data that pages and shortcodes share: [`Catalog`], split by
//! concern, one `impl` per file.

mod ablations;
mod charts;
mod engines;
mod facets;
mod frontier;
mod goodput;
mod links;
mod machines;
mod noise;
mod records;
mod settings;
mod setups;

pub use frontier::{Group, Point, asked_workload, per_watt};
pub use goodput::{goodput, judged, request_bounds};
pub use links::{RELATED, Related};
pub use noise::{Test, kl_difference};
pub use records::{Baseline, Catalog, Model, index_in};

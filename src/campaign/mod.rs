//! Campaigns: a matrix of configurations measured unattended from `campaigns/<name>.toml`,
//! resumed where it stopped, and spread over a fleet.
//!
//! [`load`] parses and expands a campaign file (`file.rs`, its ids in `ids.rs`) into a
//! [`Campaign`] (`spec.rs`); [`plan::jobs`] lists its jobs on a
//! machine with their statuses against that machine's document; [`run`] measures what is left
//! through the `collect` functions, a server per configuration; [`merge`] brings documents
//! measured elsewhere into the project; [`workflow`] writes the GitHub Actions workflow or the
//! Slurm script that runs it on several machines.

mod error;
mod file;
mod ids;
mod load;
mod merge;
pub mod plan;
mod runner;
mod scheduler;
mod spec;
mod text;
pub mod workflow;

pub use error::CampaignError;
pub use load::{check, load, names};
pub use merge::{Merged, MergedDocument, merge};
pub use plan::{Job, Kind, Status};
pub use runner::{RunOptions, Summary, run};
pub use scheduler::{Slurm, SlurmOptions};
pub use spec::{Campaign, Configuration, SweepSpec};
pub use text::DIR;

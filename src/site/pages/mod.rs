//! The page model: every page of the report computed from the validated records, as plain
//! structs for the templates, one module per page kind. No HTML is written here except the
//! author's rendered Markdown. `catalog::Catalog` holds the look-ups the kinds share; [`kind`]
//! is each route's behaviour, and a kind's `view` returns its [`View`].

pub mod ablations;
pub mod changes;
mod checked;
pub mod comparison;
pub mod data;
mod decision;
pub mod failure;
pub mod failures;
pub mod free;
mod goodput;
mod head;
pub mod history;
pub mod home;
mod kinds;
mod limits;
pub mod machine;
mod measured;
pub mod model;
pub mod models;
mod page;
pub mod quality;
pub mod run;
pub mod runs;
pub mod search;
mod shared;
pub mod sweep;
pub mod sweeps;
pub mod tradeoffs;

pub use kinds::kind;
pub use page::{Page, View};

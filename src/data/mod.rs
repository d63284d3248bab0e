//! The results document: its types, its JSON Schema, loading with every problem reported at
//! once, the checks beyond the schema, and the atomic save every writer goes through.

mod checks;
mod delivery;
mod document;
mod error;
pub mod figures;
mod keys;
mod level;
mod load;
mod locate;
mod model;
mod problem;
pub mod prompts;
mod quality;
mod record;
mod requests;
pub mod rules;
mod schema;
mod shape;
mod store;
mod types;
mod upgrade;

pub use delivery::{AGREE_SHARE, Delivery, EngineView, PerStream};
pub use document::{
    Checks, load, load_with, no_more_checks, parse, parse_upgrading, parse_with, to_json, validate,
    validate_with,
};
pub use error::DataError;
pub use keys::{IdKey, Keys, LabelKey, RunKey};
pub use level::{LevelStatus, SweepLevel};
pub use load::{Arrivals, LimitSearch, Load, Process};
pub use model::*;
pub use problem::{Problem, Report, pointer_segment};
pub use quality::*;
pub use record::Record;
pub use requests::{
    RequestLine, RequestStatus, read_request_log, request_log_lines, request_log_path,
    write_request_log,
};
pub use schema::schema;
pub use shape::{Convention, Dataset, Lengths, SharedPrefix};
pub use store::{Written, lock_path, save, update};
pub use types::{
    Date, Dimensions, ID_PATTERN, Id, Provenance, SCHEMA_VERSION, SchemaVersion, permalink, slugify,
};

//! The figure registry: every field of a run, a sweep level, a comparison and a jitter
//! measurement stated once, with its key, label, unit, display precision, which way is
//! better and how to read it from the record. Checks, `diff`, `collect`, the downloads, the
//! pages and the table `benchsite.js` reads take them from here, by identifier; renaming a
//! key or a label is one edit here (and the struct's field, for a key).

mod field;

pub mod divergence;
pub mod level;
pub mod run;
pub mod table;

pub use field::{Better, Field, Precision, Role, Value, numbers};
pub use level::LevelField;

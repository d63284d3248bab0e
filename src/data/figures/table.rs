//! The registry as `benchsite.js` reads it: entries written into the page's data, so the
//! script names no figure of its own.

use serde::Serialize;

use super::field::{Better, Field, Precision};

/// One figure as the script sees it.
#[derive(Debug, Serialize)]
pub struct Entry {
    key: &'static str,
    label: &'static str,
    /// The label without its unit.
    name: &'static str,
    unit: &'static str,
    precision: Precision,
    /// `higher`, `lower`, or absent for what is not a measured figure.
    better: Option<&'static str>,
}

/// The script's entry of a field.
pub fn entry<R>(field: &Field<R>) -> Entry {
    Entry {
        key: field.key,
        label: field.label,
        name: field.name(),
        unit: field.unit,
        precision: field.precision,
        better: field.better().and_then(|better| match better {
            Better::Higher => Some("higher"),
            Better::Lower => Some("lower"),
            Better::Neither => None,
        }),
    }
}

/// The figures `[slo]` may bound, in the limits form's order.
pub fn limits() -> Vec<Entry> {
    super::level::LIMITS
        .iter()
        .map(|f| entry(&f.field))
        .collect()
}

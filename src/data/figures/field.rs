//! What a registry entry is: a field of a record, with its key, label, unit, display
//! precision, which way is better, and how to read it from the record.

/// Which way a figure is better.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Better {
    /// More is better (throughput).
    Higher,
    /// Less is better (latency).
    Lower,
    /// Neither (a size, a cold sample).
    Neither,
}

/// What a field is to a comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// The record's key: never compared.
    Key,
    /// A measured figure: compared as a number, with a better direction.
    Figure(Better),
    /// A setting or description: compared as written.
    Setting,
    /// Raw material of another figure (the decode samples): downloaded, not compared.
    Detail,
}

/// A field's value, raw.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// A measured number.
    Number(f64),
    /// A whole count.
    Count(u64),
    /// Text.
    Text(String),
    /// A switch.
    Bool(bool),
    /// A list of numbers.
    Numbers(Vec<f64>),
}

impl Value {
    /// The value as a number, when it is one.
    pub fn number(&self) -> Option<f64> {
        match self {
            Value::Number(value) => Some(*value),
            Value::Count(value) => Some(*value as f64),
            _ => None,
        }
    }

    /// The value as the document's JSON writes it: strings bare, lists space-separated.
    pub fn raw(&self) -> String {
        match self {
            Value::Number(value) => value.to_string(),
            Value::Count(value) => value.to_string(),
            Value::Text(text) => text.clone(),
            Value::Bool(on) => on.to_string(),
            Value::Numbers(values) => values
                .iter()
                .map(f64::to_string)
                .collect::<Vec<_>>()
                .join(" "),
        }
    }
}

/// How many digits a figure is worth showing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Precision {
    /// This many decimals (a rate in tok/s to 0.1).
    Decimals(u8),
    /// This many significant digits (a divergence that spans magnitudes).
    Significant(u8),
    /// Not a number, or a whole count.
    Exact,
}

impl Precision {
    /// The decimals `value` is shown with; `None` for as recorded.
    pub fn decimals_for(self, value: f64) -> Option<usize> {
        match self {
            Precision::Decimals(d) => Some(usize::from(d)),
            Precision::Significant(_) if value == 0.0 || !value.is_finite() => Some(0),
            Precision::Significant(n) => {
                let n = i32::from(n);
                let mut magnitude = value.abs().log10().floor() as i32;
                // 0.0099996 to three digits rounds up to 0.0100, a magnitude higher.
                if (value.abs() * 10f64.powi(n - 1 - magnitude)).round() >= 10f64.powi(n) {
                    magnitude += 1;
                }
                Some((n - 1 - magnitude).max(0) as usize)
            }
            Precision::Exact => None,
        }
    }
}

/// One field of a record of type `R`.
pub struct Field<R> {
    /// The JSON key.
    pub key: &'static str,
    /// The column header for readers, with its unit where it has one.
    pub label: &'static str,
    /// The unit written after the value (`tok/s`), or empty.
    pub unit: &'static str,
    /// How many digits of it are worth showing.
    pub precision: Precision,
    /// What it is to a comparison.
    pub role: Role,
    /// Its value in a record; `None` when absent.
    pub get: fn(&R) -> Option<Value>,
}

impl<R> Field<R> {
    /// The label without its unit (`TTFT p50` of `TTFT p50 (s)`).
    pub fn name(&self) -> &'static str {
        self.label
            .strip_suffix(')')
            .and_then(|rest| rest.strip_suffix(self.unit))
            .and_then(|rest| rest.strip_suffix(" ("))
            .filter(|_| !self.unit.is_empty())
            .unwrap_or(self.label)
    }

    /// Its number in a record, when it has one.
    pub fn number_in(&self, record: &R) -> Option<f64> {
        (self.get)(record).and_then(|value| value.number())
    }

    /// A value of it as a reader sees it: a number to its precision (the recorded value in
    /// full is the download's and the tooltip's), a count grouped, text as written.
    pub fn shown(&self, value: &Value) -> String {
        match value {
            Value::Number(x) => match self.precision.decimals_for(*x) {
                Some(decimals) => crate::format::fixed(*x, decimals),
                None => crate::format::figure(*x),
            },
            Value::Count(n) => crate::format::count(*n),
            Value::Bool(on) => crate::format::switch(*on).to_owned(),
            other => other.raw(),
        }
    }

    /// Which way the figure is better; `None` for what is not a measured figure.
    pub fn better(&self) -> Option<Better> {
        match self.role {
            Role::Figure(better) => Some(better),
            _ => None,
        }
    }
}

/// A field, stated compactly: key, label, unit, precision, role and getter.
pub const fn field<R>(
    key: &'static str,
    label: &'static str,
    unit: &'static str,
    precision: Precision,
    role: Role,
    get: fn(&R) -> Option<Value>,
) -> Field<R> {
    Field {
        key,
        label,
        unit,
        precision,
        role,
        get,
    }
}

/// A number that is always there.
pub fn number(value: f64) -> Option<Value> {
    Some(Value::Number(value))
}

/// A count that is always there.
pub fn whole(value: u64) -> Option<Value> {
    Some(Value::Count(value))
}

/// Text that is always there.
pub fn text(value: &str) -> Option<Value> {
    Some(Value::Text(value.to_owned()))
}

/// The numbers of `fields` that `record` has, each with its key.
pub fn numbers<R>(fields: &[&Field<R>], record: &R) -> Vec<(&'static str, f64)> {
    fields
        .iter()
        .filter_map(|field| Some((field.key, field.number_in(record)?)))
        .collect()
}

/// What the registries' tests share: the seed document, its records as JSON, and the keys
/// the schema gives a record type.
#[cfg(test)]
pub mod testing {
    use super::{Field, Value};

    /// The shipped results document as JSON.
    pub fn seed() -> serde_json::Value {
        serde_json::from_str(include_str!("../../../data/results.json")).unwrap()
    }

    /// The properties the schema gives `def`, sorted.
    pub fn schema_keys(def: &str) -> Vec<String> {
        let mut keys: Vec<String> = crate::data::schema()["$defs"][def]["properties"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect();
        keys.sort();
        keys
    }

    /// Asserts that each field reads, from `record`, what its JSON has under the field's key:
    /// serde's serialization is the oracle for the getters.
    pub fn reads_its_key<R>(fields: &[&Field<R>], record: &R, json: &serde_json::Value) {
        for field in fields {
            let expected = &json[field.key];
            let got = (field.get)(record);
            let matches = match (&got, expected) {
                (None, serde_json::Value::Null) => true,
                (Some(Value::Number(v)), e) => e.as_f64() == Some(*v),
                (Some(Value::Count(v)), e) => e.as_u64() == Some(*v),
                (Some(Value::Bool(v)), e) => e.as_bool() == Some(*v),
                (Some(Value::Text(v)), e) => e.as_str() == Some(v.as_str()),
                (Some(Value::Numbers(v)), e) => {
                    e.as_array()
                        .map(|a| a.iter().filter_map(|x| x.as_f64()).collect())
                        == Some(v.clone())
                }
                _ => false,
            };
            assert!(
                matches,
                "{}: read {got:?}, the JSON has {expected}",
                field.key
            );
        }
    }
}

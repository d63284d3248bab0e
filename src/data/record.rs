//! The record kinds of a results document, each keyed by its id or label, and putting one in.

use super::error::DataError;
use super::model::{Failure, Hardware, Method, Results, Run, Software, Sweep};
use super::quality::{Divergence, Jitter};
use super::types::{Date, Id, Provenance, SchemaVersion};

/// A record kind of the document, keyed by its id or label.
pub trait Record: Sized {
    /// The array the records live in.
    const ARRAY: &'static str;
    /// The id or label that identifies the record.
    fn key(&self) -> &str;
    /// The array of such records in `doc`, to change.
    fn list(doc: &mut Results) -> &mut Vec<Self>;
    /// The array of such records in `doc`.
    fn records(doc: &Results) -> &[Self];
    /// Where and by what the record was measured, to fill in.
    fn provenance(&mut self) -> &mut Option<Provenance>;
}

macro_rules! record {
    ($type:ty, $array:ident, $key:ident) => {
        impl Record for $type {
            const ARRAY: &'static str = stringify!($array);
            fn key(&self) -> &str {
                self.$key.as_ref()
            }
            fn list(doc: &mut Results) -> &mut Vec<Self> {
                &mut doc.$array
            }
            fn records(doc: &Results) -> &[Self] {
                &doc.$array
            }
            fn provenance(&mut self) -> &mut Option<Provenance> {
                &mut self.provenance
            }
        }
    };
}

record!(Run, runs, id);
record!(Failure, failures, id);
record!(Sweep, sweeps, label);
record!(Jitter, jitter, label);
record!(Divergence, divergence, label);

impl AsRef<str> for Id {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl Results {
    /// A document with no records and nothing known of the machine, dated `generated`.
    pub fn empty(generated: Date) -> Self {
        Self {
            schema_version: SchemaVersion,
            generated,
            hardware: Hardware::default(),
            software: Software::default(),
            method: Method::default(),
            runs: Vec::new(),
            failures: Vec::new(),
            sweeps: Vec::new(),
            jitter: Vec::new(),
            divergence: Vec::new(),
        }
    }

    /// Adds `record`, or replaces the one with the same key when `replace` is true.
    pub fn put<R: Record>(&mut self, record: R, replace: bool) -> Result<(), DataError> {
        self.displace(R::ARRAY, record.key(), replace)?;
        let list = R::list(self);
        match list
            .iter()
            .position(|existing| existing.key() == record.key())
        {
            Some(_) if !replace => Err(DataError::Exists {
                array: R::ARRAY,
                key: record.key().to_owned(),
            }),
            Some(index) => {
                list[index] = record;
                Ok(())
            }
            None => {
                list.push(record);
                Ok(())
            }
        }
    }

    /// A run and a failure share their ids, a configuration either served or did not: the
    /// other array's record of `key`, removed when `replace`, else the error naming it.
    fn displace(&mut self, array: &str, key: &str, replace: bool) -> Result<(), DataError> {
        let (rival, found) = match array {
            "runs" => (
                "failures",
                self.failures.iter().position(|f| f.id.as_str() == key),
            ),
            "failures" => ("runs", self.runs.iter().position(|r| r.id.as_str() == key)),
            _ => return Ok(()),
        };
        match found {
            None => Ok(()),
            Some(_) if !replace => Err(DataError::Exists {
                array: rival,
                key: key.to_owned(),
            }),
            Some(index) => {
                match rival {
                    "failures" => drop(self.failures.remove(index)),
                    _ => drop(self.runs.remove(index)),
                }
                Ok(())
            }
        }
    }
}

//! The document's plain values, which every other part of the model uses: ids and dates
//! checked as they are read, the schema version, the nullable numbers of the schema,
//! dimensions, provenance, and the permalink of a labelled record.

use std::fmt;

use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize};

/// The pattern every record id and capture id follows: lowercase letters and digits in
/// words joined by single hyphens. Such an id is its own permalink slug.
pub const ID_PATTERN: &str = "^[a-z0-9]+(-[a-z0-9]+)*$";

/// The schema version this program reads and writes.
pub const SCHEMA_VERSION: u32 = 2;

/// Implements `as_str`, `Display`, `Deserialize` (through the type's `new`, so the types
/// reject what the schema rejects) and `JsonSchema` for a validated string newtype.
macro_rules! validated_string {
    ($name:ident, $schema:tt) => {
        impl $name {
            /// The value as text.
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let text = String::deserialize(deserializer)?;
                $name::new(&text).map_err(serde::de::Error::custom)
            }
        }

        impl JsonSchema for $name {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                stringify!($name).into()
            }

            fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
                schemars::json_schema!($schema)
            }
        }
    };
}

/// A record id: a slug that is also the record's permalink.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct Id(String);

impl Id {
    /// Checks `text` against [`ID_PATTERN`].
    pub fn new(text: &str) -> Result<Self, String> {
        let valid = !text.is_empty()
            && text.split('-').all(|word| {
                !word.is_empty()
                    && word
                        .bytes()
                        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
            });
        if valid {
            Ok(Self(text.to_owned()))
        } else {
            Err(format!(
                "invalid id {text:?}: expected lowercase letters and digits in words joined by single hyphens"
            ))
        }
    }
}

validated_string!(Id, {
    "type": "string",
    "pattern": ID_PATTERN,
    "description": "A slug: lowercase letters and digits in words joined by single hyphens."
});

/// A calendar date written `YYYY-MM-DD`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct Date(String);

impl Date {
    /// Checks that `text` is a real calendar date in `YYYY-MM-DD` form.
    pub fn new(text: &str) -> Result<Self, String> {
        let invalid = || format!("invalid date {text:?}: expected a calendar date as YYYY-MM-DD");
        let bytes = text.as_bytes();
        if bytes.len() != 10 || bytes[4] != b'-' || bytes[7] != b'-' {
            return Err(invalid());
        }
        let number = |range: std::ops::Range<usize>| -> Option<u32> {
            let part = &text[range];
            part.bytes()
                .all(|b| b.is_ascii_digit())
                .then(|| part.parse().ok())
                .flatten()
        };
        let (Some(year), Some(month), Some(day)) = (number(0..4), number(5..7), number(8..10))
        else {
            return Err(invalid());
        };
        let real = u8::try_from(month)
            .ok()
            .and_then(|month| time::Month::try_from(month).ok())
            .zip(u8::try_from(day).ok())
            .is_some_and(|(month, day)| {
                time::Date::from_calendar_date(year as i32, month, day).is_ok()
            });
        if !real {
            return Err(invalid());
        }
        Ok(Self(text.to_owned()))
    }

    /// Today's date in UTC.
    pub fn today() -> Self {
        Self::of(time::OffsetDateTime::now_utc().date())
    }

    /// The date (UTC) of a time given in seconds since 1970, when it is one.
    pub fn of_unix_seconds(seconds: f64) -> Option<Self> {
        if !seconds.is_finite() {
            return None;
        }
        let whole = seconds.floor() as i64;
        time::OffsetDateTime::from_unix_timestamp(whole)
            .ok()
            .map(|time| Self::of(time.date()))
    }

    fn of(date: time::Date) -> Self {
        Self(format!(
            "{:04}-{:02}-{:02}",
            date.year(),
            u8::from(date.month()),
            date.day()
        ))
    }
}

validated_string!(Date, {
    "type": "string",
    "format": "date",
    "description": "A calendar date, YYYY-MM-DD."
});

/// The document's `schema_version`; only [`SCHEMA_VERSION`] is accepted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SchemaVersion;

impl Serialize for SchemaVersion {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_u32(SCHEMA_VERSION)
    }
}

impl<'de> Deserialize<'de> for SchemaVersion {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let version = u64::deserialize(deserializer)?;
        if version == u64::from(SCHEMA_VERSION) {
            Ok(SchemaVersion)
        } else {
            Err(serde::de::Error::custom(format!(
                "unsupported schema_version {version}: this benchsite reads version {SCHEMA_VERSION}"
            )))
        }
    }
}

impl JsonSchema for SchemaVersion {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "SchemaVersion".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "const": SCHEMA_VERSION })
    }
}

/// Schema of a number that must be present but may be null.
pub(super) struct NullableNumber;

impl JsonSchema for NullableNumber {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "NullableNumber".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "type": ["number", "null"] })
    }
}

/// Schema of a count that must be present but may be null.
pub(super) struct NullableCount;

impl JsonSchema for NullableCount {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "NullableCount".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "type": ["integer", "null"], "minimum": 0 })
    }
}

/// What distinguishes one sweep or comparison from its neighbours: a free string map.
pub type Dimensions = IndexMap<String, String>;

/// Where and by what a record was measured: the benchsite version, the report repository's
/// commit, the campaign, and the job ids of the engine that ran it.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Provenance {
    /// The benchsite version that measured it.
    #[schemars(length(min = 1))]
    pub benchsite: String,
    /// The report repository's commit (`git rev-parse HEAD`) when it was measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    /// The campaign that measured it (`campaigns/<name>.toml`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub campaign: Option<String>,
    /// The engine's job identifiers, by environment variable (`GITHUB_RUN_ID`,
    /// `RUNNER_NAME`, `SLURM_JOB_ID`, ...).
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub engine: IndexMap<String, String>,
}

/// The permalink slug of a labelled record: its `id` when given, else the slug of its label.
pub fn permalink(id: Option<&Id>, label: &str) -> String {
    match id {
        Some(id) => id.to_string(),
        None => slugify(label),
    }
}

/// The permalink slug of a label: lowercase ASCII words joined by hyphens. Published links
/// depend on it, so its output for existing labels must never change.
pub fn slugify(label: &str) -> String {
    slug::slugify(label)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_slugs() {
        assert!(Id::new("qwen36-moe-default").is_ok());
        assert!(Id::new("a1").is_ok());
        for bad in ["", "Qwen", "a--b", "-a", "a-", "a_b", "a.b", "a b"] {
            assert!(Id::new(bad).is_err(), "{bad:?} accepted");
        }
    }

    #[test]
    fn dates_are_calendar_dates() {
        assert!(Date::new("2026-09-07").is_ok());
        assert!(Date::new("2024-02-29").is_ok());
        for bad in [
            "2026-9-7",
            "2026-02-30",
            "2025-02-29",
            "2026-13-01",
            "2026-00-10",
            "20260907",
            "2026-09-07T00:00",
        ] {
            assert!(Date::new(bad).is_err(), "{bad:?} accepted");
        }
    }

    #[test]
    fn dates_of_unix_times() {
        // Worked out by hand: 20,703 days after 1970-01-01 is 2026-09-07; 2000 was a leap
        // year; one second before 1970 is 1969-12-31.
        let shown = |s: f64| Date::of_unix_seconds(s).map(|d| d.to_string());
        assert_eq!(shown(0.0).as_deref(), Some("1970-01-01"));
        assert_eq!(
            shown(20_703.0 * 86_400.0 + 0.5).as_deref(),
            Some("2026-09-07")
        );
        assert_eq!(shown(951_782_400.0).as_deref(), Some("2000-02-29"));
        assert_eq!(shown(-0.5).as_deref(), Some("1969-12-31"));
        assert_eq!(shown(f64::NAN), None);
        assert!(Date::new(&Date::today().to_string()).is_ok());
    }

    #[test]
    fn permalinks_prefer_the_id() {
        assert_eq!(permalink(None, "Qwen 3.6, c=8"), "qwen-3-6-c-8");
        let id = Id::new("mine").unwrap();
        assert_eq!(permalink(Some(&id), "Qwen 3.6"), "mine");
    }
}

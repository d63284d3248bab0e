//! The results JSON Schema (draft 2020-12), derived from the types in `model.rs`, and
//! validation against it with every violation turned into a [`Problem`].

use std::sync::OnceLock;

use jsonschema::error::{TypeKind, ValidationErrorKind};
use jsonschema::{ValidationError, Validator};
use serde_json::Value;

use super::model::Results;
use super::problem::{Problem, describe_value, pointer_segment};
use super::types::ID_PATTERN;

/// The results document's JSON Schema.
pub fn schema() -> &'static Value {
    static SCHEMA: OnceLock<Value> = OnceLock::new();
    SCHEMA.get_or_init(|| {
        let generator = schemars::generate::SchemaSettings::draft2020_12().into_generator();
        let schema = generator.into_root_schema_for::<Results>();
        serde_json::to_value(schema).expect("a schema is JSON")
    })
}

fn validator() -> &'static Validator {
    static VALIDATOR: OnceLock<Validator> = OnceLock::new();
    VALIDATOR.get_or_init(|| {
        jsonschema::options()
            .with_draft(jsonschema::Draft::Draft202012)
            .should_validate_formats(true)
            .build(schema())
            .expect("the derived schema compiles")
    })
}

/// Whether `text`, a results document of this schema version, conforms to the schema, judged
/// a record at a time: each record is read into a `Value`, validated against its kind's
/// definition and dropped, so the whole document is never a `Value` tree (at 120,000 records
/// that tree was most of `check`'s time and memory). `false` means "not shown to conform":
/// a document that does not read, needs upgrading or breaks a rule is then validated whole by
/// [`violations`], which says where and why.
pub fn conforms(text: &str) -> bool {
    use rayon::prelude::*;
    use serde_json::value::RawValue;
    let Ok(top) = serde_json::from_str::<std::collections::BTreeMap<String, &RawValue>>(text)
    else {
        return false;
    };
    let arrays = record_arrays();
    let mut skeleton = serde_json::Map::new();
    let mut records: Vec<(&Validator, &RawValue)> = Vec::new();
    for (key, raw) in top {
        let value = match arrays.iter().find(|(array, _)| *array == key) {
            Some((_, validator)) => match serde_json::from_str::<Vec<&RawValue>>(raw.get()) {
                Ok(items) => {
                    records.extend(items.into_iter().map(|item| (validator, item)));
                    Value::Array(Vec::new())
                }
                Err(_) => return false,
            },
            None => match serde_json::from_str(raw.get()) {
                Ok(value) => value,
                Err(_) => return false,
            },
        };
        skeleton.insert(key, value);
    }
    // A version-1 document is upgraded first, which needs the whole tree.
    if skeleton.get("schema_version").and_then(Value::as_u64) == Some(1) {
        return false;
    }
    validator().is_valid(&Value::Object(skeleton))
        && records.par_iter().all(|(validator, raw)| {
            serde_json::from_str::<Value>(raw.get()).is_ok_and(|value| validator.is_valid(&value))
        })
}

/// The document's arrays of records, each with a validator of its items: the properties whose
/// schema is only "an array of `$defs/<kind>`", so that the document with those arrays empty
/// and every item valid on its own is exactly the document valid whole.
fn record_arrays() -> &'static [(String, Validator)] {
    static ARRAYS: OnceLock<Vec<(String, Validator)>> = OnceLock::new();
    ARRAYS.get_or_init(|| {
        let root = schema();
        let properties = root["properties"].as_object().expect("an object schema");
        properties
            .iter()
            .filter(|(_, property)| {
                let object = property.as_object().expect("a property schema");
                property["type"] == "array"
                    && property["items"]["$ref"].is_string()
                    && property["items"]
                        .as_object()
                        .is_some_and(|items| items.len() == 1)
                    && object
                        .keys()
                        .all(|k| matches!(k.as_str(), "type" | "items" | "default" | "description"))
            })
            .map(|(name, property)| {
                let item = serde_json::json!({
                    "$schema": root["$schema"],
                    "$defs": root["$defs"],
                    "$ref": property["items"]["$ref"],
                });
                let validator = jsonschema::options()
                    .with_draft(jsonschema::Draft::Draft202012)
                    .should_validate_formats(true)
                    .build(&item)
                    .expect("the derived schema compiles");
                (name.clone(), validator)
            })
            .collect()
    })
}

/// Every way `document` violates the schema; empty when it conforms.
pub fn violations(document: &Value) -> Vec<Problem> {
    let validator = validator();
    if validator.is_valid(document) {
        return Vec::new();
    }
    let mut problems = Vec::new();
    for error in validator.iter_errors(document) {
        push_problems(&error, &mut problems);
    }
    problems
}

fn push_problems(error: &ValidationError<'_>, problems: &mut Vec<Problem>) {
    let pointer = error.instance_path().as_str().to_owned();
    let found = describe_value(error.instance());
    let problem = match error.kind() {
        ValidationErrorKind::AdditionalProperties { unexpected } => {
            let known = known_keys(error.schema_path().as_str());
            for key in unexpected {
                let mut expected = String::from("a known key");
                if let Some(close) = closest(key, &known) {
                    expected = format!("{expected} (did you mean {close:?}?)");
                }
                if !known.is_empty() {
                    expected = format!("{expected}: {}", known.join(", "));
                }
                problems.push(Problem::new(
                    format!("{pointer}/{}", pointer_segment(key)),
                    expected,
                    format!("unknown key {key:?}"),
                ));
            }
            return;
        }
        ValidationErrorKind::Required { property } => {
            let name = property.as_str().unwrap_or_default();
            Problem::new(
                format!("{pointer}/{}", pointer_segment(name)),
                format!("the required key {name:?}"),
                "no such key",
            )
        }
        ValidationErrorKind::AnyOf { context } => {
            // An optional field is `anyOf [T, null]`: report why the value is not a T.
            let branches: Vec<_> = context
                .iter()
                .filter(|branch| !branch.iter().all(is_null_type_error))
                .collect();
            if let [branch] = branches.as_slice() {
                for error in branch.iter() {
                    push_problems(error, problems);
                }
                return;
            }
            Problem::new(pointer, "a value of one of the allowed shapes", found)
        }
        ValidationErrorKind::OneOfNotValid { .. } => {
            // A documented enum is `oneOf` one `const` per variant: list the allowed values.
            match consts_at(error.schema_path().as_str()) {
                Some(allowed) => {
                    Problem::new(pointer, format!("one of {}", allowed.join(", ")), found)
                }
                None => Problem::new(pointer, "a value of one of the allowed shapes", found),
            }
        }
        ValidationErrorKind::Type { kind } => Problem::new(pointer, type_names(kind), found),
        ValidationErrorKind::Enum { options } => {
            let options = match options.as_ref() {
                Value::Array(items) => items.iter().map(Value::to_string).collect::<Vec<_>>(),
                other => vec![other.to_string()],
            };
            Problem::new(pointer, format!("one of {}", options.join(", ")), found)
        }
        ValidationErrorKind::Constant { expected_value } => {
            Problem::new(pointer, format!("{expected_value}"), found)
        }
        ValidationErrorKind::Minimum { limit } => {
            Problem::new(pointer, format!("a number ≥ {limit}"), found)
        }
        ValidationErrorKind::Maximum { limit } => {
            Problem::new(pointer, format!("a number ≤ {limit}"), found)
        }
        ValidationErrorKind::MinLength { limit } => Problem::new(
            pointer,
            format!("text of at least {limit} character{}", plural(*limit)),
            found,
        ),
        ValidationErrorKind::MinItems { limit } => Problem::new(
            pointer,
            format!("at least {limit} item{}", plural(*limit)),
            found,
        ),
        ValidationErrorKind::MaxItems { limit } => Problem::new(
            pointer,
            format!("at most {limit} item{}", plural(*limit)),
            found,
        ),
        ValidationErrorKind::Pattern { pattern } if pattern == ID_PATTERN => Problem::new(
            pointer,
            "a slug: lowercase letters and digits in words joined by single hyphens",
            found,
        ),
        ValidationErrorKind::Pattern { pattern } => {
            Problem::new(pointer, format!("text matching {pattern}"), found)
        }
        ValidationErrorKind::Format { format } if format == "date" => {
            Problem::new(pointer, "a calendar date written YYYY-MM-DD", found)
        }
        _ => Problem::new(pointer, format!("a valid value ({error})"), found),
    };
    problems.push(problem);
}

fn is_null_type_error(error: &ValidationError<'_>) -> bool {
    matches!(
        error.kind(),
        ValidationErrorKind::Type { kind: TypeKind::Single(t) } if t.as_str() == "null"
    )
}

fn type_names(kind: &TypeKind) -> String {
    let article = |name: &str| match name {
        "array" | "integer" | "object" => format!("an {name}"),
        _ => format!("a {name}"),
    };
    match kind {
        TypeKind::Single(t) => article(t.as_str()),
        TypeKind::Multiple(set) => set
            .iter()
            .map(|t| article(t.as_str()))
            .collect::<Vec<_>>()
            .join(" or "),
    }
}

fn plural(count: u64) -> &'static str {
    if count == 1 { "" } else { "s" }
}

/// The `const` values of the `oneOf` at `schema_path`, when every branch is one.
fn consts_at(schema_path: &str) -> Option<Vec<String>> {
    let branches = schema().pointer(schema_path)?.as_array()?;
    branches
        .iter()
        .map(|branch| branch.get("const").map(Value::to_string))
        .collect()
}

/// The property names the schema allows where `additionalProperties` failed.
fn known_keys(schema_path: &str) -> Vec<String> {
    let parent = schema_path
        .strip_suffix("/additionalProperties")
        .unwrap_or(schema_path);
    schema()
        .pointer(&format!("{parent}/properties"))
        .and_then(Value::as_object)
        .map(|properties| properties.keys().cloned().collect())
        .unwrap_or_default()
}

/// The known key most like `key`, when one is close enough to be a typo.
fn closest<'k>(key: &str, known: &'k [String]) -> Option<&'k str> {
    known
        .iter()
        .map(|candidate| (strsim::damerau_levenshtein(key, candidate), candidate))
        .filter(|(distance, candidate)| *distance <= 2.max(candidate.len() / 4))
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, candidate)| candidate.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schema_is_draft_2020_12_and_closed() {
        let schema = schema();
        assert_eq!(
            schema["$schema"],
            "https://json-schema.org/draft/2020-12/schema"
        );
        assert_eq!(schema["additionalProperties"], false);
        assert_eq!(schema["$defs"]["Run"]["additionalProperties"], false);
        // Only `dimensions` and `software` are open maps of strings.
        assert_eq!(
            schema["$defs"]["Software"]["additionalProperties"]["type"],
            "string"
        );
    }

    /// The whole-document validator's verdict, the oracle for the record-at-a-time one.
    fn conforms_whole(text: &str) -> bool {
        serde_json::from_str::<Value>(text).is_ok_and(|value| violations(&value).is_empty())
    }

    #[test]
    fn every_record_array_is_validated_a_record_at_a_time() {
        let names: Vec<&str> = record_arrays().iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            ["divergence", "failures", "jitter", "runs", "sweeps"],
            "a record array whose schema has more than its items would be validated whole"
        );
    }

    #[test]
    fn a_record_at_a_time_agrees_with_the_whole_document() {
        let seed = include_str!("../../data/results.json");
        assert!(conforms(seed));
        let mut doc: Value = serde_json::from_str(seed).unwrap();
        // Each change breaks the schema in one place: inside a record of each kind, in a
        // record array itself, and outside the records.
        type Break = (&'static str, fn(&mut Value));
        let breaks: [Break; 9] = [
            ("an unknown key in a run", |d| {
                d["runs"][3]["decode_toks"] = 1.into();
            }),
            ("a string for a number deep in a sweep", |d| {
                d["sweeps"][1]["levels"][0]["ttft_p50_s"] = "fast".into();
            }),
            ("a failure without its id", |d| {
                d["failures"][0].as_object_mut().unwrap().remove("id");
            }),
            ("a bad id pattern in a comparison", |d| {
                d["divergence"][0]["id"] = "Not An Id!".into();
            }),
            ("a number in place of a jitter record", |d| {
                d["jitter"] = serde_json::json!([7]);
            }),
            ("an object in place of the runs", |d| {
                d["runs"] = serde_json::json!({});
            }),
            ("an unknown top-level key", |d| {
                d["extra"] = 1.into();
            }),
            ("no hardware", |d| {
                d.as_object_mut().unwrap().remove("hardware");
            }),
            ("a bad date", |d| {
                d["generated"] = "yesterday".into();
            }),
        ];
        for (what, break_it) in breaks {
            let mut broken = doc.clone();
            break_it(&mut broken);
            let text = serde_json::to_string(&broken).unwrap();
            assert!(!conforms_whole(&text), "the oracle accepts {what}");
            assert!(!conforms(&text), "{what} passed a record at a time");
        }
        // Version 1 is upgraded first: not judged a record at a time; nor is what does not read.
        doc["schema_version"] = 1.into();
        assert!(!conforms(&serde_json::to_string(&doc).unwrap()));
        assert!(!conforms("{\"runs\": [}"));
        assert!(!conforms("[]"));
    }

    #[test]
    fn typos_get_a_suggestion() {
        let known = vec!["decode_tok_s".to_string(), "decode_samples".to_string()];
        assert_eq!(closest("decode_toks", &known), Some("decode_tok_s"));
        assert_eq!(closest("colour", &known), None);
    }
}

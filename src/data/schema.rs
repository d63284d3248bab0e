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

    #[test]
    fn typos_get_a_suggestion() {
        let known = vec!["decode_tok_s".to_string(), "decode_samples".to_string()];
        assert_eq!(closest("decode_toks", &known), Some("decode_tok_s"));
        assert_eq!(closest("colour", &known), None);
    }
}

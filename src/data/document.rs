//! A results document read, parsed, validated and checked, every problem reported at once
//! with its record and its place in the file; and written as the JSON this program writes.

use std::path::Path;

use serde::Deserialize;
use serde_json::Value;

use super::checks;
use super::error::DataError;
use super::locate;
use super::model::Results;
use super::problem::{self, Problem, Report};
use super::schema;
use super::upgrade;

/// Checks of a document beyond its own, which need the rest of the project (the profiles).
pub type Checks<'c> = &'c dyn Fn(&Results) -> Vec<Problem>;

/// No checks beyond the document's own.
pub fn no_more_checks(_: &Results) -> Vec<Problem> {
    Vec::new()
}

/// Reads, validates and checks the document at `path`.
pub fn load(path: &Path) -> Result<Results, DataError> {
    load_with(path, |_| Vec::new())
}

/// [`load`], with `more_checks` run beside the document's own checks (for the checks that
/// need the rest of the project, such as profiles) and reported with them.
pub fn load_with(
    path: &Path,
    more_checks: impl FnOnce(&Results) -> Vec<Problem>,
) -> Result<Results, DataError> {
    let bytes = std::fs::read(path).map_err(|source| DataError::Read {
        path: path.to_owned(),
        source,
    })?;
    parse_with(path, &bytes, more_checks)
}

/// Parses, validates and checks a document read from `path`; `path` only names it in errors.
pub fn parse(path: &Path, bytes: &[u8]) -> Result<Results, DataError> {
    parse_with(path, bytes, |_| Vec::new())
}

/// [`parse`], with `more_checks` as [`load_with`] runs them.
pub fn parse_with(
    path: &Path,
    bytes: &[u8],
    more_checks: impl FnOnce(&Results) -> Vec<Problem>,
) -> Result<Results, DataError> {
    parse_upgrading(path, bytes, more_checks).map(|(doc, _)| doc)
}

/// `doc` without the spare room its sweeps' level arrays grew into while it was read (an
/// array doubles as it grows): a fleet's tens of thousands of sweeps would otherwise hold
/// tens of MB of empty level slots for as long as the document is loaded. Each is copied
/// into an array of its length, since an allocator may shrink a block in place and keep it.
fn compact(mut doc: Results) -> Results {
    for sweep in &mut doc.sweeps {
        if sweep.levels.capacity() > sweep.levels.len() {
            let mut levels = Vec::with_capacity(sweep.levels.len());
            levels.append(&mut sweep.levels);
            sweep.levels = levels;
        }
    }
    doc
}

/// [`parse_with`], and whether the document was of an earlier schema version, read as this
/// one: its bytes are then not what this version's writer would store.
pub fn parse_upgrading(
    path: &Path,
    bytes: &[u8],
    more_checks: impl FnOnce(&Results) -> Vec<Problem>,
) -> Result<(Results, bool), DataError> {
    let invalid = |problems: Vec<Problem>| {
        DataError::Invalid(Report {
            file: path.to_owned(),
            problems,
        })
    };
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let text = std::str::from_utf8(bytes).map_err(|error| {
        let valid = &bytes[..error.valid_up_to()];
        let text = std::str::from_utf8(valid).unwrap_or_default();
        let position = locate::SourceMap::new(text).line_column(text.len());
        let byte = bytes[error.valid_up_to()];
        invalid(vec![Problem::at(
            position,
            "UTF-8 text",
            format!("the byte 0x{byte:02X}, which is not UTF-8"),
        )])
    })?;
    if text.trim().is_empty() {
        return Err(invalid(vec![Problem::at(
            (1, 1),
            "a JSON object (the results document)",
            "an empty file",
        )]));
    }
    // The typed parse runs beside the schema's, on the other core; its result counts only
    // once the schema passed, and only for a document of this version. A document shown to
    // conform a record at a time is never read whole as a `Value`; any other is, to be
    // upgraded or to say where and why it breaks the schema.
    let (value, typed) = rayon::join(
        || {
            if schema::conforms(text) {
                return Ok(None);
            }
            let mut value: Value = serde_json::from_str(text)?;
            let upgraded = upgrade::upgrade(&mut value);
            let problems = schema::violations(&value);
            Ok::<_, serde_json::Error>(Some((value, upgraded, problems)))
        },
        || serde_json::from_str::<Results>(text),
    );
    let (value, upgraded, mut problems) = match value {
        Ok(Some((value, upgraded, problems))) => (Some(value), upgraded, problems),
        Ok(None) => (None, false, Vec::new()),
        Err(error) => return Err(invalid(vec![syntax_problem(text, &error)])),
    };
    if let (false, Some(value)) = (problems.is_empty(), &value) {
        annotate(&mut problems, value, Some(text));
        return Err(invalid(problems));
    }
    // The schema passed, so the types accept it too; parsing the text (not the value) also
    // catches what a Value hides, such as a key written twice. An upgraded document is read
    // from its upgraded value.
    let doc: Results = if let (true, Some(value)) = (upgraded, &value) {
        Results::deserialize(value).map_err(|error| {
            invalid(vec![Problem::at(
                (1, 1),
                "a well-formed results document",
                error.to_string(),
            )])
        })?
    } else {
        typed.map_err(|error| {
            invalid(vec![Problem::at(
                (error.line(), error.column()),
                "a well-formed results document",
                strip_position(&error.to_string()),
            )])
        })?
    };
    let doc = compact(doc);
    let mut problems = checks::problems(&doc);
    problems.extend(more_checks(&doc));
    if !problems.is_empty() {
        // Only now is a conforming document read whole, to name each problem's record.
        let value = value.unwrap_or_else(|| serde_json::from_str(text).unwrap_or(Value::Null));
        annotate(&mut problems, &value, Some(text));
        return Err(invalid(problems));
    }
    Ok((doc, upgraded))
}

/// A document of an earlier schema version, upgraded and read, without validating it;
/// `None` when it is not one or does not read.
pub fn upgraded(bytes: &[u8]) -> Option<Results> {
    let mut value: Value = serde_json::from_slice(bytes).ok()?;
    if !upgrade::upgrade(&mut value) {
        return None;
    }
    Results::deserialize(&value).ok()
}

/// Every problem of a document built in memory: schema and checks.
pub fn validate(doc: &Results) -> Result<(), Vec<Problem>> {
    validate_with(doc, &no_more_checks)
}

/// [`validate`], with `more_checks` run beside the document's own checks, as
/// [`load_with`] runs them.
pub fn validate_with(doc: &Results, more_checks: Checks<'_>) -> Result<(), Vec<Problem>> {
    let value = serde_json::to_value(doc).expect("results serialise");
    let mut problems = schema::violations(&value);
    if problems.is_empty() {
        problems = checks::problems(doc);
        problems.extend(more_checks(doc));
    }
    if problems.is_empty() {
        Ok(())
    } else {
        annotate(&mut problems, &value, None);
        Err(problems)
    }
}

/// The document as the JSON this program writes: two-space indentation, a final newline.
pub fn to_json(doc: &Results) -> String {
    let mut text = serde_json::to_string_pretty(doc).expect("results serialise");
    text.push('\n');
    text
}

/// Fills in each problem's record and position, and puts them in the order they stand in
/// the file.
fn annotate(problems: &mut [Problem], value: &Value, text: Option<&str>) {
    let map = text.map(locate::SourceMap::new);
    for problem in problems.iter_mut() {
        problem.entry = entry_of(value, &problem.pointer);
        if problem.position.is_none() {
            problem.position = map.as_ref().and_then(|map| map.locate(&problem.pointer));
        }
    }
    problems.sort_by_key(|problem| problem.position);
}

/// `runs → qwen36-moe-mtp` for a pointer inside a record.
fn entry_of(value: &Value, pointer: &str) -> Option<String> {
    let mut segments = problem::pointer_segments(pointer);
    let array = segments.next()?;
    let index: usize = segments.next()?.parse().ok()?;
    let record = value.get(&array)?.get(index)?;
    let key = record
        .get("id")
        .or_else(|| record.get("label"))
        .and_then(Value::as_str);
    Some(match key {
        Some(key) => format!("{array} → {key}"),
        None => format!("{array} #{index}"),
    })
}

fn syntax_problem(text: &str, error: &serde_json::Error) -> Problem {
    let position = (error.line(), error.column());
    let message = strip_position(&error.to_string());
    // serde_json points at the offending character; show the token there.
    let offset = text
        .split_inclusive('\n')
        .take(error.line().saturating_sub(1))
        .map(str::len)
        .sum::<usize>()
        + error.column().saturating_sub(1);
    let rest = text.get(offset.min(text.len())..).unwrap_or_default();
    let token: String = rest
        .chars()
        .take_while(|c| !c.is_whitespace() && !",]}".contains(*c))
        .take(20)
        .collect();
    if ["NaN", "Infinity", "-Infinity", "+Infinity"].contains(&token.as_str()) {
        return Problem::at(
            position,
            "a number or null (JSON has no NaN or Infinity)",
            token,
        );
    }
    if error.is_eof() {
        return Problem::at(
            position,
            "the rest of the document (it ends too early)",
            "the end of the file",
        );
    }
    let found = if token.is_empty() {
        message
    } else {
        format!("{token:?} ({message})")
    };
    Problem::at(position, "valid JSON", found)
}

pub(super) fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(at) => message[..at].to_owned(),
        None => message.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::model::Sweep;
    use crate::data::quality::Divergence;

    const SEED: &str = include_str!("../../data/results.json");

    #[test]
    fn the_seed_is_valid_and_round_trips() {
        let doc = parse(Path::new("results.json"), SEED.as_bytes()).unwrap();
        assert_eq!(doc.runs.len(), 6);
        assert_eq!(doc.divergence.len(), 11);
        let written = to_json(&doc);
        let again = parse(Path::new("again.json"), written.as_bytes()).unwrap();
        assert_eq!(doc, again);
        assert_eq!(to_json(&again), written);
    }

    #[test]
    fn the_seed_value_survives_the_types() {
        // Same content: every value of the seed comes back equal after the typed round trip.
        let original: Value = serde_json::from_str(SEED).unwrap();
        let doc: Results = serde_json::from_str(SEED).unwrap();
        let back = serde_json::to_value(&doc).unwrap();
        assert_json_equal(&original, &back, "");
    }

    fn assert_json_equal(a: &Value, b: &Value, at: &str) {
        match (a, b) {
            (Value::Object(a), Value::Object(b)) => {
                // Key order is not content (the seed itself varies it).
                let mut keys_a: Vec<_> = a.keys().collect();
                let mut keys_b: Vec<_> = b.keys().collect();
                keys_a.sort();
                keys_b.sort();
                assert_eq!(keys_a, keys_b, "keys at {at}");
                for (key, value) in a {
                    assert_json_equal(value, &b[key], &format!("{at}/{key}"));
                }
            }
            (Value::Array(a), Value::Array(b)) => {
                assert_eq!(a.len(), b.len(), "length at {at}");
                for (index, (x, y)) in a.iter().zip(b).enumerate() {
                    assert_json_equal(x, y, &format!("{at}/{index}"));
                }
            }
            (Value::Number(x), Value::Number(y)) => {
                assert_eq!(x.as_f64(), y.as_f64(), "number at {at}");
            }
            _ => assert_eq!(a, b, "value at {at}"),
        }
    }

    #[test]
    fn seed_labels_have_fixed_slugs() {
        // The permalink contract: these URLs are published and must keep working.
        let doc = parse(Path::new("results.json"), SEED.as_bytes()).unwrap();
        let sweeps: Vec<_> = doc.sweeps.iter().map(Sweep::slug).collect();
        assert_eq!(
            sweeps,
            [
                "qwen3-6-35b-a3b-baseline",
                "qwen3-6-35b-a3b-max-num-seqs-32",
                "qwen3-6-35b-a3b-16k-prompt-seqs-8",
                "qwen3-6-35b-a3b-16k-prompt-seqs-32",
                "qwen3-8-27b-default",
                "qwen3-8-27b-seqs-32",
                "qwen3-8-27b-mtp-text-only",
                "qwen3-8-27b-text-only-cuda-graphs",
                "qwen3-8-27b-text-only-eager",
                "nemotron-3-5-lightning",
                "qwen3-6-35b-a3b-4k-output-seqs-32",
                "nemotron-3-5-lightning-4k-output",
                "qwen3-8-27b-4k-output-text-only-cuda-graphs",
            ]
        );
        let comparisons: Vec<_> = doc.divergence.iter().map(Divergence::slug).collect();
        assert_eq!(
            comparisons,
            [
                "qwen3-6-bf16-kv-same-server-again",
                "qwen3-6-bf16-kv-fp8-kv",
                "qwen3-6-bf16-kv-mtp",
                "qwen3-6-bf16-kv-eager",
                "qwen3-8-fp8-same-server-again",
                "qwen3-8-fp8-nvfp4",
                "qwen3-8-fp8-nvfp4-fp8-kv",
                "qwen3-8-nvfp4-bf16-kv-fp8-kv",
                "qwen3-8-fp8-nvfp4-cuda-graphs",
                "qwen3-8-nvfp4-eager-cuda-graphs",
                "qwen3-8-fp8-nvfp4-mtp",
            ]
        );
    }
}

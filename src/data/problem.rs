//! What is wrong with a document, said the way a reader can act on: the entry, the field
//! path, what was expected and what was found, and where in the file.

use std::fmt;
use std::path::PathBuf;

/// One thing wrong with a results document.
#[derive(Debug, Clone, PartialEq)]
pub struct Problem {
    /// JSON pointer of the offending value (`/runs/3/decode_tok_s`); empty for the whole document.
    pub pointer: String,
    /// The record it belongs to, as `runs → <id>`, when it belongs to one.
    pub entry: Option<String>,
    /// 1-based line and column in the file, where known.
    pub position: Option<(usize, usize)>,
    /// What the document should hold there.
    pub expected: String,
    /// What it holds.
    pub found: String,
}

impl Problem {
    /// A problem at `pointer`; its entry and position are filled in later.
    pub fn new(
        pointer: impl Into<String>,
        expected: impl Into<String>,
        found: impl Into<String>,
    ) -> Self {
        Self {
            pointer: pointer.into(),
            entry: None,
            position: None,
            expected: expected.into(),
            found: found.into(),
        }
    }

    /// A problem with no pointer, at a known position (a JSON syntax error).
    pub fn at(
        position: (usize, usize),
        expected: impl Into<String>,
        found: impl Into<String>,
    ) -> Self {
        Self {
            position: Some(position),
            ..Self::new("", expected, found)
        }
    }
}

/// The problems of one file, printed as a report.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    /// The file the problems are in.
    pub file: PathBuf,
    /// Every problem found, in document order.
    pub problems: Vec<Problem>,
}

impl Report {
    /// The problems a document had before a write and still has after it, said as a
    /// warning that names the document.
    pub fn kept(&self) -> String {
        let count = self.problems.len();
        let mut text = format!(
            "{} already has {count} problem{}, which this write neither added nor mended (`benchsite check` lists them):",
            self.file.display(),
            if count == 1 { "" } else { "s" }
        );
        self.list(&mut text).expect("writing to a String");
        text
    }

    /// Each problem on its lines, as `check` prints them.
    fn list(&self, f: &mut impl fmt::Write) -> fmt::Result {
        let file = self.file.display();
        for problem in &self.problems {
            write!(f, "\n  ")?;
            match (&problem.entry, problem.pointer.is_empty()) {
                (Some(entry), _) => write!(f, "{entry}: {}", problem.pointer)?,
                (None, false) => write!(f, "{}", problem.pointer)?,
                (None, true) => write!(f, "document")?,
            }
            write!(f, "\n    expected {}", problem.expected)?;
            write!(f, "\n    found {}", problem.found)?;
            match problem.position {
                Some((line, column)) => write!(f, "\n    at {file}:{line}:{column}")?,
                None => write!(f, "\n    in {file}")?,
            }
        }
        Ok(())
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let count = self.problems.len();
        write!(
            f,
            "{} is not a valid results document ({count} problem{})",
            self.file.display(),
            if count == 1 { "" } else { "s" }
        )?;
        self.list(f)
    }
}

/// Escapes one JSON pointer segment (RFC 6901).
pub fn pointer_segment(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// Splits a JSON pointer into its unescaped segments.
pub fn pointer_segments(pointer: &str) -> impl Iterator<Item = String> + '_ {
    pointer
        .split('/')
        .skip(1)
        .map(|segment| segment.replace("~1", "/").replace("~0", "~"))
}

/// A JSON value shown briefly in a message: strings quoted, long values cut.
pub fn describe_value(value: &serde_json::Value) -> String {
    const LIMIT: usize = 60;
    let kind = match value {
        serde_json::Value::Null => return "null".into(),
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "an object",
    };
    let mut text = value.to_string();
    if text.chars().count() > LIMIT {
        text = text.chars().take(LIMIT).collect::<String>() + "…";
    }
    format!("{kind}, {text}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pointer_segments_round_trip() {
        let key = "a/b~c";
        let pointer = format!("/x/{}", pointer_segment(key));
        assert_eq!(pointer, "/x/a~1b~0c");
        assert_eq!(pointer_segments(&pointer).collect::<Vec<_>>(), ["x", key]);
    }

    #[test]
    fn report_names_entry_pointer_and_place() {
        let mut problem = Problem::new("/runs/0/decode_tok_s", "a number", "a string, \"x\"");
        problem.entry = Some("runs → a".into());
        problem.position = Some((4, 9));
        let report = Report {
            file: "data/results.json".into(),
            problems: vec![problem],
        };
        let text = report.to_string();
        assert!(text.contains("(1 problem)"), "{text}");
        assert!(text.contains("runs → a: /runs/0/decode_tok_s"), "{text}");
        assert!(text.contains("expected a number"), "{text}");
        assert!(text.contains("at data/results.json:4:9"), "{text}");
    }
}

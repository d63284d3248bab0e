//! Maps JSON pointers back to lines and columns of the source text, for error reports.
//! Only built when there is something to report, so valid documents never pay for it.

use jsonc_parser::ast::{ObjectPropName, Value};
use jsonc_parser::common::Ranged;
use jsonc_parser::{CollectOptions, ParseOptions};

use super::problem::pointer_segments;

/// The source text of a document with the positions of its values.
pub struct SourceMap<'a> {
    text: &'a str,
    root: Option<Value<'a>>,
    line_starts: Vec<usize>,
}

impl<'a> SourceMap<'a> {
    /// Indexes `text`, which must already be valid JSON.
    pub fn new(text: &'a str) -> Self {
        // The text already parsed as strict JSON; the lenient defaults change nothing here.
        let parse_options = ParseOptions::default();
        let root = jsonc_parser::parse_to_ast(text, &CollectOptions::default(), &parse_options)
            .ok()
            .and_then(|parsed| parsed.value);
        let line_starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(at, _)| at + 1))
            .collect();
        Self {
            text,
            root,
            line_starts,
        }
    }

    /// The 1-based line and column of the value at `pointer`: of its key when it is an object
    /// member, of the nearest existing parent when it does not exist.
    pub fn locate(&self, pointer: &str) -> Option<(usize, usize)> {
        let mut node = self.root.as_ref()?;
        let mut offset = node.range().start;
        for segment in pointer_segments(pointer) {
            let next = match node {
                Value::Object(object) => object
                    .properties
                    .iter()
                    .rev()
                    .find(|prop| name_of(&prop.name) == segment)
                    .map(|prop| (prop.range.start, &prop.value)),
                Value::Array(array) => segment
                    .parse::<usize>()
                    .ok()
                    .and_then(|index| array.elements.get(index))
                    .map(|element| (element.range().start, element)),
                _ => None,
            };
            match next {
                Some((start, value)) => {
                    offset = start;
                    node = value;
                }
                None => break,
            }
        }
        Some(self.line_column(offset))
    }

    /// The 1-based line and column (in characters) of a byte offset.
    pub fn line_column(&self, offset: usize) -> (usize, usize) {
        let line = self.line_starts.partition_point(|&start| start <= offset);
        let line_start = self.line_starts[line - 1];
        let column = self.text[line_start..offset.min(self.text.len())]
            .chars()
            .count();
        (line, column + 1)
    }
}

fn name_of(name: &ObjectPropName<'_>) -> String {
    match name {
        ObjectPropName::String(lit) => lit.value.to_string(),
        ObjectPropName::Word(word) => word.value.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str =
        "{\n  \"runs\": [\n    {\"id\": \"a\", \"x\": 1},\n    {\"id\": \"é\", \"x\": 2}\n  ]\n}";

    #[test]
    fn finds_keys_and_elements() {
        let map = SourceMap::new(TEXT);
        assert_eq!(map.locate(""), Some((1, 1)));
        assert_eq!(map.locate("/runs"), Some((2, 3)));
        assert_eq!(map.locate("/runs/1"), Some((4, 5)));
        assert_eq!(map.locate("/runs/1/x"), Some((4, 17)));
    }

    #[test]
    fn missing_members_fall_back_to_the_parent() {
        let map = SourceMap::new(TEXT);
        assert_eq!(map.locate("/runs/0/missing"), Some((3, 5)));
        assert_eq!(map.locate("/runs/7/id"), Some((2, 3)));
    }
}

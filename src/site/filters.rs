//! The filters of the index tables (runs, sweeps, comparisons): each row carries its model,
//! precision, speculative decoding, KV-cache dtype and machine as data attributes, and
//! `benchsite.js` shows the rows that match the choices, which live in the page's URL
//! (`/runs/?model=qwen3-6-35b-a3b&spec=on`). Without JavaScript the full table shows.

use std::collections::BTreeMap;

use serde::Serialize;

use super::views::Table;

/// What a table can be filtered by, in the order the filters show.
pub const FACETS: [(&str, &str); 5] = [
    ("model", "Model"),
    ("precision", "Precision"),
    ("spec", "Speculative decoding"),
    ("kv", "KV-cache dtype"),
    ("machine", "Machine"),
];

/// The value a row shows for an unrecorded facet.
const UNRECORDED: &str = "not recorded";

/// A row's facets, in the order of [`FACETS`]: `(value in the URL, text)`, `None` where the
/// record does not say.
pub type Facets = [Option<(String, String)>; 5];

/// One filter: its URL key, label and choices.
#[derive(Debug, Clone, Serialize)]
pub struct Filter {
    key: &'static str,
    label: &'static str,
    choices: Vec<Choice>,
}

/// A choice of a filter.
#[derive(Debug, Clone, Serialize)]
pub struct Choice {
    value: String,
    text: String,
    rows: usize,
}

/// A table with its filters: a facet shows as a filter when its rows hold two values or more.
#[derive(Debug, Clone)]
pub struct FilteredTable {
    table: Table,
    filters: Vec<Filter>,
    attributes: Vec<Vec<(&'static str, String)>>,
}

/// `table` with the filters its rows' `facets` (one per row) call for.
pub fn filtered(table: Table, facets: Vec<Facets>) -> FilteredTable {
    let mut filters = Vec::new();
    let mut shown = [false; 5];
    for (f, (key, label)) in FACETS.iter().enumerate() {
        let mut choices: BTreeMap<String, (String, usize)> = BTreeMap::new();
        for row in &facets {
            let (value, text) = row[f]
                .clone()
                .unwrap_or_else(|| ("none".to_owned(), UNRECORDED.to_owned()));
            choices.entry(value).or_insert((text, 0)).1 += 1;
        }
        if choices.len() < 2 {
            continue;
        }
        shown[f] = true;
        filters.push(Filter {
            key,
            label,
            choices: choices
                .into_iter()
                .map(|(value, (text, rows))| Choice { value, text, rows })
                .collect(),
        });
    }
    let attributes = facets
        .iter()
        .map(|row| {
            FACETS
                .iter()
                .zip(row)
                .zip(shown)
                .filter(|(_, shown)| *shown)
                .map(|(((key, _), value), _)| {
                    let value = value.as_ref().map_or("none", |(value, _)| value.as_str());
                    (*key, value.to_owned())
                })
                .collect()
        })
        .collect();
    FilteredTable {
        table,
        filters,
        attributes,
    }
}

/// A facet of a dimension or setting: its value as written, slugged for the URL.
pub fn facet(value: Option<&str>) -> Option<(String, String)> {
    let value = value?.trim();
    (!value.is_empty()).then(|| (crate::data::slugify(value), value.to_owned()))
}

/// An on/off facet.
pub fn switch(on: bool) -> Option<(String, String)> {
    let value = if on { "on" } else { "off" };
    Some((value.to_owned(), value.to_owned()))
}

impl Serialize for FilteredTable {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let attributes: Vec<Vec<(&str, &str)>> = self
            .attributes
            .iter()
            .map(|row| row.iter().map(|(k, v)| (*k, v.as_str())).collect())
            .collect();
        self.table
            .out(&attributes, Some(&self.filters))
            .serialize(serializer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::site::views::{Cell, Column, Row};

    fn table(rows: usize) -> Table {
        Table {
            caption: "t".into(),
            columns: vec![Column::text("x")],
            rows: (0..rows)
                .map(|i| Row {
                    id: None,
                    class: None,
                    cells: vec![Cell::text(i.to_string())],
                })
                .collect(),
            csv: None,
        }
    }

    #[test]
    fn a_facet_with_one_value_is_no_filter_and_rows_carry_the_others() {
        let facets = vec![
            [
                facet(Some("M A")),
                facet(Some("NVFP4")),
                switch(true),
                None,
                None,
            ],
            [
                facet(Some("M B")),
                facet(Some("NVFP4")),
                switch(false),
                facet(Some("fp8")),
                None,
            ],
        ];
        let value = serde_json::to_value(filtered(table(2), facets)).unwrap();
        let keys: Vec<&str> = value["filters"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["key"].as_str().unwrap())
            .collect();
        assert_eq!(keys, ["model", "spec", "kv"]);
        assert_eq!(value["filters"][2]["choices"][1]["text"], "not recorded");
        let body = value["body"].as_str().unwrap();
        assert!(
            body.contains(r#"<tr data-model="m-a" data-spec="on" data-kv="none">"#),
            "{body}"
        );
        assert!(
            body.contains(r#"<tr data-model="m-b" data-spec="off" data-kv="fp8">"#),
            "{body}"
        );
    }
}

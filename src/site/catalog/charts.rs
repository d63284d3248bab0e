//! The charts of a figure against the load (concurrency, or arrival rate) the sweep pages and
//! overlays share.

use crate::data::Load;
use crate::format::figure;

use super::super::charts::{self, LineSeries, Mark};
use super::super::views::{Cell, Chart, Column, Row, Table};
use super::records::Catalog;

impl<'a> Catalog<'a> {
    pub fn concurrency_chart(
        &self,
        title: &str,
        series: &[LineSeries],
        unit: &str,
        rates: bool,
        marks: &[Mark],
    ) -> Chart {
        let mut levels: Vec<f64> = series
            .iter()
            .flat_map(|s| s.points.iter().map(|(x, _)| *x))
            .collect();
        levels.sort_by(f64::total_cmp);
        levels.dedup();
        let mut columns = vec![Column::text("Series")];
        columns.extend(levels.iter().map(|&x| {
            Column::number(if rates {
                Load::Rate(x).words()
            } else {
                format!("c = {x}")
            })
        }));
        let rows =
            series
                .iter()
                .map(|s| {
                    let mut cells = vec![Cell::text(&s.name)];
                    cells.extend(levels.iter().map(
                        |c| match s.points.iter().find(|(x, _)| x == c) {
                            Some(&(_, y)) => Cell::number(figure(y), y),
                            None => Cell::missing(),
                        },
                    ));
                    Row {
                        id: None,
                        class: None,
                        cells,
                    }
                })
                .collect();
        let (against, span) = if rates {
            ("the arrival rate", "arrivals at")
        } else {
            ("concurrency on a log-2 axis", "concurrency")
        };
        let alt = format!(
            "Line chart of {} in {unit} against {against}: {} line{}{}",
            lowercase_first(title),
            series.len(),
            if series.len() == 1 { "" } else { "s" },
            match (levels.first(), levels.last()) {
                (Some(low), Some(high)) if rates => format!(", {span} {low} to {high} req/s"),
                (Some(low), Some(high)) => format!(", {span} {low} to {high}"),
                _ => String::new(),
            }
        );
        Chart {
            data_in: None,
            csv: None,
            title: title.to_owned(),
            alt,
            option: charts::lines_by_load(series, unit, rates, marks),
            height: if series.len() > 4 { 480 } else { 380 },
            table: Table {
                caption: format!("{title} ({unit})"),
                columns,
                rows,
                csv: None,
            },
        }
    }
}

/// `text` with its first letter in lower case, to continue a sentence.
pub fn lowercase_first(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_lowercase().chain(chars).collect()
    })
}

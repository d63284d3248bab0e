//! The plain serialisable pieces templates receive: tables, charts, links, facts. Figures in
//! them are already text (see `format.rs`); templates only arrange and escape.

use serde::Serialize;

use crate::format::MISSING;

use super::escape::escape_into;
use super::paging::{self, Paged};

/// A link with optional extra words.
#[derive(Debug, Clone, Serialize)]
pub struct Link {
    /// The link text.
    pub text: String,
    /// Where it goes (with the base path).
    pub href: String,
    /// Words after the link.
    pub note: Option<String>,
    /// A warning to show beside it (a suspect measurement).
    pub warning: Option<String>,
}

/// A label and its value, for definition lists.
#[derive(Debug, Clone, Serialize)]
pub struct Fact {
    /// What it is.
    pub label: String,
    /// Its value, with unit.
    pub value: String,
}

impl Fact {
    /// A fact.
    pub fn new(label: impl Into<String>, value: impl Into<String>) -> Self {
        Self {
            label: label.into(),
            value: value.into(),
        }
    }
}

/// A table, sortable by column in the browser. Templates get its caption, columns, CSV link,
/// the number of rows (`rows`) and the rows as HTML (`body`): rendered here, escaped, since a
/// table of thousands of cells through a template macro dominates the build.
#[derive(Debug, Clone)]
pub struct Table {
    /// What the table shows.
    pub caption: String,
    /// The header.
    pub columns: Vec<Column>,
    /// The body.
    pub rows: Vec<Row>,
    /// The CSV download of the same data, if any.
    pub csv: Option<String>,
}

impl Table {
    /// Each row as one `<tr>` line, with `attributes[row]` as `data-` attributes.
    fn row_lines(&self, attributes: &[Vec<(&str, &str)>]) -> Vec<String> {
        self.rows
            .iter()
            .enumerate()
            .map(|(i, row)| row_html(row, attributes.get(i).map_or(&[], Vec::as_slice)))
            .collect()
    }

    /// The table as templates receive it, with `attributes` on its rows and `filters`: a
    /// long table paged inside a view ([`paging::spilling`]).
    pub fn out<'t, F: Serialize>(
        &'t self,
        attributes: &[Vec<(&str, &str)>],
        filters: Option<&'t F>,
    ) -> TableOut<'t, F> {
        let (body, paged) = paging::page(
            &self.caption,
            self.row_lines(attributes),
            self.csv.is_some(),
            || self.csv(),
        );
        let csv = self
            .csv
            .clone()
            .or_else(|| paged.as_ref().and_then(|p| p.csv.clone()));
        TableOut {
            caption: &self.caption,
            columns: &self.columns,
            rows: self.rows.len(),
            count: crate::format::count(self.rows.len() as u64),
            body,
            csv,
            paged,
            filters,
        }
    }
}

/// One row as a `<tr>` line, each cell with its sort key and warning.
fn row_html(row: &Row, attributes: &[(&str, &str)]) -> String {
    let mut html = String::with_capacity(256);
    let attribute = |html: &mut String, name: &str, value: &Option<String>| {
        if let Some(value) = value.as_deref().filter(|v| !v.is_empty()) {
            html.push(' ');
            html.push_str(name);
            html.push_str("=\"");
            escape_into(html, value);
            html.push('"');
        }
    };
    html.push_str("<tr");
    attribute(&mut html, "id", &row.id);
    attribute(&mut html, "class", &row.class);
    for (name, value) in attributes {
        html.push_str(" data-");
        html.push_str(name);
        html.push_str("=\"");
        escape_into(&mut html, value);
        html.push('"');
    }
    html.push('>');
    for cell in &row.cells {
        // A numeric column is marked once, on its heading; the style sheet aligns its cells.
        html.push_str("<td");
        if cell.weak.is_some() {
            html.push_str(" class=\"weak\"");
        }
        // The script sorts by the text where it reads as the same number.
        let plain = cell.aside.is_none()
            && cell.weak.is_none()
            && cell.sort.as_deref().and_then(|v| v.parse::<f64>().ok())
                == Some(cell.text.parse::<f64>().unwrap_or(f64::NAN));
        if !plain {
            attribute(&mut html, "data-sort", &cell.sort);
        }
        attribute(&mut html, "title", &cell.title);
        html.push('>');
        match cell.href.as_deref().filter(|h| !h.is_empty()) {
            Some(href) => {
                html.push_str("<a href=\"");
                escape_into(&mut html, href);
                html.push_str("\">");
                escape_into(&mut html, &cell.text);
                html.push_str("</a>");
            }
            None => escape_into(&mut html, &cell.text),
        }
        if let Some(aside) = cell.aside.as_deref() {
            html.push_str(" <small>");
            escape_into(&mut html, aside);
            html.push_str("</small>");
        }
        if let Some(weak) = cell.weak.as_deref() {
            html.push_str(" <small>(");
            escape_into(&mut html, weak);
            html.push_str(")</small>");
        }
        if let Some(warning) = cell.warning.as_deref().filter(|w| !w.is_empty()) {
            let warning = super::escape::escape(warning);
            html.push_str(&format!(
                " <span class=\"warn\" title=\"{warning}\" role=\"img\" aria-label=\"suspect measurement: {warning}\">⚠</span>"
            ));
        }
        html.push_str("</td>");
    }
    html.push_str("</tr>\n");
    html
}

impl Table {
    /// The table as CSV (the header, then each row's cell texts; a missing value is empty).
    pub fn csv(&self) -> String {
        let mut writer = csv::Writer::from_writer(Vec::new());
        let header = self.columns.iter().map(|c| c.label.as_str());
        writer.write_record(header).expect("CSV into memory");
        for row in &self.rows {
            let cells = row.cells.iter().map(|c| {
                if c.text == MISSING {
                    ""
                } else {
                    c.text.as_str()
                }
            });
            writer.write_record(cells).expect("CSV into memory");
        }
        String::from_utf8(writer.into_inner().expect("CSV into memory")).expect("UTF-8 cells")
    }

    /// [`Table::csv`] as a `data:` URL, for a download link that needs no file and no script:
    /// every byte but letters, digits and `-_.,()!*~:;` percent-encoded, which leaves nothing
    /// an HTML attribute would escape.
    pub fn csv_data_url(&self) -> String {
        const KEPT: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
            .remove(b'-')
            .remove(b'_')
            .remove(b'.')
            .remove(b',')
            .remove(b'(')
            .remove(b')')
            .remove(b'!')
            .remove(b'*')
            .remove(b'~')
            .remove(b':')
            .remove(b';');
        format!(
            "data:text/csv;charset=utf-8,{}",
            percent_encoding::utf8_percent_encode(&self.csv(), KEPT)
        )
    }
}

/// A table as templates receive it: all rows, or the first page and where the rest are.
#[derive(Debug, Clone, Serialize)]
pub struct TableOut<'t, F: Serialize> {
    /// What the table shows.
    pub caption: &'t str,
    /// The header.
    pub columns: &'t [Column],
    /// How many rows the table has in all.
    pub rows: usize,
    /// The same, as the report writes a count (4,589).
    pub count: String,
    /// The rows in the HTML, as HTML.
    pub body: String,
    /// The CSV link: the table's own download, else its paged CSV.
    pub csv: Option<String>,
    /// Where the other rows are, when the table is paged.
    pub paged: Option<Paged>,
    /// The table's filters, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub filters: Option<&'t F>,
}

impl Serialize for Table {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.out::<()>(&[], None).serialize(serializer)
    }
}

/// A column header.
#[derive(Debug, Clone, Serialize)]
pub struct Column {
    /// The header text, with unit.
    pub label: String,
    /// Whether the column holds numbers (right-aligned, sorted numerically).
    pub numeric: bool,
}

impl Column {
    /// A text column.
    pub fn text(label: impl Into<String>) -> Self {
        Self {
            label: label.into(),
            numeric: false,
        }
    }

    /// A number column.
    pub fn number(label: impl Into<String>) -> Self {
        Self {
            label: label.into(),
            numeric: true,
        }
    }
}

/// A table row.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    /// Anchor id, for deep links to the row.
    pub id: Option<String>,
    /// A class (`floor`, `suspect`).
    pub class: Option<String>,
    /// The cells.
    pub cells: Vec<Cell>,
}

/// A table cell.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Cell {
    /// The text shown.
    pub text: String,
    /// A link on the text.
    pub href: Option<String>,
    /// The value sorted by, when it differs from the text.
    pub sort: Option<String>,
    /// A warning shown beside the text.
    pub warning: Option<String>,
    /// What the value is of, shown on hover (`p50 of 16 requests`).
    pub title: Option<String>,
    /// Why the value is weak, shown after it and greying it (`p95 of 2 requests`).
    pub weak: Option<String>,
    /// How far the value could move, shown after it (`0.110–0.130`).
    pub aside: Option<String>,
}

impl Cell {
    /// A plain text cell.
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            ..Self::default()
        }
    }

    /// A number cell: shown as `text`, sorted by `value`.
    pub fn number(text: impl Into<String>, value: f64) -> Self {
        Self {
            text: text.into(),
            sort: Some(value.to_string()),
            ..Self::default()
        }
    }

    /// A cell with no value.
    pub fn missing() -> Self {
        Self {
            text: MISSING.into(),
            sort: Some(String::new()),
            ..Self::default()
        }
    }

    /// A linked cell.
    pub fn link(text: impl Into<String>, href: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            href: Some(href.into()),
            ..Self::default()
        }
    }

    /// The cell sorted by `value` (a linked number).
    pub fn sorted_by(mut self, value: f64) -> Self {
        self.sort = Some(value.to_string());
        self
    }

    /// The cell with a warning beside it.
    pub fn warn(mut self, warning: Option<&String>) -> Self {
        self.warning = warning.cloned();
        self
    }

    /// The cell with what its value is of, on hover.
    pub fn titled(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// The cell with how far its value could move after it.
    pub fn beside(mut self, aside: impl Into<String>) -> Self {
        self.aside = Some(aside.into());
        self
    }

    /// The cell greyed, with why its value is weak after it.
    pub fn weakened(mut self, why: impl Into<String>) -> Self {
        self.weak = Some(why.into());
        self
    }
}

/// A chart and the table of its data.
#[derive(Debug, Clone)]
pub struct Chart {
    /// What the chart shows.
    pub title: String,
    /// What it shows in words, for readers who cannot see it (its `aria-label`).
    pub alt: String,
    /// The ECharts option as JSON, safe inside a script element.
    pub option: String,
    /// Its height in pixels.
    pub height: u32,
    /// The same data as a table.
    pub table: Table,
    /// Its CSV download as a file (else a `data:` link of its table, or its paged CSV).
    pub csv: Option<String>,
    /// The table elsewhere on its page that holds every number it draws, named and linked
    /// (`#levels`): its own table and CSV are then left out, not printed twice.
    pub data_in: Option<Link>,
}

impl Chart {
    /// The chart, its data said to be in the page's table `text` at `href` (an anchor).
    pub fn data_in(self, text: &str, href: &str) -> Self {
        Chart {
            data_in: Some(Link {
                text: text.to_owned(),
                href: href.to_owned(),
                note: None,
                warning: None,
            }),
            ..self
        }
    }

    /// The name its PNG and CSV downloads take: the title's slug.
    pub fn file_name(&self) -> String {
        let mut name = crate::data::slugify(&self.title);
        name.truncate(60);
        name.trim_end_matches('-').to_owned()
    }
}

impl Serialize for Chart {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let table = self.table.out::<()>(&[], None);
        // Its own CSV file, else a paged table's, else a `data:` link.
        let csv = self
            .csv
            .clone()
            .or_else(|| table.paged.as_ref().and_then(|p| p.csv.clone()))
            .unwrap_or_else(|| self.table.csv_data_url());
        // A long option is a file beside the page, fetched when the chart is drawn.
        let src = (self.option.len() > paging::CHART_INLINE)
            .then(|| {
                paging::beside(&self.file_name(), "chart.json", || {
                    self.option.clone().into_bytes()
                })
            })
            .flatten();
        let mut chart = serializer.serialize_struct("Chart", 9)?;
        chart.serialize_field("title", &self.title)?;
        chart.serialize_field("alt", &self.alt)?;
        chart.serialize_field("option", if src.is_some() { "" } else { &self.option })?;
        chart.serialize_field("src", &src)?;
        chart.serialize_field("height", &self.height)?;
        chart.serialize_field("table", &table)?;
        chart.serialize_field("file", &self.file_name())?;
        chart.serialize_field("csv", &csv)?;
        chart.serialize_field("data_in", &self.data_in)?;
        chart.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_states_its_row_count_as_the_report_writes_counts() {
        let rows = (0..1234)
            .map(|i| Row {
                id: None,
                class: None,
                cells: vec![Cell::text(i.to_string())],
            })
            .collect();
        let table = Table {
            caption: "rows".into(),
            columns: vec![Column::text("n")],
            rows,
            csv: None,
        };
        let out = table.out::<()>(&[], None);
        assert_eq!((out.rows, out.count.as_str()), (1234, "1,234"));
    }
}

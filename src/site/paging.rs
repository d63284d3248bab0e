//! Long tables, a page at a time: a table of more than [`PAGE_ROWS`] rows carries its first
//! page in the HTML, and every row in data files beside its page (`<name>.<k>.rows.json`,
//! [`CHUNK_ROWS`] rows each, and the CSV `<name>.csv`), which `benchsite.js` loads when the
//! reader pages, sorts, filters or follows a link to a row not on the first page. A page's
//! weight so stays bounded however many records the report holds; a reader without
//! JavaScript reads the first page and the CSV.
//!
//! Tables are paged while a page's view is made: [`spilling`] runs the view with a collector
//! that every table serialized inside it writes its data files into.

use std::cell::RefCell;
use std::collections::BTreeSet;

use serde::Serialize;

use super::error::SiteError;

/// Rows a paged table shows at a time, and carries in its page's HTML.
pub const PAGE_ROWS: usize = 50;
/// Rows in each of a paged table's data files.
pub const CHUNK_ROWS: usize = 500;
/// A chart's option longer than this many bytes is a file beside its page.
pub const CHART_INLINE: usize = 16_000;
/// How a table's data files' names end.
pub const ROWS_SUFFIX: &str = ".rows.json";

/// A file a page's view wrote beside the page: its name in the page's folder and its bytes.
#[derive(Debug, Clone)]
pub struct DataFile {
    /// The file's name inside the page's folder.
    pub name: String,
    /// Its bytes.
    pub bytes: Vec<u8>,
}

/// Takes each data file a page's view writes, as it is written.
pub type Sink<'s> = dyn Fn(DataFile) -> Result<(), SiteError> + 's;

struct Spill {
    /// The page's URL (with the base path), which the data files' URLs start with.
    url: String,
    /// Where the files go: the `sink` of the [`spilling`] call this spill belongs to, whose
    /// borrow outlives the spill (see there).
    sink: *const Sink<'static>,
    /// Files written so far.
    written: usize,
    /// The first error the sink gave; later files are not handed to it.
    error: Option<SiteError>,
    names: BTreeSet<String>,
}

impl Spill {
    fn put(&mut self, file: DataFile) {
        self.written += 1;
        if self.error.is_none() {
            // SAFETY: `sink` points to the `sink` `spilling` was given, which lives until
            // `spilling` returns; `spilling` takes this spill out of the thread-local before
            // it returns or unwinds (`Restore`), and a spill never leaves its thread.
            let sink = unsafe { &*self.sink };
            self.error = sink(file).err();
        }
    }
}

thread_local! {
    static SPILL: RefCell<Option<Spill>> = const { RefCell::new(None) };
}

/// Puts back the spill that was there before [`spilling`], on return or unwind.
struct Restore(Option<Option<Spill>>);

impl Drop for Restore {
    fn drop(&mut self) {
        if let Some(before) = self.0.take() {
            SPILL.with(|spill| spill.replace(before));
        }
    }
}

/// Runs `view` for the page at `url`, its long tables paged: what it returned, and how many
/// data files its tables wrote, each handed to `sink` as it was written (so a page of every
/// level of a large report does not hold them all), or the first error `sink` gave.
pub fn spilling<T>(
    url: &str,
    sink: &Sink<'_>,
    view: impl FnOnce() -> T,
) -> (T, Result<usize, SiteError>) {
    // SAFETY: only the lifetime is erased; the pointer is used only while the spill is in
    // the thread-local, and `Restore` takes it out before this function returns or unwinds.
    let sink: *const Sink<'static> = unsafe { std::mem::transmute(sink as *const Sink<'_>) };
    let before = SPILL.with(|spill| {
        spill.replace(Some(Spill {
            url: url.to_owned(),
            sink,
            written: 0,
            error: None,
            names: BTreeSet::new(),
        }))
    });
    let mut restore = Restore(Some(before));
    let value = view();
    let before = restore.0.take().expect("restored only here or on unwind");
    let spill = SPILL.with(|spill| spill.replace(before));
    let written = match spill {
        Some(Spill { error: Some(e), .. }) => Err(e),
        Some(spill) => Ok(spill.written),
        None => Ok(0),
    };
    (value, written)
}

/// Where a paged table's rows are: templates put these on the table as `data-` attributes.
#[derive(Debug, Clone, Serialize)]
pub struct Paged {
    /// The data files' URL without `.<k>.rows.json`.
    pub src: String,
    /// How many data files.
    pub chunks: usize,
    /// Rows in each.
    pub chunk: usize,
    /// The CSV of every row, written beside them (`None` when the table links its own).
    pub csv: Option<String>,
    /// Rows in the HTML.
    pub shown: usize,
    /// Rows in all, as readers read the number.
    pub total: String,
}

/// `rows` (each a `<tr>` line) as a table's body: every row, or, inside [`spilling`] and
/// when there are more than [`PAGE_ROWS`], the first page, the rest written to data files
/// named after `caption`, with `csv` (the table as CSV) beside them unless `linked` (the
/// table links a CSV of its own).
pub fn page(
    caption: &str,
    rows: Vec<String>,
    linked: bool,
    csv: impl FnOnce() -> String,
) -> (String, Option<Paged>) {
    if rows.len() <= PAGE_ROWS {
        return (rows.concat(), None);
    }
    SPILL.with(|spill| {
        let mut spill = spill.borrow_mut();
        let Some(spill) = spill.as_mut() else {
            return (rows.concat(), None);
        };
        let name = unique_name(&mut spill.names, caption);
        let chunks = rows.len().div_ceil(CHUNK_ROWS);
        for (k, chunk) in rows.chunks(CHUNK_ROWS).enumerate() {
            let bytes = serde_json::to_vec(&serde_json::json!({ "rows": chunk }))
                .expect("strings serialize");
            spill.put(DataFile {
                name: format!("{name}.{}{ROWS_SUFFIX}", k + 1),
                bytes,
            });
        }
        let csv = (!linked).then(|| {
            spill.put(DataFile {
                name: format!("{name}.csv"),
                bytes: csv().into_bytes(),
            });
            format!("{}{name}.csv", spill.url)
        });
        let body = rows[..PAGE_ROWS].concat();
        let paged = Paged {
            src: format!("{}{name}", spill.url),
            chunks,
            chunk: CHUNK_ROWS,
            csv,
            shown: PAGE_ROWS,
            total: crate::format::count(rows.len() as u64),
        };
        (body, Some(paged))
    })
}

/// Writes `bytes` beside the page being made, as `<name>.<extension>` (its name made unique
/// on the page): its URL, or `None` outside [`spilling`], where the caller keeps the bytes.
pub fn beside(name: &str, extension: &str, bytes: impl FnOnce() -> Vec<u8>) -> Option<String> {
    SPILL.with(|spill| {
        let mut spill = spill.borrow_mut();
        let spill = spill.as_mut()?;
        let name = format!("{}.{extension}", unique_name(&mut spill.names, name));
        spill.put(DataFile {
            name: name.clone(),
            bytes: bytes(),
        });
        Some(format!("{}{name}", spill.url))
    })
}

/// The caption's slug, at most 48 characters, made unique on its page with `-2`, `-3`...
fn unique_name(names: &mut BTreeSet<String>, caption: &str) -> String {
    let mut base = crate::data::slugify(caption);
    base.truncate(48);
    let base = match base.trim_end_matches('-') {
        "" => "table".to_owned(),
        trimmed => trimmed.to_owned(),
    };
    let mut name = base.clone();
    let mut n = 1;
    while !names.insert(name.clone()) {
        n += 1;
        name = format!("{base}-{n}");
    }
    name
}

/// The rows of a table's data file, as one HTML fragment (for the link check).
pub fn rows_html(bytes: &[u8]) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Rows {
        rows: Vec<String>,
    }
    let rows: Rows = serde_json::from_slice(bytes).ok()?;
    Some(format!(
        "<table><tbody>{}</tbody></table>",
        rows.rows.concat()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(n: usize) -> Vec<String> {
        (0..n)
            .map(|i| format!("<tr id=\"r{i}\"><td>{i}</td></tr>\n"))
            .collect()
    }

    #[test]
    fn a_short_table_or_one_outside_a_view_is_whole() {
        let (body, paged) = page("T", rows(PAGE_ROWS), false, String::new);
        assert!(paged.is_none());
        assert_eq!(body.matches("<tr").count(), PAGE_ROWS);
        let (body, paged) = page("T", rows(PAGE_ROWS + 1), false, String::new);
        assert!(paged.is_none());
        assert_eq!(body.matches("<tr").count(), PAGE_ROWS + 1);
    }

    #[test]
    fn a_long_table_keeps_its_first_page_and_writes_every_row_in_chunks() {
        let n = 2 * CHUNK_ROWS + 7;
        let files = RefCell::new(Vec::new());
        let sink = |file: DataFile| {
            files.borrow_mut().push(file);
            Ok(())
        };
        let ((first, second), written) = spilling("/r/runs/", &sink, || {
            let first = page("Every run", rows(n), false, || "x\n1\n".to_owned());
            let second = page("Every run", rows(PAGE_ROWS + 1), true, || unreachable!());
            (first, second)
        });
        let files = files.into_inner();
        assert_eq!(written.unwrap(), files.len());
        let (body, paged) = first;
        assert_eq!(body.matches("<tr").count(), PAGE_ROWS);
        assert!(body.ends_with("<tr id=\"r49\"><td>49</td></tr>\n"));
        let paged = paged.unwrap();
        assert_eq!(paged.src, "/r/runs/every-run");
        assert_eq!((paged.chunks, paged.chunk), (3, CHUNK_ROWS));
        assert_eq!(paged.csv.as_deref(), Some("/r/runs/every-run.csv"));
        // The second table of the same caption gets its own name, and links its own CSV.
        let paged = second.1.unwrap();
        assert_eq!(paged.src, "/r/runs/every-run-2");
        assert_eq!(paged.csv, None);
        let names: Vec<&str> = files.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "every-run.1.rows.json",
                "every-run.2.rows.json",
                "every-run.3.rows.json",
                "every-run.csv",
                "every-run-2.1.rows.json",
            ]
        );
        // Every row once, in order, across the chunks.
        let all: String = files
            .iter()
            .filter(|f| f.name.starts_with("every-run.") && f.name.ends_with(ROWS_SUFFIX))
            .map(|f| rows_html(&f.bytes).unwrap())
            .collect();
        assert_eq!(all.matches("<tr").count(), n);
        assert!(all.contains("<tr id=\"r1006\">"));
        let last = rows_html(&files[2].bytes).unwrap();
        assert_eq!(last.matches("<tr").count(), 7);
        // A sink's error is the spill's, and the files after it are not handed on.
        let handed = std::cell::Cell::new(0);
        let failing = |_: DataFile| {
            handed.set(handed.get() + 1);
            Err(super::SiteError::Search("full".into()))
        };
        let (_, written) = spilling("/r/", &failing, || page("T", rows(n), false, String::new));
        assert!(written.is_err());
        assert_eq!(handed.get(), 1);
        // Outside the view, nothing is collected any more.
        assert!(
            page("T", rows(PAGE_ROWS + 1), false, String::new)
                .1
                .is_none()
        );
    }
}

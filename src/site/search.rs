//! The site search: a Pagefind index of the pages the route table marks as searched (run,
//! sweep, comparison, failure, model and machine pages), written by the build itself with
//! Pagefind's library into `pagefind/`, and read by the `/search/` page's UI.
//!
//! A page is found by its element marked `data-pagefind-body` (the templates put it around a
//! record's title, summary, facts and narrative): [`Record::of`] takes that element's text
//! while the page is rendered, and [`Indexer`] hands each record to Pagefind on a thread of
//! its own as the pages come, so indexing runs beside the rendering. Pagefind's cost grows
//! with every element and word it reads; the tables of figures below would cost most and
//! find least.

use std::collections::BTreeMap;
use std::sync::mpsc;

use bytes::Bytes;

use super::{PageFile, SiteError};

/// The folder of the index and of Pagefind's scripts inside the site.
pub const FOLDER: &str = "pagefind";

/// How many fragment files (the text a result shows, which the reader's browser fetches per
/// result) the index of `pages` pages is cut into: about 8 pages each, at least 16 files and at
/// most 256. Pagefind writes one per page otherwise, and compressing each file on its own was a
/// third of a large report's indexing.
fn fragments(pages: usize) -> u32 {
    (pages / 8).clamp(16, 256) as u32
}

/// The attribute that marks what a page is found by.
const BODY: &str = "data-pagefind-body";

/// What the index holds of one page.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    /// The page's URL inside the site, `/runs/x/`.
    url: String,
    /// The text of its first `<h1>`.
    title: String,
    /// The text of its marked element (of the whole page when it has none).
    text: String,
}

impl Record {
    /// The record of the page at `path` (`runs/x/index.html`) with HTML `html`.
    pub fn of(path: &str, html: &str) -> Record {
        let body = marked(html).unwrap_or(html);
        let title = body
            .find("<h1")
            .and_then(|start| {
                let end = body[start..].find("</h1>")?;
                Some(text(&body[start..start + end]))
            })
            .unwrap_or_default();
        Record {
            url: format!("/{}", path.strip_suffix("index.html").unwrap_or(path)),
            title,
            text: text(body),
        }
    }
}

/// Pagefind, fed records in any order and indexing them in the order of their ranks, so the
/// index is the same bytes on every build.
pub struct Indexer {
    sender: Option<mpsc::Sender<(usize, Record)>>,
    thread: Option<std::thread::JoinHandle<Result<Vec<PageFile>, SiteError>>>,
}

impl Indexer {
    /// An indexer of `count` records, ranked `0..count`, for pages in `language`.
    pub fn start(count: usize, language: &str) -> Indexer {
        let (sender, receiver) = mpsc::channel();
        let language = language.to_owned();
        // Pagefind is async: it runs on a runtime of its own, on a thread of its own, so
        // that a caller inside another runtime (serve) can use it too.
        let thread = std::thread::spawn(move || {
            tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .map_err(|e| SiteError::Search(e.to_string()))?
                .block_on(index(receiver, count, language))
        });
        Indexer {
            sender: Some(sender),
            thread: Some(thread),
        }
    }

    /// Hands on the record of rank `rank`.
    pub fn add(&self, rank: usize, record: Record) {
        if let Some(sender) = &self.sender {
            // A closed channel means the indexer failed; `finish` says why.
            let _ = sender.send((rank, record));
        }
    }

    /// The index, as files to put under [`FOLDER`], once every record is in.
    pub fn finish(mut self) -> Result<Vec<PageFile>, SiteError> {
        drop(self.sender.take());
        self.thread
            .take()
            .expect("finished once")
            .join()
            .unwrap_or_else(|_| Err(SiteError::Search("the indexer panicked".into())))
    }
}

impl Drop for Indexer {
    /// An indexer dropped unfinished (the rendering failed) stops and is waited for.
    fn drop(&mut self) {
        drop(self.sender.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

async fn index(
    receiver: mpsc::Receiver<(usize, Record)>,
    count: usize,
    language: String,
) -> Result<Vec<PageFile>, SiteError> {
    let failed = |e: anyhow::Error| SiteError::Search(e.to_string());
    let options = pagefind::options::PagefindServiceConfig::builder()
        .force_language(language.clone())
        .max_fragments(fragments(count))
        .build();
    let mut index = pagefind::api::PagefindIndex::new(Some(options)).map_err(failed)?;
    let mut waiting = BTreeMap::new();
    let mut next = 0;
    while next < count {
        let Ok((rank, record)) = receiver.recv() else {
            // The rendering stopped early: its error is the one to report.
            return Ok(Vec::new());
        };
        waiting.insert(rank, record);
        while let Some(record) = waiting.remove(&next) {
            let meta = BTreeMap::from([("title".to_owned(), record.title)]);
            index
                .add_custom_record(
                    record.url.clone(),
                    record.text,
                    language.clone(),
                    Some(meta),
                    None,
                    None,
                )
                .await
                .map_err(|e| SiteError::Search(format!("{}: {e}", record.url)))?;
            next += 1;
        }
    }
    let files = index.get_files().await.map_err(failed)?;
    Ok(files
        .into_iter()
        .map(|file| {
            let name = file.filename.to_string_lossy().replace('\\', "/");
            (format!("{FOLDER}/{name}"), Bytes::from(file.contents))
        })
        .collect())
}

/// The text of some HTML: tags dropped (each a word break), the entities the site writes
/// decoded, white space collapsed.
fn text(html: &str) -> String {
    let mut out = String::with_capacity(html.len() / 2);
    let mut rest = html;
    while let Some(open) = rest.find('<') {
        out.push_str(&rest[..open]);
        out.push(' ');
        rest = rest[open..]
            .find('>')
            .map_or("", |close| &rest[open + close + 1..]);
    }
    out.push_str(rest);
    let decoded = out
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&#x27;", "'")
        .replace("&#x2F;", "/")
        .replace("&nbsp;", " ")
        .replace("&amp;", "&");
    decoded.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The element carrying [`BODY`], from its start tag to its end tag, nested elements of the
/// same name counted.
fn marked(html: &str) -> Option<&str> {
    let at = html.find(BODY)?;
    let start = html[..at].rfind('<')?;
    let name: String = html[start + 1..]
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric())
        .collect();
    if name.is_empty() {
        return None;
    }
    let (open, close) = (format!("<{name}"), format!("</{name}>"));
    let mut depth = 0usize;
    let mut position = start;
    loop {
        let next_open = html[position..].find(&open).map(|i| position + i);
        let next_close = html[position..].find(&close).map(|i| position + i)?;
        match next_open {
            Some(o) if o < next_close => {
                // `<div` but not `<divider`.
                let after = html[o + open.len()..].chars().next();
                if after.is_some_and(|c| c == '>' || c.is_ascii_whitespace()) {
                    depth += 1;
                }
                position = o + open.len();
            }
            _ => {
                depth = depth.checked_sub(1)?;
                position = next_close + close.len();
                if depth == 0 {
                    return Some(&html[start..position]);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_is_found_by_the_text_of_its_marked_element() {
        let html = r#"<html><body><nav><div>Runs</div></nav><div class="record-head" data-pagefind-body><h1>qwen &amp; co</h1><div class="narrative"><div>deep <em>note</em></div></div></div><table><tr><td>1.0</td></tr></table></body></html>"#;
        assert_eq!(
            marked(html),
            Some(
                r#"<div class="record-head" data-pagefind-body><h1>qwen &amp; co</h1><div class="narrative"><div>deep <em>note</em></div></div></div>"#
            )
        );
        let record = Record::of("runs/q/index.html", html);
        assert_eq!(record.url, "/runs/q/");
        assert_eq!(record.title, "qwen & co");
        assert_eq!(record.text, "qwen & co deep note");
        assert_eq!(marked("<html><body><p>no marker</p></body></html>"), None);
        assert_eq!(
            Record::of("x/index.html", "<p>whole</p>").text,
            "whole",
            "a page without the marker is read whole"
        );
    }

    #[test]
    fn records_in_any_order_give_the_same_index() {
        let record = |name: &str| Record {
            url: format!("/runs/{name}/"),
            title: name.to_owned(),
            text: format!("{name} speculative decoding"),
        };
        let build = |order: &[usize]| {
            let indexer = Indexer::start(2, "en");
            for &rank in order {
                indexer.add(rank, record(["a", "b"][rank]));
            }
            indexer.finish().unwrap()
        };
        let files = build(&[1, 0]);
        let names: Vec<&str> = files.iter().map(|(name, _)| name.as_str()).collect();
        for expected in [
            "pagefind/pagefind.js",
            "pagefind/pagefind-ui.js",
            "pagefind/pagefind-ui.css",
            "pagefind/pagefind-entry.json",
        ] {
            assert!(names.contains(&expected), "{names:?}");
        }
        let entry = &files
            .iter()
            .find(|(name, _)| name == "pagefind/pagefind-entry.json")
            .unwrap()
            .1;
        let entry: serde_json::Value = serde_json::from_slice(entry).unwrap();
        assert_eq!(entry["languages"]["en"]["page_count"], 2);
        assert_eq!(files, build(&[0, 1]));
    }
}

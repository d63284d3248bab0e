//! The site search: an index of the pages the route table marks as searched (run, sweep,
//! comparison, failure, model and machine pages), written by the build as static files under
//! [`FOLDER`] and read by the `/search/` page's script (`benchsite.js`), which fetches only
//! the files a query needs.
//!
//! A page is found by its element marked `data-pagefind-body` (the templates put it around a
//! record's title, summary, facts and narrative; the attribute keeps the name earlier
//! releases gave it): [`Record::of`] takes that element's text while the page is rendered.
//!
//! The files, pages numbered in path order:
//! - `meta.json`: the format, language, page count, pages per chunk, the shards there are and
//!   a version the reader's fetches carry, so a browser never mixes two builds' files;
//! - `t-<hex>.json`, one shard per first character of a term, or first two from a thousand
//!   pages on (their UTF-8 bytes in hex): each term with its postings,
//!   `[page, weight, page, weight, …]`;
//! - `p-<n>.json`: pages `32n` to `32n + 31`, each with URL, title, kind and text (for the
//!   excerpt);
//! - `pages.txt`: each page's content hash and URL. The next build reads it (from the site it
//!   replaces, or `serve`'s site in memory) and indexes only the pages whose hash changed: the
//!   shards their old and new terms fall in are patched, every other shard is the previous
//!   build's bytes. The output is byte for byte what indexing every page gives. A page the
//!   build takes unchanged from the last (`memo.rs`) is not read again: its record is the
//!   previous `p-<n>.json`'s, when its hash is the one listed ([`Indexer::add_kept`]).
//!
//! A term is a word (letters and digits) lowercased, with English's commonest suffixes taken
//! off when the site's language is English ([`stem`]), and a compound of words joined by
//! `-`, `_`, `.` or `/` (`qwen36-moe-mtp`, `3.5`) also whole. A word in a page's title weighs
//! [`TITLE_WEIGHT`] times a word of its text. The script splits a query by the same rules.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Mutex;

use bytes::Bytes;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::error::SiteError;
use super::html;
use super::output::{PageFile, Site};
use super::packed::Packed;
use super::routes;

/// The folder of the index inside the site.
pub const FOLDER: &str = "search/data";

/// The index format: raise it when the rules of [`terms`], [`stem`] or the weights change
/// (a test of them says so). A change of it, of the language or of benchsite's version makes
/// the next build index every page anew.
const FORMAT: u32 = 1;

/// Pages per `p-<n>.json`: a result list of 10 fetches at most 10 of them, about 30 KB each.
const CHUNK: usize = 32;

/// How much more a word of a page's title counts than a word of its text.
pub const TITLE_WEIGHT: u32 = 8;

/// Reads a file of the site the build replaces, by its path inside the site.
pub type Previous<'p> = &'p (dyn Fn(&str) -> Option<Bytes> + Sync);

/// No previous site: every page is indexed.
pub fn no_previous(_: &str) -> Option<Bytes> {
    None
}

/// What the index holds of one page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// The page's URL inside the site, `/runs/x/`.
    #[serde(rename = "u")]
    url: String,
    /// The text of its first `<h1>`.
    #[serde(rename = "t")]
    title: String,
    /// What it is, for readers: `Run`, `Sweep`.
    #[serde(rename = "k")]
    kind: String,
    /// The text of its marked element (of the whole page when it has none).
    #[serde(rename = "x")]
    text: String,
}

impl Record {
    /// The record of the page at `path` (`runs/x/index.html`), a page of a kind called `noun`
    /// (`run`), with HTML `html`.
    pub fn of(path: &str, noun: &str, html: &str) -> Record {
        Record::read(path, noun, html::read(html.as_bytes(), true))
    }

    /// [`Record::of`] from the page's reading (with its text), taking its title and text.
    pub fn read(path: &str, noun: &str, read: html::Reading) -> Record {
        let mut kind = noun.to_owned();
        if let Some(first) = kind.get_mut(..1) {
            first.make_ascii_uppercase();
        }
        Record {
            url: format!("/{}", path.strip_suffix("index.html").unwrap_or(path)),
            title: read.title,
            kind,
            text: read.text,
        }
    }

    /// The hash the index knows this record's content by.
    fn hash(&self) -> String {
        let mut hash = Sha256::new();
        for part in [&self.url, &self.title, &self.kind, &self.text] {
            hash.update(part.as_bytes());
            hash.update([0]);
        }
        hash.finalize()
            .iter()
            .take(8)
            .map(|b| format!("{b:02x}"))
            .collect()
    }
}

/// A page's terms in term order with their weights, the terms packed: an index build holds
/// every page's until its shards are written.
#[derive(Debug, Default)]
struct PageTerms {
    terms: Packed,
    weights: Box<[u32]>,
}

impl PageTerms {
    fn iter(&self) -> impl Iterator<Item = (&str, u32)> {
        self.terms.iter().zip(self.weights.iter().copied())
    }
}

/// Whether `c` joins the words of a compound.
fn joins(c: char) -> bool {
    matches!(c, '-' | '_' | '.' | '/')
}

/// The terms of `text`, repeats included: every word lowercased (and stemmed when `english`),
/// and every compound also whole, lowercased.
pub fn terms(text: &str, english: bool) -> Vec<String> {
    let mut out = Vec::new();
    let compounds = text.split(|c: char| !(c.is_alphanumeric() || joins(c)));
    for compound in compounds {
        let compound = compound.trim_matches(joins);
        if compound.is_empty() {
            continue;
        }
        let mut words = 0;
        for word in compound.split(joins).filter(|w| !w.is_empty()) {
            out.push(stem(&word.to_lowercase(), english).into_owned());
            words += 1;
        }
        if words > 1 {
            out.push(compound.to_lowercase());
        }
    }
    out
}

/// A lowercase word without the commonest English suffixes, so `decode`, `decodes`,
/// `decoded` and `decoding` are one term (`decod`); other words, and every word when not
/// `english`, as they are. The script's `stem` is the same function.
pub fn stem(word: &str, english: bool) -> Cow<'_, str> {
    let n = word.len();
    if !english || n <= 3 || !word.bytes().all(|b| b.is_ascii_lowercase()) {
        return Cow::Borrowed(word);
    }
    let mut base = if let Some(rest) = word.strip_suffix("ies") {
        format!("{rest}y")
    } else if word.ends_with("ing") && n >= 6 {
        word[..n - 3].to_owned()
    } else if (word.ends_with("ed") || word.ends_with("es")) && n >= 5 {
        word[..n - 2].to_owned()
    } else if word.ends_with('s') && !word.ends_with("ss") {
        word[..n - 1].to_owned()
    } else {
        word.to_owned()
    };
    if base.ends_with('e') && base.len() >= 4 {
        base.pop();
    }
    Cow::Owned(base)
}

/// A page's terms with their weights, in term order.
fn page_terms(record: &Record, english: bool) -> PageTerms {
    let mut counts: BTreeMap<String, u32> = BTreeMap::new();
    for term in terms(&record.text, english) {
        *counts.entry(term).or_default() += 1;
    }
    for term in terms(&record.title, english) {
        *counts.entry(term).or_default() += TITLE_WEIGHT - 1;
    }
    PageTerms {
        terms: Packed::new(counts.keys().map(String::as_str)),
        weights: counts.values().copied().collect(),
    }
}

/// How many first characters of a term name its shard in an index of `pages` pages: one
/// under a thousand pages (a few dozen files, each read and written by every build), two
/// above (so a query's shards stay a few hundred KB at 12,000 pages).
fn width(pages: usize) -> usize {
    if pages < 1000 { 1 } else { 2 }
}

/// The shard of a term: its first `width` characters' UTF-8 bytes, in hex.
fn shard(term: &str, width: usize) -> String {
    let end = term
        .char_indices()
        .nth(width)
        .map_or(term.len(), |(i, _)| i);
    term[..end].bytes().map(|b| format!("{b:02x}")).collect()
}

/// The reader's `meta.json`.
#[derive(Debug, Serialize, Deserialize)]
struct Meta {
    format: u32,
    language: String,
    stem: bool,
    pages: usize,
    chunk: usize,
    width: usize,
    shards: Vec<String>,
    version: String,
}

/// One searched page on its way into the index.
struct Entry {
    record: Record,
    hash: String,
    /// Its terms, when they had to be worked out (its hash is not the previous build's).
    terms: Option<PageTerms>,
}

/// What an index build did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Indexed {
    /// Pages in the index.
    pub pages: usize,
    /// Pages whose terms were worked out; the others' came from the previous build.
    pub anew: usize,
}

/// The previous build's index, as its `pages.txt` lists it.
struct Earlier<'p> {
    read: Previous<'p>,
    /// URL and hash of each page, in page order.
    pages: Vec<(String, String)>,
    meta: Meta,
    /// The records of the `p-<n>.json` files read so far, by `n`, until taken.
    chunks: Mutex<HashMap<usize, Vec<Option<Record>>>>,
}

impl<'p> Earlier<'p> {
    /// The previous build's index, when it is there and of this format, version and language.
    fn read(read: Previous<'p>, header: &str) -> Option<Self> {
        let listing = read(&format!("{FOLDER}/pages.txt"))?;
        let listing = std::str::from_utf8(&listing).ok()?;
        let mut lines = listing.lines();
        if lines.next()? != header {
            return None;
        }
        let pages = lines
            .map(|line| {
                let (hash, url) = line.split_once(' ')?;
                Some((url.to_owned(), hash.to_owned()))
            })
            .collect::<Option<Vec<_>>>()?;
        let meta: Meta = serde_json::from_slice(&read(&format!("{FOLDER}/meta.json"))?).ok()?;
        (meta.pages == pages.len()).then_some(Earlier {
            read,
            pages,
            meta,
            chunks: Mutex::default(),
        })
    }

    /// The record of page `page` as this index holds it, each page's once.
    fn take_record(&self, page: usize) -> Option<Record> {
        let mut chunks = self.chunks.lock().expect("no panic holds the lock");
        let chunk = match chunks.entry(page / CHUNK) {
            std::collections::hash_map::Entry::Occupied(o) => o.into_mut(),
            std::collections::hash_map::Entry::Vacant(v) => {
                let records: Vec<Record> = self.json(&format!("p-{}.json", page / CHUNK))?;
                v.insert(records.into_iter().map(Some).collect())
            }
        };
        chunk.get_mut(page % CHUNK)?.take()
    }

    fn json<T: for<'de> Deserialize<'de>>(&self, name: &str) -> Option<T> {
        serde_json::from_slice(&(self.read)(&format!("{FOLDER}/{name}"))?).ok()
    }
}

/// The search index, fed the searched pages' records in any order (from the rendering's
/// threads, which work out the terms of every page the previous build did not have as it is).
pub struct Indexer<'p> {
    english: bool,
    language: String,
    header: String,
    earlier: Option<Earlier<'p>>,
    /// The previous build's hash and page number of each URL.
    known: HashMap<String, (String, usize)>,
    entries: Mutex<Vec<Option<Entry>>>,
}

impl<'p> Indexer<'p> {
    /// An indexer of `count` records, ranked `0..count` by path, for pages in `language`,
    /// reusing what it can of the index `previous` reads.
    pub fn start(count: usize, language: &str, previous: Previous<'p>) -> Indexer<'p> {
        let header = format!(
            "benchsite-search {FORMAT} {language} {}",
            env!("CARGO_PKG_VERSION")
        );
        let earlier = Earlier::read(previous, &header);
        let known = earlier
            .as_ref()
            .map(|e| {
                e.pages
                    .iter()
                    .enumerate()
                    .map(|(page, (url, hash))| (url.clone(), (hash.clone(), page)))
                    .collect()
            })
            .unwrap_or_default();
        Indexer {
            english: language == "en" || language.starts_with("en-"),
            language: language.to_owned(),
            header,
            earlier,
            known,
            entries: Mutex::new((0..count).map(|_| None).collect()),
        }
    }

    /// Takes the record of rank `rank`, working out its terms unless the previous build
    /// indexed the same content at the same URL.
    pub fn add(&self, rank: usize, record: Record) {
        let hash = record.hash();
        let terms = (self.known.get(&record.url).map(|(h, _)| h) != Some(&hash))
            .then(|| page_terms(&record, self.english));
        self.entries.lock().expect("no panic holds the lock")[rank] = Some(Entry {
            record,
            hash,
            terms,
        });
    }

    /// Takes the record of rank `rank`, the page at `path` (`runs/x/index.html`), as the
    /// previous index has it, for a page whose bytes are the ones that index read; whether
    /// it had it (the record's hash is the one its listing gives).
    pub fn add_kept(&self, rank: usize, path: &str) -> bool {
        let url = format!("/{}", path.strip_suffix("index.html").unwrap_or(path));
        let (Some(earlier), Some((hash, page))) = (&self.earlier, self.known.get(&url)) else {
            return false;
        };
        let Some(record) = earlier.take_record(*page) else {
            return false;
        };
        if record.url != url || record.hash() != *hash {
            return false;
        }
        self.entries.lock().expect("no panic holds the lock")[rank] = Some(Entry {
            record,
            hash: hash.clone(),
            terms: None,
        });
        true
    }

    /// The index, as files to put under [`FOLDER`], once every record is in.
    pub fn finish(self) -> Result<(Vec<PageFile>, Indexed), SiteError> {
        let entries = self.entries.into_inner().expect("no panic holds the lock");
        let mut entries: Vec<Entry> = entries
            .into_iter()
            .enumerate()
            .map(|(rank, entry)| {
                entry.ok_or_else(|| SiteError::Search(format!("page {rank} was never indexed")))
            })
            .collect::<Result<_, _>>()?;
        let width = width(entries.len());
        let same_pages = self.earlier.as_ref().is_some_and(|e| {
            e.pages.len() == entries.len()
                && e.pages
                    .iter()
                    .zip(&entries)
                    .all(|((url, _), entry)| *url == entry.record.url)
        });
        let shards = match (&self.earlier, same_pages) {
            (Some(earlier), true) => patched(earlier, &entries, self.english, width),
            _ => None,
        };
        let shards = match shards {
            Some(shards) => shards,
            None => {
                entries
                    .par_iter_mut()
                    .filter(|entry| entry.terms.is_none())
                    .for_each(|entry| entry.terms = Some(page_terms(&entry.record, self.english)));
                whole(&entries, width)
            }
        };
        let indexed = Indexed {
            pages: entries.len(),
            anew: entries.iter().filter(|e| e.terms.is_some()).count(),
        };
        let mut files = Vec::with_capacity(shards.len() + entries.len() / CHUNK + 3);
        let mut listing = self.header.clone();
        let mut version = Sha256::new();
        for entry in &entries {
            listing.push('\n');
            listing.push_str(&entry.hash);
            listing.push(' ');
            listing.push_str(&entry.record.url);
            version.update(entry.hash.as_bytes());
        }
        listing.push('\n');
        let meta = Meta {
            format: FORMAT,
            language: self.language,
            stem: self.english,
            pages: entries.len(),
            chunk: CHUNK,
            width,
            shards: shards.keys().cloned().collect(),
            version: version
                .finalize()
                .iter()
                .take(6)
                .map(|b| format!("{b:02x}"))
                .collect(),
        };
        let file = |name: &str, bytes: Vec<u8>| (format!("{FOLDER}/{name}"), Bytes::from(bytes));
        files.push(file("meta.json", json(&meta)));
        files.push(file("pages.txt", listing.into_bytes()));
        for (n, chunk) in entries.chunks(CHUNK).enumerate() {
            let records: Vec<&Record> = chunk.iter().map(|e| &e.record).collect();
            files.push(file(&format!("p-{n}.json"), json(&records)));
        }
        for (key, bytes) in shards {
            files.push((format!("{FOLDER}/t-{key}.json"), bytes));
        }
        Ok((files, indexed))
    }
}

fn json<T: Serialize>(value: &T) -> Vec<u8> {
    serde_json::to_vec(value).expect("plain data serializes")
}

/// A shard's terms with their postings.
type Postings = BTreeMap<String, Vec<u32>>;

/// Every shard from every page's terms.
fn whole(entries: &[Entry], width: usize) -> BTreeMap<String, Bytes> {
    let mut shards: BTreeMap<String, Postings> = BTreeMap::new();
    for (page, entry) in entries.iter().enumerate() {
        for (term, weight) in entry.terms.iter().flat_map(PageTerms::iter) {
            shards
                .entry(shard(term, width))
                .or_default()
                .entry(term.to_owned())
                .or_default()
                .extend([page as u32, weight]);
        }
    }
    shards
        .into_iter()
        .map(|(key, postings)| (key, Bytes::from(json(&postings))))
        .collect()
}

/// The shards as the previous build's with the changed pages' postings replaced, when every
/// file needed is there and at most half the pages changed (past that, indexing every page
/// reads less); the other shards are the previous bytes. Its work grows with the changed
/// pages' terms and the shards they touch, not with their product.
fn patched(
    earlier: &Earlier<'_>,
    entries: &[Entry],
    english: bool,
    width: usize,
) -> Option<BTreeMap<String, Bytes>> {
    let changed: BTreeSet<usize> = entries
        .iter()
        .zip(&earlier.pages)
        .enumerate()
        .filter(|(_, (entry, (_, hash)))| entry.hash != *hash)
        .map(|(page, _)| page)
        .collect();
    if changed.len() * 2 > entries.len() {
        return None;
    }
    // The shards the changed pages' old terms fall in, and their new terms by shard.
    let mut dirty = BTreeSet::new();
    let mut added: HashMap<String, Vec<(&str, u32, u32)>> = HashMap::new();
    let mut chunks: HashMap<usize, Vec<Record>> = HashMap::new();
    for &page in &changed {
        let chunk = match chunks.entry(page / CHUNK) {
            std::collections::hash_map::Entry::Occupied(o) => o.into_mut(),
            std::collections::hash_map::Entry::Vacant(v) => {
                v.insert(earlier.json(&format!("p-{}.json", page / CHUNK))?)
            }
        };
        let old = chunk.get(page % CHUNK)?;
        dirty.extend(
            page_terms(old, english)
                .iter()
                .map(|(t, _)| shard(t, width)),
        );
        for (term, weight) in entries[page].terms.as_ref()?.iter() {
            let key = shard(term, width);
            dirty.insert(key.clone());
            added
                .entry(key)
                .or_default()
                .push((term, page as u32, weight));
        }
    }
    let before: BTreeSet<&String> = earlier.meta.shards.iter().collect();
    let mut shards = BTreeMap::new();
    for key in &earlier.meta.shards {
        if !dirty.contains(key) {
            shards.insert(
                key.clone(),
                (earlier.read)(&format!("{FOLDER}/t-{key}.json"))?,
            );
        }
    }
    for key in dirty {
        let mut postings: Postings = match before.contains(&key) {
            true => earlier.json(&format!("t-{key}.json"))?,
            false => Postings::new(),
        };
        for list in postings.values_mut() {
            let kept: Vec<u32> = list
                .chunks(2)
                .filter(|pair| !changed.contains(&(pair[0] as usize)))
                .flatten()
                .copied()
                .collect();
            *list = kept;
        }
        // Each new posting joins its term's list, which stays in page order.
        let mut touched = BTreeSet::new();
        for (term, page, weight) in added.remove(&key).unwrap_or_default() {
            postings
                .entry(term.to_owned())
                .or_default()
                .extend([page, weight]);
            touched.insert(term);
        }
        for term in touched {
            let list = postings.get_mut(term).expect("just added");
            let mut pairs: Vec<[u32; 2]> = list.chunks(2).map(|p| [p[0], p[1]]).collect();
            pairs.sort_by_key(|pair| pair[0]);
            *list = pairs.concat();
        }
        postings.retain(|_, list| !list.is_empty());
        if !postings.is_empty() {
            shards.insert(key, Bytes::from(json(&postings)));
        }
    }
    Some(shards)
}

/// The search index of a rendered site's searched pages, built alone (a build builds it
/// beside the rendering): the files under `search/data/`, and what indexing took. The index
/// the site already holds, if any, is reused as a rebuild reuses the previous site's.
pub fn index_site(site: &Site, language: &str) -> Result<(Vec<PageFile>, Indexed), SiteError> {
    let searched: Vec<(&String, &Bytes, &str)> = site
        .files
        .iter()
        .filter_map(|(path, bytes)| Some((path, bytes, routes::searched(path)?)))
        .collect();
    let previous = |path: &str| site.files.get(path).cloned();
    let indexer = Indexer::start(searched.len(), language, &previous);
    for (rank, (path, html, noun)) in searched.into_iter().enumerate() {
        let html = std::str::from_utf8(html).unwrap_or_default();
        indexer.add(rank, Record::of(path, noun, html));
    }
    indexer.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_s_terms_come_in_term_order_with_their_counts_and_the_title_s_weight() {
        let record = Record {
            url: "/x/".into(),
            title: "zeta".into(),
            kind: "Run".into(),
            text: "mtp zeta eagle mtp é".into(),
        };
        let terms = page_terms(&record, false);
        assert_eq!(
            terms.iter().collect::<Vec<_>>(),
            [("eagle", 1), ("mtp", 2), ("zeta", 1 + 7), ("é", 1)]
        );
        assert_eq!(
            page_terms(
                &Record {
                    text: String::new(),
                    title: String::new(),
                    ..record
                },
                false
            )
            .iter()
            .count(),
            0
        );
    }

    #[test]
    fn a_page_is_found_by_the_text_of_its_marked_element() {
        let html = r#"<html><body><nav><div>Runs</div></nav><div class="record-head" data-pagefind-body><h1>qwen &amp; co</h1><div class="narrative"><div>deep <em>note</em></div></div></div><table><tr><td>1.0</td></tr></table></body></html>"#;
        let record = Record::of("runs/q/index.html", "run", html);
        assert_eq!(record.url, "/runs/q/");
        assert_eq!(record.title, "qwen & co");
        assert_eq!(record.kind, "Run");
        assert_eq!(record.text, "qwen & co deep note");
        assert_eq!(
            Record::of("x/index.html", "model", "<p>whole</p>").text,
            "whole",
            "a page without the marker is read whole"
        );
    }

    #[test]
    /// When this test must change, so must [`FORMAT`]: an index made by the old rules would
    /// otherwise be reused.
    fn words_are_stemmed_and_compounds_kept_whole() {
        assert_eq!(
            terms(
                "Decoding qwen36-moe-MTP at 3.5 tok/s; caches (cached).",
                true
            ),
            [
                "decod",
                "qwen36",
                "moe",
                "mtp",
                "qwen36-moe-mtp",
                "at",
                "3",
                "5",
                "3.5",
                "tok",
                "s",
                "tok/s",
                "cach",
                "cach"
            ]
        );
        for (word, stemmed) in [
            ("decode", "decod"),
            ("decodes", "decod"),
            ("decoded", "decod"),
            ("latencies", "latency"),
            ("latency", "latency"),
            ("process", "process"),
            ("processes", "process"),
            ("using", "using"),
            ("tokens", "token"),
            ("vllm", "vllm"),
            ("fp8", "fp8"),
        ] {
            assert_eq!(stem(word, true), stemmed, "{word}");
        }
        assert_eq!(stem("decoding", false), "decoding");
    }

    fn record(name: &str, text: &str) -> Record {
        Record {
            url: format!("/runs/{name}/"),
            title: name.to_owned(),
            kind: "Run".into(),
            text: format!("{name} {text}"),
        }
    }

    fn index(records: &[Record], previous: Previous<'_>) -> (Vec<PageFile>, Indexed) {
        let indexer = Indexer::start(records.len(), "en", previous);
        for (rank, record) in records.iter().enumerate().rev() {
            indexer.add(rank, record.clone());
        }
        indexer.finish().unwrap()
    }

    fn file<'f>(files: &'f [PageFile], name: &str) -> &'f Bytes {
        &files
            .iter()
            .find(|(path, _)| *path == format!("{FOLDER}/{name}"))
            .unwrap_or_else(|| panic!("{name}"))
            .1
    }

    #[test]
    fn postings_weigh_title_words_and_name_pages_in_path_order() {
        let records = [
            record("a", "speculative decoding, decoded"),
            record("b", "mtp decode"),
        ];
        let (files, indexed) = index(&records, &no_previous);
        assert_eq!(indexed, Indexed { pages: 2, anew: 2 });
        let meta: serde_json::Value = serde_json::from_slice(file(&files, "meta.json")).unwrap();
        assert_eq!(meta["pages"], 2);
        assert_eq!(meta["chunk"], CHUNK);
        assert_eq!(meta["width"], 1);
        assert_eq!(shard("qwen", 2), "7177");
        assert_eq!(shard("é", 2), "c3a9");
        // `d` is 64 in UTF-8.
        let d: Postings = serde_json::from_slice(file(&files, "t-64.json")).unwrap();
        assert_eq!(d["decod"], [0, 2, 1, 1]);
        // The title `b` counts TITLE_WEIGHT; its text holds it once more.
        let b: Postings = serde_json::from_slice(file(&files, "t-62.json")).unwrap();
        assert_eq!(b["b"], [1, TITLE_WEIGHT]);
        let pages: Vec<Record> = serde_json::from_slice(file(&files, "p-0.json")).unwrap();
        assert_eq!(pages, records);
    }

    #[test]
    fn a_rebuild_indexes_only_what_changed_and_writes_what_indexing_everything_writes() {
        // Under and over a thousand pages: shards of one and of two characters.
        for count in [70, 1100] {
            let records: Vec<Record> = (0..count)
                .map(|i| record(&format!("r{i:04}"), &format!("decode {} fp8", i * 7)))
                .collect();
            rebuilds(records);
        }
    }

    fn rebuilds(mut records: Vec<Record>) {
        let count = records.len();
        let (first, indexed) = index(&records, &no_previous);
        assert_eq!(indexed.anew, count);
        let site: BTreeMap<String, Bytes> = first.iter().cloned().collect();
        let previous = |path: &str| site.get(path).cloned();
        let (again, indexed) = index(&records, &previous);
        assert_eq!(
            indexed,
            Indexed {
                pages: count,
                anew: 0
            }
        );
        assert_eq!(again, first);
        // One page changes: one page indexed, the files those of an index made from nothing.
        records[40].text = "r0040 mtp speculative".into();
        let (patched, indexed) = index(&records, &previous);
        assert_eq!(
            indexed,
            Indexed {
                pages: count,
                anew: 1
            }
        );
        assert_eq!(patched, index(&records, &no_previous).0);
        // A few pages change, the last and first among them: the same.
        for page in [0, 7, 8, count - 1] {
            records[page].text = format!("{} fp4 decode", records[page].title);
        }
        let (patched, indexed) = index(&records, &previous);
        assert_eq!(indexed.anew, 5);
        assert_eq!(patched, index(&records, &no_previous).0);
        // Every page changes (a template edit that reaches each one): the same, made whole.
        let mut every = records.clone();
        for record in &mut every {
            record.text.push_str(" eagle");
        }
        let (all, indexed) = index(&every, &previous);
        assert_eq!(indexed.anew, count);
        assert_eq!(all, index(&every, &no_previous).0);
        // A page more renumbers the pages after it: everything is indexed.
        records.insert(3, record("r0002b", "new"));
        let (_, indexed) = index(&records, &previous);
        assert_eq!(indexed.anew, count + 1);
        // Another language's index is not reused.
        let indexer = Indexer::start(1, "de", &previous);
        indexer.add(0, records[0].clone());
        assert_eq!(indexer.finish().unwrap().1.anew, 1);
    }
}

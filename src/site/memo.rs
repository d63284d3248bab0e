//! What the last build's templates made, kept beside the output (`.site.memo`), so that a
//! rebuild takes a page unchanged from the site it replaces instead of computing it again.
//!
//! A page has two keys, each a 128-bit XXH3. Both start from the template set, this program
//! (its version and its executable's size and time, for the escaping and filters it
//! registers) and the `site` context.
//! - Its inputs key ([`Memo::inputs_key`]) adds a fingerprint of everything the catalog is
//!   computed from (the records, settings, profiles, baselines and logs; `inputs.rs` makes it),
//!   the page's path and template, and its narrative and front matter. A page whose inputs
//!   key the last build had is taken whole: its bytes, its data files and its scan, and its
//!   view is not computed. This is a rebuild after a Markdown edit, or with nothing changed.
//! - Its context key ([`Memo::key`]) adds its template's name and its own context, the view
//!   computed. A page whose inputs changed but whose context did not (a setting only some
//!   views read) takes its bytes, and its link scan when it has no paged tables.
//!
//! The memo maps each key the last build rendered to the hash of the bytes it gave, the data
//! files the page's view wrote (paths and hashes) and the page's link scan (its ids and links,
//! with its rows'). A page is reused only when the current site's files at its paths have
//! exactly those bytes, so a memo that is stale, or a file edited by hand in the output, costs a
//! render and nothing else. The hashes guard against change, not against an adversary:
//! whoever could choose colliding inputs writes the project anyway.
//!
//! The file's format is `memo_file.rs`'s.
use std::collections::{BTreeMap, HashMap};

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use bytes::Bytes;
use serde_json::Value;
use xxhash_rust::xxh3::xxh3_128;

use super::links::Scan;
use super::memo_file::{self, Feed, Kept, Last, Made, of_bytes, of_value, read};
pub use super::memo_file::{Files, Hash, Links};

/// The memo beside the output `out`: `.site.memo` for `site`.
fn path_beside(out: &Path) -> PathBuf {
    let name = out
        .file_name()
        .map_or_else(|| "site".into(), |n| n.to_string_lossy().into_owned());
    let parent = match out.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    parent.join(format!(".{name}.memo"))
}

/// What identifies this executable's rendering: its version, and its file's size and
/// modification time (a rebuilt benchsite may escape or format differently); none when the
/// executable cannot be looked at, and then nothing is reused.
fn program() -> Option<Vec<u8>> {
    let meta = std::fs::metadata(std::env::current_exe().ok()?).ok()?;
    let since = meta
        .modified()
        .ok()?
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?;
    let mut id = env!("CARGO_PKG_VERSION").as_bytes().to_vec();
    id.extend(meta.len().to_le_bytes());
    id.extend(since.as_nanos().to_le_bytes());
    Some(id)
}

/// A page taken whole from the last build: its bytes, its data files' paths and bytes, and
/// its scan with the rows of its data files.
pub struct Taken {
    /// The page's bytes.
    pub bytes: Bytes,
    /// Its data files, by their paths in the site.
    pub files: Vec<(String, Bytes)>,
    /// Its ids and links, with its rows'.
    pub scan: Scan,
}

/// The last build's renders, and this build's as they are made.
pub struct Memo {
    /// The site the memo describes: the output being replaced.
    out: PathBuf,
    /// Where the memo is kept.
    file: PathBuf,
    /// The program and the template set.
    salt: [u8; 16],
    /// What every page's view is computed from ([`Memo::open`]'s `data`).
    data: [u8; 16],
    /// The last build's pages.
    kept: Vec<Kept>,
    /// Their places in `kept` by context key, and by inputs key.
    by_key: HashMap<Hash, usize>,
    by_inputs: HashMap<Hash, usize>,
    /// The last build's memo, where the scans are.
    scans: Option<std::fs::File>,
    /// This build's, reused or rendered.
    made: Mutex<Vec<Made>>,
    /// The last build's files beside the pages, by inputs key, and this build's.
    beside: HashMap<Hash, Files>,
    made_beside: Mutex<Vec<(Hash, Files)>>,
    /// What the last build's link check read.
    links: Option<Links>,
    /// Pages this build took from the last.
    reused: AtomicUsize,
}

impl Memo {
    /// The memo of the site at `out`, for templates whose sources hash to `templates` and
    /// views computed from what hashes to `data` (the records and everything else the
    /// catalog reads). A memo that is missing or unreadable is empty.
    pub fn open(out: &Path, templates: &[u8; 32], data: [u8; 16]) -> Self {
        let file = path_beside(out);
        let program = program();
        let salt = xxh3_128(&[program.as_deref().unwrap_or_default(), templates].concat());
        let (last, scans) = match program.is_some().then(|| read(&file)) {
            Some(Ok((last, scans))) => (last, Some(scans)),
            _ => (Last::default(), None),
        };
        let Last {
            pages: kept,
            beside,
            links,
        } = last;
        let by_key = kept.iter().enumerate().map(|(i, k)| (k.key, i)).collect();
        let by_inputs = kept
            .iter()
            .enumerate()
            .filter_map(|(i, k)| Some((k.inputs?, i)))
            .collect();
        Self {
            out: out.to_owned(),
            kept,
            by_key,
            by_inputs,
            scans,
            file,
            salt: salt.to_le_bytes(),
            data,
            made: Mutex::new(Vec::new()),
            beside,
            made_beside: Mutex::new(Vec::new()),
            links,
            reused: AtomicUsize::new(0),
        }
    }

    /// The key every page's shares: the program, the templates and the `site` context.
    pub fn scope(&self, site: &Value) -> [u8; 16] {
        of_value(&[&self.salt], site).to_le_bytes()
    }

    /// The key of a page rendered through `template` with context `page`, in `scope`.
    pub fn key(&self, scope: &[u8; 16], template: &str, page: &Value) -> Hash {
        of_value(&[scope, template.as_bytes()], page)
    }

    /// The key of a page at `path` rendered through `template` in `scope` whose view is
    /// computed from the memo's `data` alone, and whose context adds `rest` (its narrative
    /// and front matter) to the view: a page of the same inputs key has the same bytes and
    /// data files, without its view being computed.
    pub fn inputs_key(&self, scope: &[u8; 16], template: &str, path: &str, rest: &Value) -> Hash {
        of_value(
            &[scope, &self.data, template.as_bytes(), path.as_bytes()],
            rest,
        )
    }

    /// The bytes of `path` in the last build's site when they hash to `hash`.
    fn read_as(&self, path: &str, hash: Hash) -> Option<Bytes> {
        let bytes = std::fs::read(self.out.join(path)).ok()?;
        (of_bytes(&bytes) == hash).then(|| bytes.into())
    }

    /// Each of `files` as the last build's site holds it, when all are as the memo has them.
    fn read_all(&self, files: &Files) -> Option<Vec<(String, Bytes)>> {
        files
            .iter()
            .map(|(path, hash)| Some((path.clone(), self.read_as(path, *hash)?)))
            .collect()
    }

    /// The page the last build rendered into `file` from inputs of key `inputs`, with its
    /// data files and scan, when the last build's site still holds all of them as rendered.
    pub fn take(&self, file: &str, inputs: Hash) -> Option<Taken> {
        let kept = &self.kept[*self.by_inputs.get(&inputs)?];
        let bytes = self.read_as(file, kept.bytes)?;
        let files = self.read_all(&kept.files)?;
        let scan = self.scan_at(kept.scan?)?;
        self.reused.fetch_add(1, Ordering::Relaxed);
        self.note(Made {
            file: file.to_owned(),
            key: kept.key,
            inputs: Some(inputs),
            bytes: kept.bytes,
            own_scan: kept.own_scan,
            files: kept.files.clone(),
        });
        Some(Taken { bytes, files, scan })
    }

    /// The files beside the pages (not a page's own) that the last build made from inputs of
    /// key `inputs`, when its site still holds them as made; kept for the next build.
    pub fn take_beside(&self, inputs: Hash) -> Option<Vec<(String, Bytes)>> {
        let files = self.beside.get(&inputs)?;
        let taken = self.read_all(files)?;
        self.keep_beside(inputs, files.clone());
        Some(taken)
    }

    /// Notes that inputs of key `inputs` made `files` beside the pages.
    pub fn keep_beside(&self, inputs: Hash, files: Files) {
        self.made_beside
            .lock()
            .expect("no panic holds the lock")
            .push((inputs, files));
    }

    /// The bytes the last build rendered for `key`, read from its site's `file` when they are
    /// still there, with the page's scan when it was kept and `own_scan` (the page has no
    /// paged tables). `inputs` and `files` are the page's in this build, kept for the next.
    pub fn reuse(
        &self,
        file: &str,
        key: Hash,
        inputs: Option<Hash>,
        own_scan: bool,
        files: Files,
    ) -> Option<(Bytes, Option<Scan>)> {
        let kept = &self.kept[*self.by_key.get(&key)?];
        let bytes = self.read_as(file, kept.bytes)?;
        self.reused.fetch_add(1, Ordering::Relaxed);
        let scan = kept
            .scan
            .filter(|_| own_scan && kept.own_scan)
            .and_then(|at| self.scan_at(at));
        self.note(Made {
            file: file.to_owned(),
            key,
            inputs,
            bytes: kept.bytes,
            own_scan,
            files,
        });
        Some((bytes, scan))
    }

    /// The scan at `offset` of the last build's memo, `length` bytes long.
    fn scan_at(&self, (offset, length): (u64, u32)) -> Option<Scan> {
        use std::os::unix::fs::FileExt;
        let mut bytes = vec![0; length as usize];
        // At an offset, so that pages taken on every core do not wait on one another.
        self.scans
            .as_ref()?
            .read_exact_at(&mut bytes, offset)
            .ok()?;
        let mut rest = bytes.as_slice();
        let scan = Scan::read_from(&mut rest).ok()?;
        rest.is_empty().then_some(scan)
    }

    /// Notes that `key` (and `inputs`, when the page has them) rendered `bytes` into `file`
    /// with data `files`, and whether the file's scan will be its own.
    pub fn keep(
        &self,
        file: &str,
        key: Hash,
        inputs: Option<Hash>,
        bytes: &[u8],
        own_scan: bool,
        files: Files,
    ) {
        self.note(Made {
            file: file.to_owned(),
            key,
            inputs,
            bytes: of_bytes(bytes),
            own_scan,
            files,
        });
    }

    /// Adds a page to this build's memo.
    fn note(&self, made: Made) {
        self.made
            .lock()
            .expect("no panic holds the lock")
            .push(made);
    }

    /// What the link check reads, hashed: the program (its checker), the site's base path
    /// and every page's scan, and each file's path. A site whose pages hash the same as the
    /// one the last build's check passed on, and which still has every file that one had,
    /// passes again unchecked ([`Memo::links_checked`]): a file added breaks no link.
    pub fn links_digest(
        &self,
        base: &str,
        files: &std::collections::HashSet<String>,
        scans: &BTreeMap<String, Scan>,
    ) -> Links {
        use rayon::prelude::*;
        let mut files: Vec<Hash> = files.par_iter().map(|f| of_bytes(f.as_bytes())).collect();
        files.par_sort_unstable();
        let each: Vec<Hash> = scans
            .par_iter()
            .map(|(path, scan)| {
                let mut bytes = path.as_bytes().to_vec();
                bytes.push(0);
                scan.write_to(&mut bytes).expect("writing to memory");
                of_bytes(&bytes)
            })
            .collect();
        let mut feed = Feed::new();
        feed.bytes(&self.salt);
        feed.length(base.len());
        feed.bytes(base.as_bytes());
        feed.length(each.len());
        for page in each {
            feed.bytes(&page.to_le_bytes());
        }
        Links {
            pages: feed.finish(),
            files,
        }
    }

    /// Whether the last build's link check passed on pages of these links, with no file this
    /// site lacks.
    pub fn links_checked(&self, links: &Links) -> bool {
        let Some(last) = &self.links else {
            return false;
        };
        // Both sorted: walk the new files once.
        let mut now = links.files.iter().peekable();
        last.pages == links.pages
            && last.files.iter().all(|file| {
                while now.next_if(|f| *f < file).is_some() {}
                now.next_if_eq(&file).is_some()
            })
    }

    /// How many pages this build took from the last.
    pub fn reused(&self) -> usize {
        self.reused.load(Ordering::Relaxed)
    }

    /// Writes this build's memo beside the output it describes, atomically, with the scans
    /// of its pages in `scans` (each page's, by file, with its data files' rows) and the
    /// digest of what its link check read, which passed. A memo that
    /// cannot be written costs the next build its reuse, not its correctness, so a failure
    /// only removes the old one.
    pub fn save(self, scans: &BTreeMap<String, Scan>, links: &Links) {
        let made = self.made.into_inner().expect("no panic holds the lock");
        let beside = self
            .made_beside
            .into_inner()
            .expect("no panic holds the lock");
        let written = memo_file::write(&self.file, &made, &beside, scans, links);
        if written.is_err() {
            let _ = std::fs::remove_file(&self.file);
        }
    }
}

/// The hash of a data file's bytes, as [`Files`] has it.
pub fn of_file(bytes: &[u8]) -> Hash {
    of_bytes(bytes)
}

/// A fingerprint of `parts`, each with its length: what [`Memo::open`] takes as `data`.
pub fn fingerprint<'p>(parts: impl IntoIterator<Item = &'p [u8]>) -> [u8; 16] {
    let mut feed = Feed::new();
    for part in parts {
        feed.length(part.len());
        feed.bytes(part);
    }
    feed.finish().to_le_bytes()
}

#[cfg(test)]
mod tests {
    use super::super::memo_file::MAGIC;
    use super::*;
    use serde_json::json;

    #[test]
    fn a_key_changes_with_the_templates_the_site_the_template_and_the_page() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("site");
        let memo = Memo::open(&out, &[1; 32], [0; 16]);
        let scope = memo.scope(&json!({"title": "A"}));
        let key = memo.key(&scope, "run.html", &json!({"n": 1}));
        assert_eq!(key, memo.key(&scope, "run.html", &json!({"n": 1})));
        assert_ne!(key, memo.key(&scope, "sweep.html", &json!({"n": 1})));
        for other in [
            json!({"n": 2}),
            json!({"n": 1.0}),
            json!({"n": "1"}),
            json!({"n": [1]}),
            json!({"m": 1}),
            json!({"n": 1, "m": null}),
            json!([{"n": 1}]),
        ] {
            assert_ne!(key, memo.key(&scope, "run.html", &other), "{other}");
        }
        // Strings and lists carry their lengths: no two splits of the same text agree.
        assert_ne!(
            memo.key(&scope, "t", &json!(["ab", "c"])),
            memo.key(&scope, "t", &json!(["a", "bc"]))
        );
        assert_ne!(
            memo.key(&scope, "ab", &json!("c")),
            memo.key(&scope, "a", &json!("bc"))
        );
        let other_site = memo.scope(&json!({"title": "B"}));
        assert_ne!(key, memo.key(&other_site, "run.html", &json!({"n": 1})));
        let other_theme = Memo::open(&out, &[2; 32], [0; 16]);
        let scope = other_theme.scope(&json!({"title": "A"}));
        assert_ne!(key, other_theme.key(&scope, "run.html", &json!({"n": 1})));
    }

    fn scan_of(html: &str) -> Scan {
        super::super::links::scan_page(html.as_bytes())
    }

    #[test]
    fn a_page_is_reused_with_its_scan_only_while_the_site_holds_the_bytes_its_key_rendered() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("site");
        std::fs::create_dir_all(out.join("a")).unwrap();
        let page = r##"<p id="x"><a href="/b/">b</a></p>"##;
        std::fs::write(out.join("a/index.html"), page).unwrap();
        let memo = Memo::open(&out, &[0; 32], [0; 16]);
        let scope = memo.scope(&json!({}));
        let key = memo.key(&scope, "t.html", &json!({"a": 1}));
        assert!(
            memo.reuse("a/index.html", key, None, true, Vec::new())
                .is_none(),
            "nothing kept"
        );
        memo.keep("a/index.html", key, None, page.as_bytes(), true, Vec::new());
        let scans = BTreeMap::from([("a/index.html".to_owned(), scan_of(page))]);
        memo.save(&scans, &Links::default());
        assert!(dir.path().join(".site.memo").is_file());

        let memo = Memo::open(&out, &[0; 32], [0; 16]);
        let (bytes, scan) = memo
            .reuse("a/index.html", key, None, true, Vec::new())
            .unwrap();
        assert_eq!(bytes, page.as_bytes());
        let scan = scan.expect("the scan was kept");
        assert!(scan.has_id("x") && !scan.has_id("y"));
        assert!(
            memo.reuse("a/index.html", key + 1, None, true, Vec::new())
                .is_none(),
            "another key"
        );
        assert_eq!(memo.reused(), 1);
        // Saved again with the scan it took, the next build has it.
        memo.save(
            &BTreeMap::from([("a/index.html".to_owned(), scan)]),
            &Links::default(),
        );
        let memo = Memo::open(&out, &[0; 32], [0; 16]);
        assert!(
            memo.reuse("a/index.html", key, None, true, Vec::new())
                .unwrap()
                .1
                .is_some()
        );
        // A page that now has paged tables gets its bytes and no scan.
        assert!(
            memo.reuse("a/index.html", key, None, false, Vec::new())
                .unwrap()
                .1
                .is_none()
        );
        // A page edited in the output, or gone, is rendered again.
        std::fs::write(out.join("a/index.html"), "<p>edited</p>").unwrap();
        assert!(
            memo.reuse("a/index.html", key, None, true, Vec::new())
                .is_none()
        );
        std::fs::remove_file(out.join("a/index.html")).unwrap();
        assert!(
            memo.reuse("a/index.html", key, None, true, Vec::new())
                .is_none()
        );
    }

    #[test]
    fn a_damaged_memo_is_empty() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("site");
        std::fs::create_dir_all(&out).unwrap();
        std::fs::write(out.join("p.html"), "<p id=a>x</p>").unwrap();
        let memo = Memo::open(&out, &[0; 32], [0; 16]);
        let key = memo.key(&memo.scope(&json!({})), "t.html", &json!({}));
        memo.keep("p.html", key, None, b"<p id=a>x</p>", true, Vec::new());
        memo.save(
            &BTreeMap::from([("p.html".to_owned(), scan_of("<p id=a>x</p>"))]),
            &Links::default(),
        );
        let file = dir.path().join(".site.memo");
        let good = std::fs::read(&file).unwrap();
        assert!(
            Memo::open(&out, &[0; 32], [0; 16])
                .reuse("p.html", key, None, true, Vec::new())
                .is_some()
        );
        // Cut short, one byte changed anywhere, a byte too many, or another file.
        let mut damaged = vec![good[..good.len() - 1].to_vec(), [&good[..], b"x"].concat()];
        for at in [0, MAGIC.len() + 3, MAGIC.len() + 8 + 20, good.len() - 1] {
            let mut changed = good.clone();
            changed[at] ^= 1;
            damaged.push(changed);
        }
        damaged.push(b"something else".to_vec());
        for bytes in damaged {
            std::fs::write(&file, &bytes).unwrap();
            assert!(
                Memo::open(&out, &[0; 32], [0; 16])
                    .reuse("p.html", key, None, true, Vec::new())
                    .is_none()
            );
        }
    }

    #[test]
    fn a_page_is_taken_whole_only_while_its_inputs_and_every_file_it_wrote_are_unchanged() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("site");
        std::fs::create_dir_all(out.join("m")).unwrap();
        let page = r#"<table data-src="/m/t"></table><a href="/x/">x</a>"#;
        let rows = r#"<tr id="r1"><td><a href="/runs/a/">a</a></td></tr>"#;
        std::fs::write(out.join("m/index.html"), page).unwrap();
        std::fs::write(out.join("m/t.1.rows.json"), rows).unwrap();
        let data = [7; 16];
        let memo = Memo::open(&out, &[0; 32], data);
        let scope = memo.scope(&json!({}));
        let inputs = memo.inputs_key(&scope, "m.html", "m/", &json!(["", null, null]));
        let key = memo.key(&scope, "m.html", &json!({"rows": 1}));
        let files = vec![("m/t.1.rows.json".to_owned(), of_file(rows.as_bytes()))];
        memo.keep(
            "m/index.html",
            key,
            Some(inputs),
            page.as_bytes(),
            false,
            files,
        );
        // The page's scan with its rows' ids and links.
        let mut read = super::super::html::read(page.as_bytes(), false);
        let scan = Scan::take(&mut read)
            .with_readings(vec![super::super::html::read(rows.as_bytes(), false)]);
        memo.save(
            &BTreeMap::from([("m/index.html".to_owned(), scan)]),
            &Links::default(),
        );

        let memo = Memo::open(&out, &[0; 32], data);
        assert!(
            memo.take("m/index.html", inputs + 1).is_none(),
            "other inputs"
        );
        let taken = memo.take("m/index.html", inputs).expect("taken whole");
        assert_eq!(taken.bytes, page.as_bytes());
        assert_eq!(
            taken.files,
            vec![("m/t.1.rows.json".to_owned(), Bytes::from(rows))]
        );
        assert!(taken.scan.has_id("r1"), "the rows' ids are in the scan");
        assert_eq!(memo.reused(), 1);
        // Its key is kept, and the page's scan is not its own: a page of the same context
        // takes its bytes, not that scan.
        memo.save(
            &BTreeMap::from([("m/index.html".to_owned(), taken.scan)]),
            &Links::default(),
        );
        let memo = Memo::open(&out, &[0; 32], data);
        let (_, scan) = memo
            .reuse("m/index.html", key, None, false, Vec::new())
            .unwrap();
        assert!(scan.is_none());
        // Other data, or a data file changed in the output: not taken.
        let other = Memo::open(&out, &[0; 32], [8; 16]);
        let scope = other.scope(&json!({}));
        let moved = other.inputs_key(&scope, "m.html", "m/", &json!(["", null, null]));
        assert_ne!(moved, inputs);
        assert!(other.take("m/index.html", moved).is_none());
        std::fs::write(out.join("m/t.1.rows.json"), "[]").unwrap();
        assert!(memo.take("m/index.html", inputs).is_none());
    }

    #[test]
    fn a_site_is_unchecked_only_when_its_links_are_those_the_last_check_passed_on() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("site");
        let files = |paths: &[&str]| -> std::collections::HashSet<String> {
            paths.iter().map(|p| p.to_string()).collect()
        };
        let scans = |html: &str| BTreeMap::from([("a/index.html".to_owned(), scan_of(html))]);
        let memo = Memo::open(&out, &[0; 32], [0; 16]);
        let site = files(&["a/index.html", "b/index.html", "b/t.csv"]);
        let page = r##"<p id="x"><a href="/b/">b</a></p>"##;
        let links = memo.links_digest("/", &site, &scans(page));
        assert!(!memo.links_checked(&links), "nothing was checked");
        assert_eq!(links, memo.links_digest("/", &site, &scans(page)));
        memo.save(&scans(page), &links);
        let memo = Memo::open(&out, &[0; 32], [0; 16]);
        assert!(memo.links_checked(&links));
        // A file added breaks no link.
        let more = files(&["a/index.html", "b/index.html", "b/t.csv", "c.csv"]);
        assert!(memo.links_checked(&memo.links_digest("/", &more, &scans(page))));
        // A file gone, another base path, a link or an id changed: checked again.
        for other in [
            memo.links_digest("/", &files(&["a/index.html", "b/index.html"]), &scans(page)),
            memo.links_digest(
                "/",
                &files(&["a/index.html", "b/t.csv", "c.csv"]),
                &scans(page),
            ),
            memo.links_digest("/r/", &site, &scans(page)),
            memo.links_digest("/", &site, &scans(r##"<p id="x"><a href="/c/">b</a></p>"##)),
            memo.links_digest("/", &site, &scans(r##"<p id="y"><a href="/b/">b</a></p>"##)),
        ] {
            assert!(!memo.links_checked(&other), "{other:?}");
        }
        // Another program or template set checks again.
        let other = Memo::open(&out, &[1; 32], [0; 16]);
        assert!(!other.links_checked(&other.links_digest("/", &site, &scans(page))));
    }
}

//! What the last build's templates made, kept beside the output (`.site.memo`), so that a
//! rebuild takes a page whose template context has not changed from the site it replaces
//! instead of running the template again, and takes its link scan instead of reading it.
//!
//! A page's key is a 128-bit XXH3 of everything its bytes are made from: the template set,
//! this program (its version and its executable's size and time, for the escaping and filters
//! it registers), the `site` context and the page's own context with its template's name. The
//! memo maps each key the last build rendered to the hash of the bytes it gave, and, for a
//! page without paged tables, to the page's link scan (its ids and links). A page is reused
//! only when the current site's file at its path has exactly those bytes, so a memo that is
//! stale, or a page edited by hand in the output, costs a render and nothing else. The hashes
//! guard against change, not against an adversary: whoever could choose colliding inputs
//! writes the project anyway.
//!
//! The file: `benchsite-memo 3\n`, the count of pages as a little-endian `u64`, each page's
//! key, bytes hash, a byte saying whether a scan follows, and the scan's length as a `u32` and
//! the scan ([`Scan::write_to`]), then the XXH3-128 of everything before it. A file that does
//! not read so is ignored whole. Opening it reads it through once, keeping each scan's place,
//! not the scan: a reused page's scan is read when it is taken, so a large report's scans
//! are not all in memory while its pages render.

use std::collections::{BTreeMap, HashMap};
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use bytes::Bytes;
use serde_json::Value;
use xxhash_rust::xxh3::{Xxh3, xxh3_128};

use super::links::Scan;

/// A key or a bytes hash.
pub type Hash = u128;

const MAGIC: &[u8] = b"benchsite-memo 3\n";

/// The hash of a page's bytes.
fn of_bytes(bytes: &[u8]) -> Hash {
    xxh3_128(bytes)
}

/// A hash fed in pieces, gathered into blocks so that small pieces cost little, whatever the
/// size of what is hashed (a page's context can be megabytes).
struct Feed {
    block: Vec<u8>,
    hash: Xxh3,
}

impl Feed {
    const BLOCK: usize = 64 * 1024;

    fn new() -> Self {
        Feed {
            block: Vec::with_capacity(Self::BLOCK),
            hash: Xxh3::new(),
        }
    }

    fn bytes(&mut self, bytes: &[u8]) {
        if self.block.len() + bytes.len() > Self::BLOCK {
            self.hash.update(&self.block);
            self.block.clear();
            if bytes.len() > Self::BLOCK {
                self.hash.update(bytes);
                return;
            }
        }
        self.block.extend_from_slice(bytes);
    }

    fn length(&mut self, n: usize) {
        self.bytes(&(n as u64).to_le_bytes());
    }

    /// Feeds `value` so that two values feed the same bytes only when they are equal: each
    /// part tagged, each string and list preceded by its length.
    fn value(&mut self, value: &Value) {
        match value {
            Value::Null => self.bytes(&[0]),
            Value::Bool(b) => self.bytes(&[1, u8::from(*b)]),
            Value::Number(n) => {
                if let Some(i) = n.as_i64() {
                    self.bytes(&[2]);
                    self.bytes(&i.to_le_bytes());
                } else if let Some(u) = n.as_u64() {
                    self.bytes(&[3]);
                    self.bytes(&u.to_le_bytes());
                } else {
                    self.bytes(&[4]);
                    self.bytes(&n.as_f64().unwrap_or(f64::NAN).to_bits().to_le_bytes());
                }
            }
            Value::String(s) => {
                self.bytes(&[5]);
                self.length(s.len());
                self.bytes(s.as_bytes());
            }
            Value::Array(items) => {
                self.bytes(&[6]);
                self.length(items.len());
                for item in items {
                    self.value(item);
                }
            }
            Value::Object(fields) => {
                self.bytes(&[7]);
                self.length(fields.len());
                for (name, item) in fields {
                    self.length(name.len());
                    self.bytes(name.as_bytes());
                    self.value(item);
                }
            }
        }
    }

    fn finish(mut self) -> Hash {
        self.hash.update(&self.block);
        self.hash.digest128()
    }
}

/// The hash of `parts`, each with its length, then `value`.
fn of_value(parts: &[&[u8]], value: &Value) -> Hash {
    let mut feed = Feed::new();
    for part in parts {
        feed.length(part.len());
        feed.bytes(part);
    }
    feed.value(value);
    feed.finish()
}

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

/// A reader that hashes and counts what it reads.
struct Hashing<R> {
    inner: R,
    hash: Xxh3,
    /// Bytes read so far.
    at: u64,
}

impl<R: Read> Read for Hashing<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.hash.update(&buf[..n]);
        self.at += n as u64;
        Ok(n)
    }
}

/// A writer that hashes what it writes.
struct Hashed<W> {
    inner: W,
    hash: Xxh3,
}

impl<W: Write> Write for Hashed<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hash.update(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

fn read_u128(input: &mut impl Read) -> std::io::Result<u128> {
    let mut bytes = [0; 16];
    input.read_exact(&mut bytes)?;
    Ok(u128::from_le_bytes(bytes))
}

/// A page the last build rendered: its bytes' hash, and where in the file its scan is.
struct Kept {
    bytes: Hash,
    /// The scan's offset and length.
    scan: Option<(u64, u32)>,
}

/// The memo's pages as the file at `path` has them.
fn read(path: &Path) -> std::io::Result<(HashMap<Hash, Kept>, std::fs::File)> {
    let invalid = || std::io::Error::from(std::io::ErrorKind::InvalidData);
    let file = std::fs::File::open(path)?;
    let mut input = Hashing {
        inner: BufReader::with_capacity(1 << 16, file.try_clone()?),
        hash: Xxh3::new(),
        at: 0,
    };
    let mut magic = vec![0; MAGIC.len()];
    input.read_exact(&mut magic)?;
    if magic != MAGIC {
        return Err(invalid());
    }
    let mut count = [0; 8];
    input.read_exact(&mut count)?;
    let count = u64::from_le_bytes(count) as usize;
    let mut kept = HashMap::with_capacity(count.min(1 << 20));
    let mut page = [0; 33];
    for _ in 0..count {
        input.read_exact(&mut page)?;
        let half = |from: usize| u128::from_le_bytes(page[from..from + 16].try_into().expect("16"));
        let (key, bytes) = (half(0), half(16));
        let scan = match page[32] {
            0 => None,
            1 => {
                let mut length = [0; 4];
                input.read_exact(&mut length)?;
                let length = u32::from_le_bytes(length);
                let at = input.at;
                let skipped = std::io::copy(
                    &mut Read::take(&mut input, u64::from(length)),
                    &mut std::io::sink(),
                )?;
                if skipped != u64::from(length) {
                    return Err(invalid());
                }
                Some((at, length))
            }
            _ => return Err(invalid()),
        };
        kept.insert(key, Kept { bytes, scan });
    }
    let computed = input.hash.digest128();
    let mut rest = input.inner;
    if read_u128(&mut rest)? != computed || rest.read(&mut [0])? != 0 {
        return Err(invalid());
    }
    Ok((kept, file))
}

/// One page of this build: its file, key and bytes' hash, and whether its scan is its own
/// (it has no paged tables, whose rows' links and ids a scan takes in).
struct Made {
    file: String,
    key: Hash,
    bytes: Hash,
    own_scan: bool,
}

/// The last build's renders, and this build's as they are made.
pub struct Memo {
    /// The site the memo describes: the output being replaced.
    out: PathBuf,
    /// Where the memo is kept.
    file: PathBuf,
    /// The program and the template set.
    salt: [u8; 16],
    /// The last build's pages by key.
    kept: HashMap<Hash, Kept>,
    /// The last build's memo, where the scans are.
    scans: Option<Mutex<std::fs::File>>,
    /// This build's, reused or rendered.
    made: Mutex<Vec<Made>>,
    /// Pages this build took from the last.
    reused: AtomicUsize,
}

impl Memo {
    /// The memo of the site at `out`, for templates whose sources hash to `templates`. A
    /// memo that is missing or unreadable is empty.
    pub fn open(out: &Path, templates: &[u8; 32]) -> Self {
        let file = path_beside(out);
        let program = program();
        let salt = xxh3_128(&[program.as_deref().unwrap_or_default(), templates].concat());
        let (kept, scans) = match program.is_some().then(|| read(&file)) {
            Some(Ok((kept, scans))) => (kept, Some(Mutex::new(scans))),
            _ => (HashMap::new(), None),
        };
        Self {
            out: out.to_owned(),
            kept,
            scans,
            file,
            salt: salt.to_le_bytes(),
            made: Mutex::new(Vec::new()),
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

    /// The bytes the last build rendered for `key`, read from its site's `file` when they are
    /// still there, with the page's scan when it was kept and `own_scan` (the page has no
    /// paged tables).
    pub fn reuse(&self, file: &str, key: Hash, own_scan: bool) -> Option<(Bytes, Option<Scan>)> {
        let kept = self.kept.get(&key)?;
        let bytes = std::fs::read(self.out.join(file)).ok()?;
        if of_bytes(&bytes) != kept.bytes {
            return None;
        }
        self.reused.fetch_add(1, Ordering::Relaxed);
        self.note(file, key, kept.bytes, own_scan);
        let scan = kept
            .scan
            .filter(|_| own_scan)
            .and_then(|at| self.scan_at(at));
        Some((bytes.into(), scan))
    }

    /// The scan at `offset` of the last build's memo, `length` bytes long.
    fn scan_at(&self, (offset, length): (u64, u32)) -> Option<Scan> {
        use std::io::Seek;
        let mut bytes = vec![0; length as usize];
        {
            let mut file = self
                .scans
                .as_ref()?
                .lock()
                .expect("no panic holds the lock");
            file.seek(std::io::SeekFrom::Start(offset)).ok()?;
            file.read_exact(&mut bytes).ok()?;
        }
        let mut rest = bytes.as_slice();
        let scan = Scan::read_from(&mut rest).ok()?;
        rest.is_empty().then_some(scan)
    }

    /// Notes that `key` rendered `bytes` into `file`, and whether the file's scan will be its
    /// own.
    pub fn keep(&self, file: &str, key: Hash, bytes: &[u8], own_scan: bool) {
        self.note(file, key, of_bytes(bytes), own_scan);
    }

    /// Adds a page to this build's memo.
    fn note(&self, file: &str, key: Hash, bytes: Hash, own_scan: bool) {
        self.made
            .lock()
            .expect("no panic holds the lock")
            .push(Made {
                file: file.to_owned(),
                key,
                bytes,
                own_scan,
            });
    }

    /// How many pages this build took from the last.
    pub fn reused(&self) -> usize {
        self.reused.load(Ordering::Relaxed)
    }

    /// Writes this build's memo beside the output it describes, atomically, with the scans
    /// of its pages in `scans` (each page's, by file). A memo that cannot be written costs the
    /// next build its reuse, not its correctness, so a failure only removes the old one.
    pub fn save(self, scans: &BTreeMap<String, Scan>) {
        let made = self.made.into_inner().expect("no panic holds the lock");
        let parent = self.file.parent().unwrap_or(Path::new("."));
        let written = tempfile::NamedTempFile::new_in(parent).and_then(|temp| {
            let mut out = Hashed {
                inner: BufWriter::with_capacity(1 << 16, temp),
                hash: Xxh3::new(),
            };
            out.write_all(MAGIC)?;
            out.write_all(&(made.len() as u64).to_le_bytes())?;
            let mut buffer = Vec::new();
            for page in &made {
                out.write_all(&page.key.to_le_bytes())?;
                out.write_all(&page.bytes.to_le_bytes())?;
                match scans.get(&page.file).filter(|_| page.own_scan) {
                    Some(scan) => {
                        buffer.clear();
                        scan.write_to(&mut buffer)?;
                        let length = u32::try_from(buffer.len())
                            .map_err(|_| std::io::Error::from(std::io::ErrorKind::InvalidData))?;
                        out.write_all(&[1])?;
                        out.write_all(&length.to_le_bytes())?;
                        out.write_all(&buffer)?;
                    }
                    None => out.write_all(&[0])?,
                }
            }
            let digest = out.hash.digest128();
            let mut inner = out.inner;
            inner.write_all(&digest.to_le_bytes())?;
            let temp = inner.into_inner().map_err(|e| e.into_error())?;
            temp.persist(&self.file).map_err(|e| e.error)?;
            Ok(())
        });
        if written.is_err() {
            let _ = std::fs::remove_file(&self.file);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_key_changes_with_the_templates_the_site_the_template_and_the_page() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("site");
        let memo = Memo::open(&out, &[1; 32]);
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
        let other_theme = Memo::open(&out, &[2; 32]);
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
        let memo = Memo::open(&out, &[0; 32]);
        let scope = memo.scope(&json!({}));
        let key = memo.key(&scope, "t.html", &json!({"a": 1}));
        assert!(
            memo.reuse("a/index.html", key, true).is_none(),
            "nothing kept"
        );
        memo.keep("a/index.html", key, page.as_bytes(), true);
        let scans = BTreeMap::from([("a/index.html".to_owned(), scan_of(page))]);
        memo.save(&scans);
        assert!(dir.path().join(".site.memo").is_file());

        let memo = Memo::open(&out, &[0; 32]);
        let (bytes, scan) = memo.reuse("a/index.html", key, true).unwrap();
        assert_eq!(bytes, page.as_bytes());
        let scan = scan.expect("the scan was kept");
        assert!(scan.has_id("x") && !scan.has_id("y"));
        assert!(
            memo.reuse("a/index.html", key + 1, true).is_none(),
            "another key"
        );
        assert_eq!(memo.reused(), 1);
        // Saved again with the scan it took, the next build has it.
        memo.save(&BTreeMap::from([("a/index.html".to_owned(), scan)]));
        let memo = Memo::open(&out, &[0; 32]);
        assert!(memo.reuse("a/index.html", key, true).unwrap().1.is_some());
        // A page that now has paged tables gets its bytes and no scan.
        assert!(memo.reuse("a/index.html", key, false).unwrap().1.is_none());
        // A page edited in the output, or gone, is rendered again.
        std::fs::write(out.join("a/index.html"), "<p>edited</p>").unwrap();
        assert!(memo.reuse("a/index.html", key, true).is_none());
        std::fs::remove_file(out.join("a/index.html")).unwrap();
        assert!(memo.reuse("a/index.html", key, true).is_none());
    }

    #[test]
    fn a_damaged_memo_is_empty() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("site");
        std::fs::create_dir_all(&out).unwrap();
        std::fs::write(out.join("p.html"), "<p id=a>x</p>").unwrap();
        let memo = Memo::open(&out, &[0; 32]);
        let key = memo.key(&memo.scope(&json!({})), "t.html", &json!({}));
        memo.keep("p.html", key, b"<p id=a>x</p>", true);
        memo.save(&BTreeMap::from([(
            "p.html".to_owned(),
            scan_of("<p id=a>x</p>"),
        )]));
        let file = dir.path().join(".site.memo");
        let good = std::fs::read(&file).unwrap();
        assert!(
            Memo::open(&out, &[0; 32])
                .reuse("p.html", key, true)
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
                Memo::open(&out, &[0; 32])
                    .reuse("p.html", key, true)
                    .is_none()
            );
        }
    }
}

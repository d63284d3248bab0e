//! What the last build's templates made, kept beside the output (`.site.memo`), so that a
//! rebuild takes a page whose template context has not changed from the site it replaces
//! instead of running the template again.
//!
//! A page's key is a 128-bit XXH3 of everything its bytes are made from: the template set, this
//! program (its version and its executable's size and time, for the escaping and filters it
//! registers), the `site` context and the page's own context with its template's name. The
//! memo maps each key the last build rendered to the hash of the bytes it gave. The hashes
//! guard against change, not against an adversary: whoever could choose colliding inputs
//! writes the project anyway. A page is
//! reused only when the current site's file at its path has exactly those bytes, so a memo
//! that is stale, or a page edited by hand in the output, costs a render and nothing else.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use bytes::Bytes;
use xxhash_rust::xxh3::xxh3_128;

/// A key or a bytes hash.
pub type Hash = u128;

const MAGIC: &[u8] = b"benchsite-memo 1\n";

/// The hash of a page's bytes.
fn of_bytes(bytes: &[u8]) -> Hash {
    xxh3_128(bytes)
}

/// The hash of `parts` one after the other, then `value` as JSON.
fn of_json(parts: &[&[u8]], value: &serde_json::Value) -> Hash {
    thread_local! {
        // Kept per thread: a page's context is tens of kilobytes.
        static BUFFER: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    BUFFER.with_borrow_mut(|buffer| {
        buffer.clear();
        for part in parts {
            buffer.extend_from_slice(part);
            buffer.push(0);
        }
        serde_json::to_writer(&mut *buffer, value).expect("a buffer takes every byte");
        xxh3_128(buffer)
    })
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

/// The key of everything this executable renders the same way: its version, and its file's
/// size and modification time (a rebuilt benchsite may escape or format differently).
fn program() -> Vec<u8> {
    let mut id = env!("CARGO_PKG_VERSION").as_bytes().to_vec();
    if let Some(meta) = std::env::current_exe()
        .ok()
        .and_then(|exe| std::fs::metadata(exe).ok())
    {
        id.extend(meta.len().to_le_bytes());
        if let Ok(since) = meta
            .modified()
            .map(|t| t.duration_since(std::time::UNIX_EPOCH).unwrap_or_default())
        {
            id.extend(since.as_nanos().to_le_bytes());
        }
    }
    id
}

/// The last build's renders, and this build's as they are made.
pub struct Memo {
    /// The site the memo describes: the output being replaced.
    out: PathBuf,
    /// Where the memo is kept.
    file: PathBuf,
    /// The program and the template set.
    salt: [u8; 16],
    /// The last build's key → bytes hash of each page.
    kept: HashMap<Hash, Hash>,
    /// This build's, reused or rendered.
    made: Mutex<Vec<(Hash, Hash)>>,
    /// Pages this build took from the last.
    reused: AtomicUsize,
}

impl Memo {
    /// The memo of the site at `out`, for templates whose sources hash to `templates`. A
    /// memo that is missing or unreadable is empty.
    pub fn open(out: &Path, templates: &[u8; 32]) -> Self {
        let file = path_beside(out);
        let kept = std::fs::read(&file)
            .ok()
            .and_then(|bytes| {
                let pairs = bytes.strip_prefix(MAGIC)?;
                (pairs.len() % 32 == 0).then(|| {
                    pairs
                        .chunks_exact(32)
                        .map(|pair| {
                            let half = |at: usize| {
                                u128::from_le_bytes(pair[at..at + 16].try_into().expect("16"))
                            };
                            (half(0), half(16))
                        })
                        .collect()
                })
            })
            .unwrap_or_default();
        let salt = xxh3_128(&[&program()[..], templates].concat());
        Self {
            out: out.to_owned(),
            file,
            salt: salt.to_le_bytes(),
            kept,
            made: Mutex::new(Vec::new()),
            reused: AtomicUsize::new(0),
        }
    }

    /// The key every page's shares: the program, the templates and the `site` context.
    pub fn scope(&self, site: &serde_json::Value) -> [u8; 16] {
        of_json(&[&self.salt], site).to_le_bytes()
    }

    /// The key of a page rendered through `template` with context `page`, in `scope`.
    pub fn key(&self, scope: &[u8; 16], template: &str, page: &serde_json::Value) -> Hash {
        of_json(&[scope, template.as_bytes()], page)
    }

    /// The bytes the last build rendered for `key`, read from its site's `file` when they are
    /// still there.
    pub fn reuse(&self, file: &str, key: Hash) -> Option<Bytes> {
        let want = *self.kept.get(&key)?;
        let bytes = std::fs::read(self.out.join(file)).ok()?;
        (of_bytes(&bytes) == want).then(|| {
            self.reused.fetch_add(1, Ordering::Relaxed);
            self.made
                .lock()
                .expect("no panic holds the lock")
                .push((key, want));
            bytes.into()
        })
    }

    /// Notes that `key` rendered `bytes`.
    pub fn keep(&self, key: Hash, bytes: &[u8]) {
        let made = of_bytes(bytes);
        self.made
            .lock()
            .expect("no panic holds the lock")
            .push((key, made));
    }

    /// How many pages this build took from the last.
    pub fn reused(&self) -> usize {
        self.reused.load(Ordering::Relaxed)
    }

    /// Writes this build's memo beside the output it describes, atomically. A memo that
    /// cannot be written costs the next build its reuse, not its correctness, so a failure is
    /// only removing the old one.
    pub fn save(self) {
        let made = self.made.into_inner().expect("no panic holds the lock");
        let mut bytes = Vec::with_capacity(MAGIC.len() + made.len() * 32);
        bytes.extend_from_slice(MAGIC);
        for (key, hash) in made {
            bytes.extend(key.to_le_bytes());
            bytes.extend(hash.to_le_bytes());
        }
        let parent = self.file.parent().unwrap_or(Path::new("."));
        let written = tempfile::NamedTempFile::new_in(parent).and_then(|mut temp| {
            temp.write_all(&bytes)?;
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
        assert_ne!(key, memo.key(&scope, "run.html", &json!({"n": 2})));
        let other_site = memo.scope(&json!({"title": "B"}));
        assert_ne!(key, memo.key(&other_site, "run.html", &json!({"n": 1})));
        let other_theme = Memo::open(&out, &[2; 32]);
        let scope = other_theme.scope(&json!({"title": "A"}));
        assert_ne!(key, other_theme.key(&scope, "run.html", &json!({"n": 1})));
    }

    #[test]
    fn a_page_is_reused_only_while_the_site_holds_the_bytes_its_key_rendered() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("site");
        std::fs::create_dir_all(out.join("a")).unwrap();
        std::fs::write(out.join("a/index.html"), b"<p>one</p>").unwrap();
        let memo = Memo::open(&out, &[0; 32]);
        let scope = memo.scope(&json!({}));
        let key = memo.key(&scope, "t.html", &json!({"a": 1}));
        assert_eq!(memo.reuse("a/index.html", key), None, "nothing kept yet");
        memo.keep(key, b"<p>one</p>");
        memo.save();
        assert!(dir.path().join(".site.memo").is_file());

        let memo = Memo::open(&out, &[0; 32]);
        assert_eq!(
            memo.reuse("a/index.html", key).as_deref(),
            Some(&b"<p>one</p>"[..])
        );
        assert_eq!(memo.reuse("a/index.html", key + 1), None, "another key");
        assert_eq!(memo.reused(), 1);
        // A page edited in the output, or gone, is rendered again.
        std::fs::write(out.join("a/index.html"), b"<p>one!</p>").unwrap();
        assert_eq!(memo.reuse("a/index.html", key), None);
        std::fs::remove_file(out.join("a/index.html")).unwrap();
        assert_eq!(memo.reuse("a/index.html", key), None);
    }

    #[test]
    fn a_damaged_memo_is_empty() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("site");
        std::fs::create_dir_all(&out).unwrap();
        std::fs::write(out.join("p.html"), b"x").unwrap();
        let memo = Memo::open(&out, &[0; 32]);
        let key = memo.key(&memo.scope(&json!({})), "t.html", &json!({}));
        memo.keep(key, b"x");
        memo.save();
        let file = dir.path().join(".site.memo");
        let mut bytes = std::fs::read(&file).unwrap();
        bytes.pop();
        std::fs::write(&file, &bytes).unwrap();
        assert_eq!(Memo::open(&out, &[0; 32]).reuse("p.html", key), None);
        std::fs::write(&file, b"something else").unwrap();
        assert_eq!(Memo::open(&out, &[0; 32]).reuse("p.html", key), None);
    }
}

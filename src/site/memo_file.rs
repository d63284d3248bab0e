//! The build memo's file (`memo.rs`) and the hashes it is made of.
//!
//! The file: `benchsite-memo 4\n`, the count of pages as a little-endian `u64`; each page's
//! context key, inputs key (0 when it has none) and bytes hash, a byte of flags (inputs key,
//! scan, own scan), the scan's length as a `u32` and the scan ([`Scan::write_to`]) when there
//! is one, the count of its data files as a `u32` and each one's path (a `u32` length and the
//! bytes) and hash; the count of file sets made beside the pages (the CSV downloads) as a
//! `u64`, each one's inputs key and files as a page's; what the build's link check read
//! ([`Memo::links_digest`]: its pages' digest, the count of its files as a `u64` and their
//! paths' hashes, sorted), so that a site of the same links is not checked again; then the XXH3-128 of everything before it. A file that does not read so is
//! ignored whole. Opening it reads it through once, keeping each scan's place, not the scan: a
//! reused page's scan is read when it is taken, so a large report's scans are not all in
//! memory while its pages render.

use std::collections::{BTreeMap, HashMap};
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::Path;

use serde_json::Value;
use xxhash_rust::xxh3::{Xxh3, xxh3_128};

use super::links::Scan;

/// A key or a bytes hash.
pub type Hash = u128;

pub const MAGIC: &[u8] = b"benchsite-memo 4\n";

/// The hash of a page's bytes.
pub fn of_bytes(bytes: &[u8]) -> Hash {
    xxh3_128(bytes)
}

/// A hash fed in pieces, gathered into blocks so that small pieces cost little, whatever the
/// size of what is hashed (a page's context can be megabytes).
pub struct Feed {
    pub block: Vec<u8>,
    pub hash: Xxh3,
}

impl Feed {
    const BLOCK: usize = 64 * 1024;

    pub fn new() -> Self {
        Feed {
            block: Vec::with_capacity(Self::BLOCK),
            hash: Xxh3::new(),
        }
    }

    pub fn bytes(&mut self, bytes: &[u8]) {
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

    pub fn length(&mut self, n: usize) {
        self.bytes(&(n as u64).to_le_bytes());
    }

    /// Feeds `value` so that two values feed the same bytes only when they are equal: each
    /// part tagged, each string and list preceded by its length.
    pub fn value(&mut self, value: &Value) {
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

    pub fn finish(mut self) -> Hash {
        self.hash.update(&self.block);
        self.hash.digest128()
    }
}

/// The hash of `parts`, each with its length, then `value`.
pub fn of_value(parts: &[&[u8]], value: &Value) -> Hash {
    let mut feed = Feed::new();
    for part in parts {
        feed.length(part.len());
        feed.bytes(part);
    }
    feed.value(value);
    feed.finish()
}

/// A reader that hashes and counts what it reads.
pub struct Hashing<R> {
    pub inner: R,
    pub hash: Xxh3,
    /// Bytes read so far.
    pub at: u64,
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
pub struct Hashed<W> {
    pub inner: W,
    pub hash: Xxh3,
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

pub fn read_u128(input: &mut impl Read) -> std::io::Result<u128> {
    let mut bytes = [0; 16];
    input.read_exact(&mut bytes)?;
    Ok(u128::from_le_bytes(bytes))
}

/// The data files a page's view wrote: each one's path inside the site and its bytes' hash.
pub type Files = Vec<(String, Hash)>;

/// A page the last build rendered.
pub struct Kept {
    /// Its context's key.
    pub key: Hash,
    /// Its inputs' key, for a page that has one ([`Memo::inputs_key`]).
    pub inputs: Option<Hash>,
    pub bytes: Hash,
    /// The scan's offset and length.
    pub scan: Option<(u64, u32)>,
    /// Whether the scan is the page's own (it has no paged tables), so that a page of the
    /// same context may take it whatever its data files hold.
    pub own_scan: bool,
    pub files: Files,
}

/// Flags of a page in the file.
pub const HAS_INPUTS: u8 = 1;
pub const HAS_SCAN: u8 = 2;
pub const OWN_SCAN: u8 = 4;

/// A count written as a little-endian `u64`.
pub fn read_count(input: &mut impl Read) -> std::io::Result<usize> {
    let mut bytes = [0; 8];
    input.read_exact(&mut bytes)?;
    usize::try_from(u64::from_le_bytes(bytes))
        .map_err(|_| std::io::Error::from(std::io::ErrorKind::InvalidData))
}

pub fn read_u32(input: &mut impl Read) -> std::io::Result<u32> {
    let mut bytes = [0; 4];
    input.read_exact(&mut bytes)?;
    Ok(u32::from_le_bytes(bytes))
}

/// A list of files as [`write_files`] wrote it.
pub fn read_files(input: &mut impl Read) -> std::io::Result<Files> {
    let invalid = || std::io::Error::from(std::io::ErrorKind::InvalidData);
    let count = read_u32(input)?;
    let mut files = Vec::with_capacity(count.min(1 << 16) as usize);
    for _ in 0..count {
        let length = read_u32(input)?;
        let mut name = Vec::with_capacity(length.min(1 << 16) as usize);
        if Read::take(&mut *input, u64::from(length)).read_to_end(&mut name)? != length as usize {
            return Err(invalid());
        }
        let name = String::from_utf8(name).map_err(|_| invalid())?;
        files.push((name, read_u128(input)?));
    }
    Ok(files)
}

/// `files`: their count as a `u32`, and each one's path (a `u32` length and the bytes) and
/// hash.
pub fn write_files(out: &mut impl Write, files: &Files) -> std::io::Result<()> {
    let invalid = || std::io::Error::from(std::io::ErrorKind::InvalidData);
    let count = u32::try_from(files.len()).map_err(|_| invalid())?;
    out.write_all(&count.to_le_bytes())?;
    for (path, hash) in files {
        let length = u32::try_from(path.len()).map_err(|_| invalid())?;
        out.write_all(&length.to_le_bytes())?;
        out.write_all(path.as_bytes())?;
        out.write_all(&hash.to_le_bytes())?;
    }
    Ok(())
}

/// One page as the file has it, the scan skipped; `at` is where the reader is.
pub fn read_page(input: &mut Hashing<impl Read>) -> std::io::Result<Kept> {
    let invalid = || std::io::Error::from(std::io::ErrorKind::InvalidData);
    let key = read_u128(input)?;
    let inputs = read_u128(input)?;
    let bytes = read_u128(input)?;
    let mut flags = [0];
    input.read_exact(&mut flags)?;
    let flags = flags[0];
    if flags & !(HAS_INPUTS | HAS_SCAN | OWN_SCAN) != 0 {
        return Err(invalid());
    }
    let scan = if flags & HAS_SCAN != 0 {
        let length = read_u32(input)?;
        let at = input.at;
        let skipped = std::io::copy(
            &mut Read::take(&mut *input, u64::from(length)),
            &mut std::io::sink(),
        )?;
        if skipped != u64::from(length) {
            return Err(invalid());
        }
        Some((at, length))
    } else {
        None
    };
    let files = read_files(input)?;
    Ok(Kept {
        key,
        inputs: (flags & HAS_INPUTS != 0).then_some(inputs),
        bytes,
        scan,
        own_scan: flags & OWN_SCAN != 0,
        files,
    })
}

/// What the last build's memo holds: its pages, the files beside them by their inputs key
/// ([`Memo::take_beside`]), and what its link check read.
#[derive(Default)]
pub struct Last {
    pub pages: Vec<Kept>,
    pub beside: HashMap<Hash, Files>,
    /// What its link check read ([`Memo::links_digest`]).
    pub links: Option<Links>,
}

/// What a link check read ([`Memo::links_digest`]): its pages' digest, and its files' path
/// hashes, sorted.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Links {
    pub pages: Hash,
    pub files: Vec<Hash>,
}

/// The memo's pages as the file at `path` has them.
pub fn read(path: &Path) -> std::io::Result<(Last, std::fs::File)> {
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
    let count = read_count(&mut input)?;
    let mut kept = Vec::with_capacity(count.min(1 << 20));
    for _ in 0..count {
        kept.push(read_page(&mut input)?);
    }
    let count = read_count(&mut input)?;
    let mut beside = HashMap::with_capacity(count.min(1 << 10));
    for _ in 0..count {
        let inputs = read_u128(&mut input)?;
        beside.insert(inputs, read_files(&mut input)?);
    }
    let pages = read_u128(&mut input)?;
    let count = read_count(&mut input)?;
    let mut files = Vec::with_capacity(count.min(1 << 20));
    for _ in 0..count {
        files.push(read_u128(&mut input)?);
    }
    if !files.is_sorted() {
        return Err(invalid());
    }
    let links = (count > 0).then_some(Links { pages, files });
    let computed = input.hash.digest128();
    let mut rest = input.inner;
    if read_u128(&mut rest)? != computed || rest.read(&mut [0])? != 0 {
        return Err(invalid());
    }
    Ok((
        Last {
            pages: kept,
            beside,
            links,
        },
        file,
    ))
}

/// One page of this build: its file, its keys and bytes' hash, whether its scan is its own
/// (it has no paged tables, whose rows' links and ids a scan takes in), and its data files.
pub struct Made {
    pub file: String,
    pub key: Hash,
    pub inputs: Option<Hash>,
    pub bytes: Hash,
    pub own_scan: bool,
    pub files: Files,
}

/// Writes the memo `file` atomically: this build's pages (`made`, with each page's scan in
/// `scans`), the files made beside them, and what its link check read.
pub fn write(
    file: &Path,
    made: &[Made],
    beside: &[(Hash, Files)],
    scans: &BTreeMap<String, Scan>,
    links: &Links,
) -> std::io::Result<()> {
    let invalid = || std::io::Error::from(std::io::ErrorKind::InvalidData);
    let parent = file.parent().unwrap_or(Path::new("."));
    let temp = tempfile::NamedTempFile::new_in(parent)?;
    let mut out = Hashed {
        inner: BufWriter::with_capacity(1 << 16, temp),
        hash: Xxh3::new(),
    };
    out.write_all(MAGIC)?;
    out.write_all(&(made.len() as u64).to_le_bytes())?;
    let mut buffer = Vec::new();
    for page in made {
        out.write_all(&page.key.to_le_bytes())?;
        out.write_all(&page.inputs.unwrap_or_default().to_le_bytes())?;
        out.write_all(&page.bytes.to_le_bytes())?;
        let scan = scans.get(&page.file);
        let flags = if page.inputs.is_some() { HAS_INPUTS } else { 0 }
            | if scan.is_some() { HAS_SCAN } else { 0 }
            | if page.own_scan { OWN_SCAN } else { 0 };
        out.write_all(&[flags])?;
        if let Some(scan) = scan {
            buffer.clear();
            scan.write_to(&mut buffer)?;
            let length = u32::try_from(buffer.len()).map_err(|_| invalid())?;
            out.write_all(&length.to_le_bytes())?;
            out.write_all(&buffer)?;
        }
        write_files(&mut out, &page.files)?;
    }
    out.write_all(&(beside.len() as u64).to_le_bytes())?;
    for (inputs, files) in beside {
        out.write_all(&inputs.to_le_bytes())?;
        write_files(&mut out, files)?;
    }
    out.write_all(&links.pages.to_le_bytes())?;
    out.write_all(&(links.files.len() as u64).to_le_bytes())?;
    for file in &links.files {
        out.write_all(&file.to_le_bytes())?;
    }
    let digest = out.hash.digest128();
    let mut inner = out.inner;
    inner.write_all(&digest.to_le_bytes())?;
    let temp = inner.into_inner().map_err(|e| e.into_error())?;
    temp.persist(file).map_err(|e| e.error)?;
    Ok(())
}

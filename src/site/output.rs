//! The site's output: the files of a rendered site ([`Site`], [`PageFile`]), and its way to disk: written into a temporary folder beside the output, file by file
//! as pages are rendered, and swapped in only when complete, so a failed build leaves the
//! previous site as it was.
//!
//! The site the last build replaced is kept beside the output (`.site.prev`) and becomes the
//! next build's temporary folder: its files are overwritten in place, those the new site does
//! not have are removed, and a file whose bytes are already right is left alone. Creating and
//! deleting every file and folder of a large site each build is most of a rebuild's time on
//! ext4 (inode allocation skips the recently deleted ones), and a rebuild changes few files.

use std::collections::{BTreeMap, HashSet};

use bytes::Bytes;
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::error::SiteError;

/// A rendered site: every file by its path inside the site.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Site {
    /// Path (`runs/x/index.html`) to bytes; cheap to clone, so a site can be shared and
    /// changed page by page.
    pub files: BTreeMap<String, Bytes>,
}

impl Site {
    /// The HTML pages.
    pub fn pages(&self) -> impl Iterator<Item = &str> {
        self.files
            .keys()
            .filter(|path| path.ends_with(".html"))
            .map(String::as_str)
    }
}

/// One rendered file: its path inside the site and its bytes.
pub type PageFile = (String, Bytes);

fn error(path: &Path) -> impl FnOnce(std::io::Error) -> SiteError {
    let path = path.to_owned();
    move |source| SiteError::Write { path, source }
}

/// Removes what `top` (a file or folder at the top of the recycled site `root`) holds that
/// the build did not write: files not `written`, and folders not among `folders`.
fn remove_stale_in(
    root: &Path,
    top: &Path,
    written: &HashSet<String>,
    folders: &HashSet<&str>,
) -> Result<(), SiteError> {
    let mut walk = walkdir::WalkDir::new(top).into_iter();
    while let Some(entry) = walk.next() {
        let entry = entry.map_err(|e| error(root)(e.into()))?;
        // A name that is not UTF-8 is none this build wrote.
        let inside = entry
            .path()
            .strip_prefix(root)
            .expect("below the root")
            .to_str()
            .unwrap_or_default();
        if entry.file_type().is_dir() {
            if !folders.contains(inside) {
                std::fs::remove_dir_all(entry.path()).map_err(error(entry.path()))?;
                walk.skip_current_dir();
            }
        } else if !written.contains(inside) {
            std::fs::remove_file(entry.path()).map_err(error(entry.path()))?;
        }
    }
    Ok(())
}

/// Whether the file at `path` holds exactly `bytes`: its length first, then its content
/// read a block at a time, so a rebuild that leaves most files alone allocates nothing for them.
fn holds(path: &Path, bytes: &[u8]) -> bool {
    use std::io::Read;
    let Ok(mut file) = std::fs::File::open(path) else {
        return false;
    };
    if !file
        .metadata()
        .is_ok_and(|m| m.is_file() && m.len() == bytes.len() as u64)
    {
        return false;
    }
    thread_local! {
        // Zeroed once per thread, not once per file: most pages are a quarter of it.
        static BLOCK: std::cell::RefCell<Vec<u8>> = std::cell::RefCell::new(vec![0; 64 * 1024]);
    }
    BLOCK.with_borrow_mut(|block| {
        let mut rest = bytes;
        loop {
            match file.read(block) {
                Ok(0) => return rest.is_empty(),
                Ok(n) if n <= rest.len() && block[..n] == rest[..n] => rest = &rest[n..],
                Ok(_) | Err(_) => return false,
            }
        }
    })
}

/// Removes the first file among the ancestors of `folder` below `root`; whether there was one.
fn remove_file_ancestor(root: &Path, folder: &Path) -> bool {
    folder
        .ancestors()
        .take_while(|a| *a != root)
        .find(|a| a.is_file())
        .is_some_and(|file| std::fs::remove_file(file).is_ok())
}

/// Removes a folder, its subfolders on every core.
fn remove_in_parallel(dir: &Path) -> std::io::Result<()> {
    use rayon::prelude::*;
    let mut folders = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        if entry.file_type()?.is_dir() {
            for inner in std::fs::read_dir(entry.path())? {
                let inner = inner?;
                if inner.file_type()?.is_dir() {
                    folders.push(inner.path());
                }
            }
        }
    }
    folders.par_iter().try_for_each(std::fs::remove_dir_all)?;
    std::fs::remove_dir_all(dir)
}

/// A site being written: a temporary folder beside the output, removed unless committed.
pub struct Staging {
    out: PathBuf,
    parent: PathBuf,
    name: String,
    temp: tempfile::TempDir,
    /// Whether the folder is a recycled earlier site, whose files not written are stale.
    recycled: bool,
    /// The files written, inside the site.
    written: Mutex<HashSet<String>>,
}

/// The name of the kept previous site beside an output called `name`.
fn previous(parent: &Path, name: &str) -> PathBuf {
    parent.join(format!(".{name}.prev"))
}

impl Staging {
    /// A new temporary folder beside `out`.
    pub fn new(out: &Path) -> Result<Self, SiteError> {
        let parent = match out.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent.to_owned(),
            _ => PathBuf::from("."),
        };
        std::fs::create_dir_all(&parent).map_err(error(&parent))?;
        let name = out
            .file_name()
            .map_or_else(|| "site".into(), |n| n.to_string_lossy().into_owned());
        let temp = tempfile::Builder::new()
            .prefix(&format!(".{name}.new-"))
            .tempdir_in(&parent)
            .map_err(error(&parent))?;
        // Claim the kept previous site by renaming it over the empty folder (a concurrent
        // build that loses the race gets a fresh folder).
        let recycled = std::fs::rename(previous(&parent, &name), temp.path()).is_ok();
        Ok(Self {
            out: out.to_owned(),
            parent,
            name,
            temp,
            recycled,
            written: Mutex::new(HashSet::new()),
        })
    }

    /// Writes one file, at its path inside the site.
    pub fn write(&self, path: &str, bytes: &[u8]) -> Result<(), SiteError> {
        let target = self.temp.path().join(path);
        if self.recycled {
            self.written
                .lock()
                .expect("no panic holds the lock")
                .insert(path.to_owned());
            if holds(&target, bytes) {
                return Ok(());
            }
        }
        if let Some(folder) = target.parent()
            && let Err(e) = std::fs::create_dir_all(folder)
        {
            // A recycled site may hold a file where this site has a folder.
            if !self.recycled || !remove_file_ancestor(self.temp.path(), folder) {
                return Err(error(folder)(e));
            }
            std::fs::create_dir_all(folder).map_err(error(folder))?;
        }
        match std::fs::write(&target, bytes) {
            Err(e) if self.recycled && target.is_dir() => {
                std::fs::remove_dir_all(&target).map_err(error(&target))?;
                std::fs::write(&target, bytes).map_err(|_| error(&target)(e))
            }
            other => other.map_err(error(&target)),
        }
    }

    /// Removes what a recycled site holds that this one did not write: files, and folders
    /// no written file is in.
    fn remove_stale(&self) -> Result<(), SiteError> {
        if !self.recycled {
            return Ok(());
        }
        let written = self.written.lock().expect("no panic holds the lock");
        // The folders, as the paths before each `/` of a written file's path.
        let folders: HashSet<&str> = written
            .iter()
            .flat_map(|file| file.match_indices('/').map(|(at, _)| &file[..at]))
            .collect();
        let root = self.temp.path();
        // Each folder at the top on its own thread: a large site is mostly a few of them.
        let tops: Vec<PathBuf> = std::fs::read_dir(root)
            .map_err(error(root))?
            .map(|entry| entry.map(|e| e.path()).map_err(error(root)))
            .collect::<Result<_, _>>()?;
        tops.par_iter()
            .try_for_each(|top| remove_stale_in(root, top, &written, &folders))
    }

    /// Swaps the written site in for the output, and keeps the replaced one as the next
    /// build's folder.
    pub fn commit(self) -> Result<(), SiteError> {
        self.remove_stale()?;
        let (out, parent, name) = (&self.out, &self.parent, &self.name);
        let staged = self.temp.keep();
        if out.exists() {
            let old = previous(parent, name);
            if old.exists() {
                // A concurrent build's; ours replaces it.
                remove_in_parallel(&old).map_err(error(&old))?;
            }
            std::fs::rename(out, &old).map_err(error(out))?;
            if let Err(source) = std::fs::rename(&staged, out) {
                let _ = std::fs::rename(&old, out);
                let _ = std::fs::remove_dir_all(&staged);
                return Err(SiteError::Write {
                    path: out.to_owned(),
                    source,
                });
            }
        } else {
            std::fs::rename(&staged, out).map_err(error(out))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_holds_bytes_only_when_it_has_exactly_them() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("page.html");
        let bytes: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
        std::fs::write(&path, &bytes).unwrap();
        assert!(holds(&path, &bytes));
        assert!(!holds(&path, &bytes[..bytes.len() - 1]));
        let mut changed = bytes.clone();
        changed[150_000] ^= 1;
        assert!(!holds(&path, &changed));
        assert!(!holds(&dir.path().join("missing.html"), b""));
        assert!(!holds(dir.path(), b""));
        std::fs::write(&path, b"").unwrap();
        assert!(holds(&path, b""));
    }

    fn build(out: &Path, files: &[(&str, &str)]) {
        let staging = Staging::new(out).unwrap();
        for (path, text) in files {
            staging.write(path, text.as_bytes()).unwrap();
        }
        staging.commit().unwrap();
    }

    fn files(dir: &Path) -> Vec<(String, String)> {
        let mut found: Vec<(String, String)> = walkdir::WalkDir::new(dir)
            .into_iter()
            .map(|e| e.unwrap())
            .filter(|e| e.file_type().is_file())
            .map(|e| {
                let inside = e.path().strip_prefix(dir).unwrap();
                (
                    inside.to_string_lossy().into_owned(),
                    std::fs::read_to_string(e.path()).unwrap(),
                )
            })
            .collect();
        found.sort();
        found
    }

    #[test]
    fn a_recycled_site_holds_exactly_the_new_files() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("site");
        build(
            &out,
            &[
                ("a/index.html", "1"),
                ("gone/index.html", "x"),
                ("f", "file"),
            ],
        );
        build(&out, &[("a/index.html", "2"), ("b/index.html", "b")]);
        assert!(
            dir.path().join(".site.prev").is_dir(),
            "the replaced site is kept"
        );
        // The third build recycles the first site: a page kept, one changed, a folder gone,
        // a file where a folder was, and a folder where a file was.
        build(
            &out,
            &[
                ("a/index.html", "1"),
                ("gone", "now a file"),
                ("f/index.html", "now a folder"),
            ],
        );
        assert_eq!(
            files(&out),
            [
                ("a/index.html".to_owned(), "1".to_owned()),
                ("f/index.html".to_owned(), "now a folder".to_owned()),
                ("gone".to_owned(), "now a file".to_owned()),
            ]
        );
        assert_eq!(
            files(&dir.path().join(".site.prev")),
            [
                ("a/index.html".to_owned(), "2".to_owned()),
                ("b/index.html".to_owned(), "b".to_owned()),
            ]
        );
    }

    #[test]
    fn a_build_that_is_not_committed_leaves_the_site_and_no_folder() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("site");
        build(&out, &[("a/index.html", "1")]);
        build(&out, &[("a/index.html", "2")]);
        let staging = Staging::new(&out).unwrap();
        staging.write("a/index.html", b"3").unwrap();
        drop(staging);
        assert_eq!(files(&out), [("a/index.html".to_owned(), "2".to_owned())]);
        let names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["site"]);
    }
}

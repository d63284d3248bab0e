//! The site's way to disk: written into a temporary folder beside the output, file by file
//! as pages are rendered, and swapped in only when complete, so a failed build leaves the
//! previous site as it was.

use std::path::{Path, PathBuf};

use super::SiteError;

fn error(path: &Path) -> impl FnOnce(std::io::Error) -> SiteError {
    let path = path.to_owned();
    move |source| SiteError::Write { path, source }
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
        Ok(Self {
            out: out.to_owned(),
            parent,
            name,
            temp,
        })
    }

    /// Writes one file, at its path inside the site.
    pub fn write(&self, path: &str, bytes: &[u8]) -> Result<(), SiteError> {
        let target = self.temp.path().join(path);
        if let Some(folder) = target.parent() {
            std::fs::create_dir_all(folder).map_err(error(folder))?;
        }
        std::fs::write(&target, bytes).map_err(error(&target))
    }

    /// Swaps the written site in for the output.
    pub fn commit(self) -> Result<(), SiteError> {
        let (out, parent, name) = (&self.out, &self.parent, &self.name);
        let staged = self.temp.keep();
        if out.exists() {
            let old = tempfile::Builder::new()
                .prefix(&format!(".{name}.old-"))
                .tempdir_in(parent)
                .map_err(error(parent))?
                .keep();
            std::fs::remove_dir(&old).map_err(error(&old))?;
            std::fs::rename(out, &old).map_err(error(out))?;
            if let Err(source) = std::fs::rename(&staged, out) {
                let _ = std::fs::rename(&old, out);
                let _ = std::fs::remove_dir_all(&staged);
                return Err(SiteError::Write {
                    path: out.to_owned(),
                    source,
                });
            }
            remove_in_parallel(&old).map_err(error(&old))?;
        } else {
            std::fs::rename(&staged, out).map_err(error(out))?;
        }
        Ok(())
    }
}

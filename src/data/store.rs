//! The one way results reach the disk: under a lock, validated, written to a temporary file,
//! synced and renamed over the old document, so a reader sees the old or the new document
//! and never a torn one.

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::{DataError, Results, load, to_json, validate};

/// An exclusive advisory lock on a document, held until dropped.
struct DocumentLock {
    _file: File,
}

fn lock(path: &Path) -> Result<DocumentLock, DataError> {
    let lock_path = lock_path(path);
    let file = File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .map_err(|source| DataError::Write {
            path: lock_path.clone(),
            source,
        })?;
    file.lock().map_err(|source| DataError::Write {
        path: lock_path,
        source,
    })?;
    Ok(DocumentLock { _file: file })
}

/// The lock file beside a document: `.results.json.lock` for `results.json`.
pub fn lock_path(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map_or_else(|| "results.json".into(), |name| name.to_string_lossy());
    path.with_file_name(format!(".{name}.lock"))
}

/// Replaces the document at `path` with `doc`, atomically, after validating it.
pub fn save(path: &Path, doc: &Results) -> Result<(), DataError> {
    validated(path, doc)?;
    let _lock = lock(path)?;
    write_atomically(path, doc, |file, bytes| file.write_all(bytes))
}

/// Reads the document at `path`, lets `edit` change it and saves the result, all under the
/// lock, so concurrent updates never lose each other's records. Returns the saved document.
///
/// The document is validated once, whole, after the edit; only when that fails is the file
/// as it was loaded with its checks, so a document that was already invalid is reported at
/// its lines.
pub fn update<F>(path: &Path, edit: F) -> Result<Results, DataError>
where
    F: FnOnce(&mut Results) -> Result<(), DataError>,
{
    let _lock = lock(path)?;
    let bytes = fs::read(path).map_err(|source| DataError::Read {
        path: path.to_owned(),
        source,
    })?;
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&bytes);
    let mut doc: Results = match serde_json::from_slice(bytes) {
        Ok(doc) => doc,
        Err(_) => return Err(load(path).err().unwrap_or_else(|| unreachable_valid(path))),
    };
    edit(&mut doc)?;
    if let Err(error) = validated(path, &doc) {
        load(path)?;
        return Err(error);
    }
    write_atomically(path, &doc, |file, bytes| file.write_all(bytes))?;
    Ok(doc)
}

/// A document the typed parse refused but the full load accepted cannot be: the load runs the
/// same typed parse.
fn unreachable_valid(path: &Path) -> DataError {
    DataError::Read {
        path: path.to_owned(),
        source: io::Error::other("the document changed while it was read"),
    }
}

fn validated(path: &Path, doc: &Results) -> Result<(), DataError> {
    validate(doc).map_err(|problems| {
        DataError::Invalid(super::Report {
            file: path.to_owned(),
            problems,
        })
    })
}

/// Writes `doc` through `write` into a temporary file beside `path`, syncs it and renames
/// it over `path`. On any failure the temporary file is removed and `path` is left as it was.
fn write_atomically(
    path: &Path,
    doc: &Results,
    write: impl FnOnce(&mut File, &[u8]) -> io::Result<()>,
) -> Result<(), DataError> {
    let bytes = to_json(doc);
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let write_error = |source| DataError::Write {
        path: path.to_owned(),
        source,
    };
    let name = path
        .file_name()
        .map_or_else(|| "results.json".into(), |name| name.to_string_lossy());
    let mut temp = tempfile::Builder::new()
        .prefix(&format!(".{name}."))
        .suffix(".tmp")
        .tempfile_in(dir)
        .map_err(write_error)?;
    let permissions = fs::metadata(path).map_or_else(
        |_| std::os::unix::fs::PermissionsExt::from_mode(0o644),
        |metadata| metadata.permissions(),
    );
    fs::set_permissions(temp.path(), permissions).map_err(write_error)?;
    write(temp.as_file_mut(), bytes.as_bytes()).map_err(write_error)?;
    temp.as_file().sync_all().map_err(write_error)?;
    temp.persist(path)
        .map_err(|error| write_error(error.error))?;
    // The rename is durable once the directory entry is.
    File::open(dir)
        .and_then(|dir| dir.sync_all())
        .map_err(write_error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::{Failure, FailureStatus, Id, Results};

    fn seed() -> Results {
        let text = include_str!("../../data/results.json");
        crate::data::parse(Path::new("data/results.json"), text.as_bytes()).unwrap()
    }

    fn failure(id: &str) -> Failure {
        Failure {
            id: Id::new(id).unwrap(),
            checkpoint: "org/model".into(),
            precision: "FP8".into(),
            weights_gb: None,
            status: FailureStatus::NotAttempted,
            config: None,
            reason: "test".into(),
            log: None,
            provenance: None,
        }
    }

    fn files_in(dir: &Path) -> Vec<String> {
        let mut names: Vec<_> = fs::read_dir(dir)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn a_failure_mid_write_leaves_the_old_document() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("results.json");
        let doc = seed();
        save(&path, &doc).unwrap();
        let before = fs::read(&path).unwrap();
        let files_before = files_in(dir.path());

        let mut changed = doc.clone();
        changed.failures.push(failure("new-one"));
        let result = write_atomically(&path, &changed, |file, bytes| {
            file.write_all(&bytes[..bytes.len() / 2])?;
            Err(io::Error::other("disk full (injected)"))
        });
        let error = result.unwrap_err().to_string();
        assert!(error.contains("disk full (injected)"), "{error}");
        assert_eq!(fs::read(&path).unwrap(), before);
        assert_eq!(
            files_in(dir.path()),
            files_before,
            "a temporary file was left"
        );
    }

    #[test]
    fn an_invalid_document_is_refused_before_writing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("results.json");
        let doc = seed();
        save(&path, &doc).unwrap();
        let before = fs::read(&path).unwrap();

        let mut broken = doc.clone();
        broken.runs[0].decode_tok_s += 10.0;
        let error = save(&path, &broken).unwrap_err();
        assert!(matches!(error, DataError::Invalid(_)), "{error}");
        assert!(
            error.to_string().contains("/runs/0/decode_tok_s"),
            "{error}"
        );
        assert_eq!(fs::read(&path).unwrap(), before);
    }

    #[test]
    fn concurrent_writers_lose_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("results.json");
        let doc = seed();
        let original = doc.failures.len();
        save(&path, &doc).unwrap();

        let writers: Vec<_> = (0..2)
            .map(|writer| {
                let path = path.clone();
                std::thread::spawn(move || {
                    for n in 0..15 {
                        update(&path, |doc| {
                            doc.put(failure(&format!("w{writer}-n{n}")), false)?;
                            Ok(())
                        })
                        .unwrap();
                    }
                })
            })
            .collect();
        for writer in writers {
            writer.join().unwrap();
        }
        let saved = load(&path).unwrap();
        assert_eq!(saved.failures.len(), original + 30);
        for writer in 0..2 {
            for n in 0..15 {
                let id = format!("w{writer}-n{n}");
                assert!(
                    saved.failures.iter().any(|f| f.id.as_str() == id),
                    "{id} lost"
                );
            }
        }
    }

    #[test]
    fn put_refuses_an_existing_key_without_replace() {
        let mut doc = seed();
        let mut run = doc.runs[0].clone();
        let error = doc.put(run.clone(), false).unwrap_err();
        assert!(error.to_string().contains("--replace"), "{error}");
        run.notes = Some("remeasured".into());
        doc.put(run, true).unwrap();
        assert_eq!(doc.runs[0].notes.as_deref(), Some("remeasured"));
    }

    #[test]
    fn saving_keeps_the_file_mode() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("results.json");
        save(&path, &seed()).unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o644)).unwrap();
        save(&path, &seed()).unwrap();
        let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o644);
    }
}

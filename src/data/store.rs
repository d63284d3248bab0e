//! The one way results reach the disk: under a lock, validated, written to a temporary file,
//! synced and renamed over the old document, so a reader sees the old or the new document
//! and never a torn one.
//!
//! No writer can leave a document that its own `check` rejects: the edited document is
//! checked whole (the schema, the document's checks and the caller's, such as the profiles')
//! before it is written. A write that would add a problem is refused with check's message and
//! writes nothing; a document that already had problems is named, and a write that adds none
//! (replacing the offending record, say) still goes in.

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::document::{Checks, load, parse_with, to_json, upgraded, validate_with};
use super::error::DataError;
use super::model::Results;
use super::problem::{Problem, Report};

/// A document written: what it holds now, and the problems it already had before the write,
/// which the write neither added nor mended (`None` when it has none).
#[derive(Debug)]
pub struct Written {
    /// The document as written.
    pub doc: Results,
    /// The problems the document had and still has, with the file.
    pub kept: Option<Report>,
}

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
    remove_abandoned(path);
    Ok(DocumentLock { _file: file })
}

/// Removes the temporary files of writers killed mid-write. Every writer writes under the
/// lock, so once it is held, a temporary file of the document belongs to no live writer.
fn remove_abandoned(path: &Path) {
    let (dir, name) = dir_and_name(path);
    let prefix = format!(".{name}.");
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let file = entry.file_name();
        let file = file.to_string_lossy();
        if file.starts_with(&prefix) && file.ends_with(TEMPORARY) {
            // One that cannot be removed now is removed by a later writer.
            let _ = fs::remove_file(entry.path());
        }
    }
}

/// The ending of a writer's temporary file, `.results.json.<random>.tmp`.
const TEMPORARY: &str = ".tmp";

/// The folder a document is in and its file name.
fn dir_and_name(path: &Path) -> (&Path, String) {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .map_or_else(|| "results.json".into(), |name| name.to_string_lossy());
    (dir, name.into_owned())
}

/// The lock file beside a document: `.results.json.lock` for `results.json`.
pub fn lock_path(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map_or_else(|| "results.json".into(), |name| name.to_string_lossy());
    path.with_file_name(format!(".{name}.lock"))
}

/// Replaces the document at `path` (or writes it, when there is none) with `doc`, atomically,
/// once it is checked with `more` beside its own checks: refused when it has a problem the
/// document it replaces did not have. Returns the problems that document had and `doc`
/// still has.
pub fn save(path: &Path, doc: &Results, more: Checks<'_>) -> Result<Option<Report>, DataError> {
    // A whole document replaces the old one whatever it held, so the old one is read only to
    // tell its problems, and a refused save leaves no trace, not even the lock file.
    let before = fs::read(path).ok();
    let kept = admit(path, doc, before.as_deref(), more)?;
    let _lock = lock(path)?;
    write_atomically(path, doc, |file, bytes| file.write_all(bytes))?;
    Ok(kept)
}

/// Reads the document at `path`, lets `edit` change it and saves the result, all under the
/// lock, so concurrent updates never lose each other's records. The edited document is
/// checked whole with `more` beside its own checks, and refused when the edit added a
/// problem; the problems it already had are returned with it.
pub fn update<F>(path: &Path, more: Checks<'_>, edit: F) -> Result<Written, DataError>
where
    F: FnOnce(&mut Results) -> Result<(), DataError>,
{
    let _lock = lock(path)?;
    let bytes = fs::read(path).map_err(|source| DataError::Read {
        path: path.to_owned(),
        source,
    })?;
    let text = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&bytes);
    let mut doc: Results = match serde_json::from_slice(text).ok().or_else(|| upgraded(text)) {
        Some(doc) => doc,
        None => return Err(load(path).err().unwrap_or_else(|| unreachable_valid(path))),
    };
    edit(&mut doc)?;
    let kept = admit(path, &doc, Some(&bytes), more)?;
    write_atomically(path, &doc, |file, bytes| file.write_all(bytes))?;
    Ok(Written { doc, kept })
}

/// A document the typed parse refused but the full load accepted cannot be: the load runs the
/// same typed parse.
fn unreachable_valid(path: &Path) -> DataError {
    DataError::Read {
        path: path.to_owned(),
        source: io::Error::other("the document changed while it was read"),
    }
}

/// Whether `doc` may replace the document whose bytes were `before`: its problems (the
/// schema's, the document's checks and `more`) must all be problems `before` had. Returns
/// those it keeps, as `before` reported them (with their lines); refuses with the others.
fn admit(
    path: &Path,
    doc: &Results,
    before: Option<&[u8]>,
    more: Checks<'_>,
) -> Result<Option<Report>, DataError> {
    let Err(problems) = validate_with(doc, more) else {
        return Ok(None);
    };
    let earlier = match before.map(|bytes| parse_with(path, bytes, more)) {
        None | Some(Ok(_)) => Vec::new(),
        Some(Err(DataError::Invalid(report))) => report.problems,
        Some(Err(other)) => return Err(other),
    };
    let same = |a: &Problem, b: &Problem| {
        a.pointer == b.pointer && a.expected == b.expected && a.found == b.found
    };
    let added: Vec<Problem> = problems
        .iter()
        .filter(|problem| !earlier.iter().any(|old| same(old, problem)))
        .cloned()
        .collect();
    if !added.is_empty() {
        return Err(DataError::Refused(Report {
            file: path.to_owned(),
            problems: added,
        }));
    }
    let kept = earlier
        .into_iter()
        .filter(|old| problems.iter().any(|problem| same(old, problem)))
        .collect();
    Ok(Some(Report {
        file: path.to_owned(),
        problems: kept,
    }))
}

/// Writes `doc` through `write` into a temporary file beside `path`, syncs it and renames
/// it over `path`. On any failure the temporary file is removed and `path` is left as it was.
fn write_atomically(
    path: &Path,
    doc: &Results,
    write: impl FnOnce(&mut File, &[u8]) -> io::Result<()>,
) -> Result<(), DataError> {
    let bytes = to_json(doc);
    let (dir, name) = dir_and_name(path);
    let write_error = |source| DataError::Write {
        path: path.to_owned(),
        source,
    };
    let mut temp = tempfile::Builder::new()
        .prefix(&format!(".{name}."))
        .suffix(TEMPORARY)
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
    use crate::data::document::no_more_checks;
    use crate::data::model::{Failure, FailureStatus};
    use crate::data::types::Id;

    fn seed() -> Results {
        let text = include_str!("../../data/results.json");
        crate::data::parse(Path::new("data/results.json"), text.as_bytes()).unwrap()
    }

    fn failure(id: &str) -> Failure {
        Failure {
            id: Id::new(id).unwrap(),
            checkpoint: "org/model".into(),
            precision: "FP8".into(),
            weights_gib: None,
            status: FailureStatus::NotAttempted,
            config: None,
            profile: None,
            settings: Vec::new(),
            reason: "test".into(),
            engine: None,
            server: None,
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
        save(&path, &doc, &no_more_checks).unwrap();
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
        save(&path, &doc, &no_more_checks).unwrap();
        let before = fs::read(&path).unwrap();

        let mut broken = doc.clone();
        broken.runs[0].decode_tok_s += 10.0;
        let error = save(&path, &broken, &no_more_checks).unwrap_err();
        assert!(matches!(error, DataError::Refused(_)), "{error}");
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
        save(&path, &doc, &no_more_checks).unwrap();

        let writers: Vec<_> = (0..2)
            .map(|writer| {
                let path = path.clone();
                std::thread::spawn(move || {
                    for n in 0..15 {
                        update(&path, &no_more_checks, |doc| {
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

    /// A configuration either served or did not: a failure of a run's id is refused without
    /// --replace, naming the run, and with it takes the run's place; and back.
    #[test]
    fn a_run_and_a_failure_never_share_an_id() {
        let mut doc = seed();
        let id = doc.runs[0].id.clone();
        let mut failed = doc.failures[0].clone();
        failed.id = id.clone();
        let error = doc.put(failed.clone(), false).unwrap_err().to_string();
        assert_eq!(
            error,
            format!("runs already has \"{id}\"; pass --replace to overwrite it")
        );
        let (runs, failures) = (doc.runs.len(), doc.failures.len());
        // Written by hand into the document, `check` names it.
        let mut both = doc.clone();
        both.failures.push(failed.clone());
        let problems = crate::data::checks::problems(&both);
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert_eq!(problems[0].pointer, format!("/failures/{failures}/id"));
        doc.put(failed, true).unwrap();
        assert_eq!(
            (doc.runs.len(), doc.failures.len()),
            (runs - 1, failures + 1)
        );
        assert!(doc.runs.iter().all(|run| run.id != id));
        let mut run = seed().runs[0].clone();
        run.notes = Some("served after all".into());
        doc.put(run, true).unwrap();
        assert_eq!((doc.runs.len(), doc.failures.len()), (runs, failures));
        assert!(doc.failures.iter().all(|failure| failure.id != id));
        assert!(crate::data::checks::problems(&doc).is_empty());
    }

    #[test]
    fn saving_keeps_the_file_mode() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("results.json");
        save(&path, &seed(), &no_more_checks).unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o644)).unwrap();
        save(&path, &seed(), &no_more_checks).unwrap();
        let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o644);
    }

    /// A check that calls every failure whose reason says "bad" a problem, as a profile
    /// check calls a run that disagrees with its profile one.
    fn no_bad_reasons(doc: &Results) -> Vec<Problem> {
        doc.failures
            .iter()
            .enumerate()
            .filter(|(_, f)| f.reason.contains("bad"))
            .map(|(i, _)| Problem::new(format!("/failures/{i}/reason"), "a good reason", "bad"))
            .collect()
    }

    #[test]
    fn a_write_that_adds_a_problem_is_refused_and_writes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("results.json");
        save(&path, &seed(), &no_more_checks).unwrap();
        let before = fs::read(&path).unwrap();
        let mut bad = failure("new-one");
        bad.reason = "bad".into();
        let error = update(&path, &no_bad_reasons, |doc| doc.put(bad, false)).unwrap_err();
        assert!(matches!(error, DataError::Refused(_)), "{error}");
        let message = error.to_string();
        assert!(message.starts_with("nothing was written"), "{message}");
        assert!(
            message.contains("expected a good reason") && message.contains("failures → new-one"),
            "check's own message: {message}"
        );
        assert_eq!(fs::read(&path).unwrap(), before);
    }

    #[test]
    fn a_document_with_problems_takes_writes_that_add_none_and_replacing_mends_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("results.json");
        let mut doc = seed();
        let mut bad = failure("offending");
        bad.reason = "bad".into();
        doc.failures.push(bad);
        // Written as it was before the checks knew better.
        save(&path, &doc, &no_more_checks).unwrap();

        let written = update(&path, &no_bad_reasons, |doc| {
            doc.put(failure("other"), false)
        })
        .unwrap();
        let kept = written.kept.expect("the document's problem is named");
        assert_eq!(kept.problems.len(), 1);
        assert!(
            kept.problems[0].position.is_some(),
            "at its line in the file"
        );
        let warning = kept.kept();
        assert!(warning.contains("already has 1 problem"), "{warning}");
        assert!(warning.contains(&path.display().to_string()), "{warning}");
        assert!(
            load(&path)
                .unwrap()
                .failures
                .iter()
                .any(|f| f.id.as_str() == "other")
        );

        let mut good = failure("offending");
        good.reason = "mended".into();
        let written = update(&path, &no_bad_reasons, |doc| doc.put(good, true)).unwrap();
        assert!(written.kept.is_none());
        assert!(no_bad_reasons(&load(&path).unwrap()).is_empty());
    }

    #[test]
    fn the_next_writer_removes_what_a_killed_writer_left() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("results.json");
        save(&path, &seed(), &no_more_checks).unwrap();
        // What a writer killed between creating and renaming its file leaves.
        fs::write(dir.path().join(".results.json.Ab12Cd.tmp"), "{").unwrap();
        fs::write(dir.path().join("notes.tmp"), "kept").unwrap();
        update(&path, &no_more_checks, |doc| {
            doc.put(failure("after"), false)
        })
        .unwrap();
        assert_eq!(
            files_in(dir.path()),
            [".results.json.lock", "notes.tmp", "results.json"]
        );
    }
}

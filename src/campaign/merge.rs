//! `campaign merge DIR...`: machine documents measured elsewhere (a CI artifact, a Slurm
//! task's copy of the project) merged into the project's, record by record. A record whose key
//! the project has already, with the same content, is skipped, so merging twice changes
//! nothing; the same key with other content is refused with both places named. Server logs,
//! captures and sweeps' per-request data that came along are copied in.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::error::CampaignError;
use crate::data::{self, Record, Results};
use crate::project::{Layout, Machine, ProfileChecks};

/// What a merge did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Merged {
    /// What it added to each machine's document it touched.
    pub documents: Vec<MergedDocument>,
    /// Logs, captures and per-request data copied in.
    pub files: usize,
}

/// What a merge added to one machine's document.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MergedDocument {
    /// The machine's document, relative to the project.
    pub document: String,
    /// Records added, by array.
    pub added: BTreeMap<&'static str, usize>,
    /// Records already there, identical.
    pub present: usize,
    /// Failures removed because the incoming document measured their configuration since
    /// (a `--retry-failed` that served).
    pub replaced: usize,
    /// Where the incoming documents' hardware disagrees: tasks of one machine that ran on
    /// nodes of another kind.
    pub hardware: Option<String>,
    /// The problems the document had before the merge and still has, said as a warning.
    pub kept: Option<String>,
}

/// Merges the machine documents found under each of `dirs` into the project's; nothing is
/// written when any record conflicts.
pub fn merge(root: &Path, machines: &[Machine], dirs: &[PathBuf]) -> Result<Merged, CampaignError> {
    let layout = Layout::new(root);
    let (incoming, files) = gather(root, machines, dirs)?;
    // Every document merged in memory first: a conflict anywhere writes nothing.
    let mut targets: Vec<(usize, Results, MergedDocument)> = Vec::new();
    for (machine, path, doc) in &incoming {
        let at = match targets.iter().position(|(m, _, _)| m == machine) {
            Some(at) => at,
            None => {
                let document = layout.document(&machines[*machine]);
                let current = if document.exists() {
                    data::load(&document)?
                } else {
                    Results::empty(doc.generated.clone())
                };
                targets.push((
                    *machine,
                    current,
                    MergedDocument {
                        document: machines[*machine].data.clone(),
                        ..MergedDocument::default()
                    },
                ));
                targets.len() - 1
            }
        };
        let (_, current, merged) = &mut targets[at];
        let place = (path.as_path(), machines[*machine].data.as_str());
        merged.replaced += retried(current, doc);
        take::<data::Run>(current, doc, merged, place)?;
        take::<data::Failure>(current, doc, merged, place)?;
        take::<data::Sweep>(current, doc, merged, place)?;
        take::<data::Jitter>(current, doc, merged, place)?;
        take::<data::Divergence>(current, doc, merged, place)?;
        hardware(&mut current.hardware, &doc.hardware, merged);
        current.generated = current.generated.clone().max(doc.generated.clone());
    }
    unique_across_machines(&layout, machines, &targets)?;
    let mut report = Vec::new();
    for (machine, merged_doc, mut merged) in targets {
        let document = layout.document(&machines[machine]);
        if let Some(parent) = document.parent() {
            std::fs::create_dir_all(parent).map_err(|source| CampaignError::Write {
                path: parent.to_owned(),
                source,
            })?;
        }
        let checks = ProfileChecks::of(&layout);
        if let Some(kept) = data::save(&document, &merged_doc, &|doc| checks.problems(doc))? {
            merged.kept = Some(kept.kept());
        }
        report.push(merged);
    }
    let copied = copy_files(files)?;
    Ok(Merged {
        documents: report,
        files: copied,
    })
}

/// The machine documents under each of `dirs` (each with its machine), and the logs,
/// captures and per-request data beside them with where they go in the project.
type Gathered = (Vec<(usize, PathBuf, Results)>, Vec<(PathBuf, PathBuf)>);

/// Finds what each of `dirs` brings: its machine documents, logs and captures.
fn gather(root: &Path, machines: &[Machine], dirs: &[PathBuf]) -> Result<Gathered, CampaignError> {
    let mut incoming: Vec<(usize, PathBuf, Results)> = Vec::new();
    let mut files: Vec<(PathBuf, PathBuf)> = Vec::new();
    for dir in dirs {
        if !dir.is_dir() {
            return Err(CampaignError::Merge(format!(
                "{}: expected a folder holding machine documents",
                dir.display()
            )));
        }
        let mut found = 0;
        for entry in walkdir::WalkDir::new(dir).sort_by_file_name() {
            let entry = entry.map_err(|e| CampaignError::Merge(e.to_string()))?;
            let path = entry.path();
            let relative = path.strip_prefix(dir).unwrap_or(path);
            let name = path
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or_default();
            if name.ends_with(".log.gz") && relative.parent().is_some_and(|p| p.ends_with("logs")) {
                files.push((path.to_owned(), root.join("data/logs").join(name)));
                continue;
            }
            if name.ends_with(".jsonl.gz")
                && relative.parent().is_some_and(|p| p.ends_with("captures"))
            {
                files.push((path.to_owned(), root.join("data/captures").join(name)));
                continue;
            }
            // A sweep's per-request data (`data/requests/<slug>.jsonl.gz`).
            if name.ends_with(".jsonl.gz")
                && relative.parent().is_some_and(|p| p.ends_with("requests"))
            {
                files.push((path.to_owned(), root.join("data/requests").join(name)));
                continue;
            }
            if !name.ends_with(".json") || !entry.file_type().is_file() {
                continue;
            }
            let matching: Vec<usize> = machines
                .iter()
                .enumerate()
                .filter(|(_, m)| Path::new(&m.data).ends_with(relative))
                .map(|(i, _)| i)
                .collect();
            let machine = match matching.as_slice() {
                [one] => *one,
                [] => continue,
                _ => {
                    return Err(CampaignError::Merge(format!(
                        "{}: its name fits the documents of several machines; keep the folders of data/ as they are in the project",
                        path.display()
                    )));
                }
            };
            incoming.push((machine, path.to_owned(), data::load(path)?));
            found += 1;
        }
        if found == 0 {
            let names: Vec<&str> = machines.iter().map(|m| m.data.as_str()).collect();
            return Err(CampaignError::Merge(format!(
                "{}: no machine document in it (expected one of: {})",
                dir.display(),
                names.join(", ")
            )));
        }
    }
    Ok((incoming, files))
}

/// Removes from `current` the failures `doc` has a run of and no longer a failure: measured
/// since, as the task's own document says. How many.
fn retried(current: &mut Results, doc: &Results) -> usize {
    let before = current.failures.len();
    current.failures.retain(|failure| {
        let id = failure.id.as_str();
        let measured = doc.runs.iter().any(|r| r.id.as_str() == id);
        let failed = doc.failures.iter().any(|f| f.id.as_str() == id);
        !measured || failed
    });
    before - current.failures.len()
}

/// Takes `incoming` hardware read on a node (its `host` set) over `current`'s, field by field;
/// notes where two nodes of one machine disagree on what the report compares (GPU, VRAM,
/// driver).
fn hardware(current: &mut data::Hardware, incoming: &data::Hardware, merged: &mut MergedDocument) {
    if *current == data::Hardware::default() {
        *current = incoming.clone();
        return;
    }
    if incoming.host.is_none() || incoming == current {
        return;
    }
    let kind = |h: &data::Hardware| (h.gpu.clone(), h.vram_total_mib, h.driver.clone());
    if current.host.is_some() && current.host != incoming.host && kind(current) != kind(incoming) {
        let name = |h: &data::Hardware| {
            format!(
                "{} ({})",
                h.host.as_deref().unwrap_or("?"),
                h.gpu.as_deref().unwrap_or("no GPU read")
            )
        };
        merged.hardware = Some(format!(
            "{}: its tasks ran on nodes of different hardware, {} and {}; give the machine a partition or constraint of its own in the campaign's [slurm.machines]",
            merged.document,
            name(current),
            name(incoming)
        ));
    }
    crate::collect::merge(current, incoming.clone());
}

/// Keys stay unique across the machines: each merged document against every other machine's,
/// merged or on disk.
fn unique_across_machines(
    layout: &Layout,
    machines: &[Machine],
    targets: &[(usize, Results, MergedDocument)],
) -> Result<(), CampaignError> {
    for (machine, current, _) in targets {
        for (other, other_machine) in machines.iter().enumerate() {
            if other == *machine {
                continue;
            }
            let path = layout.document(other_machine);
            let theirs = match targets.iter().find(|(m, _, _)| *m == other) {
                Some((_, doc, _)) => doc.clone(),
                None if path.exists() => data::load(&path)?,
                None => continue,
            };
            unique_across::<data::Run>(
                current,
                &theirs,
                &machines[*machine].data,
                &other_machine.data,
            )?;
            unique_across::<data::Failure>(
                current,
                &theirs,
                &machines[*machine].data,
                &other_machine.data,
            )?;
            unique_across::<data::Sweep>(
                current,
                &theirs,
                &machines[*machine].data,
                &other_machine.data,
            )?;
            unique_across::<data::Jitter>(
                current,
                &theirs,
                &machines[*machine].data,
                &other_machine.data,
            )?;
            unique_across::<data::Divergence>(
                current,
                &theirs,
                &machines[*machine].data,
                &other_machine.data,
            )?;
        }
    }
    Ok(())
}

/// Copies the logs, captures and per-request data the project does not have yet; how many.
fn copy_files(files: Vec<(PathBuf, PathBuf)>) -> Result<usize, CampaignError> {
    let mut copied = 0;
    for (from, to) in files {
        if to.exists() {
            continue;
        }
        if let Some(parent) = to.parent() {
            std::fs::create_dir_all(parent).map_err(|source| CampaignError::Write {
                path: parent.to_owned(),
                source,
            })?;
        }
        std::fs::copy(&from, &to).map_err(|source| CampaignError::Write {
            path: to.clone(),
            source,
        })?;
        copied += 1;
    }
    Ok(copied)
}

/// Adds `doc`'s records of `R` that `current` lacks; the same key with other content is a
/// conflict naming the incoming file and the machine's document.
fn take<R: Record + Clone + PartialEq + Serialize>(
    current: &mut Results,
    doc: &Results,
    merged: &mut MergedDocument,
    (from, into): (&Path, &str),
) -> Result<(), CampaignError> {
    for (index, record) in R::records(doc).iter().enumerate() {
        let existing = R::records(current)
            .iter()
            .position(|r| r.key() == record.key());
        match existing {
            Some(at) if R::records(current)[at] == *record => merged.present += 1,
            Some(at) => {
                return Err(CampaignError::Merge(format!(
                    "{} {:?} differs: {} has it at /{}/{index}, {into} at /{}/{at}; keep one (remove the other, or give it another id) and merge again",
                    R::ARRAY,
                    record.key(),
                    from.display(),
                    R::ARRAY,
                    R::ARRAY
                )));
            }
            None => {
                R::list(current).push(record.clone());
                *merged.added.entry(R::ARRAY).or_default() += 1;
            }
        }
    }
    Ok(())
}

fn unique_across<R: Record>(
    mine: &Results,
    theirs: &Results,
    my_file: &str,
    their_file: &str,
) -> Result<(), CampaignError> {
    for record in R::records(mine) {
        if R::records(theirs).iter().any(|r| r.key() == record.key()) {
            return Err(CampaignError::Merge(format!(
                "{} {:?} would be in both {my_file} and {their_file}; keys are unique across the project's machines",
                R::ARRAY,
                record.key()
            )));
        }
    }
    Ok(())
}

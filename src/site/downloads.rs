//! The data for download: the results document and a CSV per table, with the raw values of
//! the document. The one list of their file names.

use rayon::prelude::*;

use crate::data::figures::{Value, divergence, level, run};
use crate::data::{Block, Divergence, Failure, Jitter, Results, Run, Sweep};
use crate::project::{Documents, Machine};

/// The results document as the project has it.
pub const RESULTS: &str = "results.json";
/// Every run.
pub const RUNS: &str = "runs.csv";
/// Every failure.
pub const FAILURES: &str = "failures.csv";
/// Every level of every sweep.
pub const SWEEP_LEVELS: &str = "sweep-levels.csv";
/// Every jitter measurement.
pub const JITTER: &str = "jitter.csv";
/// Both blocks of every comparison.
pub const DIVERGENCE: &str = "divergence.csv";
/// Every comparison's prompt categories.
pub const DIVERGENCE_CATEGORIES: &str = "divergence-categories.csv";

/// Each CSV download and what its rows are, for the data page.
pub const DESCRIBED: [(&str, &str); 6] = [
    (
        RUNS,
        "every run: one row per configuration, every figure and setting",
    ),
    (
        SWEEP_LEVELS,
        "every level of every sweep: throughput, per-stream decode, TTFT and latency",
    ),
    (
        DIVERGENCE,
        "every comparison's two blocks, teacher-forced and generation",
    ),
    (
        DIVERGENCE_CATEGORIES,
        "every comparison's figures per prompt category",
    ),
    (
        JITTER,
        "every jitter measurement: run-to-run noise of one server",
    ),
    (
        FAILURES,
        "every configuration that did not run, with its reason",
    ),
];

/// The path inside the site of the download `name`.
pub fn path(name: &str) -> String {
    format!("data/{name}")
}

/// The path inside the site of a failure's server log (`data/logs/<file>` of the project):
/// `data/logs/<file>`; of a sweep's per-request data, its path in the project
/// (`data/requests/<slug>.jsonl.gz`).
pub fn log_path(log: &str) -> String {
    if log.starts_with("data/requests/") {
        return log.to_owned();
    }
    let name = std::path::Path::new(log)
        .file_name()
        .map_or_else(|| log.to_owned(), |n| n.to_string_lossy().into_owned());
    path(&format!("logs/{name}"))
}

/// The path inside the site of a machine's results document: `data/results.json`, or
/// `data/<slug>/results.json` in a report that declares machines.
pub fn results_path(machine: &Machine) -> String {
    if machine.slug.is_empty() {
        path(RESULTS)
    } else {
        path(&format!("{}/{RESULTS}", machine.slug))
    }
}

/// The CSV files, by name, of every machine's document; with several machines, each row
/// starts with its machine's slug.
pub fn csv_files(documents: &Documents, merged: &Results) -> Vec<(&'static str, String)> {
    let tables: [(&'static str, Table); 6] = [
        (RUNS, runs),
        (FAILURES, failures),
        (SWEEP_LEVELS, sweep_levels),
        (JITTER, jitter),
        (DIVERGENCE, divergence),
        (DIVERGENCE_CATEGORIES, divergence_categories),
    ];
    let declared = documents.declared();
    // Each table on its own thread: the runs and the sweep levels are most of the work.
    tables
        .into_par_iter()
        .map(|(name, table)| {
            let mut writer = csv::Writer::from_writer(Vec::new());
            for (m, machine) in documents.machines.iter().enumerate() {
                let doc = Part {
                    runs: &merged.runs[documents.range::<Run>(m)],
                    failures: &merged.failures[documents.range::<Failure>(m)],
                    sweeps: &merged.sweeps[documents.range::<Sweep>(m)],
                    jitter: &merged.jitter[documents.range::<Jitter>(m)],
                    divergence: &merged.divergence[documents.range::<Divergence>(m)],
                };
                let mut write = |header: &[&str], rows: &mut dyn Iterator<Item = Vec<String>>| {
                    if m == 0 {
                        let machine_column = declared.then_some("machine");
                        let header: Vec<&str> = machine_column
                            .into_iter()
                            .chain(header.iter().copied())
                            .collect();
                        writer.write_record(&header).expect("writing to memory");
                    }
                    for row in rows {
                        if declared {
                            writer
                                .write_record(std::iter::once(machine.slug.clone()).chain(row))
                                .expect("writing to memory");
                        } else {
                            writer.write_record(&row).expect("writing to memory");
                        }
                    }
                };
                table(&doc, &mut write);
            }
            let csv = String::from_utf8(writer.into_inner().expect("writing to memory"))
                .expect("CSV of UTF-8 is UTF-8");
            (name, csv)
        })
        .collect()
}

/// Writes one document's table: its header, then its rows.
type Write<'w> = dyn FnMut(&[&str], &mut dyn Iterator<Item = Vec<String>>) + 'w;

/// One table of the downloads.
type Table = fn(&Part<'_>, &mut Write<'_>);

/// One machine's records, from the merged document.
struct Part<'a> {
    runs: &'a [Run],
    failures: &'a [Failure],
    sweeps: &'a [Sweep],
    jitter: &'a [Jitter],
    divergence: &'a [Divergence],
}

fn o<T: ToString>(value: &Option<T>) -> String {
    value.as_ref().map(T::to_string).unwrap_or_default()
}

/// A registry value as the download writes it: raw, empty when absent.
fn cell(value: Option<Value>) -> String {
    value.as_ref().map(Value::raw).unwrap_or_default()
}

fn runs(doc: &Part<'_>, write: &mut Write<'_>) {
    let header: Vec<&str> = run::ALL.iter().map(|f| f.key).collect();
    write(
        &header,
        &mut doc
            .runs
            .iter()
            .map(|r| run::ALL.iter().map(|f| cell((f.get)(r))).collect()),
    )
}

fn failures(doc: &Part<'_>, write: &mut Write<'_>) {
    write(
        &[
            "id",
            "checkpoint",
            "precision",
            run::WEIGHTS_GIB.key,
            "status",
            "config",
            "reason",
        ],
        &mut doc.failures.iter().map(|f| {
            vec![
                f.id.to_string(),
                f.checkpoint.clone(),
                f.precision.clone(),
                o(&f.weights_gib),
                f.status.as_str().to_owned(),
                o(&f.config),
                f.reason.clone(),
            ]
        }),
    )
}

fn sweep_levels(doc: &Part<'_>, write: &mut Write<'_>) {
    let mut header = vec!["sweep", "model", "prompt_words", "output_tokens", "rounds"];
    header.extend(level::ALL.iter().map(|f| f.column));
    write(
        &header,
        &mut doc.sweeps.iter().flat_map(|s| {
            s.levels.iter().map(move |l| {
                let mut row = vec![
                    s.label.clone(),
                    s.model.clone(),
                    s.workload
                        .prompt_words
                        .map_or_else(String::new, |w| w.to_string()),
                    s.workload.output_tokens.to_string(),
                    s.workload.rounds.to_string(),
                ];
                row.extend(level::ALL.iter().map(|f| cell((f.field.get)(l))));
                row
            })
        }),
    )
}

fn jitter(doc: &Part<'_>, write: &mut Write<'_>) {
    let mut header = vec![
        "label",
        "model",
        "prompts",
        "repeats",
        "positions",
        "max_tokens",
        "top_k",
        "thinking",
    ];
    header.extend(divergence::JITTER.iter().map(|f| f.key));
    header.push("notes");
    write(
        &header,
        &mut doc.jitter.iter().map(|j| {
            let mut row = vec![
                j.label.clone(),
                j.model.clone(),
                j.prompts.to_string(),
                j.repeats.to_string(),
                j.positions.to_string(),
                j.max_tokens.to_string(),
                j.top_k.to_string(),
                j.thinking.to_string(),
            ];
            row.extend(divergence::JITTER.iter().map(|f| cell((f.get)(j))));
            row.push(o(&j.notes));
            row
        }),
    )
}

fn divergence(doc: &Part<'_>, write: &mut Write<'_>) {
    let mut header = vec!["label", "a", "b", "model", "kind", "block"];
    header.extend(divergence::DOWNLOAD.iter().map(|f| f.key));
    header.extend([
        "kld_mean_ci95_lo",
        "kld_mean_ci95_hi",
        divergence::IDENTICAL_RATE.key,
        "suspect",
    ]);
    write(
        &header,
        &mut doc.divergence.iter().flat_map(|d| {
            let kind = if d.is_floor() { "floor" } else { "change" };
            let (tf, g) = (&d.teacher_forced, &d.generation);
            let row = |name: &str, block: Block| {
                let mut row = vec![
                    d.label.clone(),
                    d.a.to_string(),
                    d.b.to_string(),
                    d.model.clone(),
                    kind.to_owned(),
                    name.to_owned(),
                ];
                row.extend(divergence::DOWNLOAD.iter().map(|f| cell((f.get)(&block))));
                row
            };
            let mut teacher = row("teacher_forced", tf.block());
            teacher.extend(tf.kld_mean_ci95.iter().map(f64::to_string));
            teacher.extend([String::new(), o(&d.suspect)]);
            let mut generation = row("generation", g.block());
            generation.extend([
                String::new(),
                String::new(),
                cell((divergence::IDENTICAL_RATE.get)(g)),
                o(&d.suspect),
            ]);
            [teacher, generation]
        }),
    )
}

fn divergence_categories(doc: &Part<'_>, write: &mut Write<'_>) {
    let mut header = vec!["label", "category"];
    header.extend(divergence::CATEGORY.iter().map(|f| f.key));
    write(
        &header,
        &mut doc.divergence.iter().flat_map(|d| {
            d.teacher_forced.per_category.iter().map(move |(name, c)| {
                let mut row = vec![d.label.clone(), name.clone()];
                row.extend(divergence::CATEGORY.iter().map(|f| cell((f.get)(c))));
                row
            })
        }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_has_every_column() {
        let text = include_str!("../../data/results.json");
        let doc: Results = serde_json::from_str(text).unwrap();
        let documents = Documents::single(doc);
        for (name, csv) in csv_files(&documents, &documents.documents[0]) {
            let mut reader = csv::Reader::from_reader(csv.as_bytes());
            let width = reader.headers().unwrap().len();
            let mut rows = 0;
            for record in reader.records() {
                assert_eq!(record.unwrap().len(), width, "{name}");
                rows += 1;
            }
            assert!(rows > 0, "{name} is empty");
        }
    }
}

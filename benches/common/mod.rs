//! Generated projects for the benchmarks: the seed, and the seed's records repeated.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use benchsite::data::{self, Id, Results};

pub fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

pub fn seed() -> Results {
    data::load(&repo().join("data/results.json")).unwrap()
}

/// The seed with every record repeated `times` times; the first copy keeps its ids, so the
/// shipped narratives still find their records.
pub fn scaled(seed: &Results, times: usize) -> Results {
    let mut doc = seed.clone();
    doc.runs.clear();
    doc.failures.clear();
    doc.sweeps.clear();
    doc.jitter.clear();
    doc.divergence.clear();
    let suffix = |n: usize, sep: &str| {
        if n == 0 {
            String::new()
        } else {
            format!("{sep}x{n}")
        }
    };
    for n in 0..times {
        for run in &seed.runs {
            let mut run = run.clone();
            run.id = Id::new(&format!("{}{}", run.id, suffix(n, "-"))).unwrap();
            doc.runs.push(run);
        }
        for failure in &seed.failures {
            let mut failure = failure.clone();
            failure.id = Id::new(&format!("{}{}", failure.id, suffix(n, "-"))).unwrap();
            doc.failures.push(failure);
        }
        for sweep in &seed.sweeps {
            let mut sweep = sweep.clone();
            sweep.label = format!("{}{}", sweep.label, suffix(n, " "));
            doc.sweeps.push(sweep);
        }
        for jitter in &seed.jitter {
            let mut jitter = jitter.clone();
            jitter.label = format!("{}{}", jitter.label, suffix(n, " "));
            doc.jitter.push(jitter);
        }
        for divergence in &seed.divergence {
            let mut divergence = divergence.clone();
            divergence.label = format!("{}{}", divergence.label, suffix(n, " "));
            doc.divergence.push(divergence);
        }
    }
    doc
}

/// A project in `target/bench-projects/NAME` with the shipped settings, profiles, content and
/// templates and `doc` as its results; left there so the command can be timed on it too.
pub fn project_with(name: &str, doc: &Results) -> PathBuf {
    let root = repo().join("target/bench-projects").join(name);
    let _ = std::fs::remove_dir_all(&root);
    for folder in ["profiles", "content", "templates"] {
        copy_dir(&repo().join(folder), &root.join(folder));
    }
    std::fs::create_dir_all(root.join("data")).unwrap();
    std::fs::copy(repo().join("benchsite.toml"), root.join("benchsite.toml")).unwrap();
    std::fs::write(root.join("data/results.json"), data::to_json(doc)).unwrap();
    root
}

fn copy_dir(from: &Path, to: &Path) {
    for entry in walkdir::WalkDir::new(from) {
        let entry = entry.unwrap();
        let target = to.join(entry.path().strip_prefix(from).unwrap());
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

//! `benchsite check` on the seed and on a generated document 100 times its size.
//!
//! `cargo bench --bench check` times `project::check` (load, schema, checks, profiles).
//! The generated project is left in `target/bench-projects/check-x100` so the whole
//! command can be measured too: `/usr/bin/time -v target/release/benchsite check --root
//! target/bench-projects/check-x100`.

use std::path::{Path, PathBuf};

use benchsite::data::{self, Id, Results};
use benchsite::project;

// The binary's allocator, so the figures are the command's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    divan::main();
}

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The seed with every record repeated `times` times under distinct ids and labels.
fn scaled(seed: &Results, times: usize) -> Results {
    let mut doc = seed.clone();
    doc.runs.clear();
    doc.failures.clear();
    doc.sweeps.clear();
    doc.jitter.clear();
    doc.divergence.clear();
    for n in 0..times {
        for run in &seed.runs {
            let mut run = run.clone();
            run.id = Id::new(&format!("{}-x{n}", run.id)).unwrap();
            doc.runs.push(run);
        }
        for failure in &seed.failures {
            let mut failure = failure.clone();
            failure.id = Id::new(&format!("{}-x{n}", failure.id)).unwrap();
            doc.failures.push(failure);
        }
        for sweep in &seed.sweeps {
            let mut sweep = sweep.clone();
            sweep.label = format!("{} x{n}", sweep.label);
            doc.sweeps.push(sweep);
        }
        for jitter in &seed.jitter {
            let mut jitter = jitter.clone();
            jitter.label = format!("{} x{n}", jitter.label);
            doc.jitter.push(jitter);
        }
        for divergence in &seed.divergence {
            let mut divergence = divergence.clone();
            divergence.label = format!("{} x{n}", divergence.label);
            doc.divergence.push(divergence);
        }
    }
    doc
}

/// A project folder holding the shipped settings and profiles and `doc`.
fn project_with(name: &str, doc: &Results) -> PathBuf {
    let root = repo().join("target/bench-projects").join(name);
    std::fs::create_dir_all(root.join("data")).unwrap();
    std::fs::create_dir_all(root.join("profiles")).unwrap();
    std::fs::copy(repo().join("benchsite.toml"), root.join("benchsite.toml")).unwrap();
    for entry in std::fs::read_dir(repo().join("profiles")).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, root.join("profiles").join(path.file_name().unwrap())).unwrap();
    }
    std::fs::write(root.join("data/results.json"), data::to_json(doc)).unwrap();
    root
}

fn seed() -> Results {
    data::load(&repo().join("data/results.json")).unwrap()
}

#[divan::bench(args = [1, 100])]
fn check(bencher: divan::Bencher, times: usize) {
    let root = project_with(&format!("check-x{times}"), &scaled(&seed(), times));
    bencher.bench(|| {
        let report = project::check(divan::black_box(&root));
        assert!(report.is_ok());
        report
    });
}

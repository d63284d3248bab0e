//! `benchsite check` on the seed and on a generated document 100 times its size.
//!
//! `cargo bench --bench check` times `project::check` (load, schema, checks, profiles).
//! The generated project is left in `target/bench-projects/check-x100` so the whole
//! command can be measured too: `/usr/bin/time -v target/release/benchsite check --root
//! target/bench-projects/check-x100`.

mod common;

use benchsite::project;

// The binary's allocator, so the figures are the command's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    divan::main();
}

#[divan::bench(args = [1, 100])]
fn check(bencher: divan::Bencher, times: usize) {
    let root = common::project_with(
        &format!("check-x{times}"),
        &common::scaled(&common::seed(), times),
    );
    bencher.bench(|| {
        let report = project::check(divan::black_box(&root));
        assert!(report.is_ok());
        report
    });
}

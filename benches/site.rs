//! Rendering the site of the seed and of a generated document 100 times its size.
//!
//! `cargo bench --bench site` times `site::render` (load, validate, every page, link check)
//! and prints the page count, from which ms per page follows. The projects are left in
//! `target/bench-projects/site-x1` and `site-x100` for timing the whole command:
//! `/usr/bin/time -v target/release/benchsite build --root target/bench-projects/site-x100`.

mod common;

use benchsite::site;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    divan::main();
}

#[divan::bench(args = [1, 100], sample_count = 10)]
fn render(bencher: divan::Bencher, times: usize) {
    let root = common::project_with(
        &format!("site-x{times}"),
        &common::scaled(&common::seed(), times),
    );
    let pages = site::render(&root, &site::Options::default())
        .unwrap()
        .pages()
        .count();
    eprintln!("site-x{times}: {pages} pages");
    bencher.bench(|| site::render(divan::black_box(&root), &site::Options::default()).unwrap());
}

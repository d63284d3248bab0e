//! Rendering the site of the seed and of a generated document 100 times its size.
//!
//! `cargo bench --bench site` times `site::render` (load, validate, every page, link check)
//! and prints the page count, from which ms per page follows. The projects are left in
//! `target/bench-projects/site-x1` and `site-x100` for timing the whole command:
//! `/usr/bin/time -v target/release/benchsite build --root target/bench-projects/site-x100`.
//!
//! `search` times the search index of the rendered site's searched pages alone (a build
//! makes it beside the rendering, so this is the most indexing can add to `render`): the
//! issue's bound is indexing ≤ 20% of the build at the seed (1) and 29 times it.

mod common;

use benchsite::site;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    divan::main();
}

#[divan::bench(args = [1, 29, 100], sample_count = 10)]
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

#[divan::bench(args = [1, 29], sample_count = 10)]
fn search(bencher: divan::Bencher, times: usize) {
    let root = common::project_with(
        &format!("site-x{times}"),
        &common::scaled(&common::seed(), times),
    );
    let rendered = site::render(&root, &site::Options::default()).unwrap();
    let files = site::search_index(&rendered, "en").unwrap().len();
    eprintln!("site-x{times}: search index of {files} files");
    bencher.bench(|| site::search_index(divan::black_box(&rendered), "en").unwrap());
}

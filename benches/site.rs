//! Rendering the site of the seed and of a generated document 100 times its size.
//!
//! `cargo bench --bench site` times `site::render` (load, validate, every page, link check)
//! and prints the page count, from which ms per page follows. The projects are left in
//! `target/bench-projects/site-x1` and `site-x100` for timing the whole command:
//! `/usr/bin/time -v target/release/benchsite build --root target/bench-projects/site-x100`.
//!
//! `search` times the search index of the rendered site's searched pages alone, from nothing
//! (a build makes it beside the rendering, so this is the most indexing can add to `render`),
//! and `search_unchanged` the same over a site that already holds it, as a rebuild in which
//! no searched page changed: nothing is indexed, the previous shards are reused.

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

/// The search index of every searched page, from nothing (the rendered site's own index
/// taken out, so nothing is reused).
#[divan::bench(args = [1, 29], sample_count = 10)]
fn search(bencher: divan::Bencher, times: usize) {
    let root = common::project_with(
        &format!("site-x{times}"),
        &common::scaled(&common::seed(), times),
    );
    let mut rendered = site::render(&root, &site::Options::default()).unwrap();
    rendered
        .files
        .retain(|path, _| !path.starts_with("search/data/"));
    let (files, indexed) = site::search_index(&rendered, "en").unwrap();
    eprintln!(
        "site-x{times}: search index of {} pages in {} files",
        indexed.pages,
        files.len()
    );
    bencher.bench(|| site::search_index(divan::black_box(&rendered), "en").unwrap());
}

/// The search index again over a site that holds it, no page changed: nothing is indexed.
#[divan::bench(args = [1, 29], sample_count = 10)]
fn search_unchanged(bencher: divan::Bencher, times: usize) {
    let root = common::project_with(
        &format!("site-x{times}"),
        &common::scaled(&common::seed(), times),
    );
    let rendered = site::render(&root, &site::Options::default()).unwrap();
    assert_eq!(site::search_index(&rendered, "en").unwrap().1.anew, 0);
    bencher.bench(|| site::search_index(divan::black_box(&rendered), "en").unwrap());
}

//! The walls ARCHITECTURE.md states, held by reading the library's sources (every file under
//! `src/` but the binary's `main.rs` and `cli/`) with syn:
//!
//! - a module's door (`mod.rs`, and `lib.rs`) holds only its doc comment, its `mod` lines and
//!   its `pub use` lines;
//! - a file never imports its own module's door: siblings import each other by their paths;
//! - no module imports one that imports it back, and inside a module no file imports one that
//!   imports it back (every `use` line and every inline `crate::` and `super::` path counts);
//! - no function of the library is over [`LONGEST`] lines, but those [`LONG`] lists, each
//!   held to the length it has now until it is split.
//!
//! Test modules (`#[cfg(test)]`) are left out: they may reach anything they test.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use syn::spanned::Spanned;
use syn::visit::Visit;

mod support;

/// The longest a function may be, in lines from its signature to its closing brace.
const LONGEST: usize = 100;

/// The functions over [`LONGEST`] lines that are still to be split, by file and name, with
/// the length each may not exceed. One that is split, or shortened under the limit, must
/// leave this list; one that grows fails.
const LONG: &[(&str, &str, usize)] = &[];

/// A library file: where it is and the module path it is (`["data", "store"]`).
struct Source {
    path: PathBuf,
    module: Vec<String>,
    door: bool,
    syntax: syn::File,
}

fn sources() -> Vec<Source> {
    let src = support::repo().join("src");
    let mut found = Vec::new();
    for path in support::walk(&src) {
        let relative = path.strip_prefix(&src).unwrap();
        if path.extension().is_none_or(|e| e != "rs")
            || relative == Path::new("main.rs")
            || relative.starts_with("cli")
        {
            continue;
        }
        let mut module: Vec<String> = relative
            .with_extension("")
            .iter()
            .map(|part| part.to_string_lossy().into_owned())
            .collect();
        let door = matches!(module.last().map(String::as_str), Some("mod" | "lib"));
        if door {
            module.pop();
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let syntax = syn::parse_file(&text)
            .unwrap_or_else(|error| panic!("{}: {error}", relative.display()));
        found.push(Source {
            path: relative.to_owned(),
            module,
            door,
            syntax,
        });
    }
    found
}

fn is_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|attr| {
        attr.path().is_ident("cfg")
            && attr
                .parse_args::<syn::Meta>()
                .is_ok_and(|meta| meta.path().is_ident("test"))
    })
}

/// Every path a file's code names through `crate::` or `super::`, resolved to module paths
/// (as long as the path goes), outside test modules.
struct Paths<'m> {
    module: &'m [String],
    found: Vec<Vec<String>>,
}

impl Paths<'_> {
    fn resolve(&mut self, segments: Vec<String>) {
        let mut resolved: Vec<String> = Vec::new();
        let mut rest = segments.into_iter().peekable();
        match rest.peek().map(String::as_str) {
            Some("crate") => {
                rest.next();
            }
            Some("super") => {
                resolved = self.module.to_vec();
                while rest.peek().map(String::as_str) == Some("super") {
                    rest.next();
                    resolved.pop();
                }
            }
            Some("self") => {
                rest.next();
                resolved = self.module.to_vec();
            }
            _ => return,
        }
        resolved.extend(rest);
        self.found.push(resolved);
    }

    fn use_tree(&mut self, prefix: Vec<String>, tree: &syn::UseTree) {
        match tree {
            syn::UseTree::Path(path) => {
                let mut next = prefix;
                next.push(path.ident.to_string());
                self.use_tree(next, &path.tree);
            }
            syn::UseTree::Name(name) => {
                let mut whole = prefix;
                if name.ident != "self" {
                    whole.push(name.ident.to_string());
                }
                self.resolve(whole);
            }
            syn::UseTree::Rename(rename) => {
                let mut whole = prefix;
                whole.push(rename.ident.to_string());
                self.resolve(whole);
            }
            syn::UseTree::Glob(_) => self.resolve(prefix),
            syn::UseTree::Group(group) => {
                for item in &group.items {
                    self.use_tree(prefix.clone(), item);
                }
            }
        }
    }
}

impl<'ast> Visit<'ast> for Paths<'_> {
    fn visit_item_mod(&mut self, item: &'ast syn::ItemMod) {
        if !is_test(&item.attrs) {
            syn::visit::visit_item_mod(self, item);
        }
    }

    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        if !is_test(&item.attrs) {
            self.use_tree(Vec::new(), &item.tree);
        }
    }

    fn visit_visibility(&mut self, _: &'ast syn::Visibility) {
        // `pub(super)` names who may see an item, not what the file uses.
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        self.resolve(segments);
        syn::visit::visit_path(self, path);
    }
}

/// The file a resolved path names: the longest module prefix that is a file of the crate.
fn target<'s>(modules: &'s BTreeMap<Vec<String>, usize>, path: &[String]) -> Option<&'s usize> {
    (0..=path.len()).rev().find_map(|n| modules.get(&path[..n]))
}

/// Each file's index and the files it names.
fn graph(sources: &[Source]) -> Vec<BTreeSet<usize>> {
    named(sources)
        .into_iter()
        .map(|tos| tos.into_keys().collect())
        .collect()
}

/// Each file's index and the files it names, each with a path that names it.
fn named(sources: &[Source]) -> Vec<BTreeMap<usize, String>> {
    let modules: BTreeMap<Vec<String>, usize> = sources
        .iter()
        .enumerate()
        .map(|(i, s)| (s.module.clone(), i))
        .collect();
    sources
        .iter()
        .enumerate()
        .map(|(i, source)| {
            let mut paths = Paths {
                module: &source.module,
                found: Vec::new(),
            };
            paths.visit_file(&source.syntax);
            paths
                .found
                .iter()
                .filter_map(|path| Some((*target(&modules, path)?, path.join("::"))))
                .filter(|(to, _)| *to != i)
                .collect()
        })
        .collect()
}

/// A cycle of the graph, as its nodes in order, when there is one.
fn cycle<N: Ord + Clone>(edges: &BTreeMap<N, BTreeSet<N>>) -> Option<Vec<N>> {
    fn visit<N: Ord + Clone>(
        node: &N,
        edges: &BTreeMap<N, BTreeSet<N>>,
        state: &mut BTreeMap<N, bool>,
        stack: &mut Vec<N>,
    ) -> Option<Vec<N>> {
        match state.get(node) {
            Some(true) => return None,
            Some(false) => {
                let at = stack.iter().position(|n| n == node).unwrap();
                let mut found = stack[at..].to_vec();
                found.push(node.clone());
                return Some(found);
            }
            None => {}
        }
        state.insert(node.clone(), false);
        stack.push(node.clone());
        for next in edges.get(node).into_iter().flatten() {
            if let Some(found) = visit(next, edges, state, stack) {
                return Some(found);
            }
        }
        stack.pop();
        state.insert(node.clone(), true);
        None
    }
    let mut state = BTreeMap::new();
    edges
        .keys()
        .find_map(|node| visit(node, edges, &mut state, &mut Vec::new()))
}

#[test]
fn doors_only_declare_and_re_export() {
    let mut wrong = Vec::new();
    for source in sources().iter().filter(|s| s.door) {
        for item in &source.syntax.items {
            let fine = match item {
                syn::Item::Mod(module) => module.content.is_none(),
                syn::Item::Use(item) => matches!(item.vis, syn::Visibility::Public(_)),
                _ => false,
            };
            if !fine {
                let line = item.span().start().line;
                wrong.push(format!("{}:{line}", source.path.display()));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "a door holds only `mod` and `pub use` lines; these are more:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn no_file_imports_its_own_modules_door() {
    let sources = sources();
    let named = named(&sources);
    let mut wrong = Vec::new();
    for (i, source) in sources.iter().enumerate() {
        if source.door {
            continue;
        }
        let own_door = &source.module[..source.module.len() - 1];
        for (&to, path) in &named[i] {
            if sources[to].door && sources[to].module == own_door && !own_door.is_empty() {
                wrong.push(format!(
                    "{} names crate::{path} through {}",
                    source.path.display(),
                    sources[to].path.display()
                ));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "files import their siblings by their own paths:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn no_module_and_no_file_of_a_module_imports_one_that_imports_it_back() {
    let sources = sources();
    let graph = graph(&sources);
    // Between the crate's modules.
    let top = |i: usize| sources[i].module.first().cloned().unwrap_or_default();
    let mut modules: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (from, tos) in graph.iter().enumerate() {
        for &to in tos {
            if top(from) != top(to) && !top(to).is_empty() && !top(from).is_empty() {
                modules.entry(top(from)).or_default().insert(top(to));
            }
        }
    }
    assert_eq!(cycle(&modules), None, "modules import each other");
    // Inside each module, between its files (its door aside: it only re-exports).
    let mut files: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (from, tos) in graph.iter().enumerate() {
        for &to in tos {
            if top(from) == top(to) && !sources[from].door && !sources[to].door {
                files
                    .entry(sources[from].path.display().to_string())
                    .or_default()
                    .insert(sources[to].path.display().to_string());
            }
        }
    }
    assert_eq!(cycle(&files), None, "files of a module import each other");
}

/// Every function outside test modules with its file, name and length in lines.
fn functions(source: &Source) -> Vec<(String, usize)> {
    struct Lengths(Vec<(String, usize)>);
    impl Lengths {
        fn add(&mut self, name: &syn::Ident, span: proc_macro2::Span) {
            let lines = span.end().line - span.start().line + 1;
            self.0.push((name.to_string(), lines));
        }
    }
    impl<'ast> Visit<'ast> for Lengths {
        fn visit_item_mod(&mut self, item: &'ast syn::ItemMod) {
            if !is_test(&item.attrs) {
                syn::visit::visit_item_mod(self, item);
            }
        }
        fn visit_item_fn(&mut self, item: &'ast syn::ItemFn) {
            self.add(&item.sig.ident, item.span());
            syn::visit::visit_item_fn(self, item);
        }
        fn visit_impl_item_fn(&mut self, item: &'ast syn::ImplItemFn) {
            self.add(&item.sig.ident, item.span());
            syn::visit::visit_impl_item_fn(self, item);
        }
        fn visit_trait_item_fn(&mut self, item: &'ast syn::TraitItemFn) {
            if item.default.is_some() {
                self.add(&item.sig.ident, item.span());
            }
            syn::visit::visit_trait_item_fn(self, item);
        }
    }
    let mut lengths = Lengths(Vec::new());
    lengths.visit_file(&source.syntax);
    lengths.0
}

#[test]
fn no_function_is_over_a_hundred_lines_but_those_still_to_split() {
    let mut wrong = Vec::new();
    let mut listed: BTreeSet<(&str, &str)> = LONG.iter().map(|(f, n, _)| (*f, *n)).collect();
    for source in sources() {
        let file = source.path.display().to_string();
        for (name, lines) in functions(&source) {
            let allowed =
                LONG.iter()
                    .find(|(f, n, _)| *f == file && *n == name)
                    .map(|(f, n, most)| {
                        listed.remove(&(*f, *n));
                        *most
                    });
            match allowed {
                Some(most) if lines > most => wrong.push(format!(
                    "{file}: {name} grew to {lines} lines (listed at {most})"
                )),
                Some(_) if lines <= LONGEST => wrong.push(format!(
                    "{file}: {name} is {lines} lines now; take it off LONG"
                )),
                None if lines > LONGEST => wrong.push(format!("{file}: {name} is {lines} lines")),
                _ => {}
            }
        }
    }
    for (file, name) in listed {
        wrong.push(format!("{file}: {name} is listed in LONG but not found"));
    }
    assert!(
        wrong.is_empty(),
        "no function over {LONGEST} lines:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_checks_see_what_they_look_for() {
    // A door with a function, a file through its door, a circle and a long function, each
    // found by the checks above on sources made for it.
    let door = syn::parse_file("//! d\nmod a;\npub use a::X;\nfn f() {}\n").unwrap();
    assert!(door.items.iter().any(|i| matches!(i, syn::Item::Fn(_))));
    let module = vec!["m".to_owned(), "a".to_owned()];
    let mut paths = Paths {
        module: &module,
        found: Vec::new(),
    };
    paths.visit_file(
        &syn::parse_file("use super::{b::Y, X};\nfn f() { crate::n::g(); }\n").unwrap(),
    );
    assert_eq!(
        paths.found,
        [
            vec!["m".to_owned(), "b".to_owned(), "Y".to_owned()],
            vec!["m".to_owned(), "X".to_owned()],
            vec!["n".to_owned(), "g".to_owned()],
        ]
    );
    let edges: BTreeMap<u8, BTreeSet<u8>> =
        [(1, [2].into()), (2, [3].into()), (3, [1].into())].into();
    assert_eq!(cycle(&edges), Some(vec![1, 2, 3, 1]));
    let long = format!("fn long() {{\n{}}}\n", "    let _ = 1;\n".repeat(LONGEST));
    let source = Source {
        path: "x.rs".into(),
        module: vec!["x".into()],
        door: false,
        syntax: syn::parse_file(&long).unwrap(),
    };
    assert_eq!(functions(&source), [("long".to_owned(), LONGEST + 2)]);
}

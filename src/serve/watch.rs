//! Which file-system events are edits of the project: the watched folders and settings file,
//! without editors' scratch files (swap, backup, temporary and lock files).

use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};
use std::time::Duration;

use notify_debouncer_full::notify::{EventKind, RecommendedWatcher, RecursiveMode};
use notify_debouncer_full::{DebounceEventResult, Debouncer, RecommendedCache};

/// The folders of a project whose files make the site.
pub const FOLDERS: [&str; 4] = ["content", "templates", "data", "profiles"];
/// The settings file at the root.
pub const SETTINGS: &str = "benchsite.toml";

/// Whether `path` (below `root`) is a file the site is made from, as opposed to an editor's
/// scratch file or anything else in the project.
pub fn relevant(root: &Path, path: &Path) -> bool {
    let Ok(relative) = path.strip_prefix(root) else {
        return false;
    };
    let parts: Vec<&str> = relative
        .components()
        .map(|part| match part {
            Component::Normal(name) => name.to_str().unwrap_or("."),
            _ => ".",
        })
        .collect();
    match parts.as_slice() {
        [] => false,
        [name] => *name == SETTINGS || FOLDERS.contains(name),
        [folder, rest @ ..] => {
            FOLDERS.contains(folder)
                && !rest.iter().any(|part| part.starts_with('.'))
                && !scratch(rest.last().expect("not empty"))
        }
    }
}

/// Files editors write beside the one being edited: vim's swap files and its `4913` probe,
/// emacs's `#autosave#` and `.#lock`, `~` and `.bak` backups, JetBrains' and others'
/// temporary files. (Hidden files are left out before this.)
fn scratch(name: &str) -> bool {
    name == "4913"
        || name.ends_with('~')
        || name.starts_with('#')
        || [
            ".swp",
            ".swo",
            ".swx",
            ".tmp",
            ".bak",
            "___jb_tmp___",
            "___jb_old___",
        ]
        .iter()
        .any(|suffix| name.ends_with(suffix))
}

/// Whether an event can change a file's bytes (opening and reading a file cannot, and the
/// rebuild itself reads every file).
pub fn changes_files(kind: &EventKind) -> bool {
    !matches!(kind, EventKind::Access(_))
}

/// The project's files that a batch of debounced events says changed.
pub fn changed_paths(root: &Path, batch: DebounceEventResult, into: &mut BTreeSet<PathBuf>) {
    let Ok(events) = batch else {
        return;
    };
    for event in events {
        if !changes_files(&event.kind) {
            continue;
        }
        into.extend(
            event
                .paths
                .iter()
                .filter(|path| relevant(root, path))
                .cloned(),
        );
    }
}

/// The watcher: the root (for the settings file and folders appearing), and each folder of
/// the project recursively, watched as folders so that saves by rename are seen.
pub struct Watcher {
    root: PathBuf,
    debouncer: Debouncer<RecommendedWatcher, RecommendedCache>,
    watched: BTreeSet<&'static str>,
}

impl Watcher {
    /// Starts watching `root`; debounced batches go to `handler`.
    pub fn new(
        root: &Path,
        debounce: Duration,
        handler: impl FnMut(DebounceEventResult) + Send + 'static,
    ) -> notify_debouncer_full::notify::Result<Self> {
        let mut debouncer = notify_debouncer_full::new_debouncer(debounce, None, handler)?;
        debouncer.watch(root, RecursiveMode::NonRecursive)?;
        let mut watcher = Self {
            root: root.to_owned(),
            debouncer,
            watched: BTreeSet::new(),
        };
        watcher.refresh()?;
        Ok(watcher)
    }

    /// Watches the folders that appeared since the last call; forgets those that went.
    pub fn refresh(&mut self) -> notify_debouncer_full::notify::Result<()> {
        for folder in FOLDERS {
            let path = self.root.join(folder);
            let exists = path.is_dir();
            if exists && !self.watched.contains(folder) {
                self.debouncer.watch(&path, RecursiveMode::Recursive)?;
                self.watched.insert(folder);
            } else if !exists && self.watched.remove(folder) {
                // The folder is gone, and its watch with it.
                let _ = self.debouncer.unwatch(&path);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_project_files_are_relevant() {
        let root = Path::new("/p");
        for path in [
            "/p/benchsite.toml",
            "/p/content/method.md",
            "/p/content/runs/a.md",
            "/p/content/img/chart.png",
            "/p/data/results.json",
            "/p/templates/base.html",
            "/p/templates/static/style.css",
            "/p/profiles/a.env",
            "/p/content",
        ] {
            assert!(relevant(root, Path::new(path)), "{path}");
        }
    }

    #[test]
    fn scratch_files_and_other_folders_are_not() {
        let root = Path::new("/p");
        for path in [
            "/p/site/index.html",
            "/p/target/debug/x",
            "/p/README.md",
            "/p/content/.method.md.swp",
            "/p/content/method.md.swx",
            "/p/content/4913",
            "/p/content/method.md~",
            "/p/content/#method.md#",
            "/p/content/.#method.md",
            "/p/content/method.md___jb_tmp___",
            "/p/data/.results.json.lock",
            "/p/data/.results.json.tmp",
            "/p/data/results.json.bak",
            "/p/content/.git/index",
            "/elsewhere/content/a.md",
            "/p",
        ] {
            assert!(!relevant(root, Path::new(path)), "{path}");
        }
    }
}

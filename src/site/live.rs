//! A site kept in memory between edits, for `serve`: a Markdown edit re-renders only the page
//! it is the narrative of; anything else rebuilds the whole site.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::content;
use super::error::SiteError;
use super::inputs::{Inputs, Options};
use super::links::Scans;
use super::output::Site;
use super::{routes, search};

/// The last good site of a project and what it was rendered from.
pub struct Live {
    root: PathBuf,
    options: Options,
    /// The inputs of the last good site, while they still match the files: after a failed
    /// rebuild the next one is full.
    inputs: Option<Inputs>,
    site: Arc<Site>,
    /// The links and ids of the site's pages, for checking links after a page changes.
    scans: Scans,
}

/// What a rebuild did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rebuild {
    /// The HTML pages rendered.
    pub pages: usize,
    /// Whether only the pages of the changed Markdown were rendered.
    pub incremental: bool,
}

impl Live {
    /// A project at `root` with nothing rendered yet: the first [`Live::rebuild`] is full.
    pub fn new(root: &Path, options: Options) -> Self {
        Self {
            root: root.to_owned(),
            options,
            inputs: None,
            site: Arc::default(),
            scans: Scans::default(),
        }
    }

    /// The last site that rendered without error (empty before the first).
    pub fn site(&self) -> Arc<Site> {
        Arc::clone(&self.site)
    }

    /// Brings the site up to date after `changed` files (absolute, or relative to the root)
    /// changed; with none, rebuilds everything. On error the last good site is kept.
    pub fn rebuild(&mut self, changed: &[PathBuf]) -> Result<Rebuild, SiteError> {
        let relative: Vec<PathBuf> = changed
            .iter()
            .map(|path| path.strip_prefix(&self.root).unwrap_or(path).to_owned())
            .collect();
        let outcome = match self.markdown_only(&relative) {
            Some(indexes) => self.rerender(&relative, &indexes),
            None => self.full(),
        };
        if outcome.is_err() {
            self.inputs = None;
        }
        outcome
    }

    /// The indexes of the changed sources, when every change is an edit of a Markdown file
    /// the last good site already has a page for.
    fn markdown_only(&self, relative: &[PathBuf]) -> Option<Vec<usize>> {
        let inputs = self.inputs.as_ref()?;
        if relative.is_empty() {
            return None;
        }
        relative
            .iter()
            .map(|path| {
                if !path.starts_with("content") || path.extension()? != "md" {
                    return None;
                }
                inputs
                    .sources()
                    .iter()
                    .position(|source| source.file == *path)
            })
            .collect()
    }

    fn full(&mut self) -> Result<Rebuild, SiteError> {
        let inputs = Inputs::read(&self.root, &self.options)?;
        let renderer = inputs.renderer();
        // The site shown so far holds the search index to reuse.
        let shown = Arc::clone(&self.site);
        let previous = |path: &str| shown.files.get(path).cloned();
        let (site, content_links) = renderer.render_unchecked(None, &previous)?;
        renderer.check_content_links(&site, &content_links)?;
        let scans = Scans::indexed(&site, renderer.urls());
        scans.check(&site, renderer.urls())?;
        let pages = site.pages().count();
        self.site = Arc::new(site);
        self.scans = scans;
        self.inputs = Some(inputs);
        Ok(Rebuild {
            pages,
            incremental: false,
        })
    }

    fn rerender(&mut self, relative: &[PathBuf], indexes: &[usize]) -> Result<Rebuild, SiteError> {
        let inputs = self.inputs.as_mut().expect("checked by markdown_only");
        for (path, &index) in relative.iter().zip(indexes) {
            match content::load_file(&self.root, path, self.options.drafts)? {
                Some(source) => inputs.replace_source(index, source),
                // It became a draft: its page goes, and with it the links to it.
                None => return self.full(),
            }
        }
        let renderer = inputs.renderer();
        let mut pages = Vec::new();
        let mut content_links = Vec::new();
        for &index in indexes {
            let (page, links) = renderer.render_narrative_page(&inputs.sources()[index])?;
            pages.push(page);
            content_links.extend(links);
        }
        let paths: Vec<String> = pages.iter().map(|(path, _)| path.clone()).collect();
        // Shared with the server, the site is copied here, but its files are not.
        let site = Arc::make_mut(&mut self.site);
        let previous: Vec<_> = pages
            .into_iter()
            .map(|(path, bytes)| {
                let old = site.files.insert(path.clone(), bytes);
                (path, old)
            })
            .collect();
        self.scans.rescan_indexed(site, renderer.urls(), &paths);
        let checked = self
            .scans
            .check_content_links(site, renderer.urls(), &content_links)
            .and_then(|()| self.scans.check_changed(site, renderer.urls(), &paths));
        if let Err(error) = checked {
            for (path, old) in previous {
                match old {
                    Some(bytes) => site.files.insert(path, bytes),
                    None => site.files.remove(&path),
                };
            }
            self.scans.rescan_indexed(site, renderer.urls(), &paths);
            return Err(error);
        }
        // A searched page changed: the index is patched for it, as a build patches the
        // previous site's, so the preview's search is the build's.
        if let Some(language) = inputs.search_language()
            && paths.iter().any(|path| routes::searched(path).is_some())
        {
            let (index, _) = search::index_site(site, language)?;
            site.files
                .retain(|path, _| !path.starts_with(&format!("{}/", search::FOLDER)));
            site.files.extend(index);
        }
        Ok(Rebuild {
            pages: paths.len(),
            incremental: true,
        })
    }
}

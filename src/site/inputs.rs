//! What a site is rendered from, read and validated once ([`Inputs`]), and the three ways to
//! render it: in memory (`render`), into the output folder (`build`), and `check`'s sample.

use std::collections::{BTreeMap, HashSet};

use bytes::Bytes;
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::catalog::Baseline;
use super::content::{self, Content, Source};
use super::error::{SiteError, many};
use super::memo::{self, Memo};
use super::output::{self, Site};
use super::render::{Read, Renderer};
use super::{links, search, templates};
use crate::config::Config;
use crate::data::{self, Results};
use crate::profiles::Profile;
use crate::project::{self, Documents, Download, Layout, ProjectError};

/// How to render.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Overrides `base_url` of benchsite.toml.
    pub base_url: Option<String>,
    /// Include pages marked `draft = true`.
    pub drafts: bool,
}

/// The per-request data of every sweep that kept it: each sweep's index and requests, and
/// each file's path and bytes for the download. A file the record names and the project
/// lacks, or a line that is not a request, is an error naming the file.
#[allow(clippy::type_complexity)]
fn request_logs(
    root: &Path,
    doc: &Results,
) -> Result<(Vec<(usize, Vec<data::RequestLine>)>, Vec<(String, Vec<u8>)>), data::DataError> {
    let mut requests = Vec::new();
    let mut files = Vec::new();
    for (index, sweep) in doc.sweeps.iter().enumerate() {
        let Some(path) = &sweep.request_log else {
            continue;
        };
        let full = root.join(path);
        let bytes = std::fs::read(&full).map_err(|source| data::DataError::Read {
            path: full.clone(),
            source,
        })?;
        requests.push((index, data::request_log_lines(&bytes, &full)?));
        files.push((path.clone(), bytes));
    }
    Ok((requests, files))
}

/// The templates, with the SHA-256 of their sources ([`templates::load`]).
type Templates = Result<(tera::Tera, [u8; 32]), SiteError>;

/// Everything a site is rendered from, read and validated once.
pub struct Inputs {
    layout: Layout,
    options: Options,
    config: Config,
    /// Every machine's records in one document, when there are several machines (with one,
    /// its document is that).
    merged: Option<Results>,
    /// Each machine's own document.
    documents: Documents,
    profiles: Vec<Profile>,
    tera: tera::Tera,
    /// The SHA-256 of the templates' sources.
    theme: [u8; 32],
    /// Each machine's document as the site offers it for download.
    downloads: Vec<Download>,
    /// The SHA-256 of the downloads' bytes one after the other.
    digest: [u8; 32],
    content: Content,
    baselines: Vec<Baseline>,
    /// The failures' server logs that exist and the sweeps' per-request data: each one's path
    /// in the project and bytes.
    logs: Vec<(String, Vec<u8>)>,
    /// Each sweep's per-request data, read: the sweep's index and its requests.
    requests: Vec<(usize, Vec<data::RequestLine>)>,
    /// What every page's view is computed from, hashed ([`views_fingerprint`]).
    views: [u8; 16],
}

/// A fingerprint of everything the catalog, and so every page's view, is computed from: the
/// documents' bytes (`digest`), the settings and `--base-url`, the profiles, the baselines'
/// paths and bytes, and the logs'. The settings and profiles enter as their `Debug` forms,
/// which show every field. The Markdown, the templates and this program are not in it: the
/// memo keys a page by them beside this.
fn views_fingerprint(
    digest: &[u8; 32],
    config: &Config,
    options: &Options,
    profiles: &[Profile],
    baselines: &[(String, Vec<u8>)],
    logs: &[(String, Vec<u8>)],
) -> [u8; 16] {
    let settings = format!("{config:?}\n{:?}\n{profiles:?}", options.base_url);
    let files = baselines.iter().chain(logs);
    let named = files.flat_map(|(path, bytes)| [path.as_bytes(), bytes.as_slice()]);
    let counts = [baselines.len().to_le_bytes(), logs.len().to_le_bytes()];
    memo::fingerprint(
        [digest.as_slice(), settings.as_bytes()]
            .into_iter()
            .chain(counts.iter().map(|c| c.as_slice()))
            .chain(named),
    )
}

impl Inputs {
    /// Reads the project at `root` whose [`project::check`] is `report`.
    pub fn load(
        root: &Path,
        report: project::CheckReport,
        options: &Options,
    ) -> Result<Self, SiteError> {
        let (content, tera) = read_site_files(root, options);
        Self::assemble(root, report, options, content, tera)
    }

    /// Checks the project at `root` ([`project::check`]) and reads its content and templates
    /// at the same time, on two cores.
    pub fn read(root: &Path, options: &Options) -> Result<Self, SiteError> {
        let (report, (content, tera)) = rayon::join(
            || project::check(&Layout::new(root).root),
            || read_site_files(root, options),
        );
        Self::assemble(root, report, options, content, tera)
    }

    fn assemble(
        root: &Path,
        report: project::CheckReport,
        options: &Options,
        content: Result<Content, SiteError>,
        tera: Templates,
    ) -> Result<Self, SiteError> {
        let layout = Layout::new(root);
        if !report.is_ok() {
            return Err(SiteError::Project(report.errors));
        }
        let mut documents = report.documents.expect("a valid project has results");
        let merged = documents.declared().then(|| documents.take_merged());
        // What the check read and parsed, not read again.
        let config = report.config.expect("a valid project has its settings");
        let (downloads, digest) = (report.downloads, report.digest);
        let data_error = |e| SiteError::Project(vec![ProjectError::Data(e)]);
        let content = content?;
        let (tera, theme) = tera?;
        let mut baselines = Vec::new();
        // Each baseline's path and bytes, for the views' fingerprint.
        let mut baseline_bytes = Vec::new();
        for (machine, m) in documents.machines.iter().enumerate() {
            if let Some(path) = &m.baseline {
                let full = layout.root.join(path);
                let bytes = std::fs::read(&full).map_err(|source| {
                    data_error(data::DataError::Read {
                        path: full.clone(),
                        source,
                    })
                })?;
                let doc = data::parse(&full, &bytes).map_err(data_error)?;
                baselines.push(Baseline {
                    machine,
                    path: path.clone(),
                    doc,
                });
                baseline_bytes.push((path.clone(), bytes));
            }
        }
        let logs = merged
            .as_ref()
            .unwrap_or(&documents.documents[0])
            .failures
            .iter()
            .filter_map(|f| f.log.clone())
            .filter_map(|path| {
                let bytes = std::fs::read(layout.root.join(&path)).ok()?;
                Some((path, bytes))
            })
            .collect();
        let (requests, request_bytes) = request_logs(
            &layout.root,
            merged.as_ref().unwrap_or(&documents.documents[0]),
        )
        .map_err(data_error)?;
        let mut logs: Vec<(String, Vec<u8>)> = logs;
        logs.extend(request_bytes);
        let views = views_fingerprint(
            &digest,
            &config,
            options,
            &report.profiles,
            &baseline_bytes,
            &logs,
        );
        Ok(Self {
            views,
            logs,
            requests,
            baselines,
            layout,
            options: options.clone(),
            config,
            merged,
            documents,
            profiles: report.profiles,
            tera,
            theme,
            downloads,
            digest,
            content,
        })
    }

    /// What a renderer reads of these inputs.
    fn to_read(&self) -> Read<'_> {
        Read {
            config: &self.config,
            base_url: self.options.base_url.as_deref(),
            documents: &self.documents,
            profiles: &self.profiles,
            baselines: &self.baselines,
            downloads: &self.downloads,
            digest: &self.digest,
            logs: &self.logs,
            requests: &self.requests,
            tera: &self.tera,
            root: &self.layout.root,
            content: &self.content,
        }
    }

    /// Every machine's records in one document.
    fn results(&self) -> &Results {
        self.merged.as_ref().unwrap_or(&self.documents.documents[0])
    }

    /// The author's Markdown files.
    pub fn sources(&self) -> &[Source] {
        &self.content.sources
    }

    /// Replaces the Markdown file at `index` of [`Inputs::sources`] after an edit.
    pub fn replace_source(&mut self, index: usize, source: Source) {
        self.content.sources[index] = source;
    }

    /// The search index's language, when the site has search.
    pub fn search_language(&self) -> Option<&str> {
        self.config.search.then_some(self.config.language.as_str())
    }

    /// A renderer of the project's results.
    pub fn renderer(&self) -> Renderer<'_> {
        Renderer::new(self.to_read(), self.results())
    }

    /// Renders every page and checks every link.
    pub fn render(&self) -> Result<Site, SiteError> {
        let renderer = self.renderer();
        let (site, content_links) = renderer.render_unchecked(None, &search::no_previous)?;
        renderer.check_content_links(&site, &content_links)?;
        links::check_site(&site, renderer.urls())?;
        Ok(site)
    }

    /// Renders the site into `out`: each file written into a temporary folder as soon as it
    /// is rendered, with only the pages' links and ids kept for the link check, and the
    /// folder swapped in for `out` only when every link resolves. A page whose template
    /// context is the one the last build rendered into `out` is taken from `out` ([`Memo`]).
    pub fn build(&self, out: &Path) -> Result<Built, SiteError> {
        let staging = output::Staging::new(out)?;
        let memo = Memo::open(out, &self.theme, self.views);
        let renderer = self.renderer().with_memo(&memo);
        let scans = Mutex::new(BTreeMap::new());
        let files = Mutex::new(HashSet::new());
        let pages = AtomicUsize::new(0);
        // The site being replaced holds the search index this build reuses.
        let previous = |path: &str| std::fs::read(out.join(path)).ok().map(Bytes::from);
        let (content_links, search) =
            renderer.render_each(None, &previous, &|path, bytes, scan| {
                if path.ends_with(".html") {
                    let scan = scan.unwrap_or_else(|| links::scan_page(&bytes));
                    scans
                        .lock()
                        .expect("no panic holds the lock")
                        .insert(path.clone(), scan);
                    pages.fetch_add(1, Ordering::Relaxed);
                }
                staging.write(&path, &bytes)?;
                files.lock().expect("no panic holds the lock").insert(path);
                Ok(())
            })?;
        let files = files.into_inner().expect("no panic holds the lock");
        let scans = scans.into_inner().expect("no panic holds the lock");
        let has = |file: &str| files.contains(file);
        let has_id = |file: &str, id: &str| scans.get(file).is_some_and(|scan| scan.has_id(id));
        links::check_content_links_in(&has, &has_id, renderer.urls(), &content_links)?;
        let scans = links::Scans::from_pages(scans);
        // The last build's check passed on exactly these files and links.
        let digest = memo.links_digest(&renderer.urls().base_path, &files, scans.pages());
        if !memo.links_checked(&digest) {
            scans.check_in(&has, renderer.urls())?;
        }
        let reused = memo.reused();
        // The memo is written while the site is swapped in: should the swap fail, the memo
        // describes pages the output does not hold, and those are rendered again.
        let (committed, ()) =
            rayon::join(|| staging.commit(), || memo.save(scans.pages(), &digest));
        committed?;
        Ok(Built {
            pages: pages.into_inner(),
            reused,
            files: files.len(),
            search,
        })
    }

    /// Renders every content page and one page of each data kind, the index pages through a
    /// sample of the document, and checks the links the Markdown holds.
    pub fn check(&self) -> Result<Site, SiteError> {
        // The index templates are checked against one record of each kind: they show
        // every record, and a large document would make check as slow as a build.
        let sample = first_of_each(self.results());
        let renderer = self.renderer();
        let (site, content_links) = renderer.render_unchecked(
            Some(&Renderer::new(self.to_read(), &sample)),
            &search::no_previous,
        )?;
        renderer.check_content_links(&site, &content_links)?;
        Ok(site)
    }
}

/// Renders the site of the project at `root` in memory: validates the project, renders
/// every page, and checks every internal link.
pub fn render(root: &Path, options: &Options) -> Result<Site, SiteError> {
    Inputs::read(root, options)?.render()
}

/// Checks the project as `render` would, rendering every content page but only one page of
/// each data kind: the data, content, shortcodes, content links and every template are
/// checked without the cost of rendering every record's page. `report` is the project's
/// [`project::check`]. The returned site holds the other data pages as empty files.
pub fn check(root: &Path, report: project::CheckReport) -> Result<Site, SiteError> {
    Inputs::load(root, report, &Options::default())?.check()
}

/// Renders the site and writes it to `out`: into a temporary folder beside it first, each
/// page as soon as it is rendered, swapped in only when everything succeeded, so a failed
/// build leaves the previous site as it was. Memory does not grow with the site's size.
pub fn build(root: &Path, out: &Path, options: &Options) -> Result<Built, SiteError> {
    Inputs::read(root, options)?.build(out)
}

/// The author's Markdown and the templates of the project at `root`.
fn read_site_files(root: &Path, options: &Options) -> (Result<Content, SiteError>, Templates) {
    let root = Layout::new(root).root;
    (
        content::load(&root, options.drafts).map_err(many),
        templates::load(&root),
    )
}

/// The document with only the first record of each kind, the others not copied.
fn first_of_each(doc: &Results) -> Results {
    fn first<T: Clone>(records: &[T]) -> Vec<T> {
        records.iter().take(1).cloned().collect()
    }
    Results {
        schema_version: doc.schema_version,
        generated: doc.generated.clone(),
        hardware: doc.hardware.clone(),
        software: doc.software.clone(),
        method: doc.method.clone(),
        runs: first(&doc.runs),
        failures: first(&doc.failures),
        sweeps: first(&doc.sweeps),
        jitter: first(&doc.jitter),
        divergence: first(&doc.divergence),
    }
}

/// What a build wrote.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Built {
    /// HTML pages.
    pub pages: usize,
    /// Pages taken from the site the build replaced, their template not run.
    pub reused: usize,
    /// Files in all.
    pub files: usize,
    /// What the search index took, when the site has search.
    pub search: Option<search::Indexed>,
}

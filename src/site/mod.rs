//! The static site: the page model computed from the validated data, the author's Markdown
//! with shortcodes, Tera templates, charts, and the output written atomically and link-checked.
//!
//! [`render`] builds the whole site in memory; [`build`] renders and swaps it into `site/`.

mod charts;
mod content;
mod downloads;
pub mod format;
mod links;
mod live;
mod markdown;
mod pages;
mod templates;
mod views;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use bytes::Bytes;
use rayon::prelude::*;
use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::config::Config;
use crate::data::{self, Results};
use crate::profiles::Profile;
use crate::project::{self, Layout, ProjectError};

use content::{Content, Place, Source};
use markdown::{Arg, Expansion, Shortcode};
use pages::Catalog;

pub use live::{Live, Rebuild};
pub use templates::{DEFAULTS as DEFAULT_TEMPLATES, STATIC as DEFAULT_STATIC};

/// The vendored ECharts build every site carries.
const ECHARTS: &[u8] = include_bytes!("vendor/echarts/echarts.min.js");
/// Its sha256, as recorded in `vendor/echarts/VENDOR.md`.
pub const ECHARTS_SHA256: &str = "b66b25aeb4df84e33199dc21694014d336d222cbd9deb0e5a7c14bd6aa0d0fd0";
const ECHARTS_LICENSE: &[u8] = include_bytes!("vendor/echarts/LICENSE");
const ECHARTS_NOTICE: &[u8] = include_bytes!("vendor/echarts/NOTICE");

/// Why a site could not be built.
#[derive(Debug, thiserror::Error)]
pub enum SiteError {
    /// The settings, profiles or data are invalid.
    #[error("{}", join(.0))]
    Project(Vec<ProjectError>),
    /// A content file is wrong.
    #[error("{}:{line}: {message}", file.display())]
    Content {
        /// The file.
        file: PathBuf,
        /// 1-based line (0 when the whole file).
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// Several content files are wrong.
    #[error("{}", join(.0))]
    Many(Vec<SiteError>),
    /// A template is wrong.
    #[error("templates/{name}: {message}")]
    Template {
        /// The template.
        name: String,
        /// What is wrong, with Tera's position.
        message: String,
    },
    /// Pages link to files the site does not have.
    #[error("broken links:\n{}", .0.join("\n"))]
    Links(Vec<String>),
    /// The site could not be written; the previous one is untouched.
    #[error("cannot write {}: {source}", path.display())]
    Write {
        /// The path.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

fn join<T: std::fmt::Display>(items: &[T]) -> String {
    items
        .iter()
        .map(|item| item.to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

/// How to render.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Overrides `base_url` of benchsite.toml.
    pub base_url: Option<String>,
    /// Include pages marked `draft = true`.
    pub drafts: bool,
}

/// A rendered site: every file by its path inside the site.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Site {
    /// Path (`runs/x/index.html`) to bytes; cheap to clone, so a site can be shared and
    /// changed page by page.
    pub files: BTreeMap<String, Bytes>,
}

impl Site {
    /// The HTML pages.
    pub fn pages(&self) -> impl Iterator<Item = &str> {
        self.files
            .keys()
            .filter(|path| path.ends_with(".html"))
            .map(String::as_str)
    }
}

/// Where the site lives: the path prefix of every link and, when known, the absolute URL.
#[derive(Debug, Clone)]
pub struct Urls {
    /// `/` or `/report/`.
    pub base_path: String,
    /// `https://user.github.io/report/`, when base_url is absolute.
    pub absolute: Option<String>,
}

impl Urls {
    /// From a base_url setting.
    pub fn new(base_url: &str) -> Self {
        let with_slash = if base_url.ends_with('/') {
            base_url.to_owned()
        } else {
            format!("{base_url}/")
        };
        match with_slash.split_once("://") {
            Some((_, rest)) => {
                let path = rest.find('/').map_or("/", |at| &rest[at..]);
                Self {
                    base_path: path.to_owned(),
                    absolute: Some(with_slash.clone()),
                }
            }
            None => Self {
                base_path: if with_slash.starts_with('/') {
                    with_slash
                } else {
                    format!("/{with_slash}")
                },
                absolute: None,
            },
        }
    }

    /// The link to a path inside the site (`runs/x/`).
    pub fn page(&self, path: &str) -> String {
        format!("{}{}", self.base_path, path)
    }

    /// The absolute URL of a path, when the site's address is known.
    pub fn absolute(&self, path: &str) -> Option<String> {
        self.absolute.as_ref().map(|base| format!("{base}{path}"))
    }
}

/// What every page's template gets besides its own content.
#[derive(Debug, Serialize)]
struct SiteContext {
    title: String,
    description: String,
    author: String,
    language: String,
    base_path: String,
    nav: Vec<views::Link>,
    schema_version: u32,
    data_generated: String,
    data_hash: String,
    version: &'static str,
}

/// The page-specific part of a page's context.
#[derive(Debug, Serialize)]
struct PageContext<T: Serialize> {
    title: String,
    description: String,
    path: String,
    url: String,
    canonical: Option<String>,
    narrative: String,
    content: T,
}

/// Renders the site of the project at `root` in memory: validates the project, renders
/// every page, and checks every internal link.
pub fn render(root: &Path, options: &Options) -> Result<Site, SiteError> {
    let report = project::check(&Layout::new(root).root);
    render_as(root, report, options, Scope::Everything)
}

/// Checks the project as `render` would, rendering every content page but only one page of
/// each data kind: the data, content, shortcodes, content links and every template are
/// checked without the cost of rendering every record's page. `report` is the project's
/// [`project::check`]. The returned site holds the other data pages as empty files.
pub fn check(root: &Path, report: project::CheckReport) -> Result<Site, SiteError> {
    render_as(root, report, &Options::default(), Scope::OnePerKind)
}

/// How much of the site to render.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scope {
    Everything,
    OnePerKind,
}

fn render_as(
    root: &Path,
    report: project::CheckReport,
    options: &Options,
    scope: Scope,
) -> Result<Site, SiteError> {
    let inputs = Inputs::load(root, report, options)?;
    let renderer = inputs.renderer(&inputs.results);
    match scope {
        Scope::Everything => renderer.render(&inputs.content, None),
        Scope::OnePerKind => {
            // The index templates are checked against one record of each kind: they show
            // every record, and a large document would make check as slow as a build.
            let sample = first_of_each(&inputs.results);
            renderer.render(&inputs.content, Some(&inputs.renderer(&sample)))
        }
    }
}

/// Everything a site is rendered from, read and validated once.
struct Inputs {
    layout: Layout,
    options: Options,
    config: Config,
    results: Results,
    profiles: Vec<Profile>,
    tera: tera::Tera,
    data_bytes: Vec<u8>,
    content: Content,
    /// The document `/changes/` compares against, with its path as configured.
    baseline: Option<(String, Results)>,
}

impl Inputs {
    /// Reads the project whose [`project::check`] is `report`.
    fn load(
        root: &Path,
        report: project::CheckReport,
        options: &Options,
    ) -> Result<Self, SiteError> {
        let layout = Layout::new(root);
        if !report.is_ok() {
            return Err(SiteError::Project(report.errors));
        }
        let results = report.results.expect("a valid project has results");
        let config =
            crate::config::load(&layout.root).map_err(|e| SiteError::Project(vec![e.into()]))?;
        let data_bytes = std::fs::read(layout.results()).map_err(|source| {
            SiteError::Project(vec![ProjectError::Data(data::DataError::Read {
                path: layout.results(),
                source,
            })])
        })?;
        let content = content::load(&layout.root, options.drafts).map_err(many)?;
        let tera = templates::load(&layout.root)?;
        let baseline = match &config.baseline {
            Some(path) => {
                let doc = data::load(&layout.root.join(path))
                    .map_err(|e| SiteError::Project(vec![ProjectError::Data(e)]))?;
                Some((path.clone(), doc))
            }
            None => None,
        };
        Ok(Self {
            baseline,
            layout,
            options: options.clone(),
            config,
            results,
            profiles: report.profiles,
            tera,
            data_bytes,
            content,
        })
    }

    /// A renderer of `doc` (the project's results or a sample of them).
    fn renderer<'a>(&'a self, doc: &'a Results) -> Renderer<'a> {
        Renderer::new(self, doc)
    }
}

/// The document with only the first record of each kind.
fn first_of_each(doc: &Results) -> Results {
    let mut sample = doc.clone();
    sample.runs.truncate(1);
    sample.failures.truncate(1);
    sample.sweeps.truncate(1);
    sample.jitter.truncate(1);
    sample.divergence.truncate(1);
    sample
}

/// Renders the site and writes it to `out`: into a temporary folder beside it first, swapped
/// in only when everything succeeded, so a failed build leaves the previous site as it was.
pub fn build(root: &Path, out: &Path, options: &Options) -> Result<Site, SiteError> {
    let site = render(root, options)?;
    links::write(&site, out)?;
    Ok(site)
}

fn many(mut errors: Vec<SiteError>) -> SiteError {
    if errors.len() == 1 {
        errors.remove(0)
    } else {
        SiteError::Many(errors)
    }
}

/// A site link written in Markdown: its file, URL and line.
type ContentLink = (PathBuf, String, usize);

struct Renderer<'a> {
    config: &'a Config,
    urls: Urls,
    catalog: Catalog<'a>,
    tera: &'a tera::Tera,
    site: SiteContext,
    data_bytes: &'a [u8],
    root: &'a Path,
    baseline: Option<&'a (String, Results)>,
}

impl<'a> Renderer<'a> {
    fn new(inputs: &'a Inputs, results: &'a Results) -> Self {
        let (config, options, data_bytes) = (&inputs.config, &inputs.options, &inputs.data_bytes);
        let base_url = options.base_url.as_deref().unwrap_or(&config.base_url);
        let urls = Urls::new(base_url);
        let hash = Sha256::digest(data_bytes);
        let hash: String = hash.iter().take(6).map(|b| format!("{b:02x}")).collect();
        let nav = [
            ("Runs", "runs/"),
            ("Sweeps", "sweeps/"),
            ("Quality", "quality/"),
            ("Failures", "failures/"),
            ("Ablations", "ablations/"),
            ("Changes", "changes/"),
        ]
        .into_iter()
        .filter(|(_, path)| *path != "changes/" || inputs.baseline.is_some())
        .map(|(text, path)| views::Link {
            text: text.into(),
            href: urls.page(path),
            note: None,
            warning: None,
        })
        .collect();
        let site = SiteContext {
            title: config.title.clone(),
            description: config.description.clone(),
            author: config.author.clone(),
            language: config.language.clone(),
            base_path: urls.base_path.clone(),
            nav,
            schema_version: data::SCHEMA_VERSION,
            data_generated: results.generated.to_string(),
            data_hash: hash,
            version: env!("CARGO_PKG_VERSION"),
        };
        Self {
            config,
            catalog: Catalog::new(results, &inputs.profiles, urls.clone()),
            urls,
            tera: &inputs.tera,
            site,
            data_bytes,
            root: &inputs.layout.root,
            baseline: inputs.baseline.as_ref(),
        }
    }

    /// Renders the site; with `sample`, only one page of each kind, the index pages through
    /// `sample`, and the rest of the data pages as empty files.
    fn render(&self, content: &Content, sample: Option<&Renderer<'_>>) -> Result<Site, SiteError> {
        let (site, content_links) = self.render_unchecked(content, sample)?;
        links::check_content_links(&site, &self.urls, &content_links)?;
        if sample.is_none() {
            links::check_site(&site, &self.urls)?;
        }
        Ok(site)
    }

    /// Renders the site without checking its links: the site, and the links the Markdown
    /// holds with their files and lines.
    fn render_unchecked(
        &self,
        content: &Content,
        sample: Option<&Renderer<'_>>,
    ) -> Result<(Site, Vec<ContentLink>), SiteError> {
        let mut site = Site::default();
        let mut errors = Vec::new();
        let mut narratives: BTreeMap<Place, (String, &Source)> = BTreeMap::new();
        let mut content_links = Vec::new();
        for source in &content.sources {
            if let Err(error) = self.check_place(&source.place, &source.file) {
                errors.push(error);
                continue;
            }
            match self.narrative(source) {
                Ok((html, links)) => {
                    content_links.extend(
                        links
                            .into_iter()
                            .map(|(url, line)| (source.file.clone(), url, line)),
                    );
                    narratives.insert(source.place.clone(), (html, source));
                }
                Err(error) => errors.push(error),
            }
        }
        if !errors.is_empty() {
            return Err(many(errors));
        }
        let narrative = |place: Place| -> (String, Option<&Source>) {
            match narratives.get(&place) {
                Some((html, source)) => (html.clone(), Some(*source)),
                None => (String::new(), None),
            }
        };
        let doc = self.catalog.doc;
        let mut jobs = vec![
            Job::Home,
            Job::RunsIndex,
            Job::SweepsIndex,
            Job::FailuresIndex,
            Job::QualityIndex,
            Job::Ablations,
        ];
        if self.baseline.is_some() {
            jobs.push(Job::Changes);
        }
        jobs.extend(doc.runs.iter().map(Job::Run));
        jobs.extend(doc.sweeps.iter().map(Job::Sweep));
        jobs.extend(doc.failures.iter().map(Job::Failure));
        jobs.extend(doc.divergence.iter().map(Job::Comparison));
        jobs.extend(
            narratives
                .values()
                .filter(|(_, source)| matches!(source.place, Place::Free(_)))
                .map(|(_, source)| Job::Free(source)),
        );
        if sample.is_some() {
            let mut seen = std::collections::BTreeSet::new();
            let (kept, rest): (Vec<_>, Vec<_>) = jobs
                .into_iter()
                .partition(|job| matches!(job, Job::Free(_)) || seen.insert(job.kind()));
            for job in rest {
                site.files
                    .insert(format!("{}index.html", job.path()), Bytes::new());
            }
            jobs = kept;
        }
        // Pages are independent: render them on every core.
        let rendered = jobs
            .par_iter()
            .map(|job| match sample {
                Some(sample) if job.is_index() => sample.render_job(job, &narrative),
                _ => self.render_job(job, &narrative),
            })
            .collect::<Result<Vec<_>, SiteError>>()?;
        site.files.extend(rendered);
        let not_found = self.render_template(
            "404.html",
            &PageContext {
                title: "Page not found".into(),
                description: String::new(),
                path: "404.html".into(),
                url: self.urls.page("404.html"),
                canonical: None,
                narrative: String::new(),
                content: Empty {},
            },
        )?;
        site.files.insert("404.html".into(), not_found.into());

        for (name, default) in templates::STATIC {
            site.files.insert(
                format!("assets/{name}"),
                templates::static_file(self.root, name, default)?.into(),
            );
        }
        site.files
            .insert("assets/echarts.min.js".into(), Bytes::from_static(ECHARTS));
        site.files.insert(
            "assets/echarts-LICENSE.txt".into(),
            Bytes::from_static(ECHARTS_LICENSE),
        );
        site.files.insert(
            "assets/echarts-NOTICE.txt".into(),
            Bytes::from_static(ECHARTS_NOTICE),
        );
        for asset in &content.assets {
            site.files
                .insert(asset.site_path.clone(), asset.bytes.clone().into());
        }
        site.files.insert(
            "data/results.json".into(),
            Bytes::copy_from_slice(self.data_bytes),
        );
        for (name, csv) in downloads::csv_files(doc) {
            site.files.insert(format!("data/{name}"), csv.into());
        }
        site.files.insert(".nojekyll".into(), Bytes::new());
        site.files
            .insert("sitemap.xml".into(), self.sitemap(&site).into());
        site.files.insert("robots.txt".into(), self.robots().into());
        Ok((site, content_links))
    }

    /// Renders the one page whose narrative is `source`: its path and bytes, and the site
    /// links its Markdown holds.
    fn render_narrative_page(
        &self,
        source: &Source,
    ) -> Result<((String, Bytes), Vec<ContentLink>), SiteError> {
        self.check_place(&source.place, &source.file)?;
        let (html, links) = self.narrative(source)?;
        let doc = self.catalog.doc;
        let job = match &source.place {
            Place::Home => Job::Home,
            Place::Free(_) => Job::Free(source),
            Place::Run(id) => Job::Run(self.catalog.run(id).expect("checked above")),
            Place::Failure(id) => Job::Failure(
                doc.failures
                    .iter()
                    .find(|f| f.id.as_str() == id)
                    .expect("checked above"),
            ),
            Place::Sweep(slug) => Job::Sweep(
                doc.sweeps
                    .iter()
                    .find(|s| &s.slug() == slug)
                    .expect("checked above"),
            ),
            Place::Quality(slug) => Job::Comparison(
                doc.divergence
                    .iter()
                    .find(|d| &d.slug() == slug)
                    .expect("checked above"),
            ),
        };
        let narrative = |place: Place| {
            if place == source.place {
                (html.clone(), Some(source))
            } else {
                (String::new(), None)
            }
        };
        let page = self.render_job(&job, &narrative)?;
        let links = links
            .into_iter()
            .map(|(url, line)| (source.file.clone(), url, line))
            .collect();
        Ok((page, links))
    }

    fn sections(&self) -> Vec<views::Link> {
        let doc = self.catalog.doc;
        let mut sections = vec![
            (
                "Runs",
                "runs/",
                format!("{} measured configurations, one page each", doc.runs.len()),
            ),
            (
                "Sweeps",
                "sweeps/",
                format!("{} concurrency sweeps", doc.sweeps.len()),
            ),
            (
                "Quality",
                "quality/",
                format!(
                    "{} comparisons and {} jitter measurements",
                    doc.divergence.len(),
                    doc.jitter.len()
                ),
            ),
            (
                "Failures",
                "failures/",
                format!("{} configurations that did not run", doc.failures.len()),
            ),
            (
                "Ablations",
                "ablations/",
                format!(
                    "{} pairs of records that differ in exactly one setting",
                    self.catalog.ablation_count()
                ),
            ),
        ]
        .into_iter()
        .map(|(text, path, note)| views::Link {
            text: text.into(),
            href: self.urls.page(path),
            note: Some(note),
            warning: None,
        })
        .collect::<Vec<_>>();
        sections.push(views::Link {
            text: "Data".into(),
            href: self.urls.page("data/results.json"),
            note: Some("the results document (JSON) and a CSV per table".into()),
            warning: None,
        });
        sections
    }

    /// Renders one page through its template.
    #[allow(clippy::too_many_arguments)]
    fn page<T: Serialize>(
        &self,
        path: &str,
        template: &str,
        title: String,
        source: Option<&Source>,
        narrative: String,
        content: &T,
    ) -> Result<(String, Bytes), SiteError> {
        let front = source.map(|s| &s.front);
        let title = front.and_then(|f| f.title.clone()).unwrap_or(title);
        let description = front
            .and_then(|f| f.description.clone())
            .unwrap_or_else(|| self.config.description.clone());
        let html = self.render_template(
            template,
            &PageContext {
                title,
                description,
                path: path.to_owned(),
                url: self.urls.page(path),
                canonical: self.urls.absolute(path),
                narrative,
                content,
            },
        )?;
        Ok((format!("{path}index.html"), html.into()))
    }

    /// Renders one page of the site: its path and bytes.
    fn render_job<'s>(
        &self,
        job: &Job<'s>,
        narrative: &(dyn Fn(Place) -> (String, Option<&'s Source>) + Sync),
    ) -> Result<(String, Bytes), SiteError> {
        let c = &self.catalog;
        match job {
            Job::Home => {
                let (html, source) = narrative(Place::Home);
                let home = Home {
                    hardware: c.hardware(),
                    software: c.software(),
                    decode_chart: c.decode_chart(),
                    runs: c.runs_table(),
                    sections: self.sections(),
                };
                self.page(
                    "",
                    "index.html",
                    self.config.title.clone(),
                    source,
                    html,
                    &home,
                )
            }
            Job::RunsIndex => {
                let index = RunsIndex {
                    decode_chart: c.decode_chart(),
                    runs: c.runs_table(),
                    method: c.method(),
                };
                self.page(
                    "runs/",
                    "runs.html",
                    "Runs".into(),
                    None,
                    String::new(),
                    &index,
                )
            }
            Job::Run(run) => {
                let (html, source) = narrative(Place::Run(run.id.to_string()));
                let page = c.run_page(run);
                let path = job.path();
                self.page(&path, "run.html", page.title.clone(), source, html, &page)
            }
            Job::SweepsIndex => {
                let index = SweepsIndex {
                    charts: c.sweep_overlays(),
                    sweeps: c.sweeps_table(),
                };
                self.page(
                    "sweeps/",
                    "sweeps.html",
                    "Sweeps".into(),
                    None,
                    String::new(),
                    &index,
                )
            }
            Job::Sweep(sweep) => {
                let page = c.sweep_page(sweep);
                let (html, source) = narrative(Place::Sweep(page.slug.clone()));
                let path = job.path();
                self.page(&path, "sweep.html", page.title.clone(), source, html, &page)
            }
            Job::FailuresIndex => {
                let index = FailuresIndex {
                    failures: c.failures_table(),
                    list: c.failure_links(),
                };
                self.page(
                    "failures/",
                    "failures.html",
                    "Failures".into(),
                    None,
                    String::new(),
                    &index,
                )
            }
            Job::Failure(failure) => {
                let (html, source) = narrative(Place::Failure(failure.id.to_string()));
                let page = c.failure_page(failure);
                let path = job.path();
                self.page(
                    &path,
                    "failure.html",
                    page.title.clone(),
                    source,
                    html,
                    &page,
                )
            }
            Job::QualityIndex => {
                let index = QualityIndex {
                    heatmap: c.heatmap(),
                    speed_quality: c.speed_quality(),
                    comparisons: c.comparisons_table(),
                    jitter: c.jitter_table(),
                };
                self.page(
                    "quality/",
                    "quality.html",
                    "Quality".into(),
                    None,
                    String::new(),
                    &index,
                )
            }
            Job::Comparison(divergence) => {
                let page = c.comparison_page(divergence);
                let (html, source) = narrative(Place::Quality(page.slug.clone()));
                let path = job.path();
                self.page(
                    &path,
                    "comparison.html",
                    page.title.clone(),
                    source,
                    html,
                    &page,
                )
            }
            Job::Ablations => self.page(
                "ablations/",
                "ablations.html",
                "One-knob ablations".into(),
                None,
                String::new(),
                &c.ablations_page(),
            ),
            Job::Changes => {
                let (path, baseline) = self.baseline.expect("a changes page has a baseline");
                let threshold = self.config.regression_threshold;
                let diff = crate::compare::diff(baseline, c.doc, threshold);
                self.page(
                    "changes/",
                    "changes.html",
                    "Changes since the baseline".into(),
                    None,
                    String::new(),
                    &pages::changes_page(&diff, path, threshold),
                )
            }
            Job::Free(source) => {
                let (html, _) = narrative(source.place.clone());
                let Place::Free(name) = &source.place else {
                    unreachable!("free pages only")
                };
                let title = source.front.title.clone().unwrap_or_else(|| name.clone());
                self.page(
                    &format!("{name}/"),
                    "page.html",
                    title,
                    Some(source),
                    html,
                    &Empty {},
                )
            }
        }
    }

    fn render_template<T: Serialize>(
        &self,
        name: &str,
        page: &PageContext<T>,
    ) -> Result<String, SiteError> {
        let mut context = tera::Context::new();
        context.insert("site", &self.site);
        context.insert("page", page);
        self.tera
            .render(name, &context)
            .map_err(|error| SiteError::Template {
                name: name.to_owned(),
                message: templates::chain(&error),
            })
    }

    /// A narrative's record must exist.
    fn check_place(&self, place: &Place, file: &Path) -> Result<(), SiteError> {
        let missing = |kind: &str, key: &str, known: Vec<String>| SiteError::Content {
            file: file.to_owned(),
            line: 1,
            message: format!(
                "no {kind} {key:?} in data/results.json; expected one of: {}",
                known.join(", ")
            ),
        };
        let doc = self.catalog.doc;
        match place {
            Place::Run(id) if self.catalog.run(id).is_none() => Err(missing(
                "run",
                id,
                doc.runs.iter().map(|r| r.id.to_string()).collect(),
            )),
            Place::Failure(id) if !doc.failures.iter().any(|f| f.id.as_str() == id) => {
                Err(missing(
                    "failure",
                    id,
                    doc.failures.iter().map(|f| f.id.to_string()).collect(),
                ))
            }
            Place::Sweep(slug) if !doc.sweeps.iter().any(|s| &s.slug() == slug) => Err(missing(
                "sweep",
                slug,
                doc.sweeps.iter().map(|s| s.slug()).collect(),
            )),
            Place::Quality(slug) if !doc.divergence.iter().any(|d| &d.slug() == slug) => {
                Err(missing(
                    "comparison",
                    slug,
                    doc.divergence.iter().map(|d| d.slug()).collect(),
                ))
            }
            Place::Free(name)
                if [
                    "runs",
                    "sweeps",
                    "failures",
                    "quality",
                    "ablations",
                    "changes",
                    "data",
                    "assets",
                ]
                .contains(&name.as_str()) =>
            {
                Err(SiteError::Content {
                    file: file.to_owned(),
                    line: 1,
                    message: format!(
                        "a free page may not be called {name:?}: the site uses /{name}/ itself"
                    ),
                })
            }
            _ => Ok(()),
        }
    }

    /// Renders a content file's Markdown with its shortcodes.
    fn narrative(&self, source: &Source) -> Result<(String, Vec<(String, usize)>), SiteError> {
        let rendered = markdown::render(
            &source.body,
            source.body_line,
            &self.urls.base_path,
            &mut |call| self.shortcode(call),
        )
        .map_err(|error| SiteError::Content {
            file: source.file.clone(),
            line: error.line,
            message: error.message,
        })?;
        Ok((rendered.html, rendered.links))
    }

    fn shortcode(&self, call: &Shortcode) -> Result<Expansion, String> {
        let c = &self.catalog;
        let text_arg = |key: &str| -> Result<String, String> {
            match call.args.get(key) {
                Some(Arg::Text(text)) => Ok(text.clone()),
                Some(_) => Err(format!("{}: {key} expected a quoted string", call.name)),
                None => Err(format!("{}: missing argument {key}", call.name)),
            }
        };
        let allowed = |keys: &[&str]| -> Result<(), String> {
            match call.args.keys().find(|k| !keys.contains(&k.as_str())) {
                Some(key) => Err(format!(
                    "{}: unknown argument {key}; expected {}",
                    call.name,
                    if keys.is_empty() {
                        "none".to_owned()
                    } else {
                        keys.join(", ")
                    }
                )),
                None => Ok(()),
            }
        };
        let block = |view: ShortcodeView| -> Result<Expansion, String> {
            let mut context = tera::Context::new();
            context.insert("site", &self.site);
            context.insert("view", &view);
            let html = self
                .tera
                .render("shortcode.html", &context)
                .map_err(|e| format!("{}: {}", call.name, templates::chain(&e)))?;
            Ok(Expansion { html, block: true })
        };
        let sweep_of = |key: String| {
            c.sweep(&key).ok_or_else(|| {
                format!(
                    "{}: no sweep {key:?}; expected a label or slug of: {}",
                    call.name,
                    c.doc
                        .sweeps
                        .iter()
                        .map(|s| s.slug())
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            })
        };
        // The views that take no arguments.
        let plain = match call.name.as_str() {
            "runs_table" => Some(ShortcodeView::table(c.runs_table())),
            "decode_chart" => Some(ShortcodeView::chart(c.decode_chart())),
            "failure_list" => Some(ShortcodeView::links(c.failure_links())),
            "failures_table" => Some(ShortcodeView::table(c.failures_table())),
            "heatmap" => Some(ShortcodeView::chart(c.heatmap())),
            "jitter_table" => Some(ShortcodeView::table(c.jitter_table())),
            "comparisons_table" => Some(ShortcodeView::table(c.comparisons_table())),
            "sweeps_table" => Some(ShortcodeView::table(c.sweeps_table())),
            "hardware_table" => Some(ShortcodeView::facts(c.hardware())),
            "software_table" => Some(ShortcodeView::facts(c.software())),
            _ => None,
        };
        if let Some(view) = plain {
            allowed(&[])?;
            return block(view);
        }
        match call.name.as_str() {
            "sweep_table" => {
                allowed(&["sweep"])?;
                let sweep = sweep_of(text_arg("sweep")?)?;
                block(ShortcodeView::table(c.sweep_table(sweep)))
            }
            "sweep_chart" => {
                allowed(&["sweep", "metric"])?;
                let sweep = sweep_of(text_arg("sweep")?)?;
                let metric = match call.args.get("metric") {
                    None => "throughput".to_owned(),
                    Some(_) => text_arg("metric")?,
                };
                let index = ["throughput", "ttft", "latency"]
                    .iter()
                    .position(|m| *m == metric)
                    .ok_or_else(|| {
                        format!(
                            "sweep_chart: metric {metric:?}; expected throughput, ttft or latency"
                        )
                    })?;
                block(ShortcodeView::chart(
                    c.sweep_charts(sweep).swap_remove(index),
                ))
            }
            "run" => {
                allowed(&["id", "field"])?;
                let id = text_arg("id")?;
                let run = c.run(&id).ok_or_else(|| {
                    format!(
                        "run: no run {id:?}; expected one of: {}",
                        c.doc
                            .runs
                            .iter()
                            .map(|r| r.id.to_string())
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                })?;
                let text = match call.args.get("field") {
                    None => {
                        return Ok(Expansion {
                            html: format!(
                                "<a href=\"{}\">{}</a>",
                                c.run_url(run),
                                escape(run.id.as_str())
                            ),
                            block: false,
                        });
                    }
                    Some(_) => run_field(run, &text_arg("field")?)?,
                };
                Ok(Expansion {
                    html: escape(&text),
                    block: false,
                })
            }
            other => Err(format!(
                "unknown shortcode {other:?}; expected one of: runs_table, run, decode_chart, sweep_chart, sweep_table, sweeps_table, heatmap, comparisons_table, jitter_table, failure_list, failures_table, hardware_table, software_table"
            )),
        }
    }

    fn sitemap(&self, site: &Site) -> String {
        let mut xml = String::from(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n",
        );
        for path in site.files.keys().filter(|p| p.ends_with("index.html")) {
            let page = path.trim_end_matches("index.html");
            let loc = self
                .urls
                .absolute(page)
                .unwrap_or_else(|| self.urls.page(page));
            xml.push_str(&format!("  <url><loc>{}</loc></url>\n", escape(&loc)));
        }
        xml.push_str("</urlset>\n");
        xml
    }

    fn robots(&self) -> String {
        let sitemap = self
            .urls
            .absolute("sitemap.xml")
            .unwrap_or_else(|| self.urls.page("sitemap.xml"));
        format!("User-agent: *\nAllow: /\nSitemap: {sitemap}\n")
    }
}

/// One page to render.
enum Job<'d> {
    Home,
    RunsIndex,
    Run(&'d data::Run),
    SweepsIndex,
    Sweep(&'d data::Sweep),
    FailuresIndex,
    Failure(&'d data::Failure),
    QualityIndex,
    Comparison(&'d data::Divergence),
    Ablations,
    Changes,
    Free(&'d Source),
}

impl Job<'_> {
    /// The kind of page, for rendering one of each.
    fn kind(&self) -> &'static str {
        match self {
            Job::Home => "home",
            Job::RunsIndex => "runs",
            Job::Run(_) => "run",
            Job::SweepsIndex => "sweeps",
            Job::Sweep(_) => "sweep",
            Job::FailuresIndex => "failures",
            Job::Failure(_) => "failure",
            Job::QualityIndex => "quality",
            Job::Comparison(_) => "comparison",
            Job::Ablations => "ablations",
            Job::Changes => "changes",
            Job::Free(_) => "page",
        }
    }

    /// Whether the page lists every record of its kind.
    fn is_index(&self) -> bool {
        matches!(
            self,
            Job::Home
                | Job::RunsIndex
                | Job::SweepsIndex
                | Job::FailuresIndex
                | Job::QualityIndex
                | Job::Ablations
                | Job::Changes
        )
    }

    /// The page's path inside the site.
    fn path(&self) -> String {
        match self {
            Job::Home => String::new(),
            Job::RunsIndex => "runs/".into(),
            Job::Run(run) => format!("runs/{}/", run.id),
            Job::SweepsIndex => "sweeps/".into(),
            Job::Sweep(sweep) => format!("sweeps/{}/", sweep.slug()),
            Job::FailuresIndex => "failures/".into(),
            Job::Failure(failure) => format!("failures/{}/", failure.id),
            Job::QualityIndex => "quality/".into(),
            Job::Comparison(divergence) => format!("quality/{}/", divergence.slug()),
            Job::Ablations => "ablations/".into(),
            Job::Changes => "changes/".into(),
            Job::Free(source) => match &source.place {
                Place::Free(name) => format!("{name}/"),
                _ => unreachable!("free pages only"),
            },
        }
    }
}

/// One field of a run, as text with its unit.
fn run_field(run: &data::Run, field: &str) -> Result<String, String> {
    use format::{count, figure, switch};
    let missing = || "—".to_owned();
    Ok(match field {
        "decode_tok_s" => format!("{} tok/s", figure(run.decode_tok_s)),
        "decode_cold_sample" => format!("{} tok/s", figure(run.decode_cold_sample)),
        "spec_acceptance" => run.spec_acceptance.map_or_else(missing, figure),
        "kv_tokens" => run
            .kv_tokens
            .map_or_else(missing, |v| format!("{} tokens", count(v))),
        "max_concurrency" => run.max_concurrency.map_or_else(missing, figure),
        "max_model_len" => format!("{} tokens", count(run.max_model_len)),
        "weights_gb" => run
            .weights_gb
            .map_or_else(missing, |v| format!("{} GB", figure(v))),
        "model" => run.model.clone(),
        "checkpoint" => run.checkpoint.clone(),
        "precision" => run.precision.clone(),
        "shape" => run.shape.clone(),
        "kv_cache_dtype" => run.kv_cache_dtype.clone().unwrap_or_else(missing),
        "vllm_version" => run.vllm_version.clone().unwrap_or_else(missing),
        "cuda_graphs" => switch(run.cuda_graphs).into(),
        "vision" => switch(run.vision).into(),
        "spec_decode" => switch(run.spec_decode).into(),
        "generated" => run.generated.to_string(),
        other => {
            return Err(format!(
                "run: unknown field {other:?}; expected decode_tok_s, decode_cold_sample, spec_acceptance, kv_tokens, max_concurrency, max_model_len, weights_gb, model, checkpoint, precision, shape, kv_cache_dtype, vllm_version, cuda_graphs, vision, spec_decode or generated"
            ));
        }
    })
}

/// HTML-escapes text for element content and quoted attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// What a block shortcode shows.
#[derive(Debug, Serialize)]
struct ShortcodeView {
    kind: &'static str,
    table: Option<views::Table>,
    chart: Option<views::Chart>,
    links: Vec<views::Link>,
    facts: Vec<views::Fact>,
}

impl ShortcodeView {
    fn empty(kind: &'static str) -> Self {
        Self {
            kind,
            table: None,
            chart: None,
            links: Vec::new(),
            facts: Vec::new(),
        }
    }

    fn table(table: views::Table) -> Self {
        Self {
            table: Some(table),
            ..Self::empty("table")
        }
    }

    fn chart(chart: views::Chart) -> Self {
        Self {
            chart: Some(chart),
            ..Self::empty("chart")
        }
    }

    fn links(links: Vec<views::Link>) -> Self {
        Self {
            links,
            ..Self::empty("links")
        }
    }

    fn facts(facts: Vec<views::Fact>) -> Self {
        Self {
            facts,
            ..Self::empty("facts")
        }
    }
}

#[derive(Debug, Serialize)]
struct Empty {}

#[derive(Debug, Serialize)]
struct Home {
    hardware: Vec<views::Fact>,
    software: Vec<views::Fact>,
    decode_chart: views::Chart,
    runs: views::Table,
    sections: Vec<views::Link>,
}

#[derive(Debug, Serialize)]
struct RunsIndex {
    decode_chart: views::Chart,
    runs: views::Table,
    method: Vec<views::Fact>,
}

#[derive(Debug, Serialize)]
struct SweepsIndex {
    charts: Vec<views::Chart>,
    sweeps: views::Table,
}

#[derive(Debug, Serialize)]
struct FailuresIndex {
    failures: views::Table,
    list: Vec<views::Link>,
}

#[derive(Debug, Serialize)]
struct QualityIndex {
    heatmap: views::Chart,
    speed_quality: views::Chart,
    comparisons: views::Table,
    jitter: views::Table,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_under_a_project_path() {
        let urls = Urls::new("https://user.github.io/report");
        assert_eq!(urls.base_path, "/report/");
        assert_eq!(urls.page("runs/a/"), "/report/runs/a/");
        assert_eq!(
            urls.absolute("runs/a/").as_deref(),
            Some("https://user.github.io/report/runs/a/")
        );
        let root = Urls::new("/");
        assert_eq!(root.page("runs/"), "/runs/");
        assert_eq!(root.absolute("x"), None);
        assert_eq!(Urls::new("https://example.org").base_path, "/");
    }

    #[test]
    fn the_vendored_echarts_is_the_recorded_file() {
        let digest: String = Sha256::digest(ECHARTS)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(digest, ECHARTS_SHA256);
        let vendor = include_str!("vendor/echarts/VENDOR.md");
        assert!(vendor.contains(ECHARTS_SHA256));
    }
}

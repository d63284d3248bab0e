//! Rendering: every page of the route table rendered through its template in parallel, with
//! the files that go beside the pages, from what `inputs.rs` read once.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::Mutex;

use bytes::Bytes;
use rayon::prelude::*;
use serde::Serialize;

use super::assets::{ECHARTS, ECHARTS_LICENSE, ECHARTS_NOTICE};
use super::catalog::{Baseline, Catalog};
use super::content::{Content, Place, Source};
use super::error::{SiteError, many};
use super::jobs::{Job, Narrated, Narratives, Told, jobs};
use super::memo::{self, Memo};
use super::output::{PageFile, Site};
use super::pages::{self, Page};
use super::paging;
use super::routes::{self, Pages};
use super::search;
use super::shortcodes::View;
use super::urls::Urls;
use super::views::Link;
use super::{downloads, html, links, narrative, sitemap, templates};
use crate::config::Config;
use crate::data::{self, Results};
use crate::profiles::Profile;
use crate::project::{Documents, Download, ProjectError};

/// A rendered page, with how many data files its paged tables wrote beside it.
struct Rendered {
    page: PageFile,
    spilled: usize,
    /// The page's scan, when it was taken unchanged from the last build with it: its own, or
    /// with its data files' rows when the page was taken whole.
    scan: Option<links::Scan>,
    /// The data files of a page taken whole, by their paths in the site.
    taken: Vec<(String, Bytes)>,
}

/// A page being rendered, as the memo notes it: its file, its inputs' key, whether its scan
/// is its own (it has no data files) and its data files.
struct Made {
    file: String,
    inputs: Option<memo::Hash>,
    own_scan: bool,
    files: memo::Files,
}

/// Takes one rendered file: its path inside the site, its bytes, and the scan of its ids and
/// links when the page was already read (a searched page is read once, for both).
pub type Emit<'e> = dyn Fn(String, Bytes, Option<links::Scan>) -> Result<(), SiteError> + Sync + 'e;

/// Takes one file that is not a searched page: its path and its bytes.
type Put<'p> = dyn Fn(String, Bytes) -> Result<(), SiteError> + Sync + 'p;

/// A site link written in Markdown: its file, URL and line.
pub type ContentLink = (std::path::PathBuf, String, usize);

/// What every page's template gets besides its own content.
#[derive(Debug, Serialize)]
struct SiteContext {
    title: String,
    description: String,
    author: String,
    language: String,
    base_path: String,
    /// Whether pages show the search box.
    search: bool,
    nav: Vec<Link>,
    schema_version: u32,
    data_generated: String,
    data_hash: String,
    /// The download the footer links to: the results document, or with several machines the
    /// runs CSV (each machine's document is on its page).
    data_url: String,
    data_name: String,
    version: &'static str,
}

/// The page-specific part of a page's context.
/// Beside its `content`, which is its view's.
#[derive(Debug, Serialize)]
struct PageContext {
    title: String,
    description: String,
    path: String,
    url: String,
    canonical: Option<String>,
    narrative: String,
    /// The machine that measured the page's record, in a report that declares machines.
    #[serde(skip_serializing_if = "Option::is_none")]
    machine: Option<Link>,
}

impl PageContext {
    /// What the template gets as `page`: these fields and `content`.
    fn with(self, content: serde_json::Value) -> serde_json::Value {
        let mut page = serde_json::to_value(self).expect("plain data serializes");
        if let serde_json::Value::Object(fields) = &mut page {
            fields.insert("content".into(), content);
        }
        page
    }
}

/// Renders the pages of one document.
pub struct Renderer<'a> {
    config: &'a Config,
    urls: Urls,
    catalog: Catalog<'a>,
    tera: &'a tera::Tera,
    /// The `site` every template gets.
    site: serde_json::Value,
    downloads: &'a [Download],
    logs: &'a [(String, Vec<u8>)],
    root: &'a Path,
    content: &'a Content,
    /// The last build's pages, and the key every page's shares ([`Memo::scope`]).
    memo: Option<(&'a Memo, [u8; 16])>,
}

/// What a renderer reads, borrowed from the project's inputs (`inputs::Inputs`).
pub struct Read<'a> {
    /// The settings.
    pub config: &'a Config,
    /// `--base-url`, over the settings' `base_url`.
    pub base_url: Option<&'a str>,
    /// Each machine's document.
    pub documents: &'a Documents,
    /// The profiles.
    pub profiles: &'a [Profile],
    /// The documents `/changes/` compares against.
    pub baselines: &'a [Baseline],
    /// Each machine's document as the site offers it for download.
    pub downloads: &'a [Download],
    /// The SHA-256 of the downloads' bytes one after the other.
    pub digest: &'a [u8; 32],
    /// The failures' server logs and the sweeps' per-request data: each one's path in the
    /// project and bytes.
    pub logs: &'a [(String, Vec<u8>)],
    /// Each sweep's per-request data: the sweep's index and its requests.
    pub requests: &'a [(usize, Vec<crate::data::RequestLine>)],
    /// The templates.
    pub tera: &'a tera::Tera,
    /// The project's folder.
    pub root: &'a Path,
    /// The author's Markdown and files.
    pub content: &'a Content,
}

impl<'a> Renderer<'a> {
    /// A renderer of `results` (every record, or `check`'s sample of them).
    pub fn new(read: Read<'a>, results: &'a Results) -> Self {
        let config = read.config;
        let base_url = read.base_url.unwrap_or(&config.base_url);
        let urls = Urls::new(base_url);
        let hash: String = read
            .digest
            .iter()
            .take(6)
            .map(|b| format!("{b:02x}"))
            .collect();
        let catalog = Catalog::new(
            results,
            read.documents,
            read.profiles,
            urls.clone(),
            read.baselines,
            config.regression_threshold,
            config.search,
        )
        .with_logs(read.logs.iter().map(|(path, _)| path.as_str()).collect())
        .with_requests(
            read.requests
                .iter()
                .map(|(index, lines)| (*index, lines.as_slice()))
                .collect(),
        )
        .with_limits(config.slo.clone(), config.cost.clone());
        let method = read.content.sources.iter().any(
            |source| matches!(&source.place, Place::Free(name) if name == routes::METHOD_PAGE),
        );
        let nav = routes::ROUTES
            .iter()
            .filter_map(|route| {
                let text = route.nav?;
                let shown = match route.pages {
                    Pages::One => (pages::kind(route).shown)(&catalog),
                    _ => true,
                };
                shown.then(|| Link {
                    text: text.into(),
                    href: urls.page(&route.path("")),
                    note: None,
                    warning: None,
                })
            })
            .flat_map(|link: Link| {
                let method =
                    (method && link.text == routes::DATA.nav.unwrap_or_default()).then(|| Link {
                        text: "Method".into(),
                        href: urls.page(&format!("{}/", routes::METHOD_PAGE)),
                        note: None,
                        warning: None,
                    });
                method.into_iter().chain(std::iter::once(link))
            })
            .collect();
        let data_name = if read.documents.declared() {
            downloads::RUNS
        } else {
            downloads::RESULTS
        };
        let site = SiteContext {
            title: config.title.clone(),
            description: config.description.clone(),
            author: config.author.clone(),
            language: config.language.clone(),
            base_path: urls.base_path.clone(),
            search: config.search,
            nav,
            schema_version: data::SCHEMA_VERSION,
            data_generated: results.generated.to_string(),
            data_hash: hash,
            data_url: urls.page(&downloads::path(data_name)),
            data_name: data_name.to_owned(),
            version: env!("CARGO_PKG_VERSION"),
        };
        Self {
            config,
            catalog,
            urls,
            tera: read.tera,
            site: serde_json::to_value(site).expect("plain data serializes"),
            downloads: read.downloads,
            logs: read.logs,
            root: read.root,
            content: read.content,
            memo: None,
        }
    }

    /// The renderer, taking each page whose context is unchanged from `memo`.
    pub fn with_memo(mut self, memo: &'a Memo) -> Self {
        self.memo = Some((memo, memo.scope(&self.site)));
        self
    }

    /// Where the site lives.
    pub fn urls(&self) -> &Urls {
        &self.urls
    }

    /// The links written in Markdown resolve to files of `site`.
    pub fn check_content_links(
        &self,
        site: &Site,
        content_links: &[ContentLink],
    ) -> Result<(), SiteError> {
        links::check_content_links(site, &self.urls, content_links)
    }

    /// Renders the site without checking its links: the site, and the links the Markdown
    /// holds with their files and lines. With `sample`, only one page of each kind, the
    /// index pages through `sample`, and the rest of the data pages as empty files. The
    /// search index reuses what it can of the one `previous` reads.
    pub fn render_unchecked(
        &self,
        sample: Option<&Renderer<'_>>,
        previous: search::Previous<'_>,
    ) -> Result<(Site, Vec<ContentLink>), SiteError> {
        let files = Mutex::new(BTreeMap::new());
        let (content_links, _) = self.render_each(sample, previous, &|path, bytes, _| {
            files
                .lock()
                .expect("no panic holds the lock")
                .insert(path, bytes);
            Ok(())
        })?;
        let files = files.into_inner().expect("no panic holds the lock");
        Ok((Site { files }, content_links))
    }

    /// Renders every file of the site, handing each to `emit` as soon as it is made (pages
    /// in parallel), without checking links; returns the links the Markdown holds and what
    /// the search index took. With `sample` and `previous`, as [`Renderer::render_unchecked`].
    pub fn render_each(
        &self,
        sample: Option<&Renderer<'_>>,
        previous: search::Previous<'_>,
        emit: &Emit<'_>,
    ) -> Result<(Vec<ContentLink>, Option<search::Indexed>), SiteError> {
        let (narrated, content_links) = self.narrate()?;
        let narrative = |place: &Place| -> (String, Option<&Source>) {
            match narrated.get(place) {
                Some((html, source)) => (html.clone(), Some(*source)),
                None => (String::new(), None),
            }
        };
        // The pages, for the sitemap.
        let pages = Mutex::new(BTreeSet::new());
        let emit = |path: String, bytes: Bytes, scan: Option<links::Scan>| {
            if path.ends_with("index.html") {
                pages
                    .lock()
                    .expect("no panic holds the lock")
                    .insert(path.clone());
            }
            emit(path, bytes, scan)
        };
        let put = |path: String, bytes: Bytes| emit(path, bytes, None);
        let jobs = self.pick(&narrated, sample, &content_links, &put)?;
        let indexed = self.render_pages(&jobs, sample, previous, &narrative, &emit)?;
        self.put_beside_pages(&put)?;
        let pages = std::mem::take(&mut *pages.lock().expect("no panic holds the lock"));
        put(
            "sitemap.xml".into(),
            sitemap::sitemap(pages.iter().map(String::as_str), &self.urls).into(),
        )?;
        put("robots.txt".into(), sitemap::robots(&self.urls).into())?;
        Ok((content_links, indexed))
    }

    /// Every content file's Markdown rendered, by its place, with the site links each holds;
    /// or every content file that is wrong.
    fn narrate(&self) -> Result<(Narrated<'_>, Vec<ContentLink>), SiteError> {
        let mut errors = Vec::new();
        let mut narrated = BTreeMap::new();
        let mut content_links = Vec::new();
        for source in &self.content.sources {
            if let Err(error) = narrative::check_place(&self.catalog, &source.place, &source.file) {
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
                    narrated.insert(source.place.clone(), (html, source));
                }
                Err(error) => errors.push(error),
            }
        }
        if !errors.is_empty() {
            return Err(many(errors));
        }
        Ok((narrated, content_links))
    }

    /// The pages to render, the kinds with few pages first (the index pages and models are
    /// the largest, so no core waits on one at the end). With `sample` (`check`), one page of
    /// each kind and every page the Markdown links into an anchor of; the others are put as
    /// empty files, for the link check.
    fn pick<'s>(
        &self,
        narrated: &'s Narrated<'s>,
        sample: Option<&Renderer<'_>>,
        content_links: &[ContentLink],
        put: &Put<'_>,
    ) -> Result<Vec<Job<'s>>, SiteError> {
        let free = narrated
            .iter()
            .filter_map(|(place, (_, source))| match place {
                Place::Free(name) => Some((name.as_str(), *source)),
                _ => None,
            });
        let mut jobs = jobs(&self.catalog, free);
        if sample.is_some() {
            let anchored: BTreeSet<String> = content_links
                .iter()
                .filter(|(_, url, _)| url.contains('#'))
                .filter_map(|(_, url, _)| links::resolve(&self.urls, url))
                .collect();
            let mut seen = BTreeSet::new();
            let (kept, rest): (Vec<_>, Vec<_>) = jobs.into_iter().partition(|job| {
                matches!(job.route.pages, Pages::Free)
                    || seen.insert(job.route.kind)
                    || anchored.contains(&format!("{}index.html", job.path()))
            });
            for job in rest {
                put(format!("{}index.html", job.path()), Bytes::new())?;
            }
            jobs = kept;
        }
        let mut per_kind: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
        for job in &jobs {
            *per_kind.entry(job.route.kind).or_default() += 1;
        }
        jobs.sort_by_key(|job| per_kind[job.route.kind]);
        Ok(jobs)
    }

    /// Renders the pages on every core, each put as it is done, the searched ones indexed
    /// beside (not for `check`'s sample); what the index took.
    fn render_pages<'s>(
        &self,
        jobs: &[Job<'s>],
        sample: Option<&Renderer<'_>>,
        previous: search::Previous<'_>,
        narrative: &Narratives<'s>,
        emit: &Emit<'_>,
    ) -> Result<Option<search::Indexed>, SiteError> {
        // The searched pages, ranked by path.
        let indexing = self.catalog.search && sample.is_none();
        let mut searched: Vec<String> = match indexing {
            true => jobs
                .iter()
                .filter(|job| job.route.search)
                .map(|job| format!("{}index.html", job.path()))
                .collect(),
            false => Vec::new(),
        };
        searched.sort();
        let indexer = indexing
            .then(|| search::Indexer::start(searched.len(), &self.config.language, previous));
        jobs.par_iter().try_for_each(|job| {
            // The page's data files are put as its view writes them; the rows in them are
            // the page's, for the link check, so they are read on the way.
            let folder = job.path();
            let rows = std::cell::RefCell::new(Vec::new());
            let sink = |file: paging::DataFile| {
                let table = file.name.ends_with(paging::ROWS_SUFFIX);
                if let Some(html) = table.then(|| paging::rows_html(&file.bytes)).flatten() {
                    rows.borrow_mut().push(html::read(html.as_bytes(), false));
                }
                emit(format!("{folder}{}", file.name), file.bytes.into(), None)
            };
            let Rendered {
                page: (path, bytes),
                spilled,
                scan: kept,
                taken,
            } = match sample {
                Some(sample) if job.route.is_index() => sample.render_job(job, narrative, &sink),
                _ => self.render_job(job, narrative, &sink),
            }?;
            // A page taken whole brings its data files, and a scan that has their rows.
            let whole = !taken.is_empty();
            for (path, bytes) in taken {
                emit(path, bytes, None)?;
            }
            let rows = rows.into_inner();
            let scan = if let (Some(indexer), Ok(rank), Pages::PerRecord { noun }) =
                (&indexer, searched.binary_search(&path), &job.route.pages)
            {
                // A page taken unchanged has the record the last index read from it.
                match kept {
                    Some(scan) if indexer.add_kept(rank, &path) => Some(scan.with_readings(rows)),
                    kept => {
                        let mut read = html::read(&bytes, true);
                        let scan = match kept.filter(|_| whole) {
                            Some(scan) => scan,
                            None => links::Scan::take(&mut read).with_readings(rows),
                        };
                        indexer.add(rank, search::Record::read(&path, noun, read));
                        Some(scan)
                    }
                }
            } else if let Some(scan) = kept {
                Some(scan.with_readings(rows))
            } else {
                (spilled > 0).then(|| links::scan_page(&bytes).with_readings(rows))
            };
            emit(path, bytes, scan)
        })?;
        let Some(indexer) = indexer else {
            return Ok(None);
        };
        let (files, indexed) = indexer.finish()?;
        for (path, bytes) in files {
            emit(path, bytes, None)?;
        }
        Ok(Some(indexed))
    }

    /// The files beside the pages: the 404 page, the theme's static files and ECharts, the
    /// content's own files, the data downloads and the failures' logs.
    fn put_beside_pages(&self, put: &Put<'_>) -> Result<(), SiteError> {
        let not_found = self.render_template(
            "404.html",
            PageContext {
                title: "Page not found".into(),
                description: String::new(),
                path: "404.html".into(),
                url: self.urls.page("404.html"),
                canonical: None,
                narrative: String::new(),
                machine: None,
            }
            .with(serde_json::json!({})),
        )?;
        put("404.html".into(), not_found.into())?;
        for (name, default) in templates::STATIC {
            put(
                format!("assets/{name}"),
                templates::static_file(self.root, name, default)?.into(),
            )?;
        }
        put("assets/echarts.min.js".into(), Bytes::from_static(ECHARTS))?;
        put(
            "assets/echarts-LICENSE.txt".into(),
            Bytes::from_static(ECHARTS_LICENSE),
        )?;
        put(
            "assets/echarts-NOTICE.txt".into(),
            Bytes::from_static(ECHARTS_NOTICE),
        )?;
        for asset in &self.content.assets {
            put(asset.site_path.clone(), asset.bytes.clone().into())?;
        }
        // Each machine's document read, checked against its hash and put on its own core.
        let machines = &self.catalog.machines.machines;
        machines
            .par_iter()
            .zip(self.downloads)
            .try_for_each(|(machine, download)| {
                let bytes = download
                    .read()
                    .map_err(|e| SiteError::Project(vec![ProjectError::Data(e)]))?;
                put(downloads::results_path(machine), bytes.into())
            })?;
        self.put_tables(put)?;
        for (path, bytes) in self.logs {
            put(downloads::log_path(path), Bytes::copy_from_slice(bytes))?;
        }
        put(".nojekyll".into(), Bytes::new())
    }

    /// The CSV downloads of the records' tables, taken from the last build when the memo has
    /// them for the same inputs.
    fn put_tables(&self, put: &Put<'_>) -> Result<(), SiteError> {
        let memo = self.memo.as_ref().map(|(memo, scope)| {
            let inputs = memo.inputs_key(scope, "", &downloads::path(""), &serde_json::Value::Null);
            (memo, inputs)
        });
        if let Some(taken) = memo.and_then(|(memo, inputs)| memo.take_beside(inputs)) {
            for (path, bytes) in taken {
                put(path, bytes)?;
            }
            return Ok(());
        }
        let mut files = memo::Files::new();
        for (name, csv) in downloads::csv_files(self.catalog.machines, self.catalog.doc) {
            let path = downloads::path(name);
            if memo.is_some() {
                files.push((path.clone(), memo::of_file(csv.as_bytes())));
            }
            put(path, csv.into())?;
        }
        if let Some((memo, inputs)) = memo {
            memo.keep_beside(inputs, files);
        }
        Ok(())
    }

    /// Renders the one page whose narrative is `source`: its path and bytes, and the site
    /// links its Markdown holds.
    pub fn render_narrative_page(
        &self,
        source: &Source,
    ) -> Result<(PageFile, Vec<ContentLink>), SiteError> {
        narrative::check_place(&self.catalog, &source.place, &source.file)?;
        let (html, links) = self.narrative(source)?;
        let job = match &source.place {
            Place::Home => Job {
                route: &routes::HOME,
                index: 0,
                key: String::new(),
                source: None,
            },
            Place::Free(name) => Job {
                route: &routes::FREE,
                index: 0,
                key: name.clone(),
                source: Some(source),
            },
            Place::Record(folder, key) => {
                let route = routes::records_in(folder).expect("places are made from routes");
                let index = (pages::kind(route).keys)(&self.catalog)
                    .iter()
                    .position(|k| k == key)
                    .expect("checked above");
                Job {
                    route,
                    index,
                    key: key.clone(),
                    source: None,
                }
            }
        };
        let narrative = |place: &Place| {
            if *place == source.place {
                (html.clone(), Some(source))
            } else {
                (String::new(), None)
            }
        };
        // Its tables' data files do not depend on the narrative, so they stay as they were.
        let page = self.render_job(&job, &narrative, &|_| Ok(()))?.page;
        let links = links
            .into_iter()
            .map(|(url, line)| (source.file.clone(), url, line))
            .collect();
        Ok((page, links))
    }

    /// Renders a content file's Markdown with its shortcodes.
    fn narrative(&self, source: &Source) -> Result<(String, Vec<(String, usize)>), SiteError> {
        narrative::render(&self.catalog, &self.urls.base_path, source, &|view| {
            self.render_block(view)
        })
    }

    /// A block shortcode's view through `shortcode.html`.
    fn render_block(&self, view: &View) -> Result<String, String> {
        let mut context = tera::Context::new();
        context.insert("site", &self.site);
        context.insert("view", view);
        self.tera
            .render("shortcode.html", &context)
            .map_err(|e| templates::chain(&e))
    }

    /// Renders one page of the site: its path and bytes, and its tables' data files. Its kind
    /// makes its view; the view goes through the kind's template with the page's narrative,
    /// machine and metadata. A page whose inputs the memo has is taken from the last build
    /// whole, its view not computed.
    fn render_job<'s>(
        &self,
        job: &Job<'s>,
        narrative: &Narratives<'s>,
        sink: &paging::Sink<'_>,
    ) -> Result<Rendered, SiteError> {
        let folder = job.path();
        let file = format!("{folder}index.html");
        let told = job.told(narrative);
        let inputs = self.inputs_key(job, &told);
        if let (Some((memo, _)), Some(inputs)) = (&self.memo, inputs)
            && let Some(taken) = memo.take(&file, inputs)
        {
            return Ok(Rendered {
                page: (file, taken.bytes),
                spilled: taken.files.len(),
                scan: Some(taken.scan),
                taken: taken.files,
            });
        }
        let kind = pages::kind(job.route);
        let page = Page::new(
            &self.catalog,
            job.index,
            &job.key,
            &self.config.title,
            job.source,
        );
        // The data files' paths and hashes, for the memo.
        let files = std::cell::RefCell::new(memo::Files::new());
        let noting = |data: paging::DataFile| {
            if self.memo.is_some() {
                let path = format!("{folder}{}", data.name);
                files.borrow_mut().push((path, memo::of_file(&data.bytes)));
            }
            sink(data)
        };
        let (view, spilled) =
            paging::spilling(&self.urls.page(&folder), &noting, || (kind.view)(&page));
        let spilled = spilled?;
        let made = Made {
            file,
            inputs,
            own_scan: spilled == 0,
            files: files.into_inner(),
        };
        let (page, scan) = self.render_view(job, told, view?, made)?;
        Ok(Rendered {
            page,
            spilled,
            scan,
            taken: Vec::new(),
        })
    }

    /// The memo's key of a page's inputs: none for a free page (its view reads its Markdown)
    /// or without a memo.
    fn inputs_key(&self, job: &Job<'_>, told: &Told<'_>) -> Option<memo::Hash> {
        let (memo, scope) = self.memo.as_ref()?;
        if job.source.is_some() {
            return None;
        }
        let front = told.source.map(|s| &s.front);
        let rest = serde_json::json!([
            told.narrative,
            front.and_then(|f| f.title.as_deref()),
            front.and_then(|f| f.description.as_deref()),
        ]);
        Some(memo.inputs_key(scope, job.route.template, &job.path(), &rest))
    }

    /// A page's view through its kind's template; the narrative's front matter overrides the
    /// view's title and description, and the view's description the site's. A page the memo
    /// has is taken from the last build, with its scan when it has no paged tables and the
    /// memo kept it.
    fn render_view<'s>(
        &self,
        job: &Job<'s>,
        told: Told<'s>,
        view: pages::View,
        made: Made,
    ) -> Result<(PageFile, Option<links::Scan>), SiteError> {
        let path = job.path();
        let machine = match &job.route.pages {
            Pages::PerRecord { .. } => (pages::kind(job.route).machine)(&self.catalog, job.index),
            _ => None,
        };
        let front = told.source.map(|s| &s.front);
        let title = front.and_then(|f| f.title.clone()).unwrap_or(view.title);
        let description = front
            .and_then(|f| f.description.clone())
            .or(view.description)
            .unwrap_or_else(|| self.config.description.clone());
        let page = PageContext {
            title,
            description,
            path: path.clone(),
            url: self.urls.page(&path),
            canonical: self.urls.absolute(&path),
            narrative: told.narrative,
            machine,
        }
        .with(view.content);
        let Made {
            file,
            inputs,
            own_scan,
            files,
        } = made;
        let template = job.route.template;
        let Some((memo, scope)) = &self.memo else {
            return Ok(((file, self.render_template(template, page)?.into()), None));
        };
        let key = memo.key(scope, template, &page);
        if let Some((bytes, scan)) = memo.reuse(&file, key, inputs, own_scan, files.clone()) {
            return Ok(((file, bytes), scan));
        }
        let html = self.render_template(template, page)?;
        memo.keep(&file, key, inputs, html.as_bytes(), own_scan, files);
        Ok(((file, html.into()), None))
    }

    /// Renders template `name` with `site` and `page`.
    fn render_template(&self, name: &str, page: serde_json::Value) -> Result<String, SiteError> {
        // Moved in, not serialized again (`json!` would copy the page through serde).
        let mut context = serde_json::Map::new();
        context.insert("site".into(), self.site.clone());
        context.insert("page".into(), page);
        let context =
            tera::Context::from_value(serde_json::Value::Object(context)).expect("an object");
        self.tera
            .render(name, &context)
            .map_err(|error| SiteError::Template {
                name: name.to_owned(),
                message: templates::chain(&error),
            })
    }
}

//! The built site's integrity: every internal link resolves to a file, and every fragment to
//! an id on its page.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::PathBuf;

use rayon::prelude::*;

use super::error::SiteError;
use super::html;
use super::output::Site;
use super::packed::Packed;
use super::paging;
use super::urls::Urls;

/// The file a site-internal URL path resolves to (`/report/runs/a/` → `runs/a/index.html`),
/// or `None` when the path is outside the site.
pub fn resolve(urls: &Urls, url: &str) -> Option<String> {
    let path = url.split(['#', '?']).next().unwrap_or_default();
    let inside = path.strip_prefix(&urls.base_path).or_else(|| {
        // `/report` without its slash is the site's root too.
        (path == urls.base_path.trim_end_matches('/')).then_some("")
    })?;
    Some(if inside.is_empty() || inside.ends_with('/') {
        format!("{inside}index.html")
    } else {
        inside.to_owned()
    })
}

/// Links written in the author's Markdown, checked with their file and line.
pub fn check_content_links(
    site: &Site,
    urls: &Urls,
    links: &[(PathBuf, String, usize)],
) -> Result<(), SiteError> {
    let has_id = |file: &str, id: &str| {
        site.files
            .get(file)
            .is_some_and(|_| scan_in(site, file).has_id(id))
    };
    check_content_links_in(&|file| site.files.contains_key(file), &has_id, urls, links)
}

/// Whether a page of the site (by its path inside it) has an element with an id.
pub type HasId<'h> = dyn Fn(&str, &str) -> bool + Sync + 'h;

/// [`check_content_links`] against the site whose files `has` knows and whose pages' ids
/// `has_id` knows: a link's page must exist, and its `#fragment` be an id on that page, each
/// problem named by the Markdown file and line the link is on.
pub fn check_content_links_in(
    has: &Has<'_>,
    has_id: &HasId<'_>,
    urls: &Urls,
    links: &[(PathBuf, String, usize)],
) -> Result<(), SiteError> {
    let errors: Vec<SiteError> = links
        .iter()
        .filter_map(|(file, url, line)| {
            let problem = match resolve(urls, url) {
                Some(target) if has(&target) => {
                    let fragment = url.split_once('#').map(|(_, f)| f).unwrap_or_default();
                    (!fragment.is_empty() && !has_id(&target, fragment)).then(|| {
                        format!("link to {url}: its page has no element with the id {fragment:?}")
                    })
                }
                _ => Some(format!("link to {url}, a page the site does not have")),
            };
            problem.map(|message| SiteError::Content {
                file: file.clone(),
                line: *line,
                message,
            })
        })
        .collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(super::error::many(errors))
    }
}

/// Whether the site has a file at a path inside it.
pub type Has<'h> = dyn Fn(&str) -> bool + Sync + 'h;

/// Every `href` and `src` of every page that points into the site resolves to a file, and
/// every `#fragment` to an id on the page it names.
pub fn check_site(site: &Site, urls: &Urls) -> Result<(), SiteError> {
    Scans::of(site).check(site, urls)
}

/// The ids and links of every page of a site, kept so that a changed page is scanned alone,
/// with the pages that link into each page, so that only the links a change can break are
/// checked again.
#[derive(Debug, Default)]
pub struct Scans {
    /// Each page's scan, by path.
    pages: BTreeMap<String, Scan>,
    /// For each file, the pages that link into it (kept by [`Scans::indexed`]).
    incoming: BTreeMap<String, BTreeSet<String>>,
}

impl Scans {
    /// Records which pages `page`'s links point into.
    fn index(&mut self, urls: &Urls, page: &str) {
        let Some(scan) = self.pages.get(page) else {
            return;
        };
        for url in scan.urls.iter() {
            if let Some(file) = target_of(urls, page, url).and_then(|t| t.file) {
                self.incoming
                    .entry(file)
                    .or_default()
                    .insert(page.to_owned());
            }
        }
    }

    /// Forgets which pages `page`'s links point into.
    fn unindex(&mut self, urls: &Urls, page: &str) {
        let Some(scan) = self.pages.get(page) else {
            return;
        };
        for url in scan.urls.iter() {
            if let Some(file) = target_of(urls, page, url).and_then(|t| t.file)
                && let Some(from) = self.incoming.get_mut(&file)
            {
                from.remove(page);
            }
        }
    }

    /// Scans every page of `site` and records which pages link into which.
    pub fn indexed(site: &Site, urls: &Urls) -> Self {
        let mut scans = Self::of(site);
        let pages: Vec<String> = scans.pages.keys().cloned().collect();
        for page in &pages {
            scans.index(urls, page);
        }
        scans
    }

    /// Scans `pages` of `site` again, keeping the index of [`Scans::indexed`] up to date.
    pub fn rescan_indexed(&mut self, site: &Site, urls: &Urls, pages: &[String]) {
        for page in pages {
            self.unindex(urls, page);
        }
        self.rescan(site, pages);
        for page in pages {
            self.index(urls, page);
        }
    }

    /// Checks the links that a change of `changed` pages can have broken: every link of the
    /// changed pages, and every link into one of them from another page (a renamed heading
    /// breaks its fragment). The site's files are the same as when indexed, so a link into
    /// an unchanged page resolves as it did. (Every page links into a page of the header, so
    /// checking the other pages' every link made an edit of the method page check them all.)
    pub fn check_changed(
        &self,
        site: &Site,
        urls: &Urls,
        changed: &[String],
    ) -> Result<(), SiteError> {
        let changed: BTreeSet<&str> = changed.iter().map(String::as_str).collect();
        let mut linking: BTreeSet<&str> = BTreeSet::new();
        for page in &changed {
            if let Some(from) = self.incoming.get(*page) {
                linking.extend(
                    from.iter()
                        .map(String::as_str)
                        .filter(|from| !changed.contains(from)),
                );
            }
        }
        let into_changed = |page: &str, url: &str| {
            target_of(urls, page, url)
                .and_then(|target| target.file)
                .is_some_and(|file| changed.contains(file.as_str()))
        };
        let has = |file: &str| site.files.contains_key(file);
        // Each page to check, and whether only its links into a changed page are.
        let pages: Vec<(&str, &Scan, bool)> = changed
            .iter()
            .map(|page| (*page, false))
            .chain(linking.iter().map(|page| (*page, true)))
            .filter_map(|(page, only)| self.pages.get(page).map(|scan| (page, scan, only)))
            .collect();
        let broken: BTreeSet<String> = pages
            .into_par_iter()
            .flat_map_iter(|(page, scan, only_into_changed)| {
                scan.urls
                    .iter()
                    .filter(move |url| !only_into_changed || into_changed(page, url))
                    .filter(|url| !link_resolves(&has, urls, &self.pages, page, url))
                    .map(move |url| format!("  {page}: {url}"))
            })
            .collect();
        if broken.is_empty() {
            Ok(())
        } else {
            Err(SiteError::Links(broken.into_iter().collect()))
        }
    }

    /// Links written in the author's Markdown, checked with their file and line against
    /// `site` and the ids these scans hold (as [`check_content_links`], without reading the
    /// pages they point into again).
    pub fn check_content_links(
        &self,
        site: &Site,
        urls: &Urls,
        links: &[(PathBuf, String, usize)],
    ) -> Result<(), SiteError> {
        let has_id = |file: &str, id: &str| self.pages.get(file).is_some_and(|s| s.has_id(id));
        check_content_links_in(&|file| site.files.contains_key(file), &has_id, urls, links)
    }

    /// Scans every page of `site`.
    pub fn of(site: &Site) -> Self {
        let pages: Vec<&str> = site.pages().collect();
        Self {
            pages: pages
                .par_iter()
                .map(|path| (path.to_string(), scan_in(site, path)))
                .collect(),
            incoming: BTreeMap::new(),
        }
    }

    /// Scans `pages` of `site` again.
    pub fn rescan(&mut self, site: &Site, pages: &[String]) {
        for path in pages {
            match site.files.get(path) {
                Some(_) => self.pages.insert(path.clone(), scan_in(site, path)),
                None => self.pages.remove(path),
            };
        }
    }

    /// The scans of pages scanned one by one as they were rendered.
    pub fn from_pages(pages: BTreeMap<String, Scan>) -> Self {
        Self {
            pages,
            incoming: BTreeMap::new(),
        }
    }

    /// Each page's scan, by path.
    pub fn pages(&self) -> &BTreeMap<String, Scan> {
        &self.pages
    }

    /// Checks every link of the scanned pages against `site`.
    pub fn check(&self, site: &Site, urls: &Urls) -> Result<(), SiteError> {
        self.check_in(&|file| site.files.contains_key(file), urls)
    }

    /// Checks every link of the scanned pages against the site whose files `has` knows.
    pub fn check_in(&self, has: &Has<'_>, urls: &Urls) -> Result<(), SiteError> {
        // A link from the site's root resolves or not whichever page holds it, and most are
        // the same few (the header's, a model's, a run's): each is checked once.
        let rooted = |url: &&str| url.starts_with('/');
        let from_root: HashSet<&str> = self
            .pages
            .par_iter()
            .flat_map_iter(|(_, page)| page.urls.iter().filter(rooted))
            .collect();
        let broken_from_root: HashSet<&str> = from_root
            .into_par_iter()
            .filter(|url| !link_resolves(has, urls, &self.pages, "", url))
            .collect();
        let mut broken: Vec<String> = self
            .pages
            .par_iter()
            .flat_map_iter(|(path, page)| {
                page.urls
                    .iter()
                    .filter(|url| match rooted(url) {
                        true => broken_from_root.contains(url),
                        false => !link_resolves(has, urls, &self.pages, path, url),
                    })
                    .map(move |url| format!("  {path}: {url}"))
            })
            .collect();
        broken.sort();
        broken.dedup();
        if broken.is_empty() {
            Ok(())
        } else {
            Err(SiteError::Links(broken))
        }
    }
}

fn link_resolves(
    has: &Has<'_>,
    urls: &Urls,
    scans: &BTreeMap<String, Scan>,
    page: &str,
    url: &str,
) -> bool {
    let Some(target) = target_of(urls, page, url) else {
        return true;
    };
    let fragment = url.split_once('#').map(|(_, fragment)| fragment);
    let Some(file) = target.file.filter(|file| has(file)) else {
        return false;
    };
    match fragment {
        None => true,
        Some(fragment) => {
            !file.ends_with(".html") || scans.get(&file).is_some_and(|scan| scan.has_id(fragment))
        }
    }
}

/// Where a link of `page` points inside the site.
struct Target {
    /// The file, or `None` when the link leaves the site's path.
    file: Option<String>,
}

/// The target of `url` on `page`; `None` for links outside the site (other hosts, mail).
fn target_of(urls: &Urls, page: &str, url: &str) -> Option<Target> {
    if url.contains("://") || url.starts_with("mailto:") || url.starts_with("data:") {
        return None;
    }
    let target = url.split_once('#').map_or(url, |(target, _)| target);
    let file = if target.is_empty() {
        Some(page.to_owned())
    } else if target.starts_with('/') {
        resolve(urls, target)
    } else {
        // Relative links are resolved against the page's folder.
        let folder = page.rsplit_once('/').map_or("", |(folder, _)| folder);
        let folder = if folder.is_empty() {
            String::new()
        } else {
            format!("{folder}/")
        };
        resolve(urls, &format!("{}{folder}{target}", urls.base_path))
    };
    Some(Target { file })
}

/// The ids a page defines and the URLs it points to, each list packed into one string: a
/// build keeps a scan of every page until the link check, 120,000 of them in a large report,
/// where a `String` each would hold three times the memory.
#[derive(Debug, Default)]
pub struct Scan {
    /// Sorted, each once.
    ids: Packed,
    /// In document order.
    urls: Packed,
}

impl Scan {
    /// The ids and links of a page's reading.
    pub fn take(read: &mut html::Reading) -> Scan {
        Scan {
            ids: Packed::new(read.ids.iter().map(String::as_str)),
            urls: Packed::new(read.urls.iter().map(String::as_str)),
        }
    }

    /// The scan with the ids and links of a page's paged tables' rows (their data files'
    /// bytes), which are the page's: `benchsite.js` shows a row a link's fragment names.
    pub fn with_rows<'b>(self, files: impl Iterator<Item = &'b [u8]>) -> Scan {
        self.with_readings(
            files
                .filter_map(paging::rows_html)
                .map(|html| html::read(html.as_bytes(), false))
                .collect(),
        )
    }

    /// The scan with the ids and links of a page's paged tables' rows, read from their data
    /// files ([`paging::rows_html`]).
    pub fn with_readings(self, rows: Vec<html::Reading>) -> Scan {
        if rows.is_empty() {
            return self;
        }
        let ids: BTreeSet<&str> = self
            .ids
            .iter()
            .chain(rows.iter().flat_map(|r| r.ids.iter().map(String::as_str)))
            .collect();
        let urls = self
            .urls
            .iter()
            .chain(rows.iter().flat_map(|r| r.urls.iter().map(String::as_str)));
        Scan {
            ids: Packed::new(ids.into_iter()),
            urls: Packed::new(urls),
        }
    }

    /// Writes the scan in the form [`Scan::read_from`] reads.
    pub fn write_to(&self, out: &mut impl std::io::Write) -> std::io::Result<()> {
        self.ids.write_to(out)?;
        self.urls.write_to(out)
    }

    /// A scan [`Scan::write_to`] wrote.
    pub fn read_from(input: &mut impl std::io::Read) -> std::io::Result<Scan> {
        Ok(Scan {
            ids: Packed::read_from(input)?,
            urls: Packed::read_from(input)?,
        })
    }

    /// Whether the page has an element with this id.
    pub fn has_id(&self, id: &str) -> bool {
        self.ids.contains_sorted(id)
    }
}

/// The ids and links of page `path` of `site`, with those of its paged tables' rows.
fn scan_in(site: &Site, path: &str) -> Scan {
    let folder = path.strip_suffix("index.html").unwrap_or_default();
    let rows = site
        .files
        .range::<str, _>((
            std::ops::Bound::Included(folder),
            std::ops::Bound::Unbounded,
        ))
        .take_while(|(file, _)| file.starts_with(folder))
        .filter(|(file, _)| {
            let name = &file[folder.len()..];
            !name.contains('/') && name.ends_with(paging::ROWS_SUFFIX)
        })
        .map(|(_, bytes)| bytes.as_ref());
    scan_page(&site.files[path]).with_rows(rows)
}

/// The ids and links of one page.
pub fn scan_page(html: &[u8]) -> Scan {
    Scan::take(&mut html::read(html, false))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolving_under_a_base_path() {
        let urls = Urls::new("/report/");
        assert_eq!(
            resolve(&urls, "/report/runs/a/").as_deref(),
            Some("runs/a/index.html")
        );
        assert_eq!(resolve(&urls, "/report/").as_deref(), Some("index.html"));
        assert_eq!(resolve(&urls, "/report").as_deref(), Some("index.html"));
        assert_eq!(
            resolve(&urls, "/report/assets/x.css?v=1").as_deref(),
            Some("assets/x.css")
        );
        assert_eq!(resolve(&urls, "/runs/a/"), None);
    }

    #[test]
    fn a_scan_answers_for_every_id_and_keeps_the_links_in_order() {
        let scan = scan_page(
            br#"<h2 id="b">b</h2><a id="a" href="/z/">z</a><p id="ab"></p><p id="b"></p><img src="x.png"><a href="/a/#b"></a>"#,
        );
        for id in ["a", "ab", "b"] {
            assert!(scan.has_id(id), "{id}");
        }
        for id in ["", "aa", "ba", "c", "B"] {
            assert!(!scan.has_id(id), "{id}");
        }
        assert_eq!(
            scan.urls.iter().collect::<Vec<_>>(),
            ["/z/", "x.png", "/a/#b"]
        );
        assert!(!scan_page(b"<p>no ids</p>").has_id("p"));
        // A paged table's rows add theirs.
        let rows = br#"{"rows":["<tr id=\"r-1\"><td><a href=\"/r/\">r</a></td></tr>"]}"#;
        let scan = scan.with_rows(std::iter::once(&rows[..]));
        assert!(scan.has_id("r-1") && scan.has_id("ab"));
        assert_eq!(scan.urls.iter().last(), Some("/r/"));
    }

    #[test]
    fn a_broken_link_is_named_on_every_page_that_holds_it() {
        let urls = Urls::new("/");
        let site = Site {
            files: [
                (
                    "a/index.html",
                    r#"<a href="/gone/">x</a><a href="/b/#y">b</a>"#,
                ),
                (
                    "b/index.html",
                    r#"<a href="/gone/">x</a><a href="../a/#nope">a</a>"#,
                ),
                ("c/index.html", r#"<h2 id="y"></h2><a href="/b/">b</a>"#),
            ]
            .into_iter()
            .map(|(path, html)| (path.to_owned(), bytes::Bytes::from(html.to_owned())))
            .collect(),
        };
        let SiteError::Links(broken) = check_site(&site, &urls).unwrap_err() else {
            panic!("a link error");
        };
        assert_eq!(
            broken,
            [
                "  a/index.html: /b/#y",
                "  a/index.html: /gone/",
                "  b/index.html: ../a/#nope",
                "  b/index.html: /gone/",
            ]
        );
    }

    #[test]
    fn a_change_checks_its_own_links_and_the_links_into_it() {
        let urls = Urls::new("/");
        let site = |b: &str| Site {
            files: [
                // a links into b's heading, and (already broken) into a missing id of c.
                (
                    "a/index.html",
                    r#"<a href="/b/#x">b</a><a href="/c/#gone">c</a>"#,
                ),
                ("b/index.html", b),
                ("c/index.html", r#"<h2 id="y">c</h2>"#),
            ]
            .into_iter()
            .map(|(path, html)| (path.to_owned(), bytes::Bytes::from(html.to_owned())))
            .collect(),
        };
        let before = site(r#"<h2 id="x">b</h2>"#);
        let mut scans = Scans::indexed(&before, &urls);
        let changed = vec!["b/index.html".to_owned()];
        // b's heading renamed: a's link into it breaks; b's own link to c is checked too.
        let after = site(r#"<h2 id="z">b</h2><a href="/c/#nope">c</a>"#);
        scans.rescan_indexed(&after, &urls, &changed);
        let SiteError::Links(broken) = scans.check_changed(&after, &urls, &changed).unwrap_err()
        else {
            panic!("a link error");
        };
        // a's link into c, which did not change, resolves as it did before the change (the
        // whole check, not this one, reports it).
        assert_eq!(
            broken,
            vec!["  a/index.html: /b/#x", "  b/index.html: /c/#nope"]
        );
        // Back as it was: nothing this change could break is broken.
        scans.rescan_indexed(&before, &urls, &changed);
        assert!(scans.check_changed(&before, &urls, &changed).is_ok());
        assert!(scans.check(&before, &urls).is_err(), "a's link to c#gone");
    }
}

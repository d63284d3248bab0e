//! The files for crawlers: `sitemap.xml` listing every page, and `robots.txt` pointing to it.

use super::{Site, Urls, escape};

/// The sitemap of every page of `site`.
pub fn sitemap(site: &Site, urls: &Urls) -> String {
    let mut xml = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n",
    );
    for path in site.files.keys().filter(|p| p.ends_with("index.html")) {
        let page = path.trim_end_matches("index.html");
        let loc = urls.absolute(page).unwrap_or_else(|| urls.page(page));
        xml.push_str(&format!("  <url><loc>{}</loc></url>\n", escape(&loc)));
    }
    xml.push_str("</urlset>\n");
    xml
}

/// `robots.txt`: everything allowed, and where the sitemap is.
pub fn robots(urls: &Urls) -> String {
    let sitemap = urls
        .absolute("sitemap.xml")
        .unwrap_or_else(|| urls.page("sitemap.xml"));
    format!("User-agent: *\nAllow: /\nSitemap: {sitemap}\n")
}

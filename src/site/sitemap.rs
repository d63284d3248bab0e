//! The files for crawlers: `sitemap.xml` listing every page, and `robots.txt` pointing to it.

use super::escape::escape;
use super::urls::Urls;

/// The sitemap of the pages at `paths` (`runs/x/index.html`), in their order.
pub fn sitemap<'p>(paths: impl Iterator<Item = &'p str>, urls: &Urls) -> String {
    let mut xml = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n",
    );
    for path in paths {
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

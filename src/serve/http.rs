//! The preview's HTTP side: files of the in-memory site by URL path, the reload script in
//! every HTML page, and the websocket that tells open pages to reload.

use std::sync::{Arc, RwLock};

use axum::Router;
use axum::extract::State;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::http::{HeaderValue, Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use percent_encoding::percent_decode_str;
use tokio::sync::{broadcast, watch};

use crate::site::Site;

/// The websocket's path.
pub const LIVERELOAD: &str = "/__benchsite/livereload";
const SCRIPT: &str = include_str!("livereload.js");

/// What the server shows: the last good site and, when the last rebuild failed, its error.
pub struct Shared {
    current: RwLock<Current>,
    updates: broadcast::Sender<String>,
    stopping: watch::Receiver<bool>,
}

#[derive(Clone)]
struct Current {
    site: Arc<Site>,
    /// Counts good builds; a page knows the one it was served from.
    build: u64,
    error: Option<String>,
}

impl Current {
    /// The state as the message open pages get.
    fn message(&self) -> String {
        serde_json::json!({ "build": self.build, "error": self.error }).to_string()
    }
}

impl Shared {
    /// A server state showing `site` (or `error`), stopping when `stopping` turns true.
    pub fn new(site: Arc<Site>, error: Option<String>, stopping: watch::Receiver<bool>) -> Self {
        Self {
            current: RwLock::new(Current {
                site,
                build: 1,
                error,
            }),
            updates: broadcast::channel(16).0,
            stopping,
        }
    }

    /// A good rebuild: serve `site` and reload the open pages.
    pub fn publish(&self, site: Arc<Site>) {
        self.update(|current| {
            current.site = site;
            current.build += 1;
            current.error = None;
        });
    }

    /// A failed rebuild: keep the site, show `error` over the open pages.
    pub fn fail(&self, error: String) {
        self.update(|current| current.error = Some(error));
    }

    fn update(&self, change: impl FnOnce(&mut Current)) {
        let message = {
            let mut current = self.current.write().expect("not poisoned");
            change(&mut current);
            current.message()
        };
        // No open page is not an error.
        let _ = self.updates.send(message);
    }

    fn current(&self) -> Current {
        self.current.read().expect("not poisoned").clone()
    }
}

/// The server's routes.
pub fn router(shared: Arc<Shared>) -> Router {
    Router::new()
        .route(LIVERELOAD, get(livereload))
        .fallback(file)
        .with_state(shared)
}

async fn livereload(ws: WebSocketUpgrade, State(shared): State<Arc<Shared>>) -> Response {
    ws.on_upgrade(move |socket| relay(socket, shared))
}

/// Sends the current state, then every update, until the page goes or the server stops.
async fn relay(mut socket: WebSocket, shared: Arc<Shared>) {
    let mut updates = shared.updates.subscribe();
    let mut stopping = shared.stopping.clone();
    let hello = shared.current().message();
    if socket.send(Message::Text(hello.into())).await.is_err() {
        return;
    }
    loop {
        tokio::select! {
            update = updates.recv() => match update {
                Ok(message) => {
                    if socket.send(Message::Text(message.into())).await.is_err() {
                        return;
                    }
                }
                // Missed updates: the newest state is what matters.
                Err(broadcast::error::RecvError::Lagged(_)) => {
                    let message = shared.current().message();
                    if socket.send(Message::Text(message.into())).await.is_err() {
                        return;
                    }
                }
                Err(broadcast::error::RecvError::Closed) => return,
            },
            incoming = socket.recv() => match incoming {
                Some(Ok(Message::Close(_))) | Some(Err(_)) | None => return,
                Some(Ok(_)) => {}
            },
            () = async { let _ = stopping.wait_for(|stop| *stop).await; } => {
                let _ = socket.send(Message::Close(None)).await;
                return;
            }
        }
    }
}

/// Where a request path leads in the site.
#[derive(Debug, PartialEq, Eq)]
pub enum Lookup {
    /// The file with this path inside the site.
    File(String),
    /// A folder asked for without its slash: redirect to this path.
    Slash(String),
    /// Nothing, or a path that tries to leave the site.
    Missing,
}

/// Finds the file a request's path names. Only paths of the in-memory site can be found:
/// nothing is read from disk, and `..`, `.`, backslashes and NULs are refused outright.
pub fn lookup(site: &Site, path: &str) -> Lookup {
    let Ok(decoded) = percent_decode_str(path).decode_utf8() else {
        return Lookup::Missing;
    };
    let Some(inside) = decoded.strip_prefix('/') else {
        return Lookup::Missing;
    };
    if inside.contains(['\\', '\0']) || inside.split('/').any(|part| part == ".." || part == ".") {
        return Lookup::Missing;
    }
    if inside.is_empty() || inside.ends_with('/') {
        let file = format!("{inside}index.html");
        return if site.files.contains_key(&file) {
            Lookup::File(file)
        } else {
            Lookup::Missing
        };
    }
    if site.files.contains_key(inside) {
        Lookup::File(inside.to_owned())
    } else if site.files.contains_key(&format!("{inside}/index.html")) {
        Lookup::Slash(format!("{path}/"))
    } else {
        Lookup::Missing
    }
}

async fn file(method: Method, uri: Uri, State(shared): State<Arc<Shared>>) -> Response {
    if method != Method::GET && method != Method::HEAD {
        return StatusCode::METHOD_NOT_ALLOWED.into_response();
    }
    let current = shared.current();
    let (status, name) = match lookup(&current.site, uri.path()) {
        Lookup::File(name) => (StatusCode::OK, name),
        Lookup::Slash(to) => {
            return (StatusCode::MOVED_PERMANENTLY, [(header::LOCATION, to)]).into_response();
        }
        Lookup::Missing => (StatusCode::NOT_FOUND, "404.html".to_owned()),
    };
    let bytes = current.site.files.get(&name).cloned();
    // Before the first good build there is no site, not even its 404 page.
    let status = if bytes.is_none() {
        StatusCode::SERVICE_UNAVAILABLE
    } else {
        status
    };
    let content_type = mime_guess::from_path(&name).first_or_octet_stream();
    let body = match bytes {
        Some(bytes) if content_type != mime_guess::mime::TEXT_HTML => bytes,
        Some(bytes) => inject(&String::from_utf8_lossy(&bytes), &current).into(),
        None => inject(NO_SITE, &current).into(),
    };
    let mut content_type = content_type.essence_str().to_owned();
    if content_type.starts_with("text/") || content_type.ends_with("javascript") {
        content_type.push_str("; charset=utf-8");
    }
    let mut response = (status, body).into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_str(&content_type).expect("a mime type is a header value"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

const NO_SITE: &str = "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>benchsite serve</title></head>\n<body><p>The site has not built yet.</p></body></html>\n";

/// The page with the reload script before `</body>` (served pages only, never `build`'s).
fn inject(html: &str, current: &Current) -> String {
    // `<` escaped, so no error text can close the script element.
    let error = serde_json::to_string(&current.error)
        .expect("a string serializes")
        .replace('<', "\\u003c");
    let script = SCRIPT
        .replace("__BUILD__", &current.build.to_string())
        .replace("__ERROR__", &error);
    let tag = format!("<script>\n{script}</script>\n");
    match html.rfind("</body>") {
        Some(at) => format!("{}{tag}{}", &html[..at], &html[at..]),
        None => format!("{html}{tag}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn site() -> Site {
        let mut site = Site::default();
        for path in [
            "index.html",
            "runs/index.html",
            "runs/a/index.html",
            "data/x y.csv",
        ] {
            site.files.insert(path.into(), Default::default());
        }
        site
    }

    #[test]
    fn paths_find_files_and_folders() {
        let site = site();
        assert_eq!(lookup(&site, "/"), Lookup::File("index.html".into()));
        assert_eq!(
            lookup(&site, "/runs/a/"),
            Lookup::File("runs/a/index.html".into())
        );
        assert_eq!(lookup(&site, "/runs/a"), Lookup::Slash("/runs/a/".into()));
        assert_eq!(
            lookup(&site, "/data/x%20y.csv"),
            Lookup::File("data/x y.csv".into())
        );
        assert_eq!(lookup(&site, "/runs/b/"), Lookup::Missing);
    }

    #[test]
    fn paths_leaving_the_site_find_nothing() {
        let site = site();
        for path in [
            "/../Cargo.toml",
            "/runs/../index.html",
            "/runs/%2e%2e/index.html",
            "/%2e%2e/%2e%2e/etc/passwd",
            "/..%2fCargo.toml",
            "/..%5cCargo.toml",
            "/runs\\..\\index.html",
            "/./index.html",
            "/index.html%00",
            "/%ff",
            "runs/",
        ] {
            assert_eq!(lookup(&site, path), Lookup::Missing, "{path}");
        }
    }

    #[test]
    fn the_script_goes_before_the_body_ends_and_cannot_be_closed_by_an_error() {
        let current = Current {
            site: Arc::default(),
            build: 7,
            error: Some("data/results.json: </script><b>".into()),
        };
        let html = inject("<html><body><p>x</p></body></html>", &current);
        assert!(html.ends_with("</script>\n</body></html>"), "{html}");
        assert!(html.contains("const build = 7;"));
        assert_eq!(html.matches("</script>").count(), 1, "{html}");
        assert!(html.contains("\\u003c/script>\\u003cb>"), "{html}");
    }
}

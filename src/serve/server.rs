//! The preview server: the site in memory behind HTTP, a watcher rebuilding it on every
//! change of the project, and the reload messages to open pages.

use std::collections::BTreeSet;
use std::net::{IpAddr, SocketAddr, TcpListener};
use std::path::PathBuf;
use std::sync::{Arc, mpsc};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use notify_debouncer_full::DebounceEventResult;

use super::http;
use super::watch;
use crate::site::{self, Live, Rebuild, SiteError};

/// How to serve.
#[derive(Debug, Clone)]
pub struct Options {
    /// The report project.
    pub root: PathBuf,
    /// The address to listen on.
    pub bind: IpAddr,
    /// The port to try first; the next free one is taken when it is busy. 0: any free port.
    pub port: u16,
    /// How long the files must be quiet before a rebuild.
    pub debounce: Duration,
    /// Include pages marked `draft = true`.
    pub drafts: bool,
}

/// How many ports after the asked one are tried.
const PORT_TRIES: u16 = 20;

/// Why the server could not start.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The project folder is missing.
    #[error("cannot open the project at {}: {source}", path.display())]
    Root {
        /// The folder.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// No port could be bound.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The first address tried.
        addr: SocketAddr,
        /// Why.
        source: std::io::Error,
    },
    /// The runtime or the watcher could not start.
    #[error("cannot start the {what}: {message}")]
    Start {
        /// What.
        what: &'static str,
        /// Why.
        message: String,
    },
}

/// What the server reports as it works.
#[derive(Debug)]
pub enum Event<'a> {
    /// The site was (re)built; `changed` is empty for the first build.
    Built {
        /// What was rendered.
        rebuild: Rebuild,
        /// How long it took.
        elapsed: Duration,
        /// The files whose change caused it, relative to the project.
        changed: &'a [PathBuf],
    },
    /// A build failed; the last good site is still served.
    Failed {
        /// Why.
        error: &'a SiteError,
        /// The files whose change caused it.
        changed: &'a [PathBuf],
    },
    /// The file watcher reported a problem.
    Watch(String),
}

/// Receives the server's [`Event`]s.
pub type Reporter = Box<dyn Fn(&Event) + Send + Sync>;

/// A running server.
pub struct Server {
    addr: SocketAddr,
    runtime: tokio::runtime::Runtime,
    stopping: tokio::sync::watch::Sender<bool>,
    rebuilds: mpsc::Sender<Batch>,
    rebuilder: JoinHandle<()>,
}

/// What the rebuild thread receives.
enum Batch {
    Events(DebounceEventResult),
    Stop,
}

/// Builds the site of `options.root`, starts serving it, and watches the project. The first
/// build may fail: its error is shown until an edit fixes it.
pub fn start(options: &Options, report: Reporter) -> Result<Server, ServeError> {
    let root = std::fs::canonicalize(&options.root).map_err(|source| ServeError::Root {
        path: options.root.clone(),
        source,
    })?;
    // Messages name files as the user named the project; the watcher needs the real path.
    let mut live = Live::new(
        &options.root,
        site::Options {
            base_url: Some("/".into()),
            drafts: options.drafts,
        },
    );
    let error = rebuild(&mut live, &[], &report).err();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("benchsite-serve")
        .enable_all()
        .build()
        .map_err(|e| ServeError::Start {
            what: "server runtime",
            message: e.to_string(),
        })?;
    let listener = bind(options.bind, options.port)?;
    let addr = listener.local_addr().map_err(|source| ServeError::Bind {
        addr: SocketAddr::new(options.bind, options.port),
        source,
    })?;
    let (stopping, stop_signal) = tokio::sync::watch::channel(false);
    let shared = Arc::new(http::Shared::new(live.site(), error, stop_signal.clone()));
    {
        let _runtime = runtime.enter();
        let listener = tokio::net::TcpListener::from_std(listener)
            .map_err(|source| ServeError::Bind { addr, source })?;
        let app = http::router(Arc::clone(&shared));
        let mut stop_signal = stop_signal;
        runtime.spawn(async move {
            let stopped = async move {
                let _ = stop_signal.wait_for(|stop| *stop).await;
            };
            // Errors of single connections are handled inside; this ends with the server.
            let _ = axum::serve(listener, app)
                .with_graceful_shutdown(stopped)
                .await;
        });
    }
    let (rebuilds, batches) = mpsc::channel();
    let events = rebuilds.clone();
    let watcher = watch::Watcher::new(&root, options.debounce, move |batch| {
        let _ = events.send(Batch::Events(batch));
    })
    .map_err(|e| ServeError::Start {
        what: "file watcher",
        message: e.to_string(),
    })?;
    let rebuilder = std::thread::Builder::new()
        .name("benchsite-rebuild".into())
        .spawn(move || rebuild_loop(root, live, watcher, batches, shared, report))
        .map_err(|e| ServeError::Start {
            what: "rebuild thread",
            message: e.to_string(),
        })?;
    Ok(Server {
        addr,
        runtime,
        stopping,
        rebuilds,
        rebuilder,
    })
}

impl Server {
    /// The address the server listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The site's address, for a browser.
    pub fn url(&self) -> String {
        let host = match self.addr.ip() {
            ip if ip.is_unspecified() => "localhost".to_owned(),
            IpAddr::V6(ip) => format!("[{ip}]"),
            IpAddr::V4(ip) => ip.to_string(),
        };
        format!("http://{host}:{}/", self.addr.port())
    }

    /// Blocks until the process gets Ctrl-C (SIGINT) or SIGTERM.
    pub fn wait_for_signal(&self) {
        self.runtime.block_on(async {
            #[cfg(unix)]
            {
                use tokio::signal::unix::{SignalKind, signal};
                match signal(SignalKind::terminate()) {
                    Ok(mut terminate) => {
                        tokio::select! {
                            _ = tokio::signal::ctrl_c() => {}
                            _ = terminate.recv() => {}
                        }
                    }
                    Err(_) => {
                        let _ = tokio::signal::ctrl_c().await;
                    }
                }
            }
            #[cfg(not(unix))]
            {
                let _ = tokio::signal::ctrl_c().await;
            }
        });
    }

    /// Stops serving and watching: open pages are told to close, and a connection that does
    /// not finish within a second is dropped.
    pub fn stop(self) {
        let _ = self.stopping.send(true);
        let _ = self.rebuilds.send(Batch::Stop);
        let _ = self.rebuilder.join();
        self.runtime.shutdown_timeout(Duration::from_secs(1));
    }
}

/// Binds `port`, or the next free port after it when it is taken.
fn bind(ip: IpAddr, port: u16) -> Result<TcpListener, ServeError> {
    let first = SocketAddr::new(ip, port);
    let last = if port == 0 {
        0
    } else {
        port.saturating_add(PORT_TRIES)
    };
    for port in port..=last {
        match TcpListener::bind(SocketAddr::new(ip, port)) {
            Ok(listener) => {
                listener
                    .set_nonblocking(true)
                    .map_err(|source| ServeError::Bind {
                        addr: first,
                        source,
                    })?;
                return Ok(listener);
            }
            Err(error) if error.kind() == std::io::ErrorKind::AddrInUse && port < last => {}
            Err(source) => {
                return Err(ServeError::Bind {
                    addr: first,
                    source,
                });
            }
        }
    }
    unreachable!("the last port returns")
}

/// Rebuilds after each batch of changes until told to stop.
fn rebuild_loop(
    root: PathBuf,
    mut live: Live,
    mut watcher: watch::Watcher,
    batches: mpsc::Receiver<Batch>,
    shared: Arc<http::Shared>,
    report: Reporter,
) {
    while let Ok(Batch::Events(first)) = batches.recv() {
        let mut changed = BTreeSet::new();
        note_errors(&first, &report);
        watch::changed_paths(&root, first, &mut changed);
        // Everything that arrived meanwhile goes into the same rebuild.
        loop {
            match batches.try_recv() {
                Ok(Batch::Events(batch)) => {
                    note_errors(&batch, &report);
                    watch::changed_paths(&root, batch, &mut changed);
                }
                Ok(Batch::Stop) => return,
                Err(_) => break,
            }
        }
        if let Err(error) = watcher.refresh() {
            report(&Event::Watch(error.to_string()));
        }
        if changed.is_empty() {
            continue;
        }
        let changed: Vec<PathBuf> = changed
            .iter()
            .map(|path| path.strip_prefix(&root).unwrap_or(path).to_owned())
            .collect();
        match rebuild(&mut live, &changed, &report) {
            Ok(()) => shared.publish(live.site()),
            Err(error) => shared.fail(error),
        }
    }
}

fn note_errors(batch: &DebounceEventResult, report: &Reporter) {
    if let Err(errors) = batch {
        for error in errors {
            report(&Event::Watch(error.to_string()));
        }
    }
}

/// Rebuilds and reports; the error as text for the pages.
fn rebuild(live: &mut Live, changed: &[PathBuf], report: &Reporter) -> Result<(), String> {
    let started = Instant::now();
    match live.rebuild(changed) {
        Ok(rebuild) => {
            report(&Event::Built {
                rebuild,
                elapsed: started.elapsed(),
                changed,
            });
            Ok(())
        }
        Err(error) => {
            report(&Event::Failed {
                error: &error,
                changed,
            });
            Err(error.to_string())
        }
    }
}

//! The one-thread runtime every measurement runs on, and the signals that stop one.

/// The async runtime measurements run on: one thread, so that a streamed token wakes no
/// other thread (`cargo bench --bench ingest` measures what a token costs). The power
/// sampler and the progress bar have threads of their own.
pub fn runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
}

/// Ctrl-C, or SIGTERM (what `scancel`, `kill` and a cancelled CI job send): either stops a
/// measurement the same way, its server stopped and every finished record kept.
pub struct Stop {
    interrupt: tokio::signal::unix::Signal,
    terminate: tokio::signal::unix::Signal,
}

impl Stop {
    /// Listens from now on.
    pub fn listen() -> std::io::Result<Self> {
        use tokio::signal::unix::{SignalKind, signal};
        Ok(Self {
            interrupt: signal(SignalKind::interrupt())?,
            terminate: signal(SignalKind::terminate())?,
        })
    }

    /// Resolves at the next signal.
    pub async fn recv(&mut self) {
        tokio::select! {
            _ = self.interrupt.recv() => {}
            _ = self.terminate.recv() => {}
        }
    }

    /// Whether a signal came since the last look.
    pub fn heard(&mut self) -> bool {
        use futures_util::FutureExt;
        self.recv().now_or_never().is_some()
    }
}

/// Waits for Ctrl-C or SIGTERM; never returns when they cannot be listened for.
pub(crate) async fn interrupted() {
    match Stop::listen() {
        Ok(mut stop) => stop.recv().await,
        Err(_) => std::future::pending::<()>().await,
    }
}

//! The one-thread runtime every measurement runs on, and Ctrl-C.

/// The async runtime measurements run on: one thread, so that a streamed token wakes no
/// other thread (`cargo bench --bench ingest` measures what a token costs). The power
/// sampler and the progress bar have threads of their own.
pub fn runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
}

/// Waits for Ctrl-C; never returns when the signal cannot be listened for.
pub(crate) async fn interrupted() {
    if tokio::signal::ctrl_c().await.is_err() {
        std::future::pending::<()>().await;
    }
}

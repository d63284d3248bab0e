//! The `benchsite` command line.

mod cli;

// Loading a large results document is allocation-bound; mimalloc halves it.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc's `mi_option_purge_delay`, which the bindings do not name.
const PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

fn main() -> std::process::ExitCode {
    // Memory freed is given back to the system after a second, not 10 ms: a build of a large
    // report frees and takes again hundreds of megabytes, and each page taken back is zeroed
    // by the kernel (`cargo bench --bench growth -- fleet`: 51 s to 46 s at 120,000 pages).
    // SAFETY: setting an option of the allocator, which mimalloc allows at any time.
    unsafe { libmimalloc_sys::mi_option_set(PURGE_DELAY, 1000) };
    cli::run()
}

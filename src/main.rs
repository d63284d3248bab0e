//! The `benchsite` command line.

mod cli;

// Loading a large results document is allocation-bound; mimalloc halves it.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    cli::run()
}

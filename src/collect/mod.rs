//! `benchsite collect`: measuring a running OpenAI-compatible server (vLLM, llama.cpp's
//! llama-server, llama-cpp-python, others for what they expose) and recording the results in
//! `data/results.json` through the one atomic writer.
//!
//! [`run`] measures single-stream decode speed, [`sweep`] a concurrency sweep, [`hardware`]
//! reads the machine, [`import`] reads other tools' result files; each returns the record,
//! which [`save`] writes. With a [`LaunchOptions`]
//! the server is started from its profile first, and a server that does not come up becomes a
//! failure record.

mod acceptance;
mod answers;
mod arrivals;
mod capture;
pub mod client;
mod decode;
pub mod defaults;
mod delivery;
mod engine_view;
mod error;
mod hardware;
mod import;
mod launch;
mod level;
mod level_report;
mod listener;
pub mod metrics;
mod orphans;
mod outcome;
mod params;
pub mod power;
mod progress;
mod prompt;
mod provenance;
mod quality;
mod runtime;
mod samples;
mod save;
mod search;
mod sending;
pub mod server;
mod server_log;
pub mod stream;
mod sweep;
mod target;
mod watch;
mod workload;

pub use arrivals::schedule;
pub use capture::{
    Capture, CaptureOptions, Captured, Header, Scored, capture, capture_path, load as load_capture,
    prompt_set,
};
pub use client::{Client, Endpoint, Liveness};
pub use decode::{RunOptions, failure, log_path, run};
pub use error::CollectError;
pub use hardware::{Detected, hardware, merge};
pub use import::{
    ImportOptions, LlamaBenchOptions, LlamaBenchRuns, Tool as ImportTool, import,
    import_llama_bench,
};
pub use launch::{LaunchOptions, Launched, free_port, keep_log, launch, launch_port};
pub use outcome::{Outcome, to_json};
pub use params::{
    CaptureParams, JitterParams, LaunchParams, MOST_SECONDS, RunParams, SweepParams, Unusable,
    flags, is_timeout,
};
pub use progress::Progress;
pub use provenance::{ENGINE_VARIABLES, provenance};
pub use quality::{DivergenceOptions, JitterOptions, compare_captures, divergence, jitter};
pub use runtime::{Stop, runtime};
pub use save::{save, save_all};
pub use sending::{Level, run_level};
pub use server::{Kind as ServerKind, Server};
pub use server_log::{Diagnosis, Phase, diagnose};
pub use sweep::{INTERRUPTED, SweepOptions, request_body, sweep};
pub use target::{Counted, ServerOptions};

//! `collect import`: results other tools wrote, as one sweep.
//!
//! - `vllm-bench`: the files `vllm bench serve --save-result` wrote for one workload at several
//!   `--max-concurrency` values; each file (or line of an `--append-result` file) is a level.
//!   Field names are those of `vllm/benchmarks/serve.py`.
//! - `guidellm`: a JSON report; each synchronous or concurrent benchmark is a level. Field
//!   names are those of guidellm's `GenerativeBenchmarksReport` and `GenerativeRequestStats`.
//!
//! - `sglang`: SGLang's `bench_serving --output-file` lines; each at a `--max-concurrency` is a
//!   level.
//! - `aiperf`: AIPerf's or genai-perf's JSON export, one file per concurrency.
//!
//! Where per-request data is there (`--save-detailed`; guidellm's request records), a level's
//! figures are recomputed with the project's own quantile and definitions; where only the
//! summary is, the summary fields are taken. Either way the level's `source` says which.

mod aiperf;
mod common;
mod guidellm;
mod llama_bench;
mod sglang;
mod tool;
mod vllm;

pub use llama_bench::{LlamaBenchOptions, LlamaBenchRuns, import_llama_bench};
pub use tool::{ImportOptions, Tool, import};

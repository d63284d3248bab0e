//! What each measurement does when not told otherwise, stated once: the `collect` flags and a
//! campaign file's keys both default to these. They differ by measurement on purpose: decode
//! speed follows the seed's method (300 tokens), a capture scores long enough answers to
//! diverge (256), jitter repeats shorter continuations many times (128).

/// `collect run`: samples after the cold request.
pub const RUN_SAMPLES: usize = 3;
/// `collect run`: tokens per request (the seed's method: 300 output tokens).
pub const RUN_MAX_TOKENS: u64 = 300;
/// `collect run`, with speculative decoding: prompts of the project's prompt set the
/// acceptance is measured over, spread through the set.
pub const RUN_ACCEPTANCE_PROMPTS: usize = 8;
/// `collect sweep`: words per prompt.
pub const SWEEP_PROMPT_WORDS: u64 = 700;
/// `collect sweep`: tokens per answer.
pub const SWEEP_OUTPUT_TOKENS: u64 = 256;
/// `collect sweep`: requests per stream at each level, at least.
pub const SWEEP_ROUNDS: u64 = 2;
/// `collect sweep`: the fewest requests a level sends; a level takes max(rounds, ⌈20 /
/// concurrency⌉) rounds, so no percentile is of fewer than 20 requests.
pub const SWEEP_MIN_REQUESTS: u64 = crate::data::figures::level::TAIL_MIN_N;
/// `collect sweep --rates`: the arrivals' gamma shape (1: a Poisson process, vLLM's default).
pub const SWEEP_BURSTINESS: f64 = 1.0;
/// `collect sweep --rates`: arrivals per level.
pub const SWEEP_OPEN_REQUESTS: u64 = 100;
/// `collect sweep --search` over rates: stop when the bracket is within this share.
pub const SEARCH_TOLERANCE: f64 = 0.1;
/// `collect sweep`: requests per stream sent and discarded before each level.
pub const SWEEP_WARMUP: u64 = 1;
/// The version of the measurement definitions new records are measured by: bumped whenever
/// one changes. 1 is everything before records said; 2 ends latency at the finish reason,
/// fails `abort` and `error` finishes, warms up each sweep level, sends at least
/// [`SWEEP_MIN_REQUESTS`] per level and isolates sweeps from the prefix cache with a nonce;
/// 3 checks every answer before it counts (bursts, short answers, usage, the engine's own
/// figures beside the client's) and scales an open loop's drawn gaps so that its N arrivals
/// span N / rate.
pub const METHOD_VERSION: u64 = 3;
/// What a record measured by this program names as its client.
pub const CLIENT: &str = concat!("benchsite ", env!("CARGO_PKG_VERSION"));
/// `collect capture`: tokens generated per prompt.
pub const CAPTURE_MAX_TOKENS: u64 = 256;
/// `collect capture`: requests in flight.
pub const CAPTURE_CONCURRENCY: usize = 4;
/// Top-k logprobs per position (vLLM caps it at `--max-logprobs`, 20 by default).
pub const TOP_K: u64 = 20;
/// `collect jitter`: how many prompts of the set (the first ones).
pub const JITTER_PROMPTS: usize = 8;
/// `collect jitter`: scorings of each continuation.
pub const JITTER_REPEATS: usize = 4;
/// `collect jitter`: tokens per continuation.
pub const JITTER_MAX_TOKENS: u64 = 128;
/// A launched server: seconds it may take to become ready (loading weights and compiling
/// CUDA graphs of a large model takes minutes).
pub const READY_TIMEOUT_S: f64 = 900.0;
/// A launched server: seconds it may take to stop before it is killed.
pub const STOP_TIMEOUT_S: f64 = 30.0;

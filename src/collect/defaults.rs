//! What each measurement does when not told otherwise, stated once: the `collect` flags and a
//! campaign file's keys both default to these. They differ by measurement on purpose: decode
//! speed follows the seed's method (300 tokens), a capture scores long enough answers to
//! diverge (256), jitter repeats shorter continuations many times (128).

/// `collect run`: samples after the cold request.
pub const RUN_SAMPLES: usize = 3;
/// `collect run`: tokens per request (the seed's method: 300 output tokens).
pub const RUN_MAX_TOKENS: u64 = 300;
/// `collect sweep`: words per prompt.
pub const SWEEP_PROMPT_WORDS: u64 = 700;
/// `collect sweep`: tokens per answer.
pub const SWEEP_OUTPUT_TOKENS: u64 = 256;
/// `collect sweep`: requests per stream at each level.
pub const SWEEP_ROUNDS: u64 = 2;
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

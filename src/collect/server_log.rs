//! What a launched server's log says: why it did not serve, in its engine's own words (the
//! status, the decisive lines, never a warning), its version, and the weights and KV pool it
//! states at start.

use crate::data::FailureStatus;
use crate::profiles::Engine;

/// When a launched server failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Before it became ready.
    Startup,
    /// After it became ready, on the first requests.
    FirstRequest,
}

/// Why a launched server did not serve, as a failure record wants it.
#[derive(Debug, Clone, PartialEq)]
pub struct Diagnosis {
    /// The engine that was started.
    pub engine: Engine,
    /// The engine and its version, where it said before it failed.
    pub server: Option<String>,
    /// The classified status.
    pub status: FailureStatus,
    /// A paragraph: what happened and the log's decisive lines.
    pub reason: String,
    /// The weights' size, when the log got that far.
    pub weights_gib: Option<f64>,
}

/// Log texts that name a cause, each with the status it means, by engine. Checked in order:
/// vLLM's engine core and PyTorch; llama.cpp's `llama-kv-cache.cpp` and ggml's allocators;
/// SGLang's pool configurator and allocators.
fn causes(engine: Engine) -> &'static [(&'static str, Cause)] {
    match engine {
        Engine::Vllm => &[
            (
                "KV cache is needed, which is larger than the available KV cache memory",
                Cause::Kv,
            ),
            ("No available memory for the cache blocks", Cause::Kv),
            ("CUDA out of memory", Cause::Oom),
            ("OutOfMemoryError", Cause::Oom),
            (
                "on startup is less than desired GPU memory utilization",
                Cause::Oom,
            ),
            // vLLM's CPU backend: "Available memory on node 0 (…) is less than desired CPU
            // memory utilization", and at the KV cache's allocation (0.32) "Available memory
            // on node 0 (22.31/23.54 GiB) on kv cache allocation is less than requested
            // memory for kv (100000.0 GiB)".
            ("is less than desired CPU memory utilization", Cause::Oom),
            ("is less than requested memory for kv", Cause::Oom),
        ],
        Engine::LlamaServer => &[
            ("failed to allocate buffer for kv cache", Cause::Kv),
            ("failed to allocate", Cause::Oom),
            ("not enough memory", Cause::Oom),
            ("insufficient memory", Cause::Oom),
            ("out of memory", Cause::Oom),
        ],
        Engine::Sglang => &[
            (
                "Not enough memory. Please try to increase --mem-fraction-static",
                Cause::Kv,
            ),
            ("leaves no room for the full KV pool", Cause::Kv),
            ("CUDA out of memory", Cause::Oom),
            ("OutOfMemoryError", Cause::Oom),
            ("Out of memory", Cause::Oom),
            ("Capture cuda graph failed", Cause::Oom),
        ],
    }
}

/// Lines worth quoting besides the causes.
const CONTEXT: &[&str] = &[
    "Engine core initialization failed",
    "Error",
    "error:",
    "exiting due to",
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cause {
    Kv,
    Oom,
}

/// The failure `engine`'s log shows: its status, and a reason quoting the decisive lines.
pub fn diagnose(log: &str, engine: Engine, phase: Phase, what: &str) -> Diagnosis {
    let lines: Vec<&str> = log.lines().map(str::trim_end).collect();
    let causes = causes(engine);
    let cause = causes
        .iter()
        .find(|(text, _)| log.contains(text))
        .map(|(_, cause)| *cause);
    let status = match (cause, phase) {
        (Some(Cause::Kv), _) => FailureStatus::InsufficientKv,
        (Some(Cause::Oom), Phase::Startup) => FailureStatus::OomAtStartup,
        (Some(Cause::Oom), Phase::FirstRequest) => FailureStatus::OomAtFirstRequest,
        (None, _) => FailureStatus::Crashed,
    };
    let mut decisive: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|line| causes.iter().any(|(text, _)| line.contains(text)))
        .collect();
    let context: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|line| CONTEXT.iter().any(|text| line.contains(text)))
        // A warning is not why it failed (vLLM warns of a ulimit it could not raise, naming
        // `OSError`, on every start), nor is a line of code a traceback quotes.
        .filter(|line| !is_warning(line) && !is_quoted_code(line))
        .filter(|line| !decisive.contains(line))
        .take(3)
        .collect();
    decisive.extend(context);
    if decisive.is_empty() {
        decisive = lines
            .iter()
            .rev()
            .copied()
            .filter(|line| !line.is_empty())
            .take(3)
            .collect();
        decisive.reverse();
    }
    // vLLM logs an engine's error in its process's lines and again bare: quoted once.
    let mut seen = std::collections::HashSet::new();
    decisive.retain(|line| seen.insert(line.split_once("] ").map_or(*line, |(_, m)| m)));
    decisive.truncate(6);
    let when = match phase {
        Phase::Startup => "The server",
        Phase::FirstRequest => "The server started, then",
    };
    let quoted: Vec<String> = decisive
        .iter()
        .map(|line| format!("“{}”", shorten(line.trim())))
        .collect();
    let reason = if quoted.is_empty() {
        format!("{when} {what}; its log is empty.")
    } else {
        format!("{when} {what}. Its log says: {}", quoted.join(" "))
    };
    Diagnosis {
        engine,
        server: logged_version(log, engine),
        status,
        reason,
        weights_gib: weights_gib(log),
    }
}

/// A log line at warning level: `WARNING` among the words before its source (`(APIServer
/// pid=1) WARNING 12-07 13:51:57 [system_utils.py:255] …`), or leading it.
fn is_warning(line: &str) -> bool {
    let head = line.split_once('[').map_or(line, |(head, _)| head);
    head.split_whitespace().any(|word| word == "WARNING")
}

/// A traceback's line of code: indented (`    raise ValueError(`), or indented after its
/// source as vLLM logs it (`[core.py:1510]     raise ValueError(`).
fn is_quoted_code(line: &str) -> bool {
    line.starts_with(char::is_whitespace)
        || line
            .split_once("] ")
            .is_some_and(|(_, message)| message.starts_with(' '))
}

fn shorten(line: &str) -> String {
    const MOST: usize = 400;
    if line.chars().count() <= MOST {
        line.to_owned()
    } else {
        format!("{}…", line.chars().take(MOST).collect::<String>())
    }
}

/// The engine and version its log states: vLLM's `vLLM API server version 0.11.0`.
/// llama-server logs its build only at trace level, and SGLang not at all; theirs come from
/// asking the program ([`Launched::start`]).
fn logged_version(log: &str, engine: Engine) -> Option<String> {
    let version = match engine {
        // `vLLM API server version 0.11.0`, or from 0.32 `Initializing a V1 LLM engine
        // (v0.32.0) with config: …`.
        Engine::Vllm => log.lines().find_map(|line| {
            if let Some(rest) = line.split("vLLM API server version ").nth(1) {
                return rest.split_whitespace().next().map(str::to_owned);
            }
            let rest = line.split(" LLM engine (v").nth(1)?;
            rest.split_once(')').map(|(version, _)| version.to_owned())
        })?,
        Engine::LlamaServer | Engine::Sglang => return None,
    };
    Some(format!("{} {version}", engine.name()))
}

/// `version: 0.5.0-dev (build 1, commit 0c1e570)` as llama.cpp's build info: `b1-0c1e570`.
pub(super) fn llama_build(text: &str) -> Option<String> {
    let line = text.lines().find(|line| line.starts_with("version:"))?;
    let inside = line.split_once("(build ")?.1.strip_suffix(')')?;
    let (build, commit) = inside.split_once(", commit ")?;
    Some(format!("b{build}-{commit}"))
}

/// `Model loading took 21.9 GiB and 33.2 seconds` (either wording): the weights' size.
pub fn weights_gib(log: &str) -> Option<f64> {
    log.lines().find_map(|line| {
        let rest = line.split("Model loading took ").nth(1)?;
        rest.split_whitespace().next()?.parse().ok()
    })
}

/// `GPU KV cache size: 370,189 tokens` (`CPU KV cache size` on vLLM's CPU backend): the KV pool in tokens.
pub fn kv_tokens(log: &str) -> Option<u64> {
    log.lines().find_map(|line| {
        // `GPU KV cache size: N tokens`; vLLM's CPU backend says `CPU KV cache size`.
        let rest = ["GPU KV cache size: ", "CPU KV cache size: "]
            .iter()
            .find_map(|said| line.split(said).nth(1))?;
        let number: String = rest
            .split_whitespace()
            .next()?
            .chars()
            .filter(|c| *c != ',')
            .collect();
        number.parse().ok()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const KV: &str = "INFO 09-07 gpu_model_runner.py: Model loading took 23.6 GiB and 41.2 seconds
ERROR 09-07 core.py: EngineCore failed to start.
ValueError: To serve at least one request with the models's max seq len (65536), (4.12 GiB KV cache is needed, which is larger than the available KV cache memory (2.31 GiB). Based on the available memory, the estimated maximum model length is 36720. Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.
RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}
";

    #[test]
    fn the_kv_error_is_insufficient_kv_with_its_lines() {
        let diagnosis = diagnose(
            KV,
            Engine::Vllm,
            Phase::Startup,
            "exited during start-up (exit status: 1)",
        );
        assert_eq!(diagnosis.status, FailureStatus::InsufficientKv);
        assert_eq!(diagnosis.weights_gib, Some(23.6));
        assert!(diagnosis.reason.starts_with("The server exited during start-up (exit status: 1). Its log says: “ValueError: To serve"), "{}", diagnosis.reason);
        assert!(
            diagnosis
                .reason
                .contains("Engine core initialization failed")
        );
    }

    #[test]
    fn out_of_memory_by_phase_and_unknown_causes() {
        let oom = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.02 GiB. GPU 0 has a total capacity of 31.36 GiB of which 0.9 GiB is free.";
        assert_eq!(
            diagnose(oom, Engine::Vllm, Phase::Startup, "exited").status,
            FailureStatus::OomAtStartup
        );
        assert_eq!(
            diagnose(oom, Engine::Vllm, Phase::FirstRequest, "died").status,
            FailureStatus::OomAtFirstRequest
        );
        let free = "ValueError: Free memory on device cuda:0 (20.1/31.4 GiB) on startup is less than desired GPU memory utilization (0.92, 28.9 GiB).";
        assert_eq!(
            diagnose(free, Engine::Vllm, Phase::Startup, "exited").status,
            FailureStatus::OomAtStartup
        );
        // vLLM's CPU backend refusing its memory at start, after a warning that names an
        // error of its own: the cause is quoted, the warning is not.
        let cpu = "WARNING 12-07 10:00:01 [system_utils.py:141] Found ulimit of 1024 and failed to automatically increase with error current limit exceeds maximum limit. This can cause fd limit errors like `OSError: [Errno 24] Too many open files`. Consider increasing with ulimit -n\nValueError: Available memory on node 0 (1.2/23.5 GiB) on startup is less than desired CPU memory utilization (0.9, 21.2 GiB).\nRuntimeError: Engine core initialization failed. See root cause above.";
        let diagnosis = diagnose(cpu, Engine::Vllm, Phase::Startup, "exited");
        assert_eq!(diagnosis.status, FailureStatus::OomAtStartup);
        assert!(
            diagnosis.reason.starts_with(
                "The server exited. Its log says: “ValueError: Available memory on node 0"
            ) && !diagnosis.reason.contains("ulimit"),
            "{}",
            diagnosis.reason
        );
        // vLLM 0.32's CPU backend refusing the KV cache's memory, in its own lines (a launch
        // with VLLM_CPU_KVCACHE_SPACE=100000): each process's prefix, a warning first, and
        // the traceback's line of code logged at error level before the error.
        let cpu_kv = "(APIServer pid=5892) WARNING 12-07 13:51:57 [system_utils.py:255] Found ulimit of 20000 and failed to automatically increase with error current limit exceeds maximum limit. This can cause fd limit errors like `OSError: [Errno 24] Too many open files`. Consider increasing with ulimit -n
(EngineCore pid=5905) INFO 12-07 13:52:06 [core.py:133] Initializing a V1 LLM engine (v0.32.0) with config: model='/m', speculative_config=None
(EngineCore pid=5905) ERROR 12-07 13:52:08 [core.py:1510]     raise ValueError(
(EngineCore pid=5905) ERROR 12-07 13:52:08 [core.py:1510] ValueError: Available memory on node 0 (22.31/23.54 GiB) on kv cache allocation is less than requested memory for kv (100000.0 GiB). Decrease --kv-cache-memory-bytes, VLLM_CPU_KVCACHE_SPACE, or reduce CPU memory used by other processes.
    raise ValueError(
RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}
";
        let diagnosis = diagnose(cpu_kv, Engine::Vllm, Phase::Startup, "exited");
        assert_eq!(diagnosis.status, FailureStatus::OomAtStartup);
        assert_eq!(diagnosis.server.as_deref(), Some("vLLM 0.32.0"));
        assert_eq!(
            diagnosis.reason,
            "The server exited. Its log says: “(EngineCore pid=5905) ERROR 12-07 13:52:08 \
             [core.py:1510] ValueError: Available memory on node 0 (22.31/23.54 GiB) on kv cache \
             allocation is less than requested memory for kv (100000.0 GiB). Decrease \
             --kv-cache-memory-bytes, VLLM_CPU_KVCACHE_SPACE, or reduce CPU memory used by other \
             processes.” “RuntimeError: Engine core initialization failed. See root cause above. \
             Failed core proc(s): {}”"
        );
        let other = "loading\nsegfault in worker\n";
        let diagnosis = diagnose(other, Engine::Vllm, Phase::Startup, "exited");
        assert_eq!(diagnosis.status, FailureStatus::Crashed);
        assert!(
            diagnosis.reason.contains("“loading” “segfault in worker”"),
            "{}",
            diagnosis.reason
        );
    }

    #[test]
    fn start_up_figures() {
        assert_eq!(
            weights_gib("x Model loading took 21.9 GiB memory and 33.2 seconds"),
            Some(21.9)
        );
        assert_eq!(
            kv_tokens("INFO kv_cache_utils.py:1087] GPU KV cache size: 370,189 tokens\n"),
            Some(370_189)
        );
        // vLLM 0.32's CPU backend, its line as it logged it here.
        assert_eq!(
            kv_tokens(
                "(EngineCore pid=16814) INFO 12-07 11:53:16 [kv_cache_utils.py:2327] CPU KV cache size: 2,097,152 tokens, Maximum concurrency for 1,024 tokens per request: 2048.00x"
            ),
            Some(2_097_152)
        );
        assert_eq!(kv_tokens("nothing"), None);
    }

    /// llama-server's own lines when its KV cache cannot be allocated (this one under a 1 GiB
    /// address-space limit, `-c 4194304` on the tests' tiny model), and when its weights
    /// cannot (ggml-cuda's wording).
    const LLAMA_KV: &str = "0.00.376.249 W llama_context: n_ctx_seq (4194304) > n_ctx_train (2048) -- possible training context overflow
0.00.480.864 E ggml_aligned_malloc: insufficient memory (attempted to allocate 2048.00 MB)
0.00.480.884 E ggml_backend_cpu_buffer_type_alloc_buffer: failed to allocate buffer of size 2147483648
0.00.480.885 E alloc_tensor_range: failed to allocate CPU buffer of size 2147483648
0.00.494.603 E llama_init_from_model: failed to initialize the context: failed to allocate buffer for kv cache
0.00.495.024 E srv  llama_server: exiting due to model loading error
";

    #[test]
    fn llama_server_and_sglang_logs_are_read_in_their_own_words() {
        let kv = diagnose(LLAMA_KV, Engine::LlamaServer, Phase::Startup, "exited");
        assert_eq!(kv.status, FailureStatus::InsufficientKv);
        assert_eq!(kv.engine, Engine::LlamaServer);
        assert!(
            kv.reason
                .contains("“0.00.494.603 E llama_init_from_model: failed to initialize the context: failed to allocate buffer for kv cache”"),
            "{}",
            kv.reason
        );
        let weights = "E ggml_backend_cuda_buffer_type_alloc_buffer: allocating 30000.00 MiB on device 0: cudaMalloc failed: out of memory\nE alloc_tensor_range: failed to allocate CUDA0 buffer of size 31457280000\nE llama_model_load: error loading model: unable to allocate CUDA0 buffer\n";
        let sglang = "RuntimeError: Not enough memory. Please try to increase --mem-fraction-static. Current value: mem_fraction_static=0.5\n";
        let sglang_oom =
            "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n";
        let cases = [
            (
                weights,
                Engine::LlamaServer,
                Phase::Startup,
                FailureStatus::OomAtStartup,
            ),
            // vLLM's wording means nothing from llama-server, and the other way round.
            (
                LLAMA_KV,
                Engine::Vllm,
                Phase::Startup,
                FailureStatus::Crashed,
            ),
            (
                sglang,
                Engine::Sglang,
                Phase::Startup,
                FailureStatus::InsufficientKv,
            ),
            (
                sglang_oom,
                Engine::Sglang,
                Phase::FirstRequest,
                FailureStatus::OomAtFirstRequest,
            ),
        ];
        for (log, engine, phase, status) in cases {
            assert_eq!(
                diagnose(log, engine, phase, "exited").status,
                status,
                "{log}"
            );
        }
    }

    #[test]
    fn versions_from_the_log_and_the_program() {
        let log = "INFO 09-07 api_server.py:1800] vLLM API server version 0.11.0\n";
        assert_eq!(
            diagnose(log, Engine::Vllm, Phase::Startup, "exited")
                .server
                .as_deref(),
            Some("vLLM 0.11.0")
        );
        assert_eq!(
            llama_build("version: 0.5.0-dev (build 1, commit 0c1e570)\nbuilt with GNU 12.2.0 for Linux x86_64\n")
                .as_deref(),
            Some("b1-0c1e570")
        );
        assert_eq!(llama_build("usage: llama-server"), None);
    }
}

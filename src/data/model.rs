//! The typed results document (schema version 1). These types are the single source of the
//! document's shape: the JSON Schema is derived from them (see `schema.rs`).

use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::level::SweepLevel;
use super::quality::{Divergence, Jitter};
use super::types::{Date, Dimensions, Id, Provenance, SchemaVersion, permalink};
use crate::profiles::Engine;

/// The whole results document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "benchsite results document")]
pub struct Results {
    /// The schema version this document follows: 2 (a version-1 document is read and upgraded).
    pub schema_version: SchemaVersion,
    /// When the document was last generated.
    pub generated: Date,
    /// The machine the measurements ran on.
    pub hardware: Hardware,
    /// The serving stack's versions.
    pub software: Software,
    /// How the runs were measured, in words.
    pub method: Method,
    /// Measured server configurations.
    #[serde(default)]
    pub runs: Vec<Run>,
    /// Configurations that did not run.
    #[serde(default)]
    pub failures: Vec<Failure>,
    /// Concurrency sweeps.
    #[serde(default)]
    pub sweeps: Vec<Sweep>,
    /// Run-to-run noise measurements.
    #[serde(default)]
    pub jitter: Vec<Jitter>,
    /// Quality drift between configurations.
    #[serde(default)]
    pub divergence: Vec<Divergence>,
}

/// The machine. Every field is optional: `collect hardware` leaves out what it cannot read.
/// Sizes in GiB keep the number as written (30 stays 30, 31.4 stays 31.4).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Hardware {
    /// GPU model name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpu: Option<String>,
    /// GPU architecture.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arch: Option<String>,
    /// Total VRAM in MiB.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vram_total_mib: Option<u64>,
    /// VRAM usable by the server in GiB.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0))]
    pub vram_usable_gib: Option<serde_json::Number>,
    /// VRAM taken before the server starts, in MiB.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vram_baseline_mib: Option<u64>,
    /// What takes the baseline VRAM.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vram_baseline_note: Option<String>,
    /// Driver version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub driver: Option<String>,
    /// Host RAM in GiB.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0))]
    pub host_ram_gib: Option<serde_json::Number>,
    /// CPU threads.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_threads: Option<u64>,
    /// Operating system.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub os: Option<String>,
    /// Container runtime and GPU device setup.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runtime: Option<String>,
    /// The host name of the node it was read on (a Slurm task's node, say).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
}

/// Versions of the serving stack; further keys are allowed as strings.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Software {
    /// Container image.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image: Option<String>,
    /// vLLM version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vllm: Option<String>,
    /// PyTorch version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub torch: Option<String>,
    /// Transformers version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transformers: Option<String>,
    /// Any other component and its version.
    #[serde(flatten)]
    pub other: IndexMap<String, String>,
}

/// How runs were measured, in words.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Method {
    /// The workload of a decode run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workload: Option<String>,
    /// The prompt `collect run` sends.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    /// How warm-up is handled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warmup: Option<String>,
    /// Where the KV pool size comes from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kv_tokens: Option<String>,
    /// How speculative acceptance is computed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub acceptance: Option<String>,
}

/// How a run or a sweep was measured, recorded with it from method version 2 on; records
/// without it were measured before it was kept (version 1, the document's `method` in words).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RecordMethod {
    /// The version of the definitions it was measured by, bumped whenever one changes (the
    /// versions are listed on the method page).
    #[schemars(range(min = 2))]
    pub version: u64,
    /// What sent the requests and measured them (`benchsite 0.1.0`).
    #[schemars(length(min = 1))]
    pub client: String,
    /// Where the prompts came from, in words.
    #[schemars(length(min = 1))]
    pub prompt_source: String,
    /// sha256 of the prompts sent, in order, each followed by a newline, before any nonce.
    #[schemars(regex(pattern = r"^[0-9a-f]{64}$"))]
    pub prompt_sha256: String,
    /// Requests sent first and discarded, per stream (a sweep: before each level).
    pub warmup: u64,
    /// How output tokens were counted (`usage`: the server's usage report).
    #[schemars(length(min = 1))]
    pub token_count: String,
    /// How the server's prefix cache was kept from answering for it.
    pub cache: CacheIsolation,
}

/// How a measurement kept the server's prefix cache from answering for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CacheIsolation {
    /// Nothing: a prompt sent again may be answered from the cache.
    None,
    /// Every prompt starts with a nonce of its own measurement.
    Nonce,
}

impl CacheIsolation {
    /// In words, for pages.
    pub fn describe(self) -> &'static str {
        match self {
            CacheIsolation::None => {
                "none (a prompt sent again may be answered from the prefix cache)"
            }
            CacheIsolation::Nonce => "each prompt starts with a nonce of its own measurement",
        }
    }
}

/// The status of a measured run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    /// Measured.
    Ok,
}

/// One measured server configuration; its id is the permalink of its page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Run {
    /// Unique slug, the permalink.
    pub id: Id,
    /// Always `ok`.
    pub status: RunStatus,
    /// Name of a file `profiles/<profile>.env`.
    #[schemars(regex(pattern = r"^[A-Za-z0-9][A-Za-z0-9._-]*$"))]
    pub profile: String,
    /// Space-separated `KEY=VALUE` applied on top of the profile; `EXTRA_ARGS=` runs to the end.
    #[serde(default)]
    pub overrides: String,
    /// Model name.
    #[schemars(length(min = 1))]
    pub model: String,
    /// The checkpoint served.
    #[schemars(length(min = 1))]
    pub checkpoint: String,
    /// Architecture in words (dense, MoE, hybrid).
    pub shape: String,
    /// Weight precision.
    pub precision: String,
    /// Weights loaded on the GPU, in GiB (2³⁰ bytes); `weights_gb` before schema version 2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0))]
    pub weights_gib: Option<f64>,
    /// Where `weights_gib` comes from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weights_source: Option<String>,
    /// The configured context length in tokens.
    #[schemars(range(min = 1))]
    pub max_model_len: u64,
    /// Whether the vision tower is loaded.
    pub vision: bool,
    /// Whether CUDA graphs are on (not eager).
    pub cuda_graphs: bool,
    /// Whether the server decodes speculatively.
    pub spec_decode: bool,
    /// Decode tok/s: the median of `decode_samples`; where the samples came in bursts
    /// (`delivery.per_stream` is `engine`), the engine's own per-stream rate.
    #[schemars(range(min = 0.0))]
    pub decode_tok_s: f64,
    /// The discarded first (cold) request's decode tok/s; absent where the tool that measured
    /// it does not report its warm-up (llama-bench).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0))]
    pub decode_cold_sample: Option<f64>,
    /// Decode tok/s of each measured request, by the client's clock; empty where the samples
    /// came in bursts and the figure is the engine's.
    #[schemars(inner(range(min = 0.0)))]
    pub decode_samples: Vec<f64>,
    /// Prompt processing tok/s (prefill), where measured: llama-bench's `pp` test.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0))]
    pub prompt_tok_s: Option<f64>,
    /// The prompt length `prompt_tok_s` was measured at, in tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub prompt_tokens: Option<u64>,
    /// When the run was measured.
    pub generated: Date,
    /// The server's vLLM version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vllm_version: Option<String>,
    /// The server software and its version as it identified itself (`vLLM 0.11.0`,
    /// `llama-cpp-python 0.3.36`); absent in records from before it was kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
    /// The engine that served it, where benchsite knows it: from the server's answers, or
    /// the profile that launched it; absent in records from before it was kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engine: Option<Engine>,
    /// KV-cache pool in tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kv_tokens: Option<u64>,
    /// kv_tokens / max_model_len, two decimals.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0))]
    pub max_concurrency: Option<f64>,
    /// KV-cache data type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kv_cache_dtype: Option<String>,
    /// Accepted over drafted tokens; only when `spec_decode` is true.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0, max = 1.0))]
    pub spec_acceptance: Option<f64>,
    /// Tokens per draft step, vLLM's mean acceptance length: 1 + accepted ÷ draft steps, over
    /// the samples, where the server counts the steps.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1.0))]
    pub spec_acceptance_length: Option<f64>,
    /// The rate at each draft position: tokens accepted there ÷ draft steps, first position
    /// first, where the server counts them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub spec_acceptance_per_position: Vec<f64>,
    /// The prompts the acceptance figures were measured over; absent when over the decode
    /// samples (one prompt, sent again).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec_acceptance_over: Option<AcceptancePrompts>,
    /// Anything a reader should know about the measurement.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
    /// How the samples were delivered, as checked before they counted; absent in records
    /// measured before the checks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delivery: Option<super::delivery::Delivery>,
    /// The engine's own figures over the samples, from its `/metrics`, beside the client's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engine_view: Option<super::delivery::EngineView>,
    /// The comparison that measures this configuration's quality against its reference.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quality: Option<QualityLink>,
    /// Mean GPU power draw over the samples, watts (all GPUs the measurement saw).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0))]
    pub power_w: Option<f64>,
    /// GPU energy over the samples divided by their output tokens, joules per token.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0))]
    pub joules_per_token: Option<f64>,
    /// The tool, its build and the file an imported run came from (`llama-bench`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// Where the server served other than the profile says, recorded with `--force`: the run
    /// holds what was served, and `check` accepts each field named here against its profile.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub forced: Vec<Forced>,
    /// What each sample asked for (from method version 2): the prompt's tokens as measured,
    /// the output tokens asked for, and as `rounds` the samples after the cold request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workload: Option<Workload>,
    /// How it was measured (from method version 2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<RecordMethod>,
    /// Where and by what it was measured, when benchsite recorded that.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provenance: Option<Provenance>,
}

/// A field of a run whose served value differs from what its profile gives, recorded with
/// `--force`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Forced {
    /// The run's field (`max_model_len`).
    #[schemars(length(min = 1))]
    pub field: String,
    /// What the profile, with the run's overrides, gives.
    pub profile: String,
    /// What the server served, which the field holds.
    pub served: String,
}

/// Which comparison measures a run's quality cost, as the author states it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct QualityLink {
    /// The label or slug of a `divergence` record whose side `b` is this configuration.
    #[schemars(length(min = 1))]
    pub comparison: String,
    /// Where the link is approximate (the comparison was measured with other settings).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// Why a configuration did not run. The one list of failure statuses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FailureStatus {
    /// Not tried: it cannot fit.
    NotAttempted,
    /// Out of memory while the server started.
    OomAtStartup,
    /// Started, then out of memory on the first request.
    OomAtFirstRequest,
    /// The KV cache cannot hold one sequence of the configured length.
    InsufficientKv,
    /// The server exited or never became ready, for a cause its log does not name.
    Crashed,
}

impl FailureStatus {
    /// Every status, in order of how far the configuration got.
    pub const ALL: [FailureStatus; 5] = [
        FailureStatus::NotAttempted,
        FailureStatus::Crashed,
        FailureStatus::OomAtStartup,
        FailureStatus::InsufficientKv,
        FailureStatus::OomAtFirstRequest,
    ];

    /// The status as written in the document.
    pub fn as_str(self) -> &'static str {
        match self {
            FailureStatus::NotAttempted => "not_attempted",
            FailureStatus::OomAtStartup => "oom_at_startup",
            FailureStatus::OomAtFirstRequest => "oom_at_first_request",
            FailureStatus::InsufficientKv => "insufficient_kv",
            FailureStatus::Crashed => "crashed",
        }
    }

    /// The status in words, for readers.
    pub fn describe(self) -> &'static str {
        match self {
            FailureStatus::NotAttempted => "not attempted",
            FailureStatus::OomAtStartup => "out of memory at start-up",
            FailureStatus::OomAtFirstRequest => "out of memory at the first request",
            FailureStatus::InsufficientKv => "KV cache too small",
            FailureStatus::Crashed => "the server crashed",
        }
    }
}

/// The prompts a run's speculative-decoding acceptance was measured over.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AcceptancePrompts {
    /// The prompt set, relative to the project (`data/prompts.jsonl`).
    #[schemars(length(min = 1))]
    pub prompt_set: String,
    /// sha256 of the prompt set's file.
    #[schemars(length(min = 1))]
    pub prompt_set_sha256: String,
    /// The ids of the prompts sent, one request each, in order.
    #[schemars(length(min = 1))]
    pub prompts: Vec<String>,
    /// Output tokens the server generated for them, by its usage reports.
    pub output_tokens: u64,
}

/// A configuration that did not run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Failure {
    /// Unique slug, the permalink.
    pub id: Id,
    /// The checkpoint tried.
    #[schemars(length(min = 1))]
    pub checkpoint: String,
    /// Weight precision.
    pub precision: String,
    /// Size of the weights in GiB (2³⁰ bytes); `weights_gb` before schema version 2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0))]
    pub weights_gib: Option<f64>,
    /// What happened.
    pub status: FailureStatus,
    /// The settings tried: the overrides on top of `profile`, as a run's `overrides`, or in
    /// records written by hand any words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config: Option<String>,
    /// The profile launched, `profiles/<profile>.env`; absent in records from before it was
    /// kept and in those written by hand.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(regex(pattern = r"^[A-Za-z0-9][A-Za-z0-9._-]*$"))]
    pub profile: Option<String>,
    /// What the server was started with: the profile's settings with the overrides applied,
    /// as `KEY=VALUE`, in the profile's order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub settings: Vec<String>,
    /// One-paragraph summary of the write-up.
    #[schemars(length(min = 1))]
    pub reason: String,
    /// The engine the profile launched.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engine: Option<Engine>,
    /// The engine and its version, where known before it failed (`llama.cpp llama-server
    /// b6500-0c1e570`, or the version line of its log).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
    /// The launched server's compressed log, relative to the project (`data/logs/<id>.log.gz`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log: Option<String>,
    /// Where and by what it was measured, when benchsite recorded that.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provenance: Option<Provenance>,
}

/// A concurrency sweep of one server configuration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Sweep {
    /// Unique label; its slug is the permalink unless `id` is given.
    #[schemars(length(min = 1))]
    pub label: String,
    /// Permalink slug, when it should differ from the label's slug.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Id>,
    /// Model name.
    #[schemars(length(min = 1))]
    pub model: String,
    /// The server measured.
    pub base_url: String,
    /// When the sweep ran.
    pub generated: Date,
    /// The server's vLLM version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vllm_version: Option<String>,
    /// The server software and its version as it identified itself (`vLLM 0.11.0`,
    /// `llama-cpp-python 0.3.36`); absent in records from before it was kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
    /// The engine that served it, where benchsite knows it: from the server's answers, or
    /// the profile that launched it; absent in records from before it was kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engine: Option<Engine>,
    /// The configured context length in tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_model_len: Option<u64>,
    /// What each request asks for.
    pub workload: Workload,
    /// One entry per level, in increasing concurrency or rate.
    #[schemars(length(min = 1))]
    pub levels: Vec<SweepLevel>,
    /// Anything a reader should know.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
    /// The tool and files an imported sweep came from (`vllm bench serve`, `guidellm`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// What distinguishes this sweep: model, prompt, output, seqs, vision, graphs, mtp, ...
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub dimensions: Dimensions,
    /// How it was measured (from method version 2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<RecordMethod>,
    /// Where and by what it was measured, when benchsite recorded that.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provenance: Option<Provenance>,
    /// What a limit search found, when the sweep was one (its levels are its probes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub search: Option<super::load::LimitSearch>,
    /// Its per-request data, relative to the project (`data/requests/<slug>.jsonl.gz`, see
    /// [`super::requests`]), where it was kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_log: Option<String>,
}

/// A sweep's request shape.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Workload {
    /// Prompt length in words (benchsite's own sweeps).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub prompt_words: Option<u64>,
    /// Prompt length in tokens, for sweeps whose tool set it in tokens (imported ones).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub prompt_tokens: Option<u64>,
    /// Output tokens asked for.
    #[schemars(range(min = 1))]
    pub output_tokens: u64,
    /// Requests per concurrency slot (1 in an open loop).
    #[schemars(range(min = 1))]
    pub rounds: u64,
    /// Whether generation ignored end-of-sequence.
    pub ignore_eos: bool,
    /// Whether the chat template's thinking was on.
    pub thinking: bool,
    /// The fewest requests a level sends: it takes max(rounds, ⌈min_requests / concurrency⌉)
    /// rounds (absent: every level `rounds`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub min_requests: Option<u64>,
    /// Open-loop arrivals; absent, a closed loop at each level's concurrency.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arrivals: Option<super::load::Arrivals>,
    /// Prompts sampled from a dataset, in place of generated ones.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dataset: Option<super::shape::Dataset>,
    /// Prompt and output lengths drawn per request from a range.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lengths: Option<super::shape::Lengths>,
    /// Prompts that share a prefix by groups.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shared_prefix: Option<super::shape::SharedPrefix>,
}

impl Workload {
    /// Whether its levels are open-loop arrivals.
    pub fn open_loop(&self) -> bool {
        self.arrivals.is_some()
    }

    /// Its requests' shape beyond their lengths, in words (`prompts of sharegpt.json, 4
    /// groups sharing a 200-word prefix`); none for plain generated prompts.
    pub fn shape(&self) -> Option<String> {
        super::shape::shape_words(
            self.dataset.as_ref(),
            self.lengths.as_ref(),
            self.shared_prefix.as_ref(),
        )
    }
}

impl Sweep {
    /// The permalink slug: `id` when given, else the slug of the label.
    pub fn slug(&self) -> String {
        permalink(self.id.as_ref(), &self.label)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failure_status_list_matches_serde_names() {
        for status in FailureStatus::ALL {
            let json = serde_json::to_value(status).unwrap();
            assert_eq!(json, status.as_str());
        }
    }
}

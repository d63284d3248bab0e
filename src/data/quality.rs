//! The quality records of the results document: run-to-run jitter and the divergence
//! between two captures, with their statistics blocks.

use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::types::{Date, Dimensions, Id, NullableCount, NullableNumber, Provenance, permalink};

/// Run-to-run noise of one server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Jitter {
    /// Unique label.
    #[schemars(length(min = 1))]
    pub label: String,
    /// Model name.
    #[schemars(length(min = 1))]
    pub model: String,
    /// The server's vLLM version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vllm_version: Option<String>,
    /// When it was measured.
    pub generated: Date,
    /// Prompts scored.
    #[schemars(range(min = 1))]
    pub prompts: u64,
    /// Times each prompt was scored.
    #[schemars(range(min = 2))]
    pub repeats: u64,
    /// Positions compared: at most prompts × (repeats − 1) × max_tokens.
    pub positions: u64,
    /// Tokens per continuation.
    #[schemars(range(min = 1))]
    pub max_tokens: u64,
    /// Logprobs per position.
    #[schemars(range(min = 1))]
    pub top_k: u64,
    /// Whether thinking was on.
    pub thinking: bool,
    /// Mean KL divergence.
    #[schemars(range(min = 0.0))]
    pub kld_mean: f64,
    /// Median KL divergence.
    #[schemars(range(min = 0.0))]
    pub kld_p50: f64,
    /// 99th percentile KL divergence.
    #[schemars(range(min = 0.0))]
    pub kld_p99: f64,
    /// Largest KL divergence.
    #[schemars(range(min = 0.0))]
    pub kld_max: f64,
    /// Fraction of positions whose most probable token changed.
    #[schemars(range(min = 0.0, max = 1.0))]
    pub top1_flip_rate: f64,
    /// Anything a reader should know.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
    /// Where and by what it was measured, when benchsite recorded that.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provenance: Option<Provenance>,
}

/// Quality drift from capture `a` to capture `b`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Divergence {
    /// Unique label; its slug is the permalink unless `id` is given.
    #[schemars(length(min = 1))]
    pub label: String,
    /// Permalink slug, when it should differ from the label's slug.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Id>,
    /// The reference capture.
    pub a: Id,
    /// The compared capture.
    pub b: Id,
    /// Model name.
    #[schemars(length(min = 1))]
    pub model: String,
    /// When it was computed.
    pub generated: Date,
    /// The server's vLLM version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vllm_version: Option<String>,
    /// The prompt set both captures used.
    pub prompt_set: String,
    /// How the captures were taken.
    pub settings: CaptureSettings,
    /// Both sides scoring the same reference continuation.
    pub teacher_forced: TeacherForced,
    /// Each side's own greedy continuation, up to the first differing token.
    pub generation: Generation,
    /// What distinguishes this comparison; `kind = "floor"` marks a noise measurement.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub dimensions: Dimensions,
    /// Anything a reader should know.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
    /// A known measurement problem, shown as a warning wherever the numbers appear.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suspect: Option<String>,
    /// Where and by what it was measured, when benchsite recorded that.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provenance: Option<Provenance>,
}

/// Capture settings of a comparison.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CaptureSettings {
    /// Tokens generated per prompt.
    #[schemars(range(min = 1))]
    pub max_tokens: u64,
    /// Logprobs per position.
    #[schemars(range(min = 1))]
    pub top_k: u64,
    /// Whether thinking was on.
    pub thinking: bool,
    /// Sampling temperature.
    #[schemars(range(min = 0.0))]
    pub temperature: f64,
    /// Sampling seed.
    pub seed: u64,
    /// Requests in flight while capturing.
    #[schemars(range(min = 1))]
    pub concurrency: u64,
}

/// The statistics a teacher-forced and a generation block share (see [`TeacherForced`]).
#[derive(Debug, Clone, Copy, PartialEq)]
#[allow(missing_docs)]
pub struct Block {
    pub positions: u64,
    pub kld_mean: f64,
    pub kld_p50: f64,
    pub kld_p90: f64,
    pub kld_p99: f64,
    pub kld_p999: f64,
    pub kld_max: f64,
    pub top1_agree: f64,
    pub dp_mean_abs: f64,
    pub dp_p1: f64,
    pub dp_p5: f64,
    pub dp_p50: f64,
    pub dp_p95: f64,
    pub dp_p99: f64,
    pub support_mass_mean: f64,
    pub ppl_a: f64,
    pub ppl_b: f64,
    pub prompts: u64,
}

/// Declares a block of divergence statistics: the fields both sides of a comparison share,
/// followed by the block's own.
macro_rules! divergence_block {
    ($(#[$meta:meta])* $name:ident { $($(#[$field_meta:meta])* $field:ident : $ty:ty,)* }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
        #[serde(deny_unknown_fields)]
        pub struct $name {
            /// Positions compared.
            pub positions: u64,
            /// Mean KL divergence.
            #[schemars(range(min = 0.0))]
            pub kld_mean: f64,
            /// Median KL divergence.
            #[schemars(range(min = 0.0))]
            pub kld_p50: f64,
            /// 90th percentile KL divergence.
            #[schemars(range(min = 0.0))]
            pub kld_p90: f64,
            /// 99th percentile KL divergence.
            #[schemars(range(min = 0.0))]
            pub kld_p99: f64,
            /// 99.9th percentile KL divergence.
            #[schemars(range(min = 0.0))]
            pub kld_p999: f64,
            /// Largest KL divergence.
            #[schemars(range(min = 0.0))]
            pub kld_max: f64,
            /// Fraction of positions where both sides' most probable token is the same.
            #[schemars(range(min = 0.0, max = 1.0))]
            pub top1_agree: f64,
            /// Mean |p_b(ref) − p_a(ref)|.
            #[schemars(range(min = 0.0, max = 1.0))]
            pub dp_mean_abs: f64,
            /// 1st percentile of p_b(ref) − p_a(ref).
            #[schemars(range(min = -1.0, max = 1.0))]
            pub dp_p1: f64,
            /// 5th percentile of p_b(ref) − p_a(ref).
            #[schemars(range(min = -1.0, max = 1.0))]
            pub dp_p5: f64,
            /// Median of p_b(ref) − p_a(ref).
            #[schemars(range(min = -1.0, max = 1.0))]
            pub dp_p50: f64,
            /// 95th percentile of p_b(ref) − p_a(ref).
            #[schemars(range(min = -1.0, max = 1.0))]
            pub dp_p95: f64,
            /// 99th percentile of p_b(ref) − p_a(ref).
            #[schemars(range(min = -1.0, max = 1.0))]
            pub dp_p99: f64,
            /// Mean probability mass of side a on the shared support.
            #[schemars(range(min = 0.0, max = 1.0))]
            pub support_mass_mean: f64,
            /// Perplexity of side a on the reference tokens.
            #[schemars(range(min = 1.0))]
            pub ppl_a: f64,
            /// Perplexity of side b on the reference tokens.
            #[schemars(range(min = 1.0))]
            pub ppl_b: f64,
            /// Prompts compared.
            pub prompts: u64,
            $($(#[$field_meta])* pub $field: $ty,)*
        }

        impl $name {
            /// The statistics both blocks share, as the figure registry reads them.
            pub fn block(&self) -> Block {
                Block {
                    positions: self.positions,
                    kld_mean: self.kld_mean,
                    kld_p50: self.kld_p50,
                    kld_p90: self.kld_p90,
                    kld_p99: self.kld_p99,
                    kld_p999: self.kld_p999,
                    kld_max: self.kld_max,
                    top1_agree: self.top1_agree,
                    dp_mean_abs: self.dp_mean_abs,
                    dp_p1: self.dp_p1,
                    dp_p5: self.dp_p5,
                    dp_p50: self.dp_p50,
                    dp_p95: self.dp_p95,
                    dp_p99: self.dp_p99,
                    support_mass_mean: self.support_mass_mean,
                    ppl_a: self.ppl_a,
                    ppl_b: self.ppl_b,
                    prompts: self.prompts,
                }
            }
        }
    };
}

divergence_block! {
    /// Teacher-forced statistics: both sides score the reference continuation.
    TeacherForced {
        /// Percentile-bootstrap 95% interval of kld_mean over prompts.
        kld_mean_ci95: [f64; 2],
        /// The same figures per prompt category.
        per_category: IndexMap<String, CategoryStats>,
        /// Each prompt's KL sum and position count, by prompt id, so that two comparisons
        /// over the same prompts can be judged by a bootstrap paired over them. Absent from
        /// records computed before method version 2.
        #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
        per_prompt: IndexMap<String, PromptSum>,
    }
}

divergence_block! {
    /// Generation statistics: each side's own greedy continuation, compared token by token.
    Generation {
        /// Prompts whose continuations are equal in full.
        identical: u64,
        /// identical / prompts.
        #[schemars(range(min = 0.0, max = 1.0))]
        identical_rate: f64,
        /// Prompts whose continuations differ.
        diverged: u64,
        /// 10th percentile of the first differing position; null when no prompt diverged.
        #[serde(deserialize_with = "Option::deserialize")]
        #[schemars(with = "NullableNumber")]
        first_divergence_p10: Option<f64>,
        /// Median first differing position; null when no prompt diverged.
        #[serde(deserialize_with = "Option::deserialize")]
        #[schemars(with = "NullableNumber")]
        first_divergence_p50: Option<f64>,
        /// Earliest first differing position; null when no prompt diverged.
        #[serde(deserialize_with = "Option::deserialize")]
        #[schemars(with = "NullableCount")]
        first_divergence_min: Option<u64>,
        /// Tokens side a generated.
        gen_tokens_a: u64,
        /// Tokens side b generated.
        gen_tokens_b: u64,
    }
}

/// Teacher-forced figures of one prompt category.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CategoryStats {
    /// Positions compared.
    pub positions: u64,
    /// Mean KL divergence.
    #[schemars(range(min = 0.0))]
    pub kld_mean: f64,
    /// Top-1 agreement.
    #[schemars(range(min = 0.0, max = 1.0))]
    pub top1_agree: f64,
    /// Mean |Δp|.
    #[schemars(range(min = 0.0, max = 1.0))]
    pub dp_mean_abs: f64,
}

/// One prompt's share of a teacher-forced block.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PromptSum {
    /// The KL divergence summed over the prompt's positions.
    #[schemars(range(min = 0.0))]
    pub kl_sum: f64,
    /// Its positions.
    pub positions: u64,
}

impl Divergence {
    /// The permalink slug: `id` when given, else the slug of the label.
    pub fn slug(&self) -> String {
        permalink(self.id.as_ref(), &self.label)
    }

    /// Whether this comparison measures noise rather than a change.
    pub fn is_floor(&self) -> bool {
        self.dimensions
            .get("kind")
            .is_some_and(|kind| kind == "floor")
    }
}

//! What a sweep's requests ask for beyond a prompt and an answer length: prompts sampled from
//! a dataset, lengths drawn from a range, and prompts that share a prefix by groups. Each is
//! part of the sweep's workload, so sweeps of different shapes never share an axis.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Prompts sampled from a dataset file, with a seed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Dataset {
    /// The file, as given (ShareGPT's JSON or JSON lines of conversations, or JSON lines of
    /// `{"prompt": ...}`).
    pub file: String,
    /// sha256 of its bytes.
    pub sha256: String,
    /// The prompts it held.
    pub prompts: u64,
    /// Seeds which prompt each request takes.
    pub seed: u64,
}

/// Whose convention a length range follows.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema, clap::ValueEnum,
)]
#[serde(rename_all = "snake_case")]
pub enum Convention {
    /// vLLM's `--random-range-ratio r`: uniform in [N(1 − r), N(1 + r)].
    #[default]
    Vllm,
    /// SGLang's (and InferenceX's): uniform in [N·r, N].
    Sglang,
}

/// Prompt words and output tokens drawn per request from a range around the workload's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Lengths {
    /// The range ratio.
    #[schemars(range(min = 0.0, max = 1.0))]
    pub range_ratio: f64,
    /// Whose convention it follows.
    pub convention: Convention,
    /// Seeds the draws.
    pub seed: u64,
}

impl Lengths {
    /// The inclusive range a length `n` is drawn from, at least 1.
    pub fn range(&self, n: u64) -> (u64, u64) {
        let n_f = n as f64;
        let (low, high) = match self.convention {
            Convention::Vllm => (
                (n_f * (1.0 - self.range_ratio)) as u64,
                (n_f * (1.0 + self.range_ratio)) as u64,
            ),
            Convention::Sglang => ((n_f * self.range_ratio) as u64, n),
        };
        (low.max(1), high.max(1))
    }
}

/// Requests that share a prefix by groups, as a prefix cache would serve them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SharedPrefix {
    /// Groups: request n belongs to group n mod groups.
    #[schemars(range(min = 1))]
    pub groups: u64,
    /// Words of each group's prefix, before each request's own prompt.
    #[schemars(range(min = 1))]
    pub words: u64,
}

/// The shape of a sweep's requests beyond their lengths, in words; none for plain generated
/// prompts of one length.
pub fn shape_words(
    dataset: Option<&Dataset>,
    lengths: Option<&Lengths>,
    prefix: Option<&SharedPrefix>,
) -> Option<String> {
    let mut words = Vec::new();
    if let Some(d) = dataset {
        let name = std::path::Path::new(&d.file)
            .file_name()
            .map_or(d.file.clone(), |n| n.to_string_lossy().into_owned());
        words.push(format!("prompts of {name}"));
    }
    if let Some(l) = lengths {
        words.push(match l.convention {
            Convention::Vllm => format!("lengths ±{}% (vLLM's range)", l.range_ratio * 100.0),
            Convention::Sglang => format!("lengths from {}× (SGLang's range)", l.range_ratio),
        });
    }
    if let Some(p) = prefix {
        words.push(format!(
            "{} groups sharing a {}-word prefix",
            p.groups, p.words
        ));
    }
    (!words.is_empty()).then(|| words.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// By hand: 1,000 at ratio 0.2 is 800 to 1,200 in vLLM's convention and 200 to 1,000 in
    /// SGLang's; a range never reaches 0.
    #[test]
    fn each_convention_draws_from_its_own_range() {
        let vllm = Lengths {
            range_ratio: 0.2,
            convention: Convention::Vllm,
            seed: 0,
        };
        assert_eq!(vllm.range(1000), (800, 1200));
        let sglang = Lengths {
            convention: Convention::Sglang,
            ..vllm.clone()
        };
        assert_eq!(sglang.range(1000), (200, 1000));
        assert_eq!(
            Lengths {
                range_ratio: 1.0,
                ..vllm
            }
            .range(10),
            (1, 20)
        );
    }
}

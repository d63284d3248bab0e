//! Each request of a sweep: its prompt (generated words, or a prompt of the dataset, after
//! its group's shared prefix) and the output tokens it asks for, the same every time for the
//! same sweep, level and request number, so a sweep's prompts can be hashed and drawn again.

use std::path::Path;

use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{RngCore, SeedableRng};
use serde_json::Value;

use super::error::CollectError;
use super::prompt::prompt;
use crate::data::{Dataset, Workload};

/// Where shared prefixes' words are seeded from: never a request's own.
const PREFIX_SEEDS: u64 = 800_000;

/// The requests of a sweep's workload.
pub struct Requests<'a> {
    /// The lengths, the range and the shared prefix.
    pub workload: &'a Workload,
    /// The dataset's prompts, when the prompts are sampled from one.
    pub prompts: Option<&'a [String]>,
}

impl Requests<'_> {
    /// Request `n` of level `index` (`seeds` from the warm-up's own): its prompt and the
    /// output tokens it asks for.
    pub fn request(&self, index: usize, n: u64) -> (String, u64) {
        let w = self.workload;
        let number = (index as u64 + 1) * 1_000_000 + n;
        let (words, output) = match &w.lengths {
            Some(lengths) => {
                let draw = |salt: u64, (low, high): (u64, u64)| {
                    low + draw(lengths.seed, number, salt) % (high - low + 1)
                };
                (
                    draw(1, lengths.range(w.prompt_words.unwrap_or(1))),
                    draw(2, lengths.range(w.output_tokens)),
                )
            }
            None => (w.prompt_words.unwrap_or(1), w.output_tokens),
        };
        let own = match (self.prompts, &w.dataset) {
            (Some(prompts), Some(dataset)) if !prompts.is_empty() => {
                let at = draw(dataset.seed, number, 3) % prompts.len() as u64;
                prompts[at as usize].clone()
            }
            _ => prompt(words, number),
        };
        let text = match &w.shared_prefix {
            Some(shared) => format!(
                "{} {own}",
                prompt(shared.words, PREFIX_SEEDS + n % shared.groups)
            ),
            None => own,
        };
        (text, output)
    }
}

/// A number drawn for request `number` with `salt`, from `seed`: the same every time.
fn draw(seed: u64, number: u64, salt: u64) -> u64 {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(number.wrapping_mul(4).wrapping_add(salt));
    rng.next_u64()
}

/// Reads a dataset file's prompts: ShareGPT's JSON (an array of conversations) or JSON
/// lines of conversations, each one's first human turn; or JSON lines of `{"prompt": ...}`.
/// What it is, for the record, with `seed`.
pub fn read_dataset(
    root: &Path,
    file: &str,
    seed: u64,
) -> Result<(Dataset, Vec<String>), CollectError> {
    use sha2::Digest;
    let path = root.join(file);
    let text = std::fs::read_to_string(&path).map_err(|error| {
        CollectError::Usage(format!(
            "--dataset {}: cannot be read: {error}",
            path.display()
        ))
    })?;
    let bad =
        |line: usize, what: &str| CollectError::Usage(format!("{}:{line}: {what}", path.display()));
    let prompts: Vec<String> = if text.trim_start().starts_with('[') {
        let all: Value = serde_json::from_str(&text)
            .map_err(|e| bad(e.line(), &format!("expected ShareGPT's JSON: {e}")))?;
        all.as_array()
            .into_iter()
            .flatten()
            .filter_map(first_human)
            .collect()
    } else {
        let mut prompts = Vec::new();
        for (index, line) in text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
        {
            let value: Value = serde_json::from_str(line)
                .map_err(|e| bad(index + 1, &format!("expected a JSON object: {e}")))?;
            let prompt = value["prompt"]
                .as_str()
                .map(str::to_owned)
                .or_else(|| first_human(&value))
                .ok_or_else(|| {
                    bad(
                        index + 1,
                        "expected {\"prompt\": text} or a conversation with a human turn",
                    )
                })?;
            prompts.push(prompt);
        }
        prompts
    };
    if prompts.is_empty() {
        return Err(bad(
            1,
            "no prompt: expected conversations or {\"prompt\": text} lines",
        ));
    }
    let sha256 = sha2::Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let dataset = Dataset {
        file: file.to_owned(),
        sha256,
        prompts: prompts.len() as u64,
        seed,
    };
    Ok((dataset, prompts))
}

/// A ShareGPT conversation's first human turn, where it has one and an answer after it.
fn first_human(conversation: &Value) -> Option<String> {
    let turns = conversation["conversations"].as_array()?;
    if turns.len() < 2 {
        return None;
    }
    let first = &turns[0];
    (first["from"].as_str() == Some("human"))
        .then(|| first["value"].as_str().map(str::to_owned))
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::{Convention, Lengths, SharedPrefix};

    fn workload() -> Workload {
        serde_json::from_value(serde_json::json!({
            "prompt_words": 100, "output_tokens": 50, "rounds": 1,
            "ignore_eos": true, "thinking": false
        }))
        .unwrap()
    }

    #[test]
    fn drawn_lengths_stay_in_their_range_and_are_drawn_again_alike() {
        let mut w = workload();
        w.lengths = Some(Lengths {
            range_ratio: 0.5,
            convention: Convention::Vllm,
            seed: 3,
        });
        let requests = Requests {
            workload: &w,
            prompts: None,
        };
        let drawn: Vec<(usize, u64)> = (0..200)
            .map(|n| {
                let (text, output) = requests.request(0, n);
                (text.split_whitespace().count(), output)
            })
            .collect();
        // vLLM's range: 50 to 150 words, 25 to 75 tokens; spread over it.
        assert!(
            drawn
                .iter()
                .all(|(w, o)| (50..=150).contains(w) && (25..=75).contains(o))
        );
        assert!(drawn.iter().any(|(w, _)| *w < 70) && drawn.iter().any(|(w, _)| *w > 130));
        assert_eq!(requests.request(0, 7), requests.request(0, 7));
    }

    #[test]
    fn groups_share_their_prefix_and_nothing_else() {
        let mut w = workload();
        w.prompt_words = Some(5);
        w.shared_prefix = Some(SharedPrefix {
            groups: 2,
            words: 8,
        });
        let requests = Requests {
            workload: &w,
            prompts: None,
        };
        let words = |n: u64| -> Vec<String> {
            requests
                .request(0, n)
                .0
                .split_whitespace()
                .map(str::to_owned)
                .collect()
        };
        // Requests 0 and 2 are group 0, 1 is group 1: the first 8 words, by hand.
        assert_eq!(words(0)[..8], words(2)[..8]);
        assert_ne!(words(0)[..8], words(1)[..8]);
        assert_ne!(words(0)[8..], words(2)[8..]);
    }

    #[test]
    fn a_dataset_is_sampled_and_a_bad_line_named() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("share.json"),
            r#"[{"conversations": [{"from": "human", "value": "Hello there"}, {"from": "gpt", "value": "Hi"}]},
               {"conversations": [{"from": "human", "value": "one turn only"}]},
               {"conversations": [{"from": "human", "value": "Write a poem"}, {"from": "gpt", "value": "..."}]}]"#,
        )
        .unwrap();
        let (dataset, prompts) = read_dataset(dir.path(), "share.json", 9).unwrap();
        assert_eq!(prompts, ["Hello there", "Write a poem"]);
        assert_eq!((dataset.prompts, dataset.seed), (2, 9));
        let mut w = workload();
        w.dataset = Some(dataset);
        let requests = Requests {
            workload: &w,
            prompts: Some(&prompts),
        };
        let sampled: std::collections::BTreeSet<String> =
            (0..50).map(|n| requests.request(0, n).0).collect();
        assert_eq!(sampled.len(), 2, "both prompts are drawn: {sampled:?}");
        std::fs::write(
            dir.path().join("own.jsonl"),
            "{\"prompt\": \"a\"}\n{\"text\": \"b\"}\n",
        )
        .unwrap();
        let error = read_dataset(dir.path(), "own.jsonl", 0)
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("own.jsonl:2: expected {\"prompt\": text}"),
            "{error}"
        );
    }
}

//! The quality prompt set, `data/prompts.jsonl`: one `{id, category, messages}` a line.

use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

/// One prompt of the prompt set (`data/prompts.jsonl`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PromptEntry {
    /// Unique id.
    pub id: String,
    /// Its category.
    pub category: String,
    /// The chat messages.
    pub messages: Vec<Value>,
}

/// A prompt set and the hash that identifies it.
#[derive(Debug, Clone)]
pub struct PromptSet {
    /// Its path, as given.
    pub path: String,
    /// The prompts, in file order.
    pub prompts: Vec<PromptEntry>,
    /// sha256 of the file.
    pub sha256: String,
}

/// Reads the prompt set at `path` (relative to `root`); errors name the file and line.
pub fn load(root: &Path, path: &str) -> Result<PromptSet, String> {
    let file = root.join(path);
    let bytes = std::fs::read(&file).map_err(|e| format!("{}: {e}", file.display()))?;
    let text = String::from_utf8_lossy(&bytes);
    let mut prompts: Vec<PromptEntry> = Vec::new();
    for (index, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let entry: PromptEntry = serde_json::from_str(line).map_err(|e| {
            format!(
                "{}:{}: expected {{\"id\", \"category\", \"messages\"}}: {e}",
                file.display(),
                index + 1
            )
        })?;
        if prompts.iter().any(|p| p.id == entry.id) {
            return Err(format!(
                "{}:{}: the id {:?} is used twice",
                file.display(),
                index + 1,
                entry.id
            ));
        }
        prompts.push(entry);
    }
    if prompts.is_empty() {
        return Err(format!("{}: no prompts", file.display()));
    }
    Ok(PromptSet {
        path: path.to_owned(),
        prompts,
        sha256: Sha256::digest(&bytes)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect(),
    })
}

//! The server a measurement talks to: where it is, connecting to it (the model list, then
//! which server it is), the fields it refused, whether it serves what a profile names, and how
//! answers without a usage report were counted.

use std::time::Duration;

use serde_json::Value;

use super::client::{Client, Endpoint};
use super::error::CollectError;
use super::progress::Progress;
use super::server::{self, Server};
use super::stream::{RequestError, Timing, Usage};

/// Where the server is and how to talk to it.
#[derive(Debug, Clone)]
pub struct ServerOptions {
    /// `http://127.0.0.1:8000`.
    pub base_url: String,
    /// The model to ask for (default: the first the server lists).
    pub model: Option<String>,
    /// Sent as a bearer token.
    pub api_key: Option<String>,
    /// How long one request may take.
    pub timeout: Duration,
    /// A PEM file of the certificate authorities an `https://` server's certificate may be
    /// signed by, beside the system's.
    pub ca_cert: Option<std::path::PathBuf>,
}

/// The server and model a measurement talks to, and the fields the server refused.
pub(crate) struct Target {
    pub client: Client,
    pub model: String,
    /// The checkpoint the model was loaded from, where the server says (vLLM's `root`).
    pub root: Option<String>,
    pub max_model_len: Option<u64>,
    pub server: Server,
    /// Optional fields the server refused, each with its refusal; left out from then on.
    pub refused: Vec<(String, String)>,
}

impl Target {
    /// The server's vLLM version, when it is vLLM.
    pub fn vllm_version(&self) -> Option<String> {
        self.server.vllm_version()
    }

    /// `body` without the fields the server refused.
    pub fn accepted(&self, mut body: Value) -> Value {
        if let Some(fields) = body.as_object_mut() {
            for (field, _) in &self.refused {
                fields.remove(field);
            }
        }
        body
    }

    /// Takes note of a refusal that names one optional field of `body`, saying so in one
    /// line; whether there was one (the request is then worth sending again without it).
    pub fn refuse(&mut self, body: &Value, error: &RequestError, progress: &Progress) -> bool {
        let RequestError::Status {
            status,
            body: message,
        } = error
        else {
            return false;
        };
        let Some(field) = server::rejected_field(body, message) else {
            return false;
        };
        progress.line(&format!(
            "the server refused the field {field} (HTTP {status}: {message}); sending without it"
        ));
        self.refused
            .push((field, format!("HTTP {status}: {message}")));
        true
    }

    /// Streams `body` (less the refused fields); a refusal naming an optional field drops it
    /// and sends again.
    pub async fn stream(
        &mut self,
        endpoint: Endpoint,
        body: &Value,
        progress: &Progress,
    ) -> Result<Timing, RequestError> {
        loop {
            let body = self.accepted(body.clone());
            match self.client.stream(endpoint, &body).await {
                Err(error) if self.refuse(&body, &error, progress) => continue,
                other => return other,
            }
        }
    }

    /// Refuses a quality measurement (`what`) on a server known to lack what it needs:
    /// chat-templated token ids from `/tokenize` and teacher-forced `prompt_logprobs`.
    pub fn require_scoring(&self, what: &str) -> Result<(), CollectError> {
        let Some(lacks) = self.server.kind.known().cannot_score else {
            return Ok(());
        };
        Err(CollectError::Usage(format!(
            "{what} scores each continuation teacher-forced, with vLLM's prompt_logprobs on the chat template's token ids; {} cannot: {lacks}",
            self.server.describe()
        )))
    }

    /// Counts the output tokens of an answer that came without a usage report, asked for
    /// at most `max_tokens`, by what was generated: its per-token logprobs where the server
    /// sent them; `max_tokens` when it stopped there (`finish_reason` `length`); one per
    /// chunk where the server streams a token per chunk. Re-tokenizing its text with the
    /// server's tokenizer is the last resort, and approximate: the text of the generated
    /// tokens need not tokenize back to them. How it counted, when it had to.
    pub async fn count_tokens(&self, timing: &mut Timing, max_tokens: u64) -> Option<Counted> {
        if timing.output_tokens().is_some() {
            return None;
        }
        let (tokens, counted) = if timing.logprob_tokens > 0 {
            (timing.logprob_tokens, Counted::Logprobs)
        } else if timing.finish_reason.as_deref() == Some("length") {
            (max_tokens, Counted::MaxTokens)
        } else if self.server.streams_token_per_chunk() {
            (timing.text_chunks, Counted::Chunks)
        } else {
            let (tokens, path) = self.client.count_tokens(&self.model, &timing.text).await?;
            (tokens, Counted::Tokenizer(path))
        };
        timing.usage = Some(Usage {
            prompt_tokens: None,
            completion_tokens: Some(tokens),
            prompt_tokens_details: None,
        });
        Some(counted)
    }

    /// The warning, when the server gives no vLLM version.
    pub fn version_gap(&self) -> Option<String> {
        self.vllm_version().is_none().then(|| {
            format!(
                "the server has no /version (it is {}); vllm_version is left out",
                self.server.describe()
            )
        })
    }

    /// What the record should say of the server: the fields it refused.
    pub fn notes(&self) -> Vec<String> {
        self.refused
            .iter()
            .map(|(field, refusal)| {
                format!("The server refused {field} ({refusal}); requests were sent without it.")
            })
            .collect()
    }
}

/// How the output tokens of an answer without a usage report were counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Counted {
    /// Its per-token log-probability entries.
    Logprobs,
    /// `max_tokens`, where it stopped there.
    MaxTokens,
    /// One per streamed chunk, from a server that streams a token per chunk.
    Chunks,
    /// Its text re-tokenized by the server's tokenizer at this path: approximate.
    Tokenizer(&'static str),
}

/// What a record says of how its output tokens were counted: one sentence for all the ways
/// its answers were.
pub(crate) fn counted_note(ways: &[Counted]) -> String {
    let mut ways = ways.to_vec();
    ways.sort();
    ways.dedup();
    let said: Vec<String> = ways
        .iter()
        .map(|way| match way {
            Counted::Logprobs => "from its per-token logprobs".to_owned(),
            Counted::MaxTokens => "as max_tokens where an answer stopped there (finish_reason length)".to_owned(),
            Counted::Chunks => "one per streamed chunk, as the server streams a token per chunk".to_owned(),
            Counted::Tokenizer(path) => format!(
                "approximately, by re-tokenizing the answer's text with its {path} (the text of the generated tokens need not tokenize back to them)"
            ),
        })
        .collect();
    format!(
        "The server sent no usage report; output tokens were counted {}.",
        said.join(", and ")
    )
}

/// A clause as a sentence: capitalised, with a full stop.
pub(crate) fn sentence(clause: &str) -> String {
    let mut chars = clause.chars();
    let first = chars.next().map(|c| c.to_uppercase().to_string());
    format!("{}{}.", first.unwrap_or_default(), chars.as_str())
}

/// Connects: the model list (the model asked for must be served), then which server it is.
pub(crate) async fn connect(server: &ServerOptions) -> Result<Target, CollectError> {
    let client = Client::new(
        &server.base_url,
        server.api_key.as_deref(),
        server.timeout,
        server.ca_cert.as_deref(),
    )?;
    let models = client.models().await?;
    let model = match &server.model {
        Some(name) => models.iter().find(|m| &m.id == name).ok_or_else(|| {
            CollectError::Usage(format!(
                "--model {name}: the server serves {}",
                models
                    .iter()
                    .map(|m| m.id.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        })?,
        None => models.first().ok_or_else(|| {
            CollectError::Server(format!("{}/v1/models lists no model", client.base_url()))
        })?,
    }
    .clone();
    let server = client.identify(&model).await;
    Ok(Target {
        client,
        model: model.id,
        root: model.root,
        max_model_len: model.max_model_len,
        server,
        refused: Vec::new(),
    })
}

/// Whether the server serves what the profile names: one of the names it gives (the model's
/// id, the checkpoint it was loaded from) is one the profile gives (`MODEL`,
/// `SERVED_MODEL_NAME`), compared by their last path segment, case aside, `.gguf` aside. The
/// mismatch in words, when they differ.
pub(crate) fn serves(target: &Target, profile: &str, names: &[&str]) -> Result<(), String> {
    let plain = |name: &str| {
        let last = name
            .trim_end_matches('/')
            .rsplit('/')
            .next()
            .unwrap_or(name);
        let last = last.to_lowercase();
        last.strip_suffix(".gguf").unwrap_or(&last).to_owned()
    };
    let given: Vec<&str> = std::iter::once(target.model.as_str())
        .chain(target.root.as_deref())
        .collect();
    if given
        .iter()
        .any(|served| names.iter().any(|name| plain(served) == plain(name)))
    {
        return Ok(());
    }
    let root = match &target.root {
        Some(root) if *root != target.model => format!(" (loaded from {root})"),
        _ => String::new(),
    };
    Err(format!(
        "the server serves {}{root}, but profile {profile} is {}",
        target.model,
        names.join(", served as ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target(model: &str, root: Option<&str>) -> Target {
        Target {
            client: Client::new("http://127.0.0.1:9", None, Duration::from_secs(1), None).unwrap(),
            model: model.into(),
            root: root.map(str::to_owned),
            max_model_len: None,
            server: Server::vllm(None),
            refused: Vec::new(),
        }
    }

    #[test]
    fn a_server_serves_a_profile_that_names_its_model_or_checkpoint() {
        let names = ["nvidia/Qwen3.6-35B-A3B-NVFP4", "qwen36"];
        // By its served name, by the checkpoint it was loaded from (a local path), or by the
        // checkpoint's last segment.
        assert!(serves(&target("qwen36", None), "q", &names).is_ok());
        assert!(
            serves(
                &target("x", Some("/models/Qwen3.6-35B-A3B-NVFP4/")),
                "q",
                &names
            )
            .is_ok()
        );
        assert!(serves(&target("qwen3.6-35b-a3b-nvfp4", None), "q", &names).is_ok());
        assert!(serves(&target("tiny", None), "t", &["models/TINY.gguf"]).is_ok());
        assert_eq!(
            serves(&target("tiny-llama-base", Some("/m/tiny")), "q", &names),
            Err("the server serves tiny-llama-base (loaded from /m/tiny), but profile q is nvidia/Qwen3.6-35B-A3B-NVFP4, served as qwen36".into())
        );
    }
}

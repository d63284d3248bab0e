//! Which OpenAI-compatible server is answering, and how to ask it for greedy decoding in its
//! own terms.
//!
//! vLLM is known by `/version`, llama.cpp's `llama-server` by `/props` (its `build_info`),
//! SGLang by `/server_info` (`/get_server_info` before 0.5), llama-cpp-python by its OpenAPI
//! title, anything else by `/v1/models`' `owned_by`. Greedy is
//! temperature 0 with top-k and top-p disabled everywhere; what differs is the spelling: vLLM
//! disables top-k with -1, llama.cpp with 0, and only the fields a server is known to read are
//! sent. A field a server still refuses is dropped and retried without ([`rejected_field`]).

use serde_json::{Value, json};

use super::stream::RequestError;
use crate::profiles::Engine;

/// The kinds of server benchsite tells apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// vLLM's OpenAI server.
    Vllm,
    /// llama.cpp's `llama-server`.
    LlamaServer,
    /// SGLang's HTTP server.
    Sglang,
    /// llama-cpp-python's `llama_cpp.server`.
    LlamaCppPython,
    /// Another OpenAI-compatible server: only the OpenAI fields are sent.
    Other,
}

/// What benchsite knows of one kind of server, beside how it is recognised
/// ([`Server::identify`]): one entry of [`KNOWN`] per [`Kind`]. A new kind is a variant, an
/// entry here, its recognition, and its test.
#[derive(Debug)]
pub struct Known {
    /// The kind.
    pub kind: Kind,
    /// Its name for readers (a server of kind `Other` is named by its `owned_by`).
    pub name: &'static str,
    /// The engine a profile names for it, where a profile can start it.
    pub engine: Option<Engine>,
    /// Its greedy sampling fields, in its own spelling (the model is added).
    greedy: fn() -> Value,
    /// Whether it reads `chat_template_kwargs` (thinking on or off).
    pub thinking: bool,
    /// Whether it reads `ignore_eos`.
    pub ignore_eos: bool,
    /// Whether it streams exactly one generated token per chunk.
    pub token_per_chunk: bool,
    /// Why it cannot score a quality measurement (chat-templated token ids from `/tokenize`
    /// and teacher-forced `prompt_logprobs`), when it cannot.
    pub cannot_score: Option<&'static str>,
    /// What it does to answers at concurrency above 1 that cuts them short, when it does.
    pub cuts_under_load: Option<&'static str>,
}

/// Every kind of server benchsite knows, one entry each.
pub static KNOWN: [Known; 5] = [
    Known {
        kind: Kind::Vllm,
        name: Engine::Vllm.name(),
        engine: Some(Engine::Vllm),
        // vLLM disables top-k with -1.
        greedy: || json!({"temperature": 0.0, "top_p": 1.0, "top_k": -1, "min_p": 0.0, "repetition_penalty": 1.0, "seed": 0}),
        thinking: true,
        ignore_eos: true,
        // Its chunks carry several tokens under speculative decoding.
        token_per_chunk: false,
        cannot_score: None,
        cuts_under_load: None,
    },
    Known {
        kind: Kind::LlamaServer,
        name: Engine::LlamaServer.name(),
        engine: Some(Engine::LlamaServer),
        // llama.cpp disables top-k with 0 and spells the penalty repeat_penalty.
        greedy: || json!({"temperature": 0.0, "top_p": 1.0, "top_k": 0, "min_p": 0.0, "repeat_penalty": 1.0, "seed": 0}),
        thinking: true,
        ignore_eos: true,
        token_per_chunk: true,
        cannot_score: Some(
            "its /tokenize takes no chat messages and its completions have no prompt_logprobs",
        ),
        cuts_under_load: None,
    },
    Known {
        kind: Kind::Sglang,
        name: Engine::Sglang.name(),
        engine: Some(Engine::Sglang),
        // SGLang disables top-k with -1 (sampling_params.py); it reads the seed only under
        // deterministic inference.
        greedy: || json!({"temperature": 0.0, "top_p": 1.0, "top_k": -1, "min_p": 0.0, "repetition_penalty": 1.0, "seed": 0}),
        thinking: true,
        ignore_eos: true,
        // Its chunks carry several tokens under speculative decoding.
        token_per_chunk: false,
        cannot_score: Some(
            "its OpenAI completions have no prompt_logprobs (input logprobs come only from its native /generate)",
        ),
        cuts_under_load: None,
    },
    Known {
        kind: Kind::LlamaCppPython,
        name: "llama-cpp-python",
        engine: None,
        greedy: || json!({"temperature": 0.0, "top_p": 1.0, "top_k": 0, "min_p": 0.0, "repeat_penalty": 1.0, "seed": 0}),
        thinking: false,
        ignore_eos: false,
        token_per_chunk: true,
        cannot_score: Some(
            "it has no /tokenize for chat messages, and its completions give logprobs of the generated tokens only, never prompt_logprobs",
        ),
        cuts_under_load: Some(
            "llama-cpp-python cancels a running request when the next one arrives unless it is started with --interrupt_requests False; its answers at concurrency above 1 need that.",
        ),
    },
    Known {
        kind: Kind::Other,
        name: "an OpenAI-compatible server",
        engine: None,
        // Only the OpenAI fields.
        greedy: || json!({"temperature": 0.0, "top_p": 1.0, "seed": 0}),
        thinking: false,
        ignore_eos: false,
        token_per_chunk: false,
        cannot_score: None,
        cuts_under_load: None,
    },
];

impl Kind {
    /// What benchsite knows of this kind.
    pub fn known(self) -> &'static Known {
        KNOWN
            .iter()
            .find(|known| known.kind == self)
            .expect("every kind has its entry")
    }
}

/// The server a measurement talks to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Server {
    /// What it is.
    pub kind: Kind,
    /// Its version or build, when it says.
    pub version: Option<String>,
    /// `owned_by` of the model, for a server benchsite does not know.
    pub owned_by: Option<String>,
}

impl Server {
    /// A vLLM server of `version`.
    pub fn vllm(version: Option<String>) -> Self {
        Self {
            kind: Kind::Vllm,
            version,
            owned_by: None,
        }
    }

    /// The server from what its endpoints answered: `/version`'s version, `/props`'
    /// `build_info`, SGLang's `/server_info`, `/openapi.json`'s title and version, and the
    /// model's `owned_by`.
    pub fn identify(
        version: Option<String>,
        props: Option<&Value>,
        server_info: Option<&Value>,
        openapi: Option<&Value>,
        owned_by: Option<&str>,
    ) -> Self {
        let text = |value: &Value| value.as_str().map(str::to_owned);
        let (kind, version) = if let Some(version) = version {
            (Kind::Vllm, Some(version))
        } else if let Some(props) = props.filter(|p| p.get("build_info").is_some()) {
            (Kind::LlamaServer, text(&props["build_info"]))
        } else if let Some(info) = server_info.filter(|info| info["version"].is_string()) {
            (Kind::Sglang, text(&info["version"]))
        } else if let Some(api) = openapi.filter(|api| {
            api["info"]["title"]
                .as_str()
                .is_some_and(|title| title.contains("llama.cpp Python"))
        }) {
            (Kind::LlamaCppPython, text(&api["info"]["version"]))
        } else {
            match owned_by {
                Some("vllm") => (Kind::Vllm, None),
                Some("llamacpp") => (Kind::LlamaServer, None),
                Some("sglang") => (Kind::Sglang, None),
                _ => (Kind::Other, None),
            }
        };
        Self {
            kind,
            version,
            owned_by: owned_by.map(str::to_owned),
        }
    }

    /// The server as a record and the terminal name it: `vLLM 0.11.0`, `llama-server b6500`.
    pub fn describe(&self) -> String {
        let name = match (self.kind, &self.owned_by) {
            (Kind::Other, Some(owner)) => owner.as_str(),
            (kind, _) => kind.known().name,
        };
        match &self.version {
            Some(version) => format!("{name} {version}"),
            None => name.to_owned(),
        }
    }

    /// The engine a profile would name for this server, where it is one.
    pub fn engine(&self) -> Option<Engine> {
        self.kind.known().engine
    }

    /// The vLLM version, when the server is vLLM and says it.
    pub fn vllm_version(&self) -> Option<String> {
        (self.kind == Kind::Vllm)
            .then(|| self.version.clone())
            .flatten()
    }

    /// A greedy request for `model` with every sampling field this server reads set
    /// explicitly: left out, a server applies its own or the model's defaults (llama.cpp's top-k
    /// is 40). `fields` (an object) are added on top.
    pub fn greedy(&self, model: &str, fields: Value) -> Value {
        let mut body = (self.kind.known().greedy)();
        if let Some(object) = body.as_object_mut() {
            object.insert("model".into(), json!(model));
            if let Value::Object(fields) = fields {
                object.extend(fields);
            }
        }
        body
    }

    /// A greedy chat request of one user message, streamed with usage reporting, the chat
    /// template's thinking on or off where the server takes template arguments. No logprobs:
    /// on older vLLM they turn speculative decoding off.
    pub fn chat_stream(&self, model: &str, prompt: &str, max_tokens: u64, thinking: bool) -> Value {
        let messages = [json!({"role": "user", "content": prompt})];
        self.chat_stream_of(model, &messages, max_tokens, thinking)
    }

    /// [`Server::chat_stream`] of a conversation's messages.
    pub fn chat_stream_of(
        &self,
        model: &str,
        messages: &[Value],
        max_tokens: u64,
        thinking: bool,
    ) -> Value {
        let mut body = self.greedy(
            model,
            json!({
                "messages": messages,
                "max_tokens": max_tokens,
                "stream": true,
                "stream_options": {"include_usage": true},
            }),
        );
        if self.kind.known().thinking {
            body["chat_template_kwargs"] = json!({"enable_thinking": thinking});
        }
        body
    }

    /// What this server is known to do that explains answers cut short at `concurrency`, if
    /// anything (llama-cpp-python cancels a running request when the next one arrives).
    pub fn hint(&self, concurrency: u64, errors: &[RequestError]) -> Option<&'static str> {
        let cut = |e: &RequestError| matches!(e, RequestError::NoToken | RequestError::Cut);
        let known = self.kind.known().cuts_under_load?;
        (concurrency > 1 && errors.iter().any(cut)).then_some(known)
    }

    /// Whether the server streams exactly one generated token per chunk.
    pub fn streams_token_per_chunk(&self) -> bool {
        self.kind.known().token_per_chunk
    }

    /// Whether the server reads `ignore_eos`.
    pub fn reads_ignore_eos(&self) -> bool {
        self.kind.known().ignore_eos
    }
}

/// The fields of a request that can be left out without changing what is measured.
const REQUIRED: [&str; 6] = [
    "model",
    "messages",
    "prompt",
    "max_tokens",
    "stream",
    "temperature",
];

/// The optional field of `body` a server's refusal names, if it names exactly one.
pub fn rejected_field(body: &Value, message: &str) -> Option<String> {
    let fields = body.as_object()?;
    let mut named = fields
        .keys()
        .filter(|key| !REQUIRED.contains(&key.as_str()))
        .filter(|key| names(message, key));
    let field = named.next()?;
    named.next().is_none().then(|| field.clone())
}

/// Whether `message` names `field` as a word (`top_k`, not `top_k_extra`).
fn names(message: &str, field: &str) -> bool {
    message.match_indices(field).any(|(at, _)| {
        let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
        let before = message[..at].chars().next_back().is_none_or(|c| !word(c));
        let after = message[at + field.len()..]
            .chars()
            .next()
            .is_none_or(|c| !word(c));
        before && after
    })
}

/// A server's error body in one line: its `error.message`, `message` or FastAPI's `detail`
/// (each validation problem as `field: message`), else the text itself; its first paragraph
/// (a traceback often follows), at most 200 characters.
pub fn message(body: &str) -> String {
    let text = match serde_json::from_str::<Value>(body) {
        Ok(value) => from_json(&value).unwrap_or_else(|| body.to_owned()),
        Err(_) => body.to_owned(),
    };
    let paragraph = text.trim().split("\n\n").next().unwrap_or_default();
    let line = paragraph.split_whitespace().collect::<Vec<_>>().join(" ");
    match line.char_indices().nth(200) {
        Some((at, _)) => format!("{}…", &line[..at]),
        None => line,
    }
}

fn from_json(value: &Value) -> Option<String> {
    if let Some(text) = value["error"]["message"]
        .as_str()
        .or(value["error"].as_str())
        .or(value["message"].as_str())
        .or(value["detail"].as_str())
    {
        return Some(text.to_owned());
    }
    let problems = value["detail"].as_array()?;
    let lines: Vec<String> = problems
        .iter()
        .map(|problem| {
            let place: Vec<String> = problem["loc"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|part| part.as_str() != Some("body"))
                .map(|part| match part {
                    Value::String(text) => text.clone(),
                    other => other.to_string(),
                })
                .collect();
            let msg = problem["msg"].as_str().unwrap_or("invalid");
            match place.is_empty() {
                true => msg.to_owned(),
                false => format!("{}: {msg}", place.join(".")),
            }
        })
        .collect();
    (!lines.is_empty()).then(|| lines.join("; "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_server_is_told_apart_by_what_it_answers() {
        let props = json!({"build_info": "b6500-1a2b3c", "total_slots": 1});
        let api = json!({"info": {"title": "🦙 llama.cpp Python API", "version": "0.3.36"}});
        // SGLang's /server_info: the server's arguments, then "version" (http_server.py).
        let info = json!({"tp_size": 1, "version": "0.5.23", "frontend": "python"});
        let cases = [
            (
                Server::identify(Some("0.11.0".into()), None, None, None, Some("vllm")),
                "vLLM 0.11.0",
            ),
            (
                Server::identify(None, Some(&props), None, None, Some("llamacpp")),
                "llama.cpp llama-server b6500-1a2b3c",
            ),
            (
                Server::identify(None, None, Some(&info), None, Some("sglang")),
                "SGLang 0.5.23",
            ),
            (
                Server::identify(None, None, None, Some(&api), Some("me")),
                "llama-cpp-python 0.3.36",
            ),
            (
                Server::identify(
                    None,
                    None,
                    None,
                    Some(&json!({"info": {"title": "X"}})),
                    Some("acme"),
                ),
                "acme",
            ),
            (
                Server::identify(None, None, None, None, None),
                "an OpenAI-compatible server",
            ),
        ];
        for (server, described) in cases {
            assert_eq!(server.describe(), described);
        }
        let by_owner = |owner| Server::identify(None, None, None, None, Some(owner));
        assert_eq!(by_owner("vllm").engine(), Some(Engine::Vllm));
        assert_eq!(by_owner("llamacpp").engine(), Some(Engine::LlamaServer));
        assert_eq!(by_owner("sglang").engine(), Some(Engine::Sglang));
        assert_eq!(by_owner("acme").engine(), None);
    }

    #[test]
    fn every_kind_has_one_entry() {
        let kinds = [
            Kind::Vllm,
            Kind::LlamaServer,
            Kind::Sglang,
            Kind::LlamaCppPython,
            Kind::Other,
        ];
        for kind in kinds {
            // A new variant fails to compile here until it is listed above.
            match kind {
                Kind::Vllm
                | Kind::LlamaServer
                | Kind::Sglang
                | Kind::LlamaCppPython
                | Kind::Other => {}
            }
            assert_eq!(kind.known().kind, kind);
            assert_eq!(
                KNOWN.iter().filter(|k| k.kind == kind).count(),
                1,
                "{kind:?}"
            );
        }
        assert_eq!(KNOWN.len(), kinds.len());
    }

    #[test]
    fn greedy_in_each_servers_terms() {
        let llama = Server::identify(None, None, None, None, Some("llamacpp"));
        let body = llama.chat_stream("m", "hi", 8, false);
        assert_eq!(body["top_k"], 0);
        assert_eq!(body["repeat_penalty"], 1.0);
        assert!(body.get("repetition_penalty").is_none());
        assert_eq!(body["chat_template_kwargs"]["enable_thinking"], false);
        let vllm = Server::vllm(None).greedy("m", json!({}));
        assert_eq!(vllm["top_k"], -1);
        let sglang =
            Server::identify(None, None, None, None, Some("sglang")).greedy("m", json!({}));
        assert_eq!(
            (&sglang["top_k"], &sglang["repetition_penalty"]),
            (&json!(-1), &json!(1.0))
        );
        let other = Server::identify(None, None, None, None, None).chat_stream("m", "hi", 8, true);
        let mut keys: Vec<&String> = other.as_object().unwrap().keys().collect();
        keys.sort();
        assert_eq!(
            keys,
            [
                "max_tokens",
                "messages",
                "model",
                "seed",
                "stream",
                "stream_options",
                "temperature",
                "top_p"
            ]
        );
    }

    #[test]
    fn a_refusal_names_its_field_and_the_message_is_one_line() {
        let body = Server::vllm(None).greedy("m", json!({"max_tokens": 4}));
        let fastapi = r#"{"detail":[{"type":"greater_than_equal","loc":["body","top_k"],"msg":"Input should be greater than or equal to 0","input":-1}]}"#;
        assert_eq!(
            message(fastapi),
            "top_k: Input should be greater than or equal to 0"
        );
        assert_eq!(
            rejected_field(&body, &message(fastapi)).as_deref(),
            Some("top_k")
        );
        // A required field, or two fields at once, is not dropped.
        assert_eq!(rejected_field(&body, "max_tokens: too large"), None);
        assert_eq!(rejected_field(&body, "top_k and min_p clash"), None);
        assert_eq!(rejected_field(&body, "top_kk is unknown"), None);
        assert_eq!(
            message(r#"{"error":{"message":"boom\n  at line 2","code":500}}"#),
            "boom at line 2"
        );
        assert_eq!(message("plain\ntext"), "plain text");
        // llama-cpp-python's answer to top_k -1: the validation error, not the traceback.
        let llama = r#"{"error":{"message":"1 validation error:\n  {'type': 'greater_than_equal', 'loc': ('body', 'top_k'), 'msg': 'Input should be greater than or equal to 0', 'input': -1, 'ctx': {'ge': 0}}\n\n  File \"app.py\", line 376, in create_chat_completion","type":"internal_server_error"}}"#;
        assert_eq!(
            message(llama),
            "1 validation error: {'type': 'greater_than_equal', 'loc': ('body', 'top_k'), 'msg': 'Input should be greater than or equal to 0', 'input': -1, 'ctx': {'ge': 0}}"
        );
        assert_eq!(
            rejected_field(&body, &message(llama)).as_deref(),
            Some("top_k")
        );
        assert_eq!(message(&"x".repeat(300)).chars().count(), 201);
    }
}

//! `collect capture`: for every prompt of the prompt set, the chat-templated prompt token ids,
//! the server's greedy generation with its top-k logprobs at each position, and the
//! teacher-forced scoring of the reference continuation through vLLM's `prompt_logprobs`.
//! Stored as `data/captures/<id>.jsonl.gz`: a header line, then one prompt a line. While it
//! runs, finished prompts go to `<id>.jsonl.partial`, so an interrupted capture resumes.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

use futures_util::StreamExt;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::error::CollectError;
use super::launch::{self, LaunchOptions};
use super::progress::Progress;
use super::runtime::interrupted;
use super::target::{ServerOptions, Target, connect};
use crate::data::CaptureSettings;
use crate::data::prompts::{self, PromptEntry, PromptSet};
use crate::profiles::Effective;
use crate::project::Layout;

/// Reads a prompt set for collection.
pub fn prompt_set(root: &Path, path: &str) -> Result<PromptSet, CollectError> {
    prompts::load(root, path).map_err(CollectError::Usage)
}

/// The first line of a capture.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Header {
    /// The capture's id.
    pub capture: String,
    /// The server it came from.
    pub server: String,
    /// The model.
    pub model: String,
    /// vLLM's version, when the server said.
    pub vllm_version: Option<String>,
    /// How it was captured.
    pub settings: CaptureSettings,
    /// The capture whose generations were scored; `None` for a root capture (its own).
    pub reference: Option<String>,
    /// The prompt set's path.
    pub prompt_set: String,
    /// The prompt set's sha256.
    pub prompt_set_sha256: String,
    /// The profile the server ran, where the capture was told (`--profile`) or launched it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<String>,
    /// What the server was started with, `KEY=VALUE` in the profile's order: two captures of
    /// the same make a noise floor.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub started_with: Vec<String>,
}

impl Header {
    /// Whether `other` was captured from a server started the same way as this one's: the
    /// same profile with the same settings, both known.
    pub fn same_configuration(&self, other: &Header) -> bool {
        self.profile.is_some()
            && self.profile == other.profile
            && self.started_with == other.started_with
    }

    /// The root capture whose continuations this one scored.
    pub fn root(&self) -> &str {
        self.reference.as_deref().unwrap_or(&self.capture)
    }
}

/// A sequence of positions with each position's top-k and the chosen token's logprob.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Scored {
    /// The token at each position.
    pub tokens: Vec<u32>,
    /// The logprob of that token (servers compute logprobs in float32; stored as such, which
    /// keeps the file short and quick to read).
    pub logprobs: Vec<f32>,
    /// The top-k (token, logprob) at each position.
    pub top: Vec<Vec<(u32, f32)>>,
}

/// One prompt of a capture.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Captured {
    /// The prompt's id.
    pub id: String,
    /// Its category.
    pub category: String,
    /// The chat-templated prompt token ids.
    pub prompt_ids: Vec<u32>,
    /// The greedy generation.
    pub generated: Scored,
    /// The reference continuation scored teacher-forced.
    pub scored: Scored,
}

/// A whole capture.
#[derive(Debug, Clone, PartialEq)]
pub struct Capture {
    /// Its header.
    pub header: Header,
    /// Its prompts, in prompt-set order.
    pub prompts: Vec<Captured>,
}

/// Where a capture lives.
pub fn capture_path(layout: &Layout, id: &str) -> PathBuf {
    layout
        .root
        .join("data/captures")
        .join(format!("{id}.jsonl.gz"))
}

fn partial_path(layout: &Layout, id: &str) -> PathBuf {
    layout
        .root
        .join("data/captures")
        .join(format!("{id}.jsonl.partial"))
}

/// Reads `data/captures/<id>.jsonl.gz`.
pub fn load(layout: &Layout, id: &str) -> Result<Capture, CollectError> {
    let path = capture_path(layout, id);
    let file = std::fs::File::open(&path)
        .map_err(|e| CollectError::Usage(format!("capture {id}: {}: {e}", path.display())))?;
    let reader = BufReader::new(flate2::read::MultiGzDecoder::new(file));
    let mut lines = reader.lines();
    let bad = |line: usize, e: &dyn std::fmt::Display| {
        CollectError::Usage(format!("{}:{line}: {e}", path.display()))
    };
    let header: Header = match lines.next() {
        Some(Ok(text)) => serde_json::from_str(&text).map_err(|e| bad(1, &e))?,
        Some(Err(e)) => return Err(bad(1, &e)),
        None => return Err(bad(1, &"empty capture")),
    };
    let lines: Vec<String> = lines.collect::<Result<_, _>>().map_err(|e| bad(0, &e))?;
    // Lines parse independently: on every core.
    let prompts = lines
        .par_iter()
        .enumerate()
        .map(|(index, text)| serde_json::from_str(text).map_err(|e| bad(index + 2, &e)))
        .collect::<Result<Vec<Captured>, _>>()?;
    Ok(Capture { header, prompts })
}

/// What `collect capture` does.
#[derive(Debug, Clone)]
pub struct CaptureOptions {
    /// The capture's id.
    pub id: String,
    /// The capture whose generations to score (default: this capture's own).
    pub reference: Option<String>,
    /// The prompt set (relative to the project), the top-k, the length, the requests in
    /// flight and thinking.
    pub params: super::params::CaptureParams,
    /// The server.
    pub server: ServerOptions,
    /// Replace an existing capture.
    pub replace: bool,
    /// The profile (with its overrides) the server runs, when known.
    pub profile: Option<Effective>,
    /// Start the server from `profile`, and stop it afterwards.
    pub launch: Option<LaunchOptions>,
}

/// Captures every prompt not captured yet and writes the capture file, from a server started
/// from the profile when `launch` is given; returns its path and how many prompts this call
/// captured.
pub async fn capture(
    root: &Path,
    options: &CaptureOptions,
    progress: &Progress,
) -> Result<(PathBuf, usize), CollectError> {
    let Some(launch) = &options.launch else {
        return capture_from(root, options, progress).await;
    };
    let effective = options
        .profile
        .as_ref()
        .ok_or_else(|| CollectError::Usage("--launch needs --profile".into()))?;
    let log = super::decode::log_path(&Layout::new(root), &options.id);
    let mut server =
        match launch::launch(effective, launch, &log, &options.server, progress).await? {
            Ok(server) => server,
            Err(diagnosis) => return Err(CollectError::Launch(diagnosis.reason)),
        };
    let captured = capture_from(root, options, progress).await;
    server.stop();
    captured
}

/// Captures from the server of `options`, running.
async fn capture_from(
    root: &Path,
    options: &CaptureOptions,
    progress: &Progress,
) -> Result<(PathBuf, usize), CollectError> {
    let layout = Layout::new(root);
    let set = prompt_set(root, &options.params.prompts)?;
    let path = capture_path(&layout, &options.id);
    if path.exists() && !options.replace {
        return Err(CollectError::Usage(format!(
            "{} exists; --replace captures it again",
            path.display()
        )));
    }
    let reference = reference_capture(&layout, options.reference.as_deref(), &set)?;
    let target = connect(&options.server).await?;
    target.require_scoring("collect capture")?;
    let header = header_of(options, &target, &set);
    let partial = partial_path(&layout, &options.id);
    let mut done = resume(&partial, &header)?;
    if let Some(parent) = partial.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| CollectError::Usage(format!("{}: {e}", parent.display())))?;
    }
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&partial)
        .map_err(|e| CollectError::Usage(format!("{}: {e}", partial.display())))?;
    if done.is_empty() {
        file.set_len(0).ok();
        writeln!(file, "{}", serde_json::to_string(&header).expect("JSON"))
            .map_err(|e| CollectError::Usage(format!("{}: {e}", partial.display())))?;
    }
    let todo: Vec<&PromptEntry> = set
        .prompts
        .iter()
        .filter(|p| !done.contains_key(&p.id))
        .collect();
    progress.step(&format!(
        "capturing {} prompts ({} already done)",
        todo.len(),
        done.len()
    ));
    let reference_of = |id: &str| {
        reference
            .as_ref()
            .and_then(|r| r.prompts.iter().find(|p| p.id == id))
    };
    let mut results = futures_util::stream::iter(todo.iter().map(|prompt| {
        let target = &target;
        let header = &header;
        let reference = reference_of(&prompt.id);
        async move { capture_one(target, header, prompt, reference).await }
    }))
    .buffer_unordered(options.params.concurrency.max(1));
    let mut captured = 0;
    loop {
        let next = tokio::select! {
            next = results.next() => next,
            () = interrupted() => {
                return Err(CollectError::Request(format!(
                    "interrupted; {} prompts are kept in {} and the next run resumes there",
                    done.len(),
                    partial.display()
                )));
            }
        };
        let Some(result) = next else { break };
        let prompt = result?;
        writeln!(file, "{}", serde_json::to_string(&prompt).expect("JSON"))
            .and_then(|()| file.flush())
            .map_err(|e| CollectError::Usage(format!("{}: {e}", partial.display())))?;
        progress.advance(1);
        captured += 1;
        done.insert(prompt.id.clone(), prompt);
    }
    drop(results);
    write_capture(&path, &header, &set, &done)?;
    let _ = std::fs::remove_file(&partial);
    Ok((path, captured))
}

/// The first line of the capture `options` asks for, from `target` over `set`.
fn header_of(options: &CaptureOptions, target: &Target, set: &PromptSet) -> Header {
    Header {
        capture: options.id.clone(),
        server: options.server.base_url.clone(),
        model: target.model.clone(),
        vllm_version: target.vllm_version(),
        settings: CaptureSettings {
            max_tokens: options.params.max_tokens,
            top_k: options.params.top_k,
            thinking: options.params.thinking,
            temperature: 0.0,
            seed: 0,
            concurrency: options.params.concurrency as u64,
        },
        reference: options.reference.clone(),
        prompt_set: set.path.clone(),
        prompt_set_sha256: set.sha256.clone(),
        profile: options.profile.as_ref().map(|e| e.profile.clone()),
        started_with: options
            .profile
            .as_ref()
            .map(Effective::pairs)
            .unwrap_or_default(),
    }
}

/// The root capture whose continuations this one scores, made with the same prompt set.
fn reference_capture(
    layout: &Layout,
    reference: Option<&str>,
    set: &PromptSet,
) -> Result<Option<Capture>, CollectError> {
    Ok(match reference {
        Some(id) => {
            let reference = load(layout, id)?;
            if reference.header.prompt_set_sha256 != set.sha256 {
                return Err(CollectError::Usage(format!(
                    "capture {id} was made with another prompt set ({} {}); this one is {} {}",
                    reference.header.prompt_set,
                    &reference.header.prompt_set_sha256[..12],
                    set.path,
                    &set.sha256[..12]
                )));
            }
            if reference.header.reference.is_some() {
                return Err(CollectError::Usage(format!(
                    "capture {id} scored {}'s continuations; use that root capture as the reference",
                    reference.header.root()
                )));
            }
            Some(reference)
        }
        None => None,
    })
}

/// The capture file: the header, then every prompt in the set's order, compressed, written
/// whole or not at all.
fn write_capture(
    path: &Path,
    header: &Header,
    set: &PromptSet,
    done: &BTreeMap<String, Captured>,
) -> Result<(), CollectError> {
    let mut temp = tempfile::NamedTempFile::new_in(path.parent().expect("in data/captures"))
        .map_err(|e| CollectError::Usage(format!("{}: {e}", path.display())))?;
    {
        let mut gz = flate2::write::GzEncoder::new(&mut temp, flate2::Compression::default());
        let mut write = |text: String| writeln!(gz, "{text}");
        write(serde_json::to_string(header).expect("JSON"))
            .map_err(|e| CollectError::Usage(format!("{}: {e}", path.display())))?;
        for prompt in &set.prompts {
            let entry = &done[&prompt.id];
            write(serde_json::to_string(entry).expect("JSON"))
                .map_err(|e| CollectError::Usage(format!("{}: {e}", path.display())))?;
        }
        gz.finish()
            .map_err(|e| CollectError::Usage(format!("{}: {e}", path.display())))?;
    }
    temp.as_file()
        .sync_all()
        .and_then(|()| temp.persist(path).map(|_| ()).map_err(|e| e.error))
        .map_err(|e| CollectError::Usage(format!("{}: {e}", path.display())))?;
    Ok(())
}

/// The prompts an earlier, interrupted run captured with the same header.
fn resume(partial: &Path, header: &Header) -> Result<BTreeMap<String, Captured>, CollectError> {
    let Ok(file) = std::fs::File::open(partial) else {
        return Ok(BTreeMap::new());
    };
    let mut lines = BufReader::new(file).lines();
    let earlier: Option<Header> = lines
        .next()
        .and_then(|line| line.ok())
        .and_then(|line| serde_json::from_str(&line).ok());
    if earlier.as_ref() != Some(header) {
        // Another server, model or settings: start over.
        return Ok(BTreeMap::new());
    }
    // A line cut by the interruption is simply captured again.
    Ok(lines
        .map_while(Result::ok)
        .filter_map(|line| serde_json::from_str::<Captured>(&line).ok())
        .map(|prompt| (prompt.id.clone(), prompt))
        .collect())
}

async fn capture_one(
    target: &Target,
    header: &Header,
    prompt: &PromptEntry,
    reference: Option<&Captured>,
) -> Result<Captured, CollectError> {
    let settings = &header.settings;
    let client = &target.client;
    let prompt_ids = client
        .tokenize_chat(&target.model, &prompt.messages, settings.thinking)
        .await
        .map_err(|e| CollectError::Server(format!("prompt {}: {e}", prompt.id)))?;
    if let Some(reference) = reference
        && reference.prompt_ids != prompt_ids
    {
        return Err(CollectError::Usage(format!(
            "prompt {}: this server's chat template gives other prompt token ids than the reference capture's; captures of different tokenizations cannot be compared",
            prompt.id
        )));
    }
    let sampling = target
        .server
        .greedy(&target.model, json!({"stream": false}));
    let mut generate = sampling.clone();
    generate["prompt"] = json!(prompt_ids);
    generate["max_tokens"] = json!(settings.max_tokens);
    generate["logprobs"] = json!(settings.top_k);
    generate["return_tokens_as_token_ids"] = json!(true);
    let answer = client
        .complete(&generate)
        .await
        .map_err(|e| top_k_hint(&prompt.id, e))?;
    let generated = generated_logprobs(&answer)
        .map_err(|e| CollectError::Server(format!("prompt {}: {e}", prompt.id)))?;
    let continuation = reference
        .map_or(&generated.tokens, |r| &r.generated.tokens)
        .clone();
    let mut score = sampling;
    let mut ids = prompt_ids.clone();
    ids.extend(&continuation);
    score["prompt"] = json!(ids);
    score["max_tokens"] = json!(1);
    score["prompt_logprobs"] = json!(settings.top_k);
    let answer = client
        .complete(&score)
        .await
        .map_err(|e| top_k_hint(&prompt.id, e))?;
    let scored = prompt_logprobs(&answer, prompt_ids.len(), &continuation, settings.top_k)
        .map_err(|e| CollectError::Server(format!("prompt {}: {e}", prompt.id)))?;
    Ok(Captured {
        id: prompt.id.clone(),
        category: prompt.category.clone(),
        prompt_ids,
        generated,
        scored,
    })
}

/// A server's refusal of the top-k, with the flag that raises its cap.
fn top_k_hint(prompt: &str, error: String) -> CollectError {
    if error.contains("max allowed") || error.contains("max_logprobs") {
        CollectError::Server(format!(
            "prompt {prompt}: {error}\n  the server caps logprobs: start it with a larger --max-logprobs (vLLM), or ask for fewer with --top-k"
        ))
    } else {
        CollectError::Server(format!("prompt {prompt}: {error}"))
    }
}

/// `token_id:123` → 123.
fn token_id(key: &str) -> Option<u32> {
    key.strip_prefix("token_id:").unwrap_or(key).parse().ok()
}

/// The generation with its top-k, from a completions answer with `logprobs` and
/// `return_tokens_as_token_ids`.
pub fn generated_logprobs(answer: &Value) -> Result<Scored, String> {
    let logprobs = &answer["choices"][0]["logprobs"];
    let tokens = logprobs["tokens"]
        .as_array()
        .ok_or("the answer has no choices[0].logprobs.tokens")?;
    let mut scored = Scored::default();
    for (index, token) in tokens.iter().enumerate() {
        let id = token
            .as_str()
            .and_then(token_id)
            .ok_or_else(|| format!("token {token} is not `token_id:N` (does the server support return_tokens_as_token_ids?)"))?;
        let logprob = logprobs["token_logprobs"][index]
            .as_f64()
            .ok_or("a generated token has no logprob")? as f32;
        let top = logprobs["top_logprobs"][index]
            .as_object()
            .ok_or("a generated token has no top_logprobs")?
            .iter()
            .filter_map(|(key, value)| Some((token_id(key)?, value.as_f64()? as f32)))
            .collect();
        scored.tokens.push(id);
        scored.logprobs.push(logprob);
        scored.top.push(top);
    }
    Ok(scored)
}

/// The teacher-forced scoring of `continuation` after `prompt_len` prompt tokens, from a
/// completions answer with `prompt_logprobs`.
pub fn prompt_logprobs(
    answer: &Value,
    prompt_len: usize,
    continuation: &[u32],
    top_k: u64,
) -> Result<Scored, String> {
    let entries = answer["choices"][0]["prompt_logprobs"]
        .as_array()
        .or_else(|| answer["prompt_logprobs"].as_array())
        .ok_or(
            "the server returned no prompt_logprobs: teacher-forced scoring needs vLLM (llama.cpp's server cannot score prompt tokens)",
        )?;
    let mut scored = Scored::default();
    for (offset, &token) in continuation.iter().enumerate() {
        let entry = entries
            .get(prompt_len + offset)
            .and_then(Value::as_object)
            .ok_or_else(|| {
                format!(
                    "prompt_logprobs has no entry for position {}",
                    prompt_len + offset
                )
            })?;
        let mut top: Vec<(u32, f32, u64)> = entry
            .iter()
            .filter_map(|(key, value)| {
                Some((
                    key.parse().ok()?,
                    value["logprob"].as_f64()? as f32,
                    value["rank"].as_u64().unwrap_or(u64::MAX),
                ))
            })
            .collect();
        let actual = top
            .iter()
            .find(|(id, _, _)| *id == token)
            .map(|(_, logprob, _)| *logprob)
            .ok_or_else(|| {
                format!(
                    "prompt_logprobs lacks the actual token {token} at position {}",
                    prompt_len + offset
                )
            })?;
        // The actual token is added when outside the top-k; keep it only by rank.
        top.retain(|(_, _, rank)| *rank <= top_k);
        scored.tokens.push(token);
        scored.logprobs.push(actual);
        scored
            .top
            .push(top.into_iter().map(|(id, lp, _)| (id, lp)).collect());
    }
    Ok(scored)
}

//! One streamed completion, timed: the server-sent events of a completions or chat stream
//! read chunk by chunk, with the time each one arrived.
//!
//! TTFT is the first chunk that carries generated text (content, completion text or reasoning;
//! never the chat endpoint's role-only first chunk). Latency ends at the last such chunk, or at
//! the chunk with the `finish_reason` when it comes later (as `vllm bench serve` ends it at the
//! last chunk with choices: the tokens without text, end-of-sequence and stop strings, are
//! counted in the usage report, so they are timed too); the usage chunk does not move it. The
//! output token count comes from the usage report: one chunk can carry several tokens, so
//! chunks are never counted as tokens. A stream whose finish reason is `abort` or `error` failed.

use std::borrow::Cow;
use std::time::{Duration, Instant};

use serde::Deserialize;

/// A streamed chunk, with only what the timing needs; everything else is skipped unparsed.
#[derive(Debug, Deserialize)]
struct Chunk<'a> {
    #[serde(borrow, default)]
    choices: Vec<Choice<'a>>,
    #[serde(default)]
    usage: Option<Usage>,
    #[serde(borrow, default)]
    error: Option<ErrorBody<'a>>,
    #[serde(borrow, default)]
    object: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    message: Option<Cow<'a, str>>,
}

#[derive(Debug, Deserialize)]
struct Choice<'a> {
    #[serde(borrow, default)]
    text: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    delta: Option<Delta<'a>>,
    #[serde(borrow, default)]
    finish_reason: Option<Cow<'a, str>>,
    #[serde(default)]
    logprobs: Option<Logprobs>,
}

/// A choice's log-probabilities: an entry per generated token (`content` in chat answers,
/// `tokens` in completions).
#[derive(Debug, Deserialize)]
struct Logprobs {
    #[serde(default)]
    content: Option<Vec<serde::de::IgnoredAny>>,
    #[serde(default)]
    tokens: Option<Vec<serde::de::IgnoredAny>>,
}

#[derive(Debug, Deserialize)]
struct Delta<'a> {
    #[serde(borrow, default)]
    content: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    reasoning_content: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    reasoning: Option<Cow<'a, str>>,
}

/// The usage report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub struct Usage {
    /// Prompt tokens.
    #[serde(default)]
    pub prompt_tokens: Option<u64>,
    /// Generated tokens.
    #[serde(default)]
    pub completion_tokens: Option<u64>,
    /// What the server says of the prompt's tokens, where it says.
    #[serde(default)]
    pub prompt_tokens_details: Option<PromptDetails>,
}

/// The usage report's `prompt_tokens_details`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub struct PromptDetails {
    /// Prompt tokens answered from the prefix cache.
    #[serde(default)]
    pub cached_tokens: Option<u64>,
}

impl Usage {
    /// Prompt tokens the server answered from its prefix cache, where it says.
    pub fn cached_tokens(&self) -> Option<u64> {
        self.prompt_tokens_details?.cached_tokens
    }
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum ErrorBody<'a> {
    Object {
        #[serde(borrow, default)]
        message: Option<Cow<'a, str>>,
    },
    Text(#[serde(borrow)] Cow<'a, str>),
}

/// Why a request failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RequestError {
    /// The server answered with a non-2xx status.
    #[error("HTTP {status}: {body}")]
    Status {
        /// The status code.
        status: u16,
        /// The start of the body.
        body: String,
    },
    /// The connection failed or broke.
    #[error("transport: {0}")]
    Transport(String),
    /// No answer within the request timeout.
    #[error("timed out after {0:?}")]
    Timeout(Duration),
    /// The stream carried an error object.
    #[error("error in the stream: {0}")]
    InStream(String),
    /// A chunk was not JSON.
    #[error("a chunk is not valid JSON ({0})")]
    BadChunk(String),
    /// The stream ended before `[DONE]`.
    #[error("the stream ended before [DONE]")]
    Cut,
    /// The stream ended without a generated token.
    #[error("the stream carried no generated token")]
    NoToken,
    /// The server ended generation with a failure's finish reason (`abort`, `error`).
    #[error("the server ended generation with finish reason {0:?}")]
    Ended(String),
}

/// The finish reasons that mean the server gave up on the request.
const FAILED_REASONS: [&str; 2] = ["abort", "error"];

/// A request that streamed to the end.
#[derive(Debug, Clone, PartialEq)]
pub struct Timing {
    /// Request sent → first chunk carrying generated text.
    pub ttft: Duration,
    /// Request sent → last chunk carrying generated text, or the finish reason's chunk when
    /// it came later.
    pub latency: Duration,
    /// From the usage report, when the server sent one.
    pub usage: Option<Usage>,
    /// Chunks that carried text (not tokens: a chunk may carry several).
    pub text_chunks: u64,
    /// The generated text, reasoning included.
    pub text: String,
    /// Why generation stopped (`length`, `stop`), as the last choice said.
    pub finish_reason: Option<String>,
    /// Log-probability entries, one per generated token, where the server sent them.
    pub logprob_tokens: u64,
    /// Seconds between each chunk that carried text and the one before it: vLLM's inter-token
    /// latencies (a chunk may carry several tokens). A chunk that came in the same read as
    /// the one before has a gap of exactly 0: one clock reading is taken per read.
    pub gaps: Vec<f32>,
}

impl Timing {
    /// Generated tokens, as the server reported them.
    pub fn output_tokens(&self) -> Option<u64> {
        self.usage.and_then(|usage| usage.completion_tokens)
    }

    /// This request's decode rate: (output tokens − 1) / (latency − TTFT), in tok/s; `None`
    /// with fewer than two tokens or no usage report.
    pub fn decode_rate(&self) -> Option<f64> {
        let tokens = self.output_tokens()?;
        let span = self.latency.checked_sub(self.ttft)?.as_secs_f64();
        (tokens > 1 && span > 0.0).then(|| (tokens - 1) as f64 / span)
    }
}

/// Reads the events of one stream as they arrive.
#[derive(Debug)]
pub struct Reader {
    sent: Instant,
    /// The events split out of the body as it arrives.
    events: sse_parse::SseParser,
    /// When the latest read arrived.
    read: Instant,
    first: Option<Instant>,
    last: Option<Instant>,
    /// When the latest chunk that carried text arrived.
    last_text: Option<Instant>,
    gaps: Vec<f32>,
    usage: Option<Usage>,
    text_chunks: u64,
    text: String,
    finish_reason: Option<String>,
    logprob_tokens: u64,
    done: bool,
}

impl Reader {
    /// A stream whose request was sent at `sent`.
    pub fn new(sent: Instant) -> Self {
        Self {
            sent,
            events: sse_parse::SseParser::new(),
            read: sent,
            first: None,
            last: None,
            last_text: None,
            gaps: Vec::new(),
            usage: None,
            text_chunks: 0,
            text: String::new(),
            finish_reason: None,
            logprob_tokens: 0,
            done: false,
        }
    }

    /// Takes the bytes of one read of the body, arrived at `at`: every event they complete
    /// arrived then.
    pub fn feed(&mut self, bytes: &[u8], at: Instant) -> Result<(), RequestError> {
        self.read = at;
        self.events.feed(bytes);
        self.take_events()
    }

    fn take_events(&mut self) -> Result<(), RequestError> {
        while let Some(event) = self.events.next_event() {
            self.event(&event.data, self.read)?;
        }
        Ok(())
    }

    /// Takes one event's data, arrived at `at`.
    fn event(&mut self, data: &str, at: Instant) -> Result<(), RequestError> {
        let data = data.trim();
        if data == "[DONE]" {
            self.done = true;
            return Ok(());
        }
        if data.is_empty() {
            return Ok(());
        }
        let chunk: Chunk = serde_json::from_str(data).map_err(|error| {
            RequestError::BadChunk(format!("{error}; chunk starts {:?}", head(data)))
        })?;
        if let Some(error) = chunk.error {
            return Err(RequestError::InStream(match error {
                ErrorBody::Object { message } => message.unwrap_or_default().into_owned(),
                ErrorBody::Text(text) => text.into_owned(),
            }));
        }
        if chunk.object.as_deref() == Some("error") {
            return Err(RequestError::InStream(
                chunk.message.unwrap_or_default().into_owned(),
            ));
        }
        let before = self.text.len();
        let mut finished = false;
        for choice in &chunk.choices {
            if let Some(reason) = &choice.finish_reason {
                self.finish_reason = Some(reason.clone().into_owned());
                finished = true;
            }
            if let Some(logprobs) = &choice.logprobs {
                let entries = logprobs.content.as_ref().or(logprobs.tokens.as_ref());
                self.logprob_tokens += entries.map_or(0, |e| e.len() as u64);
            }
            if let Some(text) = &choice.text {
                self.text.push_str(text);
            }
            if let Some(delta) = &choice.delta {
                for part in [&delta.reasoning_content, &delta.reasoning, &delta.content]
                    .into_iter()
                    .flatten()
                {
                    self.text.push_str(part);
                }
            }
        }
        if self.text.len() > before {
            self.first.get_or_insert(at);
            self.last = Some(at);
            if let Some(previous) = self.last_text.replace(at) {
                self.gaps.push((at - previous).as_secs_f32());
            }
            self.text_chunks += 1;
        } else if finished && self.first.is_some() {
            self.last = Some(at);
        }
        if chunk.usage.is_some() {
            self.usage = chunk.usage;
        }
        Ok(())
    }

    /// The stream ended: its timing, or why it failed. A last event that the server did not
    /// close with a blank line still counts.
    pub fn finish(mut self) -> Result<Timing, RequestError> {
        self.events.feed(b"\n\n");
        self.take_events()?;
        if !self.done {
            return Err(RequestError::Cut);
        }
        if let Some(reason) = self
            .finish_reason
            .as_deref()
            .filter(|reason| FAILED_REASONS.contains(reason))
        {
            return Err(RequestError::Ended(reason.to_owned()));
        }
        let (Some(first), Some(last)) = (self.first, self.last) else {
            return Err(RequestError::NoToken);
        };
        Ok(Timing {
            ttft: first - self.sent,
            latency: last - self.sent,
            usage: self.usage,
            text_chunks: self.text_chunks,
            text: self.text,
            finish_reason: self.finish_reason,
            logprob_tokens: self.logprob_tokens,
            gaps: self.gaps,
        })
    }
}

/// The first characters of a text, for messages.
pub fn head(text: &str) -> String {
    text.chars().take(120).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(start: Instant, ms: u64) -> Instant {
        start + Duration::from_millis(ms)
    }

    #[test]
    fn why_generation_stopped_and_the_logprobs_entries_are_kept() {
        let start = Instant::now();
        let mut reader = Reader::new(start);
        for (ms, data) in [
            (
                5,
                r#"{"choices":[{"delta":{"content":"ab"},"logprobs":{"content":[{"token":"a","logprob":-0.1},{"token":"b","logprob":-0.2}]}}]}"#,
            ),
            (
                9,
                r#"{"choices":[{"text":"c","logprobs":{"tokens":["c"],"token_logprobs":[-0.3]},"finish_reason":"length"}]}"#,
            ),
            (10, "[DONE]"),
        ] {
            reader.event(data, at(start, ms)).unwrap();
        }
        let timing = reader.finish().unwrap();
        assert_eq!(timing.logprob_tokens, 3);
        assert_eq!(timing.finish_reason.as_deref(), Some("length"));
        assert_eq!(timing.text_chunks, 2);
        assert_eq!(timing.output_tokens(), None, "no usage report");
    }

    #[test]
    fn the_role_chunk_does_not_start_the_clock_the_finish_reason_stops_it_and_usage_does_not() {
        let start = Instant::now();
        let mut reader = Reader::new(start);
        let events = [
            (
                10,
                r#"{"choices":[{"index":0,"delta":{"role":"assistant","content":""}}],"usage":null}"#,
            ),
            (
                50,
                r#"{"choices":[{"index":0,"delta":{"reasoning_content":"Hm"}}]}"#,
            ),
            (
                60,
                r#"{"choices":[{"index":0,"delta":{"content":" two tokens"}}]}"#,
            ),
            (
                70,
                r#"{"choices":[{"index":0,"delta":{"content":null},"finish_reason":"length"}]}"#,
            ),
            (
                90,
                r#"{"choices":[],"usage":{"prompt_tokens":12,"completion_tokens":5,"total_tokens":17}}"#,
            ),
            (91, "[DONE]"),
        ];
        for (ms, data) in events {
            reader.event(data, at(start, ms)).unwrap();
        }
        let timing = reader.finish().unwrap();
        assert_eq!(timing.ttft, Duration::from_millis(50));
        // The finish reason's chunk at 70 ms, after the last text at 60 ms, ends it.
        assert_eq!(timing.latency, Duration::from_millis(70));
        assert_eq!(timing.output_tokens(), Some(5));
        assert_eq!(timing.text_chunks, 2);
        assert_eq!(timing.text, "Hm two tokens");
        // 4 tokens after the first in 20 ms.
        assert!((timing.decode_rate().unwrap() - 200.0).abs() < 1e-9);
    }

    #[test]
    fn an_event_split_across_reads_arrived_with_the_read_that_completed_it() {
        let start = Instant::now();
        let mut reader = Reader::new(start);
        reader
            .feed(
                b"data: {\"choices\":[{\"text\":\"a\"}]}\n\ndata: {\"choi",
                at(start, 5),
            )
            .unwrap();
        reader
            .feed(b"ces\":[{\"text\":\"b\"}]}\n\ndata: [DONE]", at(start, 9))
            .unwrap();
        let timing = reader.finish().unwrap();
        assert_eq!(timing.ttft, Duration::from_millis(5));
        assert_eq!(timing.latency, Duration::from_millis(9));
        assert_eq!(timing.text, "ab");
    }

    #[test]
    fn completions_chunks_and_the_reasoning_field() {
        let start = Instant::now();
        let mut reader = Reader::new(start);
        reader
            .event(
                r#"{"choices":[{"text":"Once","index":0}],"usage":null}"#,
                at(start, 5),
            )
            .unwrap();
        reader
            .event(r#"{"choices":[{"delta":{"reasoning":"x"}}]}"#, at(start, 7))
            .unwrap();
        reader.event("[DONE]", at(start, 8)).unwrap();
        let timing = reader.finish().unwrap();
        assert_eq!(timing.ttft, Duration::from_millis(5));
        assert_eq!(timing.latency, Duration::from_millis(7));
        assert_eq!(timing.output_tokens(), None);
        assert_eq!(timing.decode_rate(), None);
    }

    #[test]
    fn failures() {
        let start = Instant::now();
        let error = |events: &[&str]| {
            let mut reader = Reader::new(start);
            for data in events {
                reader.event(data, start)?;
            }
            reader.finish()
        };
        assert_eq!(
            error(&[r#"{"error":{"message":"boom","type":"x","code":500}}"#]),
            Err(RequestError::InStream("boom".into()))
        );
        assert_eq!(
            error(&[r#"{"object":"error","message":"flat"}"#]),
            Err(RequestError::InStream("flat".into()))
        );
        assert_eq!(
            error(&[r#"{"choices":[{"text":"a"}]}"#]),
            Err(RequestError::Cut)
        );
        assert_eq!(
            error(&[
                r#"{"choices":[{"delta":{"role":"assistant","content":""}}]}"#,
                "[DONE]"
            ]),
            Err(RequestError::NoToken)
        );
        assert!(matches!(error(&["{nope"]), Err(RequestError::BadChunk(_))));
        // A stream the server ended with a failure's reason failed, even with text and [DONE].
        for reason in ["abort", "error"] {
            let chunk = format!(r#"{{"choices":[{{"text":"a","finish_reason":"{reason}"}}]}}"#);
            assert_eq!(
                error(&[&chunk, "[DONE]"]),
                Err(RequestError::Ended(reason.into()))
            );
        }
        let chunk = r#"{"choices":[{"text":"a","finish_reason":"stop"}]}"#;
        assert!(error(&[chunk, "[DONE]"]).is_ok());
    }
}

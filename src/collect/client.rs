//! A client for OpenAI-compatible inference servers (vLLM, llama.cpp's llama-server,
//! llama-cpp-python and others for what they expose): the model list, health, identity,
//! metrics, tokenizer, and streamed completions timed chunk by chunk.

use std::time::{Duration, Instant};

use reqwest::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE, HeaderValue};
use serde::Deserialize;
use serde_json::Value;

use super::error::CollectError;
use super::metrics;
use super::server::{self, Server};
use super::stream::{Reader, RequestError, Timing, head};

/// The environment variables an API key is read from, in order.
pub const API_KEY_VARIABLES: [&str; 2] = ["BENCHSITE_API_KEY", "OPENAI_API_KEY"];

/// Which generation endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Endpoint {
    /// `/v1/chat/completions`.
    Chat,
    /// `/v1/completions`.
    Completions,
}

/// A model the server serves.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Model {
    /// Its name in requests.
    pub id: String,
    /// Its context length, when the server says (vLLM does).
    #[serde(default)]
    pub max_model_len: Option<u64>,
    /// Who serves it, by the server's own word (`vllm`, `llamacpp`, `me`).
    #[serde(default)]
    pub owned_by: Option<String>,
    /// The checkpoint it was loaded from, where the server says (vLLM does).
    #[serde(default)]
    pub root: Option<String>,
}

/// Whether a server answers, after a measurement's requests failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Liveness {
    /// It answered `/health`, or `/v1/models` where it has no `/health`.
    Alive,
    /// It answered, but says it is not well: the status and its message.
    Unwell(String),
    /// No connection could be made: why.
    Gone(String),
}

/// An OpenAI-compatible server.
#[derive(Debug, Clone)]
pub struct Client {
    http: reqwest::Client,
    /// The same client without a pool: a request that died on a kept-alive connection the
    /// server had closed goes out again on a new one.
    fresh: reqwest::Client,
    base: String,
    timeout: Duration,
}

impl Client {
    /// A client of the server at `base_url` (`http://127.0.0.1:8000`, or `https://` behind a
    /// TLS ingress, its certificate checked against the system's authorities and those of
    /// the PEM file `ca_cert`), sending the API key when given, giving each request up after
    /// `timeout`.
    pub fn new(
        base_url: &str,
        api_key: Option<&str>,
        timeout: Duration,
        ca_cert: Option<&std::path::Path>,
    ) -> Result<Self, CollectError> {
        let base = base_url.trim_end_matches('/').trim_end_matches("/v1");
        if !base.starts_with("http://") && !base.starts_with("https://") {
            return Err(CollectError::Usage(format!(
                "--base-url {base_url}: expected an http:// or https:// address"
            )));
        }
        // rustls with ring, for the whole process; a second install finds it there.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let authorities = match ca_cert {
            Some(path) => {
                let pem = std::fs::read(path).map_err(|error| {
                    CollectError::Usage(format!("--ca-cert {}: {error}", path.display()))
                })?;
                reqwest::Certificate::from_pem_bundle(&pem)
                    .ok()
                    .filter(|certificates| !certificates.is_empty())
                    .ok_or_else(|| {
                        CollectError::Usage(format!(
                            "--ca-cert {}: expected PEM certificates (-----BEGIN CERTIFICATE-----)",
                            path.display()
                        ))
                    })?
            }
            None => Vec::new(),
        };
        let mut headers = reqwest::header::HeaderMap::new();
        if let Some(key) = api_key {
            let value = HeaderValue::from_str(&format!("Bearer {key}"))
                .map_err(|_| CollectError::Usage("the API key is not a valid header".into()))?;
            headers.insert(AUTHORIZATION, value);
        }
        let client = |pool: usize| {
            reqwest::Client::builder()
                .default_headers(headers.clone())
                .tcp_nodelay(true)
                .pool_max_idle_per_host(pool)
                .tls_certs_merge(authorities.iter().cloned())
                .build()
                .map_err(|error| {
                    CollectError::Usage(format!("cannot make an HTTP client: {error}"))
                })
        };
        Ok(Self {
            http: client(1024)?,
            fresh: client(0)?,
            base: base.to_owned(),
            timeout,
        })
    }

    /// The API key from the environment, if any.
    pub fn api_key_from_env() -> Option<String> {
        API_KEY_VARIABLES
            .iter()
            .find_map(|name| std::env::var(name).ok().filter(|key| !key.is_empty()))
    }

    /// The server's address.
    pub fn base_url(&self) -> &str {
        &self.base
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// Sends the request `make` builds; when the kept-alive connection it went out on was
    /// closed before any byte of the answer came back (servers close them on their own
    /// schedule: cpp-httplib after a number of requests or an idle time), nothing was
    /// measured, and it goes out once more on a new connection. The instant the answer's
    /// clock starts, and the response.
    async fn send(
        &self,
        make: impl Fn(&reqwest::Client) -> reqwest::RequestBuilder,
    ) -> Result<(Instant, reqwest::Response), reqwest::Error> {
        let sent = Instant::now();
        match make(&self.http).send().await {
            Err(error) if unanswered(&error) => {
                let sent = Instant::now();
                make(&self.fresh)
                    .send()
                    .await
                    .map(|response| (sent, response))
            }
            other => other.map(|response| (sent, response)),
        }
    }

    async fn get(&self, path: &str) -> Result<reqwest::Response, CollectError> {
        self.send(|http| http.get(self.url(path)).timeout(self.timeout))
            .await
            .map(|(_, response)| response)
            .map_err(|error| self.unreachable(path, &error))
    }

    fn unreachable(&self, path: &str, error: &reqwest::Error) -> CollectError {
        CollectError::Server(format!("{}{path}: {}", self.base, error_chain(error)))
    }

    /// `GET /health`: the status code, or why there was none.
    pub async fn health(&self) -> Result<u16, CollectError> {
        Ok(self.get("/health").await?.status().as_u16())
    }

    /// Whether the server answers at all: `/health`, and `/v1/models` where `/health` is 404.
    pub async fn liveness(&self) -> Liveness {
        let answer = |path: &'static str| async move {
            match self.get(path).await {
                Ok(response) => {
                    let status = response.status();
                    let body = response.text().await.unwrap_or_default();
                    Ok((status, body))
                }
                Err(error) => Err(error.to_string()),
            }
        };
        let unwell = |path: &str, status: reqwest::StatusCode, body: &str| {
            Liveness::Unwell(format!(
                "{path} answered HTTP {status}: {}",
                server::message(body)
            ))
        };
        match answer("/health").await {
            Err(why) => Liveness::Gone(why),
            Ok((status, _)) if status.is_success() => Liveness::Alive,
            Ok((status, _)) if status == reqwest::StatusCode::NOT_FOUND => {
                match answer("/v1/models").await {
                    Err(why) => Liveness::Gone(why),
                    Ok((status, _)) if status.is_success() => Liveness::Alive,
                    Ok((status, body)) => unwell("/v1/models", status, &body),
                }
            }
            Ok((status, body)) => unwell("/health", status, &body),
        }
    }

    /// What the server is, from `/version`, `/props`, SGLang's `/server_info` (or
    /// `/get_server_info`, as SGLang before 0.5 names it), `/openapi.json` and the model's
    /// `owned_by`.
    pub async fn identify(&self, model: &Model) -> Server {
        let (version, props, info, old_info, openapi) = tokio::join!(
            self.version(),
            self.get_json("/props"),
            self.get_json("/server_info"),
            self.get_json("/get_server_info"),
            self.get_json("/openapi.json")
        );
        Server::identify(
            version,
            props.as_ref(),
            info.as_ref().or(old_info.as_ref()),
            openapi.as_ref(),
            model.owned_by.as_deref(),
        )
    }

    /// `GET path` as JSON, when it answers 2xx with JSON.
    async fn get_json(&self, path: &str) -> Option<Value> {
        let response = self.get(path).await.ok()?;
        if !response.status().is_success() {
            return None;
        }
        serde_json::from_slice(&response.bytes().await.ok()?).ok()
    }

    /// `GET /v1/models`.
    pub async fn models(&self) -> Result<Vec<Model>, CollectError> {
        #[derive(Deserialize)]
        struct List {
            data: Vec<Model>,
        }
        let response = self.get("/v1/models").await?;
        let list: List = self.json("/v1/models", response).await?;
        Ok(list.data)
    }

    /// `GET /version`: vLLM's version, when the server is vLLM.
    pub async fn version(&self) -> Option<String> {
        let answer = self.get_json("/version").await?;
        answer["version"].as_str().map(str::to_owned)
    }

    /// llama-server's `GET /slots`: the context its slots hold in all (the sum of their
    /// `n_ctx`) and how many slots there are; `None` from a server without it.
    pub async fn slots_context(&self) -> Option<(u64, usize)> {
        let slots = self.get_json("/slots").await?;
        let contexts: Vec<u64> = slots
            .as_array()?
            .iter()
            .map(|slot| slot["n_ctx"].as_u64())
            .collect::<Option<_>>()?;
        (!contexts.is_empty()).then(|| (contexts.iter().sum(), contexts.len()))
    }

    /// `GET /metrics` as text, asked for as Prometheus asks; or why there is none, in a
    /// sentence.
    pub async fn metrics(&self) -> Result<String, String> {
        let (_, response) = self
            .send(|http| {
                http.get(self.url("/metrics"))
                    .header(ACCEPT, metrics::ACCEPT)
                    .timeout(self.timeout)
            })
            .await
            .map_err(|error| format!("/metrics could not be read: {}", error_chain(&error)))?;
        let status = response.status();
        if !status.is_success() {
            return Err(format!("the server has no /metrics (HTTP {status})"));
        }
        response
            .text()
            .await
            .map_err(|error| format!("/metrics could not be read: {}", error_chain(&error)))
    }

    /// How many tokens `text` is, by the server's tokenizer (vLLM's `/tokenize`, then
    /// llama-server's, then llama-cpp-python's `/extras/tokenize/count`); `None` when none
    /// answers.
    /// Returns the count and the endpoint that gave it.
    pub async fn count_tokens(&self, model: &str, text: &str) -> Option<(u64, &'static str)> {
        #[derive(Deserialize)]
        struct Tokens {
            #[serde(default)]
            count: Option<u64>,
            #[serde(default)]
            tokens: Vec<Value>,
        }
        let bodies = [
            (
                "/tokenize",
                serde_json::json!({"model": model, "prompt": text, "add_special_tokens": false}),
            ),
            (
                "/tokenize",
                serde_json::json!({"content": text, "add_special": false}),
            ),
            (
                "/extras/tokenize/count",
                serde_json::json!({"model": model, "input": text}),
            ),
        ];
        for (path, body) in bodies {
            let Ok((_, response)) = self.send(|http| self.json_post(http, path, &body)).await
            else {
                continue;
            };
            if !response.status().is_success() {
                continue;
            }
            let Ok(bytes) = response.bytes().await else {
                continue;
            };
            if let Ok(tokens) = serde_json::from_slice::<Tokens>(&bytes) {
                return Some((tokens.count.unwrap_or(tokens.tokens.len() as u64), path));
            }
        }
        None
    }

    /// `POST path` with a JSON body: the JSON answer, or the server's message.
    async fn post(&self, path: &str, body: &Value) -> Result<Value, String> {
        let (_, response) = self
            .send(|http| self.json_post(http, path, body))
            .await
            .map_err(|e| format!("{}{path}: {}", self.base, error_chain(&e)))?;
        let status = response.status();
        let bytes = response
            .bytes()
            .await
            .map_err(|e| format!("{}{path}: {}", self.base, error_chain(&e)))?;
        let text = String::from_utf8_lossy(&bytes);
        if !status.is_success() {
            return Err(format!(
                "{}{path}: HTTP {status}: {}",
                self.base,
                server::message(&text)
            ));
        }
        serde_json::from_slice(&bytes).map_err(|e| {
            format!(
                "{}{path}: unexpected answer ({e}): {}",
                self.base,
                head(&text)
            )
        })
    }

    /// A non-streamed `/v1/completions` request.
    pub async fn complete(&self, body: &Value) -> Result<Value, String> {
        self.post("/v1/completions", body).await
    }

    /// The chat-templated token ids of `messages` (vLLM's `/tokenize`), with the generation
    /// prompt and thinking on or off.
    pub async fn tokenize_chat(
        &self,
        model: &str,
        messages: &[Value],
        thinking: bool,
    ) -> Result<Vec<u32>, String> {
        let body = serde_json::json!({
            "model": model,
            "messages": messages,
            "add_generation_prompt": true,
            "chat_template_kwargs": {"enable_thinking": thinking},
        });
        let answer = self.post("/tokenize", &body).await?;
        answer["tokens"]
            .as_array()
            .ok_or_else(|| format!("{}/tokenize: no tokens in the answer", self.base))?
            .iter()
            .map(|t| {
                t.as_u64()
                    .and_then(|t| u32::try_from(t).ok())
                    .ok_or_else(|| format!("{}/tokenize: {t} is not a token id", self.base))
            })
            .collect()
    }

    async fn json<T: serde::de::DeserializeOwned>(
        &self,
        path: &str,
        response: reqwest::Response,
    ) -> Result<T, CollectError> {
        let status = response.status();
        let bytes = response
            .bytes()
            .await
            .map_err(|error| self.unreachable(path, &error))?;
        if !status.is_success() {
            return Err(CollectError::Server(format!(
                "{}{path}: HTTP {status}: {}",
                self.base,
                server::message(&String::from_utf8_lossy(&bytes))
            )));
        }
        serde_json::from_slice(&bytes).map_err(|error| {
            CollectError::Server(format!(
                "{}{path}: unexpected answer ({error}): {}",
                self.base,
                head(&String::from_utf8_lossy(&bytes))
            ))
        })
    }

    /// Sends `body` to `endpoint` with streaming on and times the answer.
    pub async fn stream(&self, endpoint: Endpoint, body: &Value) -> Result<Timing, RequestError> {
        let path = match endpoint {
            Endpoint::Chat => "/v1/chat/completions",
            Endpoint::Completions => "/v1/completions",
        };
        let (sent, mut response) = self
            .send(|http| self.json_post(http, path, body))
            .await
            .map_err(|e| self.failed(&e))?;
        let status = response.status();
        if !status.is_success() {
            let body = response.text().await.unwrap_or_default();
            return Err(RequestError::Status {
                status: status.as_u16(),
                body: server::message(&body),
            });
        }
        let mut reader = Reader::new(sent);
        while let Some(bytes) = response.chunk().await.map_err(|e| self.failed(&e))? {
            reader.feed(&bytes, Instant::now())?;
        }
        reader.finish()
    }

    /// A POST of `body` as JSON to `path`.
    fn json_post(
        &self,
        http: &reqwest::Client,
        path: &str,
        body: &Value,
    ) -> reqwest::RequestBuilder {
        http.post(self.url(path))
            .timeout(self.timeout)
            .header(CONTENT_TYPE, "application/json")
            .body(body.to_string())
    }

    fn failed(&self, error: &reqwest::Error) -> RequestError {
        if error.is_timeout() {
            RequestError::Timeout(self.timeout)
        } else {
            RequestError::Transport(error_chain(error))
        }
    }
}

/// Whether a request died with no answer on a connection that closed under it (hyper's
/// "connection closed before message completed", or a reset or broken pipe while sending),
/// rather than failing to connect or waiting too long.
fn unanswered(error: &reqwest::Error) -> bool {
    use std::io::ErrorKind;
    if error.is_timeout() || error.is_connect() {
        return false;
    }
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        if let Some(error) = cause.downcast_ref::<hyper::Error>()
            && (error.is_incomplete_message() || error.is_canceled())
        {
            return true;
        }
        if let Some(error) = cause.downcast_ref::<std::io::Error>()
            && matches!(
                error.kind(),
                ErrorKind::ConnectionReset
                    | ErrorKind::ConnectionAborted
                    | ErrorKind::BrokenPipe
                    | ErrorKind::UnexpectedEof
            )
        {
            return true;
        }
        source = cause.source();
    }
    false
}

/// An error with its causes, which say what actually went wrong (refused, reset, ...).
fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use std::io::{Read, Write};

    use super::*;

    /// A server that answers one request with `body` as an event stream and closes.
    fn answer_once(body: &'static str) -> String {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap();
        std::thread::spawn(move || {
            let (mut connection, _) = listener.accept().unwrap();
            let mut request = [0; 4096];
            let _ = connection.read(&mut request).unwrap();
            write!(
                connection,
                "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n{body}"
            )
            .unwrap();
        });
        format!("http://{address}")
    }

    fn stream(body: &'static str) -> Result<Timing, RequestError> {
        let client = Client::new(&answer_once(body), None, Duration::from_secs(5), None).unwrap();
        crate::collect::runtime()
            .unwrap()
            .block_on(client.stream(Endpoint::Chat, &serde_json::json!({})))
    }

    #[test]
    fn crlf_and_multi_line_events_and_a_last_event_without_its_blank_line_count() {
        let timing = stream(
            "data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\r\n\r\n\
             data: {\"choices\":[{\"delta\":\ndata: {\"content\":\"b\"}}]}\n\n\
             data: [DONE]",
        )
        .unwrap();
        assert_eq!(timing.text, "ab");
        assert_eq!(timing.text_chunks, 2);
    }

    #[test]
    fn a_stream_closed_before_done_is_cut() {
        let error = stream("data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\n");
        assert_eq!(error, Err(RequestError::Cut));
    }
}

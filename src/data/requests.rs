//! A sweep's per-request data: `data/requests/<slug>.jsonl.gz`, one JSON line per request
//! measured, in the order they finished within each level, written once beside the document
//! (which points to it, `Sweep::request_log`) and read back by the site, so goodput can be
//! worked out at any limits afterwards.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::error::DataError;

/// Where a sweep of permalink `slug` keeps its per-request data, relative to the project.
pub fn request_log_path(slug: &str) -> String {
    format!("data/requests/{slug}.jsonl.gz")
}

/// One request of a sweep level. Times are seconds: `due_s` and `sent_s` from the level's
/// start, `ttft_s` and `latency_s` from when the request was sent (add `sent_s − due_s`, the
/// wait in the client, for what a user who arrived when due saw).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RequestLine {
    /// The level's index in the sweep.
    pub level: usize,
    /// The request's number in its level (its prompt's).
    pub n: u64,
    /// When it was due, in an open loop.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub due_s: Option<f64>,
    /// When it was sent; absent where an imported tool's file does not say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sent_s: Option<f64>,
    /// `ok`, or `failed`.
    pub status: RequestStatus,
    /// Sent → first token.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttft_s: Option<f64>,
    /// Sent → last token.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_s: Option<f64>,
    /// Output tokens, where known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_tokens: Option<u64>,
    /// Prompt tokens, where the server said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_tokens: Option<u64>,
    /// Chunks that carried text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chunks: Option<u64>,
    /// The median gap between its chunks that carried text, milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gap_p50_ms: Option<f64>,
    /// Its longest gap, milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gap_max_ms: Option<f64>,
    /// Why generation stopped (`length`, `stop`), as the server said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finish_reason: Option<String>,
    /// Whether its tokens arrived in bursts, not spread in time (absent: not checked).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bursts: Option<bool>,
    /// With `ignore_eos`, whether it returned fewer tokens than asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub short: Option<bool>,
    /// Why it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Whether a request was answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RequestStatus {
    /// Streamed to its end.
    Ok,
    /// Failed; counted in its level's `failed`.
    Failed,
}

impl RequestLine {
    /// Due → first token, as a user who arrived when due saw it (sent → first token in a
    /// closed loop).
    pub fn ttft_from_due(&self) -> Option<f64> {
        Some(self.ttft_s? + self.wait())
    }

    /// Due → last token.
    pub fn latency_from_due(&self) -> Option<f64> {
        Some(self.latency_s? + self.wait())
    }

    /// Time per output token after the first, milliseconds: (latency − TTFT) / (output − 1).
    pub fn tpot_ms(&self) -> Option<f64> {
        let tokens = self.output_tokens.filter(|&t| t > 1)?;
        let span = self.latency_s? - self.ttft_s?;
        (span > 0.0).then(|| span * 1e3 / (tokens - 1) as f64)
    }

    /// Due → sent: the wait in the client (0 in a closed loop, or where either is unknown).
    pub fn wait(&self) -> f64 {
        match (self.due_s, self.sent_s) {
            (Some(due), Some(sent)) => (sent - due).max(0.0),
            _ => 0.0,
        }
    }
}

/// Writes `lines` to `path` gzipped, atomically: a temporary file beside it, synced, renamed.
pub fn write_request_log(path: &Path, lines: &[RequestLine]) -> Result<(), DataError> {
    let failed = |source: std::io::Error| DataError::Write {
        path: path.to_owned(),
        source,
    };
    let folder = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(folder).map_err(failed)?;
    let mut temp = tempfile::NamedTempFile::new_in(folder).map_err(failed)?;
    {
        let mut gz = flate2::write::GzEncoder::new(&mut temp, flate2::Compression::default());
        for line in lines {
            serde_json::to_writer(&mut gz, line).map_err(|e| failed(e.into()))?;
            gz.write_all(b"\n").map_err(failed)?;
        }
        gz.finish().map_err(failed)?;
    }
    temp.as_file().sync_all().map_err(failed)?;
    temp.persist(path).map_err(|e| failed(e.error))?;
    Ok(())
}

/// Reads a request log; a line that is not a request names the file and its line.
pub fn read_request_log(path: &Path) -> Result<Vec<RequestLine>, DataError> {
    let bytes = std::fs::read(path).map_err(|source| DataError::Read {
        path: path.to_owned(),
        source,
    })?;
    request_log_lines(&bytes, path)
}

/// The requests of a request log's gzipped `bytes`, read from `path`.
pub fn request_log_lines(bytes: &[u8], path: &Path) -> Result<Vec<RequestLine>, DataError> {
    let reader = BufReader::new(flate2::read::MultiGzDecoder::new(bytes));
    let mut lines = Vec::new();
    for (index, text) in reader.lines().enumerate() {
        let text = text.map_err(|source| DataError::Read {
            path: path.to_owned(),
            source,
        })?;
        if text.trim().is_empty() {
            continue;
        }
        let line = serde_json::from_str(&text).map_err(|e| DataError::Line {
            path: PathBuf::from(path),
            line: index + 1,
            message: format!("expected a request of the sweep's per-request data: {e}"),
        })?;
        lines.push(line);
    }
    Ok(lines)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(level: usize, n: u64) -> RequestLine {
        RequestLine {
            level,
            n,
            due_s: Some(1.0),
            sent_s: Some(1.25),
            status: RequestStatus::Ok,
            ttft_s: Some(0.5),
            latency_s: Some(2.5),
            output_tokens: Some(101),
            prompt_tokens: Some(40),
            chunks: Some(101),
            gap_p50_ms: Some(20.0),
            gap_max_ms: Some(31.5),
            finish_reason: None,
            bursts: None,
            short: None,
            error: None,
        }
    }

    #[test]
    fn a_request_is_seen_from_when_it_was_due() {
        let request = line(0, 0);
        // Waited 0.25 s in the client: TTFT 0.75 s, latency 2.75 s from when it was due, and
        // 2 s over 100 tokens after the first: 20 ms each.
        assert_eq!(request.wait(), 0.25);
        assert_eq!(request.ttft_from_due(), Some(0.75));
        assert_eq!(request.latency_from_due(), Some(2.75));
        assert_eq!(request.tpot_ms(), Some(20.0));
        let closed = RequestLine {
            due_s: None,
            ..request
        };
        assert_eq!(closed.ttft_from_due(), Some(0.5));
    }

    #[test]
    fn a_log_reads_back_what_was_written_and_names_a_bad_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("data/requests/s.jsonl.gz");
        let lines = vec![line(0, 0), line(1, 3)];
        write_request_log(&path, &lines).unwrap();
        assert_eq!(read_request_log(&path).unwrap(), lines);
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(b"{\"level\":0,\"n\":0,\"sent_s\":0,\"status\":\"ok\"}\n{\"level\":\"x\"}\n")
            .unwrap();
        std::fs::write(&path, gz.finish().unwrap()).unwrap();
        let error = read_request_log(&path).unwrap_err().to_string();
        assert!(
            error.contains("s.jsonl.gz:2: expected a request"),
            "{error}"
        );
    }
}

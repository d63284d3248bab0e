//! A run's samples as its record keeps them: checked before they count (`delivery`), their
//! rates (the client's, over the samples that streamed, or the engine's own), what a reader
//! must know of the failed ones, and the weights a run records.

use super::engine_view::Counters;
use super::error::CollectError;
use super::server_log;
use super::stream::Timing;
use crate::data::{self, PerStream};
use crate::stats;

/// A run's rates once its samples are checked (`delivery`): the client's, over the samples
/// that streamed; the engine's, where most came in bursts and it keeps its own; else an error.
pub(super) struct Checked {
    pub(super) cold: Option<f64>,
    pub(super) measured: Vec<f64>,
    pub(super) decode: f64,
    pub(super) delivery: data::Delivery,
    pub(super) engine_view: Option<data::EngineView>,
}

/// What a reader must know of the samples that failed: none, or why, and that the figure is
/// over the `others`.
pub(super) fn failed_gap(failed: &[String], others: usize) -> Vec<String> {
    match failed.is_empty() {
        true => Vec::new(),
        false => vec![format!(
            "{}; the decode figure is the median of the other {others}",
            failed.join("; ")
        )],
    }
}

/// Checks the samples (`samples[0]` is the cold request, each asked for `max_tokens`) against
/// the engine's counters around them; what a reader must know goes into `gaps`.
pub(super) fn checked_rates(
    samples: &[Timing],
    engine: (Counters, Counters),
    context: Option<u64>,
    max_tokens: u64,
    gaps: &mut Vec<String>,
) -> Result<Checked, CollectError> {
    let mut engine_view = engine.0.until(&engine.1);
    let sampled: Vec<&Timing> = samples[1..].iter().collect();
    let asked = vec![Some(max_tokens); sampled.len()];
    let found = super::delivery::check(&sampled, &asked, context, engine_view.as_mut());
    let delivery = found.delivery;
    let (cold, measured, decode) = match (&delivery.cause, delivery.per_stream) {
        (None, _) => {
            let (cold, measured, decode) = rates(samples)?;
            (Some(stats::round(cold, 1)), measured, decode)
        }
        // Fewer than half in bursts: the median of the others, each checked.
        (Some(cause), PerStream::Client) => {
            gaps.push(cause.clone());
            let cold = super::delivery::burst(&samples[0].gaps)
                .is_none()
                .then(|| samples[0].decode_rate().map(|r| stats::round(r, 1)))
                .flatten();
            let measured: Vec<f64> = sampled
                .iter()
                .zip(&found.bursts)
                .filter(|(_, burst)| !**burst)
                .map(|(t, _)| decode_rate(t).map(|r| stats::round(r, 1)))
                .collect::<Result<_, _>>()?;
            let decode = stats::median(&measured).expect("at least one streamed sample");
            (cold, measured, decode)
        }
        (Some(cause), _) => {
            let Some(rate) = engine_view.as_ref().and_then(|e| e.decode_tok_s_per_stream) else {
                return Err(CollectError::Request(format!(
                    "the samples' decode speed cannot be recorded: {cause}, and the server keeps no figures of its own (/metrics) to take it from; measure it without the proxy, or on a server that is not starved of CPU"
                )));
            };
            gaps.push(format!(
                "{cause}: decode_tok_s is the engine's own per-stream rate ({}, from its /metrics over the samples), not the client's, and the samples' client rates are not kept",
                engine_view.as_ref().map_or("", |e| e.source.as_str())
            ));
            (None, Vec::new(), rate)
        }
    };
    if let Some(short) = &delivery.short_cause {
        gaps.push(format!(
            "short samples: {short}; the decode speed is over the tokens they returned"
        ));
    }
    if delivery.usage_below_stream.is_some_and(|n| n > 0) {
        gaps.push("a sample's usage report counted fewer tokens than the chunks that carried text, which is impossible for a true count".into());
    }
    Ok(Checked {
        cold,
        measured,
        decode,
        delivery,
        engine_view,
    })
}

/// The weights' size and where it comes from: given, or read from vLLM's load report in the
/// log; a warning when neither.
pub(super) fn weights(
    given: Option<f64>,
    log: Option<&str>,
    model: Option<&str>,
    warnings: &mut Vec<String>,
) -> (Option<f64>, Option<String>) {
    let on_disk = || model.and_then(checkpoint_gib);
    match (given, log.and_then(server_log::weights_gib)) {
        (Some(given), _) => (Some(given), Some("given with --weights-gib".to_owned())),
        (None, Some(loaded)) => (
            Some(loaded),
            Some("loaded on the GPU, from vLLM's load report".to_owned()),
        ),
        // vLLM's CPU backend reports only how long loading took.
        (None, None) if log.is_some() && on_disk().is_some() => (
            on_disk(),
            Some("the checkpoint's weight files on disk (MODEL is a local path); the server's log has no load report".to_owned()),
        ),
        (None, None) => {
            warnings.push(match log {
                // vLLM's load report is the one read; other engines' logs have none.
                Some(_) => "weights_gib is left out: the server's log has no load report (vLLM's \"Model loading took\"); give --weights-gib".into(),
                None => "weights_gib is left out: launch the server with --launch, or give --weights-gib".into(),
            });
            (None, None)
        }
    }
}

/// The size of a local checkpoint's weight files, in GiB to the thousandth: a folder's
/// `.safetensors`, `.bin` and `.gguf` files, or the file itself; `None` for a name the hub
/// resolves, or a path with no weights.
pub(super) fn checkpoint_gib(model: &str) -> Option<f64> {
    let path = std::path::Path::new(model);
    let bytes: u64 = match path.is_dir() {
        true => std::fs::read_dir(path)
            .ok()?
            .flatten()
            .filter(|entry| {
                let name = entry.file_name();
                let name = name.to_string_lossy();
                [".safetensors", ".bin", ".gguf"]
                    .iter()
                    .any(|ending| name.ends_with(ending))
            })
            .filter_map(|entry| entry.metadata().ok().map(|m| m.len()))
            .sum(),
        false => path.metadata().ok().filter(|m| m.is_file())?.len(),
    };
    (bytes > 0).then(|| stats::round(bytes as f64 / (1u64 << 30) as f64, 3))
}

/// The cold sample's rate, the samples' rates to 0.1 tok/s, and their median: the figure.
pub(super) fn rates(samples: &[Timing]) -> Result<(f64, Vec<f64>, f64), CollectError> {
    let rates: Vec<f64> = samples.iter().map(decode_rate).collect::<Result<_, _>>()?;
    let measured: Vec<f64> = rates[1..]
        .iter()
        .map(|rate| stats::round(*rate, 1))
        .collect();
    let decode = stats::median(&measured).expect("at least one sample");
    Ok((rates[0], measured, decode))
}

pub(super) fn decode_rate(timing: &Timing) -> Result<f64, CollectError> {
    if timing.output_tokens().is_none() {
        return Err(CollectError::Server(
            "the server sent no usage report (stream_options.include_usage) and has no /tokenize to count the text; benchsite does not count chunks as tokens".into(),
        ));
    }
    timing.decode_rate().ok_or_else(|| {
        CollectError::Request(format!(
            "a request generated {} token(s): too few for a decode rate",
            timing.output_tokens().unwrap_or(0)
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// By hand: a folder of 3 × 2^29 bytes of weights (1.5 GiB) beside a config file that does
    /// not count; one file of 2^30 bytes is 1 GiB; a hub name is no path.
    #[test]
    fn a_local_checkpoint_weighs_its_weight_files() {
        let dir = tempfile::tempdir().unwrap();
        let sized = |name: &str, bytes: u64| {
            let file = std::fs::File::create(dir.path().join(name)).unwrap();
            file.set_len(bytes).unwrap();
        };
        sized("model-1.safetensors", 1 << 30);
        sized("model-2.safetensors", 1 << 29);
        sized("config.json", 1 << 20);
        assert_eq!(checkpoint_gib(dir.path().to_str().unwrap()), Some(1.5));
        let file = dir.path().join("model-1.safetensors");
        assert_eq!(checkpoint_gib(file.to_str().unwrap()), Some(1.0));
        assert_eq!(checkpoint_gib("Qwen/Qwen3-8B"), None);
        let mut warnings = Vec::new();
        let (gib, source) = weights(None, Some("no report"), dir.path().to_str(), &mut warnings);
        assert_eq!(gib, Some(1.5));
        assert!(
            source
                .unwrap()
                .starts_with("the checkpoint's weight files on disk")
        );
        assert!(warnings.is_empty());
    }
}

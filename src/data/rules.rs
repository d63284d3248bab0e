//! The rules of the model that more than one layer needs: what a configuration's profile
//! says about it, the KV pool's concurrency and which failures concern a model.

use super::model::{Failure, RecordMethod, Results, Run, Sweep, Workload};
use crate::profiles::{Effective, Engine};

/// Whether the vision tower is loaded under these settings: unless LANGUAGE_MODEL_ONLY on
/// vLLM and SGLang, and only where the checkpoint has one (a text-only checkpoint on this
/// machine has none); on llama-server only with a projector file (`--mmproj`).
pub fn vision(effective: &Effective) -> bool {
    match effective.engine() {
        Engine::LlamaServer => effective
            .get("EXTRA_ARGS")
            .and_then(|args| shell_words::split(args).ok())
            .is_some_and(|args| args.iter().any(|a| a == "--mmproj" || a == "-mm")),
        Engine::Vllm | Engine::Sglang => {
            !effective.switch("LANGUAGE_MODEL_ONLY")
                && effective.get("MODEL").and_then(vision_tower) != Some(false)
        }
    }
}

/// Whether a checkpoint on this machine (a folder with a `config.json`) has a vision tower:
/// a `vision_config` (Qwen-VL, Llava, Gemma 3, Pixtral, InternVL) or a tower named in its
/// config; `None` for a checkpoint this machine does not hold (a hub id, a folder elsewhere).
pub fn vision_tower(checkpoint: &str) -> Option<bool> {
    let text =
        std::fs::read_to_string(std::path::Path::new(checkpoint).join("config.json")).ok()?;
    let config: serde_json::Value = serde_json::from_str(&text).ok()?;
    let config = config.as_object()?;
    Some(
        [
            "vision_config",
            "vision_tower",
            "mm_vision_tower",
            "img_processor",
        ]
        .iter()
        .any(|key| config.contains_key(*key)),
    )
}

/// Whether CUDA graphs are captured (the server is not eager) under these settings.
pub fn cuda_graphs(effective: &Effective) -> bool {
    !effective.switch("ENFORCE_EAGER")
}

/// Whether the server decodes speculatively under these settings.
pub fn spec_decode(effective: &Effective) -> bool {
    effective.switch("SPEC_DECODE")
}

/// The engine that served a record: its `engine`, else what its `vllm_version` or `server`
/// text says (records from before engines were kept); `None` for any other server.
pub fn engine_of(
    engine: Option<Engine>,
    vllm_version: Option<&str>,
    server: Option<&str>,
) -> Option<Engine> {
    if engine.is_some() {
        return engine;
    }
    if vllm_version.is_some() {
        return Some(Engine::Vllm);
    }
    let server = server?;
    Engine::ALL.into_iter().find(|engine| {
        server.starts_with(&format!("{} ", engine.name())) || server == engine.name()
    })
}

/// [`engine_of`] a run.
pub fn run_engine(run: &Run) -> Option<Engine> {
    engine_of(
        run.engine,
        run.vllm_version.as_deref(),
        run.server.as_deref(),
    )
}

/// [`engine_of`] a sweep.
pub fn sweep_engine(sweep: &Sweep) -> Option<Engine> {
    engine_of(
        sweep.engine,
        sweep.vllm_version.as_deref(),
        sweep.server.as_deref(),
    )
}

/// The GPUs one server of these settings runs on: tensor × pipeline × data parallel sizes
/// (each 1 when unset).
pub fn gpus(effective: &Effective) -> u64 {
    [
        "TENSOR_PARALLEL_SIZE",
        "PIPELINE_PARALLEL_SIZE",
        "DATA_PARALLEL_SIZE",
    ]
    .iter()
    .map(|key| effective.number(key).unwrap_or(1).max(1))
    .product()
}

/// The server set-up these settings give, as a sweep's dimensions name it: its sequences,
/// vision, CUDA graphs, MTP, and its GPUs where more than one.
pub fn server_dimensions(effective: &Effective) -> Vec<(&'static str, String)> {
    let on = |yes: bool| crate::format::switch(yes).to_owned();
    let mut dims = Vec::new();
    if let Some(seqs) = effective.get("MAX_NUM_SEQS") {
        dims.push(("seqs", seqs.to_owned()));
    }
    dims.push(("vision", on(vision(effective))));
    dims.push(("graphs", on(cuda_graphs(effective))));
    dims.push(("mtp", on(spec_decode(effective))));
    let gpus = gpus(effective);
    if gpus > 1 {
        dims.push(("gpus", gpus.to_string()));
    }
    dims
}

/// The prompt a sweep's workload asked for, where it says: its words, or its tokens. Its
/// `prompt` dimension is the length measured, which a nonce moves by a token from sweep to
/// sweep; sweeps that asked for the same prompt are compared by this.
pub fn asked_prompt(workload: &Workload) -> Option<String> {
    match (workload.prompt_words, workload.prompt_tokens) {
        (Some(words), _) => Some(format!("{words} words")),
        (None, Some(tokens)) => Some(format!("{tokens} tokens")),
        (None, None) => None,
    }
}

/// The rounds a level of `workload` sends at `concurrency`: max(rounds, ⌈min_requests /
/// concurrency⌉).
pub fn rounds_at(workload: &Workload, concurrency: u64) -> u64 {
    let floor = workload
        .min_requests
        .map_or(0, |least| least.div_ceil(concurrency.max(1)));
    workload.rounds.max(floor)
}

/// The lowest and highest of a run's decode samples, when it has two or more: how far its
/// decode speed moves from sample to sample.
pub fn decode_range(run: &Run) -> Option<(f64, f64)> {
    let samples = &run.decode_samples;
    (samples.len() >= 2).then(|| {
        samples
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(low, high), &s| {
                (low.min(s), high.max(s))
            })
    })
}

/// The version of the definitions a record was measured by: its method's, or 1 for one from
/// before records said.
pub fn method_version(method: Option<&RecordMethod>) -> u64 {
    method.map_or(1, |m| m.version)
}

/// The GPUs a sweep ran on: its `gpus` dimension (`collect sweep` writes it from the profile
/// where it is more than one), else 1.
pub fn sweep_gpus(sweep: &Sweep) -> u64 {
    sweep
        .dimensions
        .get("gpus")
        .and_then(|g| g.parse().ok())
        .filter(|&g| g > 0)
        .unwrap_or(1)
}

/// Full-length sequences a KV pool of `kv_tokens` holds at once: `kv_tokens / max_model_len`.
pub fn kv_concurrency(kv_tokens: u64, max_model_len: u64) -> f64 {
    kv_tokens as f64 / max_model_len as f64
}

/// [`kv_concurrency`] as the document records it: two decimals.
pub fn max_concurrency(kv_tokens: u64, max_model_len: u64) -> f64 {
    crate::stats::round(kv_concurrency(kv_tokens, max_model_len), 2)
}

/// Whether a failure's checkpoint is of `model`.
pub fn failure_concerns(failure: &Failure, model: &str) -> bool {
    failure
        .checkpoint
        .to_lowercase()
        .contains(&model.to_lowercase())
}

/// Every model of the document, in the order they first appear in its runs, sweeps,
/// comparisons and jitter measurements.
pub fn models(doc: &Results) -> Vec<&str> {
    let mut names: Vec<&str> = Vec::new();
    let all = (doc.runs.iter().map(|r| r.model.as_str()))
        .chain(doc.sweeps.iter().map(|s| s.model.as_str()))
        .chain(doc.divergence.iter().map(|d| d.model.as_str()))
        .chain(doc.jitter.iter().map(|j| j.model.as_str()));
    let mut seen = std::collections::HashSet::new();
    for name in all {
        if seen.insert(name) {
            names.push(name);
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pool_holds_kv_over_context_sequences() {
        assert_eq!(max_concurrency(1_497_245, 262_144), 5.71);
        assert!((kv_concurrency(8192, 4096) - 2.0).abs() < 1e-12);
    }

    #[test]
    fn a_records_engine_is_its_own_or_what_its_server_said() {
        assert_eq!(
            engine_of(Some(Engine::Sglang), Some("0.11.0"), None),
            Some(Engine::Sglang)
        );
        assert_eq!(engine_of(None, Some("0.11.0"), None), Some(Engine::Vllm));
        assert_eq!(
            engine_of(None, None, Some("llama.cpp llama-server b6500-1a2b3c")),
            Some(Engine::LlamaServer)
        );
        assert_eq!(
            engine_of(None, None, Some("SGLang 0.5.23")),
            Some(Engine::Sglang)
        );
        assert_eq!(engine_of(None, None, Some("llama-cpp-python 0.3.36")), None);
        assert_eq!(engine_of(None, None, Some("vLLMish 1")), None);
        assert_eq!(engine_of(None, None, None), None);
    }

    /// A text-only checkpoint on this machine loads no vision tower whatever the profile
    /// says; a multimodal one does unless LANGUAGE_MODEL_ONLY; a hub id goes by the profile.
    #[test]
    fn vision_needs_a_tower_in_the_checkpoint() {
        let dir = tempfile::tempdir().unwrap();
        let folder = |name: &str, config: &str| {
            let path = dir.path().join(name);
            std::fs::create_dir(&path).unwrap();
            std::fs::write(path.join("config.json"), config).unwrap();
            path.display().to_string()
        };
        let text = folder("text", r#"{"architectures": ["Qwen2ForCausalLM"]}"#);
        let vl = folder(
            "vl",
            r#"{"architectures": ["Qwen2_5_VLForConditionalGeneration"], "vision_config": {}}"#,
        );
        let effective = |text: &str| {
            crate::profiles::parse("t", std::path::Path::new("t.env"), text)
                .unwrap()
                .effective(&[])
        };
        assert!(!vision(&effective(&format!("MODEL={text}\n"))));
        assert!(vision(&effective(&format!("MODEL={vl}\n"))));
        assert!(!vision(&effective(&format!(
            "MODEL={vl}\nLANGUAGE_MODEL_ONLY=1\n"
        ))));
        assert!(vision(&effective("MODEL=Qwen/Qwen3.6-35B-A3B\n")));
        assert_eq!(vision_tower("/no/such/checkpoint"), None);
    }
}

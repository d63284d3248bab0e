//! The keys a profile may set: what each means and what values it takes. One table for every
//! engine; which engine takes which key, and as which flag, is in `engine.rs`.

/// What values a key takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Takes {
    /// Any text.
    Text,
    /// Text that is not empty.
    Name,
    /// `0` or `1`.
    Switch,
    /// A whole number above 0.
    Count,
    /// A fraction above 0 and at most 1.
    Fraction,
    /// A port number.
    Port,
    /// A whole number, `auto` or `all` (llama.cpp's GPU layers; -1 is its auto).
    Layers,
    /// `on`, `off` or `auto`, in any of llama.cpp's spellings (`1`, `true`, `enabled`; `0`,
    /// `false`, `disabled`; `-1`).
    OnOffAuto,
    /// An engine's name.
    Engine,
    /// Arguments with balanced quotes.
    Args,
    /// `NAME=VALUE` words: an environment.
    Env,
    /// A program, and any first words it takes.
    Command,
}

impl Takes {
    /// What the key expects, when `value` is not one of its values.
    pub fn refuses(self, value: &str) -> Option<&'static str> {
        let count = |v: &str| v.parse::<u64>().is_ok_and(|n| n > 0);
        let ok = match self {
            Takes::Text => true,
            Takes::Name => !value.is_empty(),
            Takes::Switch => matches!(value, "0" | "1"),
            Takes::Count => count(value),
            Takes::Fraction => value.parse::<f64>().is_ok_and(|x| x > 0.0 && x <= 1.0),
            Takes::Port => value.parse::<u16>().is_ok_and(|n| n > 0),
            Takes::Layers => matches!(value, "auto" | "all") || value.parse::<i64>().is_ok(),
            Takes::OnOffAuto => on_off_auto(value).is_some(),
            Takes::Engine => super::engine::Engine::parse(value).is_some(),
            Takes::Args => shell_words::split(value).is_ok(),
            Takes::Env => environment(value).is_some(),
            Takes::Command => shell_words::split(value).is_ok_and(|words| !words.is_empty()),
        };
        (!ok).then_some(match self {
            Takes::Text => "text",
            Takes::Name => "a name",
            Takes::Switch => "0 or 1",
            Takes::Count => "a whole number above 0",
            Takes::Fraction => "a fraction above 0 and at most 1",
            Takes::Port => "a port number",
            Takes::Layers => "a whole number, auto or all",
            Takes::OnOffAuto => "on, off or auto",
            Takes::Engine => "vllm, llama-server or sglang",
            Takes::Args => "arguments with balanced quotes",
            Takes::Env => "NAME=VALUE words, NAME of letters, digits and underscores",
            Takes::Command => "a program, and any first words it takes",
        })
    }
}

/// The `NAME=VALUE` pairs of an `ENV` value, split as a shell splits words; `None` when a
/// word is not one.
pub fn environment(value: &str) -> Option<Vec<(String, String)>> {
    shell_words::split(value)
        .ok()?
        .into_iter()
        .map(|word| {
            let (name, value) = word.split_once('=')?;
            let mut bytes = name.bytes();
            let named = matches!(bytes.next(), Some(b'A'..=b'Z' | b'a'..=b'z' | b'_'))
                && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_');
            named.then(|| (name.to_owned(), value.to_owned()))
        })
        .collect()
}

/// A switch of llama.cpp's in its canonical word, `on`, `off` or `auto`, from any spelling
/// its `common/arg.cpp` reads (`is_truthy`, `is_falsey`, `is_autoy`).
pub fn on_off_auto(value: &str) -> Option<&'static str> {
    match value {
        "on" | "enabled" | "true" | "1" => Some("on"),
        "off" | "disabled" | "false" | "0" => Some("off"),
        "auto" | "-1" => Some("auto"),
        _ => None,
    }
}

/// A key a profile may set.
#[derive(Debug)]
pub struct Key {
    /// `MAX_MODEL_LEN`.
    pub name: &'static str,
    /// What it means, whatever the engine.
    pub means: &'static str,
    /// Its values.
    pub takes: Takes,
}

const fn key(name: &'static str, takes: Takes, means: &'static str) -> Key {
    Key { name, means, takes }
}

/// Every key any engine takes, in the order `profile show` and REFERENCE.md list them.
pub static KEYS: &[Key] = &[
    key(
        "ENGINE",
        Takes::Engine,
        "the engine: vllm (the default), llama-server or sglang",
    ),
    key(
        "PROGRAM",
        Takes::Command,
        "the engine's program for the local launcher, in place of the one found on PATH, with \
         any first words it needs (python3 -m vllm.entrypoints.openai.api_server)",
    ),
    key(
        "ENV",
        Takes::Env,
        "the engine's environment, NAME=VALUE words: set for the local launcher, passed to \
         the container with --env",
    ),
    key(
        "IMAGE",
        Takes::Name,
        "the container image the podman launcher runs",
    ),
    key(
        "MODEL",
        Takes::Name,
        "what to serve: a checkpoint, or llama-server's GGUF file",
    ),
    key(
        "SERVED_MODEL_NAME",
        Takes::Name,
        "the model's name in the API",
    ),
    key(
        "PORT",
        Takes::Port,
        "the port it listens on, and the one podman publishes (default 8000)",
    ),
    key(
        "MAX_MODEL_LEN",
        Takes::Count,
        "the context length in tokens",
    ),
    key(
        "MAX_NUM_SEQS",
        Takes::Count,
        "the most sequences served at once",
    ),
    key(
        "GPU_MEMORY_UTILIZATION",
        Takes::Fraction,
        "the share of GPU memory vLLM may take",
    ),
    key(
        "MEM_FRACTION_STATIC",
        Takes::Fraction,
        "the share of GPU memory SGLang gives weights and KV cache",
    ),
    key("KV_CACHE_DTYPE", Takes::Name, "the KV cache's data type"),
    key(
        "TENSOR_PARALLEL_SIZE",
        Takes::Count,
        "GPUs each layer is split over",
    ),
    key(
        "PIPELINE_PARALLEL_SIZE",
        Takes::Count,
        "GPUs the layers are spread over in stages",
    ),
    key(
        "DATA_PARALLEL_SIZE",
        Takes::Count,
        "copies of the model, each serving its own requests",
    ),
    key(
        "N_GPU_LAYERS",
        Takes::Layers,
        "layers held on the GPU: a number, auto or all",
    ),
    key(
        "FLASH_ATTN",
        Takes::OnOffAuto,
        "flash attention: on, off or auto",
    ),
    key("THREADS", Takes::Count, "CPU threads for generation"),
    key("ENFORCE_EAGER", Takes::Switch, "0 or 1: no CUDA graphs"),
    key(
        "LANGUAGE_MODEL_ONLY",
        Takes::Switch,
        "0 or 1: no vision tower",
    ),
    key("SPEC_DECODE", Takes::Switch, "0 or 1: speculative decoding"),
    key(
        "SPEC_METHOD",
        Takes::Name,
        "the speculative method (vLLM's default mtp, SGLang's NEXTN)",
    ),
    key(
        "NUM_SPECULATIVE_TOKENS",
        Takes::Count,
        "draft tokens per step",
    ),
    key(
        "EXTRA_ARGS",
        Takes::Args,
        "further arguments to the engine, appended verbatim",
    ),
];

/// The key of that name, if any engine takes it.
pub fn find(name: &str) -> Option<&'static Key> {
    KEYS.iter().find(|key| key.name == name)
}

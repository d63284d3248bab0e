//! The engines a profile can start, each with its program and one table that maps the
//! profile's keys to its own flags.
//!
//! The flags are the engines' own, read from their argument parsers: vLLM's `vllm serve`,
//! llama.cpp's `common/arg.cpp` (the llama.cpp that llama-cpp-python 0.3.36 vendors) and
//! SGLang's `python/sglang/srt/server_args.py`.

use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The serving engine a configuration runs on, as a profile's `ENGINE=` names it.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Default,
    Serialize,
    Deserialize,
    JsonSchema,
    clap::ValueEnum,
)]
#[serde(rename_all = "kebab-case")]
pub enum Engine {
    /// vLLM (`vllm serve`), the default.
    #[default]
    Vllm,
    /// llama.cpp's `llama-server`.
    LlamaServer,
    /// SGLang (`python3 -m sglang.launch_server`).
    Sglang,
}

impl Engine {
    /// Every engine, in the order pages list them.
    pub const ALL: [Engine; 3] = [Engine::Vllm, Engine::LlamaServer, Engine::Sglang];

    /// The engine as profiles and the document spell it: `vllm`, `llama-server`, `sglang`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Engine::Vllm => "vllm",
            Engine::LlamaServer => "llama-server",
            Engine::Sglang => "sglang",
        }
    }

    /// The engine's name for readers.
    pub const fn name(self) -> &'static str {
        match self {
            Engine::Vllm => "vLLM",
            Engine::LlamaServer => "llama.cpp llama-server",
            Engine::Sglang => "SGLang",
        }
    }

    /// The engine's short name for readers, where space is scarce (a chart's legend).
    pub const fn short(self) -> &'static str {
        match self {
            Engine::Vllm => "vLLM",
            Engine::LlamaServer => "llama-server",
            Engine::Sglang => "SGLang",
        }
    }

    /// The engine a profile's `ENGINE=` value names.
    pub fn parse(text: &str) -> Option<Engine> {
        Engine::ALL
            .into_iter()
            .find(|engine| engine.as_str() == text)
    }

    /// What benchsite knows of starting this engine.
    pub fn spec(self) -> &'static Spec {
        SPECS
            .iter()
            .find(|spec| spec.engine == self)
            .expect("every engine has its table")
    }
}

impl fmt::Display for Engine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How a profile key becomes the engine's arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flag {
    /// `--flag VALUE`.
    Value(&'static str),
    /// Each flag with the value: llama-server's `--cache-type-k X --cache-type-v X`.
    Values(&'static [&'static str]),
    /// `--flag` when the value is 1.
    Switch(&'static str),
    /// `--flag on|off|auto`, from any of llama.cpp's spellings.
    OnOff(&'static str),
    /// Read by benchsite itself: the launcher, the model, the port, speculative decoding,
    /// the extra arguments.
    Own,
}

/// One engine: its program, and the keys it takes with the flag each becomes.
#[derive(Debug)]
pub struct Spec {
    /// The engine.
    pub engine: Engine,
    /// The program the local launcher runs, found on PATH unless the profile's PROGRAM names
    /// another.
    pub program: &'static str,
    /// Its first arguments (`serve`, `-m sglang.launch_server`).
    pub subcommand: &'static [&'static str],
    /// The flag that names the model, or `None` where it comes first, bare (`vllm serve M`).
    pub model_flag: Option<&'static str>,
    /// The flag that names the model to the command of its container image.
    pub image_model_flag: &'static str,
    /// Whether its model is a file on this machine, whose folder a container is given
    /// (read-only, at the same path).
    pub model_is_file: bool,
    /// The module form of its server, where it has one: a `PROGRAM` whose words run that
    /// module takes no subcommand, and the model with this flag.
    pub module: Option<Module>,
    /// Arguments always passed, after the profile's (`--metrics`).
    pub always: &'static [&'static str],
    /// The keys it takes, in the order their flags are written.
    pub keys: &'static [(&'static str, Flag)],
    /// What its container image needs: the command inside it, when the image's entry point
    /// is not the server itself.
    pub image_command: &'static [&'static str],
}

/// A server run as a Python module, `python3 -m NAME`.
#[derive(Debug)]
pub struct Module {
    /// The module (`vllm.entrypoints.openai.api_server`).
    pub name: &'static str,
    /// The flag that names the model to it.
    pub model_flag: &'static str,
}

/// The flag every engine listens on an address with: loopback for the local launcher, all
/// interfaces in a container (whose published port is loopback's).
pub const HOST_FLAG: &str = "--host";

/// The keys every engine takes, read by benchsite itself.
const COMMON: [(&str, Flag); 7] = [
    ("ENGINE", Flag::Own),
    ("PROGRAM", Flag::Own),
    ("ENV", Flag::Own),
    ("IMAGE", Flag::Own),
    ("MODEL", Flag::Own),
    ("PORT", Flag::Value("--port")),
    ("EXTRA_ARGS", Flag::Own),
];

/// Every engine's table.
pub static SPECS: [Spec; 3] = [
    Spec {
        engine: Engine::Vllm,
        program: "vllm",
        subcommand: &["serve"],
        model_flag: None,
        // vLLM's image runs `vllm serve`, which takes the model as --model too.
        image_model_flag: "--model",
        model_is_file: false,
        module: Some(Module {
            name: "vllm.entrypoints.openai.api_server",
            model_flag: "--model",
        }),
        always: &[],
        keys: &[
            ("SERVED_MODEL_NAME", Flag::Value("--served-model-name")),
            ("PORT", Flag::Value("--port")),
            ("MAX_MODEL_LEN", Flag::Value("--max-model-len")),
            ("MAX_NUM_SEQS", Flag::Value("--max-num-seqs")),
            (
                "GPU_MEMORY_UTILIZATION",
                Flag::Value("--gpu-memory-utilization"),
            ),
            ("KV_CACHE_DTYPE", Flag::Value("--kv-cache-dtype")),
            (
                "TENSOR_PARALLEL_SIZE",
                Flag::Value("--tensor-parallel-size"),
            ),
            (
                "PIPELINE_PARALLEL_SIZE",
                Flag::Value("--pipeline-parallel-size"),
            ),
            ("DATA_PARALLEL_SIZE", Flag::Value("--data-parallel-size")),
            ("ENFORCE_EAGER", Flag::Switch("--enforce-eager")),
            ("LANGUAGE_MODEL_ONLY", Flag::Switch("--language-model-only")),
            ("SPEC_DECODE", Flag::Own),
            ("SPEC_METHOD", Flag::Own),
            ("NUM_SPECULATIVE_TOKENS", Flag::Own),
        ],
        image_command: &[],
    },
    Spec {
        engine: Engine::LlamaServer,
        program: "llama-server",
        subcommand: &[],
        model_flag: Some("--model"),
        image_model_flag: "--model",
        model_is_file: true,
        module: None,
        always: &["--metrics"],
        keys: &[
            ("SERVED_MODEL_NAME", Flag::Value("--alias")),
            ("PORT", Flag::Value("--port")),
            ("MAX_MODEL_LEN", Flag::Value("--ctx-size")),
            ("MAX_NUM_SEQS", Flag::Value("--parallel")),
            (
                "KV_CACHE_DTYPE",
                Flag::Values(&["--cache-type-k", "--cache-type-v"]),
            ),
            ("N_GPU_LAYERS", Flag::Value("--n-gpu-layers")),
            ("FLASH_ATTN", Flag::OnOff("--flash-attn")),
            ("THREADS", Flag::Value("--threads")),
        ],
        image_command: &[],
    },
    Spec {
        engine: Engine::Sglang,
        program: "python3",
        subcommand: &["-m", "sglang.launch_server"],
        model_flag: Some("--model-path"),
        image_model_flag: "--model-path",
        model_is_file: false,
        module: None,
        always: &["--enable-metrics"],
        keys: &[
            ("SERVED_MODEL_NAME", Flag::Value("--served-model-name")),
            ("PORT", Flag::Value("--port")),
            ("MAX_MODEL_LEN", Flag::Value("--context-length")),
            ("MAX_NUM_SEQS", Flag::Value("--max-running-requests")),
            ("MEM_FRACTION_STATIC", Flag::Value("--mem-fraction-static")),
            ("KV_CACHE_DTYPE", Flag::Value("--kv-cache-dtype")),
            ("TENSOR_PARALLEL_SIZE", Flag::Value("--tp-size")),
            ("DATA_PARALLEL_SIZE", Flag::Value("--dp-size")),
            ("ENFORCE_EAGER", Flag::Switch("--disable-cuda-graph")),
            ("SPEC_DECODE", Flag::Own),
            ("SPEC_METHOD", Flag::Own),
            ("NUM_SPECULATIVE_TOKENS", Flag::Own),
        ],
        image_command: &["python3", "-m", "sglang.launch_server"],
    },
];

impl Spec {
    /// Whether this engine takes `key`.
    pub fn takes(&self, key: &str) -> bool {
        self.flag(key).is_some()
    }

    /// How this engine reads `key`.
    pub fn flag(&self, key: &str) -> Option<Flag> {
        COMMON
            .iter()
            .chain(self.keys)
            .find(|(name, _)| *name == key)
            .map(|(_, flag)| *flag)
    }

    /// Why it does not take `key`: `KEY is not a setting of llama-server (ENGINE=llama-server
    /// takes …)`.
    pub fn refusal(&self, key: &str) -> String {
        format!(
            "{key} is not a setting of {0} (ENGINE={0} takes {1})",
            self.engine,
            self.key_names().join(", ")
        )
    }

    /// The keys it takes, common ones first.
    pub fn key_names(&self) -> Vec<&'static str> {
        let mut names: Vec<&str> = COMMON.iter().map(|(name, _)| *name).collect();
        for (name, _) in self.keys {
            if !names.contains(name) {
                names.push(name);
            }
        }
        names
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every key an engine's table names is one the key table defines, and every key is taken
    /// by some engine.
    #[test]
    fn the_tables_agree() {
        for spec in &SPECS {
            for name in spec.key_names() {
                assert!(crate::profiles::keys::find(name).is_some(), "{name}");
            }
        }
        for key in crate::profiles::keys::KEYS {
            assert!(
                SPECS.iter().any(|spec| spec.takes(key.name)),
                "{}",
                key.name
            );
        }
    }
}

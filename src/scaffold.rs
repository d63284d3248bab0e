//! `benchsite init`: a new report project on the built-in theme, ready to build and publish.

use std::path::{Path, PathBuf};

use crate::data::{self, Date, Results};
use crate::profiles::Engine;

/// Why a project could not be created.
#[derive(Debug, thiserror::Error)]
pub enum InitError {
    /// The folder exists and holds files.
    #[error("{} is not empty: init writes a new project into an empty or new folder", .0.display())]
    NotEmpty(PathBuf),
    /// A file could not be written.
    #[error("cannot write {}: {source}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

const CONFIG: &str = r#"# Site settings. `benchsite build --base-url` overrides base_url.
title = "LLM serving report"
description = "Decode speed, concurrency and quality of LLM serving configurations."
author = ""
base_url = "/"
language = "en"

[collect]
base_url = "http://127.0.0.1:8000"
request_timeout_s = 600

# A report measured on several machines declares each with its own results document
# (and its page /hardware/<slug>/); without this, the one machine is data/results.json.
# [machines.rtx-5090]
# data = "data/rtx-5090.json"
# title = "The desktop 5090"
"#;

const HOME: &str = r#"+++
title = "LLM serving report"
+++

Describe the machine and what this report measures here. The tables and charts below come from
`data/results.json`; shortcodes such as `{{ runs_table() }}` embed them in any page.
"#;

const PROFILE: &str = r#"# A launch profile: KEY=VALUE lines, applied to `vllm serve`.
# `benchsite profile show example` prints the effective settings and the command.
IMAGE=docker.io/vllm/vllm-openai:latest
MODEL=Qwen/Qwen3-0.6B
MAX_MODEL_LEN=8192
MAX_NUM_SEQS=8
KV_CACHE_DTYPE=auto
ENFORCE_EAGER=0
"#;

const LLAMA_PROFILE: &str = r#"# A launch profile for llama.cpp's llama-server: KEY=VALUE lines, each one of its flags.
# `benchsite profile show example` prints the effective settings and the command; the
# local launcher runs the llama-server found on PATH (or PROGRAM=/path/to/llama-server).
ENGINE=llama-server
# The GGUF file to serve.
MODEL={{model}}
SERVED_MODEL_NAME=example
# --ctx-size: llama-server splits it over its --parallel slots (MAX_NUM_SEQS).
MAX_MODEL_LEN=16384
MAX_NUM_SEQS=4
# --n-gpu-layers: a number, auto or all.
N_GPU_LAYERS=all
# --flash-attn: on, off or auto.
FLASH_ATTN=auto
"#;

const LLAMA_CAMPAIGN: &str = r#"# A campaign: configurations measured unattended, one server at a time.
#   benchsite campaign plan example          what would run, and what is done already
#   benchsite campaign run example           run what is pending (again to resume after a stop)
# Each configuration's records are named by its id, so a second `campaign run` finds them.

description = "The example llama-server profile with flash attention off and on, at one and four slots."

[[config]]
profile = "example"
# Every combination of these values is a configuration: 2 × 2 = 4 here. llama-server's own
# knobs: N_GPU_LAYERS, FLASH_ATTN, MAX_NUM_SEQS (--parallel), KV_CACHE_DTYPE (q8_0, say).
matrix = { FLASH_ATTN = ["off", "on"], MAX_NUM_SEQS = [1, 4] }
id = "example-fa-{FLASH_ATTN}-slots-{MAX_NUM_SEQS}"
# For the run records: the model's shape and the weights' precision (the GGUF's type).
shape = "Dense, 8B"
precision = "Q4_K_M"

# Single-stream decode speed of each configuration (benchsite collect run).
[run]
samples = 3
max_tokens = 300
prompt = "Write a long, detailed essay on the history of computing."

# A concurrency sweep of each configuration (benchsite collect sweep).
[[sweep]]
levels = [1, 2, 4]
prompt_words = 700
output_tokens = 256
rounds = 2

# How servers start and stop: llama-server on this machine.
[launch]
launcher = "local"
ready_timeout_s = 600
"#;

/// What a new project's example profile and campaign start: the engine, and for llama-server
/// the GGUF file.
#[derive(Debug, Clone, Default)]
pub struct Starter {
    /// The engine the example profile names.
    pub engine: Engine,
    /// What it serves, in place of the example's own model.
    pub model: Option<String>,
}

impl Starter {
    /// The example profile and campaign.
    fn files(&self) -> (String, String) {
        match self.engine {
            Engine::LlamaServer => {
                let model = self.model.as_deref().unwrap_or("models/model.gguf");
                (
                    fill(LLAMA_PROFILE, &[("model", model)]),
                    LLAMA_CAMPAIGN.to_owned(),
                )
            }
            Engine::Vllm | Engine::Sglang => {
                let mut profile = PROFILE.to_owned();
                if let Some(model) = &self.model {
                    profile = profile.replace("MODEL=Qwen/Qwen3-0.6B", &format!("MODEL={model}"));
                }
                if self.engine == Engine::Sglang {
                    profile = profile
                        .replace(
                            "applied to `vllm serve`.",
                            "applied to SGLang's launch_server.\nENGINE=sglang",
                        )
                        .replace(
                            "IMAGE=docker.io/vllm/vllm-openai:latest",
                            "IMAGE=docker.io/lmsysorg/sglang:latest",
                        );
                }
                let campaign = match self.engine {
                    Engine::Sglang => CAMPAIGN.replace(
                        "set = { GPU_MEMORY_UTILIZATION = \"0.90\" }",
                        "set = { MEM_FRACTION_STATIC = \"0.85\" }",
                    ),
                    _ => CAMPAIGN.to_owned(),
                };
                (profile, campaign)
            }
        }
    }
}

/// The benchsite a new report's Pages workflow installs: `cargo install --locked --git URL
/// --tag TAG`.
#[derive(Debug, Clone)]
pub struct Pinned {
    /// The git repository of benchsite.
    pub git: String,
    /// The tag installed from it.
    pub tag: String,
}

impl Default for Pinned {
    /// This build's own repository and release tag.
    fn default() -> Self {
        Pinned {
            git: env!("CARGO_PKG_REPOSITORY").to_owned(),
            tag: format!("v{}", env!("CARGO_PKG_VERSION")),
        }
    }
}

/// The command the Pages workflow builds a report with, `BASE_URL` being the Pages address.
pub const PAGES_BUILD: &str = r#"benchsite build --base-url "$BASE_URL""#;

const PAGES_WORKFLOW: &str = include_str!("scaffold/pages.yml");
/// How a workflow installs the pinned benchsite: the release binary for the runner's platform,
/// its SHA-256 checked, or `cargo install --locked` of the tag where the release has none.
/// Reads `BENCHSITE_GIT` and `BENCHSITE_TAG` (and `BENCHSITE_RELEASES`, where releases are
/// downloaded from, when not `<git>/releases/download`).
pub const INSTALL: &str = include_str!("scaffold/install.sh");
const CAMPAIGN: &str = include_str!("scaffold/campaign.toml");
const TEMPLATES: &str = include_str!("scaffold/templates-README.md");
const README: &str = include_str!("scaffold/README.md");
const TITLE: &str = "LLM serving report";

/// [`INSTALL`] as the body of a workflow step's `run: |`.
pub(crate) fn install_step() -> String {
    INSTALL
        .lines()
        .map(|line| {
            if line.is_empty() {
                String::new()
            } else {
                format!("          {line}")
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// `template` with each `{{name}}` replaced by its value.
pub(crate) fn fill(template: &str, values: &[(&str, &str)]) -> String {
    values
        .iter()
        .fold(template.to_owned(), |text, (name, value)| {
            text.replace(&format!("{{{{{name}}}}}"), value)
        })
}

/// The prompt a new project's `collect run` sends (its document's `method.prompt`): the
/// shipped report's, which asks for far more than a run's 300 tokens.
pub const DECODE_PROMPT: &str = "Write a detailed essay of about 600 words on the sea: its physical nature, its role in climate, and what it has meant to people.";

/// A new project's prompt set (`data/prompts.jsonl`, for speculative acceptance, captures and
/// jitter): the shipped report's, which a test keeps equal to it.
pub const PROMPT_SET: &str = include_str!("scaffold/prompts.jsonl");

/// Writes a new project into `dir`, which must be empty or absent: settings, a home page, a
/// profile and an example campaign for `starter`'s engine, a results document dated `today`
/// with no records and the decode prompt, a prompt set, a templates folder that says how to override the built-in theme (and holds no copy
/// of it), a README, a `.gitignore` and the GitHub Pages workflow that installs `pinned`.
pub fn init(
    dir: &Path,
    today: Date,
    pinned: &Pinned,
    starter: &Starter,
) -> Result<Vec<PathBuf>, InitError> {
    if let Ok(mut entries) = std::fs::read_dir(dir)
        && entries.next().is_some()
    {
        return Err(InitError::NotEmpty(dir.to_owned()));
    }
    let mut results = Results::empty(today);
    results.method.prompt = Some(DECODE_PROMPT.to_owned());
    let (profile, campaign) = starter.files();
    let mut files: Vec<(PathBuf, String)> = vec![
        (PathBuf::from("benchsite.toml"), CONFIG.to_owned()),
        (PathBuf::from("content/_index.md"), HOME.to_owned()),
        (PathBuf::from("profiles/example.env"), profile),
        (PathBuf::from("campaigns/example.toml"), campaign),
        (PathBuf::from("data/results.json"), data::to_json(&results)),
        (PathBuf::from("data/prompts.jsonl"), PROMPT_SET.to_owned()),
        (
            PathBuf::from(".gitignore"),
            "/site/\n/.site.*\ndata/.*.lock\ndata/.*.tmp\n# A Slurm campaign's task folders and job output.\n/campaign-runs/\n".to_owned(),
        ),
        (
            PathBuf::from("README.md"),
            fill(
                README,
                &[("title", TITLE), ("git", &pinned.git), ("tag", &pinned.tag)],
            ),
        ),
        (
            PathBuf::from(".github/workflows/pages.yml"),
            fill(
                PAGES_WORKFLOW,
                &[
                    ("git", &pinned.git),
                    ("tag", &pinned.tag),
                    ("build", PAGES_BUILD),
                    ("install", &install_step()),
                ],
            ),
        ),
    ];
    files.push((PathBuf::from("templates/README.md"), TEMPLATES.to_owned()));
    let mut written = Vec::new();
    for (relative, text) in files {
        let path = dir.join(&relative);
        let error = |source| InitError::Write {
            path: path.clone(),
            source,
        };
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(error)?;
        }
        std::fs::write(&path, text).map_err(error)?;
        written.push(relative);
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn init_refuses_a_folder_with_files() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("x"), "").unwrap();
        let error = init(
            dir.path(),
            Date::today(),
            &Pinned::default(),
            &Starter::default(),
        )
        .unwrap_err();
        assert!(error.to_string().contains("is not empty"), "{error}");
    }
}

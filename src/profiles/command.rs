//! The command that starts a profile's engine, from podman or from this machine.

use std::fmt;
use std::path::Path;

use super::effective::Effective;
use super::engine::{Engine, Flag, HOST_FLAG, Spec};
use super::error::ProfileError;
use super::keys::{self, on_off_auto};

/// How the server is started: `--launcher` of `collect` and `profile show`, and a
/// campaign's `[launch] launcher`.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Default,
    clap::ValueEnum,
    serde::Deserialize,
    serde::Serialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Launcher {
    /// podman with the profile's IMAGE.
    #[default]
    Podman,
    /// The engine's program on this machine (`vllm`, `llama-server`, `python3`).
    Local,
}

/// A program, its arguments and what it adds to its environment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LaunchCommand {
    /// The program to run.
    pub program: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// Variables set for it (a local launch's `ENV`; a container's go in `--env`).
    pub env: Vec<(String, String)>,
}

impl fmt::Display for LaunchCommand {
    /// As a POSIX shell runs it: `NAME=VALUE … program args`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let words: Vec<_> = self
            .env
            .iter()
            .map(|(name, value)| format!("{name}={}", shell_quote(value)))
            .chain(
                std::iter::once(&self.program)
                    .chain(&self.args)
                    .map(|word| shell_quote(word)),
            )
            .collect();
        f.write_str(&words.join(" "))
    }
}

/// The name of the container a podman launch on `port` runs as: one per port, so a guard or
/// a later launch can remove a container a killed benchsite left.
pub fn container_name(port: u16) -> String {
    format!("benchsite-{port}")
}

/// A word as a POSIX shell reads it back: bare when it holds only characters the shell
/// leaves alone, else in single quotes.
pub fn shell_quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:=@%+,".contains(c));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

impl Effective {
    /// The command that starts the server: the engine's own, from podman or this machine,
    /// listening on loopback, or on all interfaces inside a container. A setting the engine
    /// does not take is an error naming where it was set.
    pub fn launch_command(&self, launcher: Launcher) -> Result<LaunchCommand, ProfileError> {
        let spec = self.engine().spec();
        self.check_keys()?;
        let missing = |key, hint| ProfileError::Missing {
            profile: self.profile.clone(),
            key,
            hint,
        };
        let model = self
            .get("MODEL")
            .ok_or_else(|| missing("MODEL", "set MODEL to what the engine serves"))?;
        let env = self
            .get("ENV")
            .and_then(keys::environment)
            .unwrap_or_default();
        let host = match launcher {
            Launcher::Local => "127.0.0.1",
            Launcher::Podman => "0.0.0.0",
        };
        let serve = self.engine_args(spec, host)?;
        Ok(match launcher {
            Launcher::Local => {
                let words = self
                    .get("PROGRAM")
                    .and_then(|program| shell_words::split(program).ok())
                    .filter(|words| !words.is_empty())
                    .unwrap_or_else(|| vec![spec.program.to_owned()]);
                let (program, first) = words.split_first().expect("not empty");
                let mut args = first.to_vec();
                args.extend(model_words(spec, first, model));
                args.extend(serve);
                LaunchCommand {
                    program: program.clone(),
                    args,
                    env,
                }
            }
            Launcher::Podman => {
                let image = self.get("IMAGE").ok_or_else(|| {
                    missing(
                        "IMAGE",
                        "set IMAGE to the engine's container image, or use --launcher local",
                    )
                })?;
                let mut args = self.podman_args(spec, model, &env);
                args.push(image.to_owned());
                args.extend(spec.image_command.iter().map(|s| (*s).to_owned()));
                args.extend([spec.image_model_flag.to_owned(), model.to_owned()]);
                args.extend(serve);
                LaunchCommand {
                    program: "podman".into(),
                    args,
                    env: Vec::new(),
                }
            }
        })
    }

    /// `podman run`'s own arguments: its name, the GPUs, the port, the Hugging Face cache, and
    /// a GGUF file's folder read-only at the same path.
    fn podman_args(&self, spec: &Spec, model: &str, env: &[(String, String)]) -> Vec<String> {
        let port = self.port();
        let mut args: Vec<String> = [
            "run",
            "--rm",
            "--name",
            &container_name(port),
            "--device",
            "nvidia.com/gpu=all",
            "--ipc=host",
            "--env",
            "HF_TOKEN",
            "-v",
            "benchsite-hf-cache:/root/.cache/huggingface",
        ]
        .map(str::to_owned)
        .into();
        for (name, value) in env {
            args.extend(["--env".to_owned(), format!("{name}={value}")]);
        }
        if spec.model_is_file
            && let Some(folder) = Path::new(model).parent().filter(|p| p.is_absolute())
        {
            args.push("-v".into());
            args.push(format!("{0}:{0}:ro", folder.display()));
        }
        args.push("-p".into());
        args.push(format!("127.0.0.1:{port}:{port}"));
        args
    }

    /// The engine's arguments from the profile's keys, in its table's order, then what it
    /// always takes, the address it listens on, then `EXTRA_ARGS` (whose `--host`, coming
    /// later, is the one the engine keeps).
    fn engine_args(&self, spec: &Spec, host: &str) -> Result<Vec<String>, ProfileError> {
        let mut args = Vec::new();
        for (key, flag) in spec.keys {
            let value = match *key {
                "PORT" => Some(self.port().to_string()),
                _ => self.get(key).map(str::to_owned),
            };
            let Some(value) = value else { continue };
            match flag {
                Flag::Value(name) => args.extend([(*name).to_owned(), value]),
                Flag::Values(names) => {
                    for name in *names {
                        args.extend([(*name).to_owned(), value.clone()]);
                    }
                }
                Flag::Switch(name) if value == "1" => args.push((*name).to_owned()),
                Flag::Switch(_) => {}
                Flag::OnOff(name) => {
                    let word = on_off_auto(&value).unwrap_or(&value).to_owned();
                    args.extend([(*name).to_owned(), word]);
                }
                Flag::Own if *key == "SPEC_DECODE" && value == "1" => {
                    args.extend(self.speculative(spec.engine)?);
                }
                Flag::Own => {}
            }
        }
        args.extend(spec.always.iter().map(|s| (*s).to_owned()));
        args.extend([HOST_FLAG.to_owned(), host.to_owned()]);
        if let Some(extra) = self.get("EXTRA_ARGS") {
            args.extend(shell_words::split(extra).unwrap_or_default());
        }
        Ok(args)
    }

    /// Speculative decoding's arguments: vLLM's `--speculative-config` JSON; SGLang's
    /// algorithm, steps, top-k 1 and draft tokens (steps + 1 on a chain).
    fn speculative(&self, engine: Engine) -> Result<Vec<String>, ProfileError> {
        let tokens =
            self.number("NUM_SPECULATIVE_TOKENS")
                .ok_or_else(|| ProfileError::Missing {
                    profile: self.profile.clone(),
                    key: "NUM_SPECULATIVE_TOKENS",
                    hint: "SPEC_DECODE=1 needs the number of draft tokens per step",
                })?;
        Ok(match engine {
            Engine::Sglang => vec![
                "--speculative-algorithm".into(),
                self.get("SPEC_METHOD").unwrap_or("NEXTN").to_owned(),
                "--speculative-num-steps".into(),
                tokens.to_string(),
                "--speculative-eagle-topk".into(),
                "1".into(),
                "--speculative-num-draft-tokens".into(),
                (tokens + 1).to_string(),
            ],
            _ => {
                let config = serde_json::json!({
                    "method": self.get("SPEC_METHOD").unwrap_or("mtp"),
                    "num_speculative_tokens": tokens,
                });
                vec!["--speculative-config".into(), config.to_string()]
            }
        })
    }
}

/// The words that name the model after a local program's `first` words: `serve MODEL` to
/// vLLM's CLI, `--model MODEL` to its module form, whose words `first` holds; a subcommand
/// `first` already ends with is not repeated.
fn model_words(spec: &Spec, first: &[String], model: &str) -> Vec<String> {
    let module = spec.module.as_ref().filter(|module| {
        first
            .windows(2)
            .any(|w| w[0] == "-m" && w[1] == module.name)
    });
    let mut words: Vec<String> = Vec::new();
    match module {
        Some(module) => words.push(module.model_flag.to_owned()),
        None => {
            let given = first.len() >= spec.subcommand.len()
                && first[first.len() - spec.subcommand.len()..]
                    .iter()
                    .zip(spec.subcommand)
                    .all(|(a, b)| a == b);
            if !given {
                words.extend(spec.subcommand.iter().map(|s| (*s).to_owned()));
            }
            words.extend(spec.model_flag.map(str::to_owned));
        }
    }
    words.push(model.to_owned());
    words
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::profiles::effective::Setting;
    use crate::profiles::error::Origin;
    use crate::profiles::file::parse;

    fn profile(text: &str) -> Effective {
        parse("test", Path::new("profiles/test.env"), text)
            .unwrap()
            .effective(&[])
    }

    #[test]
    fn launch_commands() {
        let effective = profile(
            "IMAGE=vllm/vllm-openai:v1\nMODEL=org/m\nMAX_MODEL_LEN=4096\nENFORCE_EAGER=1\nSPEC_DECODE=1\nNUM_SPECULATIVE_TOKENS=2\nEXTRA_ARGS=--max-num-batched-tokens 1024\n",
        );
        assert_eq!(
            effective
                .launch_command(Launcher::Local)
                .unwrap()
                .to_string(),
            "vllm serve org/m --port 8000 --max-model-len 4096 --enforce-eager \
             --speculative-config '{\"method\":\"mtp\",\"num_speculative_tokens\":2}' \
             --host 127.0.0.1 --max-num-batched-tokens 1024"
        );
        let podman = effective.launch_command(Launcher::Podman).unwrap();
        assert_eq!(podman.program, "podman");
        assert!(
            podman
                .to_string()
                .contains("-p 127.0.0.1:8000:8000 vllm/vllm-openai:v1 --model org/m --port 8000"),
            "{podman}"
        );
        let no_image = profile("MODEL=org/m\n");
        let error = no_image
            .launch_command(Launcher::Podman)
            .unwrap_err()
            .to_string();
        assert!(error.contains("IMAGE is not set"), "{error}");
        assert!(no_image.launch_command(Launcher::Local).is_ok());
    }

    #[test]
    fn llama_server_takes_its_own_flags() {
        let effective = profile(
            "ENGINE=llama-server\nMODEL=/models/tiny.gguf\nSERVED_MODEL_NAME=tiny\nPORT=8080\nMAX_MODEL_LEN=8192\nMAX_NUM_SEQS=4\nKV_CACHE_DTYPE=q8_0\nN_GPU_LAYERS=all\nFLASH_ATTN=1\nTHREADS=2\nEXTRA_ARGS=--jinja\n",
        );
        assert_eq!(
            effective
                .launch_command(Launcher::Local)
                .unwrap()
                .to_string(),
            "llama-server --model /models/tiny.gguf --alias tiny --port 8080 --ctx-size 8192 \
             --parallel 4 --cache-type-k q8_0 --cache-type-v q8_0 --n-gpu-layers all \
             --flash-attn on --threads 2 --metrics --host 127.0.0.1 --jinja"
        );
        let podman = effective
            .launch_command(Launcher::Podman)
            .unwrap_err()
            .to_string();
        assert!(podman.contains("IMAGE is not set"), "{podman}");
        let mut with_image = effective.clone();
        with_image.settings.push(Setting {
            key: "IMAGE".into(),
            value: "ghcr.io/ggml-org/llama.cpp:server-cuda".into(),
            origin: Origin::Override,
        });
        assert_eq!(
            with_image
                .launch_command(Launcher::Podman)
                .unwrap()
                .to_string(),
            "podman run --rm --name benchsite-8080 --device nvidia.com/gpu=all --ipc=host \
             --env HF_TOKEN -v benchsite-hf-cache:/root/.cache/huggingface -v /models:/models:ro \
             -p 127.0.0.1:8080:8080 ghcr.io/ggml-org/llama.cpp:server-cuda \
             --model /models/tiny.gguf --alias tiny --port 8080 --ctx-size 8192 --parallel 4 \
             --cache-type-k q8_0 --cache-type-v q8_0 --n-gpu-layers all --flash-attn on \
             --threads 2 --metrics --host 0.0.0.0 --jinja"
        );
        let program =
            profile("ENGINE=llama-server\nMODEL=m.gguf\nPROGRAM=/opt/llama/llama-server\n");
        assert_eq!(
            program.launch_command(Launcher::Local).unwrap().to_string(),
            "/opt/llama/llama-server --model m.gguf --port 8000 --metrics --host 127.0.0.1"
        );
    }

    /// SGLang's flags as its `server_args.py` (0.5.23, `srt/arg_groups/fields`) declares
    /// them: `--model-path`, `--context-length`, `--max-running-requests`,
    /// `--mem-fraction-static`, `--kv-cache-dtype`, `--tp-size`, `--disable-cuda-graph`,
    /// `--speculative-algorithm`, `--speculative-num-steps`, `--speculative-eagle-topk`,
    /// `--speculative-num-draft-tokens`, `--enable-metrics`, `--host`.
    #[test]
    fn sglang_takes_its_own_flags() {
        let effective = profile(
            "ENGINE=sglang\nIMAGE=lmsysorg/sglang:v0.5.23\nMODEL=Qwen/Qwen3-8B\nPORT=30000\nMAX_MODEL_LEN=32768\nMAX_NUM_SEQS=16\nMEM_FRACTION_STATIC=0.85\nKV_CACHE_DTYPE=fp8_e4m3\nTENSOR_PARALLEL_SIZE=2\nENFORCE_EAGER=1\nSPEC_DECODE=1\nNUM_SPECULATIVE_TOKENS=3\n",
        );
        let flags = "--port 30000 --context-length 32768 --max-running-requests 16 \
             --mem-fraction-static 0.85 --kv-cache-dtype fp8_e4m3 --tp-size 2 \
             --disable-cuda-graph --speculative-algorithm NEXTN --speculative-num-steps 3 \
             --speculative-eagle-topk 1 --speculative-num-draft-tokens 4 --enable-metrics";
        assert_eq!(
            effective
                .launch_command(Launcher::Local)
                .unwrap()
                .to_string(),
            format!(
                "python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B {flags} --host 127.0.0.1"
            )
        );
        assert!(
            effective
                .launch_command(Launcher::Podman)
                .unwrap()
                .to_string()
                .ends_with(&format!(
                    "-p 127.0.0.1:30000:30000 lmsysorg/sglang:v0.5.23 python3 -m sglang.launch_server \
                     --model-path Qwen/Qwen3-8B {flags} --host 0.0.0.0"
                ))
        );
    }

    /// vLLM run the three ways its users run it: its CLI, the module form of its server (which
    /// refuses `serve MODEL` and takes `--model`), and either with an environment.
    #[test]
    fn vllm_runs_as_its_cli_or_its_module_with_an_environment() {
        let local = |text: &str| {
            profile(text)
                .launch_command(Launcher::Local)
                .unwrap()
                .to_string()
        };
        assert_eq!(
            local("MODEL=m\nPROGRAM=/venv/bin/vllm\nENV=VLLM_CPU_KVCACHE_SPACE=1\n"),
            "VLLM_CPU_KVCACHE_SPACE=1 /venv/bin/vllm serve m --port 8000 --host 127.0.0.1"
        );
        assert_eq!(
            local("MODEL=m\nPROGRAM=vllm serve\n"),
            "vllm serve m --port 8000 --host 127.0.0.1"
        );
        assert_eq!(
            local(
                "MODEL=m\nPROGRAM=\"/venv/bin/python -m vllm.entrypoints.openai.api_server\"\n\
                 ENV='A=1 B=\"two words\"'\nMAX_MODEL_LEN=1024\n"
            ),
            "A=1 B='two words' /venv/bin/python -m vllm.entrypoints.openai.api_server --model m \
             --port 8000 --max-model-len 1024 --host 127.0.0.1"
        );
        let module = profile("MODEL=m\nPROGRAM=python3 -m vllm.entrypoints.openai.api_server\n")
            .launch_command(Launcher::Local)
            .unwrap();
        assert_eq!(module.program, "python3");
        assert_eq!(
            module.args[..4],
            ["-m", "vllm.entrypoints.openai.api_server", "--model", "m"]
        );
        let podman = profile("IMAGE=vllm/vllm-openai\nMODEL=m\nENV=VLLM_USE_V1=1\n")
            .launch_command(Launcher::Podman)
            .unwrap();
        assert!(podman.env.is_empty());
        let text = podman.to_string();
        assert!(
            text.contains("/root/.cache/huggingface --env VLLM_USE_V1=1 -p"),
            "{text}"
        );
        assert!(text.ends_with("--port 8000 --host 0.0.0.0"), "{text}");
        let sglang =
            local("ENGINE=sglang\nMODEL=m\nPROGRAM=/venv/bin/python -m sglang.launch_server\n");
        assert!(
            sglang.starts_with("/venv/bin/python -m sglang.launch_server --model-path m --port"),
            "{sglang}"
        );
        for (text, expected) in [
            ("ENV=1A=x\n", "NAME=VALUE words"),
            ("ENV=NAME\n", "NAME=VALUE words"),
            ("PROGRAM=\"\"\n", "a program, and any first words it takes"),
        ] {
            let error = parse("t", Path::new("profiles/t.env"), text)
                .unwrap_err()
                .to_string();
            assert!(
                error.starts_with("profiles/t.env:1: ") && error.contains(expected),
                "{error}"
            );
        }
    }

    #[test]
    fn a_key_the_engine_does_not_take_names_its_line() {
        let text = "ENGINE=llama-server\nMODEL=m.gguf\nENFORCE_EAGER=1\n";
        let error = parse("test", Path::new("profiles/test.env"), text)
            .unwrap_err()
            .to_string();
        assert_eq!(
            error,
            "profiles/test.env:3: ENFORCE_EAGER is not a setting of llama-server (ENGINE=llama-server \
             takes ENGINE, PROGRAM, ENV, IMAGE, MODEL, PORT, EXTRA_ARGS, SERVED_MODEL_NAME, MAX_MODEL_LEN, \
             MAX_NUM_SEQS, KV_CACHE_DTYPE, N_GPU_LAYERS, FLASH_ATTN, THREADS)"
        );
        // An override is checked where the command is made.
        let vllm = parse("test", Path::new("profiles/test.env"), "MODEL=m\n").unwrap();
        let error = vllm
            .effective(&crate::profiles::file::parse_overrides("N_GPU_LAYERS=10").unwrap())
            .launch_command(Launcher::Local)
            .unwrap_err()
            .to_string();
        assert!(
            error.starts_with("override: N_GPU_LAYERS is not a setting of vllm"),
            "{error}"
        );
        let bad = parse("t", Path::new("profiles/t.env"), "ENGINE=tgi\n").unwrap_err();
        assert_eq!(
            bad.to_string(),
            "profiles/t.env:1: ENGINE expected vllm, llama-server or sglang, found \"tgi\""
        );
        let bad = parse("t", Path::new("profiles/t.env"), "N_GPU_LAYERS=some\n").unwrap_err();
        assert!(
            bad.to_string().contains("a whole number, auto or all"),
            "{bad}"
        );
    }

    /// Every flag a profile setting each SGLang key gives is one SGLang 0.5.23 has, as its
    /// source lists them (tests/fixtures/sglang, read by Python's `ast`, not by benchsite).
    #[test]
    fn every_sglang_flag_is_one_its_source_declares() {
        let declared: Vec<&str> =
            include_str!("../../tests/fixtures/sglang/launch-server-flags-0.5.23.txt")
                .lines()
                .filter(|line| !line.starts_with('#'))
                .collect();
        let spec = Engine::Sglang.spec();
        let mut text = String::from("ENGINE=sglang\nIMAGE=lmsysorg/sglang\nMODEL=m\n");
        for name in spec.key_names() {
            let value = match name {
                "ENGINE" | "PROGRAM" | "ENV" | "IMAGE" | "MODEL" | "EXTRA_ARGS" => continue,
                "MEM_FRACTION_STATIC" => "0.8",
                "ENFORCE_EAGER" | "SPEC_DECODE" => "1",
                "SPEC_METHOD" | "KV_CACHE_DTYPE" | "SERVED_MODEL_NAME" => "x",
                _ => "2",
            };
            text.push_str(&format!("{name}={value}\n"));
        }
        let effective = profile(&text);
        for launcher in [Launcher::Local, Launcher::Podman] {
            let command = effective.launch_command(launcher).unwrap();
            let sglang = command
                .args
                .iter()
                .skip_while(|word| *word != "sglang.launch_server");
            let flags: Vec<&String> = sglang.filter(|word| word.starts_with("--")).collect();
            assert!(flags.len() >= 15, "{command}");
            for flag in flags {
                assert!(declared.contains(&flag.as_str()), "{flag} in {command}");
            }
        }
    }
}

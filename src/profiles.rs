//! Server launch profiles: `profiles/<name>.env` files of `KEY=VALUE` lines, the overrides a
//! run applies on top of one, the effective settings, and the `vllm serve` command they make.

use std::fmt;
use std::path::{Path, PathBuf};

/// The keys a profile understands, each with what it does.
pub const KNOWN_KEYS: &[(&str, &str)] = &[
    ("IMAGE", "container image the podman launcher runs"),
    ("MODEL", "checkpoint to serve"),
    ("SERVED_MODEL_NAME", "--served-model-name"),
    (
        "PORT",
        "--port, and the port published by podman (default 8000)",
    ),
    ("MAX_MODEL_LEN", "--max-model-len"),
    ("MAX_NUM_SEQS", "--max-num-seqs"),
    ("GPU_MEMORY_UTILIZATION", "--gpu-memory-utilization"),
    ("KV_CACHE_DTYPE", "--kv-cache-dtype"),
    ("ENFORCE_EAGER", "0 or 1: --enforce-eager (no CUDA graphs)"),
    (
        "LANGUAGE_MODEL_ONLY",
        "0 or 1: --language-model-only (no vision tower)",
    ),
    ("SPEC_DECODE", "0 or 1: --speculative-config"),
    ("SPEC_METHOD", "speculative method (default mtp)"),
    ("NUM_SPECULATIVE_TOKENS", "draft tokens per step"),
    (
        "EXTRA_ARGS",
        "further vllm serve arguments, appended verbatim",
    ),
];

const DEFAULT_PORT: u16 = 8000;

/// What can be wrong with a profile or an overrides string.
#[derive(Debug, thiserror::Error)]
pub enum ProfileError {
    /// The profile file could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// No such profile.
    #[error("no profile {name:?} in {}: expected one of {}", dir.display(), list(available))]
    NotFound {
        /// The name asked for.
        name: String,
        /// The profiles folder.
        dir: PathBuf,
        /// The profiles there.
        available: Vec<String>,
    },
    /// A line of a profile file is not `KEY=VALUE`.
    #[error("{}:{line}: expected {expected}, found {found}", path.display())]
    Syntax {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// What the line should be.
        expected: String,
        /// What it is.
        found: String,
    },
    /// A setting has a value its key cannot take.
    #[error("{origin}: {key} expected {expected}, found {value:?}")]
    Value {
        /// Where the setting comes from.
        origin: Origin,
        /// The key.
        key: String,
        /// The value.
        value: String,
        /// What the key takes.
        expected: &'static str,
    },
    /// A setting the launch command needs is missing.
    #[error("profile {profile}: {key} is not set; {hint}")]
    Missing {
        /// The profile.
        profile: String,
        /// The key.
        key: &'static str,
        /// What to do.
        hint: &'static str,
    },
}

fn list(names: &[String]) -> String {
    if names.is_empty() {
        "none (the folder has no .env files)".into()
    } else {
        names.join(", ")
    }
}

/// Where a setting comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// A line of a profile file.
    File {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
    },
    /// An override (a run's `overrides` or `--set`).
    Override,
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::File { path, line } => write!(f, "{}:{line}", path.display()),
            Origin::Override => f.write_str("override"),
        }
    }
}

/// One `KEY=VALUE` setting and where it comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Setting {
    /// The key.
    pub key: String,
    /// The value, unquoted.
    pub value: String,
    /// Where it was set.
    pub origin: Origin,
}

/// A parsed profile file.
#[derive(Debug, Clone, PartialEq)]
pub struct Profile {
    /// The file name without `.env`.
    pub name: String,
    /// The file.
    pub path: PathBuf,
    /// Its settings in file order; a key set twice keeps its last value.
    pub settings: Vec<Setting>,
    /// Lines worth a warning (unknown keys).
    pub warnings: Vec<String>,
}

/// The `.env` files of a profiles folder, by name.
pub fn names(dir: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .filter_map(|entry| {
            let path = entry.ok()?.path();
            (path.extension()? == "env")
                .then(|| path.file_stem()?.to_str().map(str::to_owned))
                .flatten()
        })
        .collect();
    names.sort();
    names
}

/// Loads the profile `name` from `dir`.
pub fn load(dir: &Path, name: &str) -> Result<Profile, ProfileError> {
    let path = dir.join(format!("{name}.env"));
    let known = names(dir);
    if !known.iter().any(|known| known == name) {
        return Err(ProfileError::NotFound {
            name: name.to_owned(),
            dir: dir.to_owned(),
            available: known,
        });
    }
    let text = std::fs::read_to_string(&path).map_err(|source| ProfileError::Read {
        path: path.clone(),
        source,
    })?;
    parse(name, &path, &text)
}

/// Loads every profile in `dir`; the ones that fail are returned as errors beside the rest.
pub fn load_all(dir: &Path) -> (Vec<Profile>, Vec<ProfileError>) {
    let mut profiles = Vec::new();
    let mut errors = Vec::new();
    for name in names(dir) {
        match load(dir, &name) {
            Ok(profile) => profiles.push(profile),
            Err(error) => errors.push(error),
        }
    }
    (profiles, errors)
}

/// Parses the text of a profile file; `path` names it in messages.
pub fn parse(name: &str, path: &Path, text: &str) -> Result<Profile, ProfileError> {
    let mut settings = Vec::new();
    let mut warnings = Vec::new();
    for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        let content = raw.trim();
        if content.is_empty() || content.starts_with('#') {
            continue;
        }
        let content = content
            .strip_prefix("export ")
            .unwrap_or(content)
            .trim_start();
        let syntax = |expected: &str, found: String| ProfileError::Syntax {
            path: path.to_owned(),
            line,
            expected: expected.to_owned(),
            found,
        };
        let Some((key, value)) = content.split_once('=') else {
            return Err(syntax("KEY=VALUE", format!("{content:?}")));
        };
        let key = key.trim();
        if !is_key(key) {
            return Err(syntax(
                "a key of capital letters, digits and underscores",
                format!("{key:?}"),
            ));
        }
        let value = unquote(value.trim()).map_err(|found| syntax("a closing quote", found))?;
        let origin = Origin::File {
            path: path.to_owned(),
            line,
        };
        if !KNOWN_KEYS.iter().any(|(known, _)| *known == key) {
            warnings.push(format!(
                "{origin}: unknown key {key} is ignored (known keys: {})",
                KNOWN_KEYS
                    .iter()
                    .map(|(k, _)| *k)
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        let setting = Setting {
            key: key.to_owned(),
            value,
            origin,
        };
        check_value(&setting)?;
        settings.push(setting);
    }
    Ok(Profile {
        name: name.to_owned(),
        path: path.to_owned(),
        settings,
        warnings,
    })
}

fn is_key(key: &str) -> bool {
    let mut bytes = key.bytes();
    matches!(bytes.next(), Some(b'A'..=b'Z' | b'_'))
        && bytes.all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
}

/// Removes matching quotes, or an inline ` # comment` from an unquoted value.
fn unquote(value: &str) -> Result<String, String> {
    for quote in ['"', '\''] {
        if let Some(rest) = value.strip_prefix(quote) {
            let Some(end) = rest.find(quote) else {
                return Err(format!("{value} (no closing {quote})"));
            };
            let after = rest[end + 1..].trim();
            if !(after.is_empty() || after.starts_with('#')) {
                return Err(format!("{after:?} after the closing quote"));
            }
            return Ok(rest[..end].to_owned());
        }
    }
    let value = match value.find(" #") {
        Some(at) => &value[..at],
        None => value,
    };
    Ok(value.trim_end().to_owned())
}

/// Parses an overrides string as runs write it: space-separated `KEY=VALUE`, where the value
/// of `EXTRA_ARGS` runs to the end of the string.
pub fn parse_overrides(text: &str) -> Result<Vec<Setting>, ProfileError> {
    let mut settings = Vec::new();
    let mut rest = text.trim_start();
    while !rest.is_empty() {
        let (token, tail) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
        let Some((key, value)) = token.split_once('=') else {
            return Err(ProfileError::Value {
                origin: Origin::Override,
                key: token.to_owned(),
                value: String::new(),
                expected: "KEY=VALUE",
            });
        };
        if !is_key(key) {
            return Err(ProfileError::Value {
                origin: Origin::Override,
                key: key.to_owned(),
                value: value.to_owned(),
                expected: "a key of capital letters, digits and underscores",
            });
        }
        let (value, tail) = if key == "EXTRA_ARGS" {
            let start = rest.find('=').map_or(rest.len(), |at| at + 1);
            (rest[start..].trim().to_owned(), "")
        } else {
            (value.to_owned(), tail)
        };
        let setting = Setting {
            key: key.to_owned(),
            value,
            origin: Origin::Override,
        };
        check_value(&setting)?;
        settings.push(setting);
        rest = tail.trim_start();
    }
    Ok(settings)
}

/// Parses one `--set KEY=VALUE` argument; the whole text after `=` is the value.
pub fn parse_set(text: &str) -> Result<Setting, ProfileError> {
    let invalid = |expected| ProfileError::Value {
        origin: Origin::Override,
        key: text.to_owned(),
        value: String::new(),
        expected,
    };
    let (key, value) = text.split_once('=').ok_or_else(|| invalid("KEY=VALUE"))?;
    if !is_key(key) {
        return Err(invalid("a key of capital letters, digits and underscores"));
    }
    let setting = Setting {
        key: key.to_owned(),
        value: value.to_owned(),
        origin: Origin::Override,
    };
    check_value(&setting)?;
    Ok(setting)
}

fn check_value(setting: &Setting) -> Result<(), ProfileError> {
    let value = setting.value.as_str();
    let expected = match setting.key.as_str() {
        "ENFORCE_EAGER" | "LANGUAGE_MODEL_ONLY" | "SPEC_DECODE" if !matches!(value, "0" | "1") => {
            "0 or 1"
        }
        "MAX_MODEL_LEN" | "MAX_NUM_SEQS" | "NUM_SPECULATIVE_TOKENS"
            if value.parse::<u64>().map_or(true, |n| n == 0) =>
        {
            "a whole number above 0"
        }
        "PORT" if value.parse::<u16>().map_or(true, |n| n == 0) => "a port number",
        "GPU_MEMORY_UTILIZATION"
            if value
                .parse::<f64>()
                .map_or(true, |x| !(x > 0.0 && x <= 1.0)) =>
        {
            "a fraction above 0 and at most 1"
        }
        "EXTRA_ARGS" if shell_words::split(value).is_err() => "arguments with balanced quotes",
        "MODEL" | "IMAGE" if value.is_empty() => "a name",
        _ => return Ok(()),
    };
    Err(ProfileError::Value {
        origin: setting.origin.clone(),
        key: setting.key.clone(),
        value: value.to_owned(),
        expected,
    })
}

impl Profile {
    /// The profile with `overrides` applied on top, in the profile's key order with new keys
    /// after it.
    pub fn effective(&self, overrides: &[Setting]) -> Effective {
        let mut settings: Vec<Setting> = Vec::new();
        for setting in self.settings.iter().chain(overrides) {
            match settings.iter_mut().find(|s| s.key == setting.key) {
                Some(existing) => *existing = setting.clone(),
                None => settings.push(setting.clone()),
            }
        }
        Effective {
            profile: self.name.clone(),
            settings,
        }
    }
}

/// A profile's settings with overrides applied: what the server is started with.
#[derive(Debug, Clone, PartialEq)]
pub struct Effective {
    /// The profile's name.
    pub profile: String,
    /// Every setting with the origin of its value.
    pub settings: Vec<Setting>,
}

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
    /// vllm serve on this machine.
    Local,
}

/// A program and its arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LaunchCommand {
    /// The program to run.
    pub program: String,
    /// Its arguments.
    pub args: Vec<String>,
}

impl fmt::Display for LaunchCommand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let words: Vec<_> = std::iter::once(&self.program)
            .chain(&self.args)
            .map(|word| shell_quote(word))
            .collect();
        f.write_str(&words.join(" "))
    }
}

impl Effective {
    /// The value of `key`, if set.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.settings
            .iter()
            .find(|setting| setting.key == key)
            .map(|setting| setting.value.as_str())
    }

    /// Whether a 0/1 switch is on; unset is off.
    pub fn switch(&self, key: &str) -> bool {
        self.get(key) == Some("1")
    }

    /// A whole-number setting, if set (values are checked when parsed).
    pub fn number(&self, key: &str) -> Option<u64> {
        self.get(key).and_then(|value| value.parse().ok())
    }

    /// The port the server listens on.
    pub fn port(&self) -> u16 {
        self.get("PORT")
            .and_then(|port| port.parse().ok())
            .unwrap_or(DEFAULT_PORT)
    }

    /// The command that starts the server.
    pub fn launch_command(&self, launcher: Launcher) -> Result<LaunchCommand, ProfileError> {
        let missing = |key, hint| ProfileError::Missing {
            profile: self.profile.clone(),
            key,
            hint,
        };
        let model = self
            .get("MODEL")
            .ok_or_else(|| missing("MODEL", "set MODEL to the checkpoint to serve"))?;
        let port = self.port();
        let mut serve_args = Vec::new();
        let mut flag = |name: &str, value: Option<&str>| {
            if let Some(value) = value {
                serve_args.push(name.to_owned());
                serve_args.push(value.to_owned());
            }
        };
        flag("--served-model-name", self.get("SERVED_MODEL_NAME"));
        flag("--port", Some(&port.to_string()));
        flag("--max-model-len", self.get("MAX_MODEL_LEN"));
        flag("--max-num-seqs", self.get("MAX_NUM_SEQS"));
        flag(
            "--gpu-memory-utilization",
            self.get("GPU_MEMORY_UTILIZATION"),
        );
        flag("--kv-cache-dtype", self.get("KV_CACHE_DTYPE"));
        if self.switch("ENFORCE_EAGER") {
            serve_args.push("--enforce-eager".into());
        }
        if self.switch("LANGUAGE_MODEL_ONLY") {
            serve_args.push("--language-model-only".into());
        }
        if self.switch("SPEC_DECODE") {
            let tokens = self.number("NUM_SPECULATIVE_TOKENS").ok_or_else(|| {
                missing(
                    "NUM_SPECULATIVE_TOKENS",
                    "SPEC_DECODE=1 needs the number of draft tokens per step",
                )
            })?;
            let config = serde_json::json!({
                "method": self.get("SPEC_METHOD").unwrap_or("mtp"),
                "num_speculative_tokens": tokens,
            });
            serve_args.push("--speculative-config".into());
            serve_args.push(config.to_string());
        }
        if let Some(extra) = self.get("EXTRA_ARGS") {
            serve_args.extend(shell_words::split(extra).unwrap_or_default());
        }
        Ok(match launcher {
            Launcher::Local => LaunchCommand {
                program: "vllm".into(),
                args: ["serve".to_owned(), model.to_owned()]
                    .into_iter()
                    .chain(serve_args)
                    .collect(),
            },
            Launcher::Podman => {
                let image = self.get("IMAGE").ok_or_else(|| {
                    missing(
                        "IMAGE",
                        "set IMAGE to a vLLM container image, or use --launcher local",
                    )
                })?;
                let mut args: Vec<String> = [
                    "run",
                    "--rm",
                    "--device",
                    "nvidia.com/gpu=all",
                    "--ipc=host",
                    "--env",
                    "HF_TOKEN",
                    "-v",
                    "benchsite-hf-cache:/root/.cache/huggingface",
                    "-p",
                ]
                .map(str::to_owned)
                .into();
                args.push(format!("127.0.0.1:{port}:{port}"));
                args.push(image.to_owned());
                args.push("--model".into());
                args.push(model.to_owned());
                args.extend(serve_args);
                LaunchCommand {
                    program: "podman".into(),
                    args,
                }
            }
        })
    }
}

impl fmt::Display for Effective {
    /// The settings as `KEY=VALUE` lines, each marked with where its value comes from.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let width = self
            .settings
            .iter()
            .map(|s| s.key.len() + s.value.len() + 1)
            .max()
            .unwrap_or(0);
        for setting in &self.settings {
            let pair = format!("{}={}", setting.key, quote_if_needed(&setting.value));
            let origin = match &setting.origin {
                Origin::File { line, .. } => format!("profile {}, line {line}", self.profile),
                Origin::Override => "override".into(),
            };
            writeln!(f, "{pair:width$}  # {origin}")?;
        }
        Ok(())
    }
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

fn quote_if_needed(value: &str) -> String {
    if value.contains(char::is_whitespace) || value.contains('#') || value.is_empty() {
        format!("\"{value}\"")
    } else {
        value.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn profile(text: &str) -> Profile {
        parse("test", Path::new("profiles/test.env"), text).unwrap()
    }

    #[test]
    fn parses_comments_quotes_and_export() {
        let p = profile(
            "# a comment\n\nMODEL=org/model\nexport PORT=8001\nIMAGE=\"img:1 x\"\nKV_CACHE_DTYPE='fp8'\nMAX_NUM_SEQS=8 # inline\nFOO=bar\n",
        );
        let effective = p.effective(&[]);
        assert_eq!(effective.get("MODEL"), Some("org/model"));
        assert_eq!(effective.port(), 8001);
        assert_eq!(effective.get("IMAGE"), Some("img:1 x"));
        assert_eq!(effective.get("KV_CACHE_DTYPE"), Some("fp8"));
        assert_eq!(effective.get("MAX_NUM_SEQS"), Some("8"));
        assert_eq!(p.warnings.len(), 1);
        assert!(p.warnings[0].contains("profiles/test.env:8: unknown key FOO"));
    }

    #[test]
    fn syntax_errors_name_file_and_line() {
        let error = parse("t", Path::new("profiles/t.env"), "MODEL=x\nnot a setting\n")
            .unwrap_err()
            .to_string();
        assert_eq!(
            error,
            "profiles/t.env:2: expected KEY=VALUE, found \"not a setting\""
        );
        let error = parse("t", Path::new("profiles/t.env"), "ENFORCE_EAGER=yes\n")
            .unwrap_err()
            .to_string();
        assert_eq!(
            error,
            "profiles/t.env:1: ENFORCE_EAGER expected 0 or 1, found \"yes\""
        );
        let error = parse("t", Path::new("profiles/t.env"), "IMAGE=\"abc\n")
            .unwrap_err()
            .to_string();
        assert!(error.contains("expected a closing quote"), "{error}");
    }

    #[test]
    fn extra_args_run_to_the_end_of_the_overrides() {
        let overrides = parse_overrides(
            "MODEL=Qwen/Qwen3.8-27B-FP8 MAX_MODEL_LEN=4096 EXTRA_ARGS=--max-num-batched-tokens 1024 --seed 1",
        )
        .unwrap();
        let pairs: Vec<_> = overrides
            .iter()
            .map(|s| (s.key.as_str(), s.value.as_str()))
            .collect();
        assert_eq!(
            pairs,
            [
                ("MODEL", "Qwen/Qwen3.8-27B-FP8"),
                ("MAX_MODEL_LEN", "4096"),
                ("EXTRA_ARGS", "--max-num-batched-tokens 1024 --seed 1"),
            ]
        );
        assert!(parse_overrides("").unwrap().is_empty());
        assert!(parse_overrides("   ").unwrap().is_empty());
        assert!(parse_overrides("SPEC_DECODE").is_err());
        assert!(parse_overrides("SPEC_DECODE=2").is_err());
    }

    #[test]
    fn overrides_replace_values_in_place() {
        let p = profile("MODEL=a\nMAX_MODEL_LEN=100\n");
        let effective = p.effective(&parse_overrides("MAX_MODEL_LEN=50 SPEC_DECODE=1").unwrap());
        let keys: Vec<_> = effective.settings.iter().map(|s| s.key.as_str()).collect();
        assert_eq!(keys, ["MODEL", "MAX_MODEL_LEN", "SPEC_DECODE"]);
        assert_eq!(effective.number("MAX_MODEL_LEN"), Some(50));
        assert_eq!(effective.settings[1].origin, Origin::Override);
    }

    #[test]
    fn launch_commands() {
        let p = profile(
            "IMAGE=vllm/vllm-openai:v1\nMODEL=org/m\nMAX_MODEL_LEN=4096\nENFORCE_EAGER=1\nSPEC_DECODE=1\nNUM_SPECULATIVE_TOKENS=2\nEXTRA_ARGS=--max-num-batched-tokens 1024\n",
        );
        let effective = p.effective(&[]);
        assert_eq!(
            effective
                .launch_command(Launcher::Local)
                .unwrap()
                .to_string(),
            "vllm serve org/m --port 8000 --max-model-len 4096 --enforce-eager \
             --speculative-config '{\"method\":\"mtp\",\"num_speculative_tokens\":2}' \
             --max-num-batched-tokens 1024"
        );
        let podman = effective.launch_command(Launcher::Podman).unwrap();
        assert_eq!(podman.program, "podman");
        assert!(
            podman
                .to_string()
                .contains("-p 127.0.0.1:8000:8000 vllm/vllm-openai:v1 --model org/m --port 8000"),
            "{podman}"
        );
        let no_image = profile("MODEL=org/m\n").effective(&[]);
        let error = no_image
            .launch_command(Launcher::Podman)
            .unwrap_err()
            .to_string();
        assert!(error.contains("IMAGE is not set"), "{error}");
        assert!(no_image.launch_command(Launcher::Local).is_ok());
    }
}

//! A profile's settings with overrides applied: what the server is started with.

use std::fmt;

use super::engine::Engine;
use super::error::{Origin, ProfileError};
use super::keys;

/// The port a server listens on when the profile names none.
const DEFAULT_PORT: u16 = 8000;

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
/// A profile's settings with overrides applied: what the server is started with.
#[derive(Debug, Clone, PartialEq)]
pub struct Effective {
    /// The profile's name.
    pub profile: String,
    /// Every setting with the origin of its value.
    pub settings: Vec<Setting>,
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

    /// The port the profile (with its overrides) names, if it names one.
    pub fn named_port(&self) -> Option<u16> {
        self.get("PORT").and_then(|port| port.parse().ok())
    }

    /// The same settings listening on `port`: a launch's free port, where the profile names
    /// none, so that two launches on one machine never collide.
    pub fn on_port(&self, port: u16) -> Effective {
        let mut on = self.clone();
        on.settings.retain(|setting| setting.key != "PORT");
        on.settings.push(Setting {
            key: "PORT".into(),
            value: port.to_string(),
            origin: Origin::Override,
        });
        on
    }

    /// Every setting as `KEY=VALUE`, in the profile's order: what a record keeps of what the
    /// server was started with.
    pub fn pairs(&self) -> Vec<String> {
        self.settings
            .iter()
            .map(|setting| format!("{}={}", setting.key, setting.value))
            .collect()
    }

    /// The port the server listens on.
    pub fn port(&self) -> u16 {
        self.get("PORT")
            .and_then(|port| port.parse().ok())
            .unwrap_or(DEFAULT_PORT)
    }

    /// The GPUs its server takes: vLLM's and SGLang's tensor × pipeline × data parallel
    /// sizes; llama-server's one, none with `N_GPU_LAYERS=0`.
    pub fn gpus(&self) -> u32 {
        let size = |key| {
            self.number(key)
                .and_then(|n| u32::try_from(n).ok())
                .unwrap_or(1)
        };
        match self.engine() {
            Engine::LlamaServer => u32::from(self.get("N_GPU_LAYERS") != Some("0")),
            Engine::Vllm | Engine::Sglang => size("TENSOR_PARALLEL_SIZE")
                .saturating_mul(size("PIPELINE_PARALLEL_SIZE"))
                .saturating_mul(size("DATA_PARALLEL_SIZE")),
        }
    }

    /// The engine the profile names; vLLM when it names none.
    pub fn engine(&self) -> Engine {
        self.get("ENGINE")
            .and_then(Engine::parse)
            .unwrap_or_default()
    }

    /// Every setting of a key some engine takes but this profile's does not: an error naming
    /// where the first was set. Keys no engine takes are warned of when the profile is read.
    pub fn check_keys(&self) -> Result<(), ProfileError> {
        let spec = self.engine().spec();
        match self
            .settings
            .iter()
            .find(|s| keys::find(&s.key).is_some() && !spec.takes(&s.key))
        {
            Some(setting) => Err(ProfileError::NotForEngine {
                origin: setting.origin.clone(),
                key: setting.key.clone(),
                refusal: spec.refusal(&setting.key),
            }),
            None => Ok(()),
        }
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

fn quote_if_needed(value: &str) -> String {
    if value.contains(char::is_whitespace) || value.contains('#') || value.is_empty() {
        format!("\"{value}\"")
    } else {
        value.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::profiles::file::{parse, parse_overrides};

    fn gpus(text: &str, overrides: &str) -> u32 {
        parse("t", Path::new("profiles/t.env"), text)
            .unwrap()
            .effective(&parse_overrides(overrides).unwrap())
            .gpus()
    }

    /// A Slurm task asks for what its server takes: by hand, 2 × 2 × 1 for vLLM at tensor
    /// parallel 2 and pipeline parallel 2; one for llama-server unless it offloads no layer.
    #[test]
    fn the_gpus_a_server_takes() {
        assert_eq!(gpus("MODEL=m\n", ""), 1);
        assert_eq!(
            gpus(
                "MODEL=m\nTENSOR_PARALLEL_SIZE=2\nPIPELINE_PARALLEL_SIZE=2\n",
                ""
            ),
            4
        );
        assert_eq!(gpus("MODEL=m\n", "TENSOR_PARALLEL_SIZE=8"), 8);
        assert_eq!(
            gpus(
                "ENGINE=sglang\nMODEL=m\nTENSOR_PARALLEL_SIZE=2\nDATA_PARALLEL_SIZE=2\n",
                ""
            ),
            4
        );
        assert_eq!(gpus("ENGINE=llama-server\nMODEL=m.gguf\n", ""), 1);
        assert_eq!(
            gpus("ENGINE=llama-server\nMODEL=m.gguf\nN_GPU_LAYERS=0\n", ""),
            0
        );
        assert_eq!(
            gpus("ENGINE=llama-server\nMODEL=m.gguf\nN_GPU_LAYERS=all\n", ""),
            1
        );
    }
}

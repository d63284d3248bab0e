//! Profile files, `profiles/<name>.env` of `KEY=VALUE` lines, and the overrides a run applies
//! on top of one.

use std::path::{Path, PathBuf};

use super::effective::{Effective, Setting};
use super::error::{Origin, ProfileError};
use super::keys::{self, KEYS};

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

/// Parses the text of a profile file; `path` names it in messages. A key the profile's engine
/// does not take is an error naming its line.
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
        if keys::find(key).is_none() {
            warnings.push(format!(
                "{origin}: unknown key {key} is ignored (known keys: {})",
                KEYS.iter().map(|k| k.name).collect::<Vec<_>>().join(", ")
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
    let profile = Profile {
        name: name.to_owned(),
        path: path.to_owned(),
        settings,
        warnings,
    };
    // A key some engine takes but this profile's does not is an error at its line.
    profile.effective(&[]).check_keys()?;
    Ok(profile)
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
    let Some(expected) = keys::find(&setting.key).and_then(|key| key.takes.refuses(&setting.value))
    else {
        return Ok(());
    };
    Err(ProfileError::Value {
        origin: setting.origin.clone(),
        key: setting.key.clone(),
        value: setting.value.clone(),
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
}

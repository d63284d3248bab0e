//! `benchsite.toml`: the report's site settings and collection defaults.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::data::figures::{LevelField, level};

/// The name of the settings file at a project's root.
pub const FILE_NAME: &str = "benchsite.toml";

/// What can be wrong with `benchsite.toml`.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not valid settings; the message carries line, column and the key.
    #[error("{}:{line}:{column}: {message}", path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What is wrong.
        message: String,
    },
}

/// The settings of one report project.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// The report's title.
    pub title: String,
    /// One sentence on what the report is.
    #[serde(default)]
    pub description: String,
    /// Who wrote it.
    #[serde(default)]
    pub author: String,
    /// Where the site is published; links are made relative to its path.
    #[serde(default = "default_base_url")]
    pub base_url: String,
    /// The language of the pages (`lang` attribute).
    #[serde(default = "default_language")]
    pub language: String,
    /// Whether the site has search (`/search/`, the header's search box and the index under
    /// `search/data/`).
    #[serde(default = "default_true")]
    pub search: bool,
    /// Defaults for `benchsite collect`.
    #[serde(default)]
    pub collect: CollectDefaults,
    /// An earlier results document (relative to the project) to show what changed since, on
    /// `/changes/`.
    #[serde(default)]
    pub baseline: Option<String>,
    /// Percent beyond which a bad move since the baseline is flagged as a regression.
    #[serde(default = "default_threshold")]
    pub regression_threshold: f64,
    /// The machines of a report measured on more than one, by slug (their page is
    /// `/hardware/<slug>/`). Without it the project has one machine, `data/results.json`.
    #[serde(default)]
    pub machines: BTreeMap<String, MachineConfig>,
    /// The latency limits a reader holds the sweeps to (`[slo]`); readers change them on the
    /// page.
    #[serde(default)]
    pub slo: Slo,
    /// What a GPU-hour costs (`[cost]`), for the cost per million output tokens.
    #[serde(default)]
    pub cost: Option<Cost>,
}

/// `[slo]`: upper bounds on a sweep level's figures, each named by its figure's key (one of
/// [`level::LIMITS`]). A level is within the limits when every bound given holds.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Slo {
    bounds: Vec<Bound>,
}

/// One limit: a figure and the most it may be.
#[derive(Clone, Copy)]
pub struct Bound {
    /// The figure bounded.
    pub figure: &'static LevelField,
    /// The most it may be, in the figure's unit.
    pub at_most: f64,
}

impl std::fmt::Debug for Bound {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "{} ≤ {}", self.figure.field.key, self.at_most)
    }
}

impl PartialEq for Bound {
    fn eq(&self, other: &Self) -> bool {
        self.figure.field.key == other.figure.field.key && self.at_most == other.at_most
    }
}

impl Slo {
    /// Limits on these figures, each at most its value; in [`level::LIMITS`]'s order.
    pub fn of(bounds: impl IntoIterator<Item = (&'static LevelField, f64)>) -> Slo {
        let mut bounds: Vec<Bound> = bounds
            .into_iter()
            .map(|(figure, at_most)| Bound { figure, at_most })
            .collect();
        bounds.sort_by_key(|b| {
            level::LIMITS
                .iter()
                .position(|f| f.field.key == b.figure.field.key)
        });
        Slo { bounds }
    }

    /// The bounds given, in [`level::LIMITS`]'s order.
    pub fn bounds(&self) -> &[Bound] {
        &self.bounds
    }

    /// Whether `level` holds every bound: no failed request, and each bounded figure
    /// measured and at most its bound.
    pub fn holds(&self, level: &crate::data::SweepLevel) -> bool {
        level.failed == 0
            && self.bounds.iter().all(|b| {
                b.figure
                    .field
                    .number_in(level)
                    .is_some_and(|value| value <= b.at_most)
            })
    }

    /// The limits in words: `TTFT p95 ≤ 2 s, latency p95 ≤ 10 s`.
    pub fn words(&self) -> String {
        self.bounds
            .iter()
            .map(|b| {
                format!(
                    "{} ≤ {} {}",
                    in_sentence(b.figure.field.name()),
                    b.at_most,
                    b.figure.field.unit
                )
            })
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The limits a report holds its sweeps to when `[slo]` gives none, which its pages
    /// state: TTFT p95 at most 2 s and at least 20 output tokens per second per user (1000 /
    /// the per-stream rate at most 50 ms).
    pub fn report_default() -> Slo {
        Slo::of([(&level::TTFT_P95_S, 2.0), (&level::TPOT_FROM_RATE_MS, 50.0)])
    }

    /// These limits, or [`Slo::report_default`] when they give no bound; and whether they
    /// are the defaults.
    pub fn or_report_default(&self) -> (Slo, bool) {
        match self.bounds.is_empty() {
            true => (Slo::report_default(), true),
            false => (self.clone(), false),
        }
    }

    /// The bound on a figure, when one is given.
    pub fn bound(&self, figure: &LevelField) -> Option<f64> {
        self.bounds
            .iter()
            .find(|b| b.figure.field.key == figure.field.key)
            .map(|b| b.at_most)
    }
}

/// A figure's name inside a sentence: `Latency p95` as `latency p95`, `TTFT p95` kept.
fn in_sentence(name: &str) -> String {
    let mut chars = name.chars();
    match (chars.next(), chars.next()) {
        (Some(first), Some(second)) if first.is_uppercase() && second.is_lowercase() => {
            first.to_lowercase().chain(name.chars().skip(1)).collect()
        }
        _ => name.to_owned(),
    }
}

/// A `[slo]` key, read as the registry's limit figure of that key.
struct LimitKey(&'static LevelField);

impl<'de> Deserialize<'de> for LimitKey {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = LimitKey;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("the key of a figure a limit may bound")
            }
            fn visit_str<E: serde::de::Error>(self, key: &str) -> Result<LimitKey, E> {
                level::limit(key)
                    .map(LimitKey)
                    .ok_or_else(|| E::unknown_field(key, &LIMIT_KEYS))
            }
        }
        deserializer.deserialize_identifier(Visitor)
    }
}

/// The keys of [`level::LIMITS`], for messages.
const LIMIT_KEYS: [&str; 7] = {
    let mut keys = [""; 7];
    let mut i = 0;
    while i < keys.len() {
        keys[i] = level::LIMITS[i].field.key;
        i += 1;
    }
    keys
};

impl<'de> Deserialize<'de> for Slo {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = Slo;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a table of limits, each a figure's key and the most it may be")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Slo, A::Error> {
                let mut bounds = Vec::new();
                while let Some(LimitKey(figure)) = map.next_key()? {
                    bounds.push((figure, map.next_value::<f64>()?));
                }
                Ok(Slo::of(bounds))
            }
        }
        deserializer.deserialize_map(Visitor)
    }
}

/// `[cost]`: the price of one GPU for an hour.
#[derive(Debug, Clone, PartialEq, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct Cost {
    /// The price of a GPU-hour.
    pub gpu_hour: f64,
    /// The currency's sign or code, written before the figure (default `$`).
    #[serde(default = "default_currency")]
    pub currency: String,
}

fn default_currency() -> String {
    "$".into()
}

/// One machine of a several-machine report: `[machines.<slug>]`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MachineConfig {
    /// Its results document, relative to the project (`data/<file>.json`).
    pub data: String,
    /// What its pages call it (default: its GPU, then its slug).
    #[serde(default)]
    pub title: Option<String>,
    /// An earlier results document of this machine to show what changed since, on
    /// `/changes/`.
    #[serde(default)]
    pub baseline: Option<String>,
    /// The label of its self-hosted runner, for `benchsite campaign workflow` (default: the
    /// slug).
    #[serde(default)]
    pub runner: Option<String>,
}

/// Defaults for the collection commands.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CollectDefaults {
    /// The inference server's base URL.
    #[serde(default = "default_server")]
    pub base_url: String,
    /// Seconds before one request is given up.
    #[serde(default = "default_timeout")]
    pub request_timeout_s: f64,
}

impl Default for CollectDefaults {
    fn default() -> Self {
        Self {
            base_url: default_server(),
            request_timeout_s: default_timeout(),
        }
    }
}

fn default_base_url() -> String {
    "/".into()
}

fn default_threshold() -> f64 {
    5.0
}

fn default_language() -> String {
    "en".into()
}

fn default_server() -> String {
    "http://127.0.0.1:8000".into()
}

fn default_timeout() -> f64 {
    600.0
}

/// Reads `benchsite.toml` from the project `root`.
pub fn load(root: &Path) -> Result<Config, ConfigError> {
    let path = root.join(FILE_NAME);
    let text = std::fs::read_to_string(&path).map_err(|source| ConfigError::Read {
        path: path.clone(),
        source,
    })?;
    parse(&path, &text)
}

/// The 1-based line and column of a byte offset of a TOML file's text.
pub fn position(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before
        .rsplit_once('\n')
        .map_or(before, |(_, last)| last)
        .chars()
        .count()
        + 1;
    (line, column)
}

/// Parses settings text; `path` names it in messages.
pub fn parse(path: &Path, text: &str) -> Result<Config, ConfigError> {
    let invalid = |offset: usize, message: String| {
        let (line, column) = position(text, offset);
        ConfigError::Invalid {
            path: path.to_owned(),
            line,
            column,
            message,
        }
    };
    let config: Config = toml::from_str(text).map_err(|error| {
        let offset = error.span().map_or(0, |span| span.start);
        invalid(offset, error.message().trim().to_owned())
    })?;
    for (key, url) in [
        ("base_url", &config.base_url),
        ("collect.base_url", &config.collect.base_url),
    ] {
        let ok = match key {
            "base_url" => url.starts_with('/') || url.starts_with("http"),
            _ => url.starts_with("http://") || url.starts_with("https://"),
        };
        if !ok {
            let offset = text.find(url.as_str()).unwrap_or(0);
            return Err(invalid(
                offset,
                format!("{key}: expected an http(s) URL, found {url:?}"),
            ));
        }
    }
    if config.collect.request_timeout_s <= 0.0 {
        let offset = text.find("request_timeout_s").unwrap_or(0);
        return Err(invalid(
            offset,
            format!(
                "collect.request_timeout_s: expected seconds above 0, found {}",
                config.collect.request_timeout_s
            ),
        ));
    }
    for bound in config.slo.bounds() {
        let (key, bound) = (bound.figure.field.key, bound.at_most);
        if !(bound > 0.0 && bound.is_finite()) {
            let offset = text.find(key).unwrap_or(0);
            return Err(invalid(
                offset,
                format!("slo.{key}: expected a limit above 0, found {bound}"),
            ));
        }
    }
    if let Some(cost) = &config.cost
        && !(cost.gpu_hour > 0.0 && cost.gpu_hour.is_finite())
    {
        let offset = text.find("gpu_hour").unwrap_or(0);
        return Err(invalid(
            offset,
            format!(
                "cost.gpu_hour: expected the price of a GPU-hour above 0, found {}",
                cost.gpu_hour
            ),
        ));
    }
    check_machines(&config, text, &invalid)?;
    if !config.machines.is_empty() && config.baseline.is_some() {
        return Err(invalid(
            text.find("baseline").unwrap_or(0),
            "baseline: a report with [machines] sets a baseline per machine, as \
             machines.<slug>.baseline"
                .into(),
        ));
    }
    Ok(config)
}

/// Each of `[machines]` is a slug with its own `.json` document in the data folder; the first
/// that is not is the error `invalid` makes at its place in `text`.
fn check_machines(
    config: &Config,
    text: &str,
    invalid: &dyn Fn(usize, String) -> ConfigError,
) -> Result<(), ConfigError> {
    let mut documents: BTreeMap<&str, &str> = BTreeMap::new();
    for (slug, machine) in &config.machines {
        let at = |needle: &str| {
            text.find(&format!("machines.{needle}"))
                .or_else(|| text.find(needle))
                .unwrap_or(0)
        };
        if slug.is_empty() || slug::slugify(slug) != *slug {
            return Err(invalid(
                at(slug),
                format!(
                    "machines.{slug}: expected a slug of lowercase letters, digits and hyphens \
                     (such as {:?}), as it becomes the page /hardware/<slug>/",
                    slug::slugify(slug)
                ),
            ));
        }
        let path = Path::new(&machine.data);
        if !path.starts_with("data")
            || path.extension().is_none_or(|ext| ext != "json")
            || path
                .components()
                .any(|c| c == std::path::Component::ParentDir)
        {
            return Err(invalid(
                at(&machine.data),
                format!(
                    "machines.{slug}.data: expected a .json file in the project's data folder, \
                     such as \"data/{slug}.json\", found {:?}",
                    machine.data
                ),
            ));
        }
        if let Some(other) = documents.insert(&machine.data, slug) {
            return Err(invalid(
                at(slug),
                format!(
                    "machines.{slug}.data: {:?} is already the document of machines.{other}; \
                     each machine needs its own",
                    machine.data
                ),
            ));
        }
    }
    Ok(())
}

fn default_true() -> bool {
    true
}

#[cfg(test)]
mod tests {

    #[test]
    fn limits_and_a_price_are_named_by_their_figure() {
        let path = Path::new("benchsite.toml");
        let config = parse(
            path,
            "title = \"x\"\n[slo]\nttft_p95_s = 2.0\ntpot_ms = 50\n[cost]\ngpu_hour = 2.5\n",
        )
        .unwrap();
        let bounds = |config: &Config| -> Vec<(&str, f64)> {
            config
                .slo
                .bounds()
                .iter()
                .map(|b| (b.figure.field.key, b.at_most))
                .collect()
        };
        assert_eq!(bounds(&config), [("ttft_p95_s", 2.0), ("tpot_ms", 50.0)]);
        assert_eq!(config.cost.unwrap().currency, "$");
        let config = parse(path, "title = \"x\"\n[slo]\ntpot_p95_ms = 50\n").unwrap();
        assert_eq!(bounds(&config), [("tpot_p95_ms", 50.0)]);
        let error = parse(path, "title = \"x\"\n[slo]\ntpot_p99_ms = 50\n")
            .unwrap_err()
            .to_string();
        assert!(
            error.starts_with("benchsite.toml:3:1: unknown field `tpot_p99_ms`, expected one of `ttft_p50_s`, `ttft_p95_s`, `tpot_p50_ms`, `tpot_p95_ms`, `tpot_ms`"),
            "{error}"
        );
        let error = parse(path, "title = \"x\"\n[cost]\ngpu_hour = 0\n")
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("cost.gpu_hour: expected the price of a GPU-hour above 0"),
            "{error}"
        );
    }

    use super::*;

    #[test]
    fn defaults_fill_what_is_left_out() {
        let config = parse(Path::new("benchsite.toml"), "title = \"x\"\n").unwrap();
        assert_eq!(config.base_url, "/");
        assert_eq!(config.language, "en");
        assert_eq!(config.collect.base_url, "http://127.0.0.1:8000");
    }

    #[test]
    fn machines_are_declared_by_slug_with_a_document_each() {
        let text = "title = \"x\"\n[machines.rtx-5090]\ndata = \"data/5090.json\"\n\
                    [machines.rtx-4090]\ndata = \"data/4090.json\"\ntitle = \"The 4090 box\"\n";
        let config = parse(Path::new("benchsite.toml"), text).unwrap();
        let slugs: Vec<&str> = config.machines.keys().map(String::as_str).collect();
        assert_eq!(slugs, ["rtx-4090", "rtx-5090"]);
        assert_eq!(
            config.machines["rtx-4090"].title.as_deref(),
            Some("The 4090 box")
        );
        let error = |text: &str| {
            parse(Path::new("benchsite.toml"), text)
                .unwrap_err()
                .to_string()
        };
        let shared = error(
            "title = \"x\"\n[machines.a]\ndata = \"data/r.json\"\n[machines.b]\ndata = \"data/r.json\"\n",
        );
        assert!(
            shared
                .contains("machines.b.data: \"data/r.json\" is already the document of machines.a"),
            "{shared}"
        );
        let slug = error("title = \"x\"\n[machines.\"RTX 5090\"]\ndata = \"data/r.json\"\n");
        assert!(slug.starts_with("benchsite.toml:2:"), "{slug}");
        assert!(slug.contains("\"rtx-5090\""), "{slug}");
        let outside = error("title = \"x\"\n[machines.a]\ndata = \"../r.json\"\n");
        assert!(
            outside.contains("in the project's data folder"),
            "{outside}"
        );
        let baseline = error(
            "title = \"x\"\nbaseline = \"data/old.json\"\n[machines.a]\ndata = \"data/a.json\"\n",
        );
        assert!(
            baseline.starts_with("benchsite.toml:2:1: baseline"),
            "{baseline}"
        );
    }

    #[test]
    fn errors_name_line_and_key() {
        let error = parse(
            Path::new("benchsite.toml"),
            "title = \"x\"\ntitel = \"y\"\n",
        )
        .unwrap_err()
        .to_string();
        assert!(
            error.starts_with("benchsite.toml:2:1: unknown field `titel`"),
            "{error}"
        );
        let error = parse(
            Path::new("benchsite.toml"),
            "title = \"x\"\n[collect]\nbase_url = \"localhost:8000\"\n",
        )
        .unwrap_err()
        .to_string();
        assert!(
            error.starts_with("benchsite.toml:3:13: collect.base_url"),
            "{error}"
        );
    }
}

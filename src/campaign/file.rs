//! `campaigns/<name>.toml`: the configurations (a profile, fixed settings and a matrix
//! expanded to its Cartesian product), the measurements every configuration gets, and the
//! machines; parsed with positions, validated, and expanded into [`Configuration`]s.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use indexmap::IndexMap;
use serde::Deserialize;
use toml::Spanned;

use super::CampaignError;
use crate::config::position;
use crate::data::{self, Id};
use crate::profiles::{self, Origin, Setting};
use crate::project::Machine;

/// The folder of a project's campaigns.
pub const DIR: &str = "campaigns";

/// A campaign: its configurations on each of its machines and what is measured of each.
#[derive(Debug, Clone)]
pub struct Campaign {
    /// `campaigns/<name>.toml`'s name.
    pub name: String,
    /// The file.
    pub path: PathBuf,
    /// What it is for, as the file says.
    pub description: Option<String>,
    /// Every configuration on every machine, the reference of the quality comparison first
    /// on each machine.
    pub configurations: Vec<Configuration>,
    /// The single-stream decode run, when the campaign has one.
    pub run: Option<RunSpec>,
    /// The sweeps, each with its name.
    pub sweeps: Vec<SweepSpec>,
    /// The quality comparison against a reference configuration.
    pub quality: Option<QualitySpec>,
    /// Run-to-run noise.
    pub jitter: Option<JitterSpec>,
    /// How servers are started.
    pub launch: LaunchSpec,
}

/// One configuration on one machine: a profile with settings.
#[derive(Debug, Clone, PartialEq)]
pub struct Configuration {
    /// Its id: the run's id, the failure's, the prefix of its other records.
    pub id: Id,
    /// The machine's slug (empty in a single-machine project).
    pub machine: String,
    /// `profiles/<profile>.env`.
    pub profile: String,
    /// The settings on top of the profile: `set`, then this configuration's matrix values.
    pub settings: Vec<Setting>,
    /// The model's shape, for its run record.
    pub shape: Option<String>,
    /// The weights' precision, for its run and failure records.
    pub precision: Option<String>,
    /// The id of the configuration its quality is compared with, when it is not itself the
    /// reference.
    pub reference: Option<Id>,
    /// The port its server listens on (the profile's PORT), when the profile loads.
    pub port: Option<u16>,
}

impl Configuration {
    /// What distinguishes its sweeps and comparisons, beside what `collect sweep` derives
    /// from the profile (sequences, vision, CUDA graphs, speculative decoding): each of its
    /// settings, the KV-cache type as `kv` (the reports' filter), the others by their key in
    /// lowercase.
    pub fn dimensions(&self) -> Vec<(String, String)> {
        const DERIVED: [&str; 4] = [
            "MAX_NUM_SEQS",
            "LANGUAGE_MODEL_ONLY",
            "ENFORCE_EAGER",
            "SPEC_DECODE",
        ];
        self.settings
            .iter()
            .filter(|s| !DERIVED.contains(&s.key.as_str()))
            .map(|s| {
                let key = match s.key.as_str() {
                    "KV_CACHE_DTYPE" => "kv".to_owned(),
                    key => key.to_lowercase(),
                };
                (key, s.value.clone())
            })
            .collect()
    }
}

/// `[run]`: the `collect run` options.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunSpec {
    /// Samples after the cold request.
    #[serde(default = "default_samples")]
    pub samples: usize,
    /// Tokens per request.
    #[serde(default = "default_run_tokens")]
    pub max_tokens: u64,
    /// The prompt (default: the document's `method.prompt`).
    #[serde(default)]
    pub prompt: Option<String>,
}

/// `[[sweep]]`: the `collect sweep` options.
#[derive(Debug, Clone, PartialEq)]
pub struct SweepSpec {
    /// Its name within the configuration: the sweep's label is `<configuration> <name>`.
    pub name: String,
    /// Concurrency levels, increasing.
    pub levels: Vec<u64>,
    /// Words per prompt.
    pub prompt_words: u64,
    /// Tokens per answer.
    pub output_tokens: u64,
    /// Requests per stream at each level.
    pub rounds: u64,
    /// Generate every output token even past the end of the answer.
    pub ignore_eos: bool,
    /// Leave the chat template's thinking on.
    pub thinking: bool,
}

/// `[quality]`: a capture of every configuration scored against the reference's, and the
/// divergence of each from the reference.
#[derive(Debug, Clone, PartialEq)]
pub struct QualitySpec {
    /// The reference configuration as the file names it.
    pub reference: String,
    /// The prompt set.
    pub prompts: String,
    /// Top-k logprobs per position.
    pub top_k: u64,
    /// Tokens generated per prompt.
    pub max_tokens: u64,
    /// Requests in flight.
    pub concurrency: usize,
    /// Leave the chat template's thinking on.
    pub thinking: bool,
}

/// `[jitter]`: the `collect jitter` options.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JitterSpec {
    /// How many prompts of the set.
    #[serde(default = "default_jitter_prompts")]
    pub prompts: usize,
    /// Scorings of each continuation.
    #[serde(default = "default_repeats")]
    pub repeats: usize,
    /// Tokens per continuation.
    #[serde(default = "default_jitter_tokens")]
    pub max_tokens: u64,
    /// Top-k logprobs per position.
    #[serde(default = "default_top_k")]
    pub top_k: u64,
    /// The prompt set.
    #[serde(default = "default_prompts")]
    pub prompt_set: String,
    /// Leave the chat template's thinking on.
    #[serde(default)]
    pub thinking: bool,
}

/// `[launch]`: how each configuration's server is started and stopped.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LaunchSpec {
    /// `podman` or `local` (`vllm serve`).
    #[serde(default = "default_launcher")]
    pub launcher: String,
    /// Seconds a server may take to become ready.
    #[serde(default = "default_ready")]
    pub ready_timeout_s: f64,
    /// Seconds a server may take to stop before it is killed.
    #[serde(default = "default_stop")]
    pub stop_timeout_s: f64,
}

impl Default for LaunchSpec {
    fn default() -> Self {
        Self {
            launcher: default_launcher(),
            ready_timeout_s: default_ready(),
            stop_timeout_s: default_stop(),
        }
    }
}

fn default_samples() -> usize {
    3
}
fn default_run_tokens() -> u64 {
    300
}
fn default_jitter_prompts() -> usize {
    8
}
fn default_repeats() -> usize {
    4
}
fn default_jitter_tokens() -> u64 {
    128
}
fn default_top_k() -> u64 {
    20
}
fn default_prompts() -> String {
    crate::project::PROMPTS.to_owned()
}
fn default_launcher() -> String {
    "podman".to_owned()
}
fn default_ready() -> f64 {
    900.0
}
fn default_stop() -> f64 {
    30.0
}

/// A setting's value as the file writes it: a string, a number or a switch.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
enum Scalar {
    Text(String),
    Integer(i64),
    Float(f64),
    Bool(bool),
}

impl Scalar {
    fn text(&self) -> String {
        match self {
            Scalar::Text(text) => text.clone(),
            Scalar::Integer(n) => n.to_string(),
            Scalar::Float(x) => x.to_string(),
            Scalar::Bool(on) => u8::from(*on).to_string(),
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileText {
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    machines: Option<Spanned<Vec<Spanned<String>>>>,
    #[serde(default)]
    launch: LaunchSpec,
    #[serde(rename = "config")]
    configs: Spanned<Vec<ConfigText>>,
    #[serde(default)]
    run: Option<RunSpec>,
    #[serde(default)]
    sweep: Vec<Spanned<SweepText>>,
    #[serde(default)]
    quality: Option<QualityText>,
    #[serde(default)]
    jitter: Option<JitterSpec>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigText {
    profile: Spanned<String>,
    #[serde(default)]
    set: IndexMap<Spanned<String>, Spanned<Scalar>>,
    #[serde(default)]
    matrix: IndexMap<Spanned<String>, Spanned<Vec<Scalar>>>,
    #[serde(default)]
    id: Option<Spanned<String>>,
    #[serde(default)]
    shape: Option<String>,
    #[serde(default)]
    precision: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SweepText {
    #[serde(default)]
    name: Option<Spanned<String>>,
    levels: Spanned<Vec<u64>>,
    #[serde(default)]
    prompt_words: Option<u64>,
    #[serde(default)]
    prompt_tokens: Option<Spanned<u64>>,
    #[serde(default = "default_output")]
    output_tokens: u64,
    #[serde(default = "default_rounds")]
    rounds: u64,
    #[serde(default)]
    ignore_eos: bool,
    #[serde(default)]
    thinking: bool,
}

fn default_output() -> u64 {
    256
}
fn default_rounds() -> u64 {
    2
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct QualityText {
    reference: Spanned<String>,
    #[serde(default = "default_prompts")]
    prompts: String,
    #[serde(default = "default_top_k")]
    top_k: u64,
    #[serde(default = "default_capture_tokens")]
    max_tokens: u64,
    #[serde(default = "default_concurrency")]
    concurrency: usize,
    #[serde(default)]
    thinking: bool,
}

fn default_capture_tokens() -> u64 {
    256
}
fn default_concurrency() -> usize {
    4
}

/// What the parser needs of the project: its machines and profiles.
pub(super) struct Context<'a> {
    /// The project's machines (one with an empty slug in a single-machine project).
    pub machines: &'a [Machine],
    /// The profiles folder.
    pub profiles: &'a Path,
}

/// Problems of one file, each at its place.
struct Problems<'t> {
    path: &'t Path,
    text: &'t str,
    found: Vec<CampaignError>,
}

impl Problems<'_> {
    fn at(&mut self, offset: usize, message: impl Into<String>) {
        let (line, column) = position(self.text, offset);
        self.found.push(CampaignError::Invalid {
            path: self.path.to_owned(),
            line,
            column,
            message: message.into(),
        });
    }
}

/// Parses and expands the campaign `name` at `path`; every problem found, each with its
/// line and column.
pub(super) fn parse(
    name: &str,
    path: &Path,
    text: &str,
    context: &Context,
) -> Result<Campaign, Vec<CampaignError>> {
    let mut problems = Problems {
        path,
        text,
        found: Vec::new(),
    };
    let file: FileText = match toml::from_str(text) {
        Ok(file) => file,
        Err(error) => {
            problems.at(
                error.span().map_or(0, |span| span.start),
                error.message().trim().to_owned(),
            );
            return Err(problems.found);
        }
    };
    let machines = machines(&file, context, &mut problems);
    let profile_names = profiles::names(context.profiles);
    if file.configs.get_ref().is_empty() {
        problems.at(
            file.configs.span().start,
            "at least one [[config]] with a profile",
        );
    }
    if file.run.is_none()
        && file.sweep.is_empty()
        && file.quality.is_none()
        && file.jitter.is_none()
    {
        problems.at(0, "a measurement: [run], [[sweep]], [quality] or [jitter]");
    }
    if !matches!(file.launch.launcher.as_str(), "podman" | "local") {
        problems.at(
            text.find("launcher").unwrap_or(0),
            format!(
                "launch.launcher: expected \"podman\" or \"local\", found {:?}",
                file.launch.launcher
            ),
        );
    }
    let sweeps = sweeps(&file, &mut problems);
    let several =
        machines.len() > 1 || context.machines.first().is_some_and(|m| !m.slug.is_empty());
    let mut configurations = Vec::new();
    let mut ids: HashMap<String, usize> = HashMap::new();
    let mut loaded: HashMap<String, Option<profiles::Profile>> = HashMap::new();
    for config in file.configs.get_ref() {
        let profile = config.profile.get_ref();
        let parsed = loaded
            .entry(profile.clone())
            .or_insert_with(|| profiles::load(context.profiles, profile).ok())
            .clone();
        if !profile_names.contains(profile) {
            problems.at(
                config.profile.span().start,
                format!(
                    "profile: expected the name of a profile in {} (one of: {}), found {profile:?}",
                    context.profiles.display(),
                    profile_names.join(", ")
                ),
            );
        }
        let Some(fixed) = settings(&config.set, &mut problems) else {
            continue;
        };
        for (key, _) in &config.matrix {
            if config.set.keys().any(|k| k.get_ref() == key.get_ref()) {
                problems.at(
                    key.span().start,
                    format!("matrix.{}: a key not also in set", key.get_ref()),
                );
            }
        }
        for combination in product(&config.matrix, &mut problems) {
            let mut all = fixed.clone();
            all.extend(combination.iter().cloned());
            for machine in &machines {
                let (id, stem) = match identify(config, profile, &combination, machine, several) {
                    Ok(found) => found,
                    Err((offset, message)) => {
                        problems.at(offset, message);
                        continue;
                    }
                };
                let offset = config
                    .id
                    .as_ref()
                    .map_or(config.profile.span().start, |id| id.span().start);
                if let Some(first) = ids.insert(id.as_str().to_owned(), offset) {
                    let (line, _) = position(text, first);
                    problems.at(
                        offset,
                        format!(
                            "configuration ids unique in the campaign: {id} is also the id of a configuration on line {line}; give each [[config]] an id template over its matrix keys, such as id = \"{}-{{{}}}\"",
                            data::slugify(profile),
                            config.matrix.keys().next().map_or("KEY", |k| k.get_ref())
                        ),
                    );
                }
                configurations.push((
                    stem,
                    Configuration {
                        id,
                        machine: machine.clone(),
                        profile: profile.clone(),
                        settings: all.clone(),
                        shape: config.shape.clone(),
                        precision: config.precision.clone(),
                        reference: None,
                        port: parsed.as_ref().map(|p| p.effective(&all).port()),
                    },
                ));
            }
        }
    }
    let quality = file.quality.as_ref().map(|q| QualitySpec {
        reference: q.reference.get_ref().clone(),
        prompts: q.prompts.clone(),
        top_k: q.top_k,
        max_tokens: q.max_tokens,
        concurrency: q.concurrency.max(1),
        thinking: q.thinking,
    });
    if let Some(q) = &file.quality {
        references(&mut configurations, q, &mut problems);
    }
    if !problems.found.is_empty() {
        return Err(problems.found);
    }
    Ok(Campaign {
        name: name.to_owned(),
        path: path.to_owned(),
        description: file.description,
        configurations: configurations.into_iter().map(|(_, c)| c).collect(),
        run: file.run,
        sweeps,
        quality,
        jitter: file.jitter,
        launch: file.launch,
    })
}

/// The machines the campaign runs on: `machines`, each declared by the project; by default
/// every machine of the project.
fn machines(file: &FileText, context: &Context, problems: &mut Problems) -> Vec<String> {
    let declared: Vec<&str> = context.machines.iter().map(|m| m.slug.as_str()).collect();
    let Some(listed) = &file.machines else {
        return declared.iter().map(|s| (*s).to_owned()).collect();
    };
    if listed.get_ref().is_empty() {
        problems.at(listed.span().start, "machines: at least one machine");
    }
    let mut found = Vec::new();
    for slug in listed.get_ref() {
        if declared.contains(&slug.get_ref().as_str()) && !slug.get_ref().is_empty() {
            found.push(slug.get_ref().clone());
        } else {
            let known = declared
                .iter()
                .filter(|s| !s.is_empty())
                .copied()
                .collect::<Vec<_>>();
            problems.at(
                slug.span().start,
                if known.is_empty() {
                    format!(
                        "machines: this report declares no [machines] in benchsite.toml; leave machines out (found {:?})",
                        slug.get_ref()
                    )
                } else {
                    format!(
                        "machines: expected a machine of benchsite.toml (one of: {}), found {:?}",
                        known.join(", "),
                        slug.get_ref()
                    )
                },
            );
        }
    }
    found
}

/// The sweeps with their names: given, or `sweep` for a campaign's only sweep and
/// `sweep-<n>` otherwise.
fn sweeps(file: &FileText, problems: &mut Problems) -> Vec<SweepSpec> {
    let mut names = BTreeSet::new();
    let only = file.sweep.len() == 1;
    let mut sweeps = Vec::new();
    for (index, spanned) in file.sweep.iter().enumerate() {
        let sweep = spanned.get_ref();
        let name = match &sweep.name {
            Some(name) => {
                if data::slugify(name.get_ref()) != *name.get_ref() {
                    problems.at(
                        name.span().start,
                        format!(
                            "sweep.name: expected a slug of lowercase letters, digits and hyphens, found {:?}",
                            name.get_ref()
                        ),
                    );
                }
                name.get_ref().clone()
            }
            None if only => "sweep".to_owned(),
            None => format!("sweep-{}", index + 1),
        };
        if !names.insert(name.clone()) {
            problems.at(
                spanned.span().start,
                format!("sweep names unique in the campaign: {name:?} is given twice"),
            );
        }
        let levels = sweep.levels.get_ref();
        if levels.is_empty() || levels[0] == 0 || levels.windows(2).any(|w| w[0] >= w[1]) {
            problems.at(
                sweep.levels.span().start,
                "sweep.levels: expected increasing concurrencies of at least 1, e.g. [1, 2, 4, 8]",
            );
        }
        if let Some(tokens) = &sweep.prompt_tokens {
            problems.at(
                tokens.span().start,
                "sweep.prompt_words: a measured sweep generates its prompts by words (prompt_tokens is for imported sweeps)",
            );
        }
        if sweep.output_tokens == 0 || sweep.rounds == 0 || sweep.prompt_words == Some(0) {
            problems.at(
                spanned.span().start,
                "sweep: prompt_words, output_tokens and rounds of at least 1",
            );
        }
        sweeps.push(SweepSpec {
            name,
            levels: levels.clone(),
            prompt_words: sweep.prompt_words.unwrap_or(700),
            output_tokens: sweep.output_tokens,
            rounds: sweep.rounds,
            ignore_eos: sweep.ignore_eos,
            thinking: sweep.thinking,
        });
    }
    sweeps
}

/// `set` as settings, each checked as a `--set` would be.
fn settings(
    set: &IndexMap<Spanned<String>, Spanned<Scalar>>,
    problems: &mut Problems,
) -> Option<Vec<Setting>> {
    let mut settings = Vec::new();
    let mut ok = true;
    for (key, value) in set {
        match setting(key.get_ref(), &value.get_ref().text()) {
            Ok(setting) => settings.push(setting),
            Err(message) => {
                ok = false;
                problems.at(
                    key.span().start,
                    format!("set.{}: {message}", key.get_ref()),
                );
            }
        }
    }
    ok.then_some(settings)
}

fn setting(key: &str, value: &str) -> Result<Setting, String> {
    profiles::parse_set(&format!("{key}={value}"))
        .map(|setting| Setting {
            origin: Origin::Override,
            ..setting
        })
        .map_err(|error| error.to_string())
}

/// Every combination of the matrix's values, in the file's order (the last key varying
/// fastest); one empty combination without a matrix.
fn product(
    matrix: &IndexMap<Spanned<String>, Spanned<Vec<Scalar>>>,
    problems: &mut Problems,
) -> Vec<Vec<Setting>> {
    let mut combinations = vec![Vec::new()];
    for (key, values) in matrix {
        if values.get_ref().is_empty() {
            problems.at(
                values.span().start,
                format!("matrix.{}: at least one value", key.get_ref()),
            );
            return Vec::new();
        }
        let mut settings = Vec::new();
        for value in values.get_ref() {
            match setting(key.get_ref(), &value.text()) {
                Ok(setting) => settings.push(setting),
                Err(message) => {
                    problems.at(
                        key.span().start,
                        format!("matrix.{}: {message}", key.get_ref()),
                    );
                    return Vec::new();
                }
            }
        }
        combinations = combinations
            .into_iter()
            .flat_map(|combination| {
                settings.iter().map(move |setting| {
                    let mut next = combination.clone();
                    next.push(setting.clone());
                    next
                })
            })
            .collect();
    }
    combinations
}

/// A configuration's id and its stem (the id before the machine's suffix): from its `id`
/// template, or the profile's slug with each matrix key and value, and the machine's slug
/// when the project has several machines. The error is an offset and a message.
fn identify(
    config: &ConfigText,
    profile: &str,
    combination: &[Setting],
    machine: &str,
    several: bool,
) -> Result<(Id, String), (usize, String)> {
    let (stem, id) = match &config.id {
        Some(template) => {
            let filled = fill(template.get_ref(), profile, combination, machine)
                .map_err(|message| (template.span().start, message))?;
            if several && !template.get_ref().contains("{machine}") {
                return Err((
                    template.span().start,
                    "id: a template with {machine} in it, as the campaign runs on several machines and ids are unique across them".to_owned(),
                ));
            }
            let stem = fill(template.get_ref(), profile, combination, "")
                .map_err(|message| (template.span().start, message))?;
            (stem, filled)
        }
        None => {
            let mut words = vec![profile.to_owned()];
            for setting in combination {
                words.push(setting.key.clone());
                words.push(setting.value.clone());
            }
            let stem = data::slugify(&words.join("-"));
            let id = if several && !machine.is_empty() {
                format!("{stem}-{machine}")
            } else {
                stem.clone()
            };
            (stem, id)
        }
    };
    let offset = config
        .id
        .as_ref()
        .map_or(config.profile.span().start, |t| t.span().start);
    let id = Id::new(&id).map_err(|message| (offset, format!("id: {message}")))?;
    Ok((id, data::slugify(&stem)))
}

/// `template` with `{profile}`, `{machine}` and each `{KEY}` of the combination replaced by
/// the slug of its value.
fn fill(
    template: &str,
    profile: &str,
    combination: &[Setting],
    machine: &str,
) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let Some(close) = rest[open..].find('}') else {
            return Err(format!("id: an unclosed {{ in {template:?}"));
        };
        let name = &rest[open + 1..open + close];
        let value = match name {
            "profile" => data::slugify(profile),
            "machine" => machine.to_owned(),
            key => match combination.iter().find(|s| s.key == key) {
                Some(setting) => data::slugify(&setting.value),
                None => {
                    let mut names = vec!["profile".to_owned(), "machine".to_owned()];
                    names.extend(combination.iter().map(|s| s.key.clone()));
                    return Err(format!(
                        "id: {{{name}}} is not a matrix key; the template can use {}",
                        names
                            .iter()
                            .map(|n| format!("{{{n}}}"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ));
                }
            },
        };
        out.push_str(&value);
        rest = &rest[open + close + 1..];
    }
    out.push_str(rest);
    // An empty machine leaves a hyphen behind.
    Ok(out
        .split('-')
        .filter(|word| !word.is_empty())
        .collect::<Vec<_>>()
        .join("-"))
}

/// Resolves `[quality] reference` on each machine (by id, with `{machine}` filled, or by
/// stem) and puts each machine's reference first.
fn references(
    configurations: &mut Vec<(String, Configuration)>,
    quality: &QualityText,
    problems: &mut Problems,
) {
    let wanted = quality.reference.get_ref();
    let machines: Vec<String> = configurations
        .iter()
        .map(|(_, c)| c.machine.clone())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    for machine in machines {
        let on_machine = |c: &Configuration| c.machine == machine;
        let reference = configurations
            .iter()
            .find(|(stem, c)| {
                on_machine(c)
                    && (c.id.as_str() == wanted.replace("{machine}", &machine) || stem == wanted)
            })
            .map(|(_, c)| c.id.clone());
        let Some(reference) = reference else {
            let ids: Vec<&str> = configurations
                .iter()
                .filter(|(_, c)| on_machine(c))
                .map(|(stem, _)| stem.as_str())
                .collect();
            problems.at(
                quality.reference.span().start,
                format!(
                    "quality.reference: expected a configuration of this campaign (one of: {}), found {wanted:?}",
                    ids.join(", ")
                ),
            );
            return;
        };
        for (_, c) in configurations.iter_mut().filter(|(_, c)| on_machine(c)) {
            c.reference = (c.id != reference).then(|| reference.clone());
        }
        // The reference's capture is what the others are scored against: it goes first.
        let at = configurations
            .iter()
            .position(|(_, c)| c.id == reference)
            .expect("found above");
        let first = configurations
            .iter()
            .position(|(_, c)| on_machine(c))
            .expect("the reference is on the machine");
        let moved = configurations.remove(at);
        configurations.insert(first, moved);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn context_dir() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("profiles")).unwrap();
        for name in ["big", "small"] {
            std::fs::write(
                dir.path().join(format!("profiles/{name}.env")),
                "MODEL=org/model\nMAX_MODEL_LEN=8192\n",
            )
            .unwrap();
        }
        dir
    }

    fn single() -> Vec<Machine> {
        vec![Machine {
            slug: String::new(),
            title: None,
            data: "data/results.json".into(),
            baseline: None,
            runner: None,
        }]
    }

    fn parsed(text: &str, machines: &[Machine]) -> Result<Campaign, Vec<CampaignError>> {
        let dir = context_dir();
        let profiles = dir.path().join("profiles");
        parse(
            "night",
            Path::new("campaigns/night.toml"),
            text,
            &Context {
                machines,
                profiles: &profiles,
            },
        )
    }

    fn messages(errors: Vec<CampaignError>) -> Vec<String> {
        errors.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn a_matrix_expands_to_its_product_with_derived_ids() {
        let campaign = parsed(
            r#"
[[config]]
profile = "big"
set = { MAX_NUM_SEQS = 8 }
matrix = { SPEC_DECODE = [0, 1], KV_CACHE_DTYPE = ["fp8", "auto"] }

[[config]]
profile = "small"
id = "small-{profile}"

[run]
"#,
            &single(),
        )
        .unwrap();
        let ids: Vec<&str> = campaign
            .configurations
            .iter()
            .map(|c| c.id.as_str())
            .collect();
        assert_eq!(
            ids,
            [
                "big-spec-decode-0-kv-cache-dtype-fp8",
                "big-spec-decode-0-kv-cache-dtype-auto",
                "big-spec-decode-1-kv-cache-dtype-fp8",
                "big-spec-decode-1-kv-cache-dtype-auto",
                "small-small",
            ]
        );
        let settings: Vec<String> = campaign.configurations[2]
            .settings
            .iter()
            .map(|s| format!("{}={}", s.key, s.value))
            .collect();
        assert_eq!(
            settings,
            ["MAX_NUM_SEQS=8", "SPEC_DECODE=1", "KV_CACHE_DTYPE=fp8"]
        );
        assert_eq!(campaign.run.as_ref().unwrap().samples, 3);
    }

    #[test]
    fn several_machines_suffix_ids_and_templates_must_name_the_machine() {
        let machines: Vec<Machine> = ["a", "b"]
            .iter()
            .map(|slug| Machine {
                slug: (*slug).to_owned(),
                title: None,
                data: format!("data/{slug}.json"),
                baseline: None,
                runner: None,
            })
            .collect();
        let campaign = parsed(
            "[[config]]\nprofile = \"big\"\nmatrix = { SPEC_DECODE = [0, 1] }\n[[sweep]]\nlevels = [1, 2]\n[quality]\nreference = \"big-spec-decode-0\"\n",
            &machines,
        )
        .unwrap();
        let ids: Vec<(&str, &str, Option<&str>)> = campaign
            .configurations
            .iter()
            .map(|c| {
                (
                    c.id.as_str(),
                    c.machine.as_str(),
                    c.reference.as_ref().map(Id::as_str),
                )
            })
            .collect();
        assert_eq!(
            ids,
            [
                ("big-spec-decode-0-a", "a", None),
                ("big-spec-decode-0-b", "b", None),
                ("big-spec-decode-1-a", "a", Some("big-spec-decode-0-a")),
                ("big-spec-decode-1-b", "b", Some("big-spec-decode-0-b")),
            ]
        );
        assert_eq!(campaign.sweeps[0].name, "sweep");
        let errors = messages(
            parsed(
                "[[config]]\nprofile = \"big\"\nid = \"x\"\n[run]\n",
                &machines,
            )
            .unwrap_err(),
        );
        assert!(errors[0].contains("{machine}"), "{errors:?}");
    }

    #[test]
    fn the_reference_goes_first() {
        let campaign = parsed(
            "[[config]]\nprofile = \"big\"\nmatrix = { KV_CACHE_DTYPE = [\"fp8\", \"auto\"] }\n[quality]\nreference = \"big-kv-cache-dtype-auto\"\n",
            &single(),
        )
        .unwrap();
        let ids: Vec<&str> = campaign
            .configurations
            .iter()
            .map(|c| c.id.as_str())
            .collect();
        assert_eq!(ids, ["big-kv-cache-dtype-auto", "big-kv-cache-dtype-fp8"]);
    }

    #[test]
    fn problems_are_named_with_their_line_and_column() {
        let errors = messages(
            parsed(
                "[[config]]\nprofile = \"huge\"\n\n[[config]]\nprofile = \"big\"\nid = \"{QUANT}\"\n\n[[sweep]]\nlevels = [4, 2]\n\n[quality]\nreference = \"nope\"\n",
                &single(),
            )
            .unwrap_err(),
        );
        let joined = errors.join("\n");
        assert!(
            joined
                .contains("campaigns/night.toml:2:11: profile: expected the name of a profile in")
                && joined.contains("(one of: big, small), found \"huge\""),
            "{joined}"
        );
        assert!(
            joined.contains("campaigns/night.toml:9:10: sweep.levels"),
            "{joined}"
        );
        assert!(
            joined.contains("campaigns/night.toml:6:6: id: {QUANT} is not a matrix key"),
            "{joined}"
        );
        assert!(
            joined.contains("campaigns/night.toml:12:13: quality.reference"),
            "{joined}"
        );

        let errors = messages(
            parsed(
                "[[config]]\nprofile = \"big\"\nsamples = 3\n[run]\n",
                &single(),
            )
            .unwrap_err(),
        );
        assert!(
            errors[0].starts_with("campaigns/night.toml:3:1: unknown field `samples`"),
            "{errors:?}"
        );

        let errors = messages(
            parsed(
                "[[config]]\nprofile = \"big\"\n[[config]]\nprofile = \"big\"\n[run]\n",
                &single(),
            )
            .unwrap_err(),
        );
        assert!(
            errors[0].contains("big is also the id of a configuration on line 2"),
            "{errors:?}"
        );
    }
}

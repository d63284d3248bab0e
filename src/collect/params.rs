//! The parameters of a measurement, each stated once as one type: `collect` flattens it into
//! its flags, a campaign file's table deserializes into it (unknown keys named with their line
//! and column), and `campaign plan` prints its command line from it ([`flags`]). Adding a
//! parameter to both is one field here; a test holds every field to its flag, its campaign
//! key and its place in the plan's command line.
//!
//! A field's campaign key is its name; its flag is `--` and its name with hyphens, unless
//! `#[arg(long = …)]` keeps an older spelling.

use clap::Args;
use serde::{Deserialize, Serialize};

use super::defaults;
use crate::data::{Arrivals, Convention, Lengths, Load, SharedPrefix, Workload};
use crate::profiles::Launcher;
use crate::project::PROMPTS;

/// What `collect run` sends, and a campaign's `[run]`.
#[derive(Debug, Clone, PartialEq, Args, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunParams {
    /// Samples after the cold request.
    #[arg(long, default_value_t = defaults::RUN_SAMPLES)]
    #[serde(default = "run_samples")]
    pub samples: usize,
    /// Tokens per request.
    #[arg(long, default_value_t = defaults::RUN_MAX_TOKENS)]
    #[serde(default = "run_max_tokens")]
    pub max_tokens: u64,
    /// The prompt (default: method.prompt of the results document).
    #[arg(long)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    /// With speculative decoding: prompts of data/prompts.jsonl, spread through it, that the
    /// acceptance is measured over, one at a time after the samples (0: over the samples).
    #[arg(long, default_value_t = defaults::RUN_ACCEPTANCE_PROMPTS)]
    #[serde(default = "run_acceptance_prompts")]
    pub acceptance_prompts: usize,
}

impl Default for RunParams {
    fn default() -> Self {
        Self {
            samples: defaults::RUN_SAMPLES,
            max_tokens: defaults::RUN_MAX_TOKENS,
            prompt: None,
            acceptance_prompts: defaults::RUN_ACCEPTANCE_PROMPTS,
        }
    }
}

/// What `collect sweep` sends at each level, and a campaign's `[[sweep]]`.
#[derive(Debug, Clone, PartialEq, Args, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SweepParams {
    /// Its name among a campaign configuration's sweeps, whose labels are `<configuration>
    /// <name>` (`sweep`, or `sweep-N` when there are several); `collect sweep` takes a
    /// `--label` instead.
    #[arg(skip)]
    #[serde(default, skip_serializing)]
    pub name: Option<String>,
    /// The concurrency levels, increasing: a closed loop of that many streams each.
    #[arg(long, value_delimiter = ',', default_value = "1,2,4,8,16,32")]
    #[serde(default = "sweep_levels")]
    pub levels: Vec<u64>,
    /// Open loop, in place of --levels: the arrival rates, requests per second, increasing.
    #[arg(long, value_delimiter = ',', value_name = "REQ/S")]
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rates: Vec<f64>,
    /// Open loop: the arrivals' gamma shape; 1 is Poisson, below 1 burstier, above 1 more
    /// even (vLLM's --burstiness).
    #[arg(long, default_value_t = defaults::SWEEP_BURSTINESS)]
    #[serde(default = "sweep_burstiness")]
    pub burstiness: f64,
    /// Open loop: seeds the arrival times, the same for every rate.
    #[arg(long, default_value_t = 0)]
    #[serde(default)]
    pub seed: u64,
    /// Open loop: requests in flight at most; a request due past it waits in the client, and
    /// the wait counts in its TTFT and latency.
    #[arg(long)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_concurrency: Option<u64>,
    /// Open loop: arrivals per level.
    #[arg(long, default_value_t = defaults::SWEEP_OPEN_REQUESTS)]
    #[serde(default = "sweep_open_requests")]
    pub requests: u64,
    /// Open loop: seconds of arrivals per level at most; arrivals the cap still holds when
    /// they run out are never sent, and the requests in flight finish and are counted.
    #[arg(long = "duration", value_name = "SECONDS")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_s: Option<f64>,
    /// Search for the highest load that keeps the report's [slo]: start at the first level (or
    /// rate), double while each holds, up to the last, then bisect.
    #[arg(long)]
    #[serde(default)]
    pub search: bool,
    /// A rate search stops when its bracket is within this share of its low end.
    #[arg(long, default_value_t = defaults::SEARCH_TOLERANCE)]
    #[serde(default = "search_tolerance")]
    pub search_tolerance: f64,
    /// Prompts sampled (with --seed) from this file, in place of generated ones: ShareGPT's
    /// JSON or JSON lines of conversations (each one's first human turn), or JSON lines of
    /// {"prompt": ...}.
    #[arg(long, value_name = "FILE")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dataset: Option<String>,
    /// Draw each request's prompt words and output tokens from a range around
    /// --prompt-words and --output-tokens (with --seed), by --range-convention.
    #[arg(long)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub range_ratio: Option<f64>,
    /// Whose range: vllm, [N(1 − r), N(1 + r)]; sglang (InferenceX's), [N·r, N].
    #[arg(long, value_enum, default_value_t = Convention::Vllm)]
    #[serde(default)]
    pub range_convention: Convention,
    /// Requests share a prefix by this many groups (request n is in group n mod G), as a
    /// prefix cache would serve them; with --prefix-words.
    #[arg(long)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefix_groups: Option<u64>,
    /// Words of each group's shared prefix, before each request's own prompt.
    #[arg(long)]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefix_words: Option<u64>,
    /// Words per prompt (distinct deterministic text per request).
    #[arg(long, default_value_t = defaults::SWEEP_PROMPT_WORDS)]
    #[serde(default = "sweep_prompt_words")]
    pub prompt_words: u64,
    /// Tokens per answer.
    #[arg(long, default_value_t = defaults::SWEEP_OUTPUT_TOKENS)]
    #[serde(default = "sweep_output_tokens")]
    pub output_tokens: u64,
    /// Requests per stream at each level, at least.
    #[arg(long, default_value_t = defaults::SWEEP_ROUNDS)]
    #[serde(default = "sweep_rounds")]
    pub rounds: u64,
    /// The fewest requests a level sends: it takes max(rounds, ⌈min-requests / concurrency⌉)
    /// rounds; 0 for `rounds` at every level.
    #[arg(long, default_value_t = defaults::SWEEP_MIN_REQUESTS)]
    #[serde(default = "sweep_min_requests")]
    pub min_requests: u64,
    /// Requests per stream sent and discarded before each level.
    #[arg(long, default_value_t = defaults::SWEEP_WARMUP)]
    #[serde(default = "sweep_warmup")]
    pub warmup: u64,
    /// Generate every output token even past the end of the answer.
    #[arg(long)]
    #[serde(default)]
    pub ignore_eos: bool,
    /// Leave the chat template's thinking on (off by default, so answers are the answer).
    #[arg(long)]
    #[serde(default)]
    pub thinking: bool,
}

/// What `collect capture` sends, and a campaign's `[quality]`.
#[derive(Debug, Clone, PartialEq, Args, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CaptureParams {
    /// The configuration every other of a campaign is compared with (campaign files only;
    /// `collect capture` takes the capture to score against as `--reference`).
    #[arg(skip)]
    #[serde(default, skip_serializing)]
    pub reference: Option<String>,
    /// The prompt set.
    #[arg(long, default_value = PROMPTS)]
    #[serde(default = "prompt_set")]
    pub prompts: String,
    /// Top-k logprobs per position (vLLM caps it at --max-logprobs, 20 by default).
    #[arg(long, default_value_t = defaults::TOP_K)]
    #[serde(default = "top_k")]
    pub top_k: u64,
    /// Tokens generated per prompt.
    #[arg(long, default_value_t = defaults::CAPTURE_MAX_TOKENS)]
    #[serde(default = "capture_max_tokens")]
    pub max_tokens: u64,
    /// Requests in flight.
    #[arg(long, default_value_t = defaults::CAPTURE_CONCURRENCY)]
    #[serde(default = "capture_concurrency")]
    pub concurrency: usize,
    /// Leave the chat template's thinking on (off by default, so answers are the answer).
    #[arg(long)]
    #[serde(default)]
    pub thinking: bool,
}

/// What `collect jitter` sends, and a campaign's `[jitter]`.
#[derive(Debug, Clone, PartialEq, Args, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JitterParams {
    /// How many prompts of the set (the first ones).
    #[arg(long, default_value_t = defaults::JITTER_PROMPTS)]
    #[serde(default = "jitter_prompts")]
    pub prompts: usize,
    /// Scorings of each continuation.
    #[arg(long, default_value_t = defaults::JITTER_REPEATS)]
    #[serde(default = "jitter_repeats")]
    pub repeats: usize,
    /// Tokens per continuation.
    #[arg(long, default_value_t = defaults::JITTER_MAX_TOKENS)]
    #[serde(default = "jitter_max_tokens")]
    pub max_tokens: u64,
    /// Top-k logprobs per position.
    #[arg(long, default_value_t = defaults::TOP_K)]
    #[serde(default = "top_k")]
    pub top_k: u64,
    /// The prompt set.
    #[arg(long, default_value = PROMPTS)]
    #[serde(default = "prompt_set")]
    pub prompt_set: String,
    /// Leave the chat template's thinking on (off by default, so answers are the answer).
    #[arg(long)]
    #[serde(default)]
    pub thinking: bool,
}

/// How a server is started from its profile and stopped: `collect --launch`'s flags and a
/// campaign's `[launch]`.
#[derive(Debug, Clone, PartialEq, Args, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LaunchParams {
    /// How the server is started.
    #[arg(long, value_enum, default_value_t = Launcher::Podman)]
    #[serde(default)]
    pub launcher: Launcher,
    /// Seconds the server may take to become ready.
    #[arg(long = "ready-timeout", default_value_t = defaults::READY_TIMEOUT_S, value_name = "SECONDS")]
    #[serde(default = "ready_timeout_s")]
    pub ready_timeout_s: f64,
    /// Seconds the server may take to stop before it is killed.
    #[arg(long = "stop-timeout", default_value_t = defaults::STOP_TIMEOUT_S, value_name = "SECONDS")]
    #[serde(default = "stop_timeout_s")]
    pub stop_timeout_s: f64,
}

impl Default for LaunchParams {
    fn default() -> Self {
        Self {
            launcher: Launcher::default(),
            ready_timeout_s: defaults::READY_TIMEOUT_S,
            stop_timeout_s: defaults::STOP_TIMEOUT_S,
        }
    }
}

/// The longest wait a timeout may name, in seconds: a week.
pub const MOST_SECONDS: f64 = 604_800.0;

/// Whether `seconds` is a timeout: above 0 and at most [`MOST_SECONDS`] (a NaN, a negative or
/// a huge number panicked in `Duration::from_secs_f64`).
pub fn is_timeout(seconds: f64) -> bool {
    seconds > 0.0 && seconds <= MOST_SECONDS
}

impl LaunchParams {
    /// Whether the timeouts are waits a launch can make.
    pub fn usable(&self) -> Result<(), Unusable> {
        for (key, seconds) in [
            ("ready_timeout_s", self.ready_timeout_s),
            ("stop_timeout_s", self.stop_timeout_s),
        ] {
            if !is_timeout(seconds) {
                return Err(Unusable {
                    key,
                    expected: format!(
                        "seconds above 0 and at most a week ({MOST_SECONDS}), found {seconds}"
                    ),
                });
            }
        }
        Ok(())
    }
}

impl SweepParams {
    /// The workload a sweep of these parameters records.
    pub fn workload(&self) -> Workload {
        let arrivals = self.arrivals();
        Workload {
            prompt_words: Some(self.prompt_words),
            prompt_tokens: None,
            output_tokens: self.output_tokens,
            rounds: if arrivals.is_some() {
                1
            } else {
                self.rounds.max(1)
            },
            ignore_eos: self.ignore_eos,
            thinking: self.thinking,
            min_requests: (arrivals.is_none() && self.min_requests > 0)
                .then_some(self.min_requests),
            arrivals,
            // Filled in once the file is read (its hash and its prompts).
            dataset: None,
            lengths: self.range_ratio.map(|range_ratio| Lengths {
                range_ratio,
                convention: self.range_convention,
                seed: self.seed,
            }),
            shared_prefix: self
                .prefix_groups
                .zip(self.prefix_words)
                .map(|(groups, words)| SharedPrefix { groups, words }),
        }
    }

    /// The arrivals of an open-loop sweep (one with rates).
    pub fn arrivals(&self) -> Option<Arrivals> {
        (!self.rates.is_empty()).then_some(Arrivals {
            process: crate::data::Process::Gamma,
            burstiness: self.burstiness,
            seed: Some(self.seed),
            max_concurrency: self.max_concurrency,
            requests: self.requests,
            duration_s: self.duration_s,
        })
    }

    /// The levels' loads: the rates where there are any, else the concurrencies.
    pub fn loads(&self) -> Vec<Load> {
        if self.rates.is_empty() {
            self.levels.iter().map(|&c| Load::Concurrency(c)).collect()
        } else {
            self.rates.iter().map(|&r| Load::Rate(r)).collect()
        }
    }

    /// Whether the parameters make one sweep: increasing levels of at least 1, or increasing
    /// positive rates with the open loop's parameters in range; the open loop's parameters
    /// only with rates, and rates only with the default levels.
    pub fn usable(&self) -> Result<(), Unusable> {
        let unusable = |key: &'static str, expected: &str| {
            Err(Unusable {
                key,
                expected: expected.to_owned(),
            })
        };
        if self.rates.is_empty() {
            let drawn = self.dataset.is_some() || self.range_ratio.is_some();
            let stray = [
                ("burstiness", self.burstiness != defaults::SWEEP_BURSTINESS),
                ("seed", self.seed != 0 && !drawn),
                ("max_concurrency", self.max_concurrency.is_some()),
                ("requests", self.requests != defaults::SWEEP_OPEN_REQUESTS),
                ("duration_s", self.duration_s.is_some()),
            ];
            if let Some((key, _)) = stray.iter().find(|(_, set)| *set) {
                return unusable(
                    key,
                    "rates beside it, as it shapes open-loop arrivals; or leave it out",
                );
            }
            let levels = &self.levels;
            if levels.is_empty() || levels.windows(2).any(|w| w[0] >= w[1]) || levels[0] == 0 {
                return unusable(
                    "levels",
                    "increasing concurrencies of at least 1, e.g. 1,2,4,8",
                );
            }
            return Ok(());
        }
        if self.levels != sweep_levels() {
            return unusable(
                "rates",
                "rates or levels, not both: open-loop arrivals or a closed loop",
            );
        }
        let rates = &self.rates;
        if rates.iter().any(|r| !r.is_finite() || *r <= 0.0)
            || rates.windows(2).any(|w| w[0] >= w[1])
        {
            return unusable(
                "rates",
                "increasing requests per second above 0, e.g. 0.5,1,2",
            );
        }
        if !(self.burstiness.is_finite() && self.burstiness >= 0.01) {
            return unusable(
                "burstiness",
                "a gamma shape of at least 0.01 (1 is Poisson)",
            );
        }
        if self.max_concurrency == Some(0) {
            return unusable("max_concurrency", "at least 1");
        }
        if self.requests == 0 {
            return unusable("requests", "at least 1");
        }
        if self.duration_s.is_some_and(|d| !(d.is_finite() && d > 0.0)) {
            return unusable("duration_s", "seconds above 0");
        }
        self.shaped()
    }

    /// The requests' shape in range: a range ratio its convention allows, a shared prefix
    /// of both its numbers; then a search's tolerance.
    fn shaped(&self) -> Result<(), Unusable> {
        let unusable = |key: &'static str, expected: &str| {
            Err(Unusable {
                key,
                expected: expected.to_owned(),
            })
        };
        let allowed = |ratio: f64| match self.range_convention {
            Convention::Vllm => (0.0..1.0).contains(&ratio),
            Convention::Sglang => ratio > 0.0 && ratio <= 1.0,
        };
        if let Some(ratio) = self.range_ratio
            && !allowed(ratio)
        {
            return unusable(
                "range_ratio",
                "a ratio from 0 to below 1 (vllm's range), or above 0 to 1 (sglang's)",
            );
        }
        if self.range_convention != Convention::Vllm && self.range_ratio.is_none() {
            return unusable("range_convention", "range-ratio beside it, or leave it out");
        }
        match (self.prefix_groups, self.prefix_words) {
            (Some(g), Some(w)) if g > 0 && w > 0 => {}
            (None, None) => {}
            _ => {
                return unusable(
                    "prefix_groups",
                    "prefix-groups and prefix-words both, each at least 1",
                );
            }
        }
        self.searchable()
    }

    /// A search's tolerance in range, and only beside `--search`.
    fn searchable(&self) -> Result<(), Unusable> {
        if self.search_tolerance != defaults::SEARCH_TOLERANCE && !self.search {
            return Err(Unusable {
                key: "search_tolerance",
                expected: "search beside it, or leave it out".into(),
            });
        }
        if !(self.search_tolerance > 0.0 && self.search_tolerance < 1.0) {
            return Err(Unusable {
                key: "search_tolerance",
                expected: "a share above 0 and below 1, e.g. 0.1".into(),
            });
        }
        Ok(())
    }

    /// Every request the sweep plans to send, warm-ups aside: for the progress bar (0 for a
    /// search, whose probes are not known before).
    pub fn planned_total(&self) -> u64 {
        if self.search {
            return 0;
        }
        let workload = self.workload();
        self.loads()
            .into_iter()
            .map(|load| planned_requests(&workload, load))
            .sum()
    }
}

/// Sweep parameters that do not make a sweep: the parameter (its campaign key) and what it
/// should be.
#[derive(Debug, Clone, PartialEq)]
pub struct Unusable {
    /// The campaign key, the flag's name with underscores.
    pub key: &'static str,
    /// What was expected.
    pub expected: String,
}

impl Unusable {
    /// As `collect sweep` says it: `--duration: expected seconds above 0`.
    pub fn for_flags(&self) -> String {
        self.for_flags_of::<SweepParams>()
    }

    /// As the command whose flags are `A`'s says it.
    pub fn for_flags_of<A: Args>(&self) -> String {
        let command = A::augment_args(clap::Command::new("flags"));
        let flag = command
            .get_arguments()
            .find(|arg| arg.get_id() == self.key)
            .and_then(|arg| arg.get_long())
            .unwrap_or(self.key);
        format!("--{flag}: expected {}", self.expected)
    }

    /// As a campaign file says it: `sweep.duration_s: expected seconds above 0`.
    pub fn for_campaign(&self) -> String {
        self.in_table("sweep")
    }

    /// As a campaign file's `table` says it.
    pub fn in_table(&self, table: &str) -> String {
        format!("{table}.{}: expected {}", self.key, self.expected)
    }
}

/// The requests a level at `load` plans to send: concurrency × rounds, or its arrivals.
pub(super) fn planned_requests(workload: &Workload, load: Load) -> u64 {
    match (load, &workload.arrivals) {
        (Load::Concurrency(c), _) => c * crate::data::rules::rounds_at(workload, c),
        (Load::Rate(rate), Some(arrivals)) => {
            super::arrivals::schedule(rate, arrivals).len() as u64
        }
        (Load::Rate(_), None) => 0,
    }
}

fn search_tolerance() -> f64 {
    defaults::SEARCH_TOLERANCE
}
fn sweep_levels() -> Vec<u64> {
    vec![1, 2, 4, 8, 16, 32]
}
fn sweep_burstiness() -> f64 {
    defaults::SWEEP_BURSTINESS
}
fn sweep_open_requests() -> u64 {
    defaults::SWEEP_OPEN_REQUESTS
}

fn prompt_set() -> String {
    PROMPTS.to_owned()
}
fn top_k() -> u64 {
    defaults::TOP_K
}
fn capture_max_tokens() -> u64 {
    defaults::CAPTURE_MAX_TOKENS
}
fn capture_concurrency() -> usize {
    defaults::CAPTURE_CONCURRENCY
}
fn jitter_prompts() -> usize {
    defaults::JITTER_PROMPTS
}
fn jitter_repeats() -> usize {
    defaults::JITTER_REPEATS
}
fn jitter_max_tokens() -> u64 {
    defaults::JITTER_MAX_TOKENS
}
fn ready_timeout_s() -> f64 {
    defaults::READY_TIMEOUT_S
}
fn stop_timeout_s() -> f64 {
    defaults::STOP_TIMEOUT_S
}
fn run_samples() -> usize {
    defaults::RUN_SAMPLES
}
fn run_acceptance_prompts() -> usize {
    defaults::RUN_ACCEPTANCE_PROMPTS
}
fn run_max_tokens() -> u64 {
    defaults::RUN_MAX_TOKENS
}
fn sweep_prompt_words() -> u64 {
    defaults::SWEEP_PROMPT_WORDS
}
fn sweep_output_tokens() -> u64 {
    defaults::SWEEP_OUTPUT_TOKENS
}
fn sweep_rounds() -> u64 {
    defaults::SWEEP_ROUNDS
}
fn sweep_min_requests() -> u64 {
    defaults::SWEEP_MIN_REQUESTS
}
fn sweep_warmup() -> u64 {
    defaults::SWEEP_WARMUP
}

/// The command-line words that give `params` to its `collect` command, in the order the
/// fields are declared: a value as `--flag value` (a list joined by commas), a `true` switch
/// as `--flag`; a `false` switch and an absent value are left out.
pub fn flags<P: Args + Serialize>(params: &P) -> Vec<String> {
    let command = P::augment_args(clap::Command::new("params"));
    let value = serde_json::to_value(params).expect("parameters serialise");
    let mut words = Vec::new();
    for arg in command.get_arguments() {
        let (Some(long), Some(value)) = (arg.get_long(), value.get(arg.get_id().as_str())) else {
            continue;
        };
        let text = match value {
            serde_json::Value::Bool(true) => {
                words.push(format!("--{long}"));
                continue;
            }
            serde_json::Value::Bool(false) | serde_json::Value::Null => continue,
            serde_json::Value::String(text) => text.clone(),
            serde_json::Value::Array(items) => items
                .iter()
                .map(|item| match item {
                    serde_json::Value::String(text) => text.clone(),
                    other => other.to_string(),
                })
                .collect::<Vec<_>>()
                .join(","),
            other => other.to_string(),
        };
        words.push(format!("--{long}"));
        words.push(text);
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    /// Parses `words` as the flags of `P`, as `collect` does.
    fn parsed<P: Args + clap::FromArgMatches>(words: &[String]) -> P {
        #[derive(Parser)]
        struct Cli<P: Args> {
            #[command(flatten)]
            params: P,
        }
        let args = std::iter::once("collect".to_owned()).chain(words.iter().cloned());
        Cli::<P>::try_parse_from(args)
            .unwrap_or_else(|error| panic!("{words:?}: {error}"))
            .params
    }

    /// Every field the CLI and a campaign share: its flag parses back to the same value from
    /// the plan's command line, its campaign key (the field's name) is read from a campaign
    /// table, and the two sides name the same fields. `sample` sets every field away from its
    /// default, every switch on.
    fn shared<P>(sample: &P)
    where
        P: Args + clap::FromArgMatches + Serialize + for<'de> Deserialize<'de> + std::fmt::Debug,
    {
        let command = P::augment_args(clap::Command::new("params"));
        let mut flagged: Vec<&str> = command
            .get_arguments()
            .filter(|arg| arg.get_long().is_some())
            .map(|arg| arg.get_id().as_str())
            .collect();
        let value = serde_json::to_value(sample).unwrap();
        let mut keys: Vec<&str> = value
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        flagged.sort();
        keys.sort();
        assert_eq!(
            flagged, keys,
            "a flag and a campaign key for every shared field"
        );

        let words = flags(sample);
        for arg in command.get_arguments() {
            if let Some(long) = arg.get_long() {
                assert!(
                    words.iter().any(|w| *w == format!("--{long}")),
                    "--{long} is not in the plan's {words:?}"
                );
            }
        }
        let back: P = parsed(&words);
        assert_eq!(
            serde_json::to_value(&back).unwrap(),
            value,
            "the plan's command line gives the parameters back"
        );
        let table = toml::to_string(&value).unwrap();
        let read: P = toml::from_str(&table).unwrap_or_else(|e| panic!("{table}: {e}"));
        assert_eq!(serde_json::to_value(&read).unwrap(), value, "{table}");
    }

    #[test]
    fn run_parameters_are_one_flag_one_key_and_one_plan_word_each() {
        shared(&RunParams {
            samples: 7,
            max_tokens: 11,
            prompt: Some("Tell a story, with a comma".into()),
            acceptance_prompts: 5,
        });
    }

    #[test]
    fn sweep_parameters_are_one_flag_one_key_and_one_plan_word_each() {
        shared(&SweepParams {
            name: None,
            levels: vec![1, 3, 9],
            rates: vec![0.5, 2.0],
            search: true,
            search_tolerance: 0.05,
            dataset: Some("data/sharegpt.json".into()),
            range_ratio: Some(0.5),
            range_convention: Convention::Sglang,
            prefix_groups: Some(4),
            prefix_words: Some(100),
            burstiness: 0.5,
            seed: 9,
            max_concurrency: Some(4),
            requests: 50,
            duration_s: Some(30.0),
            prompt_words: 12,
            output_tokens: 34,
            rounds: 5,
            min_requests: 17,
            warmup: 3,
            ignore_eos: true,
            thinking: true,
        });
        // The campaign's own key, which `collect sweep` takes as --label.
        let named: SweepParams = toml::from_str("name = \"long\"\nlevels = [1]").unwrap();
        assert_eq!(named.name.as_deref(), Some("long"));
    }

    #[test]
    fn capture_jitter_and_launch_parameters_are_one_flag_one_key_and_one_plan_word_each() {
        shared(&CaptureParams {
            reference: None,
            prompts: "data/other.jsonl".into(),
            top_k: 5,
            max_tokens: 6,
            concurrency: 7,
            thinking: true,
        });
        let quality: CaptureParams = toml::from_str("reference = \"base\"").unwrap();
        assert_eq!(quality.reference.as_deref(), Some("base"));
        shared(&JitterParams {
            prompts: 2,
            repeats: 3,
            max_tokens: 4,
            top_k: 5,
            prompt_set: "data/other.jsonl".into(),
            thinking: true,
        });
        shared(&LaunchParams {
            launcher: Launcher::Local,
            ready_timeout_s: 12.5,
            stop_timeout_s: 3.0,
        });
    }

    #[test]
    fn the_defaults_are_the_same_on_both_sides() {
        let run: RunParams = parsed(&[]);
        assert_eq!(run, RunParams::default());
        assert_eq!(toml::from_str::<RunParams>("").unwrap(), run);
        let sweep: SweepParams = parsed(&[]);
        let from_file: SweepParams = toml::from_str("levels = [1, 2, 4, 8, 16, 32]").unwrap();
        assert_eq!(sweep, from_file);
        assert_eq!(sweep.rounds, defaults::SWEEP_ROUNDS);
        let capture: CaptureParams = parsed(&[]);
        assert_eq!(toml::from_str::<CaptureParams>("").unwrap(), capture);
        assert_eq!(capture.prompts, PROMPTS);
        let jitter: JitterParams = parsed(&[]);
        assert_eq!(toml::from_str::<JitterParams>("").unwrap(), jitter);
        let launch: LaunchParams = parsed(&[]);
        assert_eq!(toml::from_str::<LaunchParams>("").unwrap(), launch);
        assert_eq!(launch, LaunchParams::default());
    }

    #[test]
    fn an_unknown_campaign_key_is_named() {
        let error = toml::from_str::<SweepParams>("levels = [1]\nround = 2\n").unwrap_err();
        let message = error.to_string();
        assert!(
            message.contains("round") && message.contains("rounds"),
            "{message}"
        );
    }
}

//! How a sweep loads the server: a closed loop of N streams, each sending its next request
//! when its last one ends, or open-loop arrivals at a rate, as a service sees them. A level
//! is one or the other (`concurrency` or `rate_rps`), and so is every level of one sweep.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The arrivals of an open-loop sweep: gamma-distributed gaps, as `vllm bench serve` draws
/// them (shape = `burstiness`, scale = 1 / (rate × burstiness), so the mean gap is 1 / rate;
/// the first request at 0 and, unlike vLLM, the gaps never rescaled to a total).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Arrivals {
    /// How the gaps are drawn: gamma (the default), or all equal.
    #[serde(default, skip_serializing_if = "Process::is_gamma")]
    pub process: Process,
    /// The gamma shape: 1 is a Poisson process, below 1 burstier, above 1 more even.
    #[schemars(range(min = 0.01))]
    pub burstiness: f64,
    /// Seeds the gaps (ChaCha8), so a level's schedule can be drawn again; absent when an
    /// imported tool's file does not say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// Requests in flight at most; an arrival past it waits in the client, and that wait
    /// counts in its TTFT and latency.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub max_concurrency: Option<u64>,
    /// Arrivals per level, at most.
    #[schemars(range(min = 1))]
    pub requests: u64,
    /// Seconds of arrivals per level, at most: an arrival the cap still holds when they run
    /// out is never sent (the level's `unsent`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0))]
    pub duration_s: Option<f64>,
}

/// How an open loop's gaps between arrivals are drawn.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Process {
    /// From a gamma distribution of shape `burstiness` (vLLM's; 1 is Poisson).
    #[default]
    Gamma,
    /// Every gap 1 / rate (guidellm's `constant` strategy).
    Constant,
}

impl Process {
    fn is_gamma(&self) -> bool {
        *self == Process::Gamma
    }
}

impl Arrivals {
    /// The arrival process in words: `Poisson arrivals`, `gamma arrivals (burstiness 0.5)`,
    /// `constant-rate arrivals`, with the cap where there is one.
    pub fn words(&self) -> String {
        let process = if self.process == Process::Constant {
            "constant-rate arrivals".to_owned()
        } else if self.burstiness == 1.0 {
            "Poisson arrivals".to_owned()
        } else {
            format!("gamma arrivals (burstiness {})", self.burstiness)
        };
        match self.max_concurrency {
            Some(cap) => format!("{process}, at most {cap} in flight"),
            None => process,
        }
    }
}

/// What a limit search (`collect sweep --search`) found: the highest load that held the
/// limits and the lowest that broke them, its bracket, in the levels' unit (concurrency, or
/// requests per second).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LimitSearch {
    /// The limits searched for, in words (`TTFT p95 ≤ 2 s`).
    pub limits: String,
    /// The highest load that held them; absent when none did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub held: Option<f64>,
    /// The lowest load that broke them; absent when every probe held, up to the last level
    /// asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub broke: Option<f64>,
    /// Levels probed.
    pub probes: u64,
    /// The lowest rate at which the server was over-saturated: TTFT growing through the level
    /// while it answered under nine tenths of the rate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub saturated: Option<f64>,
    /// A rate search's stopping point: the bracket within this share of its low end.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tolerance: Option<f64>,
}

/// A level's load: the requests kept in flight, or the requests per second arriving.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Load {
    /// A closed loop of this many streams.
    Concurrency(u64),
    /// Open-loop arrivals at this many requests per second.
    Rate(f64),
}

impl Load {
    /// Where it sits on its chart's axis.
    pub fn x(self) -> f64 {
        match self {
            Load::Concurrency(c) => c as f64,
            Load::Rate(r) => r,
        }
    }

    /// The level's anchor on its sweep page: `c8`, `r2_5`.
    pub fn anchor(self) -> String {
        match self {
            Load::Concurrency(c) => format!("c{c}"),
            Load::Rate(r) => format!("r{}", rate_text(r).replace('.', "_")),
        }
    }

    /// The load in words: `concurrency 8`, `2.5 req/s`.
    pub fn words(self) -> String {
        match self {
            Load::Concurrency(c) => format!("concurrency {}", crate::format::count(c)),
            Load::Rate(r) => format!("{} req/s", rate_text(r)),
        }
    }

    /// The load as a label that starts a line: `Concurrency 8`, `2.5 req/s`.
    pub fn title(self) -> String {
        match self {
            Load::Concurrency(c) => format!("Concurrency {}", crate::format::count(c)),
            Load::Rate(_) => self.words(),
        }
    }

    /// The load as a point's label on a chart: `c8`, `2.5/s`.
    pub fn short(self) -> String {
        match self {
            Load::Concurrency(c) => format!("c{c}"),
            Load::Rate(r) => format!("{}/s", rate_text(r)),
        }
    }

    /// The load as a table cell's text: `8`, `2.5`.
    pub fn cell(self) -> String {
        match self {
            Load::Concurrency(c) => crate::format::count(c),
            Load::Rate(r) => rate_text(r),
        }
    }

    /// The name of its axis and column.
    pub fn axis(self) -> &'static str {
        match self {
            Load::Concurrency(_) => "Concurrency",
            Load::Rate(_) => "Arrival rate (req/s)",
        }
    }

    /// Whether it is an open-loop rate.
    pub fn is_rate(self) -> bool {
        matches!(self, Load::Rate(_))
    }
}

/// A rate as written: its shortest decimal form (`2`, `2.5`, `0.25`).
fn rate_text(rate: f64) -> String {
    format!("{rate}")
}

/// The schema's rule that a level is of one kind: a concurrency or a rate, never both.
pub(super) fn one_load(schema: &mut schemars::Schema) {
    schema.insert(
        "oneOf".into(),
        serde_json::json!([
            {"required": ["concurrency"], "not": {"required": ["rate_rps"]}},
            {"required": ["rate_rps"], "not": {"required": ["concurrency"]}}
        ]),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_load_names_its_anchor_words_and_axis() {
        assert_eq!(Load::Concurrency(8).anchor(), "c8");
        assert_eq!(Load::Rate(2.5).anchor(), "r2_5");
        assert_eq!(Load::Rate(4.0).anchor(), "r4");
        assert_eq!(Load::Rate(0.25).words(), "0.25 req/s");
        assert_eq!(Load::Concurrency(1024).cell(), "1,024");
        assert_eq!(Load::Rate(2.0).x(), 2.0);
    }

    #[test]
    fn a_level_is_a_concurrency_or_a_rate_never_both_nor_neither() {
        let base = serde_json::json!({
            "requests": 4, "succeeded": 4, "failed": 0, "status": "ok"
        });
        let with = |extra: serde_json::Value| {
            let mut level = base.clone();
            level
                .as_object_mut()
                .unwrap()
                .extend(extra.as_object().unwrap().clone());
            let sweep = serde_json::json!({"levels": [level]});
            let schema = crate::data::schema();
            let level_schema = &schema["$defs"]["SweepLevel"];
            let mut root = level_schema.clone();
            root["$defs"] = schema["$defs"].clone();
            jsonschema::validator_for(&root)
                .unwrap()
                .is_valid(&sweep["levels"][0])
        };
        assert!(with(serde_json::json!({"concurrency": 2})));
        assert!(with(serde_json::json!({"rate_rps": 2.5})));
        assert!(!with(
            serde_json::json!({"concurrency": 2, "rate_rps": 2.5})
        ));
        assert!(!with(serde_json::json!({})));
    }

    #[test]
    fn arrivals_in_words() {
        let mut arrivals = Arrivals {
            process: Process::Gamma,
            burstiness: 1.0,
            seed: Some(0),
            max_concurrency: None,
            requests: 100,
            duration_s: None,
        };
        assert_eq!(arrivals.words(), "Poisson arrivals");
        arrivals.burstiness = 0.5;
        arrivals.max_concurrency = Some(16);
        assert_eq!(
            arrivals.words(),
            "gamma arrivals (burstiness 0.5), at most 16 in flight"
        );
        arrivals.process = Process::Constant;
        assert_eq!(
            arrivals.words(),
            "constant-rate arrivals, at most 16 in flight"
        );
    }
}

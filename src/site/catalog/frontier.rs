//! The trade-offs across sweeps: each sweep level as a point of interactivity (tokens per
//! second per user) against throughput per GPU, grouped by model and workload, with the
//! Pareto frontier of each group.

use super::records::Catalog;
use crate::data::{Load, Sweep, SweepLevel, rules};
use crate::stats;

/// One sweep level on the frontier chart.
#[derive(Debug, Clone)]
pub struct Point {
    /// The sweep's index in the document.
    pub sweep: usize,
    /// The level's load: its concurrency, or its arrival rate.
    pub load: Load,
    /// Tokens per second per user: the level's mean per-stream decode rate.
    pub per_user: f64,
    /// Output tokens per second per GPU: the level's total over the sweep's GPUs.
    pub per_gpu: f64,
    /// The level's total output tokens per second.
    pub total: f64,
    /// GPU energy per output token, joules, when power was recorded.
    pub joules: Option<f64>,
    /// Output tokens per second per watt of GPU power, when power was recorded.
    pub per_watt: Option<f64>,
    /// Whether no other point of its group is as good on both axes and better on one.
    pub frontier: bool,
    /// Whether the level holds the report's limits (`Catalog::slo`) with no failed request.
    pub within: bool,
}

/// The points of one model at one workload.
#[derive(Debug, Clone)]
pub struct Group {
    /// The model.
    pub model: String,
    /// The workload in words: prompt and output lengths.
    pub workload: String,
    /// Its points, sweep by sweep in document order, levels by load.
    pub points: Vec<Point>,
}

/// A prompt length in words as a reader reads it: `61 tok` is `61 tokens`; `654 tokens` and
/// `700 words` stay as they are.
fn spelled(prompt: &str) -> String {
    match prompt.strip_suffix(" tok") {
        Some(count) => format!("{count} tokens"),
        None => prompt.to_owned(),
    }
}

/// A sweep's workload in words: its prompt (as measured, in tokens, or in words) and output
/// lengths, its arrivals when it is an open loop, and the method it was measured by where it
/// recorded one; sweeps of different workloads, loads or methods never share an axis. `measured` is the prompt's measured length to
/// name ([`Catalog::workloads`] gives the first of the sweeps that asked for the same).
fn workload_of(sweep: &Sweep, measured: Option<&str>) -> String {
    let prompt = measured
        .map(spelled)
        .or_else(|| sweep.workload.prompt_tokens.map(|t| format!("{t} tokens")))
        .or_else(|| sweep.workload.prompt_words.map(|w| format!("{w} words")))
        .unwrap_or_else(|| "an unrecorded prompt".to_owned());
    let mut lengths = format!("{prompt} in, {} tokens out", sweep.workload.output_tokens);
    if let Some(shape) = sweep.workload.shape() {
        lengths.push_str(&format!(", {shape}"));
    }
    if let Some(arrivals) = &sweep.workload.arrivals {
        lengths.push_str(&format!(", {}", arrivals.words()));
    }
    match &sweep.method {
        Some(method) => format!("{lengths}, method {}", method.version),
        None => lengths,
    }
}

/// A sweep's workload as it was asked for, in words, the same for every model: its prompt
/// as asked (words or tokens), output length, shape, arrivals and method. Models whose
/// tokenizers measure one prompt differently share it.
pub fn asked_workload(sweep: &Sweep) -> String {
    workload_of(sweep, rules::asked_prompt(&sweep.workload).as_deref())
}

impl Catalog<'_> {
    /// Each sweep's workload in words, by its index: sweeps of a model that asked for the same
    /// prompt name it by the length the first of them measured (a nonce moves the measured length by
    /// a token from sweep to sweep), so they share their workload's axis.
    pub fn workloads(&self) -> &[String] {
        self.workloads.get_or_init(|| {
            // By model: its tokenizer gives the same words another length.
            let mut first: std::collections::HashMap<(&str, String), &str> =
                std::collections::HashMap::new();
            self.doc
                .sweeps
                .iter()
                .map(|sweep| {
                    let measured = sweep.dimensions.get("prompt").map(String::as_str);
                    let named = match (rules::asked_prompt(&sweep.workload), measured) {
                        (Some(asked), Some(measured)) => {
                            let key = (sweep.model.as_str(), asked);
                            Some(*first.entry(key).or_insert(measured))
                        }
                        (_, measured) => measured,
                    };
                    workload_of(sweep, named)
                })
                .collect()
        })
    }
}

/// A level's output tokens per second per watt of GPU power (all its GPUs'), when both
/// were measured.
pub fn per_watt(level: &SweepLevel) -> Option<f64> {
    let watts = level.power_w.filter(|&w| w > 0.0)?;
    Some(stats::round(level.total_tok_s? / watts, 3))
}

impl Catalog<'_> {
    /// The frontier groups of every sweep, or of one model's, in order of the model and then
    /// the workload's first sweep.
    pub fn frontier_groups(&self, model: Option<&str>) -> Vec<Group> {
        let mut groups: Vec<Group> = Vec::new();
        for (index, sweep) in self.doc.sweeps.iter().enumerate() {
            if model.is_some_and(|m| m != sweep.model) {
                continue;
            }
            let gpus = rules::sweep_gpus(sweep) as f64;
            let points = sweep.levels.iter().filter_map(|level| {
                let total = level.total_tok_s?;
                Some(Point {
                    sweep: index,
                    load: level.load(),
                    per_user: level.decode_tok_s_per_stream?,
                    per_gpu: stats::round(total / gpus, 1),
                    total,
                    joules: level.joules_per_token,
                    per_watt: per_watt(level),
                    frontier: false,
                    within: self.slo.holds(level),
                })
            });
            let workload = self.workloads()[index].clone();
            match groups
                .iter_mut()
                .find(|g| g.model == sweep.model && g.workload == workload)
            {
                Some(group) => group.points.extend(points),
                None => groups.push(Group {
                    model: sweep.model.clone(),
                    workload,
                    points: points.collect(),
                }),
            }
        }
        groups.retain(|g| !g.points.is_empty());
        for group in &mut groups {
            let xy: Vec<(f64, f64)> = group
                .points
                .iter()
                .map(|p| (p.per_user, p.per_gpu))
                .collect();
            for (point, on) in group.points.iter_mut().zip(stats::pareto(&xy)) {
                point.frontier = on;
            }
        }
        groups.sort_by(|a, b| a.model.cmp(&b.model));
        groups
    }

    /// The sentence saying the limits are the report's defaults, when `[slo]` gives none.
    pub fn limits_defaults(&self) -> Option<String> {
        self.slo_defaulted.then(|| {
            format!(
                "No limit is set (<code>[slo]</code> in <code>benchsite.toml</code>), so these \
                 are the report's defaults: {}, that is at least 20 output tok/s per user.",
                self.slo.words()
            )
        })
    }

    /// What a million output tokens cost at `total_tok_s` on `gpus` GPUs, in the configured
    /// currency's units; none without a price.
    pub fn cost_per_million(&self, total_tok_s: f64, gpus: u64) -> Option<f64> {
        let cost = self.cost.as_ref()?;
        (total_tok_s > 0.0)
            .then(|| stats::round(cost.gpu_hour * gpus as f64 / 3600.0 / total_tok_s * 1e6, 3))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Slo;
    use crate::data::figures::level;

    /// An imported sweep's prompt, measured in tokens, once read as "654 tokensens".
    #[test]
    fn a_prompt_length_is_spelled_once() {
        assert_eq!(spelled("61 tok"), "61 tokens");
        assert_eq!(spelled("654 tokens"), "654 tokens");
        assert_eq!(spelled("700 words"), "700 words");
    }

    #[test]
    fn a_level_is_within_the_limits_when_every_bound_holds() {
        let level: SweepLevel = serde_json::from_value(serde_json::json!({
            "concurrency": 8, "requests": 16, "succeeded": 16, "failed": 0, "status": "ok",
            "ttft_p50_s": 0.2, "ttft_p95_s": 0.9, "decode_tok_s_per_stream": 40.0,
            "total_tok_s": 300.0, "latency_p50_s": 6.0, "latency_p95_s": 7.0
        }))
        .unwrap();
        let slo = |ttft: f64, tpot: f64| {
            Slo::of([
                (&level::TTFT_P95_S, ttft),
                (&level::TPOT_FROM_RATE_MS, tpot),
            ])
        };
        // TPOT is 1000 / 40 = 25 ms.
        assert!(slo(1.0, 25.0).holds(&level));
        assert!(!slo(0.8, 25.0).holds(&level));
        assert!(!slo(1.0, 24.9).holds(&level));
        assert!(Slo::default().holds(&level), "no bound, every level");
        let failed = SweepLevel { failed: 1, ..level };
        assert!(!Slo::default().holds(&failed));
    }
}

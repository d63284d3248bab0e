//! What changed between two results documents: records matched by id or label, each figure
//! that moved with its delta, each setting that changed, records added and removed, and the
//! moves in the bad direction beyond a threshold flagged as regressions. The values are
//! returned raw; [`Change::old_text`] and friends write them for readers.

use serde::Serialize;

use crate::data::figures::{Better, Field, Role, Value, divergence, level, run};
use crate::data::{Divergence, Failure, Jitter, Record, Results, Run, Sweep};
use crate::format::{self, MISSING};

/// Whether a change is of a measured figure or of a setting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Of {
    /// A figure: compared as a number.
    Figure,
    /// A setting: compared as written.
    Setting,
}

/// One changed figure or setting of a record.
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    /// The figure or setting (`decode_tok_s`, `concurrency 8: ttft_p50_s`, `vllm_version`).
    pub what: String,
    /// Whether it is a figure or a setting.
    pub of: Of,
    /// The old value (`None` when absent).
    pub old: Option<Value>,
    /// The new value.
    pub new: Option<Value>,
    /// new − old, for figures present on both sides.
    pub delta: Option<f64>,
    /// The delta in percent of the old value, when the old value is not 0.
    pub percent: Option<f64>,
    /// A move in the bad direction beyond the threshold, beyond both records' intervals
    /// where they have them, and measured by one method.
    pub regression: bool,
    /// What the two records' own intervals say of the move, for a figure on both sides.
    pub noise: Noise,
}

/// What two records' own intervals say of a figure's move (`stats::noise`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Noise {
    /// A side has no interval: only the threshold judges it.
    Unknown,
    /// The move is within both records' noise: never a regression.
    Within,
    /// The move is beyond both records' noise.
    Beyond,
}

impl Noise {
    /// The words after a flagged or unflagged move.
    pub fn words(self) -> &'static str {
        match self {
            Noise::Unknown => "no interval",
            Noise::Within => "within noise",
            Noise::Beyond => "beyond both intervals",
        }
    }
}

impl Change {
    /// The old value as written for readers (`—` when absent).
    pub fn old_text(&self) -> String {
        self.text(self.old.as_ref())
    }

    /// The new value as written for readers.
    pub fn new_text(&self) -> String {
        self.text(self.new.as_ref())
    }

    fn text(&self, value: Option<&Value>) -> String {
        match (self.of, value) {
            (_, None) => MISSING.to_owned(),
            (Of::Figure, Some(Value::Count(n))) => format::count(*n),
            (Of::Figure, Some(Value::Number(x))) => format::figure(*x),
            (_, Some(value)) => value.raw(),
        }
    }

    /// `−28.9, −10.0%`: the delta and percentage, when the figure is on both sides.
    pub fn delta_text(&self) -> Option<String> {
        let delta = self.delta?;
        let sign = if delta >= 0.0 { "+" } else { "−" };
        let mut text = format!("{sign}{}", format::figure(significant(delta.abs())));
        if let Some(percent) = self.percent {
            text.push_str(&format!(", {sign}{:.1}%", percent.abs()));
        }
        Some(text)
    }
}

/// Deltas of decimal figures carry float noise (289.0 − 260.1); six significant digits do.
fn significant(value: f64) -> f64 {
    if value == 0.0 {
        return 0.0;
    }
    let digits = 6 - value.abs().log10().ceil() as i32;
    crate::stats::round(value, digits.max(0))
}

/// The changes of one record present in both documents.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordChanges {
    /// `runs → qwen36-moe-default`.
    pub record: String,
    /// What changed.
    pub changes: Vec<Change>,
}

/// Everything that changed from one document to another.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Diff {
    /// Changed records, in document order.
    pub records: Vec<RecordChanges>,
    /// Records only the new document has.
    pub added: Vec<String>,
    /// Records only the old document has.
    pub removed: Vec<String>,
}

impl Diff {
    /// Whether nothing changed.
    pub fn is_empty(&self) -> bool {
        self.records.is_empty() && self.added.is_empty() && self.removed.is_empty()
    }

    /// The changes flagged as regressions, with their records.
    pub fn regressions(&self) -> impl Iterator<Item = (&str, &Change)> {
        self.records.iter().flat_map(|record| {
            record
                .changes
                .iter()
                .filter(|change| change.regression)
                .map(move |change| (record.record.as_str(), change))
        })
    }
}

/// A record's figures and settings, flattened for comparison.
#[derive(Default)]
struct Facts {
    figures: Vec<Figure>,
    settings: Vec<(String, Option<Value>)>,
    /// The version of the definitions it was measured by (1: before records said), for a
    /// record benchsite measures; a figure measured by another is never a regression.
    method: Option<u64>,
}

/// One figure of a record.
struct Figure {
    name: String,
    value: Option<Value>,
    better: Better,
    /// Its 95% interval or its samples' range, where the record has one.
    interval: Option<(f64, f64)>,
}

impl Facts {
    fn figure(&mut self, name: impl Into<String>, value: Option<f64>, better: Better) {
        self.figures.push(Figure {
            name: name.into(),
            value: value.map(Value::Number),
            better,
            interval: None,
        });
    }

    /// A setting as its JSON (strings bare; absent when null).
    fn setting(&mut self, name: &str, value: impl Serialize) {
        let value = match serde_json::to_value(value).unwrap_or_default() {
            serde_json::Value::String(text) => Some(Value::Text(text)),
            serde_json::Value::Null => None,
            other => Some(Value::Text(other.to_string())),
        };
        self.settings.push((name.to_owned(), value));
    }

    /// Every registry field of a record by its role, each name written through `name`.
    fn fields<'f, R: 'f>(
        &mut self,
        fields: impl IntoIterator<Item = &'f Field<R>>,
        record: &R,
        name: impl Fn(&str) -> String,
    ) {
        for field in fields {
            let value = (field.get)(record);
            match field.role {
                Role::Figure(better) => self.figures.push(Figure {
                    name: name(field.key),
                    value,
                    better,
                    interval: None,
                }),
                Role::Setting => self.settings.push((name(field.key), value)),
                Role::Key | Role::Detail => {}
            }
        }
    }
}

/// Compares `old` with `new`; `threshold` is the percentage beyond which a bad move is a
/// regression.
pub fn diff(old: &Results, new: &Results, threshold: f64) -> Diff {
    let mut result = Diff::default();
    compare(&mut result, old, new, run_facts, threshold);
    compare(&mut result, old, new, sweep_facts, threshold);
    compare(&mut result, old, new, failure_facts, threshold);
    compare(&mut result, old, new, jitter_facts, threshold);
    compare(&mut result, old, new, divergence_facts, threshold);
    result
}

fn compare<R: Record>(
    result: &mut Diff,
    old: &Results,
    new: &Results,
    facts: impl Fn(&R) -> Facts,
    threshold: f64,
) {
    let (old, new) = (R::records(old), R::records(new));
    let name = |k: &str| format!("{} → {k}", R::ARRAY);
    for before in old {
        let k = before.key();
        match new.iter().find(|after| after.key() == k) {
            None => result.removed.push(name(k)),
            Some(after) => {
                let changes = changes(&facts(before), &facts(after), threshold);
                if !changes.is_empty() {
                    result.records.push(RecordChanges {
                        record: name(k),
                        changes,
                    });
                }
            }
        }
    }
    for after in new {
        let k = after.key();
        if !old.iter().any(|before| before.key() == k) {
            result.added.push(name(k));
        }
    }
}

/// What a figure's two intervals say of its move.
fn noise_of(before: &Figure, after: Option<&Figure>) -> Noise {
    use crate::stats::noise::{self, Verdict};
    let side = |figure: &Figure| Some((figure.value.as_ref()?.number()?, figure.interval));
    match (side(before), after.and_then(side)) {
        (Some(a), Some(b)) => match noise::judge(b, a) {
            Some(Verdict::Within { .. }) => Noise::Within,
            Some(Verdict::Beyond { .. }) => Noise::Beyond,
            None => Noise::Unknown,
        },
        _ => Noise::Unknown,
    }
}

fn changes(old: &Facts, new: &Facts, threshold: f64) -> Vec<Change> {
    let mut changes = Vec::new();
    let find =
        |facts: &Facts, name: &str| facts.figures.iter().position(|figure| figure.name == name);
    let number = |value: &Option<Value>| value.as_ref().and_then(Value::number);
    for before in &old.figures {
        let after = find(new, &before.name).and_then(|at| new.figures[at].value.clone());
        if before.value == after {
            continue;
        }
        let delta = number(&before.value)
            .zip(number(&after))
            .map(|(b, a)| a - b);
        let percent = number(&before.value)
            .zip(delta)
            .filter(|(b, _)| *b != 0.0)
            .map(|(b, d)| d / b.abs() * 100.0);
        let worse = match (before.better, delta) {
            (Better::Higher, Some(d)) => d < 0.0,
            (Better::Lower, Some(d)) => d > 0.0,
            _ => false,
        };
        let noise = noise_of(before, find(new, &before.name).map(|at| &new.figures[at]));
        // From zero any bad move is beyond every threshold; across a change of method, no
        // move is a regression (the method change is listed with the settings), nor one
        // within both records' intervals.
        let regression = worse
            && percent.is_none_or(|p| p.abs() > threshold)
            && old.method == new.method
            && noise != Noise::Within;
        changes.push(Change {
            what: before.name.clone(),
            of: Of::Figure,
            old: before.value.clone(),
            new: after,
            delta,
            percent,
            regression,
            noise,
        });
    }
    for after in &new.figures {
        if find(old, &after.name).is_none() {
            changes.push(Change {
                what: after.name.clone(),
                of: Of::Figure,
                old: None,
                new: after.value.clone(),
                delta: None,
                percent: None,
                regression: false,
                noise: Noise::Unknown,
            });
        }
    }
    for (name, before) in &old.settings {
        let after = new
            .settings
            .iter()
            .find(|(other, _)| other == name)
            .and_then(|(_, value)| value.clone());
        if *before != after {
            changes.push(Change {
                what: name.clone(),
                of: Of::Setting,
                old: before.clone(),
                new: after,
                delta: None,
                percent: None,
                regression: false,
                noise: Noise::Unknown,
            });
        }
    }
    changes
}

fn run_facts(run: &Run) -> Facts {
    let mut f = Facts::default();
    f.fields(run::ALL, run, str::to_owned);
    // The decode speed moves within its samples' range.
    if let Some(decode) = f
        .figures
        .iter_mut()
        .find(|figure| figure.name == run::DECODE_TOK_S.key)
    {
        decode.interval = crate::data::rules::decode_range(run);
    }
    f.method = Some(crate::data::rules::method_version(run.method.as_ref()));
    f.setting("method_version", f.method);
    f
}

fn sweep_facts(sweep: &Sweep) -> Facts {
    let mut f = Facts::default();
    for level in &sweep.levels {
        for field in level::ALL.iter().map(|l| &l.field) {
            let name = format!("{}: {}", level.load().words(), field.key);
            if let Role::Figure(better) = field.role {
                f.figures.push(Figure {
                    name,
                    value: (field.get)(level),
                    better,
                    interval: level.ci95.get(field.key).map(|[low, high]| (*low, *high)),
                });
            }
        }
    }
    f.setting("vllm_version", &sweep.vllm_version);
    f.setting("model", &sweep.model);
    f.setting("max_model_len", sweep.max_model_len);
    f.setting("workload", &sweep.workload);
    f.setting("dimensions", &sweep.dimensions);
    f.method = Some(crate::data::rules::method_version(sweep.method.as_ref()));
    f.setting("method_version", f.method);
    f
}

fn failure_facts(failure: &Failure) -> Facts {
    let mut f = Facts::default();
    let weights = &run::WEIGHTS_GIB;
    f.figure(
        weights.key,
        failure.weights_gib,
        weights.better().unwrap_or(Better::Neither),
    );
    f.setting("status", failure.status.as_str());
    f.setting("checkpoint", &failure.checkpoint);
    f.setting("precision", &failure.precision);
    f.setting("config", &failure.config);
    f
}

fn jitter_facts(jitter: &Jitter) -> Facts {
    let mut f = Facts::default();
    f.fields(divergence::JITTER, jitter, str::to_owned);
    f.setting("vllm_version", &jitter.vllm_version);
    f.setting("model", &jitter.model);
    f.setting("prompts", jitter.prompts);
    f.setting("repeats", jitter.repeats);
    f.setting("max_tokens", jitter.max_tokens);
    f
}

fn divergence_facts(d: &Divergence) -> Facts {
    let mut f = Facts::default();
    let (t, g) = (&d.teacher_forced, &d.generation);
    f.fields(
        [
            &divergence::KLD_MEAN,
            &divergence::KLD_P99,
            &divergence::TOP1_AGREE,
            &divergence::DP_MEAN_ABS,
        ],
        &t.block(),
        |key| format!("teacher_forced.{key}"),
    );
    f.fields([&divergence::KLD_MEAN], &g.block(), |key| {
        format!("generation.{key}")
    });
    f.fields([&divergence::IDENTICAL_RATE], g, |key| {
        format!("generation.{key}")
    });
    f.setting("a", d.a.as_str());
    f.setting("b", d.b.as_str());
    f.setting("vllm_version", &d.vllm_version);
    f.setting("prompt_set", &d.prompt_set);
    f.setting("settings", &d.settings);
    f
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(value: f64, better: Better) -> Facts {
        let mut f = Facts::default();
        f.figure("x", Some(value), better);
        f
    }

    #[test]
    fn regressions_are_bad_moves_beyond_the_threshold() {
        let higher = |old, new| {
            changes(
                &facts(old, Better::Higher),
                &facts(new, Better::Higher),
                5.0,
            )
        };
        let change = &higher(100.0, 90.0)[0];
        assert_eq!(
            (change.delta, change.percent, change.regression),
            (Some(-10.0), Some(-10.0), true)
        );
        assert!(!higher(100.0, 96.0)[0].regression, "within the threshold");
        assert!(!higher(100.0, 120.0)[0].regression, "better");
        assert!(higher(100.0, 100.0).is_empty());
        let lower = |old, new| changes(&facts(old, Better::Lower), &facts(new, Better::Lower), 5.0);
        assert!(lower(0.0, 2.0)[0].regression, "from zero, any rise");
        assert!(!lower(2.0, 0.0)[0].regression);
        // A bad move within both records' intervals is not a regression: 100 [90, 110] to
        // 93 [85, 101] moves −7, and √(10² + 8²) ≈ 12.8 > 7.
        let (mut old, mut new) = (facts(100.0, Better::Higher), facts(93.0, Better::Higher));
        (old.figures[0].interval, new.figures[0].interval) =
            (Some((90.0, 110.0)), Some((85.0, 101.0)));
        let change = &changes(&old, &new, 5.0)[0];
        assert_eq!((change.noise, change.regression), (Noise::Within, false));
        new.figures[0].interval = Some((92.5, 93.5));
        old.figures[0].interval = Some((99.5, 100.5));
        let change = &changes(&old, &new, 5.0)[0];
        assert_eq!((change.noise, change.regression), (Noise::Beyond, true));
        // Across a change of method a bad move is listed, never a regression.
        let (mut old, mut new) = (facts(100.0, Better::Higher), facts(50.0, Better::Higher));
        (old.method, new.method) = (Some(1), Some(2));
        let change = &changes(&old, &new, 5.0)[0];
        assert_eq!((change.percent, change.regression), (Some(-50.0), false));
    }
}

//! A comparison against its noise floor and its one-knob siblings. The floor is the floor
//! comparison of the same reference capture (the same server scoring its own continuations
//! again). Two comparisons of one reference over the same prompts, each keeping its per-prompt
//! KL sums, are judged by a bootstrap paired over those prompts; otherwise from the two
//! records' 95% intervals (`stats::noise`), the weaker test, and the verdict says which.

use super::records::Catalog;
use crate::data::Divergence;
use crate::data::figures::Precision;
use crate::format::figure;
use crate::stats::divergence::{BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED};
use crate::stats::noise::{self, Interval, Verdict};

/// A comparison's standing against its floor.
#[derive(Debug, Clone, PartialEq)]
pub struct Judged {
    /// In a word or two, for a table cell: `within noise`, `1.2 × floor`.
    pub short: String,
    /// In a sentence, with the floor, the difference's interval and the test used.
    pub sentence: String,
    /// Whether it is beyond the noise; `None` where there is no floor to test against.
    pub beyond: Option<bool>,
}

/// `x` to three significant digits, as text.
fn sig3(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return figure(x);
    }
    let decimals = Precision::Significant(3).decimals_for(x).unwrap_or(0);
    format!("{x:.decimals$}")
}

fn interval(d: &Divergence) -> Interval {
    let tf = &d.teacher_forced;
    Interval {
        value: tf.kld_mean,
        low: tf.kld_mean_ci95[0],
        high: tf.kld_mean_ci95[1],
    }
}

/// Which test judged a difference of mean KL.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Test {
    /// A bootstrap paired over this many prompts both records scored.
    Paired(usize),
    /// The two records' own 95% intervals.
    Intervals,
}

impl Test {
    /// The test in a few words, for a parenthesis: `paired over 96 prompts`.
    pub fn short(self) -> String {
        match self {
            Test::Paired(n) => format!("paired over {n} prompts"),
            Test::Intervals => "95% intervals".into(),
        }
    }

    /// The test in a sentence.
    pub fn sentence(self) -> String {
        match self {
            Test::Paired(n) => format!(
                "Judged by a bootstrap paired over the {n} prompts both scored ({BOOTSTRAP_RESAMPLES} \
                 resamples of prompts, each keeping its two KL sums together), the stronger test."
            ),
            Test::Intervals => "Judged from the two records' 95% intervals, the weaker test: \
                                they keep no per-prompt sums to pair over the same prompts."
                .into(),
        }
    }
}

/// `a`'s mean KL minus `b`'s, judged against noise.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KlDifference {
    /// The verdict, with the difference's 95% interval.
    pub verdict: Verdict,
    /// The test that gave it.
    pub test: Test,
}

/// `a`'s mean KL against `b`'s: paired over their prompts when both compare the same reference
/// over the same prompt set and keep per-prompt sums for the same prompts, else from the two
/// intervals.
pub fn kl_difference(a: &Divergence, b: &Divergence) -> KlDifference {
    let (pa, pb) = (&a.teacher_forced.per_prompt, &b.teacher_forced.per_prompt);
    let comparable = a.a == b.a
        && a.prompt_set == b.prompt_set
        && !pa.is_empty()
        && pa.len() == pb.len()
        && pa.keys().all(|id| pb.contains_key(id));
    if comparable {
        let pairs: Vec<_> = pa
            .iter()
            .map(|(id, x)| {
                let y = &pb[id];
                ((x.kl_sum, x.positions), (y.kl_sum, y.positions))
            })
            .collect();
        if let Some(p) = noise::paired(&pairs, BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED) {
            return KlDifference {
                verdict: p.verdict,
                test: Test::Paired(pairs.len()),
            };
        }
    }
    KlDifference {
        verdict: noise::difference(interval(a), interval(b)),
        test: Test::Intervals,
    }
}

impl Catalog<'_> {
    /// The floor a comparison that is not one itself is judged against: the first floor
    /// comparison of the same reference capture (`a`), found through an index built once.
    fn floor_for(&self, d: &Divergence) -> Option<&Divergence> {
        let floors = self.reference_floors.get_or_init(|| {
            let mut floors = std::collections::HashMap::new();
            for (i, f) in self.doc.divergence.iter().enumerate() {
                if f.is_floor() {
                    floors.entry(f.a.to_string()).or_insert(i);
                }
            }
            floors
        });
        floors.get(d.a.as_str()).map(|&i| &self.doc.divergence[i])
    }

    /// A comparison's mean KL against its floor; `None` for a floor itself.
    pub fn judged(&self, d: &Divergence) -> Option<Judged> {
        if d.is_floor() {
            return None;
        }
        let own = interval(d);
        let Some(floor) = self.floor_for(d) else {
            return Some(Judged {
                short: "no floor".into(),
                beyond: None,
                sentence: format!(
                    "No noise floor measures reference {} (a comparison of it against itself, \
                     measured again): its {} nats stand alone.",
                    d.a,
                    figure(own.value)
                ),
            });
        };
        let base = interval(floor);
        if base.high <= 0.0 {
            // The server gave the same logprobs when run again: no noise, so the comparison's
            // own interval decides, against zero.
            let beyond = own.low > 0.0;
            return Some(Judged {
                short: match beyond {
                    true => "beyond noise (floor 0)".into(),
                    false => "within noise".into(),
                },
                beyond: Some(beyond),
                sentence: format!(
                    "{}: its floor, {}, measured 0 nats (the server gave the same logprobs \
                     when run again), so there is no noise, and its own {} nats have the 95% \
                     interval {} – {}, which {} zero.",
                    if beyond {
                        "Beyond noise"
                    } else {
                        "Within noise"
                    },
                    floor.label,
                    sig3(own.value),
                    sig3(own.low),
                    sig3(own.high),
                    if beyond { "leaves out" } else { "holds" },
                ),
            });
        }
        let ratio = own.value / base.value;
        let judged = kl_difference(d, floor);
        let (short, low, high, holds) = match judged.verdict {
            Verdict::Within { low, high } => ("within noise".to_owned(), low, high, "holds"),
            Verdict::Beyond { low, high } => {
                (format!("{} × floor", sig3(ratio)), low, high, "leaves out")
            }
        };
        Some(Judged {
            beyond: Some(holds != "holds"),
            sentence: format!(
                "{}: {} × its floor, {} ({} nats, 95% interval {} – {}). The difference, {} \
                 nats, has the 95% interval {} – {}, which {holds} zero. {}",
                if holds == "holds" {
                    "Within noise"
                } else {
                    "Beyond noise"
                },
                sig3(ratio),
                floor.label,
                figure(base.value),
                figure(base.low),
                figure(base.high),
                sig3(own.value - base.value),
                sig3(low),
                sig3(high),
                judged.test.sentence(),
            ),
            short,
        })
    }
}

//! A comparison against its noise floor: the floor comparison of the same reference capture
//! (the same server scoring its own continuations again), and whether the comparison's mean
//! KL is beyond it, judged from the two records' 95% intervals (`stats::noise`). The records
//! keep no per-prompt sums, so the paired test cannot be run; the verdict says so.

use super::records::Catalog;
use crate::data::Divergence;
use crate::data::figures::Precision;
use crate::format::figure;
use crate::stats::noise::{self, Interval, Verdict};

/// A comparison's standing against its floor.
#[derive(Debug, Clone, PartialEq)]
pub struct Judged {
    /// In a word or two, for a table cell: `within noise`, `1.2 × floor`.
    pub short: String,
    /// In a sentence, with the floor, the difference's interval and the test used.
    pub sentence: String,
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

/// The test a verdict from two records' intervals is.
const WEAKER: &str = "Judged from the two records' 95% intervals, the weaker test: they keep no \
                      per-prompt sums to pair over the same prompts.";

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
                sentence: format!(
                    "No noise floor measures reference {} (a comparison of it against itself, \
                     measured again): its {} nats stand alone.",
                    d.a,
                    figure(own.value)
                ),
            });
        };
        let base = interval(floor);
        if base.value <= 0.0 {
            return Some(Judged {
                short: "floor is 0: no test".into(),
                sentence: format!(
                    "Its floor, {}, measured 0 nats: the server gave the same logprobs when \
                     run again, so there is no noise to judge against, and its {} nats stand \
                     alone.",
                    floor.label,
                    figure(own.value)
                ),
            });
        }
        let ratio = own.value / base.value;
        let (short, low, high, holds) = match noise::difference(own, base) {
            Verdict::Within { low, high } => ("within noise".to_owned(), low, high, "holds"),
            Verdict::Beyond { low, high } => {
                (format!("{} × floor", sig3(ratio)), low, high, "leaves out")
            }
        };
        Some(Judged {
            sentence: format!(
                "{}: {} × its floor, {} ({} nats, 95% interval {} – {}). The difference, {} \
                 nats, has the 95% interval {} – {}, which {holds} zero. {WEAKER}",
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
            ),
            short,
        })
    }
}

//! Whether a difference is beyond noise, judged from two measurements' own 95% intervals when
//! nothing pairs them: the difference's interval is the difference ± each side's half-width
//! added in quadrature (a normal approximation of independent errors, each side's lower and
//! upper half-widths kept apart for a skewed bootstrap interval). A bootstrap paired over the
//! same prompts ([`paired`]) is the stronger test, since it keeps what the two measurements'
//! errors share; pages say which test gave a verdict.

/// A value with its 95% interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Interval {
    /// The point value.
    pub value: f64,
    /// The interval's lower end.
    pub low: f64,
    /// The interval's upper end.
    pub high: f64,
}

/// What a difference `a − b` is against both sides' noise.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Verdict {
    /// The difference's interval holds zero.
    Within {
        /// The difference's 95% interval.
        low: f64,
        /// Its upper end.
        high: f64,
    },
    /// The difference's interval is above or below zero.
    Beyond {
        /// The difference's 95% interval.
        low: f64,
        /// Its upper end.
        high: f64,
    },
}

/// A paired difference and its verdict.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Paired {
    /// The difference of the two means over every prompt.
    pub value: f64,
    /// Its bootstrap verdict.
    pub verdict: Verdict,
}

/// `a − b` judged against the two intervals; see the module documentation.
pub fn difference(a: Interval, b: Interval) -> Verdict {
    let d = a.value - b.value;
    let low = d - (a.value - a.low).hypot(b.high - b.value);
    let high = d + (a.high - a.value).hypot(b.value - b.low);
    if low > 0.0 || high < 0.0 {
        Verdict::Beyond { low, high }
    } else {
        Verdict::Within { low, high }
    }
}

/// [`difference`] of two values each with its optional `(low, high)` interval; `None` when
/// either has none.
pub fn judge(
    (a, a_range): (f64, Option<(f64, f64)>),
    (b, b_range): (f64, Option<(f64, f64)>),
) -> Option<Verdict> {
    let ((a_low, a_high), (b_low, b_high)) = (a_range?, b_range?);
    Some(difference(
        Interval {
            value: a,
            low: a_low,
            high: a_high,
        },
        Interval {
            value: b,
            low: b_low,
            high: b_high,
        },
    ))
}

/// One prompt's `(sum, positions)` on side a and on side b.
pub type Pair = ((f64, u64), (f64, u64));

/// The difference of two position-weighted means over the same prompts, `a − b`, judged by a
/// percentile bootstrap that resamples prompts with replacement and keeps each prompt's two
/// sides together (SPEC §4). Each pair is one prompt's `(sum, positions)` on side a and on
/// side b. `None` when there are no positions.
pub fn paired(pairs: &[Pair], resamples: usize, seed: u64) -> Option<Paired> {
    let means = |picked: &mut dyn Iterator<Item = &Pair>| {
        let (mut sa, mut na, mut sb, mut nb) = (0.0, 0u64, 0.0, 0u64);
        for &((s_a, n_a), (s_b, n_b)) in picked {
            (sa, na, sb, nb) = (sa + s_a, na + n_a, sb + s_b, nb + n_b);
        }
        (na > 0 && nb > 0).then(|| sa / na as f64 - sb / nb as f64)
    };
    let value = means(&mut pairs.iter())?;
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut resampled: Vec<f64> = (0..resamples)
        .map(|_| {
            let mut picked = (0..pairs.len()).map(|_| &pairs[rng.usize(..pairs.len())]);
            // A resample of only empty prompts has no mean; it counts as no difference.
            means(&mut picked).unwrap_or(0.0)
        })
        .collect();
    resampled.sort_by(f64::total_cmp);
    let q = |at| super::summary::quantile_sorted(&resampled, at).unwrap_or(value);
    let (low, high) = (q(0.025), q(0.975));
    Some(Paired {
        value,
        verdict: if low > 0.0 || high < 0.0 {
            Verdict::Beyond { low, high }
        } else {
            Verdict::Within { low, high }
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_difference_is_beyond_noise_when_its_interval_leaves_zero() {
        // 0.5 ± 0.3 against 0.1 ± 0.4: d = 0.4, half-width √(0.09 + 0.16) = 0.5: within.
        let a = Interval {
            value: 0.5,
            low: 0.2,
            high: 0.8,
        };
        let b = Interval {
            value: 0.1,
            low: -0.3,
            high: 0.5,
        };
        match difference(a, b) {
            Verdict::Within { low, high } => {
                assert!((low - -0.1).abs() < 1e-12 && (high - 0.9).abs() < 1e-12);
            }
            other => panic!("{other:?}"),
        }
        // 0.9 ± 0.3 against 0.1 ± 0.4: d = 0.8, low 0.3: beyond.
        let a = Interval {
            value: 0.9,
            low: 0.6,
            high: 1.2,
        };
        assert!(
            matches!(difference(a, b), Verdict::Beyond { low, .. } if (low - 0.3).abs() < 1e-12)
        );
        // Overlapping intervals can still differ: 1.0 ± 0.3 against 0.5 ± 0.3 overlap on
        // [0.7, 0.8], yet d = 0.5 > √0.18 ≈ 0.424.
        let a = Interval {
            value: 1.0,
            low: 0.7,
            high: 1.3,
        };
        let b = Interval {
            value: 0.5,
            low: 0.2,
            high: 0.8,
        };
        assert!(matches!(difference(a, b), Verdict::Beyond { .. }));
    }

    #[test]
    fn a_paired_bootstrap_of_hand_worked_cases() {
        // Every prompt 0.05 nats a position higher on side a: each resample's difference is
        // 0.05 whichever prompts it draws, so the interval is the point, beyond zero.
        let pairs = [((1.5, 10), (1.0, 10)), ((3.5, 10), (3.0, 10))];
        let p = paired(&pairs, 1000, 7).unwrap();
        assert!((p.value - 0.05).abs() < 1e-12);
        match p.verdict {
            Verdict::Beyond { low, high } => {
                assert!((low - 0.05).abs() < 1e-12 && (high - 0.05).abs() < 1e-12)
            }
            other => panic!("{other:?}"),
        }
        // One prompt +0.1 a position, the other −0.1: resamples {1, 1}, a mix and {2, 2}
        // give +0.1, 0 and −0.1 at 1/4, 1/2, 1/4; the 2.5th and 97.5th percentiles are −0.1
        // and +0.1, so the interval holds zero.
        let pairs = [((2.0, 10), (1.0, 10)), ((1.0, 10), (2.0, 10))];
        let p = paired(&pairs, 1000, 7).unwrap();
        assert_eq!(p.value, 0.0);
        match p.verdict {
            Verdict::Within { low, high } => {
                assert!(
                    (low + 0.1).abs() < 1e-12 && (high - 0.1).abs() < 1e-12,
                    "{low} {high}"
                )
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(paired(&[((0.0, 0), (0.0, 0))], 10, 7), None);
    }

    #[test]
    fn pairing_finds_a_shift_two_wide_intervals_hide() {
        // Prompts vary from 0.1 to 1.0 nats a position on both sides; side a is 0.01 higher on
        // every one. Each side's own interval is wide, so the unpaired test sees nothing; the
        // paired differences are all 0.01.
        let pairs: Vec<_> = (1..=10)
            .map(|i| {
                let b = f64::from(i) / 10.0;
                (((b + 0.01) * 4.0, 4), (b * 4.0, 4))
            })
            .collect();
        let p = paired(&pairs, 1000, 7).unwrap();
        assert!(matches!(p.verdict, Verdict::Beyond { low, .. } if (low - 0.01).abs() < 1e-9));
        // The means are 0.56 and 0.55; give each the half-width 0.2 a spread of 0.1–1.0 over
        // ten prompts has (roughly 1.96 × 0.287 / √10 ≈ 0.18): the unpaired test holds zero.
        let a = Interval {
            value: 0.56,
            low: 0.36,
            high: 0.76,
        };
        let b = Interval {
            value: 0.55,
            low: 0.35,
            high: 0.75,
        };
        assert!(matches!(difference(a, b), Verdict::Within { .. }));
    }
}

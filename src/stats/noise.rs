//! Whether a difference is beyond noise, judged from two measurements' own 95% intervals when
//! nothing pairs them: the difference's interval is the difference ± each side's half-width
//! added in quadrature (a normal approximation of independent errors, each side's lower and
//! upper half-widths kept apart for a skewed bootstrap interval). A paired bootstrap over the
//! same prompts is the stronger test; pages say when this one is used.

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
}

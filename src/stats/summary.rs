//! Percentiles by linear interpolation between closest ranks (numpy's default), medians,
//! means and rounding.

/// The `q`-th quantile (0..=1) of `values`, interpolating linearly between the closest ranks:
/// position `q × (n − 1)` in the sorted values. `None` for no values.
pub fn quantile(values: &[f64], q: f64) -> Option<f64> {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    quantile_sorted(&sorted, q)
}

/// [`quantile`] of values already sorted ascending.
pub fn quantile_sorted(sorted: &[f64], q: f64) -> Option<f64> {
    let last = sorted.len().checked_sub(1)?;
    let position = q.clamp(0.0, 1.0) * last as f64;
    let below = position.floor() as usize;
    let above = (below + 1).min(last);
    let fraction = position - below as f64;
    Some(sorted[below] + (sorted[above] - sorted[below]) * fraction)
}

/// The median: [`quantile`] at one half.
pub fn median(values: &[f64]) -> Option<f64> {
    quantile(values, 0.5)
}

/// The arithmetic mean; `None` for no values.
pub fn mean(values: &[f64]) -> Option<f64> {
    (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
}

/// The percentile-bootstrap 95% interval of the `q` quantile of `values`: `resamples`
/// resamples with replacement from a generator seeded with `seed`, each one's quantile, and
/// the 2.5th and 97.5th percentiles of those. `None` for no values.
pub fn quantile_ci95(values: &[f64], q: f64, resamples: usize, seed: u64) -> Option<[f64; 2]> {
    if values.is_empty() {
        return None;
    }
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut sample = vec![0.0; values.len()];
    let mut estimates: Vec<f64> = (0..resamples)
        .map(|_| {
            for slot in &mut sample {
                *slot = values[rng.usize(..values.len())];
            }
            sample.sort_by(f64::total_cmp);
            quantile_sorted(&sample, q).unwrap_or(0.0)
        })
        .collect();
    estimates.sort_by(f64::total_cmp);
    Some([
        quantile_sorted(&estimates, 0.025)?,
        quantile_sorted(&estimates, 0.975)?,
    ])
}

/// `value` rounded to `digits` decimal places.
pub fn round(value: f64, digits: i32) -> f64 {
    let scale = 10f64.powi(digits);
    (value * scale).round() / scale
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_match_numpy() {
        // numpy.percentile([1, 2, 3, 4], [0, 25, 50, 95, 100]) = 1, 1.75, 2.5, 3.85, 4
        let values = [4.0, 1.0, 3.0, 2.0];
        let at = |q| quantile(&values, q).unwrap();
        assert_eq!(at(0.0), 1.0);
        assert!((at(0.25) - 1.75).abs() < 1e-12);
        assert!((at(0.5) - 2.5).abs() < 1e-12);
        assert!((at(0.95) - 3.85).abs() < 1e-12);
        assert_eq!(at(1.0), 4.0);
        assert_eq!(quantile(&[7.0], 0.95), Some(7.0));
        assert_eq!(quantile(&[], 0.5), None);
    }

    #[test]
    fn a_bootstrap_interval_is_as_wide_as_theory_says() {
        // 401 evenly spaced values on [0, 1]: the median's standard error is about
        // √(0.25 / 401) / 1 (the density) ≈ 0.025, so its 95% interval about ±0.049.
        let values: Vec<f64> = (0..401).map(|i| f64::from(i) / 400.0).collect();
        let [low, high] = quantile_ci95(&values, 0.5, 1000, 7).unwrap();
        assert!((0.07..0.13).contains(&(high - low)), "[{low}, {high}]");
        assert!(low < 0.5 && 0.5 < high);
        // No spread, no interval width; the same seed, the same interval.
        assert_eq!(quantile_ci95(&[3.0; 25], 0.95, 200, 1), Some([3.0, 3.0]));
        assert_eq!(
            quantile_ci95(&values, 0.95, 200, 1),
            quantile_ci95(&values, 0.95, 200, 1)
        );
        assert_eq!(quantile_ci95(&[], 0.5, 10, 1), None);
    }

    #[test]
    fn medians_means_and_rounding() {
        assert_eq!(median(&[289.1, 289.0, 289.0]), Some(289.0));
        assert_eq!(mean(&[1.0, 2.0, 6.0]), Some(3.0));
        assert_eq!(mean(&[]), None);
        assert_eq!(round(5.654_321, 2), 5.65);
        assert_eq!(round(1.234_56, 3), 1.235);
    }
}

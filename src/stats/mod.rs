//! The statistics the figures are made of: percentiles by linear interpolation between
//! closest ranks (numpy's default), medians and means, and the divergence statistics of
//! SPEC §4 ([`divergence`]). Pure functions: no I/O.

pub mod divergence;

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
    fn medians_means_and_rounding() {
        assert_eq!(median(&[289.1, 289.0, 289.0]), Some(289.0));
        assert_eq!(mean(&[1.0, 2.0, 6.0]), Some(3.0));
        assert_eq!(mean(&[]), None);
        assert_eq!(round(5.654_321, 2), 5.65);
        assert_eq!(round(1.234_56, 3), 1.235);
    }
}

/// Which of `points` are on the Pareto frontier when more is better on both axes: those no
/// other point matches on both and beats on one.
pub fn pareto(points: &[(f64, f64)]) -> Vec<bool> {
    // Down the x axis, a group of equal x at a time: a point is on the frontier when it is
    // its group's highest and higher than every point of a larger x. O(n log n).
    let mut order: Vec<usize> = (0..points.len()).collect();
    order.sort_by(|&a, &b| points[b].0.total_cmp(&points[a].0));
    let mut on = vec![false; points.len()];
    let mut best = f64::NEG_INFINITY;
    let mut start = 0;
    while start < order.len() {
        let x = points[order[start]].0;
        let end = start
            + order[start..]
                .iter()
                .take_while(|&&i| points[i].0 == x)
                .count();
        let top = order[start..end]
            .iter()
            .map(|&i| points[i].1)
            .fold(f64::NEG_INFINITY, f64::max);
        for &i in &order[start..end] {
            on[i] = points[i].1 == top && top > best;
        }
        best = best.max(top);
        start = end;
    }
    on
}

#[cfg(test)]
mod pareto_tests {
    use super::pareto;

    #[test]
    fn the_frontier_is_the_points_nothing_beats_on_both_axes() {
        // (interactivity, throughput): b beats a on both; d ties c's x and beats its y.
        let points = [
            (10.0, 100.0),
            (20.0, 150.0),
            (50.0, 40.0),
            (50.0, 60.0),
            (5.0, 300.0),
        ];
        assert_eq!(pareto(&points), [false, true, false, true, true]);
        // Equal points are both on it.
        assert_eq!(pareto(&[(1.0, 1.0), (1.0, 1.0)]), [true, true]);
        assert!(pareto(&[]).is_empty());
    }

    #[test]
    fn the_sorted_frontier_is_the_definitions() {
        let mut rng = fastrand::Rng::with_seed(7);
        for _ in 0..200 {
            let points: Vec<(f64, f64)> = (0..rng.usize(0..30))
                .map(|_| (rng.u8(0..8) as f64, rng.u8(0..8) as f64))
                .collect();
            let by_definition: Vec<bool> = points
                .iter()
                .map(|&(x, y)| {
                    !points
                        .iter()
                        .any(|&(ox, oy)| ox >= x && oy >= y && (ox > x || oy > y))
                })
                .collect();
            assert_eq!(pareto(&points), by_definition, "{points:?}");
        }
    }
}

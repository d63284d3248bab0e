//! The Pareto frontier of points where more is better on both axes.

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

//! What every chart shares: symbols, axis ends and the embedded JSON.

/// An axis end past `max` with room for a label: the first round number (1, 1.2, 1.5, 2,
/// 2.5, 3, 3.5, 4, 5, 6, 7, 8 or 10 times a power of ten) at or above `max` plus 12%.
pub(super) fn headroom(max: f64) -> f64 {
    if !(max > 0.0 && max.is_finite()) {
        return 1.0;
    }
    let target = max * 1.12;
    let power = target.log10().floor() as i32;
    let magnitude = 10f64.powi(power);
    let multiple = [
        1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 5.0, 6.0, 7.0, 8.0, 10.0,
    ]
    .into_iter()
    .find(|m| m * magnitude >= target)
    .unwrap_or(10.0);
    // Rounded to the digits of the step, so 0.1 × 3 is 0.3, not 0.30000000000000004.
    let digits = (1 - power).max(0);
    let scale = 10f64.powi(digits);
    (multiple * magnitude * scale).round() / scale
}

/// A symbol per series, so more series than colours stay apart (ECharts cycles 9 colours).
pub(super) const SYMBOLS: [&str; 6] = ["circle", "rect", "triangle", "diamond", "roundRect", "pin"];

/// The option serialised for a `<script type="application/json">` element: `<` is escaped so
/// no data string can close the element. The chrome every chart shares (its "save as PNG"
/// button) is the site script's, not repeated in every option.
///
/// A grid that contains its labels contains its axis names too (ECharts 6.1's `outerBoundsMode`;
/// `containLabel` left the y axis's rotated name outside the box on a phone, so a reader
/// lost "s (log scale)").
pub(super) fn finish(mut option: serde_json::Value) -> String {
    let grids = match &mut option["grid"] {
        serde_json::Value::Array(grids) => grids.iter_mut().collect(),
        grid @ serde_json::Value::Object(_) => vec![grid],
        _ => Vec::new(),
    };
    for grid in grids
        .into_iter()
        .filter_map(serde_json::Value::as_object_mut)
    {
        if grid.remove("containLabel") == Some(serde_json::Value::Bool(true)) {
            grid.insert("outerBoundsMode".into(), "same".into());
            grid.insert("outerBoundsContain".into(), "all".into());
        }
    }
    option.to_string().replace('<', "\\u003c")
}

#[cfg(test)]
mod tests {
    use super::super::{bars, heatmap, scatter};
    use super::*;

    #[test]
    fn axes_end_at_a_round_number_past_the_largest_value() {
        assert_eq!(headroom(289.0), 350.0);
        assert_eq!(headroom(300.0), 350.0);
        assert_eq!(headroom(0.1528), 0.2);
        assert_eq!(headroom(0.0021), 0.0025);
        assert_eq!(headroom(9.0), 12.0);
        assert_eq!(headroom(0.0), 1.0);
    }

    #[test]
    fn every_grid_holds_its_axis_names_as_well_as_its_labels() {
        for json in [
            bars(&["a".into()], &[1.0], &[], "tok/s"),
            scatter(&[], "x", "y"),
            heatmap(&[], &[], &[], &[], &[], "nats"),
        ] {
            let value: serde_json::Value = serde_json::from_str(&json).unwrap();
            let grid = match &value["grid"] {
                serde_json::Value::Array(grids) => grids[0].clone(),
                grid => grid.clone(),
            };
            assert_eq!(grid.get("containLabel"), None, "{json}");
            assert_eq!(grid["outerBoundsMode"], "same", "{json}");
            assert_eq!(grid["outerBoundsContain"], "all", "{json}");
        }
    }
}

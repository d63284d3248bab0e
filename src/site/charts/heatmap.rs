//! The heatmap of per-category divergence, shaded per model.

use charming::Chart;

use charming::component::{Axis, Grid, VisualMap};
use charming::datatype::DataPoint;
use charming::element::{
    AxisLabel, AxisType, Emphasis, ItemStyle, Label, Orient, SplitArea, Tooltip,
};
use charming::series::Heatmap;

use super::shared::finish;

/// A heatmap: `cells[row][column]`, `None` where there is no value, each cell opening
/// `links[row][column]` where given. Each row is shaded on its own scale, from 0 to
/// `tops[row]` (a model's largest value, so one model's small values are not washed out by
/// another's); a row whose top is `None` (a suspect measurement) is kept out of the scale,
/// drawn grey and hatched. Every cell is labelled with its value, in `unit`.
pub fn heatmap(
    rows: &[String],
    columns: &[String],
    cells: &[Vec<Option<f64>>],
    links: &[Vec<String>],
    tops: &[Option<f64>],
    unit: &str,
) -> String {
    // Series 0 takes the shaded rows, series 1 the rows out of the scale.
    let mut data = [Vec::new(), Vec::new()];
    for (row, values) in cells.iter().enumerate() {
        let top = tops.get(row).copied().flatten();
        for (column, value) in values.iter().enumerate() {
            let Some(value) = *value else { continue };
            let mut point = match top {
                Some(top) => serde_json::json!({"value": [column, row, value, value / top]}),
                None => serde_json::json!({"value": [column, row, value]}),
            };
            if let Some(url) = links.get(row).and_then(|r| r.get(column)) {
                point["url"] = url.as_str().into();
            }
            data[usize::from(top.is_none())].push(point);
        }
    }
    let label = || Label::new().show(true).formatter("{@[2]}");
    let chart = Chart::new()
        .tooltip(Tooltip::new().position("top"))
        .grid(
            Grid::new()
                .left("3%")
                .right("4%")
                .top(10)
                .bottom(80)
                .contain_label(true),
        )
        .x_axis(
            Axis::new()
                .type_(AxisType::Category)
                .data(columns.to_vec())
                .split_area(SplitArea::new().show(true))
                .axis_label(AxisLabel::new().rotate(30).interval(0)),
        )
        .y_axis(
            Axis::new()
                .type_(AxisType::Category)
                .data(rows.to_vec())
                .inverse(true)
                .split_area(SplitArea::new().show(true)),
        )
        .visual_map(
            VisualMap::new()
                .min(0)
                .max(1)
                .dimension(3)
                .series_index(0)
                .calculable(false)
                .orient(Orient::Horizontal)
                .left("center")
                .bottom(0),
        )
        .series(
            Heatmap::new()
                .name(unit)
                .label(label())
                .emphasis(Emphasis::new().item_style(ItemStyle::new().border_width(1)))
                .data(Vec::<Vec<DataPoint>>::new()),
        )
        .series(
            Heatmap::new()
                .name(format!("{unit}, suspect: out of the scale"))
                .label(label())
                .item_style(ItemStyle::new().color("#9ca3af"))
                .emphasis(Emphasis::new().item_style(ItemStyle::new().border_width(1)))
                .data(Vec::<Vec<DataPoint>>::new()),
        );
    let mut option = serde_json::to_value(&chart).expect("a chart is JSON");
    let [shaded, out] = data;
    option["series"][0]["data"] = serde_json::Value::Array(shaded);
    option["series"][1]["data"] = serde_json::Value::Array(out);
    // Hatched, so the grey is not read as a small value.
    option["series"][1]["itemStyle"]["decal"] = serde_json::json!({
        "symbol": "rect", "dashArrayX": [1, 0], "dashArrayY": [2, 5], "rotation": -0.785,
        "color": "rgba(0, 0, 0, 0.15)",
    });
    // charming writes visualMap as a list of one.
    option["visualMap"][0]["text"] = serde_json::json!(["each model's largest", "0"]);
    finish(option)
}

/// The top of each row's colour scale: the largest value of the rows in scale of its group
/// (`groups[row]`, a model), 1 where that is 0; `None` for a row out of the scale.
pub fn heatmap_tops(
    cells: &[Vec<Option<f64>>],
    groups: &[&str],
    in_scale: &[bool],
) -> Vec<Option<f64>> {
    let top_of = |group: &str| {
        let max = cells
            .iter()
            .enumerate()
            .filter(|(row, _)| groups[*row] == group && in_scale[*row])
            .flat_map(|(_, values)| values.iter().flatten())
            .fold(0.0_f64, |max, v| max.max(*v));
        if max > 0.0 { max } else { 1.0 }
    };
    (0..cells.len())
        .map(|row| in_scale[row].then(|| top_of(groups[row])))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heatmap_rows_are_shaded_per_model_and_suspect_rows_kept_out() {
        // Model a's two rows (largest 0.2), model b's one (largest 0.01), and a suspect row of
        // a (5.0) that sets no scale.
        let cells = [
            vec![Some(0.2), Some(0.05)],
            vec![Some(0.1), None],
            vec![Some(0.01), Some(0.005)],
            vec![Some(5.0), Some(0.1)],
        ];
        let tops = heatmap_tops(&cells, &["a", "a", "b", "a"], &[true, true, true, false]);
        assert_eq!(tops, [Some(0.2), Some(0.2), Some(0.01), None]);
        let links: Vec<Vec<String>> = (0..4)
            .map(|r| {
                vec![
                    format!("/q/{r}/#category-code"),
                    format!("/q/{r}/#category-math"),
                ]
            })
            .collect();
        let rows: Vec<String> = ["a1", "a2", "b", "a ⚠"].map(String::from).to_vec();
        let json = heatmap(
            &rows,
            &["code".into(), "math".into()],
            &cells,
            &links,
            &tops,
            "nats",
        );
        let value: serde_json::Value = serde_json::from_str(&json).unwrap();
        let map = &value["visualMap"][0];
        assert_eq!(
            (map["min"].as_f64(), map["max"].as_f64()),
            (Some(0.0), Some(1.0))
        );
        assert_eq!(map["dimension"], 3.0);
        assert_eq!(map["seriesIndex"], 0.0);
        let shaded = value["series"][0]["data"].as_array().unwrap();
        // Five cells in scale: each its value and its share of its model's largest, by hand.
        let shares: Vec<(f64, f64)> = shaded
            .iter()
            .map(|d| {
                (
                    d["value"][2].as_f64().unwrap(),
                    d["value"][3].as_f64().unwrap(),
                )
            })
            .collect();
        assert_eq!(
            shares,
            [
                (0.2, 1.0),
                (0.05, 0.25),
                (0.1, 0.5),
                (0.01, 1.0),
                (0.005, 0.5)
            ]
        );
        let out = value["series"][1]["data"].as_array().unwrap();
        assert_eq!(out.len(), 2);
        assert_eq!(out[0]["value"], serde_json::json!([0, 3, 5.0]));
        assert_eq!(value["series"][1]["itemStyle"]["color"], "#9ca3af");
        // Each cell opens its comparison at its category.
        assert_eq!(out[1]["url"], "/q/3/#category-math");
        assert_eq!(value["series"][0]["label"]["formatter"], "{@[2]}");
    }
}

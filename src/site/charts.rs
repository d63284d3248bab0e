//! ECharts options built with charming. Each function returns the option as JSON, escaped
//! for embedding in a `<script type="application/json">` element.

use charming::Chart;
use charming::component::{Axis, Grid, Legend, VisualMap};
use charming::datatype::DataPoint;
use charming::element::{
    AxisLabel, AxisType, Emphasis, ItemStyle, Label, LabelPosition, LineStyle, LineStyleType,
    NameLocation, Orient, SplitArea, Tooltip, Trigger,
};
use charming::series::{Bar, Heatmap, Line, Scatter};

/// One line of a chart: a name and its (x, y) points.
pub struct LineSeries {
    /// The legend entry.
    pub name: String,
    /// The points, x ascending.
    pub points: Vec<(f64, f64)>,
    /// Drawn dashed (a second statistic of the same series).
    pub dashed: bool,
}

/// A bar chart of one value per category.
pub fn bars(categories: &[String], values: &[f64], unit: &str) -> String {
    let chart = Chart::new()
        .tooltip(Tooltip::new().trigger(Trigger::Axis))
        .grid(
            Grid::new()
                .left("3%")
                .right("4%")
                .bottom("3%")
                .contain_label(true),
        )
        .x_axis(
            Axis::new()
                .type_(AxisType::Category)
                .data(categories.to_vec())
                .axis_label(AxisLabel::new().rotate(30).interval(0)),
        )
        .y_axis(
            Axis::new()
                .type_(AxisType::Value)
                .name(unit)
                .name_location(NameLocation::Middle)
                .name_gap(45),
        )
        .series(
            Bar::new()
                .data(values.to_vec())
                .label(Label::new().show(true).position(LabelPosition::Top)),
        );
    to_json(&chart)
}

/// Lines against concurrency on a log-2 axis.
pub fn lines_by_concurrency(series: &[LineSeries], unit: &str) -> String {
    let mut chart = Chart::new()
        .tooltip(Tooltip::new().trigger(Trigger::Item))
        .legend(
            Legend::new()
                .type_(charming::component::LegendType::Scroll)
                .bottom(0),
        )
        .grid(
            Grid::new()
                .left("3%")
                .right("4%")
                .bottom(60)
                .contain_label(true),
        )
        .x_axis(
            Axis::new()
                .type_(AxisType::Log)
                .log_base(2)
                .name("concurrency")
                .name_location(NameLocation::Middle)
                .name_gap(28),
        )
        .y_axis(
            Axis::new()
                .type_(AxisType::Value)
                .name(unit)
                .name_location(NameLocation::Middle)
                .name_gap(50),
        );
    for line in series {
        let points: Vec<Vec<f64>> = line.points.iter().map(|&(x, y)| vec![x, y]).collect();
        let mut series = Line::new().name(line.name.as_str()).data(points);
        if line.dashed {
            series = series.line_style(LineStyle::new().type_(LineStyleType::Dashed));
        }
        chart = chart.series(series);
    }
    to_json(&chart)
}

/// Lines over named categories, with an optional log value axis.
pub fn lines_by_category(
    categories: &[String],
    series: &[LineSeries],
    unit: &str,
    log: bool,
) -> String {
    let mut chart = Chart::new()
        .tooltip(Tooltip::new().trigger(Trigger::Axis))
        .legend(Legend::new().bottom(0))
        .grid(
            Grid::new()
                .left("3%")
                .right("4%")
                .bottom(40)
                .contain_label(true),
        )
        .x_axis(
            Axis::new()
                .type_(AxisType::Category)
                .data(categories.to_vec()),
        )
        .y_axis(
            Axis::new()
                .type_(if log { AxisType::Log } else { AxisType::Value })
                .name(unit)
                .name_location(NameLocation::Middle)
                .name_gap(55),
        );
    for line in series {
        let values: Vec<f64> = line.points.iter().map(|&(_, y)| y).collect();
        chart = chart.series(Line::new().name(line.name.as_str()).data(values));
    }
    to_json(&chart)
}

/// A heatmap: `cells[row][column]`, `None` where there is no value. The colour scale spans
/// the rows marked `in_scale`, so one outlier row (a suspect measurement) cannot wash out the
/// rest; its cells take the top colour.
pub fn heatmap(
    rows: &[String],
    columns: &[String],
    cells: &[Vec<Option<f64>>],
    in_scale: &[bool],
) -> String {
    let mut data = Vec::new();
    let mut max: f64 = 0.0;
    for (row, values) in cells.iter().enumerate() {
        for (column, value) in values.iter().enumerate() {
            if let Some(value) = value {
                if in_scale.get(row).copied().unwrap_or(true) {
                    max = max.max(*value);
                }
                data.push(
                    [column as f64, row as f64, *value]
                        .into_iter()
                        .map(DataPoint::from)
                        .collect::<Vec<_>>(),
                );
            }
        }
    }
    let chart = Chart::new()
        .tooltip(Tooltip::new().position("top"))
        .grid(
            Grid::new()
                .left("3%")
                .right("4%")
                .top(10)
                .bottom(70)
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
                .max(if max > 0.0 { max } else { 1.0 })
                .calculable(true)
                .orient(Orient::Horizontal)
                .left("center")
                .bottom(0),
        )
        .series(
            Heatmap::new()
                .name("kld_mean")
                .label(Label::new().show(true))
                .emphasis(Emphasis::new().item_style(ItemStyle::new().border_width(1)))
                .data(data),
        );
    to_json(&chart)
}

/// Points of one group on a scatter chart, with the band of its noise floor.
pub struct ScatterGroup {
    /// The legend entry.
    pub name: String,
    /// (x, y, label) of each point.
    pub points: Vec<(f64, f64, String)>,
    /// The band from 0 to this y value is drawn as noise.
    pub floor: Option<f64>,
}

/// A scatter chart of labelled points, each group with its noise band.
pub fn scatter(groups: &[ScatterGroup], x_name: &str, y_name: &str) -> String {
    let mut chart = Chart::new()
        .tooltip(Tooltip::new().trigger(Trigger::Item))
        .legend(Legend::new().bottom(0))
        .grid(
            Grid::new()
                .left("3%")
                .right("6%")
                .bottom(60)
                .contain_label(true),
        )
        .x_axis(
            Axis::new()
                .type_(AxisType::Value)
                .name(x_name)
                .name_location(NameLocation::Middle)
                .name_gap(28),
        )
        .y_axis(
            Axis::new()
                .type_(AxisType::Value)
                .name(y_name)
                .name_location(NameLocation::Middle)
                .name_gap(50),
        );
    for group in groups {
        let points: Vec<Vec<f64>> = group.points.iter().map(|&(x, y, _)| vec![x, y]).collect();
        chart = chart.series(
            Scatter::new()
                .name(group.name.as_str())
                .symbol_size(12)
                .data(points),
        );
    }
    // charming's markArea takes its bounds as strings; the band and the point labels are
    // added to the option as JSON.
    let mut option = serde_json::to_value(&chart).expect("a chart is JSON");
    if let Some(series) = option.get_mut("series").and_then(|s| s.as_array_mut()) {
        for (series, group) in series.iter_mut().zip(groups) {
            series["data"] = group
                .points
                .iter()
                .map(|(x, y, label)| serde_json::json!({"value": [x, y], "name": label}))
                .collect();
            series["label"] =
                serde_json::json!({"show": true, "position": "right", "formatter": "{b}"});
            if let Some(floor) = group.floor {
                series["markArea"] = serde_json::json!({
                    "silent": true,
                    "itemStyle": {"opacity": 0.15},
                    "label": {"show": true, "position": "insideTopLeft"},
                    "data": [[{"name": format!("{} noise floor", group.name), "yAxis": 0}, {"yAxis": floor}]],
                });
            }
        }
    }
    option.to_string().replace('<', "\\u003c")
}

/// Serialises an option for a `<script type="application/json">` element: `<` is escaped so
/// no data string can close the element.
fn to_json(chart: &Chart) -> String {
    serde_json::to_string(chart)
        .expect("a chart is JSON")
        .replace('<', "\\u003c")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_json_cannot_close_its_script() {
        let json = bars(&["</script><b>".into()], &[1.0], "tok/s");
        assert!(!json.contains("</script>"), "{json}");
        let value: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(value["xAxis"]["data"][0], "</script><b>");
    }

    #[test]
    fn concurrency_axis_is_log_2() {
        let json = lines_by_concurrency(
            &[LineSeries {
                name: "a".into(),
                points: vec![(1.0, 2.0), (2.0, 3.0)],
                dashed: false,
            }],
            "tok/s",
        );
        let value: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(value["xAxis"]["type"], "log");
        assert_eq!(value["xAxis"]["logBase"], 2.0);
        assert_eq!(value["series"][0]["data"][1][1], 3.0);
    }
}

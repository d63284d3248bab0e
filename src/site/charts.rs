//! ECharts options built with charming. Each function returns the option as JSON, escaped
//! for embedding in a `<script type="application/json">` element.

use charming::Chart;

use crate::data::Load;
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
    /// The page each point opens, one per point; empty when they open none.
    pub links: Vec<String>,
}

/// The links of `points` of a sweep at `url`, each at its level (`#c<concurrency>`).
pub fn level_links(url: &str, points: &[(f64, f64)], rates: bool) -> Vec<String> {
    points
        .iter()
        .map(|&(x, _)| {
            let load = if rates {
                Load::Rate(x)
            } else {
                Load::Concurrency(x as u64)
            };
            format!("{url}#{}", load.anchor())
        })
        .collect()
}

/// A bar chart of one value per category, each bar opening its category's page.
pub fn bars(categories: &[String], values: &[f64], links: &[String], unit: &str) -> String {
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
    let mut option = serde_json::to_value(&chart).expect("a chart is JSON");
    if links.len() == values.len() {
        option["series"][0]["data"] = values
            .iter()
            .zip(links)
            .map(|(v, url)| serde_json::json!({"value": v, "url": url}))
            .collect();
    }
    finish(option)
}

/// The powers of two just around the points' concurrencies, one further each way when they
/// are one, so that a line of one point sits mid-axis; `None` without points.
fn powers_of_two_around<'p>(points: impl Iterator<Item = &'p (f64, f64)>) -> Option<(f64, f64)> {
    let (low, high) = points.map(|&(x, _)| x).filter(|x| *x > 0.0).fold(
        None,
        |range: Option<(f64, f64)>, x| match range {
            None => Some((x, x)),
            Some((low, high)) => Some((low.min(x), high.max(x))),
        },
    )?;
    let (low, high) = (low.log2().floor().exp2(), high.log2().ceil().exp2());
    Some(if low == high {
        (low / 2.0, high * 2.0)
    } else {
        (low, high)
    })
}

/// Lines against concurrency on a log-2 axis, or against open-loop arrival rates on a linear
/// one from 0.
pub fn lines_by_load(series: &[LineSeries], unit: &str, rates: bool) -> String {
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
        .x_axis(if rates {
            Axis::new()
                .type_(AxisType::Value)
                .min(0)
                .name("arrival rate (req/s)")
                .name_location(NameLocation::Middle)
                .name_gap(28)
        } else {
            Axis::new()
                .type_(AxisType::Log)
                .log_base(2)
                .name("concurrency")
                .name_location(NameLocation::Middle)
                .name_gap(28)
        })
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
    let mut option = serde_json::to_value(&chart).expect("a chart is JSON");
    if let Some((min, max)) = powers_of_two_around(series.iter().flat_map(|s| &s.points))
        && !rates
    {
        option["xAxis"]["min"] = min.into();
        option["xAxis"]["max"] = max.into();
    }
    // A point of a record's line opens that record at its level; the tooltip names the line,
    // the concurrency or rate and the value with its unit.
    option["benchsite"] = if rates {
        serde_json::json!({ "rate": unit })
    } else {
        serde_json::json!({ "concurrency": unit })
    };
    for (line, json) in series.iter().zip(
        option["series"]
            .as_array_mut()
            .map(|all| all.iter_mut())
            .into_iter()
            .flatten(),
    ) {
        if line.links.len() == line.points.len() && !line.links.is_empty() {
            json["data"] = line
                .points
                .iter()
                .zip(&line.links)
                .map(|(&(x, y), url)| serde_json::json!({"value": [x, y], "url": url}))
                .collect();
        }
    }
    marked(&mut option, series, unit);
    finish(option)
}

/// The marks of a chart of lines against the load: each series' symbol (and past ECharts' 9
/// colours, a dotted line), a ratio's line at 1.0, and a log value axis for times that span
/// more than 20×.
fn marked(option: &mut serde_json::Value, series: &[LineSeries], unit: &str) {
    // Past ECharts' 9 colours a series is told apart by its symbol, and by a dotted line.
    if let Some(all) = option["series"].as_array_mut() {
        for (i, line) in all.iter_mut().enumerate() {
            line["symbol"] = SYMBOLS[i % SYMBOLS.len()].into();
            if i >= 9 && line["lineStyle"]["type"].is_null() {
                line["lineStyle"] = serde_json::json!({"type": "dotted"});
            }
        }
        // A ratio is read against 1.0, where B equals A.
        if unit == "×"
            && let Some(first) = all.first_mut()
        {
            first["markLine"] = serde_json::json!({
                "silent": true, "symbol": "none", "data": [{"yAxis": 1}],
                "label": {"formatter": "1.0 (B = A)"}, "lineStyle": {"color": "#6b7280", "type": "solid"},
            });
        }
    }
    // Times that span more than 20× go on a log axis, so one slow level does not flatten
    // the others.
    let positive: Vec<f64> = series
        .iter()
        .flat_map(|s| s.points.iter().map(|&(_, y)| y))
        .filter(|&y| y > 0.0)
        .collect();
    let (low, high) = positive
        .iter()
        .fold((f64::INFINITY, 0.0_f64), |(l, h), &y| (l.min(y), h.max(y)));
    if unit == "s" && high / low > 20.0 {
        option["yAxis"]["type"] = "log".into();
        option["yAxis"]["name"] = "s (log scale)".into();
    }
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
    // Each point at its category (x is the category's index), a gap where a line has none.
    let mut option = serde_json::to_value(&chart).expect("a chart is JSON");
    for (i, line) in series.iter().enumerate() {
        let mut data = vec![serde_json::Value::Null; categories.len()];
        for (j, &(x, y)) in line.points.iter().enumerate() {
            let Some(slot) = data.get_mut(x as usize) else {
                continue;
            };
            *slot = match line.links.get(j) {
                Some(url) => serde_json::json!({"value": y, "url": url}),
                None => y.into(),
            };
        }
        option["series"][i]["data"] = data.into();
    }
    finish(option)
}

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

/// Points of one group on a scatter chart, with the band of its noise floor.
pub struct ScatterGroup {
    /// The legend entry.
    pub name: String,
    /// (x, y, label) of each point.
    pub points: Vec<(f64, f64, String)>,
    /// The band from 0 to this y value is drawn as noise.
    pub floor: Option<f64>,
    /// The page each point opens, one per point.
    pub links: Vec<String>,
}

/// A scatter chart of labelled points, each group with its noise band. Point labels that
/// would overlap are moved apart or hidden (the tooltip and the table name every point), the
/// bands are named in the tooltip rather than over each other at y = 0, and both axes end
/// with headroom past the largest value so no label is clipped.
pub fn scatter(groups: &[ScatterGroup], x_name: &str, y_name: &str) -> String {
    let xs = groups.iter().flat_map(|g| g.points.iter().map(|p| p.0));
    let ys = groups
        .iter()
        .flat_map(|g| g.points.iter().map(|p| p.1).chain(g.floor));
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
                .name_gap(28)
                .min(0)
                .max(headroom(xs.fold(0.0, f64::max))),
        )
        .y_axis(
            Axis::new()
                .type_(AxisType::Value)
                .name(y_name)
                .name_location(NameLocation::Middle)
                .name_gap(50)
                .min(0)
                .max(headroom(ys.fold(0.0, f64::max))),
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
    // charming has no labelLayout and takes markArea bounds as strings; the labels, their
    // layout and the bands are added to the option as JSON.
    let mut option = serde_json::to_value(&chart).expect("a chart is JSON");
    if let Some(series) = option.get_mut("series").and_then(|s| s.as_array_mut()) {
        for (series, group) in series.iter_mut().zip(groups) {
            series["data"] = group
                .points
                .iter()
                .enumerate()
                .map(|(i, (x, y, label))| {
                    let mut point = serde_json::json!({"value": [x, y], "name": label});
                    if let Some(url) = group.links.get(i) {
                        point["url"] = url.as_str().into();
                    }
                    point
                })
                .collect();
            series["label"] =
                serde_json::json!({"show": true, "position": "top", "formatter": "{b}"});
            series["labelLayout"] =
                serde_json::json!({"moveOverlap": "shiftY", "hideOverlap": true});
            if let Some(floor) = group.floor {
                series["markArea"] = serde_json::json!({
                    "itemStyle": {"opacity": 0.15},
                    "label": {"show": false},
                    "tooltip": {"formatter": format!("{} noise floor: 0 to {}", group.name, crate::format::figure(floor))},
                    "data": [[{"name": format!("{} noise floor", group.name), "yAxis": 0}, {"yAxis": floor}]],
                });
            }
        }
    }
    finish(option)
}

/// An axis end past `max` with room for a label: the first round number (1, 1.2, 1.5, 2,
/// 2.5, 3, 3.5, 4, 5, 6, 7, 8 or 10 times a power of ten) at or above `max` plus 12%.
pub fn headroom(max: f64) -> f64 {
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
pub const SYMBOLS: [&str; 6] = ["circle", "rect", "triangle", "diamond", "roundRect", "pin"];

/// One point of a frontier chart: its coordinates, what it is, the page it links to, and
/// whether it is on the frontier.
#[derive(Debug, Clone)]
pub struct LinkedPoint {
    /// (tok/s per user, tok/s per GPU).
    pub xy: (f64, f64),
    /// The configuration and concurrency, for the tooltip.
    pub name: String,
    /// The record page it opens.
    pub url: String,
    /// On the Pareto frontier.
    pub frontier: bool,
}

/// A scatter chart of throughput per GPU against tokens per second per user: a series per
/// configuration (each its own symbol), and the frontier drawn through its points. Points
/// carry their `url` (a click opens it) and `frontier` (the "frontier only" toggle keeps
/// those); `benchsite.units` names the axes' units for the tooltip.
pub fn frontier(series: &[(String, Vec<LinkedPoint>)]) -> String {
    let mut line: Vec<(f64, f64)> = series
        .iter()
        .flat_map(|(_, points)| points.iter().filter(|p| p.frontier).map(|p| p.xy))
        .collect();
    line.sort_by(|a, b| a.0.total_cmp(&b.0).then(b.1.total_cmp(&a.1)));
    let mut all: Vec<serde_json::Value> = series
        .iter()
        .enumerate()
        .map(|(i, (name, points))| {
            serde_json::json!({
                "type": "scatter",
                "name": name,
                "symbol": SYMBOLS[i % SYMBOLS.len()],
                "symbolSize": 10,
                "data": points.iter().map(|p| serde_json::json!({
                    "value": [p.xy.0, p.xy.1],
                    "name": p.name,
                    "url": p.url,
                    "frontier": p.frontier,
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    all.push(serde_json::json!({
        "type": "line",
        "name": "Frontier",
        "data": line.iter().map(|&(x, y)| [x, y]).collect::<Vec<_>>(),
        "symbol": "none",
        "silent": true,
        "z": 1,
        "lineStyle": {"type": "dashed", "width": 1.5, "color": "#6b7280"},
        "itemStyle": {"color": "#6b7280"},
    }));
    finish(serde_json::json!({
        "tooltip": {"trigger": "item"},
        "legend": {"type": "scroll", "bottom": 0},
        "grid": {"left": "3%", "right": "4%", "bottom": 60, "containLabel": true},
        "xAxis": {"type": "value", "name": "tok/s per user", "nameLocation": "middle", "nameGap": 28, "scale": true},
        "yAxis": {"type": "value", "name": "tok/s per GPU", "nameLocation": "middle", "nameGap": 50},
        "series": all,
        "benchsite": {"units": ["tok/s per user", "tok/s per GPU"], "frontier": true},
    }))
}

/// The option serialised for a `<script type="application/json">` element: `<` is escaped so
/// no data string can close the element. The chrome every chart shares (its "save as PNG"
/// button) is the site script's, not repeated in every option.
///
/// A grid that contains its labels contains its axis names too (ECharts 6.1's `outerBoundsMode`;
/// `containLabel` left the y axis's rotated name outside the box on a phone, so a reader
/// lost "s (log scale)").
/// `option`, a chart of lines against the load, with a vertical line at load `x` named
/// `label` (a limit search's boundary).
pub fn mark_load(option: &str, x: f64, label: &str) -> String {
    let mut option: serde_json::Value =
        serde_json::from_str(option).expect("a chart's option is JSON");
    if let Some(first) = option["series"]
        .as_array_mut()
        .and_then(|all| all.first_mut())
    {
        let line = serde_json::json!({
            "xAxis": x,
            "label": {"formatter": label, "position": "end"},
            "lineStyle": {"color": "#6b7280", "type": "dashed"},
        });
        match first["markLine"]["data"].as_array_mut() {
            Some(data) => data.push(line),
            None => {
                first["markLine"] =
                    serde_json::json!({"silent": true, "symbol": "none", "data": [line]});
            }
        }
    }
    option.to_string().replace('<', "\\u003c")
}

fn finish(mut option: serde_json::Value) -> String {
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
    use super::*;

    #[test]
    fn embedded_json_cannot_close_its_script() {
        let json = bars(&["</script><b>".into()], &[1.0], &[], "tok/s");
        assert!(!json.contains("</script>"), "{json}");
        let value: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(value["xAxis"]["data"][0], "</script><b>");
    }

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

    #[test]
    fn scatter_labels_avoid_each_other_and_fit_the_axes() {
        let json = scatter(
            &[ScatterGroup {
                name: "m".into(),
                points: vec![(289.0, 0.01, "a".into()), (280.0, 0.011, "b".into())],
                floor: Some(0.004),
                links: vec!["/runs/a/".into(), "/runs/b/".into()],
            }],
            "tok/s",
            "nats",
        );
        let value: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(value["xAxis"]["max"], 350.0);
        assert_eq!(value["series"][0]["labelLayout"]["hideOverlap"], true);
        assert_eq!(value["series"][0]["markArea"]["label"]["show"], false);
        assert_eq!(value["series"][0]["data"][1]["url"], "/runs/b/");
    }

    #[test]
    fn many_series_stay_apart_ratios_show_one_and_wide_times_go_on_a_log_axis() {
        let line = |i: usize, y: f64| LineSeries {
            name: format!("s{i}"),
            points: vec![(1.0, y), (2.0, y * 2.0)],
            dashed: false,
            links: vec![format!("/sweeps/s{i}/#c1"), format!("/sweeps/s{i}/#c2")],
        };
        let many: Vec<LineSeries> = (0..11).map(|i| line(i, 1.0 + i as f64)).collect();
        let value: serde_json::Value =
            serde_json::from_str(&lines_by_load(&many, "tok/s", false)).unwrap();
        let symbols: Vec<&str> = (0..11)
            .map(|i| value["series"][i]["symbol"].as_str().unwrap())
            .collect();
        assert_ne!(symbols[0], symbols[1]);
        // Each point opens its record at its level.
        assert_eq!(value["series"][3]["data"][1]["url"], "/sweeps/s3/#c2");
        assert_eq!(value["series"][3]["data"][1]["value"][1], 8.0);
        assert_eq!(value["series"][9]["lineStyle"]["type"], "dotted");
        assert!(value["series"][0]["markLine"].is_null());
        assert_eq!(value["yAxis"]["type"], "value");
        let ratio: serde_json::Value =
            serde_json::from_str(&lines_by_load(&many[..2], "×", false)).unwrap();
        assert_eq!(ratio["series"][0]["markLine"]["data"][0]["yAxis"], 1);
        // 0.1 s to 2.0 s is 20×: linear; to 2.2 s, log.
        let times = |high: f64| -> serde_json::Value {
            let s = [LineSeries {
                name: "t".into(),
                points: vec![(1.0, 0.1), (2.0, high)],
                dashed: false,
                links: Vec::new(),
            }];
            serde_json::from_str(&lines_by_load(&s, "s", false)).unwrap()
        };
        assert_eq!(times(2.0)["yAxis"]["type"], "value");
        assert_eq!(times(2.2)["yAxis"]["type"], "log");
    }

    #[test]
    fn a_line_over_categories_leaves_a_gap_where_it_has_no_value() {
        let json = lines_by_category(
            &["a".into(), "b".into(), "c".into()],
            &[LineSeries {
                name: "t".into(),
                points: vec![(0.0, 1.0), (2.0, 3.0)],
                dashed: false,
                links: vec!["/x/".into(), "/z/".into()],
            }],
            "tok/s",
            false,
        );
        let value: serde_json::Value = serde_json::from_str(&json).unwrap();
        let data = &value["series"][0]["data"];
        assert_eq!(data[0]["value"], 1.0);
        assert!(data[1].is_null());
        assert_eq!(data[2]["url"], "/z/");
    }

    #[test]
    fn concurrency_axis_is_log_2() {
        let json = lines_by_load(
            &[LineSeries {
                name: "a".into(),
                points: vec![(1.0, 2.0), (2.0, 3.0)],
                dashed: false,
                links: Vec::new(),
            }],
            "tok/s",
            false,
        );
        let value: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(value["xAxis"]["type"], "log");
        assert_eq!(value["xAxis"]["logBase"], 2.0);
        assert_eq!(value["series"][0]["data"][1][1], 3.0);
        // The axis spans the points' powers of two: 1 to 2 here.
        assert_eq!(
            (
                value["xAxis"]["min"].as_f64(),
                value["xAxis"]["max"].as_f64()
            ),
            (Some(1.0), Some(2.0))
        );
    }

    #[test]
    fn the_concurrency_axis_is_the_powers_of_two_around_the_points() {
        let around = |xs: &[f64]| {
            let points: Vec<(f64, f64)> = xs.iter().map(|&x| (x, 0.0)).collect();
            powers_of_two_around(points.iter())
        };
        assert_eq!(around(&[]), None);
        // One level, 32: one power of two each side, 16 to 64.
        assert_eq!(around(&[32.0]), Some((16.0, 64.0)));
        // 3 to 24 lies within 2 and 32.
        assert_eq!(around(&[3.0, 24.0, 8.0]), Some((2.0, 32.0)));
        assert_eq!(around(&[1.0, 32.0]), Some((1.0, 32.0)));
    }
}

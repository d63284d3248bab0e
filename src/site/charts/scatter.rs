//! Scatter charts: labelled points with noise bands, and the throughput frontier.

use charming::Chart;

use charming::component::{Axis, Grid, Legend};
use charming::element::{AxisType, NameLocation, Tooltip, Trigger};
use charming::series::Scatter;

use super::shared::{SYMBOLS, finish, headroom};

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
    /// Within the page's limits; a point beyond them is grey.
    pub within: bool,
    /// Its load, the label of a frontier point: `c32`, `2.5/s`.
    pub load: String,
}

/// The colour of a point beyond the limits.
pub const BEYOND: &str = "#9ca3af";

/// A scatter chart of throughput per GPU against tokens per second per user: a series per
/// configuration (each its own symbol), and the frontier drawn through its points, each
/// labelled with its load. Points beyond the limits are grey, and `per_user`, the least
/// tokens per second per user the limits ask, is a dotted line. Points carry their `url` (a
/// click opens it), `frontier` (the "frontier only" toggle keeps those) and `within`;
/// `benchsite.units` names the axes' units for the tooltip.
pub fn frontier(series: &[(String, Vec<LinkedPoint>)], per_user: Option<f64>) -> String {
    let mut line: Vec<(f64, f64)> = series
        .iter()
        .flat_map(|(_, points)| points.iter().filter(|p| p.frontier).map(|p| p.xy))
        .collect();
    line.sort_by(|a, b| a.0.total_cmp(&b.0).then(b.1.total_cmp(&a.1)));
    let mut all: Vec<serde_json::Value> = series
        .iter()
        .enumerate()
        .map(|(i, (name, points))| {
            let mut series = serde_json::json!({
                "type": "scatter",
                "name": name,
                "symbol": SYMBOLS[i % SYMBOLS.len()],
                "symbolSize": 11,
                "label": {"show": true, "formatter": "{@[2]}", "position": "top", "fontSize": 11},
                "labelLayout": {"hideOverlap": true},
                "data": points.iter().map(point).collect::<Vec<_>>(),
            });
            // Every other series is drawn smaller, so a point drawn over another's leaves it in
            // sight around it (two configurations that measured alike).
            if i % 2 == 1 {
                series["symbolSize"] = 7.into();
            }
            series
        })
        .collect();
    let mut frontier = serde_json::json!({
        "type": "line",
        "name": "Frontier",
        "data": line.iter().map(|&(x, y)| [x, y]).collect::<Vec<_>>(),
        "symbol": "none",
        "silent": true,
        "z": 1,
        "lineStyle": {"type": "dashed", "width": 1.5, "color": "#6b7280"},
        "itemStyle": {"color": "#6b7280"},
    });
    let mut x_axis = serde_json::json!({"type": "value", "name": "tok/s per user", "nameLocation": "middle", "nameGap": 28, "min": 0});
    frontier["markLine"] = limit_line(per_user);
    // The axis starts at 0, and reaches the line where every point is short of it.
    let most = series
        .iter()
        .flat_map(|(_, points)| points.iter().map(|p| p.xy.0))
        .fold(0.0, f64::max);
    if let Some(limit) = per_user.filter(|&limit| limit > most) {
        x_axis["max"] = (limit * 11.0 / 10.0).ceil().into();
    }
    all.push(frontier);
    finish(serde_json::json!({
        "tooltip": {"trigger": "item"},
        "legend": {"bottom": 0},
        "grid": {"left": "3%", "right": "4%", "bottom": 60, "containLabel": true},
        "xAxis": x_axis,
        "yAxis": {"type": "value", "name": "tok/s per GPU", "nameLocation": "middle", "nameGap": 50},
        "series": all,
        "benchsite": {"units": ["tok/s per user", "tok/s per GPU"], "frontier": true, "beyond": BEYOND},
    }))
}

/// A frontier chart's point: grey beyond the limits, labelled only on the frontier.
fn point(p: &LinkedPoint) -> serde_json::Value {
    let mut point = serde_json::json!({
        "value": [p.xy.0, p.xy.1, p.load],
        "name": p.name,
        "url": p.url,
        "frontier": p.frontier,
        "within": p.within,
    });
    if !p.within {
        point["itemStyle"] = serde_json::json!({"color": BEYOND});
    }
    if !p.frontier {
        point["label"] = serde_json::json!({"show": false});
    }
    point
}

/// The dotted line at the least tokens per second per user the limits ask, none without
/// (`benchsite.js` moves it when the reader changes them).
fn limit_line(per_user: Option<f64>) -> serde_json::Value {
    let data: Vec<serde_json::Value> = per_user
        .map(|limit| {
            serde_json::json!({
                "xAxis": limit,
                "label": {"formatter": format!("limit: {limit} tok/s per user"), "position": "insideEndTop"},
            })
        })
        .into_iter()
        .collect();
    serde_json::json!({
        "silent": true,
        "symbol": "none",
        "data": data,
        "lineStyle": {"type": "dotted", "width": 1.5, "color": "#6b7280"},
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frontier_greys_what_is_beyond_the_limits_and_labels_its_loads() {
        let point = |x: f64, y: f64, load: &str, frontier: bool, within: bool| LinkedPoint {
            xy: (x, y),
            name: format!("s at {load}"),
            url: format!("/sweeps/s/#{load}"),
            frontier,
            within,
            load: load.into(),
        };
        let series = vec![(
            "s".to_owned(),
            vec![
                point(90.0, 100.0, "c1", true, true),
                point(60.0, 150.0, "c2", false, true),
                point(50.0, 300.0, "c32", true, false),
            ],
        )];
        let value: serde_json::Value =
            serde_json::from_str(&frontier(&series, Some(20.0))).unwrap();
        let data = &value["series"][0]["data"];
        assert_eq!(value["series"][0]["symbol"], "circle");
        assert_eq!(value["series"][0]["symbolSize"], 11);
        assert_eq!(data[0]["value"][2], "c1");
        assert_eq!(data[0]["itemStyle"], serde_json::Value::Null);
        assert_eq!(data[2]["itemStyle"]["color"], BEYOND);
        assert_eq!(data[2]["within"], false);
        // Only frontier points keep their label.
        assert_eq!(data[1]["label"]["show"], false);
        assert_eq!(data[2]["label"], serde_json::Value::Null);
        // The axis starts at 0 and the per-user limit, 20, is in it.
        let line = &value["series"][1]["markLine"]["data"][0];
        assert_eq!(line["xAxis"], 20.0);
        assert_eq!(line["label"]["formatter"], "limit: 20 tok/s per user");
        assert_eq!(value["xAxis"]["min"], 0);
        assert_eq!(value["xAxis"]["max"], serde_json::Value::Null);
        // A limit past every point (90 the most) stretches the axis to 110% of it.
        let value: serde_json::Value =
            serde_json::from_str(&frontier(&series, Some(100.0))).unwrap();
        assert_eq!(value["xAxis"]["max"], 110.0);
        // Without a per-user limit, no line.
        let value: serde_json::Value = serde_json::from_str(&frontier(&series, None)).unwrap();
        assert_eq!(
            value["series"][1]["markLine"]["data"],
            serde_json::json!([])
        );
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
}

//! Line and bar charts: over concurrency or rate, over categories, and a level marked.

use charming::Chart;

use charming::component::{Axis, Grid, Legend};
use charming::element::{
    AxisLabel, AxisType, Label, LabelPosition, LineStyle, LineStyleType, NameLocation, Tooltip,
    Trigger,
};
use charming::series::{Bar, Line};

use super::shared::{SYMBOLS, finish};
use crate::data::Load;

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

/// A line drawn across a chart of lines against the load, labelled.
#[derive(Debug, Clone, PartialEq)]
pub enum Mark {
    /// Dashed and vertical at a load: a limit search's boundary.
    Load(f64, String),
    /// Dotted and horizontal at a value: a limit.
    Limit(f64, String),
}

/// Lines against concurrency on a log-2 axis, or against open-loop arrival rates on a linear
/// one from 0, with `marks` across them.
pub fn lines_by_load(series: &[LineSeries], unit: &str, rates: bool, marks: &[Mark]) -> String {
    let mut chart = Chart::new()
        .tooltip(Tooltip::new().trigger(Trigger::Item))
        .legend(Legend::new().bottom(0))
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
    for m in marks {
        match m {
            Mark::Load(x, label) => {
                mark(&mut option, serde_json::json!({"xAxis": x}), label, "end")
            }
            Mark::Limit(y, label) => mark(
                &mut option,
                serde_json::json!({"yAxis": y, "lineStyle": {"type": "dotted"}}),
                label,
                "insideEndTop",
            ),
        }
    }
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
                "label": {"formatter": "1.0 (B = A)", "position": "insideEndTop"}, "lineStyle": {"color": "#6b7280", "type": "solid"},
            });
        }
    }
    // Times that span more than 20× go on a log axis, so one slow level does not flatten
    // the others; so do any figures where one series' largest value is more than 10× another's
    // (a dense model's throughput beside a mixture of experts', or a ratio of 18 beside ones
    // under 1), so no line lies along zero.
    let positive = |s: &LineSeries| -> Vec<f64> {
        s.points
            .iter()
            .map(|&(_, y)| y)
            .filter(|&y| y > 0.0)
            .collect()
    };
    let span = |values: &[f64]| {
        let (low, high) = values
            .iter()
            .fold((f64::INFINITY, 0.0_f64), |(l, h), &y| (l.min(y), h.max(y)));
        high / low
    };
    let all: Vec<f64> = series.iter().flat_map(positive).collect();
    let tops: Vec<f64> = series
        .iter()
        .filter_map(|s| positive(s).into_iter().reduce(f64::max))
        .collect();
    if (unit == "s" && span(&all) > 20.0) || span(&tops) > 10.0 {
        option["yAxis"]["type"] = "log".into();
        option["yAxis"]["name"] = format!("{unit} (log scale)").into();
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

/// `option` with `line`, labelled at `position`, in its first series' marked lines.
fn mark(option: &mut serde_json::Value, mut line: serde_json::Value, label: &str, position: &str) {
    line["label"] = serde_json::json!({"formatter": label, "position": position});
    let style = line["lineStyle"].take();
    line["lineStyle"] =
        serde_json::json!({"color": "#6b7280", "type": style["type"].as_str().unwrap_or("dashed")});
    if let Some(first) = option["series"]
        .as_array_mut()
        .and_then(|all| all.first_mut())
    {
        match first["markLine"]["data"].as_array_mut() {
            Some(data) => data.push(line),
            None => {
                first["markLine"] =
                    serde_json::json!({"silent": true, "symbol": "none", "data": [line]});
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_series_more_than_ten_times_another_puts_the_axis_on_a_log_scale() {
        let line = |top: f64| LineSeries {
            name: format!("up to {top}"),
            points: vec![(1.0, top / 4.0), (2.0, top)],
            dashed: false,
            links: Vec::new(),
        };
        let axis = |tops: &[f64], unit: &str| {
            let series: Vec<LineSeries> = tops.iter().map(|&t| line(t)).collect();
            let value: serde_json::Value =
                serde_json::from_str(&lines_by_load(&series, unit, false, &[])).unwrap();
            (
                value["yAxis"]["type"].clone(),
                value["yAxis"]["name"].clone(),
            )
        };
        // 2600 against 100: 26×.
        assert_eq!(axis(&[2600.0, 100.0], "tok/s").0, "log");
        assert_eq!(axis(&[2600.0, 100.0], "tok/s").1, "tok/s (log scale)");
        // 2600 against 300: under 9×, and within one series 4× only.
        assert_eq!(axis(&[2600.0, 300.0], "tok/s").0, "value");
        // So do ratios: 18 against 0.9.
        assert_eq!(axis(&[18.0, 0.9], "×").0, "log");
        assert_eq!(axis(&[1.8, 0.9], "×").0, "value");
    }

    #[test]
    fn embedded_json_cannot_close_its_script() {
        let json = bars(&["</script><b>".into()], &[1.0], &[], "tok/s");
        assert!(!json.contains("</script>"), "{json}");
        let value: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(value["xAxis"]["data"][0], "</script><b>");
    }

    #[test]
    fn many_series_stay_apart_ratios_show_one_and_wide_times_go_on_a_log_axis() {
        let line = |i: usize, y: f64| LineSeries {
            name: format!("s{i}"),
            points: vec![(1.0, y), (2.0, y * 2.0)],
            dashed: false,
            links: vec![format!("/sweeps/s{i}/#c1"), format!("/sweeps/s{i}/#c2")],
        };
        // Tops of 20 to 40: within 10× of each other, so the axis stays linear.
        let many: Vec<LineSeries> = (0..11).map(|i| line(i, 10.0 + i as f64)).collect();
        let value: serde_json::Value =
            serde_json::from_str(&lines_by_load(&many, "tok/s", false, &[])).unwrap();
        let symbols: Vec<&str> = (0..11)
            .map(|i| value["series"][i]["symbol"].as_str().unwrap())
            .collect();
        assert_ne!(symbols[0], symbols[1]);
        // Each point opens its record at its level.
        assert_eq!(value["series"][3]["data"][1]["url"], "/sweeps/s3/#c2");
        assert_eq!(value["series"][3]["data"][1]["value"][1], 26.0);
        assert_eq!(value["series"][9]["lineStyle"]["type"], "dotted");
        assert!(value["series"][0]["markLine"].is_null());
        assert_eq!(value["yAxis"]["type"], "value");
        let ratio: serde_json::Value =
            serde_json::from_str(&lines_by_load(&many[..2], "×", false, &[])).unwrap();
        assert_eq!(ratio["series"][0]["markLine"]["data"][0]["yAxis"], 1);
        // 0.1 s to 2.0 s is 20×: linear; to 2.2 s, log.
        let times = |high: f64| -> serde_json::Value {
            let s = [LineSeries {
                name: "t".into(),
                points: vec![(1.0, 0.1), (2.0, high)],
                dashed: false,
                links: Vec::new(),
            }];
            serde_json::from_str(&lines_by_load(&s, "s", false, &[])).unwrap()
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
            &[],
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

//! The shortcode registry: every view the author can embed in Markdown, with its arguments
//! and its renderer. The messages that list the valid names, arguments and fields are made
//! from it.

use serde::Serialize;

use super::catalog::Catalog;
use super::markdown::{Arg, Shortcode};
use super::pages::{failures, home, quality, runs, sweep, sweeps};
use super::views;
use crate::data::figures::{Value, run};
use crate::format::{self, MISSING};

/// What a shortcode expands to.
pub enum Output {
    /// A view that stands as a block, rendered through `shortcode.html`.
    Block(Box<View>),
    /// HTML inside a sentence.
    Inline(String),
}

/// One argument a shortcode takes.
pub struct Param {
    /// Its name.
    pub name: &'static str,
    /// Whether the call must give it.
    pub required: bool,
}

/// One shortcode.
pub struct Entry {
    /// Its name.
    pub name: &'static str,
    /// Its arguments.
    pub params: &'static [Param],
    /// Renders a call whose arguments are known to be among `params`.
    pub render: fn(&Call<'_, '_>) -> Result<Output, String>,
}

/// A call being rendered: the catalog and the call's arguments.
pub struct Call<'c, 'a> {
    /// The data's look-ups.
    pub catalog: &'c Catalog<'a>,
    /// The call as written.
    pub shortcode: &'c Shortcode,
}

impl Call<'_, '_> {
    /// A quoted-string argument; `None` when it is not given.
    pub fn text(&self, key: &str) -> Result<Option<String>, String> {
        match self.shortcode.args.get(key) {
            Some(Arg::Text(text)) => Ok(Some(text.clone())),
            Some(_) => Err(format!(
                "{}: {key} expected a quoted string",
                self.shortcode.name
            )),
            None => Ok(None),
        }
    }

    /// A required quoted-string argument.
    pub fn required(&self, key: &str) -> Result<String, String> {
        self.text(key)?
            .ok_or_else(|| format!("{}: missing argument {key}", self.shortcode.name))
    }
}

const NONE: &[Param] = &[];

/// The `machine` a hardware or software table is of, needed when the report has several.
const MACHINE: &[Param] = &[Param {
    name: "machine",
    required: false,
}];

/// The document of the machine a call names, or of the only one.
fn machine_of<'a>(call: &Call<'_, 'a>) -> Result<&'a crate::data::Results, String> {
    let machines = call.catalog.machines;
    let slug = call.text("machine")?;
    let machine = crate::project::pick(&machines.machines, slug.as_deref()).map_err(|e| {
        format!(
            "{}: {}",
            call.shortcode.name,
            e.replace("--machine", "machine")
        )
    })?;
    Ok(machines.document(machine))
}

/// Every shortcode, in the order messages list them.
pub static REGISTRY: &[Entry] = &[
    Entry {
        name: "runs_table",
        params: NONE,
        render: |call| block(View::table(runs::table(call.catalog))),
    },
    Entry {
        name: "run",
        params: &[
            Param {
                name: "id",
                required: true,
            },
            Param {
                name: "field",
                required: false,
            },
        ],
        render: run,
    },
    Entry {
        name: "decode_chart",
        params: NONE,
        render: |call| block(View::chart(runs::decode_chart(call.catalog))),
    },
    Entry {
        name: "sweep_chart",
        params: &[
            Param {
                name: "sweep",
                required: true,
            },
            Param {
                name: "metric",
                required: false,
            },
        ],
        render: sweep_chart,
    },
    Entry {
        name: "sweep_table",
        params: &[Param {
            name: "sweep",
            required: true,
        }],
        render: |call| {
            let sweep = sweep_of(call)?;
            block(View::table(sweep::levels_table(call.catalog, sweep)))
        },
    },
    Entry {
        name: "sweeps_table",
        params: NONE,
        render: |call| block(View::table(sweeps::table(call.catalog))),
    },
    Entry {
        name: "heatmap",
        params: NONE,
        render: |call| block(View::chart(quality::heatmap(call.catalog))),
    },
    Entry {
        name: "comparisons_table",
        params: NONE,
        render: |call| block(View::table(quality::comparisons_table(call.catalog))),
    },
    Entry {
        name: "jitter_table",
        params: NONE,
        render: |call| block(View::table(quality::jitter_table(call.catalog))),
    },
    Entry {
        name: "failure_list",
        params: NONE,
        render: |call| block(View::links(failures::links(call.catalog))),
    },
    Entry {
        name: "failures_table",
        params: NONE,
        render: |call| block(View::table(failures::table(call.catalog))),
    },
    Entry {
        name: "hardware_table",
        params: MACHINE,
        render: |call| {
            let doc = machine_of(call)?;
            block(View::facts(home::hardware(&doc.hardware)))
        },
    },
    Entry {
        name: "software_table",
        params: MACHINE,
        render: |call| {
            let doc = machine_of(call)?;
            block(View::facts(home::software(&doc.software)))
        },
    },
];

/// A block view's output.
fn block(view: View) -> Result<Output, String> {
    Ok(Output::Block(Box::new(view)))
}

/// Renders `shortcode` through its registry entry, after checking its arguments.
pub fn expand(catalog: &Catalog, shortcode: &Shortcode) -> Result<Output, String> {
    let Some(entry) = REGISTRY.iter().find(|e| e.name == shortcode.name) else {
        let names: Vec<&str> = REGISTRY.iter().map(|e| e.name).collect();
        return Err(format!(
            "unknown shortcode {:?}; expected one of: {}",
            shortcode.name,
            names.join(", ")
        ));
    };
    let known = |key: &String| entry.params.iter().any(|p| p.name == key.as_str());
    if let Some(key) = shortcode.args.keys().find(|key| !known(key)) {
        let names: Vec<&str> = entry.params.iter().map(|p| p.name).collect();
        return Err(format!(
            "{}: unknown argument {key}; expected {}",
            entry.name,
            if names.is_empty() {
                "none".to_owned()
            } else {
                names.join(", ")
            }
        ));
    }
    let call = Call { catalog, shortcode };
    for param in entry.params.iter().filter(|p| p.required) {
        call.required(param.name)?;
    }
    (entry.render)(&call)
}

/// `a, b or c`.
fn either(names: &[&str]) -> String {
    match names {
        [] => String::new(),
        [one] => (*one).to_owned(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
    }
}

fn sweep_of<'c>(call: &Call<'c, '_>) -> Result<&'c crate::data::Sweep, String> {
    let key = call.required("sweep")?;
    let catalog = call.catalog;
    catalog.sweep(&key).ok_or_else(|| {
        let slugs: Vec<String> = catalog.doc.sweeps.iter().map(|s| s.slug()).collect();
        format!(
            "{}: no sweep {key:?}; expected a label or slug of: {}",
            call.shortcode.name,
            slugs.join(", ")
        )
    })
}

fn sweep_chart(call: &Call<'_, '_>) -> Result<Output, String> {
    let sweep = sweep_of(call)?;
    let metric = call
        .text("metric")?
        .unwrap_or_else(|| sweep::CHARTS[0].name.to_owned());
    let index = sweep::CHARTS
        .iter()
        .position(|chart| chart.name == metric)
        .ok_or_else(|| {
            let names: Vec<&str> = sweep::CHARTS.iter().map(|c| c.name).collect();
            format!(
                "sweep_chart: metric {metric:?}; expected {}",
                either(&names)
            )
        })?;
    block(View::chart(
        sweep::charts(call.catalog, sweep).swap_remove(index),
    ))
}

fn run(call: &Call<'_, '_>) -> Result<Output, String> {
    let c = call.catalog;
    let id = call.required("id")?;
    let run = c.run(&id).ok_or_else(|| {
        let ids: Vec<String> = c.doc.runs.iter().map(|r| r.id.to_string()).collect();
        format!(
            "run: no run {id:?}; expected one of: {}",
            crate::format::choices(&id, &ids)
        )
    })?;
    let Some(field) = call.text("field")? else {
        return Ok(Output::Inline(format!(
            "<a href=\"{}\">{}</a>",
            c.run_url(run),
            super::escape::escape(run.id.as_str())
        )));
    };
    let entry = run::ALL.iter().find(|f| f.key == field).ok_or_else(|| {
        let keys: Vec<&str> = run::ALL.iter().map(|f| f.key).collect();
        format!("run: unknown field {field:?}; expected {}", either(&keys))
    })?;
    let with_unit = |number: String| match entry.unit {
        "" => number,
        unit => format!("{number} {unit}"),
    };
    let text = match (entry.get)(run) {
        None => MISSING.to_owned(),
        Some(Value::Number(value)) => with_unit(format::figure(value)),
        Some(Value::Count(value)) => with_unit(format::count(value)),
        Some(Value::Numbers(values)) => with_unit(
            values
                .iter()
                .map(|v| format::figure(*v))
                .collect::<Vec<_>>()
                .join(", "),
        ),
        Some(Value::Bool(on)) => format::switch(on).to_owned(),
        Some(Value::Text(text)) => text,
    };
    Ok(Output::Inline(super::escape::escape(&text)))
}

/// What a block shortcode shows.
#[derive(Debug, Serialize)]
pub struct View {
    kind: &'static str,
    table: Option<views::Table>,
    chart: Option<views::Chart>,
    links: Vec<views::Link>,
    facts: Vec<views::Fact>,
}

impl View {
    fn empty(kind: &'static str) -> Self {
        Self {
            kind,
            table: None,
            chart: None,
            links: Vec::new(),
            facts: Vec::new(),
        }
    }

    fn table(table: views::Table) -> Self {
        Self {
            table: Some(table),
            ..Self::empty("table")
        }
    }

    fn chart(chart: views::Chart) -> Self {
        Self {
            chart: Some(chart),
            ..Self::empty("chart")
        }
    }

    fn links(links: Vec<views::Link>) -> Self {
        Self {
            links,
            ..Self::empty("links")
        }
    }

    fn facts(facts: Vec<views::Fact>) -> Self {
        Self {
            facts,
            ..Self::empty("facts")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_lists_read_as_prose() {
        let mut names: Vec<&str> = REGISTRY.iter().map(|e| e.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), REGISTRY.len());
        assert_eq!(either(&["a", "b", "c"]), "a, b or c");
        assert_eq!(either(&["a"]), "a");
    }
}

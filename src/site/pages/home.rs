//! The home page: the machine, the decode chart, every run and the sections of the report.

use serde::Serialize;

use super::super::catalog::Catalog;
use super::super::error::SiteError;
use super::super::routes::{self, Route};
use super::super::views::{Chart, Fact, Link, Table};
use super::page::{Page, View};
use super::runs;
use crate::data::{Divergence, Hardware, Run, Software, Sweep};
use crate::format::{MISSING, count, counted};

/// The home page's content.
#[derive(Debug, Serialize)]
pub struct Home {
    /// The deployment decision across models, first.
    decision: Option<super::decision::Decision>,
    hardware: Vec<Fact>,
    software: Vec<Fact>,
    decode_chart: Chart,
    runs: Table,
    sections: Vec<Link>,
    models: Vec<Link>,
    /// The machines, in a report that declares them (which then shows no hardware here).
    machines: Vec<Link>,
    /// What to run next, in a report with no record yet: each step's command and what it does.
    next: Vec<Fact>,
}

/// The first steps of a new report: read the machine, measure a configuration of the
/// project's first profile, plan its example campaign, preview.
fn next_steps(c: &Catalog) -> Vec<Fact> {
    let doc = c.doc;
    let empty = doc.runs.is_empty()
        && doc.sweeps.is_empty()
        && doc.failures.is_empty()
        && doc.divergence.is_empty()
        && doc.jitter.is_empty();
    if !empty {
        return Vec::new();
    }
    let profile = c
        .profiles
        .first()
        .map_or("NAME", |p| p.name.as_str())
        .to_owned();
    let mut steps = Vec::new();
    if doc.hardware.gpu.is_none() {
        steps.push(Fact::new(
            "benchsite collect hardware",
            "records this machine's GPU, driver, memory and CPU",
        ));
    }
    steps.extend([
        Fact::new(
            format!("benchsite collect run --id {profile}-default --profile {profile} --launch"),
            "starts the server of profiles/".to_owned()
                + &profile
                + ".env, measures its single-stream decode speed and KV pool, and stops it",
        ),
        Fact::new(
            format!("benchsite collect sweep --label \"{profile} baseline\" --profile {profile} --launch"),
            "a concurrency sweep of the same configuration",
        ),
        Fact::new(
            "benchsite campaign plan example",
            "what campaigns/example.toml would measure unattended; campaign run measures it",
        ),
        Fact::new(
            "benchsite serve",
            "previews this report with live reload while you write content/",
        ),
    ]);
    steps
}

/// Each machine of a report that declares them, with what it ran.
fn machines(c: &Catalog) -> Vec<Link> {
    if !c.machines.declared() {
        return Vec::new();
    }
    c.machines
        .machines
        .iter()
        .zip(&c.machines.documents)
        .enumerate()
        .map(|(m, (machine, doc))| {
            let mut link = c.machine_link(machine);
            let gpu = doc.hardware.gpu.as_deref().unwrap_or(MISSING);
            link.note = Some(format!(
                "{gpu}: {}",
                record_counts(
                    c.machines.count::<Run>(m),
                    c.machines.count::<Sweep>(m),
                    c.machines.count::<Divergence>(m)
                )
            ));
            link
        })
        .collect()
}

/// The hardware facts of a machine.
pub fn hardware(h: &Hardware) -> Vec<Fact> {
    let mut facts = Vec::new();
    let mut add = |label: &str, value: Option<String>| {
        if let Some(value) = value {
            facts.push(Fact::new(label, value));
        }
    };
    add("GPU", h.gpu.clone());
    add("Architecture", h.arch.clone());
    add(
        "VRAM",
        h.vram_total_mib.map(|v| format!("{} MiB", count(v))),
    );
    add(
        "VRAM usable",
        h.vram_usable_gib.as_ref().map(|v| format!("{v} GiB")),
    );
    add(
        "VRAM taken before the server starts",
        h.vram_baseline_mib.map(|v| match &h.vram_baseline_note {
            Some(note) => format!("{} MiB ({note})", count(v)),
            None => format!("{} MiB", count(v)),
        }),
    );
    add("Driver", h.driver.clone());
    add(
        "Host RAM",
        h.host_ram_gib.as_ref().map(|v| format!("{v} GiB")),
    );
    add("CPU threads", h.cpu_threads.map(count));
    add("Operating system", h.os.clone());
    add("Container runtime", h.runtime.clone());
    add("Host", h.host.clone());
    facts
}

/// The software facts of a machine.
pub fn software(s: &Software) -> Vec<Fact> {
    let mut facts = Vec::new();
    for (label, value) in [
        ("Image", &s.image),
        ("vLLM", &s.vllm),
        ("PyTorch", &s.torch),
        ("Transformers", &s.transformers),
    ] {
        if let Some(value) = value {
            facts.push(Fact::new(label, value.clone()));
        }
    }
    for (name, value) in &s.other {
        facts.push(Fact::new(name.clone(), value.clone()));
    }
    facts
}

/// How many configurations, sweeps and comparisons, in words.
fn record_counts(runs: usize, sweeps: usize, comparisons: usize) -> String {
    format!(
        "{}, {}, {}",
        counted(runs, "configuration", "configurations"),
        counted(sweeps, "sweep", "sweeps"),
        counted(comparisons, "comparison", "comparisons")
    )
}

/// The line of `route` on the home page's list of sections, with what it holds.
fn section(route: &Route) -> Option<fn(&Catalog) -> String> {
    Some(match route.kind {
        "runs" => |c| {
            format!(
                "{}, one page each",
                counted(
                    c.doc.runs.len(),
                    "measured configuration",
                    "measured configurations"
                )
            )
        },
        "sweeps" => |c| counted(c.doc.sweeps.len(), "sweep", "sweeps"),
        "quality" => |c| {
            format!(
                "{} and {}",
                counted(c.doc.divergence.len(), "comparison", "comparisons"),
                counted(
                    c.doc.jitter.len(),
                    "jitter measurement",
                    "jitter measurements"
                )
            )
        },
        "failures" => |c| {
            format!(
                "{} that did not run",
                counted(c.doc.failures.len(), "configuration", "configurations")
            )
        },
        "ablations" => |c| {
            format!(
                "{} of records that differ in exactly one setting",
                counted(c.ablation_count(), "pair", "pairs")
            )
        },
        _ => return None,
    })
}

/// The sections of the report, each with what it holds, and the data downloads.
fn sections(c: &Catalog) -> Vec<Link> {
    let mut sections: Vec<Link> = routes::ROUTES
        .iter()
        .filter_map(|route| {
            let note = section(route)?(c);
            Some(Link {
                text: route.nav?.into(),
                href: c.urls.page(&route.path("")),
                note: Some(note),
                warning: None,
            })
        })
        .collect();
    // The data page, as the header's Data link opens it.
    let note = if c.machines.declared() {
        "a CSV per table, each row with its machine; each machine's results document (JSON) \
         is on its page"
    } else {
        "the results document (JSON) and a CSV per table"
    };
    sections.push(Link {
        text: "Data".into(),
        href: c.urls.page(&routes::DATA.path("")),
        note: Some(note.into()),
        warning: None,
    });
    sections
}

/// Renders the home page.
pub fn view(page: &Page) -> Result<View, SiteError> {
    let c = page.catalog();
    let home = Home {
        decision: super::decision::view(c, None),
        hardware: hardware(&c.doc.hardware),
        software: software(&c.doc.software),
        machines: machines(c),
        next: next_steps(c),
        decode_chart: runs::decode_chart(c),
        runs: runs::table(c),
        sections: sections(c),
        models: c
            .models()
            .iter()
            .map(|m| Link {
                text: m.name.clone(),
                href: c.model_url(&m.name),
                note: Some(record_counts(
                    m.runs.len(),
                    m.sweeps.len(),
                    m.comparisons.len(),
                )),
                warning: None,
            })
            .collect(),
    };
    View::new(page.site_title().to_owned(), &home)
}

//! A configuration's page: its figures, samples, KV pool, how to launch it and what relates to it.

use serde::Serialize;

use super::super::catalog::{Catalog, Related};
use super::super::error::SiteError;
use super::super::routes;
use super::super::views::{Cell, Column, Fact, Link, Row, Table};
use super::head::{Head, change, judged_change};
use super::page::{Page, View};
use super::shared::{engine_fact, opt};
use crate::compare::Kind;
use crate::data::figures::{self, Value, divergence};
use crate::data::{Run, rules};
use crate::format::{count, figure, percent, switch};
use crate::profiles::{self, Engine, Launcher};

/// A run's quality cost, for its page.
pub fn run_quality(c: &Catalog, run: &Run) -> Option<RunQuality> {
    let d = c.quality_of(run)?;
    let note = run.quality.as_ref().and_then(|link| link.note.as_ref());
    Some(RunQuality {
        comparison: c.link_comparison(d),
        kld_name: divergence::KLD_MEAN.name(),
        kld_mean: figure(d.teacher_forced.kld_mean),
        kld_unit: divergence::KLD_MEAN.unit,
        top1_agree: figure(d.teacher_forced.top1_agree),
        floor: c.floor_of(&d.model).map(figure),
        note: note.cloned(),
        chart: c.urls.page(&format!(
            "{}#speed-quality-{}",
            routes::QUALITY.path(""),
            run.id
        )),
    })
}

/// One run's page.
pub fn page(c: &Catalog, run: &Run) -> RunPage {
    let index = c.index_of_run(run);
    let model = c.model(&run.model).expect("every run's model is a model");
    let figures = facts(run);
    let samples = samples(run);
    let kv = run.kv_tokens.map(|kv| KvPool {
        tokens: count(kv),
        full_context: run
            .max_concurrency
            .map(figure)
            .unwrap_or_else(|| figure(rules::max_concurrency(kv, run.max_model_len))),
        context: count(run.max_model_len),
        fits: kv_fits(kv, run.max_model_len),
    });
    let launch = launch(c, run);
    RunPage {
        provenance: super::shared::provenance_facts(run.provenance.as_ref()),
        id: run.id.to_string(),
        title: match index {
            Some(i) => c.run_name(i),
            None => format!("{}, {} ({})", run.model, run.precision, run.id),
        },
        history: index.and_then(|i| super::history::of_record(c, Kind::Run, i)),
        head: Head::of::<Run>(
            c,
            Some(Kind::Run),
            index,
            &[&run.model],
            &routes::RUNS,
            |other| {
                let other = &c.doc.runs[other];
                let mut words = vec![judged_change(
                    "decode",
                    (run.decode_tok_s, rules::decode_range(run)),
                    (other.decode_tok_s, rules::decode_range(other)),
                    "sample ranges",
                )];
                if let (Some(own), Some(theirs)) = (run.kv_tokens, other.kv_tokens) {
                    words.push(format!("{} KV pool", change(own as f64, theirs as f64)));
                }
                Some(words.join(", "))
            },
        ),
        figures,
        samples,
        kv,
        launch,
        sweeps: Related::pick(
            model.newest.sweeps.iter().copied(),
            model.sweeps.len(),
            |i| c.link_sweep(&c.doc.sweeps[i]),
            |n| c.all_on_model_page(&run.model, "sweeps", "sweeps", n),
        ),
        comparisons: {
            // The comparison that measures the run's quality first, when it is of its model.
            let measures: Vec<usize> = c
                .comparison_index(run)
                .filter(|&i| c.doc.divergence[i].model == run.model)
                .into_iter()
                .collect();
            Related::pick(
                Related::preferred_first(&measures, &model.newest.comparisons, |i| {
                    measures.contains(&i)
                }),
                model.comparisons.len(),
                |i| c.link_comparison(&c.doc.divergence[i]),
                |n| c.all_on_model_page(&run.model, "comparisons", "comparisons", n),
            )
        },
        ablations: c.ablation_links(Kind::Run, index),
        quality: run_quality(c, run),
        measured: super::measured::of_run(c, run),
        failures: Related::pick(
            model.newest.failures.iter().copied(),
            model.failures.len(),
            |i| {
                let f = &c.doc.failures[i];
                Link {
                    text: f.id.to_string(),
                    href: c.failure_url(f),
                    note: Some(f.status.describe().to_owned()),
                    warning: None,
                }
            },
            |n| c.all_on_model_page(&run.model, "failures", "failures", n),
        ),
        model_page: c.model_link(&run.model),
    }
}

/// What a run measured and what it is, as facts: its figures first, then its settings.
fn facts(run: &Run) -> Vec<Fact> {
    let engine = run
        .delivery
        .as_ref()
        .is_some_and(|d| d.per_stream == crate::data::PerStream::Engine);
    let mut figures = vec![Fact::new(
        "Decode speed",
        match engine {
            true => format!(
                "{} tok/s, the engine's own (the client saw bursts)",
                figure(run.decode_tok_s)
            ),
            false => format!("{} tok/s", figure(run.decode_tok_s)),
        },
    )];
    if let Some((low, high)) = rules::decode_range(run) {
        figures.push(Fact::new(
            "Its samples",
            format!(
                "{}, from {} to {} tok/s: the decode speed is their median",
                run.decode_samples.len(),
                figure(low),
                figure(high)
            ),
        ));
    }
    if let Some(cold) = run.decode_cold_sample {
        figures.push(Fact::new(
            "Cold first request (discarded)",
            format!("{} tok/s", figure(cold)),
        ));
    }
    figures.extend(super::checked::run_facts(run));
    if let Some(prompt) = run.prompt_tok_s {
        let at = run.prompt_tokens.map_or(String::new(), |t| {
            format!(" over a {}-token prompt", count(t))
        });
        figures.push(Fact::new(
            "Prompt speed",
            format!("{} tok/s{at}", figure(prompt)),
        ));
    }
    figures.extend(acceptance(run));
    if let Some(watts) = run.power_w {
        let energy = run.joules_per_token.map_or(String::new(), |j| {
            format!(", {} J per output token", figure(j))
        });
        figures.push(Fact::new(
            "GPU power",
            format!("{} W over the samples{energy}", figure(watts)),
        ));
    }
    figures.extend([
        Fact::new("Model", run.model.clone()),
        Fact::new("Checkpoint", run.checkpoint.clone()),
        Fact::new("Shape", run.shape.clone()),
        Fact::new("Precision", run.precision.clone()),
        weights(run),
        Fact::new("Context", format!("{} tokens", count(run.max_model_len))),
        Fact::new("KV-cache dtype", opt(run.kv_cache_dtype.clone())),
        Fact::new("CUDA graphs", switch(run.cuda_graphs)),
        Fact::new("Vision tower", switch(run.vision)),
        Fact::new("Speculative decoding", switch(run.spec_decode)),
        engine_fact(run.engine, run.vllm_version.as_ref()),
        Fact::new("Measured", run.generated.to_string()),
    ]);
    if let Some(server) = &run.server {
        figures.push(Fact::new("Server software", server.clone()));
    }
    if let Some(source) = &run.source {
        figures.push(Fact::new("Imported from", source.clone()));
    }
    if let Some(notes) = &run.notes {
        figures.push(Fact::new("Notes", notes.clone()));
    }
    figures
}

/// The run's decode samples, the discarded cold one first.
fn samples(run: &Run) -> Table {
    Table {
        caption: match run.decode_samples.is_empty() {
            true => "Decode samples (tok/s): none kept, since they came in bursts and the decode speed is the engine's own".into(),
            false => "Decode samples (tok/s); the reported figure is their median".into(),
        },
        columns: vec![
            Column::text("Request"),
            Column::number(figures::run::DECODE_TOK_S.label),
        ],
        rows: run
            .decode_cold_sample
            .map(|cold| ("cold (discarded)".to_owned(), cold))
            .into_iter()
            .chain(
                run.decode_samples
                    .iter()
                    .enumerate()
                    .map(|(i, v)| (format!("sample {}", i + 1), *v)),
            )
            .map(|(name, value)| Row {
                id: None,
                class: None,
                cells: vec![Cell::text(name), Cell::number(figure(value), value)],
            })
            .collect(),
        csv: None,
    }
}

pub fn launch(c: &Catalog, run: &Run) -> Launch {
    let profile = c.profiles.iter().find(|p| p.name == run.profile);
    let overrides = profiles::parse_overrides(&run.overrides).unwrap_or_default();
    let mut collect = format!(
        "benchsite collect run --id {} --profile {}",
        run.id, run.profile
    );
    for setting in &overrides {
        collect.push_str(&format!(
            " --set {}",
            profiles::shell_quote(&format!("{}={}", setting.key, setting.value))
        ));
    }
    collect.push_str(" --launch");
    // A profile without an image starts its engine on this machine.
    let effective = profile.map(|p| p.effective(&overrides));
    if effective.as_ref().is_some_and(|e| e.get("IMAGE").is_none()) {
        collect.push_str(" --launcher local");
    }
    // An imported run was measured by another tool, not a server this profile starts.
    if run.source.is_some() {
        collect = format!(
            "benchsite collect import llama-bench RESULTS.json --id {} --profile {} --replace",
            run.id, run.profile
        );
    }
    let mut engine = Engine::default();
    let (settings, podman, local) = match effective {
        Some(effective) => {
            engine = effective.engine();
            let settings = effective
                .settings
                .iter()
                .map(|s| Setting {
                    key: s.key.clone(),
                    value: s.value.clone(),
                    from_override: s.origin == profiles::Origin::Override,
                })
                .collect();
            (
                settings,
                effective
                    .launch_command(Launcher::Podman)
                    .ok()
                    .map(|c| c.to_string()),
                effective
                    .launch_command(Launcher::Local)
                    .ok()
                    .map(|c| c.to_string()),
            )
        }
        None => (Vec::new(), None, None),
    };
    let (podman, local) = match run.source {
        Some(_) => (None, None),
        None => (podman, local),
    };
    Launch {
        imported: run.source.clone(),
        profile: run.profile.clone(),
        overrides: run.overrides.clone(),
        settings,
        podman,
        local,
        local_label: match engine {
            Engine::Vllm => "vllm serve",
            Engine::LlamaServer => "llama-server",
            Engine::Sglang => "sglang.launch_server",
        },
        local_anchor: match engine {
            Engine::Vllm => "vllm-serve",
            Engine::LlamaServer => "llama-server",
            Engine::Sglang => "sglang",
        },
        collect,
    }
}

/// How many sequences of a few request lengths the KV pool holds at once.
fn kv_fits(kv_tokens: u64, max_model_len: u64) -> Table {
    let mut lengths: Vec<u64> = [1024, 4096, 8192, 16384, 32768, 65536, 131072]
        .into_iter()
        .filter(|&len| len < max_model_len)
        .collect();
    lengths.push(max_model_len);
    Table {
        caption: "Sequences the KV pool holds at once, by tokens per sequence (prompt + output)"
            .into(),
        columns: vec![
            Column::number("Tokens per sequence"),
            Column::number("Sequences"),
        ],
        rows: lengths
            .into_iter()
            .map(|len| {
                let fit = kv_tokens as f64 / len as f64;
                Row {
                    id: None,
                    class: (len == max_model_len).then(|| "configured".to_owned()),
                    cells: vec![
                        Cell::number(count(len), len as f64),
                        // To two places as vLLM states its "maximum concurrency" (the
                        // configured row then reads as the figure it logged).
                        Cell::number(figure((fit * 100.0).round() / 100.0), fit),
                    ],
                }
            })
            .collect(),
        csv: None,
    }
}

/// A configuration page.
#[derive(Debug, Serialize)]
pub struct RunPage {
    /// Where it was measured.
    pub provenance: Vec<Fact>,
    /// How it was measured, and the sweeps of its server set-up.
    pub measured: super::measured::Measured,
    /// The run id.
    pub id: String,
    /// The page title: the model and the settings that tell the run from its model's others.
    pub title: String,
    /// Model › Runs, the GPU, its figures against each one-knob sibling.
    #[serde(flatten)]
    pub head: Head,
    /// Its configuration's decode speed over every measurement of it, when measured again.
    pub history: Option<super::history::RecordHistory>,
    /// Every figure of the run.
    pub figures: Vec<Fact>,
    /// The decode samples.
    pub samples: Table,
    /// The KV pool, when measured.
    pub kv: Option<KvPool>,
    /// How to start the server and repeat the measurement.
    pub launch: Launch,
    /// Sweeps of the same model.
    pub sweeps: Related,
    /// Comparisons of the same model.
    pub comparisons: Related,
    /// One-knob pairs this run is part of.
    pub ablations: Related,
    /// Its quality cost, when the author linked the comparison that measures it.
    pub quality: Option<RunQuality>,
    /// Failures of the same model.
    pub failures: Related,
    /// The model's page, with every record of the model.
    pub model_page: Link,
}

/// A run's KV pool and what it means for concurrency.
#[derive(Debug, Serialize)]
pub struct KvPool {
    /// Tokens in the pool.
    pub tokens: String,
    /// Full-length sequences it holds.
    pub full_context: String,
    /// The configured context.
    pub context: String,
    /// Sequences it holds at shorter lengths.
    pub fits: Table,
}

/// How a run's server is started.
#[derive(Debug, Serialize)]
pub struct Launch {
    /// The tool and file an imported run came from: it is measured again by that tool.
    pub imported: Option<String>,
    /// The profile's name.
    pub profile: String,
    /// The overrides applied.
    pub overrides: String,
    /// The effective settings.
    pub settings: Vec<Setting>,
    /// The podman command.
    pub podman: Option<String>,
    /// The command that starts the engine on this machine.
    pub local: Option<String>,
    /// Its heading's name for it (`vllm serve`, `llama-server`) and the heading's anchor.
    pub local_label: &'static str,
    /// The anchor of its heading.
    pub local_anchor: &'static str,
    /// The `benchsite collect run` line that repeats the measurement.
    pub collect: String,
}

/// One effective setting.
#[derive(Debug, Serialize)]
pub struct Setting {
    /// The key.
    pub key: String,
    /// The value.
    pub value: String,
    /// Whether the run's overrides set it.
    pub from_override: bool,
}

/// A run's quality cost.
#[derive(Debug, Serialize)]
pub struct RunQuality {
    /// The comparison that measures it.
    pub comparison: Link,
    /// What the KL divergence figure is called, from the registry.
    pub kld_name: &'static str,
    /// Its teacher-forced mean KL divergence.
    pub kld_mean: String,
    /// The unit of the KL divergence.
    pub kld_unit: &'static str,
    /// Its teacher-forced top-1 agreement.
    pub top1_agree: String,
    /// The model's noise floor, when measured.
    pub floor: Option<String>,
    /// Where the link is approximate.
    pub note: Option<String>,
    /// The run's row under the speed-against-quality chart.
    pub chart: String,
}

/// Renders a run's page.
pub fn view(page: &Page) -> Result<View, SiteError> {
    let c = page.catalog();
    let run = &c.doc.runs[page.index()];
    let view = self::page(c, run);
    let mut description = format!(
        "{}: {} tok/s single-stream decode",
        view.title,
        figure(run.decode_tok_s)
    );
    if let Some(kv) = run.kv_tokens {
        description.push_str(&format!(", {} tokens of KV cache", count(kv)));
    }
    let description = view.head.sentence(description);
    Ok(View::new(view.title.clone(), &view)?.described(description))
}

/// A run's weights in GiB, and where the figure comes from.
fn weights(run: &Run) -> Fact {
    let shown = |gib: f64| figures::run::WEIGHTS_GIB.shown(&Value::Number(gib));
    Fact::new(
        "Weights",
        match (run.weights_gib, &run.weights_source) {
            (Some(gib), Some(source)) => format!("{} GiB ({source})", shown(gib)),
            (Some(gib), None) => format!("{} GiB", shown(gib)),
            _ => "not recorded".into(),
        },
    )
}

/// A speculative run's acceptance, over which prompts, and its length per draft step.
fn acceptance(run: &Run) -> Vec<Fact> {
    let mut facts = Vec::new();
    if let Some(acceptance) = run.spec_acceptance {
        let over = match &run.spec_acceptance_over {
            Some(over) => format!(
                "over {} prompts of {}, one at a time, {} output tokens",
                over.prompts.len(),
                over.prompt_set,
                count(over.output_tokens)
            ),
            None => "over the decode samples: one prompt, sent again".to_owned(),
        };
        facts.push(Fact::new(
            "Speculative acceptance",
            format!(
                "{} ({} of drafted tokens accepted, {over})",
                figure(acceptance),
                percent(acceptance)
            ),
        ));
    }
    if let Some(length) = run.spec_acceptance_length {
        let positions = &run.spec_acceptance_per_position;
        let by_position = if positions.is_empty() {
            String::new()
        } else {
            let rates: Vec<String> = positions.iter().map(|r| percent(*r)).collect();
            format!("; accepted at each draft position: {}", rates.join(", "))
        };
        facts.push(Fact::new(
            "Acceptance length",
            format!(
                "{} tokens per step (vLLM's 1 + accepted ÷ draft steps){by_position}",
                figure(length)
            ),
        ));
    }
    facts
}

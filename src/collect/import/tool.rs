//! Which tool's files `collect import` reads, and reading them into one sweep.

use std::path::{Path, PathBuf};

use super::super::error::CollectError;
use super::common::{Imported, Loaded};
use super::{aiperf, guidellm, sglang, vllm};
use crate::data::{Arrivals, Date, Id, Sweep, Workload};
use crate::stats;

/// What `collect import` records.
#[derive(Debug, Clone)]
pub struct ImportOptions {
    /// The sweep's label.
    pub label: String,
    /// The permalink, when not the label's slug.
    pub id: Option<Id>,
    /// The result files, one level each (any order).
    pub files: Vec<PathBuf>,
    /// Free text for the record.
    pub notes: Option<String>,
    /// The date when the files do not say.
    pub today: Date,
    /// Dimensions given by hand.
    pub dimensions: Vec<(String, String)>,
    /// Keep the per-request data the files have (`data/requests/<slug>.jsonl.gz`, which
    /// the record names); not for a dry run.
    pub request_log: bool,
    /// Whether the benchmark ran with ignore_eos, as the caller says (`--ignore-eos`): no
    /// tool's result file records it.
    pub ignore_eos: bool,
}

/// The tools whose result files can be imported.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tool {
    /// `vllm bench serve --save-result`: a file (or JSON line) per `--max-concurrency`.
    VllmBench,
    /// guidellm's JSON report: a benchmark per concurrent-streams level.
    Guidellm,
    /// SGLang's `bench_serving --output-file`: a JSON line per `--max-concurrency`.
    Sglang,
    /// AIPerf's `profile_export_aiperf.json` or genai-perf's `profile_export_genai_perf.json`:
    /// a file per concurrency.
    Aiperf,
}

impl Tool {
    fn name(self) -> &'static str {
        match self {
            Tool::VllmBench => "vllm bench serve",
            Tool::Guidellm => "guidellm",
            Tool::Sglang => "sglang bench_serving",
            Tool::Aiperf => "AIPerf / genai-perf",
        }
    }
}

/// Reads the files into one sweep; see the module documentation.
pub fn import(root: &Path, tool: Tool, options: &ImportOptions) -> Result<Sweep, CollectError> {
    let loaded = load(root, tool, &options.files)?;
    let mut levels = Vec::new();
    for result in &loaded {
        match tool {
            Tool::VllmBench => levels.push(vllm::level(result)?),
            Tool::Guidellm => levels.extend(guidellm::levels(result)?),
            Tool::Sglang => levels.push(sglang::level(result)?),
            Tool::Aiperf => levels.push(aiperf::level(result)?),
        }
    }
    let model = one_model(tool, &mut levels)?;
    let arrivals = one_arrivals(&levels)?;
    let lines = in_levels(&mut levels);
    let generated = levels[0]
        .date
        .clone()
        .unwrap_or_else(|| options.today.clone());
    let target = levels[0].target.clone();
    let median = |values: Vec<f64>| stats::median(&values).map(|v| v.round() as u64);
    let prompts = levels
        .iter()
        .filter_map(|l| l.level.prompt_tokens)
        .map(|t| t as f64);
    let outputs = levels
        .iter()
        .filter_map(|l| l.level.output_tokens)
        .map(|t| t as f64);
    let workload = Workload {
        prompt_words: None,
        prompt_tokens: median(prompts.collect()).filter(|&t| t > 0),
        output_tokens: median(outputs.collect()).unwrap_or(1).max(1),
        rounds: 1,
        ignore_eos: options.ignore_eos,
        thinking: false,
        min_requests: None,
        arrivals,
        dataset: None,
        lengths: None,
        shared_prefix: None,
    };
    let dimensions = super::super::sweep::dimensions(
        &model,
        workload.prompt_tokens,
        &workload,
        None,
        &options.dimensions,
    );
    let mut files: Vec<&str> = loaded.iter().map(|r| r.file.as_str()).collect();
    files.dedup();
    let mut notes: Vec<String> = options.notes.iter().cloned().collect();
    notes.push(format!(
        "Imported from {}: the prompt and output lengths are the measured medians; {}thinking and the server's version are not in its result files.",
        tool.name(),
        match options.ignore_eos {
            true => "ignore_eos is as given with --ignore-eos; ",
            false => "ignore_eos (unless given with --ignore-eos), ",
        }
    ));
    let mut sweep = Sweep {
        request_log: None,
        search: None,
        label: options.label.clone(),
        id: options.id.clone(),
        model,
        base_url: target.unwrap_or_else(|| format!("not recorded ({})", tool.name())),
        generated,
        vllm_version: None,
        server: None,
        engine: None,
        max_model_len: None,
        workload,
        levels: levels.into_iter().map(|l| l.level).collect(),
        notes: Some(notes.join(" ")),
        source: Some(format!(
            "{}{}: {}",
            tool.name(),
            match tool {
                Tool::VllmBench => " --save-result",
                Tool::Guidellm => " JSON report",
                Tool::Sglang => " --output-file",
                Tool::Aiperf => " JSON export",
            },
            files.join(", ")
        )),
        dimensions,
        method: None,
        provenance: None,
    };
    if options.request_log && !lines.is_empty() {
        let path = crate::data::request_log_path(&sweep.slug());
        crate::data::write_request_log(&root.join(&path), &lines)?;
        sweep.request_log = Some(path);
    }
    Ok(sweep)
}

/// Each level's requests, under its level's place now that the levels are in order.
fn in_levels(levels: &mut [Imported]) -> Vec<crate::data::RequestLine> {
    levels
        .iter_mut()
        .enumerate()
        .flat_map(|(index, l)| {
            std::mem::take(&mut l.lines)
                .into_iter()
                .map(move |mut line| {
                    line.level = index;
                    line
                })
        })
        .collect()
}

/// Each result object of `files`: one per file, or one per line of the tools that append.
fn load(root: &Path, tool: Tool, files: &[PathBuf]) -> Result<Vec<Loaded>, CollectError> {
    let mut loaded = Vec::new();
    for path in files {
        let shown = path
            .strip_prefix(root)
            .unwrap_or(path)
            .display()
            .to_string();
        let text = std::fs::read_to_string(path)
            .map_err(|error| CollectError::Usage(format!("{shown}: {error}")))?;
        let not_a_result = |line: Option<usize>, error: serde_json::Error| {
            let at = line.map_or(String::new(), |line| format!(":{line}"));
            CollectError::Usage(format!(
                "{shown}{at}: not a {} result ({error})",
                tool.name()
            ))
        };
        match tool {
            // `--append-result` and SGLang's `--output-file` write one object per line.
            Tool::VllmBench | Tool::Sglang => {
                for (line, chunk) in text
                    .lines()
                    .enumerate()
                    .filter(|(_, l)| !l.trim().is_empty())
                {
                    let json = serde_json::from_str(chunk)
                        .map_err(|error| not_a_result(Some(line + 1), error))?;
                    loaded.push(Loaded {
                        file: shown.clone(),
                        json,
                    });
                }
            }
            Tool::Guidellm | Tool::Aiperf => loaded.push(Loaded {
                file: shown.clone(),
                json: serde_json::from_str(&text).map_err(|error| not_a_result(None, error))?,
            }),
        }
    }
    Ok(loaded)
}

/// The arrivals of an open loop's levels, which must all be open-loop levels of one arrival
/// process and cap (each file's `num_prompts` may differ: the most is kept).
fn one_arrivals(levels: &[Imported]) -> Result<Option<Arrivals>, CollectError> {
    let Some(first) = levels.first() else {
        return Ok(None);
    };
    let mut arrivals = first.arrivals.clone();
    for other in &levels[1..] {
        let same = match (&arrivals, &other.arrivals) {
            (None, None) => true,
            (Some(a), Some(b)) => {
                a.process == b.process
                    && a.burstiness == b.burstiness
                    && a.max_concurrency == b.max_concurrency
            }
            _ => false,
        };
        if !same {
            return Err(CollectError::Usage(format!(
                "{} and {} were not measured the same way (a request rate and an unbounded one, or other burstiness or --max-concurrency): a sweep is one load's levels; import them as two sweeps",
                first.file, other.file
            )));
        }
        if let (Some(a), Some(b)) = (&mut arrivals, &other.arrivals) {
            a.requests = a.requests.max(b.requests);
        }
    }
    Ok(arrivals)
}

/// The levels in concurrency order, one per concurrency, all of one model: that model.
fn one_model(tool: Tool, levels: &mut [Imported]) -> Result<String, CollectError> {
    if levels.is_empty() {
        return Err(CollectError::Usage(format!(
            "no level in the files: give the results of {}",
            tool.name()
        )));
    }
    levels.sort_by(|a, b| a.level.load().x().total_cmp(&b.level.load().x()));
    if let Some(pair) = levels
        .windows(2)
        .find(|w| w[0].level.load() == w[1].level.load())
    {
        return Err(CollectError::Usage(format!(
            "{} and {} both ran at {}: one result per level",
            pair[0].file,
            pair[1].file,
            pair[0].level.load().words()
        )));
    }
    let model = levels[0].model.clone().unwrap_or_else(|| "unknown".into());
    if let Some(other) = levels
        .iter()
        .find(|l| l.model.as_deref().unwrap_or("unknown") != model)
    {
        return Err(CollectError::Usage(format!(
            "{} measured {}, the others {model}: a sweep is one model's",
            other.file,
            other.model.as_deref().unwrap_or("no named model")
        )));
    }
    Ok(model)
}

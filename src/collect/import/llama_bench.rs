//! `collect import llama-bench`: llama.cpp's `llama-bench -o json | jsonl | csv` as runs.
//!
//! llama-bench measures the engine in-process, with no server, so a row has no vLLM profile:
//! the profile given with `--profile` names the configuration (its `MODEL` is the checkpoint),
//! and the row's own settings (GPU layers, flash attention, batch sizes, threads, KV-cache
//! types, context) go on top of it as the run's overrides, so two rows that differ in one
//! setting are a one-knob pair like any other.
//!
//! - A `tg` row (`n_gen > 0`, `n_prompt = 0`) is a run: its samples are `n_gen / samples_ns`
//!   (exact; `samples_ts` is printed to 6 digits), its figure their median, as every run's.
//!   The CSV has no samples, only the mean (`avg_ts`): that one figure is the run's sample.
//! - A `pp` row (`n_prompt > 0`, `n_gen = 0`) is the prompt speed of the run with the same
//!   settings and depth (the longest prompt where there are several).
//! - A `pg` row (`-pg`) divides prompt and generated tokens by one time: it is not a decode
//!   speed, and is left out with the reason.
//!
//! Field names are those of `test::get_fields()` in `tools/llama-bench/llama-bench.cpp`; the
//! column set differs between builds, so nothing here depends on a column that is not read.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::collect::CollectError;
use crate::collect::decode::overrides_text;
use crate::data::{self, Date, Id, Run, RunStatus};
use crate::profiles::{self, Effective, Origin, Profile, Setting};
use crate::project::Layout;
use crate::stats;

/// What `collect import llama-bench` records.
#[derive(Debug, Clone)]
pub struct LlamaBenchOptions {
    /// The run's id; with several `tg` rows, the start of each run's id, followed by what
    /// tells the rows apart (`tg128`, `d4096`, `fa-1`).
    pub id: Id,
    /// The profile of the configuration (`profiles/<name>.env`): its `MODEL` is the checkpoint.
    pub profile: String,
    /// llama-bench's output files.
    pub files: Vec<PathBuf>,
    /// The model's shape in words (default: llama-bench's architecture and size).
    pub shape: Option<String>,
    /// Free text for every run.
    pub notes: Option<String>,
    /// The date when a row has no `test_time`.
    pub today: Date,
    /// Record the rows even when their model file is not the profile's `MODEL`.
    pub force: bool,
}

/// The runs a llama-bench output gave, and the rows left out with why.
#[derive(Debug, Clone)]
pub struct LlamaBenchRuns {
    /// One run per `tg` row.
    pub runs: Vec<Run>,
    /// What was left out or is approximate, in words.
    pub warnings: Vec<String>,
}

/// One result row and where it was read.
struct Row {
    fields: Map<String, Value>,
    /// `file:line` of the row (the line of its opening brace in JSON).
    at: String,
    file: String,
    format: &'static str,
}

/// The settings that identify a configuration: every field but the test's size, its time and
/// its figures.
/// Bytes in GiB, to the MiB or so: the report's memory unit.
fn gib(bytes: i64) -> f64 {
    stats::round(bytes.max(0) as f64 / f64::from(1u32 << 30), 3)
}

const NOT_SETTINGS: &[&str] = &[
    "n_prompt",
    "n_gen",
    "test_time",
    "avg_ns",
    "stddev_ns",
    "avg_ts",
    "stddev_ts",
    "samples_ns",
    "samples_ts",
    "cpu_info",
    "gpu_info",
    "build_commit",
    "build_number",
];

/// llama-bench's settings as a run's overrides: its field, the profile key, and the short
/// name an id uses when rows differ in it.
const SETTINGS: &[(&str, &str, &str)] = &[
    ("n_gpu_layers", "N_GPU_LAYERS", "ngl"),
    ("n_cpu_moe", "N_CPU_MOE", "ncmoe"),
    ("flash_attn", "FLASH_ATTN", "fa"),
    ("n_batch", "N_BATCH", "b"),
    ("n_ubatch", "N_UBATCH", "ub"),
    ("n_threads", "THREADS", "t"),
    ("split_mode", "SPLIT_MODE", "sm"),
    ("no_kv_offload", "NO_KV_OFFLOAD", "nkvo"),
];

impl Row {
    fn text(&self, key: &str) -> Option<String> {
        match self.fields.get(key)? {
            Value::String(text) => Some(text.clone()),
            Value::Null => None,
            Value::Bool(on) => Some(u8::from(*on).to_string()),
            other => Some(other.to_string()),
        }
    }

    fn int(&self, key: &str) -> Option<i64> {
        match self.fields.get(key)? {
            Value::Number(n) => n.as_i64(),
            Value::String(text) => text.trim().parse().ok(),
            _ => None,
        }
    }

    fn float(&self, key: &str) -> Option<f64> {
        match self.fields.get(key)? {
            Value::Number(n) => n.as_f64(),
            Value::String(text) => text.trim().parse().ok(),
            _ => None,
        }
    }

    fn tokens(&self, key: &str) -> Result<u64, CollectError> {
        self.int(key)
            .and_then(|n| u64::try_from(n).ok())
            .ok_or_else(|| self.missing(key, "a whole number of tokens"))
    }

    fn missing(&self, key: &str, expected: &str) -> CollectError {
        CollectError::Usage(format!(
            "{}: {key} is {}: expected {expected} (not a llama-bench result row?)",
            self.at,
            self.fields
                .get(key)
                .map_or("missing".to_owned(), Value::to_string)
        ))
    }

    /// The test as llama-bench's Markdown names it: `tg128`, `pp512`, `pp512+tg128 @ d4096`.
    fn test(&self) -> String {
        let (p, g, d) = (
            self.int("n_prompt").unwrap_or(0),
            self.int("n_gen").unwrap_or(0),
            self.int("n_depth").unwrap_or(0),
        );
        let name = match (p, g) {
            (0, g) => format!("tg{g}"),
            (p, 0) => format!("pp{p}"),
            (p, g) => format!("pp{p}+tg{g}"),
        };
        if d > 0 {
            format!("{name} @ d{d}")
        } else {
            name
        }
    }

    /// The row's settings, to match a `pp` row with its `tg` row.
    fn settings(&self) -> Vec<(String, String)> {
        self.fields
            .keys()
            .filter(|key| !NOT_SETTINGS.contains(&key.as_str()))
            .map(|key| (key.clone(), self.text(key).unwrap_or_default()))
            .collect()
    }

    /// Per-repetition tok/s: from the nanoseconds (exact), else `samples_ts`, else the CSV's
    /// mean alone.
    fn samples(&self, tokens: u64) -> Result<(Vec<f64>, bool), CollectError> {
        if let Some(Value::Array(ns)) = self.fields.get("samples_ns") {
            let speeds: Option<Vec<f64>> = ns
                .iter()
                .map(|n| n.as_f64().filter(|&n| n > 0.0))
                .map(|n| n.map(|n| tokens as f64 * 1e9 / n))
                .collect();
            if let Some(speeds) = speeds.filter(|s| !s.is_empty()) {
                return Ok((speeds, true));
            }
        }
        if let Some(Value::Array(ts)) = self.fields.get("samples_ts") {
            let speeds: Option<Vec<f64>> = ts.iter().map(Value::as_f64).collect();
            if let Some(speeds) = speeds.filter(|s| !s.is_empty()) {
                return Ok((speeds, true));
            }
        }
        let mean = self
            .float("avg_ts")
            .filter(|v| v.is_finite() && *v > 0.0)
            .ok_or_else(|| self.missing("avg_ts", "tokens per second"))?;
        Ok((vec![mean], false))
    }
}

/// The rows of one llama-bench output, in the format its first character says.
fn rows(path: &Path, shown: &str) -> Result<Vec<Row>, CollectError> {
    let text = std::fs::read_to_string(path)
        .map_err(|error| CollectError::Usage(format!("{shown}: {error}")))?;
    let not = |at: String, error: &dyn std::fmt::Display| {
        CollectError::Usage(format!(
            "{at}: not llama-bench's -o json, jsonl or csv output ({error})"
        ))
    };
    let object = |value: Value, at: String| match value {
        Value::Object(fields) => Ok(fields),
        other => Err(not(at, &format!("a row is {other}, expected an object"))),
    };
    let trimmed = text.trim_start();
    if trimmed.starts_with('[') {
        let values: Vec<Value> =
            serde_json::from_str(&text).map_err(|error| not(shown.to_owned(), &error))?;
        // llama-bench writes each row's opening brace alone on its line.
        let mut braces = text
            .lines()
            .enumerate()
            .filter(|(_, line)| line.trim() == "{")
            .map(|(i, _)| i + 1);
        values
            .into_iter()
            .enumerate()
            .map(|(i, value)| {
                let at = braces.next().map_or_else(
                    || format!("{shown} (row {})", i + 1),
                    |line| format!("{shown}:{line}"),
                );
                Ok(Row {
                    fields: object(value, at.clone())?,
                    at,
                    file: shown.to_owned(),
                    format: "-o json",
                })
            })
            .collect()
    } else if trimmed.starts_with('{') {
        text.lines()
            .enumerate()
            .filter(|(_, line)| !line.trim().is_empty())
            .map(|(i, line)| {
                let at = format!("{shown}:{}", i + 1);
                let value = serde_json::from_str(line).map_err(|error| not(at.clone(), &error))?;
                Ok(Row {
                    fields: object(value, at.clone())?,
                    at,
                    file: shown.to_owned(),
                    format: "-o jsonl",
                })
            })
            .collect()
    } else {
        let mut reader = csv::Reader::from_reader(text.as_bytes());
        let header = reader
            .headers()
            .map_err(|error| not(shown.to_owned(), &error))?
            .clone();
        if !header.iter().any(|h| h == "n_gen") {
            return Err(not(
                shown.to_owned(),
                &"no n_gen column: give -o json, jsonl or csv",
            ));
        }
        reader
            .records()
            .enumerate()
            .map(|(i, record)| {
                let at = format!("{shown}:{}", i + 2);
                let record = record.map_err(|error| not(at.clone(), &error))?;
                Ok(Row {
                    fields: header
                        .iter()
                        .zip(record.iter())
                        .map(|(k, v)| (k.to_owned(), Value::String(v.to_owned())))
                        .collect(),
                    at,
                    file: shown.to_owned(),
                    format: "-o csv",
                })
            })
            .collect()
    }
}

/// Whether a llama-bench model file is the profile's `MODEL`: the same name once case,
/// punctuation and a `GGUF` ending are set aside, or one contained in the other (a
/// `Qwen3-8B-GGUF` repository's `Qwen3-8B-Q4_K_M.gguf`).
fn same_model(file: &str, model: &str) -> bool {
    let plain = |text: &str| {
        let last = text
            .rsplit(['/', '\\'])
            .next()
            .unwrap_or(text)
            .to_lowercase();
        let last = last.strip_suffix(".gguf").unwrap_or(&last).to_owned();
        let last = last.strip_suffix("-gguf").unwrap_or(&last).to_owned();
        last.chars()
            .filter(char::is_ascii_alphanumeric)
            .collect::<String>()
    };
    let (file, model) = (plain(file), plain(model));
    !file.is_empty() && !model.is_empty() && (file.contains(&model) || model.contains(&file))
}

/// A value as an id's part: lowercase letters, digits and single hyphens.
fn id_part(text: &str) -> String {
    data::slugify(text)
}

/// Reads the files into runs; see the module documentation.
pub fn import_llama_bench(
    layout: &Layout,
    options: &LlamaBenchOptions,
) -> Result<LlamaBenchRuns, CollectError> {
    let profile = profiles::load(&layout.profiles(), &options.profile)?;
    let base = profile.effective(&[]);
    let checkpoint = base
        .get("MODEL")
        .ok_or_else(|| {
            CollectError::Usage(format!("profile {}: MODEL is not set", options.profile))
        })?
        .to_owned();
    let mut all = Vec::new();
    for path in &options.files {
        let shown = path
            .strip_prefix(&layout.root)
            .unwrap_or(path)
            .display()
            .to_string();
        all.extend(rows(path, &shown)?);
    }
    let mut warnings = Vec::new();
    let (mut tg, mut pp) = (Vec::new(), Vec::new());
    for row in all {
        let (prompt, generated_tokens) = (row.tokens("n_prompt")?, row.tokens("n_gen")?);
        match (prompt, generated_tokens) {
            (0, 0) => return Err(row.missing("n_gen", "a test with tokens")),
            (0, _) => tg.push(row),
            (_, 0) => pp.push(row),
            _ => warnings.push(format!(
                "{}: {} is left out: a -pg test times prompt and generated tokens together, so its tok/s is not a decode speed (run -n for decode, -p for prompt speed)",
                row.at,
                row.test()
            )),
        }
    }
    if tg.is_empty() {
        return Err(CollectError::Usage(format!(
            "no tg row (n_gen > 0, n_prompt = 0) in the files: run llama-bench with -n, which measures decode speed{}",
            if warnings.is_empty() {
                String::new()
            } else {
                format!("; {}", warnings.join("; "))
            }
        )));
    }
    for row in &tg {
        let file = row.text("model_filename").unwrap_or_default();
        if !options.force && !same_model(&file, &checkpoint) {
            return Err(CollectError::Usage(format!(
                "{}: llama-bench measured {file}, but profile {} is {checkpoint}: import it with the profile of that model, or give --force",
                row.at, options.profile
            )));
        }
    }
    let varying = varying(&tg);
    let mut runs: Vec<Run> = Vec::new();
    for row in &tg {
        let id = if tg.len() == 1 {
            options.id.clone()
        } else {
            let parts: Vec<String> = varying.iter().map(|key| part(row, key)).collect();
            Id::new(&format!("{}-{}", options.id, id_part(&parts.join("-"))))
                .map_err(|message| CollectError::Usage(format!("{}: {message}", row.at)))?
        };
        if let Some(same) = runs.iter().find(|run| run.id == id) {
            return Err(CollectError::Usage(format!(
                "{}: the same test with the same settings as run {} of the files: import one result per configuration",
                row.at, same.id
            )));
        }
        let (run, row_warnings) = run(row, &pp, id, &profile, &checkpoint, options)?;
        warnings.extend(row_warnings);
        runs.push(run);
    }
    for row in &pp {
        let settings = row.settings();
        if !tg.iter().any(|t| t.settings() == settings) {
            warnings.push(format!(
                "{}: {} is left out: a prompt speed is recorded with the decode speed of the same settings, and no tg row has them",
                row.at,
                row.test()
            ));
        }
    }
    Ok(LlamaBenchRuns { runs, warnings })
}

/// The fields whose values differ between the `tg` rows, in the order llama-bench prints.
fn varying(tg: &[Row]) -> Vec<String> {
    let first = &tg[0];
    let mut keys: Vec<String> = first
        .fields
        .keys()
        .filter(|key| !NOT_SETTINGS.contains(&key.as_str()) || key.as_str() == "n_gen")
        .filter(|key| tg.iter().any(|row| row.text(key) != first.text(key)))
        .cloned()
        .collect();
    // The test's size first: `tg128-d4096-fa-1`.
    keys.sort_by_key(|key| match key.as_str() {
        "n_gen" => 0,
        "n_depth" => 1,
        _ => 2,
    });
    keys
}

/// What a row's `key` adds to its run's id.
fn part(row: &Row, key: &str) -> String {
    let value = row.text(key).unwrap_or_default();
    match key {
        "n_gen" => format!("tg{value}"),
        "n_depth" => format!("d{value}"),
        "model_filename" => {
            let name = value.rsplit(['/', '\\']).next().unwrap_or(&value);
            name.strip_suffix(".gguf").unwrap_or(name).to_owned()
        }
        _ => {
            let short = SETTINGS
                .iter()
                .find(|(field, _, _)| *field == key)
                .map_or(key, |(_, _, short)| short);
            format!("{short}-{value}")
        }
    }
}

/// The served model's name: the profile's, else the GGUF file's name without `.gguf`.
fn model_name(effective: &profiles::Effective, file: &str) -> String {
    effective
        .get("SERVED_MODEL_NAME")
        .map(str::to_owned)
        .unwrap_or_else(|| {
            let name = file.rsplit(['/', '\\']).next().unwrap_or(file);
            name.strip_suffix(".gguf").unwrap_or(name).to_owned()
        })
}

/// The run of one `tg` row, with its prompt speed from the `pp` rows of the same settings.
fn run(
    row: &Row,
    pp: &[Row],
    id: Id,
    profile: &Profile,
    checkpoint: &str,
    options: &LlamaBenchOptions,
) -> Result<(Run, Vec<String>), CollectError> {
    let mut warnings = Vec::new();
    let base = profile.effective(&[]);
    let generated_tokens = row.tokens("n_gen")?;
    let depth = row.int("n_depth").unwrap_or(0).max(0) as u64;
    let (speeds, sampled) = row.samples(generated_tokens)?;
    let samples: Vec<f64> = speeds.iter().map(|v| stats::round(*v, 1)).collect();
    let decode = stats::round(stats::median(&samples).expect("a row has a sample"), 1);
    let settings = row.settings();
    let mut prompts: Vec<&Row> = pp.iter().filter(|p| p.settings() == settings).collect();
    prompts.sort_by_key(|p| p.int("n_prompt").unwrap_or(0));
    let prompt = prompts.last().map(|p| prompt_speed(p)).transpose()?;

    let backends = row.text("backends").filter(|b| !b.is_empty());
    let (overrides, kv_cache_dtype) =
        row_overrides(row, &base, depth + generated_tokens, backends.as_deref());
    let effective = profile.effective(&overrides);

    let (shape, precision) = shape_and_precision(row, options);
    let file = row.text("model_filename").unwrap_or_default();
    let build = match (row.text("build_commit"), row.text("build_number")) {
        (Some(commit), Some(number)) => format!("build {number} ({commit})"),
        (Some(commit), None) => format!("build {commit}"),
        _ => "an unnamed build".to_owned(),
    };
    let mut notes: Vec<String> = options.notes.iter().cloned().collect();
    if options.force && !same_model(&file, checkpoint) {
        notes.push(format!(
            "Recorded with --force: llama-bench measured {file}, but profile {} is {checkpoint}.",
            options.profile
        ));
    }
    notes.push(measured_note(row, samples.len(), sampled, &mut warnings));
    if let Some(note) = prompt_note(&prompts) {
        notes.push(note);
    }
    let generated = row
        .text("test_time")
        .and_then(|time| Date::new(time.get(..10)?).ok())
        .unwrap_or_else(|| options.today.clone());
    let record = Run {
        id,
        status: RunStatus::Ok,
        profile: options.profile.clone(),
        overrides: overrides_text(&overrides),
        model: model_name(&effective, &file),
        checkpoint: checkpoint.to_owned(),
        shape,
        precision,
        weights_gib: row.int("model_size").map(gib),
        weights_source: row
            .int("model_size")
            .map(|_| "the model's tensors, as llama-bench reports them (model_size)".to_owned()),
        max_model_len: depth + generated_tokens,
        vision: data::rules::vision(&effective),
        cuda_graphs: data::rules::cuda_graphs(&effective),
        spec_decode: data::rules::spec_decode(&effective),
        decode_tok_s: decode,
        decode_cold_sample: None,
        decode_samples: samples,
        prompt_tok_s: prompt.map(|(speed, _)| speed),
        prompt_tokens: prompt.map(|(_, tokens)| tokens),
        generated,
        vllm_version: None,
        server: Some(format!(
            "llama.cpp {build}{}",
            backends.map_or(String::new(), |b| format!(", {b} backend"))
        )),
        // llama-bench runs llama.cpp itself, not one of the servers a profile starts.
        engine: None,
        kv_tokens: None,
        max_concurrency: None,
        kv_cache_dtype,
        spec_acceptance: None,
        notes: Some(notes.join(" ")),
        // llama-bench times the engine itself, no stream: there is nothing to deliver.
        delivery: None,
        engine_view: None,
        quality: None,
        power_w: None,
        joules_per_token: None,
        forced: Vec::new(),
        source: Some(format!("llama-bench {build} {}: {}", row.format, row.file)),
        spec_acceptance_length: None,
        spec_acceptance_over: None,
        spec_acceptance_per_position: Vec::new(),
        workload: None,
        method: None,
        provenance: None,
    };
    Ok((record, warnings))
}

/// The row's settings on top of the profile where they differ from it, for a context of
/// `context` tokens, and the KV-cache types it ran with.
fn row_overrides(
    row: &Row,
    base: &Effective,
    context: u64,
    backends: Option<&str>,
) -> (Vec<Setting>, Option<String>) {
    let mut overrides = Vec::new();
    let mut set = |key: &str, value: String| {
        if base.get(key) != Some(value.as_str()) {
            overrides.push(Setting {
                key: key.to_owned(),
                value,
                origin: Origin::Override,
            });
        }
    };
    set("MAX_MODEL_LEN", context.to_string());
    for (field, key, _) in SETTINGS {
        if let Some(value) = row.text(field) {
            set(key, value);
        }
    }
    let (type_k, type_v) = (row.text("type_k"), row.text("type_v"));
    let kv_cache_dtype = match (&type_k, &type_v) {
        (Some(k), Some(v)) if k == v => Some(k.clone()),
        (Some(k), Some(v)) => Some(format!("K {k} / V {v}")),
        _ => None,
    };
    if let Some(dtype) = &kv_cache_dtype {
        set("KV_CACHE_DTYPE", dtype.clone());
    }
    // llama-bench loads no vision projector and drafts nothing; CUDA graphs are the CUDA
    // backend's, on by default there.
    set("LANGUAGE_MODEL_ONLY", "1".to_owned());
    if base.switch("SPEC_DECODE") {
        set("SPEC_DECODE", "0".to_owned());
    }
    let cuda = backends.is_some_and(|b| b.contains("CUDA"));
    if !cuda || base.switch("ENFORCE_EAGER") {
        set("ENFORCE_EAGER", if cuda { "0" } else { "1" }.to_owned());
    }
    (overrides, kv_cache_dtype)
}

/// The model's shape (given, or the row's architecture, size and parameters) and the
/// weights' type.
fn shape_and_precision(row: &Row, options: &LlamaBenchOptions) -> (String, String) {
    let model_type = row.text("model_type").unwrap_or_default();
    let mut words = model_type.splitn(3, ' ');
    let (arch, size, ftype) = (words.next(), words.next(), words.next());
    let params = row
        .int("model_n_params")
        .map(|n| format!(" ({} parameters)", crate::format::count(n.max(0) as u64)));
    let shape = options.shape.clone().unwrap_or_else(|| {
        format!(
            "{}{}",
            [arch, size]
                .into_iter()
                .flatten()
                .collect::<Vec<_>>()
                .join(" "),
            params.unwrap_or_default()
        )
    });
    let precision = ftype.unwrap_or("not recorded").to_owned();
    (shape, precision)
}

/// How llama-bench measured the row: where, which test, how many repetitions and how the
/// figure is made of them; a warning when the CSV kept only their mean.
fn measured_note(
    row: &Row,
    repetitions: usize,
    sampled: bool,
    warnings: &mut Vec<String>,
) -> String {
    let gpu = row.text("gpu_info").filter(|g| !g.is_empty());
    let cpu = row.text("cpu_info").filter(|c| !c.is_empty());
    let on = match (&gpu, &cpu) {
        (Some(gpu), Some(cpu)) => format!(" on {gpu} (CPU {cpu})"),
        (Some(gpu), None) => format!(" on {gpu}"),
        (None, Some(cpu)) => format!(" on the CPU, {cpu}"),
        (None, None) => String::new(),
    };
    let mean = row
        .float("avg_ts")
        .map(|mean| {
            let sd = row
                .float("stddev_ts")
                .map_or(String::new(), |sd| format!(" ± {}", stats::round(sd, 1)));
            format!(
                "; llama-bench's own figure is their mean, {}{sd} tok/s",
                stats::round(mean, 1)
            )
        })
        .unwrap_or_default();
    if sampled {
        format!(
            "Measured by llama-bench{on}: test {}, {} repetitions after its warm-up, the figure their median{mean}.",
            row.test(),
            repetitions
        )
    } else {
        warnings.push(format!(
            "{}: the CSV has no samples, only llama-bench's mean: -o json keeps every repetition",
            row.at
        ));
        format!(
            "Measured by llama-bench{on}: test {}; its CSV gives only the mean of the repetitions, recorded as the one sample (-o json keeps each).",
            row.test()
        )
    }
}

/// A `pp` test's prompt speed (the median of its repetitions) and its prompt length.
fn prompt_speed(p: &Row) -> Result<(f64, u64), CollectError> {
    let tokens = p.tokens("n_prompt")?;
    let (speeds, _) = p.samples(tokens)?;
    let speed = stats::median(&speeds).expect("a row has a sample");
    Ok((stats::round(speed, 1), tokens))
}

/// Which `pp` test the prompt speed is from, and the others measured beside it.
fn prompt_note(prompts: &[&Row]) -> Option<String> {
    let p = prompts.last()?;
    let others: Vec<String> = prompts[..prompts.len() - 1]
        .iter()
        .map(|o| {
            let tokens = o.int("n_prompt").unwrap_or(0).max(0) as u64;
            let speed = o
                .samples(tokens)
                .ok()
                .and_then(|(s, _)| stats::median(&s))
                .map_or("?".into(), |v| stats::round(v, 1).to_string());
            format!("{} {speed} tok/s", o.test())
        })
        .collect();
    Some(format!(
        "Prompt speed from {}{}.",
        p.test(),
        if others.is_empty() {
            String::new()
        } else {
            format!(" (also measured: {})", others.join(", "))
        }
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_size_is_given_in_gib() {
        // 16 × 2³⁰ bytes is 16 GiB (17.18 GB); 4,985,088 bytes is 0.00464 GiB.
        assert_eq!(gib(17_179_869_184), 16.0);
        assert_eq!(gib(4_985_088), 0.005);
        assert_eq!(gib(-1), 0.0);
    }

    #[test]
    fn a_model_file_is_its_repository_or_its_name() {
        assert!(same_model("tiny.gguf", "tiny"));
        assert!(same_model(
            "/models/Qwen3-8B-Q4_K_M.gguf",
            "Qwen/Qwen3-8B-GGUF"
        ));
        assert!(!same_model("tiny.gguf", "nvidia/Qwen3.6-35B-A3B-NVFP4"));
        assert!(!same_model("", "tiny"));
    }
}

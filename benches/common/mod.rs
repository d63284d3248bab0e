//! Generated projects for the benchmarks: the seed, and the seed's records repeated.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use benchsite::data::{self, Date, Id, Results};

pub fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

pub fn seed() -> Results {
    data::load(&repo().join("data/results.json")).unwrap()
}

/// `date`, `days` later.
pub fn later(date: &Date, days: usize) -> Date {
    let text = date.as_str();
    let part = |range: std::ops::Range<usize>| text[range].parse::<u16>().unwrap();
    let day = time::Date::from_calendar_date(
        i32::from(part(0..4)),
        time::Month::try_from(part(5..7) as u8).unwrap(),
        part(8..10) as u8,
    )
    .unwrap()
        + time::Duration::days(days as i64);
    Date::new(&format!(
        "{:04}-{:02}-{:02}",
        day.year(),
        u8::from(day.month()),
        day.day()
    ))
    .unwrap()
}

/// The seed with every record repeated `times` times, copy n measured n days after the seed,
/// as nightly campaigns would; the first copy keeps its ids, so the shipped narratives still
/// find their records.
pub fn scaled(seed: &Results, times: usize) -> Results {
    let mut doc = seed.clone();
    doc.runs.clear();
    doc.failures.clear();
    doc.sweeps.clear();
    doc.jitter.clear();
    doc.divergence.clear();
    let suffix = |n: usize, sep: &str| {
        if n == 0 {
            String::new()
        } else {
            format!("{sep}x{n}")
        }
    };
    for n in 0..times {
        for run in &seed.runs {
            let mut run = run.clone();
            run.id = Id::new(&format!("{}{}", run.id, suffix(n, "-"))).unwrap();
            run.generated = later(&run.generated, n);
            doc.runs.push(run);
        }
        for failure in &seed.failures {
            let mut failure = failure.clone();
            failure.id = Id::new(&format!("{}{}", failure.id, suffix(n, "-"))).unwrap();
            doc.failures.push(failure);
        }
        for sweep in &seed.sweeps {
            let mut sweep = sweep.clone();
            sweep.label = format!("{}{}", sweep.label, suffix(n, " "));
            sweep.generated = later(&sweep.generated, n);
            doc.sweeps.push(sweep);
        }
        for jitter in &seed.jitter {
            let mut jitter = jitter.clone();
            jitter.label = format!("{}{}", jitter.label, suffix(n, " "));
            jitter.generated = later(&jitter.generated, n);
            doc.jitter.push(jitter);
        }
        for divergence in &seed.divergence {
            let mut divergence = divergence.clone();
            divergence.label = format!("{}{}", divergence.label, suffix(n, " "));
            divergence.generated = later(&divergence.generated, n);
            doc.divergence.push(divergence);
        }
    }
    doc
}

/// `models × per_model` distinct configurations, each measured once: per model, runs of the
/// seed's (those without `MAX_NUM_SEQS` or `EXTRA_ARGS` overrides) each with its own
/// `MAX_NUM_SEQS`, and sweeps of the seed's each with its own `variant` dimension, seven
/// runs to three sweeps; the models are the seed's, numbered. No record is measured twice,
/// so nothing has a history: the shape of a report that explores instead of repeating. The
/// seed's records come first.
pub fn distinct(seed: &Results, models: usize, per_model: usize) -> Results {
    // The seed's own records stay, so the shipped narratives still find theirs.
    let mut doc = seed.clone();
    let runs: Vec<&data::Run> = seed
        .runs
        .iter()
        .filter(|r| !r.overrides.contains("MAX_NUM_SEQS") && !r.overrides.contains("EXTRA_ARGS"))
        .collect();
    for m in 0..models {
        for k in 0..per_model {
            if k % 10 < 7 {
                let mut run = runs[(m + k) % runs.len()].clone();
                run.id = Id::new(&format!("{}-m{m}-c{k}", run.id)).unwrap();
                run.model = format!("{} no. {m}", run.model);
                let seqs = format!("MAX_NUM_SEQS={}", k + 1);
                run.overrides = if run.overrides.is_empty() {
                    seqs
                } else {
                    format!("{} {seqs}", run.overrides)
                };
                run.quality = None;
                run.generated = later(&run.generated, k);
                doc.runs.push(run);
            } else {
                let mut sweep = seed.sweeps[(m + k) % seed.sweeps.len()].clone();
                sweep.label = format!("{} m{m} c{k}", sweep.label);
                sweep.model = format!("{} no. {m}", sweep.model);
                sweep.dimensions.insert("model".into(), sweep.model.clone());
                sweep.dimensions.insert("variant".into(), k.to_string());
                sweep.generated = later(&sweep.generated, k);
                doc.sweeps.push(sweep);
            }
        }
    }
    doc
}

/// A project in `target/bench-projects/NAME` with the shipped settings, profiles, content and
/// templates and `doc` as its results; left there so the command can be timed on it too.
pub fn project_with(name: &str, doc: &Results) -> PathBuf {
    let root = repo().join("target/bench-projects").join(name);
    let _ = std::fs::remove_dir_all(&root);
    for folder in ["profiles", "content", "templates"] {
        copy_dir(&repo().join(folder), &root.join(folder));
    }
    std::fs::create_dir_all(root.join("data")).unwrap();
    std::fs::copy(repo().join("benchsite.toml"), root.join("benchsite.toml")).unwrap();
    std::fs::write(root.join("data/results.json"), data::to_json(doc)).unwrap();
    root
}

fn copy_dir(from: &Path, to: &Path) {
    for entry in walkdir::WalkDir::new(from) {
        let entry = entry.unwrap();
        let target = to.join(entry.path().strip_prefix(from).unwrap());
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// The seed as if measured on another machine: every id and label with `suffix` (so the
/// keys stay unique across the project), the GPU `gpu`, and every decode speed and sweep
/// throughput times `speed` (a power of two, so the figures stay exact).
pub fn other_machine(seed: &Results, suffix: &str, gpu: &str, speed: f64) -> Results {
    let mut doc = seed.clone();
    doc.hardware.gpu = Some(gpu.to_owned());
    let id = |id: &Id| Id::new(&format!("{id}-{suffix}")).unwrap();
    let label = |label: &str| format!("{label} {suffix}");
    for run in &mut doc.runs {
        run.id = id(&run.id);
        run.decode_tok_s *= speed;
        if let Some(cold) = &mut run.decode_cold_sample {
            *cold *= speed;
        }
        for sample in &mut run.decode_samples {
            *sample *= speed;
        }
        if let Some(quality) = &mut run.quality {
            let comparison = seed
                .divergence
                .iter()
                .find(|d| d.label == quality.comparison || d.slug() == quality.comparison)
                .unwrap();
            quality.comparison = label(&comparison.label);
        }
    }
    for failure in &mut doc.failures {
        failure.id = id(&failure.id);
    }
    for sweep in &mut doc.sweeps {
        sweep.label = label(&sweep.label);
        for level in &mut sweep.levels {
            level.total_tok_s = level.total_tok_s.map(|t| t * speed);
            level.decode_tok_s_per_stream = level.decode_tok_s_per_stream.map(|t| t * speed);
        }
    }
    for jitter in &mut doc.jitter {
        jitter.label = label(&jitter.label);
    }
    for divergence in &mut doc.divergence {
        divergence.label = label(&divergence.label);
    }
    doc
}

/// The machines of [`three_machines`]: slug, document, GPU and speed against the seed.
pub const MACHINES: [(&str, &str, &str, f64); 3] = [
    (
        "rtx-4090",
        "data/rtx-4090.json",
        "NVIDIA GeForce RTX 4090",
        0.5,
    ),
    ("rtx-5090", "data/rtx-5090.json", "", 1.0),
    (
        "rtx-5090-next",
        "data/rtx-5090-next.json",
        "NVIDIA GeForce RTX 5090",
        2.0,
    ),
];

/// A three-machine project at `root`: the seed as `rtx-5090`, and two altered copies
/// ([`other_machine`]) as `rtx-4090` (half the speed) and `rtx-5090-next` (twice), each
/// declared in `benchsite.toml` with its document.
pub fn three_machines(root: &Path, seed: &Results) {
    let _ = std::fs::remove_dir_all(root);
    for folder in ["profiles", "content", "templates"] {
        copy_dir(&repo().join(folder), &root.join(folder));
    }
    std::fs::create_dir_all(root.join("data")).unwrap();
    let mut config = std::fs::read_to_string(repo().join("benchsite.toml")).unwrap();
    for (slug, file, gpu, speed) in MACHINES {
        let doc = if speed == 1.0 {
            seed.clone()
        } else {
            other_machine(seed, slug.trim_start_matches("rtx-"), gpu, speed)
        };
        std::fs::write(root.join(file), data::to_json(&doc)).unwrap();
        config.push_str(&format!("\n[machines.{slug}]\ndata = \"{file}\"\n"));
    }
    config.push_str("title = \"The next vLLM on the 5090\"\n");
    std::fs::write(root.join("benchsite.toml"), config).unwrap();
}

/// A fleet of `machines` machines at `root`, each the seed repeated `times` times
/// ([`scaled`], a night apart) and then altered as [`other_machine`] (its own ids, the
/// seed's speed), each declared in `benchsite.toml` with its own document
/// `data/node-NN.json`: how a report of more records than one document should hold splits
/// its data, a document per machine.
pub fn fleet(root: &Path, seed: &Results, machines: usize, times: usize) {
    let _ = std::fs::remove_dir_all(root);
    for folder in ["profiles", "content", "templates"] {
        copy_dir(&repo().join(folder), &root.join(folder));
    }
    std::fs::create_dir_all(root.join("data")).unwrap();
    let mut config = std::fs::read_to_string(repo().join("benchsite.toml")).unwrap();
    let nightly = scaled(seed, times);
    for m in 1..=machines {
        let slug = format!("node-{m:02}");
        // The first machine keeps the seed's ids, so the shipped narratives find theirs.
        let doc = if m == 1 {
            nightly.clone()
        } else {
            other_machine(
                &nightly,
                &format!("n{m:02}"),
                "NVIDIA GeForce RTX 5090",
                1.0,
            )
        };
        let file = format!("data/{slug}.json");
        std::fs::write(root.join(&file), data::to_json(&doc)).unwrap();
        config.push_str(&format!("\n[machines.{slug}]\ndata = \"{file}\"\n"));
    }
    std::fs::write(root.join("benchsite.toml"), config).unwrap();
}

/// A Hugo site of `pages` pages in `target/bench-projects/NAME`, the shape of the static-site
/// generator comparisons the growth bench measures benchsite beside: each page a title, 150
/// words, 3 headings, a 15 × 8 table and 3 links to other pages, under a layout with no theme.
pub fn hugo_site(name: &str, pages: usize) -> PathBuf {
    let root = repo().join("target/bench-projects").join(name);
    let _ = std::fs::remove_dir_all(&root);
    let content = root.join("content/p");
    let layouts = root.join("layouts/_default");
    std::fs::create_dir_all(&content).unwrap();
    std::fs::create_dir_all(&layouts).unwrap();
    std::fs::write(
        root.join("config.toml"),
        "baseURL = \"/\"\ntitle = \"bench\"\ndisableKinds = [\"taxonomy\", \"term\"]\n",
    )
    .unwrap();
    let frame = |body: &str| {
        format!(
            "<!doctype html>\n<html lang=\"en\">\n<head><meta charset=\"utf-8\"><title>{{{{ .Title }}}}</title></head>\n<body>\n<h1>{{{{ .Title }}}}</h1>\n{body}\n</body>\n</html>\n"
        )
    };
    std::fs::write(layouts.join("single.html"), frame("{{ .Content }}")).unwrap();
    std::fs::write(
        layouts.join("list.html"),
        frame("<ul>{{ range .Pages }}<li><a href=\"{{ .RelPermalink }}\">{{ .Title }}</a></li>{{ end }}</ul>"),
    )
    .unwrap();
    let words = |n: usize, seed: usize| {
        const WORDS: [&str; 12] = [
            "decode",
            "throughput",
            "latency",
            "server",
            "tokens",
            "prompt",
            "batch",
            "cache",
            "measured",
            "level",
            "request",
            "stream",
        ];
        (0..n)
            .map(|i| WORDS[(i * 7 + seed) % WORDS.len()])
            .collect::<Vec<_>>()
            .join(" ")
    };
    for n in 0..pages {
        let mut page = format!("+++\ntitle = \"Page {n}\"\n+++\n\n{}\n\n", words(50, n));
        page.push_str(&format!(
            "## What was measured\n\n{} [the next page](/p/{}/), [the previous](/p/{}/) and [the first](/p/0/).\n\n",
            words(50, n + 1),
            (n + 1) % pages,
            (n + pages - 1) % pages
        ));
        page.push_str("## The figures\n\n| a | b | c | d | e | f | g | h |\n|---|---|---|---|---|---|---|---|\n");
        for row in 0..15 {
            let cells: Vec<String> = (0..8).map(|c| format!("{}.{}", n + row, c)).collect();
            page.push_str(&format!("| {} |\n", cells.join(" | ")));
        }
        page.push_str(&format!("\n## What it means\n\n{}\n", words(50, n + 2)));
        std::fs::write(content.join(format!("{n}.md")), page).unwrap();
    }
    root
}

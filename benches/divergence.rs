//! `collect divergence` at full size: two captures of 96 prompts × 256 positions × top-20,
//! read from their gzip files, both blocks computed, the bootstrap's 1000 resamples included.
//! Each position's top-20 holds 95% of a normalised distribution; b shares 15 of a's ids, so
//! the tail path runs. Also the capture file size per prompt.
//!
//! `cargo bench --bench divergence`

use std::io::Write;
use std::time::Instant;

use benchsite::collect::{self, Captured, Header, Scored};
use benchsite::data::CaptureSettings;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

const PROMPTS: usize = 96;
const POSITIONS: usize = 256;
const TOP_K: usize = 20;
const VOCAB: u32 = 32_000;

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let captures = dir.path().join("data/captures");
    std::fs::create_dir_all(&captures).unwrap();
    std::fs::copy("benchsite.toml", dir.path().join("benchsite.toml")).unwrap();
    let mut rng = fastrand::Rng::with_seed(1);
    let continuations: Vec<Vec<u32>> = (0..PROMPTS)
        .map(|_| (0..POSITIONS).map(|_| rng.u32(..VOCAB)).collect())
        .collect();
    for (id, noise) in [("a", 0.0), ("b", 0.05)] {
        let header = Header {
            capture: id.into(),
            server: "http://127.0.0.1:8000".into(),
            model: "m".into(),
            vllm_version: Some("0.28.0".into()),
            settings: CaptureSettings {
                max_tokens: POSITIONS as u64,
                top_k: TOP_K as u64,
                thinking: false,
                temperature: 0.0,
                seed: 0,
                concurrency: 4,
            },
            reference: (id == "b").then(|| "a".into()),
            prompt_set: "data/prompts.jsonl".into(),
            prompt_set_sha256: "0".repeat(64),
            profile: None,
            started_with: Vec::new(),
        };
        let mut rng = fastrand::Rng::with_seed(2);
        let mut noisy = fastrand::Rng::with_seed(3);
        let file = std::fs::File::create(captures.join(format!("{id}.jsonl.gz"))).unwrap();
        let mut gz = flate2::write::GzEncoder::new(file, flate2::Compression::default());
        writeln!(gz, "{}", serde_json::to_string(&header).unwrap()).unwrap();
        for (index, tokens) in continuations.iter().enumerate() {
            let mut scored = Scored::default();
            for &token in tokens {
                // A peaked distribution: 95% of the mass on the top-20 (normalised log-softmax
                // of its logits), the rest in the tail. b's logprobs are jittered, and its
                // last five ranks are other tokens, so the shared support is partial and the
                // tail terms are computed.
                let logits: Vec<f64> = (0..TOP_K)
                    .map(|rank| -(rank as f64) * 0.45 + (noisy.f64() - 0.5) * noise)
                    .collect();
                let total = logits.iter().map(|l| l.exp()).sum::<f64>().ln();
                let mut top: Vec<(u32, f32)> = logits
                    .iter()
                    .enumerate()
                    .map(|(rank, logit)| {
                        let shared = rng.u32(..VOCAB);
                        let token_id = match rank {
                            0 => token,
                            15.. if id == "b" => noisy.u32(..VOCAB),
                            _ => shared,
                        };
                        (token_id, (logit - total + 0.95f64.ln()) as f32)
                    })
                    .collect();
                top.dedup_by_key(|(id, _)| *id);
                scored.tokens.push(token);
                scored.logprobs.push(top[0].1);
                scored.top.push(top);
            }
            let prompt = Captured {
                id: format!("p{index:02}"),
                category: format!("c{}", index % 11),
                prompt_ids: vec![1, 2, 3],
                generated: scored.clone(),
                scored,
            };
            writeln!(gz, "{}", serde_json::to_string(&prompt).unwrap()).unwrap();
        }
        gz.finish().unwrap();
    }
    let size = std::fs::metadata(captures.join("b.jsonl.gz"))
        .unwrap()
        .len();
    let options = collect::DivergenceOptions {
        label: "bench".into(),
        id: None,
        a: "a".into(),
        b: "b".into(),
        dimensions: Vec::new(),
        notes: None,
        today: benchsite::data::Date::today(),
    };
    let median = |mut times: Vec<f64>| {
        times.sort_by(f64::total_cmp);
        (times[times.len() / 2], times[0], times[times.len() - 1])
    };
    let layout = benchsite::project::Layout::new(dir.path());
    let (a, b) = (
        collect::load_capture(&layout, "a").unwrap(),
        collect::load_capture(&layout, "b").unwrap(),
    );
    let mut kld = 0.0;
    let computed: Vec<f64> = (0..21)
        .map(|_| {
            let started = Instant::now();
            let record = collect::compare_captures(&a, &b, &options).unwrap();
            kld = record.teacher_forced.kld_mean;
            started.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    let whole: Vec<f64> = (0..11)
        .map(|_| {
            let started = Instant::now();
            collect::divergence(dir.path(), &options).unwrap();
            started.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    let (m, lo, hi) = median(computed);
    println!(
        "divergence of {PROMPTS} prompts × {POSITIONS} positions × top-{TOP_K}, both blocks and the 1000-resample bootstrap: median {m:.1} ms (min {lo:.1}, max {hi:.1}); kld_mean {kld:.6}"
    );
    let (m, lo, hi) = median(whole);
    println!(
        "the same with both gzip captures read and parsed (`collect divergence`): median {m:.1} ms (min {lo:.1}, max {hi:.1})"
    );
    println!(
        "capture file: {:.1} MiB, {:.1} KiB per prompt ({POSITIONS} generated and {POSITIONS} scored positions of top-{TOP_K})",
        size as f64 / 1024.0 / 1024.0,
        size as f64 / 1024.0 / PROMPTS as f64
    );
}

//! Quality captures, divergence and jitter against the fake server's deterministic next-token
//! distributions: the statistics equal the ones this test computes on its own from the same
//! distributions, identical configurations give zero, and the refusals say why.

mod support;

#[path = "support/fake_vllm.rs"]
mod fake_vllm;

use benchsite::data;
use fake_vllm::{FakeVllm, Script, distribution, tokenize_messages, top};
use support::{Output, Project};

const TOP_K: usize = 5;
const TOKENS: usize = 12;

const PROMPTS: &[(&str, &str, &str)] = &[
    ("math-01", "math", "What is seven times eight and why"),
    (
        "math-02",
        "math",
        "Prove that the sum of two even numbers is even",
    ),
    (
        "code-01",
        "code-py",
        "Write a function that reverses a list in place",
    ),
    (
        "code-02",
        "code-py",
        "Explain what a generator is in Python",
    ),
    (
        "prose-01",
        "writing",
        "Describe a quiet harbour at dawn in three sentences",
    ),
];

fn project() -> Project {
    let project = Project::copy_of_repo();
    let lines: Vec<String> = PROMPTS
        .iter()
        .map(|(id, category, text)| {
            serde_json::json!({"id": id, "category": category, "messages": [{"role": "user", "content": text}]})
                .to_string()
        })
        .collect();
    project.write("data/small.jsonl", &(lines.join("\n") + "\n"));
    project
}

fn capture(project: &Project, server: &FakeVllm, id: &str, extra: &[&str]) -> Output {
    let top_k = TOP_K.to_string();
    let tokens = TOKENS.to_string();
    let url = server.url();
    let mut args = vec![
        "collect",
        "capture",
        "--id",
        id,
        "--prompts",
        "data/small.jsonl",
        "--top-k",
        &top_k,
        "--max-tokens",
        &tokens,
        "--concurrency",
        "3",
        "--base-url",
        &url,
    ];
    args.extend_from_slice(extra);
    project.run(&args)
}

/// KL(A‖B) on the shared top-k support plus one tail bucket per side, computed here from the
/// full distributions, independently of the program's code.
fn expected_kl(p: &[f64], q: &[f64], reference: u32) -> f64 {
    let mut set_a: Vec<u32> = top(p, TOP_K).into_iter().map(|(t, _)| t).collect();
    let mut set_b: Vec<u32> = top(q, TOP_K).into_iter().map(|(t, _)| t).collect();
    set_a.push(reference);
    set_b.push(reference);
    let shared: Vec<u32> = set_a
        .iter()
        .copied()
        .filter(|t| set_b.contains(t))
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    let (mut kl, mut mass_a, mut mass_b) = (0.0, 0.0, 0.0);
    for t in shared {
        let (a, b) = (p[t as usize].exp(), q[t as usize].exp());
        kl += a * (a / b).ln();
        mass_a += a;
        mass_b += b;
    }
    let (tail_a, tail_b) = ((1.0f64 - mass_a).max(0.0), (1.0f64 - mass_b).max(0.0));
    if tail_a > 0.0 {
        kl += tail_a * (tail_a / tail_b).ln();
    }
    kl.max(0.0)
}

/// The greedy continuation of the reference model after `prompt`.
fn greedy(prompt: &[u32]) -> Vec<u32> {
    let mut context = prompt.to_vec();
    let mut out = Vec::new();
    for _ in 0..TOKENS {
        let next = top(&distribution(&context, 0.0), 1)[0].0;
        out.push(next);
        context.push(next);
    }
    out
}

#[test]
fn divergence_matches_an_independent_computation_and_identical_servers_give_zero() {
    let reference = FakeVllm::start(Script::default());
    let perturbed = FakeVllm::start(Script {
        perturbation: 0.8,
        ..Script::default()
    });
    let project = project();
    // Each capture says which configuration the server runs: the reference's twice (a noise
    // floor, which the divergence marks with no flag), the perturbed one with a setting more.
    let profile = ["--profile", "qwen3.8-27b"];
    for (server, id, extra) in [
        (&reference, "ref", profile.to_vec()),
        (
            &reference,
            "ref-again",
            [&profile[..], &["--reference", "ref"]].concat(),
        ),
        (
            &perturbed,
            "perturbed",
            [
                &profile[..],
                &["--reference", "ref", "--set", "MAX_NUM_SEQS=4"],
            ]
            .concat(),
        ),
    ] {
        let output = capture(&project, server, id, &extra);
        assert!(output.status.success(), "{id}: {}", output.stderr);
        assert!(
            project
                .root
                .path()
                .join(format!("data/captures/{id}.jsonl.gz"))
                .exists()
        );
    }
    let output = project.run(&[
        "collect",
        "divergence",
        "--a",
        "ref",
        "--b",
        "ref-again",
        "--label",
        "same server",
    ]);
    output.assert_success();
    let output = project.run(&[
        "collect",
        "divergence",
        "--a",
        "ref",
        "--b",
        "perturbed",
        "--label",
        "perturbed",
        "--dim",
        "knob=0.8",
    ]);
    output.assert_success();
    let doc = project.results();

    let same = doc
        .divergence
        .iter()
        .find(|d| d.label == "same server")
        .unwrap();
    assert_eq!(same.teacher_forced.kld_mean, 0.0);
    assert_eq!(same.teacher_forced.top1_agree, 1.0);
    assert!(same.is_floor(), "{:?}", same.dimensions);
    assert!(
        !doc.divergence
            .iter()
            .find(|d| d.label == "perturbed")
            .unwrap()
            .is_floor()
    );
    assert_eq!(same.generation.identical, PROMPTS.len() as u64);
    assert_eq!(same.generation.first_divergence_p50, None);

    let d = doc
        .divergence
        .iter()
        .find(|d| d.label == "perturbed")
        .unwrap();
    let (mut kls, mut agree, mut nll_a, mut nll_b) = (Vec::new(), 0, 0.0, 0.0);
    let mut per_prompt = Vec::new();
    for (id, _, text) in PROMPTS {
        let before = kls.len();
        let prompt = tokenize_messages(
            &[serde_json::json!({"role": "user", "content": text})],
            false,
        );
        let continuation = greedy(&prompt);
        let mut context = prompt.clone();
        for &token in &continuation {
            let (p, q) = (distribution(&context, 0.0), distribution(&context, 0.8));
            kls.push(expected_kl(&p, &q, token));
            agree += usize::from(top(&p, 1)[0].0 == top(&q, 1)[0].0);
            nll_a -= p[token as usize];
            nll_b -= q[token as usize];
            context.push(token);
        }
        per_prompt.push((*id, kls[before..].iter().sum::<f64>(), kls.len() - before));
    }
    let n = kls.len() as f64;
    let tf = &d.teacher_forced;
    assert_eq!(tf.positions, (PROMPTS.len() * TOKENS) as u64);
    let mean = kls.iter().sum::<f64>() / n;
    assert!(mean > 0.01, "the perturbation shows: {mean}");
    // Captures keep logprobs in float32, as servers compute them: agreement to about 1e-6.
    assert!(
        (tf.kld_mean - mean).abs() < 1e-6 * mean.max(1.0),
        "{} vs {mean}",
        tf.kld_mean
    );
    assert!((tf.top1_agree - agree as f64 / n).abs() < 1e-12);
    assert!((tf.ppl_a / (nll_a / n).exp() - 1.0).abs() < 1e-6);
    assert!((tf.ppl_b / (nll_b / n).exp() - 1.0).abs() < 1e-6);
    let max = kls.iter().copied().fold(0.0, f64::max);
    assert!((tf.kld_max - max).abs() < 1e-6 * max.max(1.0));
    assert_eq!(tf.per_category["math"].positions, (2 * TOKENS) as u64);
    assert!(tf.kld_mean_ci95[0] <= tf.kld_mean && tf.kld_mean <= tf.kld_mean_ci95[1]);
    // Each prompt's KL sum and positions are kept for a paired bootstrap, by prompt id.
    assert_eq!(tf.per_prompt.len(), PROMPTS.len());
    for (id, sum, positions) in per_prompt {
        let kept = &tf.per_prompt[id];
        assert_eq!(kept.positions, positions as u64, "{id}");
        assert!(
            (kept.kl_sum - sum).abs() < 1e-6 * sum.max(1.0),
            "{id}: {} vs {sum}",
            kept.kl_sum
        );
    }
    assert_eq!(d.a.as_str(), "ref");
    assert_eq!(d.settings.top_k, TOP_K as u64);
    // The site shows it, and the project stays valid.
    let built = project.run(&["build"]);
    built.assert_success();
    assert!(project.page("quality/index.html").contains("perturbed"));
}

#[test]
fn an_interrupted_capture_resumes_where_it_stopped() {
    let server = FakeVllm::start(Script::default());
    let project = project();
    assert!(capture(&project, &server, "ref", &[]).status.success());
    let captures = project.root.path().join("data/captures");
    let whole = std::fs::read(captures.join("ref.jsonl.gz")).unwrap();
    let text = {
        use std::io::Read;
        let mut text = String::new();
        flate2::read::GzDecoder::new(&whole[..])
            .read_to_string(&mut text)
            .unwrap();
        text
    };
    // As if stopped after two prompts, the third cut mid-line.
    let lines: Vec<&str> = text.lines().collect();
    let partial = format!(
        "{}\n{}\n{}\n{}",
        lines[0],
        lines[1],
        lines[2],
        &lines[3][..40]
    );
    std::fs::write(captures.join("ref.jsonl.partial"), partial).unwrap();
    std::fs::remove_file(captures.join("ref.jsonl.gz")).unwrap();
    let output = capture(&project, &server, "ref", &[]);
    output.assert_success();
    assert!(
        output.stdout.contains("captured 3 prompts"),
        "{}",
        output.stdout
    );
    let again = std::fs::read(captures.join("ref.jsonl.gz")).unwrap();
    let mut text_again = String::new();
    use std::io::Read;
    flate2::read::GzDecoder::new(&again[..])
        .read_to_string(&mut text_again)
        .unwrap();
    assert_eq!(text_again, text, "the same capture as in one go");
    assert!(!captures.join("ref.jsonl.partial").exists());
}

#[test]
fn refusals_say_why() {
    let server = FakeVllm::start(Script::default());
    let project = project();
    assert!(capture(&project, &server, "ref", &[]).status.success());

    let url = server.url();
    let output = project.run(&[
        "collect",
        "capture",
        "--id",
        "too-many",
        "--prompts",
        "data/small.jsonl",
        "--top-k",
        "30",
        "--base-url",
        &url,
    ]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        output.stderr.contains("greater than max allowed: 20")
            && output.stderr.contains("--max-logprobs"),
        "{}",
        output.stderr
    );

    let llama = FakeVllm::start(Script {
        no_prompt_logprobs: true,
        ..Script::default()
    });
    let output = capture(&project, &llama, "llama", &[]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        output.stderr.contains("teacher-forced scoring needs vLLM"),
        "{}",
        output.stderr
    );

    // Another prompt set.
    project.write("data/other.jsonl", "{\"id\": \"x\", \"category\": \"math\", \"messages\": [{\"role\": \"user\", \"content\": \"hi\"}]}\n");
    let url = server.url();
    let output = project.run(&[
        "collect",
        "capture",
        "--id",
        "other",
        "--prompts",
        "data/other.jsonl",
        "--reference",
        "ref",
        "--base-url",
        &url,
    ]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        output.stderr.contains("another prompt set"),
        "{}",
        output.stderr
    );

    // Different references.
    assert!(capture(&project, &server, "ref2", &[]).status.success());
    let output = project.run(&[
        "collect",
        "divergence",
        "--a",
        "ref",
        "--b",
        "ref2",
        "--label",
        "x",
    ]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        output.stderr.contains("different references"),
        "{}",
        output.stderr
    );
}

fn jitter_args<'a>(label: &'a str, url: &'a str, repeats: &'a str) -> Vec<&'a str> {
    vec![
        "collect",
        "jitter",
        "--label",
        label,
        "--prompts",
        "3",
        "--repeats",
        repeats,
        "--max-tokens",
        "12",
        "--top-k",
        "5",
        "--prompt-set",
        "data/small.jsonl",
        "--base-url",
        url,
    ]
}

#[test]
fn jitter_of_a_deterministic_server_is_zero_over_the_counted_positions() {
    let server = FakeVllm::start(Script::default());
    let project = project();
    let url = server.url();
    project
        .run(&jitter_args("fake jitter", &url, "4"))
        .assert_success();
    let doc = project.results();
    let jitter = doc
        .jitter
        .iter()
        .find(|j| j.label == "fake jitter")
        .unwrap();
    assert_eq!(jitter.positions, 3 * 3 * 12);
    assert_eq!(
        (jitter.kld_mean, jitter.kld_max, jitter.top1_flip_rate),
        (0.0, 0.0, 0.0)
    );
}

#[test]
fn jitter_of_a_noisy_server_is_the_noises_kl() {
    // Each prompt is scored twice; the second scoring to arrive is shifted by 0.3. Which of
    // the two is the first repeat depends on arrival, so each prompt contributes KL(p‖q) or
    // KL(q‖p), worked out here on the full distributions' top-5 plus tails.
    let server = FakeVllm::start(Script {
        jitter: 0.3,
        ..Script::default()
    });
    let project = project();
    let url = server.url();
    project
        .run(&jitter_args("noisy", &url, "2"))
        .assert_success();
    let doc = project.results();
    let jitter = doc.jitter.iter().find(|j| j.label == "noisy").unwrap();
    let (mut low, mut high, mut flips) = (0.0, 0.0, 0);
    for (_, _, text) in &PROMPTS[..3] {
        let prompt = tokenize_messages(
            &[serde_json::json!({"role": "user", "content": text})],
            false,
        );
        let mut context = prompt.clone();
        let (mut forward, mut backward) = (0.0, 0.0);
        for token in greedy(&prompt) {
            let (p, q) = (distribution(&context, 0.0), distribution(&context, 0.3));
            forward += expected_kl(&p, &q, token);
            backward += expected_kl(&q, &p, token);
            flips += usize::from(top(&p, 1)[0].0 != top(&q, 1)[0].0);
            context.push(token);
        }
        low += f64::min(forward, backward);
        high += f64::max(forward, backward);
    }
    let n = (3 * TOKENS) as f64;
    assert_eq!(jitter.positions, 3 * TOKENS as u64);
    let (low, high) = (low / n, high / n);
    assert!(low > 1e-3, "the noise shows: {low}");
    // float32 logprobs: agreement to about 1e-6.
    assert!(
        low - 1e-6 <= jitter.kld_mean && jitter.kld_mean <= high + 1e-6,
        "{} outside [{low}, {high}]",
        jitter.kld_mean
    );
    assert!((jitter.top1_flip_rate - flips as f64 / n).abs() < 1e-12);
}

#[test]
fn the_shipped_prompt_set_has_the_seeds_categories_in_its_proportions() {
    let set = benchsite::collect::prompt_set(support::repo(), "data/prompts.jsonl").unwrap();
    assert_eq!(set.prompts.len(), 96);
    let seed = data::load(&support::repo().join("data/results.json")).unwrap();
    // A seed comparison's teacher-forced positions per category over 256 tokens a prompt.
    let per_category = &seed.divergence[1].teacher_forced.per_category;
    for (category, stats) in per_category {
        let count = set
            .prompts
            .iter()
            .filter(|p| &p.category == category)
            .count();
        assert_eq!(count as u64, stats.positions / 256, "{category}");
    }
    assert!(
        set.prompts
            .iter()
            .all(|p| per_category.contains_key(&p.category))
    );
}

#[test]
fn check_reads_the_prompt_set_and_names_a_bad_line() {
    let project = Project::copy_of_repo();
    std::fs::copy(
        support::repo().join("data/prompts.jsonl"),
        project.root.path().join("data/prompts.jsonl"),
    )
    .unwrap();
    let output = project.run(&["check"]);
    output.assert_success();
    assert!(
        output
            .stdout
            .contains("data/prompts.jsonl: 96 prompts in 11 categories"),
        "{}",
        output.stdout
    );
    let mut text = std::fs::read_to_string(project.root.path().join("data/prompts.jsonl")).unwrap();
    text.push_str("{\"id\": \"math-01\", \"category\": \"math\", \"messages\": []}\n");
    std::fs::write(project.root.path().join("data/prompts.jsonl"), text).unwrap();
    let output = project.run(&["check"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        output
            .stderr
            .contains("data/prompts.jsonl:97: the id \"math-01\" is used twice"),
        "{}",
        output.stderr
    );
}

//! `benchsite collect` against a fake vLLM server whose timings and faults are scripted: the
//! measured figures are the scripted ones, faults are counted, and a launched server that does
//! not serve becomes the right failure record.

mod support;

#[path = "support/fake_vllm.rs"]
mod fake_vllm;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use benchsite::data::{self, FailureStatus, LevelStatus};
use fake_vllm::{FakeVllm, Script};
use support::{Output, Project, StaleProxy, TlsProxy, free_port, repo};

/// `collect run` of the fake profile (a dense 7B) against `server`, with `extra` arguments.
fn fake_run(project: &Project, server: &FakeVllm, id: &str, extra: &[&str]) -> Output {
    let url = server.url();
    let mut args = vec![
        "collect",
        "run",
        "--id",
        id,
        "--profile",
        "fake",
        "--base-url",
        &url,
    ];
    args.extend_from_slice(&["--shape", "Dense, 7B"]);
    args.extend_from_slice(extra);
    project.run(&args)
}

/// A profile serving the fake model on `port`.
fn fake_profile(project: &Project, port: u16, max_model_len: u64) {
    project.write(
        "profiles/fake.env",
        &format!(
            "IMAGE=example/vllm:test\nMODEL=example/Fake-Model-7B\nSERVED_MODEL_NAME=Fake-Model-7B\nPORT={port}\nMAX_MODEL_LEN={max_model_len}\nMAX_NUM_SEQS=4\nKV_CACHE_DTYPE=fp8\nENFORCE_EAGER=0\nLANGUAGE_MODEL_ONLY=1\nSPEC_DECODE=0\nSPEC_METHOD=mtp\nNUM_SPECULATIVE_TOKENS=3\n"
        ),
    );
}

/// Held by every test here: the timings asserted are within a few milliseconds, and tests
/// that start servers and binaries alongside would compete for a CI machine's two cores.
static TIMING: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn timed() -> std::sync::MutexGuard<'static, ()> {
    TIMING
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn within(measured: f64, expected: f64, tolerance: f64) -> bool {
    (measured - expected).abs() <= expected * tolerance
}

/// How much later than the server's the client may see one chunk compared with another of
/// the same answer, through two debug-built HTTP stacks while the other tests load both
/// cores: 25 ms. A run's last chunk has been seen 12.5 ms later than its first, relative to
/// the server's times (247.4 tok/s measured over a 1.196 s span sent at 249.98), and a
/// sweep's 2 ms earlier.
const CHUNK_SLACK: f64 = 0.025;

/// Holds `run`'s cold sample and samples to the rates its requests (the cold one first) were
/// really sent at: each within what [`CHUNK_SLACK`] lets the client see, give or take its
/// rounding to 0.1 tok/s. Against the script's rate a run is held only loosely, since a
/// loaded machine makes the server's timers late.
fn samples_as_sent(run: &data::Run, server: &FakeVllm) {
    let traces = server.traces();
    assert!(
        traces
            .iter()
            .map(|(number, _)| *number)
            .eq(1..=traces.len() as u64),
        "every request sent text"
    );
    assert_eq!(traces.len(), run.decode_samples.len() + 1);
    let cold = run.decode_cold_sample.expect("a cold sample");
    let measured = std::iter::once(cold).chain(run.decode_samples.iter().copied());
    for (sample, (_, trace)) in measured.zip(&traces) {
        let sent = trace.decode_rates_within(CHUNK_SLACK);
        assert!(
            (sent.start() - 0.05..=sent.end() + 0.05).contains(&sample),
            "{sample} vs {sent:?} sent"
        );
    }
}

fn check_is_clean(project: &Project) {
    let output = project.run_with(&["check"], &[]);
    output.assert_success();
}

#[test]
fn a_run_measures_the_scripted_decode_rate_and_the_kv_pool() {
    let _timed = timed();
    let script = Script {
        max_model_len: 65536,
        ..Script::default()
    };
    // By hand: 300 one-token chunks 4 ms apart; 299 tokens after the first in 299 × 4 ms.
    let expected = 250.0;
    let server = FakeVllm::start(script);
    let project = Project::copy_of_repo();
    fake_profile(&project, server.addr.port(), 65536);
    let output = fake_run(&project, &server, "fake-default", &["--precision", "BF16"]);
    output.assert_success();
    let doc = project.results();
    let run = doc
        .runs
        .iter()
        .find(|r| r.id.as_str() == "fake-default")
        .unwrap();
    assert_eq!(run.decode_samples.len(), 3);
    // The document is the data of the day it was written, as its pages' footer says: the
    // seed's 2026-09-07 no longer, today's date (that of the run, written today).
    assert_eq!(doc.generated, run.generated);
    assert!(doc.generated > data::Date::new("2026-09-07").unwrap());
    samples_as_sent(run, &server);
    assert_eq!(
        Some(run.decode_tok_s),
        benchsite::stats::median(&run.decode_samples)
    );
    assert!(
        within(run.decode_tok_s, expected, 0.03),
        "{} vs {expected}",
        run.decode_tok_s
    );
    assert_eq!(run.model, "Fake-Model-7B");
    assert_eq!(run.checkpoint, "example/Fake-Model-7B");
    assert_eq!(run.max_model_len, 65536);
    assert_eq!(run.kv_tokens, Some(131_072));
    assert_eq!(run.max_concurrency, Some(2.0));
    assert_eq!(run.kv_cache_dtype.as_deref(), Some("fp8"));
    assert_eq!(run.vllm_version.as_deref(), Some("0.28.0"));
    assert!(!run.vision && run.cuda_graphs && !run.spec_decode);
    assert_eq!(run.spec_acceptance, None);
    assert_eq!(server.requests(), 4, "one cold request and three samples");
    // Every sampling field is sent; no logprobs; thinking off; usage asked for.
    for body in server.bodies() {
        assert_eq!(body["temperature"], 0.0);
        for field in ["top_p", "top_k", "min_p", "repetition_penalty", "seed"] {
            assert!(!body[field].is_null(), "{field} missing: {body}");
        }
        assert_eq!(body["chat_template_kwargs"]["enable_thinking"], false);
        assert_eq!(body["stream_options"]["include_usage"], true);
        assert!(body.get("logprobs").is_none());
        assert_eq!(body["max_tokens"], 300);
        assert_eq!(
            body["messages"][0]["content"],
            doc.method.prompt.clone().unwrap()
        );
    }
    check_is_clean(&project);
    // Not launched, so no weights: the run's page says so instead of inventing a figure.
    assert_eq!(run.weights_gib, None);
    let built = project.run_with(&["build"], &[]);
    built.assert_success();
    let page = project.page("runs/fake-default/index.html");
    assert!(
        page.contains("<dt>Weights</dt><dd>not recorded</dd>"),
        "{page}"
    );
}

#[test]
fn chunks_of_several_tokens_and_the_acceptance_from_counter_deltas() {
    let _timed = timed();
    let script = Script {
        max_model_len: 65536,
        tokens_per_chunk: 3,
        chunk_interval: Duration::from_millis(9),
        spec: Some((200, 150)),
        // The cold request accepts far less: counted, it would pull the figure to
        // (20 + 3 × 150) / (200 + 3 × 200) = 0.5875.
        first_spec: Some((200, 20)),
        // 100 draft steps of 2 tokens per request; each sample accepts 90 at the first
        // position and 60 at the second (150 in all), the cold one 20 and 0.
        spec_steps: Some((100, vec![20, 0], vec![90, 60])),
        ..Script::default()
    };
    // By hand: 100 chunks of 3 tokens 9 ms apart; 299 tokens after the first in 99 × 9 ms.
    let expected = 299.0 / 0.891;
    let server = FakeVllm::start(script);
    let project = Project::copy_of_repo();
    fake_profile(&project, server.addr.port(), 65536);
    let output = fake_run(
        &project,
        &server,
        "fake-mtp",
        &[
            "--set",
            "SPEC_DECODE=1",
            "--precision",
            "BF16",
            "--acceptance-prompts",
            "0",
        ],
    );
    output.assert_success();
    let doc = project.results();
    let run = doc
        .runs
        .iter()
        .find(|r| r.id.as_str() == "fake-mtp")
        .unwrap();
    samples_as_sent(run, &server);
    assert!(
        within(run.decode_tok_s, expected, 0.03),
        "{} vs {expected}",
        run.decode_tok_s
    );
    assert_eq!(run.spec_acceptance, Some(0.75));
    // Over the 3 samples: 1 + 450 accepted ÷ 300 steps = 2.5 tokens per step; 270 ÷ 300 = 0.9
    // at the first position, 180 ÷ 300 = 0.6 at the second.
    assert_eq!(run.spec_acceptance_length, Some(2.5));
    assert_eq!(run.spec_acceptance_per_position, [0.9, 0.6]);
    assert!(run.spec_decode);
    assert_eq!(run.spec_acceptance_over, None, "over the samples");
    assert_eq!(run.overrides, "SPEC_DECODE=1");
    check_is_clean(&project);
}

#[test]
fn the_acceptance_is_measured_over_prompts_spread_through_the_set() {
    let _timed = timed();
    // Six prompts; four are sent, at 0, 6/4 → 1, 12/4 → 3 and 18/4 → 4. The decode samples
    // accept 150 of 200 drafted tokens; the prompts marked "easy" 190 of 200 and "hard" 50 of
    // 200, so over prompts 0, 1, 3 and 4 (easy, hard, easy, easy):
    // (3 × 190 + 50) / 800 = 0.775, and with 100 draft steps a request, the acceptance length
    // is 1 + 620 / 400 = 2.55.
    let script = Script {
        tokens: 40,
        spec: Some((200, 150)),
        spec_steps: Some((100, vec![90, 60], vec![90, 60])),
        spec_by_text: vec![("easy".into(), (200, 190)), ("hard".into(), (200, 50))],
        ..Script::default()
    };
    let server = FakeVllm::start(script);
    let project = Project::copy_of_repo();
    fake_profile(&project, server.addr.port(), 32768);
    let prompts: String = ["easy", "hard", "hard", "easy", "easy", "hard"]
        .iter()
        .enumerate()
        .map(|(i, kind)| {
            format!(
                "{{\"id\": \"p{i}\", \"category\": \"math\", \"messages\": [{{\"role\": \"user\", \"content\": \"{kind} question number {i}\"}}]}}\n"
            )
        })
        .collect();
    project.write("data/prompts.jsonl", &prompts);
    let output = fake_run(
        &project,
        &server,
        "fake-spread",
        &[
            "--set",
            "SPEC_DECODE=1",
            "--precision",
            "BF16",
            "--acceptance-prompts",
            "4",
        ],
    );
    output.assert_success();
    let run = project
        .results()
        .runs
        .into_iter()
        .find(|r| r.id.as_str() == "fake-spread")
        .unwrap();
    assert_eq!(run.spec_acceptance, Some(0.775));
    assert_eq!(run.spec_acceptance_length, Some(2.55));
    let over = run.spec_acceptance_over.as_ref().unwrap();
    assert_eq!(over.prompts, ["p0", "p1", "p3", "p4"]);
    assert_eq!(over.prompt_set, "data/prompts.jsonl");
    assert_eq!(over.output_tokens, 4 * 40);
    use sha2::Digest;
    let sha = sha2::Sha256::digest(prompts.as_bytes());
    let hex: String = sha.iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(over.prompt_set_sha256, hex);
    // Every prompt went out as its messages, greedy and cut at the run's length.
    let bodies = server.bodies();
    let sent: Vec<&str> = bodies
        .iter()
        .filter_map(|b| b["messages"][0]["content"].as_str())
        .filter(|text| text.contains("question number"))
        .collect();
    assert_eq!(
        sent,
        [
            "easy question number 0",
            "hard question number 1",
            "easy question number 3",
            "easy question number 4"
        ]
    );
    assert!(
        bodies
            .iter()
            .all(|b| b["temperature"] == 0.0 && b["max_tokens"] == 300)
    );
    project.run(&["build"]).assert_success();
    let page = project.page("runs/fake-spread/index.html");
    assert!(
        page.contains("over 4 prompts of data/prompts.jsonl, one at a time, 160 output tokens"),
        "{page}"
    );
    check_is_clean(&project);
}

#[test]
fn ttft_and_latency_of_one_request() {
    let _timed = timed();
    let script = Script {
        ttft: Duration::from_millis(60),
        chunk_interval: Duration::from_millis(5),
        tokens: 41,
        ..Script::default()
    };
    let server = FakeVllm::start(script);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let client =
        benchsite::collect::Client::new(&server.url(), None, Duration::from_secs(10), None)
            .unwrap();
    let body = benchsite::collect::request_body(
        &benchsite::collect::Server::vllm(None),
        "Fake-Model-7B",
        "hello",
        &data::Workload {
            prompt_words: Some(1),
            prompt_tokens: None,
            output_tokens: 100,
            rounds: 1,
            ignore_eos: false,
            thinking: false,
            min_requests: None,
            arrivals: None,
            dataset: None,
            lengths: None,
            shared_prefix: None,
        },
    );
    // The first request opens the connection; the second is timed alone.
    let stream = || runtime.block_on(client.stream(benchsite::collect::Endpoint::Chat, &body));
    stream().unwrap();
    let timing = stream().unwrap();
    let traces = server.traces();
    let (number, sent) = traces.last().unwrap();
    assert_eq!(*number, 2);
    // The role-only chunk arrives at once; TTFT is the first token, 60 ms in by the script
    // and as late as the server's timers were: the client's figure is the server's, plus the
    // request's way there and the token's way back through two debug-built HTTP stacks, about
    // a millisecond here.
    let late = |measured: Duration, sent: f64| measured.as_secs_f64() - sent;
    for (what, late) in [
        ("TTFT", late(timing.ttft, sent.ttft())),
        ("latency", late(timing.latency, sent.latency())),
    ] {
        assert!(
            (0.0..0.010).contains(&late),
            "{what} {late} s after sending"
        );
    }
    assert!((0.060..0.090).contains(&sent.ttft()), "{sent:?}");
    assert!((0.260..0.300).contains(&sent.latency()), "{sent:?}");
    assert_eq!(timing.output_tokens(), Some(41));
    let rate = timing.decode_rate().unwrap();
    let rates = sent.decode_rates_within(CHUNK_SLACK);
    assert!(rates.contains(&rate), "{rate} vs {rates:?} sent");
}

#[test]
fn latency_ends_at_the_finish_reason_and_an_aborted_stream_failed() {
    let _timed = timed();
    // The last of 21 tokens is at 50 + 20 × 5 = 150 ms; the finish reason's chunk, as on a
    // stop string, 100 ms later, at 250 ms. Request 3 is ended with `abort`.
    let script = Script {
        ttft: Duration::from_millis(50),
        chunk_interval: Duration::from_millis(5),
        tokens: 21,
        finish: Some(("stop".into(), Duration::from_millis(100))),
        abort: vec![3],
        ..Script::default()
    };
    let server = FakeVllm::start(script);
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let client =
        benchsite::collect::Client::new(&server.url(), None, Duration::from_secs(10), None)
            .unwrap();
    let workload = data::Workload {
        prompt_words: Some(1),
        prompt_tokens: None,
        output_tokens: 100,
        rounds: 1,
        ignore_eos: false,
        thinking: false,
        min_requests: None,
        arrivals: None,
        dataset: None,
        lengths: None,
        shared_prefix: None,
    };
    let body = benchsite::collect::request_body(
        &benchsite::collect::Server::vllm(None),
        "Fake-Model-7B",
        "hello",
        &workload,
    );
    let stream = || runtime.block_on(client.stream(benchsite::collect::Endpoint::Chat, &body));
    stream().unwrap();
    let timing = stream().unwrap();
    assert_eq!(timing.finish_reason.as_deref(), Some("stop"));
    let latency = timing.latency.as_secs_f64();
    assert!((0.250..0.300).contains(&latency), "latency {latency} s");
    // 20 tokens after the first over 250 − 50 = 200 ms: 100 tok/s, where ending at the last
    // text (100 ms) would say 200. A first token that reaches the client late on a busy
    // machine shortens the span a little (100.6 tok/s was seen with 1 ms of it), so the
    // bound leaves 10%.
    let rate = timing.decode_rate().unwrap();
    assert!((80.0..=110.0).contains(&rate), "{rate} tok/s");
    let aborted = stream().unwrap_err();
    assert_eq!(
        aborted.to_string(),
        "the server ended generation with finish reason \"abort\""
    );
}

fn sweep_args<'a>(server: &'a str, label: &'a str, levels: &'a str) -> Vec<&'a str> {
    vec![
        "collect",
        "sweep",
        "--label",
        label,
        "--levels",
        levels,
        "--prompt-words",
        "50",
        "--output-tokens",
        "50",
        "--rounds",
        "2",
        // These tests count requests by number: every level exactly `rounds`, no warm-up.
        "--min-requests",
        "0",
        "--warmup",
        "0",
        "--ignore-eos",
        "--base-url",
        server,
    ]
}

/// Inter-token latency against a server of known chunk timings: 16 tokens two to a chunk,
/// a chunk every 20 ms, so 8 chunks and 7 gaps of 20 ms an answer (and 2 tokens a chunk).
/// The same answers written four chunks at a time, as a buffering proxy delivers them, come
/// in two reads: the first three of the 7 gaps come with the first chunk, so the client never
/// sees 3/7 of the decode, every answer came in bursts, and the level's per-stream rate is
/// the engine's own, its inter-token figures not recorded.
#[test]
fn inter_token_latency_by_the_chunks_and_a_bunched_stream_flagged() {
    let _timed = timed();
    for buffered in [false, true] {
        let server = FakeVllm::start(Script {
            tokens: 16,
            tokens_per_chunk: 2,
            chunk_interval: Duration::from_millis(20),
            burst: if buffered { 4 } else { 0 },
            ..Script::default()
        });
        let project = Project::copy_of_repo();
        let url = server.url();
        let output = project.run(&sweep_args(&url, "itl", "1,2"));
        output.assert_success();
        let doc = project.results();
        let sweep = doc.sweeps.iter().find(|s| s.label == "itl").unwrap();
        for level in &sweep.levels {
            assert_eq!(level.tokens_per_chunk, Some(2.0));
            let delivery = level.delivery.as_ref().unwrap();
            let engine = level.engine_view.as_ref().unwrap();
            if buffered {
                assert_eq!(level.bunched_share, Some(0.857), "{level:?}");
                assert_eq!(delivery.bursts, level.succeeded, "{level:?}");
                assert_eq!(delivery.per_stream, data::PerStream::Engine);
                assert_eq!(
                    level.decode_tok_s_per_stream,
                    engine.decode_tok_s_per_stream
                );
                assert_eq!((level.itl_p50_ms, level.itl_gaps), (None, None));
                assert_eq!((level.tpot_p50_ms, level.tpot_p95_ms), (None, None));
            } else {
                assert_eq!(level.itl_gaps, Some(level.succeeded * 7), "{level:?}");
                let (p50, p99, max) = (
                    level.itl_p50_ms.unwrap(),
                    level.itl_p99_ms.unwrap(),
                    level.max_stall_ms.unwrap(),
                );
                assert!(p50 <= p99 && p99 <= max, "{level:?}");
                assert!((19.0..=30.0).contains(&p50), "{level:?}");
                assert!(level.bunched_share.unwrap() < 0.1, "{level:?}");
                assert_eq!(
                    (delivery.bursts, delivery.per_stream),
                    (0, data::PerStream::Client)
                );
            }
            // By hand, the engine's time per output token: 7 gaps of 20 ms over 15 tokens,
            // 9.33 ms (107 tok/s); on a loaded machine a late first timer shortens the span
            // its chunks are due in (the later ones are due at fixed times), a late last one
            // lengthens it.
            let tpot = engine.tpot_mean_ms.unwrap();
            assert!((8.5..=12.0).contains(&tpot), "{engine:?}");
        }
        if !buffered {
            // The sweep's page shows them, saying what they are percentiles of.
            project.run(&["build"]).assert_success();
            let page = project.page("sweeps/itl/index.html");
            assert!(
                page.contains("ITL p50 (ms)</th>")
                    && page.contains("Inter-token gaps</th>")
                    && page.contains("(ITL&#39;s of the gaps between their chunks"),
                "{page}"
            );
        }
        let said =
            "answers arrived in bursts (43% of an answer's chunks came together with its first";
        assert_eq!(output.stderr.contains(said), buffered, "{}", output.stderr);
        assert_eq!(
            sweep.notes.as_deref().unwrap_or_default().contains(said),
            buffered
        );
    }
}

/// The fake vLLM behind a proxy that holds each answer and sends it whole (a buffering
/// reverse proxy): the client sees every token at once, and divided by that instant would
/// record thousands of tok/s per stream. Runs and sweeps never record more than the server
/// really sent at unmarked: with the engine's histograms, the figure is the engine's,
/// labelled; without them, a sweep withholds it (and its page says so) and a run refuses.
#[test]
fn a_stream_held_whole_by_a_proxy_never_records_its_burst_rate() {
    let _timed = timed();
    for engine_metrics in [true, false] {
        let server = FakeVllm::start(Script {
            tokens: 100,
            chunk_interval: Duration::from_millis(4),
            engine_metrics,
            ..Script::default()
        });
        let proxy = support::BufferingProxy::start(server.addr);
        let url = proxy.url();
        let project = Project::copy_of_repo();
        fake_profile(&project, server.addr.port(), 32768);
        // The rate the server really sent at, per answer: 99 tokens over 99 gaps of 4 ms,
        // 250 tok/s by hand, each answer held to what it was sent at.
        let fastest = |server: &FakeVllm| {
            server
                .traces()
                .iter()
                .map(|(_, t)| *t.decode_rates_within(CHUNK_SLACK).end())
                .fold(0.0, f64::max)
        };
        let run = project.run(&[
            "collect",
            "run",
            "--id",
            "held",
            "--profile",
            "fake",
            "--base-url",
            &url,
            "--shape",
            "Dense, 7B",
            "--precision",
            "BF16",
            "--max-tokens",
            "100",
        ]);
        if engine_metrics {
            run.assert_success();
            let doc = project.results();
            let record = doc.runs.iter().find(|r| r.id.as_str() == "held").unwrap();
            let delivery = record.delivery.as_ref().unwrap();
            assert_eq!((delivery.answers, delivery.bursts), (3, 3));
            assert_eq!(delivery.per_stream, data::PerStream::Engine);
            assert!(record.decode_samples.is_empty());
            let engine = record.engine_view.as_ref().unwrap();
            assert_eq!(Some(record.decode_tok_s), engine.decode_tok_s_per_stream);
            assert!(
                record.decode_tok_s <= fastest(&server) && record.decode_tok_s > 200.0,
                "{} against {}",
                record.decode_tok_s,
                fastest(&server)
            );
            assert!(
                run.stderr.contains("3 of 3 answers arrived in bursts"),
                "{}",
                run.stderr
            );
        } else {
            // No engine figures to take it from: nothing recorded, and why.
            assert!(!run.status.success());
            assert!(
                run.stderr.contains(
                    "the samples' decode speed cannot be recorded: 3 of 3 answers arrived in bursts"
                ),
                "{}",
                run.stderr
            );
            assert!(
                project
                    .results()
                    .runs
                    .iter()
                    .all(|r| r.id.as_str() != "held")
            );
        }
        let sweep = project.run(&sweep_args(&url, "held sweep", "1,2"));
        sweep.assert_success();
        let doc = project.results();
        let record = doc.sweeps.iter().find(|s| s.label == "held sweep").unwrap();
        for level in &record.levels {
            let delivery = level.delivery.as_ref().unwrap();
            assert_eq!(delivery.bursts, level.succeeded, "{level:?}");
            assert_eq!((level.tpot_p50_ms, level.itl_p50_ms), (None, None));
            match engine_metrics {
                true => {
                    assert_eq!(delivery.per_stream, data::PerStream::Engine);
                    let rate = level.decode_tok_s_per_stream.unwrap();
                    assert!(rate <= fastest(&server) && rate > 200.0, "{level:?}");
                }
                false => {
                    assert_eq!(delivery.per_stream, data::PerStream::Withheld);
                    assert_eq!(level.decode_tok_s_per_stream, None);
                }
            }
        }
        check_is_clean(&project);
        if !engine_metrics {
            project.run(&["build"]).assert_success();
            let page = project.page("sweeps/held-sweep/index.html");
            assert!(page.contains("delivered in bursts"), "{page}");
        }
    }
}

#[test]
fn a_sweep_keeps_concurrency_in_flight_and_measures_the_queue() {
    let _timed = timed();
    let script = Script {
        ttft: Duration::from_millis(30),
        chunk_interval: Duration::from_millis(4),
        tokens: 50,
        max_seqs: 2,
        ..Script::default()
    };
    let server = FakeVllm::start(script);
    let project = Project::copy_of_repo();
    let output = project.run_with(&sweep_args(&server.url(), "fake sweep", "1,2,4"), &[]);
    output.assert_success();
    assert_eq!(server.requests(), 14);
    assert_eq!(server.peak_in_flight(), 4);
    let doc = project.results();
    let sweep = doc.sweeps.iter().find(|s| s.label == "fake sweep").unwrap();
    assert_eq!(sweep.levels.len(), 3);
    // Each level's figures are held closely to what the server really sent its requests (1–2,
    // 3–6 and 7–14), and loosely to the script, whose timers a loaded machine makes late.
    let traces = server.traces();
    assert_eq!(traces.len(), 14);
    let q = |values: &[f64], at: f64| benchsite::stats::quantile(values, at).unwrap();
    // The client's times run from before its request left to after the chunk came back: the
    // server's, plus both ways through two debug-built HTTP stacks, a few milliseconds with
    // four requests at once on two cores. They are rounded to 0.1 ms.
    let after =
        |measured: Option<f64>, sent: f64| (-1e-4..0.010).contains(&(measured.unwrap() - sent));
    let latency = 0.030 + 49.0 * 0.004;
    let mut first = 0;
    for level in &sweep.levels {
        assert_eq!(Some(level.requests), level.concurrency.map(|c| c * 2));
        assert_eq!((level.succeeded, level.failed), (level.requests, 0));
        assert_eq!(level.output_tokens, Some(50));
        // The fake counts a prompt's words and 10 more: 50 words and the sweep's nonce.
        assert_eq!(level.prompt_tokens, Some(61));
        let sent = &traces[first..first + level.requests as usize];
        first += level.requests as usize;
        let of = |figure: fn(&fake_vllm::Trace) -> f64| -> Vec<f64> {
            sent.iter().map(|(_, trace)| figure(trace)).collect()
        };
        let (ttft, end, spans) = (
            of(fake_vllm::Trace::ttft),
            of(fake_vllm::Trace::latency),
            of(|trace| trace.latency() - trace.ttft()),
        );
        for (measured, sent) in [
            (level.ttft_p50_s, q(&ttft, 0.5)),
            (level.ttft_p95_s, q(&ttft, 0.95)),
            (level.latency_p50_s, q(&end, 0.5)),
            (level.latency_p95_s, q(&end, 0.95)),
        ] {
            assert!(
                after(measured, sent),
                "{measured:?} vs {sent} sent: {level:?}"
            );
        }
        // The client's span from an answer's first chunk to its last is the server's ±
        // CHUNK_SLACK. The decode rate (a mean of 49 / span) and the time per output token
        // (quantiles of span / 49) lie between those figures of the spans made that much
        // shorter and longer, give or take their rounding (0.1 tok/s, 0.0001 ms).
        let slack = CHUNK_SLACK;
        let shifted = |by: f64| -> Vec<f64> { spans.iter().map(|span| span + by).collect() };
        let (short, long) = (shifted(-slack), shifted(slack));
        let rates = |spans: &[f64]| -> f64 {
            benchsite::stats::mean(&spans.iter().map(|span| 49.0 / span).collect::<Vec<_>>())
                .unwrap()
        };
        let rate = level.decode_tok_s_per_stream.unwrap();
        assert!(
            (rates(&long) - 0.05..=rates(&short) + 0.05).contains(&rate),
            "{rate} vs {spans:?} sent"
        );
        let tpot = |spans: &[f64], at: f64| -> f64 {
            q(
                &spans
                    .iter()
                    .map(|span| span * 1e3 / 49.0)
                    .collect::<Vec<_>>(),
                at,
            )
        };
        for (measured, at) in [(level.tpot_p50_ms, 0.5), (level.tpot_p95_ms, 0.95)] {
            let measured = measured.unwrap();
            assert!(
                (tpot(&short, at) - 5e-5..=tpot(&long, at) + 5e-5).contains(&measured),
                "{measured} at {at} vs {spans:?} sent: {level:?}"
            );
        }
        // By the script: one token every 4 ms after the first.
        assert!(within(rate, 250.0, 0.1), "{rate}");
    }
    // Up to the two sequences the server runs at once, nothing waits: TTFT is the script's
    // 30 ms and latency 30 ms + 49 × 4 ms. Timers are never early and can be late on a loaded
    // machine; what tells a request that waited from one that did not is a whole latency.
    let by_script =
        |value: Option<f64>, expected: f64| (expected..expected + 0.05).contains(&value.unwrap());
    for level in &sweep.levels[..2] {
        assert!(by_script(level.ttft_p50_s, 0.030), "{level:?}");
        assert!(by_script(level.latency_p50_s, latency), "{level:?}");
    }
    // At 4 in flight, two of every four wait one whole request: 2 of the 8 TTFTs are 30 ms,
    // 6 are 30 ms + one latency.
    let four = &sweep.levels[2];
    assert!(by_script(four.ttft_p50_s, 0.030 + latency), "{four:?}");
    assert!(by_script(four.ttft_p95_s, 0.030 + latency), "{four:?}");
    // Two at a time: the 8 requests' 400 tokens from the first's arrival to the last's end,
    // and by the script in 4 latencies.
    let (_, opened) = &traces[6];
    let closed = traces[6..]
        .iter()
        .map(|(_, trace)| *trace.text_sent.last().unwrap())
        .max()
        .unwrap();
    let sent_total = 400.0 / (closed - opened.arrived).as_secs_f64();
    let measured = four.total_tok_s.unwrap();
    assert!(
        measured <= sent_total && within(measured, sent_total, 0.03),
        "{four:?} vs {sent_total} sent"
    );
    assert!(within(measured, 400.0 / (4.0 * latency), 0.1), "{four:?}");
    assert_eq!(sweep.dimensions["prompt"], "61 tok");
    assert_eq!(sweep.workload.output_tokens, 50);
    check_is_clean(&project);
}

/// `collect sweep --rates` against a server of scripted capacity: one sequence at a time,
/// each answer 5 ms to its first token and 3 more tokens 5 ms apart, so 20 ms a request and
/// at most 50 requests a second. The arrivals are Poisson, seeded.
fn open_loop(project: &Project, server: &FakeVllm, label: &str, extra: &[&str]) -> Output {
    let url = server.url();
    let mut args = vec![
        "collect",
        "sweep",
        "--label",
        label,
        "--rates",
        "10,200",
        "--requests",
        "40",
        "--seed",
        "3",
        "--prompt-words",
        "20",
        "--output-tokens",
        "4",
        "--warmup",
        "0",
        "--ignore-eos",
        "--base-url",
        &url,
    ];
    args.extend_from_slice(extra);
    project.run(&args)
}

fn capacity() -> Script {
    Script {
        ttft: Duration::from_millis(5),
        chunk_interval: Duration::from_millis(5),
        tokens: 4,
        max_seqs: 1,
        ..Script::default()
    }
}

/// An open-loop level is labelled with the rate its arrivals had. The level's 40 gamma draws
/// (seed 3, shape 1), worked out here from the seeded generator itself, are scaled so that
/// they sum to 40 / 200 s: arrival k is due at 0.2 s × (the first k draws) / (all 40). The
/// per-request data holds exactly those due times, so the 40 arrivals and the gap after the
/// last span 0.2 s: 200 req/s offered, as labelled. (Unscaled, this seed's draws sum to
/// their own total, and the level would have offered 40 over that instead.)
#[test]
fn an_open_loop_level_offers_the_rate_it_is_labelled_with() {
    use rand_chacha::rand_core::SeedableRng;
    use rand_distr::Distribution;
    let _timed = timed();
    let server = FakeVllm::start(Script {
        ttft: Duration::from_millis(1),
        chunk_interval: Duration::from_millis(1),
        tokens: 4,
        ..Script::default()
    });
    let project = Project::copy_of_repo();
    let url = server.url();
    project
        .run(&[
            "collect",
            "sweep",
            "--label",
            "offered",
            "--rates",
            "200",
            "--requests",
            "40",
            "--seed",
            "3",
            "--prompt-words",
            "20",
            "--output-tokens",
            "4",
            "--warmup",
            "0",
            "--base-url",
            &url,
        ])
        .assert_success();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
    let gamma = rand_distr::Gamma::new(1.0, 1.0).unwrap();
    let draws: Vec<f64> = (0..40).map(|_| gamma.sample(&mut rng)).collect();
    let total: f64 = draws.iter().sum();
    let expected: Vec<f64> = (0..40)
        .map(|k| 0.2 * draws[..k].iter().sum::<f64>() / total)
        .collect();
    let doc = project.results();
    let sweep = doc.sweeps.iter().find(|s| s.label == "offered").unwrap();
    assert_eq!(sweep.levels[0].rate_rps, Some(200.0));
    let path = benchsite::data::request_log_path(&sweep.slug());
    let lines = benchsite::data::read_request_log(&project.root.path().join(path)).unwrap();
    let mut due: Vec<(u64, f64)> = lines.iter().map(|l| (l.n, l.due_s.unwrap())).collect();
    due.sort_by_key(|(n, _)| *n);
    assert_eq!(due.len(), 40);
    for ((n, due), expected) in due.iter().zip(&expected) {
        assert!(
            (due - expected).abs() < 2e-6,
            "arrival {n}: {due} vs {expected}"
        );
    }
    let window = expected[39] + 0.2 * draws[39] / total;
    assert!((40.0 / window - 200.0).abs() < 1e-6, "{window}");
}

/// Below the capacity (10 requests a second) nothing waits: TTFT is the script's 5 ms. Above
/// it (200 a second, 40 arrivals in about 0.2 s) the requests queue: in the server when the
/// client sends each when it is due, in the client when `--max-concurrency 1` holds them.
/// Either way the level ends after its 40 requests, the last of which, due near 0.2 s, is
/// answered after the 39 before it, near 40 × 20 ms = 0.8 s: its wait is about 0.6 s. The
/// server answers at most 50 a second, whatever arrives.
#[test]
fn an_open_loop_above_capacity_queues_and_below_it_does_not() {
    let _timed = timed();
    let server = FakeVllm::start(capacity());
    let project = Project::copy_of_repo();
    open_loop(&project, &server, "open", &[]).assert_success();
    assert_eq!(server.requests(), 80);
    // Sent when due, whatever is in flight: the server saw more than one at once.
    assert!(server.peak_in_flight() > 1);
    let doc = project.results();
    let sweep = doc.sweeps.iter().find(|s| s.label == "open").unwrap();
    let arrivals = sweep.workload.arrivals.as_ref().expect("an open loop");
    assert_eq!(
        (arrivals.burstiness, arrivals.seed, arrivals.requests),
        (1.0, Some(3), 40)
    );
    let (below, above) = (&sweep.levels[0], &sweep.levels[1]);
    assert_eq!((below.rate_rps, below.concurrency), (Some(10.0), None));
    assert_eq!(
        (above.rate_rps, above.requests, above.succeeded),
        (Some(200.0), 40, 40)
    );
    assert!(below.ttft_p95_s.unwrap() < 0.05, "{below:?}");
    // No cap: the client never waits; the queue is the server's, in TTFT.
    assert!(above.wait_max_s.unwrap() < 0.05, "{above:?}");
    assert!(above.ttft_p95_s.unwrap() > 0.4, "{above:?}");
    assert!(above.achieved_rps.unwrap() <= 50.0, "{above:?}");
    assert!(within(below.achieved_rps.unwrap(), 10.0, 0.5), "{below:?}");
    assert_eq!(above.unsent, Some(0));
    // The server's own account, from its /metrics through each level: it runs one request
    // at a time; above its capacity the rest wait in its queue. Each level's 40 prompts of
    // 31 tokens were looked up in its prefix cache: 1,240 tokens, none found.
    for level in &sweep.levels {
        assert_eq!(level.running_max, Some(1.0), "{level:?}");
        assert_eq!(
            (level.prefix_queries, level.prefix_hits),
            (Some(1240), Some(0))
        );
        assert_eq!(level.preemptions, Some(0));
        assert!(level.metric_scrapes.unwrap() >= 2, "{level:?}");
    }
    assert!(above.waiting_max.unwrap() >= 5.0, "{above:?}");

    // Capped at one in flight: the wait moves into the client and counts in TTFT.
    let capped = FakeVllm::start(capacity());
    open_loop(&project, &capped, "capped", &["--max-concurrency", "1"]).assert_success();
    assert_eq!(capped.peak_in_flight(), 1);
    let doc = project.results();
    let sweep = doc.sweeps.iter().find(|s| s.label == "capped").unwrap();
    let (below, above) = (&sweep.levels[0], &sweep.levels[1]);
    assert!(below.wait_p50_s.unwrap() < 0.005, "{below:?}");
    let (p50, p95, max) = (
        above.wait_p50_s.unwrap(),
        above.wait_p95_s.unwrap(),
        above.wait_max_s.unwrap(),
    );
    assert!(p50 < p95 && p95 <= max, "{above:?}");
    assert!((0.45..1.0).contains(&max), "{above:?}");
    // TTFT runs from when the request was due: at least its wait.
    assert!(above.ttft_p95_s.unwrap() >= p95, "{above:?}");
    assert_eq!(above.peak_in_flight, Some(1));

    // A duration ends the level: arrivals the cap still holds then are never sent.
    let timed_out = FakeVllm::start(capacity());
    let output = open_loop(
        &project,
        &timed_out,
        "bounded",
        &["--max-concurrency", "1", "--duration", "0.1"],
    );
    output.assert_success();
    let doc = project.results();
    let sweep = doc.sweeps.iter().find(|s| s.label == "bounded").unwrap();
    let above = &sweep.levels[1];
    // About 20 arrivals in 0.1 s at 200 a second, and about 0.1 s / 20 ms = 5 sent.
    assert!(above.unsent.unwrap() >= 5, "{above:?}");
    assert!(above.requests < 12, "{above:?}");
    assert!(
        output.stderr.contains("were never sent"),
        "{}",
        output.stderr
    );

    // Every request sent is a line of the sweep's per-request data: the capped level's
    // waits, due → sent, are the level's.
    let capped_log = doc
        .sweeps
        .iter()
        .find(|s| s.label == "capped")
        .and_then(|s| s.request_log.clone())
        .unwrap();
    let lines = data::read_request_log(&project.root.path().join(&capped_log)).unwrap();
    assert_eq!(lines.len(), 80);
    let longest = lines
        .iter()
        .filter(|l| l.level == 1)
        .map(|l| l.sent_s.unwrap() - l.due_s.unwrap())
        .fold(0.0, f64::max);
    assert!((longest - max).abs() < 1e-3, "{longest} vs {max}");

    // Goodput at TTFT ≤ 100 ms: the requests of the uncapped sweep whose TTFT from when they
    // were due is within it, counted here from its per-request data.
    project.write(
        "benchsite.toml",
        &format!(
            "{}\n[slo]\nttft_p95_s = 0.1\n",
            std::fs::read_to_string(project.root.path().join("benchsite.toml")).unwrap()
        ),
    );
    let open_log = doc
        .sweeps
        .iter()
        .find(|s| s.label == "open")
        .and_then(|s| s.request_log.clone())
        .unwrap();
    let lines = data::read_request_log(&project.root.path().join(&open_log)).unwrap();
    let good = |level: usize| {
        lines
            .iter()
            .filter(|l| {
                l.level == level
                    && l.ttft_s.unwrap() + (l.sent_s.unwrap() - l.due_s.unwrap()) <= 0.1
            })
            .count()
    };
    assert_eq!(good(0), 40, "below capacity every request is good");
    assert!(good(1) < 40);

    // Built, an open loop is drawn against its rate and kept apart from closed loops.
    project.run(&["build"]).assert_success();
    let page = project.page("sweeps/open/index.html");
    let section = &page[page.find("<section id=\"goodput\"").unwrap()..];
    for (anchor, level) in [("r10", 0), ("r200", 1)] {
        let row = &section[section.find(&format!("<tr id=\"good-{anchor}\"")).unwrap()..];
        let row = &row[..row.find("</tr>").unwrap()];
        assert!(row.contains(&format!("<td>{}</td>", good(level))), "{row}");
    }
    assert!(section.contains(&format!("href=\"/{open_log}\"")));
    assert!(project.root.path().join("site").join(&open_log).exists());
    let page = project.page("sweeps/open/index.html");
    assert!(page.contains("<tr id=\"r10\"") && page.contains("<tr id=\"r200\""));
    assert!(
        page.contains("Arrival rate (req/s)</th>") && page.contains("Client wait p95 (s)</th>")
    );
    assert!(page.contains("Time to first token against the arrival rate"));
    assert!(page.contains("Requests the server ran and kept waiting against the arrival rate"));
    assert!(page.contains("Poisson arrivals, seed 3, 40 arrivals per level"));
    let index = project.page("sweeps/index.html");
    // (The fake counts 20 words, the nonce and 10 more: 31 prompt tokens.)
    assert!(
        index.contains("Fake-Model-7B, 31 tokens in, 4 tokens out, Poisson arrivals, method 3"),
        "the frontier groups name the arrivals"
    );
    assert!(index.contains("Poisson arrivals, at most 1 in flight, method 3"));
    check_is_clean(&project);
}

/// A limit search against a server of scripted capacity: four sequences at once, each answer
/// 20 ms to its first token and 9 more 5 ms apart. Up to 4 streams nothing waits (TTFT about
/// 20 ms); at 5 and more, one stream always waits a whole answer (TTFT p95 about 85 ms). At
/// TTFT p95 ≤ 50 ms the boundary is 4, found by hand as the search goes: 1, 2 and 4 hold, 8
/// breaks, then 6 and 5 break.
#[test]
fn a_limit_search_finds_the_scripted_boundary_within_one_step() {
    let _timed = timed();
    let server = FakeVllm::start(Script {
        ttft: Duration::from_millis(20),
        chunk_interval: Duration::from_millis(5),
        tokens: 10,
        max_seqs: 4,
        ..Script::default()
    });
    let project = Project::copy_of_repo();
    let url = server.url();
    let search = |project: &Project| {
        project.run(&[
            "collect",
            "sweep",
            "--label",
            "limit",
            "--search",
            "--levels",
            "1,64",
            "--prompt-words",
            "20",
            "--output-tokens",
            "10",
            "--warmup",
            "0",
            "--ignore-eos",
            "--base-url",
            &url,
        ])
    };
    // Without limits there is nothing to search for.
    let refused = search(&project);
    assert!(!refused.status.success());
    assert!(
        refused.stderr.contains("give [slo] in benchsite.toml"),
        "{}",
        refused.stderr
    );
    project.write(
        "benchsite.toml",
        &format!(
            "{}\n[slo]\nttft_p95_s = 0.05\n",
            std::fs::read_to_string(project.root.path().join("benchsite.toml")).unwrap()
        ),
    );
    let output = search(&project);
    output.assert_success();
    let doc = project.results();
    let sweep = doc.sweeps.iter().find(|s| s.label == "limit").unwrap();
    let found = sweep.search.as_ref().unwrap();
    assert_eq!(
        (found.held, found.broke, found.probes),
        (Some(4.0), Some(5.0), 6)
    );
    assert_eq!(found.limits, "TTFT p95 ≤ 0.05 s");
    // Every probe is a level, in load order, with its own requests.
    let loads: Vec<Option<u64>> = sweep.levels.iter().map(|l| l.concurrency).collect();
    assert_eq!(loads, [1, 2, 4, 5, 6, 8].map(Some));
    let lines = data::read_request_log(
        &project
            .root
            .path()
            .join(sweep.request_log.as_deref().unwrap()),
    )
    .unwrap();
    for (index, level) in sweep.levels.iter().enumerate() {
        let sent = lines.iter().filter(|l| l.level == index).count() as u64;
        assert_eq!(sent, level.requests, "{level:?}");
    }
    assert!(
        output
            .stderr
            .contains("search: concurrency 5 breaks the limits"),
        "{}",
        output.stderr
    );
    project.run(&["build"]).assert_success();
    let page = project.page("sweeps/limit/index.html");
    assert!(
        page.contains("TTFT p95 ≤ 0.05 s: concurrency 4 holds, concurrency 5 breaks (6 probes)"),
        "{page}"
    );
    assert!(page.contains("highest within the limits"));
    check_is_clean(&project);
}

/// A sweep of other prompts: two ShareGPT conversations sampled with a seed, behind one of
/// two shared 30-word prefixes, the answers' lengths drawn from vLLM's range around 40
/// tokens at ratio 0.5 (20 to 60). What the server was sent is held to that, and the record
/// names the dataset by its sha256, worked out here.
#[test]
fn a_sweep_samples_a_dataset_behind_shared_prefixes_with_drawn_lengths() {
    use sha2::Digest;
    let server = FakeVllm::start(capacity());
    let project = Project::copy_of_repo();
    let dataset = r#"[{"conversations": [{"from": "human", "value": "Tell me about rivers"}, {"from": "gpt", "value": "..."}]},
{"conversations": [{"from": "human", "value": "Write a short poem"}, {"from": "gpt", "value": "..."}]}]"#;
    project.write("data/share.json", dataset);
    let url = server.url();
    let output = project.run(&[
        "collect",
        "sweep",
        "--label",
        "shaped",
        "--levels",
        "2",
        "--dataset",
        "data/share.json",
        "--seed",
        "5",
        "--prefix-groups",
        "2",
        "--prefix-words",
        "30",
        "--range-ratio",
        "0.5",
        "--output-tokens",
        "40",
        "--warmup",
        "0",
        "--base-url",
        &url,
    ]);
    output.assert_success();
    let bodies = server.bodies();
    let prompts: Vec<String> = bodies
        .iter()
        .map(|b| b["messages"][0]["content"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(prompts.len(), 20);
    let prefixes: std::collections::BTreeSet<String> = prompts
        .iter()
        .map(|p| {
            p.split_whitespace()
                .skip(1)
                .take(30)
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    assert_eq!(prefixes.len(), 2, "two groups: {prefixes:?}");
    for prompt in &prompts {
        let own: Vec<&str> = prompt.split_whitespace().skip(31).collect();
        assert!(
            ["Tell me about rivers", "Write a short poem"].contains(&own.join(" ").as_str()),
            "{prompt}"
        );
    }
    let asked: Vec<u64> = bodies
        .iter()
        .map(|b| b["max_tokens"].as_u64().unwrap())
        .collect();
    assert!(asked.iter().all(|t| (20..=60).contains(t)), "{asked:?}");
    assert!(
        asked.iter().any(|&t| t != asked[0]),
        "drawn, not fixed: {asked:?}"
    );
    let doc = project.results();
    let sweep = doc.sweeps.iter().find(|s| s.label == "shaped").unwrap();
    let recorded = sweep.workload.dataset.as_ref().unwrap();
    let sha: String = sha2::Sha256::digest(dataset.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(
        (recorded.sha256.as_str(), recorded.prompts, recorded.seed),
        (sha.as_str(), 2, 5)
    );
    assert_eq!(
        sweep.workload.shape().as_deref(),
        Some(
            "prompts of share.json, lengths ±50% (vLLM's range), 2 groups sharing a 30-word prefix"
        )
    );
    assert!(
        sweep
            .method
            .as_ref()
            .unwrap()
            .prompt_source
            .starts_with("prompts of data/share.json (2 of them")
    );
    check_is_clean(&project);
}

/// Parameters that do not make an open loop are refused, naming the flag.
#[test]
fn open_loop_parameters_are_checked() {
    let project = Project::copy_of_repo();
    let server = FakeVllm::start(capacity());
    let url = server.url();
    for (extra, said) in [
        (
            vec!["--levels", "1,2", "--rates", "1"],
            "--rates: expected rates or levels, not both",
        ),
        (
            vec!["--rates", "2,1"],
            "--rates: expected increasing requests per second",
        ),
        (
            vec!["--levels", "1", "--duration", "3"],
            "--duration: expected rates beside it",
        ),
        (
            vec!["--rates", "1", "--burstiness", "0"],
            "--burstiness: expected a gamma shape",
        ),
    ] {
        let mut args = vec!["collect", "sweep", "--label", "bad", "--base-url", &url];
        args.extend(extra);
        let output = project.run(&args);
        assert!(!output.status.success());
        assert!(output.stderr.contains(said), "{}", output.stderr);
    }
    assert_eq!(server.requests(), 0);
}

#[test]
fn a_request_on_a_kept_alive_connection_closed_under_it_goes_out_again() {
    let _timed = timed();
    let script = Script {
        ttft: Duration::from_millis(5),
        chunk_interval: Duration::from_millis(1),
        tokens: 20,
        max_model_len: 65536,
        ..Script::default()
    };
    let server = FakeVllm::start(script);
    let proxy = StaleProxy::start(server.addr);
    let project = Project::copy_of_repo();
    fake_profile(&project, server.addr.port(), 65536);
    let url = proxy.url();
    let output = project.run(&[
        "collect",
        "run",
        "--id",
        "fake-kept-alive",
        "--profile",
        "fake",
        "--base-url",
        &url,
        "--shape",
        "Dense, 7B",
        "--precision",
        "BF16",
    ]);
    output.assert_success();
    let sweep = project.run_with(&sweep_args(&url, "kept-alive", "1,2,4"), &[]);
    sweep.assert_success();
    assert!(
        proxy.closed() >= 4,
        "the proxy closed {} requests under the client",
        proxy.closed()
    );
    let doc = project.results();
    let run = doc
        .runs
        .iter()
        .find(|r| r.id.as_str() == "fake-kept-alive")
        .unwrap();
    assert_eq!(run.decode_samples.len(), 3, "{:?}", run.notes);
    assert!(run.notes.as_deref().is_none_or(|n| !n.contains("failed")));
    let sweep = doc.sweeps.iter().find(|s| s.label == "kept-alive").unwrap();
    let counts: Vec<_> = sweep
        .levels
        .iter()
        .map(|l| (l.succeeded, l.failed))
        .collect();
    assert_eq!(counts, [(2, 0), (4, 0), (8, 0)]);
}

#[test]
fn a_server_behind_tls_is_measured_with_its_private_authority() {
    let _timed = timed();
    let script = Script {
        ttft: Duration::from_millis(5),
        chunk_interval: Duration::from_millis(1),
        tokens: 20,
        max_model_len: 65536,
        ..Script::default()
    };
    let server = FakeVllm::start(script);
    let tls = TlsProxy::start(server.addr);
    let project = Project::copy_of_repo();
    fake_profile(&project, server.addr.port(), 65536);
    project.write("ca.pem", &tls.ca_pem);
    let url = tls.url();
    let run = |extra: &[&str]| {
        let mut args = vec![
            "collect",
            "run",
            "--id",
            "fake-tls",
            "--profile",
            "fake",
            "--base-url",
            &url,
            "--shape",
            "Dense, 7B",
            "--precision",
            "BF16",
        ];
        args.extend_from_slice(extra);
        project.run_with(&args, &[("OPENAI_API_KEY", "secret-key")])
    };
    // Its certificate is signed by no authority the system knows: refused, and said why.
    let refused = run(&[]);
    assert!(!refused.status.success());
    assert!(
        refused.stderr.contains("UnknownIssuer") || refused.stderr.contains("certificate"),
        "{}",
        refused.stderr
    );
    let ca = project.root.path().join("ca.pem");
    run(&["--ca-cert", ca.to_str().unwrap()]).assert_success();
    let doc = project.results();
    let record = doc
        .runs
        .iter()
        .find(|r| r.id.as_str() == "fake-tls")
        .unwrap();
    assert_eq!(record.decode_samples.len(), 3, "{:?}", record.delivery);
    // The API key went through the TLS ingress as a bearer token.
    assert!(
        server
            .authorizations()
            .iter()
            .all(|a| a == "Bearer secret-key")
    );
    assert_eq!(
        server.authorizations().len(),
        4,
        "the cold request and three samples"
    );
    // A file that holds no certificate is named.
    project.write("not.pem", "hello");
    let not = project.root.path().join("not.pem");
    let bad = run(&["--replace", "--ca-cert", not.to_str().unwrap()]);
    assert!(
        bad.stderr
            .contains("expected PEM certificates (-----BEGIN CERTIFICATE-----)"),
        "{}",
        bad.stderr
    );
}

#[test]
fn a_failed_sample_costs_that_sample_and_says_so() {
    let _timed = timed();
    // Request 1 is the cold one; 3 is the second sample.
    let script = Script {
        ttft: Duration::from_millis(5),
        chunk_interval: Duration::from_millis(1),
        tokens: 20,
        fail: vec![3],
        max_model_len: 65536,
        ..Script::default()
    };
    let server = FakeVllm::start(script);
    let project = Project::copy_of_repo();
    fake_profile(&project, server.addr.port(), 65536);
    let output = fake_run(
        &project,
        &server,
        "fake-one-failed",
        &["--precision", "BF16"],
    );
    output.assert_success();
    assert!(
        output.stderr.contains("sample 2/3 failed (HTTP 500"),
        "{}",
        output.stderr
    );
    let doc = project.results();
    let run = doc
        .runs
        .iter()
        .find(|r| r.id.as_str() == "fake-one-failed")
        .unwrap();
    assert_eq!(run.decode_samples.len(), 2);
    let notes = run.notes.as_deref().unwrap_or_default();
    assert!(
        notes.contains("Sample 2/3 failed (HTTP 500")
            && notes.contains("the decode figure is the median of the other 2"),
        "{notes}"
    );
    check_is_clean(&project);
    // Every sample failing is an error, and nothing is written.
    let server = FakeVllm::start(Script {
        tokens: 20,
        fail: vec![2, 3, 4],
        max_model_len: 65536,
        ..Script::default()
    });
    fake_profile(&project, server.addr.port(), 65536);
    let output = fake_run(
        &project,
        &server,
        "fake-all-failed",
        &["--precision", "BF16"],
    );
    assert!(!output.status.success());
    assert!(
        output.stderr.contains("every sample failed"),
        "{}",
        output.stderr
    );
    assert!(
        !project
            .results()
            .runs
            .iter()
            .any(|r| r.id.as_str() == "fake-all-failed")
    );
}

#[test]
fn failed_requests_are_counted_and_never_stop_the_sweep() {
    let _timed = timed();
    // Requests 1-2 are level 1, 3-6 level 2, 7-14 level 4.
    let script = Script {
        ttft: Duration::from_millis(5),
        chunk_interval: Duration::from_millis(1),
        tokens: 20,
        fail: vec![3],
        cut: vec![6],
        error_in_stream: vec![7],
        stall: vec![9],
        ..Script::default()
    };
    let server = FakeVllm::start(script);
    let project = Project::copy_of_repo();
    let url = server.url();
    let mut args = sweep_args(&url, "faulty", "1,2,4");
    args.extend(["--timeout", "1"]);
    let output = project.run_with(&args, &[]);
    output.assert_success();
    assert!(output.stderr.contains("HTTP 500"), "{}", output.stderr);
    let doc = project.results();
    let sweep = doc.sweeps.iter().find(|s| s.label == "faulty").unwrap();
    let counts: Vec<_> = sweep
        .levels
        .iter()
        .map(|l| (l.succeeded, l.failed))
        .collect();
    assert_eq!(counts, [(2, 0), (2, 2), (6, 2)]);
    assert!(sweep.levels.iter().all(|l| l.status == LevelStatus::Ok));
}

#[test]
fn a_server_that_dies_mid_sweep_leaves_the_finished_levels() {
    let _timed = timed();
    let script = Script {
        ttft: Duration::from_millis(5),
        chunk_interval: Duration::from_millis(1),
        tokens: 20,
        die_after: Some(2),
        ..Script::default()
    };
    let server = FakeVllm::start(script);
    let project = Project::copy_of_repo();
    let output = project.run_with(&sweep_args(&server.url(), "dying", "1,2,4,8"), &[]);
    assert_eq!(
        output.status.code(),
        Some(1),
        "{}\n{}",
        output.stdout,
        output.stderr
    );
    assert!(output.stderr.contains("stopped early"), "{}", output.stderr);
    let doc = project.results();
    let sweep = doc.sweeps.iter().find(|s| s.label == "dying").unwrap();
    let statuses: Vec<_> = sweep.levels.iter().map(|l| l.status).collect();
    assert_eq!(statuses, [LevelStatus::Ok, LevelStatus::Failed]);
    assert!(
        sweep
            .notes
            .as_deref()
            .unwrap()
            .contains("stopped answering at concurrency 2")
    );
    check_is_clean(&project);
}

#[test]
fn ctrl_c_during_a_sweep_saves_the_finished_levels() {
    let _timed = timed();
    let script = Script {
        ttft: Duration::from_millis(5),
        chunk_interval: Duration::from_millis(20),
        tokens: 200,
        ..Script::default()
    };
    let server = FakeVllm::start(script);
    let project = Project::copy_of_repo();
    let url = server.url();
    let mut args = sweep_args(&url, "interrupted", "1,2");
    args[9] = "200";
    let mut child = Command::new(env!("CARGO_BIN_EXE_benchsite"))
        .arg("--root")
        .arg(project.root.path())
        .args(&args)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let done = lines
        .by_ref()
        .map_while(Result::ok)
        .find(|line| line.starts_with("concurrency   1:"));
    assert!(done.is_some(), "level 1 finished");
    std::thread::sleep(Duration::from_millis(300));
    let killed = Command::new("sh")
        .args(["-c", &format!("kill -INT {}", child.id())])
        .status()
        .unwrap();
    assert!(killed.success());
    let rest: Vec<String> = lines.map_while(Result::ok).collect();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(1), "{rest:?}");
    let doc = project.results();
    let sweep = doc
        .sweeps
        .iter()
        .find(|s| s.label == "interrupted")
        .unwrap();
    assert_eq!(sweep.levels.len(), 1);
    assert!(
        sweep.notes.as_deref().unwrap().contains("Ctrl-C"),
        "{:?}",
        sweep.notes
    );
}

#[test]
fn dry_run_prints_and_writes_nothing_and_ids_need_replace() {
    let _timed = timed();
    let server = FakeVllm::start(Script {
        tokens: 20,
        chunk_interval: Duration::from_millis(1),
        ..Script::default()
    });
    let project = Project::copy_of_repo();
    let before = std::fs::read(project.root.path().join("data/results.json")).unwrap();
    let url = server.url();
    let mut args = sweep_args(&url, "dry", "1");
    args.push("--dry-run");
    let output = project.run_with(&args, &[]);
    output.assert_success();
    let printed: serde_json::Value =
        serde_json::from_str(&output.stdout[..output.stdout.rfind('}').unwrap() + 1]).unwrap();
    assert_eq!(printed["label"], "dry");
    assert_eq!(
        std::fs::read(project.root.path().join("data/results.json")).unwrap(),
        before
    );

    let taken = project.run_with(
        &[
            "collect",
            "run",
            "--id",
            "qwen36-moe-default",
            "--profile",
            "qwen3.6-35b-a3b",
            "--base-url",
            &server.url(),
        ],
        &[],
    );
    assert_eq!(taken.status.code(), Some(1));
    assert!(taken.stderr.contains("--replace"), "{}", taken.stderr);
    assert_eq!(
        server.requests(),
        2,
        "the dry sweep's two; the run was refused before measuring"
    );
}

/// The issue's case: the server's context is 65,536 and `--set MAX_MODEL_LEN=32768` asks for
/// less. Without `--force` nothing is measured or written; with it the run holds what was
/// served and says how it differs, and `check` accepts it.
#[test]
fn a_served_context_other_than_the_profile_is_refused_or_recorded_with_force() {
    let _timed = timed();
    let server = FakeVllm::start(Script {
        tokens: 20,
        chunk_interval: Duration::from_millis(1),
        max_model_len: 65536,
        ..Script::default()
    });
    let project = Project::copy_of_repo();
    fake_profile(&project, server.addr.port(), 65536);
    let document = project.root.path().join("data/results.json");
    let before = std::fs::read(&document).unwrap();
    let set = ["--precision", "BF16", "--set", "MAX_MODEL_LEN=32768"];

    let refused = fake_run(&project, &server, "fake-short", &set);
    assert_eq!(refused.status.code(), Some(1), "{}", refused.stdout);
    for words in ["65536", "32768", "MAX_MODEL_LEN", "--force"] {
        assert!(
            refused.stderr.contains(words),
            "no {words:?}: {}",
            refused.stderr
        );
    }
    assert_eq!(std::fs::read(&document).unwrap(), before, "nothing written");
    assert!(server.traces().is_empty(), "nothing measured");

    let mut forced = set.to_vec();
    forced.push("--force");
    fake_run(&project, &server, "fake-short", &forced).assert_success();
    let doc = project.results();
    let run = doc
        .runs
        .iter()
        .find(|r| r.id.as_str() == "fake-short")
        .unwrap();
    assert_eq!(run.max_model_len, 65536, "what the server served");
    assert_eq!(run.overrides, "MAX_MODEL_LEN=32768");
    assert_eq!(run.forced.len(), 1);
    let difference = &run.forced[0];
    assert_eq!(
        (
            difference.field.as_str(),
            difference.profile.as_str(),
            difference.served.as_str()
        ),
        ("max_model_len", "32768", "65536")
    );
    assert!(run.notes.as_deref().unwrap_or_default().contains("--force"));
    check_is_clean(&project);
}

/// A document that already has a problem (here its run no longer agrees with an edited
/// profile) is named by every writer; a write that adds no problem goes in, and replacing the
/// offending record mends it. A write that would add one is refused with check's message.
#[test]
fn writers_never_add_a_problem_and_name_the_ones_a_document_has() {
    let _timed = timed();
    let server = FakeVllm::start(Script {
        tokens: 20,
        chunk_interval: Duration::from_millis(1),
        max_model_len: 65536,
        ..Script::default()
    });
    let project = Project::copy_of_repo();
    fake_profile(&project, server.addr.port(), 65536);
    fake_run(&project, &server, "fake-a", &["--precision", "BF16"]).assert_success();
    // The profile changes under the run: the document now disagrees with it.
    fake_profile(&project, server.addr.port(), 32768);
    let check = project.run_with(&["check"], &[]);
    assert_eq!(check.status.code(), Some(1));
    assert!(check.stderr.contains("/max_model_len"), "{}", check.stderr);

    let failure = [
        "collect",
        "failure",
        "--id",
        "fake-b",
        "--checkpoint",
        "example/Fake-Model-7B",
        "--precision",
        "BF16",
        "--status",
        "not_attempted",
        "--reason",
        "not yet",
    ];
    let kept = project.run_with(&failure, &[]);
    kept.assert_success();
    assert!(
        kept.stderr.contains("already has 1 problem") && kept.stderr.contains("/max_model_len"),
        "{}",
        kept.stderr
    );
    assert!(
        project
            .results()
            .failures
            .iter()
            .any(|f| f.id.as_str() == "fake-b")
    );

    // Measured again against the profile as it now is, with the server's context forced: the
    // offending record is replaced and the document is clean again.
    fake_run(
        &project,
        &server,
        "fake-a",
        &["--precision", "BF16", "--replace", "--force"],
    )
    .assert_success();
    check_is_clean(&project);
}

#[test]
fn a_failure_by_hand_and_a_bad_status() {
    let _timed = timed();
    let project = Project::copy_of_repo();
    let output = project.run_with(
        &[
            "collect",
            "failure",
            "--id",
            "big-model-bf16",
            "--checkpoint",
            "example/Big",
            "--precision",
            "BF16",
            "--status",
            "not_attempted",
            "--weights-gib",
            "140",
            "--reason",
            "140 GB of weights against 32 GB of VRAM.",
        ],
        &[],
    );
    output.assert_success();
    let doc = project.results();
    let failure = doc
        .failures
        .iter()
        .find(|f| f.id.as_str() == "big-model-bf16")
        .unwrap();
    assert_eq!(failure.status, FailureStatus::NotAttempted);
    assert_eq!(failure.weights_gib, Some(140.0));
    let output = project.run_with(
        &[
            "collect",
            "failure",
            "--id",
            "x",
            "--checkpoint",
            "c",
            "--precision",
            "p",
            "--status",
            "melted",
            "--reason",
            "r",
        ],
        &[],
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(
        output.stderr.contains("insufficient_kv"),
        "{}",
        output.stderr
    );
}

#[test]
fn hardware_from_nvidia_smi_and_a_missing_tool() {
    let _timed = timed();
    let project = Project::copy_of_repo();
    let bin = project.root.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    let smi = bin.join("nvidia-smi");
    std::fs::write(
        &smi,
        "#!/bin/sh\necho 'NVIDIA Test GPU 9000, 49152, 1024, 999.1, 8.9'\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&smi, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!("{}:/usr/bin:/bin", bin.display());
    let output = project.run_with(&["collect", "hardware"], &[("PATH", &path)]);
    output.assert_success();
    let hardware = project.results().hardware;
    assert_eq!(hardware.gpu.as_deref(), Some("NVIDIA Test GPU 9000"));
    assert_eq!(hardware.arch.as_deref(), Some("Ada Lovelace sm89"));
    assert_eq!(hardware.vram_total_mib, Some(49152));
    assert_eq!(hardware.vram_usable_gib.unwrap().to_string(), "47.0");
    assert!(hardware.host_ram_gib.is_some() && hardware.cpu_threads.is_some());
    // Fields no tool gives are kept.
    assert_eq!(
        hardware.vram_baseline_note.as_deref(),
        Some("desktop compositor (kwin_wayland + Xwayland)")
    );

    std::fs::remove_file(&smi).unwrap();
    let output = project.run_with(&["collect", "hardware"], &[("PATH", &path)]);
    output.assert_success();
    assert!(
        output.stderr.contains("warning: nvidia-smi"),
        "{}",
        output.stderr
    );
    assert_eq!(
        project.results().hardware.gpu.as_deref(),
        Some("NVIDIA Test GPU 9000")
    );
}

/// A stand-in for podman: prints vLLM-like start-up lines for `$FAKE_MODE`, records its
/// arguments, and on SIGTERM notes that it was stopped. While it serves, `$FAKE_DIR/up`
/// exists: the fake vLLM of the test answers `/health` only then.
fn fake_launcher(dir: &Path) -> std::path::PathBuf {
    let path = dir.join("fake-podman");
    std::fs::write(
        &path,
        r#"#!/bin/sh
echo "$@" > "$FAKE_DIR/args"
port=""
previous=""
for arg in "$@"; do
    [ "$previous" = "--port" ] && port="$arg"
    previous="$arg"
done
forwarder=""
trap 'rm -f "$FAKE_DIR/up"; [ -n "$forwarder" ] && kill $forwarder; echo stopped > "$FAKE_DIR/stopped"; exit 0' TERM
# Where the test's fake server listens on a port of its own, this stand-in listens on the
# launched port and forwards to it, so that, as a real server's, the socket on its port is
# its own process group's.
if [ -f "$FAKE_DIR/upstream" ]; then
    python3 -c "$FORWARD" "$port" "$(cat "$FAKE_DIR/upstream")" &
    forwarder=$!
fi
echo "INFO 09-07 12:00:01 [api_server.py:1000] vLLM API server version 0.28.0"
echo "INFO 09-07 12:00:30 [gpu_model_runner.py:2000] Model loading took 21.9 GiB and 28.4 seconds"
case "$FAKE_MODE" in
serve)
    echo "INFO 09-07 12:00:41 [kv_cache_utils.py:1087] GPU KV cache size: 370,189 tokens"
    echo "INFO 09-07 12:00:41 [kv_cache_utils.py:1091] Maximum concurrency for 65,536 tokens per request: 5.65x"
    echo $$ > "$FAKE_DIR/pid"
    echo $$ > "$FAKE_DIR/up"
    while true; do sleep 0.05; done ;;
bind-lost)
    echo $$ > "$FAKE_DIR/up"
    sleep 0.5
    echo "main: couldn't bind HTTP server socket, hostname: 127.0.0.1, port: 8000"
    exit 1 ;;
kv)
    echo "ERROR 09-07 12:00:40 [core.py:700] EngineCore failed to start."
    echo "ValueError: To serve at least one request with the models's max seq len (65536), (4.12 GiB KV cache is needed, which is larger than the available KV cache memory (2.31 GiB). Based on the available memory, the estimated maximum model length is 36720. Try increasing \`gpu_memory_utilization\` or decreasing \`max_model_len\` when initializing the engine."
    echo "RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}"
    exit 1 ;;
oom)
    echo "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.02 GiB. GPU 0 has a total capacity of 31.36 GiB of which 612.00 MiB is free."
    echo "RuntimeError: Engine core initialization failed. See root cause above."
    exit 1 ;;
hang)
    while true; do sleep 0.05; done ;;
sglang-kv)
    echo "[2026-09-07 12:00:40] Scheduler hit an exception: Traceback (most recent call last):"
    echo "RuntimeError: Not enough memory. Please try to increase --mem-fraction-static. Current value: mem_fraction_static=0.5"
    exit 1 ;;
oom-first)
    touch "$FAKE_DIR/up"
    while [ ! -f "$FAKE_DIR/first-request" ]; do sleep 0.02; done
    rm -f "$FAKE_DIR/up"
    echo "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 31.36 GiB of which 1.10 GiB is free."
    exit 1 ;;
esac
"#,
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

fn launch_run(project: &Project, mode: &str, id: &str) -> Output {
    launch_run_with(
        project,
        mode,
        id,
        &["--ready-timeout", "2", "--stop-timeout", "5"],
    )
}

/// `collect run --launch` of the profile `fake` through the stand-in launcher in `mode`, with
/// `flags` added.
fn launch_run_with(project: &Project, mode: &str, id: &str, flags: &[&str]) -> Output {
    let dir = project.root.path();
    let launcher = fake_launcher(dir);
    let mut args = vec![
        "collect",
        "run",
        "--id",
        id,
        "--profile",
        "fake",
        "--shape",
        "Dense, 7B",
        "--precision",
        "BF16",
        "--launch",
    ];
    args.extend_from_slice(flags);
    project.run_with(
        &args,
        &[
            ("BENCHSITE_LAUNCH_PROGRAM", launcher.to_str().unwrap()),
            ("FAKE_MODE", mode),
            ("FAKE_DIR", dir.to_str().unwrap()),
            ("FORWARD", FORWARD),
        ],
    )
}

/// A TCP forwarder in Python: listens on 127.0.0.1 at `argv[1]` and passes each connection
/// to `argv[2]` and back, each read on at once.
const FORWARD: &str = r#"
import asyncio, sys
port, upstream = int(sys.argv[1]), int(sys.argv[2])
async def pipe(reader, writer):
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    finally:
        writer.close()
async def handle(reader, writer):
    up_reader, up_writer = await asyncio.open_connection("127.0.0.1", upstream)
    await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer), return_exceptions=True)
async def main():
    server = await asyncio.start_server(handle, "127.0.0.1", port)
    async with server:
        await server.serve_forever()
asyncio.run(main())
"#;

#[test]
fn a_launched_server_is_measured_with_its_log_and_stopped() {
    let _timed = timed();
    let port = free_port();
    let project = Project::copy_of_repo();
    let server = FakeVllm::start_on(
        Script {
            kv_tokens: None,
            max_model_len: 65536,
            tokens: 50,
            chunk_interval: Duration::from_millis(1),
            ready_file: Some(project.root.path().join("up")),
            ..Script::default()
        },
        port,
    );
    fake_profile(&project, port, 65536);
    let output = launch_run(&project, "serve", "fake-launched");
    output.assert_success();
    let dir = project.root.path();
    assert_eq!(
        std::fs::read_to_string(dir.join("stopped")).unwrap().trim(),
        "stopped"
    );
    let args = std::fs::read_to_string(dir.join("args")).unwrap();
    assert!(
        args.contains("example/vllm:test --model example/Fake-Model-7B"),
        "{args}"
    );
    assert!(
        args.contains(&format!("--port {port}")) && args.contains("--language-model-only"),
        "{args}"
    );
    let log = std::fs::read_to_string(dir.join("data/logs/fake-launched.log")).unwrap();
    assert!(log.contains("GPU KV cache size"), "{log}");
    let doc = project.results();
    let run = doc
        .runs
        .iter()
        .find(|r| r.id.as_str() == "fake-launched")
        .unwrap();
    assert_eq!(run.weights_gib, Some(21.9));
    assert_eq!(
        run.kv_tokens,
        Some(370_189),
        "from the log when /metrics has no pool"
    );
    assert_eq!(run.max_concurrency, Some(5.65));
    drop(server);
}

#[test]
fn a_launch_is_refused_while_another_server_answers_on_its_port() {
    let _timed = timed();
    let port = free_port();
    // Answering before anything was launched, as a server left running would.
    let _leftover = FakeVllm::start_on(Script::default(), port);
    let project = Project::copy_of_repo();
    fake_profile(&project, port, 65536);
    let output = launch_run(&project, "serve", "fake-leftover");
    assert_eq!(output.status.code(), Some(1), "{}", output.stderr);
    assert!(
        output.stderr.contains(&format!(
            "a server already answers on http://127.0.0.1:{port} before this one was started"
        )),
        "{}",
        output.stderr
    );
    assert!(
        !project.root.path().join("args").exists(),
        "nothing was started"
    );
    assert!(
        project
            .results()
            .runs
            .iter()
            .all(|r| r.id.as_str() != "fake-leftover")
    );
}

/// Two servers on one port, as two campaign tasks on one node started them: the launched one
/// loses the bind and exits, while another process's server answers the port. What answers
/// is not the launched process group's socket, so it is never taken for ready: the launch is
/// a failure quoting the log, and no run is measured through the other server.
#[test]
fn a_server_that_lost_its_port_to_another_is_a_failure_not_a_run() {
    let _timed = timed();
    let port = free_port();
    let project = Project::copy_of_repo();
    // The other server: healthy once the launched program has started (it writes `up`).
    let other = FakeVllm::start_on(
        Script {
            ready_file: Some(project.root.path().join("up")),
            ..Script::default()
        },
        port,
    );
    fake_profile(&project, port, 65536);
    let output = launch_run_with(
        &project,
        "bind-lost",
        "fake-bind-lost",
        &[
            "--launcher",
            "local",
            "--ready-timeout",
            "5",
            "--stop-timeout",
            "5",
        ],
    );
    assert_eq!(output.status.code(), Some(1), "{}", output.stderr);
    assert!(!output.stderr.contains("server ready"), "{}", output.stderr);
    assert_eq!(
        other.requests(),
        0,
        "nothing was measured through the other server"
    );
    let doc = project.results();
    assert!(doc.runs.iter().all(|r| r.id.as_str() != "fake-bind-lost"));
    let failure = doc
        .failures
        .iter()
        .find(|f| f.id.as_str() == "fake-bind-lost")
        .unwrap_or_else(|| panic!("{}", output.stderr));
    assert!(
        failure
            .reason
            .contains("while another process answered on its port")
            && failure.reason.contains("couldn't bind HTTP server socket"),
        "{}",
        failure.reason
    );
}

/// `collect sweep --launch` killed with SIGKILL mid-level: its guard stops the launched
/// server within a second, so nothing is left to answer the next launch.
#[test]
fn a_killed_sweep_leaves_no_launched_server_behind() {
    let _timed = timed();
    let port = free_port();
    let project = Project::copy_of_repo();
    let dir = project.root.path();
    let server = FakeVllm::start_on(
        Script {
            tokens: 300,
            chunk_interval: Duration::from_millis(5),
            ready_file: Some(dir.join("up")),
            ..Script::default()
        },
        port,
    );
    fake_profile(&project, port, 65536);
    let launcher = fake_launcher(dir);
    let mut child = Command::new(env!("CARGO_BIN_EXE_benchsite"))
        .arg("--root")
        .arg(dir)
        .args([
            "collect",
            "sweep",
            "--label",
            "killed",
            "--levels",
            "1,2,4",
            "--prompt-words",
            "20",
            "--output-tokens",
            "300",
            "--profile",
            "fake",
            "--launch",
            "--ready-timeout",
            "5",
        ])
        .env("BENCHSITE_LAUNCH_PROGRAM", &launcher)
        .env("FAKE_MODE", "serve")
        .env("FAKE_DIR", dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while server.requests() == 0 {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "no request sent"
        );
        assert!(child.try_wait().unwrap().is_none(), "the sweep ended early");
        std::thread::sleep(Duration::from_millis(5));
    }
    let pid: u32 = std::fs::read_to_string(dir.join("pid"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    child.kill().unwrap();
    child.wait().unwrap();
    let killed = Instant::now();
    while fake_vllm::running(pid) {
        assert!(
            killed.elapsed() < Duration::from_secs(1),
            "the launched server outlived the sweep"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn launch_failures_are_classified_from_the_log() {
    let _timed = timed();
    for (mode, status, quoted) in [
        (
            "kv",
            FailureStatus::InsufficientKv,
            "KV cache is needed, which is larger than the available KV cache memory",
        ),
        (
            "oom",
            FailureStatus::OomAtStartup,
            "CUDA out of memory. Tried to allocate 1.02 GiB",
        ),
        ("hang", FailureStatus::Crashed, "was not ready after 2 s"),
    ] {
        let project = Project::copy_of_repo();
        fake_profile(&project, free_port(), 65536);
        let id = format!("fake-{mode}");
        let output = launch_run(&project, mode, &id);
        assert_eq!(
            output.status.code(),
            Some(1),
            "{mode}: {}\n{}",
            output.stdout,
            output.stderr
        );
        let doc = project.results();
        let failure = doc
            .failures
            .iter()
            .find(|f| f.id.as_str() == id)
            .unwrap_or_else(|| panic!("{mode}: {}", output.stderr));
        assert_eq!(failure.status, status, "{mode}: {}", failure.reason);
        assert!(
            failure.reason.contains(quoted),
            "{mode}: {}",
            failure.reason
        );
        assert_eq!(failure.weights_gib, Some(21.9));
        assert_eq!(failure.checkpoint, "example/Fake-Model-7B");
        // The engine, and its version as its log states it.
        assert_eq!(failure.engine, Some(benchsite::profiles::Engine::Vllm));
        assert_eq!(failure.server.as_deref(), Some("vLLM 0.28.0"), "{mode}");
        // The server's log is kept with the failure, compressed, as a campaign keeps it.
        let kept = format!("data/logs/{id}.log.gz");
        assert_eq!(failure.log.as_deref(), Some(kept.as_str()), "{mode}");
        let dir = project.root.path();
        assert!(!dir.join(format!("data/logs/{id}.log")).exists(), "{mode}");
        let mut log = String::new();
        std::io::Read::read_to_string(
            &mut flate2::read::GzDecoder::new(std::fs::File::open(dir.join(&kept)).unwrap()),
            &mut log,
        )
        .unwrap();
        assert!(log.contains("Model loading took 21.9 GiB"), "{mode}: {log}");
        if mode != "hang" {
            assert!(log.contains(quoted), "{mode}: {log}");
        }
        if mode == "kv" {
            // The report offers it for download from the failure's page.
            project.run(&["build"]).assert_success();
            assert!(dir.join(format!("site/data/logs/{id}.log.gz")).exists());
            let page = project.page(&format!("failures/{id}/index.html"));
            assert!(page.contains(&format!("/data/logs/{id}.log.gz")), "{page}");
        }
        if mode == "hang" {
            assert!(
                project.root.path().join("stopped").exists(),
                "the hung server was stopped"
            );
        }
        check_is_clean(&project);
    }
}

/// An SGLang profile started through a stand-in program (SGLang cannot run here): the
/// stand-in is given SGLang's own arguments, read from its `server_args.py`, and a start-up
/// that ends in SGLang's KV-pool error is a failure classified from SGLang's words.
#[test]
fn an_sglang_profile_starts_sglang_and_its_failure_is_read_in_its_words() {
    let _timed = timed();
    let port = free_port();
    let project = Project::copy_of_repo();
    // Launched locally, the server's socket must be its own: the stand-in forwards its port
    // to the fake's.
    let upstream = free_port();
    project.write("upstream", &upstream.to_string());
    let server = FakeVllm::start_on(
        Script {
            max_model_len: 32768,
            tokens: 20,
            chunk_interval: Duration::from_millis(1),
            ready_file: Some(project.root.path().join("up")),
            ..Script::default()
        },
        upstream,
    );
    project.write(
        "profiles/fake.env",
        &format!(
            "ENGINE=sglang\nMODEL=example/Fake-Model-7B\nSERVED_MODEL_NAME=Fake-Model-7B\nPORT={port}\nMAX_MODEL_LEN=32768\nMAX_NUM_SEQS=8\nMEM_FRACTION_STATIC=0.8\nKV_CACHE_DTYPE=fp8_e4m3\n"
        ),
    );
    let launch = |mode: &str, id: &str| {
        let flags = [
            "--launcher",
            "local",
            "--ready-timeout",
            "5",
            "--stop-timeout",
            "5",
        ];
        launch_run_with(
            &project,
            mode,
            id,
            &[&flags[..], &["--samples", "2"]].concat(),
        )
    };
    launch("serve", "fake-sglang").assert_success();
    let args = std::fs::read_to_string(project.root.path().join("args")).unwrap();
    assert_eq!(
        args.trim(),
        format!(
            "-m sglang.launch_server --model-path example/Fake-Model-7B --served-model-name Fake-Model-7B --port {port} --context-length 32768 --max-running-requests 8 --mem-fraction-static 0.8 --kv-cache-dtype fp8_e4m3 --enable-metrics --host 127.0.0.1"
        )
    );
    assert!(project.root.path().join("stopped").exists());
    let failed = launch("sglang-kv", "fake-sglang-kv");
    assert_eq!(failed.status.code(), Some(1), "{}", failed.stderr);
    let doc = project.results();
    let failure = doc
        .failures
        .iter()
        .find(|f| f.id.as_str() == "fake-sglang-kv")
        .unwrap();
    assert_eq!(
        failure.status,
        FailureStatus::InsufficientKv,
        "{}",
        failure.reason
    );
    assert!(
        failure.reason.contains(
            "“RuntimeError: Not enough memory. Please try to increase --mem-fraction-static."
        ),
        "{}",
        failure.reason
    );
    assert_eq!(failure.engine, Some(benchsite::profiles::Engine::Sglang));
    drop(server);
}

#[test]
fn a_server_dying_on_the_first_request_is_oom_at_first_request() {
    let _timed = timed();
    let port = free_port();
    let project = Project::copy_of_repo();
    let server = FakeVllm::start_on(
        Script {
            max_model_len: 65536,
            fail: vec![1],
            touch_on_first_request: Some(project.root.path().join("first-request")),
            ready_file: Some(project.root.path().join("up")),
            ..Script::default()
        },
        port,
    );
    fake_profile(&project, port, 65536);
    let started = Instant::now();
    let output = launch_run(&project, "oom-first", "fake-oom-first");
    assert_eq!(
        output.status.code(),
        Some(1),
        "{}\n{}",
        output.stdout,
        output.stderr
    );
    assert!(started.elapsed() < Duration::from_secs(20));
    let doc = project.results();
    let failure = doc
        .failures
        .iter()
        .find(|f| f.id.as_str() == "fake-oom-first")
        .unwrap();
    assert_eq!(
        failure.status,
        FailureStatus::OomAtFirstRequest,
        "{}",
        failure.reason
    );
    assert!(
        failure.reason.contains("Tried to allocate 2.00 GiB"),
        "{}",
        failure.reason
    );
    drop(server);
}

#[test]
fn a_server_that_is_not_vllm_leaves_out_what_it_does_not_expose() {
    let _timed = timed();
    let script = Script {
        version: None,
        kv_tokens: None,
        usage: false,
        max_model_len: 65536,
        tokens: 40,
        ..Script::default()
    };
    // By hand: 40 one-token chunks 4 ms apart: 39 tokens in 39 × 4 ms.
    let expected = 250.0;
    let server = FakeVllm::start(script);
    let project = Project::copy_of_repo();
    fake_profile(&project, server.addr.port(), 65536);
    let output = fake_run(
        &project,
        &server,
        "fake-llamacpp",
        &["--precision", "Q4_K_M", "--max-tokens", "40"],
    );
    output.assert_success();
    assert!(
        output
            .stderr
            .contains("warning: the server has no /version"),
        "{}",
        output.stderr
    );
    assert!(
        output
            .stderr
            .contains("warning: the server reports no KV-cache pool"),
        "{}",
        output.stderr
    );
    let doc = project.results();
    let run = doc
        .runs
        .iter()
        .find(|r| r.id.as_str() == "fake-llamacpp")
        .unwrap();
    // No usage report: the tokenizer counted 40 tokens, so the rate is still the one sent.
    samples_as_sent(run, &server);
    assert!(
        within(run.decode_tok_s, expected, 0.05),
        "{} vs {expected}",
        run.decode_tok_s
    );
    assert!(
        run.notes.as_deref().unwrap().contains("/tokenize"),
        "{:?}",
        run.notes
    );
    assert_eq!(
        (
            run.vllm_version.as_deref(),
            run.kv_tokens,
            run.max_concurrency
        ),
        (None, None, None)
    );
    check_is_clean(&project);
}

#[test]
fn a_refused_field_is_named_once_dropped_and_noted() {
    let _timed = timed();
    let script = Script {
        refuse: Some("top_k".into()),
        tokens: 40,
        chunk_interval: Duration::from_millis(1),
        ..Script::default()
    };
    let server = FakeVllm::start(script);
    let project = Project::copy_of_repo();
    fake_profile(&project, server.addr.port(), 32768);
    let output = fake_run(&project, &server, "fake-refused", &["--precision", "BF16"]);
    output.assert_success();
    let said: Vec<&str> = output
        .stderr
        .lines()
        .filter(|line| line.starts_with("the server refused"))
        .collect();
    assert_eq!(said.len(), 1, "{}", output.stderr);
    assert!(
        said[0].starts_with("the server refused the field top_k (HTTP 500: 1 validation error:")
            && said[0].ends_with("; sending without it"),
        "{}",
        said[0]
    );
    assert_eq!(
        server.requests(),
        5,
        "the refused one, the cold one, three samples"
    );
    let bodies = server.bodies();
    assert_eq!(bodies[0]["top_k"], -1);
    assert!(bodies[1..].iter().all(|b| b.get("top_k").is_none()));
    let doc = project.results();
    let run = doc
        .runs
        .iter()
        .find(|r| r.id.as_str() == "fake-refused")
        .unwrap();
    let notes = run.notes.as_deref().unwrap();
    assert!(
        notes.contains("The server refused top_k (HTTP 500: 1 validation error:"),
        "{notes}"
    );
    assert_eq!(run.server.as_deref(), Some("vLLM 0.28.0"));

    // A sweep sends its first level again without the field.
    let output = project.run_with(&sweep_args(&server.url(), "refused", "1,2"), &[]);
    output.assert_success();
    let doc = project.results();
    let sweep = doc.sweeps.iter().find(|s| s.label == "refused").unwrap();
    let counts: Vec<_> = sweep
        .levels
        .iter()
        .map(|l| (l.succeeded, l.failed))
        .collect();
    assert_eq!(counts, [(2, 0), (4, 0)]);
    assert!(
        sweep
            .notes
            .as_deref()
            .unwrap()
            .contains("The server refused top_k")
    );
    check_is_clean(&project);
}

#[test]
fn a_server_without_health_is_alive_and_a_failed_level_names_its_cause_once() {
    let _timed = timed();
    let script = Script {
        health: false,
        version: None,
        usage: false,
        fail: vec![1, 2],
        tokens: 30,
        chunk_interval: Duration::from_millis(1),
        ..Script::default()
    };
    let server = FakeVllm::start(script);
    let project = Project::copy_of_repo();
    let output = project.run_with(&sweep_args(&server.url(), "no health", "1,2"), &[]);
    output.assert_success();
    assert!(!output.stderr.contains("stopped"), "{}", output.stderr);
    let cause = "concurrency 1: 2 of 2 requests failed (2 × HTTP 500: scripted failure)";
    assert_eq!(output.stderr.matches(cause).count(), 1, "{}", output.stderr);
    let doc = project.results();
    let sweep = doc.sweeps.iter().find(|s| s.label == "no health").unwrap();
    let statuses: Vec<_> = sweep.levels.iter().map(|l| l.status).collect();
    assert_eq!(statuses, [LevelStatus::Failed, LevelStatus::Ok]);
    let notes = sweep.notes.as_deref().unwrap();
    assert!(notes.contains(&format!("{cause}.")), "{notes}");
    // No usage report: the fake's /tokenize counted every answer, 30 tokens.
    assert_eq!(sweep.levels[1].output_tokens, Some(30));
    assert!(
        notes.contains("approximately, by re-tokenizing the answer's text with its /tokenize"),
        "{notes}"
    );
    assert!(notes.contains("The server has no /version"), "{notes}");
    assert_eq!(sweep.vllm_version, None);
}

#[test]
fn metrics_that_cannot_be_read_cost_no_measurement() {
    let _timed = timed();
    let openmetrics = include_str!("fixtures/metrics/openmetrics.txt");
    let broken = openmetrics.replace(
        "num_gpu_blocks=\"23136\"} 1.0",
        "num_gpu_blocks=\"23136\" 1.0",
    );
    for (text, kv_tokens) in [(openmetrics.to_owned(), Some(370_189)), (broken, None)] {
        let server = FakeVllm::start(Script {
            metrics_text: Some(text),
            tokens: 40,
            chunk_interval: Duration::from_millis(1),
            ..Script::default()
        });
        let project = Project::copy_of_repo();
        fake_profile(&project, server.addr.port(), 32768);
        let output = fake_run(&project, &server, "fake-metrics", &["--precision", "BF16"]);
        output.assert_success();
        let doc = project.results();
        let run = doc
            .runs
            .iter()
            .find(|r| r.id.as_str() == "fake-metrics")
            .unwrap();
        assert_eq!(run.kv_tokens, kv_tokens);
        if kv_tokens.is_none() {
            let warning = "warning: the server reports no KV-cache pool (vllm:cache_config_info, sglang:max_total_num_tokens), and one /metrics line could not be read (line 3: expected label=\"value\" in \"1.0\"); kv_tokens and max_concurrency are left out";
            assert!(output.stderr.contains(warning), "{}", output.stderr);
            assert!(
                run.notes
                    .as_deref()
                    .unwrap()
                    .contains("one /metrics line could not be read"),
                "{:?}",
                run.notes
            );
        }
    }
}

/// A `vllm bench serve` file whose answers came in bursts (a buffering proxy in front of the
/// server it measured): by hand, each answer's first token at 1.0 s and its other 10 or 20
/// chunks within 10 µs of each other. Divided by that instant, the per-request rates would be
/// about 100,000 tok/s per stream; the import checks the answers by the measured levels' rule,
/// and the file keeps no engine figures, so the per-stream figures are withheld, never drawn,
/// and the sweep page says the answers came in bursts. It was run with `--ignore-eos`, which
/// its file does not say and the import is told.
#[test]
fn a_vllm_bench_file_of_bursts_records_no_per_stream_rate() {
    let project = Project::copy_of_repo();
    let detailed = repo().join(
        "tests/fixtures/vllm-bench/openai-chat-infqps-concurrency2-Qwen3-8B-20251203-141500.json",
    );
    let mut result: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&detailed).unwrap()).unwrap();
    result["ttfts"] = serde_json::json!([1.0, 1.0, 0.0]);
    result["itls"] = serde_json::json!([vec![1e-5; 10], vec![1e-5; 20], []]);
    result["latencies"] = serde_json::json!([1.0001, 1.0002, 0.0]);
    let path = project.root.path().join("bursts.json");
    std::fs::write(&path, result.to_string()).unwrap();
    project
        .run(&[
            "collect",
            "import",
            "vllm-bench",
            path.to_str().unwrap(),
            "--label",
            "bursts",
            "--ignore-eos",
        ])
        .assert_success();
    let doc = project.results();
    let sweep = doc.sweeps.iter().find(|s| s.label == "bursts").unwrap();
    // The file does not say it ran with ignore_eos; the caller does, and the record keeps it.
    assert!(sweep.workload.ignore_eos);
    let notes = sweep.notes.as_deref().unwrap();
    assert!(
        notes.contains("ignore_eos is as given with --ignore-eos"),
        "{notes}"
    );
    let level = &sweep.levels[0];
    let delivery = level.delivery.as_ref().unwrap();
    assert_eq!((delivery.answers, delivery.bursts), (2, 2));
    assert_eq!(delivery.per_stream, data::PerStream::Withheld);
    assert_eq!(
        (
            level.decode_tok_s_per_stream,
            level.tpot_p50_ms,
            level.itl_p50_ms
        ),
        (None, None, None)
    );
    check_is_clean(&project);
    project.run(&["build"]).assert_success();
    let page = project.page("sweeps/bursts/index.html");
    assert!(page.contains("delivered in bursts"), "{page}");
}

/// `vllm bench serve --request-rate 2` and `4` (the detailed concurrency-2 result with its
/// rate, burstiness and cap set as such a run writes them) become an open-loop sweep at 2 and
/// 4 req/s of Poisson arrivals: its wall time and requests answered a second are the file's
/// `duration` (2.4 s) and `request_throughput` (1.25). A rate beside an unbounded rate is
/// refused.
#[test]
fn a_vllm_bench_request_rate_is_an_open_loop_level() {
    let project = Project::copy_of_repo();
    let detailed = repo().join(
        "tests/fixtures/vllm-bench/openai-chat-infqps-concurrency2-Qwen3-8B-20251203-141500.json",
    );
    let result: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&detailed).unwrap()).unwrap();
    let at = |rate: f64| {
        let mut result = result.clone();
        result["request_rate"] = rate.into();
        result["max_concurrency"] = serde_json::Value::Null;
        let path = project.root.path().join(format!("rate-{rate}.json"));
        std::fs::write(&path, result.to_string()).unwrap();
        path.to_str().unwrap().to_owned()
    };
    let (two, four) = (at(2.0), at(4.0));
    let output = project.run(&[
        "collect",
        "import",
        "vllm-bench",
        &four,
        &two,
        "--label",
        "rates",
    ]);
    output.assert_success();
    let doc = project.results();
    let sweep = doc.sweeps.iter().find(|s| s.label == "rates").unwrap();
    let arrivals = sweep.workload.arrivals.as_ref().unwrap();
    assert_eq!(
        (
            arrivals.burstiness,
            arrivals.seed,
            arrivals.max_concurrency,
            arrivals.requests
        ),
        (1.0, None, None, 4)
    );
    let rates: Vec<Option<f64>> = sweep.levels.iter().map(|l| l.rate_rps).collect();
    assert_eq!(rates, [Some(2.0), Some(4.0)]);
    for level in &sweep.levels {
        assert_eq!(
            (level.concurrency, level.succeeded, level.failed),
            (None, 3, 1)
        );
        assert_eq!((level.wall_s, level.achieved_rps), (Some(2.4), Some(1.25)));
    }
    // Its per-request arrays are the sweep's per-request data: per level, TTFTs 0.1, 0.2
    // and 0.3 s, latencies 1.1, 2.2 and 1.3 s and 11, 21 and 16 tokens, and request 3
    // failed with its error.
    let lines = data::read_request_log(
        &project
            .root
            .path()
            .join(sweep.request_log.as_deref().unwrap()),
    )
    .unwrap();
    for level in 0..2 {
        let of: Vec<_> = lines.iter().filter(|l| l.level == level).collect();
        let answered: Vec<(Option<f64>, Option<f64>, Option<u64>)> = of
            .iter()
            .filter(|l| l.status == data::RequestStatus::Ok)
            .map(|l| (l.ttft_s, l.latency_s, l.output_tokens))
            .collect();
        assert_eq!(
            answered,
            [
                (Some(0.1), Some(1.1), Some(11)),
                (Some(0.2), Some(2.2), Some(21)),
                (Some(0.3), Some(1.3), Some(16))
            ]
        );
        assert_eq!(of[2].error.as_deref(), Some("Internal Server Error"));
    }
    check_is_clean(&project);
    let closed = detailed.to_str().unwrap();
    let mixed = project.run(&[
        "collect",
        "import",
        "vllm-bench",
        closed,
        &two,
        "--label",
        "mixed",
    ]);
    assert!(!mixed.status.success());
    assert!(
        mixed.stderr.contains("were not measured the same way"),
        "{}",
        mixed.stderr
    );
}

#[test]
fn vllm_bench_result_files_become_one_sweep_with_each_figure_sourced() {
    let _timed = timed();
    let project = Project::copy_of_repo();
    let dir = repo().join("tests/fixtures/vllm-bench");
    let detailed = dir.join("openai-chat-infqps-concurrency2-Qwen3-8B-20251203-141500.json");
    let summary = dir.join("openai-chat-infqps-concurrency8-Qwen3-8B-20251203-141900.json");
    let output = project.run(&[
        "collect",
        "import",
        "vllm-bench",
        summary.to_str().unwrap(),
        detailed.to_str().unwrap(),
        "--label",
        "qwen3-8b vllm bench",
    ]);
    output.assert_success();
    assert!(
        output.stdout.contains("2 levels imported"),
        "{}",
        output.stdout
    );
    let doc = project.results();
    let sweep = doc
        .sweeps
        .iter()
        .find(|s| s.label == "qwen3-8b vllm bench")
        .unwrap();
    assert_eq!(sweep.model, "Qwen/Qwen3-8B");
    assert_eq!(sweep.generated.to_string(), "2025-12-03");
    let [two, eight] = &sweep.levels[..] else {
        panic!("{:?}", sweep.levels)
    };
    // --save-detailed, by hand: the failed third request is left out; TTFTs 0.1, 0.2, 0.3
    // (p95 at rank 1.9: 0.29), latencies 1.1, 2.2, 1.3 (p50 1.3, p95 1.3 + 0.9 × 0.9 = 2.11),
    // per-request times per output token 1.0/10, 2.0/20, 1.0/15 s (mean 0.08889 s: vLLM's
    // per-stream rate, 1000 / mean TPOT, is 11.25 tok/s), outputs 11, 21, 16.
    assert_eq!(
        (two.concurrency, two.requests, two.succeeded, two.failed),
        (Some(2), 4, 3, 1)
    );
    assert_eq!((two.ttft_p50_s, two.ttft_p95_s), (Some(0.2), Some(0.29)));
    assert_eq!(
        (two.latency_p50_s, two.latency_p95_s),
        (Some(1.3), Some(2.11))
    );
    assert_eq!(two.decode_tok_s_per_stream, Some(11.3));
    // TPOT per request is 1000 / the rate: 100, 100, 66.67 ms; p50 100, p95 100.
    assert_eq!(
        (two.tpot_p50_ms, two.tpot_p95_ms),
        (Some(100.0), Some(100.0))
    );
    assert_eq!(
        (two.output_tokens, two.prompt_tokens),
        (Some(16), Some(100))
    );
    assert_eq!(two.total_tok_s, Some(20.0));
    // Inter-token latency from the per-request itls: 10 and 20 gaps of 100 ms and 15 of
    // 66.667 ms (45), so 15 below 100 and every percentile from rank 22 up 100 ms; chunks are
    // one more than gaps, 11 + 21 + 16 = 48 for 48 tokens.
    assert_eq!(
        (
            two.itl_p50_ms,
            two.itl_p99_ms,
            two.max_stall_ms,
            two.itl_gaps
        ),
        (Some(100.0), Some(100.0), Some(100.0), Some(45))
    );
    assert_eq!(
        (two.tokens_per_chunk, two.bunched_share),
        (Some(1.0), Some(0.0))
    );
    assert!(
        two.source
            .as_deref()
            .unwrap()
            .contains("recomputed from the per-request ttfts")
    );
    // Summary only: median_ttft_ms, no p95_ttft_ms (percentiles 50,90,99), latencies kept,
    // 1000 / mean_tpot_ms 8.0 = 125, totals over 16 completed.
    assert_eq!((eight.ttft_p50_s, eight.ttft_p95_s), (Some(0.14), None));
    assert_eq!(
        (eight.latency_p50_s, eight.latency_p95_s),
        (Some(2.0), Some(2.0))
    );
    assert_eq!(eight.decode_tok_s_per_stream, Some(125.0));
    // median_tpot_ms 7.9; no p95_tpot_ms in the file.
    assert_eq!((eight.tpot_p50_ms, eight.tpot_p95_ms), (Some(7.9), None));
    assert_eq!(
        (eight.output_tokens, eight.prompt_tokens),
        (Some(256), Some(101))
    );
    let source = eight.source.as_deref().unwrap();
    assert!(source.contains("summary fields only"), "{source}");
    assert!(source.contains("not in the file: p95_ttft_ms"), "{source}");
    assert!(
        sweep
            .source
            .as_deref()
            .unwrap()
            .starts_with("vllm bench serve --save-result: ")
    );
    check_is_clean(&project);
    // Its page says where the figures came from.
    project.run(&["build"]).assert_success();
    let page = project.page(&format!("sweeps/{}/index.html", sweep.slug()));
    assert!(
        page.contains("summary fields only"),
        "the level sources on the page"
    );

    // One file per level; and the file's own fault is named.
    let twice = project.run(&[
        "collect",
        "import",
        "vllm-bench",
        summary.to_str().unwrap(),
        summary.to_str().unwrap(),
        "--label",
        "twice",
    ]);
    assert!(
        twice
            .stderr
            .contains("both ran at concurrency 8: one result per level"),
        "{}",
        twice.stderr
    );
    project.write(
        "data/no-concurrency.json",
        r#"{"completed": 3, "max_concurrency": null}"#,
    );
    let bad = project.run(&[
        "collect",
        "import",
        "vllm-bench",
        "data/no-concurrency.json",
        "--label",
        "bad",
    ]);
    assert!(
        bad.stderr.contains("error: data/no-concurrency.json: max_concurrency is null: run vllm bench serve with --max-concurrency"),
        "{}",
        bad.stderr
    );
}

#[test]
fn sglang_bench_serving_lines_become_one_sweep() {
    let _timed = timed();
    let project = Project::copy_of_repo();
    let file = repo().join("tests/fixtures/sglang/sglang-oai-chat_1203_20_100_256.jsonl");
    let output = project.run(&[
        "collect",
        "import",
        "sglang",
        file.to_str().unwrap(),
        "--label",
        "qwen3-8b sglang",
    ]);
    output.assert_success();
    let doc = project.results();
    let sweep = doc
        .sweeps
        .iter()
        .find(|s| s.label == "qwen3-8b sglang")
        .unwrap();
    assert_eq!(sweep.model, "Qwen/Qwen3-8B", "from server_info.model_path");
    let [one, four] = &sweep.levels[..] else {
        panic!("{:?}", sweep.levels)
    };
    // --output-details, by hand: the third request's error leaves it out; TTFTs 0.1, 0.2, 0.3
    // (p95 at rank 1.9: 0.29); latencies TTFT + the gaps: 1.1, 2.2, 1.3 (p50 1.3, p95
    // 1.3 + 0.9 × 0.9 = 2.11); per-request rates (11 − 1) / 1.0, (21 − 1) / 2.0,
    // (11 − 1) / 1.0, all 10; outputs 11, 21, 11 (median 11).
    assert_eq!(
        (one.concurrency, one.requests, one.succeeded, one.failed),
        (Some(1), 4, 3, 1)
    );
    assert_eq!((one.ttft_p50_s, one.ttft_p95_s), (Some(0.2), Some(0.29)));
    assert_eq!(
        (one.latency_p50_s, one.latency_p95_s),
        (Some(1.3), Some(2.11))
    );
    assert_eq!(one.decode_tok_s_per_stream, Some(10.0));
    assert_eq!(
        (one.output_tokens, one.prompt_tokens),
        (Some(11), Some(100))
    );
    assert_eq!(one.total_tok_s, Some(20.0));
    // Summary only: median_ttft_ms 140, median_e2e_latency_ms 2000, 1000 / mean_tpot_ms 8.0
    // = 125, 4096 and 1616 tokens over 16 completed; SGLang writes no p95 of either.
    assert_eq!(
        (four.concurrency, four.requests, four.succeeded, four.failed),
        (Some(4), 16, 16, 0)
    );
    assert_eq!((four.ttft_p50_s, four.ttft_p95_s), (Some(0.14), None));
    assert_eq!((four.latency_p50_s, four.latency_p95_s), (Some(2.0), None));
    assert_eq!(four.decode_tok_s_per_stream, Some(125.0));
    assert_eq!(
        (four.output_tokens, four.prompt_tokens),
        (Some(256), Some(101))
    );
    assert_eq!(four.total_tok_s, Some(512.0));
    assert!(
        four.source
            .as_deref()
            .unwrap()
            .contains("SGLang's summary has no p95 of TTFT or latency")
    );
    // The first level's per-request arrays are the sweep's per-request data: the three
    // answers above, and the third request with its error; the summary-only level has none.
    let lines = data::read_request_log(
        &project
            .root
            .path()
            .join(sweep.request_log.as_deref().unwrap()),
    )
    .unwrap();
    let kept: Vec<_> = lines
        .iter()
        .map(|l| (l.level, l.ttft_s, l.latency_s, l.error.as_deref()))
        .collect();
    assert_eq!(
        kept,
        [
            (0, Some(0.1), Some(1.1), None),
            (0, Some(0.2), Some(2.2), None),
            (0, None, None, Some("Timeout on the server")),
            (0, Some(0.3), Some(1.3), None)
        ]
    );
    let source = sweep.source.as_deref().unwrap();
    assert!(
        source.starts_with("sglang bench_serving --output-file: ")
            && source.ends_with("sglang-oai-chat_1203_20_100_256.jsonl"),
        "{source}"
    );
    check_is_clean(&project);
}

#[test]
fn aiperf_and_genai_perf_exports_become_one_sweep() {
    let _timed = timed();
    let project = Project::copy_of_repo();
    let dir = repo().join("tests/fixtures/aiperf");
    let aiperf = dir.join("concurrency1/profile_export_aiperf.json");
    let genai = dir.join("concurrency4/profile_export_genai_perf.json");
    let output = project.run(&[
        "collect",
        "import",
        "aiperf",
        genai.to_str().unwrap(),
        aiperf.to_str().unwrap(),
        "--label",
        "qwen3-8b aiperf",
    ]);
    output.assert_success();
    let doc = project.results();
    let sweep = doc
        .sweeps
        .iter()
        .find(|s| s.label == "qwen3-8b aiperf")
        .unwrap();
    assert_eq!(sweep.model, "Qwen/Qwen3-8B");
    assert_eq!(
        sweep.generated.to_string(),
        "2025-12-03",
        "AIPerf's start_time"
    );
    assert_eq!(sweep.base_url, "http://gpu1:8000");
    let [one, four] = &sweep.levels[..] else {
        panic!("{:?}", sweep.levels)
    };
    // AIPerf, concurrency from input_config.loadgen: 10 requests; TTFT p50 120 ms, p95
    // 180.5 ms; latency p50 2,100 ms, p95 2,400 ms; per user 101.24 tok/s; 200.4 and 512
    // tokens; 98.76 tok/s in all.
    assert_eq!(
        (one.concurrency, one.requests, one.succeeded, one.failed),
        (Some(1), 10, 10, 0)
    );
    assert_eq!((one.ttft_p50_s, one.ttft_p95_s), (Some(0.12), Some(0.1805)));
    assert_eq!(
        (one.latency_p50_s, one.latency_p95_s),
        (Some(2.1), Some(2.4))
    );
    assert_eq!(one.decode_tok_s_per_stream, Some(101.2));
    // inter_token_latency is per request (latency − TTFT) / (output − 1): TPOT p50 and p95.
    assert_eq!((one.tpot_p50_ms, one.tpot_p95_ms), (Some(9.8), Some(10.5)));
    assert_eq!(
        (one.output_tokens, one.prompt_tokens),
        (Some(200), Some(512))
    );
    assert_eq!(one.total_tok_s, Some(98.8));
    assert!(one.source.as_deref().unwrap().contains("(AIPerf 0.3.0)"));
    // genai-perf, concurrency and the request count from the flat input_config: 40
    // requests; TTFT 150 / 260 ms; latency 2,300 / 2,900 ms; per request 104.6 tok/s;
    // 199.6 → 200 and 511.8 → 512 tokens; 350.24 tok/s in all.
    assert_eq!(
        (four.concurrency, four.requests, four.succeeded, four.failed),
        (Some(4), 40, 40, 0)
    );
    assert_eq!((four.ttft_p50_s, four.ttft_p95_s), (Some(0.15), Some(0.26)));
    assert_eq!(
        (four.latency_p50_s, four.latency_p95_s),
        (Some(2.3), Some(2.9))
    );
    assert_eq!(four.decode_tok_s_per_stream, Some(104.6));
    assert_eq!(
        (four.tpot_p50_ms, four.tpot_p95_ms),
        (Some(9.5), Some(10.4))
    );
    assert_eq!(
        (four.output_tokens, four.prompt_tokens),
        (Some(200), Some(512))
    );
    assert_eq!(four.total_tok_s, Some(350.2));
    let source = four.source.as_deref().unwrap();
    assert!(
        source.contains("(genai-perf)")
            && source.contains("the avg of output_token_throughput_per_request"),
        "{source}"
    );
    check_is_clean(&project);
    // A file with no concurrency anywhere says where it looked.
    let mut blind: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&aiperf).unwrap()).unwrap();
    blind["input_config"]["loadgen"]
        .as_object_mut()
        .unwrap()
        .remove("concurrency");
    project.write("blind.json", &blind.to_string());
    let refused = project.run(&[
        "collect",
        "import",
        "aiperf",
        project.root.path().join("blind.json").to_str().unwrap(),
        "--label",
        "blind",
    ]);
    assert!(!refused.status.success());
    assert!(
        refused.stderr.contains(
            "blind.json: no concurrency in input_config (loadgen.concurrency, concurrency or perf_analyzer.stimulus.concurrency) or run_info.variation_values"
        ),
        "{}",
        refused.stderr
    );
}

/// guidellm's Poisson benchmarks are open-loop levels at their rates: the report's
/// synchronous benchmark as `poisson` at 0.5 req/s (seed 42) and its four-stream one at
/// 2 req/s keep their figures (worked by hand below) and their durations, 2.4 s and 2.5 s:
/// 2 and 4 answered, 0.833 and 1.6 a second. The synchronous and throughput benchmarks of a
/// report that has rates are left out.
#[test]
fn guidellm_poisson_benchmarks_are_open_loop_levels() {
    let project = Project::copy_of_repo();
    let report: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(repo().join("tests/fixtures/guidellm/benchmarks.json")).unwrap(),
    )
    .unwrap();
    let mut rated = report.clone();
    let benchmarks = rated["benchmarks"].as_array_mut().unwrap();
    for benchmark in benchmarks.iter_mut() {
        let strategy = &mut benchmark["config"]["strategy"];
        let rate = match strategy["type_"].as_str().unwrap() {
            "synchronous" => 0.5,
            "concurrent" => 2.0,
            _ => continue,
        };
        *strategy = serde_json::json!({"type_": "poisson", "rate": rate, "random_seed": 42});
    }
    let path = project.root.path().join("poisson.json");
    std::fs::write(&path, rated.to_string()).unwrap();
    let output = project.run(&[
        "collect",
        "import",
        "guidellm",
        path.to_str().unwrap(),
        "--label",
        "poisson",
    ]);
    output.assert_success();
    let doc = project.results();
    let sweep = doc.sweeps.iter().find(|s| s.label == "poisson").unwrap();
    let arrivals = sweep.workload.arrivals.as_ref().unwrap();
    assert_eq!(
        (arrivals.process, arrivals.burstiness, arrivals.seed),
        (data::Process::Gamma, 1.0, Some(42))
    );
    let levels: Vec<_> = sweep
        .levels
        .iter()
        .map(|l| (l.rate_rps, l.succeeded, l.wall_s, l.achieved_rps))
        .collect();
    assert_eq!(
        levels,
        [
            (Some(0.5), 2, Some(2.4), Some(0.833)),
            (Some(2.0), 4, Some(2.5), Some(1.6))
        ]
    );
    assert_eq!(sweep.levels[0].ttft_p95_s, Some(0.195));
    // The first level's two records are every request it sent: its per-request data (TTFT
    // 0.1 and 0.2 s, latency 1.1 and 1.0 s); the second level's summary has none.
    let lines = data::read_request_log(
        &project
            .root
            .path()
            .join(sweep.request_log.as_deref().unwrap()),
    )
    .unwrap();
    let kept: Vec<(usize, Option<f64>, Option<f64>)> = lines
        .iter()
        .map(|l| (l.level, l.ttft_s, l.latency_s))
        .collect();
    assert_eq!(kept, [(0, Some(0.1), Some(1.1)), (0, Some(0.2), Some(1.0))]);
    check_is_clean(&project);
}

#[test]
fn a_guidellm_report_becomes_one_sweep_of_its_concurrency_levels() {
    let _timed = timed();
    let project = Project::copy_of_repo();
    let report = repo().join("tests/fixtures/guidellm/benchmarks.json");
    let output = project.run(&[
        "collect",
        "import",
        "guidellm",
        report.to_str().unwrap(),
        "--label",
        "guidellm qwen3-8b",
    ]);
    output.assert_success();
    let doc = project.results();
    let sweep = doc
        .sweeps
        .iter()
        .find(|s| s.label == "guidellm qwen3-8b")
        .unwrap();
    assert_eq!(
        (
            sweep.model.as_str(),
            sweep.base_url.as_str(),
            sweep.generated.to_string()
        ),
        (
            "Qwen/Qwen3-8B",
            "http://127.0.0.1:8000",
            "2026-12-03".to_owned()
        )
    );
    // The throughput benchmark has no fixed concurrency: left out.
    let [sync, four] = &sweep.levels[..] else {
        panic!("{:?}", sweep.levels)
    };
    // Synchronous, from its two request records, by hand: TTFT 0.1 and 0.2 (p95 0.195),
    // latency to the last token 1.1 and 1.0, rates 10/1.0 and 20/0.8 (mean 17.5), 32 tokens
    // in 2.4 s.
    assert_eq!(
        (sync.concurrency, sync.requests, sync.failed),
        (Some(1), 2, 0)
    );
    assert_eq!(
        (sync.ttft_p50_s, sync.ttft_p95_s),
        (Some(0.15), Some(0.195))
    );
    assert_eq!(
        (sync.latency_p50_s, sync.latency_p95_s),
        (Some(1.05), Some(1.095))
    );
    assert_eq!(sync.decode_tok_s_per_stream, Some(17.5));
    assert_eq!(
        (sync.output_tokens, sync.prompt_tokens),
        (Some(16), Some(51))
    );
    assert_eq!(sync.total_tok_s, Some(13.3));
    assert!(
        sync.source
            .as_deref()
            .unwrap()
            .contains("recomputed from 2 per-request records")
    );
    // Four streams, summary only: medians and p95 of the distributions, 1000 / mean ITL
    // (20, 40, 60, 80 ms: 50) = 20 tok/s, 104 tokens in 2.5 s; one errored request.
    assert_eq!(
        (four.concurrency, four.requests, four.succeeded, four.failed),
        (Some(4), 5, 4, 1)
    );
    assert_eq!(
        (four.ttft_p50_s, four.latency_p50_s, four.latency_p95_s),
        (Some(0.3), Some(1.81), Some(2.31))
    );
    assert_eq!(
        (four.decode_tok_s_per_stream, four.total_tok_s),
        (Some(20.0), Some(41.6))
    );
    assert!(
        four.source
            .as_deref()
            .unwrap()
            .contains("summary distributions only")
    );
    check_is_clean(&project);

    project.write(
        "data/rates.json",
        r#"{"benchmarks": [{"config": {"strategy": {"type_": "throughput", "max_concurrency": 64}}}]}"#,
    );
    let rates = project.run(&[
        "collect",
        "import",
        "guidellm",
        "data/rates.json",
        "--label",
        "r",
    ]);
    assert!(
        rates.stderr.contains(
            "error: data/rates.json: no synchronous, concurrent, constant or poisson benchmark (found: throughput)"
        ),
        "{}",
        rates.stderr
    );
}

#[test]
fn a_llama_server_is_named_and_asked_for_greedy_in_its_terms() {
    let _timed = timed();
    let server = FakeVllm::start(Script {
        version: None,
        llama_server: Some("b6500-1a2b3c4".into()),
        kv_tokens: None,
        tokens: 40,
        chunk_interval: Duration::from_millis(1),
        ..Script::default()
    });
    let project = Project::copy_of_repo();
    fake_profile(&project, server.addr.port(), 32768);
    let output = fake_run(
        &project,
        &server,
        "fake-llama-server",
        &["--precision", "Q4_K_M"],
    );
    output.assert_success();
    assert!(
        output
            .stderr
            .contains("measuring llama.cpp llama-server b6500-1a2b3c4"),
        "{}",
        output.stderr
    );
    for body in server.bodies() {
        assert_eq!(
            (body["top_k"].as_i64(), body["repeat_penalty"].as_f64()),
            (Some(0), Some(1.0))
        );
        assert!(body.get("repetition_penalty").is_none(), "{body}");
        assert_eq!(body["chat_template_kwargs"]["enable_thinking"], false);
    }
    let doc = project.results();
    let run = doc
        .runs
        .iter()
        .find(|r| r.id.as_str() == "fake-llama-server")
        .unwrap();
    assert_eq!(
        run.server.as_deref(),
        Some("llama.cpp llama-server b6500-1a2b3c4")
    );
    assert_eq!(run.vllm_version, None);
    // Capture needs prompt_logprobs, which llama-server does not give: refused up front.
    project.write(
        "data/prompts.jsonl",
        &std::fs::read_to_string(repo().join("data/prompts.jsonl")).unwrap(),
    );
    let requests = server.requests();
    let capture = project.run(&[
        "collect",
        "capture",
        "--id",
        "c",
        "--base-url",
        &server.url(),
    ]);
    assert!(
        capture
            .stderr
            .contains("llama.cpp llama-server b6500-1a2b3c4 cannot"),
        "{}",
        capture.stderr
    );
    assert_eq!(server.requests(), requests);
}

/// A project with `profiles/tiny.env`, the model llama-bench measured in
/// `tests/fixtures/llama-bench` (`tiny.gguf`, the GGUF `tests/support/tiny_gguf.py` writes).
fn llama_bench_project() -> Project {
    let project = Project::copy_of_repo();
    project.write(
        "profiles/tiny.env",
        "IMAGE=none\nMODEL=tiny\nPORT=8000\nMAX_MODEL_LEN=2048\n",
    );
    project
}

fn llama_bench_file(name: &str) -> String {
    repo()
        .join("tests/fixtures/llama-bench")
        .join(name)
        .to_str()
        .unwrap()
        .to_owned()
}

#[test]
fn llama_bench_tg_tests_become_runs_with_the_prompt_speed_of_their_pp_test() {
    let _timed = timed();
    let project = llama_bench_project();
    let file = llama_bench_file("bench.json");
    let output = project.run(&[
        "collect",
        "import",
        "llama-bench",
        &file,
        "--id",
        "tiny-bench",
        "--profile",
        "tiny",
    ]);
    output.assert_success();
    // The -pg row is named and left out, never shown as a decode speed.
    assert!(
        output.stderr.contains("bench.json:94: pp32+tg8 is left out: a -pg test times prompt and generated tokens together"),
        "{}",
        output.stderr
    );
    let doc = project.results();
    let run = doc
        .runs
        .iter()
        .find(|r| r.id.as_str() == "tiny-bench")
        .unwrap();
    // tg16, by hand from samples_ns [2208386, 2159303, 2079423]: 16e9 / ns = 7245.1, 7409.8,
    // 7694.4; the median 7409.8 (llama-bench's mean, avg_ts, is 7449.8).
    assert_eq!(run.decode_samples, [7245.1, 7409.8, 7694.4]);
    assert_eq!(run.decode_tok_s, 7409.8);
    assert_eq!(
        run.decode_cold_sample, None,
        "llama-bench reports no warm-up"
    );
    // pp64: 64e9 / [563621, 525244, 465384], median 64e9 / 525244 = 121848.1.
    assert_eq!(
        (run.prompt_tok_s, run.prompt_tokens),
        (Some(121848.1), Some(64))
    );
    assert_eq!(
        (run.model.as_str(), run.checkpoint.as_str()),
        ("tiny", "tiny")
    );
    assert_eq!(run.precision, "all F32", "model_type's file type");
    assert_eq!(run.shape, "llama ?B (1,246,272 parameters)");
    assert_eq!(run.weights_gib, Some(0.005), "model_size 4985088 bytes");
    assert_eq!(
        run.max_model_len, 16,
        "llama-bench's context: n_prompt + n_gen + n_depth"
    );
    assert_eq!(run.kv_cache_dtype.as_deref(), Some("f16"));
    assert!(!run.vision && !run.cuda_graphs && !run.spec_decode);
    assert_eq!(
        run.server.as_deref(),
        Some("llama.cpp build 1 (0c1e570), CPU backend")
    );
    assert_eq!(run.generated.as_str(), "2026-12-04", "test_time");
    assert_eq!(
        run.overrides,
        "MAX_MODEL_LEN=16 N_GPU_LAYERS=-1 N_CPU_MOE=0 FLASH_ATTN=-1 N_BATCH=2048 N_UBATCH=512 THREADS=2 SPLIT_MODE=layer NO_KV_OFFLOAD=0 KV_CACHE_DTYPE=f16 LANGUAGE_MODEL_ONLY=1 ENFORCE_EAGER=1"
    );
    let source = run.source.as_deref().unwrap();
    assert!(
        source.starts_with("llama-bench build 1 (0c1e570) -o json: ")
            && source.ends_with("bench.json"),
        "{source}"
    );
    let notes = run.notes.as_deref().unwrap();
    assert!(
        notes.contains("llama-bench's own figure is their mean, 7449.8 ± 227.3 tok/s"),
        "{notes}"
    );
    // The run agrees with its profile and overrides, and its page says where it came from.
    check_is_clean(&project);
    project.run(&["build"]).assert_success();
    let page = project.page("runs/tiny-bench/index.html");
    for text in [
        "121,848.1 tok/s over a 64-token prompt",
        "Imported from llama-bench build 1 (0c1e570) -o json",
        "benchsite collect import llama-bench RESULTS.json --id tiny-bench --profile tiny --replace",
    ] {
        assert!(page.contains(text), "{text}");
    }
    assert!(
        !page.contains("vllm serve tiny"),
        "an imported run is not started by vLLM"
    );
}

#[test]
fn llama_bench_rows_at_several_depths_are_runs_named_by_what_differs() {
    let _timed = timed();
    let project = llama_bench_project();
    let jsonl = llama_bench_file("bench.jsonl");
    project
        .run(&[
            "collect",
            "import",
            "llama-bench",
            &jsonl,
            "--id",
            "tiny",
            "--profile",
            "tiny",
        ])
        .assert_success();
    let doc = project.results();
    let run = |id: &str| doc.runs.iter().find(|r| r.id.as_str() == id).unwrap();
    // By hand: 16e9 / [2164249, 2124610, 2097150] and 16e9 / [2525288, 2500792, 2400101];
    // each depth's pp64: 64e9 / 496461 and 64e9 / 584722.
    let (shallow, deep) = (run("tiny-d0"), run("tiny-d128"));
    assert_eq!(shallow.decode_samples, [7392.9, 7530.8, 7629.4]);
    assert_eq!(
        (shallow.decode_tok_s, shallow.prompt_tok_s),
        (7530.8, Some(128912.4))
    );
    assert_eq!(deep.decode_samples, [6335.9, 6398.0, 6666.4]);
    assert_eq!(
        (deep.decode_tok_s, deep.prompt_tok_s),
        (6398.0, Some(109453.7))
    );
    assert_eq!((shallow.max_model_len, deep.max_model_len), (16, 144));
    assert!(deep.source.as_deref().unwrap().contains("-o jsonl: "));
    check_is_clean(&project);

    // The CSV has only the mean: it is the one sample, and the import says so.
    let csv = llama_bench_file("bench.csv");
    let output = project.run(&[
        "collect",
        "import",
        "llama-bench",
        &csv,
        "--id",
        "tiny-csv",
        "--profile",
        "tiny",
    ]);
    output.assert_success();
    assert!(
        output
            .stderr
            .contains("bench.csv:3: the CSV has no samples"),
        "{}",
        output.stderr
    );
    let doc = project.results();
    let csv_run = doc
        .runs
        .iter()
        .find(|r| r.id.as_str() == "tiny-csv")
        .unwrap();
    // avg_ts "7822.624801"; pp64's "132488.001656".
    assert_eq!(
        (csv_run.decode_tok_s, &csv_run.decode_samples[..]),
        (7822.6, &[7822.6][..])
    );
    assert_eq!(csv_run.prompt_tok_s, Some(132488.0));
    check_is_clean(&project);
}

#[test]
fn llama_bench_of_another_model_or_with_no_tg_test_is_refused() {
    let _timed = timed();
    let project = llama_bench_project();
    let results = project.root.path().join("data/results.json");
    let before = std::fs::read(&results).unwrap();
    let file = llama_bench_file("bench.json");
    let other = project.run(&[
        "collect",
        "import",
        "llama-bench",
        &file,
        "--id",
        "x",
        "--profile",
        "qwen3.8-27b",
    ]);
    assert!(!other.status.success());
    assert!(
        other.stderr.contains("bench.json:48: llama-bench measured tiny.gguf, but profile qwen3.8-27b is Inferact/Qwen3.8-27B-NVFP4: import it with the profile of that model, or give --force"),
        "{}",
        other.stderr
    );
    // Only the -pg and pp rows: nothing is a decode speed.
    let json: Vec<serde_json::Value> =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let no_tg: Vec<_> = json.into_iter().filter(|r| r["n_prompt"] != 0).collect();
    project.write("pp.json", &serde_json::to_string_pretty(&no_tg).unwrap());
    let none = project.run(&[
        "collect",
        "import",
        "llama-bench",
        "pp.json",
        "--id",
        "x",
        "--profile",
        "tiny",
    ]);
    assert!(!none.status.success());
    assert!(
        none.stderr
            .contains("no tg row (n_gen > 0, n_prompt = 0) in the files: run llama-bench with -n"),
        "{}",
        none.stderr
    );
    assert_eq!(std::fs::read(&results).unwrap(), before, "nothing written");
    // With --force it is recorded, and says so; the row's settings go on top of the profile.
    project
        .run(&[
            "collect",
            "import",
            "llama-bench",
            &file,
            "--id",
            "forced",
            "--profile",
            "qwen3.8-27b",
            "--force",
        ])
        .assert_success();
    let doc = project.results();
    let forced = doc.runs.iter().find(|r| r.id.as_str() == "forced").unwrap();
    assert_eq!(forced.checkpoint, "Inferact/Qwen3.8-27B-NVFP4");
    assert!(
        forced.notes.as_deref().unwrap().starts_with(
            "Recorded with --force: llama-bench measured tiny.gguf, but profile qwen3.8-27b is Inferact/Qwen3.8-27B-NVFP4."
        ),
        "{:?}",
        forced.notes
    );
    assert!(
        forced.overrides.contains("KV_CACHE_DTYPE=f16"),
        "{}",
        forced.overrides
    );
    check_is_clean(&project);
}

#[test]
fn a_sweep_warms_each_level_up_sends_at_least_twenty_and_isolates_the_cache() {
    let _timed = timed();
    let script = Script {
        ttft: Duration::from_millis(5),
        chunk_interval: Duration::from_millis(1),
        tokens: 10,
        cached_tokens: Some(3),
        ..Script::default()
    };
    let server = FakeVllm::start(script);
    let project = Project::copy_of_repo();
    let url = server.url();
    let sweep = |label: &str, words: &str| {
        let output = project.run_with(
            &[
                "collect",
                "sweep",
                "--label",
                label,
                "--levels",
                "1,4",
                "--prompt-words",
                words,
                "--output-tokens",
                "10",
                "--base-url",
                &url,
            ],
            &[],
        );
        output.assert_success();
        output
    };
    let output = sweep("defaults", "20");
    // Concurrency 1: 1 warm-up, then max(2, ⌈20 / 1⌉) = 20 rounds of 1; concurrency 4: 4
    // warm-ups, then max(2, ⌈20 / 4⌉) = 5 rounds of 4 = 20. 45 requests in all.
    assert_eq!(server.requests(), 45);
    let doc = project.results();
    let record = doc.sweeps.iter().find(|s| s.label == "defaults").unwrap();
    let requests: Vec<u64> = record.levels.iter().map(|l| l.requests).collect();
    assert_eq!(requests, [20, 20]);
    // 20 requests each: every percentile has its bootstrap interval, around its value; the
    // TPOT's where its 20 answers all streamed (the fake's 1 ms timers, late on a loaded
    // machine, now and then send an answer's first chunks together, which is then left out).
    for level in &record.levels {
        let streamed = level.succeeded - level.delivery.as_ref().unwrap().bursts;
        let keys: Vec<&str> = level.ci95.keys().map(String::as_str).collect();
        let tpot: &[&str] = match streamed >= 20 {
            true => &["tpot_p50_ms", "tpot_p95_ms"],
            false => &[],
        };
        let expected = [
            &["latency_p50_s", "latency_p95_s"],
            tpot,
            &["ttft_p50_s", "ttft_p95_s"],
        ];
        assert_eq!(keys, expected.concat(), "{level:?}");
        let [low, high] = level.ci95["ttft_p50_s"];
        let value = level.ttft_p50_s.unwrap();
        assert!(low <= value && value <= high, "{low} {value} {high}");
        // The fake counts 20 words, the nonce and 10 more as the prompt: 31 prompt tokens to
        // 10 output tokens, so prompt and output together run 4.1 × the output alone (both
        // rounded to a tenth).
        let (output, both) = (
            level.total_tok_s.unwrap(),
            level.prompt_and_output_tok_s.unwrap(),
        );
        assert!((both - 4.1 * output).abs() < 0.5, "{both} against {output}");
    }
    assert_eq!(record.workload.min_requests, Some(20));
    assert_eq!(record.workload.rounds, 2);
    let method = record.method.as_ref().unwrap();
    assert_eq!(method.version, 3);
    assert_eq!(method.warmup, 1);
    assert_eq!(method.cache, data::CacheIsolation::Nonce);
    assert_eq!(
        method.client,
        format!("benchsite {}", env!("CARGO_PKG_VERSION"))
    );
    // Every prompt, warm-ups too, starts with the sweep's nonce, named in the record.
    let first_words = |bodies: &[serde_json::Value]| -> Vec<String> {
        bodies
            .iter()
            .map(|b| {
                let text = b["messages"][0]["content"].as_str().unwrap();
                text.split_whitespace().next().unwrap().to_owned()
            })
            .collect()
    };
    let nonces = first_words(&server.bodies());
    assert!(
        nonces.iter().all(|n| *n == nonces[0] && n.len() == 12),
        "{nonces:?}"
    );
    assert!(method.prompt_source.contains(&nonces[0]));
    // The cached prompt tokens each level's usage reported: 3 per measured request.
    let cached: Vec<Option<u64>> = record
        .levels
        .iter()
        .map(|l| l.cached_prompt_tokens)
        .collect();
    assert_eq!(cached, [Some(60), Some(60)]);
    assert!(
        output.stderr.contains(
            "warning: concurrency 1: the server answered 60 prompt tokens from its prefix cache"
        ),
        "{}",
        output.stderr
    );
    assert!(
        record
            .notes
            .as_deref()
            .unwrap()
            .contains("60 prompt tokens from its prefix cache")
    );
    // A second sweep has its own nonce; the same prompts hash the same, other prompts not.
    sweep("again", "20");
    sweep("longer", "30");
    let doc = project.results();
    let of = |label: &str| {
        doc.sweeps
            .iter()
            .find(|s| s.label == label)
            .unwrap()
            .method
            .clone()
            .unwrap()
    };
    let again = first_words(&server.bodies()[45..90]);
    assert!(again.iter().all(|n| *n == again[0] && *n != nonces[0]));
    assert_eq!(of("again").prompt_sha256, method.prompt_sha256);
    assert_ne!(of("longer").prompt_sha256, method.prompt_sha256);
    check_is_clean(&project);
}

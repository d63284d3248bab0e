//! What the server was doing through a level, from its own `/metrics`, scraped every
//! [`INTERVAL`] on a task of its own (so an open loop's sending never waits on a scrape) and
//! once more when the level ends: the requests it ran and kept waiting and the share of its
//! KV cache in use (gauges: their mean over the scrapes and their most), and the preemptions
//! and prefix-cache lookups and hits (counters: their increase over the level).
//!
//! The names each engine gives them, read from their sources:
//! - vLLM (`vllm/v1/metrics/loggers.py`): `vllm:num_requests_running`,
//!   `vllm:num_requests_waiting`, `vllm:kv_cache_usage_perc` (a share, 0 to 1; before 0.10
//!   `vllm:gpu_cache_usage_perc`), `vllm:num_preemptions_total`,
//!   `vllm:prefix_cache_queries_total` and `vllm:prefix_cache_hits_total` (tokens; before
//!   0.10 with `gpu_`), each summed over its `engine` labels;
//! - llama.cpp's llama-server with `--metrics` (`tools/server/server-task.cpp`):
//!   `llamacpp:requests_processing`, `llamacpp:requests_deferred`, and for the prefix cache
//!   `llamacpp:prompt_tokens_cached_total` of `llamacpp:prompt_tokens_total` +
//!   `prompt_tokens_cached_total` (the prompt tokens it processed exclude the cached ones);
//!   it reports no KV-cache share and no preemptions.

use std::time::Duration;

use super::client::Client;
use super::engine_view::Counters;
use super::metrics::{samples, total};
use crate::data::SweepLevel;
use crate::stats;

/// How often `/metrics` is scraped through a level.
pub const INTERVAL: Duration = Duration::from_millis(500);

/// One figure: the sums of metrics it is read from, the first that a scrape has.
type Names = &'static [&'static [&'static str]];

const RUNNING: Names = &[
    &["vllm:num_requests_running"],
    &["llamacpp:requests_processing"],
];
const WAITING: Names = &[
    &["vllm:num_requests_waiting"],
    &["llamacpp:requests_deferred"],
];
const KV_USAGE: Names = &[
    &["vllm:kv_cache_usage_perc"],
    &["vllm:gpu_cache_usage_perc"],
];
const PREEMPTIONS: Names = &[&["vllm:num_preemptions_total"]];
const PREFIX_QUERIES: Names = &[
    &["vllm:prefix_cache_queries_total"],
    &["vllm:gpu_prefix_cache_queries_total"],
    &[
        "llamacpp:prompt_tokens_total",
        "llamacpp:prompt_tokens_cached_total",
    ],
];
const PREFIX_HITS: Names = &[
    &["vllm:prefix_cache_hits_total"],
    &["vllm:gpu_prefix_cache_hits_total"],
    &["llamacpp:prompt_tokens_cached_total"],
];

/// One scrape: running, waiting, KV share, preemptions, prefix lookups, prefix hits; and the
/// engine's own timing (`engine_view`).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Scrape([Option<f64>; 6], Counters);

/// Reads the six figures of a scrape's text, and the engine's timing; a figure none of whose
/// names it has is `None`.
pub fn read(text: &str) -> Scrape {
    let (samples, _) = samples(text);
    let engine = super::engine_view::of_samples(&samples);
    let total = |name: &str| total(&samples, name);
    let figure = |names: Names| -> Option<f64> {
        names
            .iter()
            .find_map(|sum| sum.iter().map(|name| total(name)).sum::<Option<f64>>())
    };
    Scrape(
        [
            figure(RUNNING),
            figure(WAITING),
            figure(KV_USAGE),
            figure(PREEMPTIONS),
            figure(PREFIX_QUERIES),
            figure(PREFIX_HITS),
        ],
        engine,
    )
}

/// The engine's own figures from the first scrape to the last, where it keeps them.
pub fn engine_view(scrapes: &[Scrape]) -> Option<crate::data::EngineView> {
    let first = scrapes.iter().find(|s| s.1.is_read())?;
    let last = scrapes.iter().rev().find(|s| s.1.is_read())?;
    first.1.until(&last.1)
}

/// Scrapes of `/metrics` through a level, on a task of their own.
pub struct Watcher {
    stop: tokio::sync::oneshot::Sender<()>,
    task: tokio::task::JoinHandle<Vec<Scrape>>,
}

impl Watcher {
    /// Scrapes once before the level starts (so a counter's increase is the level's own),
    /// then every [`INTERVAL`] on a task until stopped.
    pub async fn start(client: &Client) -> Watcher {
        let first = client.metrics().await.ok().map(|text| read(&text));
        let (stop, stopped) = tokio::sync::oneshot::channel();
        let task = tokio::spawn(watch(client.clone(), first, stopped));
        Watcher { stop, task }
    }

    /// Stops it after one more scrape; the scrapes that could be read, in order.
    pub async fn stop(self) -> Vec<Scrape> {
        let _ = self.stop.send(());
        self.task.await.unwrap_or_default()
    }
}

async fn watch(
    client: Client,
    first: Option<Scrape>,
    stop: tokio::sync::oneshot::Receiver<()>,
) -> Vec<Scrape> {
    let mut scrapes: Vec<Scrape> = first.into_iter().collect();
    let mut tick = tokio::time::interval_at(tokio::time::Instant::now() + INTERVAL, INTERVAL);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    tokio::pin!(stop);
    loop {
        tokio::select! {
            _ = &mut stop => break,
            _ = tick.tick() => {
                if let Ok(text) = client.metrics().await {
                    scrapes.push(read(&text));
                }
            }
        }
    }
    if let Ok(text) = client.metrics().await {
        scrapes.push(read(&text));
    }
    scrapes
}

/// The level's figures of its scrapes: each gauge's mean and most, each counter's increase
/// from the first scrape to the last (none when it went down: the server restarted).
pub fn summarise(scrapes: &[Scrape], level: &mut SweepLevel) {
    if scrapes.is_empty() {
        return;
    }
    let gauge = |i: usize| -> (Option<f64>, Option<f64>) {
        let values: Vec<f64> = scrapes.iter().filter_map(|s| s.0[i]).collect();
        (
            stats::mean(&values).map(|v| stats::round(v, 3)),
            values.iter().copied().reduce(f64::max),
        )
    };
    let counter = |i: usize| -> Option<u64> {
        let first = scrapes.iter().find_map(|s| s.0[i])?;
        let last = scrapes.iter().rev().find_map(|s| s.0[i])?;
        (last >= first).then(|| (last - first).round() as u64)
    };
    (level.running_mean, level.running_max) = gauge(0);
    (level.waiting_mean, level.waiting_max) = gauge(1);
    (level.kv_usage_mean, level.kv_usage_max) = gauge(2);
    level.preemptions = counter(3);
    level.prefix_queries = counter(4);
    level.prefix_hits = counter(5);
    level.metric_scrapes = Some(scrapes.len() as u64);
}

#[cfg(test)]
mod tests {
    use super::*;

    const VLLM: &str = "# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{engine=\"0\",model_name=\"m\"} 3.0
vllm:num_requests_running{engine=\"1\",model_name=\"m\"} 2.0
vllm:num_requests_waiting{engine=\"0\",model_name=\"m\"} 4.0
vllm:kv_cache_usage_perc{engine=\"0\",model_name=\"m\"} 0.25
vllm:num_preemptions_total{engine=\"0\",model_name=\"m\"} 7.0
vllm:prefix_cache_queries_total{engine=\"0\",model_name=\"m\"} 1000.0
vllm:prefix_cache_hits_total{engine=\"0\",model_name=\"m\"} 250.0
";

    const LLAMA: &str = "# TYPE llamacpp:requests_processing gauge
llamacpp:prompt_tokens_total 300
llamacpp:prompt_tokens_cached_total 100
llamacpp:requests_processing 2
llamacpp:requests_deferred 1
";

    #[test]
    fn each_engine_is_read_by_its_own_names_and_engines_are_summed() {
        assert_eq!(
            read(VLLM).0,
            [
                Some(5.0),
                Some(4.0),
                Some(0.25),
                Some(7.0),
                Some(1000.0),
                Some(250.0)
            ]
        );
        // llama-server: the cached tokens of the processed and the cached.
        assert_eq!(
            read(LLAMA).0,
            [Some(2.0), Some(1.0), None, None, Some(400.0), Some(100.0)]
        );
        assert_eq!(read("").0, [None; 6]);
    }

    /// By hand: gauges 5, 3 and 1 running have mean 3 and most 5; the counters go from 7 to 9
    /// preemptions and 1,000 to 1,600 lookups, 250 to 400 hits: 2, 600 and 150.
    #[test]
    fn gauges_are_averaged_and_counters_differenced() {
        let scrape = |running: f64, preempted: f64, queries: f64, hits: f64| {
            Scrape(
                [
                    Some(running),
                    Some(0.0),
                    None,
                    Some(preempted),
                    Some(queries),
                    Some(hits),
                ],
                Counters::default(),
            )
        };
        let scrapes = [
            scrape(5.0, 7.0, 1000.0, 250.0),
            scrape(3.0, 8.0, 1300.0, 300.0),
            scrape(1.0, 9.0, 1600.0, 400.0),
        ];
        let mut level: SweepLevel = serde_json::from_value(serde_json::json!({
            "concurrency": 4, "requests": 8, "succeeded": 8, "failed": 0, "status": "ok"
        }))
        .unwrap();
        summarise(&scrapes, &mut level);
        assert_eq!(
            (level.running_mean, level.running_max),
            (Some(3.0), Some(5.0))
        );
        assert_eq!((level.kv_usage_mean, level.kv_usage_max), (None, None));
        assert_eq!(
            (level.preemptions, level.prefix_queries, level.prefix_hits),
            (Some(2), Some(600), Some(150))
        );
        assert_eq!(level.metric_scrapes, Some(3));
        // A counter that went down (the server restarted) says nothing.
        let mut restarted = level.clone();
        summarise(
            &[scrape(1.0, 9.0, 1600.0, 400.0), scrape(1.0, 0.0, 10.0, 0.0)],
            &mut restarted,
        );
        assert_eq!(restarted.preemptions, None);
    }
}

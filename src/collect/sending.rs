//! Sending a level's requests. A closed loop keeps exactly N in flight, each stream sending
//! its next request when its last one ends. An open loop sends each request when it is due (`arrivals::schedule`), whatever
//! the requests before it are doing, so a rate the server cannot keep up with shows as a
//! growing queue, in the server, or in the client when a cap holds requests back. A
//! request's wait, due → sent, is kept beside its answer: its TTFT and latency as a user
//! sees them run from when it was due.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::Value;
use tokio::sync::Semaphore;
use tokio::time::{Instant, sleep_until};

use super::client::{Client, Endpoint};
use super::power::Drawn;
use super::progress::Progress;
use super::stream::{RequestError, Timing};

/// When one request of a level was due and sent.
#[derive(Debug, Clone, Copy)]
pub struct Sent {
    /// Its number in the level (its prompt's).
    pub n: u64,
    /// When it was due, from the level's start, in an open loop.
    pub due: Option<Duration>,
    /// When it was sent, from the level's start.
    pub at: Duration,
}

impl Sent {
    /// Due → sent: its wait in the client (none in a closed loop).
    pub fn wait(&self) -> Duration {
        self.due
            .map_or(Duration::ZERO, |due| self.at.saturating_sub(due))
    }
}

/// The requests of one level as they came back.
#[derive(Debug, Default)]
pub struct Level {
    /// The requests that streamed to the end.
    pub timings: Vec<Timing>,
    /// The ones that failed, and why.
    pub errors: Vec<RequestError>,
    /// When each answer was due and sent, by its index in `timings`.
    pub sent: Vec<Sent>,
    /// When each failed request was due and sent, by its index in `errors`.
    pub failed_sent: Vec<Sent>,
    /// First request sent (due, in an open loop) → last one finished.
    pub wall: Duration,
    /// What the GPUs drew over the level, where nvidia-smi reads it.
    pub power: Option<Drawn>,
    /// Open loop: the most requests in flight at once.
    pub peak_in_flight: Option<u64>,
    /// Open loop: arrivals the cap held until the duration ran out, never sent.
    pub unsent: u64,
    /// The server's `/metrics` through the level, where it has them.
    pub scrapes: Vec<super::watch::Scrape>,
}

impl Level {
    /// One request as it came back.
    fn add(&mut self, sent: Sent, result: Result<Timing, RequestError>) {
        match result {
            Ok(timing) => {
                self.timings.push(timing);
                self.sent.push(sent);
            }
            Err(error) => {
                self.errors.push(error);
                self.failed_sent.push(sent);
            }
        }
    }
}

/// Sends every body with exactly `concurrency` requests in flight until all are done.
pub async fn run_level(
    client: &Client,
    endpoint: Endpoint,
    bodies: Vec<Value>,
    concurrency: usize,
    progress: &Progress,
) -> Level {
    let bodies = Arc::new(bodies);
    let next = Arc::new(AtomicUsize::new(0));
    let started = Instant::now();
    let (done, mut finished) = tokio::sync::mpsc::unbounded_channel();
    // A set, not bare handles: should the level be dropped unfinished (Ctrl-C, SIGTERM), its
    // requests are aborted with it, their connections closed, rather than left running while
    // the server is stopped.
    let mut workers = tokio::task::JoinSet::new();
    for _ in 0..concurrency.max(1) {
        let (client, bodies, next, done) =
            (client.clone(), bodies.clone(), next.clone(), done.clone());
        workers.spawn(async move {
            loop {
                let index = next.fetch_add(1, Ordering::Relaxed);
                let Some(body) = bodies.get(index) else {
                    return;
                };
                let sent = Sent {
                    n: index as u64,
                    due: None,
                    at: started.elapsed(),
                };
                let result = client.stream(endpoint, body).await;
                if done.send((sent, result)).is_err() {
                    return;
                }
            }
        });
    }
    drop(done);
    let mut level = Level::default();
    while let Some((sent, result)) = finished.recv().await {
        level.add(sent, result);
        progress.advance(1);
    }
    level.wall = started.elapsed();
    workers.join_all().await;
    level
}

/// How an open-loop level is sent.
pub struct OpenLoop<'a> {
    /// When each request is due, from the level's start, in order.
    pub due: &'a [Duration],
    /// Requests in flight at most.
    pub cap: Option<usize>,
    /// Arrivals after this are not sent: the level's duration.
    pub until: Option<Duration>,
}

/// Sends `bodies[i]` when `due[i]` comes (or, past the cap, when a request in flight
/// finishes), until the bodies or the duration run out; then waits for every request in
/// flight. A due request the cap still holds when the duration runs out is never sent
/// (`Level::unsent`).
pub async fn run_open_level(
    client: &Client,
    endpoint: Endpoint,
    bodies: Vec<Value>,
    plan: &OpenLoop<'_>,
    progress: &Progress,
) -> Level {
    let started = Instant::now();
    let gate = plan.cap.map(|n| Arc::new(Semaphore::new(n.max(1))));
    let in_flight = Arc::new(AtomicUsize::new(0));
    let peak = Arc::new(AtomicUsize::new(0));
    let (done, mut finished) = tokio::sync::mpsc::unbounded_channel();
    let planned = bodies.len();
    let most = peak.clone();
    // Aborted with the level should it be dropped unfinished, as in `run_level`.
    let mut set = tokio::task::JoinSet::new();
    let requests = &mut set;
    let dispatch = async move {
        let mut sent = 0;
        for (n, (body, &at)) in bodies.into_iter().zip(plan.due).enumerate() {
            let due = started + at;
            sleep_until(due).await;
            let permit = match &gate {
                None => None,
                Some(gate) => {
                    let acquire = gate.clone().acquire_owned();
                    let permit = match plan.until {
                        Some(until) => tokio::select! {
                            permit = acquire => permit,
                            () = sleep_until(started + until) => break,
                        },
                        None => acquire.await,
                    };
                    Some(permit.expect("the gate is never closed"))
                }
            };
            let now = in_flight.fetch_add(1, Ordering::Relaxed) + 1;
            peak.fetch_max(now, Ordering::Relaxed);
            let (client, done, in_flight) = (client.clone(), done.clone(), in_flight.clone());
            while requests.try_join_next().is_some() {}
            requests.spawn(async move {
                // Sent when its task starts it out, as late as the runtime let it run.
                let sent = Sent {
                    n: n as u64,
                    due: Some(at),
                    at: started.elapsed(),
                };
                let result = client.stream(endpoint, &body).await;
                in_flight.fetch_sub(1, Ordering::Relaxed);
                drop(permit);
                let _ = done.send((sent, result));
            });
            sent += 1;
        }
        sent
    };
    let collect = async {
        let mut level = Level::default();
        while let Some((sent, result)) = finished.recv().await {
            level.add(sent, result);
            progress.advance(1);
        }
        level
    };
    let (sent, mut level) = tokio::join!(dispatch, collect);
    level.wall = started.elapsed();
    level.unsent = (planned - sent) as u64;
    level.peak_in_flight = Some(most.load(Ordering::Relaxed) as u64);
    level
}

//! What a sweep says of each level as it goes, on the terminal and in the record's notes: the
//! level in one line, its warnings (the prefix cache, arrivals never sent, what the answers'
//! checks found), its failed requests with the server's hint, and whether the server it
//! measured is still the one launched, or gone.

use super::client::Liveness;
use super::launch::Launched;
use super::progress::Progress;
use super::sending::Level;
use super::target::Target;
use crate::data::figures::{LevelField, level};
use crate::data::{Load, SweepLevel};

/// The figures of a level its terminal line shows.
static LINE: [&LevelField; 4] = [
    &level::TTFT_P50_S,
    &level::LATENCY_P50_S,
    &level::DECODE_TOK_S_PER_STREAM,
    &level::TOTAL_TOK_S,
];

/// What makes a level not the launched server's measurement: it exited, or another process's
/// socket answers its port.
pub(super) fn not_measured(server: &mut Launched, load: Load) -> Option<String> {
    match server.exited() {
        Some(status) => Some(format!("exited during {} ({status})", load.words())),
        None => server.answered_by_another().then(|| {
            format!(
                "no longer answered its port during {}: another process's socket did",
                load.words()
            )
        }),
    }
}

/// Each warning on the terminal at once, and in the record's notes.
pub(super) fn warn(warnings: Vec<String>, notes: &mut Vec<String>, progress: &Progress) {
    for said in warnings {
        progress.line(&format!("warning: {said}"));
        notes.push(super::target::sentence(&said));
    }
}

/// What a level's answers say of how it was measured: the prefix cache answered for the
/// server, arrivals never sent, a stream that came in bursts.
pub(super) fn level_warnings(summary: &SweepLevel, load: Load) -> Vec<String> {
    let cached = summary
        .cached_prompt_tokens
        .filter(|&n| n > 0)
        .map(|cached| {
            format!(
                "{}: the server answered {cached} prompt tokens from its prefix cache",
                load.words()
            )
        });
    let unsent = summary.unsent.filter(|&n| n > 0).map(|n| {
        format!("{}: {n} arrivals were still held back by --max-concurrency when --duration ran out, and were never sent: the server did not keep up with the rate", load.words())
    });
    cached
        .into_iter()
        .chain(unsent)
        .chain(super::level::checked(summary))
        .collect()
}

/// A level's failed requests, said on the terminal and in `notes`, with the server's hint.
pub(super) fn note_failures(
    target: &Target,
    level: &Level,
    load: Load,
    requests: u64,
    notes: &mut Vec<String>,
    progress: &Progress,
) {
    let causes = level.causes();
    if causes.is_empty() {
        return;
    }
    let failed = format!(
        "{}: {} of {requests} requests failed ({})",
        load.words(),
        level.errors.len(),
        causes.join("; ")
    );
    progress.line(&failed);
    notes.push(format!("{failed}."));
    let most = level.peak_in_flight.unwrap_or(match load {
        Load::Concurrency(c) => c,
        Load::Rate(_) => 1,
    });
    if let Some(hint) = target.server.hint(most, &level.errors) {
        if !notes.iter().any(|n| n == hint) {
            notes.push(hint.to_owned());
        }
        progress.line(hint);
    }
}

/// Why the sweep stops after a level every request of which failed: the server died or stopped
/// answering, or is unwell; `None` when it is alive.
pub(super) async fn gone(target: &Target, died: bool, load: Load) -> Option<String> {
    let load = load.words();
    match (died, target.client.liveness().await) {
        (true, _) | (false, Liveness::Gone(_)) => {
            Some(format!("the server stopped answering at {load}"))
        }
        (false, Liveness::Unwell(why)) => Some(format!("the server is unwell after {load}: {why}")),
        (false, Liveness::Alive) => None,
    }
}

/// One level in a line, for the terminal; durations with their own unit.
pub(super) fn level_line(level: &SweepLevel) -> String {
    let shown: Vec<String> = LINE
        .iter()
        .map(|figure| {
            let field = &figure.field;
            let value = (field.get)(level).and_then(|v| v.number());
            let text = match (value, field.unit) {
                (None, _) => crate::format::MISSING.to_owned(),
                (Some(s), "s") => crate::format::duration(s),
                (Some(v), unit) => format!("{v:.1} {unit}"),
            };
            format!("{} {text}", figure.series)
        })
        .collect();
    let load = match level.load() {
        Load::Concurrency(c) => format!("concurrency {c:>3}"),
        Load::Rate(r) => format!("rate {r} req/s"),
    };
    let mut line = format!(
        "{load}: {}/{} ok, {}",
        level.succeeded,
        level.requests,
        shown.join(", ")
    );
    if let (Some(achieved), Some(wait)) = (level.achieved_rps, level.wait_p95_s) {
        line.push_str(&format!(
            ", answered {achieved:.2} req/s, client wait p95 {}",
            crate::format::duration(wait)
        ));
    }
    line
}

//! Speculative decoding's acceptance for `collect run`: measured over prompts spread through
//! the project's prompt set after the samples, or over the samples themselves, from the
//! counters scraped around them.

use super::client::Endpoint;
use super::metrics::{self, Metrics};
use super::progress::Progress;
use super::target::Target;
use crate::data;
use crate::project::Layout;
use crate::stats;

/// The speculative-decoding counters around prompts of the project's prompt set.
pub(super) struct Spread {
    before: Result<Metrics, String>,
    after: Result<Metrics, String>,
    over: data::AcceptancePrompts,
}

/// Sends `params.acceptance_prompts` prompts of the project's prompt set, spread through it,
/// one at a time after the samples, greedy and cut at the run's length as the samples are,
/// with the counters scraped around them; why not, when the set cannot be read or a request
/// fails (the acceptance is then the samples').
pub(super) async fn over_prompt_set(
    layout: &Layout,
    target: &mut Target,
    params: &super::params::RunParams,
    progress: &Progress,
) -> Result<Spread, String> {
    let set = data::prompts::load(&layout.root, crate::project::PROMPTS)
        .map_err(|why| format!("the prompt set cannot be read ({why})"))?;
    let all = set.prompts.len();
    let n = params.acceptance_prompts.min(all);
    if n == 0 {
        return Err(format!("{} holds no prompts", set.path));
    }
    progress.more(n as u64);
    let before = scrape(target).await;
    let mut over = data::AcceptancePrompts {
        prompt_set: set.path.clone(),
        prompt_set_sha256: set.sha256.clone(),
        prompts: Vec::with_capacity(n),
        output_tokens: 0,
    };
    for i in 0..n {
        let prompt = &set.prompts[i * all / n];
        progress.step(&format!("acceptance prompt {}/{n} ({})", i + 1, prompt.id));
        let body =
            target
                .server
                .chat_stream_of(&target.model, &prompt.messages, params.max_tokens, false);
        let mut timing = target
            .stream(Endpoint::Chat, &body, progress)
            .await
            .map_err(|error| format!("prompt {} of {} failed ({error})", prompt.id, set.path))?;
        target.count_tokens(&mut timing, params.max_tokens).await;
        over.output_tokens += timing.output_tokens().unwrap_or(0);
        over.prompts.push(prompt.id.clone());
        progress.advance(1);
    }
    let after = scrape(target).await;
    Ok(Spread {
        before,
        after,
        over,
    })
}

/// The acceptance over the prompt set where it was measured there, else over the samples
/// (`around_samples`, the counters scraped before and after them), with the prompts it was
/// measured over; why it is the samples' or missing goes into `gaps`.
pub(super) fn acceptance(
    spread: Option<Result<Spread, String>>,
    spec_decode: bool,
    around_samples: (&Result<Metrics, String>, &Result<Metrics, String>),
    gaps: &mut Vec<String>,
) -> (Option<metrics::Acceptance>, Option<data::AcceptancePrompts>) {
    let (before, after) = around_samples;
    match spread {
        Some(Ok(spread)) => {
            let acceptance = spec_acceptance(&spread.before, &spread.after, gaps);
            let over = acceptance.is_some().then_some(spread.over);
            (acceptance, over)
        }
        Some(Err(why)) => {
            gaps.push(format!("{why}: the acceptance is the samples'"));
            (spec_acceptance(before, after, gaps), None)
        }
        None if spec_decode => (spec_acceptance(before, after, gaps), None),
        None => (None, None),
    }
}

/// The speculative-decoding acceptance over the samples, from the counters scraped before
/// and after them; why it is missing goes into `gaps`.
fn spec_acceptance(
    before: &Result<Metrics, String>,
    after: &Result<Metrics, String>,
    gaps: &mut Vec<String>,
) -> Option<metrics::Acceptance> {
    let acceptance = before
        .as_ref()
        .ok()
        .and_then(|m| m.spec.as_ref())
        .zip(after.as_ref().ok().and_then(|m| m.spec.as_ref()))
        .and_then(|(before, after)| before.acceptance_until(after));
    if acceptance.is_none() {
        gaps.push(format!(
            "{}; spec_acceptance is left out",
            metrics_gap(after, "reports no speculative-decoding counters")
        ));
    }
    acceptance.map(|a| metrics::Acceptance {
        rate: stats::round(a.rate, 3),
        length: a.length.map(|l| stats::round(l, 3)),
        per_position: a.per_position.iter().map(|r| stats::round(*r, 3)).collect(),
    })
}

/// A scrape of `/metrics`, or why there is none.
pub(super) async fn scrape(target: &Target) -> Result<Metrics, String> {
    target
        .client
        .metrics()
        .await
        .map(|text| metrics::parse(&text))
}

/// Why a figure from `/metrics` is missing, in a sentence: no scrape, unreadable lines, or
/// the server does not report it (`absent`).
pub(super) fn metrics_gap(scrape: &Result<Metrics, String>, absent: &str) -> String {
    match scrape {
        Err(why) => why.clone(),
        Ok(metrics) => match metrics.problem() {
            Some(problem) => format!("the server {absent}, and {problem}"),
            None => format!("the server {absent}"),
        },
    }
}

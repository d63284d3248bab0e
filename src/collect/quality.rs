//! `collect divergence` (two captures of the same reference → a divergence record) and
//! `collect jitter` (the same continuations scored repeatedly on one server).

use std::path::Path;

use futures_util::StreamExt;
use rayon::prelude::*;
use serde_json::json;

use super::capture::{self, Capture, Captured, Scored, generated_logprobs, prompt_logprobs};
use super::error::CollectError;
use super::params::JitterParams;
use super::progress::Progress;
use super::target::{ServerOptions, Target, connect};
use crate::data::prompts::PromptSet;
use crate::data::{self, Date, Dimensions, Divergence, Id, Jitter};
use crate::project::Layout;
use crate::stats::divergence::{
    self as stats_divergence, GeneratedPrompt, Position, Prompt, Side, compare, first_divergence,
};
use crate::stats::quantile_sorted;

/// What `collect divergence` compares.
#[derive(Debug, Clone)]
pub struct DivergenceOptions {
    /// The record's label.
    pub label: String,
    /// The permalink, when not the label's slug.
    pub id: Option<Id>,
    /// The reference side's capture.
    pub a: String,
    /// The other side's capture.
    pub b: String,
    /// What distinguishes the comparison.
    pub dimensions: Vec<(String, String)>,
    /// Free text.
    pub notes: Option<String>,
    /// The record's date.
    pub today: Date,
}

/// Compares two captures of the same reference continuations and prompt set.
pub fn divergence(root: &Path, options: &DivergenceOptions) -> Result<Divergence, CollectError> {
    let layout = Layout::new(root);
    let (a, b) = rayon::join(
        || capture::load(&layout, &options.a),
        || capture::load(&layout, &options.b),
    );
    compare_captures(&a?, &b?, options)
}

/// Compares two loaded captures of the same reference continuations and prompt set.
pub fn compare_captures(
    a: &Capture,
    b: &Capture,
    options: &DivergenceOptions,
) -> Result<Divergence, CollectError> {
    let (ha, hb) = (&a.header, &b.header);
    if ha.root() != hb.root() {
        return Err(CollectError::Usage(format!(
            "{} scored {}'s continuations and {} scored {}'s: captures with different references cannot be compared",
            ha.capture,
            ha.root(),
            hb.capture,
            hb.root()
        )));
    }
    if ha.prompt_set_sha256 != hb.prompt_set_sha256 {
        return Err(CollectError::Usage(format!(
            "{} and {} were captured with different prompt sets",
            ha.capture, hb.capture
        )));
    }
    let compared: Vec<(Prompt, GeneratedPrompt)> = a
        .prompts
        .par_iter()
        .map(|pa| {
            let pb = b.prompts.iter().find(|p| p.id == pa.id).ok_or_else(|| {
                CollectError::Usage(format!("{} has no prompt {}", hb.capture, pa.id))
            })?;
            if pa.prompt_ids != pb.prompt_ids || pa.scored.tokens != pb.scored.tokens {
                return Err(CollectError::Usage(format!(
                    "prompt {}: the two captures scored different token ids",
                    pa.id
                )));
            }
            let forced = Prompt {
                id: pa.id.clone(),
                category: pa.category.clone(),
                positions: positions(&pa.scored, &pb.scored, pa.scored.tokens.len()),
            };
            Ok((forced, generated_prompt(pa, pb)))
        })
        .collect::<Result<_, _>>()?;
    let (forced, generated): (Vec<Prompt>, Vec<GeneratedPrompt>) = compared.into_iter().unzip();
    let mut dimensions: Dimensions = options.dimensions.iter().cloned().collect();
    // The same configuration captured twice measures noise, not a change.
    if ha.same_configuration(hb) && !dimensions.contains_key("kind") {
        dimensions.insert("kind".into(), "floor".into());
    }
    Ok(Divergence {
        label: options.label.clone(),
        id: options.id.clone(),
        a: Id::new(&ha.capture).map_err(CollectError::Usage)?,
        b: Id::new(&hb.capture).map_err(CollectError::Usage)?,
        model: hb.model.clone(),
        generated: options.today.clone(),
        vllm_version: hb.vllm_version.clone(),
        prompt_set: hb.prompt_set.clone(),
        settings: hb.settings.clone(),
        teacher_forced: teacher_forced_block(stats_divergence::teacher_forced(&forced)),
        generation: generation_block(stats_divergence::generation(&generated)),
        dimensions,
        notes: options.notes.clone(),
        suspect: None,
        provenance: None,
    })
}

/// The first `count` positions of two scorings of the same tokens.
fn positions(a: &Scored, b: &Scored, count: usize) -> Vec<Position> {
    (0..count)
        .map(|t| {
            compare(
                a.tokens[t],
                Side {
                    top: &a.top[t],
                    reference: f64::from(a.logprobs[t]),
                },
                Side {
                    top: &b.top[t],
                    reference: f64::from(b.logprobs[t]),
                },
            )
        })
        .collect()
}

/// Both sides' own continuations: the positions before the first differing token compared.
fn generated_prompt(a: &Captured, b: &Captured) -> GeneratedPrompt {
    let (ga, gb) = (&a.generated, &b.generated);
    let first = first_divergence(&ga.tokens, &gb.tokens);
    let same = first.unwrap_or(ga.tokens.len().min(gb.tokens.len()));
    GeneratedPrompt {
        compared: Prompt {
            id: a.id.clone(),
            category: a.category.clone(),
            positions: positions(ga, gb, same),
        },
        first_divergence: first,
        tokens: (ga.tokens.len() as u64, gb.tokens.len() as u64),
    }
}

/// What `collect jitter` measures.
#[derive(Debug, Clone)]
pub struct JitterOptions {
    /// The record's label.
    pub label: String,
    /// The prompt set (relative to the project) and how many of its prompts, the repeats,
    /// the length, the top-k and thinking.
    pub params: super::params::JitterParams,
    /// The server.
    pub server: ServerOptions,
    /// Free text.
    pub notes: Option<String>,
    /// The record's date.
    pub today: Date,
}

/// Generates one greedy continuation per prompt, scores each `repeats` times with all the
/// scorings in flight at once (so batches differ), and compares repeats 2.. with repeat 1.
pub async fn jitter(
    root: &Path,
    options: &JitterOptions,
    progress: &Progress,
) -> Result<Jitter, CollectError> {
    if options.params.repeats < 2 || options.params.prompts == 0 {
        return Err(CollectError::Usage(
            "jitter needs at least 1 prompt and 2 repeats".into(),
        ));
    }
    let set = capture::prompt_set(root, &options.params.prompt_set)?;
    let target = connect(&options.server).await?;
    target.require_scoring("collect jitter")?;
    let client = &target.client;
    let sampling = target
        .server
        .greedy(&target.model, json!({"stream": false}));
    let continuations = continuations(&target, &set, &sampling, &options.params, progress).await?;
    let jobs: Vec<(usize, usize)> = (0..options.params.repeats)
        .flat_map(|repeat| (0..continuations.len()).map(move |prompt| (prompt, repeat)))
        .collect();
    let in_flight = jobs.len();
    let scorings: Vec<((usize, usize), Result<Scored, String>)> =
        futures_util::stream::iter(jobs.into_iter().map(|(prompt, repeat)| {
            let (ids, continuation) = &continuations[prompt];
            let mut body = sampling.clone();
            let mut all = ids.clone();
            all.extend(continuation);
            body["prompt"] = json!(all);
            body["max_tokens"] = json!(1);
            body["prompt_logprobs"] = json!(options.params.top_k);
            async move {
                let scored = match client.complete(&body).await {
                    Ok(answer) => {
                        prompt_logprobs(&answer, ids.len(), continuation, options.params.top_k)
                    }
                    Err(error) => Err(error),
                };
                ((prompt, repeat), scored)
            }
        }))
        .buffer_unordered(in_flight)
        .collect()
        .await;
    let mut table: Vec<Vec<Option<Scored>>> =
        vec![vec![None; options.params.repeats]; continuations.len()];
    for ((prompt, repeat), scored) in scorings {
        table[prompt][repeat] = Some(scored.map_err(CollectError::Server)?);
    }
    let (mut kls, flips) = against_first(&table);
    kls.sort_by(f64::total_cmp);
    let n = kls.len();
    let q = |at| quantile_sorted(&kls, at).unwrap_or(0.0);
    Ok(Jitter {
        label: options.label.clone(),
        model: target.model.clone(),
        vllm_version: target.vllm_version(),
        generated: options.today.clone(),
        prompts: continuations.len() as u64,
        repeats: options.params.repeats as u64,
        positions: n as u64,
        max_tokens: options.params.max_tokens,
        top_k: options.params.top_k,
        thinking: options.params.thinking,
        kld_mean: if n == 0 {
            0.0
        } else {
            kls.iter().sum::<f64>() / n as f64
        },
        kld_p50: q(0.5),
        kld_p99: q(0.99),
        kld_max: q(1.0),
        top1_flip_rate: if n == 0 { 0.0 } else { flips as f64 / n as f64 },
        notes: options.notes.clone(),
        provenance: None,
    })
}

/// One greedy continuation of each of the first prompts of `set`: its chat-templated prompt
/// ids and the token ids generated after them.
async fn continuations(
    target: &Target,
    set: &PromptSet,
    sampling: &serde_json::Value,
    params: &JitterParams,
    progress: &Progress,
) -> Result<Vec<(Vec<u32>, Vec<u32>)>, CollectError> {
    let client = &target.client;
    let mut continuations = Vec::new();
    for prompt in set.prompts.iter().take(params.prompts) {
        progress.step(&format!("continuation of {}", prompt.id));
        let ids = client
            .tokenize_chat(&target.model, &prompt.messages, params.thinking)
            .await
            .map_err(CollectError::Server)?;
        let mut body = sampling.clone();
        body["prompt"] = json!(ids);
        body["max_tokens"] = json!(params.max_tokens);
        body["logprobs"] = json!(1);
        body["return_tokens_as_token_ids"] = json!(true);
        let answer = client.complete(&body).await.map_err(CollectError::Server)?;
        let generated = generated_logprobs(&answer).map_err(CollectError::Server)?;
        continuations.push((ids, generated.tokens));
    }
    Ok(continuations)
}

/// Each position's KL divergence of every repeat's scoring from the first's, and how many
/// positions' top-1 tokens differ.
fn against_first(table: &[Vec<Option<Scored>>]) -> (Vec<f64>, usize) {
    let mut kls = Vec::new();
    let mut flips = 0usize;
    for row in table {
        let first = row[0].as_ref().expect("every scoring is in");
        for other in row[1..].iter().flatten() {
            for position in positions(first, other, first.tokens.len()) {
                kls.push(position.kl);
                flips += usize::from(!position.top1_agree);
            }
        }
    }
    (kls, flips)
}

/// A block of type `$ty` with the figures every block has from `$c` (the statistics'
/// [`stats_divergence::Common`]) and its own `$field`s.
macro_rules! block {
    ($ty:ident, $c:expr, { $($field:ident : $value:expr),* $(,)? }) => {{
        let c: stats_divergence::Common = $c;
        data::$ty {
            positions: c.positions,
            kld_mean: c.kld_mean,
            kld_p50: c.kld[0],
            kld_p90: c.kld[1],
            kld_p99: c.kld[2],
            kld_p999: c.kld[3],
            kld_max: c.kld[4],
            top1_agree: c.top1_agree,
            dp_mean_abs: c.dp_mean_abs,
            dp_p1: c.dp[0],
            dp_p5: c.dp[1],
            dp_p50: c.dp[2],
            dp_p95: c.dp[3],
            dp_p99: c.dp[4],
            support_mass_mean: c.support_mass_mean,
            ppl_a: c.ppl_a,
            ppl_b: c.ppl_b,
            prompts: c.prompts,
            $($field: $value),*
        }
    }};
}

/// The document's teacher-forced block of the statistics.
fn teacher_forced_block(stats: stats_divergence::TeacherForced) -> data::TeacherForced {
    block!(TeacherForced, stats.common, {
        kld_mean_ci95: stats.kld_mean_ci95,
        per_category: stats
            .per_category
            .into_iter()
            .map(|(name, c)| {
                let category = data::CategoryStats {
                    positions: c.positions,
                    kld_mean: c.kld_mean,
                    top1_agree: c.top1_agree,
                    dp_mean_abs: c.dp_mean_abs,
                };
                (name, category)
            })
            .collect(),
        per_prompt: stats
            .per_prompt
            .into_iter()
            .map(|(id, (kl_sum, positions))| (id, data::PromptSum { kl_sum, positions }))
            .collect(),
    })
}

/// The document's generation block of the statistics.
fn generation_block(stats: stats_divergence::Generation) -> data::Generation {
    block!(Generation, stats.common, {
        identical: stats.identical,
        identical_rate: stats.identical_rate,
        diverged: stats.diverged,
        first_divergence_p10: stats.first_divergence_p10,
        first_divergence_p50: stats.first_divergence_p50,
        first_divergence_min: stats.first_divergence_min,
        gen_tokens_a: stats.gen_tokens_a,
        gen_tokens_b: stats.gen_tokens_b,
    })
}

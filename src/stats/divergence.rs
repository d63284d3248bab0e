//! Quality drift between two configurations from their top-k logprobs.
//!
//! Per position each side gives its top-k tokens with logprobs and the logprob of the
//! reference token. KL(A‖B) is computed on the shared support S = K_A ∩ K_B plus one tail
//! bucket per side holding the rest of its mass (floored at 0): merging outcomes never raises
//! KL, so this never overstates the true divergence and is exact when both distributions are
//! fully captured. Tiny negative results from rounding are clamped to 0.

use indexmap::IndexMap;

use super::summary::{mean, quantile_sorted};

/// What one side says at one position; logprobs as the capture stores them (f32 or f64).
#[derive(Debug, Clone, Copy)]
pub struct Side<'a, L = f64> {
    /// Its top-k: token id and logprob, in any order.
    pub top: &'a [(u32, L)],
    /// The logprob it gives the reference token (always known: servers add it).
    pub reference: f64,
}

/// The comparison of one position.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Position {
    /// KL(A‖B) on the shared support plus tails, nats.
    pub kl: f64,
    /// A's probability mass on the shared support.
    pub support_mass: f64,
    /// Both sides' most probable token is the same.
    pub top1_agree: bool,
    /// p_B(reference) − p_A(reference).
    pub dp: f64,
    /// log p_A(reference).
    pub logprob_a: f64,
    /// log p_B(reference).
    pub logprob_b: f64,
}

/// A stored logprob type and its resolution: the relative spacing of its values.
pub trait Logprob: Copy + Into<f64> {
    /// Machine epsilon of the type.
    const EPSILON: f64;
}

impl Logprob for f32 {
    const EPSILON: f64 = f32::EPSILON as f64;
}

impl Logprob for f64 {
    const EPSILON: f64 = f64::EPSILON;
}

impl<L: Logprob> Side<'_, L> {
    /// Its tokens with logprobs, the reference token included.
    fn tokens(&self, reference: u32) -> impl Iterator<Item = (u32, f64)> + '_ {
        let listed = self.top.iter().any(|(token, _)| *token == reference);
        self.top
            .iter()
            .map(|&(token, logprob)| (token, logprob.into()))
            .chain((!listed).then_some((reference, self.reference)))
    }

    /// The logprob of `token`, when this side gives it.
    fn logprob(&self, token: u32, reference: u32) -> Option<f64> {
        match self.top.iter().find(|(other, _)| *other == token) {
            Some(&(_, logprob)) => Some(logprob.into()),
            None => (token == reference).then_some(self.reference),
        }
    }

    /// The most probable token (lowest id on ties).
    fn argmax(&self, reference: u32) -> Option<u32> {
        self.tokens(reference)
            .max_by(|x, y| x.1.total_cmp(&y.1).then(y.0.cmp(&x.0)))
            .map(|(token, _)| token)
    }
}

/// Compares the two sides at a position whose reference token is `reference`.
///
/// B's tail is floored at the resolution of its stored floats: the spacing of values at the
/// magnitude of its largest logprob (epsilon × that), times the shared terms summed. Below
/// it, B's tail is rounding, and a smaller floor would let rounding that leaves B's shared
/// mass at 1 or more inflate the tail term past the exact KL.
pub fn compare<L: Logprob>(reference: u32, a: Side<L>, b: Side<L>) -> Position {
    let mut kl = 0.0;
    let (mut shared_a, mut shared_b, mut shared, mut magnitude) = (0.0, 0.0, 0usize, 1f64);
    for (token, logprob_a) in a.tokens(reference) {
        if let Some(logprob_b) = b.logprob(token, reference) {
            let p = logprob_a.exp();
            shared_a += p;
            shared_b += logprob_b.exp();
            shared += 1;
            magnitude = magnitude.max(logprob_b.abs());
            kl += p * (logprob_a - logprob_b);
        }
    }
    let tail_a = (1.0 - shared_a).max(0.0);
    let tail_b = (1.0 - shared_b).max(0.0);
    if tail_a > 0.0 {
        let resolution = L::EPSILON * magnitude * (shared + 1) as f64;
        kl += tail_a * (tail_a / tail_b.max(resolution)).ln();
    }
    Position {
        kl: kl.max(0.0),
        support_mass: shared_a.min(1.0),
        top1_agree: a.argmax(reference) == b.argmax(reference),
        dp: b.reference.exp() - a.reference.exp(),
        logprob_a: a.reference,
        logprob_b: b.reference,
    }
}

/// The compared positions of one prompt.
#[derive(Debug, Clone, PartialEq)]
pub struct Prompt {
    /// Its id in the prompt set.
    pub id: String,
    /// Its category.
    pub category: String,
    /// Its positions.
    pub positions: Vec<Position>,
}

/// The figures every block has, over all positions of all prompts.
#[derive(Debug, Clone, PartialEq)]
pub struct Common {
    /// Positions compared.
    pub positions: u64,
    /// Mean KL divergence.
    pub kld_mean: f64,
    /// KL percentiles p50, p90, p99, p99.9 and the maximum.
    pub kld: [f64; 5],
    /// Fraction of positions whose most probable token agrees.
    pub top1_agree: f64,
    /// Mean |Δp| of the reference token.
    pub dp_mean_abs: f64,
    /// Δp percentiles p1, p5, p50, p95, p99.
    pub dp: [f64; 5],
    /// Mean probability mass of side a on the shared support.
    pub support_mass_mean: f64,
    /// Perplexity of side a on the reference tokens.
    pub ppl_a: f64,
    /// Perplexity of side b on the reference tokens.
    pub ppl_b: f64,
    /// Prompts compared.
    pub prompts: u64,
}

/// Teacher-forced figures of one prompt category.
#[derive(Debug, Clone, PartialEq)]
pub struct Category {
    /// Positions compared.
    pub positions: u64,
    /// Mean KL divergence.
    pub kld_mean: f64,
    /// Top-1 agreement.
    pub top1_agree: f64,
    /// Mean |Δp|.
    pub dp_mean_abs: f64,
}

/// The teacher-forced statistics: both sides scored the same reference continuation.
#[derive(Debug, Clone, PartialEq)]
pub struct TeacherForced {
    /// The figures over every position.
    pub common: Common,
    /// The bootstrap 95% interval of `kld_mean`.
    pub kld_mean_ci95: [f64; 2],
    /// The figures per prompt category, by name.
    pub per_category: IndexMap<String, Category>,
    /// Each prompt's KL sum and position count, by prompt id, for a paired bootstrap.
    pub per_prompt: IndexMap<String, (f64, u64)>,
}

/// The generation statistics: each side's own greedy continuation.
#[derive(Debug, Clone, PartialEq)]
pub struct Generation {
    /// The figures over the compared positions.
    pub common: Common,
    /// Prompts whose continuations are equal in full.
    pub identical: u64,
    /// identical / prompts.
    pub identical_rate: f64,
    /// Prompts whose continuations differ.
    pub diverged: u64,
    /// 10th percentile of the first differing position.
    pub first_divergence_p10: Option<f64>,
    /// Median first differing position.
    pub first_divergence_p50: Option<f64>,
    /// Earliest first differing position.
    pub first_divergence_min: Option<u64>,
    /// Tokens side a generated.
    pub gen_tokens_a: u64,
    /// Tokens side b generated.
    pub gen_tokens_b: u64,
}

fn common(prompts: &[Prompt]) -> Common {
    let all: Vec<&Position> = prompts.iter().flat_map(|p| &p.positions).collect();
    let n = all.len().max(1) as f64;
    let mut kl: Vec<f64> = all.iter().map(|p| p.kl).collect();
    kl.sort_by(f64::total_cmp);
    let mut dp: Vec<f64> = all.iter().map(|p| p.dp).collect();
    dp.sort_by(f64::total_cmp);
    let q = |sorted: &[f64], at: f64| quantile_sorted(sorted, at).unwrap_or(0.0);
    let ppl = |pick: fn(&Position) -> f64| (-all.iter().map(|p| pick(p)).sum::<f64>() / n).exp();
    Common {
        positions: all.len() as u64,
        kld_mean: kl.iter().sum::<f64>() / n,
        kld: [
            q(&kl, 0.5),
            q(&kl, 0.9),
            q(&kl, 0.99),
            q(&kl, 0.999),
            q(&kl, 1.0),
        ],
        top1_agree: all.iter().filter(|p| p.top1_agree).count() as f64 / n,
        dp_mean_abs: all.iter().map(|p| p.dp.abs()).sum::<f64>() / n,
        dp: [
            q(&dp, 0.01),
            q(&dp, 0.05),
            q(&dp, 0.5),
            q(&dp, 0.95),
            q(&dp, 0.99),
        ],
        support_mass_mean: mean(&all.iter().map(|p| p.support_mass).collect::<Vec<_>>())
            .unwrap_or(0.0),
        ppl_a: ppl(|p| p.logprob_a).max(1.0),
        ppl_b: ppl(|p| p.logprob_b).max(1.0),
        prompts: prompts.len() as u64,
    }
}

/// A prompt's KL sum and position count.
fn kl_sum(prompt: &Prompt) -> (f64, u64) {
    (
        prompt.positions.iter().map(|x| x.kl).sum(),
        prompt.positions.len() as u64,
    )
}

/// The percentile-bootstrap 95% interval of the position-weighted kld_mean, resampling
/// prompts with replacement `resamples` times from a generator seeded with `seed`.
pub fn bootstrap_ci95(prompts: &[Prompt], resamples: usize, seed: u64) -> [f64; 2] {
    let sums: Vec<(f64, u64)> = prompts.iter().map(kl_sum).collect();
    if sums.is_empty() {
        return [0.0, 0.0];
    }
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut means: Vec<f64> = (0..resamples)
        .map(|_| {
            let (mut kl, mut count) = (0.0, 0);
            for _ in 0..sums.len() {
                let (sum, n) = sums[rng.usize(..sums.len())];
                kl += sum;
                count += n;
            }
            if count == 0 { 0.0 } else { kl / count as f64 }
        })
        .collect();
    means.sort_by(f64::total_cmp);
    let q = |at| quantile_sorted(&means, at).unwrap_or(0.0);
    [q(0.025), q(0.975)]
}

/// The seed of every bootstrap, so a document's intervals can be recomputed.
pub const BOOTSTRAP_SEED: u64 = 20_260_907;
/// Resamples per bootstrap.
pub const BOOTSTRAP_RESAMPLES: usize = 1000;

/// The teacher-forced block: both sides scored the same reference continuation.
pub fn teacher_forced(prompts: &[Prompt]) -> TeacherForced {
    let c = common(prompts);
    let ci = bootstrap_ci95(prompts, BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED);
    let mut per_category: IndexMap<String, Vec<&Position>> = IndexMap::new();
    for prompt in prompts {
        per_category
            .entry(prompt.category.clone())
            .or_default()
            .extend(&prompt.positions);
    }
    per_category.sort_keys();
    TeacherForced {
        common: c,
        kld_mean_ci95: ci,
        per_prompt: prompts.iter().map(|p| (p.id.clone(), kl_sum(p))).collect(),
        per_category: per_category
            .into_iter()
            .filter(|(_, positions)| !positions.is_empty())
            .map(|(name, positions)| {
                let n = positions.len() as f64;
                (
                    name,
                    Category {
                        positions: positions.len() as u64,
                        kld_mean: positions.iter().map(|p| p.kl).sum::<f64>() / n,
                        top1_agree: positions.iter().filter(|p| p.top1_agree).count() as f64 / n,
                        dp_mean_abs: positions.iter().map(|p| p.dp.abs()).sum::<f64>() / n,
                    },
                )
            })
            .collect(),
    }
}

/// Where two greedy continuations first differ; `None` when equal in full.
pub fn first_divergence(a: &[u32], b: &[u32]) -> Option<usize> {
    match a.iter().zip(b).position(|(x, y)| x != y) {
        Some(at) => Some(at),
        None if a.len() == b.len() => None,
        None => Some(a.len().min(b.len())),
    }
}

/// One prompt of the generation side: the compared positions (those before the first
/// differing token, where both sides saw the same context) and where it diverged.
#[derive(Debug, Clone, PartialEq)]
pub struct GeneratedPrompt {
    /// The compared positions.
    pub compared: Prompt,
    /// The first differing position, if any.
    pub first_divergence: Option<usize>,
    /// Tokens each side generated.
    pub tokens: (u64, u64),
}

/// The generation block: each side's own greedy continuation, compared token by token.
pub fn generation(prompts: &[GeneratedPrompt]) -> Generation {
    let compared: Vec<Prompt> = prompts.iter().map(|p| p.compared.clone()).collect();
    let c = common(&compared);
    let mut firsts: Vec<f64> = prompts
        .iter()
        .filter_map(|p| p.first_divergence.map(|at| at as f64))
        .collect();
    firsts.sort_by(f64::total_cmp);
    let identical = prompts
        .iter()
        .filter(|p| p.first_divergence.is_none())
        .count() as u64;
    let count = prompts.len() as u64;
    Generation {
        common: c,
        identical,
        identical_rate: if count == 0 {
            0.0
        } else {
            identical as f64 / count as f64
        },
        diverged: count - identical,
        first_divergence_p10: quantile_sorted(&firsts, 0.1),
        first_divergence_p50: quantile_sorted(&firsts, 0.5),
        first_divergence_min: firsts.first().map(|v| *v as u64),
        gen_tokens_a: prompts.iter().map(|p| p.tokens.0).sum(),
        gen_tokens_b: prompts.iter().map(|p| p.tokens.1).sum(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn side(top: &[(u32, f64)], reference: f64) -> Side<'_, f64> {
        Side { top, reference }
    }

    #[test]
    fn two_tokens_fully_captured_is_the_exact_kl() {
        // A = (0.5, 0.5), B = (0.25, 0.75): KL = 0.5 ln 2 + 0.5 ln(2/3).
        let a = [(1, 0.5f64.ln()), (2, 0.5f64.ln())];
        let b = [(1, 0.25f64.ln()), (2, 0.75f64.ln())];
        let p = compare(1, side(&a, 0.5f64.ln()), side(&b, 0.25f64.ln()));
        let exact = 0.5 * 2f64.ln() + 0.5 * (2.0f64 / 3.0).ln();
        assert!((p.kl - exact).abs() < 1e-12, "{}", p.kl);
        assert!((p.support_mass - 1.0).abs() < 1e-12);
        assert!(!p.top1_agree, "A ties, lowest id first: 1; B: 2");
        assert!((p.dp + 0.25).abs() < 1e-12);
    }

    #[test]
    fn three_tokens_cut_to_two_with_the_tail_bucket() {
        // A = (0.6, 0.3, 0.1), B = (0.5, 0.2, 0.3); each side returned only tokens 1 and 2
        // (top-2), so the shared support is {1, 2} and the tails are 0.1 and 0.3:
        // KL = 0.6 ln(0.6/0.5) + 0.3 ln(0.3/0.2) + 0.1 ln(0.1/0.3).
        let a = [(1, 0.6f64.ln()), (2, 0.3f64.ln())];
        let b = [(1, 0.5f64.ln()), (2, 0.2f64.ln())];
        let p = compare(2, side(&a, 0.3f64.ln()), side(&b, 0.2f64.ln()));
        let by_hand =
            0.6 * (0.6f64 / 0.5).ln() + 0.3 * (0.3f64 / 0.2).ln() + 0.1 * (0.1f64 / 0.3).ln();
        assert!((p.kl - by_hand).abs() < 1e-12, "{} vs {by_hand}", p.kl);
        let exact = by_hand; // the third token is the whole tail on both sides
        assert!(p.kl <= exact + 1e-12);
        assert!((p.support_mass - 0.9).abs() < 1e-12);
        assert!(p.top1_agree);
        // Disjoint top lists: only the reference token (added to both) is shared.
        let a = [(1, 0.7f64.ln()), (2, 0.2f64.ln())];
        let b = [(3, 0.7f64.ln()), (4, 0.2f64.ln())];
        let p = compare(2, side(&a, 0.2f64.ln()), side(&b, 0.05f64.ln()));
        let by_hand = 0.2 * (0.2f64 / 0.05).ln() + 0.8 * (0.8f64 / 0.95).ln();
        assert!((p.kl - by_hand).abs() < 1e-12);
    }

    #[test]
    fn blocks_and_the_bootstrap() {
        let position = |kl: f64| Position {
            kl,
            support_mass: 1.0,
            top1_agree: kl == 0.0,
            dp: 0.0,
            logprob_a: -1.0,
            logprob_b: -1.0,
        };
        let prompts: Vec<Prompt> = (0..10)
            .map(|i| Prompt {
                id: format!("p{i}"),
                category: if i % 2 == 0 { "math" } else { "code-py" }.into(),
                positions: vec![position(i as f64 / 10.0); 4],
            })
            .collect();
        let block = teacher_forced(&prompts);
        assert_eq!(block.common.positions, 40);
        assert!((block.common.kld_mean - 0.45).abs() < 1e-12);
        assert_eq!(block.common.top1_agree, 0.1);
        assert!((block.common.ppl_a - 1f64.exp()).abs() < 1e-12);
        assert_eq!(
            block.per_category.keys().collect::<Vec<_>>(),
            ["code-py", "math"]
        );
        assert_eq!(block.per_category["math"].positions, 20);
        assert!((block.per_category["math"].kld_mean - 0.4).abs() < 1e-12);
        assert_eq!(block.per_prompt.len(), 10);
        let (sum, n) = block.per_prompt["p3"];
        assert!((sum - 1.2).abs() < 1e-12 && n == 4, "{sum} {n}");
        let [low, high] = block.kld_mean_ci95;
        assert!(low < 0.45 && 0.45 < high, "{low} {high}");
        assert_eq!(
            bootstrap_ci95(&prompts, 1000, 7),
            bootstrap_ci95(&prompts, 1000, 7)
        );
        assert_ne!(
            bootstrap_ci95(&prompts, 1000, 7),
            bootstrap_ci95(&prompts, 1000, 8)
        );
    }

    #[test]
    fn the_bootstrap_interval_of_a_hand_worked_case() {
        let prompt = |kl: f64, n: usize| Prompt {
            id: format!("{kl}/{n}"),
            category: "c".into(),
            positions: vec![
                Position {
                    kl,
                    support_mass: 1.0,
                    top1_agree: true,
                    dp: 0.0,
                    logprob_a: -1.0,
                    logprob_b: -1.0,
                };
                n
            ],
        };
        // Two one-position prompts, KL 0 and 1: a resample of two is {0, 0}, a mix or {1, 1},
        // with means 0, 0.5 and 1 at 1/4, 1/2, 1/4. The 2.5th percentile is 0, the 97.5th 1.
        let block = teacher_forced(&[prompt(0.0, 1), prompt(1.0, 1)]);
        assert_eq!(block.kld_mean_ci95, [0.0, 1.0]);
        // Position-weighted: a one-position prompt of KL 4 and a ten-position one of KL 0.
        // Resamples {4, 4} mean 4, a mix 4/11, {0, 0} mean 0: the interval is [0, 4], and the
        // mean, 4/11, lies inside it by the data alone.
        let block = teacher_forced(&[prompt(4.0, 1), prompt(0.0, 10)]);
        assert_eq!(block.kld_mean_ci95, [0.0, 4.0]);
        assert!((block.common.kld_mean - 4.0 / 11.0).abs() < 1e-12);
        // A single prompt resamples to itself: the interval is the mean, exactly.
        let block = teacher_forced(&[prompt(0.3, 5)]);
        assert_eq!(block.kld_mean_ci95, [0.3, 0.3]);
    }

    #[test]
    fn first_divergences() {
        assert_eq!(first_divergence(&[1, 2, 3], &[1, 2, 3]), None);
        assert_eq!(first_divergence(&[1, 2, 3], &[1, 9, 3]), Some(1));
        assert_eq!(first_divergence(&[1, 2], &[1, 2, 3]), Some(2));
        let generated = |first| GeneratedPrompt {
            compared: Prompt {
                id: "x".into(),
                category: "x".into(),
                positions: Vec::new(),
            },
            first_divergence: first,
            tokens: (10, 10),
        };
        let block = generation(&[generated(None), generated(Some(4)), generated(Some(8))]);
        assert_eq!((block.identical, block.diverged), (1, 2));
        assert_eq!(block.first_divergence_min, Some(4));
        assert_eq!(block.first_divergence_p50, Some(6.0));
        assert_eq!(block.gen_tokens_a, 30);
        let none = generation(&[generated(None)]);
        assert_eq!(none.first_divergence_p50, None);
    }
}

#[cfg(test)]
mod properties {
    use super::*;
    use proptest::prelude::*;

    /// A full distribution over `n` tokens from positive weights.
    fn distribution(weights: &[f64]) -> Vec<f64> {
        let total: f64 = weights.iter().sum();
        weights.iter().map(|w| w / total).collect()
    }

    /// The top `k` of a distribution as (token, logprob).
    fn top(p: &[f64], k: usize) -> Vec<(u32, f64)> {
        let mut order: Vec<usize> = (0..p.len()).collect();
        order.sort_by(|&x, &y| p[y].total_cmp(&p[x]));
        order
            .into_iter()
            .take(k)
            .map(|i| (i as u32, p[i].ln()))
            .collect()
    }

    fn softmax(logits: &[f64]) -> Vec<f64> {
        let max = logits.iter().cloned().fold(f64::MIN, f64::max);
        let total: f64 = logits.iter().map(|x| (x - max).exp()).sum();
        logits.iter().map(|x| (x - max).exp() / total).collect()
    }

    /// Log-softmax as a server computes it in float32.
    fn log_softmax_f32(logits: &[f64]) -> Vec<f32> {
        let logits: Vec<f32> = logits.iter().map(|&x| x as f32).collect();
        let max = logits.iter().cloned().fold(f32::MIN, f32::max);
        let total: f32 = logits.iter().map(|x| (x - max).exp()).sum();
        logits.iter().map(|x| x - max - total.ln()).collect()
    }

    fn exact(p: &[f64], q: &[f64]) -> f64 {
        p.iter().zip(q).map(|(a, b)| a * (a / b).ln()).sum()
    }

    proptest! {
        #[test]
        fn the_estimate_is_never_above_the_exact_kl(
            pairs in proptest::collection::vec((0.001f64..1.0, 0.001f64..1.0), 2..40),
            k in 1usize..25,
            reference in 0usize..40,
        ) {
            let (wa, wb): (Vec<f64>, Vec<f64>) = pairs.into_iter().unzip();
            let (p, q) = (distribution(&wa), distribution(&wb));
            let reference = reference % p.len();
            let position = compare(
                reference as u32,
                Side { top: &top(&p, k), reference: p[reference].ln() },
                Side { top: &top(&q, k), reference: q[reference].ln() },
            );
            prop_assert!(position.kl >= 0.0);
            prop_assert!(position.kl <= exact(&p, &q) + 1e-9, "{} > {}", position.kl, exact(&p, &q));
            if k >= p.len() {
                prop_assert!((position.kl - exact(&p, &q)).abs() < 1e-9);
            }
        }

        #[test]
        fn identical_sides_diverge_by_nothing(
            weights in proptest::collection::vec(0.001f64..1.0, 2..40),
            k in 1usize..25,
        ) {
            let p = distribution(&weights);
            let t = top(&p, k);
            let position = compare(t[0].0, Side { top: &t, reference: t[0].1 }, Side { top: &t, reference: t[0].1 });
            prop_assert!(position.kl.abs() < 1e-12);
            prop_assert!(position.top1_agree);
            prop_assert_eq!(position.dp, 0.0);
        }

        #[test]
        fn peaked_float32_logprobs_never_overstate(
            a_logits in proptest::collection::vec(-4.0f64..4.0, 6..12),
            b_noise in proptest::collection::vec(-0.5f64..0.5, 12),
            a_tail in 6.0f64..14.0,
            b_tail in 16.0f64..24.0,
            k in 2usize..5,
        ) {
            // Token 0 dominates both sides; tokens k.. are each side's tail, thin on A and
            // far thinner on B, so B's f32 logprobs can claim all the shared mass.
            let n = a_logits.len();
            let mut a: Vec<f64> = a_logits.clone();
            let mut b: Vec<f64> = a_logits.iter().zip(&b_noise).map(|(x, e)| x + e).collect();
            a[0] += 20.0;
            b[0] += 20.0;
            for t in k..n {
                a[t] += a[0] - a_tail - a_logits[t];
                b[t] += b[0] - b_tail - a_logits[t];
            }
            let (p, q) = (softmax(&a), softmax(&b));
            let (la, lb) = (log_softmax_f32(&a), log_softmax_f32(&b));
            let top = |l: &[f32]| -> Vec<(u32, f32)> { (0..k).map(|t| (t as u32, l[t])).collect() };
            let (ta, tb) = (top(&la), top(&lb));
            let position = compare(
                0,
                Side { top: &ta, reference: la[0] as f64 },
                Side { top: &tb, reference: lb[0] as f64 },
            );
            let exact = exact(&p, &q);
            // The shared terms carry f32 rounding of about 1e-7 each.
            prop_assert!(position.kl <= exact + 1e-6, "{} > {}", position.kl, exact);
        }
    }
}

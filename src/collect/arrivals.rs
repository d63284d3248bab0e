//! When an open-loop level's requests are due: gamma-distributed gaps with shape
//! `burstiness` and scale 1 / (rate × burstiness), so the mean gap is 1 / rate and a
//! burstiness of 1 is a Poisson process (`vllm bench serve`'s arrivals). The first request
//! is due at 0. As `vllm bench serve` does, the level's N drawn gaps are scaled together so
//! that they sum to N / rate: the N arrivals and the gap after the last span exactly N / rate,
//! so the rate a level is labelled with is the rate its arrivals had. Unscaled, seed 0's 40
//! arrivals at 2 req/s spanned 23.1 s first to last, an offered 1.69 req/s, half of the way to
//! the over-saturation rule before the server did anything. Scaling every gap by one factor keeps the shape of
//! their distribution (a gamma's scale changes, its shape does not).

use std::time::Duration;

use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::SeedableRng;
use rand_distr::{Distribution, Gamma};

use crate::data::{Arrivals, Process};

/// The due times of a level at `rate` requests per second, from its start: at most
/// `arrivals.requests`, their gaps scaled to sum to `requests / rate`, and only those before
/// `arrivals.duration_s` when it is set. The same seed gives every rate the same draws,
/// scaled, so levels differ only in their rate.
pub fn schedule(rate: f64, arrivals: &Arrivals) -> Vec<Duration> {
    let n = arrivals.requests as usize;
    let drawn: Vec<f64> = match arrivals.process {
        Process::Gamma => gaps(rate, arrivals.burstiness, arrivals.seed.unwrap_or(0))
            .take(n)
            .collect(),
        Process::Constant => vec![1.0 / rate; n],
    };
    let total: f64 = drawn.iter().sum();
    let scale = match total > 0.0 {
        true => n as f64 / rate / total,
        false => 1.0,
    };
    let mut due = Vec::new();
    let mut at = 0.0;
    for gap in drawn.into_iter().map(|gap| gap * scale) {
        if arrivals.duration_s.is_some_and(|limit| at >= limit) {
            break;
        }
        due.push(Duration::from_secs_f64(at));
        at += gap;
    }
    due
}

/// The gaps between arrivals, in seconds, endless.
pub fn gaps(rate: f64, burstiness: f64, seed: u64) -> impl Iterator<Item = f64> {
    let gamma = Gamma::new(burstiness, 1.0 / (rate * burstiness))
        .expect("a positive rate and burstiness, checked with the parameters");
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    std::iter::from_fn(move || Some(gamma.sample(&mut rng)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The Kolmogorov–Smirnov statistic of `sample` against the distribution function `cdf`.
    fn ks(mut sample: Vec<f64>, cdf: impl Fn(f64) -> f64) -> f64 {
        sample.sort_by(f64::total_cmp);
        let n = sample.len() as f64;
        sample
            .iter()
            .enumerate()
            .map(|(i, &x)| {
                let f = cdf(x);
                (f - i as f64 / n).max((i + 1) as f64 / n - f)
            })
            .fold(0.0, f64::max)
    }

    /// erf by its Taylor series, which converges for every x this test asks (|x| < 6).
    fn erf(x: f64) -> f64 {
        let mut term = x;
        let mut sum = x;
        for n in 1..200 {
            term *= -x * x / n as f64;
            sum += term / (2 * n + 1) as f64;
        }
        sum * 2.0 / std::f64::consts::PI.sqrt()
    }

    /// The gaps pass a Kolmogorov–Smirnov test against the gamma distribution asked for, at
    /// three shapes whose distribution functions have closed forms, worked out by hand: shape
    /// 1 is exponential, 1 − e^(−λx); shape 2 is 1 − e^(−x/θ)(1 + x/θ); shape ½ is
    /// erf(√(x/θ)). 4,000 gaps; the 1% critical value is 1.628 / √n = 0.0257.
    #[test]
    fn the_gaps_are_the_gamma_distribution_asked_for() {
        let n = 4000;
        let critical = 1.628 / (n as f64).sqrt();
        let rate = 5.0;
        let sample = |burstiness: f64, seed: u64| -> Vec<f64> {
            gaps(rate, burstiness, seed).take(n).collect()
        };
        for seed in [0, 1, 42] {
            let poisson = ks(sample(1.0, seed), |x| 1.0 - (-rate * x).exp());
            assert!(poisson < critical, "Poisson, seed {seed}: D = {poisson}");
            let theta = 1.0 / (rate * 2.0);
            let even = ks(sample(2.0, seed), |x| {
                1.0 - (-x / theta).exp() * (1.0 + x / theta)
            });
            assert!(even < critical, "shape 2, seed {seed}: D = {even}");
            let theta = 1.0 / (rate * 0.5);
            let bursty = ks(sample(0.5, seed), |x| erf((x / theta).sqrt()));
            assert!(bursty < critical, "shape 0.5, seed {seed}: D = {bursty}");
        }
        // The test can fail: the exponential of another rate is far off.
        let wrong = ks(sample(1.0, 0), |x| 1.0 - (-2.0 * rate * x).exp());
        assert!(wrong > critical, "D = {wrong}");
    }

    #[test]
    fn a_schedule_starts_at_zero_and_ends_at_its_count_or_duration() {
        let mut arrivals = Arrivals {
            process: crate::data::Process::Gamma,
            burstiness: 1.0,
            seed: Some(7),
            max_concurrency: None,
            requests: 500,
            duration_s: None,
        };
        let due = schedule(10.0, &arrivals);
        assert_eq!(due.len(), 500);
        assert_eq!(due[0], Duration::ZERO);
        assert!(due.windows(2).all(|w| w[0] <= w[1]));
        // 499 gaps of mean 0.1 s: about 50 s, the last gap short of exactly 50 s.
        let span = due[499].as_secs_f64();
        assert!((48.0..50.0).contains(&span), "{span}");
        // The same seed at twice the rate: the same draws, at half the times.
        let faster = schedule(20.0, &arrivals);
        for (a, b) in due.iter().zip(&faster) {
            assert!((a.as_secs_f64() / 2.0 - b.as_secs_f64()).abs() < 1e-6);
        }
        arrivals.duration_s = Some(5.0);
        let timed = schedule(10.0, &arrivals);
        assert!(timed.iter().all(|t| t.as_secs_f64() < 5.0));
        assert_eq!(timed[..], due[..timed.len()]);
        assert!(due[timed.len()].as_secs_f64() >= 5.0);
    }

    /// 40 arrivals at 2 req/s, by hand from the 40 gaps `gaps` draws (their sum T): arrival k
    /// is due at the sum of the first k draws × 20 / T, so the 40 arrivals and the gap after
    /// the last span exactly 40 / 2 = 20 s, and the level offers the 2 req/s it is labelled
    /// with.
    #[test]
    fn forty_arrivals_offer_the_rate_they_are_labelled_with() {
        let arrivals = Arrivals {
            process: crate::data::Process::Gamma,
            burstiness: 1.0,
            seed: Some(0),
            max_concurrency: None,
            requests: 40,
            duration_s: None,
        };
        let drawn: Vec<f64> = gaps(2.0, 1.0, 0).take(40).collect();
        let total: f64 = drawn.iter().sum();
        let due = schedule(2.0, &arrivals);
        assert_eq!(due.len(), 40);
        let mut at = 0.0;
        for (k, due) in due.iter().enumerate() {
            assert!(
                (due.as_secs_f64() - at * 20.0 / total).abs() < 1e-9,
                "arrival {k}"
            );
            at += drawn[k];
        }
        let window = due[39].as_secs_f64() + drawn[39] * 20.0 / total;
        assert!((window - 20.0).abs() < 1e-9, "{window}");
        assert!((40.0 / window - 2.0).abs() < 1e-9);
    }
}

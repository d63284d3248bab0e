//! The limits a page answers within, in the words every page and `benchsite.js` use, and the
//! per-user rate a bound on time per output token asks for.

use crate::config::Slo;
use crate::data::figures::level;

/// `slo`'s limits in words, the per-stream rate's as output tok/s per user.
pub(super) fn words_of(slo: &Slo) -> String {
    limits_words(
        slo.bound(&level::TTFT_P95_S),
        least_per_user(slo),
        &others(slo),
    )
}

/// The limits in words, as `benchsite.js` writes them too: `TTFT p95 ≤ 2 s and at least 20
/// output tok/s per user`.
fn limits_words(ttft: Option<f64>, per_user: Option<f64>, others: &Slo) -> String {
    let mut words: Vec<String> = Vec::new();
    if let Some(t) = ttft {
        words.push(format!("TTFT p95 ≤ {t} s"));
    }
    if let Some(u) = per_user {
        words.push(format!("at least {u} output tok/s per user"));
    }
    if !others.bounds().is_empty() {
        words.push(others.words());
    }
    match words.len() {
        0 => "no limit but that every request is answered".to_owned(),
        _ => words.join(" and "),
    }
}

/// The least output tok/s per user `slo` asks: its bound on 1000 / the per-stream rate.
pub(super) fn least_per_user(slo: &Slo) -> Option<f64> {
    slo.bound(&level::TPOT_FROM_RATE_MS).map(per_user)
}

/// The per-user rate a bound on 1000 / the per-stream rate (ms) asks for, to two decimals.
fn per_user(ms: f64) -> f64 {
    crate::stats::round(1000.0 / ms, 2)
}

/// The limits of `slo` besides the two the form takes (TTFT p95 and the per-user rate).
pub(super) fn others(slo: &Slo) -> Slo {
    Slo::of(
        slo.bounds()
            .iter()
            .filter(|b| {
                b.figure.field.key != level::TTFT_P95_S.field.key
                    && b.figure.field.key != level::TPOT_FROM_RATE_MS.field.key
            })
            .map(|b| (b.figure, b.at_most)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_limits_read_as_a_sentence() {
        let latency = Slo::of([(&level::LATENCY_P95_S, 10.0)]);
        assert_eq!(
            limits_words(Some(2.0), Some(20.0), &latency),
            "TTFT p95 ≤ 2 s and at least 20 output tok/s per user and latency p95 ≤ 10 s"
        );
        assert_eq!(
            limits_words(None, Some(33.33), &Slo::default()),
            "at least 33.33 output tok/s per user"
        );
        assert_eq!(
            limits_words(None, None, &Slo::default()),
            "no limit but that every request is answered"
        );
        assert_eq!(per_user(30.0), 33.33);
    }
}

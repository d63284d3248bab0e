//! How figures are written for readers: the one place numbers become text. A leaf: it
//! imports nothing of the crate, and every layer may use it.

/// The mark written where a value is missing.
pub const MISSING: &str = "—";

/// A figure with the precision the data has: 358.0 stays 358.0, 0.0312 stays 0.0312, and
/// small values are written out (0.000008, never 8e-6).
pub fn figure(value: f64) -> String {
    let text = format!("{value:?}");
    let Some((mantissa, exponent)) = text.split_once('e') else {
        return group_integer_part(text);
    };
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let negative = mantissa.starts_with('-');
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let point = mantissa
        .trim_start_matches('-')
        .find('.')
        .unwrap_or(mantissa.trim_start_matches('-').len()) as i32;
    let position = point + exponent;
    let body = if position <= 0 {
        format!("0.{}{}", "0".repeat((-position) as usize), digits)
    } else if position as usize >= digits.len() {
        format!(
            "{}{}.0",
            digits,
            "0".repeat(position as usize - digits.len())
        )
    } else {
        let (int, frac) = digits.split_at(position as usize);
        format!("{int}.{frac}")
    };
    let body = group_integer_part(body);
    if negative { format!("-{body}") } else { body }
}

/// A figure to `decimals` places, thousands separated as [`figure`] does: 10.438 to 2 is
/// 10.44, 1,860.77 to 1 is 1,860.8.
pub fn fixed(value: f64, decimals: usize) -> String {
    group_integer_part(format!("{value:.decimals$}"))
}

/// A whole count with thousands separated: 1,497,245.
pub fn count(value: u64) -> String {
    group(&value.to_string())
}

/// A count and its noun, the singular for one: `1 configuration`, `2,400 configurations`.
pub fn counted(n: usize, one: &str, many: &str) -> String {
    format!("{} {}", count(n as u64), if n == 1 { one } else { many })
}

/// Counts and their nouns as a list: `3 configurations, 1 sweep and 0 failures`.
pub fn every_count(counts: &[(usize, &str, &str)]) -> String {
    let words: Vec<String> = counts
        .iter()
        .map(|&(n, one, many)| counted(n, one, many))
        .collect();
    and_list(&words)
}

/// Items as a list in words: `a`, `a and b`, `a, b and c`.
pub fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// A fraction as a percentage with the data's precision: 0.39 → 39%, 0.0312 → 3.12%.
pub fn percent(value: f64) -> String {
    // Two of the fraction's decimals become the percentage's whole part.
    let places = decimals(value).saturating_sub(2);
    format!("{:.*}%", places, value * 100.0)
}

/// The number of decimals `value` is written with in its shortest exact form, without
/// trailing zeros: 358.0 has 0, 0.0312 has 4, 8e-6 has 6.
pub fn decimals(value: f64) -> usize {
    figure(value)
        .split_once('.')
        .map_or(0, |(_, fraction)| fraction.trim_end_matches('0').len())
}

/// `text`, a number as Rust writes it, with its integer part's thousands separated.
fn group_integer_part(text: String) -> String {
    let (sign, rest) = match text.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", text.as_str()),
    };
    let (int, frac) = match rest.split_once('.') {
        Some((int, frac)) => (int, Some(frac)),
        None => (rest, None),
    };
    if int.len() <= 4 {
        // Nothing to group: the text as it is.
        return text;
    }
    let int = group(int);
    match frac {
        Some(frac) => format!("{sign}{int}.{frac}"),
        None => format!("{sign}{int}"),
    }
}

fn group(digits: &str) -> String {
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

/// At most this many known names in an error's "expected one of".
pub const CHOICES: usize = 10;

/// The names an error offers for `wanted`: all of `known` when they are few, else the
/// [`CHOICES`] most like it (by edit distance, then in order) and how many more there are.
pub fn choices<S: AsRef<str>>(wanted: &str, known: &[S]) -> String {
    if known.len() <= CHOICES {
        return known
            .iter()
            .map(AsRef::as_ref)
            .collect::<Vec<_>>()
            .join(", ");
    }
    let mut ranked: Vec<(usize, usize, &str)> = known
        .iter()
        .enumerate()
        .map(|(i, k)| {
            (
                strsim::damerau_levenshtein(wanted, k.as_ref()),
                i,
                k.as_ref(),
            )
        })
        .collect();
    ranked.sort_unstable();
    let shown: Vec<&str> = ranked[..CHOICES].iter().map(|(_, _, k)| *k).collect();
    format!("{} … and {} more", shown.join(", "), known.len() - CHOICES)
}

/// "on" or "off".
pub fn switch(on: bool) -> &'static str {
    if on { "on" } else { "off" }
}

/// A duration in seconds with its own unit: `850 µs`, `15.0 ms`, `1.23 s`, `2 min 5 s`.
pub fn duration(seconds: f64) -> String {
    match seconds {
        s if s < 1e-3 => format!("{:.0} µs", s * 1e6),
        s if s < 1.0 => format!("{:.1} ms", s * 1e3),
        s if s < 60.0 => format!("{s:.2} s"),
        s => format!("{} min {} s", (s / 60.0).floor(), (s % 60.0).round()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_read_as_words() {
        let items = |xs: &[&str]| xs.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert_eq!(and_list(&[]), "");
        assert_eq!(and_list(&items(&["a"])), "a");
        assert_eq!(and_list(&items(&["a", "b"])), "a and b");
        assert_eq!(and_list(&items(&["a", "b", "c"])), "a, b and c");
    }

    #[test]
    fn a_count_takes_the_singular_for_one() {
        assert_eq!(counted(1, "pair", "pairs"), "1 pair");
        assert_eq!(counted(0, "pair", "pairs"), "0 pairs");
        assert_eq!(counted(12_000, "pair", "pairs"), "12,000 pairs");
        assert_eq!(
            every_count(&[
                (1, "sweep", "sweeps"),
                (2, "run", "runs"),
                (0, "failure", "failures")
            ]),
            "1 sweep, 2 runs and 0 failures"
        );
        assert_eq!(every_count(&[(1, "sweep", "sweeps")]), "1 sweep");
    }

    #[test]
    fn many_choices_are_cut_to_the_closest() {
        assert_eq!(choices("b", &["a", "b"]), "a, b");
        let many: Vec<String> = (0..100).map(|i| format!("run-{i}")).collect();
        let said = choices("run-42x", &many);
        // run-42 is one edit away, run-4 and run-2 and others two: the closest ten, by
        // distance then order, and the count of the rest.
        assert!(said.starts_with("run-42, "), "{said}");
        assert!(said.ends_with(" … and 90 more"), "{said}");
        assert_eq!(said.matches(", ").count(), 9, "{said}");
    }

    #[test]
    fn durations_carry_their_own_unit() {
        let shown: Vec<String> = [0.00085, 0.015, 0.9994, 1.234, 125.4]
            .into_iter()
            .map(duration)
            .collect();
        assert_eq!(
            shown,
            ["850 µs", "15.0 ms", "999.4 ms", "1.23 s", "2 min 5 s"]
        );
    }

    #[test]
    fn fixed_rounds_to_its_places_and_groups_long_integers() {
        assert_eq!(fixed(10.438, 2), "10.44");
        assert_eq!(fixed(0.0679, 3), "0.068");
        assert_eq!(fixed(12_345.67, 1), "12,345.7");
        assert_eq!(fixed(-0.5, 0), "-0");
        assert_eq!(fixed(2546.4, 1), "2546.4");
    }

    #[test]
    fn figures_keep_the_data_precision() {
        assert_eq!(figure(358.0), "358.0");
        assert_eq!(figure(0.0312), "0.0312");
        assert_eq!(figure(8e-6), "0.000008");
        assert_eq!(figure(1.5e-5), "0.000015");
        assert_eq!(figure(-0.10571), "-0.10571");
        assert_eq!(figure(0.0), "0.0");
        assert_eq!(figure(22.85), "22.85");
        assert_eq!(figure(12345.5), "12,345.5");
        assert_eq!(figure(1e20), "100,000,000,000,000,000,000.0");
    }

    #[test]
    fn counts_are_grouped() {
        assert_eq!(count(1_497_245), "1,497,245");
        assert_eq!(count(786), "786");
        assert_eq!(count(24_576), "24,576");
        assert_eq!(count(0), "0");
    }

    #[test]
    fn decimals_as_written() {
        assert_eq!(decimals(358.0), 0);
        assert_eq!(decimals(0.0312), 4);
        assert_eq!(decimals(8e-6), 6);
        assert_eq!(decimals(2.55), 2);
    }

    #[test]
    fn percentages() {
        assert_eq!(percent(0.39), "39%");
        assert_eq!(percent(0.0312), "3.12%");
        assert_eq!(percent(0.98612), "98.612%");
        assert_eq!(percent(1.0), "100%");
    }
}

//! Deterministic prompts of a given length in words, different for every request, so that no
//! prefix cache can serve one request from another.

/// The words prompts are made of.
const WORDS: &[&str] = &[
    "the",
    "river",
    "morning",
    "engine",
    "quiet",
    "market",
    "stone",
    "window",
    "winter",
    "harbour",
    "letter",
    "garden",
    "signal",
    "bridge",
    "lantern",
    "forest",
    "copper",
    "island",
    "season",
    "ladder",
    "measure",
    "thread",
    "valley",
    "mirror",
    "orchard",
    "pocket",
    "silver",
    "tower",
    "village",
    "weather",
    "anchor",
    "basket",
    "candle",
    "desert",
    "feather",
    "glacier",
    "hollow",
    "journey",
    "kettle",
    "meadow",
    "needle",
    "ocean",
    "pepper",
    "quarry",
    "ribbon",
    "saddle",
    "timber",
    "velvet",
    "wander",
    "yellow",
    "across",
    "before",
    "beneath",
    "between",
    "slowly",
    "gently",
    "always",
    "nearly",
    "rarely",
    "softly",
    "carried",
    "counted",
    "drifted",
    "folded",
    "gathered",
    "hurried",
    "listened",
    "mended",
    "noticed",
    "opened",
    "painted",
    "reached",
    "settled",
    "travelled",
    "waited",
    "watched",
    "a",
    "of",
    "and",
    "to",
    "in",
    "with",
    "under",
    "over",
    "from",
    "into",
    "old",
    "new",
    "small",
    "large",
    "bright",
    "dark",
    "warm",
    "cold",
    "early",
    "late",
    "long",
    "short",
    "narrow",
    "wide",
    "green",
    "blue",
    "grey",
    "red",
];

/// A prompt of `words` words for request `seed`: a distinct opening, then text drawn from a
/// fixed word list with a seeded generator, then the instruction to continue.
pub fn prompt(words: u64, seed: u64) -> String {
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0xD1B5_4A32_D192_ED03;
    let mut next = move || {
        // xorshift64*: fast, deterministic, and good enough to vary text.
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        state.wrapping_mul(0x2545_F491_4F6C_DD1D)
    };
    let opening = format!("Document {seed}.");
    let closing = "Continue the text above at length.";
    let body_words = words.saturating_sub(2 + closing.split(' ').count() as u64);
    let mut text = opening;
    for index in 0..body_words {
        text.push(' ');
        let word = WORDS[(next() % WORDS.len() as u64) as usize];
        if index % 12 == 0 {
            let mut chars = word.chars();
            if let Some(first) = chars.next() {
                text.extend(first.to_uppercase());
                text.push_str(chars.as_str());
                continue;
            }
        }
        text.push_str(word);
    }
    text.push(' ');
    text.push_str(closing);
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prompts_have_the_asked_length_and_differ_from_the_first_word() {
        let a = prompt(700, 1);
        assert_eq!(a.split_whitespace().count(), 700);
        assert_eq!(a, prompt(700, 1), "deterministic");
        let b = prompt(700, 2);
        assert_ne!(a.split_whitespace().nth(1), b.split_whitespace().nth(1));
        assert_eq!(prompt(20, 5).split_whitespace().count(), 20);
    }
}

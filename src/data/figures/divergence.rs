//! The figures of a comparison's statistics (both blocks share them, read through
//! [`Block`]), of its prompt categories (`CATEGORY_`) and of a jitter measurement
//! (`JITTER_`). Each static is the field of the same key; a figure of the same key has one
//! label everywhere.

use super::field::{Better, Field, Precision, Role, field, number, whole};
use crate::data::{Block, CategoryStats, Generation, Jitter};

const KLD: Precision = Precision::Significant(3);
const LOWER: Role = Role::Figure(Better::Lower);
const NEITHER: Role = Role::Figure(Better::Neither);

pub static POSITIONS: Field<Block> = field(
    "positions",
    "Positions",
    "",
    Precision::Exact,
    Role::Detail,
    |b| whole(b.positions),
);

pub static PROMPTS: Field<Block> = field(
    "prompts",
    "Prompts",
    "",
    Precision::Exact,
    Role::Detail,
    |b| whole(b.prompts),
);

pub static KLD_MEAN: Field<Block> = field("kld_mean", "KLD mean (nats)", "nats", KLD, LOWER, |b| {
    number(b.kld_mean)
});

pub static KLD_P50: Field<Block> = field("kld_p50", "KLD p50 (nats)", "nats", KLD, LOWER, |b| {
    number(b.kld_p50)
});

pub static KLD_P90: Field<Block> = field("kld_p90", "KLD p90 (nats)", "nats", KLD, LOWER, |b| {
    number(b.kld_p90)
});

pub static KLD_P99: Field<Block> = field("kld_p99", "KLD p99 (nats)", "nats", KLD, LOWER, |b| {
    number(b.kld_p99)
});

pub static KLD_P999: Field<Block> =
    field("kld_p999", "KLD p99.9 (nats)", "nats", KLD, LOWER, |b| {
        number(b.kld_p999)
    });

pub static KLD_MAX: Field<Block> = field("kld_max", "KLD max (nats)", "nats", KLD, LOWER, |b| {
    number(b.kld_max)
});

pub static TOP1_AGREE: Field<Block> = field(
    "top1_agree",
    "Top-1 agreement",
    "",
    Precision::Decimals(3),
    Role::Figure(Better::Higher),
    |b| number(b.top1_agree),
);

pub static DP_MEAN_ABS: Field<Block> = field("dp_mean_abs", "Mean |Δp|", "", KLD, LOWER, |b| {
    number(b.dp_mean_abs)
});

pub static DP_P1: Field<Block> = field("dp_p1", "Δp p1", "", KLD, NEITHER, |b| number(b.dp_p1));

pub static DP_P5: Field<Block> = field("dp_p5", "Δp p5", "", KLD, NEITHER, |b| number(b.dp_p5));

pub static DP_P50: Field<Block> =
    field("dp_p50", "Δp p50", "", KLD, NEITHER, |b| number(b.dp_p50));

pub static DP_P95: Field<Block> =
    field("dp_p95", "Δp p95", "", KLD, NEITHER, |b| number(b.dp_p95));

pub static DP_P99: Field<Block> =
    field("dp_p99", "Δp p99", "", KLD, NEITHER, |b| number(b.dp_p99));

pub static SUPPORT_MASS_MEAN: Field<Block> = field(
    "support_mass_mean",
    "Shared-support mass",
    "",
    Precision::Decimals(3),
    NEITHER,
    |b| number(b.support_mass_mean),
);

pub static PPL_A: Field<Block> = field(
    "ppl_a",
    "Perplexity a",
    "",
    Precision::Decimals(3),
    NEITHER,
    |b| number(b.ppl_a),
);

pub static PPL_B: Field<Block> = field(
    "ppl_b",
    "Perplexity b",
    "",
    Precision::Decimals(3),
    NEITHER,
    |b| number(b.ppl_b),
);

pub static IDENTICAL_RATE: Field<Generation> = field(
    "identical_rate",
    "Identical continuations",
    "",
    Precision::Decimals(3),
    Role::Figure(Better::Higher),
    |g| number(g.identical_rate),
);

/// The KL percentiles, lowest first: each at most the next.
pub static KLD_PROFILE: [&Field<Block>; 5] = [&KLD_P50, &KLD_P90, &KLD_P99, &KLD_P999, &KLD_MAX];

/// The Δp percentiles, lowest first: each at most the next.
pub static DP_PROFILE: [&Field<Block>; 5] = [&DP_P1, &DP_P5, &DP_P50, &DP_P95, &DP_P99];

pub static CATEGORY_POSITIONS: Field<CategoryStats> = field(
    "positions",
    POSITIONS.label,
    "",
    Precision::Exact,
    Role::Detail,
    |c| whole(c.positions),
);

pub static CATEGORY_KLD_MEAN: Field<CategoryStats> =
    field("kld_mean", KLD_MEAN.label, "nats", KLD, LOWER, |c| {
        number(c.kld_mean)
    });

pub static CATEGORY_TOP1_AGREE: Field<CategoryStats> = field(
    "top1_agree",
    TOP1_AGREE.label,
    "",
    Precision::Decimals(3),
    Role::Figure(Better::Higher),
    |c| number(c.top1_agree),
);

pub static CATEGORY_DP_MEAN_ABS: Field<CategoryStats> =
    field("dp_mean_abs", DP_MEAN_ABS.label, "", KLD, LOWER, |c| {
        number(c.dp_mean_abs)
    });

/// A prompt category's figures, in the order of the categories download.
pub static CATEGORY: [&Field<CategoryStats>; 4] = [
    &CATEGORY_POSITIONS,
    &CATEGORY_KLD_MEAN,
    &CATEGORY_TOP1_AGREE,
    &CATEGORY_DP_MEAN_ABS,
];

/// A block's figures in the comparisons download, in its order.
pub static DOWNLOAD: [&Field<Block>; 11] = [
    &POSITIONS,
    &KLD_MEAN,
    &KLD_P50,
    &KLD_P90,
    &KLD_P99,
    &KLD_P999,
    &KLD_MAX,
    &TOP1_AGREE,
    &DP_MEAN_ABS,
    &PPL_A,
    &PPL_B,
];

pub static JITTER_KLD_MEAN: Field<Jitter> =
    field("kld_mean", KLD_MEAN.label, "nats", KLD, LOWER, |j| {
        number(j.kld_mean)
    });

pub static JITTER_KLD_P50: Field<Jitter> =
    field("kld_p50", KLD_P50.label, "nats", KLD, LOWER, |j| {
        number(j.kld_p50)
    });

pub static JITTER_KLD_P99: Field<Jitter> =
    field("kld_p99", KLD_P99.label, "nats", KLD, LOWER, |j| {
        number(j.kld_p99)
    });

pub static JITTER_KLD_MAX: Field<Jitter> =
    field("kld_max", KLD_MAX.label, "nats", KLD, LOWER, |j| {
        number(j.kld_max)
    });

pub static JITTER_TOP1_FLIP_RATE: Field<Jitter> = field(
    "top1_flip_rate",
    "Top-1 flip rate",
    "",
    Precision::Decimals(4),
    LOWER,
    |j| number(j.top1_flip_rate),
);

/// The KL percentiles of a jitter measurement, lowest first: each at most the next.
pub static JITTER_KLD_PROFILE: [&Field<Jitter>; 3] =
    [&JITTER_KLD_P50, &JITTER_KLD_P99, &JITTER_KLD_MAX];

/// The figures of a jitter measurement, in the order of its download; `diff` compares them.
pub static JITTER: [&Field<Jitter>; 5] = [
    &JITTER_KLD_MEAN,
    &JITTER_KLD_P50,
    &JITTER_KLD_P99,
    &JITTER_KLD_MAX,
    &JITTER_TOP1_FLIP_RATE,
];

/// The figure's value, which every block has.
pub fn value<R>(field: &Field<R>, record: &R) -> f64 {
    field
        .number_in(record)
        .expect("a divergence figure is always a number")
}

#[cfg(test)]
mod tests {
    use super::super::field::testing::{reads_its_key, schema_keys, seed};
    use super::*;

    const BLOCK: [&Field<Block>; 18] = [
        &POSITIONS,
        &PROMPTS,
        &KLD_MEAN,
        &KLD_P50,
        &KLD_P90,
        &KLD_P99,
        &KLD_P999,
        &KLD_MAX,
        &TOP1_AGREE,
        &DP_MEAN_ABS,
        &DP_P1,
        &DP_P5,
        &DP_P50,
        &DP_P95,
        &DP_P99,
        &SUPPORT_MASS_MEAN,
        &PPL_A,
        &PPL_B,
    ];

    #[test]
    fn every_entry_reads_its_own_key_of_the_seed() {
        let seed = seed();
        let doc: crate::data::Results = serde_json::from_value(seed.clone()).unwrap();
        assert!(!doc.divergence.is_empty() && !doc.jitter.is_empty());
        for (d, json) in doc
            .divergence
            .iter()
            .zip(seed["divergence"].as_array().unwrap())
        {
            reads_its_key(&BLOCK, &d.teacher_forced.block(), &json["teacher_forced"]);
            reads_its_key(&BLOCK, &d.generation.block(), &json["generation"]);
            reads_its_key(&[&IDENTICAL_RATE], &d.generation, &json["generation"]);
            for (name, c) in &d.teacher_forced.per_category {
                reads_its_key(&CATEGORY, c, &json["teacher_forced"]["per_category"][name]);
            }
        }
        for (j, json) in doc.jitter.iter().zip(seed["jitter"].as_array().unwrap()) {
            reads_its_key(&JITTER, j, json);
        }
    }

    #[test]
    fn the_block_is_what_both_blocks_share() {
        let mut block: Vec<String> = BLOCK.iter().map(|f| f.key.to_owned()).collect();
        block.sort();
        for def in ["TeacherForced", "Generation"] {
            let keys = schema_keys(def);
            assert!(block.iter().all(|k| keys.contains(k)), "{def}");
        }
        let mut category: Vec<String> = CATEGORY.iter().map(|f| f.key.to_owned()).collect();
        category.sort();
        assert_eq!(category, schema_keys("CategoryStats"));
    }

    #[test]
    fn significant_digits_follow_the_magnitude() {
        // Three significant digits: 0.004865 → 0.00487 (5 places), 2.54301 → 2.54 (2).
        assert_eq!(KLD_MEAN.precision.decimals_for(0.004865), Some(5));
        // A value that rounds up across a power of ten keeps three digits: 0.0099999 is
        // 0.0100 (4 places, not 0.01000), 999.7 is 1000 (0 places).
        assert_eq!(KLD_MEAN.precision.decimals_for(0.0099999), Some(4));
        assert_eq!(KLD_MEAN.precision.decimals_for(0.009994), Some(5));
        assert_eq!(KLD_MEAN.precision.decimals_for(999.7), Some(0));
        assert_eq!(
            KLD_MEAN.shown(&crate::data::figures::Value::Number(0.004865)),
            "0.00487"
        );
        assert_eq!(
            KLD_MEAN.shown(&crate::data::figures::Value::Number(2.54301)),
            "2.54"
        );
        assert_eq!(
            KLD_MEAN.shown(&crate::data::figures::Value::Number(0.0)),
            "0"
        );
    }

    #[test]
    fn a_key_has_one_label_on_every_record() {
        assert_eq!(JITTER_KLD_MEAN.label, KLD_MEAN.label);
        assert_eq!(CATEGORY_KLD_MEAN.label, KLD_MEAN.label);
        assert_eq!(KLD_MEAN.name(), "KLD mean");
        assert_eq!(KLD_P999.name(), "KLD p99.9");
    }
}

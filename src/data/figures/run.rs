//! Every field of a run: each static is the field of the same key (`DECODE_TOK_S` is
//! `decode_tok_s`), and [`ALL`] lists them in the order of the runs download.

use super::field::{Better, Field, Precision, Role, Value, field, number, text};
use crate::data::Run;

pub static ID: Field<Run> = field("id", "Run", "", Precision::Exact, Role::Key, |r| {
    text(r.id.as_str())
});

pub static MODEL: Field<Run> = field("model", "Model", "", Precision::Exact, Role::Setting, |r| {
    text(&r.model)
});

pub static CHECKPOINT: Field<Run> = field(
    "checkpoint",
    "Checkpoint",
    "",
    Precision::Exact,
    Role::Setting,
    |r| text(&r.checkpoint),
);

pub static SHAPE: Field<Run> = field("shape", "Shape", "", Precision::Exact, Role::Setting, |r| {
    text(&r.shape)
});

pub static PRECISION: Field<Run> = field(
    "precision",
    "Precision",
    "",
    Precision::Exact,
    Role::Setting,
    |r| text(&r.precision),
);

pub static PROFILE: Field<Run> = field(
    "profile",
    "Profile",
    "",
    Precision::Exact,
    Role::Setting,
    |r| text(&r.profile),
);

pub static OVERRIDES: Field<Run> = field(
    "overrides",
    "Overrides",
    "",
    Precision::Exact,
    Role::Setting,
    |r| text(&r.overrides),
);

pub static WEIGHTS_GIB: Field<Run> = field(
    "weights_gib",
    "Weights (GiB)",
    "GiB",
    Precision::Decimals(1),
    Role::Figure(Better::Neither),
    |r| r.weights_gib.map(Value::Number),
);

pub static MAX_MODEL_LEN: Field<Run> = field(
    "max_model_len",
    "Context (tokens)",
    "tokens",
    Precision::Exact,
    Role::Setting,
    |r| Some(Value::Count(r.max_model_len)),
);

pub static VISION: Field<Run> = field(
    "vision",
    "Vision",
    "",
    Precision::Exact,
    Role::Setting,
    |r| Some(Value::Bool(r.vision)),
);

pub static CUDA_GRAPHS: Field<Run> = field(
    "cuda_graphs",
    "CUDA graphs",
    "",
    Precision::Exact,
    Role::Setting,
    |r| Some(Value::Bool(r.cuda_graphs)),
);

pub static SPEC_DECODE: Field<Run> = field(
    "spec_decode",
    "Speculative decoding",
    "",
    Precision::Exact,
    Role::Setting,
    |r| Some(Value::Bool(r.spec_decode)),
);

pub static DECODE_TOK_S: Field<Run> = field(
    "decode_tok_s",
    "Decode tok/s",
    "tok/s",
    Precision::Decimals(1),
    Role::Figure(Better::Higher),
    |r| number(r.decode_tok_s),
);

pub static DECODE_COLD_SAMPLE: Field<Run> = field(
    "decode_cold_sample",
    "Cold first request (tok/s)",
    "tok/s",
    Precision::Decimals(1),
    Role::Figure(Better::Neither),
    |r| r.decode_cold_sample.map(Value::Number),
);

pub static DECODE_SAMPLES: Field<Run> = field(
    "decode_samples",
    "Decode samples (tok/s)",
    "tok/s",
    Precision::Decimals(1),
    Role::Detail,
    |r| Some(Value::Numbers(r.decode_samples.clone())),
);

pub static PROMPT_TOK_S: Field<Run> = field(
    "prompt_tok_s",
    "Prompt tok/s",
    "tok/s",
    Precision::Decimals(1),
    Role::Figure(Better::Higher),
    |r| r.prompt_tok_s.map(Value::Number),
);

pub static PROMPT_TOKENS: Field<Run> = field(
    "prompt_tokens",
    "Prompt (tokens)",
    "tokens",
    Precision::Exact,
    Role::Setting,
    |r| r.prompt_tokens.map(Value::Count),
);

pub static KV_TOKENS: Field<Run> = field(
    "kv_tokens",
    "KV pool (tokens)",
    "tokens",
    Precision::Exact,
    Role::Figure(Better::Higher),
    |r| r.kv_tokens.map(Value::Count),
);

pub static MAX_CONCURRENCY: Field<Run> = field(
    "max_concurrency",
    "Full-context sequences",
    "",
    Precision::Decimals(2),
    Role::Figure(Better::Higher),
    |r| r.max_concurrency.map(Value::Number),
);

pub static KV_CACHE_DTYPE: Field<Run> = field(
    "kv_cache_dtype",
    "KV-cache dtype",
    "",
    Precision::Exact,
    Role::Setting,
    |r| r.kv_cache_dtype.as_deref().and_then(text),
);

pub static SPEC_ACCEPTANCE: Field<Run> = field(
    "spec_acceptance",
    "Speculative acceptance",
    "",
    Precision::Decimals(2),
    Role::Figure(Better::Higher),
    |r| r.spec_acceptance.map(Value::Number),
);

pub static SPEC_ACCEPTANCE_LENGTH: Field<Run> = field(
    "spec_acceptance_length",
    "Speculative acceptance length (tokens per step)",
    "tokens per step",
    Precision::Decimals(2),
    Role::Figure(Better::Higher),
    |r| r.spec_acceptance_length.map(Value::Number),
);

pub static SPEC_ACCEPTANCE_PER_POSITION: Field<Run> = field(
    "spec_acceptance_per_position",
    "Speculative acceptance per position",
    "",
    Precision::Decimals(3),
    Role::Detail,
    |r| {
        (!r.spec_acceptance_per_position.is_empty())
            .then(|| Value::Numbers(r.spec_acceptance_per_position.clone()))
    },
);

pub static VLLM_VERSION: Field<Run> = field(
    "vllm_version",
    "vLLM",
    "",
    Precision::Exact,
    Role::Setting,
    |r| r.vllm_version.as_deref().and_then(text),
);

pub static SERVER: Field<Run> = field(
    "server",
    "Server software",
    "",
    Precision::Exact,
    Role::Setting,
    |r| r.server.as_deref().and_then(text),
);

pub static ENGINE: Field<Run> = field(
    "engine",
    "Engine",
    "",
    Precision::Exact,
    Role::Setting,
    |r| {
        r.engine
            .map(|engine| Value::Text(engine.as_str().to_owned()))
    },
);

pub static POWER_W: Field<Run> = field(
    "power_w",
    "GPU power (W)",
    "W",
    Precision::Decimals(0),
    Role::Figure(Better::Neither),
    |r| r.power_w.map(Value::Number),
);

pub static JOULES_PER_TOKEN: Field<Run> = field(
    "joules_per_token",
    "Energy (J/token)",
    "J/token",
    Precision::Decimals(3),
    Role::Figure(Better::Lower),
    |r| r.joules_per_token.map(Value::Number),
);

pub static SOURCE: Field<Run> = field(
    "source",
    "Imported from",
    "",
    Precision::Exact,
    Role::Detail,
    |r| r.source.as_deref().and_then(text),
);

pub static GENERATED: Field<Run> = field(
    "generated",
    "Measured",
    "",
    Precision::Exact,
    Role::Detail,
    |r| text(r.generated.as_str()),
);

/// Every field of a run, in the order of the runs download.
pub static ALL: [&Field<Run>; 30] = [
    &ID,
    &MODEL,
    &CHECKPOINT,
    &SHAPE,
    &PRECISION,
    &PROFILE,
    &OVERRIDES,
    &WEIGHTS_GIB,
    &MAX_MODEL_LEN,
    &VISION,
    &CUDA_GRAPHS,
    &SPEC_DECODE,
    &DECODE_TOK_S,
    &DECODE_COLD_SAMPLE,
    &DECODE_SAMPLES,
    &PROMPT_TOK_S,
    &PROMPT_TOKENS,
    &KV_TOKENS,
    &MAX_CONCURRENCY,
    &KV_CACHE_DTYPE,
    &SPEC_ACCEPTANCE,
    &SPEC_ACCEPTANCE_LENGTH,
    &SPEC_ACCEPTANCE_PER_POSITION,
    &VLLM_VERSION,
    &SERVER,
    &ENGINE,
    &POWER_W,
    &JOULES_PER_TOKEN,
    &SOURCE,
    &GENERATED,
];

#[cfg(test)]
mod tests {
    use super::super::field::testing::{reads_its_key, schema_keys, seed};
    use super::*;

    #[test]
    fn every_field_of_a_run_is_an_entry_and_reads_its_own_key() {
        let mut keys: Vec<String> = ALL.iter().map(|f| f.key.to_owned()).collect();
        // What the registry leaves out: the status, notes and where-from of a record.
        keys.extend(
            [
                "status",
                "weights_source",
                "notes",
                "quality",
                "forced",
                "workload",
                "method",
                "spec_acceptance_over",
                "provenance",
                "delivery",
                "engine_view",
            ]
            .map(String::from),
        );
        keys.sort();
        assert_eq!(keys, schema_keys("Run"));
        let seed = seed();
        let doc: crate::data::Results = serde_json::from_value(seed.clone()).unwrap();
        for (run, json) in doc.runs.iter().zip(seed["runs"].as_array().unwrap()) {
            reads_its_key(&ALL, run, json);
        }
    }
}

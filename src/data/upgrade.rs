//! Documents of an earlier schema version, brought to this one before they are validated, so
//! that old documents keep loading; the next write stores the current version.
//!
//! Version 1 to 2: weights are GiB, under `weights_gib`. Version 1's `weights_gb` held GiB
//! where vLLM's load report gave it (a run whose `weights_source` says so, a failure with a
//! launch log) and GB elsewhere (given by hand, llama-bench's `model_size` ÷ 10⁹); those are
//! converted, and a run's `weights_source` says that it was.

use serde_json::{Map, Value};

use super::types::SCHEMA_VERSION;

/// How a converted run's source reads.
const CONVERTED: &str = "converted from GB (10⁹ bytes) in schema version 1";

/// Brings a document of an earlier version to [`SCHEMA_VERSION`]; whether it changed. A
/// document of another version, or not an object, is left for validation to report.
pub fn upgrade(doc: &mut Value) -> bool {
    if doc.get("schema_version").and_then(Value::as_u64) != Some(1) {
        return false;
    }
    for run in records(doc, "runs") {
        let from_vllm = run
            .get("weights_source")
            .and_then(Value::as_str)
            .is_some_and(|source| source.contains("vLLM's load report"));
        if rename(run, from_vllm) && !from_vllm {
            let source = match run.get("weights_source").and_then(Value::as_str) {
                Some(source) => format!("{source}; {CONVERTED}"),
                None => CONVERTED.to_owned(),
            };
            run.insert("weights_source".into(), source.into());
        }
    }
    for failure in records(doc, "failures") {
        let launched = failure.get("log").is_some_and(|log| !log.is_null());
        rename(failure, launched);
    }
    doc["schema_version"] = SCHEMA_VERSION.into();
    true
}

/// The objects of the array `key`.
fn records<'d>(doc: &'d mut Value, key: &str) -> impl Iterator<Item = &'d mut Map<String, Value>> {
    doc.get_mut(key)
        .and_then(Value::as_array_mut)
        .into_iter()
        .flatten()
        .filter_map(Value::as_object_mut)
}

/// Moves `weights_gb` to `weights_gib`, converting GB unless `in_gib`; whether there was a
/// number to convert.
fn rename(record: &mut Map<String, Value>, in_gib: bool) -> bool {
    let Some(old) = record.remove("weights_gb") else {
        return false;
    };
    let converted = match old.as_f64() {
        Some(gb) if !in_gib => Some(crate::stats::round(gb * 1e9 / f64::from(1u32 << 30), 3)),
        _ => None,
    };
    let new = converted.map_or(old, Value::from);
    record.insert("weights_gib".into(), new);
    converted.is_some()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn version_1_weights_become_gib() {
        let mut doc = json!({
            "schema_version": 1,
            "runs": [
                {"id": "a", "weights_gb": 21.9, "weights_source": "loaded on the GPU, from vLLM's load report", "model": "m"},
                {"id": "b", "weights_gb": 16.0, "weights_source": "given with --weights-gb"},
                {"id": "c", "weights_gb": 10.0},
                {"id": "d"}
            ],
            "failures": [
                {"id": "e", "weights_gb": 55.6},
                {"id": "f", "weights_gb": 23.6, "log": "data/logs/f.log.gz"}
            ]
        });
        assert!(upgrade(&mut doc));
        assert_eq!(doc["schema_version"], 2);
        // vLLM's "Model loading took 21.9 GiB" was GiB already: renamed only.
        assert_eq!(doc["runs"][0]["weights_gib"], 21.9);
        assert!(doc["runs"][0].get("weights_gb").is_none());
        // 16 GB = 16 × 10⁹ / 2³⁰ = 14.901 GiB, and the source says it was converted.
        assert_eq!(doc["runs"][1]["weights_gib"], 14.901);
        assert_eq!(
            doc["runs"][1]["weights_source"],
            "given with --weights-gb; converted from GB (10⁹ bytes) in schema version 1"
        );
        // 10 GB = 9.313 GiB.
        assert_eq!(doc["runs"][2]["weights_gib"], 9.313);
        assert_eq!(doc["runs"][2]["weights_source"], CONVERTED);
        assert_eq!(doc["runs"][3], json!({"id": "d"}));
        // 55.6 GB = 51.782 GiB; a launched failure's weights came from vLLM's log, in GiB.
        assert_eq!(doc["failures"][0]["weights_gib"], 51.782);
        assert_eq!(doc["failures"][1]["weights_gib"], 23.6);
        assert!(doc["failures"][0].get("weights_gb").is_none());
    }

    #[test]
    fn other_versions_are_left_to_validation() {
        for version in [json!(2), json!(3), json!("1"), Value::Null] {
            let mut doc = json!({"schema_version": version, "runs": [{"weights_gb": 1.0}]});
            let before = doc.clone();
            assert!(!upgrade(&mut doc));
            assert_eq!(doc, before);
        }
    }
}

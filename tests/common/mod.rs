//! Helpers shared by the integration tests: the hand-written sessions in
//! `tests/fixtures/`, and the `&Value` lists the format rules read.

use kram_compaction::formats::Format;
use serde_json::Value;

/// The hand-written session of a format, `tests/fixtures/<name>.json`.
pub fn fixture(format: Format) -> Vec<Value> {
    let path = format!(
        "{}/tests/fixtures/{}.json",
        env!("CARGO_MANIFEST_DIR"),
        format.name()
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The format rules read `&Value`s.
pub fn refs(values: &[Value]) -> Vec<&Value> {
    values.iter().collect()
}

//! Helpers shared by the integration tests: the hand-written sessions in
//! `tests/fixtures/`, and the `&Value` lists the format rules read.

use kram_compaction::formats::Format;
use kram_compaction::prune::PruneOptions;
use serde_json::Value;

/// The hand-written session of a format, `tests/fixtures/<name>.json`.
#[allow(dead_code)]
pub fn fixture(format: Format) -> Vec<Value> {
    let path = format!(
        "{}/tests/fixtures/{}.json",
        env!("CARGO_MANIFEST_DIR"),
        format.name()
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The format rules read `&Value`s.
#[allow(dead_code)]
pub fn refs(values: &[Value]) -> Vec<&Value> {
    values.iter().collect()
}

// The fuzz targets include these files too (`fuzz/src/history.rs`).
mod runs;
mod same_reading;
#[allow(unused_imports)]
pub use runs::contiguous_runs;
#[allow(unused_imports)]
pub use same_reading::{assert_same_in_every_format, reader_of};

/// A plain text message of `role` (`user`, `assistant`) in the shape of a
/// format: `{ role, content }`, a Gemini content, a UI message, or a
/// serialised LangChain message.
#[allow(dead_code)]
pub fn plain(format: Format, role: &str, text: &str) -> Value {
    if format == Format::Gemini {
        let role = if role == "user" { "user" } else { "model" };
        return serde_json::json!({ "role": role, "parts": [{ "text": text }] });
    }
    if format == Format::AiSdkUi {
        return serde_json::json!({ "id": format!("{role}-{}", text.len()), "role": role, "parts": [{ "type": "text", "text": text }] });
    }
    let message = serde_json::json!({ "role": role, "content": text });
    if format != Format::LangChain {
        return message;
    }
    let class = if role == "user" {
        "HumanMessage"
    } else {
        "AIMessage"
    };
    serde_json::json!({ "lc": 1, "type": "constructor", "id": ["langchain_core", "messages", class], "kwargs": { "content": text } })
}

/// Prunes everything before the newest turn that is worth anything.
#[allow(dead_code)]
pub fn eager() -> PruneOptions {
    PruneOptions {
        protect_turns: 1,
        protect_tokens: 0.0,
        minimum_savings: 1.0,
        ..PruneOptions::default()
    }
}

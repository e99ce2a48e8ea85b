//! Prints, as JSON, the history functions' answers on histories read from a
//! JSON file (`[{ "messages": [...] }, ...]`), computed natively over
//! `serde_json` values: `tests/js/native-parity.test.mjs` holds the package's
//! answers, read through the JS boundary, to these.

use kram_compaction::error::InputError;
use kram_compaction::history_functions as functions;
use kram_compaction::plan::{materialize_json, Output};
use kram_compaction::prune::{PruneOptions, DEFAULT_PLACEHOLDER};
use serde_json::{json, Value};

/// The budgets `emergencyPrune` is asked for: one that cuts deep, one that
/// keeps the newest few hundred messages.
const BUDGETS: [f64; 2] = [2_000.0, 60_000.0];

/// The answer, or the error's message, as the test compares them.
fn answer<T>(result: Result<T, InputError>, to_json: impl FnOnce(T) -> Value) -> Value {
    match result {
        Ok(value) => to_json(value),
        Err(error) => json!({ "error": error.message }),
    }
}

fn main() {
    let path = std::env::args().nth(1).expect("the histories' file");
    let text = std::fs::read_to_string(path).expect("a readable file");
    let histories: Vec<Value> = serde_json::from_str(&text).expect("JSON");
    let clear_all = PruneOptions {
        protect_turns: 1,
        protect_tokens: 0.0,
        minimum_savings: 0.0,
        ..PruneOptions::default()
    };
    // Protected output that runs out a few results back, so that the walk
    // is decided among the newest messages, often inside a message whose
    // newer results it keeps (tests/js/native-parity.test.mjs asks the same).
    let protecting_some = PruneOptions {
        protect_tokens: 500.0,
        ..clear_all.clone()
    };
    let answers: Vec<Value> = histories
        .iter()
        .map(|history| {
            let input = history["messages"].as_array().expect("messages");
            let nodes: Vec<&Value> = input.iter().collect();
            let messages = |outputs: Vec<Output>| {
                Value::Array(materialize_json(input, &outputs, DEFAULT_PLACEHOLDER))
            };
            let emergency: Vec<Value> = BUDGETS
                .iter()
                .map(|&budget| answer(functions::emergency_prune(&nodes, budget, None), messages))
                .collect();
            json!({
                "estimateTokens": answer(functions::estimate_tokens(&nodes, None), |n| json!(n)),
                "effectiveHistory": answer(functions::effective_history(&nodes, None), messages),
                "pruneForModel": answer(
                    functions::prune_for_model(&nodes, &PruneOptions::default(), None),
                    messages,
                ),
                "pruneForModel, clearing all": answer(
                    functions::prune_for_model(&nodes, &clear_all, None),
                    messages,
                ),
                "pruneForModel, protecting 500 tokens": answer(
                    functions::prune_for_model(&nodes, &protecting_some, None),
                    messages,
                ),
                "emergencyPrune": emergency,
            })
        })
        .collect();
    println!("{}", Value::Array(answers));
}

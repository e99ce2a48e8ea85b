//! The token estimate against the exact o200k_base counts of a corpus of real
//! text (`tests/corpus/`, its sources in `SOURCES.md`). The counts are
//! committed; `tests/js/accuracy.test.mjs` checks them against the tokenizer.
//! The pieces and the messages they are measured as are those of
//! `bench/accuracy-lib.mjs`.

#![allow(clippy::disallowed_methods)] // tests may use std freely

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use kram_compaction::history_functions::estimate_tokens;
use serde_json::{json, Value};

/// Every category's summed estimate over its summed exact count stays here.
const LOW: f64 = 0.97;
const HIGH: f64 = 1.10;

fn corpus() -> Vec<(String, Vec<Value>, u64)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
    let counts: Value =
        serde_json::from_str(&fs::read_to_string(dir.join("exact-counts.json")).unwrap()).unwrap();
    counts["pieces"]
        .as_array()
        .unwrap()
        .iter()
        .map(|piece| {
            let path = piece["path"].as_str().unwrap();
            let value_lines = path.strip_suffix("#value");
            let text = fs::read_to_string(dir.join(value_lines.unwrap_or(path))).unwrap();
            let messages = if value_lines.is_some() {
                // Each line a JSON value, carried by a message's content part.
                text.lines()
                    .filter(|line| !line.is_empty())
                    .map(|line| {
                        let data: Value = serde_json::from_str(line).unwrap();
                        json!({ "role": "user", "content": [{ "type": "data", "data": data }] })
                    })
                    .collect()
            } else if path.ends_with(".json") {
                serde_json::from_str::<Vec<Value>>(&text).unwrap()
            } else {
                vec![json!({ "role": "user", "content": text })]
            };
            (
                piece["category"].as_str().unwrap().to_string(),
                messages,
                piece["o200k_base"].as_u64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn every_category_is_within_the_band_of_o200k_base() {
    let mut sums: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    for (category, messages, exact) in corpus() {
        let refs: Vec<&Value> = messages.iter().collect();
        let estimate = estimate_tokens(&refs, None).unwrap();
        let sum = sums.entry(category).or_default();
        sum.0 += estimate;
        sum.1 += exact;
    }
    assert!(sums.len() >= 15, "the corpus lost categories: {sums:?}");
    let mut outside = Vec::new();
    for (category, (estimate, exact)) in &sums {
        let ratio = *estimate as f64 / *exact as f64;
        println!("{category:<16} {estimate:>7} / {exact:>7} = {ratio:.3}");
        if !(LOW..=HIGH).contains(&ratio) {
            outside.push(format!("{category} {ratio:.3}"));
        }
    }
    assert!(
        outside.is_empty(),
        "outside [{LOW}, {HIGH}]: {}",
        outside.join(", ")
    );
}

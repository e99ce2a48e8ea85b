//! Property tests of the history functions over generated OpenAI Chat
//! histories: the rules of issue 3 checked against an independent reading.

use std::collections::HashSet;

use kram_compaction::history::COMPACTION_MARKER_NAME;
use kram_compaction::history_functions;
use kram_compaction::plan::{materialize_json, Output};
use kram_compaction::prune::{PruneOptions, DEFAULT_PLACEHOLDER};
use proptest::prelude::*;

mod common;
use common::contiguous_runs;
use serde_json::{json, Value};

/// One step of a generated session.
#[derive(Clone, Debug)]
enum Step {
    System,
    Marker,
    User(usize),
    Assistant(usize),
    /// Parallel tool calls with results of these sizes (in words).
    Tools(Vec<usize>),
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        1 => Just(Step::System),
        1 => Just(Step::Marker),
        3 => (1usize..40).prop_map(Step::User),
        3 => (1usize..40).prop_map(Step::Assistant),
        4 => prop::collection::vec(0usize..400, 1..4).prop_map(Step::Tools),
    ]
}

fn build(steps: &[Step]) -> Vec<Value> {
    let mut messages = Vec::new();
    let mut call = 0;
    for step in steps {
        match step {
            Step::System => messages.push(json!({ "role": "system", "content": "Be careful." })),
            Step::Marker => messages.push(json!({ "role": "system", "name": COMPACTION_MARKER_NAME, "content": "Earlier work: ..." })),
            Step::User(words) => messages.push(json!({ "role": "user", "content": "please ".repeat(*words) })),
            Step::Assistant(words) => messages.push(json!({ "role": "assistant", "content": "ok ".repeat(*words), "reasoning_content": "hmm" })),
            Step::Tools(sizes) => {
                let ids: Vec<String> = sizes.iter().map(|_| { call += 1; format!("call_{call}") }).collect();
                let calls: Vec<Value> = ids.iter().map(|id| json!({ "id": id, "type": "function", "function": { "name": "read_file", "arguments": "{\"path\":\"src/lib.rs\"}" } })).collect();
                messages.push(json!({ "role": "assistant", "content": null, "tool_calls": calls }));
                for (id, words) in ids.iter().zip(sizes) {
                    messages.push(json!({ "role": "tool", "tool_call_id": id, "content": "line of output\n".repeat(*words), "cache_control": { "type": "ephemeral" } }));
                }
            }
        }
    }
    messages
}

fn refs(values: &[Value]) -> Vec<&Value> {
    values.iter().collect()
}

fn tokens(values: &[Value]) -> u64 {
    history_functions::estimate_tokens(&refs(values), None).unwrap()
}

/// Tool-call ids with no result, and result ids with no call.
fn orphans(messages: &[Value]) -> (HashSet<String>, HashSet<String>) {
    let mut calls = HashSet::new();
    let mut results = HashSet::new();
    for message in messages {
        for call in message["tool_calls"].as_array().into_iter().flatten() {
            calls.insert(call["id"].as_str().unwrap().to_string());
        }
        if let Some(id) = message["tool_call_id"].as_str() {
            results.insert(id.to_string());
        }
    }
    (&calls - &results, &results - &calls)
}

fn session() -> impl Strategy<Value = Vec<Value>> {
    prop::collection::vec(step(), 0..40).prop_map(|steps| build(&steps))
}

fn small_prune_options() -> impl Strategy<Value = PruneOptions> {
    (0usize..4, 0u32..3_000, 0u32..3_000).prop_map(|(turns, protect, savings)| PruneOptions {
        protect_turns: turns,
        protect_tokens: protect as f64,
        minimum_savings: savings as f64,
        ..PruneOptions::default()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn estimate_is_additive(messages in session()) {
        let whole = tokens(&messages);
        let parts: u64 = messages.iter().map(|m| tokens(std::slice::from_ref(m))).sum();
        prop_assert_eq!(whole, parts);
    }

    #[test]
    fn effective_history_starts_at_the_newest_marker_and_is_idempotent(messages in session()) {
        let plan = history_functions::effective_history(&refs(&messages), None).unwrap();
        let effective = materialize_json(&messages, &plan, DEFAULT_PLACEHOLDER);
        let is_marker = |m: &Value| m["name"] == COMPACTION_MARKER_NAME && m["role"] == "system";
        let newest_marker = messages.iter().rposition(is_marker);
        // The leading system messages are instructions, sent first.
        let instructions = messages.iter().take_while(|m| m["role"] == "system" && !is_marker(m)).count();
        let from = newest_marker.unwrap_or(0).max(instructions);
        let expected: Vec<Value> = messages[..instructions].iter().chain(&messages[from..]).cloned().collect();
        prop_assert_eq!(&effective, &expected);
        prop_assert!(plan.iter().all(|o| matches!(o, Output::Keep(_))));
        let again = materialize_json(&effective, &history_functions::effective_history(&refs(&effective), None).unwrap(), DEFAULT_PLACEHOLDER);
        prop_assert_eq!(again, effective);
    }

    #[test]
    fn prune_follows_the_rule(messages in session(), options in small_prune_options()) {
        let plan = history_functions::prune_for_model(&refs(&messages), &options, None).unwrap();
        let output = materialize_json(&messages, &plan, DEFAULT_PLACEHOLDER);
        prop_assert_eq!(output.len(), messages.len());

        // An independent reading of the rule.
        let user_starts: Vec<usize> = messages.iter().enumerate().filter(|(_, m)| m["role"] == "user").map(|(i, _)| i).collect();
        let tail = if options.protect_turns == 0 { messages.len() }
            else if user_starts.len() >= options.protect_turns { user_starts[user_starts.len() - options.protect_turns] }
            else { 0 };
        let mut running = 0u64;
        let mut expected_cleared = Vec::new();
        let mut savings = 0u64;
        for index in (0..tail).rev() {
            let message = &messages[index];
            if message["role"] != "tool" || message["content"] == DEFAULT_PLACEHOLDER { continue; }
            let payload = kram_compaction::estimate::text_tokens(message["content"].as_str().unwrap());
            running += payload;
            if running as f64 > options.protect_tokens {
                expected_cleared.push(index);
                savings += payload;
            }
        }
        if (savings as f64) < options.minimum_savings { expected_cleared.clear(); }

        for (index, (before, after)) in messages.iter().zip(&output).enumerate() {
            if expected_cleared.contains(&index) {
                prop_assert_eq!(&after["content"], &json!(DEFAULT_PLACEHOLDER));
                let mut restored = after.clone();
                restored["content"] = before["content"].clone();
                prop_assert_eq!(&restored, before, "only content changes");
                prop_assert!(matches!(plan[index], Output::Edited { .. }), "edited");
            } else {
                prop_assert_eq!(after, before);
                prop_assert_eq!(&plan[index], &Output::Keep(index));
            }
        }
        prop_assert_eq!(orphans(&output), orphans(&messages));
    }

    #[test]
    fn emergency_prune_keeps_leading_system_and_the_newest_turns_or_steps(messages in session(), budget in 1u32..20_000) {
        let plan = history_functions::emergency_prune(&refs(&messages), budget as f64, None).unwrap();
        let output = materialize_json(&messages, &plan, DEFAULT_PLACEHOLDER);
        let leading = messages.iter().take_while(|m| m["role"] == "system").count();
        let indices: Vec<usize> = plan.iter().map(Output::index).collect();
        prop_assert!(plan.iter().all(|o| matches!(o, Output::Keep(_))));
        prop_assert_eq!(&indices[..leading.min(indices.len())], &(0..leading).collect::<Vec<_>>()[..]);
        let runs = contiguous_runs(&indices[leading..]);
        let fits = tokens(&output) as f64 <= budget as f64;
        let role = |i: usize| messages[i]["role"].as_str().unwrap_or_default();
        let starts_step = |i: usize| role(i) == "assistant" && (i == 0 || role(i - 1) != "assistant");
        let newest_step = (0..messages.len()).rev().find(|&i| starts_step(i));
        let last_user = messages.iter().rposition(|m| m["role"] == "user").filter(|&u| u >= leading);
        if let Some(last) = runs.last() {
            prop_assert_eq!(last.end, messages.len(), "the newest message is kept");
        }
        if let Some(last_user) = last_user {
            prop_assert!(indices.contains(&last_user), "the newest user request is always kept");
        }
        match runs.as_slice() {
            [] => prop_assert_eq!(leading, messages.len()),
            [suffix] if suffix.start == leading => {}
            [suffix] if role(suffix.start) == "user" => {
                prop_assert!(fits || Some(suffix.start) == last_user);
                // The turn before the cut would not have fitted.
                let previous = (leading..suffix.start).rev().find(|&i| role(i) == "user").unwrap_or(leading);
                let mut bigger = messages[..leading].to_vec();
                bigger.extend_from_slice(&messages[previous..]);
                prop_assert!(tokens(&bigger) as f64 > budget as f64, "the newest turns that fit are kept");
            }
            [suffix] => {
                prop_assert!(last_user.is_none(), "a step cut keeps the request");
                prop_assert!(starts_step(suffix.start), "cut at {} is not a step start", suffix.start);
                prop_assert!(fits || Some(suffix.start) == newest_step);
            }
            [request, steps] => {
                prop_assert_eq!(Some(request.start), last_user, "the request is the newest turn's");
                prop_assert!(request.clone().all(|i| role(i) != "assistant"), "the request holds no step");
                prop_assert!(starts_step(steps.start), "cut at {} is not a step start", steps.start);
                prop_assert!(fits || Some(steps.start) == newest_step, "over the budget only with the newest step alone");
                let mut whole_turn = messages[..leading].to_vec();
                whole_turn.extend_from_slice(&messages[request.start..]);
                prop_assert!(tokens(&whole_turn) as f64 > budget as f64, "the newest turn is cut only when it does not fit");
            }
            _ => prop_assert!(false, "kept {:?}", indices),
        }
        prop_assert_eq!(orphans(&output), orphans(&messages));
    }

    #[test]
    fn needs_compaction_is_the_estimate_over_the_budget(messages in session(), budget in 1u32..50_000) {
        let over = history_functions::needs_compaction(&refs(&messages), budget as f64, None).unwrap();
        prop_assert_eq!(over, tokens(&messages) > budget as u64);
    }
}

#[test]
fn a_large_history_is_read_in_one_pass() {
    // 10,000 messages, about 20 MB: must finish (linear time), and quickly in a
    // release build; the benchmark measures the figure.
    let steps: Vec<Step> = (0..2_500)
        .flat_map(|_| {
            [
                Step::User(5),
                Step::Tools(vec![130, 130]),
                Step::Assistant(5),
            ]
        })
        .collect();
    let messages = build(&steps);
    assert!(messages.len() >= 10_000);
    let size: usize = messages.iter().map(|m| m.to_string().len()).sum();
    assert!(size > 10_000_000, "{size} bytes");
    let plan = history_functions::prune_for_model(&refs(&messages), &PruneOptions::default(), None)
        .unwrap();
    assert!(plan.iter().any(|o| matches!(o, Output::Edited { .. })));
}

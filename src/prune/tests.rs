use serde_json::{json, Value};

use crate::history_functions;
use crate::plan::{materialize_json, Output};
use crate::prune::{PruneOptions, DEFAULT_PLACEHOLDER};

fn user(text: &str) -> Value {
    json!({ "role": "user", "content": text })
}

fn call(id: &str) -> Value {
    json!({ "role": "assistant", "content": null,
            "tool_calls": [{ "id": id, "type": "function", "function": { "name": "read", "arguments": "{}" } }] })
}

fn result(id: &str, words: usize) -> Value {
    json!({ "role": "tool", "tool_call_id": id, "content": "word ".repeat(words) })
}

/// Three turns, each with one tool call whose result is `words` long.
fn session(words: usize) -> Vec<Value> {
    let mut messages = vec![json!({ "role": "system", "content": "You are helpful." })];
    for turn in 0..3 {
        let id = format!("call_{turn}");
        messages.extend([
            user("next"),
            call(&id),
            result(&id, words),
            json!({ "role": "assistant", "content": "done" }),
        ]);
    }
    messages
}

/// A user message that carries a tool call: malformed, but read.
fn request_calling(id: &str) -> Value {
    let mut request = call(id);
    request["role"] = json!("user");
    request
}

/// The format rules read `&Value`s.
fn refs(values: &[Value]) -> Vec<&Value> {
    values.iter().collect()
}

fn small_options() -> PruneOptions {
    PruneOptions {
        protect_turns: 1,
        protect_tokens: 0.0,
        minimum_savings: 10.0,
        ..PruneOptions::default()
    }
}

#[test]
fn old_tool_results_are_cleared_and_the_protected_turns_kept() {
    let input = session(100);
    let plan = history_functions::prune_for_model(&refs(&input), &small_options(), None).unwrap();
    let output = materialize_json(&input, &plan, DEFAULT_PLACEHOLDER);
    assert_eq!(output.len(), input.len());
    assert_eq!(output[3]["content"], DEFAULT_PLACEHOLDER);
    assert_eq!(output[7]["content"], DEFAULT_PLACEHOLDER);
    assert_eq!(output[11], input[11], "the newest turn is protected");
    assert_eq!(output[3]["tool_call_id"], "call_0", "other fields survive");
}

#[test]
fn nothing_changes_below_the_minimum_savings() {
    let input = session(5);
    let options = PruneOptions {
        minimum_savings: 1_000.0,
        ..small_options()
    };
    let plan = history_functions::prune_for_model(&refs(&input), &options, None).unwrap();
    assert!(plan.iter().all(|output| matches!(output, Output::Keep(_))));
}

#[test]
fn protect_tokens_keeps_the_newest_old_output_whole() {
    let input = session(100);
    // Each result is about 100 tokens: a 150-token allowance keeps one.
    let options = PruneOptions {
        protect_tokens: 150.0,
        ..small_options()
    };
    let output = materialize_json(
        &input,
        &history_functions::prune_for_model(&refs(&input), &options, None).unwrap(),
        DEFAULT_PLACEHOLDER,
    );
    assert_eq!(output[3]["content"], DEFAULT_PLACEHOLDER);
    assert_eq!(output[7], input[7]);
}

#[test]
fn cleared_results_are_not_counted_again() {
    let input = session(100);
    let once = materialize_json(
        &input,
        &history_functions::prune_for_model(&refs(&input), &small_options(), None).unwrap(),
        DEFAULT_PLACEHOLDER,
    );
    let twice = history_functions::prune_for_model(&refs(&once), &small_options(), None).unwrap();
    assert!(
        twice.iter().all(|output| matches!(output, Output::Keep(_))),
        "a second pass changes nothing"
    );
}

#[test]
fn emergency_prune_keeps_leading_system_and_newest_whole_turns() {
    let input = session(100);
    let all = history_functions::estimate_tokens(&refs(&input), None).unwrap() as f64;
    let indices = |max: f64| -> Vec<usize> {
        history_functions::emergency_prune(&refs(&input), max, None)
            .unwrap()
            .iter()
            .map(Output::index)
            .collect()
    };
    assert_eq!(indices(all), (0..input.len()).collect::<Vec<_>>());
    // A tiny budget still keeps the system message, the newest turn's
    // request and its newest step (the closing answer).
    assert_eq!(indices(1.0), vec![0, 9, 12]);
    // One step more fits: the tool call with its result.
    let newest_steps = history_functions::estimate_tokens(
        &refs(&[
            input[0].clone(),
            input[9].clone(),
            input[10].clone(),
            input[11].clone(),
            input[12].clone(),
        ]),
        None,
    )
    .unwrap() as f64;
    assert_eq!(indices(newest_steps - 1.0), vec![0, 9, 12]);
    assert_eq!(indices(newest_steps), vec![0, 9, 10, 11, 12]);
    let two_turns = history_functions::estimate_tokens(&refs(&input[5..]), None).unwrap() as f64
        + history_functions::estimate_tokens(&refs(&input[..1]), None).unwrap() as f64;
    assert_eq!(
        indices(two_turns),
        [0].into_iter().chain(5..13).collect::<Vec<_>>()
    );
}

#[test]
fn a_history_without_user_messages_comes_back_whole() {
    let input = vec![
        json!({ "role": "system", "content": "x" }),
        json!({ "role": "assistant", "content": "y" }),
    ];
    let plan = history_functions::emergency_prune(&refs(&input), 1.0, None).unwrap();
    assert_eq!(plan, vec![Output::Keep(0), Output::Keep(1)]);
}

#[test]
fn bad_input_names_the_index_and_field() {
    let input = vec![user("hi"), json!({ "role": 7 })];
    let error = history_functions::estimate_tokens(&refs(&input), None).unwrap_err();
    assert_eq!(
        error.message,
        "messages[1].role must be a string, got number"
    );
    let input = vec![json!({ "role": "assistant", "tool_calls": [{ "id": 3 }] })];
    let error = history_functions::estimate_tokens(&refs(&input), None).unwrap_err();
    assert_eq!(
        error.message,
        "messages[0].tool_calls[0].id must be a string, got number"
    );
    let error = history_functions::needs_compaction(&refs(&[user("hi")]), 0.0, None).unwrap_err();
    assert_eq!(error.class, crate::error::ErrorClass::Range);
}

#[test]
fn the_emergency_cut_never_falls_between_a_call_and_its_result() {
    // Found by the fuzzer: a user message between a call and its result.
    let input = vec![
        user("first"),
        call("c1"),
        user("meanwhile"),
        result("c1", 400),
        user("newest"),
        json!({ "role": "assistant", "content": "done" }),
    ];
    let kept = |max: f64| -> Vec<usize> {
        let plan = history_functions::emergency_prune(&refs(&input), max, None).unwrap();
        plan.iter().map(Output::index).collect()
    };
    assert_eq!(kept(1.0), vec![4, 5], "the newest turn alone");
    let from_meanwhile =
        history_functions::estimate_tokens(&refs(&input[2..]), None).unwrap() as f64;
    assert_eq!(
        kept(from_meanwhile),
        vec![4, 5],
        "index 2 would keep the result without its call"
    );
}

#[test]
fn a_tool_message_without_content_has_no_payload_to_clear() {
    // Found by the fuzzer: clearing it added a `content` field.
    let input = vec![
        user("a"),
        call("c1"),
        json!({ "role": "tool", "tool_call_id": "c1" }),
        call("c2"),
        result("c2", 400),
        user("b"),
    ];
    let options = PruneOptions {
        protect_turns: 1,
        protect_tokens: 0.0,
        minimum_savings: 0.0,
        ..PruneOptions::default()
    };
    let plan = history_functions::prune_for_model(&refs(&input), &options, None).unwrap();
    assert_eq!(plan[2], Output::Keep(2));
    assert!(matches!(plan[4], Output::Edited { .. }));
}

#[test]
fn the_emergency_cut_keeps_the_results_of_calls_in_the_leading_messages() {
    // Found by the fuzzer: an unknown role is system-like, so a message of one
    // with tool calls is among the leading messages, which always stay.
    let mut opener = call("c1");
    opener["role"] = json!("planner");
    let input = vec![
        opener,
        result("c1", 400),
        user("first"),
        json!({ "role": "assistant", "content": "a" }),
        user("newest"),
    ];
    let plan = history_functions::emergency_prune(&refs(&input), 1.0, None).unwrap();
    let kept: Vec<usize> = plan.iter().map(Output::index).collect();
    assert_eq!(
        kept,
        vec![0, 1, 2, 3, 4],
        "no cut keeps the call without its result"
    );
}

/// One request, then `steps` tool steps whose results are `words` long.
fn long_task(steps: usize, words: usize) -> Vec<Value> {
    let mut messages = vec![
        json!({ "role": "system", "content": "You are a coding agent." }),
        user("Fix the failing test."),
    ];
    for step in 0..steps {
        let id = format!("call_{step}");
        messages.extend([call(&id), result(&id, words)]);
    }
    messages
}

#[test]
fn with_a_budget_pruning_reaches_into_the_newest_turn_but_keeps_its_newest_step() {
    let input = long_task(10, 200);
    let options = PruneOptions {
        protect_tokens: 450.0,
        minimum_savings: 0.0,
        ..PruneOptions::default()
    };
    // Without a budget the one turn is protected whole.
    let plan = history_functions::prune_for_model(&refs(&input), &options, None).unwrap();
    assert!(plan.iter().all(|output| matches!(output, Output::Keep(_))));
    // With one it is over, the tail shrinks to the newest step: about two
    // results of 200 tokens fit in protectTokens, the older ones are cleared.
    let budgeted = PruneOptions {
        max_tokens: Some(1_000.0),
        ..options.clone()
    };
    let plan = history_functions::prune_for_model(&refs(&input), &budgeted, None).unwrap();
    let cleared: Vec<usize> = plan
        .iter()
        .filter(|output| matches!(output, Output::Edited { .. }))
        .map(Output::index)
        .collect();
    assert_eq!(cleared, vec![3, 5, 7, 9, 11, 13, 15]);
    // A budget the turn fits changes nothing.
    let roomy = PruneOptions {
        max_tokens: Some(1_000_000.0),
        ..options
    };
    let plan = history_functions::prune_for_model(&refs(&input), &roomy, None).unwrap();
    assert!(plan.iter().all(|output| matches!(output, Output::Keep(_))));
}

#[test]
fn the_emergency_cut_keeps_the_request_and_the_newest_steps_of_a_long_task() {
    let input = long_task(10, 200);
    let kept = |max: f64| -> Vec<usize> {
        let plan = history_functions::emergency_prune(&refs(&input), max, None).unwrap();
        plan.iter().map(Output::index).collect()
    };
    let three_steps =
        history_functions::estimate_tokens(&refs(&[&input[..2], &input[16..]].concat()), None)
            .unwrap() as f64;
    assert_eq!(kept(three_steps), vec![0, 1, 16, 17, 18, 19, 20, 21]);
    assert_eq!(kept(1.0), vec![0, 1, 20, 21], "at least the newest step");
}

#[test]
fn a_cut_inside_the_turn_keeps_the_results_of_calls_in_its_request() {
    // Found by the fuzzer: a user message that carries a tool call (malformed,
    // but read) is the request, which is always kept, so its result stays.
    let input = vec![
        request_calling("c1"),
        json!({ "role": "assistant", "content": "thinking ".repeat(300) }),
        result("c1", 10),
        json!({ "role": "assistant", "content": "done" }),
    ];
    let plan = history_functions::emergency_prune(&refs(&input), 1.0, None).unwrap();
    let kept: Vec<usize> = plan.iter().map(Output::index).collect();
    assert_eq!(
        kept,
        vec![0, 1, 2, 3],
        "no step cut drops the request's result"
    );
}

#[test]
fn a_result_of_a_request_call_id_called_again_later_answers_the_later_call() {
    // Found by the fuzzer: the request calls `c1`, an assistant step calls
    // `c1` again, and the result answers that newer call (as `Pairs` pairs
    // them). A cut after that result drops no result of the request's call,
    // so the newest step alone is kept, where the cut kept everything from
    // the first step, over the budget.
    let input = vec![
        request_calling("c1"),
        json!({ "role": "assistant", "content": "thinking ".repeat(300) }),
        call("c1"),
        result("c1", 300),
        json!({ "role": "assistant", "content": "done" }),
    ];
    let plan = history_functions::emergency_prune(&refs(&input), 1.0, None).unwrap();
    let kept: Vec<usize> = plan.iter().map(Output::index).collect();
    assert_eq!(kept, vec![0, 4], "the request and the newest step");
}

//! Property tests of the history functions over generated sessions written in
//! each format, checked against what the generator knows (where
//! turns start, where markers are) and against independent readings of each
//! format's tool calls and payloads.

use std::collections::HashSet;

use kram_compaction::formats::{Facts, Format, MessageReader, ALL_FORMATS};
use kram_compaction::history_functions;
use kram_compaction::plan::{materialize_json, Output};
use kram_compaction::prune::{PruneOptions, DEFAULT_PLACEHOLDER};
use kram_compaction::view::PathStep;
use proptest::prelude::*;

mod common;
use common::contiguous_runs;
use serde_json::{json, Value};

#[derive(Clone, Debug)]
enum Step {
    Marker,
    User(usize),
    Assistant(usize),
    /// Parallel tool calls: each result's size in lines, and whether it failed.
    Tools(Vec<(usize, bool)>),
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        1 => Just(Step::Marker),
        3 => (1usize..30).prop_map(Step::User),
        3 => (1usize..30).prop_map(Step::Assistant),
        4 => prop::collection::vec((0usize..200, any::<bool>()), 1..4).prop_map(Step::Tools),
    ]
}

/// A session written in one format, with what the generator knows of it.
struct Session {
    messages: Vec<Value>,
    turn_starts: Vec<usize>,
    markers: Vec<usize>,
    /// Messages before the first user turn that are system-like.
    leading: usize,
    /// Of those, the ones before any marker: the instructions.
    instructions: usize,
}

fn output_text(lines: usize) -> String {
    "fn main() { println!(\"hello\"); }\n".repeat(lines)
}

fn build(format: Format, steps: &[Step]) -> Session {
    let mut s = Session {
        messages: Vec::new(),
        turn_starts: Vec::new(),
        markers: Vec::new(),
        leading: 0,
        instructions: 0,
    };
    match format {
        Format::OpenAiChat => s
            .messages
            .push(json!({ "role": "system", "content": "Be careful." })),
        Format::AiSdk | Format::AiSdk4 | Format::Ollama => s
            .messages
            .push(json!({ "role": "system", "content": "Be careful." })),
        Format::AiSdkUi => s.messages.push(
            json!({ "id": "s0", "role": "system", "parts": [{ "type": "text", "text": "Be careful." }] }),
        ),
        Format::OpenAiResponses => s
            .messages
            .push(json!({ "role": "developer", "content": "Be careful." })),
        Format::LangChain => s.messages.push(langchain(
            "SystemMessage",
            json!({ "content": "Be careful." }),
        )),
        // Gemini's system prompt is `systemInstruction`, outside contents.
        Format::Anthropic | Format::Gemini => {}
    }
    s.leading = s.messages.len();
    s.instructions = s.leading;
    let mut call = 0;
    for (position, step) in steps.iter().enumerate() {
        let messages = &mut s.messages;
        match step {
            Step::Marker => {
                // A marker leads what follows it; at the very start it
                // counts among the leading system-like messages.
                if messages.len() == s.leading {
                    s.leading += 1;
                }
                s.markers.push(messages.len());
                messages.push(format.marker("Earlier: the build was fixed."));
            }
            Step::User(words) => {
                s.turn_starts.push(messages.len());
                let text = "please ".repeat(*words);
                messages.push(match format {
                    Format::Anthropic => json!({ "role": "user", "content": [{ "type": "text", "text": text, "cache_control": { "type": "ephemeral" } }] }),
                    Format::OpenAiResponses => json!({ "type": "message", "role": "user", "content": [{ "type": "input_text", "text": text }] }),
                    Format::Gemini => json!({ "role": "user", "parts": [{ "text": text }] }),
                    Format::AiSdkUi => json!({ "id": format!("u{position}"), "role": "user", "parts": [{ "type": "text", "text": text }] }),
                    Format::LangChain => langchain("HumanMessage", json!({ "content": text, "id": format!("h{position}") })),
                    _ => json!({ "role": "user", "content": text }),
                });
            }
            Step::Assistant(words) => {
                let text = "ok ".repeat(*words);
                match format {
                    Format::OpenAiChat => messages.push(json!({ "role": "assistant", "content": text, "reasoning_content": "hmm" })),
                    Format::AiSdk => messages.push(json!({ "role": "assistant", "content": [
                        { "type": "reasoning", "text": "hmm", "providerOptions": { "anthropic": { "signature": "sig" } } },
                        { "type": "text", "text": text }] })),
                    Format::Ollama => messages.push(json!({ "role": "assistant", "content": text, "thinking": "hmm" })),
                    Format::AiSdk4 => messages.push(json!({ "role": "assistant", "content": [
                        { "type": "reasoning", "text": "hmm" },
                        { "type": "redacted-reasoning", "data": "EmwKAhgBEgy3va3pzix" },
                        { "type": "text", "text": text }] })),
                    Format::Anthropic => messages.push(json!({ "role": "assistant", "content": [
                        { "type": "thinking", "thinking": "hmm", "signature": "sig" },
                        { "type": "text", "text": text }] })),
                    Format::Gemini => messages.push(json!({ "role": "model", "parts": [
                        { "text": "hmm", "thought": true },
                        { "text": text, "thoughtSignature": "c2ln" }] })),
                    Format::OpenAiResponses => {
                        messages.push(json!({ "type": "reasoning", "id": format!("rs_{position}"), "summary": [], "encrypted_content": "gAAAA" }));
                        messages.push(json!({ "type": "message", "role": "assistant", "content": [{ "type": "output_text", "text": text, "annotations": [] }] }));
                    }
                    Format::LangChain => messages.push(langchain("AIMessage", json!({ "content": [{ "type": "text", "text": text }], "tool_calls": [], "response_metadata": {} }))),
                    Format::AiSdkUi => messages.push(json!({ "id": format!("a{position}"), "role": "assistant", "parts": [
                        { "type": "step-start" },
                        { "type": "reasoning", "text": "hmm", "state": "done" },
                        { "type": "text", "text": text, "state": "done" }] })),
                }
            }
            Step::Tools(results) => {
                let ids: Vec<String> = results
                    .iter()
                    .map(|_| {
                        call += 1;
                        format!("call_{call}")
                    })
                    .collect();
                write_tools(format, messages, &ids, results, position);
            }
        }
    }
    s
}

fn write_tools(
    format: Format,
    messages: &mut Vec<Value>,
    ids: &[String],
    results: &[(usize, bool)],
    position: usize,
) {
    let calls = ids.iter();
    let outputs = ids.iter().zip(results);
    match format {
        // A call and its result are one part: a step of tool parts.
        Format::AiSdkUi => {
            let mut parts = vec![json!({ "type": "step-start" })];
            parts.extend(outputs.enumerate().map(|(i, (id, (lines, failed)))| {
                let (state, key, payload) = match (failed, lines % 3) {
                    (true, _) => ("output-error", "errorText", json!(output_text(*lines))),
                    (false, 0) => ("output-available", "output", json!({ "lines": output_text(*lines).lines().collect::<Vec<_>>() })),
                    (false, _) => ("output-available", "output", json!(output_text(*lines))),
                };
                let mut part = json!({ "toolCallId": id, "state": state, "input": { "path": "a.rs" }, key: payload });
                if i % 2 == 0 {
                    part["type"] = json!("tool-read");
                } else {
                    part["type"] = json!("dynamic-tool");
                    part["toolName"] = json!("read");
                }
                part
            }));
            messages
                .push(json!({ "id": format!("t{position}"), "role": "assistant", "parts": parts }));
        }
        Format::Ollama => {
            let calls: Vec<Value> = calls
                .map(|_| json!({ "function": { "name": "read", "arguments": { "path": "a.rs" } } }))
                .collect();
            messages.push(json!({ "role": "assistant", "content": "", "tool_calls": calls }));
            for (lines, _) in results {
                messages.push(
                    json!({ "role": "tool", "content": output_text(*lines), "tool_name": "read" }),
                );
            }
        }
        Format::OpenAiChat => {
            let calls: Vec<Value> = calls.map(|id| json!({ "id": id, "type": "function", "function": { "name": "read", "arguments": "{\"path\":\"a.rs\"}" } })).collect();
            messages.push(json!({ "role": "assistant", "content": null, "tool_calls": calls }));
            for (id, (lines, _)) in outputs {
                messages.push(
                    json!({ "role": "tool", "tool_call_id": id, "content": output_text(*lines) }),
                );
            }
        }
        Format::AiSdk => {
            let calls: Vec<Value> = calls.map(|id| json!({ "type": "tool-call", "toolCallId": id, "toolName": "read", "input": { "path": "a.rs" } })).collect();
            messages.push(json!({ "role": "assistant", "content": calls }));
            let parts: Vec<Value> = outputs.map(|(id, (lines, failed))| {
                let output = match (failed, lines % 3) {
                    (true, _) => json!({ "type": "error-text", "value": output_text(*lines) }),
                    (false, 0) => json!({ "type": "json", "value": { "lines": output_text(*lines).lines().collect::<Vec<_>>() } }),
                    (false, _) => json!({ "type": "text", "value": output_text(*lines) }),
                };
                json!({ "type": "tool-result", "toolCallId": id, "toolName": "read", "output": output, "providerOptions": { "x": { "y": 1 } } })
            }).collect();
            messages.push(json!({ "role": "tool", "content": parts }));
        }
        Format::AiSdk4 => {
            let calls: Vec<Value> = calls.map(|id| json!({ "type": "tool-call", "toolCallId": id, "toolName": "read", "args": { "path": "a.rs" } })).collect();
            messages.push(json!({ "role": "assistant", "content": calls }));
            let parts: Vec<Value> = outputs.map(|(id, (lines, failed))| {
                let result = if lines % 3 == 0 {
                    json!({ "lines": output_text(*lines).lines().collect::<Vec<_>>() })
                } else {
                    json!(output_text(*lines))
                };
                json!({ "type": "tool-result", "toolCallId": id, "toolName": "read", "result": result, "isError": failed })
            }).collect();
            messages.push(json!({ "role": "tool", "content": parts }));
        }
        Format::Anthropic => {
            let calls: Vec<Value> = calls.map(|id| json!({ "type": "tool_use", "id": id, "name": "read", "input": { "path": "a.rs" } })).collect();
            messages.push(json!({ "role": "assistant", "content": calls }));
            let blocks: Vec<Value> = outputs.map(|(id, (lines, failed))| {
                let content = if lines % 2 == 0 { json!(output_text(*lines)) } else { json!([{ "type": "text", "text": output_text(*lines) }]) };
                json!({ "type": "tool_result", "tool_use_id": id, "content": content, "is_error": failed })
            }).collect();
            messages.push(json!({ "role": "user", "content": blocks }));
        }
        Format::Gemini => {
            // Every other call without an id: those pair by name and order.
            let calls: Vec<Value> = calls.enumerate().map(|(i, id)| if i % 2 == 0 {
                json!({ "functionCall": { "id": id, "name": "read", "args": { "path": "a.rs" } } })
            } else {
                json!({ "functionCall": { "name": format!("read_{id}"), "args": { "path": "a.rs" } } })
            }).collect();
            messages.push(json!({ "role": "model", "parts": calls }));
            let parts: Vec<Value> = outputs.enumerate().map(|(i, (id, (lines, failed)))| {
                let key = if *failed { "error" } else { "output" };
                let response = json!({ key: output_text(*lines) });
                if i % 2 == 0 {
                    json!({ "functionResponse": { "id": id, "name": "read", "response": response } })
                } else {
                    json!({ "functionResponse": { "name": format!("read_{id}"), "response": response } })
                }
            }).collect();
            messages.push(json!({ "role": "user", "parts": parts }));
        }
        Format::OpenAiResponses => {
            messages.push(json!({ "type": "reasoning", "id": format!("rs_t{position}"), "summary": [{ "type": "summary_text", "text": "read it" }] }));
            for id in calls {
                messages.push(json!({ "type": "function_call", "call_id": id, "name": "read", "arguments": "{\"path\":\"a.rs\"}" }));
            }
            for (id, (lines, _)) in outputs {
                let output = if lines % 2 == 0 {
                    json!(output_text(*lines))
                } else {
                    json!([{ "type": "input_text", "text": output_text(*lines) }])
                };
                messages.push(
                    json!({ "type": "function_call_output", "call_id": id, "output": output }),
                );
            }
        }
        Format::LangChain => {
            let calls: Vec<Value> = calls.map(|id| json!({ "id": id, "name": "read", "args": { "path": "a.rs" }, "type": "tool_call" })).collect();
            messages.push(langchain(
                "AIMessage",
                json!({ "content": "", "tool_calls": calls }),
            ));
            for (id, (lines, failed)) in outputs {
                let content = if lines % 2 == 0 {
                    json!(output_text(*lines))
                } else {
                    json!([{ "type": "text", "text": output_text(*lines) }])
                };
                let status = if *failed { "error" } else { "success" };
                messages.push(langchain("ToolMessage", json!({ "content": content, "tool_call_id": id, "status": status, "artifact": { "n": lines } })));
            }
        }
    }
}

/// A LangChain message serialised as `JSON.stringify` writes it.
fn langchain(class: &str, kwargs: Value) -> Value {
    json!({ "lc": 1, "type": "constructor", "id": ["langchain_core", "messages", class], "kwargs": kwargs })
}

/// The payloads of a message, read independently of the library: where they
/// are and what they hold.
fn payloads(format: Format, message: &Value) -> Vec<(String, Value)> {
    let mut found = Vec::new();
    match format {
        Format::OpenAiChat | Format::Ollama if message["role"] == "tool" => {
            found.push(("/content".to_string(), message["content"].clone()))
        }
        Format::AiSdk | Format::AiSdk4 | Format::Anthropic => {
            for (i, part) in message["content"]
                .as_array()
                .into_iter()
                .flatten()
                .enumerate()
            {
                match part["type"].as_str() {
                    Some("tool-result") if format == Format::AiSdk4 => {
                        found.push((format!("/content/{i}/result"), part["result"].clone()))
                    }
                    Some("tool-result") => {
                        found.push((format!("/content/{i}/output"), part["output"].clone()))
                    }
                    Some("tool_result") => {
                        found.push((format!("/content/{i}/content"), part["content"].clone()))
                    }
                    _ => {}
                }
            }
        }
        Format::OpenAiResponses if message["type"] == "function_call_output" => {
            found.push(("/output".to_string(), message["output"].clone()))
        }
        Format::Gemini => {
            for (i, part) in message["parts"]
                .as_array()
                .into_iter()
                .flatten()
                .enumerate()
            {
                if part["functionResponse"].is_object() {
                    let pointer = format!("/parts/{i}/functionResponse/response");
                    found.push((pointer, part["functionResponse"]["response"].clone()));
                }
            }
        }
        Format::AiSdkUi => {
            for (i, part) in message["parts"]
                .as_array()
                .into_iter()
                .flatten()
                .enumerate()
            {
                for key in ["output", "errorText"] {
                    if !part[key].is_null() {
                        found.push((format!("/parts/{i}/{key}"), part[key].clone()));
                    }
                }
            }
        }
        Format::LangChain if message["id"][2] == "ToolMessage" => found.push((
            "/kwargs/content".to_string(),
            message["kwargs"]["content"].clone(),
        )),
        _ => {}
    }
    found
}

fn is_placeholder(format: Format, payload: &Value) -> bool {
    match format {
        Format::AiSdk => {
            payload["value"] == DEFAULT_PLACEHOLDER
                && matches!(payload["type"].as_str(), Some("text" | "error-text"))
        }
        Format::Gemini => {
            *payload == json!({ "output": DEFAULT_PLACEHOLDER })
                || *payload == json!({ "error": DEFAULT_PLACEHOLDER })
        }
        _ => payload == DEFAULT_PLACEHOLDER,
    }
}

/// The message with its payloads blanked, to compare everything else.
fn without_payloads(format: Format, message: &Value) -> Value {
    let mut copy = message.clone();
    for (pointer, _) in payloads(format, message) {
        *copy.pointer_mut(&pointer).unwrap() = Value::Null;
    }
    copy
}

/// Call ids with no result and result ids with no call, read independently.
/// Ollama's calls have no ids: the tool messages right after an assistant
/// message with `tool_calls` answer them in order.
fn ollama_calls_and_results(
    messages: &[Value],
    calls: &mut HashSet<String>,
    results: &mut HashSet<String>,
) {
    let mut pending: Vec<String> = Vec::new();
    for (position, message) in messages.iter().enumerate() {
        let ollama_calls = message["tool_calls"]
            .as_array()
            .filter(|c| c.iter().all(|c| c["id"].is_null()));
        if let Some(list) = ollama_calls.filter(|c| !c.is_empty()) {
            pending = (0..list.len())
                .rev()
                .map(|i| format!("ollama {position}:{i}"))
                .collect();
            calls.extend(pending.iter().cloned());
        } else if message["role"] == "tool"
            && message["content"].is_string()
            && message["tool_call_id"].is_null()
        {
            results.insert(
                pending
                    .pop()
                    .unwrap_or_else(|| format!("ollama orphan {position}")),
            );
        } else {
            pending.clear();
        }
    }
}

fn orphans(messages: &[Value]) -> (HashSet<String>, HashSet<String>) {
    let mut calls = HashSet::new();
    let mut results = HashSet::new();
    for message in messages {
        let id = |key: &str| message[key].as_str().map(str::to_string);
        calls.extend(
            message["tool_calls"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|c| c["id"].as_str().map(str::to_string)),
        );
        results.extend(id("tool_call_id"));
        match message["type"].as_str() {
            Some("function_call") => calls.extend(id("call_id")),
            Some("function_call_output") => results.extend(id("call_id")),
            _ => {}
        }
        for part in message["content"].as_array().into_iter().flatten() {
            let field = |key: &str| part[key].as_str().map(str::to_string);
            match part["type"].as_str() {
                Some("tool-call") => calls.extend(field("toolCallId")),
                Some("tool-result") => results.extend(field("toolCallId")),
                Some("tool_use") => calls.extend(field("id")),
                Some("tool_result") => results.extend(field("tool_use_id")),
                _ => {}
            }
        }
    }
    ui_calls_and_results(messages, &mut calls, &mut results);
    gemini_calls_and_results(messages, &mut calls, &mut results);
    ollama_calls_and_results(messages, &mut calls, &mut results);
    (&calls - &results, &results - &calls)
}

/// UI message tool parts: each is a call, and its result once its state says
/// it has one.
fn ui_calls_and_results(
    messages: &[Value],
    calls: &mut HashSet<String>,
    results: &mut HashSet<String>,
) {
    for part in messages
        .iter()
        .filter(|message| message["id"].is_string())
        .flat_map(|message| message["parts"].as_array().into_iter().flatten())
    {
        let kind = part["type"].as_str().unwrap_or_default();
        let Some(id) = part["toolCallId"].as_str() else {
            continue;
        };
        if kind.starts_with("tool-") || kind == "dynamic-tool" {
            calls.insert(id.to_string());
            if part["state"]
                .as_str()
                .is_some_and(|s| s.starts_with("output-"))
            {
                results.insert(id.to_string());
            }
        }
    }
}

/// Gemini calls and responses, by id or, without one, by name (each name
/// here is used once).
fn gemini_calls_and_results(
    messages: &[Value],
    calls: &mut HashSet<String>,
    results: &mut HashSet<String>,
) {
    for message in messages {
        for part in message["parts"].as_array().into_iter().flatten() {
            let key = |value: &Value| {
                value["id"]
                    .as_str()
                    .or(value["name"].as_str())
                    .map(str::to_string)
            };
            calls.extend(key(&part["functionCall"]));
            results.extend(key(&part["functionResponse"]));
        }
    }
}

fn refs(values: &[Value]) -> Vec<&Value> {
    values.iter().collect()
}

fn tokens(values: &[Value]) -> u64 {
    history_functions::estimate_tokens(&refs(values), None).unwrap()
}

fn any_format() -> impl Strategy<Value = Format> {
    prop::sample::select(ALL_FORMATS.to_vec())
}

fn session() -> impl Strategy<Value = (Format, Vec<Step>)> {
    (any_format(), prop::collection::vec(step(), 0..30))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn detection_finds_the_format_and_the_estimate_is_additive((format, steps) in session()) {
        let s = build(format, &steps);
        let whole = tokens(&s.messages);
        let parts: u64 = s.messages.iter().map(|m| tokens(std::slice::from_ref(m))).sum();
        // Additive, but for reasoning items before the newest user message,
        // which the provider does not render (alone, each counts in full).
        let newest_turn = s.turn_starts.last().copied().unwrap_or(0);
        let dropped: u64 = s.messages[..newest_turn].iter()
            .filter(|m| m["type"] == "reasoning")
            .map(|m| tokens(std::slice::from_ref(m)))
            .sum();
        prop_assert_eq!(whole, parts - dropped);
        prop_assert_eq!(history_functions::estimate_tokens(&refs(&s.messages), Some(format)).unwrap(), whole);
    }

    /// Detection reads a message once for every format still in the
    /// running (`Facts`): each format's answer through that shared read,
    /// whatever the order the formats ask in, is its answer through a read
    /// of its own.
    #[test]
    fn a_shared_read_answers_every_format_as_its_own_read(
        (format, steps) in session(),
        order in Just(ALL_FORMATS.to_vec()).prop_shuffle(),
    ) {
        let s = build(format, &steps);
        for message in &s.messages {
            let facts = Facts::new(&message);
            for &other in &order {
                prop_assert_eq!(other.misfit_of(&facts), other.misfit(&message), "{:?} of {}", other, message);
            }
        }
    }

    /// Pruning's walk back reads an older message's results from their
    /// parts alone where the format can (`Format::result_of_part`): each is
    /// the result the message's whole read finds there, estimate and all.
    #[test]
    fn a_result_read_from_its_part_is_the_one_the_whole_read_finds((format, steps) in session()) {
        let s = build(format, &steps);
        for (index, message) in s.messages.iter().enumerate() {
            let reader = MessageReader {
                argument: "messages",
                index,
                placeholder: DEFAULT_PLACEHOLDER,
                sizes: true,
                cleared: true,
            };
            let view = format.view(&message, &reader).unwrap();
            for result in &view.tool_results {
                let [PathStep::Key(_), PathStep::Index(part), ..] = *result.path else { continue };
                if let Some(read) = format.result_of_part(&message, part, &reader).unwrap() {
                    prop_assert_eq!(&read, result, "{}: {}", format.name(), message);
                }
            }
        }
    }

    #[test]
    fn effective_history_starts_at_the_newest_marker((format, steps) in session()) {
        let s = build(format, &steps);
        let plan = history_functions::effective_history(&refs(&s.messages), None).unwrap();
        // The instructions first, then everything from the newest marker on.
        let start = s.markers.last().copied().unwrap_or(0).max(s.instructions);
        let expected: Vec<Output> = (0..s.instructions).chain(start..s.messages.len()).map(Output::Keep).collect();
        prop_assert_eq!(plan, expected);
    }

    #[test]
    fn prune_changes_only_payloads_outside_the_protected_turns(
        (format, steps) in session(), turns in 0usize..4, protect in 0u32..3_000, savings in 0u32..3_000,
    ) {
        let s = build(format, &steps);
        let options = PruneOptions { protect_turns: turns, protect_tokens: protect as f64, minimum_savings: savings as f64, ..PruneOptions::default() };
        let plan = history_functions::prune_for_model(&refs(&s.messages), &options, None).unwrap();
        let output = materialize_json(&s.messages, &plan, DEFAULT_PLACEHOLDER);
        // The bindings build the answer from the edits, each message's together.
        let edits = history_functions::prune_for_model_with(&refs(&s.messages)[..], &options, None, None).unwrap();
        prop_assert!(edits.is_sorted_by_key(|edit| edit.message), "edits in the order of the messages");
        let tail = match turns {
            0 => s.messages.len(),
            n if s.turn_starts.len() >= n => s.turn_starts[s.turn_starts.len() - n],
            _ => 0,
        };
        for (index, (before, after)) in s.messages.iter().zip(&output).enumerate() {
            if before == after {
                prop_assert_eq!(&plan[index], &Output::Keep(index));
                continue;
            }
            prop_assert!(index < tail, "{}: message {} in the protected tail changed", format.name(), index);
            prop_assert!(!s.markers.contains(&index));
            prop_assert_eq!(without_payloads(format, before), without_payloads(format, after), "only payloads change");
            let changed: Vec<_> = payloads(format, before).into_iter().zip(payloads(format, after))
                .filter(|(b, a)| b.1 != a.1).collect();
            prop_assert!(!changed.is_empty());
            for (_, (_, payload)) in changed {
                prop_assert!(is_placeholder(format, &payload), "{}: {}", format.name(), payload);
            }
        }
        prop_assert_eq!(orphans(&output), orphans(&s.messages));
        let again = history_functions::prune_for_model(&refs(&output), &options, None).unwrap();
        prop_assert!(again.iter().all(|o| matches!(o, Output::Keep(_))), "a second pass changes nothing");
    }

    #[test]
    fn emergency_prune_keeps_the_leading_messages_and_the_newest_turns_or_steps((format, steps) in session(), budget in 1u32..20_000) {
        let s = build(format, &steps);
        let len = s.messages.len();
        let plan = history_functions::emergency_prune(&refs(&s.messages), budget as f64, None).unwrap();
        let kept: Vec<usize> = plan.iter().map(Output::index).collect();
        let output = materialize_json(&s.messages, &plan, DEFAULT_PLACEHOLDER);
        let leading = s.leading;
        prop_assert_eq!(&kept[..leading.min(kept.len())], &(0..leading).collect::<Vec<_>>()[..]);
        // After them, one contiguous suffix, or the newest turn's request and
        // then a contiguous suffix.
        let runs = contiguous_runs(&kept[leading..]);
        prop_assert!(runs.len() <= 2, "{}: kept {:?}", format.name(), kept);
        let is_assistant = |i: usize| is_assistant_message(format, &s.messages[i]);
        let starts_step = |i: usize| is_assistant(i) && (i == 0 || !is_assistant(i - 1));
        if let Some(last) = runs.last() {
            prop_assert_eq!(last.end, len, "the newest message is kept");
        }
        match runs.as_slice() {
            [] => prop_assert_eq!(leading, len),
            [suffix] => prop_assert!(
                suffix.start == leading || s.turn_starts.contains(&suffix.start) || starts_step(suffix.start),
                "{}: cut at {} is not a turn or step start", format.name(), suffix.start),
            [request, steps] => {
                prop_assert_eq!(Some(&request.start), s.turn_starts.last(), "the request is the newest turn's");
                prop_assert!(request.clone().all(|i| !is_assistant(i)), "the request holds no step");
                prop_assert!(starts_step(steps.start), "{}: cut at {} is not a step start", format.name(), steps.start);
                prop_assert!(request.end < steps.start);
            }
            _ => unreachable!(),
        }
        if let Some(&newest) = s.turn_starts.last() {
            prop_assert!(kept.contains(&newest), "the newest turn's request is kept");
        }
        prop_assert_eq!(orphans(&output), (HashSet::new(), HashSet::new()));
        for &index in &kept {
            if s.messages[index]["type"] == "reasoning" {
                prop_assert!(kept.contains(&(index + 1)), "reasoning {} kept without its item", index);
            }
        }
    }
}

/// Whether a message is the model's (text, reasoning or a tool call), read
/// independently of the library.
fn is_assistant_message(format: Format, message: &Value) -> bool {
    match format {
        Format::OpenAiResponses => match message["type"].as_str() {
            Some("reasoning" | "function_call") => true,
            Some("message") | None => message["role"] == "assistant",
            _ => false,
        },
        Format::Gemini => message["role"] == "model",
        Format::LangChain => message["id"][2] == "AIMessage",
        _ => message["role"] == "assistant",
    }
}

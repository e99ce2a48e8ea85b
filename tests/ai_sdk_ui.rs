//! AI SDK `UIMessage`s: detection against Gemini and the `content` formats,
//! tool parts that hold a call and its result, what is sent and what is
//! not, the payload pruning replaces, the marker, and errors.

use kram_compaction::formats::{read_history, Format};
use kram_compaction::history_functions;
use kram_compaction::plan::{materialize_json, Output};
use kram_compaction::prune::{PruneOptions, DEFAULT_PLACEHOLDER};
use kram_compaction::view::MessageView;
use serde_json::{json, Value};

mod common;
use common::{eager, fixture, refs};

fn read(messages: &[Value], forced: Option<Format>) -> Result<(Format, Vec<MessageView>), String> {
    read_history(&refs(messages), forced, "messages", DEFAULT_PLACEHOLDER).map_err(|e| e.message)
}

fn tokens(messages: &[Value]) -> u64 {
    history_functions::estimate_tokens(&refs(messages), None).unwrap()
}

#[test]
fn typed_parts_beside_a_role_read_as_ui_messages_and_never_as_another_format() {
    let history = vec![
        json!({ "id": "u1", "role": "user", "parts": [{ "type": "text", "text": "hi" }] }),
        json!({ "id": "a1", "role": "assistant", "parts": [
            { "type": "step-start" },
            { "type": "tool-weather", "toolCallId": "c1", "state": "output-available", "input": { "city": "Oslo" }, "output": "rain" }] }),
    ];
    let (format, views) = read(&history, None).unwrap();
    assert_eq!(format, Format::AiSdkUi);
    assert!(views[0].starts_user_turn);
    // The call and its result are one part of one message: it answers
    // no call of another message.
    assert_eq!(views[1].opens, vec!["c1".to_string()]);
    assert!(views[1].answers.is_empty());
    for other in [
        Format::OpenAiChat,
        Format::AiSdk,
        Format::Gemini,
        Format::Ollama,
    ] {
        let error = read(&history, Some(other)).unwrap_err();
        assert!(error.starts_with("messages["), "{}: {error}", other.name());
    }
    // Gemini's untyped parts are not UI parts, and `model` is not a UI role.
    let gemini = [json!({ "role": "user", "parts": [{ "text": "hi" }] })];
    assert_eq!(read(&gemini, None).unwrap().0, Format::Gemini);
    let error = read(&gemini, Some(Format::AiSdkUi)).unwrap_err();
    assert!(error.contains("parts[0].type must be a string"), "{error}");
}

#[test]
fn ai_sdk_4_ui_messages_are_refused_not_misread() {
    // AI SDK 4's UI messages carry `content` (and `toolInvocations`) beside
    // `parts`: reading only the parts would drop the text.
    let v4 = [
        json!({ "id": "m1", "role": "user", "content": "hi", "parts": [{ "type": "text", "text": "hi" }] }),
    ];
    let error = read(&v4, None).unwrap_err();
    assert!(error.starts_with("messages[0]"), "{error}");
    let error = read(&v4, Some(Format::AiSdkUi)).unwrap_err();
    assert!(error.contains("its field `content`"), "{error}");
}

#[test]
fn only_what_convert_to_model_messages_sends_counts() {
    let text = json!({ "id": "a", "role": "assistant", "parts": [{ "type": "text", "text": "The build is green." }] });
    let mut with_unsent = text.clone();
    let parts = with_unsent["parts"].as_array_mut().unwrap();
    parts.insert(0, json!({ "type": "step-start" }));
    parts.push(json!({ "type": "source-url", "sourceId": "s", "url": "https://example.com/a/very/long/path/that/would/cost/tokens", "title": "A page" }));
    parts.push(json!({ "type": "source-document", "sourceId": "d", "mediaType": "application/pdf", "title": "Spec" }));
    parts.push(json!({ "type": "tool-search", "toolCallId": "c9", "state": "input-streaming", "input": { "query": "partial inp" } }));
    assert_eq!(tokens(std::slice::from_ref(&text)), tokens(&[with_unsent]));
    // A file costs the fixed amount, whatever its size.
    let file = |url: String| json!({ "id": "u", "role": "user", "parts": [{ "type": "file", "mediaType": "image/png", "url": url }] });
    assert_eq!(
        tokens(&[file("data:image/png;base64,iVBOR".into())]),
        tokens(&[file(format!(
            "data:image/png;base64,{}",
            "A".repeat(1_000_000)
        ))])
    );
    // Each step of an assistant message is a model message, and its tool
    // results a tool message: each costs a message's overhead.
    let step = |parts: Value| json!({ "id": "a", "role": "assistant", "parts": parts });
    let one = step(json!([{ "type": "text", "text": "ok" }]));
    let two = step(
        json!([{ "type": "text", "text": "ok" }, { "type": "step-start" }, { "type": "text", "text": "ok" }]),
    );
    let single = tokens(&[one]);
    assert!(
        tokens(&[two]) > 2 * single - 2,
        "two steps cost two messages"
    );
}

#[test]
fn pruning_replaces_the_output_or_the_error_text_and_keeps_the_part() {
    let input = fixture(Format::AiSdkUi);
    let plan = history_functions::prune_for_model(&refs(&input), &eager(), None).unwrap();
    let output = materialize_json(&input, &plan, DEFAULT_PLACEHOLDER);
    let part = &output[2]["parts"][3];
    assert_eq!(part["output"], DEFAULT_PLACEHOLDER);
    assert_eq!(part["state"], "output-available");
    assert_eq!(part["input"], input[2]["parts"][3]["input"]);
    assert_eq!(part["toolCallId"], input[2]["parts"][3]["toolCallId"]);
    // A JSON output becomes the placeholder string too: `convertToModelMessages`
    // sends a string output as text.
    assert_eq!(output[2]["parts"][4]["output"], DEFAULT_PLACEHOLDER);
    assert_eq!(output[2]["parts"][7]["errorText"], DEFAULT_PLACEHOLDER);
    assert_eq!(output[2]["parts"][7]["state"], "output-error");
    // Reasoning, text and the user's file are untouched.
    assert_eq!(output[2]["parts"][1], input[2]["parts"][1]);
    assert_eq!(output[1], input[1]);
    // A denied call has no payload; the newest turn is protected.
    assert_eq!(output.last(), input.last());
    let again = history_functions::prune_for_model(&refs(&output), &eager(), None).unwrap();
    assert!(again.iter().all(|o| matches!(o, Output::Keep(_))));
    assert!(tokens(&output) < tokens(&input));
}

#[test]
fn the_marker_is_a_user_message_with_an_id_found_in_a_ui_history() {
    let marker = Format::AiSdkUi.marker("Fixed the flush setting.");
    assert_eq!(marker["role"], "user");
    assert_eq!(marker["parts"][0]["type"], "text");
    let id = marker["id"].as_str().unwrap();
    assert!(id.starts_with("kram-compaction-summary-"), "{id}");
    // The same summary has the same id; another one another.
    assert_eq!(Format::AiSdkUi.marker("Fixed the flush setting.")["id"], id);
    assert_ne!(Format::AiSdkUi.marker("Another summary.")["id"], id);
    let mut history = fixture(Format::AiSdkUi);
    let at = history.len();
    history.push(marker);
    history
        .push(json!({ "id": "u9", "role": "user", "parts": [{ "type": "text", "text": "next" }] }));
    // The system message stays first; the marker replaces what came before.
    let plan = history_functions::effective_history(&refs(&history), None).unwrap();
    assert_eq!(
        plan,
        vec![Output::Keep(0), Output::Keep(at), Output::Keep(at + 1)]
    );
}

#[test]
fn bad_parts_are_type_errors_naming_the_field() {
    let cases = [
        (
            json!({ "id": "a", "role": "assistant", "parts": [{ "type": "tool-x", "state": "output-available", "output": 1 }] }),
            "messages[0].parts[0].toolCallId must be a string, got undefined",
        ),
        (
            json!({ "id": "a", "role": "assistant", "parts": [{ "type": "tool-x", "toolCallId": "c", "input": {} }] }),
            "messages[0].parts[0].state must be a string, got undefined",
        ),
        (
            json!({ "id": "a", "role": "assistant", "parts": [{ "type": "tool-x", "toolCallId": "c", "state": "output-error", "errorText": 5 }] }),
            "messages[0].parts[0].errorText must be a string, got number",
        ),
        (
            json!({ "id": "a", "role": "assistant", "parts": [{ "type": "dynamic-tool", "toolCallId": "c", "state": "input-available", "input": {} }] }),
            "messages[0].parts[0].toolName must be a string, got undefined",
        ),
        (
            json!({ "id": "a", "role": "assistant", "parts": [{ "type": "text" }] }),
            "messages[0].parts[0].text must be a string, got undefined",
        ),
        (
            json!({ "id": "a", "role": "assistant", "parts": ["hi"] }),
            "messages[0].parts[0] must be a part object, got string",
        ),
        (
            json!({ "id": "a", "role": "tool", "parts": [] }),
            "messages[0].role must be \"system\", \"user\" or \"assistant\", got \"tool\"",
        ),
    ];
    for (message, expected) in cases {
        assert_eq!(
            read(std::slice::from_ref(&message), Some(Format::AiSdkUi)).unwrap_err(),
            expected,
            "{message}"
        );
    }
}

/// One request, then an agent response of `steps` tool steps kept as one
/// assistant message, as `useChat` keeps it.
fn single_long_task(steps: usize) -> Vec<Value> {
    let mut parts = Vec::new();
    for step in 0..steps {
        parts.push(json!({ "type": "step-start" }));
        parts.push(json!({ "type": "text", "text": format!("Reading part {step}.") }));
        parts.push(json!({ "type": "tool-readFile", "toolCallId": format!("c{step}"), "state": "output-available",
            "input": { "path": format!("src/{step}.rs") }, "output": "fn main() { println!(\"hello\"); }\n".repeat(200) }));
    }
    vec![
        json!({ "id": "s", "role": "system", "parts": [{ "type": "text", "text": "You are a coding agent." }] }),
        json!({ "id": "u", "role": "user", "parts": [{ "type": "text", "text": "Read every file." }] }),
        json!({ "id": "a", "role": "assistant", "parts": parts }),
    ]
}

#[test]
fn pruning_for_a_budget_reaches_into_the_steps_of_one_ui_message() {
    let input = single_long_task(30);
    let budget = tokens(&input) / 5;
    // Without a budget the newest turn is protected whole.
    let plan =
        history_functions::prune_for_model(&refs(&input), &PruneOptions::default(), None).unwrap();
    assert!(plan.iter().all(|o| matches!(o, Output::Keep(_))));
    let options = PruneOptions {
        max_tokens: Some(budget as f64),
        protect_tokens: 5_000.0,
        ..PruneOptions::default()
    };
    let plan = history_functions::prune_for_model(&refs(&input), &options, None).unwrap();
    let output = materialize_json(&input, &plan, DEFAULT_PLACEHOLDER);
    assert!(tokens(&output) <= budget, "{} > {budget}", tokens(&output));
    // Newest first, results stay whole up to protectTokens.
    let whole = output[2]["parts"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["output"].is_string() && p["output"] != DEFAULT_PLACEHOLDER)
        .count();
    assert!((1..=3).contains(&whole), "{whole} results whole");
    let parts = output[2]["parts"].as_array().unwrap();
    // The newest step's result stays whole; the oldest are cleared.
    assert_eq!(
        parts.last().unwrap(),
        input[2]["parts"].as_array().unwrap().last().unwrap()
    );
    assert_eq!(parts[2]["output"], DEFAULT_PLACEHOLDER);
    assert_eq!(output[0], input[0]);
    assert_eq!(output[1], input[1]);
}

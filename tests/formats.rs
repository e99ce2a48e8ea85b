//! The four message formats over hand-written sessions in each
//! (`tests/fixtures/*.json`): detection, views, pruning in the provider's own
//! shape, emergency cuts that never orphan a tool call, markers, transcripts.

use std::collections::HashSet;

use kram_compaction::content::Block;
use kram_compaction::error::ErrorClass;
use kram_compaction::formats::{read_history, read_structure, Format, ALL_FORMATS};
use kram_compaction::history_functions;
use kram_compaction::plan::{materialize_json, Output};
use kram_compaction::prune::DEFAULT_PLACEHOLDER;
use kram_compaction::view::MessageView;
use serde_json::{json, Value};

mod common;
use common::{eager, fixture, plain, reader_of, refs};

fn views(messages: &[Value], forced: Option<Format>) -> (Format, Vec<MessageView>) {
    read_history(&refs(messages), forced, "messages", DEFAULT_PLACEHOLDER).unwrap()
}

fn pruned(messages: &[Value]) -> (Vec<Output>, Vec<Value>) {
    let plan = history_functions::prune_for_model(&refs(messages), &eager(), None).unwrap();
    let output = materialize_json(messages, &plan, DEFAULT_PLACEHOLDER);
    (plan, output)
}

/// Tool-call ids opened and answered in a list, read by the library.
fn open_and_answered(messages: &[Value], format: Format) -> (HashSet<String>, HashSet<String>) {
    let (_, views) = views(messages, Some(format));
    let opens = views.iter().flat_map(|v| v.opens.clone()).collect();
    if format == Format::AiSdkUi {
        // A UI message holds each call with its result, in one part.
        let parts = messages
            .iter()
            .flat_map(|m| m["parts"].as_array().into_iter().flatten());
        let answered = parts
            .filter(|part| {
                part["state"]
                    .as_str()
                    .is_some_and(|s| s.starts_with("output-"))
            })
            .map(|part| part["toolCallId"].as_str().unwrap_or_default().to_string());
        return (opens, answered.collect());
    }
    let answers = views.iter().flat_map(|v| v.answers.clone()).collect();
    (opens, answers)
}

#[test]
fn each_fixture_is_detected_as_its_format() {
    for &format in ALL_FORMATS {
        let (detected, views) = views(&fixture(format), None);
        assert_eq!(detected, format, "{}", format.name());
        let (opens, answers) = open_and_answered(&fixture(format), format);
        assert!(
            opens.len() >= 3,
            "{}: parallel calls and more",
            format.name()
        );
        assert_eq!(opens, answers, "{}: every call answered", format.name());
        assert!(views.iter().any(|v| !v.tool_results.is_empty()));
    }
}

#[test]
fn a_plain_text_history_reads_as_the_first_preferred_format_and_the_same_in_all() {
    let plain = vec![
        json!({ "role": "user", "content": "Hello there" }),
        json!({ "role": "assistant", "content": [{ "type": "text", "text": "Hi! How can I help?" }] }),
        json!({ "role": "user", "content": "Explain monads briefly." }),
    ];
    let (format, expected) = views(&plain, None);
    assert_eq!(format, Format::OpenAiChat);
    for &forced in &[Format::AiSdk, Format::Anthropic] {
        assert_eq!(views(&plain, Some(forced)).1, expected, "{}", forced.name());
    }
    // Responses spells text parts `input_text`, so the array message is not
    // one of its messages.
    let error = read_history(
        &refs(&plain),
        Some(Format::OpenAiResponses),
        "messages",
        "x",
    )
    .unwrap_err();
    assert_eq!(
        error.message,
        "messages[1] is not a message of the format \"openai-responses\" that options.format names (its content[0].type \"text\" does not fit it)"
    );
}

#[test]
fn a_mixed_history_is_a_type_error_naming_the_first_message_that_does_not_fit() {
    let mut messages = fixture(Format::Anthropic)[..3].to_vec();
    messages.push(json!({ "role": "assistant", "content": "Checking.", "tool_calls": [] }));
    let error = history_functions::estimate_tokens(&refs(&messages), None).unwrap_err();
    assert_eq!(error.class, ErrorClass::Type);
    assert_eq!(
        error.message,
        "messages[3] does not match the format of the messages before it (its field `tool_calls` does not fit anthropic; it reads as openai-chat): a history must not mix formats"
    );

    let mut messages = fixture(Format::AiSdk)[..4].to_vec();
    messages.push(json!({ "type": "function_call_output", "call_id": "c", "output": "x" }));
    let error = history_functions::estimate_tokens(&refs(&messages), None).unwrap_err();
    assert!(
        error.message.starts_with("messages[4] does not match"),
        "{}",
        error.message
    );
    assert!(
        error
            .message
            .contains("(its field `type` does not fit ai-sdk; it reads as openai-responses)"),
        "{}",
        error.message
    );

    // A message whose field is broken for the format so far gets that error.
    let mut messages = fixture(Format::Anthropic)[..3].to_vec();
    messages.push(json!({ "role": "assistant", "content": 5 }));
    let error = history_functions::estimate_tokens(&refs(&messages), None).unwrap_err();
    assert_eq!(
        error.message,
        "messages[3].content must be a string or an array of content blocks, got number"
    );
}

#[test]
fn bad_fields_are_named_in_each_format() {
    // (format, message, error, whether detection finds the same format)
    let cases = [
        (Format::AiSdk, json!({ "role": "tool", "content": [{ "type": "tool-result", "toolCallId": 7, "toolName": "x", "output": { "type": "text", "value": "" } }] }),
         "messages[0].content[0].toolCallId must be a string, got number", true),
        (Format::AiSdk, json!({ "role": "tool", "content": [{ "type": "tool-result", "toolCallId": "a", "toolName": "x", "output": "done" }] }),
         "messages[0].content[0].output must be a tool result output object, got string", true),
        (Format::Anthropic, json!({ "role": "user", "content": [{ "type": "tool_result", "tool_use_id": "a", "content": 5 }] }),
         "messages[0].content[0].content must be a string or an array of content blocks, got number", true),
        (Format::Anthropic, json!({ "role": "system", "content": "x" }),
         "messages[0].role must be \"user\" or \"assistant\", got \"system\" (the system prompt is the request's `system`)", false),
        (Format::OpenAiResponses, json!({ "type": "function_call", "call_id": "a", "name": "f" }),
         "messages[0].arguments must be a string, got undefined", true),
        (Format::OpenAiResponses, json!({ "type": "function_call_output", "call_id": "a", "output": { "text": "x" } }),
         "messages[0].output must be a string or an array of content parts, got object", true),
    ];
    for (format, message, expected, detected) in cases {
        let error = history_functions::estimate_tokens(&[&message], Some(format)).unwrap_err();
        assert_eq!(error.message, expected);
        if detected {
            assert_eq!(
                history_functions::estimate_tokens(&[&message], None)
                    .unwrap_err()
                    .message,
                expected
            );
        }
    }
}

#[test]
fn anthropic_tool_result_messages_do_not_start_user_turns() {
    let messages = fixture(Format::Anthropic);
    let (_, views) = views(&messages, None);
    let starts: Vec<usize> = (0..views.len())
        .filter(|&i| views[i].starts_user_turn)
        .collect();
    // The user messages of the user's own words; the tool_result ones, and
    // the one that adds text after a tool_result, are not turn starts.
    assert_eq!(starts, vec![0, 6, 12]);
    assert!(views[8].answers.len() == 1 && !views[8].starts_user_turn);
}

#[test]
fn pruning_replaces_only_the_payload_in_each_formats_own_place() {
    for &format in ALL_FORMATS {
        let input = fixture(format);
        let (plan, output) = pruned(&input);
        let edited: Vec<usize> = plan
            .iter()
            .filter(|o| matches!(o, Output::Edited { .. }))
            .map(Output::index)
            .collect();
        assert!(!edited.is_empty(), "{}", format.name());
        for (index, (before, after)) in input.iter().zip(&output).enumerate() {
            if !edited.contains(&index) {
                assert_eq!(before, after);
            }
        }
        // Still the same format, nothing left to prune, calls still answered.
        assert_eq!(views(&output, None).0, format);
        let (again, _) = pruned(&output);
        assert!(
            again.iter().all(|o| matches!(o, Output::Keep(_))),
            "{}",
            format.name()
        );
        assert_eq!(
            open_and_answered(&output, format),
            open_and_answered(&input, format)
        );
    }
}

#[test]
fn ai_sdk_outputs_become_text_or_error_text_placeholders() {
    let input = fixture(Format::AiSdk);
    let (_, output) = pruned(&input);
    let placeholder = |kind: &str| json!({ "type": kind, "value": DEFAULT_PLACEHOLDER });
    assert_eq!(output[3]["content"][0]["output"], placeholder("text"));
    assert_eq!(output[3]["content"][1]["output"], placeholder("text"));
    assert_eq!(output[5]["content"][0]["output"], placeholder("error-text"));
    assert_eq!(output[9]["content"][0]["output"], placeholder("error-text"));
    assert_eq!(
        output[9]["content"][1]["output"],
        placeholder("text"),
        "content outputs too"
    );
    // Unknown fields of the part and the message stay.
    assert_eq!(
        output[3]["content"][0]["providerOptions"],
        input[3]["content"][0]["providerOptions"]
    );
    assert_eq!(output[3]["content"][0]["toolName"], "readFile");
    // The denied execution is in the protected newest turn.
    assert_eq!(output[13], input[13]);
}

#[test]
fn anthropic_tool_result_blocks_get_the_placeholder_as_content() {
    let input = fixture(Format::Anthropic);
    let (_, output) = pruned(&input);
    for (message, block) in [(2, 0), (2, 1), (4, 0), (8, 0), (10, 0)] {
        assert_eq!(
            output[message]["content"][block]["content"],
            DEFAULT_PLACEHOLDER
        );
        assert_eq!(output[message]["content"][block]["type"], "tool_result");
    }
    assert_eq!(
        output[2]["content"][1]["cache_control"],
        json!({ "type": "ephemeral" })
    );
    assert_eq!(
        output[4]["content"][0]["is_error"], true,
        "the error flag stays"
    );
    assert_eq!(
        output[8]["content"][1], input[8]["content"][1],
        "the user's text stays"
    );
    assert_eq!(output[3], input[3], "thinking and its signature untouched");
    assert_eq!(output[14], input[14], "the newest turn is protected");
}

#[test]
fn responses_call_outputs_get_the_placeholder_as_output() {
    let input = fixture(Format::OpenAiResponses);
    let (_, output) = pruned(&input);
    for index in [5, 6, 9, 14] {
        assert_eq!(output[index]["output"], DEFAULT_PLACEHOLDER, "item {index}");
        assert_eq!(output[index]["call_id"], input[index]["call_id"]);
    }
    assert_eq!(output[19], input[19], "the newest turn is protected");
}

/// Every cut keeps calls with their results, and a Responses reasoning item
/// with the item after it.
#[test]
fn emergency_cuts_never_orphan_a_call_or_a_reasoning_item() {
    for &format in ALL_FORMATS {
        let input = fixture(format);
        let total = history_functions::estimate_tokens(&refs(&input), None).unwrap();
        let mut distinct = HashSet::new();
        // Every 7th budget, and the total itself, where nothing is cut.
        for budget in (1..=total + 1).step_by(7).chain([total]) {
            let plan =
                history_functions::emergency_prune(&refs(&input), budget as f64, None).unwrap();
            let kept: Vec<usize> = plan.iter().map(Output::index).collect();
            distinct.insert(kept.len());
            let output = materialize_json(&input, &plan, DEFAULT_PLACEHOLDER);
            let (opens, answers) = open_and_answered(&output, format);
            assert_eq!(opens, answers, "{} at {budget}", format.name());
            for &index in &kept {
                if input[index]["type"] == "reasoning" {
                    assert!(kept.contains(&(index + 1)), "reasoning {index} kept alone");
                }
            }
        }
        assert!(
            distinct.len() >= 2,
            "{}: the budgets cut at several turns",
            format.name()
        );
    }
}

#[test]
fn a_reasoning_item_before_a_user_message_goes_with_the_older_turn() {
    let messages = vec![
        json!({ "role": "user", "content": "First question" }),
        json!({ "type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "gAAAA".repeat(400) }),
        json!({ "role": "user", "content": "Second question" }),
        json!({ "type": "message", "role": "assistant", "content": [{ "type": "output_text", "text": "Answer" }] }),
    ];
    // The reasoning item counts nothing before the newest user message (the
    // provider does not render it there); the cut still drops it.
    let whole = history_functions::estimate_tokens(&refs(&messages), None).unwrap() as f64;
    let plan = history_functions::emergency_prune(&refs(&messages), whole - 1.0, None).unwrap();
    assert_eq!(plan, vec![Output::Keep(2), Output::Keep(3)]);
}

#[test]
fn markers_in_each_format_are_found_and_lead_the_history() {
    for &format in ALL_FORMATS {
        let mut messages = fixture(format);
        let marker = format.marker("The export crashed because of an unbounded buffer.");
        messages.insert(3, marker.clone());
        // The marker itself must be a message of its format.
        assert!(format.accepts(&&marker), "{}", format.name());
        let (detected, views) = views(&messages, None);
        assert_eq!(detected, format);
        assert!(views[3].is_marker && !views[3].starts_user_turn);
        let plan = history_functions::effective_history(&refs(&messages), None).unwrap();
        // The leading system messages (instructions) come first, then the marker.
        let instructions = kram_compaction::cuts::instructions(&views);
        let expected: Vec<Output> = (0..instructions)
            .chain(3..messages.len())
            .map(Output::Keep)
            .collect();
        assert_eq!(plan, expected, "{}", format.name());

        // Emergency cuts keep it at the start.
        let effective = materialize_json(&messages, &plan, DEFAULT_PLACEHOLDER);
        let cut = history_functions::emergency_prune(&refs(&effective), 1.0, None).unwrap();
        assert_eq!(cut[0], Output::Keep(0), "{}", format.name());
    }
}

#[test]
fn markers_of_every_format_are_found_in_a_plain_history() {
    // Gemini contents and UI messages have `parts`, not `content`: their
    // markers in a history of `content` messages are a mix (their own tests
    // read them in their own format).
    for &format in ALL_FORMATS
        .iter()
        .filter(|f| !matches!(f, Format::Gemini | Format::AiSdkUi))
    {
        let messages = vec![
            plain(format, "user", "old question"),
            plain(format, "assistant", "old answer"),
            format.marker("Summary of the old work."),
            plain(format, "user", "new question"),
        ];
        let plan = history_functions::effective_history(&refs(&messages), None).unwrap();
        assert_eq!(
            plan,
            vec![Output::Keep(2), Output::Keep(3)],
            "{}",
            format.name()
        );
    }
}

fn transcript(messages: &[Value]) -> Vec<(String, Vec<Block>)> {
    let (format, _) = views(messages, None);
    messages
        .iter()
        .enumerate()
        .map(|(index, message)| {
            let content = format.content(&message, &reader_of(index)).unwrap();
            (content.role, content.blocks)
        })
        .collect()
}

#[test]
fn transcripts_carry_calls_results_reasoning_and_attachments() {
    let ai = transcript(&fixture(Format::AiSdk));
    assert_eq!(ai[1].1[1], Block::Attachment("image".into()));
    assert!(matches!(&ai[2].1[0], Block::Reasoning(text) if text.contains("TS2345")));
    assert_eq!(
        ai[2].1[2],
        Block::ToolCall {
            id: "toolu_01A".into(),
            name: "readFile".into(),
            arguments: r#"{"path":"src/api/client.ts"}"#.into()
        }
    );
    assert!(
        matches!(&ai[3].1[1], Block::ToolResult { output, .. } if output.contains("\"strict\":true"))
    );
    assert!(matches!(
        &ai[5].1[0],
        Block::ToolResult { is_error: true, .. }
    ));
    assert_eq!(ai[9].1[2], Block::Attachment("media".into()));
    assert!(
        matches!(&ai[13].1[0], Block::ToolResult { output, .. } if output.starts_with("Execution denied."))
    );

    let anthropic = transcript(&fixture(Format::Anthropic));
    assert!(matches!(&anthropic[1].1[0], Block::Reasoning(_)));
    assert!(
        matches!(&anthropic[4].1[0], Block::ToolResult { is_error: true, id, .. } if id == "toolu_01Lw3sZpQ8c4VnB6yTgH2kRm")
    );
    assert_eq!(
        anthropic[5].1.len(),
        1,
        "redacted thinking has nothing to read"
    );
    assert_eq!(anthropic[14].1[1], Block::Attachment("image".into()));

    let responses = transcript(&fixture(Format::OpenAiResponses));
    assert_eq!(responses[0].0, "developer");
    assert!(matches!(&responses[2].1[0], Block::Reasoning(text) if text.contains("releases")));
    assert_eq!(responses[3].0, "assistant");
    assert!(
        matches!(&responses[6].1[..], [Block::ToolResult { output, .. }, Block::Attachment(kind)] if output.contains("ListLines") && kind == "input_image")
    );
    assert!(
        responses[12].1.is_empty(),
        "encrypted reasoning has nothing to read"
    );
    assert!(
        matches!(&responses[13].1[0], Block::ToolCall { name, arguments, .. } if name == "apply_patch" && arguments.starts_with("*** Begin Patch"))
    );
}

#[test]
fn the_marker_reads_as_its_summary_in_the_transcript() {
    for &format in ALL_FORMATS {
        let messages = vec![
            format.marker("Fixed the flush setting."),
            plain(format, "user", "next"),
        ];
        let transcript = transcript(&messages);
        assert_eq!(
            transcript[0].1,
            vec![Block::Text("Fixed the flush setting.".into())],
            "{}",
            format.name()
        );
    }
}

#[test]
fn attachments_count_the_fixed_cost_whatever_their_size() {
    let small = json!({ "role": "user", "content": [{ "type": "image", "source": { "type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo=" } }] });
    let mut large = small.clone();
    large["content"][0]["source"]["data"] = Value::String("A".repeat(2_000_000));
    let tokens = |m: &Value| history_functions::estimate_tokens(&[m], None).unwrap();
    assert_eq!(tokens(&small), tokens(&large));
    assert_eq!(tokens(&small), 4 + 1_000);
}

#[test]
fn responses_item_references_read_with_or_without_their_type() {
    let messages = vec![
        json!({ "role": "user", "content": [{ "type": "input_text", "text": "Hi" }] }),
        json!({ "id": "msg_0123" }),
        json!({ "type": null, "id": "rs_0123" }),
        json!({ "type": "item_reference", "id": "fc_0123" }),
    ];
    let (format, views) = views(&messages, None);
    assert_eq!(format, Format::OpenAiResponses);
    assert!(views[1..]
        .iter()
        .all(|v| !v.starts_user_turn && v.tool_results.is_empty()));
    let error = history_functions::estimate_tokens(
        &[&json!({ "type": 5, "id": "x" })],
        Some(Format::OpenAiResponses),
    )
    .unwrap_err();
    assert_eq!(
        error.message,
        "messages[0].type must be a string, got number"
    );
}

#[test]
fn a_read_without_sizes_sees_the_same_structure() {
    for &format in ALL_FORMATS {
        let name = format.name();
        let messages = fixture(format);
        let (_, full) = views(&messages, None);
        let structure = read_structure(&refs(&messages), None, "messages").unwrap();
        assert_eq!(structure.len(), full.len(), "{name}");
        for (index, (bare, sized)) in structure.iter().zip(&full).enumerate() {
            let at = format!("{name}[{index}]");
            assert_eq!(bare.role, sized.role, "{at}");
            assert_eq!(bare.starts_user_turn, sized.starts_user_turn, "{at}");
            assert_eq!(bare.is_marker, sized.is_marker, "{at}");
            assert_eq!(bare.opens, sized.opens, "{at}");
            assert_eq!(bare.answers, sized.answers, "{at}");
            assert_eq!(bare.tool_results.len(), sized.tool_results.len(), "{at}");
            assert!(bare.tokens <= sized.tokens, "{at}");
        }
        assert!(
            structure.iter().map(|v| v.tokens).sum::<u64>()
                < full.iter().map(|v| v.tokens).sum::<u64>(),
            "{name}: nothing was estimated"
        );
    }
}

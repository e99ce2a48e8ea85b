//! Gemini `contents`: detection against the other formats, pairing of calls
//! and responses by id or by name and order, the payload pruning replaces,
//! thought parts and signatures, the marker, and errors.

use kram_compaction::formats::{read_history, Format};
use kram_compaction::history_functions;
use kram_compaction::plan::{materialize_json, Output};
use kram_compaction::prune::{PruneOptions, DEFAULT_PLACEHOLDER};
use kram_compaction::view::MessageView;
use serde_json::{json, Value};

mod common;
use common::{fixture, refs};

fn read(messages: &[Value], forced: Option<Format>) -> Result<(Format, Vec<MessageView>), String> {
    read_history(&refs(messages), forced, "messages", DEFAULT_PLACEHOLDER).map_err(|e| e.message)
}

fn tokens(messages: &[Value]) -> u64 {
    history_functions::estimate_tokens(&refs(messages), None).unwrap()
}

#[test]
fn parts_beside_a_role_are_never_read_as_another_format() {
    let history = vec![
        json!({ "role": "user", "parts": [{ "text": "hi" }] }),
        json!({ "role": "model", "parts": [{ "functionCall": { "name": "f", "args": {} } }] }),
    ];
    // Read as openai-chat this was 8 tokens, the parts not counted and
    // `model` a system-like role.
    let (format, views) = read(&history, None).unwrap();
    assert_eq!(format, Format::Gemini);
    assert!(views[0].starts_user_turn);
    assert_eq!(views[1].opens.len(), 1);
    // A TypeError naming the message and the field: `parts` that the format
    // has not, or the `content` it needs.
    for other in [
        Format::OpenAiChat,
        Format::AiSdk,
        Format::Anthropic,
        Format::OpenAiResponses,
    ] {
        let error = read(&history, Some(other)).unwrap_err();
        assert!(
            error.starts_with("messages[0]")
                && (error.contains("`parts`") || error.contains("messages[0].content must be")),
            "{}: {error}",
            other.name()
        );
    }
    // A content with no role is a user content (the API's default).
    let (format, views) = read(&[json!({ "parts": [{ "text": "hi" }] })], None).unwrap();
    assert_eq!(format, Format::Gemini);
    assert!(views[0].starts_user_turn);
}

#[test]
fn a_forced_gemini_refuses_the_other_formats_by_field() {
    let error = read(
        &[json!({ "role": "user", "content": "hi" })],
        Some(Format::Gemini),
    )
    .unwrap_err();
    assert_eq!(
        error,
        "messages[0].parts must be an array of parts, got undefined"
    );
    let error = read(
        &[json!({ "role": "assistant", "parts": [] })],
        Some(Format::Gemini),
    )
    .unwrap_err();
    assert_eq!(
        error,
        "messages[0].role must be \"user\" or \"model\", got \"assistant\" (the system prompt is the request's `systemInstruction`)"
    );
    let mixed = vec![
        json!({ "role": "user", "parts": [{ "text": "hi" }] }),
        json!({ "role": "assistant", "content": "hello" }),
    ];
    let error = read(&mixed, None).unwrap_err();
    assert!(error.starts_with("messages[1] does not match"), "{error}");
    assert!(
        error.contains("its field `content` does not fit gemini"),
        "{error}"
    );
}

#[test]
fn bad_parts_are_type_errors_naming_the_field() {
    let cases = [
        (
            json!({ "role": "user", "parts": [7] }),
            "messages[0].parts[0] must be a part object, got number",
        ),
        (
            json!({ "role": "user", "parts": [{ "text": 3 }] }),
            "messages[0].parts[0].text must be a string, got number",
        ),
        (
            json!({ "role": "model", "parts": [{ "functionCall": "f" }] }),
            "messages[0].parts[0].functionCall must be an object, got string",
        ),
        (
            json!({ "role": "model", "parts": [{ "functionCall": { "name": 1 } }] }),
            "messages[0].parts[0].functionCall.name must be a string, got number",
        ),
        (
            json!({ "role": "user", "parts": [{ "functionResponse": { "name": "f", "response": "ok" } }] }),
            "messages[0].parts[0].functionResponse.response must be an object, got string",
        ),
        (
            json!({ "role": "model", "parts": [{ "text": "a", "thoughtSignature": 5 }] }),
            "messages[0].parts[0].thoughtSignature must be a string, got number",
        ),
    ];
    for (message, expected) in cases {
        assert_eq!(
            read(&[message], Some(Format::Gemini)).unwrap_err(),
            expected
        );
    }
}

#[test]
fn responses_pair_by_name_and_order_in_the_next_content_whatever_their_ids() {
    // As the API pairs them: a function response turn only right after the
    // function call turn, one response part for each call part.
    let history = vec![
        json!({ "role": "user", "parts": [{ "text": "read both" }] }),
        json!({ "role": "model", "parts": [
            { "functionCall": { "name": "read", "args": { "path": "a" } } },
            { "functionCall": { "name": "read", "args": { "path": "b" } } },
            { "functionCall": { "id": "x1", "name": "grep", "args": {} } }
        ] }),
        json!({ "role": "user", "parts": [
            { "functionResponse": { "id": "x1", "name": "grep", "response": { "output": "none" } } },
            // gemini-cli's own id, where the model's call has none.
            { "functionResponse": { "id": "read-1765768414651-1fc7d", "name": "read", "response": { "output": "A" } } },
            { "functionResponse": { "name": "read", "response": { "output": "B" } } }
        ] }),
    ];
    let (_, views) = read(&history, None).unwrap();
    let mut opens = views[1].opens.clone();
    let mut answers = views[2].answers.clone();
    opens.sort();
    answers.sort();
    assert_eq!(opens, answers);
    // The second `read` response answers the second `read` call.
    assert!(views[2].answers.contains(&views[1].opens[1]));
    assert!(!views[2].starts_user_turn);
    // A response two contents later pairs with nothing, id or not: an
    // orphan, kept where it is.
    let late = vec![
        history[0].clone(),
        history[1].clone(),
        json!({ "role": "model", "parts": [{ "text": "wait" }] }),
        history[2].clone(),
    ];
    let (_, views) = read(&late, None).unwrap();
    assert!(!views[3].answers.iter().any(|a| views[1].opens.contains(a)));
}

#[test]
fn a_cut_never_separates_a_call_from_its_response() {
    let input = fixture(Format::Gemini);
    let total = tokens(&input);
    for budget in 1..=total {
        let plan = history_functions::emergency_prune(&refs(&input), budget as f64, None).unwrap();
        let kept: Vec<usize> = plan.iter().map(Output::index).collect();
        for (index, message) in input.iter().enumerate() {
            let answers = message["parts"]
                .as_array()
                .unwrap()
                .iter()
                .any(|p| p.get("functionResponse").is_some());
            if answers && kept.contains(&index) {
                assert!(
                    kept.contains(&(index - 1)),
                    "response {index} kept without its call at {budget}"
                );
            }
            if answers && kept.contains(&(index - 1)) {
                assert!(
                    kept.contains(&index),
                    "call {} kept without its response at {budget}",
                    index - 1
                );
            }
        }
    }
}

#[test]
fn pruning_replaces_the_response_with_an_output_or_error_object() {
    let input = fixture(Format::Gemini);
    let options = PruneOptions {
        protect_turns: 1,
        protect_tokens: 0.0,
        minimum_savings: 1.0,
        ..PruneOptions::default()
    };
    let plan = history_functions::prune_for_model(&refs(&input), &options, None).unwrap();
    let output = materialize_json(&input, &plan, DEFAULT_PLACEHOLDER);
    assert_eq!(
        output[2]["parts"][0]["functionResponse"]["response"],
        json!({ "output": DEFAULT_PLACEHOLDER })
    );
    assert_eq!(
        output[4]["parts"][0]["functionResponse"]["response"],
        json!({ "error": DEFAULT_PLACEHOLDER })
    );
    // Everything else of the part stays: name, id.
    assert_eq!(
        output[4]["parts"][0]["functionResponse"]["id"],
        "call_dry_run_1"
    );
    assert_eq!(
        output[4]["parts"][0]["functionResponse"]["name"],
        "run_shell"
    );
    // The newest turn is protected.
    assert_eq!(output[8], input[8]);
    // Cleared responses are not counted again, and prune to nothing more.
    let again = history_functions::prune_for_model(&refs(&output), &options, None).unwrap();
    assert!(again.iter().all(|o| matches!(o, Output::Keep(_))));
    assert!(tokens(&output) < tokens(&input));
}

#[test]
fn thought_text_and_signatures_count_and_attachments_cost_the_fixed_amount() {
    let text = |parts: Value| tokens(&[json!({ "role": "model", "parts": parts })]);
    let plain = text(json!([{ "text": "a considered answer" }]));
    assert_eq!(
        text(json!([{ "text": "a considered answer", "thought": true }])),
        plain
    );
    let signed =
        text(json!([{ "text": "a considered answer", "thoughtSignature": "Q".repeat(4_000) }]));
    assert!(signed > plain + 100, "{signed} vs {plain}");
    let image = |data: String| {
        tokens(&[
            json!({ "role": "user", "parts": [{ "inlineData": { "mimeType": "image/png", "data": data } }] }),
        ])
    };
    assert_eq!(image("iVBORw0KGgo=".into()), image("A".repeat(2_000_000)));
    let file = tokens(&[
        json!({ "role": "user", "parts": [{ "fileData": { "mimeType": "application/pdf", "fileUri": "gs://b/f.pdf" } }] }),
    ]);
    assert_eq!(file, image("x".into()));
    assert!(file >= 1_000);
}

#[test]
fn the_marker_is_a_user_content_found_in_a_gemini_history() {
    let marker = Format::Gemini.marker("Summary of the old work.");
    assert_eq!(
        marker,
        json!({ "role": "user", "parts": [{ "text": "<kram:compaction_summary>\nSummary of the old work.\n</kram:compaction_summary>" }] })
    );
    let messages = vec![
        json!({ "role": "user", "parts": [{ "text": "old question" }] }),
        json!({ "role": "model", "parts": [{ "text": "old answer" }] }),
        marker,
        json!({ "role": "user", "parts": [{ "text": "new question" }] }),
    ];
    let (format, views) = read(&messages, None).unwrap();
    assert_eq!(format, Format::Gemini);
    assert!(views[2].is_marker && !views[2].starts_user_turn);
    assert_eq!(
        history_functions::effective_history(&refs(&messages), None).unwrap(),
        vec![Output::Keep(2), Output::Keep(3)]
    );
    // A thought that starts with the tag is no marker.
    let thought = json!({ "role": "user", "parts": [{ "text": "<kram:compaction_summary>\nx", "thought": true }] });
    assert!(!read(&[thought], None).unwrap().1[0].is_marker);
}

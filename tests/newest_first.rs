//! The functions that read a history newest first (`newest_first`) answer
//! as a read of the whole history does: the emergency cut, the effective
//! history's bounds and pruning, over generated long histories with orphan
//! results, reused ids, markers and system messages in the middle, over
//! every format's session repeated, and with their errors.

use kram_compaction::cuts;
use kram_compaction::formats::shared::may_be_marker_by_fields;
use kram_compaction::formats::{
    joined_runs, read_history, read_run, read_structure, shared::tagged, Format, FoundRole,
    MessageReader, Reading, ALL_FORMATS,
};
use kram_compaction::history::COMPACTION_MARKER_NAME;
use kram_compaction::newest_first;
use kram_compaction::node::{Node, BY_TYPE, MESSAGE_ITEM, TEXT_CONTENT};
use kram_compaction::prune::{self, emergency_cut, PruneOptions, DEFAULT_PLACEHOLDER};
use kram_compaction::view::{Edit, Replacement};
use proptest::prelude::*;
use serde_json::{json, Value};

mod common;
use common::{assert_same_in_every_format, fixture, refs};

/// The cut of the whole history's views, as `emergencyPrune` made it before.
fn whole_cut(messages: &[&Value], max_tokens: f64, format: Option<Format>) -> Vec<usize> {
    let (_, views) = read_history(messages, format, "effective", DEFAULT_PLACEHOLDER).unwrap();
    let len = messages.len();
    emergency_cut(&views, max_tokens).kept(len).collect()
}

fn newest_first_cut(messages: &[&Value], max_tokens: f64, format: Option<Format>) -> Vec<usize> {
    let cut = newest_first::emergency_cut(messages, max_tokens, format, "effective").unwrap();
    cut.kept(messages.len()).collect()
}

/// A generated message: its kind, a size, and a tool-call id number (ids
/// repeat, as in real transcripts, and some results answer no call).
fn message() -> impl Strategy<Value = (u8, usize, u8)> {
    (0u8..10, 1usize..300, 0u8..24)
}

fn build(parts: &[(u8, usize, u8)]) -> Vec<Value> {
    let mut messages = vec![json!({ "role": "system", "content": "Be careful." })];
    for &(kind, size, id) in parts {
        let id = format!("call_{id}");
        messages.push(match kind {
            0 => json!({ "role": "system", "content": "Mind the tests." }),
            1..=3 => json!({ "role": "user", "content": "please ".repeat(size) }),
            4 | 5 => json!({ "role": "assistant", "content": "ok ".repeat(size) }),
            6 | 7 => json!({ "role": "assistant", "content": null, "tool_calls": [
                { "id": id, "type": "function", "function": { "name": "read", "arguments": "{}" } }] }),
            8 | 9 => json!({ "role": "tool", "tool_call_id": id, "content": "output\n".repeat(size) }),
            10 => json!({ "role": "system", "name": COMPACTION_MARKER_NAME, "content": "So far." }),
            _ => json!({ "role": "tool", "tool_call_id": id, "content": DEFAULT_PLACEHOLDER }),
        });
    }
    messages
}

/// A marker of `format` whose array `key` holds `parts` after its summary.
fn marker_holding(format: Format, key: &str, parts: Vec<Value>) -> Value {
    let mut marker = format.marker("So far.");
    if let Some(Value::Array(held)) = marker.get_mut(key) {
        held.extend(parts);
    }
    marker
}

/// A generated AI SDK message: a user's words, an assistant's text or tool
/// calls, or a tool message of one to four results whose outputs are of
/// every type (some already cleared, some kept as they are), now and then
/// with a part that is no result; and results in the parts of an assistant
/// message (a provider's own tool), of a user message, and of a marker.
fn ai_sdk_message() -> impl Strategy<Value = (u8, usize, Vec<u8>)> {
    (0u8..8, 1usize..300, prop::collection::vec(0u8..10, 1..5))
}

fn build_ai_sdk(messages: &[(u8, usize, Vec<u8>)]) -> Vec<Value> {
    let mut history = vec![json!({ "role": "system", "content": "Be careful." })];
    for (number, (kind, size, outputs)) in messages.iter().enumerate() {
        let id = |part: usize| format!("call_{number}_{part}");
        let message = match kind {
            0 => {
                json!({ "role": "user", "content": [{ "type": "text", "text": "please ".repeat(*size) }] })
            }
            1 => json!({ "role": "assistant", "content": "ok ".repeat(*size) }),
            _ => {
                let calls: Vec<Value> = (0..outputs.len())
                    .map(|part| json!({ "type": "tool-call", "toolCallId": id(part), "toolName": "read", "input": {} }))
                    .collect();
                history.push(json!({ "role": "assistant", "content": calls }));
                let text = "output\n".repeat(*size);
                let results: Vec<Value> = outputs
                    .iter()
                    .enumerate()
                    .map(|(part, output)| {
                        let output = match output {
                            0 | 1 => json!({ "type": "text", "value": text }),
                            2 => json!({ "type": "error-text", "value": text }),
                            3 => json!({ "type": "json", "value": { "lines": [text] } }),
                            4 => json!({ "type": "error-json", "value": { "error": text } }),
                            5 => json!({ "type": "content", "value": [{ "type": "text", "text": text }] }),
                            6 => json!({ "type": "execution-denied", "reason": "no" }),
                            7 => json!({ "type": "text", "value": DEFAULT_PLACEHOLDER }),
                            8 => json!({ "type": "error-text", "value": DEFAULT_PLACEHOLDER }),
                            _ => return json!({ "type": "tool-approval-response", "approvalId": "a", "approved": true }),
                        };
                        json!({ "type": "tool-result", "toolCallId": id(part), "toolName": "read", "output": output })
                    })
                    .collect();
                let role = match kind {
                    2 | 3 => "tool",
                    4 => "assistant",
                    _ => "user",
                };
                match kind {
                    7 => marker_holding(Format::AiSdk, "content", results),
                    _ => json!({ "role": role, "content": results }),
                }
            }
        };
        history.push(message);
    }
    history
}

/// A generated Gemini content: a user's words, a model's text or function
/// calls, or a content of one to four function responses whose `response`
/// is of every shape the rule tells apart (an output, an error, both, an
/// output beside other fields, one already cleared either way, none, one
/// that is no object), now and then with a part that is no response; and
/// responses in a model content, and in a marker.
fn gemini_message() -> impl Strategy<Value = (u8, usize, Vec<u8>)> {
    (0u8..7, 1usize..300, prop::collection::vec(0u8..10, 1..5))
}

fn build_gemini(messages: &[(u8, usize, Vec<u8>)]) -> Vec<Value> {
    let mut history = Vec::new();
    for (kind, size, responses) in messages {
        let message = match kind {
            0 => json!({ "role": "user", "parts": [{ "text": "please ".repeat(*size) }] }),
            1 => json!({ "role": "model", "parts": [{ "text": "ok ".repeat(*size) }] }),
            _ => {
                let calls: Vec<Value> = (0..responses.len())
                    .map(|_| json!({ "functionCall": { "name": "read", "args": {} } }))
                    .collect();
                history.push(json!({ "role": "model", "parts": calls }));
                let text = "output\n".repeat(*size);
                let parts: Vec<Value> = responses
                    .iter()
                    .map(|shape| {
                        let response = match shape {
                            0 | 1 => json!({ "output": text }),
                            2 => json!({ "error": text }),
                            3 => json!({ "output": text, "error": "exit 1" }),
                            4 => json!({ "output": text, "exitCode": 0 }),
                            5 => json!({ "output": DEFAULT_PLACEHOLDER }),
                            6 => json!({ "error": DEFAULT_PLACEHOLDER }),
                            7 => return json!({ "functionResponse": { "name": "read" } }),
                            8 => json!({ "lines": [text] }),
                            _ => return json!({ "text": "and then" }),
                        };
                        json!({ "functionResponse": { "name": "read", "response": response } })
                    })
                    .collect();
                match kind {
                    4 => json!({ "role": "model", "parts": parts }),
                    6 => marker_holding(Format::Gemini, "parts", parts),
                    _ => json!({ "role": "user", "parts": parts }),
                }
            }
        };
        history.push(message);
    }
    history
}

/// A generated AI SDK UI message: a user's words, an assistant's text, or
/// an assistant message of one to four tool parts in every state the rule
/// tells apart (an output of text or JSON, an error, either already
/// cleared, no output yet, a call still streaming or denied), now and then
/// with a text part or a `dynamic-tool` part among them; and tool parts in
/// a user message, which hold no results, and in a marker.
fn ai_sdk_ui_message() -> impl Strategy<Value = (u8, usize, Vec<u8>)> {
    (0u8..7, 1usize..300, prop::collection::vec(0u8..12, 1..5))
}

fn build_ai_sdk_ui(messages: &[(u8, usize, Vec<u8>)]) -> Vec<Value> {
    let mut history = Vec::new();
    for (number, (kind, size, states)) in messages.iter().enumerate() {
        let message = match kind {
            0 => {
                json!({ "role": "user", "parts": [{ "type": "text", "text": "please ".repeat(*size) }] })
            }
            1 => {
                json!({ "role": "assistant", "parts": [{ "type": "text", "text": "ok ".repeat(*size) }] })
            }
            _ => {
                let text = "output\n".repeat(*size);
                let parts: Vec<Value> = states
                    .iter()
                    .enumerate()
                    .map(|(at, shape)| {
                        let call = json!({ "type": "tool-read", "toolCallId": format!("call_{number}_{at}"), "input": { "path": "a.rs" } });
                        let with = |fields: Value| {
                            let mut part = call.clone();
                            part.as_object_mut().unwrap().extend(fields.as_object().unwrap().clone());
                            part
                        };
                        match shape {
                            0 | 1 => with(json!({ "state": "output-available", "output": text })),
                            2 => with(json!({ "state": "output-available", "output": { "lines": [text] } })),
                            3 => with(json!({ "state": "output-error", "errorText": text })),
                            4 => with(json!({ "state": "output-available", "output": DEFAULT_PLACEHOLDER })),
                            5 => with(json!({ "state": "output-error", "errorText": DEFAULT_PLACEHOLDER })),
                            6 => with(json!({ "state": "output-available" })),
                            7 => with(json!({ "state": "input-streaming" })),
                            8 => with(json!({ "state": "output-denied" })),
                            9 => with(json!({ "type": "dynamic-tool", "toolName": "read", "state": "output-available", "output": text })),
                            10 => with(json!({ "state": "input-available", "errorText": text })),
                            _ => json!({ "type": "text", "text": "and then" }),
                        }
                    })
                    .collect();
                match kind {
                    5 => json!({ "role": "user", "parts": parts }),
                    6 => marker_holding(Format::AiSdkUi, "parts", parts),
                    _ => json!({ "role": "assistant", "parts": parts }),
                }
            }
        };
        history.push(message);
    }
    history
}

/// A format's session, twelve times over: a long history of that format.
fn repeated(format: Format) -> Vec<Value> {
    let session = fixture(format);
    session
        .iter()
        .cycle()
        .take(session.len() * 12)
        .cloned()
        .collect()
}

/// Budgets of `steps` fortieths of the history's estimate.
fn fortieths(messages: &[&Value], steps: std::ops::RangeInclusive<u64>) -> Vec<f64> {
    let total = kram_compaction::history_functions::estimate_tokens(messages, None).unwrap();
    steps.map(|step| (total * step / 40) as f64).collect()
}

/// The effective history's bounds of the whole history's views.
fn whole_bounds(messages: &[&Value], format: Option<Format>) -> (usize, usize) {
    cuts::effective_bounds(&read_structure(messages, format, "all").unwrap())
}

/// Pruning's edits of the whole history's views.
fn whole_edits(messages: &[&Value], options: &PruneOptions, format: Option<Format>) -> Vec<Edit> {
    let placeholder = &options.placeholder;
    let (_, views) = read_history(messages, format, "effective", placeholder).unwrap();
    prune::prune_plan(&views, options)
}

fn newest_first_edits(
    messages: &[&Value],
    options: &PruneOptions,
    format: Option<Format>,
) -> Vec<Edit> {
    newest_first::prune_plan(messages, options, format, "effective").unwrap()
}

/// Pruning options small enough for generated histories to be decided.
fn small_options(turns: usize, protect: u32, minimum: u32) -> PruneOptions {
    PruneOptions {
        protect_turns: turns,
        protect_tokens: protect as f64,
        minimum_savings: minimum as f64,
        ..PruneOptions::default()
    }
}

/// The options the generated-history pruning properties try: protected
/// turns, protected tokens and the minimum saving.
fn pruning_options() -> impl Strategy<Value = (usize, u32, u32)> {
    (0usize..4, 0u32..8_000, 0u32..8_000)
}

/// Pruning `messages` newest first (read as `format` when `forced`, else
/// as detected) with these small options makes the edits a whole read
/// makes.
fn pruned_as_a_whole_read(
    messages: &[Value],
    format: Format,
    forced: bool,
    (turns, protect, minimum): (usize, u32, u32),
) -> Result<(), TestCaseError> {
    let messages = refs(messages);
    let format = forced.then_some(format);
    let options = small_options(turns, protect, minimum);
    prop_assert_eq!(
        newest_first_edits(&messages, &options, format),
        whole_edits(&messages, &options, format)
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn a_generated_history_has_the_bounds_of_a_whole_read(
        parts in prop::collection::vec((0u8..12, 1usize..20, 0u8..24), 0..400),
        forced in any::<bool>(),
    ) {
        let messages = build(&parts);
        let messages = refs(&messages);
        let format = forced.then_some(Format::OpenAiChat);
        prop_assert_eq!(
            newest_first::effective_bounds(&messages[..], format, "all").unwrap(),
            whole_bounds(&messages, format)
        );
    }

    #[test]
    fn a_generated_history_is_pruned_as_a_whole_read_prunes_it(
        parts in prop::collection::vec((0u8..12, 1usize..300, 0u8..24), 0..400),
        options in pruning_options(),
        forced in any::<bool>(),
    ) {
        pruned_as_a_whole_read(&build(&parts), Format::OpenAiChat, forced, options)?;
    }

    #[test]
    fn a_generated_ai_sdk_history_is_pruned_as_a_whole_read_prunes_it(
        generated in prop::collection::vec(ai_sdk_message(), 0..300),
        options in pruning_options(),
        forced in any::<bool>(),
    ) {
        pruned_as_a_whole_read(&build_ai_sdk(&generated), Format::AiSdk, forced, options)?;
    }

    #[test]
    fn a_generated_gemini_history_is_pruned_as_a_whole_read_prunes_it(
        generated in prop::collection::vec(gemini_message(), 0..300),
        options in pruning_options(),
        forced in any::<bool>(),
    ) {
        pruned_as_a_whole_read(&build_gemini(&generated), Format::Gemini, forced, options)?;
    }

    #[test]
    fn a_generated_ai_sdk_ui_history_is_pruned_as_a_whole_read_prunes_it(
        generated in prop::collection::vec(ai_sdk_ui_message(), 0..300),
        options in pruning_options(),
        forced in any::<bool>(),
    ) {
        pruned_as_a_whole_read(&build_ai_sdk_ui(&generated), Format::AiSdkUi, forced, options)?;
    }

    #[test]
    fn a_generated_history_is_cut_as_a_whole_read_cuts_it(
        parts in prop::collection::vec(message(), 0..400),
        budget in 1u32..40_000,
        forced in any::<bool>(),
    ) {
        let messages = build(&parts);
        let messages = refs(&messages);
        let format = forced.then_some(Format::OpenAiChat);
        prop_assert_eq!(
            newest_first_cut(&messages, budget as f64, format),
            whole_cut(&messages, budget as f64, format)
        );
    }
}

#[test]
fn every_format_s_session_repeated_is_cut_as_a_whole_read_cuts_it() {
    for format in ALL_FORMATS.iter().copied() {
        let long = repeated(format);
        let messages = refs(&long);
        for forced in [None, Some(format)] {
            for budget in fortieths(&messages, 1..=40) {
                assert_eq!(
                    newest_first_cut(&messages, budget, forced),
                    whole_cut(&messages, budget, forced),
                    "{} at {budget}",
                    format.name()
                );
            }
        }
    }
}

/// A history shorter than `SHORTEST_READ_NEWEST_FIRST` is read whole by
/// every newest-first read: here the newest 32 messages alone decide the
/// cut, and the two older ones, in another format, make the whole read
/// refuse the history (found by the fuzz target). The leading probe reads
/// them with messages that fit both formats, and finds no fault.
#[test]
fn a_short_history_that_mixes_formats_is_refused_by_the_emergency_cut() {
    let anthropic_only = json!({ "role": "user", "content": [
        { "type": "image", "source": { "type": "base64", "media_type": "image/png", "data": "AAAA" } }
    ] });
    let chat_only = json!({ "role": "system", "name": COMPACTION_MARKER_NAME, "content": "" });
    let both = json!({ "role": "user", "content": "Go on." });
    let mut messages = vec![anthropic_only.clone(), anthropic_only];
    messages.extend(std::iter::repeat_n(both, 9));
    messages.extend(std::iter::repeat_n(chat_only, 23));
    let refs: Vec<&Value> = messages.iter().collect();
    let whole = read_history(&refs, None, "messages", DEFAULT_PLACEHOLDER).unwrap_err();
    assert!(
        whole.message.contains("must not mix formats"),
        "{}",
        whole.message
    );
    let cut = kram_compaction::history_functions::emergency_prune(&refs, 60.0, None).unwrap_err();
    assert_eq!(
        cut.message,
        whole.message.replace("messages[", "effective[")
    );
}

/// The premise of every read newest first: a message that fits several
/// formats reads the same in each, on every format's session, on generated
/// histories, and on messages with a `name` (OpenAI Chat counts it; the
/// fuzzer found a named system message read as 10 tokens there and 4 in
/// the AI SDK's and OpenAI Responses' formats, which took it too).
#[test]
fn a_message_that_fits_several_formats_reads_the_same_in_each() {
    for format in ALL_FORMATS.iter().copied() {
        assert_same_in_every_format(&refs(&fixture(format)));
    }
    assert_same_in_every_format(&refs(&three_hundred_messages()));
    let named =
        |role: &str| json!({ "role": role, "name": COMPACTION_MARKER_NAME, "content": "So far." });
    let messages = [
        named("system"),
        named("user"),
        named("assistant"),
        named("developer"),
    ];
    assert_same_in_every_format(&refs(&messages));
}

/// Runs read on their own and joined are what one read of them all is:
/// reasoning before the newest user message counts nothing (OpenAI
/// Responses), Ollama's calls pair with results by position across runs.
#[test]
fn runs_read_on_their_own_and_joined_are_one_read_of_them_all() {
    for format in ALL_FORMATS.iter().copied() {
        let long = repeated(format);
        let messages = refs(&long);
        let (_, whole) = read_history(&messages, None, "messages", DEFAULT_PLACEHOLDER).unwrap();
        for runs in [2, 3, 7] {
            let mut views = Vec::new();
            for (number, run) in messages.chunks(messages.len().div_ceil(runs)).enumerate() {
                let first = number * messages.len().div_ceil(runs);
                let read = read_run(run, first, None, DEFAULT_PLACEHOLDER, Reading::Sizes).unwrap();
                views.extend(read.views);
            }
            joined_runs(&mut views, format);
            assert_eq!(views, whole, "{} in {runs} runs", format.name());
        }
    }
}

#[test]
fn every_format_s_session_repeated_has_the_bounds_and_the_pruning_of_a_whole_read() {
    for format in ALL_FORMATS.iter().copied() {
        let mut long = repeated(format);
        let marker = format.marker("So far.");
        for forced in [None, Some(format)] {
            for options in [
                PruneOptions::default(),
                small_options(0, 0, 0),
                small_options(1, 200, 100),
                small_options(2, 1_000, 500),
            ] {
                let messages = refs(&long);
                assert_eq!(
                    newest_first_edits(&messages, &options, forced),
                    whole_edits(&messages, &options, forced),
                    "{} with {options:?}",
                    format.name()
                );
            }
            for at in [long.len() / 3, long.len() - 40] {
                let mut marked = long.clone();
                marked.insert(at, marker.clone());
                let messages = refs(&marked);
                let bounds = newest_first::effective_bounds(&messages[..], forced, "all").unwrap();
                assert_eq!(bounds, whole_bounds(&messages, forced), "{}", format.name());
                assert_eq!(bounds.1, at, "{}: the marker starts it", format.name());
            }
        }
        long.truncate(long.len() / 2);
    }
}

/// A chat history of 300 messages: every kind `build` makes, in turn.
fn three_hundred_messages() -> Vec<Value> {
    let parts: Vec<(u8, usize, u8)> = (0..300)
        .map(|i| ((i % 10) as u8, 40, (i % 24) as u8))
        .collect();
    build(&parts)
}

/// Older messages than the newest marker are read for their role alone;
/// pruning reads every older tool message (in OpenAI Chat, only tool
/// messages hold results), so its errors there are the whole read's, and
/// leaves the other older messages at their role.
#[test]
fn a_bad_message_before_the_marker_is_not_read_and_pruning_reads_every_older_result() {
    let mut messages = three_hundred_messages();
    let marker = messages.len() - 50;
    messages.insert(
        marker,
        json!({ "role": "system", "name": COMPACTION_MARKER_NAME, "content": "So far." }),
    );
    assert_eq!(messages[20]["role"], "tool");
    assert_eq!(messages[16]["role"], "assistant");
    messages[20]["content"] = json!(7);
    let bounds = newest_first::effective_bounds(&refs(&messages)[..], None, "all").unwrap();
    assert_eq!(bounds, (2, marker), "two system messages lead");
    let whole =
        read_history(&refs(&messages)[..], None, "effective", DEFAULT_PLACEHOLDER).unwrap_err();
    let options = small_options(1, 0, 0);
    let pruned = newest_first::prune_plan(&refs(&messages)[..], &options, None, "effective");
    assert_eq!(pruned.unwrap_err(), whole);

    messages[20]["content"] = json!("output");
    let edits =
        newest_first::prune_plan(&refs(&messages)[..], &options, None, "effective").unwrap();
    messages[16]["content"] = json!(7);
    read_history(&refs(&messages)[..], None, "effective", DEFAULT_PLACEHOLDER).unwrap_err();
    let unchecked = newest_first::prune_plan(&refs(&messages)[..], &options, None, "effective");
    assert_eq!(
        unchecked.unwrap(),
        edits,
        "an older assistant message is read for its role"
    );
}

/// Found by the fuzzer: a system message named as OpenAI Chat's marker fits
/// OpenAI Responses too, where it was read as an instruction. The leading
/// messages were read as Chat's markers (no instructions), the newest items
/// then left only Responses in the running, and the effective history lost
/// the 22 instructions a whole read keeps. Every format that takes such a
/// message now reads it as a marker.
#[test]
fn a_system_message_named_as_the_marker_is_one_in_every_format_that_takes_it() {
    let named = json!({ "role": "system", "name": COMPACTION_MARKER_NAME, "content": "" });
    let reader = MessageReader {
        argument: "all",
        index: 0,
        placeholder: DEFAULT_PLACEHOLDER,
        sizes: false,
        cleared: false,
    };
    let mut fitting = 0;
    for format in ALL_FORMATS.iter().copied() {
        if format.misfit(&&named).is_none() {
            if let Ok(view) = format.view(&&named, &reader) {
                assert!(view.is_marker, "{}", format.name());
                fitting += 1;
            }
        }
    }
    assert!(fitting >= 3, "{fitting} formats take it");

    let tagged_item = json!({
        "type": "message",
        "role": "user",
        "content": [{ "type": "input_text", "text": tagged("") }],
    });
    let output = json!({ "type": "function_call_output", "call_id": "call_3", "output": "ok" });
    let mut messages = vec![named; 22];
    messages.extend(vec![output; 4]);
    messages.extend(vec![tagged_item; 38]);
    let messages = refs(&messages);
    assert_eq!(
        newest_first::effective_bounds(&messages[..], None, "all").unwrap(),
        whole_bounds(&messages, None)
    );
}

/// Over a budget as a read of the whole history says: at 40 budgets and
/// at the estimate itself and one token either side, where a message's
/// reasoning counted by mistake (OpenAI Responses) would tip the answer.
#[test]
fn every_format_s_session_repeated_is_over_a_budget_as_a_whole_read_says() {
    for format in ALL_FORMATS.iter().copied() {
        let long = repeated(format);
        let messages = refs(&long);
        let total = kram_compaction::history_functions::estimate_tokens(&messages, None).unwrap();
        let mut budgets = fortieths(&messages, 1..=40);
        budgets.extend([total - 1, total, total + 1].map(|budget| budget as f64));
        for forced in [None, Some(format)] {
            for &budget in &budgets {
                assert_eq!(
                    newest_first::over_budget(&messages[..], budget, forced),
                    Some(total as f64 > budget),
                    "{} at {budget} of {total}",
                    format.name()
                );
            }
        }
    }
}

/// Reasoning after the newest user message counts in full, also when that
/// message and the reasoning are read in one run: a history of OpenAI
/// Responses items whose newest turn carries reasoning, long enough for
/// several runs.
#[test]
fn reasoning_after_the_newest_user_message_counts_when_read_newest_first() {
    let mut long = repeated(Format::OpenAiResponses);
    long.push(json!({ "role": "user", "content": "go on" }));
    long.push(json!({ "type": "reasoning", "id": "rs_9", "summary": [{ "type": "summary_text", "text": "thinking it over ".repeat(40) }] }));
    long.push(json!({ "type": "message", "role": "assistant", "content": [{ "type": "output_text", "text": "done" }] }));
    let messages = refs(&long);
    let total = kram_compaction::history_functions::estimate_tokens(&messages, None).unwrap();
    for budget in [total - 1, total] {
        assert_eq!(
            newest_first::over_budget(&messages[..], budget as f64, None),
            Some(total > budget),
            "at {budget} of {total}"
        );
    }
    for budget in fortieths(&messages, 1..=40) {
        assert_eq!(
            newest_first_cut(&messages, budget, None),
            whole_cut(&messages, budget, None),
            "the cut at {budget}"
        );
    }
}

/// Over a budget, the older messages are not read: a broken one among them
/// is not refused. Under it, every message is read, and a broken one is the
/// whole read's error.
#[test]
fn over_a_budget_the_older_messages_are_left_unread() {
    let mut messages = three_hundred_messages();
    messages[20]["content"] = json!(7);
    let messages = refs(&messages);
    let needs = kram_compaction::history_functions::needs_compaction;
    assert_eq!(needs(&messages, 2_000.0, None), Ok(true));
    let whole = read_history(&messages, None, "effective", DEFAULT_PLACEHOLDER).unwrap_err();
    assert_eq!(needs(&messages, 1e9, None), Err(whole));
}

#[test]
fn a_bad_message_read_is_the_whole_read_s_error_and_one_left_unread_is_not_read() {
    // Each result answers the call two messages before it.
    let id = |i: usize| (if i % 10 >= 8 { i - 2 } else { i } % 24) as u8;
    let parts: Vec<(u8, usize, u8)> = (0..300).map(|i| ((i % 10) as u8, 40, id(i))).collect();
    let mut messages = build(&parts);
    let newest = messages.len() - 2;
    messages[newest]["content"] = json!(7);
    let whole =
        read_history(&refs(&messages)[..], None, "effective", DEFAULT_PLACEHOLDER).unwrap_err();
    let cut =
        newest_first::emergency_cut(&refs(&messages)[..], 2_000.0, None, "effective").unwrap_err();
    assert_eq!(cut, whole);
    assert!(
        cut.message.contains(&format!("effective[{newest}]")),
        "{}",
        cut.message
    );

    let mut messages = build(&parts);
    messages[20]["content"] = json!(7);
    let kept = newest_first_cut(&refs(&messages)[..], 2_000.0, None);
    assert!(
        kept.len() < messages.len() / 2,
        "the old messages are dropped unread"
    );
}

/// The point of reading newest first: a budget of an eighth of a long
/// history is decided by a window, in every format, and none is read whole.
#[test]
fn a_small_budget_is_decided_by_the_newest_messages_in_every_format() {
    for format in ALL_FORMATS.iter().copied() {
        let long = repeated(format);
        let messages = refs(&long);
        for budget in fortieths(&messages, 1..=5) {
            assert!(
                newest_first::windowed_cut(&messages[..], budget, None).is_some(),
                "{} at {budget}",
                format.name()
            );
        }
    }
}

/// The role names of the messages the partial reads are checked on; the
/// last is a role no format takes. Then the types of OpenAI Responses items
/// and live LangChain messages with no role, found by their type, and the
/// classes serialised LangChain messages name (the last one a type of no
/// item; `human` and the roles before are types too).
const NAMES: &[&str] = &[
    "system",
    "developer",
    "user",
    "assistant",
    "tool",
    "model",
    "function",
    "human",
    "function_call",
    "function_call_output",
    "custom_tool_call",
    "custom_tool_call_output",
    "reasoning",
    "ai",
    "HumanMessage",
    "AIMessage",
    "ToolMessage",
    "SystemMessage",
    "ChatMessage",
    "file_search_call",
];
const ROLES: usize = 8;

/// A reader of `all[index]`'s structure.
fn structure_reader(index: usize) -> MessageReader<'static> {
    MessageReader {
        argument: "all",
        index,
        placeholder: DEFAULT_PLACEHOLDER,
        sizes: false,
        cleared: false,
    }
}

/// Every format's session with its marker, and messages that look like a
/// marker, or hold results, in other ways: the messages whose partial reads
/// are checked against their views.
fn partly_read_messages() -> Vec<Value> {
    let text = tagged("So far.");
    let mut messages: Vec<Value> = ALL_FORMATS
        .iter()
        .flat_map(|format| {
            let mut session = fixture(*format);
            let marker = format.marker("So far.");
            // Without its role too: a marker in the formats whose marker may
            // lack one (`Format::marker_may_lack_role`), in no other.
            let mut without_role = marker.clone();
            without_role.as_object_mut().unwrap().remove("role");
            session.extend([marker, without_role]);
            session
        })
        .collect();
    for role in &NAMES[..ROLES - 1] {
        messages.extend([
            json!({ "role": role, "content": text }),
            json!({ "role": role, "content": [{ "type": "text", "text": text }] }),
            json!({ "role": role, "content": [{ "type": "input_text", "text": text }] }),
            json!({ "role": role, "content": [{ "type": "image", "image": "x" }, { "type": "text", "text": text }] }),
            json!({ "role": role, "parts": [{ "type": "text", "text": text }] }),
            json!({ "role": role, "parts": [{ "text": text }] }),
            json!({ "role": role, "name": COMPACTION_MARKER_NAME, "content": "So far." }),
            json!({ "role": role, "content": 7 }),
            json!({ "type": "message", "role": role, "content": text }),
            json!({ "type": "function_call_output", "role": role, "call_id": "c", "output": text }),
            json!({ "role": role, "content": [{ "type": "tool_result", "tool_use_id": "c", "content": text }] }),
        ]);
    }
    messages.extend([
        json!({ "parts": [{ "text": text }] }),
        json!({ "type": "function_call_output", "call_id": "c", "output": text }),
        json!({ "type": "function_call_output", "call_id": "c", "output": [{ "type": "input_text", "text": text }] }),
        json!({ "role": "tool", "tool_call_id": "c", "content": [{ "type": "text", "text": "Done." }] }),
        json!({ "type": "function_call_output", "call_id": "c", "output": 7 }),
        json!({ "type": "function_call_output", "output": text }),
        json!({ "type": "custom_tool_call_output", "call_id": "c", "output": text }),
        json!({ "type": "function_call", "call_id": "c", "name": "run", "arguments": "{}" }),
        json!({ "type": "function_call", "name": "run" }),
        json!({ "type": "custom_tool_call", "call_id": "c", "name": "patch", "input": text }),
        json!({ "type": "reasoning", "summary": [{ "type": "summary_text", "text": text }] }),
        json!({ "type": "reasoning", "summary": 7 }),
        json!({ "type": "file_search_call", "id": "f", "status": "completed" }),
        json!({ "type": "function_call_output", "role": null, "call_id": "c", "output": text }),
        json!({ "role": 7, "content": text }),
        json!("not a message"),
    ]);
    // Live LangChain messages, whose `type` is their role, and objects with
    // such a `type` that are none.
    for message_type in ["human", "ai", "tool", "system", "function", "generic"] {
        let live = json!({ "lc_kwargs": {}, "type": message_type, "content": text, "tool_call_id": "c", "name": "f", "role": "user" });
        let mut without_role = live.clone();
        without_role.as_object_mut().unwrap().remove("role");
        let mut parts = without_role.clone();
        parts["content"] = json!([{ "type": "text", "text": text }]);
        messages.extend([
            live,
            without_role,
            parts,
            json!({ "type": message_type, "content": text }),
        ]);
    }
    // Serialised LangChain messages, found by the class they name last in
    // their `id`, and objects that name one but are none.
    for class in [
        "HumanMessage",
        "AIMessage",
        "ToolMessage",
        "SystemMessage",
        "ChatMessage",
    ] {
        let kwargs = json!({ "content": text, "tool_call_id": "c", "name": "f", "role": "user" });
        let serialised = json!({ "lc": 1, "type": "constructor", "id": ["langchain_core", "messages", class], "kwargs": kwargs });
        let mut parts = serialised.clone();
        parts["kwargs"]["content"] = json!([{ "type": "text", "text": text }]);
        let mut no_lc = serialised.clone();
        no_lc.as_object_mut().unwrap().remove("lc");
        messages.extend([
            serialised,
            parts,
            no_lc,
            json!({ "type": "constructor", "id": [class], "kwargs": 7 }),
            json!({ "type": "constructor", "id": [class, 7] }),
            json!({ "type": "constructor", "id": [] }),
            json!({ "type": "constructor", "id": class }),
        ]);
    }
    messages
}

/// The marker search and pruning's older messages read some messages no
/// further than they need (`Format::reads_as_marker`,
/// `Format::view_if_results`); they must say what the message's view says,
/// and fail only where it fails. And the marker search reads only the
/// messages that may be markers by their fields, in the formats still in
/// the running: every message a format reads as a marker must be one of
/// them by that format's rule, and a message without a role is one only in
/// the formats that say their marker may lack it.
#[test]
fn every_message_reads_as_a_marker_and_holds_the_results_its_view_says() {
    let messages = partly_read_messages();
    let (mut markers, mut results_read, mut no_candidates) = (0, 0, 0);
    let mut roleless_markers = 0;
    for (index, message) in messages.iter().enumerate() {
        let reader = structure_reader(index);
        no_candidates += usize::from(!may_be_marker_by_fields(&message, true));
        for format in ALL_FORMATS {
            let candidate = may_be_marker_by_fields(&message, format.marker_may_lack_role());
            let probe = format.reads_as_marker(&message, &reader);
            let results = format.view_if_results(&message, &reader, None);
            let name = format.name();
            match format.view(&message, &reader) {
                Ok(view) => {
                    assert_eq!(probe, Ok(view.is_marker), "{name} of {message}");
                    assert!(candidate || !view.is_marker, "{name} of {message}");
                    markers += usize::from(view.is_marker);
                    roleless_markers +=
                        usize::from(view.is_marker && message.get("role").is_none());
                    match results {
                        Ok(Some(read)) => assert_eq!(read, view, "{name} of {message}"),
                        Ok(None) => assert!(view.tool_results.is_empty(), "{name}: {message}"),
                        Err(error) => panic!("{name} of {message}: {error:?}"),
                    }
                    results_read += usize::from(!view.tool_results.is_empty());
                }
                Err(_) => {
                    assert!(probe != Ok(true), "{name} of {message}");
                    assert!(!matches!(results, Ok(Some(_))), "{name} of {message}");
                }
            }
        }
    }
    assert!(
        markers > 20,
        "the messages hold markers in several formats: {markers}"
    );
    assert!(results_read > 20, "and tool results: {results_read}");
    assert!(
        roleless_markers >= 2,
        "markers without a role, in Gemini and LangChain: {roleless_markers}"
    );
    assert!(
        no_candidates > messages.len() / 2,
        "most are no candidates: {no_candidates} of {}",
        messages.len()
    );
}

/// The marker search and pruning's older messages find most messages' role
/// names many at a time (`Node::role_names`), and then read no role again.
/// What a message reads as must be the same with its name found beforehand
/// as without.
#[test]
fn a_role_name_found_beforehand_reads_as_the_role_read() {
    let messages = partly_read_messages();
    let (mut named, mut message_items) = (0, 0);
    let (mut settled_as_no_results, mut found_by_type, mut one_field_results) = (0, 0, 0);
    let (mut refused_by_type, mut no_user_turn, mut serialised_fields) = (0, 0, 0);
    let (mut text_contents, mut settled_by_texts) = (0, 0);
    // The formats whose rule reads an array as parts, and those whose
    // reader read such an array so (a broken one is cleared unread).
    let mut formats_with_parts = std::collections::BTreeSet::new();
    let mut formats_reading_parts = std::collections::BTreeSet::new();
    for (index, message) in messages.iter().enumerate() {
        let code = Node::role_names(&[message], NAMES, true)[0];
        let Some(name) = (code & !(MESSAGE_ITEM | BY_TYPE | TEXT_CONTENT))
            .checked_sub(1)
            .map(|at| NAMES[at as usize])
        else {
            continue;
        };
        let by_type = code & BY_TYPE != 0;
        if by_type {
            assert!(message.get("role").is_none(), "{message}");
            // A serialised LangChain message's class, last in its `id`.
            let named_by = match message["type"] == "constructor" {
                true => message["id"].as_array().and_then(|id| id.last()),
                false => message.get("type"),
            };
            assert_eq!(named_by, Some(&json!(name)), "{message}");
            found_by_type += 1;
        } else {
            assert_eq!(message["role"], name, "{message}");
        }
        let message_item = code & MESSAGE_ITEM != 0;
        let item_type = message.get("type");
        assert_eq!(
            message_item,
            !by_type && item_type.is_none_or(|t| t.is_null() || t == "message"),
            "{message}"
        );
        message_items += usize::from(message_item);
        let text_content = code & TEXT_CONTENT != 0;
        assert_eq!(text_content, message["content"].is_string(), "{message}");
        text_contents += usize::from(text_content);
        let found = FoundRole {
            name,
            message_item,
            by_type,
            text_content,
        };
        named += 1;
        let reader = structure_reader(index);
        for format in ALL_FORMATS {
            let label = format!("{} of {message}", format.name());
            let read = format.view_if_results(&message, &reader, None);
            // A message found by its type that LangChain refuses (no live
            // message) is left unread where its type settles it.
            let refused_unread = *format == Format::LangChain && by_type && read.is_err();
            let found_read = format.view_if_results(&message, &reader, Some(found));
            if refused_unread && found_read == Ok(None) {
                refused_by_type += 1;
            } else {
                assert_eq!(found_read, read, "{label}");
            }
            // What the name settles alone (pruning then does not read the
            // message at all) is what the read answers: no results. (An
            // OpenAI Responses item is read whole, and a broken one may
            // fail: left unread, it is not refused; nor a message LangChain
            // refuses, as above; nor one whose text `content` settles it
            // where results would be parts of it.)
            if format.no_results_by_name(found) {
                let settled_by_text = text_content
                    && !format.no_results_by_name(FoundRole {
                        text_content: false,
                        ..found
                    });
                let no_results = match &read {
                    Ok(view) => view.as_ref().is_none_or(|v| v.tool_results.is_empty()),
                    Err(_) => {
                        *format == Format::OpenAiResponses || refused_unread || settled_by_text
                    }
                };
                settled_by_texts += usize::from(settled_by_text);
                assert!(no_results, "{label}: {read:?}");
                settled_as_no_results += 1;
            }
            // A message the name says starts no user turn starts none.
            if format.no_user_turn_by_name(found) {
                if let Ok(view) = format.view(&message, &reader) {
                    assert!(!view.starts_user_turn, "{label}");
                }
                no_user_turn += 1;
            }
            // The one field the name says holds the result, when it is a
            // string, is the one result the read finds; so is an array of
            // parts there where the rule says so, never cleared already
            // (pruning clears it unread once its walk is decided).
            let Some(field) = format.result_field_by_name(found) else {
                continue;
            };
            let value = field.value(&message);
            let is_string = value.as_ref().is_some_and(|v| v.is_string());
            let is_parts =
                format.result_field_takes_parts() && value.as_ref().is_some_and(|v| v.is_array());
            if let (Ok(Some(view)), true) = (
                format.view_if_results(&message, &reader, None),
                is_string || is_parts,
            ) {
                let paths: Vec<_> = view.tool_results.iter().map(|r| r.path).collect();
                assert_eq!(paths, [field.path()], "{label}");
                one_field_results += 1;
                serialised_fields += usize::from(!field.outer.is_empty());
                if is_parts {
                    let result = &view.tool_results[0];
                    assert!(!result.cleared, "{label}");
                    assert_eq!(result.replacement, Replacement::Placeholder, "{label}");
                    formats_reading_parts.insert(format.name());
                }
            }
            if is_parts {
                formats_with_parts.insert(format.name());
            }
        }
    }
    assert!(found_by_type > 8, "{found_by_type}");
    assert!(refused_by_type >= 3, "{refused_by_type}");
    assert!(no_user_turn > 100, "{no_user_turn}");
    assert!(one_field_results > 10, "{one_field_results}");
    assert!(serialised_fields >= 2, "{serialised_fields}");
    assert_eq!(formats_reading_parts, formats_with_parts);
    assert_eq!(formats_with_parts.len(), 3, "{formats_with_parts:?}");
    assert!(named > 100, "most messages have a name: {named}");
    assert!(
        message_items > 50 && message_items < named,
        "{message_items} of {named}"
    );
    assert!(settled_as_no_results > 100, "{settled_as_no_results}");
    assert!(text_contents > 50, "{text_contents}");
    assert!(settled_by_texts > 20, "{settled_by_texts}");
}

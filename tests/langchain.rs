//! LangChain.js messages in the core: serialised (`{ lc: 1, type:
//! "constructor", id, kwargs }`) and in the shape of a live instance (own
//! fields beside `lc_kwargs`) read the same, and no other format takes either.

use kram_compaction::formats::{detect_format, read_history, Format, ALL_FORMATS};
use kram_compaction::prune::DEFAULT_PLACEHOLDER;
use serde_json::{json, Value};

mod common;
use common::{fixture, refs};

/// A serialised message as the live instance holds it: its `kwargs` as own
/// fields, `type` the message type, `lc_kwargs` the constructor's fields.
fn as_instance(message: &Value) -> Value {
    let mut live = message["kwargs"].clone();
    let kind = match message["id"][2].as_str().unwrap() {
        "HumanMessage" => "human",
        "AIMessage" => "ai",
        "ToolMessage" => "tool",
        "SystemMessage" => "system",
        other => panic!("no type for {other}"),
    };
    live["type"] = json!(kind);
    live["lc_kwargs"] = message["kwargs"].clone();
    live
}

#[test]
fn serialised_messages_are_langchain_and_no_other_format_reads_them() {
    let messages = fixture(Format::LangChain);
    let format = detect_format(&refs(&messages), None, "messages").unwrap();
    assert_eq!(format, Format::LangChain);
    for &other in ALL_FORMATS.iter().filter(|f| **f != Format::LangChain) {
        for message in &messages {
            let why = other
                .misfit(&message)
                .unwrap_or_else(|| panic!("{}", other.name()));
            assert!(why.contains("`lc`"), "{}: {why}", other.name());
        }
        assert!(read_history(
            &refs(&messages),
            Some(other),
            "messages",
            DEFAULT_PLACEHOLDER
        )
        .is_err());
    }
}

#[test]
fn instances_read_as_their_serialised_form() {
    let serialised = fixture(Format::LangChain);
    let live: Vec<Value> = serialised.iter().map(as_instance).collect();
    for &other in ALL_FORMATS.iter().filter(|f| **f != Format::LangChain) {
        assert!(
            live.iter().all(|m| other.misfit(&m).is_some()),
            "{}",
            other.name()
        );
    }
    let (format, live_views) =
        read_history(&refs(&live), None, "messages", DEFAULT_PLACEHOLDER).unwrap();
    assert_eq!(format, Format::LangChain);
    let (_, views) =
        read_history(&refs(&serialised), None, "messages", DEFAULT_PLACEHOLDER).unwrap();
    for (live, serialised) in live_views.iter().zip(&views) {
        assert_eq!(live.tokens, serialised.tokens);
        assert_eq!(live.opens, serialised.opens);
        assert_eq!(live.answers, serialised.answers);
        assert_eq!(live.role, serialised.role);
        assert_eq!(live.tool_results.len(), serialised.tool_results.len());
    }
    // A serialised result's payload is `kwargs.content`, a live one's `content`.
    let paths: Vec<_> = views
        .iter()
        .flat_map(|v| v.tool_results.iter().map(|r| r.path.len()))
        .collect();
    let live_paths: Vec<_> = live_views
        .iter()
        .flat_map(|v| v.tool_results.iter().map(|r| r.path.len()))
        .collect();
    assert_eq!(paths, vec![2, 2, 2]);
    assert_eq!(live_paths, vec![1, 1, 1]);
}

#[test]
fn tool_calls_pair_by_tool_call_id_and_human_messages_start_turns() {
    let messages = fixture(Format::LangChain);
    let (_, views) = read_history(&refs(&messages), None, "messages", DEFAULT_PLACEHOLDER).unwrap();
    assert_eq!(views[2].opens, vec!["call_du", "call_dmesg"]);
    assert_eq!(views[3].answers, vec!["call_du"]);
    let starts: Vec<usize> = (0..views.len())
        .filter(|&i| views[i].starts_user_turn)
        .collect();
    assert_eq!(starts, vec![1, 6]);
}

#[test]
fn a_chat_message_takes_its_role_and_an_unknown_class_is_system_like() {
    let user = json!({ "lc": 1, "type": "constructor", "id": ["langchain_core", "messages", "ChatMessage"], "kwargs": { "content": "hi", "role": "user" } });
    let other = json!({ "lc": 1, "type": "constructor", "id": ["langchain_core", "messages", "RemoveMessage"], "kwargs": { "id": "m1" } });
    let (_, views) = read_history(&[&user, &other], None, "messages", DEFAULT_PLACEHOLDER).unwrap();
    assert!(views[0].starts_user_turn);
    assert!(!views[1].starts_user_turn);
}

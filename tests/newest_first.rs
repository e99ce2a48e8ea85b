//! The emergency cut read newest first (`newest_first`) cuts where the cut
//! of the whole history's views does: over generated long histories with
//! orphan results, reused ids and system messages in the middle, over every
//! format's session repeated, and with its errors.

use kram_compaction::formats::{read_history, Format, ALL_FORMATS};
use kram_compaction::newest_first;
use kram_compaction::prune::{emergency_cut, DEFAULT_PLACEHOLDER};
use proptest::prelude::*;
use serde_json::{json, Value};

mod common;
use common::{fixture, refs};

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
            _ => json!({ "role": "tool", "tool_call_id": id, "content": "output\n".repeat(size) }),
        });
    }
    messages
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
    let total = kram_compaction::api::estimate_tokens(messages, None).unwrap();
    steps.map(|step| (total * step / 40) as f64).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

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

#[test]
fn a_bad_message_read_is_the_whole_read_s_error_and_one_left_unread_is_not_read() {
    // Each result answers the call two messages before it.
    let id = |i: usize| (if i % 10 >= 8 { i - 2 } else { i } % 24) as u8;
    let parts: Vec<(u8, usize, u8)> = (0..300).map(|i| ((i % 10) as u8, 40, id(i))).collect();
    let mut messages = build(&parts);
    let newest = messages.len() - 2;
    messages[newest]["content"] = json!(7);
    let whole = read_history(&refs(&messages), None, "effective", DEFAULT_PLACEHOLDER).unwrap_err();
    let cut =
        newest_first::emergency_cut(&refs(&messages), 2_000.0, None, "effective").unwrap_err();
    assert_eq!(cut, whole);
    assert!(
        cut.message.contains(&format!("effective[{newest}]")),
        "{}",
        cut.message
    );

    let mut messages = build(&parts);
    messages[20]["content"] = json!(7);
    let kept = newest_first_cut(&refs(&messages), 2_000.0, None);
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
                newest_first::windowed_cut(&messages, budget, None).is_some(),
                "{} at {budget}",
                format.name()
            );
        }
    }
}

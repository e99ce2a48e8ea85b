//! Reading through a memo gives the views a fresh read gives: over each
//! format's session read as an agent loop reads it (one more message each
//! turn), with the format detected or forced, sizes or structure only.

use kram_compaction::formats::{
    read_history, read_history_remembering, read_structure, read_structure_remembering, ALL_FORMATS,
};
use kram_compaction::memo::{Memo, Recall, FORGET_AFTER_CALLS, NOT_REMEMBERED};
use kram_compaction::prune::DEFAULT_PLACEHOLDER;

mod common;
use common::{fixture, refs};

/// Message `i` of the session is the object numbered `i + 1`; the newest is
/// read afresh, as the bindings do.
fn recall(memo: &mut Memo, len: usize) -> Recall<'_> {
    let mut numbers: Vec<u64> = (1..len as u64).collect();
    numbers.push(NOT_REMEMBERED);
    Recall::new(memo, numbers)
}

#[test]
fn a_growing_history_read_through_a_memo_reads_as_it_does_afresh() {
    for format in ALL_FORMATS.iter().copied() {
        let session = fixture(format);
        let mut memo = Memo::default();
        for len in 1..=session.len() {
            let messages = refs(&session[..len]);
            for forced in [None, Some(format)] {
                let fresh = read_history(&messages, forced, "messages", DEFAULT_PLACEHOLDER);
                let mut read = recall(&mut memo, len);
                let remembered = read_history_remembering(
                    &messages,
                    forced,
                    "messages",
                    DEFAULT_PLACEHOLDER,
                    &mut read,
                )
                .unwrap();
                assert_eq!(fresh.unwrap(), remembered, "{} at {len}", format.name());
                // Handed back, the views are where the next, longer read begins.
                read.keep(remembered.1);
                let fresh = read_structure(&messages, forced, "messages").unwrap();
                let mut read = recall(&mut memo, len);
                let remembered =
                    read_structure_remembering(&messages, forced, "messages", &mut read).unwrap();
                assert_eq!(fresh, remembered, "{} structure at {len}", format.name());
                read.keep(remembered);
            }
        }
        assert_eq!(
            memo.len(),
            session.len() - 1,
            "{}: the newest is not remembered",
            format.name()
        );
    }
}

#[test]
fn a_placeholder_of_its_own_is_read_again() {
    let session = fixture(ALL_FORMATS[0]);
    let messages = refs(&session);
    let mut memo = Memo::default();
    for placeholder in [DEFAULT_PLACEHOLDER, "[cleared]", DEFAULT_PLACEHOLDER] {
        let fresh = read_history(&messages, None, "messages", placeholder).unwrap();
        let mut recall = recall(&mut memo, messages.len());
        let remembered =
            read_history_remembering(&messages, None, "messages", placeholder, &mut recall)
                .unwrap();
        assert_eq!(fresh, remembered, "{placeholder}");
    }
}

#[test]
fn a_bad_message_is_an_error_through_the_memo_too() {
    let mut session = fixture(ALL_FORMATS[0]);
    let mut memo = Memo::default();
    let len = session.len();
    read_history_remembering(
        &refs(&session),
        None,
        "messages",
        DEFAULT_PLACEHOLDER,
        &mut recall(&mut memo, len),
    )
    .unwrap();
    session.push(serde_json::json!({ "role": 7 }));
    let error = read_history_remembering(
        &refs(&session),
        None,
        "messages",
        DEFAULT_PLACEHOLDER,
        &mut recall(&mut memo, len + 1),
    )
    .unwrap_err();
    let fresh = read_history(&refs(&session), None, "messages", DEFAULT_PLACEHOLDER).unwrap_err();
    assert_eq!(error.message, fresh.message);
    assert!(
        error.message.starts_with(&format!("messages[{len}]")),
        "{}",
        error.message
    );
}

#[test]
fn messages_unused_for_a_while_are_forgotten() {
    let session = fixture(ALL_FORMATS[0]);
    let mut memo = Memo::default();
    let len = session.len();
    read_structure_remembering(
        &refs(&session),
        None,
        "messages",
        &mut recall(&mut memo, len),
    )
    .unwrap();
    assert_eq!(memo.len(), len - 1);
    // Another history, of other objects, read again and again.
    let other = &session[..2];
    for _ in 0..2 * FORGET_AFTER_CALLS {
        let numbers = vec![1_000, NOT_REMEMBERED];
        read_structure_remembering(
            &refs(other),
            None,
            "messages",
            &mut Recall::new(&mut memo, numbers),
        )
        .unwrap();
    }
    assert_eq!(memo.len(), 1, "only the message still in use is remembered");
}

/// Reads `order` (indices into `session`) through the memo, message `i`
/// being the object numbered `i + 1`, and hands the views back.
fn read_in_order(memo: &mut Memo, session: &[serde_json::Value], order: &[usize]) {
    let values: Vec<&serde_json::Value> = order.iter().map(|&i| &session[i]).collect();
    let mut numbers: Vec<u64> = order.iter().map(|&i| i as u64 + 1).collect();
    if let Some(newest) = numbers.last_mut() {
        *newest = NOT_REMEMBERED;
    }
    let fresh = read_history(&values, None, "messages", DEFAULT_PLACEHOLDER);
    let mut read = Recall::new(memo, numbers);
    let remembered =
        read_history_remembering(&values, None, "messages", DEFAULT_PLACEHOLDER, &mut read);
    assert_eq!(fresh, remembered, "{order:?}");
    if let Ok((_, views)) = remembered {
        read.keep(views);
    }
}

#[test]
fn a_history_cut_reordered_or_changed_in_the_middle_reads_as_it_does_afresh() {
    for format in ALL_FORMATS.iter().copied() {
        let session = fixture(format);
        let len = session.len();
        let mut memo = Memo::default();
        let all: Vec<usize> = (0..len).collect();
        read_in_order(&mut memo, &session, &all);
        // Shorter, then whole again; a message dropped from the middle; the
        // newest turn moved first (a different format may fit it alone).
        read_in_order(&mut memo, &session, &all[..len / 2]);
        read_in_order(&mut memo, &session, &all);
        let without: Vec<usize> = all.iter().copied().filter(|&i| i != len / 2).collect();
        read_in_order(&mut memo, &session, &without);
        let mut rotated = all.clone();
        rotated.rotate_left(len / 2);
        read_in_order(&mut memo, &session, &rotated);
        read_in_order(&mut memo, &session, &all);
    }
}

/// A history as the bindings hand it in for a read that leaves the first
/// `unread` messages unread: `null` stands in for each of them.
fn leaving_unread(session: &[serde_json::Value], unread: usize) -> Vec<serde_json::Value> {
    let mut messages = vec![serde_json::Value::Null; unread];
    messages.extend_from_slice(&session[unread..]);
    messages
}

#[test]
fn a_read_leaving_remembered_messages_unread_answers_as_a_whole_read() {
    for format in ALL_FORMATS.iter().copied() {
        let session = fixture(format);
        let mut memo = Memo::default();
        for len in 1..=session.len() {
            let whole = refs(&session[..len]);
            let fresh = read_history(&whole, None, "messages", DEFAULT_PLACEHOLDER).unwrap();
            let numbers = recall(&mut memo, len).numbers;
            let unread = memo.shared_prefix(&numbers, true, DEFAULT_PLACEHOLDER);
            // What the previous turn read, all but its newest message.
            assert_eq!(unread, len.saturating_sub(2), "{} at {len}", format.name());
            let stand_ins = leaving_unread(&session[..len], unread);
            let messages = refs(&stand_ins);
            let mut read = Recall::new(&mut memo, numbers).leaving_unread(unread);
            let remembered = read_history_remembering(
                &messages,
                None,
                "messages",
                DEFAULT_PLACEHOLDER,
                &mut read,
            )
            .unwrap();
            assert!(!read.missed, "{} at {len}", format.name());
            assert_eq!(fresh, remembered, "{} at {len}", format.name());
            read.keep(remembered.1);
        }
    }
}

#[test]
fn a_read_that_needs_a_message_left_unread_misses_and_reads_nothing_of_it() {
    let format = ALL_FORMATS[0];
    let session = fixture(format);
    let mut memo = Memo::default();
    // Sizes were read before; structure never was, so a structure read of
    // the same history needs every message.
    let mut read = recall(&mut memo, session.len());
    let (_, views) = read_history_remembering(
        &refs(&session),
        None,
        "messages",
        DEFAULT_PLACEHOLDER,
        &mut read,
    )
    .unwrap();
    read.keep(views);
    let numbers = recall(&mut memo, session.len()).numbers;
    let unread = memo.shared_prefix(&numbers, true, DEFAULT_PLACEHOLDER);
    assert_eq!(unread, session.len() - 1);
    assert_eq!(memo.shared_prefix(&numbers, false, DEFAULT_PLACEHOLDER), 0);
    let stand_ins = leaving_unread(&session, unread);
    let mut read = Recall::new(&mut memo, numbers).leaving_unread(unread);
    let answer = read_structure_remembering(&refs(&stand_ins), None, "messages", &mut read);
    assert!(read.missed);
    assert!(answer.is_err(), "a miss never answers from the stand-ins");
    // Read whole, as the bindings then do, it answers as a fresh read.
    let numbers = recall(&mut memo, session.len()).numbers;
    let mut read = Recall::new(&mut memo, numbers);
    let remembered =
        read_structure_remembering(&refs(&session), None, "messages", &mut read).unwrap();
    assert!(!read.missed);
    assert_eq!(
        remembered,
        read_structure(&refs(&session), None, "messages").unwrap()
    );
}

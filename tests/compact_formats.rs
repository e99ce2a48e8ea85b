//! compact's core over every message format (the hand-written sessions in
//! `tests/fixtures/`): the transcript reads each format's tool use, the
//! marker is the format's own and is recognised, and a second compaction
//! updates its summary without nesting frames.

use kram_compaction::formats::{read_history, Format, ALL_FORMATS};
use kram_compaction::history::effective_start;
use kram_compaction::history_functions;
use kram_compaction::prune::DEFAULT_PLACEHOLDER;
use kram_compaction::summary::{Job, SummaryOptions};
use serde_json::{json, Value};

mod common;
use common::{fixture, refs};

/// Runs a job to its marker, answering every request with `summary`.
fn compact(messages: &[Value], format: Format, summary: &str) -> (Vec<String>, Value) {
    let mut job = Job::new(
        &refs(messages),
        "m",
        SummaryOptions::default(),
        Some(format),
    )
    .unwrap();
    let mut users = Vec::new();
    while let Some(request) = job.request() {
        let request = request.to_value();
        assert!(
            history_functions::estimate_tokens(
                &refs(request["messages"].as_array().unwrap()),
                None
            )
            .unwrap()
                <= 60_000
        );
        users.push(
            request["messages"][1]["content"]
                .as_str()
                .unwrap()
                .to_string(),
        );
        job.accept(&&json!(summary)).unwrap();
    }
    (users, job.finish().unwrap().to_value())
}

#[test]
fn every_format_compacts_to_its_own_recognised_marker() {
    for &format in ALL_FORMATS {
        let session = fixture(format);
        let (users, marker) = compact(&session, format, "## Objective\nFirst.");
        let user = &users[0];
        // The leading system messages are instructions, never summarised.
        let (_, views) =
            read_history(&refs(&session), Some(format), "all", DEFAULT_PLACEHOLDER).unwrap();
        let first = kram_compaction::cuts::instructions(&views) + 1;
        assert!(
            user.contains(&format!("<conversation_transcript>\n--- message {first}: ")),
            "{}",
            format.name()
        );
        assert!(
            user.contains("(The assistant used the tool \""),
            "{}: {user}",
            format.name()
        );
        assert!(
            user.contains("(Result of the tool \""),
            "{}: {user}",
            format.name()
        );

        let mut all = session.clone();
        all.push(marker.clone());
        let (_, views) =
            read_history(&refs(&all), Some(format), "all", DEFAULT_PLACEHOLDER).unwrap();
        assert!(
            views.last().unwrap().is_marker,
            "{}: {marker}",
            format.name()
        );
        assert_eq!(effective_start(&views), session.len(), "{}", format.name());
        // Detection agrees with the forced format.
        let (detected, _) = read_history(&refs(&all), None, "all", DEFAULT_PLACEHOLDER).unwrap();
        assert_eq!(detected, format);

        // The next compaction starts from the marker: its summary is the prior.
        let mut next = vec![marker];
        next.extend(fixture(format));
        let (users, second) = compact(&next, format, "## Objective\nSecond.");
        assert!(
            users[0].contains("<previous_summary>\n## Objective\nFirst.\n</previous_summary>"),
            "{}",
            format.name()
        );
        assert!(!users[0].contains("This message is a summary"));
        let text = second.to_string();
        assert_eq!(
            text.matches("<compaction_summary>").count(),
            1,
            "{}",
            format.name()
        );
        assert!(text.contains("Second.") && !text.contains("First."));
    }
}

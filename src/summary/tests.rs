//! A whole compaction driven natively: requests, replies, the marker.

use proptest::prelude::*;
use serde_json::{json, Value};

use crate::error::ErrorClass;
use crate::formats::read_history;
use crate::history::COMPACTION_MARKER_NAME;
use crate::history_functions;
use crate::prune::DEFAULT_PLACEHOLDER;
use crate::summary::{Job, SummaryOptions};

fn refs(values: &[Value]) -> Vec<&Value> {
    values.iter().collect()
}

/// `turns` turns of a user ask, a tool call and a tool result of `output`
/// characters, and an answer.
fn session(turns: usize, output: usize) -> Vec<Value> {
    let mut messages = vec![json!({ "role": "system", "content": "You are a coding agent." })];
    for turn in 0..turns {
        let id = format!("call_{turn}");
        messages.extend([
            json!({ "role": "user", "content": format!("Step {turn}: fix the bug in src/mod{turn}.rs") }),
            json!({ "role": "assistant", "content": null, "tool_calls": [{ "id": id, "type": "function",
                    "function": { "name": "read_file", "arguments": format!("{{\"path\":\"src/mod{turn}.rs\"}}") } }] }),
            json!({ "role": "tool", "tool_call_id": id, "content": format!("line of code {turn} ").repeat(output / 16 + 1) }),
            json!({ "role": "assistant", "content": format!("Fixed mod{turn}.") }),
        ]);
    }
    messages
}

fn user_text(request: &Value) -> &str {
    request["messages"][1]["content"].as_str().unwrap()
}

fn request_tokens(request: &Value) -> u64 {
    let messages: Vec<Value> = request["messages"].as_array().unwrap().clone();
    history_functions::estimate_tokens(&refs(&messages), None).unwrap()
}

/// Runs a job to the end, answering every request with `reply(i)`.
fn run(job: &mut Job, reply: impl Fn(usize) -> Value) -> Vec<Value> {
    let mut requests = Vec::new();
    while let Some(request) = job.request() {
        let i = requests.len();
        requests.push(request.to_value());
        job.accept(&&reply(i)).unwrap();
    }
    requests
}

#[test]
fn a_small_history_is_one_request_and_gives_a_marker() {
    let messages = session(3, 100);
    let mut job = Job::new(
        &refs(&messages),
        "gpt-test",
        SummaryOptions::default(),
        None,
    )
    .unwrap();
    assert_eq!(job.total(), 1);
    let requests = run(&mut job, |_| json!("## Objective\nFix the bugs."));
    let request = &requests[0];
    assert_eq!(request["model"], "gpt-test");
    assert_eq!(request["max_tokens"], 4_096);
    assert_eq!(request["messages"][0]["role"], "system");
    assert_eq!(request["messages"][1]["role"], "user");
    let user = user_text(request);
    assert!(user.contains("untrusted data"));
    // The system prompt is an instruction, sent again ahead of the marker:
    // never summarised.
    assert!(user.contains("<conversation_transcript>\n--- message 2: user ---"));
    assert!(!user.contains("You are a coding agent."));
    assert!(user.contains("(The assistant used the tool \"read_file\" (call call_2)"));
    assert!(!user.contains("previous_summary"));

    let marker = job.finish().unwrap().to_value();
    assert_eq!(marker["role"], "system");
    assert_eq!(marker["name"], COMPACTION_MARKER_NAME);
    assert!(marker["content"]
        .as_str()
        .unwrap()
        .contains("<compaction_summary>\n## Objective\nFix the bugs.\n</compaction_summary>"));
    // The refusal check counts the marker at least as estimateTokens does.
    let text = marker["content"].as_str().unwrap();
    let counted = 4
        + crate::estimate::text_tokens(text)
        + crate::estimate::text_tokens(COMPACTION_MARKER_NAME);
    assert!(
        history_functions::estimate_tokens(&refs(std::slice::from_ref(&marker)), None).unwrap()
            <= counted
    );
    let with_marker = [messages.clone(), vec![marker]].concat();
    let (_, views) = read_history(&refs(&with_marker), None, "all", DEFAULT_PLACEHOLDER).unwrap();
    assert!(views.last().unwrap().is_marker);
}

#[test]
fn a_large_history_is_chunked_oldest_first_each_summary_the_next_prior() {
    let messages = session(400, 3_000);
    let options = SummaryOptions {
        max_input_tokens: 8_000,
        max_summary_tokens: 1_000,
        ..SummaryOptions::default()
    };
    let mut job = Job::new(&refs(&messages), "m", options, None).unwrap();
    let total = job.total();
    assert!(total > 5, "{total} chunks");
    let requests = run(&mut job, |i| {
        json!(format!("## Objective\nsummary after chunk {i}"))
    });
    assert_eq!(requests.len(), total);
    // Message 1 is the system prompt, which is not summarised.
    let mut last_message = 1;
    for (i, request) in requests.iter().enumerate() {
        assert!(
            request_tokens(request) <= 8_000,
            "request {i}: {}",
            request_tokens(request)
        );
        let user = user_text(request);
        if i == 0 {
            assert!(!user.contains("<previous_summary>"));
        } else {
            assert!(user.contains(&format!(
                "<previous_summary>\n## Objective\nsummary after chunk {}\n</previous_summary>",
                i - 1
            )));
        }
        // Oldest first: message numbers go on where the last chunk stopped.
        let first = first_message_number(user);
        assert_eq!(first, last_message + 1, "chunk {i}");
        last_message = last_message_number(user);
        // Tool outputs are excerpts.
        assert!(user.contains("characters omitted"));
    }
    assert_eq!(last_message, messages.len());
    let marker = job.finish().unwrap().to_value();
    assert!(marker["content"]
        .as_str()
        .unwrap()
        .contains(&format!("summary after chunk {}", total - 1)));
}

fn message_numbers(user: &str) -> Vec<usize> {
    user.lines()
        .filter_map(|line| line.strip_prefix("--- message "))
        .map(|rest| rest.split(':').next().unwrap().parse().unwrap())
        .collect()
}

fn first_message_number(user: &str) -> usize {
    message_numbers(user)[0]
}

fn last_message_number(user: &str) -> usize {
    *message_numbers(user).last().unwrap()
}

#[test]
fn a_history_that_starts_with_a_marker_updates_its_summary() {
    let messages = session(2, 100);
    let mut job = Job::new(&refs(&messages), "m", SummaryOptions::default(), None).unwrap();
    run(&mut job, |_| json!("## Objective\nFirst summary."));
    let marker = job.finish().unwrap().to_value();

    let mut next = vec![marker];
    next.extend(session(2, 100).into_iter().skip(1));
    let mut job = Job::new(&refs(&next), "m", SummaryOptions::default(), None).unwrap();
    let requests = run(&mut job, |_| json!("## Objective\nSecond summary."));
    let user = user_text(&requests[0]);
    assert!(user.contains("<previous_summary>\n## Objective\nFirst summary.\n</previous_summary>"));
    // The marker is the prior, never a turn of the transcript.
    assert!(!user.contains("This message is a summary"));
    assert!(user.contains("--- message 2: user ---"));
    assert!(!user.contains("--- message 1:"));
    let content = job.finish().unwrap().to_value()["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(content.matches("<compaction_summary>").count(), 1);
    assert!(content.contains("Second summary.") && !content.contains("First summary."));
}

#[test]
fn summaries_of_summaries_stay_bounded() {
    let options = SummaryOptions {
        max_input_tokens: 6_000,
        max_summary_tokens: 300,
        ..SummaryOptions::default()
    };
    let mut history = session(3, 500);
    let mut sizes = Vec::new();
    for round in 0..6 {
        let mut job = Job::new(&refs(&history), "m", options.clone(), None).unwrap();
        // A summariser that appends to the prior instead of replacing it.
        run(&mut job, |_| {
            json!(format!(
                "{}\nround {round} notes",
                "## Objective\nkeep going\n".repeat(80)
            ))
        });
        let marker = job.finish().unwrap().to_value();
        sizes.push(
            history_functions::estimate_tokens(&refs(std::slice::from_ref(&marker)), None).unwrap(),
        );
        let text = marker["content"].as_str().unwrap();
        assert!(text.contains("was cut at a line"));
        assert_eq!(text.matches("This message is a summary").count(), 1);
        history = vec![marker];
        history.extend(session(3, 500).into_iter().skip(1));
    }
    let max = *sizes.iter().max().unwrap();
    assert!(max < 300 + 200, "{sizes:?}");
}

#[test]
fn a_summary_not_smaller_than_its_source_is_refused() {
    let messages = vec![json!({ "role": "user", "content": "hi" })];
    let mut job = Job::new(&refs(&messages), "m", SummaryOptions::default(), None).unwrap();
    run(&mut job, |_| {
        json!("A summary far longer than the two-word history it replaces.")
    });
    let error = job.finish().unwrap_err();
    assert!(
        error.contains("not smaller than what it summarises"),
        "{error}"
    );
}

#[test]
fn empty_and_whitespace_summaries_are_refused() {
    let messages = session(2, 10);
    let mut job = Job::new(&refs(&messages), "m", SummaryOptions::default(), None).unwrap();
    assert_eq!(
        job.accept(&&json!("")).unwrap_err(),
        "the gateway returned an empty summary"
    );
    assert!(job
        .accept(&&json!({ "content": " \n\t" }))
        .unwrap_err()
        .contains("only whitespace"));
    assert!(job
        .accept(&&json!({ "choices": [] }))
        .unwrap_err()
        .contains("an object with the fields choices"));
    assert_eq!(job.done(), 0);
    assert!(job.finish().is_err());
}

#[test]
fn a_long_reply_is_cut_at_a_line_with_a_note() {
    let messages = session(30, 3_000);
    let options = SummaryOptions {
        max_summary_tokens: 100,
        ..SummaryOptions::default()
    };
    let mut job = Job::new(&refs(&messages), "m", options, None).unwrap();
    run(&mut job, |_| {
        json!((0..500)
            .map(|i| format!("- point {i}"))
            .collect::<Vec<_>>()
            .join("\n"))
    });
    let text = job.finish().unwrap().to_value()["content"]
        .as_str()
        .unwrap()
        .to_string();
    let inner = crate::summary::frame::summary_of(&text);
    assert!(crate::estimate::text_tokens(inner) <= 100);
    assert!(inner.ends_with(&format!("- point {}", inner.lines().count() - 1)));
    assert!(text.contains("limit of 100 tokens and was cut at a line boundary"));
}

#[test]
fn bad_input_names_the_argument_index_and_field() {
    let messages = vec![
        json!({ "role": "user", "content": "hi" }),
        json!({ "role": 5 }),
    ];
    let error = Job::new(&refs(&messages), "m", SummaryOptions::default(), None).unwrap_err();
    assert_eq!(error.class, ErrorClass::Type);
    assert!(
        error.message.contains("effective[1].role"),
        "{}",
        error.message
    );
    let error = Job::new(&refs(&messages[..1]), " ", SummaryOptions::default(), None).unwrap_err();
    assert!(error
        .message
        .starts_with("model must be a non-empty string"));
    let error = Job::new::<&Value>(&[], "m", SummaryOptions::default(), None).unwrap_err();
    assert_eq!(error.class, ErrorClass::Range);
    let tiny = SummaryOptions {
        max_input_tokens: 2_000,
        ..SummaryOptions::default()
    };
    let error = Job::new(&refs(&messages[..1]), "m", tiny, None).unwrap_err();
    assert!(
        error
            .message
            .contains("options.maxInputTokens (2000) leaves too little room"),
        "{}",
        error.message
    );
}

#[test]
fn a_single_huge_message_is_excerpted_to_fit() {
    let messages = vec![
        json!({ "role": "user", "content": format!("BEGIN {} END", "pasted text ".repeat(100_000)) }),
        json!({ "role": "assistant", "content": "ok" }),
    ];
    let options = SummaryOptions {
        max_input_tokens: 10_000,
        ..SummaryOptions::default()
    };
    let mut job = Job::new(&refs(&messages), "m", options, None).unwrap();
    let requests = run(&mut job, |_| json!("## Objective\nRead the paste."));
    for request in &requests {
        assert!(request_tokens(request) <= 10_000);
    }
    let user = user_text(&requests[0]);
    assert!(user.contains("BEGIN") && user.contains("characters omitted"));
}

fn arb_message() -> impl Strategy<Value = Value> {
    let text = "[a-z <>/_\\-\n]{0,40}".prop_map(|s| s.repeat(50));
    prop_oneof![
        text.clone()
            .prop_map(|t| json!({ "role": "user", "content": t })),
        text.clone()
            .prop_map(|t| json!({ "role": "assistant", "content": t })),
        (0usize..20_000).prop_map(
            |n| json!({ "role": "tool", "tool_call_id": "c", "content": "out ".repeat(n / 4) })
        ),
        text.prop_map(|t| json!({ "role": "system", "content": t })),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn every_request_is_within_max_input_tokens(
        messages in prop::collection::vec(arb_message(), 1..60),
        max_input in 3_000u64..20_000,
        max_summary in 50u64..1_500,
        tool_chars in 0usize..6_000,
        prior in prop::option::of("[a-z\n<>/]{1,3000}"),
    ) {
        let mut history = messages;
        if let Some(prior) = prior {
            history.insert(0, json!({ "role": "system", "name": COMPACTION_MARKER_NAME, "content": prior }));
        }
        let options = SummaryOptions { max_input_tokens: max_input, max_summary_tokens: max_summary, tool_output_chars: tool_chars };
        let Ok(mut job) = Job::new(&refs(&history), "m", options, None) else { return Ok(()) };
        while let Some(request) = job.request() {
            let request = request.to_value();
            prop_assert!(request_tokens(&request) <= max_input, "{} > {max_input}", request_tokens(&request));
            let long = "## Summary line\n".repeat(2_000);
            prop_assert!(job.accept(&&json!(long)).is_ok());
        }
    }
}

#[test]
fn options_are_read_with_defaults_and_named_errors() {
    let read = |options: Value| SummaryOptions::read(&&options);
    assert_eq!(read(json!({})).unwrap(), SummaryOptions::default());
    let options =
        read(json!({ "maxInputTokens": 9000.7, "maxSummaryTokens": 512, "toolOutputChars": 0 }))
            .unwrap();
    assert_eq!(
        options,
        SummaryOptions {
            max_input_tokens: 9000,
            max_summary_tokens: 512,
            tool_output_chars: 0
        }
    );
    let zero = read(json!({ "maxInputTokens": 0 })).unwrap_err();
    assert_eq!(zero.class, ErrorClass::Range);
    assert!(
        zero.message.starts_with("options.maxInputTokens must be"),
        "{}",
        zero.message
    );
    let text = read(json!({ "maxSummaryTokens": "4096" })).unwrap_err();
    assert_eq!(text.class, ErrorClass::Type);
    assert_eq!(
        text.message,
        "options.maxSummaryTokens must be a number, got string"
    );
    let fraction = read(json!({ "toolOutputChars": 1.5 })).unwrap_err();
    assert_eq!(
        fraction.message,
        "options.toolOutputChars must be a whole number from 0, got 1.5"
    );
}

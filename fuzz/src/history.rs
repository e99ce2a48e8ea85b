//! The history functions' invariants, checked on one fuzzed history: for the
//! detected format and for every format forced, each function either fails
//! with an error naming the argument and the message index (and all of them
//! fail alike), or returns what its rule says.

use arbitrary::{Result, Unstructured};
use serde_json::Value;

use kram_compaction::describe::describe_messages;
use kram_compaction::error::{ErrorClass, InputError};
use kram_compaction::formats::{read_history, Format, ALL_FORMATS};
use kram_compaction::history_functions;
use kram_compaction::newest_first;
use kram_compaction::plan::{materialize_json, replacement_json, Output};
use kram_compaction::prune::{emergency_cut, protected_from, PruneOptions, DEFAULT_PLACEHOLDER};
use kram_compaction::view::{MessageView, PathStep, Role};

use crate::gen::Gen;

// The integration tests' helper, included rather than copied (the crate does
// not export test helpers).
#[path = "../../tests/common/runs.rs"]
mod runs;
use runs::contiguous_runs;
#[path = "../../tests/common/same_reading.rs"]
mod same_reading;

/// One fuzz case: a history (structured or raw JSON), a budget and prune
/// options, all read from the bytes.
pub fn run(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok(case) = Case::read(&mut u) else { return };
    let refs: Vec<&Value> = case.messages.iter().collect();
    same_reading::assert_same_in_every_format(&refs);
    let detected = check(&case, &refs, None);
    // Forcing the detected format reads the same views: nothing new to check.
    for format in ALL_FORMATS.iter().filter(|f| Some(**f) != detected) {
        check(&case, &refs, Some(*format));
    }
}

/// The case the bytes decode to, as JSON text, for reading a crash.
pub fn describe(data: &[u8]) -> String {
    match Case::read(&mut Unstructured::new(data)) {
        Err(error) => format!("not a case: {error}"),
        Ok(case) => format!(
            "maxTokens {}, {:?}\n{}",
            case.max_tokens,
            case.options,
            serde_json::to_string_pretty(&case.messages).unwrap_or_default()
        ),
    }
}

struct Case {
    messages: Vec<Value>,
    max_tokens: f64,
    options: PruneOptions,
}

impl Case {
    fn read(u: &mut Unstructured) -> Result<Case> {
        let raw = u.ratio(1u8, 8)?;
        let max_tokens = match u.int_in_range(0..=9u8)? {
            0 => u.arbitrary::<f64>()?,
            1 => -1.0,
            2 => 0.0,
            n => 10f64.powi(n as i32 - 3) * (1.0 + u.int_in_range(0..=9u8)? as f64),
        };
        let options = PruneOptions {
            protect_turns: u.int_in_range(0..=4)?,
            protect_tokens: *u.choose(&[0.0, 1.0, 10.0, 50.0, 200.0, 1_000.0, 40_000.0])?,
            minimum_savings: *u.choose(&[0.0, 1.0, 10.0, 100.0, 20_000.0])?,
            placeholder: match u.int_in_range(0..=5u8)? {
                0 => String::new(),
                1 => "[cleared]".to_string(),
                2 => String::from(u.arbitrary::<&str>()?),
                _ => DEFAULT_PLACEHOLDER.to_string(),
            },
            max_tokens: match u.int_in_range(0..=3u8)? {
                0 => Some(*u.choose(&[1.0, 50.0, 500.0, 5_000.0])?),
                _ => None,
            },
        };
        let messages = if raw {
            match serde_json::from_slice::<Value>(u.bytes(u.len())?) {
                Ok(Value::Array(items)) => items,
                Ok(other) => vec![other],
                Err(_) => return Err(arbitrary::Error::IncorrectFormat),
            }
        } else {
            Gen { u }.history()?
        };
        Ok(Case {
            messages,
            max_tokens,
            options,
        })
    }
}

/// An error must name `argument[index]`; the same history gives the same
/// error (after the argument's name) whichever function reads it.
fn check_error(error: &InputError, argument: &str, first: &mut Option<String>) {
    let Some(rest) = error.message.strip_prefix(argument) else {
        panic!("error does not name {argument}: {}", error.message);
    };
    assert!(
        rest.starts_with('['),
        "error names no index: {}",
        error.message
    );
    assert_eq!(
        error.class,
        ErrorClass::Type,
        "a bad message is a TypeError: {}",
        error.message
    );
    match first {
        None => *first = Some(rest.to_string()),
        Some(seen) => assert_eq!(seen, rest, "functions disagree on the error"),
    }
}

fn budget_ok(max: f64) -> bool {
    max.is_finite() && max > 0.0
}

fn check_budget_error<T>(result: &std::result::Result<T, InputError>) {
    match result {
        Err(error) => {
            assert_eq!(error.class, ErrorClass::Range);
            assert!(error.message.starts_with("maxTokens "), "{}", error.message);
        }
        Ok(_) => panic!("a bad budget was accepted"),
    }
}

/// Checks one reading of the case; returns the format it was read as.
fn check(case: &Case, refs: &[&Value], forced: Option<Format>) -> Option<Format> {
    let (messages, max, options) = (&case.messages, case.max_tokens, &case.options);
    let estimate = history_functions::estimate_tokens(refs, forced);
    let effective = history_functions::effective_history(refs, forced);
    let pruned = history_functions::prune_for_model(refs, options, forced);
    let needs = history_functions::needs_compaction(refs, max, forced);
    let emergency = history_functions::emergency_prune(refs, max, forced);
    let described = describe_messages(refs, forced);

    let mut first = None;
    let read = read_history(refs, forced, "messages", DEFAULT_PLACEHOLDER);
    if let Err(error) = &read {
        check_error(error, "messages", &mut first);
        check_error(estimate.as_ref().unwrap_err(), "messages", &mut first);
        // Read newest first, the effective history leaves the messages
        // before its newest marker unread.
        match &effective {
            Err(error) => check_error(error, "all", &mut first),
            Ok(_) => assert!(
                refs.len() >= newest_first::SHORTEST_READ_NEWEST_FIRST,
                "a short history is read whole"
            ),
        }
        // Read newest first, pruning reads an older message only for its
        // results, and may leave a bad one at its role.
        match &pruned {
            Err(error) => check_error(error, "effective", &mut first),
            Ok(_) => assert!(
                refs.len() >= newest_first::SHORTEST_READ_NEWEST_FIRST,
                "a short history is read whole"
            ),
        }
        check_error(described.as_ref().unwrap_err(), "messages", &mut first);
        if budget_ok(max) {
            // Read newest first, the budget check stops once the newest
            // messages are over the budget, and may leave the bad one unread.
            match &needs {
                Err(error) => check_error(error, "effective", &mut first),
                Ok(over) => assert!(
                    *over,
                    "only a history over its budget leaves a message unread"
                ),
            }
            // Read newest first, a long history's cut may leave the bad
            // message unread (see kram_compaction::newest_first).
            match &emergency {
                Err(error) => check_error(error, "effective", &mut first),
                Ok(_) => assert!(
                    refs.len() >= newest_first::SHORTEST_READ_NEWEST_FIRST,
                    "a short history is read whole"
                ),
            }
        } else {
            check_budget_error(&needs);
            check_budget_error(&emergency);
        }
        return None;
    }
    let (format, views) = read.unwrap();
    if let Some(forced) = forced {
        assert_eq!(format, forced);
    }
    let estimate = estimate.expect("estimate fails where reading does not");
    let effective = effective.expect("effective fails where reading does not");
    let pruned = pruned.expect("prune fails where reading does not");

    check_estimate(refs, &views, estimate, format);
    let described = described.expect("describe fails where reading does not");
    assert_eq!(described.format, format.name());
    let tokens: Vec<u64> = described.messages.iter().map(|m| m.tokens).collect();
    assert_eq!(
        tokens,
        views.iter().map(|v| v.tokens).collect::<Vec<_>>(),
        "described estimates"
    );
    check_effective(messages, &views, &effective, format);
    let (_, prune_views) =
        read_history(refs, Some(format), "effective", &options.placeholder).expect("reads");
    check_prune(messages, &prune_views, &pruned, options, format);
    if budget_ok(max) {
        assert_eq!(
            needs.unwrap(),
            estimate as f64 > max,
            "needsCompaction is estimate > max"
        );
        let emergency = emergency.unwrap();
        // Read newest first or whole, the cut is the whole read's.
        let whole: Vec<usize> = emergency_cut(&views, max).kept(messages.len()).collect();
        assert_eq!(all_kept(&emergency), whole, "newest first");
        check_emergency(messages, &views, &emergency, max, format);
    } else {
        check_budget_error(&needs);
        check_budget_error(&emergency);
    }
    Some(format)
}

fn tokens(refs: &[&Value], format: Format) -> u64 {
    history_functions::estimate_tokens(refs, Some(format))
        .expect("a part of a readable history is readable")
}

fn check_estimate(refs: &[&Value], views: &[MessageView], estimate: u64, format: Format) {
    assert_eq!(estimate, views.iter().map(|v| v.tokens).sum::<u64>());
    // Additive, but for reasoning before the newest user message, which the
    // provider does not render (alone, each counts in full).
    let newest_turn = views.iter().rposition(|v| v.starts_user_turn).unwrap_or(0);
    let single = |m: &&Value| tokens(std::slice::from_ref(m), format);
    let singles: u64 = refs.iter().map(single).sum();
    let dropped: u64 = refs[..newest_turn]
        .iter()
        .zip(views)
        .filter(|(_, v)| v.carried_reasoning)
        .map(|(m, _)| single(m))
        .sum();
    assert_eq!(
        estimate,
        singles - dropped,
        "the estimate is the sum of the messages'"
    );
    if dropped == 0 {
        let half = refs.len() / 2;
        assert_eq!(
            estimate,
            tokens(&refs[..half], format) + tokens(&refs[half..], format)
        );
    }
}

fn materialize(messages: &[Value], outputs: &[Output], placeholder: &str) -> Vec<Value> {
    materialize_json(messages, outputs, placeholder)
}

fn all_kept(outputs: &[Output]) -> Vec<usize> {
    outputs
        .iter()
        .map(|output| match output {
            Output::Keep(index) => *index,
            Output::Edited { .. } => panic!("only pruning edits: {output:?}"),
        })
        .collect()
}

fn is_identity(outputs: &[Output], len: usize) -> bool {
    outputs.len() == len
        && outputs
            .iter()
            .enumerate()
            .all(|(i, o)| *o == Output::Keep(i))
}

fn check_effective(messages: &[Value], views: &[MessageView], outputs: &[Output], format: Format) {
    let kept = all_kept(outputs);
    let instructions = views
        .iter()
        .take_while(|v| matches!(v.role, Role::System | Role::Other) && !v.is_marker)
        .count();
    let start = views
        .iter()
        .rposition(|v| v.is_marker)
        .unwrap_or(0)
        .max(instructions);
    assert_eq!(
        kept,
        (0..instructions)
            .chain(start..messages.len())
            .collect::<Vec<_>>(),
        "the instructions, then from the newest marker on"
    );

    let effective = materialize(messages, outputs, DEFAULT_PLACEHOLDER);
    let refs: Vec<&Value> = effective.iter().collect();
    let again =
        history_functions::effective_history(&refs, Some(format)).expect("effective history reads");
    assert!(
        is_identity(&again, effective.len()),
        "effective history is idempotent"
    );
}

fn value_at<'v>(value: &'v Value, path: &[PathStep]) -> Option<&'v Value> {
    path.iter().try_fold(value, |v, step| match step {
        PathStep::Key(key) => v.get(*key),
        PathStep::Index(index) => v.get(*index),
    })
}

fn set_at(value: &mut Value, path: &[PathStep], new: Value) {
    let mut slot = value;
    for step in path {
        slot = match step {
            PathStep::Key(key) => slot.get_mut(*key).expect("path exists"),
            PathStep::Index(index) => slot.get_mut(*index).expect("path exists"),
        };
    }
    *slot = new;
}

/// The structure pruning must not change: roles, turns, markers, tool ids.
fn shape(view: &MessageView) -> (Role, bool, bool, &[String], &[String], usize) {
    let results = view.tool_results.len();
    (
        view.role,
        view.starts_user_turn,
        view.is_marker,
        &view.opens,
        &view.answers,
        results,
    )
}

fn check_prune(
    messages: &[Value],
    views: &[MessageView],
    outputs: &[Output],
    options: &PruneOptions,
    format: Format,
) {
    assert_eq!(outputs.len(), messages.len(), "pruning keeps every message");
    // With a budget, the protected tail may shrink from the protected turns
    // to the newest step.
    let by_turns = protected_from(views, options.protect_turns);
    let assistant = |i: usize| views[i].role == Role::Assistant;
    let newest_step = (0..views.len())
        .rev()
        .find(|&i| assistant(i) && (i == 0 || !assistant(i - 1)))
        .max(views.iter().rposition(|v| v.starts_user_turn))
        .unwrap_or(views.len());
    let reaches_in = outputs[by_turns.min(outputs.len())..]
        .iter()
        .any(|o| matches!(o, Output::Edited { .. }));
    if reaches_in {
        assert!(
            options.max_tokens.is_some(),
            "without a budget the protected turns stay whole"
        );
    }
    let tail = if reaches_in { newest_step } else { by_turns };
    let output = materialize(messages, outputs, &options.placeholder);
    let mut savings = 0;
    let mut edited_paths = 0;
    for (index, out) in outputs.iter().enumerate() {
        assert_eq!(out.index(), index, "in order");
        let Output::Edited { edits, .. } = out else {
            assert_eq!(output[index], messages[index]);
            continue;
        };
        assert!(index < tail, "the protected turns stay whole");
        assert!(!views[index].is_marker, "the marker is never pruned");
        assert!(!edits.is_empty());
        let mut restored = output[index].clone();
        for (n, (path, replacement)) in edits.iter().enumerate() {
            assert!(
                !edits[..n].iter().any(|(p, _)| p == path),
                "one edit per payload"
            );
            let result = views[index]
                .tool_results
                .iter()
                .find(|r| &r.path == path && r.replacement == *replacement)
                .expect("only tool-result payloads are replaced");
            assert!(!result.cleared, "a cleared payload is not cleared again");
            savings += result.tokens;
            edited_paths += 1;
            let placed = value_at(&output[index], path).expect("the payload is there");
            assert_eq!(
                placed,
                &replacement_json(*replacement, &options.placeholder)
            );
            let original = value_at(&messages[index], path)
                .expect("the payload was there")
                .clone();
            set_at(&mut restored, path, original);
        }
        assert_eq!(
            restored, messages[index],
            "nothing but the payloads changes"
        );
    }
    if edited_paths > 0 {
        assert!(
            savings as f64 >= options.minimum_savings,
            "pruning saves at least minimumSavings"
        );
        let whole: u64 = views[..tail]
            .iter()
            .enumerate()
            .filter(|(i, v)| !v.is_marker && !matches!(outputs[*i], Output::Edited { .. }))
            .flat_map(|(_, v)| {
                v.tool_results
                    .iter()
                    .filter(|r| !r.cleared)
                    .map(|r| r.tokens)
            })
            .sum();
        assert!(
            whole as f64 <= options.protect_tokens,
            "only protectTokens of old output stays whole"
        );
    }

    let refs: Vec<&Value> = output.iter().collect();
    let (_, after) = read_history(&refs, Some(format), "effective", &options.placeholder)
        .expect("pruned output reads");
    for (index, (before, now)) in views.iter().zip(&after).enumerate() {
        assert_eq!(shape(before), shape(now), "pruning changes no structure");
        if let Output::Edited { edits, .. } = &outputs[index] {
            for (path, _) in edits {
                let result = now.tool_results.iter().find(|r| &r.path == path).unwrap();
                assert!(result.cleared, "a cleared payload reads as cleared");
            }
        }
    }
    let again = history_functions::prune_for_model(&refs, options, Some(format))
        .expect("pruned output reads");
    assert!(is_identity(&again, output.len()), "pruning is idempotent");
}

/// The (call, result) message pairs of a history: each answer pairs with the
/// newest message before it that opened its id.
fn pairs(views: &[MessageView]) -> Vec<(usize, usize)> {
    let mut found = Vec::new();
    for (index, view) in views.iter().enumerate() {
        for id in &view.answers {
            if let Some(opener) = (0..index).rev().find(|&o| views[o].opens.contains(id)) {
                found.push((opener, index));
            }
        }
    }
    found
}

fn check_emergency(
    messages: &[Value],
    views: &[MessageView],
    outputs: &[Output],
    max: f64,
    format: Format,
) {
    let kept = all_kept(outputs);
    let leading = views
        .iter()
        .take_while(|v| matches!(v.role, Role::System | Role::Other))
        .count();
    let len = messages.len();
    assert!(kept.len() >= leading.min(len));
    assert_eq!(
        kept[..leading],
        (0..leading).collect::<Vec<_>>()[..],
        "leading system messages stay"
    );
    let runs = contiguous_runs(&kept[leading..]);
    assert!(
        runs.len() <= 2,
        "at most the request and a suffix: {kept:?}"
    );
    if let Some(last) = runs.last() {
        assert_eq!(last.end, len, "the newest message is kept");
    }

    let pairs = pairs(views);
    for &(call, result) in &pairs {
        assert_eq!(
            kept.contains(&call),
            kept.contains(&result),
            "the cut split a tool call from its result"
        );
    }
    // Where a cut may fall: a user turn's or a step's start where dropping
    // `leading..i` keeps both or neither of each call and its result.
    let kept_by = |i: usize, x: usize| x < leading || x >= i;
    let closed = |i: usize| pairs.iter().all(|&(c, r)| kept_by(i, c) == kept_by(i, r));
    let can_cut = |i: usize| views[i].starts_user_turn && closed(i);
    let assistant = |i: usize| views[i].role == Role::Assistant;
    let starts_step = |i: usize| assistant(i) && (i == 0 || !assistant(i - 1));
    let newest_cut = (leading..len).rev().find(|&i| can_cut(i));
    let output = materialize(messages, outputs, DEFAULT_PLACEHOLDER);
    let refs: Vec<&Value> = output.iter().collect();
    let fits = tokens(&refs, format) as f64 <= max;
    let sum = |indexes: &mut dyn Iterator<Item = usize>| -> u64 {
        indexes.map(|i| views[i].tokens).sum()
    };
    match runs.as_slice() {
        [] => assert_eq!(leading, len),
        [suffix] if suffix.start == leading => {}
        [suffix] if views[suffix.start].starts_user_turn => {
            let newest_cut = newest_cut.expect("a turn cut is at a turn start");
            assert!(can_cut(suffix.start), "cuts where a turn starts");
            assert!(suffix.start <= newest_cut, "the newest turn is always kept");
            // Over the budget only with the newest turn, which has no step
            // to cut at.
            assert!(
                fits || suffix.start == newest_cut,
                "a turn cut fits the budget"
            );
            if let Some(previous) = (leading..suffix.start)
                .rev()
                .find(|&i| i == leading || can_cut(i))
            {
                let bigger = sum(&mut (0..leading).chain(previous..len));
                assert!(bigger as f64 > max, "the newest turns that fit are kept");
            }
        }
        [suffix] => {
            // No turn to keep a request of: a cut at a step.
            assert!(
                starts_step(suffix.start) && closed(suffix.start),
                "cuts where a step starts"
            );
        }
        [request, steps] => {
            let newest_cut = newest_cut.expect("a request is a turn's");
            assert_eq!(
                request.start, newest_cut,
                "the request is the newest turn's"
            );
            assert!(
                request.clone().all(|i| !assistant(i)),
                "the request holds no step"
            );
            assert!(
                starts_step(steps.start) && closed(steps.start),
                "cuts where a step starts"
            );
            let whole_turn = sum(&mut (0..leading).chain(request.start..len));
            assert!(
                whole_turn as f64 > max,
                "the newest turn is cut only when it does not fit"
            );
            let newest_step = (steps.start..len)
                .rev()
                .find(|&i| starts_step(i) && closed(i));
            assert!(
                fits || Some(steps.start) == newest_step,
                "over the budget only with the newest step alone"
            );
        }
        _ => unreachable!(),
    }
    let again =
        history_functions::emergency_prune(&refs, max, Some(format)).expect("the cut output reads");
    assert!(
        is_identity(&again, output.len()),
        "the emergency cut is idempotent"
    );
}

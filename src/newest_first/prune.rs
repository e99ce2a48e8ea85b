//! Pruning, read newest first: the newest run whole, with its estimates;
//! then each older message alone, until the protected tail is found only
//! for whether it starts a user turn (nothing of it when its role's name
//! says it does not), and past the tail only for its results: with their
//! estimates until the minimum saving is decided (where the role's name
//! says which one field holds a message's result, a chat `tool` message's
//! `content`, only that field), then only for where they are and whether
//! each is cleared already (every older result is cleared).
//!
//! Where the role's name says the results are parts of the content (AI
//! SDK, AI SDK 4, Anthropic and Gemini messages, AI SDK UI assistant
//! messages), every older message is read for its parts alone, by the rule
//! the format's reader reads them by (`ResultParts`), in one call
//! (`Messages::result_parts`) once the tail is passed: a message with no
//! results to clear is read no further, and one with some is estimated
//! until the walk is decided from the payloads that call recorded (a text,
//! read many at a time: `Messages::recorded_text`; or a JSON value:
//! `Messages::recorded_payload`; as the format's reader of a result part
//! estimates it), else each from its part alone
//! (`Format::result_of_part`). Where the name (or an OpenAI
//! Responses item's type) says which one field holds the result, that
//! field of all such messages is read in one call once the walk is decided
//! (`Messages::result_fields`: a text, or an array of parts where every
//! format still in the running clears one whole), and the messages the walk
//! cleared before it was decided are copied in the same call, their field
//! not read again. A message with results to clear that may be a marker is
//! read with its reader. Once the walk is decided, a message either call
//! copied (in JS, with every result it found cleared) takes its copy with
//! no edit of the walk's (`Messages::take_copy`): its results are not even
//! listed.

use crate::error::InputError;
use crate::formats::result_parts::{KNOWN, RECORDED};
use crate::formats::{read_history, Format, MessageReader, Reading};
use crate::formats::{ResultField, ResultParts};
use crate::node::Node;
use crate::prune::{self, NewestFirstPruning, PruneOptions};
use crate::view::{Edit, PathStep, Replacement, ToolResult};

use super::messages::{CLEARED, COPIED, COPIED_PARTS, TO_CLEAR};
use super::{
    agreed, role_codes, ByRole, Found, Messages, Runs, SettledByName, FIRST_WINDOW,
    SHORTEST_READ_NEWEST_FIRST,
};

/// `prune::prune_plan` of `effective`, read newest first when it has no
/// budget (a budget needs the whole history's estimate).
pub fn prune_plan<H: Messages + ?Sized>(
    effective: &H,
    options: &PruneOptions,
    format: Option<Format>,
    argument: &str,
) -> Result<Vec<Edit>, InputError> {
    if let Some(edits) = edits_from_the_end(effective, options, format, argument) {
        return Ok(edits);
    }
    let (_, views) = read_history(effective.all()?, format, argument, &options.placeholder)?;
    Ok(prune::prune_plan(&views, options))
}

/// The edits from runs of older and older messages, then the older
/// messages one by one, or `None` to read the whole history.
fn edits_from_the_end<H: Messages + ?Sized>(
    effective: &H,
    options: &PruneOptions,
    format: Option<Format>,
    argument: &str,
) -> Option<Vec<Edit>> {
    let mut pruning = NewestFirstPruning::new(options)?;
    if effective.len() < SHORTEST_READ_NEWEST_FIRST {
        return None;
    }
    let mut runs = Runs::new();
    let placeholder = &options.placeholder;
    // The newest run, read whole: the formats the history may be in, and
    // its newest turns.
    let end = effective.len() - FIRST_WINDOW;
    let views = runs
        .read(
            effective,
            end..effective.len(),
            format,
            placeholder,
            Reading::Sizes,
        )?
        .views;
    pruning.walk(&views, end);
    // Until the protected tail is found, of each older message only
    // whether it starts a user turn matters: nothing of it when its role's
    // name says it does not (`Format::no_user_turn_by_name`), else its
    // view. A single long task (one request, then a long tool loop) is
    // read so to its request.
    //
    // Past the tail: of each older message, only whether it is a marker
    // and its results matter (`Format::view_if_results`), in every format
    // the newer messages fit; nothing of it when its role's name says it
    // holds no results (`Format::no_results_by_name`). Until the walk is
    // decided, the results are read with their estimates; where the role's
    // name says the one field that holds its result
    // (`Format::result_field_by_name`), only that field. Where the name
    // says the results are parts (`Format::result_parts_by_name`), the
    // rule reads every older message at once from the tail on; where it
    // says a field, once the walk is decided (`KnownResults`).
    let mut formats = runs.formats();
    // Where several formats take the history, a text `content` settles a
    // message in those whose results are parts of it as its role settles it
    // in the others (`Format::no_results_by_name`); one format needs no
    // such look.
    let with_content = formats.len() > 1;
    // The older messages' roles, in one call: a code a message, in history
    // order. What each code settles is worked out once (`ByRole`).
    let codes = role_codes(effective, 0..end, with_content);
    let mut known: Option<KnownResults> = None;
    // Whether the rule has read the older messages, or tried to.
    let mut rule_tried = false;
    let mut by_name = SettledByName::new();
    let mut rules = RulesByRole::new();
    for index in (0..end).rev() {
        // 0, no role found, past the codes, which cannot be.
        let code = codes.get(index).copied().unwrap_or(0);
        let in_tail = !pruning.past_tail();
        let decided = !in_tail && pruning.decided();
        // Past the tail, until the walk is decided, with its results'
        // estimates.
        let reader = MessageReader {
            argument,
            index,
            placeholder,
            sizes: !decided && !in_tail,
            cleared: true,
        };
        // Past the tail, where the parts of a message hold its results
        // (`ResultRule::Parts`), a message the rule finds none to clear in
        // is not read at all; once decided, where any rule says where they
        // are, nor one it finds some in. (Read before the walk is decided,
        // a one-field rule would make copies a walk that never decides
        // does not use.)
        if !in_tail && known.is_none() && (decided || !rule_tried) {
            // Tried again only by a one-field rule, once decided: the
            // messages it cleared by then are copied in the same call.
            // (Not the first time: a rule of parts copies a message
            // whole, where the walk may have kept some of its results.)
            let cleared = match rule_tried {
                true => pruning.edits_so_far(),
                false => &[],
            };
            rule_tried = true;
            // This message and every older one.
            let from_here = codes.get(..=index).unwrap_or_default();
            known = KnownResults::read(
                &formats,
                from_here,
                cleared,
                effective,
                placeholder,
                !decided,
            );
        }
        match known.as_mut().map(|known| known.answer(index, decided)) {
            None | Some(Answer::Read) => {}
            Some(Answer::Nothing) => continue,
            Some(Answer::Copied) => {
                effective.take_copy(index);
                continue;
            }
            Some(Answer::Clear(results, _)) if decided => {
                pruning.walk_older(index, false, results);
                continue;
            }
            // Its results' estimates are needed: each from its recorded
            // payload, or read from its part alone where the format can,
            // else with the whole message below.
            Some(Answer::Clear(results, recorded)) => {
                let estimated = recorded
                    .and_then(|recorded| results_recorded(effective, results, recorded, &reader))
                    .or_else(|| results_by_part(&formats, effective, results, &reader));
                if let Some(results) = estimated {
                    walk_read_results(&mut pruning, effective, index, false, &results);
                    continue;
                }
            }
        }
        let settles = match in_tail {
            true => Format::no_user_turn_by_name,
            false => Format::no_results_by_name,
        };
        if by_name.settled(&formats, code, settles) {
            continue;
        }
        // (In the tail, a message whose one field holds its result is a
        // tool message, settled above.)
        if !decided {
            let result = field_result(&formats, &mut rules, code, effective, index, placeholder);
            if let Some(result) = result {
                pruning.walk_older(index, false, &[result]);
                continue;
            }
        }
        let message = effective.message(index)?;
        let found = Found::from_code(code).map(Found::role);
        let read = agreed(&mut formats, |format| {
            let view = match in_tail {
                true => Some(format.view(&message, &reader)?),
                false => format.view_if_results(&message, &reader, found)?,
            };
            Ok(view.map(|view| (view.starts_user_turn, view.is_marker, view.tool_results)))
        })?;
        let Some((starts_user_turn, is_marker, results)) = read else {
            continue;
        };
        if !in_tail {
            walk_read_results(&mut pruning, effective, index, is_marker, &results);
        } else if starts_user_turn {
            pruning.pass_user_turn();
        }
    }
    Some(pruning.edits())
}

/// The walk past an older message whose results were read before it is
/// decided. The copy the rule made of it clears every result: when the
/// walk clears only some, the copy is let go of.
fn walk_read_results<H: Messages + ?Sized>(
    pruning: &mut NewestFirstPruning,
    effective: &H,
    index: usize,
    is_marker: bool,
    results: &[ToolResult],
) {
    if pruning.walk_older(index, is_marker, results) {
        effective.forget_copy(index);
    }
}

/// The results the rule found in the message `reader` reads (`found`, whose
/// estimates it does not know), each with its estimate, read from its part
/// alone by the format's reader of a result part
/// (`Format::result_of_part`): a few calls into JS a result, where the
/// whole read of a message cost about thirty. `None`
/// when several formats are still in the running, the format reads its
/// results otherwise, or a part does not read as the rule found it: the
/// message is then read whole.
fn results_by_part<H: Messages + ?Sized>(
    formats: &[Format],
    effective: &H,
    found: &[ToolResult],
    reader: &MessageReader,
) -> Option<Vec<ToolResult>> {
    let [format] = formats else {
        return None;
    };
    let message = effective.message(reader.index)?;
    let mut results = Vec::with_capacity(found.len());
    for result in found {
        let [PathStep::Key(_), PathStep::Index(part), ..] = *result.path else {
            return None;
        };
        let read = format.result_of_part(&message, part, reader).ok()??;
        if read.path != result.path || read.replacement != result.replacement || read.cleared {
            return None;
        }
        results.push(read);
    }
    Some(results)
}

/// The results the rule found (`found`, whose estimates it does not know),
/// each with the estimate of the payload the rule recorded for it, as the
/// format's reader of a result part estimates it: as JSON
/// (`Messages::recorded_payload`), or as text (`Messages::recorded_text`,
/// as `MessageReader::payload` estimates one). `None` when a payload cannot
/// be had, or a text is the placeholder after all.
fn results_recorded<H: Messages + ?Sized>(
    effective: &H,
    found: &[ToolResult],
    recorded: Recorded,
    reader: &MessageReader,
) -> Option<Vec<ToolResult>> {
    let mut results = Vec::with_capacity(found.len());
    for (nth, result) in found.iter().enumerate() {
        let [PathStep::Key(_), PathStep::Index(part), ..] = *result.path else {
            return None;
        };
        let at = recorded.first + nth;
        let as_json = recorded.as_json.checked_shr(part as u32).unwrap_or(0) & 1;
        let milli = match as_json {
            1 => reader.json_milli(&effective.recorded_payload(at)?),
            // (Past the tail and before the walk is decided: with sizes.)
            _ => match effective.recorded_text(at, reader.placeholder)? {
                (_, true) => return None,
                (milli, false) => milli,
            },
        };
        results.push(ToolResult::new(
            result.path,
            milli,
            false,
            result.replacement,
        ));
    }
    Some(results)
}

/// The one result of the message at `index`, with its estimate, when its
/// role's name says in every format still in the running that it is the
/// string of one field (`Format::result_field_by_name`), and that field is
/// a string: only that field is read.
fn field_result<H: Messages + ?Sized>(
    formats: &[Format],
    rules: &mut RulesByRole,
    code: u8,
    effective: &H,
    index: usize,
    placeholder: &str,
) -> Option<ToolResult> {
    let Some(ResultRule::Field(field)) = rules.rule(formats, code) else {
        return None;
    };
    let value = effective.result_field_value(index, field)?;
    let (milli, cleared) = value.estimate_text(placeholder)?;
    Some(ToolResult::new(
        field.path(),
        milli,
        cleared,
        Replacement::Placeholder,
    ))
}

/// How the results of the older messages with a role are found without
/// their format's reader, when every format still in the running says the
/// same.
#[derive(Clone, Copy)]
enum ResultRule {
    /// One field holds the one result (`Format::result_field_by_name`).
    Field(ResultField),
    /// Parts of the content hold them (`Format::result_parts_by_name`).
    Parts(&'static ResultParts),
}

impl PartialEq for ResultRule {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (ResultRule::Field(a), ResultRule::Field(b)) => a == b,
            (ResultRule::Parts(a), ResultRule::Parts(b)) => std::ptr::eq(*a, *b),
            _ => false,
        }
    }
}

/// How `KnownResults` answers for the messages it read: by the field, with
/// the one result to clear of each message whose field is to be cleared
/// (the field as its path), or by the parts.
enum ReadBy {
    Field(ToolResult),
    Parts(&'static ResultParts),
}

/// A field `Messages::result_fields` says to clear, whose message it copied.
const COPIED_TO_CLEAR: u8 = TO_CLEAR | COPIED;

/// What `KnownResults` says of an older message.
enum Answer<'a> {
    /// Read it with its format's reader.
    Read,
    /// It has no result to clear.
    Nothing,
    /// These are its results, none cleared yet, and where their payloads
    /// were recorded, if they were.
    Clear(&'a [ToolResult], Option<Recorded>),
    /// Once the walk is decided: its results are all to be cleared, and the
    /// copy the rule's call made of it clears them (`Messages::take_copy`).
    Copied,
}

/// Where the payloads of a message's results were recorded
/// (`Messages::recorded_payload`): the first one's place, and which of its
/// parts are estimated as JSON (by the part's bit).
#[derive(Clone, Copy)]
struct Recorded {
    first: usize,
    as_json: u32,
}

/// The older messages whose role's name says, in every format still in the
/// running, where their results are (`ResultRule`), and what the caller's
/// history answers for each, all read in one go
/// (`Messages::result_fields`, `Messages::result_parts`).
struct KnownResults {
    read_by: Option<ReadBy>,
    /// Their indexes, newest first, as the older messages are walked.
    indexes: Vec<u32>,
    /// What the history answered for each, three numbers in a row: a
    /// `result_fields` state and two zeros, or the parts to clear, which of
    /// them report an error, and whether and how their payloads were
    /// recorded (`Messages::result_parts`).
    answers: Vec<u32>,
    /// How many of them the walk has passed.
    passed: usize,
    /// How many payloads the messages it has passed recorded.
    payloads_passed: usize,
    /// The results of the message last answered by the parts.
    results: Vec<ToolResult>,
}

impl KnownResults {
    /// Finds them among the messages whose role codes are `older` (the
    /// first messages of the history), and reads each one's results by the
    /// rule, all at once; `None` when `parts_only` and the rule is one
    /// field's. The messages of a one-field rule's edits before the walk was
    /// decided (`cleared`, newest first, all newer than `older`) are read in
    /// the same call, for the copies that call makes,
    /// which the module would otherwise make one call a field. (A message
    /// with several edits is read once for each, and its copy, which makes
    /// one edit, is not used: `made_for` in src/bindings/convert.rs.)
    fn read<H: Messages + ?Sized>(
        formats: &[Format],
        older: &[u8],
        cleared: &[Edit],
        effective: &H,
        placeholder: &str,
        parts_only: bool,
    ) -> Option<KnownResults> {
        // The rule of the first role found that names one: the messages
        // read in one go are those whose role names the same.
        let mut rule = None;
        let mut indexes: Vec<u32> = cleared.iter().map(|edit| edit.message as u32).collect();
        // Whether a role found names that rule, worked out once for each
        // role code (comparing rules, field names and paths, for every
        // message was a tenth of pruning a chat session).
        let mut by_rule = ByRole::new();
        for (index, &code) in older.iter().enumerate().rev() {
            let read_by_rule = by_rule.answer(formats, 0, code, || {
                Found::from_code(code).is_some_and(|found| {
                    agreed_rule(formats, found)
                        .is_some_and(|found_rule| *rule.get_or_insert(found_rule) == found_rule)
                })
            });
            if read_by_rule {
                indexes.push(index as u32);
            }
        }
        let mut answers = Vec::new();
        let read_by = match rule {
            Some(ResultRule::Field(_)) if parts_only => return None,
            Some(ResultRule::Field(field)) => {
                // An array there is cleared unread where every format
                // still in the running reads it as parts.
                let parts = formats
                    .iter()
                    .all(|format| format.result_field_takes_parts());
                let known = cleared.len();
                for state in effective.result_fields(&indexes, known, field, parts, placeholder) {
                    answers.extend([u32::from(state), 0, 0]);
                }
                Some(ReadBy::Field(ToolResult::new(
                    field.path(),
                    0,
                    false,
                    Replacement::Placeholder,
                )))
            }
            Some(ResultRule::Parts(parts)) => {
                // Their payloads too, while the walk still needs estimates.
                let roleless = Format::any_marker_may_lack_role(formats);
                answers =
                    effective.result_parts(&indexes, parts, placeholder, parts_only, roleless);
                Some(ReadBy::Parts(parts))
            }
            None => None,
        };
        Some(KnownResults {
            read_by,
            indexes,
            answers,
            passed: cleared.len(),
            payloads_passed: 0,
            results: Vec::new(),
        })
    }

    /// What was read of the older message at `index`. Asked in walking
    /// order. A message with results to clear that may be a marker is
    /// read with its reader (`Messages::result_parts` answers it unknown):
    /// a marker's are kept. Once `decided`, a message whose copy was made
    /// is answered `Copied`, its results not even listed.
    fn answer(&mut self, index: usize, decided: bool) -> Answer<'_> {
        if self.indexes.get(self.passed) != Some(&(index as u32)) {
            return Answer::Read;
        }
        self.passed += 1;
        let at = 3 * (self.passed - 1);
        let Some(&[state, errors, payloads]) = self.answers.get(at..at + 3) else {
            return Answer::Read;
        };
        let recorded = (payloads & RECORDED != 0).then_some(Recorded {
            first: self.payloads_passed,
            as_json: payloads & !RECORDED,
        });
        if recorded.is_some() {
            self.payloads_passed += (state & !KNOWN).count_ones() as usize;
        }
        match &self.read_by {
            Some(ReadBy::Field(result)) => match u8::try_from(state) {
                Ok(COPIED_TO_CLEAR) if decided => Answer::Copied,
                Ok(TO_CLEAR | COPIED_TO_CLEAR) => Answer::Clear(std::slice::from_ref(result), None),
                Ok(CLEARED) => Answer::Nothing,
                _ => Answer::Read,
            },
            Some(ReadBy::Parts(parts)) if state & KNOWN != 0 => {
                if state & !KNOWN == 0 {
                    return Answer::Nothing;
                }
                if decided && errors & COPIED_PARTS != 0 {
                    return Answer::Copied;
                }
                parts.results_into(state, errors & !COPIED_PARTS, &mut self.results);
                Answer::Clear(&self.results, recorded)
            }
            _ => Answer::Read,
        }
    }
}

/// The rule every format in `formats` says finds the results of a message
/// with the role `found`, if they all say the same one.
fn agreed_rule(formats: &[Format], found: Found) -> Option<ResultRule> {
    let mut agreed = None;
    for format in formats {
        let rule = match format.result_field_by_name(found.role()) {
            Some(field) => ResultRule::Field(field),
            None => ResultRule::Parts(format.result_parts_by_name(found.role())?),
        };
        if *agreed.get_or_insert(rule) != rule {
            return None;
        }
    }
    agreed
}

/// `agreed_rule` worked out once for each role found while the formats in
/// the running stay the same: asked of every older tool message until the
/// walk is decided, where working it out each time was a tenth of pruning
/// a chat session.
struct RulesByRole(ByRole<Option<ResultRule>>);

impl RulesByRole {
    fn new() -> RulesByRole {
        RulesByRole(ByRole::new())
    }

    /// The rule of the role of `code`; `None` for no role found (code 0).
    fn rule(&mut self, formats: &[Format], code: u8) -> Option<ResultRule> {
        let work = || Found::from_code(code).and_then(|found| agreed_rule(formats, found));
        self.0.answer(formats, 0, code, work)
    }
}

//! AI SDK `UIMessage`s (v5 and v6), what `useChat` keeps in a chat UI: `{
//! id, role, metadata?, parts }` with `role` one of `system`, `user` and
//! `assistant`. A tool call and its result are one part of an assistant
//! message: `{ type: "tool-NAME" | "dynamic-tool", toolCallId, state, input,
//! output?, errorText? }`, so a call is never apart from its result. A
//! `step-start` part separates the model calls of one assistant message.
//!
//! What counts is what `convertToModelMessages` (from `ai`) sends: text,
//! reasoning, files and an assistant message's tool parts (it sends the
//! tool parts of no other message); `source-url`, `source-document` and
//! `step-start` parts are never sent and count nothing; a `data-NAME` part
//! is sent only through the caller's `convertDataPart`, and counts as its
//! JSON so the estimate never falls short.

use crate::content::{Block, Content};
use crate::error::InputError;
use crate::estimate::{self, MESSAGE_OVERHEAD};
use crate::formats::result_parts::{Payload, ResultParts, Untagged};
use crate::formats::shared::{
    foreign_field, is_marker, joined, json_text, parts, parts_array, required_type, role_misfit,
    string_field, subfield, tagged, text_block, text_milli, type_name, ATTACHMENT_MILLI,
    LANGCHAIN_FIELDS,
};
use crate::formats::{ChecksRead, Facts, MessageReader, RoleRule};
use crate::node::{Kind, Node};
use crate::view::{MessageView, Replacement, Role, ToolResult};

const ROLES: &[(&str, Role)] = &[
    ("system", Role::System),
    ("user", Role::User),
    ("assistant", Role::Assistant),
];

/// The parts `convertToModelMessages` never sends.
const UNSENT_PARTS: &[&str] = &["step-start", "source-url", "source-document"];

/// A `UIMessage`: one of its three roles, a `parts` array whose parts all
/// have a `type` (Gemini's parts have none), and neither `type` nor the
/// `content` of AI SDK 4's UI messages and of every other format. `Some`
/// says what does not fit.
pub fn misfit<N: Node>(facts: &Facts<N>) -> Option<String> {
    static FOREIGN: [&str; 6] =
        joined(&[LANGCHAIN_FIELDS, &["type", "content", "toolInvocations"]]);
    if let Some(why) = foreign_field(facts.message, &FOREIGN) {
        return Some(why);
    }
    let role = match facts.string_role() {
        Ok(role) => role,
        Err(why) => return Some(why),
    };
    if ROLE.by_name(role).is_none() {
        return Some(role_misfit(role));
    }
    let (parts, len) = match parts_array(facts.message) {
        Ok(parts) => parts,
        Err(why) => return Some(why),
    };
    (0..len).find_map(|i| {
        // A throwing element is left for `view` to report.
        let part = parts.item(i).ok()?;
        (part.kind() == Kind::Object && type_name(&part).is_none())
            .then(|| format!("its parts[{i}], which has no `type`"))
    })
}

/// Where an assistant message's tool results are: a tool part's `output`
/// once its `state` is `output-available` (any JSON value), its
/// `errorText` once it is `output-error` (a string), each cleared to the
/// placeholder. The reader finds and prices them by this rule; pruning's
/// older assistant messages are read by it alone, many at a time
/// (`Format::result_parts_by_name`).
pub const RESULT_PARTS: ResultParts = ResultParts {
    array: "parts",
    part_type: "dynamic-tool",
    type_prefix: "tool-",
    result_key: "",
    id_key: "toolCallId",
    payload: "output",
    value_key: "errorText",
    state_key: "state",
    types: &[
        ("output-available", Payload::Json, false),
        ("output-error", Payload::Text, true),
    ],
    // Not read: the state says what the payload may be.
    untagged: Untagged::Json,
    kept_if: "",
    cleared: Replacement::Placeholder,
    cleared_error: Replacement::Placeholder,
};

/// Whether a part is a tool part, as `isToolUIPart` in `ai` decides.
fn is_tool_part(part_type: &str) -> bool {
    RESULT_PARTS.is_result_type(part_type)
}

/// The role `view` reads first (see `Format::role`).
pub const ROLE: RoleRule = RoleRule::one_of(ROLES, "");

/// A message's view, its role taken from what detection's checks read of
/// it (`read`) where they read it.
pub fn view<N: Node>(
    message: &N,
    mut read: ChecksRead<N>,
    reader: &MessageReader,
) -> Result<MessageView, InputError> {
    let (role_name, role) = read.role(message, &ROLE, reader)?;
    let parts_value = reader.required_array(message, "", "parts", "an array of parts")?;
    let mut view = MessageView::empty(role);
    let mut milli = 0;
    // `convertToModelMessages` makes a model message of each step of an
    // assistant message and a tool message of its tool results: each costs
    // the overhead of a message.
    let mut model_messages = 0;
    let mut step = StepParts::default();
    // The results before the newest step that has parts.
    let mut step_boundary = 0;
    for (index, (field, part)) in parts(reader, &parts_value, "parts", "a part object")?
        .iter()
        .enumerate()
    {
        let part_type = required_type(reader, part, field)?;
        if part_type != "step-start" {
            // This part is in the step that began at the latest boundary.
            view.earlier_step_results = step_boundary;
        }
        milli += match part_type.as_str() {
            "text" | "reasoning" => {
                step.sent = true;
                text_milli(part, reader, field, "text")?
            }
            "file" => {
                step.sent = true;
                ATTACHMENT_MILLI
            }
            "step-start" => {
                model_messages += step.model_messages();
                step = StepParts::default();
                step_boundary = view.tool_results.len();
                0
            }
            part_type if UNSENT_PARTS.contains(&part_type) => 0,
            // `convertToModelMessages` sends the tool parts of an
            // assistant message alone: another's hold no results.
            part_type if is_tool_part(part_type) && role != Role::Assistant => 0,
            part_type if is_tool_part(part_type) => {
                match tool_part(part, part_type, index, field, reader, &mut view)? {
                    Some(sent) => {
                        step.sent = true;
                        step.results |= sent.answered;
                        sent.milli
                    }
                    None => 0,
                }
            }
            _ => reader.json_milli(part),
        };
    }
    model_messages += step.model_messages();
    let tagged = matches!(role_name.as_str(), "system" | "user")
        && crate::formats::shared::first_text_tagged(Some(&parts_value));
    view.mark(is_marker(&role_name, None, tagged));
    view.tokens = MESSAGE_OVERHEAD * model_messages.max(1) + estimate::milli_to_tokens(milli);
    Ok(view)
}

/// What one step of an assistant message sends: an assistant message if any
/// part is sent, and a tool message if any tool part has a result.
#[derive(Default)]
struct StepParts {
    sent: bool,
    results: bool,
}

impl StepParts {
    fn model_messages(&self) -> u64 {
        u64::from(self.sent) + u64::from(self.results)
    }
}

/// What a sent tool part costs, and whether it holds the call's result.
struct SentTool {
    milli: u64,
    answered: bool,
}

/// A tool part: the call it opens (its result, once it has one, is in the
/// same part, so the call is never apart from it and answers nothing), its
/// prunable payload, and the estimate of its name, input and result; `None`
/// for a call still streaming its input, which is not sent at all.
fn tool_part<N: Node>(
    part: &N,
    part_type: &str,
    index: usize,
    field: &str,
    reader: &MessageReader,
    view: &mut MessageView,
) -> Result<Option<SentTool>, InputError> {
    let rule = &RESULT_PARTS;
    let id = reader.required_string(part, field, rule.id_key)?;
    let state = reader.required_string(part, field, rule.state_key)?;
    if state == "input-streaming" {
        return Ok(None);
    }
    // A `tool-NAME` part's name is in its type, a `dynamic-tool` part's in
    // its `toolName`.
    let name_milli = match part_type.strip_prefix(rule.type_prefix) {
        Some(name) => reader.milli(name),
        None => text_milli(part, reader, field, "toolName")?,
    };
    let input = reader.get(part, field, "input")?;
    let mut milli = name_milli + input.map_or(0, |input| reader.json_milli(&input));
    view.opens.push(id.clone());
    let (payload_milli, result) = state_payload(part, &state, index, field, reader)?;
    milli += payload_milli;
    view.tool_results.extend(result);
    Ok(Some(SentTool {
        milli,
        // A denied call is answered, with nothing to clear; a call in a
        // state that holds no payload otherwise is not answered yet.
        answered: state == "output-denied" || rule.payload_type(&state).is_some(),
    }))
}

/// A tool part's payload under the key its `state` says, with its
/// estimate; no result for a state that holds none, or with none there.
fn state_payload<N: Node>(
    part: &N,
    state: &str,
    index: usize,
    field: &str,
    reader: &MessageReader,
) -> Result<(u64, Option<ToolResult>), InputError> {
    let rule = &RESULT_PARTS;
    let Some((kind, error)) = rule.payload_type(state) else {
        return Ok((0, None));
    };
    let payload_key = rule.payload_key(error);
    let Some(payload) = reader.get(part, field, payload_key)? else {
        return Ok((0, None));
    };
    let (milli, cleared) = match payload.kind() {
        Kind::String => reader.payload(&payload),
        other if kind == Payload::Text => {
            return Err(reader.type_error(&subfield(field, payload_key), "a string", other));
        }
        _ => (reader.json_milli(&payload), false),
    };
    Ok((milli, Some(rule.result(index, milli, cleared, error))))
}

/// The result of a tool part, read from the part alone
/// (`Format::result_of_part`).
pub fn result_part<N: Node>(
    part: &N,
    index: usize,
    field: &str,
    reader: &MessageReader,
) -> Result<(u64, Option<ToolResult>), InputError> {
    let state = reader.required_string(part, field, RESULT_PARTS.state_key)?;
    state_payload(part, &state, index, field, reader)
}

/// The marker: a user message of one text part holding the tagged summary,
/// with an id made from the summary (a chat UI keys its rows by id). A user
/// message because AI SDK 6 warns about, and 7 refuses, system messages
/// among the model messages that `convertToModelMessages` makes.
pub fn marker(text: &str) -> crate::util::json::Json {
    use crate::util::json::{object, Json};
    use std::hash::Hasher;
    let tagged = tagged(text);
    let mut hash = crate::util::hash::Fnv1a::default();
    hash.write(tagged.as_bytes());
    let part = object([("type", "text".into()), ("text", tagged.into())]);
    object([
        (
            "id",
            format!("kram-compaction-summary-{}", hash.finish()).into(),
        ),
        ("role", "user".into()),
        ("parts", Json::Arr(vec![part])),
    ])
}

/// The content blocks of a message, for the transcript. Call `view` first.
pub fn content<N: Node>(message: &N, reader: &MessageReader) -> Result<Content, InputError> {
    let role = reader.required_string(message, "", "role")?;
    let mut blocks = Vec::new();
    let parts = message.field("parts").ok().flatten();
    for part in (0..parts.as_ref().and_then(|p| p.array_len()).unwrap_or(0))
        .filter_map(|i| parts.as_ref()?.item(i).ok())
    {
        let Some(part_type) = type_name(&part) else {
            continue;
        };
        match part_type.as_str() {
            "text" => blocks.push(text_block(&part)),
            "reasoning" => blocks.push(Block::Reasoning(
                string_field(&part, "text").unwrap_or_default(),
            )),
            "file" => blocks.push(Block::Attachment("file".to_string())),
            part_type if is_tool_part(part_type) => tool_blocks(&part, part_type, &mut blocks),
            _ => {}
        }
    }
    Ok(Content { role, blocks })
}

fn tool_blocks<N: Node>(part: &N, part_type: &str, blocks: &mut Vec<Block>) {
    let rule = &RESULT_PARTS;
    let state = string_field(part, rule.state_key).unwrap_or_default();
    if state == "input-streaming" {
        return;
    }
    let id = string_field(part, rule.id_key).unwrap_or_default();
    let name = match part_type.strip_prefix(rule.type_prefix) {
        Some(name) => name.to_string(),
        None => string_field(part, "toolName").unwrap_or_default(),
    };
    let as_text = |key: &str| match part.field(key).ok().flatten() {
        Some(value) => value
            .text()
            .map_or_else(|| json_text(&value), |t| t.into_owned()),
        None => String::new(),
    };
    blocks.push(Block::ToolCall {
        id: id.clone(),
        name,
        arguments: as_text("input"),
    });
    let (output, is_error) = match rule.payload_type(&state) {
        Some((_, error)) => (as_text(rule.payload_key(error)), error),
        None if state == "output-denied" => ("Execution denied.".to_string(), true),
        None => return,
    };
    blocks.push(Block::ToolResult {
        id,
        output,
        is_error,
    });
}

//! Google Gemini `contents`, as `@google/genai` types them: `Content = {
//! role?: "user" | "model", parts?: Part[] }`, each part untyped and holding
//! one of `text` (with `thought: true` for a thought summary),
//! `inlineData`, `fileData`, `functionCall`, `functionResponse`,
//! `executableCode`, `codeExecutionResult`, ... plus an optional
//! `thoughtSignature`. The system prompt is the request's
//! `systemInstruction`, never a content. Tool results are `functionResponse`
//! parts of user contents, and each one's `response` is the payload pruning
//! replaces.

use crate::content::{Block, Content};
use crate::error::InputError;
use crate::estimate::{self, MESSAGE_OVERHEAD};
use crate::formats::result_parts::{ResultParts, Untagged};
use crate::formats::shared::{
    foreign_field, has, is_marker, joined, json_text, parts, parts_array, role_misfit,
    starts_with_tag, string_field, subfield, tool_call_block, untagged, ATTACHMENT_MILLI,
    LANGCHAIN_FIELDS,
};
use crate::formats::{ChecksRead, Facts, MessageReader, RoleRule};
use crate::node::{Kind, Node};
use crate::view::{MessageView, Replacement, Role, ToolResult};

const ROLES: &[(&str, Role)] = &[("user", Role::User), ("model", Role::Assistant)];
const NO_SYSTEM_ROLE: &str = " (the system prompt is the request's `systemInstruction`)";

/// Where a content's tool results are: parts with a `functionResponse`,
/// each one's payload its `response` object, which pruning replaces with
/// one that holds the placeholder under `output` (Gemini reads that key as
/// the function's output) or, for an error, under `error` (its error
/// details). The view reads them by it, and pruning's older contents are
/// read by it alone, many at a time (`Format::result_parts_by_name`).
pub const RESULT_PARTS: ResultParts = ResultParts {
    array: "parts",
    part_type: "",
    type_prefix: "",
    result_key: "functionResponse",
    id_key: "",
    payload: "response",
    value_key: "",
    state_key: "",
    types: &[],
    untagged: Untagged::Keyed,
    kept_if: "",
    cleared: Replacement::Tagged {
        fields: &[],
        placeholder_key: "output",
    },
    cleared_error: Replacement::Tagged {
        fields: &[],
        placeholder_key: "error",
    },
};

/// A content: no `type` and no `content`, a role that is absent (the API
/// defaults it to user), `"user"` or `"model"`, and a `parts` array of
/// untyped parts. `Some` says what does not fit.
pub fn misfit<N: Node>(facts: &Facts<N>) -> Option<String> {
    static FOREIGN: [&str; 5] = joined(&[LANGCHAIN_FIELDS, &["type", "content"]]);
    let message = facts.message;
    if let Some(why) = foreign_field(message, &FOREIGN) {
        return Some(why);
    }
    // The role through the checks' shared read, which the view then
    // takes. An absent one is the API's default, user.
    match facts.string_role() {
        Ok("user" | "model") => {}
        Ok(role) => return Some(role_misfit(role)),
        Err(why) if facts.role_not_text() => return Some(why),
        Err(_) => {}
    }
    let (parts, len) = match parts_array(message) {
        Ok(parts) => parts,
        Err(why) => return Some(why),
    };
    (0..len).find_map(|i| {
        let part = parts.item(i).ok()?;
        has(&part, "type").then(|| format!("its parts[{i}].type"))
    })
}

/// What a message's reading collects besides its estimate.
struct Reading {
    milli: u64,
    opens: Vec<String>,
    answers: Vec<String>,
    tool_results: Vec<ToolResult>,
    /// Parts other than function responses: a user content with only
    /// responses is a tool message.
    other_parts: usize,
}

/// The role `view` reads first, the user's when a content has none (see
/// `Format::role`).
pub const ROLE: RoleRule = RoleRule {
    what: "a content object",
    roles: ROLES,
    other: None,
    hint: NO_SYSTEM_ROLE,
    absent: Some(("user", Role::User)),
};

/// A content's view, its role taken from what detection's checks read of
/// it (`read`) where they read it.
pub fn view<N: Node>(
    message: &N,
    mut read: ChecksRead<N>,
    reader: &MessageReader,
) -> Result<MessageView, InputError> {
    let (role_name, mut role) = read.role(message, &ROLE, reader)?;
    let parts_value = reader.required_array(message, "", "parts", "an array of parts")?;
    let mut reading = Reading {
        milli: 0,
        opens: Vec::new(),
        answers: Vec::new(),
        tool_results: Vec::new(),
        other_parts: 0,
    };
    let parts = parts(reader, &parts_value, "parts", "a part object")?;
    let mut calls_by_name: Vec<String> = Vec::new();
    let mut responses_by_name: Vec<String> = Vec::new();
    for (index, (field, part)) in parts.iter().enumerate() {
        read_part(
            part,
            index,
            field,
            reader,
            &mut reading,
            &mut calls_by_name,
            &mut responses_by_name,
        )?;
    }
    let tagged = parts
        .first()
        .filter(|(_, part)| !is_thought(part))
        .is_some_and(|(_, part)| starts_with_tag(part.field("text").ok().flatten().as_ref()));
    let marker = is_marker(&role_name, None, tagged);
    if marker {
        role = Role::System;
    } else if !reading.answers.is_empty() && reading.other_parts == 0 {
        role = Role::Tool;
    }
    Ok(MessageView {
        role,
        // A user content carrying function responses answers the model's
        // calls: a cut there would orphan them, so it never starts a turn.
        starts_user_turn: role == Role::User && reading.answers.is_empty(),
        is_marker: marker,
        tokens: MESSAGE_OVERHEAD + estimate::milli_to_tokens(reading.milli),
        opens: reading.opens,
        answers: reading.answers,
        tool_results: reading.tool_results,
        carried_reasoning: false,
        earlier_step_results: 0,
    })
}

fn is_thought<N: Node>(part: &N) -> bool {
    part.field("thought")
        .ok()
        .flatten()
        .and_then(|flag| flag.boolean())
        .unwrap_or(false)
}

/// The key that pairs a call with a response by position: the `ordinal`-th
/// call named `name` in the content at `index`. The API takes a function
/// response turn only right after the function call turn, with one response
/// part for each call part, so this is how Gemini itself pairs them. An
/// `id` pairs nothing more: a response's `id` names its call's when that
/// call has one, and gemini-cli gives its responses ids of its own where
/// the model's calls have none, so pairing by `id` as well left each such
/// response answering a call no content made (and a cut read newest first
/// could then never be sure).
fn position_key(index: usize, name: &str, ordinal: usize) -> String {
    format!("gemini:{index}:{ordinal}:{name}")
}

/// An object field of a part (`functionCall`), checked.
fn object_field<N: Node>(
    reader: &MessageReader,
    part: &N,
    field: &str,
    key: &str,
) -> Result<N, InputError> {
    let value = reader.get(part, field, key)?;
    let field = subfield(field, key);
    match value {
        Some(value) if value.kind() == Kind::Object => Ok(value),
        other => Err(reader.type_error(
            &field,
            "an object",
            other.as_ref().map_or(Kind::Undefined, Node::kind),
        )),
    }
}

/// A part's `functionCall` or `functionResponse`, with what pairs it
/// (`position_key`): its name and how many of that name came before it in
/// the message (`seen`, which this adds the name to).
struct Function<N> {
    value: N,
    field: String,
    name: String,
    ordinal: usize,
}

fn function<N: Node>(
    reader: &MessageReader,
    part: &N,
    field: &str,
    key: &str,
    seen: &mut Vec<String>,
) -> Result<Function<N>, InputError> {
    let value = object_field(reader, part, field, key)?;
    let field = subfield(field, key);
    // Checked, as every field read is; it pairs nothing (`position_key`).
    reader.optional_string(&value, &field, "id")?;
    let name = reader
        .optional_string(&value, &field, "name")?
        .unwrap_or_default();
    let ordinal = seen.iter().filter(|seen| **seen == name).count();
    seen.push(name.clone());
    Ok(Function {
        value,
        field,
        name,
        ordinal,
    })
}

#[allow(clippy::too_many_arguments)]
fn read_part<N: Node>(
    part: &N,
    index: usize,
    field: &str,
    reader: &MessageReader,
    reading: &mut Reading,
    calls_by_name: &mut Vec<String>,
    responses_by_name: &mut Vec<String>,
) -> Result<(), InputError> {
    // Carried back as it came; counted like the other providers' encrypted
    // reasoning, from its length.
    if let Some(signature) = reader.string(part, field, "thoughtSignature")? {
        reading.milli += reader.encrypted_milli(&signature);
    }
    if has(part, RESULT_PARTS.result_key) {
        let response = function(
            reader,
            part,
            field,
            RESULT_PARTS.result_key,
            responses_by_name,
        )?;
        if let Some(before) = reader.index.checked_sub(1) {
            reading
                .answers
                .push(position_key(before, &response.name, response.ordinal));
        }
        let (milli, result) = function_response(&response.value, index, &response.field, reader)?;
        reading.milli += reader.milli(&response.name) + milli;
        reading.tool_results.extend(result);
        return Ok(());
    }
    reading.other_parts += 1;
    if let Some(text) = reader.string(part, field, "text")? {
        reading.milli += reader.text_milli(&text);
    } else if has(part, "inlineData") || has(part, "fileData") {
        reading.milli += ATTACHMENT_MILLI;
    } else if has(part, "functionCall") {
        let call = function(reader, part, field, "functionCall", calls_by_name)?;
        reading
            .opens
            .push(position_key(reader.index, &call.name, call.ordinal));
        let args = reader.get(&call.value, &call.field, "args")?;
        reading.milli += reader.milli(&call.name) + args.map_or(0, |a| reader.json_milli(&a));
    } else {
        // Code, its result, server tools' calls and anything newer.
        reading.milli += reader.json_milli(part);
    }
    Ok(())
}

/// A function response's estimate, and its result: its `response` is the
/// prunable payload. Attachments in its `parts` count the fixed cost and
/// stay.
fn function_response<N: Node>(
    response: &N,
    index: usize,
    field: &str,
    reader: &MessageReader,
) -> Result<(u64, Option<ToolResult>), InputError> {
    let mut milli = 0;
    if let Some(inner) = reader.get(response, field, "parts")? {
        milli += ATTACHMENT_MILLI
            * parts(reader, &inner, &subfield(field, "parts"), "a part object")?.len() as u64;
    }
    let Some(payload) = reader.get(response, field, RESULT_PARTS.payload)? else {
        return Ok((milli, None));
    };
    if payload.kind() != Kind::Object {
        let payload_field = subfield(field, RESULT_PARTS.payload);
        return Err(reader.type_error(&payload_field, "an object", payload.kind()));
    }
    let single_text = (RESULT_PARTS.keyed_single_value(&payload).ok().flatten())
        .filter(|value| value.kind() == Kind::String);
    let (payload_milli, cleared) = match single_text {
        Some(text) => reader.payload(&text),
        None => (reader.json_milli(&payload), false),
    };
    let (output, error) = RESULT_PARTS.keyed_keys();
    let is_error = has(&payload, error) && !has(&payload, output);
    let result = RESULT_PARTS.result(index, payload_milli, cleared, is_error);
    Ok((milli + payload_milli, Some(result)))
}

/// The result of a part with a `functionResponse`, read from the part
/// alone (`Format::result_of_part`).
pub fn response_part<N: Node>(
    part: &N,
    index: usize,
    field: &str,
    reader: &MessageReader,
) -> Result<(u64, Option<ToolResult>), InputError> {
    let key = RESULT_PARTS.result_key;
    let response = object_field(reader, part, field, key)?;
    function_response(&response, index, &subfield(field, key), reader)
}

/// The marker: a user content of one text part holding the tagged summary.
/// Contents have only the user and model roles and no field for a name (the
/// system prompt is `systemInstruction`, outside `contents`); a user content
/// is sent as it is.
pub fn marker(text: &str) -> crate::util::json::Json {
    use crate::util::json::{object, Json};
    let part = object([("text", crate::formats::shared::tagged(text).into())]);
    object([("role", "user".into()), ("parts", Json::Arr(vec![part]))])
}

/// The parts of a content, for the transcript. Call `view` first.
pub fn content<N: Node>(message: &N, reader: &MessageReader) -> Result<Content, InputError> {
    let role = match reader.string(message, "", "role")? {
        Some(role) => role.text().map(|t| t.into_owned()).unwrap_or_default(),
        None => "user".to_string(),
    };
    let mut blocks = Vec::new();
    let parts = message.field("parts").ok().flatten();
    let len = parts.as_ref().and_then(Node::array_len).unwrap_or(0);
    for part in (0..len).filter_map(|i| parts.as_ref()?.item(i).ok()) {
        part_blocks(&part, &mut blocks);
    }
    Ok(Content { role, blocks })
}

fn part_blocks<N: Node>(part: &N, blocks: &mut Vec<Block>) {
    let object = |key: &str| part.field(key).ok().flatten();
    if let Some(text) = string_field(part, "text") {
        blocks.push(if is_thought(part) {
            Block::Reasoning(text)
        } else {
            Block::Text(untagged(&text).to_string())
        });
    } else if let Some(call) = object("functionCall") {
        // Without ids, the transcript pairs a result with its call by name.
        let id = if string_field(&call, "id").is_some() {
            "id"
        } else {
            "name"
        };
        blocks.push(tool_call_block(&call, id, "name", "args"));
    } else if let Some(response) = object("functionResponse") {
        let payload = response.field("response").ok().flatten();
        let key = |key: &str| payload.as_ref().and_then(|p| p.field(key).ok().flatten());
        let is_error = key("error").is_some();
        let shown = key("output").or_else(|| key("error")).or(payload);
        blocks.push(Block::ToolResult {
            id: string_field(&response, "id")
                .or_else(|| string_field(&response, "name"))
                .unwrap_or_default(),
            output: shown.map_or_else(String::new, |value| {
                value
                    .text()
                    .map_or_else(|| json_text(&value), |t| t.into_owned())
            }),
            is_error,
        });
    } else if let Some(key) = ["inlineData", "fileData"]
        .into_iter()
        .find(|key| has(part, key))
    {
        blocks.push(Block::Attachment(key.to_string()));
    } else if let Some(key) = part.keys().unwrap_or_default().into_iter().find(|key| {
        !matches!(
            key.as_str(),
            "thought" | "thoughtSignature" | "partMetadata"
        )
    }) {
        blocks.push(Block::Attachment(key));
    }
}

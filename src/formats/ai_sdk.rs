//! AI SDK `ModelMessage`s (v5 and v6): `{ role, content, providerOptions? }`
//! with `content` a string or an array of parts. Tool calls are `tool-call`
//! parts of assistant messages; tool results are `tool-result` parts of
//! `role: "tool"` messages, and each one's `output` (`{ type, value }`) is the
//! payload pruning replaces.

use crate::content::{Block, Content};
use crate::error::InputError;
use crate::estimate::{self, MESSAGE_OVERHEAD};
use crate::formats::result_parts::{Payload, ResultParts, Untagged};
use crate::formats::shared::{
    content_blocks, content_misfit, is_marker, json_text, output_text, parts, required_type,
    role_misfit, string_field, subfield, tag_candidate, text_block, text_milli, tool_call_block,
    type_name, ATTACHMENT_MILLI,
};
use crate::formats::{ChecksRead, Facts, Format, MessageReader, RoleRule};
use crate::node::{Kind, Node};
use crate::view::{MessageView, Replacement, Role, ToolResult};

/// Where the results are, what each output type holds, and what a cleared
/// one becomes: a text output holding the placeholder, or an error-text one
/// for a result that was an error, so the provider still marks it as
/// failed. An `execution-denied` (or unknown) output is kept as it is.
pub const RESULT_PARTS: ResultParts = ResultParts {
    array: "content",
    part_type: "tool-result",
    type_prefix: "",
    result_key: "",
    id_key: "toolCallId",
    payload: "output",
    value_key: "value",
    state_key: "",
    types: &[
        ("text", Payload::Text, false),
        ("error-text", Payload::Text, true),
        ("json", Payload::Json, false),
        ("error-json", Payload::Json, true),
        ("content", Payload::Content, false),
    ],
    untagged: Untagged::Json,
    kept_if: "",
    cleared: Replacement::Tagged {
        fields: &[("type", "text")],
        placeholder_key: "value",
    },
    cleared_error: Replacement::Tagged {
        fields: &[("type", "error-text")],
        placeholder_key: "value",
    },
};

const ROLES: &[(&str, Role)] = &[
    ("system", Role::System),
    ("user", Role::User),
    ("assistant", Role::Assistant),
    ("tool", Role::Tool),
];

/// The four roles, no `type` and no OpenAI Chat fields, a system message's
/// content a string and a tool message's an array, no foreign parts; `Some`
/// says what does not fit.
pub fn misfit<N: Node>(facts: &Facts<N>) -> Option<String> {
    misfit_as(facts, Format::AiSdk)
}

/// `misfit` for either AI SDK version: the same roles and content shapes,
/// told apart by their parts.
pub fn misfit_as<N: Node>(facts: &Facts<N>, format: Format) -> Option<String> {
    let role = match facts.untyped_role() {
        Ok(role) => role,
        Err(why) => return Some(why),
    };
    let kind = facts.content_kind();
    let shape = match role {
        "system" => kind == Kind::String,
        "user" | "assistant" => matches!(kind, Kind::String | Kind::Array),
        "tool" => kind == Kind::Array,
        _ => return Some(role_misfit(role)),
    };
    if !shape {
        return Some(content_misfit(kind));
    }
    facts
        .chat_field_misfit()
        .or_else(|| facts.parts_misfit(format))
}

/// What sets a version's parts apart from the other's.
pub struct Version<N> {
    /// The field of a `tool-call` part that holds its arguments.
    pub arguments_key: &'static str,
    /// The part types counted as attachments.
    pub attachments: &'static [&'static str],
    /// The part type whose `data` is encrypted reasoning, if the version has one.
    pub encrypted_reasoning: Option<&'static str>,
    /// A `tool-result` part's payload: its estimate, and what pruning may clear.
    pub payload: PayloadReader<N>,
}

/// Reads a tool result part's payload (`part`, its index in the content,
/// and its field path).
pub type PayloadReader<N> =
    fn(&N, usize, &str, &MessageReader) -> Result<(u64, Option<ToolResult>), InputError>;

/// The role `view` reads first (see `Format::role`).
pub const ROLE: RoleRule = RoleRule::one_of(ROLES, "");

pub fn view<N: Node>(
    message: &N,
    read: ChecksRead<N>,
    reader: &MessageReader,
) -> Result<MessageView, InputError> {
    let version = Version {
        arguments_key: "input",
        attachments: &["image", "file", "reasoning-file"],
        encrypted_reasoning: None,
        payload: output,
    };
    view_with(message, read, reader, &version)
}

/// `view` for either AI SDK version, reading the parts as `version` says
/// (and taking what detection's checks read: `read`).
pub fn view_with<N: Node>(
    message: &N,
    mut read: ChecksRead<N>,
    reader: &MessageReader,
    version: &Version<N>,
) -> Result<MessageView, InputError> {
    let (role_name, role) = read.role(message, &ROLE, reader)?;
    let content = read.content(message, reader)?;
    let kind = read.content_kind(content.as_ref());
    let mut view = MessageView::empty(role);
    let mut milli = 0;
    match &content {
        Some(text) if kind == Kind::String => {
            milli += reader.text_milli(text);
        }
        Some(array) if kind == Kind::Array => {
            let parts = parts(reader, array, "content", "a content part object")?;
            for (index, (field, part)) in parts.iter().enumerate() {
                milli += part_milli(part, index, field, reader, &mut view, version)?;
            }
        }
        _ => return Err(reader.type_error("content", "a string or an array of parts", kind)),
    }
    let first = tag_candidate(&role_name, content.as_ref());
    // A `name` counts as OpenAI Chat counts it (a system message named as
    // its marker is one here too): a message that fits several formats
    // must read the same in each (see `crate::newest_first`).
    let name = string_field(message, "name");
    milli += name.as_deref().map_or(0, |name| reader.milli(name));
    view.mark(is_marker(&role_name, name.as_deref(), first));
    view.tokens = MESSAGE_OVERHEAD + estimate::milli_to_tokens(milli);
    Ok(view)
}

/// One part: its estimate, and what it adds to the view (the call it opens
/// or answers, a prunable result).
fn part_milli<N: Node>(
    part: &N,
    index: usize,
    field: &str,
    reader: &MessageReader,
    view: &mut MessageView,
    version: &Version<N>,
) -> Result<u64, InputError> {
    Ok(match required_type(reader, part, field)?.as_str() {
        "text" | "reasoning" => text_milli(part, reader, field, "text")?,
        "tool-call" => tool_call_milli(part, field, reader, view, version.arguments_key)?,
        result if result == RESULT_PARTS.part_type => {
            let (payload_milli, result) = (version.payload)(part, index, field, reader)?;
            tool_result_milli(part, field, reader, view, payload_milli, result)?
        }
        other if version.attachments.contains(&other) => ATTACHMENT_MILLI,
        other if version.encrypted_reasoning == Some(other) => {
            let data = reader.required_string_value(part, field, "data")?;
            reader.encrypted_milli(&data)
        }
        _ => reader.json_milli(part),
    })
}

/// A tool call part: the call it opens, and the estimate of its name and its
/// arguments (under `arguments_key`: `input`, or `args` in AI SDK 4).
fn tool_call_milli<N: Node>(
    part: &N,
    field: &str,
    reader: &MessageReader,
    view: &mut MessageView,
    arguments_key: &str,
) -> Result<u64, InputError> {
    let id = reader.required_string(part, field, "toolCallId")?;
    view.opens.push(id);
    let arguments = reader.get(part, field, arguments_key)?;
    Ok(text_milli(part, reader, field, "toolName")?
        + arguments.map_or(0, |a| reader.json_milli(&a)))
}

/// A tool result part: the call it answers, its prunable payload if any, and
/// the estimate of its name and payload.
fn tool_result_milli<N: Node>(
    part: &N,
    field: &str,
    reader: &MessageReader,
    view: &mut MessageView,
    payload_milli: u64,
    result: Option<ToolResult>,
) -> Result<u64, InputError> {
    let id = reader.required_string(part, field, RESULT_PARTS.id_key)?;
    view.answers.push(id);
    view.tool_results.extend(result);
    Ok(text_milli(part, reader, field, "toolName")? + payload_milli)
}

/// A tool result's `output`: its estimate, and the prunable payload unless
/// its type is one `RESULT_PARTS` keeps.
pub fn output<N: Node>(
    part: &N,
    index: usize,
    field: &str,
    reader: &MessageReader,
) -> Result<(u64, Option<ToolResult>), InputError> {
    let rule = &RESULT_PARTS;
    let output = reader.get(part, field, rule.payload)?;
    let field = subfield(field, rule.payload);
    let output = match output {
        Some(output) if output.kind() == Kind::Object => output,
        other => {
            let got = other.map_or(Kind::Undefined, |o| o.kind());
            return Err(reader.type_error(&field, "a tool result output object", got));
        }
    };
    let output_type = required_type(reader, &output, &field)?;
    let Some((payload, error)) = rule.payload_type(&output_type) else {
        return Ok((reader.json_milli(&output), None));
    };
    let value = reader.get(&output, &field, rule.value_key)?;
    let (milli, cleared) = match payload {
        Payload::Text => {
            reader.payload(&reader.required_string_value(&output, &field, rule.value_key)?)
        }
        Payload::Json => (value.map_or(0, |v| reader.json_milli(&v)), false),
        Payload::Content => {
            let value_field = subfield(&field, rule.value_key);
            let Some(value) = value else {
                return Err(reader.type_error(&value_field, "an array", Kind::Undefined));
            };
            let mut milli = 0;
            for (item_field, item) in parts(reader, &value, &value_field, "a content object")? {
                milli += match required_type(reader, &item, &item_field)?.as_str() {
                    "text" => text_milli(&item, reader, &item_field, "text")?,
                    "media" | "image-data" | "image-url" | "image-file-id" | "file-data"
                    | "file-url" | "file-id" => ATTACHMENT_MILLI,
                    _ => reader.json_milli(&item),
                };
            }
            (milli, false)
        }
    };
    Ok((milli, Some(rule.result(index, milli, cleared, error))))
}

/// The marker: a user message of one text part holding the tagged summary.
/// A user message because AI SDK 6 warns about, and 7 refuses, system
/// messages inside `messages`.
pub fn marker(text: &str) -> crate::util::json::Json {
    crate::formats::shared::tagged_user_message("text", text)
}

/// The content blocks of a message, for the transcript. Call `view` first.
pub fn content<N: Node>(message: &N, reader: &MessageReader) -> Result<Content, InputError> {
    content_with(message, reader, |part, part_type, blocks| match part_type {
        "tool-call" => blocks.push(tool_call_block(part, "toolCallId", "toolName", "input")),
        "tool-result" => tool_result_blocks(part, blocks),
        other => blocks.push(Block::Attachment(other.to_string())),
    })
}

/// `content` for either AI SDK version: text and reasoning parts read the
/// same, `other_part` reads the rest.
pub fn content_with<N: Node>(
    message: &N,
    reader: &MessageReader,
    mut other_part: impl FnMut(&N, &str, &mut Vec<Block>),
) -> Result<Content, InputError> {
    let role = reader.required_string(message, "", "role")?;
    let content = reader.get(message, "", "content")?;
    let blocks = content_blocks(
        content.as_ref(),
        &mut |part, part_type, blocks| match part_type {
            "text" => blocks.push(text_block(part)),
            "reasoning" => blocks.push(Block::Reasoning(
                string_field(part, "text").unwrap_or_default(),
            )),
            other => other_part(part, other, blocks),
        },
    );
    Ok(Content { role, blocks })
}

fn tool_result_blocks<N: Node>(part: &N, blocks: &mut Vec<Block>) {
    let output = part.field(RESULT_PARTS.payload).ok().flatten();
    let output_type = output.as_ref().and_then(type_name).unwrap_or_default();
    let value = output
        .as_ref()
        .and_then(|o| o.field("value").ok().flatten());
    let mut attachments = Vec::new();
    let text = match output_type.as_str() {
        "content" => {
            let (text, parts) = output_text(value.as_ref(), &["text"]);
            attachments = parts;
            text
        }
        "execution-denied" => {
            let reason = output.as_ref().and_then(|o| string_field(o, "reason"));
            format!("Execution denied. {}", reason.unwrap_or_default())
                .trim_end()
                .to_string()
        }
        _ => match &value {
            Some(value) => value
                .text()
                .map_or_else(|| json_text(value), |t| t.into_owned()),
            None => String::new(),
        },
    };
    blocks.push(Block::ToolResult {
        id: string_field(part, RESULT_PARTS.id_key).unwrap_or_default(),
        output: text,
        is_error: RESULT_PARTS
            .payload_type(&output_type)
            .is_some_and(|(_, error)| error),
    });
    blocks.extend(attachments);
}

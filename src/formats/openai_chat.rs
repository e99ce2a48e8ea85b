//! OpenAI Chat Completions messages: `{ role, content, name?, tool_calls?,
//! tool_call_id? }`. Tool results are `role: "tool"` messages whose whole
//! `content` is the payload.

use crate::content::{Block, Content};
use crate::error::InputError;
use crate::estimate::{self, MESSAGE_OVERHEAD};
use crate::formats::shared::{
    content_blocks, is_marker, part_at, part_count, parts, required_type, string_field, subfield,
    tag_candidate, text_block, text_milli, ATTACHMENT_MILLI, CHAT_RESULT_FIELD, CHAT_ROLE,
};
use crate::formats::{ChecksRead, Facts, Format, MessageReader};
use crate::history::COMPACTION_MARKER_NAME;
use crate::node::{Kind, Node};
use crate::view::{MessageView, Path, Replacement, Role, ToolResult};

/// Any role (unknown ones read as system-like), no `type`, and no part of a
/// type only another format has; `Some` says what does not fit.
pub fn misfit<N: Node>(facts: &Facts<N>) -> Option<String> {
    if let Err(why) = facts.untyped_role() {
        return Some(why);
    }
    facts.parts_misfit(Format::OpenAiChat)
}

/// A message's view, taking what detection's checks read of it (`read`)
/// in place of reading it again.
pub fn view<N: Node>(
    message: &N,
    mut read: ChecksRead<N>,
    reader: &MessageReader,
) -> Result<MessageView, InputError> {
    let (role_name, role) = read.role(message, &CHAT_ROLE, reader)?;
    let content = read.content(message, reader)?;
    let kind = read.content_kind(content.as_ref());
    let first = tag_candidate(&role_name, content.as_ref());
    // A tool message without content has no payload to clear: a placeholder
    // would add a field rather than replace one.
    let payload = match &content {
        Some(content) => Some(content_milli(content, kind, reader)?),
        None => None,
    };
    let mut milli = payload.map_or(0, |(content_milli, _)| content_milli);
    milli += refusal_milli(message, reader)?;
    let name = reader.optional_string(message, "", "name")?;
    if let Some(name) = &name {
        milli += reader.milli(name);
    }
    let mut view = MessageView::empty(role);
    milli += calls_milli(message, read, reader, &mut view.opens)?;
    if role == Role::Tool {
        read_tool_answer(message, reader, &role_name, payload, &mut view)?;
    }
    view.mark(is_marker(&role_name, name.as_deref(), first));
    view.tokens = MESSAGE_OVERHEAD + estimate::milli_to_tokens(milli);
    Ok(view)
}

/// The estimate of a message's `content`, of the kind `kind`, and whether
/// it already is the placeholder.
fn content_milli<N: Node>(
    content: &N,
    kind: Kind,
    reader: &MessageReader,
) -> Result<(u64, bool), InputError> {
    match kind {
        Kind::String => Ok(reader.payload(content)),
        Kind::Null => Ok((0, false)),
        Kind::Array => Ok((parts_milli(content, reader)?, false)),
        other => Err(reader.type_error(
            "content",
            "a string, null or an array of content parts",
            other,
        )),
    }
}

/// A reply the model refused has its words in `refusal`, `content` null.
fn refusal_milli<N: Node>(message: &N, reader: &MessageReader) -> Result<u64, InputError> {
    match reader.get(message, "", "refusal")? {
        Some(refusal) if refusal.kind() == Kind::String => Ok(reader.text_milli(&refusal)),
        Some(refusal) if refusal.kind() != Kind::Null => {
            Err(reader.type_error("refusal", "a string or null", refusal.kind()))
        }
        _ => Ok(0),
    }
}

/// The estimate of an assistant message's `tool_calls` (their names and
/// arguments), whose ids go to `opens`.
fn calls_milli<N: Node>(
    message: &N,
    mut read: ChecksRead<N>,
    reader: &MessageReader,
    opens: &mut Vec<String>,
) -> Result<u64, InputError> {
    let mut milli = 0;
    // Some servers answer `tool_calls: null` for a reply without calls.
    let calls = read.tool_calls(message, reader)?;
    let Some(calls) = calls.filter(|calls| calls.kind() != Kind::Null) else {
        return Ok(0);
    };
    for i in 0..part_count(reader, &calls, "tool_calls")? {
        let (field, call) = part_at(reader, &calls, "tool_calls", "a tool call object", i)?;
        opens.push(reader.required_string(&call, &field, "id")?);
        if let Some(function) = reader.get(&call, &field, "function")? {
            let function_field = subfield(&field, "function");
            if function.kind() != Kind::Object {
                return Err(reader.type_error(&function_field, "an object", function.kind()));
            }
            for key in ["name", "arguments"] {
                if let Some(text) = reader.string(&function, &function_field, key)? {
                    milli += reader.text_milli(&text);
                }
            }
        }
    }
    Ok(milli)
}

/// A tool message's `tool_call_id` (required of role `tool`, optional of
/// the older `function`) and its payload, which pruning may clear.
fn read_tool_answer<N: Node>(
    message: &N,
    reader: &MessageReader,
    role_name: &str,
    payload: Option<(u64, bool)>,
    view: &mut MessageView,
) -> Result<(), InputError> {
    match reader.optional_string(message, "", "tool_call_id")? {
        Some(id) => view.answers.push(id),
        None if role_name == "tool" => {
            return Err(reader.type_error("tool_call_id", "a string", Kind::Undefined));
        }
        None => {}
    }
    if let Some((content_milli, cleared)) = payload {
        view.tool_results.push(ToolResult::new(
            Path::key(CHAT_RESULT_FIELD),
            content_milli,
            cleared,
            Replacement::Placeholder,
        ));
    }
    Ok(())
}

/// Text parts count by their text; images, audio and files at the fixed
/// attachment cost; unknown parts by their JSON.
fn parts_milli<N: Node>(content: &N, reader: &MessageReader) -> Result<u64, InputError> {
    let mut milli = 0;
    for (field, part) in parts(reader, content, "content", "a content part object")? {
        milli += match required_type(reader, &part, &field)?.as_str() {
            "text" => text_milli(&part, reader, &field, "text")?,
            "refusal" => text_milli(&part, reader, &field, "refusal")?,
            "image_url" | "input_audio" | "file" => ATTACHMENT_MILLI,
            _ => reader.json_milli(&part),
        };
    }
    Ok(milli)
}

/// The marker: a system message named with the marker name.
pub fn marker(text: &str) -> crate::util::json::Json {
    crate::util::json::object([
        ("role", "system".into()),
        ("name", COMPACTION_MARKER_NAME.into()),
        ("content", text.into()),
    ])
}

/// The content blocks of a message, for the transcript. Call `view` first:
/// this assumes the fields it reads have been checked.
pub fn content<N: Node>(message: &N, reader: &MessageReader) -> Result<Content, InputError> {
    let role = reader.required_string(message, "", "role")?;
    let mut blocks = Vec::new();
    let content = reader.get(message, "", "content")?;
    let texts = content_blocks(
        content.as_ref(),
        &mut |part, part_type, blocks| match part_type {
            "text" => blocks.push(text_block(part)),
            "refusal" => blocks.push(Block::Text(
                string_field(part, "refusal").unwrap_or_default(),
            )),
            "image_url" => blocks.push(Block::Attachment("image".into())),
            "input_audio" => blocks.push(Block::Attachment("audio".into())),
            other => blocks.push(Block::Attachment(other.to_string())),
        },
    );
    if role == "tool" || role == "function" {
        let id = string_field(message, "tool_call_id");
        let output = crate::util::join::join(
            texts.iter().filter_map(|block| match block {
                Block::Text(text) => Some(text.as_str()),
                _ => None,
            }),
            "\n",
        );
        blocks.push(Block::ToolResult {
            id: id.unwrap_or_default(),
            output,
            is_error: false,
        });
    } else {
        blocks.extend(texts);
    }
    if let Some(calls) = reader.get(message, "", "tool_calls")? {
        for i in 0..calls.array_len().unwrap_or(0) {
            let call = reader.item(&calls, &format!("tool_calls[{i}]"), i)?;
            let function = call.field("function").ok().flatten();
            let of_function = |key| function.as_ref().and_then(|f| string_field(f, key));
            blocks.push(Block::ToolCall {
                id: string_field(&call, "id").unwrap_or_default(),
                name: of_function("name").unwrap_or_default(),
                arguments: of_function("arguments").unwrap_or_default(),
            });
        }
    }
    Ok(Content { role, blocks })
}

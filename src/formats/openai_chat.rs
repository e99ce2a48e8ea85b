//! OpenAI Chat Completions messages: `{ role, content, name?, tool_calls?,
//! tool_call_id? }`. Tool results are `role: "tool"` messages whose whole
//! `content` is the payload.

use crate::content::{Block, Content};
use crate::error::InputError;
use crate::estimate::{self, MESSAGE_OVERHEAD};
use crate::formats::shared::{
    chat_role, content_blocks, is_marker, part_type, parts, parts_misfit, string_field,
    tag_candidate, text_milli, untagged, untyped_role, ATTACHMENT_MILLI,
};
use crate::formats::{Format, MessageReader};
use crate::history::COMPACTION_MARKER_NAME;
use crate::node::{Kind, Node};
use crate::view::{MessageView, PathStep, Replacement, Role, ToolResult};

/// Any role (unknown ones read as system-like), no `type`, and no part of a
/// type only another format has; `Some` says what does not fit.
pub fn misfit<N: Node>(message: &N) -> Option<String> {
    if let Err(why) = untyped_role(message) {
        return Some(why);
    }
    parts_misfit(
        message.field("content").ok().flatten().as_ref(),
        Format::OpenAiChat,
    )
}

pub fn view<N: Node>(message: &N, reader: &MessageReader) -> Result<MessageView, InputError> {
    if message.kind() != Kind::Object {
        return Err(reader.type_error("", "a message object", message.kind()));
    }
    let (role_name, role) = chat_role(message, reader)?;

    let mut milli = 0;
    let mut cleared = false;
    let content = reader.get(message, "content", "content")?;
    let first = tag_candidate(&role_name, content.as_ref());
    // A tool message without content has no payload to clear: a placeholder
    // would add a field rather than replace one.
    let has_payload = content.is_some();
    if let Some(content) = content {
        match content.kind() {
            Kind::String => {
                let (text_milli, is_placeholder) = reader.payload(&content);
                milli += text_milli;
                cleared = is_placeholder;
            }
            Kind::Null => {}
            Kind::Array => milli += parts_milli(&content, reader)?,
            other => {
                return Err(reader.type_error(
                    "content",
                    "a string, null or an array of content parts",
                    other,
                ))
            }
        }
    }
    let content_milli = milli;

    // A reply the model refused has its words here, `content` null.
    if let Some(refusal) = reader.get(message, "refusal", "refusal")? {
        if refusal.kind() == Kind::String {
            milli += reader.text_milli(&refusal);
        } else if refusal.kind() != Kind::Null {
            return Err(reader.type_error("refusal", "a string or null", refusal.kind()));
        }
    }

    let name = reader.string(message, "name", "name")?;
    let name = name.and_then(|n| n.text().map(|t| t.into_owned()));
    if let Some(name) = &name {
        milli += reader.milli(name);
    }

    let mut opens = Vec::new();
    // Some servers answer `tool_calls: null` for a reply without calls.
    let calls = reader.get(message, "tool_calls", "tool_calls")?;
    if let Some(calls) = calls.filter(|calls| calls.kind() != Kind::Null) {
        let Some(len) = calls.array_len() else {
            return Err(reader.type_error("tool_calls", "an array", calls.kind()));
        };
        for i in 0..len {
            let field = format!("tool_calls[{i}]");
            let call = reader.item(&calls, &field, i)?;
            if call.kind() != Kind::Object {
                return Err(reader.type_error(&field, "a tool call object", call.kind()));
            }
            opens.push(reader.required_string(&call, &format!("{field}.id"), "id")?);
            if let Some(function) = reader.get(&call, &format!("{field}.function"), "function")? {
                if function.kind() != Kind::Object {
                    return Err(reader.type_error(
                        &format!("{field}.function"),
                        "an object",
                        function.kind(),
                    ));
                }
                for key in ["name", "arguments"] {
                    let field = format!("{field}.function.{key}");
                    if let Some(text) = reader.string(&function, &field, key)? {
                        milli += reader.text_milli(&text);
                    }
                }
            }
        }
    }

    let mut answers = Vec::new();
    let mut tool_results = Vec::new();
    if role == Role::Tool {
        match reader.string(message, "tool_call_id", "tool_call_id")? {
            Some(id) => answers.push(id.text().unwrap_or_default().into_owned()),
            None if role_name == "tool" => {
                return Err(reader.type_error("tool_call_id", "a string", Kind::Undefined));
            }
            None => {}
        }
        if has_payload {
            tool_results.push(ToolResult {
                tokens: estimate::milli_to_tokens(content_milli),
                cleared,
                path: vec![PathStep::Key("content")],
                replacement: Replacement::Placeholder,
            });
        }
    }

    let marker = is_marker(&role_name, name.as_deref(), first.as_deref());
    let role = if marker { Role::System } else { role };
    Ok(MessageView {
        role,
        starts_user_turn: role == Role::User,
        is_marker: marker,
        tokens: MESSAGE_OVERHEAD + estimate::milli_to_tokens(milli),
        opens,
        answers,
        tool_results,
        carried_reasoning: false,
        earlier_step_results: 0,
    })
}

/// Text parts count by their text; images, audio and files at the fixed
/// attachment cost; unknown parts by their JSON.
fn parts_milli<N: Node>(content: &N, reader: &MessageReader) -> Result<u64, InputError> {
    let mut milli = 0;
    for (field, part) in parts(reader, content, "content", "a content part object")? {
        milli += match part_type(reader, &part, &field)?.as_str() {
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
    let role = reader.required_string(message, "role", "role")?;
    let mut blocks = Vec::new();
    let content = reader.get(message, "content", "content")?;
    let texts = content_blocks(content.as_ref(), &mut |part, kind, blocks| match kind {
        "text" => blocks.push(Block::Text(
            untagged(&string_field(part, "text").unwrap_or_default()).to_string(),
        )),
        "refusal" => blocks.push(Block::Text(
            string_field(part, "refusal").unwrap_or_default(),
        )),
        "image_url" => blocks.push(Block::Attachment("image".into())),
        "input_audio" => blocks.push(Block::Attachment("audio".into())),
        other => blocks.push(Block::Attachment(other.to_string())),
    });
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
    if let Some(calls) = reader.get(message, "tool_calls", "tool_calls")? {
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

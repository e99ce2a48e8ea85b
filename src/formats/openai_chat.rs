//! OpenAI Chat Completions messages: `{ role, content, name?, tool_calls?,
//! tool_call_id? }`. Tool results are `role: "tool"` messages whose whole
//! `content` is the payload.

use crate::error::InputError;
use crate::estimate::{self, ATTACHMENT_TOKENS, MESSAGE_OVERHEAD};
use crate::formats::At;
use crate::history::COMPACTION_MARKER_NAME;
use crate::node::{Kind, Node};
use crate::view::{json_milli_tokens, MessageView, PathStep, Replacement, RoleKind, ToolResult};

pub fn accepts<N: Node>(message: &N) -> bool {
    let role_is_string =
        matches!(message.field("role"), Ok(Some(role)) if role.kind() == Kind::String);
    let typed_item = matches!(message.field("type"), Ok(Some(_)));
    role_is_string && !typed_item
}

pub fn view<N: Node>(message: &N, at: &At) -> Result<MessageView, InputError> {
    if message.kind() != Kind::Object {
        return Err(at.type_error("", "a message object", message.kind()));
    }
    let role_name = at.required_string(message, "role", "role")?;
    let role = match role_name.as_str() {
        "system" => RoleKind::System,
        "user" => RoleKind::User,
        "assistant" => RoleKind::Assistant,
        "tool" | "function" => RoleKind::Tool,
        _ => RoleKind::SystemLike,
    };

    let mut milli = 0;
    let mut content_text: Option<String> = None;
    if let Some(content) = at.get(message, "content", "content")? {
        match content.kind() {
            Kind::String => {
                let text = content.text().unwrap_or_default();
                milli += estimate::text_milli_tokens(&text);
                content_text = Some(text.into_owned());
            }
            Kind::Null => {}
            Kind::Array => milli += parts_milli(&content, at)?,
            other => {
                return Err(at.type_error(
                    "content",
                    "a string, null or an array of content parts",
                    other,
                ))
            }
        }
    }
    let content_milli = milli;

    let name = at.string(message, "name", "name")?;
    let name = name.and_then(|n| n.text().map(|t| t.into_owned()));
    if let Some(name) = &name {
        milli += estimate::text_milli_tokens(name);
    }

    let mut opens = Vec::new();
    if let Some(calls) = at.get(message, "tool_calls", "tool_calls")? {
        let Some(len) = calls.array_len() else {
            return Err(at.type_error("tool_calls", "an array", calls.kind()));
        };
        for i in 0..len {
            let field = format!("tool_calls[{i}]");
            let call = at.item(&calls, &field, i)?;
            if call.kind() != Kind::Object {
                return Err(at.type_error(&field, "a tool call object", call.kind()));
            }
            opens.push(at.required_string(&call, &format!("{field}.id"), "id")?);
            if let Some(function) = at.get(&call, &format!("{field}.function"), "function")? {
                if function.kind() != Kind::Object {
                    return Err(at.type_error(
                        &format!("{field}.function"),
                        "an object",
                        function.kind(),
                    ));
                }
                for key in ["name", "arguments"] {
                    let field = format!("{field}.function.{key}");
                    if let Some(text) = at.string(&function, &field, key)? {
                        milli += estimate::text_milli_tokens(&text.text().unwrap_or_default());
                    }
                }
            }
        }
    }

    let mut answers = Vec::new();
    let mut tool_results = Vec::new();
    if role == RoleKind::Tool {
        match at.string(message, "tool_call_id", "tool_call_id")? {
            Some(id) => answers.push(id.text().unwrap_or_default().into_owned()),
            None if role_name == "tool" => {
                return Err(at.type_error("tool_call_id", "a string", Kind::Undefined));
            }
            None => {}
        }
        tool_results.push(ToolResult {
            tokens: estimate::milli_to_tokens(content_milli),
            cleared: content_text.as_deref() == Some(at.placeholder),
            path: vec![PathStep::Key("content")],
            replacement: Replacement::Placeholder,
        });
    }

    Ok(MessageView {
        role,
        starts_user_turn: role == RoleKind::User,
        is_marker: role == RoleKind::System && name.as_deref() == Some(COMPACTION_MARKER_NAME),
        tokens: MESSAGE_OVERHEAD + estimate::milli_to_tokens(milli),
        opens,
        answers,
        tool_results,
    })
}

/// Text parts count by their text; images, audio and files at the fixed
/// attachment cost; unknown parts by their JSON.
fn parts_milli<N: Node>(parts: &N, at: &At) -> Result<u64, InputError> {
    let len = parts.array_len().unwrap_or(0);
    let mut milli = 0;
    for i in 0..len {
        let field = format!("content[{i}]");
        let part = at.item(parts, &field, i)?;
        if part.kind() != Kind::Object {
            return Err(at.type_error(&field, "a content part object", part.kind()));
        }
        let kind = at.required_string(&part, &format!("{field}.type"), "type")?;
        milli += match kind.as_str() {
            "text" => text_field(&part, at, &field, "text")?,
            "refusal" => text_field(&part, at, &field, "refusal")?,
            "image_url" | "input_audio" | "file" => ATTACHMENT_TOKENS * 1_000,
            _ => json_milli_tokens(&part),
        };
    }
    Ok(milli)
}

fn text_field<N: Node>(part: &N, at: &At, field: &str, key: &str) -> Result<u64, InputError> {
    let text = at.required_string(part, &format!("{field}.{key}"), key)?;
    Ok(estimate::text_milli_tokens(&text))
}

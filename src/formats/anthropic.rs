//! Anthropic Messages: `{ role: "user" | "assistant", content }` with
//! `content` a string or an array of blocks. Tool calls are `tool_use` blocks
//! of assistant messages; tool results are `tool_result` blocks inside user
//! messages, and each block's own `content` is the payload pruning replaces.
//! The API refuses unknown fields, so only payloads change; `cache_control`,
//! `is_error`, thinking signatures and every other field stay as they are.

use crate::content::{Block, Content};
use crate::error::InputError;
use crate::estimate::{self, MESSAGE_OVERHEAD};
use crate::formats::result_parts::{ResultParts, Untagged};
use crate::formats::shared::{
    content_blocks, content_misfit, foreign_field, is_marker, joined, output_text, parts,
    required_type, role_misfit, string_field, subfield, tag_candidate, text_block, text_milli,
    tool_call_block, type_name, ATTACHMENT_MILLI, LANGCHAIN_FIELDS,
};
use crate::formats::{ChecksRead, Facts, Format, MessageReader, RoleRule};
use crate::node::{Kind, Node};
use crate::view::{MessageView, Replacement, Role, ToolResult};

const ROLES: &[(&str, Role)] = &[("user", Role::User), ("assistant", Role::Assistant)];

const NO_SYSTEM_ROLE: &str = " (the system prompt is the request's `system`)";

/// Where a message's tool results are: `tool_result` blocks of its content,
/// each one's payload its `content`, cleared to the placeholder. The view
/// reads them by it, and pruning's older messages are read by it alone,
/// many at a time (`Format::result_parts_by_name`).
pub const RESULT_PARTS: ResultParts = ResultParts {
    array: "content",
    part_type: "tool_result",
    type_prefix: "",
    result_key: "",
    id_key: "tool_use_id",
    payload: "content",
    value_key: "",
    state_key: "",
    types: &[],
    untagged: Untagged::Content,
    kept_if: "",
    cleared: Replacement::Placeholder,
    cleared_error: Replacement::Placeholder,
};

/// A user or assistant message with a string or an array content, no OpenAI
/// Chat fields and no foreign blocks; no `type`, unless it is an assistant
/// reply stored as the API returned it (`type: "message"`, with `id`,
/// `model`, `stop_reason`, `usage`, ...). `Some` says what does not fit.
pub fn misfit<N: Node>(facts: &Facts<N>) -> Option<String> {
    // No `MessageParam` has a `name`; OpenAI Chat's messages may, and count
    // it, and a message that fits several formats must read the same in each.
    static FOREIGN: [&str; 4] = joined(&[LANGCHAIN_FIELDS, &["name"]]);
    if let Some(why) = foreign_field(facts.message, &FOREIGN) {
        return Some(why);
    }
    let kind = facts.content_kind();
    let role = match facts.untyped_role() {
        Ok(role) => role,
        Err(_) if is_reply(facts.message, kind) => "assistant",
        Err(why) => return Some(why),
    };
    if !matches!(role, "user" | "assistant") {
        return Some(role_misfit(role));
    }
    if !matches!(kind, Kind::String | Kind::Array) {
        return Some(content_misfit(kind));
    }
    facts
        .chat_field_misfit()
        .or_else(|| facts.parts_misfit(Format::Anthropic))
}

/// An API reply as returned: `{ type: "message", role: "assistant", content: [...] }`.
fn is_reply<N: Node>(message: &N, content: Kind) -> bool {
    type_name(message).as_deref() == Some("message")
        && string_field(message, "role").as_deref() == Some("assistant")
        && content == Kind::Array
}

/// The role `view` reads first (see `Format::role`).
pub const ROLE: RoleRule = RoleRule::one_of(ROLES, NO_SYSTEM_ROLE);

/// A message's view, taking what detection's checks read of it (`read`)
/// in place of reading it again.
pub fn view<N: Node>(
    message: &N,
    mut read: ChecksRead<N>,
    reader: &MessageReader,
) -> Result<MessageView, InputError> {
    let (role_name, mut role) = read.role(message, &ROLE, reader)?;
    let content = read.content(message, reader)?;
    let kind = read.content_kind(content.as_ref());
    let mut milli = 0;
    let mut opens = Vec::new();
    let mut answers = Vec::new();
    let mut tool_results = Vec::new();
    let mut other_blocks = 0;
    match &content {
        Some(text) if kind == Kind::String => {
            milli += reader.text_milli(text);
            other_blocks += 1;
        }
        Some(array) if kind == Kind::Array => {
            let blocks = parts(reader, array, "content", "a content block object")?;
            for (index, (field, block)) in blocks.iter().enumerate() {
                let block_type = required_type(reader, block, field)?;
                if block_type != RESULT_PARTS.part_type {
                    other_blocks += 1;
                }
                milli += match block_type.as_str() {
                    "tool_use" => {
                        opens.push(reader.required_string(block, field, "id")?);
                        let input = reader.get(block, field, "input")?;
                        text_milli(block, reader, field, "name")?
                            + input.map_or(0, |i| reader.json_milli(&i))
                    }
                    result if result == RESULT_PARTS.part_type => {
                        answers.push(reader.required_string(block, field, RESULT_PARTS.id_key)?);
                        let (milli, result) = payload(block, index, field, reader)?;
                        tool_results.extend(result);
                        milli
                    }
                    _ => block_milli(block, &block_type, field, reader)?,
                };
            }
        }
        _ => {
            return Err(reader.type_error(
                "content",
                "a string or an array of content blocks",
                kind,
            ))
        }
    }
    let marker = is_marker(
        &role_name,
        None,
        tag_candidate(&role_name, content.as_ref()),
    );
    if marker {
        role = Role::System;
    } else if !answers.is_empty() && other_blocks == 0 {
        role = Role::Tool;
    }
    Ok(MessageView {
        role,
        // A user message that carries tool results answers the assistant's
        // tool_use: a cut there would orphan it, so it never starts a turn.
        starts_user_turn: role == Role::User && answers.is_empty(),
        is_marker: marker,
        tokens: MESSAGE_OVERHEAD + estimate::milli_to_tokens(milli),
        opens,
        answers,
        tool_results,
        carried_reasoning: false,
        earlier_step_results: 0,
    })
}

/// Text, thinking, images and documents, and anything else by its JSON (the
/// server tools' blocks among them).
fn block_milli<N: Node>(
    block: &N,
    block_type: &str,
    field: &str,
    reader: &MessageReader,
) -> Result<u64, InputError> {
    Ok(match block_type {
        "text" => text_milli(block, reader, field, "text")?,
        "thinking" => text_milli(block, reader, field, "thinking")?,
        // The encrypted thinking stands for the thinking it hides.
        "redacted_thinking" => {
            let data = reader.required_string_value(block, field, "data")?;
            reader.encrypted_milli(&data)
        }
        "image" | "document" => ATTACHMENT_MILLI,
        _ => reader.json_milli(block),
    })
}

/// A `tool_result` block's payload, its `content`: a string or an array of
/// text and image blocks, with its estimate. A result without content has
/// nothing to clear. Read as the AI SDK formats read theirs
/// (`ai_sdk::PayloadReader`), by `view` and by `Format::result_of_part`.
pub fn payload<N: Node>(
    block: &N,
    index: usize,
    field: &str,
    reader: &MessageReader,
) -> Result<(u64, Option<ToolResult>), InputError> {
    let Some(content) = reader.get(block, field, RESULT_PARTS.payload)? else {
        return Ok((0, None));
    };
    let content_field = subfield(field, RESULT_PARTS.payload);
    let (milli, cleared) = match content.kind() {
        Kind::String => reader.payload(&content),
        Kind::Array => {
            let mut milli = 0;
            for (inner_field, inner) in
                parts(reader, &content, &content_field, "a content block object")?
            {
                let block_type = required_type(reader, &inner, &inner_field)?;
                milli += block_milli(&inner, &block_type, &inner_field, reader)?;
            }
            (milli, false)
        }
        other => {
            return Err(reader.type_error(
                &content_field,
                "a string or an array of content blocks",
                other,
            ))
        }
    };
    Ok((
        milli,
        Some(RESULT_PARTS.result(index, milli, cleared, false)),
    ))
}

/// The marker: a user message of one text block holding the tagged summary.
/// The list has no system role and the API refuses unknown fields; a user
/// message is accepted as sent, and the API joins it with the user message
/// that follows it.
pub fn marker(text: &str) -> crate::util::json::Json {
    crate::formats::shared::tagged_user_message("text", text)
}

/// The content blocks of a message, for the transcript. Call `view` first.
pub fn content<N: Node>(message: &N, reader: &MessageReader) -> Result<Content, InputError> {
    let role = reader.required_string(message, "", "role")?;
    let content = reader.get(message, "", "content")?;
    let blocks = content_blocks(
        content.as_ref(),
        &mut |block, block_type, blocks| match block_type {
            "text" => blocks.push(text_block(block)),
            "thinking" => blocks.push(Block::Reasoning(
                string_field(block, "thinking").unwrap_or_default(),
            )),
            // Nothing readable to summarise.
            "redacted_thinking" => {}
            "tool_use" => blocks.push(tool_call_block(block, "id", "name", "input")),
            "tool_result" => tool_result_blocks(block, blocks),
            other => blocks.push(Block::Attachment(other.to_string())),
        },
    );
    Ok(Content { role, blocks })
}

fn tool_result_blocks<N: Node>(block: &N, blocks: &mut Vec<Block>) {
    let content = block.field("content").ok().flatten();
    let (output, attachments) = output_text(content.as_ref(), &["text"]);
    let is_error = block
        .field("is_error")
        .ok()
        .flatten()
        .and_then(|flag| flag.boolean())
        .unwrap_or(false);
    blocks.push(Block::ToolResult {
        id: string_field(block, "tool_use_id").unwrap_or_default(),
        output,
        is_error,
    });
    blocks.extend(attachments);
}

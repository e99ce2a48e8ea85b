//! AI SDK 4 `CoreMessage`s, as apps built on `ai` 4.x still store them: the
//! roles and content shapes of `ModelMessage` (`ai_sdk.rs`, which this
//! shares), but a tool call's arguments are `args`, a tool result's payload
//! is `result` (any JSON value, with `isError` beside it), reasoning may be
//! `redacted-reasoning`, and images and files carry a `mimeType`. The rules
//! are those of `ai` 4.3's own schemas (`coreMessageSchema`).

use crate::content::{Block, Content};
use crate::error::InputError;
use crate::formats::ai_sdk;
use crate::formats::result_parts::{ResultParts, Untagged};
use crate::formats::shared::{json_text, string_field, tool_call_block};
use crate::formats::{ChecksRead, Facts, Format, MessageReader};
use crate::node::{Kind, Node};
use crate::view::{MessageView, Replacement, ToolResult};

/// The roles and content shapes of `ModelMessage`, and parts of AI SDK 4.
pub fn misfit<N: Node>(facts: &Facts<N>) -> Option<String> {
    ai_sdk::misfit_as(facts, Format::AiSdk4)
}

pub fn view<N: Node>(
    message: &N,
    read: ChecksRead<N>,
    reader: &MessageReader,
) -> Result<MessageView, InputError> {
    let version = ai_sdk::Version {
        arguments_key: "args",
        attachments: &["image", "file"],
        encrypted_reasoning: Some("redacted-reasoning"),
        payload: result,
    };
    ai_sdk::view_with(message, read, reader, &version)
}

/// Where a message's tool results are: `tool-result` parts of its content,
/// each one's payload its `result`, cleared to the placeholder. The view
/// reads them by it, and pruning's older messages are read by it alone,
/// many at a time (`Format::result_parts_by_name`).
pub const RESULT_PARTS: ResultParts = ResultParts {
    array: "content",
    part_type: ai_sdk::RESULT_PARTS.part_type,
    type_prefix: "",
    result_key: "",
    id_key: ai_sdk::RESULT_PARTS.id_key,
    payload: "result",
    value_key: "",
    state_key: "",
    types: &[],
    untagged: Untagged::Json,
    kept_if: "experimental_content",
    cleared: Replacement::Placeholder,
    cleared_error: Replacement::Placeholder,
};

/// A tool result's payload: `result`, a string (counted as text, and the
/// placeholder once cleared) or any other JSON value. A result that also has
/// `experimental_content` is kept whole: `ai` 4 sends that content instead
/// of `result` to the providers that take it (Anthropic), and one edit
/// cannot clear both.
pub fn result<N: Node>(
    part: &N,
    index: usize,
    field: &str,
    reader: &MessageReader,
) -> Result<(u64, Option<ToolResult>), InputError> {
    let result = reader.get(part, field, RESULT_PARTS.payload)?;
    let (milli, cleared) = match &result {
        Some(text) if text.kind() == Kind::String => reader.payload(text),
        Some(value) => (reader.json_milli(value), false),
        None => (0, false),
    };
    let rich = reader.get(part, field, RESULT_PARTS.kept_if)?;
    if let Some(rich) = rich {
        return Ok((milli + reader.json_milli(&rich), None));
    }
    Ok((
        milli,
        Some(RESULT_PARTS.result(index, milli, cleared, false)),
    ))
}

/// The marker: a user message of one text part holding the tagged summary,
/// as for `ModelMessage`s (`ai` 4 sends a system message inside `messages`
/// as it is, but the same marker reads the same in both versions).
pub fn marker(text: &str) -> crate::util::json::Json {
    ai_sdk::marker(text)
}

/// The content blocks of a message, for the transcript. Call `view` first.
pub fn content<N: Node>(message: &N, reader: &MessageReader) -> Result<Content, InputError> {
    ai_sdk::content_with(message, reader, |part, part_type, blocks| match part_type {
        "tool-call" => blocks.push(tool_call_block(part, "toolCallId", "toolName", "args")),
        "tool-result" => {
            let result = part.field("result").ok().flatten();
            let output = result.map_or_else(String::new, |value| {
                value
                    .text()
                    .map_or_else(|| json_text(&value), |t| t.into_owned())
            });
            blocks.push(Block::ToolResult {
                id: string_field(part, "toolCallId").unwrap_or_default(),
                output,
                is_error: part
                    .field("isError")
                    .ok()
                    .flatten()
                    .and_then(|e| e.boolean())
                    == Some(true),
            });
        }
        // Encrypted: nothing a summariser could read.
        "redacted-reasoning" => {}
        other => blocks.push(Block::Attachment(other.to_string())),
    })
}

//! OpenAI Responses input items: messages (`{ type?: "message", role,
//! content }` with `input_text` / `output_text` parts), `function_call` and
//! `function_call_output` items paired by `call_id`, `reasoning` items, and
//! the built-in tools' items. A function call's result is its own item, whose
//! `output` is the payload pruning replaces.
//!
//! A reasoning item belongs with the item after it (the API refuses one
//! without the other). Turns start only at user messages and a model's
//! response never puts a user message after its reasoning, so a cut never
//! falls between them. A reasoning item directly before a user message is one
//! whose response ended early (it has no following item of its own): it stays
//! with the older turn, and a cut there drops it rather than sending it alone
//! at the start of the history.

use crate::content::{Block, Content};
use crate::error::InputError;
use crate::estimate::{self, MESSAGE_OVERHEAD};
use crate::formats::shared::{
    content_blocks, content_misfit, foreign_field, has, is_marker, joined, output_text, parts,
    required_type, role_misfit, string_field, tag_candidate, tagged, text_milli, tool_call_block,
    type_name, untagged, ATTACHMENT_MILLI, LANGCHAIN_FIELDS, OLLAMA_FIELDS,
};
use crate::formats::{Facts, Format, MessageReader, RoleRule};
use crate::node::{Kind, Node};
use crate::view::{MessageView, Path, Replacement, Role, ToolResult};

const ROLES: &[(&str, Role)] = &[
    ("user", Role::User),
    ("assistant", Role::Assistant),
    ("system", Role::System),
    ("developer", Role::Other),
];
/// The part types of text in messages and tool outputs.
const TEXT_PARTS: &[&str] = &["input_text", "output_text"];

/// A typed item, an untyped message of one of the four roles with a string
/// or an array content and no foreign parts, or an untyped item reference;
/// `Some` says what does not fit.
pub fn misfit<N: Node>(facts: &Facts<N>) -> Option<String> {
    let message = facts.message;
    // No item has `parts`; a Gemini content does.
    static FOREIGN: [&str; 7] = joined(&[&["parts"], LANGCHAIN_FIELDS, OLLAMA_FIELDS]);
    if let Some(why) = foreign_field(message, &FOREIGN) {
        return Some(why);
    }
    if let Some(why) = facts.ollama_calls_misfit() {
        return Some(why);
    }
    match message.field("type") {
        Ok(Some(item_type)) if item_type.text().as_deref() == Some("message") => {
            message_misfit(facts)
        }
        Ok(Some(item_type)) if item_type.kind() == Kind::String => None,
        Ok(Some(item_type)) if item_type.kind() != Kind::Null => {
            Some("its field `type`, which is not a string".to_string())
        }
        // A message with a string role is no reference, and the role's
        // text was likely read already, by another format's check.
        Ok(_) if facts.string_role().is_err() && is_reference(message) => None,
        Ok(_) => message_misfit(facts),
        Err(_) => Some("its field `type`, which could not be read".to_string()),
    }
}

/// `{ id, type?: "item_reference" | null }`: a stored item, by its id.
fn is_reference<N: Node>(item: &N) -> bool {
    !has(item, "role")
        && item
            .field("id")
            .ok()
            .flatten()
            .is_some_and(|id| id.kind() == Kind::String)
}

fn message_misfit<N: Node>(facts: &Facts<N>) -> Option<String> {
    let role = match facts.string_role() {
        Ok(role) => role,
        Err(why) => return Some(why),
    };
    if MESSAGE_ROLE.by_name(role).is_none() {
        return Some(role_misfit(role));
    }
    let kind = facts.content_kind();
    if !matches!(kind, Kind::String | Kind::Array) {
        return Some(content_misfit(kind));
    }
    facts
        .chat_field_misfit()
        .or_else(|| facts.parts_misfit(Format::OpenAiResponses))
}

/// An item's `type`; an item reference's when it has none (`None` for a
/// message without one).
fn item_type<N: Node>(item: &N, reader: &MessageReader) -> Result<Option<String>, InputError> {
    if item.kind() != Kind::Object {
        return Err(reader.type_error("", "an input item object", item.kind()));
    }
    Ok(match reader.get(item, "", "type")? {
        Some(item_type) if item_type.kind() == Kind::String => {
            item_type.text().map(|t| t.into_owned())
        }
        Some(item_type) if item_type.kind() != Kind::Null => {
            return Err(reader.type_error("type", "a string", item_type.kind()))
        }
        _ if is_reference(item) => Some("item_reference".to_string()),
        _ => None,
    })
}

/// The `type` of an item that is a message, which may also have none.
pub const MESSAGE_TYPE: &str = "message";

/// Whether an item is a message (untyped, or of type `message`).
fn is_message(item_type: Option<&str>) -> bool {
    item_type.is_none_or(|item_type| item_type == MESSAGE_TYPE)
}

/// The role `view` reads of a message item, `None` for the other items
/// (see `Format::role`).
pub fn role<N: Node>(
    item: &N,
    reader: &MessageReader,
) -> Result<Option<(String, Role)>, InputError> {
    if !is_message(item_type(item, reader)?.as_deref()) {
        return Ok(None);
    }
    message_role(item, reader).map(Some)
}

fn message_role<N: Node>(item: &N, reader: &MessageReader) -> Result<(String, Role), InputError> {
    MESSAGE_ROLE.named(reader.required_string(item, "", "role")?, reader)
}

/// The field of a call's output item that holds its result.
pub const RESULT_FIELD: &str = "output";

/// The role `view` gives an item that is no message and has no role, by
/// its type, for the types whose role settles what pruning reads of it (the
/// newest-first reads find them many at a time): a call's output is a tool
/// message, a call or reasoning the assistant's, and so is a call of one of
/// OpenAI's own tools (the `*_call` items of the SDK's `ResponseOutputItem`),
/// which holds no result to clear.
pub const ROLE_BY_TYPE: RoleRule = RoleRule::one_of(
    &[
        ("function_call_output", Role::Tool),
        ("custom_tool_call_output", Role::Tool),
        ("function_call", Role::Assistant),
        ("custom_tool_call", Role::Assistant),
        ("reasoning", Role::Assistant),
        ("web_search_call", Role::Assistant),
        ("file_search_call", Role::Assistant),
        ("computer_call", Role::Assistant),
        ("code_interpreter_call", Role::Assistant),
        ("image_generation_call", Role::Assistant),
        ("local_shell_call", Role::Assistant),
        ("mcp_call", Role::Assistant),
    ],
    "",
);

/// A message item's role (its kind is checked before).
pub const MESSAGE_ROLE: RoleRule = RoleRule::one_of(ROLES, "");

pub fn view<N: Node>(item: &N, reader: &MessageReader) -> Result<MessageView, InputError> {
    let item_type = item_type(item, reader)?;
    let mut view = MessageView::empty(Role::Assistant);
    // `None` for a message, untyped or not (`is_message`).
    let other_type = item_type.as_deref().filter(|kind| !is_message(Some(kind)));
    let milli = match other_type {
        None => message_milli(item, reader, &mut view)?,
        Some("function_call") => {
            view.opens
                .push(reader.required_string(item, "", "call_id")?);
            text_milli(item, reader, "", "name")? + text_milli(item, reader, "", "arguments")?
        }
        Some("custom_tool_call") => {
            view.opens
                .push(reader.required_string(item, "", "call_id")?);
            text_milli(item, reader, "", "name")? + text_milli(item, reader, "", "input")?
        }
        Some("function_call_output" | "custom_tool_call_output") => {
            view.role = Role::Tool;
            view.answers
                .push(reader.required_string(item, "", "call_id")?);
            let (milli, result) = call_output(item, reader)?;
            view.tool_results.push(result);
            milli
        }
        Some("reasoning") => {
            view.carried_reasoning = true;
            reasoning_milli(item, reader)?
        }
        // Codex records the work tree's state in its rollouts between turns
        // and never sends it to the model: nothing to count, not even the
        // message's overhead (below).
        Some("ghost_snapshot") => {
            view.role = Role::Other;
            0
        }
        Some(other) => {
            // Built-in tools' calls and outputs, paired by `call_id` where
            // they have one. Screenshots and generated images are attachments.
            let call_id = string_field(item, "call_id");
            if other.ends_with("_call_output") {
                view.role = Role::Tool;
                view.answers.extend(call_id);
            } else if other.ends_with("_call") {
                view.opens.extend(call_id);
            }
            match other {
                "computer_call_output" | "image_generation_call" => ATTACHMENT_MILLI,
                _ => reader.json_milli(item),
            }
        }
    };
    view.tokens = MESSAGE_OVERHEAD + estimate::milli_to_tokens(milli);
    if item_type.as_deref() == Some("ghost_snapshot") {
        view.tokens = 0;
    }
    Ok(view)
}

fn message_milli<N: Node>(
    item: &N,
    reader: &MessageReader,
    view: &mut MessageView,
) -> Result<u64, InputError> {
    let (role_name, role) = message_role(item, reader)?;
    view.role = role;
    let content = reader.get(item, "", "content")?;
    let milli = match &content {
        Some(text) if text.kind() == Kind::String => reader.text_milli(text),
        Some(array) if array.kind() == Kind::Array => parts_milli(array, "content", reader)?,
        other => {
            return Err(reader.type_error(
                "content",
                "a string or an array of content parts",
                other.as_ref().map_or(Kind::Undefined, Node::kind),
            ))
        }
    };
    // A system message named as OpenAI Chat's marker is one here too, as in
    // every format that takes such a message, and a `name` counts as there:
    // the reads newest first rely on a message that fits several formats
    // reading the same in each.
    let name = string_field(item, "name");
    view.mark(is_marker(
        &role_name,
        name.as_deref(),
        tag_candidate(&role_name, content.as_ref()),
    ));
    Ok(milli + name.as_deref().map_or(0, |name| reader.milli(name)))
}

/// Text parts by their text, images, files and audio at the attachment cost,
/// anything else by its JSON.
fn parts_milli<N: Node>(array: &N, field: &str, reader: &MessageReader) -> Result<u64, InputError> {
    let mut milli = 0;
    for (part_field, part) in parts(reader, array, field, "a content part object")? {
        milli += match required_type(reader, &part, &part_field)?.as_str() {
            "input_text" | "output_text" => text_milli(&part, reader, &part_field, "text")?,
            "refusal" => text_milli(&part, reader, &part_field, "refusal")?,
            "input_image" | "input_file" | "input_audio" => ATTACHMENT_MILLI,
            _ => reader.json_milli(&part),
        };
    }
    Ok(milli)
}

/// A call output's `output`, a string or an array of parts: the payload.
fn call_output<N: Node>(item: &N, reader: &MessageReader) -> Result<(u64, ToolResult), InputError> {
    let output = reader.get(item, "", RESULT_FIELD)?;
    let (milli, cleared) = match &output {
        Some(text) if text.kind() == Kind::String => reader.payload(text),
        Some(array) if array.kind() == Kind::Array => {
            (parts_milli(array, "output", reader)?, false)
        }
        other => {
            return Err(reader.type_error(
                "output",
                "a string or an array of content parts",
                other.as_ref().map_or(Kind::Undefined, Node::kind),
            ))
        }
    };
    let result = ToolResult::new(
        Path::key(RESULT_FIELD),
        milli,
        cleared,
        Replacement::Placeholder,
    );
    Ok((milli, result))
}

/// The summary and reasoning text, and the encrypted reasoning, which stands
/// in for the reasoning the model reads back.
fn reasoning_milli<N: Node>(item: &N, reader: &MessageReader) -> Result<u64, InputError> {
    let mut milli = 0;
    for key in ["summary", "content"] {
        // Codex stores (and sends) `content: null` beside encrypted reasoning.
        let Some(array) = reader
            .get(item, key, key)?
            .filter(|value| value.kind() != Kind::Null)
        else {
            continue;
        };
        for (field, part) in parts(reader, &array, key, "a reasoning part object")? {
            milli += text_milli(&part, reader, &field, "text")?;
        }
    }
    if let Some(encrypted) = reader.string(item, "", "encrypted_content")? {
        milli += reader.encrypted_milli(&encrypted);
    }
    Ok(milli)
}

/// The marker: a user message item of one `input_text` part holding the
/// tagged summary. The API refuses unknown fields, so the tag is the mark.
pub fn marker(text: &str) -> crate::util::json::Json {
    crate::util::json::object([
        ("type", "message".into()),
        ("role", "user".into()),
        (
            "content",
            crate::util::json::Json::Arr(vec![crate::util::json::object([
                ("type", "input_text".into()),
                ("text", tagged(text).into()),
            ])]),
        ),
    ])
}

/// The content blocks of an item, for the transcript. Call `view` first.
pub fn content<N: Node>(item: &N, _at: &MessageReader) -> Result<Content, InputError> {
    let text = |key| string_field(item, key).unwrap_or_default();
    let item_type = type_name(item).unwrap_or_else(|| {
        let item_type = if is_reference(item) {
            "item_reference"
        } else {
            "message"
        };
        item_type.to_string()
    });
    let (role, blocks) = match item_type.as_str() {
        "message" => (text("role"), message_blocks(item)),
        "function_call" => (
            assistant(),
            vec![tool_call_block(item, "call_id", "name", "arguments")],
        ),
        "custom_tool_call" => (
            assistant(),
            vec![tool_call_block(item, "call_id", "name", "input")],
        ),
        "function_call_output" | "custom_tool_call_output" => {
            let output = item.field("output").ok().flatten();
            let (output, attachments) = output_text(output.as_ref(), TEXT_PARTS);
            let mut blocks = vec![Block::ToolResult {
                id: text("call_id"),
                output,
                is_error: false,
            }];
            blocks.extend(attachments);
            ("tool".to_string(), blocks)
        }
        "reasoning" => {
            let summary = item.field("summary").ok().flatten();
            let (mut reasoning, _) = output_text(summary.as_ref(), &["summary_text"]);
            if reasoning.is_empty() {
                let content = item.field("content").ok().flatten();
                reasoning = output_text(content.as_ref(), &["reasoning_text"]).0;
            }
            let blocks = if reasoning.is_empty() {
                Vec::new()
            } else {
                vec![Block::Reasoning(reasoning)]
            };
            (assistant(), blocks)
        }
        other => {
            let role = if other.ends_with("_output") {
                "tool"
            } else {
                "assistant"
            };
            (role.to_string(), vec![Block::Attachment(other.to_string())])
        }
    };
    Ok(Content { role, blocks })
}

fn message_blocks<N: Node>(item: &N) -> Vec<Block> {
    let content = item.field("content").ok().flatten();
    content_blocks(content.as_ref(), &mut |part, part_type, blocks| {
        let text = |key| string_field(part, key).unwrap_or_default();
        blocks.push(match part_type {
            "input_text" | "output_text" => Block::Text(untagged(&text("text")).to_string()),
            "refusal" => Block::Text(text("refusal")),
            "input_image" => Block::Attachment("image".to_string()),
            "input_file" => Block::Attachment("file".to_string()),
            "input_audio" => Block::Attachment("audio".to_string()),
            other => Block::Attachment(other.to_string()),
        })
    })
}

fn assistant() -> String {
    "assistant".to_string()
}

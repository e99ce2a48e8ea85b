//! Ollama's native `/api/chat` messages, as the `ollama` npm client types
//! them: `{ role, content, thinking?, images?, tool_calls?, tool_name? }`. A
//! tool call is `{ function: { name, arguments } }` with no id, and a tool
//! result is a `role: "tool"` message whose `content` is the payload, named
//! by `tool_name`.
//!
//! Calls and results pair by position, as Ollama's chat templates render
//! them: the tool messages directly after an assistant message with
//! `tool_calls` answer its calls in order. `tool_name`, and the `id` and
//! `tool_call_id` newer servers add, are not needed for the pairing; a
//! result beyond the calls answers none and is kept where it is, as an
//! orphan of any format is.

use crate::content::{Block, Content};
use crate::error::InputError;
use crate::estimate::{self, MESSAGE_OVERHEAD};
use crate::formats::shared::{
    foreign_field, has, is_marker, joined, json_text, part_at, part_count, role_misfit,
    starts_with_tag, string_field, subfield, untagged, ATTACHMENT_MILLI, CHAT_RESULT_FIELD,
    CHAT_ROLE, LANGCHAIN_FIELDS,
};
use crate::formats::{ChecksRead, Facts, MessageReader};
use crate::node::{Kind, Node};
use crate::view::{MessageView, Path, Replacement, Role, ToolResult};

/// The fields that only Ollama messages have, beside a role and a string
/// content: the other formats refuse a message with one of them.
pub const OLLAMA_FIELDS: &[&str] = &["images", "thinking", "tool_name"];

/// What a tool call without an id stands for until `pair_by_position` gives
/// it one.
const UNPAIRED: &str = "";

/// The four roles, a string content (or none beside tool calls), no `type`
/// or `name`, and tool calls whose arguments are an object (OpenAI Chat's
/// are a JSON string).
pub fn misfit<N: Node>(facts: &Facts<N>) -> Option<String> {
    static FOREIGN: [&str; 6] = joined(&[LANGCHAIN_FIELDS, &["type", "parts", "name"]]);
    if let Some(why) = foreign_field(facts.message, &FOREIGN) {
        return Some(why);
    }
    let role = match facts.string_role() {
        Ok(role) => role,
        Err(why) => return Some(why),
    };
    if !matches!(role, "system" | "user" | "assistant" | "tool") {
        return Some(role_misfit(role));
    }
    if !matches!(facts.content_kind(), Kind::Undefined | Kind::String) {
        return Some("its content, which is not a string".to_string());
    }
    let calls = facts.tool_calls()?;
    let len = calls.array_len()?;
    (0..len).find_map(|i| {
        let arguments = arguments_of(&calls.item(i).ok()?)?;
        (arguments.kind() == Kind::String)
            .then(|| format!("its field `tool_calls[{i}].function.arguments`, which is a string"))
    })
}

fn arguments_of<N: Node>(call: &N) -> Option<N> {
    call.field("function")
        .ok()
        .flatten()?
        .field("arguments")
        .ok()
        .flatten()
}

/// Whether a message has an Ollama tool call, which the other formats must
/// not read: one with no id, or with an object as its arguments. (Ollama's
/// own fields, `OLLAMA_FIELDS`, are in those formats' lists of other
/// formats' fields.)
pub fn ollama_calls_misfit<N: Node>(calls: &N) -> Option<String> {
    let len = calls.array_len()?;
    (0..len).find_map(|i| {
        let call = calls.item(i).ok()?;
        let object_arguments = arguments_of(&call).is_some_and(|a| a.kind() == Kind::Object);
        (call.kind() == Kind::Object && (!has(&call, "id") || object_arguments))
            .then(|| format!("its field `tool_calls[{i}]`, an Ollama tool call"))
    })
}

/// A message's view. What detection's checks read of it (`read`: most
/// often its role, content and tool calls, all a message has) is not
/// read again.
pub fn view<N: Node>(
    message: &N,
    mut read: ChecksRead<N>,
    reader: &MessageReader,
) -> Result<MessageView, InputError> {
    let (role_name, role) = read.role(message, &CHAT_ROLE, reader)?;
    let mut view = MessageView::empty(role);
    let mut milli = 0;
    let content = read.string_content(message, reader)?;
    let mut payload = (0, false);
    if let Some(content) = &content {
        payload = reader.payload(content);
        milli += payload.0;
    }
    if let Some(thinking) = reader.string(message, "", "thinking")? {
        milli += reader.text_milli(&thinking);
    }
    if let Some(images) = reader.get(message, "", "images")? {
        let Some(count) = images.array_len() else {
            return Err(reader.type_error("images", "an array", images.kind()));
        };
        milli += ATTACHMENT_MILLI * count as u64;
    }
    if let Some(calls) = read.tool_calls(message, reader)? {
        milli += calls_milli(&calls, reader, &mut view)?;
    }
    if role == Role::Tool {
        if let Some(name) = reader.string(message, "", "tool_name")? {
            milli += reader.text_milli(&name);
        }
        view.answers.push(UNPAIRED.to_string());
        if content.is_some() {
            view.tool_results.push(ToolResult::new(
                Path::key(CHAT_RESULT_FIELD),
                payload.0,
                payload.1,
                Replacement::Placeholder,
            ));
        }
    }
    let tagged =
        matches!(role_name.as_str(), "system" | "user") && starts_with_tag(content.as_ref());
    view.mark(is_marker(&role_name, None, tagged));
    view.tokens = MESSAGE_OVERHEAD + estimate::milli_to_tokens(milli);
    Ok(view)
}

fn calls_milli<N: Node>(
    calls: &N,
    reader: &MessageReader,
    view: &mut MessageView,
) -> Result<u64, InputError> {
    let mut milli = 0;
    for i in 0..part_count(reader, calls, "tool_calls")? {
        let (field, call) = part_at(reader, calls, "tool_calls", "a tool call object", i)?;
        let function_field = subfield(&field, "function");
        let function = match reader.get(&call, &field, "function")? {
            Some(function) if function.kind() == Kind::Object => function,
            other => {
                let got = other.map_or(Kind::Undefined, |f| f.kind());
                return Err(reader.type_error(&function_field, "an object", got));
            }
        };
        let name = reader.required_string_value(&function, &function_field, "name")?;
        milli += reader.text_milli(&name);
        if let Some(arguments) = reader.get(&function, &function_field, "arguments")? {
            milli += reader.json_milli(&arguments);
        }
        view.opens.push(UNPAIRED.to_string());
    }
    Ok(milli)
}

/// Gives each call and result an id by position: the results directly after
/// an assistant message answer its calls in order (`"<message>:<call>"`). A
/// result with no call left to answer gets an id no call has.
pub fn pair_by_position(views: &mut [MessageView]) {
    let mut open: Vec<String> = Vec::new();
    for (index, view) in views.iter_mut().enumerate() {
        if !view.opens.is_empty() {
            open.clear();
            for (call, id) in view.opens.iter_mut().enumerate() {
                *id = format!("{index}:{call}");
                open.push(id.clone());
            }
            open.reverse();
        } else if view.role == Role::Tool {
            for id in &mut view.answers {
                *id = open.pop().unwrap_or_else(|| format!("{index}:orphan"));
            }
        } else {
            open.clear();
        }
    }
}

/// The marker: a user message holding the tagged summary. Chat templates
/// render a system message where they like (many only the first one), so a
/// user message is what every model sees in place.
pub fn marker(text: &str) -> crate::util::json::Json {
    use crate::util::json::object;
    object([
        ("role", "user".into()),
        ("content", crate::formats::shared::tagged(text).into()),
    ])
}

/// The content blocks of a message, for the transcript. Call `view` first.
pub fn content<N: Node>(message: &N, reader: &MessageReader) -> Result<Content, InputError> {
    let role = reader.required_string(message, "", "role")?;
    let mut blocks = Vec::new();
    if let Some(thinking) = string_field(message, "thinking") {
        blocks.push(Block::Reasoning(thinking));
    }
    let text = string_field(message, "content").unwrap_or_default();
    if role == "tool" {
        blocks.push(Block::ToolResult {
            id: string_field(message, "tool_name").unwrap_or_default(),
            output: text,
            is_error: false,
        });
    } else if !text.is_empty() {
        blocks.push(Block::Text(untagged(&text).to_string()));
    }
    let images = message.field("images").ok().flatten();
    for _ in 0..images.and_then(|i| i.array_len()).unwrap_or(0) {
        blocks.push(Block::Attachment("image".to_string()));
    }
    let calls = message.field("tool_calls").ok().flatten();
    for call in (0..calls.as_ref().and_then(|c| c.array_len()).unwrap_or(0))
        .filter_map(|i| calls.as_ref()?.item(i).ok())
    {
        let function = call.field("function").ok().flatten();
        let name = function
            .as_ref()
            .and_then(|f| string_field(f, "name"))
            .unwrap_or_default();
        let arguments = function
            .and_then(|f| f.field("arguments").ok().flatten())
            .map_or_else(String::new, |a| {
                a.text().map_or_else(|| json_text(&a), |t| t.into_owned())
            });
        blocks.push(Block::ToolCall {
            id: name.clone(),
            name,
            arguments,
        });
    }
    Ok(Content { role, blocks })
}

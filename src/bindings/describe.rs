//! `describeMessages`, exported to JS, and its TypeScript types.
//! (`{{MessageKind}}` is filled by the build: see `types.rs`.)

use wasm_bindgen::prelude::*;

use super::convert::{read_array, read_format_option, to_js_error, JsNode};
use super::own_values::{array_of, object, Object};
use super::types::{FormatOptionsArg, MessageList};
use crate::content::Block;
use crate::describe::{describe_messages, Description, MessageInfo};
use crate::node::Node;

#[wasm_bindgen(typescript_custom_section)]
const DESCRIBE_TYPES: &'static str = r#"
/** One piece of a message's content, whatever the format stores it as. */
export type MessageBlock =
  | { type: "text"; text: string }
  | { type: "tool-call"; id: string; name: string; arguments: string }
  | { type: "tool-result"; id: string; output: string; isError: boolean }
  | { type: "reasoning"; text: string }
  | { type: "attachment"; kind: string };

/** What the history functions read one message as. */
export interface MessageInfo {
  /** The role as stored ("user", "assistant", "tool", "developer", ...). */
  role: string;
  /** The role as the history rules read it; "other" is system-like. */
  kind: {{MessageKind}};
  /** Whether the message starts a user turn (a message of tool results alone does not). */
  startsUserTurn: boolean;
  /** Whether it is a compaction marker. */
  isMarker: boolean;
  /** The same estimate as estimateTokens([message]). */
  tokens: number;
  blocks: MessageBlock[];
}

/** A history's format and one MessageInfo per message, in order. */
export interface HistoryDescription {
  format: MessageFormat;
  messages: MessageInfo[];
}
"#;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(typescript_type = "HistoryDescription")]
    pub type HistoryDescription;
}

/// The binding of `describeMessages`. Its doc and example are the JSDoc in `js/index.ts`,
/// the one the published types carry.
#[wasm_bindgen(js_name = describeMessages)]
pub fn describe(
    messages: MessageList,
    options: Option<FormatOptionsArg>,
) -> Result<HistoryDescription, JsValue> {
    let nodes = read_array(&messages, "messages")?;
    let format = read_format_option(options.as_ref())?;
    let description = describe_messages(&nodes, format).map_err(to_js_error)?;
    Ok(description_to_js(&description, &nodes).unchecked_into())
}

/// Built field by field: smaller code than a serde serializer for these types.
fn description_to_js(description: &Description, messages: &[JsNode]) -> Object {
    let messages = array_of(
        (description.messages.iter())
            .zip(messages)
            .map(|(info, message)| message_to_js(info, message)),
    );
    object(&[
        ("format", description.format.into()),
        ("messages", messages.into()),
    ])
}

fn message_to_js(info: &MessageInfo, message: &JsNode) -> JsValue {
    // A message whose `content` is one string: a block that holds that
    // text gets the caller's own string, not one made anew. Most of a
    // history's text is such (tool output), and making 24 MB of strings
    // anew made the collector copy them all during the call.
    let content = message.field("content").ok().flatten();
    let own = content.as_ref().map(|content| &content.0);
    let text = |text: &String| match own {
        Some(own) if super::strings::is_string_of(own, text) => own.clone(),
        _ => JsValue::from(text),
    };
    let blocks = array_of(info.blocks.iter().map(|block| block_to_js(block, text)));
    object(&[
        ("role", info.role.as_str().into()),
        ("kind", info.kind.into()),
        ("startsUserTurn", info.starts_user_turn.into()),
        ("isMarker", info.is_marker.into()),
        ("tokens", (info.tokens as f64).into()),
        ("blocks", blocks.into()),
    ])
    .into()
}

/// A block as JS, its texts and outputs through `text`.
fn block_to_js(block: &Block, text: impl Fn(&String) -> JsValue) -> JsValue {
    let fields: Vec<(&str, JsValue)> = match block {
        Block::Text(body) => vec![("type", "text".into()), ("text", text(body))],
        Block::ToolCall {
            id,
            name,
            arguments,
        } => vec![
            ("type", "tool-call".into()),
            ("id", id.into()),
            ("name", name.into()),
            ("arguments", arguments.into()),
        ],
        Block::ToolResult {
            id,
            output,
            is_error,
        } => vec![
            ("type", "tool-result".into()),
            ("id", id.into()),
            ("output", text(output)),
            ("isError", (*is_error).into()),
        ],
        Block::Reasoning(body) => vec![("type", "reasoning".into()), ("text", text(body))],
        Block::Attachment(kind) => vec![("type", "attachment".into()), ("kind", kind.into())],
    };
    object(&fields).into()
}

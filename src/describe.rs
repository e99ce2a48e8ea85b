//! A format-neutral description of each message: what a chat UI needs to show
//! a history in any format (role, turn start, marker, estimate, content
//! blocks) without knowing the formats itself. It is read the same way the
//! history functions read a history, so it agrees with them.

use crate::content::Block;
use crate::error::InputError;
use crate::formats::{read_history, Format, MessageReader};
use crate::node::Node;
use crate::prune::DEFAULT_PLACEHOLDER;

/// A history's format and one description per message, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Description {
    pub format: &'static str,
    pub messages: Vec<MessageInfo>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MessageInfo {
    /// The role as stored (`user`, `assistant`, `tool`, `developer`, ...).
    pub role: String,
    /// What the history rules read the role as (`Role::name`): `system`,
    /// `user`, `assistant`, `tool`, or `other` (read as system).
    pub kind: &'static str,
    /// A user's own words start a turn; a user message made only of tool
    /// results does not.
    pub starts_user_turn: bool,
    pub is_marker: bool,
    /// The same estimate `estimateTokens([message])` gives.
    pub tokens: u64,
    /// The content, in order, as the summariser's transcript reads it.
    pub blocks: Vec<Block>,
}

/// Describes every message; the errors are those of the history functions,
/// with `messages[index].field` in them.
pub fn describe_messages<N: Node>(
    messages: &[N],
    format: Option<Format>,
) -> Result<Description, InputError> {
    let argument = "messages";
    let (format, views) = read_history(messages, format, argument, DEFAULT_PLACEHOLDER)?;
    let messages = crate::util::collect::all_ok(messages.iter().zip(views).enumerate().map(
        |(index, (message, view))| {
            let reader = MessageReader {
                argument,
                index,
                placeholder: DEFAULT_PLACEHOLDER,
                sizes: true,
                cleared: false,
            };
            let content = format.content(message, &reader)?;
            Ok(MessageInfo {
                role: content.role,
                kind: view.role.name(),
                starts_user_turn: view.starts_user_turn,
                is_marker: view.is_marker,
                tokens: view.tokens,
                blocks: content.blocks,
            })
        },
    ))?;
    Ok(Description {
        format: format.name(),
        messages,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn describe(history: &serde_json::Value) -> Result<Description, InputError> {
        let messages: Vec<&serde_json::Value> = history.as_array().unwrap().iter().collect();
        describe_messages(&messages, None)
    }

    #[test]
    fn describes_roles_turns_markers_and_blocks() {
        let history = json!([
            { "role": "system", "name": "kram:compaction_summary", "content": "Earlier work." },
            { "role": "user", "content": "Run the tests." },
            { "role": "assistant", "content": null, "tool_calls": [
                { "id": "c1", "type": "function", "function": { "name": "run", "arguments": "{\"cmd\":\"test\"}" } }
            ] },
            { "role": "tool", "tool_call_id": "c1", "content": "1 failed" },
            { "role": "developer", "content": [{ "type": "text", "text": "Be brief." }, { "type": "image_url", "image_url": { "url": "x" } }] }
        ]);
        let described = describe(&history).unwrap();
        assert_eq!(described.format, "openai-chat");
        let kinds: Vec<_> = described.messages.iter().map(|m| m.kind).collect();
        assert_eq!(kinds, ["system", "user", "assistant", "tool", "other"]);
        let starts: Vec<_> = described
            .messages
            .iter()
            .map(|m| m.starts_user_turn)
            .collect();
        assert_eq!(starts, [false, true, false, false, false]);
        assert!(described.messages[0].is_marker);
        assert!(!described.messages[1].is_marker);
        assert_eq!(described.messages[4].role, "developer");
        assert_eq!(
            described.messages[2].blocks,
            [Block::ToolCall {
                id: "c1".into(),
                name: "run".into(),
                arguments: "{\"cmd\":\"test\"}".into()
            }]
        );
        assert_eq!(
            described.messages[3].blocks,
            [Block::ToolResult {
                id: "c1".into(),
                output: "1 failed".into(),
                is_error: false
            }]
        );
        assert_eq!(
            described.messages[4].blocks,
            [
                Block::Text("Be brief.".into()),
                Block::Attachment("image".into())
            ]
        );
    }

    #[test]
    fn tokens_are_the_history_estimate_of_each_message() {
        let history = json!([
            { "role": "user", "content": "Fix the failing test in src/lib.rs" },
            { "role": "assistant", "content": "Done: the date parser now accepts leap years." }
        ]);
        let messages: Vec<&serde_json::Value> = history.as_array().unwrap().iter().collect();
        let described = describe(&history).unwrap();
        for (info, message) in described.messages.iter().zip(&messages) {
            let alone =
                crate::history_functions::estimate_tokens(std::slice::from_ref(message), None)
                    .unwrap();
            assert_eq!(info.tokens, alone);
        }
    }

    #[test]
    fn bad_messages_are_named_by_index_and_field() {
        let history = json!([
            { "role": "user", "content": "hi" },
            { "role": "tool", "content": "no id" }
        ]);
        let error = describe(&history).unwrap_err();
        assert!(
            error.message.contains("messages[1].tool_call_id"),
            "{}",
            error.message
        );
    }
}

//! Reading the summary out of whatever the gateway returned: a string,
//! `{ content }`, an OpenAI chat completion, an Anthropic Messages reply, or an
//! AI SDK `generateText` result. Anything else is described back to the caller.

use crate::node::{Kind, Node};

const EXPECTED: &str = "expected a string, { content: string }, an OpenAI chat completion, \
an Anthropic Messages reply or an AI SDK generateText result ({ text })";

/// A shape of reply that `reply_text` reads: as TypeScript, and a reply of
/// that shape whose text is "the summary" (JSON), which a test reads.
pub struct ReplyShape {
    pub typescript: &'static str,
    pub example: &'static str,
}

/// Every shape `reply_text` reads, in the order it looks for them. The
/// package's TypeScript `GatewayReply` is this list joined with `|`
/// (`examples/ts_lists.rs` prints it for the build).
pub const REPLY_SHAPES: [ReplyShape; 4] = [
    ReplyShape {
        typescript: "string",
        example: r#""the summary""#,
    },
    ReplyShape {
        typescript: "{ choices: readonly { message: { content?: string | null; refusal?: string | null } }[] }",
        example: r#"{"choices":[{"message":{"content":"the summary"}}]}"#,
    },
    ReplyShape {
        typescript: "{ text: string }",
        example: r#"{"text":"the summary"}"#,
    },
    ReplyShape {
        typescript: "{ content: string | readonly { type: string; text?: string }[] }",
        example: r#"{"content":[{"type":"text","text":"the summary"}]}"#,
    },
];

/// The reply's text, or what came back instead, in words.
pub fn reply_text<N: Node>(reply: &N) -> Result<String, String> {
    let text = match reply.kind() {
        Kind::String => reply.text().map(|t| t.into_owned()),
        _ => found_text(reply)?,
    };
    match text {
        Some(text) => Ok(strip_thinking(&text).to_string()),
        None => Err(format!(
            "the gateway returned {}; {EXPECTED}",
            describe(reply)
        )),
    }
}

/// A field of the reply; a getter or trap that throws is an error naming it.
fn get<N: Node>(node: &N, key: &str) -> Result<Option<N>, String> {
    node.field(key)
        .map_err(|thrown| format!("the gateway's reply could not be read at {key}: {thrown}"))
}

/// The text where one of the accepted shapes has it: `choices[0].message
/// .content` (a chat completion), `text` (AI SDK), `content` (a string, or
/// Anthropic's blocks). A chat completion's refusal is an error of its own.
fn found_text<N: Node>(reply: &N) -> Result<Option<String>, String> {
    if let Some(choices) = get(reply, "choices")? {
        let Some(first) = choices.item(0).ok() else {
            return Ok(None);
        };
        let Some(message) = get(&first, "message")? else {
            return Ok(None);
        };
        let text = get(&message, "content")?.and_then(|content| content_text(&content));
        if text.is_none() {
            if let Some(refusal) =
                get(&message, "refusal")?.and_then(|r| r.text().map(|t| t.into_owned()))
            {
                return Err(format!("the model refused to summarise: {refusal}"));
            }
        }
        return Ok(text);
    }
    if let Some(text) = get(reply, "text")?.and_then(|t| t.text().map(|t| t.into_owned())) {
        return Ok(Some(text));
    }
    Ok(get(reply, "content")?.and_then(|content| content_text(&content)))
}

/// A string, or the text of `{ type: "text", text }` blocks joined; `None`
/// when there is none (thinking and tool-use blocks are skipped).
fn content_text<N: Node>(content: &N) -> Option<String> {
    if let Some(text) = content.text() {
        return Some(text.into_owned());
    }
    let mut texts = Vec::new();
    for i in 0..content.array_len().unwrap_or(0) {
        let Ok(block) = content.item(i) else { continue };
        let is_text = get(&block, "type")
            .ok()
            .flatten()
            .is_some_and(|t| t.text().is_some_and(|t| t == "text"));
        if let Some(text) = get(&block, "text")
            .ok()
            .flatten()
            .filter(|_| is_text)
            .and_then(|t| t.text().map(|t| t.into_owned()))
        {
            texts.push(text);
        }
    }
    (!texts.is_empty()).then(|| crate::util::join::join(texts.iter().map(String::as_str), "\n"))
}

/// Local reasoning models (DeepSeek R1, Qwen) served over chat completions
/// put their thinking before the answer in `<think>` tags. A reply cut off
/// while still thinking has no answer at all: nothing of it is a summary.
fn strip_thinking(text: &str) -> &str {
    let trimmed = text.trim_start();
    if trimmed.starts_with("<think>") {
        return match crate::summary::text::find(trimmed, "</think>") {
            Some(end) => trimmed.get(end + "</think>".len()..).unwrap_or_default(),
            None => "",
        };
    }
    text
}

/// What came back, in words: its type, and an object's own fields.
fn describe<N: Node>(reply: &N) -> String {
    match reply.kind() {
        Kind::Object => match reply.keys() {
            Ok(keys) if keys.is_empty() => "an object with no own fields".into(),
            Ok(keys) => {
                let more = if keys.len() > 8 { ", ..." } else { "" };
                let shown = crate::util::join::join(keys.iter().take(8).map(String::as_str), ", ");
                format!("an object with the fields {shown}{more}")
            }
            Err(_) => "an object whose fields could not be read".into(),
        },
        Kind::Array => "an array".into(),
        Kind::Undefined | Kind::Null | Kind::Other => reply.kind().describe().into(),
        kind => format!("a {}", kind.describe()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    fn text(value: Value) -> Result<String, String> {
        reply_text(&&value)
    }

    #[test]
    fn every_accepted_shape_gives_its_text() {
        assert_eq!(text(json!("plain")).unwrap(), "plain");
        assert_eq!(text(json!({ "content": "c" })).unwrap(), "c");
        assert_eq!(
            text(json!({ "text": "t", "content": [{ "type": "text", "text": "t" }] })).unwrap(),
            "t"
        );
        let chat = json!({ "id": "x", "object": "chat.completion",
            "choices": [{ "index": 0, "message": { "role": "assistant", "content": "from chat" }, "finish_reason": "stop" }] });
        assert_eq!(text(chat).unwrap(), "from chat");
        let anthropic = json!({ "type": "message", "role": "assistant", "content": [
            { "type": "thinking", "thinking": "hmm" },
            { "type": "text", "text": "one" }, { "type": "text", "text": "two" }] });
        assert_eq!(text(anthropic).unwrap(), "one\ntwo");
    }

    #[test]
    fn each_declared_shape_is_read_and_names_its_fields() {
        for shape in REPLY_SHAPES {
            let example: Value = serde_json::from_str(shape.example).unwrap();
            assert_eq!(
                text(example.clone()).unwrap(),
                "the summary",
                "{}",
                shape.typescript
            );
            for key in example.as_object().map(|o| o.keys()).into_iter().flatten() {
                assert!(
                    shape.typescript.contains(&format!("{{ {key}:")),
                    "{} does not declare {key}",
                    shape.typescript
                );
            }
        }
    }

    #[test]
    fn thinking_tags_are_dropped() {
        assert_eq!(
            text(json!("<think>let me see</think>\n## Objective"))
                .unwrap()
                .trim(),
            "## Objective"
        );
        assert_eq!(text(json!("<think>I will not answer")).unwrap(), "");
    }

    #[test]
    fn anything_else_says_what_came_back() {
        let error = text(json!({ "data": [], "id": 1 })).unwrap_err();
        assert!(
            error.contains("an object with the fields data, id"),
            "{error}"
        );
        assert!(error.contains("expected a string"));
        assert!(text(json!(42)).unwrap_err().contains("returned a number"));
        assert!(text(json!(null)).unwrap_err().contains("returned null"));
        assert!(text(json!({})).unwrap_err().contains("no own fields"));
    }

    #[test]
    fn broken_chat_completions_are_described() {
        let refused = json!({ "choices": [{ "message": { "content": null, "refusal": "no" } }] });
        assert!(text(refused)
            .unwrap_err()
            .contains("refused to summarise: no"));
        let empty = json!({ "choices": [], "id": "x" });
        assert!(text(empty)
            .unwrap_err()
            .contains("an object with the fields choices, id"));
        let null = json!({ "choices": [{ "message": { "content": null } }] });
        assert!(text(null).unwrap_err().contains("the fields choices;"));
    }

    #[test]
    fn a_reply_without_text_blocks_is_described() {
        let reply = json!({ "content": [{ "type": "tool_use" }], "stop_reason": "tool_use" });
        let error = text(reply).unwrap_err();
        assert!(error.contains("the fields content, stop_reason"), "{error}");
    }
}

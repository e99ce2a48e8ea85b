//! What a provider refuses in a message stored as its SDK returned it, so
//! that such a history can be sent as a request again. Only the Anthropic
//! Messages API and strict OpenAI Chat endpoints refuse fields of the
//! messages they returned; the other formats' replies go back as they are.
//!
//! - Anthropic: a message in `messages` has `role` and `content` only
//!   (`MessageParam` in @anthropic-ai/sdk); the reply's `id`, `type`,
//!   `model`, `stop_reason`, `stop_sequence`, `usage`, `container`, ... are
//!   refused with "Extra inputs are not permitted". Content blocks go back as
//!   they are: every field of a reply's block is on the request's block type.
//! - OpenAI Chat: `annotations` is a reply field only, and of the reply's
//!   `audio` the request takes only `{ id }` (`ChatCompletionAssistantMessageParam`
//!   in openai-node; its tool runner strips the same, since Azure and other
//!   strict endpoints refuse them).

use crate::error::InputError;
use crate::formats::{detect_format, Format};
use crate::node::{Kind, Node};

/// What to change in one message before it is sent.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RequestFix {
    /// Top-level fields to leave out.
    pub drop: Vec<String>,
    /// Object fields of which only `id` is sent.
    pub only_id: Vec<&'static str>,
}

impl RequestFix {
    pub fn is_empty(&self) -> bool {
        self.drop.is_empty() && self.only_id.is_empty()
    }
}

/// The fix of each message of a history, empty where it can be sent as it is.
pub fn request_fixes<N: Node>(
    messages: &[N],
    format: Option<Format>,
) -> Result<Vec<RequestFix>, InputError> {
    let format = detect_format(messages, format, "messages")?;
    crate::util::collect::all_ok(messages.iter().enumerate().map(|(index, message)| {
        let keys = message.keys().map_err(|thrown| {
            InputError::type_error(format!("messages[{index}] could not be read: {thrown}"))
        })?;
        let mut fix = RequestFix::default();
        match format {
            Format::Anthropic => {
                fix.drop = keys
                    .into_iter()
                    .filter(|key| key != "role" && key != "content")
                    .collect();
            }
            Format::OpenAiChat => {
                if keys.iter().any(|key| key == "annotations") {
                    fix.drop.push("annotations".to_string());
                }
                let audio = message.field("audio").ok().flatten();
                if audio.is_some_and(|audio| {
                    audio.kind() == Kind::Object
                        && audio
                            .keys()
                            .unwrap_or_default()
                            .iter()
                            .any(|key| key != "id")
                }) {
                    fix.only_id.push("audio");
                }
            }
            // A Gemini reply's `candidates[0].content` is a `Content` as
            // it is; UI messages are sent through `convertToModelMessages`.
            Format::AiSdk
            | Format::AiSdkUi
            | Format::AiSdk4
            | Format::OpenAiResponses
            | Format::Gemini
            | Format::LangChain
            | Format::Ollama => {}
        }
        Ok(fix)
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_anthropic_reply_goes_back_as_role_and_content() {
        let messages = [
            json!({ "role": "user", "content": "hi" }),
            json!({ "id": "msg_1", "type": "message", "role": "assistant", "model": "claude",
                    "content": [{ "type": "text", "text": "hello", "citations": null }],
                    "stop_reason": "end_turn", "stop_sequence": null, "usage": { "input_tokens": 3 } }),
        ];
        let refs: Vec<&serde_json::Value> = messages.iter().collect();
        let fixes = request_fixes(&refs, None).unwrap();
        assert!(fixes[0].is_empty());
        // serde_json keeps keys sorted; a JS object keeps its own order.
        let mut dropped = fixes[1].drop.clone();
        dropped.sort();
        assert_eq!(
            dropped,
            [
                "id",
                "model",
                "stop_reason",
                "stop_sequence",
                "type",
                "usage"
            ]
        );
    }

    #[test]
    fn an_openai_reply_loses_its_annotations_and_audio_data() {
        let messages = [
            json!({ "role": "user", "content": "hi" }),
            json!({ "role": "assistant", "content": "hello", "refusal": null, "annotations": [],
                    "audio": { "id": "a1", "data": "UklGR", "expires_at": 1, "transcript": "hello" } }),
            json!({ "role": "assistant", "content": "again", "audio": { "id": "a2" } }),
        ];
        let refs: Vec<&serde_json::Value> = messages.iter().collect();
        let fixes = request_fixes(&refs, None).unwrap();
        assert!(fixes[0].is_empty());
        assert_eq!(fixes[1].drop, ["annotations"]);
        assert_eq!(fixes[1].only_id, ["audio"]);
        assert!(fixes[2].is_empty());
    }
}

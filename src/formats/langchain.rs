//! LangChain.js messages (`@langchain/core/messages`), serialised as
//! `JSON.stringify` and LangGraph checkpoints store them:
//! `{ lc: 1, type: "constructor", id: [..., "ToolMessage"], kwargs: { content,
//! tool_calls, tool_call_id, ... } }`, and live, as instances of those classes
//! (`content`, `tool_calls`, ... and `type`, `"human"`, `"ai"`, ..., are own
//! fields of an instance, beside `lc_kwargs`, the constructor's fields). The
//! message's fields are its `kwargs` or the instance's own; its class (the
//! last element of `id`) or `type` is its role. Tool calls are the
//! `tool_calls` (`{ id, name, args }`) of an AI message; a tool result is a
//! `ToolMessage` whose `content` is the payload, paired by `tool_call_id`.

use crate::content::{Block, Content};
use crate::error::InputError;
use crate::estimate::{self, MESSAGE_OVERHEAD};
use crate::formats::shared::{
    element, has, is_marker, part_at, part_count, string_field, subfield, tag_candidate, tagged,
    text_block, tool_call_block, type_name, untagged, ATTACHMENT_MILLI,
};
use crate::formats::{Facts, MessageReader, ResultField, RoleRule};
use crate::node::{Kind, Node};
use crate::util::json::{object, Json};
use crate::view::{MessageView, Path, Replacement, Role, ToolResult};

/// The message classes of `@langchain/core/messages` (and their chunks), by
/// the `type` each one's instances have (`"human"`, `"ai"`, ...).
const CLASSES: &[(&str, &str)] = &[
    ("HumanMessage", "human"),
    ("HumanMessageChunk", "human"),
    ("AIMessage", "ai"),
    ("AIMessageChunk", "ai"),
    ("ToolMessage", "tool"),
    ("ToolMessageChunk", "tool"),
    ("SystemMessage", "system"),
    ("SystemMessageChunk", "system"),
    ("ChatMessage", "generic"),
    ("ChatMessageChunk", "generic"),
    ("FunctionMessage", "function"),
    ("FunctionMessageChunk", "function"),
    ("RemoveMessage", "remove"),
];

/// The role `role_of` reads of a live message by its `type` alone, and of
/// a serialised one by the class it names last in its `id`, for the types
/// and classes whose role settles what pruning reads of it (the
/// newest-first reads find them many at a time, `Node::role_names`). A
/// tool message's result is its `content`, a serialised one's in its
/// `kwargs` (`Format::result_field_by_name`); a function message holds none, and a
/// `generic` one's role is its `role` field.
pub const ROLE_BY_TYPE: RoleRule = RoleRule::one_of(
    &[
        ("human", Role::User),
        ("ai", Role::Assistant),
        ("tool", Role::Tool),
        ("function", Role::Tool),
        ("system", Role::System),
        ("HumanMessage", Role::User),
        ("AIMessage", Role::Assistant),
        ("ToolMessage", Role::Tool),
        ("SystemMessage", Role::System),
    ],
    "",
);

/// The `type` of a serialised message, which names its class last in its
/// `id`.
pub const SERIALISED_TYPE: &str = "constructor";

/// The field of a live tool message that holds its result.
pub const RESULT_FIELD: &str = "content";

/// The fields of a serialised message: `kwargs`, named so in errors.
const KWARGS: &str = "kwargs";

/// Where a serialised tool message holds its result: `kwargs.content`.
pub const SERIALISED_RESULT_FIELD: ResultField = ResultField::inside(KWARGS, RESULT_FIELD);
/// The constructor's fields a live instance keeps (LangChain's
/// `Serializable`); it marks a message as live.
const LIVE_KWARGS: &str = "lc_kwargs";

/// Where a message's fields are: `kwargs` of a serialised message, the
/// instance itself for a live one; and how errors name them (`kwargs.`).
struct Body<'a, N> {
    message: &'a N,
    /// A serialised message's `kwargs`; `None` for a live one.
    kwargs: Option<N>,
    /// The field the fields are in, for error messages: `kwargs`, or none
    /// for a live message.
    parent: &'static str,
    live: bool,
}

impl<N: Node> Body<'_, N> {
    fn fields(&self) -> &N {
        self.kwargs.as_ref().unwrap_or(self.message)
    }

    fn field(&self, key: &str) -> String {
        subfield(self.parent, key)
    }

    /// Where `key` is, from the message, for an edit.
    fn path(&self, key: &'static str) -> Path {
        if self.live {
            Path::key(key)
        } else {
            Path::keys(KWARGS, key)
        }
    }
}

fn body<'a, N: Node>(message: &'a N, reader: &MessageReader) -> Result<Body<'a, N>, InputError> {
    if message.kind() != Kind::Object {
        return Err(reader.type_error("", "a message object", message.kind()));
    }
    if has(message, LIVE_KWARGS) {
        return Ok(Body {
            message,
            kwargs: None,
            parent: "",
            live: true,
        });
    }
    match reader.get(message, "", KWARGS)? {
        Some(kwargs) if kwargs.kind() == Kind::Object => Ok(Body {
            message,
            kwargs: Some(kwargs),
            parent: KWARGS,
            live: false,
        }),
        other => {
            let got = other.map_or(Kind::Undefined, |o| o.kind());
            Err(reader.type_error(KWARGS, "an object", got))
        }
    }
}

/// A serialised message, `{ lc: 1, type: "constructor", id: [...], kwargs:
/// {...} }`, or a live one, with `lc_kwargs` and a string `type`; `Some` says
/// what does not fit.
pub fn misfit<N: Node>(facts: &Facts<N>) -> Option<String> {
    let message = facts.message;
    if has(message, LIVE_KWARGS) {
        let kwargs = message.field(LIVE_KWARGS).ok().flatten();
        if kwargs.map(|k| k.kind()) != Some(Kind::Object) {
            return Some("its field `lc_kwargs`, which is not an object".to_string());
        }
        return match string_field(message, "type") {
            Some(message_type) if message_type != SERIALISED_TYPE => None,
            _ => Some("its field `type`, which is not a message type".to_string()),
        };
    }
    let lc = message.field("lc").ok().flatten();
    if lc.and_then(|lc| lc.number()) != Some(1.0) {
        return Some("its field `lc`, which is not 1".to_string());
    }
    if string_field(message, "type").as_deref() != Some(SERIALISED_TYPE) {
        return Some("its field `type`, which is not \"constructor\"".to_string());
    }
    let kwargs = message.field(KWARGS).ok().flatten();
    if kwargs.map(|k| k.kind()) != Some(Kind::Object) {
        return Some("its field `kwargs`, which is not an object".to_string());
    }
    None
}

/// LangChain's serialised or live fields, which no other format has: those
/// formats refuse a message with one (`shared::foreign_field`), so it is
/// never misread.
pub const LANGCHAIN_FIELDS: &[&str] = &["lc", "kwargs", "lc_kwargs"];

/// The message type (`"human"`, `"ai"`, ...): a live instance's `type`, or
/// that of the class a serialised one names last in its `id`.
fn message_type<N: Node>(
    message: &N,
    body: &Body<'_, N>,
    reader: &MessageReader,
) -> Result<String, InputError> {
    if body.live {
        return reader.required_string(message, "", "type");
    }
    let Some(id) = reader.get(message, "", "id")? else {
        return Err(reader.type_error("id", "an array of strings", Kind::Undefined));
    };
    let Some(len) = id.array_len().filter(|len| *len > 0) else {
        return Err(reader.type_error("id", "a non-empty array of strings", id.kind()));
    };
    let field = format!("id[{}]", len - 1);
    let last = reader.item(&id, &field, len - 1)?;
    let Some(class) = last.text() else {
        return Err(reader.type_error(&field, "a string", last.kind()));
    };
    Ok(CLASSES
        .iter()
        .find(|(name, _)| *name == class)
        .map_or("unknown", |(_, message_type)| *message_type)
        .to_string())
}

/// A message's type and its role for the history rules; a `ChatMessage`'s
/// role is its `role` field.
fn role_of<N: Node>(
    message: &N,
    body: &Body<'_, N>,
    reader: &MessageReader,
) -> Result<(String, Role), InputError> {
    let lc_type = message_type(message, body, reader)?;
    let role = match lc_type.as_str() {
        "human" => Role::User,
        "ai" => Role::Assistant,
        "tool" | "function" => Role::Tool,
        "system" => Role::System,
        "generic" => {
            let role = reader.string(body.fields(), body.parent, "role")?;
            match role
                .and_then(|r| r.text().map(|t| t.into_owned()))
                .as_deref()
            {
                Some("user" | "human") => Role::User,
                Some("assistant" | "ai") => Role::Assistant,
                Some("system") => Role::System,
                _ => Role::Other,
            }
        }
        _ => Role::Other,
    };
    Ok((lc_type, role))
}

/// The role `view` reads, named as the marker rule takes it (`tag_role`;
/// see `Format::role`).
pub fn role<N: Node>(message: &N, reader: &MessageReader) -> Result<(String, Role), InputError> {
    let body = body(message, reader)?;
    let (_, role) = role_of(message, &body, reader)?;
    Ok((tag_role(role).to_string(), role))
}

/// The marker-tag role name the shared rules use for a LangChain type.
fn tag_role(role: Role) -> &'static str {
    match role {
        Role::User => "user",
        Role::System => "system",
        _ => "assistant",
    }
}

pub fn view<N: Node>(message: &N, reader: &MessageReader) -> Result<MessageView, InputError> {
    let body = body(message, reader)?;
    let (lc_type, role) = role_of(message, &body, reader)?;
    let mut view = MessageView::empty(role);
    let kwargs = body.fields();
    let content = reader.get(kwargs, body.parent, "content")?;
    let mut milli = 0;
    let mut cleared = false;
    match &content {
        Some(text) if text.kind() == Kind::String => {
            let (text_milli, is_placeholder) = reader.payload(text);
            milli += text_milli;
            cleared = is_placeholder;
        }
        Some(parts) if parts.kind() == Kind::Array => milli += parts_milli(parts, &body, reader)?,
        None => {}
        Some(other) => {
            return Err(reader.type_error(
                &body.field("content"),
                "a string or an array of content blocks",
                other.kind(),
            ))
        }
    }
    let content_milli = milli;

    if let Some(calls) = reader.get(kwargs, body.parent, "tool_calls")? {
        let calls_field = body.field("tool_calls");
        for i in 0..part_count(reader, &calls, &calls_field)? {
            let (field, call) = part_at(reader, &calls, &calls_field, "a tool call object", i)?;
            view.opens
                .push(reader.required_string(&call, &field, "id")?);
            if let Some(name) = reader.string(&call, &field, "name")? {
                milli += reader.text_milli(&name);
            }
            if let Some(args) = reader.get(&call, &field, "args")? {
                milli += reader.json_milli(&args);
            }
        }
    }

    if lc_type == "tool" {
        let id = reader.required_string(kwargs, body.parent, "tool_call_id")?;
        view.answers.push(id);
        if content.is_some() {
            view.tool_results.push(ToolResult::new(
                body.path("content"),
                content_milli,
                cleared,
                Replacement::Placeholder,
            ));
        }
    }

    let first = tag_candidate(tag_role(role), content.as_ref());
    view.mark(is_marker(tag_role(role), None, first));
    view.tokens = MESSAGE_OVERHEAD + estimate::milli_to_tokens(milli);
    Ok(view)
}

/// The kinds of content block that are an attachment: OpenAI's `image_url`
/// and `input_audio`, LangChain's data blocks and standard blocks (`image`,
/// `audio`, `video`, `file`), Anthropic's `document`.
const ATTACHMENTS: &[&str] = &[
    "image_url",
    "input_audio",
    "image",
    "audio",
    "video",
    "file",
    "document",
];

/// Text blocks count by their text, attachments the fixed cost, anything
/// else (provider blocks such as `tool_use` or `thinking`) by its JSON.
fn parts_milli<N: Node>(
    parts: &N,
    body: &Body<'_, N>,
    reader: &MessageReader,
) -> Result<u64, InputError> {
    let mut milli = 0;
    for i in 0..parts.array_len().unwrap_or(0) {
        let field = element(&body.field("content"), i);
        let part = reader.item(parts, &field, i)?;
        if part.kind() == Kind::String {
            milli += reader.text_milli(&part);
            continue;
        }
        if part.kind() != Kind::Object {
            return Err(reader.type_error(&field, "a content block object", part.kind()));
        }
        let part_type = reader.required_string(&part, &field, "type")?;
        let text = reader.string(&part, &field, "text")?;
        milli += match (part_type.as_str(), text) {
            ("text", Some(text)) => reader.text_milli(&text),
            (part_type, _) if ATTACHMENTS.contains(&part_type) => ATTACHMENT_MILLI,
            _ => reader.json_milli(&part),
        };
    }
    Ok(milli)
}

/// The marker: a serialised `HumanMessage` whose content is the tagged
/// summary. A human message, not a system one: LangChain's Anthropic
/// integration allows system messages only first, and the marker follows
/// the instructions.
pub fn marker(text: &str) -> Json {
    object([
        ("lc", Json::Int(1)),
        ("type", SERIALISED_TYPE.into()),
        (
            "id",
            Json::Arr(vec![
                "langchain_core".into(),
                "messages".into(),
                "HumanMessage".into(),
            ]),
        ),
        (
            KWARGS,
            object([
                ("content", tagged(text).into()),
                ("additional_kwargs", object([])),
                ("response_metadata", object([])),
            ]),
        ),
    ])
}

/// The content blocks of a message, for the transcript. Call `view` first.
pub fn content<N: Node>(message: &N, reader: &MessageReader) -> Result<Content, InputError> {
    let body = body(message, reader)?;
    let (lc_type, role) = role_of(message, &body, reader)?;
    let kwargs = body.fields();
    let content = kwargs.field("content").ok().flatten();
    let mut texts = Vec::new();
    if let Some(content) = &content {
        if let Some(text) = content.text() {
            texts.push(Block::Text(untagged(&text).to_string()));
        }
        for part in (0..content.array_len().unwrap_or(0)).filter_map(|i| content.item(i).ok()) {
            if let Some(text) = part.text() {
                texts.push(Block::Text(text.into_owned()));
                continue;
            }
            match type_name(&part).as_deref() {
                Some("text") => texts.push(text_block(&part)),
                Some(other) => texts.push(Block::Attachment(other.to_string())),
                None => {}
            }
        }
    }
    let mut blocks = Vec::new();
    if lc_type == "tool" {
        let output = crate::util::join::join(
            texts.iter().filter_map(|block| match block {
                Block::Text(text) => Some(text.as_str()),
                _ => None,
            }),
            "\n",
        );
        let status = string_field(kwargs, "status");
        blocks.push(Block::ToolResult {
            id: string_field(kwargs, "tool_call_id").unwrap_or_default(),
            output,
            is_error: status.as_deref() == Some("error"),
        });
    } else {
        blocks.extend(texts);
    }
    if let Some(calls) = kwargs.field("tool_calls").ok().flatten() {
        for call in (0..calls.array_len().unwrap_or(0)).filter_map(|i| calls.item(i).ok()) {
            blocks.push(tool_call_block(&call, "id", "name", "args"));
        }
    }
    let role_name = match role {
        Role::User => "user",
        Role::Assistant => "assistant",
        Role::Tool => "tool",
        Role::System => "system",
        Role::Other => "system",
    };
    Ok(Content {
        role: role_name.to_string(),
        blocks,
    })
}

//! What the formats share: the compaction marker's tagged text, the table of
//! content-part types that tells the formats apart, and small readers.

use crate::content::Block;
use crate::error::InputError;
use crate::estimate::ATTACHMENT_TOKENS;
pub use crate::formats::langchain::LANGCHAIN_FIELDS;
pub use crate::formats::ollama::OLLAMA_FIELDS;
use crate::formats::{Format, MessageReader, RoleRule};
use crate::history::{COMPACTION_MARKER_NAME, MARKER_CLOSE, MARKER_OPEN};
use crate::node::{Kind, Node};
use crate::view::Role;

pub use super::json_text::json_text;

/// The thousandths of a token an image, file or audio part costs.
pub const ATTACHMENT_MILLI: u64 = ATTACHMENT_TOKENS * 1_000;

/// The summary wrapped in the marker tags.
pub fn tagged(text: &str) -> String {
    format!("{MARKER_OPEN}\n{text}\n{MARKER_CLOSE}")
}

/// A user message of one text part of this `type` holding the tagged
/// summary: the marker of the formats without a place for a name.
pub fn tagged_user_message(part_type: &'static str, text: &str) -> crate::util::json::Json {
    use crate::util::json::{object, Json};
    let part = object([("type", part_type.into()), ("text", tagged(text).into())]);
    object([("role", "user".into()), ("content", Json::Arr(vec![part]))])
}

/// The summary inside a tagged text; any other text as it is.
pub fn untagged(text: &str) -> &str {
    match text.strip_prefix(MARKER_OPEN) {
        Some(inner) => {
            let inner = inner.strip_prefix('\n').unwrap_or(inner);
            let inner = inner.strip_suffix(MARKER_CLOSE).unwrap_or(inner);
            inner.strip_suffix('\n').unwrap_or(inner)
        }
        None => text,
    }
}

/// The roles a compaction marker can have (see `is_marker`): a message of
/// any other role is no marker, whatever it holds.
pub fn may_be_marker(role: &str) -> bool {
    matches!(role, "system" | "developer" | "user")
}

/// The one role a marker told by its `name` has: in every format that reads
/// a `name`, the message's own `role` field, so a message with any other
/// `role` is no marker by its name (`may_be_marker_by_fields` reads no name
/// of it).
pub const NAMED_MARKER_ROLE: &str = "system";

/// Whether a message is a compaction marker, in any format's spelling: a
/// system message named with the marker name (OpenAI Chat), or a system,
/// developer or user message whose first text starts with the marker tag
/// (the others, `first_text_tagged`). Every format recognises both, so a
/// history that fits several formats finds the same markers whichever it is
/// read as.
pub fn is_marker(role: &str, name: Option<&str>, first_text_tagged: bool) -> bool {
    let named = role == NAMED_MARKER_ROLE && name == Some(COMPACTION_MARKER_NAME);
    named || (may_be_marker(role) && first_text_tagged)
}

/// The fields that hold a marker's first text, in every format's spelling,
/// as dotted paths from the message: `content` (the chat formats, the AI
/// SDK's, Anthropic's, OpenAI Responses', a live LangChain message), `parts`
/// (Gemini, AI SDK UI) and a serialised LangChain message's
/// `kwargs.content`. The first text is the field itself when it is a
/// string, or its first element's `text`. Every format's view reads its
/// marker's tag there, so a message with no such text tagged and no `name`
/// that is the marker's is no marker in any format
/// (`may_be_marker_by_fields`).
pub const MARKER_TEXT_FIELDS: &str = "content parts kwargs.content";

/// The `role` names no format reads as a role a marker can have
/// (`may_be_marker`; LangChain's `ChatMessage` reads them as an assistant's
/// or another role): a message with one is no marker, whatever its text.
pub const NO_MARKER_ROLES: &[&str] = &["assistant", "tool", "model", "function"];

/// Whether a message may be a compaction marker in some format, by its
/// fields alone: it has a `role`, or `roleless` says a marker of a format
/// still in the running may have none (`Format::marker_may_lack_role`); its
/// `role` is none of `NO_MARKER_ROLES` (then nothing else of it is read);
/// and it has the marker's `name` (read only when its `role` is
/// `NAMED_MARKER_ROLE`) or the first text of one of `MARKER_TEXT_FIELDS`
/// starts with the tag. One that is no object, has a `role` that is no
/// string, or whose read throws, may be one: it is for the caller to read
/// (and to refuse, as a whole read would). The effective
/// history reads no other message (`Messages::marker_candidates`;
/// `markerCandidates` in src/bindings/guarded.js reads the same in one call
/// for many messages).
pub fn may_be_marker_by_fields<N: Node>(message: &N, roleless: bool) -> bool {
    if message.kind() != Kind::Object {
        return true;
    }
    let role = message.field("role");
    if !roleless && matches!(role, Ok(None)) {
        return false;
    }
    let broken_role = role.as_ref().map_or(true, |role| {
        role.as_ref()
            .is_some_and(|role| role.kind() != Kind::String)
    });
    if broken_role {
        return true;
    }
    if matches!(&role, Ok(Some(role)) if NO_MARKER_ROLES.iter().any(|name| role.text_is(name))) {
        return false;
    }
    let system = matches!(&role, Ok(Some(role)) if role.text_is(NAMED_MARKER_ROLE));
    let named = system
        && message.field("name").map_or(true, |name| {
            name.is_some_and(|name| name.text_is(COMPACTION_MARKER_NAME))
        });
    named
        || MARKER_TEXT_FIELDS
            .split(' ')
            .any(|path| tagged_at(message, path.split('.')))
}

/// Whether the field at the dotted path `steps` from `value` has a first
/// text that starts with the marker tag, or a read on the way threw.
fn tagged_at<'p, N: Node>(value: &N, mut steps: impl Iterator<Item = &'p str>) -> bool {
    let Some(step) = steps.next() else {
        return first_text_may_be_tagged(value);
    };
    if value.kind() != Kind::Object {
        return false;
    }
    match value.field(step) {
        Ok(Some(next)) => tagged_at(&next, steps),
        Ok(None) => false,
        Err(_) => true,
    }
}

/// Whether a field's first text (the field itself when it is a string, or
/// its first element's `text`) starts with the marker tag, or reading it
/// threw. Looser than `first_text_tagged`, which the views decide by: it
/// asks no part's `type` and takes a throw as tagged, so it answers `true`
/// wherever that one does, for any format's field.
fn first_text_may_be_tagged<N: Node>(field: &N) -> bool {
    if field.kind() == Kind::String {
        return starts_with_tag(Some(field));
    }
    if field.array_len().unwrap_or(0) == 0 {
        return false;
    }
    match field.item(0) {
        Ok(first) if first.kind() == Kind::Object => match first.field("text") {
            Ok(text) => starts_with_tag(text.as_ref()),
            Err(_) => true,
        },
        Ok(_) => false,
        Err(_) => true,
    }
}

/// Whether the first text of a message whose role may be a marker starts
/// with the marker tag; `false` for the other roles, whose content (tool
/// output, most of a history's bytes) is then not looked at again.
pub fn tag_candidate<N: Node>(role: &str, content: Option<&N>) -> bool {
    may_be_marker(role) && first_text_tagged(content)
}

/// Whether the first text of a message's content (the string itself, or
/// the text of a first part that is a text part) starts with the marker
/// tag. Only the start is looked at: a first text can be long.
pub fn first_text_tagged<N: Node>(content: Option<&N>) -> bool {
    let Some(content) = content else {
        return false;
    };
    if content.kind() == Kind::String {
        return starts_with_tag(Some(content));
    }
    let Some(part) = content
        .array_len()
        .filter(|len| *len > 0)
        .and_then(|_| content.item(0).ok())
    else {
        return false;
    };
    match type_name(&part).as_deref() {
        Some("text" | "input_text") => starts_with_tag(part.field("text").ok().flatten().as_ref()),
        _ => false,
    }
}

/// Whether a value is a text that starts with the marker tag.
pub fn starts_with_tag<N: Node>(text: Option<&N>) -> bool {
    text.is_some_and(|text| text.text_starts_with(MARKER_OPEN))
}

/// The `type` of a part or item, when it is a string.
pub fn type_name<N: Node>(value: &N) -> Option<String> {
    string_field(value, "type")
}

/// A string field, without checks: for `accepts` and `content`, which run on
/// messages `view` has checked or may refuse.
pub fn string_field<N: Node>(value: &N, key: &str) -> Option<String> {
    value
        .field(key)
        .ok()
        .flatten()
        .and_then(|v| v.text().map(|t| t.into_owned()))
}

/// Whether a field is present (and not undefined).
pub fn has<N: Node>(value: &N, key: &str) -> bool {
    matches!(value.field(key), Ok(Some(_)))
}

/// A set of formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FormatSet(u16);

impl FormatSet {
    pub const ALL: FormatSet = FormatSet(u16::MAX);

    const fn of(formats: &[Format]) -> FormatSet {
        let mut bits = 0;
        let mut i = 0;
        while i < formats.len() {
            bits |= 1 << formats[i] as u16;
            i += 1;
        }
        FormatSet(bits)
    }

    pub fn contains(self, format: Format) -> bool {
        self.0 & (1 << format as u16) != 0
    }
}

/// Which formats a content part can belong to, by its type (and, for the
/// types two formats spell the same but shape differently, by its keys). A
/// type no format here knows fits every format: providers add part types
/// often, and an unknown part is counted by its JSON wherever it appears.
pub fn part_formats<N: Node>(part: &N) -> FormatSet {
    use Format::*;
    let Some(part_type) = type_name(part) else {
        return FormatSet::ALL;
    };
    match part_type.as_str() {
        "text" => FormatSet::of(&[OpenAiChat, AiSdk, Anthropic, AiSdk4]),
        "image_url" => FormatSet::of(&[OpenAiChat]),
        "input_audio" | "refusal" => FormatSet::of(&[OpenAiChat, OpenAiResponses]),
        "file" if has(part, "file") => FormatSet::of(&[OpenAiChat]),
        // AI SDK 5 and later name a file's type `mediaType`, 4 `mimeType`.
        "file" if has(part, "data") && has(part, "mimeType") => FormatSet::of(&[AiSdk4]),
        "file" if has(part, "data") => FormatSet::of(&[AiSdk]),
        "file" => FormatSet::of(&[OpenAiChat, AiSdk, AiSdk4]),
        "image" if has(part, "source") => FormatSet::of(&[Anthropic]),
        "image" if has(part, "image") && has(part, "mimeType") => FormatSet::of(&[AiSdk4]),
        "image" if has(part, "image") && has(part, "mediaType") => FormatSet::of(&[AiSdk]),
        "image" if has(part, "image") => FormatSet::of(&[AiSdk, AiSdk4]),
        "image" => FormatSet::of(&[AiSdk, Anthropic, AiSdk4]),
        // AI SDK 4's tool calls carry `args`, its results `result`; 5 and
        // later `input` and `output`.
        "tool-call" if has(part, "args") && !has(part, "input") => FormatSet::of(&[AiSdk4]),
        "tool-result" if has(part, "result") && !has(part, "output") => FormatSet::of(&[AiSdk4]),
        "reasoning" => FormatSet::of(&[AiSdk, AiSdk4]),
        "redacted-reasoning" => FormatSet::of(&[AiSdk4]),
        "reasoning-file"
        | "tool-call"
        | "tool-result"
        | "tool-approval-request"
        | "tool-approval-response"
        | "custom" => FormatSet::of(&[AiSdk]),
        "tool_use" | "tool_result" | "thinking" | "redacted_thinking" | "document"
        | "search_result" | "server_tool_use" | "mcp_tool_use" | "container_upload" => {
            FormatSet::of(&[Anthropic])
        }
        server_result if server_result.ends_with("_tool_result") => FormatSet::of(&[Anthropic]),
        "input_text" | "output_text" | "input_image" | "input_file" => {
            FormatSet::of(&[OpenAiResponses])
        }
        _ => FormatSet::ALL,
    }
}

/// The first of `foreign`, fields that belong to other formats, that a
/// message has. Each format's list is one `static`, read in one call into
/// JS (`Node::first_field_of`), built by `joined` from the lists that name
/// those fields (`LANGCHAIN_FIELDS`, `OLLAMA_FIELDS`).
pub fn foreign_field<N: Node>(message: &N, foreign: &'static [&'static str]) -> Option<String> {
    message
        .first_field_of(foreign)
        .map(|at| format!("its field `{}`", foreign[at]))
}

/// The fields of `lists`, one list after another, as one list (see
/// `foreign_field`). `N` must be their count: anything else fails to build.
pub const fn joined<const N: usize>(lists: &[&[&'static str]]) -> [&'static str; N] {
    let mut out = [""; N];
    let mut at = 0;
    let mut list = 0;
    while list < lists.len() {
        let mut i = 0;
        while i < lists[list].len() {
            out[at] = lists[list][i];
            at += 1;
            i += 1;
        }
        list += 1;
    }
    assert!(at == N, "joined: N is not the count of the fields");
    out
}

/// A message's `parts` array and its length, or why not.
pub fn parts_array<N: Node>(message: &N) -> Result<(N, usize), String> {
    let Some(parts) = message.field("parts").ok().flatten() else {
        return Err("its `parts`, which is absent".to_string());
    };
    let len = parts
        .array_len()
        .ok_or_else(|| "its `parts`, which is not an array".to_string())?;
    Ok((parts, len))
}

/// Why a role is not one of a format's roles.
pub fn role_misfit(role: &str) -> String {
    format!("its role \"{role}\"")
}

/// Why a message's content is not of the kind a format has there.
pub fn content_misfit(kind: Kind) -> String {
    format!("its content, which is {}", kind_words(kind))
}

/// "a string", "null", "an array", ... for the words of a misfit.
fn kind_words(kind: Kind) -> &'static str {
    match kind {
        Kind::Undefined => "absent",
        Kind::Null => "null",
        Kind::Bool => "a boolean",
        Kind::Number => "a number",
        Kind::String => "a string",
        Kind::Array => "an array",
        Kind::Object => "an object",
        Kind::Other => "a non-JSON value",
    }
}

/// The name of `key` inside `field` (`content[0].text`), or `key` alone at
/// the top of a message.
pub fn subfield(field: &str, key: &str) -> String {
    if field.is_empty() {
        return key.to_string();
    }
    // Written out rather than formatted, as is `element`: every read of a
    // nested field makes one, error or not.
    let mut path = String::with_capacity(field.len() + 1 + key.len());
    path.push_str(field);
    path.push('.');
    path.push_str(key);
    path
}

/// `field[index]`, the name of an array's element.
pub fn element(field: &str, index: usize) -> String {
    let mut digits = [0u8; 20];
    let mut start = digits.len();
    let mut rest = index;
    loop {
        start -= 1;
        digits[start] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    let mut path = String::with_capacity(field.len() + 2 + digits.len() - start);
    path.push_str(field);
    path.push('[');
    for &digit in &digits[start..] {
        path.push(char::from(digit));
    }
    path.push(']');
    path
}

/// A required string field, counted as text.
pub fn text_milli<N: Node>(
    part: &N,
    reader: &MessageReader,
    field: &str,
    key: &str,
) -> Result<u64, InputError> {
    let text = reader.required_string_value(part, field, key)?;
    Ok(reader.text_milli(&text))
}

/// The parts of an array field: `(field name of part i, part)` for each, with
/// the checks every format makes (an array of objects).
pub fn parts<N: Node>(
    reader: &MessageReader,
    array: &N,
    field: &str,
    what: &str,
) -> Result<Vec<(String, N)>, InputError> {
    crate::util::collect::all_ok(
        (0..part_count(reader, array, field)?).map(|i| part_at(reader, array, field, what, i)),
    )
}

/// How many parts an array field has; an error when it is not an array. With
/// `part_at`, for a loop whose own checks of part `i` must come before those
/// of part `i + 1`.
pub fn part_count<N: Node>(
    reader: &MessageReader,
    array: &N,
    field: &str,
) -> Result<usize, InputError> {
    array
        .array_len()
        .ok_or_else(|| reader.type_error(field, "an array", array.kind()))
}

/// Part `i` of an array field and its field name, checked as `parts` checks
/// each.
pub fn part_at<N: Node>(
    reader: &MessageReader,
    array: &N,
    field: &str,
    what: &str,
    i: usize,
) -> Result<(String, N), InputError> {
    let part_field = element(field, i);
    let part = reader.item(array, &part_field, i)?;
    if part.kind() != Kind::Object {
        return Err(reader.type_error(&part_field, what, part.kind()));
    }
    Ok((part_field, part))
}

/// A part's required `type`.
pub fn required_type<N: Node>(
    reader: &MessageReader,
    part: &N,
    field: &str,
) -> Result<String, InputError> {
    reader.required_string(part, field, "type")
}

/// A tool output for the transcript: a string is its text; an array gives the
/// `text` of its parts of the `text_types` joined by line breaks, and its
/// other parts as attachments by type.
pub fn output_text<N: Node>(value: Option<&N>, text_types: &[&str]) -> (String, Vec<Block>) {
    let Some(value) = value else {
        return (String::new(), Vec::new());
    };
    if let Some(text) = value.text() {
        return (text.into_owned(), Vec::new());
    }
    let mut texts = Vec::new();
    let mut attachments = Vec::new();
    for part in (0..value.array_len().unwrap_or(0)).filter_map(|i| value.item(i).ok()) {
        match type_name(&part) {
            Some(part_type) if text_types.contains(&part_type.as_str()) => {
                texts.push(string_field(&part, "text").unwrap_or_default())
            }
            Some(part_type) => attachments.push(Block::Attachment(part_type)),
            None => {}
        }
    }
    (
        crate::util::join::join(texts.iter().map(String::as_str), "\n"),
        attachments,
    )
}

/// Where a chat `tool` message (OpenAI Chat, Ollama) holds its result: its
/// `content`, which pruning replaces.
pub const CHAT_RESULT_FIELD: &str = "content";

/// A message object's `role` in the formats that take any role (OpenAI Chat,
/// Ollama): an unknown role is read as system-like. (`function`, OpenAI's
/// older tool role, is read in both: Ollama's misfit refuses it before this.)
pub const CHAT_ROLE: RoleRule = RoleRule {
    what: "a message object",
    roles: &[
        ("system", Role::System),
        ("user", Role::User),
        ("assistant", Role::Assistant),
        ("tool", Role::Tool),
        ("function", Role::Tool),
    ],
    other: Some(Role::Other),
    hint: "",
    absent: None,
};

/// The blocks of a message's content for the transcript: a string is one
/// text (a marker's summary without its tags); each part of an array is
/// handed to `part` with its type.
pub fn content_blocks<N: Node>(
    content: Option<&N>,
    // `dyn`: one copy of this loop, not one per format.
    part: &mut dyn FnMut(&N, &str, &mut Vec<Block>),
) -> Vec<Block> {
    let mut blocks = Vec::new();
    let Some(content) = content else {
        return blocks;
    };
    if let Some(text) = content.text() {
        blocks.push(Block::Text(untagged(&text).to_string()));
    }
    for item in (0..content.array_len().unwrap_or(0)).filter_map(|i| content.item(i).ok()) {
        if let Some(part_type) = type_name(&item) {
            part(&item, &part_type, &mut blocks);
        }
    }
    blocks
}

/// A text part for the transcript: its `text`, a marker's summary without
/// its tags.
pub fn text_block<N: Node>(part: &N) -> Block {
    Block::Text(untagged(&string_field(part, "text").unwrap_or_default()).to_string())
}

/// A tool call for the transcript, its input (any JSON) as JSON text.
pub fn tool_call_block<N: Node>(part: &N, id: &str, name: &str, input: &str) -> Block {
    Block::ToolCall {
        id: string_field(part, id).unwrap_or_default(),
        name: string_field(part, name).unwrap_or_default(),
        arguments: match part.field(input).ok().flatten() {
            Some(value) => value
                .text()
                .map_or_else(|| json_text(&value), |t| t.into_owned()),
            None => String::new(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_marker_tag_spells_the_marker_name() {
        let name = COMPACTION_MARKER_NAME;
        assert_eq!(MARKER_OPEN, format!("<{name}>"));
        assert_eq!(MARKER_CLOSE, format!("</{name}>"));
    }

    #[test]
    fn field_names_are_written_as_format_writes_them() {
        for index in [0, 7, 10, 99, 1_000, 4_294_967_295, usize::MAX] {
            assert_eq!(element("content", index), format!("content[{index}]"));
            assert_eq!(element("", index), format!("[{index}]"));
        }
        assert_eq!(
            subfield("parts[2]", "functionResponse"),
            "parts[2].functionResponse"
        );
        assert_eq!(subfield("", "content"), "content");
    }

    #[test]
    fn the_marker_tag_wraps_and_unwraps() {
        let text = tagged("Summary.\nSecond line.");
        let content = serde_json::json!(text);
        assert!(tag_candidate("user", Some(&&content)));
        assert!(!tag_candidate("assistant", Some(&&content)));
        assert!(is_marker("user", None, true));
        assert!(!is_marker("assistant", None, true));
        assert!(is_marker("system", Some(COMPACTION_MARKER_NAME), false));
        assert_eq!(untagged(&text), "Summary.\nSecond line.");
        assert_eq!(untagged("not a marker"), "not a marker");
    }
}

//! What several formats' checks ask of one message, each read once.
//! Detection checks a message against every format still in the running,
//! and a plain text message (`{ role, content }`) fits six of them: with
//! each check reading the role, the content and the chat fields for itself,
//! a plain message cost 63 calls into JS where reading it as one format
//! costs 17; through one shared read it costs 23. Detection keeps each
//! message's reads, and its format's reader takes those it would make again
//! (`ChecksRead`): the role, the content and the tool calls.

use std::cell::OnceCell;

use crate::error::InputError;
use crate::formats::ollama::{self, OLLAMA_FIELDS};
use crate::formats::shared::{
    foreign_field, has, joined, part_formats, type_name, FormatSet, LANGCHAIN_FIELDS,
};
use crate::formats::{Format, MessageReader, RoleRule};
use crate::node::{Kind, Node};
use crate::view::Role;

/// A message and what the checks have read of it so far.
pub struct Facts<'m, N> {
    pub message: &'m N,
    role: OnceCell<RoleRead>,
    untyped: OnceCell<Option<String>>,
    /// What reading `content` gave (`Err`: what it threw).
    content: OnceCell<Result<Option<N>, String>>,
    content_kind: OnceCell<Kind>,
    /// The formats each part of an array `content` may belong to.
    part_formats: OnceCell<Vec<FormatSet>>,
    tool_calls: OnceCell<Result<Option<N>, String>>,
    has_tool_call_id: OnceCell<bool>,
}

/// What reading a message's `role` gave.
enum RoleRead {
    /// None: absent or undefined.
    Absent,
    Text(String),
    /// A value that is no string.
    NotText,
    /// What it threw is left for the reader to read again and report.
    Threw,
}

/// What no message of a format read by its role alone has (`untyped_role`):
/// LangChain's fields, a `type` or `parts`, and Ollama's fields.
static UNTYPED_FOREIGN: [&str; 8] = joined(&[LANGCHAIN_FIELDS, &["type", "parts"], OLLAMA_FIELDS]);

impl<'m, N: Node> Facts<'m, N> {
    pub fn new(message: &'m N) -> Self {
        Facts {
            message,
            role: OnceCell::new(),
            untyped: OnceCell::new(),
            content: OnceCell::new(),
            content_kind: OnceCell::new(),
            part_formats: OnceCell::new(),
            tool_calls: OnceCell::new(),
            has_tool_call_id: OnceCell::new(),
        }
    }

    /// The message's `role` when it is a string, or why not.
    pub fn string_role(&self) -> Result<&str, String> {
        match self.role_read() {
            RoleRead::Text(role) => Ok(role),
            _ => Err("its `role`, which is not a string".to_string()),
        }
    }

    /// Whether the message has a `role` that is no string (one whose read
    /// threw counts as absent, as `has` counts it).
    pub fn role_not_text(&self) -> bool {
        matches!(self.role_read(), RoleRead::NotText)
    }

    fn role_read(&self) -> &RoleRead {
        self.role.get_or_init(|| match self.message.field("role") {
            Ok(None) => RoleRead::Absent,
            Ok(Some(role)) => role
                .text()
                .map_or(RoleRead::NotText, |role| RoleRead::Text(role.into_owned())),
            Err(_) => RoleRead::Threw,
        })
    }

    /// The message's role when it has no `type` field (an item or a
    /// response object has one), no `parts` (a Gemini content and a UI
    /// message have them) and no field or tool call only LangChain's or
    /// Ollama's messages have; or why not.
    pub fn untyped_role(&self) -> Result<&str, String> {
        let misfit = self.untyped.get_or_init(|| {
            foreign_field(self.message, &UNTYPED_FOREIGN).or_else(|| self.ollama_calls_misfit())
        });
        match misfit {
            Some(why) => Err(why.clone()),
            None => self.string_role(),
        }
    }

    /// The first of the message's tool calls that is Ollama's (see
    /// `ollama::ollama_calls_misfit`).
    pub fn ollama_calls_misfit(&self) -> Option<String> {
        self.tool_calls().and_then(ollama::ollama_calls_misfit)
    }

    /// The message's `tool_calls`, `None` when absent or when reading it
    /// threw.
    pub fn tool_calls(&self) -> Option<&N> {
        let read = self
            .tool_calls
            .get_or_init(|| self.message.field("tool_calls"));
        read.as_ref().ok()?.as_ref()
    }

    /// The message's `content`, `None` when absent or when reading it threw.
    pub fn content(&self) -> Option<&N> {
        let read = self.content.get_or_init(|| self.message.field("content"));
        read.as_ref().ok()?.as_ref()
    }

    /// What the checks' reads of `role`, `content` (and its kind) and
    /// `tool_calls` gave, taken for the format's reader to use in place of
    /// reads of its own (each read is a call into JS). A `role` that was no
    /// string, or whose read threw, is not kept: the reader reads it again,
    /// to say what is wrong with it.
    pub fn take_read(&mut self) -> ChecksRead<N> {
        ChecksRead {
            role: match self.role.take() {
                Some(RoleRead::Text(role)) => Some(Some(role)),
                Some(RoleRead::Absent) => Some(None),
                _ => None,
            },
            content: self.content.take(),
            content_kind: self.content_kind.get().copied(),
            tool_calls: self.tool_calls.take(),
        }
    }

    /// The kind of the message's `content`, `Undefined` when `content` is.
    pub fn content_kind(&self) -> Kind {
        *self
            .content_kind
            .get_or_init(|| self.content().map_or(Kind::Undefined, Node::kind))
    }

    /// The field, if any, that only OpenAI Chat messages have.
    pub fn chat_field_misfit(&self) -> Option<String> {
        if self.tool_calls().is_some() {
            return Some("its field `tool_calls`".to_string());
        }
        let has_id = *self
            .has_tool_call_id
            .get_or_init(|| has(self.message, "tool_call_id"));
        has_id.then(|| "its field `tool_call_id`".to_string())
    }

    /// Why an array `content` cannot belong to `format`: its first part of
    /// a type only other formats have (`content[2].type "input_text"`). A
    /// content that is not an array has no parts to object.
    pub fn parts_misfit(&self, format: Format) -> Option<String> {
        let content = self.content()?;
        if self.content_kind() != Kind::Array {
            return None;
        }
        let sets = self.part_formats.get_or_init(|| {
            let len = content.array_len().unwrap_or(0);
            (0..len)
                // A throwing element is left for `view` to report.
                .map(|i| {
                    content
                        .item(i)
                        .map_or(FormatSet::ALL, |part| part_formats(&part))
                })
                .collect()
        });
        let at = sets.iter().position(|set| !set.contains(format))?;
        let part = content.item(at).ok();
        let part_type = part.as_ref().and_then(type_name).unwrap_or_default();
        Some(format!("its content[{at}].type \"{part_type}\""))
    }
}

/// What the checks read of a message (`Facts::take_read`), for its
/// format's reader: each field is taken from here where the checks read
/// it, and read by the reader where they did not, the reader's errors the
/// same either way.
pub struct ChecksRead<N> {
    /// The `role` string, or `Some(None)` for none.
    role: Option<Option<String>>,
    content: Option<Result<Option<N>, String>>,
    content_kind: Option<Kind>,
    tool_calls: Option<Result<Option<N>, String>>,
}

impl<N: Node> ChecksRead<N> {
    /// Nothing read: the reader reads every field.
    pub fn none() -> Self {
        ChecksRead {
            role: None,
            content: None,
            content_kind: None,
            tool_calls: None,
        }
    }

    /// The message's role by `rule`. (The checks read the role only of a
    /// message object, and keep it only when it is a string or absent.)
    pub fn role(
        &mut self,
        message: &N,
        rule: &RoleRule,
        reader: &MessageReader,
    ) -> Result<(String, Role), InputError> {
        match self.role.take() {
            Some(Some(name)) => rule.named(name, reader),
            Some(None) => rule.without_role(message, reader),
            None => rule.read(message, reader),
        }
    }

    /// The message's `content`.
    pub fn content(
        &mut self,
        message: &N,
        reader: &MessageReader,
    ) -> Result<Option<N>, InputError> {
        reader.get_or_read(message, self.content.take(), "", "content")
    }

    /// The kind of `content`, the message's (`Undefined` when it has none).
    pub fn content_kind(&self, content: Option<&N>) -> Kind {
        match content {
            Some(content) => self.content_kind.unwrap_or_else(|| content.kind()),
            None => Kind::Undefined,
        }
    }

    /// The message's `content` where it may only be a string, refused as
    /// `MessageReader::string` refuses anything else.
    pub fn string_content(
        &mut self,
        message: &N,
        reader: &MessageReader,
    ) -> Result<Option<N>, InputError> {
        let content = self.content(message, reader)?;
        reader.string_of(
            content,
            |content| self.content_kind(Some(content)),
            "",
            "content",
        )
    }

    /// The message's `tool_calls`.
    pub fn tool_calls(
        &mut self,
        message: &N,
        reader: &MessageReader,
    ) -> Result<Option<N>, InputError> {
        reader.get_or_read(message, self.tool_calls.take(), "", "tool_calls")
    }
}

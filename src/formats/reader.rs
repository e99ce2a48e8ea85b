//! `MessageReader`: the reader of one message's fields that every format's
//! `view` and `content` are written with, so every error names the argument,
//! the message index and the field.

use crate::error::InputError;
use crate::node::{Kind, Node};

use super::shared::subfield;

/// The reader of one message's fields, which every format's `view` and
/// `content` are written with. It holds three things that travel together:
/// where the message is (`argument`, `index`), so every error names
/// `messages[3].content[0].text`; how to read it (the placeholder, and
/// whether to estimate sizes); and the field readers and estimates that use
/// both. Kept as one value because every reader needs the place for its
/// errors, and the estimates need the settings.
#[derive(Clone, Copy, Debug)]
pub struct MessageReader<'a> {
    /// The argument the messages came in (`messages`, `effective`).
    pub argument: &'a str,
    pub index: usize,
    /// What a cleared tool result holds, to notice one already cleared.
    pub placeholder: &'a str,
    /// Whether to estimate sizes: `effectiveHistory` and `detect_format`
    /// need only the structure, and the estimate is most of a read's time.
    pub sizes: bool,
    /// Without sizes, whether to notice the tool-result payloads that
    /// already are the placeholder (pruning's older messages, read newest
    /// first, are cleared unread, but for those already cleared).
    pub cleared: bool,
}

impl MessageReader<'_> {
    /// The estimate of a text, in thousandths of a token (0 without sizes).
    pub fn milli(&self, text: &str) -> u64 {
        if self.sizes {
            crate::estimate::text_milli_tokens(text)
        } else {
            0
        }
    }

    /// The estimate of a string value, which is read only to be estimated.
    pub fn text_milli<N: Node>(&self, text: &N) -> u64 {
        if self.sizes {
            text.estimate_text("").map_or(0, |(milli, _)| milli)
        } else {
            0
        }
    }

    /// A tool result's string payload: its estimate, and whether it already
    /// is the placeholder. Without sizes neither matters, and the text (most
    /// of a history's bytes) is not read at all.
    pub fn payload<N: Node>(&self, text: &N) -> (u64, bool) {
        if !self.sizes {
            return (0, self.cleared && text.text_is(self.placeholder));
        }
        // Anything but a string is read as the empty text.
        text.estimate_text(self.placeholder).unwrap_or_else(|| {
            (
                crate::estimate::text_milli_tokens(""),
                self.placeholder.is_empty(),
            )
        })
    }

    /// The estimate of encrypted reasoning, from its length (0 without sizes).
    pub fn encrypted_milli<N: Node>(&self, text: &N) -> u64 {
        if self.sizes {
            text.text().map_or(0, |text| {
                crate::estimate::encrypted_milli_tokens(text.len())
            })
        } else {
            0
        }
    }

    /// The estimate of a free-form JSON value (0 without sizes).
    pub fn json_milli<N: Node>(&self, value: &N) -> u64 {
        if self.sizes {
            crate::estimate::json::json_milli_tokens(value)
        } else {
            0
        }
    }

    /// `effective[3].tool_calls[0].id`
    pub fn path(&self, field: &str) -> String {
        if field.is_empty() {
            format!("{}[{}]", self.argument, self.index)
        } else {
            format!("{}[{}].{field}", self.argument, self.index)
        }
    }

    pub fn type_error(&self, field: &str, expected: &str, got: Kind) -> InputError {
        InputError::type_error(format!(
            "{} must be {expected}, got {}",
            self.path(field),
            got.describe()
        ))
    }

    /// The field `key` of `value`, `None` when absent; an error when reading
    /// it threw. Here and in the readers below, `parent` is the field that
    /// holds `value` (`content[0]`), or `""` for the message itself: errors
    /// name the field as `subfield(parent, key)`.
    pub fn get<N: Node>(
        &self,
        value: &N,
        parent: &str,
        key: &str,
    ) -> Result<Option<N>, InputError> {
        self.got(value.field(key), parent, key)
    }

    /// `get`, or its answer from a read of the field made before (`read`,
    /// as `Node::field` gave it).
    pub fn get_or_read<N: Node>(
        &self,
        value: &N,
        read: Option<Result<Option<N>, String>>,
        parent: &str,
        key: &str,
    ) -> Result<Option<N>, InputError> {
        match read {
            Some(read) => self.got(read, parent, key),
            None => self.get(value, parent, key),
        }
    }

    /// `get`'s answer for the read `read`: what it threw, in words, as an
    /// error naming the field.
    fn got<N: Node>(
        &self,
        read: Result<Option<N>, String>,
        parent: &str,
        key: &str,
    ) -> Result<Option<N>, InputError> {
        read.map_err(|thrown| {
            let field = subfield(parent, key);
            InputError::type_error(format!("{} could not be read: {thrown}", self.path(&field)))
        })
    }

    /// An optional string field.
    pub fn string<N: Node>(
        &self,
        value: &N,
        parent: &str,
        key: &str,
    ) -> Result<Option<N>, InputError> {
        let field = self.get(value, parent, key)?;
        self.string_of(field, N::kind, parent, key)
    }

    /// `string`'s answer for the field read before (`field`), whose kind
    /// `kind_of` says.
    pub fn string_of<N: Node>(
        &self,
        field: Option<N>,
        kind_of: impl FnOnce(&N) -> Kind,
        parent: &str,
        key: &str,
    ) -> Result<Option<N>, InputError> {
        match field {
            Some(child) => match kind_of(&child) {
                Kind::String => Ok(Some(child)),
                kind => Err(self.type_error(&subfield(parent, key), "a string", kind)),
            },
            None => Ok(None),
        }
    }

    /// An optional string field, as its text. The text is read at once (a
    /// value that is no string has none), and its kind asked only for the
    /// error: one call into JS fewer than `string` and then `text`.
    pub fn optional_string<N: Node>(
        &self,
        value: &N,
        parent: &str,
        key: &str,
    ) -> Result<Option<String>, InputError> {
        match self.get(value, parent, key)? {
            None => Ok(None),
            Some(child) => match child.text() {
                Some(text) => Ok(Some(text.into_owned())),
                None => Err(self.type_error(&subfield(parent, key), "a string", child.kind())),
            },
        }
    }

    /// A string field that must be there, as its value: checked, not read.
    pub fn required_string_value<N: Node>(
        &self,
        value: &N,
        parent: &str,
        key: &str,
    ) -> Result<N, InputError> {
        match self.string(value, parent, key)? {
            Some(child) => Ok(child),
            None => Err(self.type_error(&subfield(parent, key), "a string", Kind::Undefined)),
        }
    }

    /// An array field that must be there; `expected` says what it holds
    /// ("an array of parts").
    pub fn required_array<N: Node>(
        &self,
        value: &N,
        parent: &str,
        key: &str,
        expected: &str,
    ) -> Result<N, InputError> {
        match self.get(value, parent, key)? {
            Some(array) if array.kind() == Kind::Array => Ok(array),
            other => {
                let got = other.as_ref().map_or(Kind::Undefined, Node::kind);
                Err(self.type_error(&subfield(parent, key), expected, got))
            }
        }
    }

    /// A string field that must be there.
    pub fn required_string<N: Node>(
        &self,
        value: &N,
        parent: &str,
        key: &str,
    ) -> Result<String, InputError> {
        match self.optional_string(value, parent, key)? {
            Some(text) => Ok(text),
            None => Err(self.type_error(&subfield(parent, key), "a string", Kind::Undefined)),
        }
    }

    /// An element of an array; an error when reading it threw.
    pub fn item<N: Node>(&self, array: &N, field: &str, index: usize) -> Result<N, InputError> {
        array.item(index).map_err(|thrown| {
            InputError::type_error(format!("{} could not be read: {thrown}", self.path(field)))
        })
    }
}

//! Where a message's tool results are when each is a part of its content
//! (AI SDK 5 and later: a `tool-result` part's tagged payload `output`,
//! `{ type, value }`; AI SDK 4: a `tool-result` part's `result`, any JSON
//! value; Anthropic: a `tool_result` block's `content`, a string or an array
//! of blocks; Gemini: the `response` object of a part's `functionResponse`;
//! AI SDK UI: a tool part's `output` or `errorText`, as its `state` says),
//! stated as data. The format's reader finds
//! and prices its results by it; pruning's older messages, whose results are
//! all cleared, are read by it alone, many at a time
//! (`Messages::result_parts`, `resultParts` in `guarded.js`), so the two
//! reads cannot disagree on what a result is.

use crate::formats::shared::{element, has, type_name};
use crate::node::{Kind, Node};
use crate::view::{Path, Replacement, ToolResult};

/// What the value of a payload type holds, as far as pruning goes.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Payload {
    /// Text: the placeholder once cleared.
    Text,
    /// Any JSON value.
    Json,
    /// An array of content parts.
    Content,
}

/// What a payload that is the value itself, no tagged object, may be
/// (`ResultParts::untagged`). Each one's number is its code in
/// `resultParts` (`guarded.js`).
#[derive(Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Untagged {
    /// A string or an array of content parts; a part without one holds
    /// nothing to clear (Anthropic).
    Content = 0,
    /// Any JSON value (AI SDK 4).
    Json = 1,
    /// An object whose text is under the key of `cleared` (its output) or
    /// of `cleared_error` (its error): cleared already when that is its one
    /// key and holds the placeholder, and an error when it has the error's
    /// key but not the output's; a part without one holds nothing to clear
    /// (Gemini's `response`).
    Keyed = 2,
}

pub struct ResultParts {
    /// The message's field that holds its parts.
    pub array: &'static str,
    /// The `type` of a part that is a tool result, or "" when a part is
    /// one by its field `result_key`.
    pub part_type: &'static str,
    /// A start of the `type` that also makes a part a tool result (AI SDK
    /// UI's `tool-NAME`, beside its `dynamic-tool`), or "".
    pub type_prefix: &'static str,
    /// With no `part_type`, the field whose presence makes a part a tool
    /// result, an object that holds the result's id and payload (Gemini's
    /// `functionResponse`, as its parts have no `type`); "" otherwise.
    pub result_key: &'static str,
    /// A result's field naming the call it answers, or "" for none that
    /// must be there.
    pub id_key: &'static str,
    /// A result's field that holds its payload, which pruning replaces.
    pub payload: &'static str,
    /// The payload's field that holds its value; with a `state_key`, the
    /// part's field that holds the payload of a state that reports an
    /// error.
    pub value_key: &'static str,
    /// The part's field whose string says whether it holds a result yet,
    /// and in which field (AI SDK UI's `state`), or "". `types` then name
    /// the states that hold one: the payload is under `payload`, or under
    /// `value_key` for a state that reports an error; text must be a
    /// string, and a string that is the placeholder is cleared already.
    pub state_key: &'static str,
    /// The payload types that pruning clears, what each one's value holds,
    /// and whether it reports an error (`cleared_error` then replaces it, so
    /// the provider still marks the call as failed). A payload of any other
    /// type is kept as it is. None: the payload is no tagged object but the
    /// value itself (`untagged`).
    pub types: &'static [(&'static str, Payload, bool)],
    /// What an untagged payload may be. A string that is the placeholder
    /// is cleared already.
    pub untagged: Untagged,
    /// A field whose presence keeps a result part as it is, or "": AI SDK
    /// 4 sends `experimental_content` in place of `result`, and one edit
    /// cannot clear both.
    pub kept_if: &'static str,
    pub cleared: Replacement,
    pub cleared_error: Replacement,
}

/// What `ResultParts::to_clear` answers for a message the rule can say
/// nothing of: the caller reads it with its format's reader.
pub const UNKNOWN: (u32, u32) = (0, 0);
/// Set in every other answer of `ResultParts::to_clear`.
pub const KNOWN: u32 = 1 << 31;
/// Set in `Messages::result_parts`' third number of a message whose
/// payloads were recorded (`Messages::recorded_payload`).
pub const RECORDED: u32 = 1 << 31;
/// The parts a message may have for `to_clear` to answer: one bit each.
pub const MOST_PARTS: usize = 31;

impl ResultParts {
    /// What a payload of the type `name` holds and whether it reports an
    /// error; `None` for a payload kept as it is.
    pub fn payload_type(&self, name: &str) -> Option<(Payload, bool)> {
        self.types
            .iter()
            .find(|(known, _, _)| *known == name)
            .map(|&(_, payload, error)| (payload, error))
    }

    pub fn replacement(&self, error: bool) -> Replacement {
        if error {
            self.cleared_error
        } else {
            self.cleared
        }
    }

    /// Whether a part whose `type` is `name` is a tool result (a rule
    /// with no `result_key`).
    pub fn is_result_type(&self, name: &str) -> bool {
        name == self.part_type || !self.type_prefix.is_empty() && name.starts_with(self.type_prefix)
    }

    /// The field of a result that holds its payload, for a result that
    /// reports an error or not.
    pub fn payload_key(&self, error: bool) -> &'static str {
        match error && !self.state_key.is_empty() {
            true => self.value_key,
            false => self.payload,
        }
    }

    /// Part `index` of a message's array of parts (`array`) and its field
    /// name, when it is an object of the rule's part type (or with its
    /// `result_key`); `None` when it is not, or a read on the way throws
    /// (the message's whole read then says what is wrong).
    pub fn part_of<N: Node>(&self, message: &N, index: usize) -> Option<(N, String)> {
        let part = message.field(self.array).ok()??.item(index).ok()?;
        let is_result = part.kind() == Kind::Object
            && match self.result_key {
                "" => type_name(&part).is_some_and(|name| self.is_result_type(&name)),
                key => has(&part, key),
            };
        is_result.then(|| (part, element(self.array, index)))
    }

    /// The result of the part at `index`, to be cleared.
    pub fn result(&self, index: usize, milli: u64, cleared: bool, error: bool) -> ToolResult {
        let path = match self.result_key {
            "" => Path::part_field(self.array, index, self.payload_key(error)),
            result => Path::part_subfield(self.array, index, result, self.payload),
        };
        ToolResult::new(path, milli, cleared, self.replacement(error))
    }

    /// `Untagged::Keyed`'s output key and error key.
    pub fn keyed_keys(&self) -> (&'static str, &'static str) {
        (
            self.cleared.placeholder_key(),
            self.cleared_error.placeholder_key(),
        )
    }

    /// Of an `Untagged::Keyed` payload (an object): the value under its one
    /// key when that key is the output's or the error's, `None` when it has
    /// another key or more than one; `Err` when a read throws. Such a value,
    /// a text, is the payload's text (a Gemini `response`).
    pub fn keyed_single_value<N: Node>(&self, payload: &N) -> Result<Option<N>, String> {
        let (output, error) = self.keyed_keys();
        let keyed_by = [output, error];
        match payload.only_key_of(keyed_by)? {
            Some(only) => payload.field(keyed_by[only]),
            None => Ok(None),
        }
    }

    /// The results to clear that `to_clear` found, in place of what
    /// `results` held: bit `i` of `parts` is the part at `i`, and of
    /// `errors` whether it reports an error. (One vector for all of
    /// pruning's older messages, not one each.)
    pub fn results_into(&self, parts: u32, errors: u32, results: &mut Vec<ToolResult>) {
        results.clear();
        // Only the set bits, lowest first.
        let mut rest = parts & !KNOWN;
        while rest != 0 {
            let index = rest.trailing_zeros();
            results.push(self.result(index as usize, 0, false, errors & (1 << index) != 0));
            rest &= rest - 1;
        }
    }

    /// Which parts of `message` hold a result to clear (bit `i` for the part
    /// at `i`, with `KNOWN`; none when `array` is text) and which of those
    /// report an error, reading nothing but the parts (their `type`, or
    /// their `result_key`) and the results' `id_key` and payload;
    /// `UNKNOWN` when anything is not as the reader wants it (a part that is
    /// no object, a field that is no string, a read that throws) or there
    /// are more than `MOST_PARTS` parts: the caller then reads the message
    /// with its format's reader, which says what is wrong. `resultParts` in
    /// `guarded.js` follows the same steps over JS values.
    pub fn to_clear<N: Node>(&self, message: &N, placeholder: &str) -> (u32, u32) {
        self.try_to_clear(message, placeholder).unwrap_or(UNKNOWN)
    }

    fn try_to_clear<N: Node>(&self, message: &N, placeholder: &str) -> Option<(u32, u32)> {
        let parts = message.field(self.array).ok()??;
        if parts.kind() == Kind::String {
            // Text alone: no parts.
            return Some((KNOWN, 0));
        }
        let len = parts.array_len()?;
        if len > MOST_PARTS {
            return None;
        }
        let (mut clear, mut errors) = (KNOWN, 0);
        for index in 0..len {
            let part = parts.item(index).ok()?;
            if part.kind() != Kind::Object {
                return None;
            }
            // The object that holds the result: the part, or its
            // `result_key`.
            let inner = if self.result_key.is_empty() {
                // A part whose type is no string is refused by the reader.
                if !self.is_result_type(&part.field("type").ok()??.text()?) {
                    continue;
                }
                None
            } else {
                match part.field(self.result_key).ok()? {
                    None => continue,
                    Some(inner) if inner.kind() == Kind::Object => Some(inner),
                    Some(_) => return None,
                }
            };
            let result = inner.as_ref().unwrap_or(&part);
            if !self.id_key.is_empty() {
                result.field(self.id_key).ok()??.text()?;
            }
            if !self.state_key.is_empty() {
                match self.state_to_clear(result, placeholder)? {
                    None => continue,
                    Some(error) => {
                        clear |= 1 << index;
                        errors |= u32::from(error) << index;
                        continue;
                    }
                }
            }
            let payload = result.field(self.payload).ok()?;
            if self.types.is_empty() {
                let kept = !self.kept_if.is_empty() && part.field(self.kept_if).ok()?.is_some();
                let json = self.untagged == Untagged::Json;
                // The payload is the value: kept, the placeholder, or
                // absent where that means no result, there is nothing to
                // clear.
                match payload {
                    _ if kept => continue,
                    None if json => return None,
                    None => continue,
                    Some(object) if self.untagged == Untagged::Keyed => {
                        match self.keyed_to_clear(&object, placeholder)? {
                            None => continue,
                            Some(error) => errors |= u32::from(error) << index,
                        }
                    }
                    Some(text) if text.kind() == Kind::String => {
                        if text.text_is(placeholder) {
                            continue;
                        }
                    }
                    Some(value) if json || value.kind() == Kind::Array => {}
                    Some(_) => return None,
                }
                clear |= 1 << index;
                continue;
            }
            let payload = payload?;
            if payload.kind() != Kind::Object {
                return None;
            }
            let payload_type = payload.field("type").ok()??.text()?.into_owned();
            let Some((kind, error)) = self.payload_type(&payload_type) else {
                continue;
            };
            if kind == Payload::Text {
                let value = payload.field(self.value_key).ok()??;
                value.text()?;
                if value.text_is(placeholder) {
                    continue;
                }
            }
            clear |= 1 << index;
            if error {
                errors |= 1 << index;
            }
        }
        Some((clear, errors))
    }

    /// Of a result whose `state_key` says where its payload is: `None`
    /// when the rule cannot say (a state or a text that is no string, a
    /// read that throws), `Some(None)` when it holds none to clear (a state
    /// not among `types`, no payload, or the placeholder), else whether it
    /// reports an error.
    fn state_to_clear<N: Node>(&self, result: &N, placeholder: &str) -> Option<Option<bool>> {
        let state = result.field(self.state_key).ok()??.text()?.into_owned();
        let Some((kind, error)) = self.payload_type(&state) else {
            return Some(None);
        };
        match result.field(self.payload_key(error)).ok()? {
            None => Some(None),
            Some(text) if text.kind() == Kind::String => {
                Some((!text.text_is(placeholder)).then_some(error))
            }
            Some(_) if kind == Payload::Text => None,
            Some(_) => Some(Some(error)),
        }
    }

    /// Of an `Untagged::Keyed` payload: `None` when the rule cannot say (no
    /// object, a read that throws), `Some(None)` when it is cleared
    /// already, else whether it reports an error.
    fn keyed_to_clear<N: Node>(&self, payload: &N, placeholder: &str) -> Option<Option<bool>> {
        if payload.kind() != Kind::Object {
            return None;
        }
        let value = self.keyed_single_value(payload).ok()?;
        if value.is_some_and(|v| v.text_is(placeholder)) {
            return Some(None);
        }
        let (output, error) = self.keyed_keys();
        let has = |key| payload.field(key).map(|value| value.is_some()).ok();
        Some(Some(has(error)? && !has(output)?))
    }
}

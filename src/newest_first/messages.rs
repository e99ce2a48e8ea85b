//! A history as the newest-first reads read it: a message at a time, only
//! the ones a decision needs. In WebAssembly, reading every element of the
//! caller's array into Rust first cost more than the decisions themselves.

use std::ops::Range;

use crate::error::InputError;
use crate::formats::result_parts::{ResultParts, KNOWN, UNKNOWN};
use crate::formats::shared::may_be_marker_by_fields;
use crate::formats::ResultField;
use crate::node::{Kind, Node};

/// What `Messages::result_fields` answers for a field: read the message,
/// clear the field, or nothing to clear.
pub const OTHER: u8 = 0;
pub const TO_CLEAR: u8 = 1;
pub const CLEARED: u8 = 2;
/// Added to `TO_CLEAR` by a history that copies each message it says to
/// clear (`result_fields` of a `JsHistory` that copies): this message's
/// copy was made, with its field cleared.
pub const COPIED: u8 = 4;
/// Set in `result_parts`' second number (which parts report an error) by
/// a history that copies each message it says to clear: this message's
/// copy was made, with every part to clear cleared.
pub const COPIED_PARTS: u32 = 1 << 31;

pub trait Messages {
    type Node: Node + Clone;

    fn len(&self) -> usize;

    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The message at `index`, read now; `None` when it cannot be read (the
    /// whole read then says why).
    fn message(&self, index: usize) -> Option<Self::Node>;

    /// `Node::role_names` of the messages in `range`. The names are a
    /// list for the life of the module, so that the bindings can keep the
    /// JS array they make of it (`keys::key_list`).
    fn role_names(
        &self,
        range: Range<usize>,
        names: &'static [&'static str],
        with_content: bool,
    ) -> Vec<u8>;

    /// For each message in `range`, 1 when it may be a compaction marker by
    /// its fields alone (`shared::may_be_marker_by_fields`, which answers 1
    /// for one that cannot be read), 0 when it is none in any format (any
    /// format whose marker may lack a role, when `roleless`).
    fn marker_candidates(&self, range: Range<usize>, roleless: bool) -> Vec<u8> {
        range
            .map(|index| {
                self.message(index).map_or(1, |message| {
                    u8::from(may_be_marker_by_fields(&message, roleless))
                })
            })
            .collect()
    }

    /// For each message at `indexes`, what its `field` is to pruning:
    /// `TO_CLEAR` a string other than `placeholder` (or, with `parts`, an
    /// array: `Format::result_field_takes_parts`), `CLEARED` the
    /// placeholder, and `OTHER` anything else (the caller then reads the
    /// message itself, and reports what a read throws). The first `known`
    /// are `TO_CLEAR`, the caller has read them: their field is not read
    /// again. A history that copies the messages it says to clear adds
    /// `COPIED` to the state of each one it copied.
    fn result_fields(
        &self,
        indexes: &[u32],
        known: usize,
        field: ResultField,
        parts: bool,
        placeholder: &str,
    ) -> Vec<u8> {
        let state = |index: u32| {
            let value = field.value(&self.message(index as usize)?)?;
            match value.kind() {
                Kind::String if value.text_is(placeholder) => Some(CLEARED),
                Kind::String => Some(TO_CLEAR),
                Kind::Array if parts => Some(TO_CLEAR),
                _ => None,
            }
        };
        let read = indexes.iter().skip(known);
        let states = read.map(|&index| state(index).unwrap_or(OTHER));
        std::iter::repeat_n(TO_CLEAR, known.min(indexes.len()))
            .chain(states)
            .collect()
    }

    /// The value of `field`, the one field that holds the result of the
    /// message at `index` (`ResultField::value`); `None` when the message
    /// cannot be read, the field is absent, or a read throws (the caller
    /// then reads the message itself, and reports what is wrong).
    fn result_field_value(&self, index: usize, field: ResultField) -> Option<Self::Node> {
        field.value(&self.message(index)?)
    }

    /// For each message at `indexes`, `ResultParts::to_clear` of it by
    /// `rule`, as three numbers in a row: which of its parts hold a result
    /// to clear, which of those report an error, and, when `payloads`, with
    /// `RECORDED` set, which of them `recorded_payload` gives to be
    /// estimated as JSON, the others being texts (`recorded_text`); 0 when
    /// it gives none: their format's reader of a result part then reads
    /// them. A message with results to clear that
    /// may be a marker by its fields (`may_be_marker_by_fields`, with
    /// `roleless`) is answered `UNKNOWN`, for the caller to read: a
    /// marker's results are kept. A history that copies the messages it
    /// says to clear sets `COPIED_PARTS` in the second number of each one it
    /// copied.
    fn result_parts(
        &self,
        indexes: &[u32],
        rule: &'static ResultParts,
        placeholder: &str,
        _payloads: bool,
        roleless: bool,
    ) -> Vec<u32> {
        let mut answers = Vec::with_capacity(3 * indexes.len());
        for &index in indexes {
            let (clear, errors) = self.message(index as usize).map_or(UNKNOWN, |message| {
                let (clear, errors) = rule.to_clear(&message, placeholder);
                match clear & !KNOWN != 0 && may_be_marker_by_fields(&message, roleless) {
                    true => UNKNOWN,
                    false => (clear, errors),
                }
            });
            answers.extend([clear, errors, 0]);
        }
        answers
    }

    /// The payload `result_parts` recorded at `at` (counting every result
    /// to clear of the messages it recorded some of, in their order), to be
    /// estimated as the format's reader of a result part estimates it.
    fn recorded_payload(&self, _at: usize) -> Option<Self::Node> {
        None
    }

    /// `Node::estimate_text` of the payload `result_parts` recorded at
    /// `at`, by `placeholder`: a text's estimate, and whether it is the
    /// placeholder; `None` when none was recorded there, or it is no string.
    fn recorded_text(&self, at: usize, placeholder: &str) -> Option<(u64, bool)> {
        self.recorded_payload(at)?.estimate_text(placeholder)
    }

    /// Forgets the copy `result_parts` made of the message at `index`,
    /// which clears all its results, when pruning clears only some.
    fn forget_copy(&self, _index: usize) {}

    /// Takes the copy `result_fields` or `result_parts` made of the
    /// message at `index` (they said so: `COPIED`, `COPIED_PARTS`) for the
    /// answer, in place of the walk's edits of it: asked once pruning's walk
    /// is decided, when it clears every result the rule found, which is
    /// what the copy clears. Only a history that copies says a copy was
    /// made, so only such a history is asked.
    fn take_copy(&self, _index: usize) {}

    /// Every message, for a read of the whole history.
    fn all(&self) -> Result<&[Self::Node], InputError>;

    /// The messages in `range`, read now; `None` when one cannot be read.
    fn run(&self, range: Range<usize>) -> Option<Vec<Self::Node>> {
        let mut messages = Vec::with_capacity(range.len());
        for index in range {
            messages.push(self.message(index)?);
        }
        Some(messages)
    }
}

/// A history already read, as the native callers and the tests hold one.
impl<N: Node + Clone> Messages for [N] {
    type Node = N;

    fn len(&self) -> usize {
        <[N]>::len(self)
    }

    fn message(&self, index: usize) -> Option<N> {
        self.get(index).cloned()
    }

    fn role_names(
        &self,
        range: Range<usize>,
        names: &'static [&'static str],
        with_content: bool,
    ) -> Vec<u8> {
        N::role_names(&self[range], names, with_content)
    }

    fn all(&self) -> Result<&[N], InputError> {
        Ok(self)
    }
}

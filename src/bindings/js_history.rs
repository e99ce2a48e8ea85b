//! A history argument read a message at a time (the core's `Messages`): the
//! newest-first reads ask for the messages a decision needs, and nothing
//! else of the caller's array crosses into WebAssembly. Reading every
//! element first, an element a call, cost more than the decisions did.

use std::cell::OnceCell;
use std::ops::Range;

use wasm_bindgen::prelude::*;

use super::convert::{history_length, read_elements, JsNode};
use super::guarded;
use super::own_values::Array;
use crate::error::InputError;
use crate::newest_first::Messages;

pub struct JsHistory<'h> {
    array: &'h JsValue,
    argument: &'h str,
    length: u32,
    /// Every message, once a read of the whole history has needed them.
    all: OnceCell<Vec<JsNode>>,
    /// With `copy_cleared`: the value a cleared field gets.
    replacement: Option<JsValue>,
    /// The copies `string_fields` made of the messages it says to clear (an
    /// array, at their indexes), and the field they were made for; made by
    /// its first call, so a read that never asks makes none.
    copies: OnceCell<(Array, &'static str)>,
}

impl<'h> JsHistory<'h> {
    /// Checks that `array` is an array whose length can be read; reads none
    /// of its elements.
    pub fn new(array: &'h JsValue, argument: &'h str) -> Result<Self, JsValue> {
        Ok(JsHistory {
            array,
            argument,
            length: history_length(array, argument)?,
            all: OnceCell::new(),
            replacement: None,
            copies: OnceCell::new(),
        })
    }

    /// Has `string_fields` copy each message it says to clear, with
    /// `replacement` in the field, for `materialize` to take.
    pub fn copy_cleared(mut self, replacement: JsValue) -> Self {
        self.replacement = Some(replacement);
        self
    }

    /// The copies `string_fields` made, and the field they were made for.
    pub fn copies(&self) -> Option<(&'static str, &Array)> {
        let (copies, key) = self.copies.get()?;
        Some((key, copies))
    }

    pub fn array(&self) -> &JsValue {
        self.array
    }

    pub fn argument(&self) -> &str {
        self.argument
    }
}

impl Messages for JsHistory<'_> {
    type Node = JsNode;

    /// The array's length: an element that is no message (such as a hole
    /// of a sparse array) is refused when it is read, and the newest-first
    /// reads leave such a history to the whole read, which stops there.
    fn len(&self) -> usize {
        self.length as usize
    }

    fn message(&self, index: usize) -> Option<JsNode> {
        let (element, _) = guarded::get_index(self.array, index as u32).ok()?;
        Some(JsNode(element))
    }

    /// In one call into JS, which reads the messages from the array itself:
    /// Rust's own reads of a role cost about four calls a message.
    fn role_names(&self, range: Range<usize>, names: &[&str]) -> Vec<u8> {
        let names = names.iter().map(|name| super::keys::key(name)).collect();
        guarded::role_names(self.array, range.start as u32, range.len(), names)
    }

    /// In one call into JS, which reads the messages from the array itself:
    /// the core's reads of a tool message cost about ten calls.
    fn string_fields(&self, indexes: &[u32], key: &'static str, placeholder: &str) -> Vec<u8> {
        let mut states = vec![0; indexes.len()];
        let undefined = JsValue::UNDEFINED;
        let (replacement, copies) = match &self.replacement {
            Some(replacement) => {
                let (copies, _) = self
                    .copies
                    .get_or_init(|| (Array::new_with_length(self.length), key));
                (replacement, copies.as_ref())
            }
            None => (&undefined, &undefined),
        };
        guarded::string_fields(
            self.array,
            indexes,
            &super::keys::key(key),
            &JsValue::from_str(placeholder),
            &mut states,
            replacement,
            copies,
        );
        states
    }

    fn all(&self) -> Result<&[JsNode], InputError> {
        if let Some(all) = self.all.get() {
            return Ok(all);
        }
        let all = read_elements(self.array, self.argument, 0, self.length)?;
        Ok(self.all.get_or_init(|| all))
    }
}

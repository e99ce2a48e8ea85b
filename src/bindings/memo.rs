//! `HistoryMemo`: the history functions, remembering what they read of each
//! message object so that the next read of a grown history reads only its
//! new messages (see `crate::memo`).

use wasm_bindgen::prelude::*;

use super::builtins::{array_of, Array, WeakMap};
use super::convert::JsNode;
use crate::memo::{Memo, Recall};
use wasm_bindgen::JsCast;

/// What the history functions learned of each message object, for reading a
/// history again: pass the same memo on every turn of an agent loop.
#[wasm_bindgen]
pub struct HistoryMemo {
    numbers: WeakMap,
    /// Each pruned message's copy, under the original: `[placeholder,
    /// edited paths, copy]`.
    copies: WeakMap,
    memo: Memo,
}

#[wasm_bindgen]
impl HistoryMemo {
    #[wasm_bindgen(constructor)]
    pub fn new() -> HistoryMemo {
        HistoryMemo {
            numbers: WeakMap::new(),
            copies: WeakMap::new(),
            memo: Memo::default(),
        }
    }

    /// How many message objects it remembers.
    #[wasm_bindgen(getter)]
    pub fn size(&self) -> usize {
        self.memo.len()
    }
}

impl Default for HistoryMemo {
    fn default() -> Self {
        HistoryMemo::new()
    }
}

impl HistoryMemo {
    /// A read of `messages` through the memo. The newest message is read
    /// afresh and not remembered: a streaming UI may still be changing it in
    /// place.
    pub fn recall(&mut self, messages: &[JsNode]) -> Recall<'_> {
        let remembered = messages.len().saturating_sub(1);
        let mut numbers = Vec::with_capacity(messages.len());
        for message in &messages[..remembered] {
            numbers.push(self.number(&message.0));
        }
        numbers.extend((remembered..messages.len()).map(|_| None));
        Recall {
            memo: &mut self.memo,
            numbers,
        }
    }

    /// The copy made before of `original` with the payloads at `paths`
    /// replaced by `placeholder`.
    pub fn copy_of(
        &self,
        original: &JsValue,
        placeholder: &JsValue,
        paths: &[String],
    ) -> Option<JsValue> {
        let remembered = self.copies.get(original);
        if !remembered.is_object() {
            return None;
        }
        let remembered: &Array = remembered.unchecked_ref();
        let same = remembered.get(0) == *placeholder
            && remembered.get(1).as_string()
                == Some(crate::join::join(paths.iter().map(String::as_str), "\n"));
        same.then(|| remembered.get(2))
    }

    pub fn remember_copy(
        &self,
        original: &JsValue,
        placeholder: &JsValue,
        paths: &[String],
        copy: &JsValue,
    ) {
        if original.is_object() {
            let paths =
                JsValue::from_str(&crate::join::join(paths.iter().map(String::as_str), "\n"));
            let remembered = array_of([placeholder.clone(), paths, copy.clone()].into_iter());
            self.copies.set(original, &remembered);
        }
    }

    fn number(&mut self, message: &JsValue) -> Option<u64> {
        if !message.is_object() {
            return None;
        }
        if let Some(number) = self.numbers.get(message).as_f64() {
            return Some(number as u64);
        }
        let number = self.memo.new_number();
        self.numbers.set(message, &JsValue::from_f64(number as f64));
        Some(number)
    }
}

//! `HistoryMemo`: the history functions, remembering what they read of each
//! message object so that the next read of a grown history reads only its
//! new messages (see `crate::memo`).

use wasm_bindgen::prelude::*;

use super::own_values::{array_of, Array, WeakMap};
use crate::memo::{Memo, Recall};
use crate::util::join;
use wasm_bindgen::JsCast;

/// What the history functions learned of each message object, for reading a
/// history again: pass the same memo on every turn of an agent loop.
#[wasm_bindgen]
pub struct HistoryMemo {
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
    /// A read of a history through the memo, given each message's number
    /// (0 for one to read afresh and not remember: the newest message, which
    /// a streaming UI may still be changing in place, and anything not an
    /// object). The JS side (js/memo.ts) numbers the message objects.
    pub fn recall(&mut self, numbers: &[u32]) -> Recall<'_> {
        let numbers = numbers.iter().map(|&number| u64::from(number)).collect();
        Recall::new(&mut self.memo, numbers)
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
                == Some(join::join(paths.iter().map(String::as_str), "\n"));
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
            let paths = JsValue::from_str(&join::join(paths.iter().map(String::as_str), "\n"));
            let remembered = array_of([placeholder.clone(), paths, copy.clone()].into_iter());
            self.copies.set(original, &remembered);
        }
    }
}

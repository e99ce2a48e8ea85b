//! `HistoryMemo`: the history functions, remembering what they read of each
//! message object so that the next read of a grown history reads only its
//! new messages (see `crate::memo`).

use wasm_bindgen::prelude::*;

use super::convert::{read_array, read_array_leaving, JsNode};
use super::own_values::{array_of, Array, WeakMap};
use crate::memo::{Memo, Recall};
use crate::prune::DEFAULT_PLACEHOLDER;
use crate::util::join;
use wasm_bindgen::JsCast;

/// A rule `HistoryMemo::read_lazily` runs: it reads the messages through the
/// memo and keeps its answer.
pub type LazyRule<'r> = dyn FnMut(&[JsNode], &mut Recall) -> Result<(), JsValue> + 'r;

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

    /// Runs `rule` over a history argument through the memo, for a rule
    /// whose answer is not messages (it keeps its answer itself): the
    /// messages that a whole history read before begins with are left
    /// unread (their views are remembered), so only the new ones cross into
    /// WebAssembly. If the rule needs one of them after all (another
    /// format), every message is read and it runs again. `sizes`: whether
    /// the rule reads the messages' estimates or their structure only; it
    /// reads at the default placeholder.
    pub fn read_lazily(
        &mut self,
        history: &JsValue,
        argument: &str,
        numbers: &[u32],
        sizes: bool,
        rule: &mut LazyRule,
    ) -> Result<(), JsValue> {
        let wide: Vec<u64> = numbers.iter().map(|&number| u64::from(number)).collect();
        let unread = self.memo.shared_prefix(&wide, sizes, DEFAULT_PLACEHOLDER) as u32;
        if unread > 0 {
            if let Some(nodes) =
                read_array_leaving(history, argument, unread, Some(numbers.len() as u32))?
            {
                let mut recall =
                    Recall::new(&mut self.memo, wide.clone()).leaving_unread(unread as usize);
                let done = rule(&nodes, &mut recall);
                if !recall.missed {
                    return done;
                }
            }
        }
        let nodes = read_array(history, argument)?;
        rule(&nodes, &mut Recall::new(&mut self.memo, wide))
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

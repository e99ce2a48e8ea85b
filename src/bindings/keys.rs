//! Field names as JS strings, made once. Making a JS string from Rust text
//! crosses the boundary and decodes UTF-8 every time, and the history
//! functions read the same few dozen field names on every message.
//! (wasm-bindgen's own interning does the same but keeps every string it is
//! given, so the field names of arbitrary JSON would grow it without bound.)

use std::cell::RefCell;
use std::hash::Hasher;

use wasm_bindgen::prelude::*;

use super::guarded;
use super::own_values::array_of;

use crate::util::hash::Fnv1a;

/// Slots of the cache: a name lives in the slot its hash picks, and a name
/// that hashes to a taken slot replaces the one there. Bounded, and with far
/// more slots than the formats read names, they rarely meet.
const SLOTS: usize = 512;

/// Longer names (a key of arbitrary JSON may be megabytes) are not kept.
const LONGEST_KEPT: usize = 64;

thread_local! {
    /// The lists `key_list` was given, by their address, as JS arrays.
    static LISTS: RefCell<Vec<(usize, JsValue)>> = const { RefCell::new(Vec::new()) };
    /// The kept names, by slot. Made empty at compile time (`const`), so
    /// that a field read does not ask whether it was made yet, and given
    /// its slots on first use (`kept_key`): 2% of `estimateTokens`, and an
    /// array of slots made at compile time took 1 KB of the gzipped module.
    static KEPT: RefCell<Vec<Option<(String, JsValue)>>> = const { RefCell::new(Vec::new()) };
}

/// `name` as a JS string of its own.
pub fn key(name: &str) -> JsValue {
    lend_key(name, JsValue::clone)
}

/// The field `name` of `target`, as `guarded::field` reads it, with the
/// name lent from the cache (`lend_key`).
pub fn field_named(target: &JsValue, name: &str) -> Result<Option<JsValue>, JsValue> {
    lend_key(name, |key| guarded::field(target, key))
}

/// Whether `value` is a string of exactly `text`, compared in JS with the
/// text lent from the cache (`lend_key`).
pub fn is_text(value: &JsValue, text: &str) -> bool {
    lend_key(text, |text| value == text)
}

/// `use_key` of `name` as a JS string, lent from the cache: a clone of it
/// and its drop cost two updates of the module's reference table on every
/// field read. The cache stays borrowed while `use_key` runs, so a read
/// that calls back into the module (a getter that runs another history
/// function) makes its own strings there.
fn lend_key<R>(name: &str, use_key: impl FnOnce(&JsValue) -> R) -> R {
    KEPT.with(|kept| {
        let mut kept = kept.try_borrow_mut();
        match kept
            .as_deref_mut()
            .ok()
            .and_then(|kept| kept_key(kept, name))
        {
            Some(key) => use_key(key),
            None => use_key(&JsValue::from_str(name)),
        }
    })
}

/// The kept JS string of `name`, made and kept in its slot if another name
/// was there; `None` for a name too long to keep.
fn kept_key<'a>(kept: &'a mut Vec<Option<(String, JsValue)>>, name: &str) -> Option<&'a JsValue> {
    if name.len() > LONGEST_KEPT {
        return None;
    }
    if kept.is_empty() {
        kept.resize(SLOTS, None);
    }
    let mut hasher = Fnv1a::default();
    hasher.write(name.as_bytes());
    let entry = &mut kept[hasher.finish() as usize % SLOTS];
    if !matches!(entry, Some((kept_name, _)) if kept_name == name) {
        *entry = None;
    }
    let (_, key) = entry.get_or_insert_with(|| (name.to_owned(), JsValue::from_str(name)));
    Some(key)
}

/// `keys` as a JS array of strings, made once: a list is `'static`, so its
/// address names it, and there are a handful of them.
pub fn key_list(keys: &'static [&'static str]) -> JsValue {
    let address = keys.as_ptr() as usize;
    let make = || array_of(keys.iter().map(|key| JsValue::from_str(key))).into();
    LISTS.with(|lists| {
        let Ok(mut lists) = lists.try_borrow_mut() else {
            return make();
        };
        if let Some((_, list)) = lists.iter().find(|(kept, _)| *kept == address) {
            return list.clone();
        }
        let list: JsValue = make();
        lists.push((address, list.clone()));
        list
    })
}

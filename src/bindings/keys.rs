//! Field names as JS strings, made once. Making a JS string from Rust text
//! crosses the boundary and decodes UTF-8 every time, and the history
//! functions read the same few dozen field names on every message.
//! (wasm-bindgen's own interning does the same but keeps every string it is
//! given, so the field names of arbitrary JSON would grow it without bound.)

use std::cell::RefCell;
use std::hash::Hasher;

use wasm_bindgen::prelude::*;

use crate::util::hash::Fnv1a;

/// Slots of the cache: a name lives in the slot its hash picks, and a name
/// that hashes to a taken slot replaces the one there. Bounded, and with far
/// more slots than the formats read names, they rarely meet.
const SLOTS: usize = 512;

/// Longer names (a key of arbitrary JSON may be megabytes) are not kept.
const LONGEST_KEPT: usize = 64;

thread_local! {
    static KEPT: RefCell<Vec<Option<(String, JsValue)>>> = RefCell::new(vec![None; SLOTS]);
}

/// `name` as a JS string.
pub fn key(name: &str) -> JsValue {
    if name.len() > LONGEST_KEPT {
        return JsValue::from_str(name);
    }
    let mut hasher = Fnv1a::default();
    hasher.write(name.as_bytes());
    let slot = hasher.finish() as usize % SLOTS;
    KEPT.with(|kept| {
        let mut kept = kept.borrow_mut();
        match &kept[slot] {
            Some((kept_name, value)) if kept_name == name => value.clone(),
            _ => {
                let value = JsValue::from_str(name);
                kept[slot] = Some((name.to_owned(), value.clone()));
                value
            }
        }
    })
}

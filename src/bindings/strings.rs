//! Reading a JS string into Rust with `TextEncoder.encodeInto`, straight into
//! a reused buffer in the module's memory. wasm-bindgen's own `as_string`
//! copies the ASCII part one character at a time in a JS loop, several times
//! slower than `encodeInto`, and mallocs every string; on a long history that
//! was most of the time of every history function.

use std::cell::RefCell;

use wasm_bindgen::prelude::*;

#[wasm_bindgen(inline_js = r#"
const encoder = new TextEncoder();
// The buffer is reused, so its view is too: a view made per string was
// garbage for the collector on every string read.
let view = new Uint8Array(0);
const SHORT = 32;
export function kram_encode_into(text, memory, at, capacity) {
  if (typeof text !== "string") return NaN;
  try {
    // When the memory grows its old buffer is detached, and a view of it
    // then has length 0: no capacity is 0, so the view is made again. (The
    // `buffer` getter, asked on every string, cost more than the copy of
    // a short one.)
    if (view.byteOffset !== at || view.length !== capacity) {
      view = new Uint8Array(memory.buffer, at, capacity);
    }
    if (text.length <= SHORT && text.length <= capacity) {
      // Roles, types and ids: a loop over ASCII is faster than encodeInto,
      // whose result object is garbage on every call.
      let i = 0;
      for (; i < text.length; i++) {
        const code = text.charCodeAt(i);
        if (code > 0x7f) break;
        view[i] = code;
      }
      if (i === text.length) return i;
    }
    const { read, written } = encoder.encodeInto(text, view);
    return read === text.length ? written : -1 - text.length * 3;
  } catch {
    return NaN;
  }
}
export function kram_starts_with(text, prefix) {
  return typeof text === "string" && text.startsWith(prefix);
}
"#)]
extern "C" {
    /// Writes the UTF-8 of `text` at `at`; the byte count, `-1 - needed`
    /// when `capacity` is too small, or NaN for anything but a string. It
    /// reads no caller's object, but catches in JS all the same (NaN): a
    /// `catch` import's wrapper (a closure and an `apply` a call) was a
    /// tenth of a structure read.
    fn kram_encode_into(text: &JsValue, memory: &JsValue, at: u32, capacity: u32) -> f64;
    /// Whether `text` is a string that starts with `prefix` (a string).
    /// Neither is read into Rust, and nothing here can throw.
    fn kram_starts_with(text: &JsValue, prefix: &JsValue) -> bool;
}

/// Whether a value is a string that starts with `prefix`, looked at in JS.
pub fn starts_with(value: &JsValue, prefix: &str) -> bool {
    kram_starts_with(value, &super::keys::key(prefix))
}

thread_local! {
    static MEMORY: JsValue = wasm_bindgen::memory();
    static BUFFER: RefCell<Vec<u8>> = RefCell::new(Vec::with_capacity(1 << 16));
}

/// The text of a string value (`None` for anything else).
pub fn read_string(value: &JsValue) -> Option<String> {
    with_text(value, str::to_owned)
}

/// `Node::estimate_text` of a JS value: the string is estimated in the
/// buffer it was read into, not copied into a `String` first.
pub fn estimate_string(value: &JsValue, same_as: &str) -> Option<(u64, bool)> {
    with_text(value, |text| {
        (crate::estimate::text_milli_tokens(text), text == same_as)
    })
}

/// Whether a value is a string whose text is `text`, compared in the
/// module's memory: no JS string is made for `text`. A text with U+FFFD
/// is never one: UTF-8 reads a lone surrogate as that, so the strings
/// could differ. (Looked for as its three bytes: `str::contains` of a char
/// cost 5 KB of the gzipped module.)
pub fn is_string_of(value: &JsValue, text: &str) -> bool {
    let replaced = text
        .as_bytes()
        .windows(3)
        .any(|bytes| bytes == [0xEF, 0xBF, 0xBD]);
    !replaced && with_text(value, |own| own == text).unwrap_or(false)
}

/// `use_text` of the text of a string value (`None` for anything else),
/// lent from the reused buffer. The buffer is borrowed while `use_text`
/// runs, so `use_text` must read no string itself (one that did would get
/// its text from `as_string`, a copy).
fn with_text<R>(value: &JsValue, use_text: impl Fn(&str) -> R) -> Option<R> {
    BUFFER.with(|buffer| {
        if let Ok(mut buffer) = buffer.try_borrow_mut() {
            if let Some(text) = encode(value, &mut buffer) {
                return Some(use_text(text));
            }
        }
        value.as_string().map(|text| use_text(&text))
    })
}

/// The UTF-8 of a string value, written into `buffer` (grown as it needs);
/// `None` for anything else, or when encoding it threw (`as_string` then
/// says which). `kram_encode_into` answers NaN for anything but a string: a
/// call less for every string than asking first.
fn encode<'a>(value: &JsValue, buffer: &'a mut Vec<u8>) -> Option<&'a str> {
    loop {
        let capacity = buffer.capacity();
        let at = buffer.as_mut_ptr() as u32;
        let result = MEMORY.with(|memory| kram_encode_into(value, memory, at, capacity as u32));
        match result {
            written if written >= 0.0 => {
                let bytes = &buffer.spare_capacity_mut()[..written as usize];
                // SAFETY: encodeInto wrote `written` bytes of UTF-8 there.
                let bytes = unsafe { &*(bytes as *const [_] as *const [u8]) };
                return Some(unsafe { std::str::from_utf8_unchecked(bytes) });
            }
            needed if needed.is_finite() => buffer.reserve((-1.0 - needed) as usize),
            _ => return None,
        }
    }
}

#[wasm_bindgen]
extern "C" {
    /// JS's global `String`, of a number: runs no code of the caller's.
    #[wasm_bindgen(js_name = String)]
    fn string_of_number(value: f64) -> String;
}

/// A number as JS prints it, by JS itself: `util::number::number_text` in
/// WebAssembly (see there why).
pub fn js_number_text(value: f64) -> String {
    string_of_number(value)
}

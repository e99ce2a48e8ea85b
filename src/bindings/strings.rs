//! Reading a JS string into Rust with `TextEncoder.encodeInto`, straight into
//! a reused buffer in the module's memory. wasm-bindgen's own `as_string`
//! copies the ASCII part one character at a time in a JS loop, several times
//! slower than `encodeInto`, and mallocs every string; on a long history that
//! was most of the time of every history function.

use std::cell::RefCell;

use wasm_bindgen::prelude::*;

use crate::estimate::bytes::first_non_ascii;

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
    return encodeAt(text, view, 0);
  } catch {
    return NaN;
  }
}
// Many strings of an array of the bindings' own in one call: the UTF-8 of
// texts[from], texts[from + 1], ..., back to back at `at`, and the end of
// each (counted from `at`) in the `count` numbers at `endsAt`, with
// NOT_TEXT set in the end of one that is no string (which takes no bytes).
// As many as fit in `capacity`: how many it wrote, or, when the first does
// not fit, -1 - the bytes it may need; NaN when it throws.
export function kram_encode_many(texts, from, count, memory, at, capacity, endsAt) {
  try {
    count = Math.max(0, Math.min(count, texts.length - from));
    const bytes = new Uint8Array(memory.buffer, at, capacity);
    const ends = new Uint32Array(memory.buffer, endsAt, count);
    let used = 0;
    for (let k = 0; k < count; k++) {
      const text = texts[from + k];
      if (typeof text !== "string") {
        ends[k] = (used | NOT_TEXT) >>> 0;
        continue;
      }
      const written = encodeAt(text, bytes, used);
      if (written < 0) return k === 0 ? written : k;
      used += written;
      ends[k] = used;
    }
    return count;
  } catch {
    return NaN;
  }
}
const NOT_TEXT = 0x80000000;
// The UTF-8 of `text` in `bytes` from `offset`: how many bytes, or -1 - the
// bytes it may need when they have no room.
function encodeAt(text, bytes, offset) {
  if (text.length <= SHORT && text.length <= bytes.length - offset) {
    // Roles, types and ids: a loop over ASCII is faster than encodeInto,
    // whose result object is garbage on every call.
    let i = 0;
    for (; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (code > 0x7f) break;
      bytes[offset + i] = code;
    }
    if (i === text.length) return i;
  }
  const { read, written } = encoder.encodeInto(text, offset === 0 ? bytes : bytes.subarray(offset));
  return read === text.length ? written : -1 - text.length * 3;
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
    /// Writes the UTF-8 of up to `count` strings of the array `texts` from
    /// `from`, back to back at `at`, and each one's end at `ends_at` (with
    /// `NOT_TEXT` for one that is no string): how many it wrote, `-1 -
    /// needed` when the first does not fit in `capacity`, or NaN when it
    /// throws. The array is the bindings' own, of values no code runs for.
    fn kram_encode_many(
        texts: &JsValue,
        from: u32,
        count: u32,
        memory: &JsValue,
        at: u32,
        capacity: u32,
        ends_at: u32,
    ) -> f64;
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
    with_text(value, |text| estimate_text(text, same_as))
}

/// A text's estimate, and whether it is `same_as`: one copy of the
/// estimate's code for every string read, one at a time or many.
#[inline(never)]
pub fn estimate_text(text: &str, same_as: &str) -> (u64, bool) {
    (crate::estimate::text_milli_tokens(text), text == same_as)
}

/// Whether a value is a string whose text is `text`, compared in the
/// module's memory: no JS string is made for `text`. A text with U+FFFD
/// is never one: UTF-8 reads a lone surrogate as that, so the strings
/// could differ. (Looked for as its three bytes: `str::contains` of a char
/// cost 5 KB of the gzipped module.)
pub fn is_string_of(value: &JsValue, text: &str) -> bool {
    // U+FFFD is not ASCII: the look starts at the first byte that is not,
    // found many bytes at a time, and an ASCII text needs none.
    let bytes = text.as_bytes();
    let replaced = first_non_ascii(bytes).is_some_and(|at| {
        let rest = bytes.get(at..).unwrap_or_default();
        rest.windows(3).any(|three| three == [0xEF, 0xBF, 0xBD])
    });
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

/// The bit `kram_encode_many` sets in the end of a value that is no string
/// (its NOT_TEXT above; tests/js/boundary.test.mjs holds them together).
const NOT_TEXT: u32 = 0x8000_0000;

/// How many strings `ManyTexts` reads in one call at most.
const WINDOW: usize = 32;

/// Strings of a JS array of the bindings' own (the payloads pruning's rule
/// recorded), read into the module a window at a time, in one call
/// (`kram_encode_many`), where each cost two calls (its element, then its
/// text). They are asked in order, so the ones after the one asked come in
/// with it; the window ends at the first that does not fit in the bytes it
/// has, so a long one comes in alone.
#[derive(Default)]
pub struct ManyTexts {
    /// The index of the first string read, and how many were read.
    first: usize,
    count: usize,
    /// Where each one read ends in `bytes`, with `NOT_TEXT` for a value
    /// that is no string.
    ends: [u32; WINDOW],
    bytes: Vec<u8>,
}

impl ManyTexts {
    /// The text of `texts[at]`; `None` when it is no string, is past the
    /// array's end, or reading it threw.
    pub fn text(&mut self, texts: &JsValue, at: usize) -> Option<&str> {
        let mut nth = at.wrapping_sub(self.first);
        if nth >= self.count {
            self.read(texts, at);
            nth = 0;
        }
        let end = *self.ends[..self.count].get(nth)?;
        if end & NOT_TEXT != 0 {
            return None;
        }
        let bytes = self
            .bytes
            .get(self.end_of_first(nth) as usize..end as usize)?;
        // SAFETY: encodeInto, or the loop over ASCII, wrote UTF-8 there.
        Some(unsafe { std::str::from_utf8_unchecked(bytes) })
    }

    /// Where the first `n` strings read end in `bytes` (0 for none).
    fn end_of_first(&self, n: usize) -> u32 {
        match n {
            0 => 0,
            n => self.ends[n - 1] & !NOT_TEXT,
        }
    }

    /// Reads the strings from `from` on; none when reading them threw.
    fn read(&mut self, texts: &JsValue, from: usize) {
        self.first = from;
        self.count = 0;
        self.bytes.clear();
        self.bytes.reserve(1 << 16);
        loop {
            let result = MEMORY.with(|memory| {
                kram_encode_many(
                    texts,
                    from as u32,
                    WINDOW as u32,
                    memory,
                    self.bytes.as_mut_ptr() as u32,
                    self.bytes.capacity() as u32,
                    self.ends.as_mut_ptr() as u32,
                )
            });
            match result {
                count if count >= 0.0 => {
                    self.count = (count as usize).min(WINDOW);
                    let used = self.end_of_first(self.count);
                    // SAFETY: kram_encode_many wrote `used` bytes there.
                    unsafe { self.bytes.set_len(used as usize) };
                    return;
                }
                needed if needed.is_finite() => self.bytes.reserve((-1.0 - needed) as usize),
                _ => return,
            }
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

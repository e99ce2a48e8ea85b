//! The only module that knows about JavaScript: it reads JS values through the
//! core's `Node` trait, calls the core, and turns its answers back into JS
//! values and its errors into `TypeError`s and `RangeError`s.

mod compact;
mod convert;
mod describe;
mod glue_checks;
mod guarded;
mod history;
mod instances;
mod js_history;
mod keys;
mod ladder;
mod memo;
mod own_values;
mod request;
mod strings;
pub use strings::js_number_text;
mod types;

use wasm_bindgen::prelude::*;

/// Talc instead of Rust's default dlmalloc: about 6.7 KB less WebAssembly
/// (2.5 KB gzipped), which the size budget needs.
#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

/// Runs once when the module is instantiated: tells `guarded.js` where to
/// write the kinds of the fields it reads. (No panic hook: the module is
/// built so that a panic, a bug, is the bare trap `RuntimeError:
/// unreachable`; scripts/build.mjs says why.)
#[wasm_bindgen(start)]
pub fn start() {
    guarded::watch_flags();
}

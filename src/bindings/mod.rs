//! The only module that knows about JavaScript: it reads JS values through the
//! core's `Node` trait, calls the core, and turns its answers back into JS
//! values and its errors into `TypeError`s and `RangeError`s.

mod builtins;
mod compact;
mod convert;
mod describe;
mod history;
mod instances;
mod js;
mod keys;
mod ladder;
mod memo;
mod request;
mod strings;
mod types;

use wasm_bindgen::prelude::*;

/// Talc instead of Rust's default dlmalloc: about 6.7 KB less WebAssembly
/// (2.5 KB gzipped), which the size budget needs.
#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

/// Runs once when the module is instantiated: a Rust panic then reaches the
/// console with its message instead of a bare "unreachable".
#[wasm_bindgen(start)]
pub fn start() {
    console_error_panic_hook::set_once();
}

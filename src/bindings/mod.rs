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

/// Runs once when the module is instantiated: a Rust panic (a bug: bad
/// input is refused by checks) then reaches the console with its message
/// instead of a bare "unreachable". Written here rather than taken from
/// console_error_panic_hook, whose stack capture cost 1 KB gzipped. The
/// module is built with no panic's place (`-Zlocation-detail=none` in
/// scripts/build.mjs), so the message is all there is to print.
/// It also tells `guarded.js` where to write the kinds of the fields it reads.
#[wasm_bindgen(start)]
pub fn start() {
    guarded::watch_flags();
    std::panic::set_hook(Box::new(|info| {
        let message = info.payload_as_str().unwrap_or("a panic");
        own_values::console_error(&format!("kram-compaction: {message}"));
    }));
}

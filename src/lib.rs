//! kram-compaction keeps a long LLM agent session's history inside the model's
//! context budget. Everything outside `bindings` is plain Rust, tested natively;
//! `bindings` is the only module that knows about JavaScript.
//!
//! The map, from the bottom up: each module uses only those above it (tests
//! aside), but for `formats`, which takes the placeholder constant from
//! `prune` and reads through `memo`.
//! - `util`: the crate's own small copies of std and serde_json pieces, kept
//!   for the wasm size budget: `number` (numbers as JS prints them; in
//!   WebAssembly JS prints them, through `bindings`, the one place the core
//!   calls into it), `join`,
//!   `hash` (the maps' hasher), `json` (the JSON the package builds),
//!   `collect` (a collect of results, as a loop).
//! - `node`: the read-only view of a JSON-like value (JS values, serde_json)
//!   that every rule is written against, and the bounds of a walk of one.
//! - `error`, `options`: the one error type and the readers of number
//!   options.
//! - `estimate`: the token estimate of a text and of a free-form JSON value.
//! - `view`, `content`: what a message is for the rules (role, turn, marker,
//!   tool ids, payloads) and for the summariser's transcript.
//! - `history`: the marker's name, the budget default, the effective start.
//! - `formats`: the message formats, how a history's format is found, and the
//!   field readers that name the index and field of every error.
//! - `cuts`: where a history can be cut (instructions, turns, steps, closed
//!   tool-call pairs).
//! - `prune`, `plan`: pruning and the emergency cut, and how their answers
//!   become output messages.
//! - `summary`: the summariser's job (transcript, prompt, chunks, replies,
//!   the marker's frame); `ladder`: the tier decisions and the compaction plan.
//! - `request`: what each provider refuses in a stored message.
//! - `memo`: what was read of each message, remembered between calls, so a
//!   history read again costs only its new messages.
//! - `newest_first`: reading a history from its end, only as far back as a
//!   decision needs (pruning, the emergency cut, the effective history),
//!   through `Messages`, a history read a message at a time.
//! - `history_functions`, `describe`: the functions as the package exports
//!   them.
//! - `bindings` (wasm32 only): JS values in, the core called, JS values out.

#![deny(clippy::string_slice)]

/// A tag's name and its opening and closing tags, declared from one literal
/// so that no tag is spelled twice (`concat!` takes only literals):
/// `tag!(NAME, OPEN, CLOSE = "name")` gives `"name"`, `"<name>"`, `"</name>"`.
macro_rules! tag {
    ($(#[$doc:meta])* $name:ident, $open:ident, $close:ident = $tag:literal) => {
        $(#[$doc])*
        pub const $name: &str = $tag;
        pub const $open: &str = concat!("<", $tag, ">");
        pub const $close: &str = concat!("</", $tag, ">");
    };
}

pub mod content;
pub mod cuts;
pub mod describe;
pub mod error;
pub mod estimate;
pub mod formats;
pub mod history;
pub mod history_functions;
pub mod ladder;
pub mod memo;
pub mod newest_first;
pub mod node;
pub mod options;
pub mod plan;
pub mod prune;
pub mod request;
pub mod summary;
pub mod util;
pub mod view;

#[cfg(target_arch = "wasm32")]
mod bindings;

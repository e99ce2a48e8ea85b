//! kram-compaction keeps a long LLM agent session's history inside the model's
//! context budget. Everything outside `bindings` is plain Rust, tested natively;
//! `bindings` is the only module that knows about JavaScript.

pub mod api;
pub mod content;
pub mod cuts;
pub mod describe;
pub mod error;
pub mod estimate;
pub mod formats;
pub mod hash;
pub mod history;
pub mod join;
pub mod json;
pub mod ladder;
pub mod node;
pub mod number;
pub mod options;
pub mod plan;
pub mod prune;
pub mod request;
pub mod summary;
pub mod view;

#[cfg(target_arch = "wasm32")]
mod bindings;

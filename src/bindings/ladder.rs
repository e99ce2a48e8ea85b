//! The ladder's decisions and the newest turn's start, exported for
//! `js/context-manager.ts`; not part of the package's public surface.

use super::builtins::object;
use wasm_bindgen::prelude::*;

use super::convert::{read_array, read_format_option, to_js_error};
use super::types::MessageList;
use crate::api;
use crate::ladder::{after_pruning, progress_shortfall, Next, Standing};

/// Where `effective`'s newest user turn starts.
#[wasm_bindgen(js_name = latestTurnStart)]
pub fn latest_turn_start(effective: MessageList, options: JsValue) -> Result<usize, JsValue> {
    let nodes = read_array(&effective, "effective")?;
    api::latest_turn_start(&nodes, read_format_option(options)?).map_err(to_js_error)
}

/// `{ next: "done" | "compact" | "emergency", reason }` after the free tiers.
#[wasm_bindgen(js_name = ladderAfterPruning)]
pub fn ladder_after_pruning(
    tokens: f64,
    tokens_pruned: f64,
    max_tokens: f64,
    compactions_in_run: f64,
    max_compactions: f64,
    has_gateway: bool,
) -> JsValue {
    let standing = Standing {
        tokens: tokens as u64,
        tokens_pruned: tokens_pruned as u64,
        max_tokens: max_tokens as u64,
        compactions_in_run: compactions_in_run as u64,
        max_compactions: max_compactions as u64,
        has_gateway,
    };
    let (next, reason) = match after_pruning(&standing) {
        Next::Done(reason) => ("done", reason),
        Next::Compact => ("compact", String::new()),
        Next::Emergency(reason) => ("emergency", reason),
    };
    object(&[("next", next.into()), ("reason", reason.into())]).into()
}

/// Why a compaction from `before` to `after` tokens cut too little, or
/// `undefined` when it cut enough.
#[wasm_bindgen(js_name = compactionShortfall)]
pub fn compaction_shortfall(before: f64, after: f64) -> Option<String> {
    progress_shortfall(before as u64, after as u64)
}

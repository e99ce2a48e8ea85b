//! The ladder's decisions and the newest turn's start, exported for
//! `js/context-manager.ts`; not part of the package's public surface.

use super::own_values::{array_of, object};
use wasm_bindgen::prelude::*;

use super::convert::{read_array, read_format_option, read_options, to_js_error};
use super::memo::HistoryMemo;
use super::types::MessageList;
use crate::history_functions;
use crate::ladder::{
    after_pruning, before_pruning, over_budget, progress_shortfall, Next, Standing,
};
use crate::summary::{check_model, SummaryOptions};

/// The compaction `ContextManager` would make of `effective`, decided before
/// the summariser is called: `{ instructions, summariseEnd, keep,
/// maxSummaryTokens, reason, reasonCut }`, or `{ skip: reason }` when no
/// call could help.
/// `compactOptions` are `compact`'s options, for their `maxSummaryTokens`.
#[wasm_bindgen]
impl HistoryMemo {
    // A private binding: each argument is a value ContextManager has at hand.
    #[allow(clippy::too_many_arguments)]
    #[wasm_bindgen(js_name = compactionPlan)]
    pub fn compaction_plan(
        &mut self,
        effective: MessageList,
        numbers: &[u32],
        max_tokens: f64,
        tokens_before: f64,
        tokens_pruned: f64,
        compact_options: JsValue,
        options: JsValue,
    ) -> Result<JsValue, JsValue> {
        let nodes = read_array(&effective, "effective")?;
        let summary = SummaryOptions::read(&read_options(compact_options, "options.compact")?)
            .map_err(to_js_error)?;
        let plan = history_functions::compaction_plan(
            &nodes,
            max_tokens,
            summary.max_summary_tokens,
            tokens_before as u64,
            read_format_option(Some(options.unchecked_ref()))?,
            Some(&mut self.recall(numbers)),
        )
        .map_err(to_js_error)?;
        Ok(match plan {
            Err(why) => {
                let over = over_budget(tokens_pruned as u64, max_tokens as u64);
                let reason = format!("{over}, and compacting cannot help: {why}; the emergency cut keeps the newest turns");
                object(&[("skip", reason.into())]).into()
            }
            Ok(plan) => object(&[
                ("reason", plan.reason(false).into()),
                ("reasonCut", plan.reason(true).into()),
                ("instructions", (plan.instructions as f64).into()),
                ("summariseEnd", (plan.summarise_end as f64).into()),
                (
                    "keep",
                    array_of(plan.keep.iter().map(|&index| (index as f64).into())).into(),
                ),
                ("maxSummaryTokens", (plan.max_summary_tokens as f64).into()),
            ])
            .into(),
        })
    }
}

/// `{ next: "none", reason }` when `tokens` are within the budget as they
/// are, or `undefined` when the history must be pruned first.
#[wasm_bindgen(js_name = ladderBeforePruning)]
pub fn ladder_before_pruning(tokens: f64, max_tokens: f64) -> JsValue {
    match before_pruning(tokens as u64, max_tokens as u64) {
        Some(next @ Next::Fits(_)) => step(&next),
        _ => JsValue::UNDEFINED,
    }
}

/// `{ next: "none" | "pruned" | "compact" | "emergency", reason }` after the
/// free tiers: "none" and "pruned" are the tiers that fit.
#[wasm_bindgen(js_name = ladderAfterPruning)]
pub fn ladder_after_pruning(
    tokens: f64,
    tokens_pruned: f64,
    max_tokens: f64,
    compactions_in_run: f64,
    max_compactions: f64,
    has_gateway: bool,
    model: JsValue,
) -> JsValue {
    // The same check `compact` makes of its model, so a blank model means
    // no summariser rather than a compaction that fails.
    let has_model = model
        .as_string()
        .is_some_and(|model| check_model(&model).is_ok());
    let standing = Standing {
        tokens: tokens as u64,
        tokens_pruned: tokens_pruned as u64,
        max_tokens: max_tokens as u64,
        compactions_in_run: compactions_in_run as u64,
        max_compactions: max_compactions as u64,
        has_gateway: has_gateway && has_model,
    };
    step(&after_pruning(&standing))
}

/// A step as ContextManager reads it: `{ next, reason }`.
fn step(next: &Next) -> JsValue {
    object(&[
        ("next", next.name().into()),
        ("reason", next.reason().into()),
    ])
    .into()
}

/// Why a compaction from `before` to `after` tokens cut too little, or
/// `undefined` when it cut enough.
#[wasm_bindgen(js_name = compactionShortfall)]
pub fn compaction_shortfall(before: f64, after: f64) -> Option<String> {
    progress_shortfall(before as u64, after as u64)
}

//! The history functions, exported to JS.

use wasm_bindgen::prelude::*;

use super::convert::{
    materialize_edited, materialize_kept, read_array, read_format, read_format_option,
    read_options, to_js_error, type_error, JsNode,
};
use super::js_history::JsHistory;
use super::memo::HistoryMemo;
use super::types::{FormatOptionsArg, MaxTokensArg, MessageList, PruneOptionsArg};
use crate::error::InputError;
use crate::history::DEFAULT_MAX_TOKENS;
use crate::history_functions;
use crate::memo::Recall;
use crate::node::{Kind, Node};
use crate::options::{budget_option, count_option, number_option};
use crate::prune::{PruneOptions, DEFAULT_PLACEHOLDER};

/// The binding of `estimateTokens`. Its doc and example are the JSDoc in `js/index.ts`,
/// the one the published types carry.
#[wasm_bindgen(js_name = estimateTokens)]
pub fn estimate_tokens(
    messages: MessageList,
    options: Option<FormatOptionsArg>,
) -> Result<f64, JsValue> {
    estimate(messages, options, None)
}

fn estimate(
    messages: MessageList,
    options: Option<FormatOptionsArg>,
    memo: Option<(&mut HistoryMemo, &[u32])>,
) -> Result<f64, JsValue> {
    let rule = |messages: &[JsNode], recall: Option<&mut Recall>| {
        let format = read_format_option(options.as_ref())?;
        history_functions::estimate_tokens_with(messages, format, recall)
            .map(|tokens| tokens as f64)
            .map_err(to_js_error)
    };
    match memo {
        Some((memo, numbers)) => {
            let mut tokens = 0.0;
            memo.read_lazily(
                &messages,
                "messages",
                numbers,
                true,
                &mut |messages, recall| {
                    tokens = rule(messages, Some(recall))?;
                    Ok(())
                },
            )?;
            Ok(tokens)
        }
        None => rule(&read_array(&messages, "messages")?, None),
    }
}

/// The binding of `needsCompaction`. Its doc and example are the JSDoc in `js/index.ts`,
/// the one the published types carry.
#[wasm_bindgen(js_name = needsCompaction)]
pub fn needs_compaction(
    effective: MessageList,
    #[wasm_bindgen(js_name = maxTokens)] max_tokens: Option<MaxTokensArg>,
    options: Option<FormatOptionsArg>,
) -> Result<bool, JsValue> {
    needs(effective, max_tokens, options, None)
}

fn needs(
    effective: MessageList,
    max_tokens: Option<MaxTokensArg>,
    options: Option<FormatOptionsArg>,
    memo: Option<(&mut HistoryMemo, &[u32])>,
) -> Result<bool, JsValue> {
    let effective = JsHistory::new(&effective, "effective")?;
    let format = read_format_option(options.as_ref())?;
    let max_tokens = read_max_tokens(max_tokens.as_ref())?;
    let mut recall = memo.map(|(memo, numbers)| memo.recall(numbers));
    history_functions::needs_compaction_with(&effective, max_tokens, format, recall.as_mut())
        .map_err(to_js_error)
}

/// The binding of `effectiveHistory`. Its doc and example are the JSDoc in `js/index.ts`,
/// the one the published types carry.
#[wasm_bindgen(js_name = effectiveHistory)]
pub fn effective_history(
    all: MessageList,
    options: Option<FormatOptionsArg>,
) -> Result<MessageList, JsValue> {
    effective(all, options, None)
}

fn effective(
    all: MessageList,
    options: Option<FormatOptionsArg>,
    memo: Option<(&mut HistoryMemo, &[u32])>,
) -> Result<MessageList, JsValue> {
    let history = JsHistory::new(&all, "all")?;
    let format = read_format_option(options.as_ref())?;
    let mut recall = memo.map(|(memo, numbers)| memo.recall(numbers));
    let kept = history_functions::effective_history_with(&history, format, recall.as_mut())
        .map_err(to_js_error)?;
    Ok(materialize_kept(&history, &kept)?.unchecked_into())
}

/// The binding of `pruneForModel`. Its doc and example are the JSDoc in `js/index.ts`,
/// the one the published types carry.
#[wasm_bindgen(js_name = pruneForModel)]
pub fn prune_for_model(
    effective: MessageList,
    options: Option<PruneOptionsArg>,
) -> Result<MessageList, JsValue> {
    prune(effective, options, None)
}

fn prune(
    effective: MessageList,
    options: Option<PruneOptionsArg>,
    memo: Option<(&mut HistoryMemo, &[u32])>,
) -> Result<MessageList, JsValue> {
    let mut history = JsHistory::new(&effective, "effective")?;
    let options_node = read_options(
        options.map(Into::into).unwrap_or(JsValue::UNDEFINED),
        "options",
    )?;
    let format = read_format(&options_node, "options")?;
    let (options, placeholder) = read_prune_options(&options_node).map_err(to_js_error)?;
    // A memo keeps its own copies, the same objects turn after turn.
    if memo.is_none() {
        history = history.copy_cleared(placeholder.clone());
    }
    let (mut memo, numbers) = match memo {
        Some((memo, numbers)) => (Some(memo), numbers),
        None => (None, &[][..]),
    };
    let mut recall = memo.as_deref_mut().map(|memo| memo.recall(numbers));
    let edits =
        history_functions::prune_for_model_with(&history, &options, format, recall.as_mut())
            .map_err(to_js_error)?;
    drop(recall);
    Ok(materialize_edited(&history, &edits, &placeholder, memo.as_deref())?.unchecked_into())
}

/// The binding of `emergencyPrune`. Its doc and example are the JSDoc in `js/index.ts`,
/// the one the published types carry.
#[wasm_bindgen(js_name = emergencyPrune)]
pub fn emergency_prune(
    effective: MessageList,
    #[wasm_bindgen(js_name = maxTokens)] max_tokens: Option<MaxTokensArg>,
    options: Option<FormatOptionsArg>,
) -> Result<MessageList, JsValue> {
    cut(effective, max_tokens, options, None)
}

fn cut(
    effective: MessageList,
    max_tokens: Option<MaxTokensArg>,
    options: Option<FormatOptionsArg>,
    memo: Option<(&mut HistoryMemo, &[u32])>,
) -> Result<MessageList, JsValue> {
    let history = JsHistory::new(&effective, "effective")?;
    let format = read_format_option(options.as_ref())?;
    let max_tokens = read_max_tokens(max_tokens.as_ref())?;
    let mut recall = memo.map(|(memo, numbers)| memo.recall(numbers));
    let kept =
        history_functions::emergency_prune_with(&history, max_tokens, format, recall.as_mut())
            .map_err(to_js_error)?;
    Ok(materialize_kept(&history, &kept)?.unchecked_into())
}

/// The same functions, remembering what they read: each answers exactly as
/// the function of its name does.
///
/// ```ts
/// const memo = new HistoryMemo();
/// const tokens = memo.estimateTokens(history); // the next turn reads only new messages
/// ```
#[wasm_bindgen]
impl HistoryMemo {
    /// `estimateTokens`, through the memo.
    #[wasm_bindgen(js_name = estimateTokens)]
    pub fn estimate_tokens(
        &mut self,
        messages: MessageList,
        numbers: &[u32],
        options: Option<FormatOptionsArg>,
    ) -> Result<f64, JsValue> {
        estimate(messages, options, Some((self, numbers)))
    }

    /// `needsCompaction`, through the memo.
    #[wasm_bindgen(js_name = needsCompaction)]
    pub fn needs_compaction(
        &mut self,
        effective: MessageList,
        numbers: &[u32],
        #[wasm_bindgen(js_name = maxTokens)] max_tokens: Option<MaxTokensArg>,
        options: Option<FormatOptionsArg>,
    ) -> Result<bool, JsValue> {
        needs(effective, max_tokens, options, Some((self, numbers)))
    }

    /// `effectiveHistory`, through the memo.
    #[wasm_bindgen(js_name = effectiveHistory)]
    pub fn effective_history(
        &mut self,
        all: MessageList,
        numbers: &[u32],
        options: Option<FormatOptionsArg>,
    ) -> Result<MessageList, JsValue> {
        effective(all, options, Some((self, numbers)))
    }

    /// The effective history of `all` as bounds, `[instructions, start,
    /// tokens]`: `all.slice(0, instructions)` then `all.slice(start)`, and
    /// its estimate when that is all of it (-1 when not). For
    /// ContextManager, which builds the array itself.
    #[wasm_bindgen(js_name = effectiveBounds)]
    pub fn effective_bounds(
        &mut self,
        all: MessageList,
        numbers: &[u32],
        options: Option<FormatOptionsArg>,
    ) -> Result<Vec<f64>, JsValue> {
        let mut bounds = (0, 0, None);
        self.read_lazily(&all, "all", numbers, true, &mut |all, recall| {
            let format = read_format_option(options.as_ref())?;
            bounds = history_functions::effective_bounds_and_tokens_with(all, format, recall)
                .map_err(to_js_error)?;
            Ok(())
        })?;
        let (instructions, start, tokens) = bounds;
        Ok(vec![
            instructions as f64,
            start as f64,
            tokens.map_or(-1.0, |tokens| tokens as f64),
        ])
    }

    /// `pruneForModel`, through the memo.
    #[wasm_bindgen(js_name = pruneForModel)]
    pub fn prune_for_model(
        &mut self,
        effective: MessageList,
        numbers: &[u32],
        options: Option<PruneOptionsArg>,
    ) -> Result<MessageList, JsValue> {
        prune(effective, options, Some((self, numbers)))
    }

    /// `emergencyPrune`, through the memo.
    #[wasm_bindgen(js_name = emergencyPrune)]
    pub fn emergency_prune(
        &mut self,
        effective: MessageList,
        numbers: &[u32],
        #[wasm_bindgen(js_name = maxTokens)] max_tokens: Option<MaxTokensArg>,
        options: Option<FormatOptionsArg>,
    ) -> Result<MessageList, JsValue> {
        cut(effective, max_tokens, options, Some((self, numbers)))
    }
}

/// The prune options, and the placeholder as the caller's own JS string.
fn read_prune_options(options: &JsNode) -> Result<(PruneOptions, JsValue), InputError> {
    let mut result = PruneOptions::default();
    let mut placeholder = JsValue::from_str(DEFAULT_PLACEHOLDER);
    if let Some(turns) = count_option(options, "protectTurns")? {
        result.protect_turns = turns as usize;
    }
    if let Some(tokens) = number_option(options, "protectTokens")? {
        result.protect_tokens = tokens;
    }
    if let Some(savings) = number_option(options, "minimumSavings")? {
        result.minimum_savings = savings;
    }
    result.max_tokens = budget_option(options, "maxTokens")?.map(|max| max as f64);
    match options.field("placeholder") {
        Err(thrown) => {
            return Err(InputError::type_error(format!(
                "options.placeholder could not be read: {thrown}"
            )))
        }
        Ok(None) => {}
        Ok(Some(value)) => match value.0.as_string() {
            Some(text) => {
                result.placeholder = text;
                placeholder = value.0;
            }
            None => {
                return Err(InputError::type_error(format!(
                    "options.placeholder must be a string, got {}",
                    value.kind().describe()
                )))
            }
        },
    }
    Ok((result, placeholder))
}

/// `maxTokens`: absent means the default; anything but a number is a
/// `TypeError` (a numeric string is not silently coerced). The range is
/// checked by the core.
fn read_max_tokens(value: Option<&MaxTokensArg>) -> Result<f64, JsValue> {
    let value = value.map_or(JsValue::UNDEFINED, |value| JsValue::clone(value));
    let node = JsNode(value);
    match node.kind() {
        Kind::Undefined | Kind::Null => Ok(DEFAULT_MAX_TOKENS as f64),
        Kind::Number => Ok(node.number().unwrap_or(f64::NAN)),
        other => Err(type_error(format!(
            "maxTokens must be a number, got {}",
            other.describe()
        ))),
    }
}

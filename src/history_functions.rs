//! The history functions as the package exports them, over any `Node`: each
//! reads and checks the history (`needs_compaction`, `effective_history`,
//! `prune_for_model` and `emergency_prune` only as far back as their
//! decision needs, see
//! `crate::newest_first`), then applies one rule. Each has a
//! `_with` twin that reads through a memo of earlier reads (`crate::memo`):
//! the same answer, and a message already read is not read again.

use std::ops::Range;

use crate::error::{check_budget, InputError};
use crate::formats::{read_history, read_history_remembering, read_structure_remembering, Format};
use crate::history;
use crate::ladder::CompactionPlan;
use crate::memo::Recall;
use crate::newest_first::Messages;
use crate::node::Node;
use crate::plan::{self, with_edits, Output};
use crate::prune::{self, PruneOptions, DEFAULT_PLACEHOLDER};
use crate::view::{Edit, MessageView};

/// A memo to read through, or none.
pub type Memo<'a, 'b> = Option<&'a mut Recall<'b>>;

/// Reads `messages` (through the memo if there is one), applies `rule` to
/// the views, and hands them back to the memo for the next read of a history
/// that begins the same way.
fn read_then<N: Node, T>(
    messages: &[N],
    format: Option<Format>,
    argument: &str,
    placeholder: &str,
    mut memo: Memo,
    rule: impl FnOnce(&[MessageView]) -> T,
) -> Result<T, InputError> {
    let views = read_views(messages, format, argument, placeholder, memo.as_deref_mut())?;
    let answer = rule(&views);
    keep(memo, views);
    Ok(answer)
}

/// The views of `messages`, read through the memo if there is one. Apart
/// from `read_then`, so that it is made once for each node type, not once
/// for each rule.
fn read_views<N: Node>(
    messages: &[N],
    format: Option<Format>,
    argument: &str,
    placeholder: &str,
    memo: Memo,
) -> Result<Vec<MessageView>, InputError> {
    let (_, views) = match memo {
        Some(recall) => read_history_remembering(messages, format, argument, placeholder, recall),
        None => read_history(messages, format, argument, placeholder),
    }?;
    Ok(views)
}

/// `read_then` for the functions that read an effective history at the
/// default placeholder.
fn read_effective<N: Node, T>(
    effective: &[N],
    format: Option<Format>,
    memo: Memo,
    rule: impl FnOnce(&[MessageView]) -> T,
) -> Result<T, InputError> {
    read_then(
        effective,
        format,
        "effective",
        DEFAULT_PLACEHOLDER,
        memo,
        rule,
    )
}

/// Hands a read's views back to the memo, for the next read of a history
/// that begins the same way.
fn keep(memo: Memo, views: Vec<MessageView>) {
    if let Some(recall) = memo {
        recall.keep(views);
    }
}

pub fn estimate_tokens<N: Node>(messages: &[N], format: Option<Format>) -> Result<u64, InputError> {
    estimate_tokens_with(messages, format, None)
}

pub fn estimate_tokens_with<N: Node>(
    messages: &[N],
    format: Option<Format>,
    memo: Memo,
) -> Result<u64, InputError> {
    read_then(
        messages,
        format,
        "messages",
        DEFAULT_PLACEHOLDER,
        memo,
        history::total_tokens,
    )
}

pub fn needs_compaction<N: Node + Clone>(
    effective: &[N],
    max_tokens: f64,
    format: Option<Format>,
) -> Result<bool, InputError> {
    needs_compaction_with(effective, max_tokens, format, None)
}

/// `needs_compaction` of a history read a message at a time without a
/// memo (`Messages`), newest first until it is over the budget, or whole
/// through one.
pub fn needs_compaction_with<H: Messages + ?Sized>(
    effective: &H,
    max_tokens: f64,
    format: Option<Format>,
    memo: Memo,
) -> Result<bool, InputError> {
    let max_tokens = check_budget(max_tokens, "maxTokens")?;
    if memo.is_none() {
        if let Some(over) = crate::newest_first::over_budget(effective, max_tokens, format) {
            return Ok(over);
        }
    }
    read_effective(effective.all()?, format, memo, |views| {
        history::needs_compaction(views, max_tokens)
    })
}

/// The leading system messages (instructions), then everything from the
/// newest compaction marker on; the whole history when there is no marker.
pub fn effective_history<N: Node + Clone>(
    all: &[N],
    format: Option<Format>,
) -> Result<Vec<Output>, InputError> {
    effective_history_with(all, format, None).map(|ranges| plan::kept(&ranges))
}

/// `effective_history` of a history read a message at a time without a
/// memo (`Messages`), or whole through one, as the ranges of messages it
/// keeps as they are (it edits none): what the bindings build the answer
/// from, without a plan of one entry a message.
pub fn effective_history_with<H: Messages + ?Sized>(
    all: &H,
    format: Option<Format>,
    memo: Memo,
) -> Result<[Range<usize>; 2], InputError> {
    let (instructions, start) = effective_bounds_with(all, format, memo)?;
    Ok([0..instructions, start..all.len()])
}

/// The effective history as bounds: the number of instructions, and where
/// it goes on from (`all[..instructions]` then `all[start..]`).
pub fn effective_bounds_with<H: Messages + ?Sized>(
    all: &H,
    format: Option<Format>,
    memo: Memo,
) -> Result<(usize, usize), InputError> {
    let Some(recall) = memo else {
        // Without a memo, the newest marker is looked for from the end.
        return crate::newest_first::effective_bounds(all, format, "all");
    };
    let views = read_structure_remembering(all.all()?, format, "all", recall)?;
    let bounds = crate::cuts::effective_bounds(&views);
    recall.keep(views);
    Ok(bounds)
}

/// What a turn of an agent loop needs first, from one read through its memo
/// with the estimates: the effective history's bounds, and its estimate
/// when it is the whole history (as `estimate_tokens_with` of it would
/// answer; with a marker the effective history is estimated on its own).
/// The read the turn's estimate would make next is then already made.
pub fn effective_bounds_and_tokens_with<N: Node>(
    all: &[N],
    format: Option<Format>,
    recall: &mut Recall,
) -> Result<(usize, usize, Option<u64>), InputError> {
    let (_, views) = read_history_remembering(all, format, "all", DEFAULT_PLACEHOLDER, recall)?;
    let (instructions, start) = crate::cuts::effective_bounds(&views);
    let tokens = (start == instructions).then(|| history::total_tokens(&views));
    recall.keep(views);
    Ok((instructions, start, tokens))
}

pub fn prune_for_model<N: Node + Clone>(
    effective: &[N],
    options: &PruneOptions,
    format: Option<Format>,
) -> Result<Vec<Output>, InputError> {
    prune_for_model_with(effective, options, format, None)
        .map(|edits| with_edits(effective.len(), edits))
}

/// `prune_for_model` of a history read a message at a time without a memo
/// (`Messages`), or whole through one, as its edits (it keeps every
/// message): in the order of the messages, each message's together, as
/// the bindings build the answer from them.
pub fn prune_for_model_with<H: Messages + ?Sized>(
    effective: &H,
    options: &PruneOptions,
    format: Option<Format>,
    memo: Memo,
) -> Result<Vec<Edit>, InputError> {
    let edits = match memo {
        // Without a memo, the newest results' estimates are read, and the
        // older results only found.
        None => crate::newest_first::prune_plan(effective, options, format, "effective")?,
        Some(_) => read_then(
            effective.all()?,
            format,
            "effective",
            &options.placeholder,
            memo,
            |views| prune::prune_plan(views, options),
        )?,
    };
    Ok(edits)
}

pub fn emergency_prune<N: Node + Clone>(
    effective: &[N],
    max_tokens: f64,
    format: Option<Format>,
) -> Result<Vec<Output>, InputError> {
    emergency_prune_with(effective, max_tokens, format, None).map(|ranges| plan::kept(&ranges))
}

/// `emergency_prune` of a history read a message at a time without a memo
/// (`Messages`), or whole through one, as the ranges of messages it keeps
/// (it edits none).
pub fn emergency_prune_with<H: Messages + ?Sized>(
    effective: &H,
    max_tokens: f64,
    format: Option<Format>,
    memo: Memo,
) -> Result<[Range<usize>; 3], InputError> {
    let max_tokens = check_budget(max_tokens, "maxTokens")?;
    let cut = match memo {
        // Without a memo, only the newest messages the cut needs are read.
        None => crate::newest_first::emergency_cut(effective, max_tokens, format, "effective")?,
        // A memo holds most of the history already, and learns the rest.
        Some(_) => read_effective(effective.all()?, format, memo, |views| {
            prune::emergency_cut(views, max_tokens)
        })?,
    };
    Ok(cut.ranges(effective.len()))
}

/// The compaction the ladder would make of `effective` at `max_tokens`, or
/// why it would not call the summariser (see `ladder::plan_compaction`).
pub fn compaction_plan<N: Node>(
    effective: &[N],
    max_tokens: f64,
    max_summary_tokens: u64,
    tokens_before: u64,
    format: Option<Format>,
    memo: Memo,
) -> Result<Result<CompactionPlan, String>, InputError> {
    let max_tokens = check_budget(max_tokens, "maxTokens")?;
    read_effective(effective, format, memo, |views| {
        crate::ladder::plan_compaction(views, max_tokens as u64, max_summary_tokens, tokens_before)
    })
}

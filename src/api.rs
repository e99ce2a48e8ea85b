//! The history functions as the package exports them, over any `Node`: each
//! reads and checks the whole history, then applies one rule. Each has a
//! `_with` twin that reads through a memo of earlier reads (`crate::memo`):
//! the same answer, and a message already read is not read again.

use crate::error::{check_budget, InputError};
use crate::formats::{
    read_history, read_history_remembering, read_structure, read_structure_remembering, Format,
};
use crate::history;
use crate::ladder::CompactionPlan;
use crate::memo::Recall;
use crate::node::Node;
use crate::plan::{with_edits, Output};
use crate::prune::{self, PruneOptions, DEFAULT_PLACEHOLDER};
use crate::view::MessageView;

/// A memo to read through, or none.
pub type Memo<'a, 'b> = Option<&'a mut Recall<'b>>;

fn views<N: Node>(
    messages: &[N],
    format: Option<Format>,
    argument: &str,
    memo: Memo,
) -> Result<Vec<MessageView>, InputError> {
    views_with_placeholder(messages, format, argument, DEFAULT_PLACEHOLDER, memo)
}

fn views_with_placeholder<N: Node>(
    messages: &[N],
    format: Option<Format>,
    argument: &str,
    placeholder: &str,
    memo: Memo,
) -> Result<Vec<MessageView>, InputError> {
    match memo {
        Some(recall) => read_history_remembering(messages, format, argument, placeholder, recall),
        None => read_history(messages, format, argument, placeholder),
    }
    .map(|(_, views)| views)
}

pub fn estimate_tokens<N: Node>(messages: &[N], format: Option<Format>) -> Result<u64, InputError> {
    estimate_tokens_with(messages, format, None)
}

pub fn estimate_tokens_with<N: Node>(
    messages: &[N],
    format: Option<Format>,
    memo: Memo,
) -> Result<u64, InputError> {
    Ok(history::total_tokens(&views(
        messages, format, "messages", memo,
    )?))
}

pub fn needs_compaction<N: Node>(
    effective: &[N],
    max_tokens: f64,
    format: Option<Format>,
) -> Result<bool, InputError> {
    needs_compaction_with(effective, max_tokens, format, None)
}

pub fn needs_compaction_with<N: Node>(
    effective: &[N],
    max_tokens: f64,
    format: Option<Format>,
    memo: Memo,
) -> Result<bool, InputError> {
    let max_tokens = check_budget(max_tokens, "maxTokens")?;
    Ok(history::needs_compaction(
        &views(effective, format, "effective", memo)?,
        max_tokens,
    ))
}

/// The leading system messages (instructions), then everything from the
/// newest compaction marker on; the whole history when there is no marker.
pub fn effective_history<N: Node>(
    all: &[N],
    format: Option<Format>,
) -> Result<Vec<Output>, InputError> {
    effective_history_with(all, format, None)
}

pub fn effective_history_with<N: Node>(
    all: &[N],
    format: Option<Format>,
    memo: Memo,
) -> Result<Vec<Output>, InputError> {
    let views = match memo {
        Some(recall) => read_structure_remembering(all, format, "all", recall)?,
        None => read_structure(all, format, "all")?,
    };
    let instructions = crate::cuts::instructions(&views);
    let start = history::effective_start(&views).max(instructions);
    Ok((0..instructions)
        .chain(start..all.len())
        .map(Output::Keep)
        .collect())
}

pub fn prune_for_model<N: Node>(
    effective: &[N],
    options: &PruneOptions,
    format: Option<Format>,
) -> Result<Vec<Output>, InputError> {
    prune_for_model_with(effective, options, format, None)
}

pub fn prune_for_model_with<N: Node>(
    effective: &[N],
    options: &PruneOptions,
    format: Option<Format>,
    memo: Memo,
) -> Result<Vec<Output>, InputError> {
    let placeholder = &options.placeholder;
    let views = views_with_placeholder(effective, format, "effective", placeholder, memo)?;
    Ok(with_edits(
        effective.len(),
        prune::prune_plan(&views, options),
    ))
}

pub fn emergency_prune<N: Node>(
    effective: &[N],
    max_tokens: f64,
    format: Option<Format>,
) -> Result<Vec<Output>, InputError> {
    emergency_prune_with(effective, max_tokens, format, None)
}

pub fn emergency_prune_with<N: Node>(
    effective: &[N],
    max_tokens: f64,
    format: Option<Format>,
    memo: Memo,
) -> Result<Vec<Output>, InputError> {
    let max_tokens = check_budget(max_tokens, "maxTokens")?;
    let views = views(effective, format, "effective", memo)?;
    let cut = prune::emergency_cut(&views, max_tokens);
    Ok(cut.kept(effective.len()).map(Output::Keep).collect())
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
    let views = views(effective, format, "effective", memo)?;
    Ok(crate::ladder::plan_compaction(
        &views,
        max_tokens as u64,
        max_summary_tokens,
        tokens_before,
    ))
}

//! The history functions as the package exports them, over any `Node`: each
//! reads and checks the whole history, then applies one rule.

use crate::error::{check_budget, InputError};
use crate::formats::{read_history, read_structure, Format};
use crate::history;
use crate::node::Node;
use crate::plan::{with_edits, Output};
use crate::prune::{self, PruneOptions, DEFAULT_PLACEHOLDER};
use crate::view::MessageView;

fn views<N: Node>(
    messages: &[N],
    format: Option<Format>,
    argument: &str,
) -> Result<Vec<MessageView>, InputError> {
    views_with_placeholder(messages, format, argument, DEFAULT_PLACEHOLDER)
}

fn views_with_placeholder<N: Node>(
    messages: &[N],
    format: Option<Format>,
    argument: &str,
    placeholder: &str,
) -> Result<Vec<MessageView>, InputError> {
    read_history(messages, format, argument, placeholder).map(|(_, views)| views)
}

pub fn estimate_tokens<N: Node>(messages: &[N], format: Option<Format>) -> Result<u64, InputError> {
    Ok(history::total_tokens(&views(messages, format, "messages")?))
}

pub fn needs_compaction<N: Node>(
    effective: &[N],
    max_tokens: f64,
    format: Option<Format>,
) -> Result<bool, InputError> {
    let max_tokens = check_budget(max_tokens, "maxTokens")?;
    Ok(history::needs_compaction(
        &views(effective, format, "effective")?,
        max_tokens,
    ))
}

pub fn effective_history<N: Node>(
    all: &[N],
    format: Option<Format>,
) -> Result<Vec<Output>, InputError> {
    let views = read_structure(all, format, "all")?;
    Ok((history::effective_start(&views)..all.len())
        .map(Output::Keep)
        .collect())
}

pub fn prune_for_model<N: Node>(
    effective: &[N],
    options: &PruneOptions,
    format: Option<Format>,
) -> Result<Vec<Output>, InputError> {
    let views = views_with_placeholder(effective, format, "effective", &options.placeholder)?;
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
    let max_tokens = check_budget(max_tokens, "maxTokens")?;
    let views = views(effective, format, "effective")?;
    let cut = prune::emergency_cut(&views, max_tokens);
    Ok((0..cut.leading)
        .chain(cut.keep_from..effective.len())
        .map(Output::Keep)
        .collect())
}

/// The index in `effective` where its newest user turn starts (0 when there
/// is none): what a compaction keeps verbatim after the marker.
pub fn latest_turn_start<N: Node>(
    effective: &[N],
    format: Option<Format>,
) -> Result<usize, InputError> {
    Ok(prune::protected_from(
        &read_structure(effective, format, "effective")?,
        1,
    ))
}

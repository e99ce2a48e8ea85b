//! Whether a history's estimate is over a budget, read newest first: runs
//! of older and older messages with their estimates, until those read are
//! over the budget (the older ones can only add to it) or every message is
//! read.

use crate::formats::{Format, Reading};
use crate::prune::DEFAULT_PLACEHOLDER;

use super::{next_run, Messages, Runs, FIRST_WINDOW};

/// Whether the estimate of `messages` is over `max_tokens`, as a read of
/// the whole history answers it; `None` when a run cannot be read or the
/// runs fit no one format (the whole read then says why).
pub fn over_budget<H: Messages + ?Sized>(
    messages: &H,
    max_tokens: f64,
    format: Option<Format>,
) -> Option<bool> {
    let mut runs = Runs::new();
    let mut tokens = 0;
    // Reasoning carried back counts nothing before the newest user message
    // (`formats::joined_runs`): a run read on its own counts only its own
    // from its own newest one on, so none of a run older than one with a
    // user message counts.
    let mut newer_turn = false;
    let mut end = messages.len();
    let mut window = FIRST_WINDOW;
    while end > 0 {
        let start = end.saturating_sub(window);
        let read = runs.read(
            messages,
            start..end,
            format,
            DEFAULT_PLACEHOLDER,
            Reading::Sizes,
        )?;
        let mut turn_in_run = false;
        for view in &read.views {
            if !(newer_turn && view.carried_reasoning) {
                tokens += view.tokens;
            }
            turn_in_run |= view.starts_user_turn;
        }
        // Only once the run is counted: its own read settled its reasoning.
        newer_turn |= turn_in_run;
        if tokens as f64 > max_tokens {
            return Some(true);
        }
        end = start;
        window = next_run(messages.len() - end, tokens, max_tokens);
    }
    Some(false)
}

//! The emergency cut, read newest first: the leading system messages, then
//! runs of older and older messages, each read once, until what was read
//! decides the cut as a read of the whole history would.

use crate::cuts;
use crate::error::InputError;
use crate::formats::{joined_runs, read_history, read_structure, Format, Reading};
use crate::prune::{self, Cut, DEFAULT_PLACEHOLDER};

use super::{next_run, Messages, Runs, FIRST_WINDOW, LEADING_PROBES, SHORTEST_READ_NEWEST_FIRST};

/// `prune::emergency_cut` of `messages`, read newest first.
pub fn emergency_cut<H: Messages + ?Sized>(
    messages: &H,
    max_tokens: f64,
    format: Option<Format>,
    argument: &str,
) -> Result<Cut, InputError> {
    if let Some(cut) = windowed_cut(messages, max_tokens, format) {
        return Ok(cut);
    }
    let (_, views) = read_history(messages.all()?, format, argument, DEFAULT_PLACEHOLDER)?;
    Ok(prune::emergency_cut(&views, max_tokens))
}

/// The cut from the leading messages and runs of the newest ones, or
/// `None` to read the whole history (which then says what is wrong), as a
/// short history always is.
pub fn windowed_cut<H: Messages + ?Sized>(
    messages: &H,
    max_tokens: f64,
    format: Option<Format>,
) -> Option<Cut> {
    if messages.len() < SHORTEST_READ_NEWEST_FIRST {
        return None;
    }
    let leading = leading_messages(messages, format)?;
    let mut runs = Runs::new();
    let sizes = Reading::Sizes;
    // The leading messages, then the messages read so far from `start` on.
    let mut views = runs
        .read(messages, 0..leading, format, DEFAULT_PLACEHOLDER, sizes)?
        .views;
    let mut start = messages.len();
    let mut window = FIRST_WINDOW;
    loop {
        let run_start = start.saturating_sub(window).max(leading);
        let range = run_start..start;
        let mut run = runs
            .read(messages, range, format, DEFAULT_PLACEHOLDER, sizes)?
            .views;
        let mut newer = views.split_off(leading);
        views.append(&mut run);
        views.append(&mut newer);
        start = run_start;
        joined_runs(&mut views, runs.format()?);
        if start == leading {
            return Some(prune::emergency_cut(&views, max_tokens));
        }
        if let Some(cut) = prune::emergency_cut_of_window(&views, leading, start, max_tokens) {
            return Some(cut);
        }
        // Not decided: the budget is not spent yet, or it is and a kept
        // result may answer a call not read yet.
        let tokens = cuts::tokens(&views, leading..views.len());
        window = next_run(messages.len() - start, tokens, max_tokens);
    }
}

/// How many system messages the history begins with, when a few messages
/// tell and none of them makes a tool call (a call answered among unread
/// messages would hold every cut open).
fn leading_messages<H: Messages + ?Sized>(messages: &H, format: Option<Format>) -> Option<usize> {
    for len in LEADING_PROBES {
        let probe = messages.run(0..messages.len().min(len))?;
        let views = read_structure(&probe, format, "messages").ok()?;
        let leading = cuts::leading(&views);
        if leading < probe.len() {
            let calls = views[..leading].iter().any(|view| !view.opens.is_empty());
            return (!calls).then_some(leading);
        }
    }
    None
}

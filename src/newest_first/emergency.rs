//! The emergency cut, read newest first: the leading system messages, then
//! a window of the newest messages, longer each time, until what was read
//! decides the cut as a read of the whole history would.

use crate::cuts;
use crate::error::InputError;
use crate::formats::{read_history, read_structure, Format};
use crate::prune::{self, Cut, DEFAULT_PLACEHOLDER};

use super::{Messages, FIRST_WINDOW, LEADING_PROBE};

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

/// The cut from the leading messages and a window of the newest ones, or
/// `None` to read the whole history.
pub fn windowed_cut<H: Messages + ?Sized>(
    messages: &H,
    max_tokens: f64,
    format: Option<Format>,
) -> Option<Cut> {
    let leading = leading_messages(messages, format)?;
    let mut window = FIRST_WINDOW;
    // A window of more than half the history costs about what the whole does.
    while leading + window < messages.len() && window * 2 <= messages.len() {
        let start = messages.len() - window;
        let mut read = messages.run(0..leading)?;
        read.extend(messages.run(start..messages.len())?);
        // The errors of a whole read name the message's own index.
        let (_, views) = read_history(&read, format, "messages", DEFAULT_PLACEHOLDER).ok()?;
        if let Some(cut) = prune::emergency_cut_of_window(&views, leading, start, max_tokens) {
            return Some(cut);
        }
        // The next window reaches as far back as the budget seems to, at
        // what this window's messages cost, and half as far again (at
        // least twice as far as this one).
        let tokens = cuts::tokens(&views, leading..views.len()).max(1);
        let reach = window as f64 * (max_tokens / tokens as f64) * 1.5;
        window = (reach.min(messages.len() as f64) as usize).max(window * 2);
    }
    None
}

/// How many system messages the history begins with, when a few messages
/// tell and none of them makes a tool call (a call answered among unread
/// messages would hold every cut open).
fn leading_messages<H: Messages + ?Sized>(messages: &H, format: Option<Format>) -> Option<usize> {
    let probe = messages.run(0..messages.len().min(LEADING_PROBE))?;
    let views = read_structure(&probe, format, "messages").ok()?;
    let leading = cuts::leading(&views);
    let calls = views[..leading].iter().any(|view| !view.opens.is_empty());
    (leading < probe.len() && !calls).then_some(leading)
}

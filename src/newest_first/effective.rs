//! The effective history's bounds, read newest first: the leading messages
//! for the instructions, then runs of older and older messages from the end
//! until one holds a marker. With no marker, every message is read, once.

use crate::cuts;
use crate::error::InputError;
use crate::formats::{read_structure, Format, Reading};
use crate::node::Node;
use crate::prune::DEFAULT_PLACEHOLDER;

use super::{Runs, FIRST_WINDOW, LEADING_PROBE, SHORTEST_READ_NEWEST_FIRST};

/// `cuts::effective_bounds` of `all`, read newest first: the number of
/// instructions, and where the effective history goes on from.
pub fn effective_bounds<N: Node>(
    all: &[N],
    format: Option<Format>,
    argument: &str,
) -> Result<(usize, usize), InputError> {
    if let Some(bounds) = bounds_from_the_end(all, format) {
        return Ok(bounds);
    }
    Ok(cuts::effective_bounds(&read_structure(
        all, format, argument,
    )?))
}

/// The bounds from the leading messages and the runs from the end, or
/// `None` to read the whole history.
fn bounds_from_the_end<N: Node>(all: &[N], format: Option<Format>) -> Option<(usize, usize)> {
    if all.len() < SHORTEST_READ_NEWEST_FIRST {
        return None;
    }
    let mut runs = Runs::new();
    let read = |runs: &mut Runs, messages: &[N]| {
        runs.read(messages, format, DEFAULT_PLACEHOLDER, Reading::Structure)
    };
    let probe = read(&mut runs, &all[..LEADING_PROBE])?.views;
    let instructions = cuts::instructions(&probe);
    if instructions == probe.len() {
        return None; // the instructions may go on past the probe
    }
    // The marker is never among the instructions, so the newest one after
    // the probe, or else the probe's, is where the effective history starts.
    let mut end = all.len();
    let mut window = FIRST_WINDOW;
    while end > LEADING_PROBE {
        let start = end.saturating_sub(window).max(LEADING_PROBE);
        let views = read(&mut runs, &all[start..end])?.views;
        if let Some(marker) = views.iter().rposition(|view| view.is_marker) {
            return Some((instructions, start + marker));
        }
        end = start;
        window *= 4;
    }
    Some(cuts::effective_bounds(&probe))
}

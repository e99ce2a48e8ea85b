//! The effective history's bounds, read newest first: the leading messages
//! for the instructions, then each message from the end, only as far as it
//! takes to know whether it is a marker, until one is.

use crate::cuts;
use crate::error::InputError;
use crate::formats::{read_structure, Format, MessageReader, Reading};
use crate::prune::DEFAULT_PLACEHOLDER;

use super::{
    agreed, codes_from_the_end, Messages, Runs, LEADING_PROBES, SHORTEST_READ_NEWEST_FIRST,
};

/// `cuts::effective_bounds` of `all`, read newest first: the number of
/// instructions, and where the effective history goes on from.
pub fn effective_bounds<H: Messages + ?Sized>(
    all: &H,
    format: Option<Format>,
    argument: &str,
) -> Result<(usize, usize), InputError> {
    if let Some(bounds) = bounds_from_the_end(all, format, argument) {
        return Ok(bounds);
    }
    Ok(cuts::effective_bounds(&read_structure(
        all.all()?,
        format,
        argument,
    )?))
}

/// The bounds from the leading messages and a search for the newest marker
/// from the end, or `None` to read the whole history.
///
/// The search reads of each message only whether it may be a marker in any
/// format by its fields (its `name`, and the start of the texts where a
/// marker's tag can be: `Messages::marker_candidates`, many messages at a
/// time), and reads the few that may be, as far as each format the leading
/// messages fit needs (`Format::reads_as_marker`). A format that cannot
/// read such a message is not the history's; formats that read it
/// differently, or none left, are settled by the whole read.
fn bounds_from_the_end<H: Messages + ?Sized>(
    all: &H,
    format: Option<Format>,
    argument: &str,
) -> Option<(usize, usize)> {
    if all.len() < SHORTEST_READ_NEWEST_FIRST {
        return None;
    }
    let read_probe = |len: usize| {
        let mut runs = Runs::new();
        let reading = Reading::Structure;
        let views = runs
            .read(all, 0..len, format, DEFAULT_PLACEHOLDER, reading)?
            .views;
        Some((runs, views))
    };
    let [first, then] = LEADING_PROBES;
    let (mut runs, mut probe) = read_probe(first)?;
    if cuts::instructions(&probe) == probe.len() {
        (runs, probe) = read_probe(then)?;
    }
    let instructions = cuts::instructions(&probe);
    if instructions == probe.len() {
        return None; // the instructions may go on past the probe
    }
    let mut formats = runs.formats();
    let roleless = Format::any_marker_may_lack_role(&formats);
    // The marker is never among the instructions, so the newest one after
    // the probe, or else the probe's, is where the effective history starts.
    let candidates = codes_from_the_end(probe.len()..all.len(), |window| {
        all.marker_candidates(window, roleless)
    });
    let mut widened = probe.len() == then;
    for (index, _) in candidates.filter(|&(_, candidate)| candidate != 0) {
        let message = all.message(index)?;
        let reader = MessageReader {
            argument,
            index,
            placeholder: DEFAULT_PLACEHOLDER,
            sizes: false,
            cleared: false,
        };
        // Two messages fit more formats than eight: where those read the
        // candidate differently, the eight may leave only those that agree.
        loop {
            match agreed(&mut formats, |format| {
                format.reads_as_marker(&message, &reader)
            }) {
                Some(true) => return Some((instructions, index)),
                Some(false) => break,
                None if !widened => {
                    widened = true;
                    let wider = read_probe(then)?.0.formats();
                    formats.retain(|format| wider.contains(format));
                }
                None => return None,
            }
        }
    }
    Some(cuts::effective_bounds(&probe))
}

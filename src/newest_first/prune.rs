//! Pruning, read newest first: the newest messages with their estimates,
//! until the protected tail and the minimum saving are decided; then each
//! older message only for where its results are and whether each is cleared
//! already, never for its estimate (every older result is cleared).

use crate::error::InputError;
use crate::formats::{read_history, Format, MessageReader, Reading};
use crate::prune::{self, NewestFirstPruning, PruneOptions};
use crate::view::Edit;

use super::{
    agreed, role_names_from_the_end, Found, Messages, Runs, SettledByName, FIRST_WINDOW,
    SHORTEST_READ_NEWEST_FIRST,
};

/// `prune::prune_plan` of `effective`, read newest first when it has no
/// budget (a budget needs the whole history's estimate).
pub fn prune_plan<H: Messages + ?Sized>(
    effective: &H,
    options: &PruneOptions,
    format: Option<Format>,
    argument: &str,
) -> Result<Vec<Edit>, InputError> {
    if let Some(edits) = edits_from_the_end(effective, options, format, argument) {
        return Ok(edits);
    }
    let (_, views) = read_history(effective.all()?, format, argument, &options.placeholder)?;
    Ok(prune::prune_plan(&views, options))
}

/// The edits from runs of older and older messages, then the older
/// messages one by one, or `None` to read the whole history.
fn edits_from_the_end<H: Messages + ?Sized>(
    effective: &H,
    options: &PruneOptions,
    format: Option<Format>,
    argument: &str,
) -> Option<Vec<Edit>> {
    let mut pruning = NewestFirstPruning::new(options)?;
    if effective.len() < SHORTEST_READ_NEWEST_FIRST {
        return None;
    }
    let mut runs = Runs::new();
    let placeholder = &options.placeholder;
    let mut end = effective.len();
    let mut window = FIRST_WINDOW;
    while end > 0 && !pruning.decided() {
        let start = end.saturating_sub(window);
        let views = runs
            .read(
                &effective.run(start..end)?,
                format,
                placeholder,
                Reading::Sizes,
            )?
            .views;
        pruning.walk(&views, start);
        end = start;
        window *= 4;
    }
    // Decided: of each older message, only whether it is a marker and its
    // results matter (`Format::view_if_results`), in every format the
    // newer messages fit; nothing of it when its role's name says it holds
    // no results (`Format::no_results_by_name`).
    let mut formats = runs.formats();
    let mut by_name = SettledByName::new();
    for (index, role) in role_names_from_the_end(effective, 0..end) {
        if by_name.settled(&formats, role, Format::no_results_by_name) {
            continue;
        }
        let message = effective.message(index)?;
        let reader = MessageReader {
            argument,
            index,
            placeholder,
            sizes: false,
            cleared: true,
        };
        let found = role.map(Found::role);
        let results = agreed(&mut formats, |format| {
            let view = format.view_if_results(&message, &reader, found)?;
            Ok(view.map(|view| (view.is_marker, view.tool_results)))
        })?;
        if let Some((is_marker, results)) = results {
            pruning.walk_decided(index, is_marker, &results);
        }
    }
    Some(pruning.edits())
}

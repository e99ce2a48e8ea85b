//! Pruning, read newest first: the newest messages with their estimates,
//! until the protected tail and the minimum saving are decided; then the
//! older messages for where their results are and whether each is cleared
//! already, never for their estimates (their results are all cleared).

use crate::error::InputError;
use crate::formats::{read_history, Format, Reading};
use crate::node::Node;
use crate::prune::{self, NewestFirstPruning, PruneOptions};
use crate::view::Edit;

use super::{Runs, FIRST_WINDOW, SHORTEST_READ_NEWEST_FIRST};

/// `prune::prune_plan` of `effective`, read newest first when it has no
/// budget (a budget needs the whole history's estimate).
pub fn prune_plan<N: Node>(
    effective: &[N],
    options: &PruneOptions,
    format: Option<Format>,
    argument: &str,
) -> Result<Vec<Edit>, InputError> {
    if let Some(edits) = edits_from_the_end(effective, options, format) {
        return Ok(edits);
    }
    let (_, views) = read_history(effective, format, argument, &options.placeholder)?;
    Ok(prune::prune_plan(&views, options))
}

/// The edits from runs of older and older messages, or `None` to read the
/// whole history.
fn edits_from_the_end<N: Node>(
    effective: &[N],
    options: &PruneOptions,
    format: Option<Format>,
) -> Option<Vec<Edit>> {
    let mut pruning = NewestFirstPruning::new(options)?;
    if effective.len() < SHORTEST_READ_NEWEST_FIRST {
        return None;
    }
    let mut runs = Runs::new();
    let placeholder = &options.placeholder;
    let mut end = effective.len();
    let mut window = FIRST_WINDOW;
    while end > 0 {
        let reading = if pruning.decided() {
            Reading::StructureAndCleared
        } else {
            Reading::Sizes
        };
        // Once decided, the rest is read in one run.
        let start = match reading {
            Reading::Sizes => end.saturating_sub(window),
            _ => 0,
        };
        let views = runs
            .read(&effective[start..end], format, placeholder, reading)?
            .views;
        pruning.walk(&views, start);
        end = start;
        window *= 4;
    }
    Some(pruning.edits())
}

//! The two cuts: `prune_plan`, the cheap structural first pass that clears old
//! tool output, and `emergency_cut`, the fallback that drops whole old turns.

use crate::hash::FastMap;
use crate::view::{Edit, MessageView, RoleKind};

/// The text an old tool result's payload is replaced with.
pub const DEFAULT_PLACEHOLDER: &str = "[Old tool result content cleared]";

#[derive(Clone, Debug, PartialEq)]
pub struct PruneOptions {
    /// The newest user turns whose tool results all stay whole.
    pub protect_turns: usize,
    /// Tool output older than those turns that stays whole, newest first.
    pub protect_tokens: f64,
    /// Nothing changes unless clearing saves at least this much: every change
    /// of an old message invalidates the provider's prompt cache.
    pub minimum_savings: f64,
    pub placeholder: String,
}

impl Default for PruneOptions {
    fn default() -> Self {
        PruneOptions {
            protect_turns: 2,
            protect_tokens: 40_000.0,
            minimum_savings: 20_000.0,
            placeholder: DEFAULT_PLACEHOLDER.to_string(),
        }
    }
}

/// The index of the first message of the protected tail: the start of the
/// `turns`-th newest user turn, or 0 when there are not that many.
pub fn protected_from(views: &[MessageView], turns: usize) -> usize {
    if turns == 0 {
        return views.len();
    }
    let mut seen = 0;
    for (index, view) in views.iter().enumerate().rev() {
        if view.starts_user_turn {
            seen += 1;
            if seen == turns {
                return index;
            }
        }
    }
    0
}

/// Which tool-result payloads to clear. Walking back from the protected tail,
/// results stay whole while the running total of tool output, each result
/// included, is at most `protect_tokens`; the rest are cleared, and only when
/// they add up to at least `minimum_savings`. Results already cleared neither
/// count nor change. The marker and non-tool messages are never touched.
pub fn prune_plan(views: &[MessageView], options: &PruneOptions) -> Vec<Edit> {
    let tail = protected_from(views, options.protect_turns);
    let mut running: u64 = 0;
    let mut savings: u64 = 0;
    let mut edits = Vec::new();
    for index in (0..tail).rev() {
        let view = &views[index];
        if view.is_marker {
            continue;
        }
        for result in view.tool_results.iter().rev() {
            if result.cleared {
                continue;
            }
            running += result.tokens;
            if running as f64 > options.protect_tokens {
                savings += result.tokens;
                edits.push(Edit {
                    message: index,
                    path: result.path.clone(),
                    replacement: result.replacement,
                });
            }
        }
    }
    if edits.is_empty() || (savings as f64) < options.minimum_savings {
        return Vec::new();
    }
    edits.reverse();
    edits
}

/// The emergency cut: keep the first `leading` messages and everything from
/// `keep_from` on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cut {
    pub leading: usize,
    pub keep_from: usize,
}

impl Cut {
    /// Whether the cut drops nothing.
    pub fn is_whole(&self) -> bool {
        self.leading == self.keep_from
    }
}

/// The leading system messages (the marker among them, and unknown system-like
/// roles), then the newest whole user turns that fit within `max_tokens` with
/// them. Cuts only where a user turn starts and no tool call is open across
/// the cut, so a tool call always stays with its results (a user message
/// between a call and its result is no cut point); never keeps less than the
/// newest turn it can cut at; a history with no such turn is kept whole.
pub fn emergency_cut(views: &[MessageView], max_tokens: f64) -> Cut {
    let leading = views
        .iter()
        .take_while(|view| matches!(view.role, RoleKind::System | RoleKind::SystemLike))
        .count();
    let whole = Cut {
        leading,
        keep_from: leading,
    };
    let closed = whole_pairs(views, leading);
    let can_cut = |index: usize| views[index].starts_user_turn && closed[index];
    let leading_tokens: u64 = views[..leading].iter().map(|view| view.tokens).sum();
    let Some(newest_turn) = (leading..views.len()).rev().find(|&index| can_cut(index)) else {
        return whole;
    };

    // Walk back over cut points, keeping the oldest one that still fits.
    let mut kept_tokens = leading_tokens;
    let mut keep_from = views.len();
    for index in (leading..views.len()).rev() {
        kept_tokens += views[index].tokens;
        if can_cut(index) || index == leading {
            if kept_tokens as f64 <= max_tokens {
                keep_from = index;
            } else {
                break;
            }
        }
    }
    Cut {
        leading,
        keep_from: keep_from.min(newest_turn),
    }
}

/// For each index, whether a cut there (dropping `leading..index`) keeps
/// every tool call with its results: no call dropped whose result is kept, no
/// call kept (in the leading messages) whose result is dropped. An answer
/// pairs with the newest call of its id before it; answers with no call are
/// orphans already and constrain nothing.
fn whole_pairs(views: &[MessageView], leading: usize) -> Vec<bool> {
    let mut opened_at: FastMap<&str, usize> = FastMap::default();
    // The oldest dropped-able call each message answers.
    let mut oldest_answered = vec![usize::MAX; views.len()];
    // The first result of a call made in the leading messages.
    let mut first_leading_result = usize::MAX;
    for (index, view) in views.iter().enumerate() {
        for id in &view.answers {
            let Some(&opener) = opened_at.get(id.as_str()) else {
                continue;
            };
            if opener >= leading {
                oldest_answered[index] = oldest_answered[index].min(opener);
            } else if index >= leading {
                first_leading_result = first_leading_result.min(index);
            }
        }
        for id in &view.opens {
            opened_at.insert(id, index);
        }
    }
    let mut whole = vec![true; views.len()];
    let mut oldest = usize::MAX;
    for index in (0..views.len()).rev() {
        oldest = oldest.min(oldest_answered[index]);
        whole[index] = oldest >= index && index <= first_leading_result;
    }
    whole
}

#[cfg(test)]
mod tests;

//! The ladder's decisions, made from token counts: whether a history is
//! within budget, whether to summarise or cut, and whether a summary made
//! enough progress. `ContextManager` (js/context-manager.ts) runs the tiers
//! and asks these at each step; the reasons are the words it reports.

use crate::cuts;
use crate::summary::frame::frame_tokens;
use crate::view::MessageView;

/// A compaction must cut the estimate by at least this share, or the ladder
/// falls through to the emergency cut (a summary that saves little would be
/// redone on the next call, in a loop).
pub const MIN_PROGRESS_PERCENT: u64 = 25;

/// The tier `ContextManager.prepare` ends at, named as its result names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tier {
    None,
    Pruned,
    Compacted,
    Emergency,
}

impl Tier {
    /// Every tier, in the order of the ladder: the TypeScript `Tier` union is
    /// written from this list (examples/ts_lists.rs).
    pub const ALL: [Tier; 4] = [Tier::None, Tier::Pruned, Tier::Compacted, Tier::Emergency];

    pub fn name(self) -> &'static str {
        match self {
            Tier::None => "none",
            Tier::Pruned => "pruned",
            Tier::Compacted => "compacted",
            Tier::Emergency => "emergency",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Next {
    /// The effective history fits as it is: send it.
    Fits(String),
    /// The pruned history fits: send that.
    Pruned(String),
    /// Still over budget: summarise.
    Compact,
    /// Over budget and summarising is not allowed: cut.
    Emergency(String),
}

impl Next {
    /// The step's name for `ContextManager`: the tier it ends at, or
    /// `"compact"` when the summary is still to be made.
    pub fn name(&self) -> &'static str {
        match self {
            Next::Fits(_) => Tier::None.name(),
            Next::Pruned(_) => Tier::Pruned.name(),
            Next::Compact => "compact",
            Next::Emergency(_) => Tier::Emergency.name(),
        }
    }

    /// The reason in words (empty for `Compact`, whose reason the plan gives).
    pub fn reason(&self) -> &str {
        match self {
            Next::Fits(reason) | Next::Pruned(reason) | Next::Emergency(reason) => reason,
            Next::Compact => "",
        }
    }
}

/// Where the history stands after the effective history and pruning.
#[derive(Clone, Copy, Debug)]
pub struct Standing {
    /// The estimate of the effective history (with provider usage, if given).
    pub tokens: u64,
    /// The estimate after pruning.
    pub tokens_pruned: u64,
    pub max_tokens: u64,
    /// Compactions already made in this run, and the cap on them.
    pub compactions_in_run: u64,
    pub max_compactions: u64,
    /// A gateway and a model that names one are configured.
    pub has_gateway: bool,
}

/// The step before pruning: `Fits` when the effective history is within the
/// budget as it is; `None` when it must be pruned first (then ask
/// `after_pruning`).
pub fn before_pruning(tokens: u64, max_tokens: u64) -> Option<Next> {
    (tokens <= max_tokens).then(|| {
        Next::Fits(format!(
            "{tokens} estimated tokens are within the budget of {max_tokens}"
        ))
    })
}

/// The step after the free tiers.
pub fn after_pruning(standing: &Standing) -> Next {
    let Standing {
        tokens,
        tokens_pruned,
        max_tokens,
        ..
    } = *standing;
    if let Some(fits) = before_pruning(tokens, max_tokens) {
        return fits;
    }
    if tokens_pruned <= max_tokens {
        return Next::Pruned(format!(
            "pruning old tool results took {tokens} estimated tokens to {tokens_pruned}, within the budget of {max_tokens}"
        ));
    }
    let over = over_budget(tokens_pruned, max_tokens);
    if !standing.has_gateway {
        return Next::Emergency(format!(
            "{over}, and no gateway and model are configured to summarise with"
        ));
    }
    if standing.compactions_in_run >= standing.max_compactions {
        return Next::Emergency(format!(
            "{over}, and this run already compacted {} times (maxCompactionsPerRun is {})",
            standing.compactions_in_run, standing.max_compactions
        ));
    }
    Next::Compact
}

/// The words for a history still over budget after pruning.
pub fn over_budget(tokens_pruned: u64, max_tokens: u64) -> String {
    format!("{tokens_pruned} estimated tokens after pruning are over the budget of {max_tokens}")
}

/// `None` when a compaction from `before` to `after` tokens cut enough;
/// otherwise why not, in words.
pub fn progress_shortfall(before: u64, after: u64) -> Option<String> {
    let enough = after as f64 * 100.0 <= before as f64 * (100 - MIN_PROGRESS_PERCENT) as f64;
    (!enough).then(|| {
        format!(
            "compacting took {before} estimated tokens only to {after}, less than the {MIN_PROGRESS_PERCENT}% cut required"
        )
    })
}

/// The least room a summary must have in the budget for a compaction to be
/// worth a call.
pub const MIN_SUMMARY_TOKENS: u64 = 256;

/// What a compaction summarises and what it keeps verbatim after the marker.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompactionPlan {
    /// The leading system messages, sent again ahead of the marker.
    pub instructions: usize,
    /// `compact` summarises `effective[..summarise_end]` (it skips the
    /// instructions itself).
    pub summarise_end: usize,
    /// The messages sent verbatim after the marker, in order: the newest
    /// user turn, or its request and its newest steps.
    pub keep: Vec<usize>,
    /// The summary's limit: the configured one, or less when the budget has
    /// less room.
    pub max_summary_tokens: u64,
}

/// Decides a compaction before the summariser is called, from the effective
/// history's estimates. The summary may take at most a quarter of the budget
/// (and what the budget has room for). What follows the marker is the newest
/// user turn when it fits in half the budget beside the instructions and the
/// summary's room;
/// otherwise the turn's request and its newest whole steps that fit there (at
/// least the newest step), and the older steps are summarised with everything
/// before them. `Err` says, in words, why no call could help: no room for a
/// summary, nothing new to summarise, or no way to cut a quarter.
pub fn plan_compaction(
    views: &[MessageView],
    max_tokens: u64,
    max_summary_tokens: u64,
    tokens_before: u64,
) -> Result<CompactionPlan, String> {
    let len = views.len();
    let instructions = cuts::instructions(views);
    let leading = cuts::leading(views);
    let pairs = cuts::Pairs::new(views, leading);
    let turn = cuts::newest_turn_steps(views, leading, &pairs);
    let frame = frame_tokens();
    let fixed = cuts::tokens(views, 0..instructions) + frame;
    let request = cuts::tokens(views, turn.request.clone());
    let newest_step = turn.steps.last().copied().unwrap_or(len);
    let least_kept = request + cuts::tokens(views, newest_step..len);

    let room = max_tokens.saturating_sub(fixed + least_kept);
    if room < MIN_SUMMARY_TOKENS {
        return Err(format!(
            "the leading system messages, the newest request and its newest step ({} estimated tokens with the marker's frame) leave {room} of the budget of {max_tokens} for a summary, less than {MIN_SUMMARY_TOKENS}",
            fixed + least_kept
        ));
    }
    // A summary of at most a quarter of the budget leaves the rest to the
    // messages kept verbatim and to the turns that come next.
    let cap = max_summary_tokens
        .min(room)
        .min((max_tokens / 4).max(MIN_SUMMARY_TOKENS));
    let target = (max_tokens / 2).saturating_sub(fixed + cap);

    // Keeping the whole newest turn summarises only what came before it: it
    // must fit, and there must be something new before it.
    let new_before = |end: usize| (instructions..end).any(|index| !views[index].is_marker);
    let whole_turn = turn.request.start;
    let keep_whole = cuts::tokens(views, whole_turn..len) <= target && new_before(whole_turn)
        || turn.steps.is_empty();
    // What is kept verbatim, in order: from `summarise_end` on, after the
    // turn's request when the cut is inside the turn. Here and for
    // `replaced`, loops rather than collects of iterator adapters: 0.6 KB of
    // the gzipped module less.
    let (summarise_end, request_kept) = if keep_whole {
        (whole_turn, 0..0)
    } else {
        let keep_from = cuts::oldest_fitting(views, &turn.steps, request, |t| t <= target)
            .unwrap_or(newest_step);
        (keep_from, turn.request.clone())
    };
    let mut keep = Vec::new();
    for index in request_kept {
        keep.push(index);
    }
    for index in summarise_end..len {
        keep.push(index);
    }

    // What the marker replaces: everything summarised that is not also kept
    // (`keep` is in order).
    let mut replaced = Vec::new();
    for index in instructions..summarise_end {
        if keep.binary_search(&index).is_err() {
            replaced.push(index);
        }
    }
    if !replaced.iter().any(|&index| !views[index].is_marker) {
        return Err(if turn.steps.is_empty() {
            "there is nothing before the newest user turn to summarise, and it has no steps yet"
                .to_string()
        } else {
            "there is nothing to summarise: nothing new came before the newest user turn, and its steps are all kept"
                .to_string()
        });
    }
    let summarised: u64 = replaced.iter().map(|&index| views[index].tokens).sum();
    if summarised <= frame {
        return Err(format!(
            "what would be summarised is estimated at {summarised} tokens, no more than a marker's own frame ({frame})"
        ));
    }
    let least_after = fixed + keep.iter().map(|&index| views[index].tokens).sum::<u64>();
    if let Some(shortfall) = progress_shortfall(tokens_before, least_after) {
        return Err(format!("even an empty summary falls short: {shortfall}"));
    }
    Ok(CompactionPlan {
        instructions,
        summarise_end,
        keep,
        max_summary_tokens: cap,
    })
}

impl CompactionPlan {
    /// What the compaction did, in words; `cut` when the emergency cut was
    /// applied to its result.
    pub fn reason(&self, cut: bool) -> String {
        // What the marker replaces: the request of a mid-turn compaction is
        // summarised for context but also kept.
        let summarised = (self.instructions..self.summarise_end)
            .filter(|index| self.keep.binary_search(index).is_err())
            .count();
        let mut reason = if self.keep.first() == Some(&self.summarise_end) {
            format!("summarised {summarised} messages before the newest user turn into a marker")
        } else {
            let steps_kept = self
                .keep
                .iter()
                .rev()
                .take_while(|&&i| i >= self.summarise_end)
                .count();
            format!(
                "summarised {summarised} messages, the newest user turn's older steps among them, into a marker; \
                 its request and its newest {steps_kept} messages follow the marker verbatim"
            )
        };
        if cut {
            reason.push_str(
                "; the result was still over budget, so the emergency cut was applied to it",
            );
        }
        reason
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn standing(tokens: u64, tokens_pruned: u64) -> Standing {
        Standing {
            tokens,
            tokens_pruned,
            max_tokens: 1_000,
            compactions_in_run: 0,
            max_compactions: 2,
            has_gateway: true,
        }
    }

    #[test]
    fn the_free_tiers_come_first() {
        assert!(
            matches!(after_pruning(&standing(1_000, 1_000)), Next::Fits(r) if r.contains("within the budget of 1000"))
        );
        assert!(
            matches!(after_pruning(&standing(5_000, 900)), Next::Pruned(r) if r.starts_with("pruning"))
        );
        assert_eq!(after_pruning(&standing(5_000, 1_001)), Next::Compact);
    }

    #[test]
    fn no_gateway_or_the_run_cap_means_the_emergency_cut() {
        let mut s = standing(5_000, 4_000);
        s.has_gateway = false;
        assert!(matches!(after_pruning(&s), Next::Emergency(r) if r.contains("no gateway")));
        let mut s = standing(5_000, 4_000);
        s.compactions_in_run = 2;
        assert!(
            matches!(after_pruning(&s), Next::Emergency(r) if r.contains("already compacted 2 times"))
        );
        s.max_compactions = 0;
        s.compactions_in_run = 0;
        assert!(matches!(after_pruning(&s), Next::Emergency(_)));
    }

    #[test]
    fn a_compaction_must_cut_a_quarter() {
        assert_eq!(progress_shortfall(1_000, 750), None);
        assert!(progress_shortfall(1_000, 751).unwrap().contains("25%"));
        assert!(progress_shortfall(0, 0).is_none());
        assert!(progress_shortfall(1 << 53, 1 << 53).is_some());
    }

    fn long_task_views(steps: usize, tokens_per_step: u64) -> Vec<MessageView> {
        use crate::view::Role;
        let message = |role, tokens| MessageView {
            tokens,
            starts_user_turn: role == Role::User,
            ..MessageView::empty(role)
        };
        let mut views = vec![message(Role::System, 300), message(Role::User, 50)];
        for step in 0..steps {
            let id = format!("c{step}");
            let mut call = message(Role::Assistant, 20);
            call.opens.push(id.clone());
            let mut result = message(Role::Tool, tokens_per_step);
            result.answers.push(id);
            views.extend([call, result]);
        }
        views
    }

    #[test]
    fn a_single_long_task_is_compacted_mid_turn() {
        let views = long_task_views(50, 500);
        let total: u64 = views.iter().map(|v| v.tokens).sum();
        let plan = plan_compaction(&views, 10_000, 4_096, total).unwrap();
        assert_eq!(plan.instructions, 1);
        // The request stays, then the newest steps that fit in half the
        // budget beside the system prompt, the frame and a 2,500-token summary.
        assert_eq!(plan.max_summary_tokens, 2_500);
        assert_eq!(plan.keep[0], 1, "the request verbatim");
        let steps_kept = plan.keep.len() - 1;
        assert!(
            steps_kept >= 2 && steps_kept.is_multiple_of(2),
            "{steps_kept}"
        );
        assert_eq!(plan.summarise_end, views.len() - steps_kept);
        assert!(plan.reason(false).contains("older steps"));
    }

    #[test]
    fn no_call_is_planned_that_cannot_help() {
        // Only the request and one step: nothing to summarise.
        let views = long_task_views(1, 500);
        let why = plan_compaction(&views, 600, 4_096, 870).unwrap_err();
        assert!(why.contains("leave"), "{why}");
        let why = plan_compaction(&views, 100_000, 4_096, 870).unwrap_err();
        assert!(why.contains("nothing to summarise"), "{why}");
        // A tiny history before the newest turn: less than a frame.
        let mut views = long_task_views(0, 0);
        views.push(MessageView {
            tokens: 30,
            starts_user_turn: true,
            ..MessageView::empty(crate::view::Role::User)
        });
        let why = plan_compaction(&views, 100_000, 4_096, 380).unwrap_err();
        assert!(why.contains("frame"), "{why}");
    }
}

//! The ladder's decisions, made from token counts: whether a history is
//! within budget, whether to summarise or cut, and whether a summary made
//! enough progress. `ContextManager` (js/context-manager.ts) runs the tiers
//! and asks these at each step; the reasons are the words it reports.

/// A compaction must cut the estimate by at least this share, or the ladder
/// falls through to the emergency cut (a summary that saves little would be
/// redone on the next call, in a loop).
pub const MIN_PROGRESS_PERCENT: u64 = 25;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Next {
    /// The messages fit: send them.
    Done(String),
    /// Still over budget: summarise.
    Compact,
    /// Over budget and summarising is not allowed: cut.
    Emergency(String),
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
    pub has_gateway: bool,
}

/// The step after the free tiers.
pub fn after_pruning(standing: &Standing) -> Next {
    let Standing {
        tokens,
        tokens_pruned,
        max_tokens,
        ..
    } = *standing;
    if tokens <= max_tokens {
        return Next::Done(format!(
            "{tokens} estimated tokens are within the budget of {max_tokens}"
        ));
    }
    if tokens_pruned <= max_tokens {
        return Next::Done(format!(
            "pruning old tool results took {tokens} estimated tokens to {tokens_pruned}, within the budget of {max_tokens}"
        ));
    }
    let over = format!(
        "{tokens_pruned} estimated tokens after pruning are over the budget of {max_tokens}"
    );
    if !standing.has_gateway {
        return Next::Emergency(format!(
            "{over}, and no gateway is configured to summarise with"
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
            matches!(after_pruning(&standing(1_000, 1_000)), Next::Done(r) if r.contains("within the budget of 1000"))
        );
        assert!(
            matches!(after_pruning(&standing(5_000, 900)), Next::Done(r) if r.starts_with("pruning"))
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
}

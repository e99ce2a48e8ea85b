//! The budget check and the effective history: what the model is sent starts
//! at the newest compaction summary.

use crate::view::MessageView;

tag!(
    /// The `name` that tags a system message as a compaction summary; spelled
    /// as a tag (`MARKER_OPEN`), it starts the first text of the marker of
    /// the formats whose providers refuse unknown fields. The name stays the
    /// same in every format.
    COMPACTION_MARKER_NAME,
    MARKER_OPEN,
    MARKER_CLOSE = "kram:compaction_summary"
);

/// The budget used when the caller names none.
pub const DEFAULT_MAX_TOKENS: u64 = 60_000;

/// The sum of the messages' estimates.
pub fn total_tokens(views: &[MessageView]) -> u64 {
    views.iter().map(|view| view.tokens).sum()
}

/// Whether the estimate is over the budget. `max_tokens` is checked by the
/// caller (`error::check_budget`).
pub fn needs_compaction(views: &[MessageView], max_tokens: f64) -> bool {
    total_tokens(views) as f64 > max_tokens
}

/// Where the effective history starts: at the newest compaction marker, or at
/// 0 when there is none.
pub fn effective_start(views: &[MessageView]) -> usize {
    views.iter().rposition(|view| view.is_marker).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::view::Role;

    fn message(role: Role, is_marker: bool, tokens: u64) -> MessageView {
        MessageView {
            role,
            starts_user_turn: role == Role::User,
            is_marker,
            tokens,
            opens: vec![],
            answers: vec![],
            tool_results: vec![],
            carried_reasoning: false,
            earlier_step_results: 0,
        }
    }

    #[test]
    fn effective_history_starts_at_the_newest_marker() {
        let views = vec![
            message(Role::User, false, 5),
            message(Role::System, true, 5),
            message(Role::User, false, 5),
            message(Role::System, true, 5),
            message(Role::User, false, 5),
        ];
        assert_eq!(effective_start(&views), 3);
        assert_eq!(effective_start(&views[..3]), 1);
        assert_eq!(effective_start(&views[..1]), 0);
    }

    #[test]
    fn needs_compaction_is_strictly_over_the_budget() {
        let views = vec![
            message(Role::User, false, 10),
            message(Role::User, false, 10),
        ];
        assert!(!needs_compaction(&views, 20.0));
        assert!(needs_compaction(&views, 19.5));
    }
}

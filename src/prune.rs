//! The two cuts: `prune_plan`, the cheap structural first pass that clears old
//! tool output, and `emergency_cut`, the fallback that drops old turns (and,
//! when the newest turn alone is over, its older steps).

use std::ops::Range;

use crate::cuts::{self, Pairs};
use crate::view::{Edit, MessageView, ToolResult};

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
    /// The budget the pruned history is for: when clearing before the
    /// protected turns leaves it over, the protected tail shrinks to the
    /// newest step. `None` keeps the protected turns whole.
    pub max_tokens: Option<f64>,
}

impl Default for PruneOptions {
    fn default() -> Self {
        PruneOptions {
            protect_turns: 2,
            protect_tokens: 40_000.0,
            minimum_savings: 20_000.0,
            placeholder: DEFAULT_PLACEHOLDER.to_string(),
            max_tokens: None,
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

/// Which tool-result payloads to clear. Walking back from the protected tail
/// (the newest `protect_turns` user turns), results stay whole while the
/// running total of tool output, each result included, is at most
/// `protect_tokens`; the rest are cleared, and only when they add up to at
/// least `minimum_savings`. Results already cleared neither count nor
/// change. The marker and non-tool messages are never touched.
///
/// With `max_tokens`, when the history pruned so is still over it, the
/// protected tail shrinks to the newest step (the newest model response and
/// its results, or the newest user message if it came after; in a UI message
/// that holds a whole agent response, its newest step): the same rule then
/// reaches into the protected turns, which is what a single long task (one
/// request, then a long tool loop) needs.
pub fn prune_plan(views: &[MessageView], options: &PruneOptions) -> Vec<Edit> {
    let by_turns = protected_from(views, options.protect_turns);
    let plan = clear_before(views, by_turns, options, false);
    let Some(max_tokens) = options.max_tokens else {
        return plan.edits;
    };
    let newest_step = cuts::newest_step(views);
    let inner = views[newest_step.min(views.len())..]
        .iter()
        .any(|view| view.earlier_step_results > 0);
    if (newest_step <= by_turns && !inner) || plan.tokens_after(views, options) as f64 <= max_tokens
    {
        return plan.edits;
    }
    clear_before(views, newest_step, options, true).edits
}

/// The payloads to clear, and the tokens they hold.
struct Clearing {
    edits: Vec<Edit>,
    savings: u64,
}

impl Clearing {
    /// The estimate of the history once cleared: each payload becomes the
    /// placeholder.
    fn tokens_after(&self, views: &[MessageView], options: &PruneOptions) -> u64 {
        let placeholder = crate::estimate::text_tokens(&options.placeholder);
        cuts::tokens(views, 0..views.len()) - self.savings + placeholder * self.edits.len() as u64
    }
}

/// The payloads to clear before `tail`; with `inner_steps`, also those of
/// the earlier steps of the messages from `tail` on (a UI message holds a
/// whole agent response), which count first, being the newest.
fn clear_before(
    views: &[MessageView],
    tail: usize,
    options: &PruneOptions,
    inner_steps: bool,
) -> Clearing {
    let mut walk = ClearingWalk::default();
    for index in (0..views.len()).rev() {
        let view = &views[index];
        let results = match (index < tail, inner_steps) {
            (true, _) => &view.tool_results[..],
            (false, true) => &view.tool_results[..view.earlier_step_results],
            (false, false) => &[],
        };
        walk.visit(index, view.is_marker, results, options);
    }
    walk.finish(options)
}

/// The walk of `clear_before`, from the newest message back: results stay
/// whole while the running total of tool output is at most `protect_tokens`,
/// and are cleared after.
#[derive(Default)]
struct ClearingWalk {
    running: u64,
    savings: u64,
    /// Newest first.
    edits: Vec<Edit>,
}

impl ClearingWalk {
    /// Walks the message at `index`, of which `results` may be cleared
    /// (none of a marker's).
    fn visit(
        &mut self,
        index: usize,
        is_marker: bool,
        results: &[ToolResult],
        options: &PruneOptions,
    ) {
        if is_marker {
            return;
        }
        for result in results.iter().rev() {
            if result.cleared {
                continue;
            }
            self.running += result.tokens;
            if self.running as f64 > options.protect_tokens {
                self.savings += result.tokens;
                self.edits.push(Edit {
                    message: index,
                    path: result.path,
                    replacement: result.replacement,
                });
            }
        }
    }

    /// Whether every older result will be cleared, whatever it holds: the
    /// protected output is spent and the minimum saving reached.
    fn decided(&self, options: &PruneOptions) -> bool {
        self.running as f64 > options.protect_tokens
            && self.savings as f64 >= options.minimum_savings
    }

    /// The payloads to clear, in history order; none when they save less
    /// than `minimum_savings`.
    fn finish(mut self, options: &PruneOptions) -> Clearing {
        if self.edits.is_empty() || (self.savings as f64) < options.minimum_savings {
            return Clearing {
                edits: Vec::new(),
                savings: 0,
            };
        }
        self.edits.reverse();
        Clearing {
            edits: self.edits,
            savings: self.savings,
        }
    }
}

/// `prune_plan` without a budget over a history read newest first: the
/// newest run (`walk`), then the older messages one by one, each user turn
/// passed until the protected tail is found (`pass_user_turn`), then each
/// message's results (`walk_older`); once the walk is decided, their
/// results are cleared whatever their estimates (they may be read without
/// them).
pub struct NewestFirstPruning<'a> {
    options: &'a PruneOptions,
    turns_seen: usize,
    /// Whether the walk has passed the protected tail's first message.
    past_tail: bool,
    walk: ClearingWalk,
}

impl<'a> NewestFirstPruning<'a> {
    /// `None` when the options need the whole history (a budget).
    pub fn new(options: &'a PruneOptions) -> Option<Self> {
        options.max_tokens.is_none().then_some(NewestFirstPruning {
            options,
            turns_seen: 0,
            past_tail: options.protect_turns == 0,
            walk: ClearingWalk::default(),
        })
    }

    /// Walks `views`, the history's messages from `start` on, to where the
    /// run walked before began.
    pub fn walk(&mut self, views: &[MessageView], start: usize) {
        for (offset, view) in views.iter().enumerate().rev() {
            if !self.past_tail {
                if view.starts_user_turn {
                    self.pass_user_turn();
                }
                continue;
            }
            self.walk.visit(
                start + offset,
                view.is_marker,
                &view.tool_results,
                self.options,
            );
        }
    }

    /// Passes a message that starts a user turn, inside the protected
    /// tail: the tail starts at the `protect_turns`-th newest user turn
    /// (`protected_from`).
    pub fn pass_user_turn(&mut self) {
        self.turns_seen += 1;
        self.past_tail = self.turns_seen == self.options.protect_turns;
    }

    /// Whether the walk has passed the protected tail: from there on, of a
    /// message only its results matter (`walk_older`).
    pub fn past_tail(&self) -> bool {
        self.past_tail
    }

    /// Walks an older message once the walk has passed the protected tail:
    /// of it, only whether it is a marker and its results matter (their
    /// estimates only until the walk is decided).
    /// Answers whether it cleared some of the message's results and kept
    /// others (the one message where the protected output runs out).
    pub fn walk_older(&mut self, index: usize, is_marker: bool, results: &[ToolResult]) -> bool {
        debug_assert!(self.past_tail);
        let before = self.walk.edits.len();
        self.walk.visit(index, is_marker, results, self.options);
        let cleared = self.walk.edits.len() - before;
        cleared > 0 && cleared < results.iter().filter(|result| !result.cleared).count()
    }

    /// The edits of the walk so far, newest first.
    pub fn edits_so_far(&self) -> &[Edit] {
        &self.walk.edits
    }

    pub fn decided(&self) -> bool {
        self.walk.decided(self.options)
    }

    pub fn edits(self) -> Vec<Edit> {
        self.walk.finish(self.options).edits
    }
}

/// The emergency cut: keep the first `leading` messages, then `request`,
/// then everything from `keep_from` on. A cut at a turn boundary has an
/// empty `request`; a cut inside the newest turn keeps its request and its
/// newest steps.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cut {
    pub leading: usize,
    pub request: Range<usize>,
    pub keep_from: usize,
}

impl Cut {
    /// The kept indexes of a history of `len` messages, as ranges in order.
    pub fn ranges(&self, len: usize) -> [Range<usize>; 3] {
        [0..self.leading, self.request.clone(), self.keep_from..len]
    }

    /// The kept indexes, in order.
    pub fn kept(&self, len: usize) -> impl Iterator<Item = usize> {
        self.ranges(len).into_iter().flatten()
    }

    /// The cut in the indexes of a history of which `views` held the
    /// leading messages and then, from `start` on, its newest ones.
    fn of_window(self, start: usize) -> Cut {
        let shift = |index: usize| index - self.leading + start;
        Cut {
            leading: self.leading,
            request: shift(self.request.start)..shift(self.request.end),
            keep_from: shift(self.keep_from),
        }
    }
}

/// The leading system messages (the marker among them, and unknown
/// system-like roles), then the newest whole user turns that fit within
/// `max_tokens` with them. When even the newest turn does not fit, the cut
/// falls inside it: its request, then the newest whole steps that fit. Cuts
/// only where no tool call is open across the cut, so a call always stays
/// with its results. Never keeps less than the leading messages, the newest
/// turn's request and its newest step.
pub fn emergency_cut(views: &[MessageView], max_tokens: f64) -> Cut {
    let leading = cuts::leading(views);
    // A whole history always decides; the fallback keeps everything.
    cut_of(views, leading, max_tokens, true).unwrap_or(Cut {
        leading,
        request: leading..leading,
        keep_from: leading,
    })
}

/// `emergency_cut` of a history read newest first: `views` holds its first
/// `leading` messages (the leading system messages), then its messages from
/// `start` on; those between were not read. `None` when what was read does
/// not decide the cut as the whole history would: everything read fits, or
/// a cut the rule would take may have a tool call among the unread messages.
pub fn emergency_cut_of_window(
    views: &[MessageView],
    leading: usize,
    start: usize,
    max_tokens: f64,
) -> Option<Cut> {
    cut_of(views, leading, max_tokens, false).map(|cut| cut.of_window(start))
}

/// The emergency cut of a `whole` history, or of one read newest first
/// (see `emergency_cut_of_window`).
fn cut_of(views: &[MessageView], leading: usize, max_tokens: f64, whole: bool) -> Option<Cut> {
    let len = views.len();
    let pairs = Pairs::new(views, leading);
    let leading_tokens = cuts::tokens(views, 0..leading);
    let fits = |tokens: u64| tokens as f64 <= max_tokens;
    let whole_from = |keep_from| Cut {
        leading,
        request: leading..leading,
        keep_from,
    };
    // A result at or after `index` whose call was not read may answer a call
    // among the unread messages, which would hold a cut there open.
    let unsure = |index: usize| !whole && pairs.unanswered_from(index);
    let can_cut = |index: usize| views[index].starts_user_turn && pairs.closed(index);

    // Walk back over turn starts, keeping the oldest one that still fits.
    // Once the messages walked over are over the budget, no older cut fits.
    let mut kept_tokens = leading_tokens;
    let mut keep_from = None;
    let mut over = false;
    for index in (leading..len).rev() {
        kept_tokens += views[index].tokens;
        if !fits(kept_tokens) {
            over = true;
            break;
        }
        if can_cut(index) || (whole && index == leading) {
            if unsure(index) {
                return None;
            }
            keep_from = Some(index);
        }
    }
    if !over && !whole {
        return None;
    }
    if let Some(keep_from) = keep_from {
        return Some(whole_from(keep_from));
    }

    // Not even the newest turn fits: keep its request and the newest steps
    // that fit, at least the newest one.
    let turn = cuts::newest_turn_steps(views, leading, &pairs);
    // An empty request: no user turn was found (a found one starts with
    // the user's message, before any step).
    if !whole && (turn.request.is_empty() || unsure(turn.request.start)) {
        return None;
    }
    let Some(&newest_step) = turn.steps.last() else {
        return Some(whole_from(turn.request.start));
    };
    let fixed = leading_tokens + cuts::tokens(views, turn.request.clone());
    let keep_from = cuts::oldest_fitting(views, &turn.steps, fixed, fits).unwrap_or(newest_step);
    if keep_from == turn.request.end {
        return Some(whole_from(turn.request.start));
    }
    Some(Cut {
        leading,
        request: turn.request,
        keep_from,
    })
}

#[cfg(test)]
mod tests;

//! Where a history can be cut: the leading system messages, user turns, the
//! steps inside a turn, and whether a cut keeps every tool call with its
//! results. Pruning, the emergency cut and the compaction plan all cut at
//! these places, so they agree on what a turn and a step are.
//!
//! - A **user turn** starts at a message of the user's own words (a user
//!   message carrying only tool results does not start one).
//! - A **step** is one model response and what answers it: it starts at an
//!   assistant message (a reasoning item, a tool call, text) that follows a
//!   message of another role, and runs to the next such message. An
//!   assistant message with its tool calls and all their results is one step.
//! - The **request** of a turn is its messages before its first step.

use std::hash::Hasher;
use std::ops::Range;

use crate::util::hash::Fnv1a;
use crate::view::{MessageView, Role};

/// The messages the provider reads as instructions before the conversation:
/// the contiguous run of system and system-like messages at the start, not
/// counting a compaction marker or anything after one. They are never
/// summarised, and `effectiveHistory` sends them first.
pub fn instructions(views: &[MessageView]) -> usize {
    views
        .iter()
        .take_while(|view| is_system(view) && !view.is_marker)
        .count()
}

/// The effective history as bounds: the number of instructions, and where
/// it goes on from (`all[..instructions]` then `all[start..]`).
pub fn effective_bounds(views: &[MessageView]) -> (usize, usize) {
    let instructions = instructions(views);
    let start = crate::history::effective_start(views).max(instructions);
    (instructions, start)
}

/// The leading system messages of an effective history, the marker among
/// them: what the emergency cut always keeps.
pub fn leading(views: &[MessageView]) -> usize {
    views.iter().take_while(|view| is_system(view)).count()
}

fn is_system(view: &MessageView) -> bool {
    matches!(view.role, Role::System | Role::Other)
}

/// Whether a step starts at `index`: an assistant message after a message of
/// another role (or at the start).
pub fn starts_step(views: &[MessageView], index: usize) -> bool {
    views[index].role == Role::Assistant && (index == 0 || views[index - 1].role != Role::Assistant)
}

/// The newest user turn's start, `None` when no message starts one.
pub fn newest_turn(views: &[MessageView]) -> Option<usize> {
    views.iter().rposition(|view| view.starts_user_turn)
}

/// Where each message stands for a cut that drops the messages between the
/// first `leading` ones and it.
pub struct Pairs {
    /// `closed[i]`: dropping `leading..i` keeps every tool call with its
    /// results: no call is dropped whose result is kept, and no call kept in
    /// the leading messages loses its result.
    closed: Vec<bool>,
    /// The newest answer after the leading messages with no call before it.
    newest_unanswered: Option<usize>,
}

impl Pairs {
    /// An answer pairs with the newest call of its id before it (ids are
    /// reused in real transcripts); an answer with no call before it is an
    /// orphan already and constrains nothing, nor does a call never answered.
    pub fn new(views: &[MessageView], leading: usize) -> Pairs {
        let mut opened_at =
            OpenedAt::with_room_for(views.iter().map(|view| view.opens.len()).sum());
        // The oldest call after the leading messages that each message answers.
        let mut oldest_answered = vec![usize::MAX; views.len()];
        // The first result, after them, of a call made in the leading messages.
        let mut first_leading_result = usize::MAX;
        let mut newest_unanswered = None;
        for (index, view) in views.iter().enumerate() {
            for id in &view.answers {
                let Some(opener) = opened_at.get(id) else {
                    if index >= leading {
                        newest_unanswered = Some(index);
                    }
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
        let mut closed = vec![true; views.len()];
        let mut oldest = usize::MAX;
        for index in (0..views.len()).rev() {
            oldest = oldest.min(oldest_answered[index]);
            closed[index] = oldest >= index && index <= first_leading_result;
        }
        Pairs {
            closed,
            newest_unanswered,
        }
    }

    /// Whether an answer at or after `index` has no call before it: an
    /// orphan in a whole history, and in one read newest first maybe the
    /// answer to a call that was not read.
    pub fn unanswered_from(&self, index: usize) -> bool {
        self.newest_unanswered.is_some_and(|newest| newest >= index)
    }

    /// Whether a cut may drop everything between the leading messages and
    /// `index`.
    pub fn closed(&self, index: usize) -> bool {
        self.closed.get(index).copied().unwrap_or(true)
    }
}

/// The message that made each call id, the newest where ids repeat: a
/// table of its own rather than a `HashMap<&str, usize>`, whose generic
/// code (insert, growth, lookup) cost the module 1.7 KB (0.9 KB gzipped)
/// for this one use. Sized once for every id of the history, at most half full, so it
/// never grows and a search always ends at an empty slot.
struct OpenedAt<'a> {
    /// Each id in the slot its FNV-1a hash picks, or the next free one.
    slots: Vec<Option<(&'a str, usize)>>,
}

impl<'a> OpenedAt<'a> {
    fn with_room_for(ids: usize) -> OpenedAt<'a> {
        OpenedAt {
            slots: vec![None; (2 * ids + 1).next_power_of_two()],
        }
    }

    /// The slot that holds `id`, or the empty slot where it would go.
    fn slot(&self, id: &str) -> usize {
        let mut hasher = Fnv1a::default();
        hasher.write(id.as_bytes());
        let mask = self.slots.len() - 1;
        let mut slot = hasher.finish() as usize & mask;
        while let Some((held, _)) = self.slots[slot] {
            if held == id {
                break;
            }
            slot = (slot + 1) & mask;
        }
        slot
    }

    fn get(&self, id: &str) -> Option<usize> {
        self.slots[self.slot(id)].map(|(_, index)| index)
    }

    fn insert(&mut self, id: &'a str, index: usize) {
        let slot = self.slot(id);
        self.slots[slot] = Some((id, index));
    }
}

/// The newest user turn cut into its request and its steps.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Turn {
    /// The turn's messages before its first step (the user's request).
    pub request: Range<usize>,
    /// Where each step a cut may start at begins, oldest first: steps after
    /// the request whose calls all have their results inside the step or
    /// later.
    pub steps: Vec<usize>,
}

/// The newest turn of a history (from the newest user turn that a cut may
/// start at; the whole history after the leading messages, with an empty
/// request, when there is none), with the steps a cut inside it may keep
/// from.
pub fn newest_turn_steps(views: &[MessageView], leading: usize, pairs: &Pairs) -> Turn {
    let turn = (leading..views.len())
        .rev()
        .find(|&index| views[index].starts_user_turn && pairs.closed(index));
    let start = turn.unwrap_or(leading);
    let first_step = (start..views.len())
        .find(|&index| starts_step(views, index))
        .unwrap_or(views.len());
    // Without a user turn there is no request to keep.
    let request_end = if turn.is_some() { first_step } else { start };
    // The request is kept: a cut may not drop the result of a call made in
    // it (a user message with a tool call is malformed, but read). Here and
    // for the steps below, a loop rather than a collect of iterator
    // adapters: 0.3 KB of the gzipped module less.
    let mut request_calls: Vec<&String> = Vec::new();
    for view in &views[start..request_end] {
        for id in &view.opens {
            request_calls.push(id);
        }
    }
    // Its first result pairs with it as `Pairs` pairs them: an id called
    // again after the request answers the newer call from then on.
    let mut first_request_answer = views.len();
    for (index, view) in views.iter().enumerate().skip(request_end) {
        if view.answers.iter().any(|id| request_calls.contains(&id)) {
            first_request_answer = index;
            break;
        }
        request_calls.retain(|id| !view.opens.contains(id));
    }
    let mut steps = Vec::new();
    for index in first_step..views.len() {
        if starts_step(views, index) && pairs.closed(index) && index <= first_request_answer {
            steps.push(index);
        }
    }
    Turn {
        request: start..request_end,
        steps,
    }
}

/// The sum of the messages' estimates in a range.
pub fn tokens(views: &[MessageView], range: Range<usize>) -> u64 {
    views[range].iter().map(|view| view.tokens).sum()
}

/// Where the newest step starts: the newest model response and what answers
/// it, or the newest user message when it came after; the history's length
/// when it has neither.
pub fn newest_step(views: &[MessageView]) -> usize {
    let step = (0..views.len())
        .rev()
        .find(|&index| starts_step(views, index));
    let turn = newest_turn(views);
    match (step, turn) {
        (Some(step), Some(turn)) => step.max(turn),
        (step, turn) => step.or(turn).unwrap_or(views.len()),
    }
}

/// The oldest of `starts` (indexes in order) from which the messages to the
/// end, with `fixed` more tokens, still `fit`; `None` when even the newest
/// does not. One pass back over the messages.
pub fn oldest_fitting(
    views: &[MessageView],
    starts: &[usize],
    fixed: u64,
    fits: impl Fn(u64) -> bool,
) -> Option<usize> {
    let mut total = fixed;
    let mut end = views.len();
    let mut found = None;
    for &start in starts.iter().rev() {
        total += tokens(views, start..end);
        end = start;
        if !fits(total) {
            break;
        }
        found = Some(start);
    }
    found
}

#[cfg(test)]
mod tests {
    use super::OpenedAt;

    #[test]
    fn opened_at_answers_as_a_map_does() {
        let ids: Vec<String> = (0..300).map(|i| format!("call_{}", i % 120)).collect();
        let mut table = OpenedAt::with_room_for(ids.len());
        let mut map = std::collections::HashMap::new();
        for (index, id) in ids.iter().enumerate() {
            assert_eq!(table.get(id), map.get(id.as_str()).copied());
            table.insert(id, index);
            map.insert(id.as_str(), index);
        }
        for id in ["call_0", "call_119", "call_120", ""] {
            assert_eq!(table.get(id), map.get(id).copied(), "{id}");
        }
        assert_eq!(OpenedAt::with_room_for(0).get("call_0"), None);
    }
}

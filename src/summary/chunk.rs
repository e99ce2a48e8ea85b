//! Chunk planning: which entries go into which request, so that every request
//! stays within its budget however long the history is. Chunks hold whole
//! turns where they fit, whole messages where one turn alone is too big, and
//! are summarised oldest first.

use std::ops::Range;

/// Splits entries of the given estimates (thousandths of a token, each at
/// most `budget`) into consecutive ranges. The first chunk may hold up to
/// `first_budget`, every later one up to `budget`. A chunk ends before an
/// entry that starts a turn unless a turn alone is over the budget.
pub fn plan(
    milli: &[u64],
    starts_turn: &[bool],
    first_budget: u64,
    budget: u64,
) -> Vec<Range<usize>> {
    let mut chunks = Vec::new();
    let mut start = 0;
    let mut used = 0;
    let mut cap = first_budget;
    for turn in turns(starts_turn) {
        let size: u64 = milli[turn.clone()].iter().sum();
        if used + size <= cap {
            used += size;
            continue;
        }
        if used > 0 {
            chunks.push(start..turn.start);
            start = turn.start;
            used = 0;
            cap = budget;
        }
        if size <= cap {
            used = size;
            continue;
        }
        for index in turn {
            if used + milli[index] > cap && used > 0 {
                chunks.push(start..index);
                start = index;
                used = 0;
                cap = budget;
            }
            used += milli[index];
        }
    }
    if start < milli.len() {
        chunks.push(start..milli.len());
    }
    chunks
}

/// The turns: each starts at an entry that starts a turn (the first one also
/// holds whatever comes before the first user message).
fn turns(starts_turn: &[bool]) -> Vec<Range<usize>> {
    let mut turns = Vec::new();
    let mut start = 0;
    for (index, &starts) in starts_turn.iter().enumerate() {
        if starts && index > start {
            turns.push(start..index);
            start = index;
        }
    }
    if start < starts_turn.len() {
        turns.push(start..starts_turn.len());
    }
    turns
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sizes(chunks: &[Range<usize>], milli: &[u64]) -> Vec<u64> {
        chunks
            .iter()
            .map(|c| milli[c.clone()].iter().sum())
            .collect()
    }

    #[test]
    fn everything_fits_in_one_chunk() {
        let milli = [10, 10, 10];
        assert_eq!(plan(&milli, &[true, false, true], 100, 50), vec![0..3]);
    }

    #[test]
    fn chunks_end_at_turn_boundaries_oldest_first() {
        // Turns of 30, 30, 30, 30 with a budget of 70: two turns a chunk.
        let milli = [10, 20, 10, 20, 10, 20, 10, 20];
        let starts = [true, false, true, false, true, false, true, false];
        let chunks = plan(&milli, &starts, 70, 70);
        assert_eq!(chunks, vec![0..4, 4..8]);
        assert!(chunks.iter().all(|c| starts[c.start]));
    }

    #[test]
    fn the_first_chunk_has_its_own_budget() {
        let milli = [30, 30, 30, 30];
        let starts = [true; 4];
        assert_eq!(plan(&milli, &starts, 90, 60), vec![0..3, 3..4]);
        assert_eq!(plan(&milli, &starts, 30, 60), vec![0..1, 1..3, 3..4]);
    }

    #[test]
    fn a_turn_too_big_for_one_chunk_is_split_by_messages() {
        let milli = [10, 40, 40, 40, 10];
        let starts = [true, false, false, false, true];
        let chunks = plan(&milli, &starts, 60, 60);
        assert_eq!(chunks, vec![0..2, 2..3, 3..5]);
        assert!(sizes(&chunks, &milli).iter().all(|&s| s <= 60));
    }

    #[test]
    fn leading_system_messages_join_the_first_turn() {
        let milli = [5, 5, 5];
        let starts = [false, true, false];
        assert_eq!(turns(&starts), vec![0..1, 1..3]);
        assert_eq!(plan(&milli, &starts, 10, 10), vec![0..1, 1..3]);
    }

    #[test]
    fn every_entry_is_in_exactly_one_chunk() {
        let milli: Vec<u64> = (0..200).map(|i| (i * 37 % 50) + 1).collect();
        let starts: Vec<bool> = (0..200).map(|i| i % 7 == 0).collect();
        let chunks = plan(&milli, &starts, 120, 100);
        let mut next = 0;
        for (i, chunk) in chunks.iter().enumerate() {
            assert_eq!(chunk.start, next);
            assert!(chunk.end > chunk.start);
            let cap = if i == 0 { 120 } else { 100 };
            assert!(milli[chunk.clone()].iter().sum::<u64>() <= cap);
            next = chunk.end;
        }
        assert_eq!(next, 200);
    }
}

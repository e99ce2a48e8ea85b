//! What was learned of each message already read, so that a history read
//! again (the next turn of an agent loop: the same stored messages and a few
//! new ones) reads only its new messages.
//!
//! A message's view depends on the message alone (and on the format, the
//! placeholder and whether sizes are wanted), never on its neighbours, so it
//! can be remembered per message; but for Gemini, whose calls without an id
//! pair with the responses of the next content by position, the view also
//! depends on the message's place, and is reused only in the same place. The caller's side gives each message object
//! a number (the bindings keep them in a JS `WeakMap`); this module keeps what
//! was learned under that number. Entries not used in the last
//! `FORGET_AFTER_CALLS` reads are dropped, so the memo holds about the
//! histories in use and nothing of messages the caller has let go.

use std::hash::Hasher;

use crate::formats::Format;
use crate::util::hash::Fnv1a;
use crate::view::MessageView;

/// Reads after which an entry nobody used is dropped. An agent loop's turn
/// reads its history a few times (estimate, prune, cut), so the messages of
/// the history in use are touched on every turn and stay.
pub const FORGET_AFTER_CALLS: u64 = 16;

/// The number of a message read afresh and not remembered.
pub const NOT_REMEMBERED: u64 = 0;

/// Whole histories kept at most: an agent loop's turn reads a few (the
/// stored history, the pruned one, the one after a compaction).
pub const HISTORIES: usize = 4;

#[derive(Default)]
pub struct Memo {
    entries: Entries,
    histories: Vec<History>,
    /// Reads so far: an entry's `used` is the read that last touched it.
    reads: u64,
}

#[derive(Default)]
struct Entry {
    /// The formats checked against the message (one bit each, by the
    /// format's place in `ALL_FORMATS`), and those it fits.
    checked: u32,
    fits: u32,
    views: Vec<Remembered>,
    used: u64,
}

/// Each remembered message's entry, under its number: a table of its own
/// rather than a `HashMap<u64, Entry>`, whose generic code was the last copy
/// of hashbrown in the module (1.5 KB raw, 1.0 KB gzipped). Open
/// addressing: a number sits in the slot its FNV-1a hash picks, or the next
/// free one after it. At most half the slots are taken, so a search always
/// ends at an empty slot; the table is built again, larger, when it would
/// be fuller, and without the dropped entries when they are dropped.
#[derive(Default)]
struct Entries {
    slots: Vec<Option<(u64, Entry)>>,
    len: usize,
}

impl Entries {
    /// The entry of `number`, made empty when there is none.
    fn entry(&mut self, number: u64) -> &mut Entry {
        if 2 * (self.len + 1) > self.slots.len() {
            self.rebuild(&|_| true);
        }
        let slot = self.slot(number);
        let (_, entry) = self.slots[slot].get_or_insert_with(|| {
            self.len += 1;
            (number, Entry::default())
        });
        entry
    }

    /// The slot that holds `number`, or the empty slot where it would go.
    fn slot(&self, number: u64) -> usize {
        let mut hasher = Fnv1a::default();
        hasher.write_u64(number);
        let mask = self.slots.len() - 1;
        let mut slot = hasher.finish() as usize & mask;
        while let Some((held, _)) = &self.slots[slot] {
            if *held == number {
                break;
            }
            slot = (slot + 1) & mask;
        }
        slot
    }

    /// Builds the table again with the entries `keep` says to keep, at most
    /// a quarter full with one more.
    fn rebuild(&mut self, keep: &dyn Fn(&Entry) -> bool) {
        let old = std::mem::take(&mut self.slots);
        self.len = old
            .iter()
            .flatten()
            .filter(|(_, entry)| keep(entry))
            .count();
        self.slots
            .resize_with((4 * (self.len + 1)).next_power_of_two(), || None);
        for (number, entry) in old.into_iter().flatten() {
            if keep(&entry) {
                let slot = self.slot(number);
                self.slots[slot] = Some((number, entry));
            }
        }
    }

    fn numbers(&self) -> impl Iterator<Item = &u64> {
        self.slots.iter().flatten().map(|(number, _)| number)
    }
}

struct Remembered {
    format: Format,
    sizes: bool,
    placeholder: String,
    /// The message's place, for a format whose views depend on it.
    place: Option<usize>,
    view: MessageView,
}

/// What a read's views depend on besides the messages themselves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadKey {
    /// The format the caller forced, or `None` when it was detected.
    pub forced: Option<Format>,
    pub sizes: bool,
    pub placeholder: String,
}

/// A whole history as it was read, for the next read of a history that
/// begins the same way.
#[derive(Clone, Debug)]
pub struct History {
    pub key: ReadKey,
    /// Each message's number; `NOT_REMEMBERED` never matches.
    pub numbers: Vec<u64>,
    /// After each message, the formats that fit it and every one before it
    /// (one bit each): where detection goes on from. Empty when forced.
    pub candidates: Vec<u32>,
    pub format: Format,
    /// The views as read: reasoning counted in full (see `carried`).
    pub views: Vec<MessageView>,
    /// The views that are reasoning carried back, and their full estimate:
    /// what they count depends on where the newest user turn is.
    pub carried: Vec<(usize, u64)>,
    used: u64,
}

impl History {
    pub fn new(key: ReadKey, numbers: Vec<u64>, format: Format) -> History {
        History {
            key,
            numbers,
            candidates: Vec::new(),
            format,
            views: Vec::new(),
            carried: Vec::new(),
            used: 0,
        }
    }

    /// How many of its first messages are the first of `numbers`.
    fn shared_prefix(&self, numbers: &[u64]) -> usize {
        self.numbers
            .iter()
            .zip(numbers)
            .take_while(|(a, b)| a == b && **a != NOT_REMEMBERED)
            .count()
    }

    /// Keeps only the first `len` messages.
    fn truncate(&mut self, len: usize) {
        self.numbers.truncate(len);
        self.candidates.truncate(len);
        self.views.truncate(len);
        self.carried = self.carried_before(len);
    }

    /// The carried reasoning among its first `len` messages, for both
    /// `truncate` and `prefix`: one loop rather than a `retain` and a
    /// collect of a filter (0.3 KB of the gzipped module).
    fn carried_before(&self, len: usize) -> Vec<(usize, u64)> {
        let mut carried = Vec::new();
        for &(index, tokens) in &self.carried {
            if index < len {
                carried.push((index, tokens));
            }
        }
        carried
    }

    /// A copy of its first `len` messages.
    fn prefix(&self, len: usize) -> History {
        let first = |count: usize| len.min(count);
        History {
            key: self.key.clone(),
            numbers: self.numbers[..first(self.numbers.len())].to_vec(),
            candidates: self.candidates[..first(self.candidates.len())].to_vec(),
            format: self.format,
            views: self.views[..first(self.views.len())].to_vec(),
            carried: self.carried_before(len),
            used: self.used,
        }
    }
}

/// One read of a history through the memo: the number of each message, or
/// `NOT_REMEMBERED` for a message to read afresh (the newest one, which a
/// streaming UI may still be changing in place).
pub struct Recall<'a> {
    pub memo: &'a mut Memo,
    pub numbers: Vec<u64>,
    /// The history this read made, until its views are handed back.
    pending: Option<History>,
    /// The messages before this index were left unread by the caller (they
    /// begin a history read before, see `Memo::shared_prefix`); a read that
    /// needs one of them stops and sets `missed`.
    unread_before: usize,
    pub missed: bool,
}

impl Memo {
    /// How many messages it remembers, per message or in a whole history.
    /// The numbers are marked in a bitmap, not a set: this is only counted
    /// for `HistoryMemo.size`, and a set of its own cost the module 0.2 KB.
    /// The numbers are gathered in loops, not a collect of a chain of
    /// adapters (0.3 KB of the gzipped module).
    pub fn len(&self) -> usize {
        let mut numbers: Vec<u64> = Vec::new();
        for &number in self.entries.numbers() {
            numbers.push(number);
        }
        for history in &self.histories {
            numbers.extend_from_slice(&history.numbers);
        }
        let mut seen = vec![false; numbers.iter().max().map_or(0, |&max| max as usize + 1)];
        for &number in &numbers {
            seen[number as usize] = true;
        }
        // Number 0 is NOT_REMEMBERED, never a message's.
        seen.iter().skip(1).filter(|&&seen| seen).count()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// How many first messages of `numbers` a whole history read before
    /// with these sizes and this placeholder begins with: a read of them
    /// through the memo may leave those unread, since their views are
    /// remembered (see `Recall::leaving_unread`).
    pub fn shared_prefix(&self, numbers: &[u64], sizes: bool, placeholder: &str) -> usize {
        self.histories
            .iter()
            .filter(|history| history.key.sizes == sizes && history.key.placeholder == placeholder)
            .map(|history| history.shared_prefix(numbers))
            .max()
            .unwrap_or(0)
    }

    /// Marks the end of one read: entries and histories unused for
    /// `FORGET_AFTER_CALLS` reads are dropped (entries looked for every
    /// `FORGET_AFTER_CALLS` reads, so a read costs what its own messages cost).
    pub fn finish_read(&mut self) {
        self.reads += 1;
        let oldest = self.reads.saturating_sub(FORGET_AFTER_CALLS);
        self.histories.retain(|history| history.used >= oldest);
        if self.reads.is_multiple_of(FORGET_AFTER_CALLS) {
            self.entries.rebuild(&|entry| entry.used >= oldest);
        }
    }
}

impl<'a> Recall<'a> {
    pub fn new(memo: &'a mut Memo, numbers: Vec<u64>) -> Recall<'a> {
        Recall {
            memo,
            numbers,
            pending: None,
            unread_before: 0,
            missed: false,
        }
    }

    /// A read whose first `count` messages the caller left unread.
    pub fn leaving_unread(mut self, count: usize) -> Recall<'a> {
        self.unread_before = count;
        self
    }

    /// Whether a read that reads messages from `index` on can go ahead; if
    /// not, the read has missed and must be made again with every message.
    pub fn can_read_from(&mut self, index: usize) -> bool {
        self.missed |= index < self.unread_before;
        !self.missed
    }

    /// The whole history read before under `key` that shares the longest
    /// beginning with this one, cut to that beginning. One that shares most
    /// of itself is taken out of the memo (it comes back, grown or cut, with
    /// `keep`); one that parts from this read in its first half is copied up
    /// to there, which is cheap, and stays for the reads it still serves: an
    /// agent loop's stored history, read again next turn, parts from its
    /// pruned copy at the first pruned result. `None` when none shares a
    /// message.
    pub fn take_history(&mut self, key: &ReadKey) -> Option<History> {
        let numbers = &self.numbers;
        let (at, shared) = self
            .memo
            .histories
            .iter()
            .enumerate()
            .filter(|(_, history)| history.key == *key)
            .map(|(at, history)| (at, history.shared_prefix(numbers)))
            .max_by_key(|&(_, shared)| shared)?;
        if shared == 0 {
            return None;
        }
        let history = &self.memo.histories[at];
        if shared * 2 < history.numbers.len() {
            return Some(history.prefix(shared));
        }
        let mut history = self.memo.histories.swap_remove(at);
        history.truncate(shared);
        Some(history)
    }

    /// Holds the history this read made until `keep` hands its views back.
    pub fn set_pending(&mut self, history: History) {
        self.pending = Some(history);
    }

    /// The read's views, handed back once the rules are done with them, so
    /// the next read of a history that begins the same way takes them as
    /// they are. Carried reasoning gets its full estimate back first.
    pub fn keep(&mut self, mut views: Vec<MessageView>) {
        let Some(mut history) = self.pending.take() else {
            return;
        };
        if views.len() != history.numbers.len() {
            return;
        }
        for &(index, tokens) in &history.carried {
            views[index].tokens = tokens;
        }
        history.views = views;
        history.used = self.memo.reads;
        if self.memo.histories.len() >= HISTORIES {
            let oldest = (0..self.memo.histories.len())
                .min_by_key(|&at| self.memo.histories[at].used)
                .unwrap_or(0);
            self.memo.histories.swap_remove(oldest);
        }
        self.memo.histories.push(history);
    }

    fn entry(&mut self, index: usize) -> Option<&mut Entry> {
        let number = self
            .numbers
            .get(index)
            .copied()
            .filter(|&n| n != NOT_REMEMBERED)?;
        let reads = self.memo.reads;
        let entry = self.memo.entries.entry(number);
        entry.used = reads;
        Some(entry)
    }

    /// Whether message `index` fits `format`, if that was checked before.
    pub fn fits(&mut self, index: usize, format: Format) -> Option<bool> {
        let bit = format.bit();
        let entry = self.entry(index)?;
        (entry.checked & bit != 0).then_some(entry.fits & bit != 0)
    }

    pub fn remember_fit(&mut self, index: usize, format: Format, fits: bool) {
        let bit = format.bit();
        if let Some(entry) = self.entry(index) {
            entry.checked |= bit;
            if fits {
                entry.fits |= bit;
            }
        }
    }

    /// The view of message `index` read as `format` before, if it was.
    pub fn view(
        &mut self,
        index: usize,
        format: Format,
        sizes: bool,
        placeholder: &str,
    ) -> Option<MessageView> {
        let place = format.view_depends_on_place().then_some(index);
        let entry = self.entry(index)?;
        entry
            .views
            .iter()
            .find(|r| {
                r.format == format
                    && r.sizes == sizes
                    && r.placeholder == placeholder
                    && r.place == place
            })
            .map(|r| r.view.clone())
    }

    pub fn remember_view(
        &mut self,
        index: usize,
        format: Format,
        sizes: bool,
        placeholder: &str,
        view: &MessageView,
    ) {
        if let Some(entry) = self.entry(index) {
            entry.views.push(Remembered {
                format,
                sizes,
                placeholder: placeholder.to_string(),
                place: format.view_depends_on_place().then_some(index),
                view: view.clone(),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Entries;

    #[test]
    fn entries_keep_each_number_s_entry_through_growth_and_drops() {
        let mut entries = Entries::default();
        for number in 1..=1_000u64 {
            entries.entry(number * 7).used = number;
        }
        for number in 1..=1_000u64 {
            assert_eq!(entries.entry(number * 7).used, number);
        }
        assert_eq!(entries.len, 1_000);
        entries.rebuild(&|entry| entry.used % 2 == 0);
        let mut numbers: Vec<u64> = entries.numbers().copied().collect();
        numbers.sort();
        let even: Vec<u64> = (1..=500).map(|half| half * 14).collect();
        assert_eq!(numbers, even);
        assert_eq!(entries.entry(7).used, 0, "a dropped entry comes back empty");
        assert_eq!(entries.entry(14).used, 2);
    }
}

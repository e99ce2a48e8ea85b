//! What was learned of each message already read, so that a history read
//! again (the next turn of an agent loop: the same stored messages and a few
//! new ones) reads only its new messages.
//!
//! A message's view depends on the message alone (and on the format, the
//! placeholder and whether sizes are wanted), never on its neighbours, so it
//! can be remembered per message. The caller's side gives each message object
//! a number (the bindings keep them in a JS `WeakMap`); this module keeps what
//! was learned under that number. Entries not used in the last
//! `FORGET_AFTER_CALLS` reads are dropped, so the memo holds about the
//! histories in use and nothing of messages the caller has let go.

use std::collections::HashMap;

use crate::formats::Format;
use crate::view::MessageView;

/// Reads after which an entry nobody used is dropped. An agent loop's turn
/// reads its history a few times (estimate, prune, cut), so the messages of
/// the history in use are touched on every turn and stay.
pub const FORGET_AFTER_CALLS: u64 = 16;

#[derive(Default)]
pub struct Memo {
    entries: HashMap<u64, Entry>,
    /// Reads so far: an entry's `used` is the read that last touched it.
    reads: u64,
    next_number: u64,
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

struct Remembered {
    format: Format,
    sizes: bool,
    placeholder: String,
    view: MessageView,
}

/// One read of a history through the memo: the number of each message, or
/// `None` for a message to read afresh and not remember (the newest one,
/// which a streaming UI may still be changing in place).
pub struct Recall<'a> {
    pub memo: &'a mut Memo,
    pub numbers: Vec<Option<u64>>,
}

impl Memo {
    /// A number for a message object seen for the first time.
    pub fn new_number(&mut self) -> u64 {
        self.next_number += 1;
        self.next_number
    }

    /// How many messages it remembers.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Marks the end of one read: entries unused for `FORGET_AFTER_CALLS`
    /// reads are dropped (looked for every `FORGET_AFTER_CALLS` reads, so a
    /// read costs what its own messages cost).
    pub fn finish_read(&mut self) {
        self.reads += 1;
        if self.reads.is_multiple_of(FORGET_AFTER_CALLS) {
            let oldest = self.reads.saturating_sub(FORGET_AFTER_CALLS);
            self.entries.retain(|_, entry| entry.used >= oldest);
        }
    }
}

impl Recall<'_> {
    fn entry(&mut self, index: usize) -> Option<&mut Entry> {
        let number = self.numbers.get(index).copied().flatten()?;
        let reads = self.memo.reads;
        let entry = self.memo.entries.entry(number).or_default();
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
        let entry = self.entry(index)?;
        entry
            .views
            .iter()
            .find(|r| r.format == format && r.sizes == sizes && r.placeholder == placeholder)
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
                view: view.clone(),
            });
        }
    }
}

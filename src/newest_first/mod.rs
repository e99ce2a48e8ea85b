//! Reading a history newest first, only as far back as a decision needs.
//! Whatever the messages read cannot settle, and any error, goes to the read
//! of the whole history, so the answers and the errors are a whole read's.
//! The emergency cut leaves the older messages unread, and the effective
//! history reads most messages' roles alone (so a history that mixes
//! formats, or holds a broken message, only among those is not refused);
//! pruning reads every message, the older ones without their estimates.
//!
//! - `emergency`: the emergency cut reads the leading messages, then the
//!   newest ones until the budget is spent.
//! - `effective`: the effective history reads the leading messages for the
//!   instructions, then each message's role from the end (and the whole
//!   message only when the role is a marker's) until one is a marker.
//! - `prune`: pruning reads the newest messages' estimates until the
//!   protected tail and the minimum saving are decided, and the older ones
//!   only for where their results are.
//!
//! Messages read are read in the history's format, detected from them:
//! the whole history's format or one that reads them the same (a message
//! that fits several formats reads the same in each).

mod effective;
mod emergency;
mod prune;

pub use effective::effective_bounds;
pub use emergency::{emergency_cut, windowed_cut};
pub use prune::prune_plan;

use crate::formats::{read_run, Format, Read, Reading, ALL_FORMATS};
use crate::node::Node;

/// The first window of newest messages, in messages.
const FIRST_WINDOW: usize = 32;

/// A history shorter than this is read whole: its first window would be
/// more than half of it.
pub const SHORTEST_READ_NEWEST_FIRST: usize = 2 * FIRST_WINDOW;

/// The leading messages are looked for in this many messages; a history
/// that begins with more system messages than this is read whole.
const LEADING_PROBE: usize = 8;

/// Runs of a history read one after another (newest first, or the leading
/// messages and then the newest): each is read on its own, and together
/// they must fit one format, as a read of the whole history checks.
struct Runs {
    formats: u32,
}

impl Runs {
    fn new() -> Runs {
        Runs {
            formats: ALL_FORMATS.iter().fold(0, |bits, f| bits | f.bit()),
        }
    }

    /// The run's read, `None` when it fails or fits no format the runs
    /// before it fit: the whole read then says why.
    fn read<N: Node>(
        &mut self,
        messages: &[N],
        format: Option<Format>,
        placeholder: &str,
        reading: Reading,
    ) -> Option<Read> {
        let read = read_run(messages, format, placeholder, reading).ok()?;
        self.formats &= read.formats;
        (self.formats != 0).then_some(read)
    }
}

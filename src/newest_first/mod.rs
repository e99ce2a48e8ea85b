//! Reading a history newest first, only as far back as a decision needs.
//! Whatever the messages read cannot settle, and any error, goes to the read
//! of the whole history, so the answers and the errors are a whole read's.
//! The emergency cut and the budget check leave the older messages unread, and the effective
//! history reads of most messages only the few fields that say they are no
//! marker in any format (so a history that mixes formats, or holds a broken
//! message, only among those is not refused);
//! pruning reads the messages older than its protected tail for their
//! results alone (without their estimates once it is decided), and where
//! only one role's messages hold results, the others for their role alone
//! (and, in the chat formats, OpenAI Responses and live LangChain, a tool
//! message or a call's output for its one field alone, once decided; in
//! the AI SDK, AI SDK 4, Anthropic and Gemini formats, and AI SDK UI's
//! assistant messages, each message for its parts alone from the tail on).
//!
//! - `emergency`: the emergency cut reads the leading messages, then the
//!   newest ones until the budget is spent.
//! - `over_budget`: whether the history is over a budget reads the newest
//!   messages until they are over it, or every message.
//! - `effective`: the effective history reads the leading messages for the
//!   instructions, then from the end whether each message may be a marker
//!   by its fields (its role, then its `name` and the start of the texts
//!   where a marker's tag can be), and the few that may be whole, until one
//!   is a marker.
//! - `prune`: pruning reads the newest run with its estimates, the older
//!   messages one by one for where the user turns start until the
//!   protected tail is found (the roles' names alone where they settle
//!   it), then for their results' estimates until the minimum saving is
//!   decided (where the rule finds the results in the parts, each read from
//!   its part alone where the format can: `Format::result_of_part`), and
//!   the rest only for where their results are: one by one,
//!   or, where the role's name says which field or which parts hold the
//!   results, those of all of them at once.
//!
//! The history is a `Messages`: a slice of messages read already, or (in
//! the bindings) the caller's array, of which only the messages asked for
//! cross into WebAssembly.
//!
//! Messages read are read in the history's format, detected from them:
//! the whole history's format or one that reads them the same (a message
//! that fits several formats reads the same in each: the integration tests
//! and the fuzz target hold every message to it,
//! `tests/common/same_reading.rs`).

mod effective;
mod emergency;
mod messages;
mod over_budget;
mod prune;

pub use effective::effective_bounds;
pub use emergency::{emergency_cut, windowed_cut};
pub use messages::{Messages, TO_CLEAR};
pub use over_budget::over_budget;
pub use prune::prune_plan;

use std::ops::Range;

use crate::error::InputError;
use crate::formats::{read_run, Format, FoundRole, Read, Reading, ALL_FORMAT_BITS};
use crate::node::{BY_TYPE, MESSAGE_ITEM, TEXT_CONTENT};

/// The first window of newest messages, in messages.
const FIRST_WINDOW: usize = 32;

/// A history shorter than this is read whole: its first window would be
/// more than half of it.
pub const SHORTEST_READ_NEWEST_FIRST: usize = 2 * FIRST_WINDOW;

/// The leading messages are looked for in the first two messages, then,
/// when both are system messages, in the first eight (which the effective
/// history's search also reads when the formats the two fit read a marker
/// differently: the eight fit fewer); a history that
/// begins with more system messages than that is read whole. (Most begin
/// with one system prompt and a request: reading eight messages whole
/// every time was a tenth of the effective history of a chat session.)
const LEADING_PROBES: [usize; 2] = [2, 8];

/// The length of the next run of older messages to read, when the `read`
/// newest messages came to `tokens`: the messages that seem to hold the
/// rest of `max_tokens` at that rate, a twentieth again of them and 8 more
/// (a fifth again read up to a fifth of a long last run for nothing: 5,629
/// messages of the bench's history where 5,007 hold half its estimate; now
/// 5,190; the 8 keep a short last run from falling short), but at
/// most three times as many as were read, so that the reach is set by a
/// rate of more and more messages (set at once by the rate of the newest
/// 32, a cut of OpenAI Responses' session repeated read 716 messages to
/// keep 473; now 507); a quarter of what was read once the budget is spent
/// (the cut is then undecided only until an older call of a kept result is
/// read). At least a quarter of `FIRST_WINDOW`.
fn next_run(read: usize, tokens: u64, max_tokens: f64) -> usize {
    let (read, tokens) = (read as f64, tokens as f64);
    let rest = match tokens < max_tokens {
        true => ((max_tokens - tokens) / tokens * read * 1.05 + 8.0).min(3.0 * read),
        false => read / 4.0,
    };
    (rest as usize).max(FIRST_WINDOW / 4)
}

/// The role names found many messages at a time (`Messages::role_names`),
/// and the types of OpenAI Responses items and live LangChain messages
/// with no role, and the classes serialised LangChain messages name: a
/// message with another role, or another item, is read itself.
const ROLE_NAMES: &[&str] = &[
    "user",
    "assistant",
    "tool",
    "system",
    "developer",
    "function",
    "model",
    "function_call",
    "function_call_output",
    "custom_tool_call",
    "custom_tool_call_output",
    "reasoning",
    "web_search_call",
    "file_search_call",
    "computer_call",
    "code_interpreter_call",
    "image_generation_call",
    "local_shell_call",
    "mcp_call",
    "human",
    "ai",
    "HumanMessage",
    "AIMessage",
    "ToolMessage",
    "SystemMessage",
];

/// A message's role found by `Messages::role_names`: its name's index in
/// `ROLE_NAMES`, and whether the message is a message item (its `type`
/// absent, null or `"message"`), or was found by its `type` for having no
/// `role`.
#[derive(Clone, Copy)]
struct Found {
    at: usize,
    message_item: bool,
    by_type: bool,
    text_content: bool,
}

impl Found {
    /// `Node::role_names`'s code of a message, `None` for no role found.
    fn from_code(code: u8) -> Option<Found> {
        let at = (code & !(MESSAGE_ITEM | BY_TYPE | TEXT_CONTENT)).checked_sub(1)?;
        Some(Found {
            at: usize::from(at),
            message_item: code & MESSAGE_ITEM != 0,
            by_type: code & BY_TYPE != 0,
            text_content: code & TEXT_CONTENT != 0,
        })
    }

    fn role(self) -> FoundRole<'static> {
        FoundRole {
            name: ROLE_NAMES[self.at],
            message_item: self.message_item,
            by_type: self.by_type,
            text_content: self.text_content,
        }
    }
}

/// The roles of the messages of `range`, in one call into JS
/// (`Messages::role_names`): each one's code (`Found::from_code`).
fn role_codes<H: Messages + ?Sized>(
    messages: &H,
    range: Range<usize>,
    with_content: bool,
) -> Vec<u8> {
    messages.role_names(range, ROLE_NAMES, with_content)
}

/// The messages of `range`, newest first, each with its code from `codes`,
/// which answers one code a message for a range of them (many messages in
/// one call into JS). It is asked a window at a time: a search that stops
/// early has looked at no more than four times what it needed.
fn codes_from_the_end(
    range: Range<usize>,
    mut codes: impl FnMut(Range<usize>) -> Vec<u8>,
) -> impl Iterator<Item = (usize, u8)> {
    let mut window_codes = Vec::new();
    let mut window_start = range.end;
    let mut next = range.end;
    let mut window = FIRST_WINDOW;
    std::iter::from_fn(move || {
        if next == range.start {
            return None;
        }
        if next == window_start {
            window_start = next.saturating_sub(window).max(range.start);
            window_codes = codes(window_start..next);
            window *= 4;
        }
        next -= 1;
        // (Read with `get`: an index past the window, which cannot be,
        // would answer 0, no role found, and the message be read itself.)
        Some((
            next,
            window_codes.get(next - window_start).copied().unwrap_or(0),
        ))
    })
}

/// What a question about a message's role answers, worked out once for
/// each role code (`Messages::role_names`) while the formats in the
/// running, and the question, stay the same (the formats only ever leave
/// it). Kept by code: working each message's role out of its code to ask
/// was, in the rule's look alone, a tenth of pruning Ollama's session.
struct ByRole<T> {
    formats: usize,
    /// The question the table answers, by its address (0 for the one
    /// question a table is asked).
    question: usize,
    /// By code: one slot for every value a code (a byte) can have.
    answers: [Option<T>; 1 << u8::BITS],
}

impl<T: Copy> ByRole<T> {
    fn new() -> ByRole<T> {
        ByRole {
            formats: 0,
            question: 0,
            answers: [None; 1 << u8::BITS],
        }
    }

    /// The answer for the role of `code`, from `work` the first time it
    /// is asked. (Inlined: it is asked of every older message, and a call
    /// for each was a twentieth of pruning Ollama's session.)
    #[inline]
    fn answer(
        &mut self,
        formats: &[Format],
        question: usize,
        code: u8,
        work: impl FnOnce() -> T,
    ) -> T {
        if self.formats != formats.len() || self.question != question {
            *self = ByRole::new();
            self.formats = formats.len();
            self.question = question;
        }
        *self.answers[usize::from(code)].get_or_insert_with(work)
    }
}

/// Whether every format still in the running settles a message by its
/// role alone (`settles`, such as "no marker can have this role"), so that
/// the message need not be read at all.
struct SettledByName(ByRole<bool>);

impl SettledByName {
    fn new() -> SettledByName {
        SettledByName(ByRole::new())
    }

    /// Whether the message whose role code is `code` is settled so; not
    /// one with no role found (code 0).
    fn settled(
        &mut self,
        formats: &[Format],
        code: u8,
        settles: fn(Format, FoundRole) -> bool,
    ) -> bool {
        let work = || {
            Found::from_code(code).is_some_and(|found| {
                !formats.is_empty() && formats.iter().all(|&format| settles(format, found.role()))
            })
        };
        self.0.answer(formats, settles as usize, code, work)
    }
}

/// Runs of a history read one after another (newest first, or the leading
/// messages and then the newest): each is read on its own, and together
/// they must fit one format, as a read of the whole history checks.
struct Runs {
    formats: u32,
}

impl Runs {
    fn new() -> Runs {
        Runs {
            formats: ALL_FORMAT_BITS,
        }
    }

    /// The formats every run so far fits, in `ALL_FORMATS` order.
    fn formats(&self) -> Vec<Format> {
        Format::in_set(self.formats).collect()
    }

    /// The format of every run so far: the first that all of them fit, as
    /// a read of them all detects it.
    fn format(&self) -> Option<Format> {
        Format::in_set(self.formats).next()
    }

    /// The read of the messages of `history` in `range`, `None` when it
    /// fails or fits no format the runs before it fit: the whole read then
    /// says why.
    fn read<H: Messages + ?Sized>(
        &mut self,
        history: &H,
        range: Range<usize>,
        format: Option<Format>,
        placeholder: &str,
        reading: Reading,
    ) -> Option<Read> {
        let messages = history.run(range.clone())?;
        let read = read_run(&messages, range.start, format, placeholder, reading).ok()?;
        self.formats &= read.formats;
        (self.formats != 0).then_some(read)
    }
}

/// What every format still in the running reads one message as, or `None`
/// when they read it differently or none is left: the whole read then
/// settles it. A format that cannot read the message is not the history's,
/// and leaves the running.
fn agreed<T: PartialEq>(
    formats: &mut Vec<Format>,
    mut read: impl FnMut(Format) -> Result<T, InputError>,
) -> Option<T> {
    let mut answer = None;
    let mut differ = false;
    formats.retain(|&format| match read(format) {
        Ok(value) => {
            match &answer {
                None => answer = Some(value),
                Some(first) => differ |= *first != value,
            }
            true
        }
        Err(_) => false,
    });
    answer.filter(|_| !differ)
}

#[cfg(test)]
mod tests {
    use super::ROLE_NAMES;
    use crate::formats::{langchain, openai_responses};

    /// A message whose type a format settles it by (`Format::known_role`)
    /// but that the role look does not find is read whole instead, which no
    /// answer shows: each such type is one of `ROLE_NAMES`.
    #[test]
    fn the_role_look_finds_every_type_a_format_settles_a_message_by() {
        for rule in [&openai_responses::ROLE_BY_TYPE, &langchain::ROLE_BY_TYPE] {
            for (name, _) in rule.roles {
                assert!(ROLE_NAMES.contains(name), "{name} is not in ROLE_NAMES");
            }
        }
    }
}

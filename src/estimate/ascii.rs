//! The estimate of ASCII text as a state machine: one table lookup a byte and
//! no branch that depends on the text, several times faster than the
//! general scan (`super::scan`), whose rule it follows exactly. Each
//! transition adds what the piece it ends or extends costs; a punctuation
//! character is priced when the next byte shows whether it joins a word.

use super::Costs;

use super::bytes::{class, Byte, CLASSES, REPEAT};

/// The byte classes, as indices of the table.
const LOWER: usize = Byte::Lower as usize;
const UPPER: usize = Byte::Upper as usize;
const DIGIT: usize = Byte::Digit as usize;
const SPACE: usize = Byte::Space as usize;
const NEWLINE: usize = Byte::Newline as usize;
const PUNCT: usize = Byte::Punct as usize;
const ESCAPE: usize = Byte::Escape as usize;

// States. A word remembers its letters (13 means 13 or more), whether its
// last letter was small (a capital then starts a new word) and whether one
// punctuation character joined it.
const START: usize = 0;
const DIGITS: usize = 1; // +0, +1, +2: digits since the last group began
const SPACE_ONE: usize = 4;
const SPACE_MORE: usize = 5;
const LINE: usize = 6; // a run of line breaks
const LINE_SPACE_ONE: usize = 7; // spaces after it: more line breaks may follow
const LINE_SPACE_MORE: usize = 8;
const PUNCT_ONE: usize = 9;
const PUNCT_MORE: usize = 10;
const WORD: usize = 11;
// An escape sequence: after ESC, after its opening punctuation or a
// parameter's, and after one, two or three digits of a parameter (+0, +1, +2).
const ESC: usize = WORD + 13 * 4;
const ESC_PARAMS: usize = ESC + 1;
const ESC_DIGITS: usize = ESC + 2;
const STATES: usize = ESC_DIGITS + 3;
/// The table's rows: the states, and rows never reached up to a power of
/// two, so that a state read from a step needs no bounds check.
const ROWS: usize = STATES.next_power_of_two();
const _: () = assert!(CLASSES.is_power_of_two() && REPEAT < CLASSES);

const fn word(letters: usize, small: bool, prefixed: bool) -> usize {
    WORD + (letters - 1) * 4 + (small as usize) * 2 + prefixed as usize
}

/// A transition: what it adds (the high 24 bits) and the next state (the low
/// 8), packed so the table stays small.
#[derive(Clone, Copy)]
struct Step(u32);

impl Step {
    const fn cost(self) -> u64 {
        (self.0 >> 8) as u64
    }
    const fn next(self) -> usize {
        (self.0 as usize) & (ROWS - 1)
    }
}

const fn step(cost: u64, next: usize) -> Step {
    Step(((cost as u32) << 8) | next as u32)
}

pub struct Table {
    steps: [[Step; CLASSES]; ROWS],
    /// What a state still owes at the end of the text.
    end: [u32; ROWS],
}

/// What a byte of class `c` starts, after a piece that is fully paid for.
const fn fresh(costs: &Costs, c: usize, after_punct: bool) -> Step {
    match c {
        LOWER => step(costs.word, word(1, true, false)),
        UPPER => step(costs.word, word(1, false, false)),
        DIGIT => step(costs.digit_group, DIGITS),
        SPACE => step(0, SPACE_ONE),
        NEWLINE if after_punct => step(0, LINE),
        NEWLINE => step(costs.newline, LINE),
        ESCAPE => step(costs.escape, ESC),
        _ => step(0, PUNCT_ONE),
    }
}

/// After `spaces` (one or more) spaces: the byte of class `c`.
const fn after_spaces(costs: &Costs, c: usize, more: bool, after_line: bool) -> Step {
    let run = if more { costs.space_run } else { 0 };
    match c {
        SPACE if after_line => step(0, LINE_SPACE_MORE),
        SPACE => step(0, SPACE_MORE),
        NEWLINE if after_line => step(0, LINE),
        NEWLINE => step(costs.newline, LINE),
        DIGIT => step(run + costs.space_before_digit + costs.digit_group, DIGITS),
        ESCAPE => step(run + costs.space_before_escape + costs.escape, ESC),
        _ => {
            let start = fresh(costs, c, false);
            step(run + start.cost(), start.next())
        }
    }
}

/// The cost of the `n`th letter of a word (the first is the word's base).
const fn letter(costs: &Costs, n: usize, prefixed: bool) -> u64 {
    if n >= 13 {
        costs.long_word_slope
    } else if n >= 4 {
        costs.word_slope * if prefixed { 2 } else { 1 }
    } else {
        0
    }
}

impl Table {
    pub const fn new(costs: &Costs) -> Table {
        let mut steps = [[step(0, START); CLASSES]; ROWS];
        let mut end = [0u32; ROWS];
        let mut c = 0;
        while c < CLASSES {
            let class = if c == REPEAT { PUNCT } else { c };
            steps[START][c] = fresh(costs, class, false);
            // Digits: a new group every third digit.
            let mut d = 0;
            while d < 3 {
                steps[DIGITS + d][c] = if class == DIGIT {
                    step(
                        if d == 2 { costs.digit_group } else { 0 },
                        DIGITS + (d + 1) % 3,
                    )
                } else {
                    fresh(costs, class, false)
                };
                d += 1;
            }
            steps[SPACE_ONE][c] = after_spaces(costs, class, false, false);
            steps[SPACE_MORE][c] = after_spaces(costs, class, true, false);
            steps[LINE_SPACE_ONE][c] = after_spaces(costs, class, false, true);
            steps[LINE_SPACE_MORE][c] = after_spaces(costs, class, true, true);
            steps[LINE][c] = match class {
                NEWLINE => step(0, LINE),
                SPACE => step(0, LINE_SPACE_ONE),
                _ => fresh(costs, class, false),
            };
            // One punctuation character: it joins a word that follows.
            steps[PUNCT_ONE][c] = match class {
                LOWER => step(costs.word + costs.prefix, word(1, true, true)),
                UPPER => step(costs.word + costs.prefix, word(1, false, true)),
                PUNCT => step(costs.punct, PUNCT_MORE),
                _ => {
                    let start = fresh(costs, class, true);
                    step(costs.punct + start.cost(), start.next())
                }
            };
            steps[PUNCT_MORE][c] = match c {
                PUNCT => step(costs.punct_slope, PUNCT_MORE),
                REPEAT => step(costs.repeat_slope, PUNCT_MORE),
                _ => fresh(costs, class, true),
            };
            // An escape sequence: punctuation after ESC opens it; then its
            // parameters, digits in groups of three and punctuation, until
            // the letter that ends it.
            steps[ESC][c] = match class {
                PUNCT => step(costs.escape_punct, ESC_PARAMS),
                _ => fresh(costs, class, false),
            };
            let mut state = ESC_PARAMS;
            while state < STATES {
                let d = state - ESC_PARAMS; // digits of the group so far
                steps[state][c] = match class {
                    DIGIT => step(
                        if d == 0 || d == 3 {
                            costs.digit_group
                        } else {
                            0
                        },
                        ESC_DIGITS + d % 3,
                    ),
                    PUNCT => step(costs.escape_punct, ESC_PARAMS),
                    LOWER | UPPER => step(costs.escape_final, START),
                    _ => fresh(costs, class, false),
                };
                state += 1;
            }
            let mut n = 1;
            while n <= 13 {
                let mut flags = 0;
                while flags < 4 {
                    let (small, prefixed) = (flags & 2 != 0, flags & 1 != 0);
                    let longer = if n < 13 { n + 1 } else { 13 };
                    steps[word(n, small, prefixed)][c] = match class {
                        LOWER => step(letter(costs, n + 1, prefixed), word(longer, true, prefixed)),
                        UPPER if small => step(costs.word, word(1, false, false)),
                        UPPER => step(
                            letter(costs, n + 1, prefixed),
                            word(longer, false, prefixed),
                        ),
                        _ => fresh(costs, class, false),
                    };
                    flags += 1;
                }
                n += 1;
            }
            c += 1;
        }
        end[SPACE_ONE] = costs.space_run as u32;
        end[SPACE_MORE] = costs.space_run as u32;
        end[LINE_SPACE_ONE] = costs.space_run as u32;
        end[LINE_SPACE_MORE] = costs.space_run as u32;
        end[PUNCT_ONE] = costs.punct as u32;
        Table { steps, end }
    }
}

/// The class of the ASCII `byte` in the table, `previous` being the byte
/// before it.
#[inline(always)]
fn class_after(byte: u8, previous: u8) -> usize {
    let c = class(byte & 0x7F) as usize;
    // PUNCT + 1 is REPEAT: a punctuation byte equal to the one before. The
    // mask changes nothing (CLASSES is a power of two and every class is
    // below it); it shows the compiler that the index needs no bounds check.
    (c + (c == PUNCT && byte == previous) as usize) & (CLASSES - 1)
}

/// The estimate of ASCII bytes, in thousandths of a token, one byte at a
/// time: what the block pass (`super::blocks`) is held to.
#[cfg(test)]
pub fn scan(bytes: &[u8], table: &Table) -> u64 {
    let (total, state) = run(bytes, table, START, 0);
    total + end(table, state)
}

/// The machine over `bytes` from `state` (a row of the table), `previous`
/// being the byte before them: what the bytes add, and the state after them.
#[inline(always)]
pub fn run(bytes: &[u8], table: &Table, state: usize, previous: u8) -> (u64, usize) {
    let mut total: u64 = 0;
    let mut state = state & (ROWS - 1);
    let mut previous = previous;
    for &byte in bytes {
        let step = table.steps[state][class_after(byte, previous)];
        total += step.cost();
        state = step.next();
        previous = byte;
    }
    (total, state)
}

/// What `state` still owes at the end of the text.
pub fn end(table: &Table, state: usize) -> u64 {
    table.end[state & (ROWS - 1)] as u64
}

/// What a state says of the text before it, in the terms of the block pass
/// (`super::blocks`), which converts its own carry to and from it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum State {
    /// Nothing owed, and nothing that joins what follows: the start of a
    /// text, or the end of an escape sequence.
    Start,
    /// After a run of digits: the digits since its last group began, less
    /// one (0, 1 or 2).
    Digits(u32),
    /// After a run of spaces or tabs: of more than one; right after a run
    /// of line breaks.
    Spaces { more: bool, after_line: bool },
    /// After a run of line breaks.
    Line,
    /// After a run of punctuation: of more than one character.
    Punct { more: bool },
    /// After a word: its letters (13 for 13 or more), whether its last was
    /// small, whether one punctuation character joined it.
    Word {
        letters: u32,
        small: bool,
        prefixed: bool,
    },
    /// Inside an escape sequence, where only the machine knows the way.
    Escape,
}

impl State {
    /// The state of row `row` of the table.
    pub fn of(row: usize) -> State {
        match row {
            START => State::Start,
            DIGITS..SPACE_ONE => State::Digits((row - DIGITS) as u32),
            SPACE_ONE | SPACE_MORE | LINE_SPACE_ONE | LINE_SPACE_MORE => State::Spaces {
                more: matches!(row, SPACE_MORE | LINE_SPACE_MORE),
                after_line: matches!(row, LINE_SPACE_ONE | LINE_SPACE_MORE),
            },
            LINE => State::Line,
            PUNCT_ONE => State::Punct { more: false },
            PUNCT_MORE => State::Punct { more: true },
            WORD..ESC => {
                let at = row - WORD;
                State::Word {
                    letters: (at / 4 + 1) as u32,
                    small: at & 2 != 0,
                    prefixed: at & 1 != 0,
                }
            }
            _ => State::Escape,
        }
    }

    /// The row of the table of this state (`Escape` has several: it is
    /// never asked for).
    pub fn row(self) -> usize {
        match self {
            State::Start | State::Escape => START,
            State::Digits(d) => DIGITS + d as usize % 3,
            State::Spaces { more, after_line } => match (after_line, more) {
                (false, false) => SPACE_ONE,
                (false, true) => SPACE_MORE,
                (true, false) => LINE_SPACE_ONE,
                (true, true) => LINE_SPACE_MORE,
            },
            State::Line => LINE,
            State::Punct { more: false } => PUNCT_ONE,
            State::Punct { more: true } => PUNCT_MORE,
            State::Word {
                letters,
                small,
                prefixed,
            } => word((letters as usize).clamp(1, 13), small, prefixed),
        }
    }
}

//! The estimate of ASCII text 64 bytes at a time: the same rule as the state
//! machine of `ascii`, priced on bitmasks of the bytes' classes (`classes`)
//! with shifts, ANDs and counts of bits, so that a block costs about as many
//! operations as the machine spends on a few of its bytes.
//!
//! Each piece of the rule becomes a count of the bits of a mask: words start
//! where a letter follows no letter or a capital follows a small one, a
//! group of digits every third digit of a run, a run of punctuation costs
//! at its first character (and gives it back when that character turns out
//! to join the word after it), a run of two or more spaces at the byte
//! after it, a line break unless it follows a line break, punctuation, or
//! the blanks after a line break. What crosses the edge of a block is
//! carried: the masks of the block before (only their last bits are read),
//! whether the word it ends with was prefixed, and where its digits are in
//! their group.
//!
//! A block with ESC in it, and the blocks of an escape sequence that goes on
//! past one, go through the machine instead: the carry converts exactly to
//! the machine's state and back (`Carry::state`, `Carry::after`), so the
//! machine takes over and hands back anywhere. So do the last bytes, fewer
//! than a block.

use super::ascii::{self, State, Table};
use super::classes::{classes, Classes, BLOCK};
use super::Costs;

/// The estimate of ASCII bytes, in thousandths of a token: the answer of
/// `ascii::scan`.
#[cfg(target_arch = "wasm32")]
#[target_feature(enable = "simd128")]
pub fn scan(bytes: &[u8], table: &Table, costs: &Costs) -> u64 {
    scan_blocks(bytes, table, costs)
}

/// The estimate of ASCII bytes, in thousandths of a token: the answer of
/// `ascii::scan`.
#[cfg(not(target_arch = "wasm32"))]
pub fn scan(bytes: &[u8], table: &Table, costs: &Costs) -> u64 {
    scan_blocks(bytes, table, costs)
}

#[inline(always)]
fn scan_blocks(bytes: &[u8], table: &Table, costs: &Costs) -> u64 {
    // Sums may pass below zero within a block (a run of punctuation gives
    // back what it cost when it joins a word): they wrap, and the total
    // comes out exact.
    let mut total: u64 = 0;
    let mut carry = Carry::START;
    // Inside an escape sequence, which no carry can say: the machine's state.
    let mut escape = None;
    for block in bytes.chunks(BLOCK) {
        if let (Ok(whole), None) = (<&[u8; BLOCK]>::try_from(block), escape) {
            let classes = classes(whole, carry.previous);
            if !classes.escape {
                let (cost, next) = price(&classes, &carry, whole[BLOCK - 1], costs);
                total = total.wrapping_add(cost);
                carry = next;
                continue;
            }
        }
        // The machine takes the block (or the last bytes) from where the
        // masks left it, and hands it back after.
        let (state, paid) = escape.map_or_else(|| carry.state(costs), |state| (state, 0));
        let (cost, state) = ascii::run(block, table, state, carry.previous);
        total = total.wrapping_sub(paid).wrapping_add(cost);
        let last = block.last().copied().unwrap_or(carry.previous);
        (carry, escape) = match Carry::after(State::of(state), last, costs) {
            Some((carry, paid)) => {
                total = total.wrapping_add(paid);
                (carry, None)
            }
            None => (
                Carry {
                    previous: last,
                    ..carry
                },
                Some(state),
            ),
        };
    }
    let (state, paid) = escape.map_or_else(|| carry.state(costs), |state| (state, 0));
    total
        .wrapping_sub(paid)
        .wrapping_add(ascii::end(table, state))
}

/// What one block leaves for the next: its masks (the next reads only their
/// last bits) and what they do not show.
#[derive(Clone, Copy)]
struct Carry {
    /// Letters that belong to words (not the letter that ends an escape
    /// sequence).
    letter: u64,
    lower: u64,
    /// Letters that go on the word of the byte before them.
    continued: u64,
    digit: u64,
    blank: u64,
    /// Blanks in a run that follows a line break.
    line_blank: u64,
    newline: u64,
    punct: u64,
    /// Whether the word at the end of the block is prefixed.
    prefixed: bool,
    /// When the block ends in digits: the digits since the last group began,
    /// less one.
    digits_in_group: u32,
    /// The last byte.
    previous: u8,
}

impl Carry {
    /// Before the first byte, as the machine's `START` after byte 0.
    const START: Carry = Carry {
        letter: 0,
        lower: 0,
        continued: 0,
        digit: 0,
        blank: 0,
        line_blank: 0,
        newline: 0,
        punct: 0,
        prefixed: false,
        digits_in_group: 0,
        previous: 0,
    };

    /// The machine's state at the end of the block, and what the masks paid
    /// that the machine still owes: a lone punctuation character, paid at
    /// its start by the masks, by the machine only when the byte after it
    /// shows it does not join a word.
    fn state(&self, costs: &Costs) -> (usize, u64) {
        const LAST: u32 = 63;
        let bit = |mask: u64, at: u32| mask >> at & 1 != 0;
        let state = if bit(self.letter, LAST) {
            let going_on = self.continued.leading_ones();
            State::Word {
                letters: (going_on + 1).min(13),
                small: bit(self.lower, LAST),
                prefixed: self.prefixed,
            }
        } else if bit(self.digit, LAST) {
            State::Digits(self.digits_in_group)
        } else if bit(self.blank, LAST) {
            State::Spaces {
                more: bit(self.blank, LAST - 1),
                after_line: bit(self.line_blank, LAST),
            }
        } else if bit(self.newline, LAST) {
            State::Line
        } else if bit(self.punct, LAST) {
            let more = bit(self.punct, LAST - 1);
            let paid = if more { 0 } else { costs.punct };
            return (State::Punct { more }.row(), paid);
        } else {
            State::Start
        };
        (state.row(), 0)
    }

    /// The carry of a block that ends in machine state `state` after byte
    /// `last`, and what the masks count as paid that the machine has not
    /// yet; `None` inside an escape sequence.
    fn after(state: State, last: u8, costs: &Costs) -> Option<(Carry, u64)> {
        const ONE: u64 = 1 << 63;
        const TWO: u64 = 3 << 62;
        let mut carry = Carry {
            previous: last,
            ..Carry::START
        };
        let mut paid = 0;
        match state {
            State::Start => {}
            State::Digits(in_group) => {
                carry.digit = ONE;
                carry.digits_in_group = in_group;
            }
            State::Spaces { more, after_line } => {
                carry.blank = if more { TWO } else { ONE };
                if after_line {
                    carry.line_blank = carry.blank;
                }
            }
            State::Line => carry.newline = ONE,
            State::Punct { more } => {
                carry.punct = if more { TWO } else { ONE };
                if !more {
                    paid = costs.punct;
                }
            }
            State::Word {
                letters,
                small,
                prefixed,
            } => {
                carry.letter = ONE;
                carry.lower = if small { ONE } else { 0 };
                // The letters after the word's first go on it; 12 of them
                // say all that the masks read.
                let going_on = letters.clamp(1, 13) - 1;
                carry.continued = if going_on == 0 {
                    0
                } else {
                    u64::MAX << (64 - going_on)
                };
                carry.prefixed = prefixed;
            }
            State::Escape => return None,
        }
        Some((carry, paid))
    }
}

/// `mask` seen `shift` bytes later (1 to 63): bit `i` says what bit
/// `i - shift` said, reaching into the block before, whose mask is `before`.
#[inline(always)]
fn later(mask: u64, before: u64, shift: u32) -> u64 {
    (mask << shift) | (before >> (64 - shift))
}

/// The count of the bits of `mask`, as a number of pieces.
#[inline(always)]
fn count(mask: u64) -> u64 {
    mask.count_ones() as u64
}

/// What the bytes of one block (with no ESC) cost after `before`, and what
/// the block carries to the next; `last` is its last byte.
#[inline(always)]
fn price(classes: &Classes, before: &Carry, last: u8, costs: &Costs) -> (u64, Carry) {
    let Classes {
        letter,
        lower,
        digit,
        blank,
        newline,
        punct,
        repeat,
        ..
    } = *classes;
    // Words: a letter goes on the word before it, unless it is a capital
    // after a small letter (camelCase).
    let capital_after_small = letter & !lower & later(lower, before.lower, 1);
    let continued = letter & later(letter, before.letter, 1) & !capital_after_small;
    let starts = letter & !continued;
    let punct_1 = later(punct, before.punct, 1);
    let punct_2 = later(punct, before.punct, 2);
    // One punctuation character right before a word joins it.
    let prefixed = starts & punct_1 & !punct_2;
    // The letters of a word from its 4th, and from its 13th: the bytes that
    // go on a word 3 and 12 times in a row.
    let in_a_row_2 = continued & later(continued, before.continued, 1);
    let before_2 = before.continued & (before.continued << 1);
    let in_a_row_3 = in_a_row_2 & later(continued, before.continued, 2);
    let in_a_row_4 = in_a_row_2 & later(in_a_row_2, before_2, 2);
    let before_4 = before_2 & (before_2 << 2);
    let in_a_row_8 = in_a_row_4 & later(in_a_row_4, before_4, 4);
    let in_a_row_12 = in_a_row_8 & later(in_a_row_4, before_4, 8);
    let sloped = in_a_row_3 & !in_a_row_12;
    // The letters of prefixed words: from each prefixed start, the run of
    // letters that go on it, found by the carry of an addition (it runs up
    // a run of ones); a word prefixed in the block before goes on from bit 0.
    let seeds = (prefixed << 1) | before.prefixed as u64;
    let (sum, overflow) = continued.overflowing_add(seeds);
    let of_prefixed = continued & !sum;
    let words = costs.word * count(starts)
        + costs.prefix * count(prefixed)
        + costs.word_slope * (count(sloped) + count(sloped & of_prefixed))
        + costs.long_word_slope * count(in_a_row_12);

    // Punctuation: a run costs at its first character, given back when that
    // character alone joins the word after it; from its 3rd character on,
    // each costs a slope (a smaller one when it repeats the one before).
    let third_on = punct & punct_1 & punct_2;
    let punctuation = costs.punct * count(punct & !punct_1)
        + costs.repeat_slope * count(third_on & repeat)
        + costs.punct_slope * count(third_on & !repeat);
    let given_back = costs.punct * count(prefixed);

    // Digits: a group starts at the first digit of a run and every third
    // after it. A run from the block before goes on to its next group start.
    let digit_1 = later(digit, before.digit, 1);
    let mut groups = digit & !digit_1;
    if before.digit >> 63 != 0 {
        let next = 2 - before.digits_in_group.min(2);
        let through = (2u64 << next) - 1;
        if digit & through == through {
            groups |= 1 << next;
        }
    }
    let three = digit & (digit << 1) & (digit << 2);
    let mut step = groups;
    loop {
        step = (step << 3) & three;
        if step == 0 {
            break;
        }
        groups |= step;
    }
    let digits = costs.digit_group * count(groups);

    // Spaces and tabs: one before a word or punctuation joins it; two or
    // more cost a run; before a digit each costs one more token. Before a
    // line break they are free.
    let blank_1 = later(blank, before.blank, 1);
    let blank_2 = later(blank, before.blank, 2);
    let spaces = costs.space_before_digit * count(digit & blank_1)
        + costs.space_run * count((letter | digit | punct) & blank_1 & blank_2);

    // Line breaks: a run costs one, at its first, unless punctuation comes
    // right before it; the blanks between line breaks belong to the run.
    let newline_1 = later(newline, before.newline, 1);
    let line_seeds = blank & (newline_1 | before.line_blank >> 63);
    let line_blank = blank & !blank.wrapping_add(line_seeds);
    let free = newline_1 | punct_1 | later(line_blank, before.line_blank, 1);
    let line_breaks = costs.newline * count(newline & !free);
    let total = (words + punctuation + digits + spaces + line_breaks).wrapping_sub(given_back);

    // Where the block's last run of digits stands in its group.
    let mut digits_in_group = 0;
    if digit >> 63 != 0 {
        let run = digit.leading_ones();
        let last_group = 63 - groups.leading_zeros().min(63);
        digits_in_group = if groups != 0 && last_group >= 64 - run {
            63 - last_group
        } else {
            before.digits_in_group + run
        };
    }
    let carry = Carry {
        letter,
        lower,
        continued,
        digit,
        blank,
        line_blank,
        newline,
        punct,
        prefixed: prefixed >> 63 != 0 || overflow,
        digits_in_group,
        previous: last,
    };
    (total, carry)
}

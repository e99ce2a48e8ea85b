//! The estimate of ASCII text 64 bytes at a time: the rule of the general
//! scan (`super::scan`) priced on bitmasks of the bytes' classes
//! (`classes`) with shifts, ANDs and counts of bits, so that a block costs
//! about as many operations as a byte-at-a-time pass spends on a few of its
//! bytes.
//!
//! Each piece of the rule becomes a count of the bits of a mask: words start
//! where a letter follows no letter or a capital follows a small one, a
//! group of digits every third digit of a run, a run of punctuation costs
//! at its first character (and gives it back when that character turns out
//! to join the word after it), a run of two or more spaces at the byte
//! after it, a line break unless it follows a line break, punctuation, or
//! the blanks after a line break. An escape sequence is found as ESC, the
//! punctuation after it and the run of digits and punctuation that goes on
//! from there (its parameters), and the letter that ends it; its parts are
//! priced on their own and join nothing.
//!
//! What crosses the edge of a block is carried: the masks of the block
//! before (only their last bits are read), whether the word it ends with
//! was prefixed, and where its digits are in their group. The last bytes,
//! fewer than a block, are priced as a block whose missing bytes are of no
//! class.
//!
//! It prices with `COSTS` itself, not costs it is given: as constants they
//! fold into the pricing's instructions, where loading each from memory took
//! 304 bytes more of the gzipped module. The general scan takes costs as a
//! value, and the tests hold this pass to it under `COSTS`.

use super::classes::{classes, Classes, BLOCK};
use super::{Costs, COSTS};

/// The estimate of ASCII bytes, in thousandths of a token.
#[cfg(target_arch = "wasm32")]
#[target_feature(enable = "simd128")]
pub fn scan(bytes: &[u8]) -> u64 {
    scan_blocks(bytes)
}

/// The estimate of ASCII bytes, in thousandths of a token.
#[cfg(not(target_arch = "wasm32"))]
pub fn scan(bytes: &[u8]) -> u64 {
    scan_blocks(bytes)
}

#[inline(always)]
fn scan_blocks(bytes: &[u8]) -> u64 {
    let costs = &COSTS;
    // Sums may pass below zero within a block (a run of punctuation gives
    // back what it cost when it joins a word): they wrap, and the total
    // comes out exact.
    let mut total: u64 = 0;
    let mut carry = Carry::START;
    let mut padded = [0; BLOCK];
    for bytes in bytes.chunks(BLOCK) {
        // The last bytes, fewer than a block, are copied into one whose
        // other bytes are then of no class. One path for both keeps one
        // copy of the pricing in the module.
        let (block, there) = match <&[u8; BLOCK]>::try_from(bytes) {
            Ok(block) => (block, u64::MAX),
            Err(_) => {
                for (to, &from) in padded.iter_mut().zip(bytes) {
                    *to = from;
                }
                (&padded, !(u64::MAX << bytes.len()))
            }
        };
        let classes = classes(block, carry.previous).within(there);
        let (cost, next) = price(&classes, &carry, costs);
        total = total.wrapping_add(cost);
        carry = Carry {
            previous: block[BLOCK - 1],
            ..next
        };
    }
    // Spaces at the end of the text are a run of their own.
    if matches!(bytes.last(), Some(b' ' | b'\t')) {
        total = total.wrapping_add(costs.space_run);
    }
    total
}

/// What one block leaves for the next: its masks (the next reads only their
/// last bits) and what they do not show.
#[derive(Clone, Copy)]
struct Carry {
    /// Letters of words (not the letter that ends an escape sequence).
    letter: u64,
    lower: u64,
    /// Letters that go on the word of the byte before them.
    continued: u64,
    digit: u64,
    blank: u64,
    /// Blanks in a run that follows a line break.
    line_blank: u64,
    newline: u64,
    /// Punctuation outside escape sequences.
    punct: u64,
    escape: u64,
    /// The parameters of escape sequences, with the punctuation that opens
    /// them.
    params: u64,
    /// Whether the word at the end of the block is prefixed.
    prefixed: bool,
    /// When the block ends in digits: the digits since the last group began,
    /// less one.
    digits_in_group: u32,
    /// The last byte.
    previous: u8,
}

impl Carry {
    /// Before the first byte: nothing, after byte 0.
    const START: Carry = Carry {
        letter: 0,
        lower: 0,
        continued: 0,
        digit: 0,
        blank: 0,
        line_blank: 0,
        newline: 0,
        punct: 0,
        escape: 0,
        params: 0,
        prefixed: false,
        digits_in_group: 0,
        previous: 0,
    };
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

/// What the bytes of one block cost after `before`, and what the block
/// carries to the next (but its last byte, which the caller sets).
#[inline(always)]
fn price(classes: &Classes, before: &Carry, costs: &Costs) -> (u64, Carry) {
    let Classes {
        letter,
        lower,
        digit,
        blank,
        newline,
        punct,
        escape,
        repeat,
    } = *classes;

    // Escape sequences: punctuation right after ESC opens one; its
    // parameters run on through digits and punctuation (found by the carry
    // of an addition, which runs up a run of ones), and a letter right after
    // them ends it.
    let escape_1 = later(escape, before.escape, 1);
    let digit_or_punct = digit | punct;
    let opened = (punct & escape_1) | (before.params >> 63);
    let params = digit_or_punct & !digit_or_punct.wrapping_add(opened);
    let last_letter = letter & later(params, before.params, 1);
    let letter = letter & !last_letter;
    let lower = lower & letter;
    let escape_punct = punct & params;
    let punct = punct & !params;
    let sequences = costs.escape * count(escape)
        + costs.escape_punct * count(escape_punct)
        + costs.escape_final * count(last_letter);

    // Words: a letter goes on the word before it, unless it is a capital
    // after a small letter (camelCase).
    let capital_after_small = letter & !lower & later(lower, before.lower, 1);
    let continued = letter & later(letter, before.letter, 1) & !capital_after_small;
    let starts = letter & !continued;
    let punct_1 = later(punct, before.punct, 1);
    let punct_2 = later(punct, before.punct, 2);
    // One punctuation character right before a word joins it.
    let prefixed = starts & punct_1 & !punct_2;
    // The letters of a word from its 4th, and from its 13th: the letters
    // that go on a word 3 and 12 times in a row.
    let in_a_row_2 = continued & later(continued, before.continued, 1);
    let before_2 = before.continued & (before.continued << 1);
    let in_a_row_3 = in_a_row_2 & later(continued, before.continued, 2);
    let in_a_row_4 = in_a_row_2 & later(in_a_row_2, before_2, 2);
    let before_4 = before_2 & (before_2 << 2);
    let in_a_row_8 = in_a_row_4 & later(in_a_row_4, before_4, 4);
    let in_a_row_12 = in_a_row_8 & later(in_a_row_4, before_4, 8);
    let sloped = in_a_row_3 & !in_a_row_12;
    // The letters of prefixed words: from each prefixed start, the run of
    // letters that go on it, found by the carry of an addition; a word
    // prefixed in the block before goes on from bit 0.
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
    // more cost a run; before a digit or ESC one costs a token of its own.
    // Before a line break they are free.
    let blank_1 = later(blank, before.blank, 1);
    let blank_2 = later(blank, before.blank, 2);
    let spaces = costs.space_before_digit * count(digit & blank_1)
        + costs.space_before_escape * count(escape & blank_1)
        + costs.space_run * count((letter | digit | punct | escape) & blank_1 & blank_2);

    // Line breaks: a run costs one, at its first, unless punctuation comes
    // right before it; the blanks between line breaks belong to the run.
    let newline_1 = later(newline, before.newline, 1);
    let line_seeds = blank & (newline_1 | before.line_blank >> 63);
    let line_blank = blank & !blank.wrapping_add(line_seeds);
    let free = newline_1 | punct_1 | later(line_blank, before.line_blank, 1);
    let line_breaks = costs.newline * count(newline & !free);

    let total =
        (sequences + words + punctuation + digits + spaces + line_breaks).wrapping_sub(given_back);

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
        escape,
        params,
        prefixed: prefixed >> 63 != 0 || overflow,
        digits_in_group,
        previous: 0,
    };
    (total, carry)
}

//! The token estimate: a script-aware count of what the model sees, cheap
//! enough to run on every turn.
//!
//! It follows how BPE tokenizers of the o200k_base kind cut text before they
//! merge it: into words (a camelCase boundary starts a new word), groups of up
//! to three digits, runs of punctuation, runs of whitespace and line breaks.
//! Each piece is priced at what the tokenizer makes of such pieces on average
//! (the fields of `COSTS`, in thousandths of a token, so that sums stay
//! integers), fitted on real text and checked on the corpus in `tests/corpus/`
//! against o200k_base:
//! - an ASCII word costs 1 token, plus 0.055 for each letter from the 4th to
//!   the 12th and 0.205 for each letter past the 12th;
//! - one punctuation character directly before a word (`.map`, `_id`, `(x`)
//!   joins it: the pair costs 0.585 more than the word, whose per-letter
//!   cost doubles;
//! - a word with accented Latin letters costs 1.1 + 0.34 a letter, a Cyrillic
//!   word 0.67 + 0.235 a letter, a word of another alphabet (Greek, Arabic,
//!   Hebrew, Indic, ...) 0.185 + 0.405 a letter; each 0.63 more when no
//!   space comes before it;
//! - a group of up to three digits costs 1;
//! - a run of punctuation costs 1, plus 0.21 for each character past the
//!   2nd (0.1 when it repeats the one before it, as in `-----`);
//! - a single space before a word or punctuation is free (it joins it); a
//!   space before a digit costs 1, a run of spaces or tabs 1 (2 before a
//!   digit); spaces before a line break join it;
//! - a run of line breaks costs 1, nothing right after punctuation (`;\n` is
//!   one token);
//! - a Han character costs 0.875, kana 0.78, Thai 0.53, CJK punctuation 0.63;
//!   a Hangul word 0.495 plus 0.64 a syllable;
//! - any other symbol costs 1.2 (0.125 when it repeats the one before, as in
//!   `───`), an emoji 1.8, other whitespace 1;
//! - a terminal's escape sequence (ESC, a punctuation character such as `[`,
//!   parameters of digits and punctuation, and the letter that ends it, as
//!   in `\x1b[38;5;208m`) costs 1 for ESC, 1 for each punctuation character,
//!   1 for each group of up to three digits of a parameter and 1.2 for the
//!   final letter, and joins nothing on either side: o200k_base makes
//!   `\x1b[31m` 4 tokens and `\x1b[38;5;208m` 8, wherever they stand (the
//!   0.2 is margin: the text between the sequences of real coloured output
//!   comes out a little low). A space before ESC costs 1, a run of spaces or
//!   tabs 2.
//!
//! The estimate of a text is one left-to-right pass over its bytes, in time
//! linear in its length; the estimate of a history is the sum of its
//! messages'. A message adds `MESSAGE_OVERHEAD` for its role and framing, and
//! every image, file or audio part costs `ATTACHMENT_TOKENS`, whatever its
//! size.

/// Tokens every message costs for its role and framing: the role itself and
/// the 3 tokens OpenAI's chat format adds around each message.
pub const MESSAGE_OVERHEAD: u64 = 4;
/// Tokens an image, file or audio part is counted as (about what OpenAI
/// charges for one high-detail 1024×1024 image).
pub const ATTACHMENT_TOKENS: u64 = 1_000;

const MILLI: u64 = 1_000;

/// What each piece costs, in thousandths of a token. One set is used,
/// `COSTS`. The general scan takes costs as a value, so that a tuning against
/// the corpus can vary them; the 64-byte block pass prices with `COSTS`
/// itself (`blocks`), where the constants fold into its instructions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Costs {
    pub word: u64,
    pub word_slope: u64,
    pub long_word_slope: u64,
    pub prefix: u64,
    pub accented_base: u64,
    pub accented_letter: u64,
    pub cyrillic_base: u64,
    pub cyrillic_letter: u64,
    pub alphabet_base: u64,
    pub alphabet_letter: u64,
    pub no_space: u64,
    pub digit_group: u64,
    pub punct: u64,
    pub punct_slope: u64,
    pub repeat_slope: u64,
    pub space_before_digit: u64,
    pub space_run: u64,
    pub newline: u64,
    pub han: u64,
    pub kana: u64,
    pub thai: u64,
    pub hangul: u64,
    pub hangul_word: u64,
    pub cjk_punct: u64,
    pub symbol: u64,
    pub repeat_symbol: u64,
    pub emoji: u64,
    pub other_space: u64,
    pub escape: u64,
    pub escape_punct: u64,
    pub escape_final: u64,
    pub space_before_escape: u64,
}

/// The costs, measured against o200k_base on `tests/corpus/`.
pub const COSTS: Costs = Costs {
    word: 1_000,
    word_slope: 55,
    long_word_slope: 205,
    prefix: 585,
    accented_base: 1_100,
    accented_letter: 340,
    cyrillic_base: 670,
    cyrillic_letter: 235,
    alphabet_base: 185,
    alphabet_letter: 405,
    no_space: 630,
    digit_group: 1_000,
    punct: 1_000,
    punct_slope: 210,
    repeat_slope: 100,
    space_before_digit: 1_000,
    space_run: 1_000,
    newline: 1_000,
    han: 875,
    kana: 780,
    thai: 530,
    hangul: 640,
    hangul_word: 495,
    cjk_punct: 630,
    symbol: 1_200,
    repeat_symbol: 125,
    emoji: 1_800,
    other_space: 1_000,
    escape: 1_000,
    escape_punct: 1_000,
    escape_final: 1_200,
    space_before_escape: 1_000,
};

/// The estimate of one text, in thousandths of a token.
///
/// The text is cut after its runs of line breaks, where the rule starts
/// afresh: the ASCII stretches go through `blocks`, 64 bytes at a time,
/// each line with other characters through `scan`. Both follow the same
/// rule, so the sum is `scan` of the whole text.
pub fn text_milli_tokens(text: &str) -> u64 {
    let bytes = text.as_bytes();
    let mut total = 0;
    let mut at = 0;
    while at < bytes.len() {
        let Some(other) = bytes::first_non_ascii(&bytes[at..]) else {
            return total + blocks::scan(&bytes[at..]);
        };
        let other = at + other;
        // The line of that character starts after the line break before it.
        let line = bytes[at..other]
            .iter()
            .rposition(|&b| matches!(b, b'\n' | b'\r'))
            .map_or(at, |i| at + i + 1);
        total += blocks::scan(&bytes[at..line]);
        // It ends after the run of line breaks that follows it.
        let mut end = bytes[other..]
            .iter()
            .position(|&b| matches!(b, b'\n' | b'\r'))
            .map_or(bytes.len(), |i| other + i);
        let mut i = end;
        while i < bytes.len() && matches!(bytes[i], b'\n' | b'\r' | b' ' | b'\t') {
            if matches!(bytes[i], b'\n' | b'\r') {
                end = i + 1;
            }
            i += 1;
        }
        total += scan(text.get(line..end).unwrap_or_default(), &COSTS);
        at = end;
    }
    total
}

/// The estimate of one text in whole tokens, rounded up.
pub fn text_tokens(text: &str) -> u64 {
    text_milli_tokens(text).div_ceil(MILLI)
}

/// The thousandths of a token of encrypted reasoning carried back to the
/// provider (OpenAI's `encrypted_content`, Anthropic's `redacted_thinking`
/// data), from the length of its base64 text. The text is not tokenized as
/// such: it stands for the reasoning tokens it encrypts. Codex estimates them
/// as `len * 3/4 - 650` bytes at 4 bytes a token
/// (openai/codex, codex-rs/core/src/context_manager/history.rs,
/// `estimate_reasoning_length`); this is that rule.
pub fn encrypted_milli_tokens(base64_len: usize) -> u64 {
    let bytes = (base64_len as u64 * 3 / 4).saturating_sub(650);
    bytes * MILLI / 4
}

/// Rounds a sum of thousandths up to whole tokens.
pub fn milli_to_tokens(milli: u64) -> u64 {
    milli.div_ceil(MILLI)
}

mod blocks;
pub(crate) mod bytes;
mod classes;
pub mod json;
mod scan;

use scan::scan;

#[cfg(test)]
mod tests;

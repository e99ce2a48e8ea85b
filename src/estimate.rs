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
/// `COSTS`; the type exists so that the tuning against the corpus can vary it.
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

/// What an ASCII byte starts.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Byte {
    Lower,
    Upper,
    Digit,
    Space,
    Newline,
    Punct,
    Escape,
    NonAscii,
}

const BYTES: [Byte; 256] = {
    let mut table = [Byte::NonAscii; 256];
    let mut b = 0;
    while b < 128 {
        table[b] = match b as u8 {
            b'a'..=b'z' => Byte::Lower,
            b'A'..=b'Z' => Byte::Upper,
            b'0'..=b'9' => Byte::Digit,
            b' ' | b'\t' => Byte::Space,
            b'\n' | b'\r' => Byte::Newline,
            0x1B => Byte::Escape,
            _ => Byte::Punct,
        };
        b += 1;
    }
    table
};

/// The script of a non-ASCII character, as far as its cost goes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Script {
    Latin,
    Cyrillic,
    Alphabet,
    Han,
    Kana,
    Hangul,
    Thai,
    CjkPunct,
    Space,
    Emoji,
    Symbol,
}

fn script(code: u32) -> Script {
    let alphabetic = || char::from_u32(code).is_some_and(char::is_alphabetic);
    match code {
        0x00C0..=0x024F | 0x1E00..=0x1EFF if alphabetic() => Script::Latin,
        0x0400..=0x052F => Script::Cyrillic,
        0x0300..=0x036F => Script::Latin, // combining accents
        0x3040..=0x30FF | 0x31F0..=0x31FF | 0xFF66..=0xFF9F => Script::Kana,
        0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF | 0x20000..=0x2FFFF => Script::Han,
        0xAC00..=0xD7AF | 0x1100..=0x11FF | 0x3130..=0x318F => Script::Hangul,
        0x0E00..=0x0E7F => Script::Thai,
        0x3000..=0x303F | 0xFF00..=0xFFEF => Script::CjkPunct,
        0x1F000..=0x1FAFF => Script::Emoji,
        _ if char::from_u32(code).is_some_and(char::is_whitespace) => Script::Space,
        // Letters and the marks that combine with them (Arabic, Hebrew and
        // Indic vowel signs).
        0x0590..=0x0DFF => Script::Alphabet,
        _ if alphabetic() => Script::Alphabet,
        _ => Script::Symbol,
    }
}

/// The code point that starts at `i` (a character boundary, so its bytes are
/// there: `bytes` is UTF-8) and its length in bytes.
#[inline(always)]
fn decode(bytes: &[u8], i: usize) -> (u32, usize) {
    let byte = |k: usize| bytes.get(i + k).map_or(0, |&b| b as u32 & 0x3F);
    let lead = bytes[i] as u32;
    if lead < 0x80 {
        (lead, 1)
    } else if lead < 0xE0 {
        (((lead & 0x1F) << 6) | byte(1), 2)
    } else if lead < 0xF0 {
        (((lead & 0x0F) << 12) | (byte(1) << 6) | byte(2), 3)
    } else {
        let code = ((lead & 0x07) << 18) | (byte(1) << 12) | (byte(2) << 6) | byte(3);
        (code, 4)
    }
}

/// Whether an accented Latin letter starts at `i`, and its length.
fn accented_at(bytes: &[u8], i: usize) -> Option<usize> {
    if bytes[i] < 0x80 {
        return None;
    }
    let (code, width) = decode(bytes, i);
    (script(code) == Script::Latin).then_some(width)
}

/// Whether a Latin letter (ASCII or accented) starts at `i`.
fn latin_at(bytes: &[u8], i: usize) -> bool {
    matches!(BYTES[bytes[i] as usize], Byte::Lower | Byte::Upper) || accented_at(bytes, i).is_some()
}

/// The word of Latin letters from `i`: where it ends, its letters, and
/// whether any is accented. A capital after a small letter starts a new
/// word (camelCase), as the tokenizer cuts it.
fn latin_word(bytes: &[u8], mut i: usize) -> (usize, u64, bool) {
    let mut letters = 0;
    let mut accented = false;
    let mut after_small = false;
    while i < bytes.len() {
        match BYTES[bytes[i] as usize] {
            Byte::Lower => after_small = true,
            Byte::Upper if after_small => break,
            Byte::Upper => {}
            Byte::NonAscii => match accented_at(bytes, i) {
                Some(width) => {
                    accented = true;
                    after_small = true;
                    letters += 1;
                    i += width;
                    continue;
                }
                None => break,
            },
            _ => break,
        }
        letters += 1;
        i += 1;
    }
    (i, letters, accented)
}

fn ascii_word_cost(costs: &Costs, letters: u64, prefixed: bool) -> u64 {
    let slope = if prefixed {
        2 * costs.word_slope
    } else {
        costs.word_slope
    };
    let mid = letters.clamp(3, 12) - 3;
    let long = letters.saturating_sub(12);
    costs.word
        + mid * slope
        + long * costs.long_word_slope
        + if prefixed { costs.prefix } else { 0 }
}

/// The estimate of one text, in thousandths of a token.
pub fn text_milli_tokens(text: &str) -> u64 {
    text_milli_tokens_with(text, &COSTS)
}

/// The state machine of `COSTS` for ASCII text, built at compile time.
static ASCII: ascii::Table = ascii::Table::new(&COSTS);

/// The estimate of one text under other costs (for tuning them).
///
/// The text is cut after its runs of line breaks, where the rule starts
/// afresh: the ASCII stretches go through the state machine of `ascii`, each
/// line with other characters through `scan`. Both follow the same rule, so
/// the sum is `scan` of the whole text.
pub fn text_milli_tokens_with(text: &str, costs: &Costs) -> u64 {
    let built;
    let table = if *costs == COSTS {
        &ASCII
    } else {
        built = ascii::Table::new(costs);
        &built
    };
    let bytes = text.as_bytes();
    let mut total = 0;
    let mut at = 0;
    while at < bytes.len() {
        let Some(other) = bytes[at..].iter().position(|&b| b >= 0x80) else {
            return total + ascii::scan(&bytes[at..], table);
        };
        let other = at + other;
        // The line of that character starts after the line break before it.
        let line = bytes[at..other]
            .iter()
            .rposition(|&b| matches!(b, b'\n' | b'\r'))
            .map_or(at, |i| at + i + 1);
        total += ascii::scan(&bytes[at..line], table);
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
        total += scan(text.get(line..end).unwrap_or_default(), costs);
        at = end;
    }
    total
}

/// The rule over any text, one piece at a time.
fn scan(text: &str, costs: &Costs) -> u64 {
    let bytes = text.as_bytes();
    let len = bytes.len();
    let mut total: u64 = 0;
    let mut i = 0;
    // What came just before `i`: a space, and a run of punctuation.
    let mut after_space = false;
    let mut after_punct = false;
    // A single punctuation character waiting to join the next word.
    let mut prefixed = false;
    while i < len {
        let kind = BYTES[bytes[i] as usize];
        let (space, punct) = (kind == Byte::Space, kind == Byte::Punct);
        match kind {
            Byte::Lower | Byte::Upper => {
                let (end, letters, accented) = latin_word(bytes, i);
                i = end;
                total += word_cost(costs, letters, accented, prefixed, after_space);
            }
            Byte::Digit => {
                let start = i;
                while i < len && bytes[i].is_ascii_digit() {
                    i += 1;
                }
                total += ((i - start) as u64).div_ceil(3) * costs.digit_group;
            }
            Byte::Space => {
                let start = i;
                while i < len && matches!(bytes[i], b' ' | b'\t') {
                    i += 1;
                }
                let next = bytes.get(i).map(|&b| BYTES[b as usize]);
                total += match next {
                    Some(Byte::Newline) => 0,
                    None => costs.space_run,
                    Some(Byte::Digit) if i - start == 1 => costs.space_before_digit,
                    Some(Byte::Digit) => costs.space_run + costs.space_before_digit,
                    Some(Byte::Escape) if i - start == 1 => costs.space_before_escape,
                    Some(Byte::Escape) => costs.space_run + costs.space_before_escape,
                    _ if i - start == 1 => 0,
                    _ => costs.space_run,
                };
            }
            Byte::Newline => {
                // Line breaks with blank space between them are one run.
                let mut end = i;
                while end < len && matches!(bytes[end], b'\n' | b'\r' | b' ' | b'\t') {
                    if matches!(bytes[end], b'\n' | b'\r') {
                        i = end + 1;
                    }
                    end += 1;
                }
                if !after_punct {
                    total += costs.newline;
                }
            }
            Byte::Punct => {
                let start = i;
                // Past the 2nd character, one that repeats the character
                // before it (`-----`) costs less than a new one.
                let mut extra = 0;
                while i < len && BYTES[bytes[i] as usize] == Byte::Punct {
                    if i - start >= 2 {
                        extra += if bytes[i] == bytes[i - 1] {
                            costs.repeat_slope
                        } else {
                            costs.punct_slope
                        };
                    }
                    i += 1;
                }
                if i - start == 1 && i < len && latin_at(bytes, i) {
                    prefixed = true;
                    after_space = false;
                    after_punct = false;
                    continue;
                }
                total += costs.punct + extra;
            }
            Byte::Escape => {
                i += 1;
                total += costs.escape;
                if i < len && BYTES[bytes[i] as usize] == Byte::Punct {
                    i += 1;
                    total += costs.escape_punct + escape_rest(bytes, &mut i, costs);
                }
            }
            Byte::NonAscii => {
                let (code, width) = decode(bytes, i);
                let kind = script(code);
                let start = i;
                i += width;
                match kind {
                    Script::Latin => {
                        let (end, letters, _) = latin_word(bytes, start);
                        i = end;
                        total += word_cost(costs, letters, true, prefixed, after_space);
                    }
                    Script::Cyrillic | Script::Alphabet | Script::Hangul => {
                        let mut letters = 1;
                        while i < len && bytes[i] >= 0x80 {
                            let (next, width) = decode(bytes, i);
                            if script(next) != kind {
                                break;
                            }
                            letters += 1;
                            i += width;
                        }
                        let (base, letter) = match kind {
                            Script::Cyrillic => (costs.cyrillic_base, costs.cyrillic_letter),
                            Script::Hangul => (costs.hangul_word, costs.hangul),
                            _ => (costs.alphabet_base, costs.alphabet_letter),
                        };
                        let no_space = kind != Script::Hangul && !after_space;
                        total +=
                            base + letters * letter + if no_space { costs.no_space } else { 0 };
                    }
                    Script::Han => total += costs.han,
                    Script::Kana => total += costs.kana,
                    Script::Thai => total += costs.thai,
                    Script::CjkPunct => total += costs.cjk_punct,
                    Script::Emoji => total += costs.emoji,
                    Script::Space => total += costs.other_space,
                    Script::Symbol => {
                        let repeated = text
                            .get(..start)
                            .unwrap_or_default()
                            .ends_with(char::from_u32(code).unwrap_or('\u{FFFD}'));
                        total += if repeated {
                            costs.repeat_symbol
                        } else {
                            costs.symbol
                        };
                    }
                }
            }
        }
        after_space = space;
        after_punct = punct;
        prefixed = false;
    }
    total
}

/// The parameters and the final letter of an escape sequence, from `i`
/// (after its opening punctuation) to the byte after it. Digits count in
/// groups of three, as anywhere; a byte of any other class ends the sequence
/// without belonging to it.
fn escape_rest(bytes: &[u8], i: &mut usize, costs: &Costs) -> u64 {
    let mut total = 0;
    let mut digits = 0;
    while let Some(&byte) = bytes.get(*i) {
        match BYTES[byte as usize] {
            Byte::Digit => {
                if digits % 3 == 0 {
                    total += costs.digit_group;
                }
                digits += 1;
            }
            Byte::Punct => {
                total += costs.escape_punct;
                digits = 0;
            }
            Byte::Lower | Byte::Upper => {
                *i += 1;
                return total + costs.escape_final;
            }
            _ => return total,
        }
        *i += 1;
    }
    total
}

/// What a word of Latin letters costs.
fn word_cost(
    costs: &Costs,
    letters: u64,
    accented: bool,
    prefixed: bool,
    after_space: bool,
) -> u64 {
    if !accented {
        return ascii_word_cost(costs, letters, prefixed);
    }
    costs.accented_base
        + letters * costs.accented_letter
        + if prefixed { costs.prefix } else { 0 }
        + if after_space || prefixed {
            0
        } else {
            costs.no_space
        }
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

mod ascii;
pub mod json;

#[cfg(test)]
mod tests;

//! The estimate's rule over any text, one piece at a time: a word, a group
//! of digits, a run of spaces, line breaks or punctuation, an escape
//! sequence, or a piece of another script. `blocks` follows the same rule on
//! ASCII text 64 bytes at a time; the module's documentation says what each
//! piece costs.

use super::bytes::{Byte, BYTES};
use super::Costs;

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

pub(super) fn ascii_word_cost(costs: &Costs, letters: u64, prefixed: bool) -> u64 {
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

/// What came just before a piece, as far as its cost goes.
#[derive(Clone, Copy, Default)]
struct Before {
    /// A space or a tab.
    space: bool,
    /// A run of punctuation (a line break after it is free).
    punct: bool,
    /// A single punctuation character, waiting to join the word that follows.
    prefix: bool,
}

/// The rule over any text, one piece at a time.
pub fn scan(text: &str, costs: &Costs) -> u64 {
    let bytes = text.as_bytes();
    let mut total: u64 = 0;
    let mut i = 0;
    let mut before = Before::default();
    while i < bytes.len() {
        let kind = BYTES[bytes[i] as usize];
        total += match kind {
            Byte::Lower | Byte::Upper => {
                let (end, letters, accented) = latin_word(bytes, i);
                i = end;
                word_cost(costs, letters, accented, before.prefix, before.space)
            }
            Byte::Digit => digits(bytes, &mut i, costs),
            Byte::Space => spaces(bytes, &mut i, costs),
            Byte::Newline => line_breaks(bytes, &mut i, costs, before.punct),
            Byte::Punct => match punctuation(bytes, &mut i, costs) {
                Some(cost) => cost,
                None => {
                    before = Before {
                        prefix: true,
                        ..Before::default()
                    };
                    continue;
                }
            },
            Byte::Escape => escape(bytes, &mut i, costs),
            Byte::NonAscii => non_ascii(text, &mut i, costs, before),
        };
        before = Before {
            space: kind == Byte::Space,
            punct: kind == Byte::Punct,
            prefix: false,
        };
    }
    total
}

/// A run of digits from `i`: a token for each group of up to three.
fn digits(bytes: &[u8], i: &mut usize, costs: &Costs) -> u64 {
    let start = *i;
    while *i < bytes.len() && bytes[*i].is_ascii_digit() {
        *i += 1;
    }
    ((*i - start) as u64).div_ceil(3) * costs.digit_group
}

/// A run of spaces and tabs from `i`, priced by what follows it: one space
/// joins a word or punctuation, and spaces before a line break join it.
fn spaces(bytes: &[u8], i: &mut usize, costs: &Costs) -> u64 {
    let start = *i;
    while *i < bytes.len() && matches!(bytes[*i], b' ' | b'\t') {
        *i += 1;
    }
    let one = *i - start == 1;
    match bytes.get(*i).map(|&b| BYTES[b as usize]) {
        Some(Byte::Newline) => 0,
        None => costs.space_run,
        Some(Byte::Digit) if one => costs.space_before_digit,
        Some(Byte::Digit) => costs.space_run + costs.space_before_digit,
        Some(Byte::Escape) if one => costs.space_before_escape,
        Some(Byte::Escape) => costs.space_run + costs.space_before_escape,
        _ if one => 0,
        _ => costs.space_run,
    }
}

/// A run of line breaks from `i`, with the blank space between them: one
/// token, none right after punctuation (`;\n`).
fn line_breaks(bytes: &[u8], i: &mut usize, costs: &Costs, after_punct: bool) -> u64 {
    let mut end = *i;
    while end < bytes.len() && matches!(bytes[end], b'\n' | b'\r' | b' ' | b'\t') {
        if matches!(bytes[end], b'\n' | b'\r') {
            *i = end + 1;
        }
        end += 1;
    }
    if after_punct {
        0
    } else {
        costs.newline
    }
}

/// A run of punctuation from `i`, or `None` for a single character that
/// joins the Latin word right after it (`.map`).
fn punctuation(bytes: &[u8], i: &mut usize, costs: &Costs) -> Option<u64> {
    let start = *i;
    // Past the 2nd character, one that repeats the character before it
    // (`-----`) costs less than a new one.
    let mut extra = 0;
    while *i < bytes.len() && BYTES[bytes[*i] as usize] == Byte::Punct {
        if *i - start >= 2 {
            extra += if bytes[*i] == bytes[*i - 1] {
                costs.repeat_slope
            } else {
                costs.punct_slope
            };
        }
        *i += 1;
    }
    if *i - start == 1 && *i < bytes.len() && latin_at(bytes, *i) {
        return None;
    }
    Some(costs.punct + extra)
}

/// ESC from `i`, and the sequence it opens when punctuation follows it.
fn escape(bytes: &[u8], i: &mut usize, costs: &Costs) -> u64 {
    *i += 1;
    if *i < bytes.len() && BYTES[bytes[*i] as usize] == Byte::Punct {
        *i += 1;
        return costs.escape + costs.escape_punct + escape_rest(bytes, i, costs);
    }
    costs.escape
}

/// The piece that starts with the non-ASCII character at `i`: a word of its
/// alphabet, or that one character.
fn non_ascii(text: &str, i: &mut usize, costs: &Costs, before: Before) -> u64 {
    let bytes = text.as_bytes();
    let start = *i;
    let (code, width) = decode(bytes, start);
    let kind = script(code);
    *i += width;
    match kind {
        Script::Latin => {
            let (end, letters, _) = latin_word(bytes, start);
            *i = end;
            word_cost(costs, letters, true, before.prefix, before.space)
        }
        Script::Cyrillic | Script::Alphabet | Script::Hangul => {
            let mut letters = 1;
            while *i < bytes.len() && bytes[*i] >= 0x80 {
                let (next, width) = decode(bytes, *i);
                if script(next) != kind {
                    break;
                }
                letters += 1;
                *i += width;
            }
            let (base, letter) = match kind {
                Script::Cyrillic => (costs.cyrillic_base, costs.cyrillic_letter),
                Script::Hangul => (costs.hangul_word, costs.hangul),
                _ => (costs.alphabet_base, costs.alphabet_letter),
            };
            let no_space = kind != Script::Hangul && !before.space;
            base + letters * letter + if no_space { costs.no_space } else { 0 }
        }
        Script::Han => costs.han,
        Script::Kana => costs.kana,
        Script::Thai => costs.thai,
        Script::CjkPunct => costs.cjk_punct,
        Script::Emoji => costs.emoji,
        Script::Space => costs.other_space,
        Script::Symbol => {
            let repeated = text
                .get(..start)
                .unwrap_or_default()
                .ends_with(char::from_u32(code).unwrap_or('\u{FFFD}'));
            if repeated {
                costs.repeat_symbol
            } else {
                costs.symbol
            }
        }
    }
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

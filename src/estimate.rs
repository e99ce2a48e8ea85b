//! The token estimate: a script-aware count of what the model sees, cheap
//! enough to run on every turn.
//!
//! The rule, in thousandths of a token so that sums stay integers:
//! - a run of ASCII letters is a word: one token, plus one more for every
//!   `LETTERS_PER_EXTRA_TOKEN` letters past the first `WORD_FREE_LETTERS`
//!   (common English words are one token, long identifiers several);
//! - a run of digits costs one token per three digits (tokenizers split
//!   numbers into groups of up to three);
//! - ASCII punctuation costs `PUNCTUATION` each (code is dense in it);
//! - a single space before a word is free; longer runs of spaces or tabs and
//!   each line break cost `WHITESPACE_RUN`;
//! - Han, kana and Hangul characters cost `CJK` each;
//! - other letters (Cyrillic, Greek, Arabic, Devanagari, accented Latin) cost
//!   `OTHER_LETTER` each;
//! - anything else (emoji, symbols) costs `SYMBOL` each.
//!
//! A message adds `MESSAGE_OVERHEAD` for its role and framing, and every image,
//! file or audio part costs `ATTACHMENT_TOKENS`, whatever its size.

/// Tokens every message costs for its role and framing.
pub const MESSAGE_OVERHEAD: u64 = 4;
/// Tokens an image, file or audio part is counted as (about what OpenAI
/// charges for one high-detail 1024×1024 image).
pub const ATTACHMENT_TOKENS: u64 = 1_000;

const MILLI: u64 = 1_000;
const WORD_FREE_LETTERS: usize = 6;
const LETTERS_PER_EXTRA_TOKEN: usize = 4;
const PUNCTUATION: u64 = 700;
const WHITESPACE_RUN: u64 = 500;
const DIGIT_GROUP: u64 = 1_000;
const CJK: u64 = 900;
const OTHER_LETTER: u64 = 350;
const SYMBOL: u64 = 1_500;

/// The estimate of one text, in thousandths of a token.
pub fn text_milli_tokens(text: &str) -> u64 {
    let bytes = text.as_bytes();
    let mut total: u64 = 0;
    let mut i = 0;
    while i < bytes.len() {
        let byte = bytes[i];
        if byte.is_ascii_alphabetic() {
            let start = i;
            while i < bytes.len() && bytes[i].is_ascii_alphabetic() {
                i += 1;
            }
            total += word_cost(i - start);
        } else if byte.is_ascii_digit() {
            let start = i;
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                i += 1;
            }
            total += ((i - start).div_ceil(3) as u64) * DIGIT_GROUP;
        } else if byte == b' ' || byte == b'\t' {
            let start = i;
            while i < bytes.len() && (bytes[i] == b' ' || bytes[i] == b'\t') {
                i += 1;
            }
            let single_space_before_word =
                i - start == 1 && i < bytes.len() && bytes[i].is_ascii_alphanumeric();
            if !single_space_before_word {
                total += WHITESPACE_RUN;
            }
        } else if byte == b'\n' || byte == b'\r' {
            while i < bytes.len() && (bytes[i] == b'\n' || bytes[i] == b'\r') {
                i += 1;
            }
            total += WHITESPACE_RUN;
        } else if byte.is_ascii() {
            i += 1;
            total += if byte.is_ascii_control() {
                SYMBOL
            } else {
                PUNCTUATION
            };
        } else {
            // Multi-byte UTF-8: decode one character. `text` is valid UTF-8, so
            // the slice from a character boundary always holds one.
            let rest = &text[i..];
            let character = rest.chars().next().unwrap_or('\u{FFFD}');
            i += character.len_utf8();
            total += char_cost(character);
        }
    }
    total
}

/// The estimate of one text in whole tokens, rounded up.
pub fn text_tokens(text: &str) -> u64 {
    text_milli_tokens(text).div_ceil(MILLI)
}

/// Rounds a sum of thousandths up to whole tokens.
pub fn milli_to_tokens(milli: u64) -> u64 {
    milli.div_ceil(MILLI)
}

fn word_cost(letters: usize) -> u64 {
    let extra = letters
        .saturating_sub(WORD_FREE_LETTERS)
        .div_ceil(LETTERS_PER_EXTRA_TOKEN);
    MILLI * (1 + extra as u64)
}

fn char_cost(character: char) -> u64 {
    let code = character as u32;
    let is_cjk = matches!(code,
        0x3040..=0x30FF      // Hiragana, Katakana
        | 0x3400..=0x4DBF    // Han extension A
        | 0x4E00..=0x9FFF    // Han
        | 0xAC00..=0xD7AF    // Hangul syllables
        | 0xF900..=0xFAFF    // Han compatibility
        | 0x20000..=0x2FFFF  // Han extensions B and later
    );
    if is_cjk {
        CJK
    } else if character.is_alphabetic() {
        OTHER_LETTER
    } else if matches!(code, 0x3000..=0x303F | 0xFF00..=0xFFEF) {
        // CJK punctuation and full-width forms.
        CJK
    } else if character.is_whitespace() {
        WHITESPACE_RUN
    } else {
        SYMBOL
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_text_is_free() {
        assert_eq!(text_tokens(""), 0);
    }

    #[test]
    fn common_english_words_are_one_token_each() {
        assert_eq!(text_tokens("the cat sat on the mat"), 6);
    }

    #[test]
    fn cjk_costs_about_a_token_a_character() {
        let chinese = "这是一个关于上下文压缩的测试句子";
        let tokens = text_tokens(chinese);
        let chars = chinese.chars().count() as u64;
        assert!(
            tokens >= chars * 8 / 10 && tokens <= chars,
            "{tokens} for {chars} chars"
        );
        // Far more than length/4 would say.
        assert!(tokens > (chinese.len() as u64) / 4);
    }

    #[test]
    fn code_costs_more_than_prose_of_the_same_length() {
        let code = "fn main() { let x = vec![1, 2, 3]; println!(\"{:?}\", x); }";
        let prose = "Here is a sentence of about the same length as the code.";
        assert!(text_tokens(code) > text_tokens(prose));
    }

    #[test]
    fn the_estimate_is_additive_at_word_boundaries() {
        let a = "first part\n";
        let b = "second part\n";
        assert_eq!(
            text_milli_tokens(&format!("{a}{b}")),
            text_milli_tokens(a) + text_milli_tokens(b)
        );
    }
}

use super::scan::ascii_word_cost;
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
fn long_words_and_identifiers_cost_more() {
    assert!(text_milli_tokens("internationalization") > 2 * MILLI);
    // camelCase is several words, as the tokenizer cuts it.
    assert!(text_milli_tokens("getElementById") >= 4 * MILLI);
    assert_eq!(
        text_milli_tokens("HTTPServer"),
        ascii_word_cost(&COSTS, 10, false)
    );
}

#[test]
fn digits_cost_a_token_a_group_of_three() {
    assert_eq!(text_tokens("1234567"), 3);
    // A space before a number is a token of its own.
    assert_eq!(text_tokens("x 42"), 3);
}

#[test]
fn punctuation_joins_the_next_word_and_the_line_break() {
    assert!(text_milli_tokens(".map") < text_milli_tokens(". map"));
    assert_eq!(text_milli_tokens("a;\n"), text_milli_tokens("a;"));
    assert_eq!(text_milli_tokens("a\n"), 2 * MILLI);
}

#[test]
fn indentation_is_one_token_a_line() {
    assert_eq!(
        text_milli_tokens("{\n        return x;\n}"),
        text_milli_tokens("{\n  return x;\n}")
    );
}

#[test]
fn cjk_costs_about_a_token_a_character() {
    let chinese = "这是一个关于上下文压缩的测试句子";
    let tokens = text_tokens(chinese);
    let chars = chinese.chars().count() as u64;
    assert!(
        tokens >= chars * 6 / 10 && tokens <= chars,
        "{tokens} for {chars} chars"
    );
    // Far more than a count of characters / 4 would say.
    assert!(tokens > 2 * chars / 4);
}

#[test]
fn other_alphabets_cost_by_word_and_letter() {
    // Greek and Cyrillic words cost more than English words of the same
    // length: the tokenizer knows fewer of them.
    assert!(text_milli_tokens(" αυτό") > text_milli_tokens(" this"));
    assert!(text_milli_tokens(" привет") > text_milli_tokens(" hello"));
    assert!(text_milli_tokens(" über") > text_milli_tokens(" uber"));
}

#[test]
fn code_costs_more_than_prose_of_the_same_length() {
    let code = "fn main() { let x = vec![1, 2, 3]; println!(\"{:?}\", x); }";
    let prose = "Here is a sentence of about the same length as the code.";
    assert!(text_tokens(code) > text_tokens(prose));
}

#[test]
fn the_estimate_is_additive_at_line_boundaries() {
    let a = "first part\n";
    let b = "second part\n";
    assert_eq!(
        text_milli_tokens(&format!("{a}{b}")),
        text_milli_tokens(a) + text_milli_tokens(b)
    );
}

#[test]
fn any_text_is_estimated_without_panicking() {
    use proptest::prelude::*;
    proptest!(|(text in any::<String>())| {
        let estimate = text_milli_tokens(&text);
        // Never more than two tokens a byte, never nothing for a non-empty text.
        prop_assert!(estimate <= 2 * MILLI * text.len() as u64);
        prop_assert_eq!(estimate == 0, text.is_empty());
    });
}

#[test]
fn the_state_machine_follows_the_rule_of_the_general_scan() {
    use proptest::prelude::*;
    // Mostly ASCII, with the characters that change the ASCII pass's
    // choices, and now and then a non-ASCII one.
    let piece = prop::sample::select(vec![
        "a",
        "Z",
        "ab",
        "Word",
        "camelCase",
        "HTTPServer",
        "internationalization",
        "7",
        "2026",
        " ",
        "  ",
        "\t",
        "\n",
        "\r\n",
        "\n  \n",
        ".",
        "..",
        "--",
        "==-=",
        "(",
        "_",
        ";",
        "é",
        "中",
        "—",
        "привет",
    ]);
    follows_the_general_scan(piece, "[ -~\n\t]{0,64}");
}

#[test]
fn escape_sequences_cost_what_o200k_base_makes_of_them() {
    // o200k_base's token counts (gpt-tokenizer 4.0.0): ESC, the opening `[`,
    // each parameter's punctuation, each group of up to three digits and the
    // final letter are a token each.
    let measured = [
        ("\u{1b}[31m", 4),
        ("\u{1b}[1m", 4),
        ("\u{1b}[22m", 4),
        ("\u{1b}[39m", 4),
        ("\u{1b}[2K", 4),
        ("\u{1b}[38;5;208m", 8),
        ("\u{1b}[0m", 4),
        ("\u{1b}[m", 3),
        ("\u{1b}[?25l", 5),
        ("\u{1b}[?2004h", 6),
        ("\u{1b}[38;2;255;0;0m", 12),
        ("\u{1b}[31m\u{1b}[1m", 8),
        ("\u{1b}[01;31m\u{1b}[K\u{1b}[m\u{1b}[K", 15),
        // A space before ESC is a token of its own, two spaces two.
        (" \u{1b}[0m", 5),
        ("  \u{1b}[0m", 6),
    ];
    // The final letter is priced 0.2 over what o200k_base makes of it: the
    // plain text between the sequences of real coloured output comes out a
    // little under o200k_base, and the margin keeps the whole above it.
    let margin = COSTS.escape_final - MILLI;
    for (text, tokens) in measured {
        let sequences = text.matches('\u{1b}').count() as u64;
        assert_eq!(
            text_milli_tokens(text),
            tokens * MILLI + sequences * margin,
            "{text:?}"
        );
    }
    // Nothing joins a sequence on either side (`foo|\x1b|[|31|m|error`), so
    // it adds its own cost to that of the text around it.
    for before in ["", "foo", "'", ":", "(", "\n", "\u{1b}[1m"] {
        for after in [
            "",
            "error",
            "AssertionError",
            " x",
            "\n",
            ": ",
            "1",
            "\u{1b}[22m",
        ] {
            let text = format!("{before}\u{1b}[31m{after}");
            assert_eq!(
                text_milli_tokens(&text),
                text_milli_tokens(before) + 4 * MILLI + margin + text_milli_tokens(after),
                "{text:?}"
            );
        }
    }
    // A vitest failure line: 26 tokens, and 26 estimated, margin included (21
    // before escape sequences had a rule of their own).
    let line = "\u{1b}[31m\u{1b}[1mAssertionError\u{1b}[22m: expected '' to be '??'\u{1b}[39m";
    assert_eq!(text_tokens(line), 26);
}

#[test]
fn text_with_escapes_follows_the_same_rule_in_the_state_machine() {
    use proptest::prelude::*;
    let piece = prop::sample::select(vec![
        "\u{1b}",
        "\u{1b}[",
        "\u{1b}[0m",
        "\u{1b}[38;5;208m",
        "\u{1b}]8;;",
        "[",
        ";",
        "1234",
        "m",
        "K",
        "word",
        " ",
        "  ",
        "\n",
        "'",
        ":",
        "✓",
    ]);
    follows_the_general_scan(piece, "[\u{1b} -~\n\t]{0,64}");
}

/// That the estimate (its ASCII stretches priced by `blocks`) gives the
/// general scan's answer on texts of up to 40 of the pieces, and on texts
/// of the characters `chars` (a regex).
fn follows_the_general_scan(
    piece: impl proptest::strategy::Strategy<Value = &'static str>,
    chars: &'static str,
) {
    use proptest::prelude::*;
    proptest!(|(pieces in prop::collection::vec(piece, 0..40))| {
        let text: String = pieces.concat();
        prop_assert_eq!(text_milli_tokens(&text), scan(&text, &COSTS), "{:?}", text);
    });
    proptest!(|(text in chars)| {
        prop_assert_eq!(text_milli_tokens(&text), scan(&text, &COSTS), "{:?}", text);
    });
}

#[test]
fn the_fast_pass_follows_the_general_scan_on_long_runs() {
    use proptest::prelude::*;
    // The pieces that the fast pass treats in bulk or at its edges: long
    // runs of each kind of byte (past 8 and 13, the lengths where its
    // search and a word's cost change), camelCase, repeated punctuation,
    // escape sequences, every kind of line break, and now and then a
    // character that is not ASCII, which cuts the text into stretches.
    let piece = prop::sample::select(vec![
        "a",
        "abcdefg",
        "abcdefghijklmnopqrstuvwxyz",
        "ABCDEFGHIJKLMNOP",
        "camelCaseIdentifierName",
        "getHTTPResponseCode",
        "0",
        "123456789",
        "3141592653589793238462643",
        " ",
        "        ",
        "                         ",
        "\t\t",
        " \t ",
        "\n",
        "\r\n",
        "\n\n\n",
        "\n    ",
        ".",
        "-----------------",
        "=-=-=-=-",
        "::",
        "();",
        "\u{1b}[38;5;208m",
        "\u{1b}[0m",
        "\u{1b}",
        "é",
        "中",
        "\u{a0}",
        "🙂",
    ]);
    proptest!(ProptestConfig::with_cases(1_000), |(pieces in prop::collection::vec(piece, 0..60))| {
        let text: String = pieces.concat();
        prop_assert_eq!(text_milli_tokens(&text), scan(&text, &COSTS), "{:?}", text);
    });
}

#[test]
fn the_fast_pass_follows_the_general_scan_on_every_corpus_text() {
    use proptest::prelude::*;
    let corpus = corpus_texts();
    assert!(corpus.len() >= 20, "{} corpus texts", corpus.len());
    for text in &corpus {
        assert_eq!(text_milli_tokens(text), scan(text, &COSTS));
    }
    // Cut at random character boundaries, so that every stretch starts and
    // ends anywhere: in a word, a run, an escape sequence, a line.
    proptest!(ProptestConfig::with_cases(2_000), |(which in 0..corpus.len(), from in 0.0..1.0f64, length in 0usize..3_000)| {
        let text = &corpus[which];
        let start = char_boundary(text, (from * text.len() as f64) as usize);
        let end = char_boundary(text, start + length);
        let cut = text.get(start..end).unwrap_or_default();
        prop_assert_eq!(text_milli_tokens(cut), scan(cut, &COSTS), "{:?}", cut);
    });
}

#[test]
fn the_search_for_a_byte_beyond_ascii_finds_the_first() {
    use proptest::prelude::*;
    // Short and long texts (the search reads eight bytes at a time, the
    // last few one at a time), with bytes beyond ASCII anywhere.
    proptest!(|(bytes in prop::collection::vec(prop_oneof![8 => 0u8..0x80, 1 => 0x80u8..=0xFF], 0..80))| {
        prop_assert_eq!(
            bytes::first_non_ascii(&bytes),
            bytes.iter().position(|&b| b >= 0x80)
        );
    });
}

/// The texts of `tests/corpus/`, one for each file.
fn corpus_texts() -> Vec<String> {
    let mut texts = Vec::new();
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/corpus");
    for folder in std::fs::read_dir(root).expect("tests/corpus") {
        let folder = folder.expect("a corpus folder").path();
        if !folder.is_dir() {
            continue;
        }
        for file in std::fs::read_dir(&folder).expect("a corpus folder") {
            let path = file.expect("a corpus file").path();
            texts.push(std::fs::read_to_string(&path).expect("a corpus text"));
        }
    }
    texts
}

/// The first character boundary of `text` at or after `at`.
fn char_boundary(text: &str, at: usize) -> usize {
    (at.min(text.len())..=text.len())
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(text.len())
}

#[test]
fn the_block_pass_follows_the_general_scan_across_block_edges() {
    use proptest::prelude::*;
    // Pieces long enough to straddle the edges of 64-byte blocks, after a
    // filler of any length, so that every piece starts and ends anywhere in
    // a block: words, digits, punctuation, blanks and line breaks, runs of
    // each from 1 to 140 bytes, and escape sequences that the block pass
    // hands to the machine and takes back.
    let run = |unit: &'static str| (1usize..140).prop_map(move |n| unit.repeat(n));
    let piece = prop_oneof![
        run("a"),
        run("Z"),
        run("aB"),
        run("7"),
        run("-"),
        run("=-"),
        run(";"),
        run(" "),
        run("\t "),
        run("\n"),
        run("\r\n"),
        run("\n "),
        run(".x"),
        run("(Ab"),
        run("\u{1b}[1;31m"),
        run("\u{1b}"),
        run("\u{1b}[12345"),
        "[ -~\n\r\t\u{1b}]{1,80}",
    ];
    proptest!(ProptestConfig::with_cases(3_000), |(filler in 0usize..64, pieces in prop::collection::vec(piece, 1..8))| {
        let text = "x".repeat(filler) + &pieces.concat();
        prop_assert_eq!(blocks::scan(text.as_bytes()), scan(&text, &COSTS), "{:?}", text);
    });
    // Texts of 60 to 400 bytes of the bytes whose order matters, each next
    // to every other at every place in a block.
    proptest!(ProptestConfig::with_cases(3_000), |(text in "[aBz0 \t\n\r.;\u{1b}-]{60,400}")| {
        prop_assert_eq!(blocks::scan(text.as_bytes()), scan(&text, &COSTS), "{:?}", text);
    });
}

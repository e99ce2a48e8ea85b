//! The estimate of a free-form JSON value (tool inputs and JSON tool
//! outputs), counted as its compact JSON text would be.
//!
//! It comes in two steps. A walk writes the value out as a tape: what it
//! visits, depth first, each string, number (as JS prints it) and key as its
//! text and each container, element and literal as a tag. Then the tape is
//! priced (`tape_milli`). A node is walked here (`write_tape`, through
//! `Node::json_milli`); a JS value is walked in JS, which writes the tape in
//! one call where the walk here crosses into JS for every value
//! (`jsonTape` in `src/bindings/guarded.js`).

use crate::node::{BoundedWalk, Kind, Node};
use crate::util::number::number_text;

use super::text_milli_tokens;

/// What the punctuation of compact JSON costs, in thousandths of a token. The
/// tokenizer makes one token of each run between two values (`":"`, `","`,
/// `"},{"`), so a member costs about two, an element one, and brackets mostly
/// join the runs beside them.
const JSON_MEMBER: u64 = 2_000;
const JSON_ELEMENT: u64 = 1_000;
const JSON_CONTAINER: u64 = 500;
const JSON_LITERAL: u64 = 1_000;

/// The tape's tags. A text (a string's, a number's as JS prints it) and a
/// key are followed by their UTF-8 length (4 bytes, little-endian) and
/// their bytes; the others stand alone.
pub const TAPE_TEXT: u8 = 1;
/// An object's key; the member it starts costs `JSON_MEMBER` more.
pub const TAPE_KEY: u8 = 2;
/// An array or an object.
pub const TAPE_CONTAINER: u8 = 3;
/// An element of an array read (the value after it may be cut off).
pub const TAPE_ELEMENT: u8 = 4;
/// A boolean, a null, or a number with no text.
pub const TAPE_LITERAL: u8 = 5;
/// A text, and a key, too long to copy into a tape: followed by an index
/// (4 bytes, little-endian) that `tape_milli`'s `side` prices. JS writes
/// them, so that a value that holds one long string many times is not
/// copied as many times; the walk here writes none.
pub const TAPE_SIDE_TEXT: u8 = 6;
pub const TAPE_SIDE_KEY: u8 = 7;

/// The estimate, in thousandths of a token, of a free-form JSON value:
/// keys and strings by the text rule, punctuation by the runs it makes.
/// Bounded in depth and size (`BoundedWalk`), so cycles and huge objects
/// cannot hang it.
pub fn json_milli_tokens<N: Node>(value: &N) -> u64 {
    value.json_milli()
}

/// `json_milli_tokens` of a node walked here.
pub fn walked_json_milli<N: Node>(value: &N) -> u64 {
    let mut tape = Vec::new();
    write_tape(value, &mut tape);
    tape_milli(&tape, |_| 0)
}

/// What the values on a tape cost, in thousandths of a token, with `side`
/// pricing the side texts by their index. A tape cut short ends the count.
pub fn tape_milli(tape: &[u8], mut side: impl FnMut(u32) -> u64) -> u64 {
    let mut total = 0;
    let mut rest = tape;
    while let Some((&tag, after)) = rest.split_first() {
        rest = after;
        let member = match tag {
            TAPE_KEY | TAPE_SIDE_KEY => JSON_MEMBER,
            _ => 0,
        };
        total += member
            + match tag {
                TAPE_CONTAINER => JSON_CONTAINER,
                TAPE_ELEMENT => JSON_ELEMENT,
                TAPE_LITERAL => JSON_LITERAL,
                TAPE_TEXT | TAPE_KEY => {
                    let Some((text, after)) = tape_text(rest) else {
                        break;
                    };
                    rest = after;
                    text_milli_tokens(text)
                }
                TAPE_SIDE_TEXT | TAPE_SIDE_KEY => {
                    let Some((index, after)) = rest.split_first_chunk::<4>() else {
                        break;
                    };
                    rest = after;
                    side(u32::from_le_bytes(*index))
                }
                _ => break,
            };
    }
    total
}

/// The text at the start of `tape` (its length, then its bytes), and the
/// tape after it.
fn tape_text(tape: &[u8]) -> Option<(&str, &[u8])> {
    let (length, rest) = tape.split_first_chunk::<4>()?;
    let length = u32::from_le_bytes(*length) as usize;
    let (text, rest) = (rest.get(..length)?, rest.get(length..)?);
    Some((std::str::from_utf8(text).ok()?, rest))
}

/// Writes `value`'s tape: depth first, within `BoundedWalk`'s bounds. A
/// value past them is left out; the element or member that holds it is not.
/// An element whose read throws is left out, and so is the value of a
/// member whose read throws, or that is undefined.
pub fn write_tape<N: Node>(value: &N, tape: &mut Vec<u8>) {
    write_value(value, 0, &mut BoundedWalk::default(), tape);
}

fn write_value<N: Node>(value: &N, depth: usize, walk: &mut BoundedWalk, tape: &mut Vec<u8>) {
    if !walk.visit(depth) {
        return;
    }
    match value.kind() {
        Kind::String => {
            if let Some(text) = value.text() {
                write_text(tape, TAPE_TEXT, &text);
            }
        }
        Kind::Number => match value.number() {
            Some(number) => write_text(tape, TAPE_TEXT, &number_text(number)),
            None => tape.push(TAPE_LITERAL),
        },
        Kind::Bool | Kind::Null => tape.push(TAPE_LITERAL),
        Kind::Array => {
            tape.push(TAPE_CONTAINER);
            for i in 0..value.array_len().unwrap_or(0) {
                if walk.spent() {
                    break;
                }
                if let Ok(item) = value.item(i) {
                    tape.push(TAPE_ELEMENT);
                    write_value(&item, depth + 1, walk, tape);
                }
            }
        }
        Kind::Object => {
            tape.push(TAPE_CONTAINER);
            for key in value.keys().unwrap_or_default() {
                if walk.spent() {
                    break;
                }
                write_text(tape, TAPE_KEY, &key);
                if let Ok(Some(child)) = value.field(&key) {
                    write_value(&child, depth + 1, walk, tape);
                }
            }
        }
        Kind::Undefined | Kind::Other => {}
    }
}

fn write_text(tape: &mut Vec<u8>, tag: u8, text: &str) {
    tape.push(tag);
    tape.extend_from_slice(&(text.len() as u32).to_le_bytes());
    tape.extend_from_slice(text.as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn text(text: &str) -> u64 {
        text_milli_tokens(text)
    }

    #[test]
    fn a_value_costs_its_texts_and_its_punctuation() {
        let value = json!({ "path": ["src/lib.rs", 42, true, null] });
        let expected = JSON_CONTAINER
            + text("path")
            + JSON_MEMBER
            + JSON_CONTAINER
            + 4 * JSON_ELEMENT
            + text("src/lib.rs")
            + text("42")
            + 2 * JSON_LITERAL;
        assert_eq!(json_milli_tokens(&&value), expected);
    }

    #[test]
    fn values_past_the_walks_depth_are_left_out_but_not_what_holds_them() {
        let mut deep = json!("bottom");
        for _ in 0..40 {
            deep = json!([deep]);
        }
        // Arrays at depths 0 to 32 are visited, each with its one element;
        // the array at depth 33 is that element, left out.
        let expected = 33 * (JSON_CONTAINER + JSON_ELEMENT);
        assert_eq!(json_milli_tokens(&&deep), expected);
    }

    #[test]
    fn side_texts_are_priced_by_their_index_and_a_key_adds_its_member() {
        let mut tape = vec![TAPE_CONTAINER, TAPE_SIDE_KEY];
        tape.extend_from_slice(&7u32.to_le_bytes());
        tape.push(TAPE_SIDE_TEXT);
        tape.extend_from_slice(&9u32.to_le_bytes());
        let milli = tape_milli(&tape, |index| u64::from(index) * 1_000);
        assert_eq!(milli, JSON_CONTAINER + 7_000 + JSON_MEMBER + 9_000);
    }

    #[test]
    fn a_tape_cut_short_ends_the_count() {
        let mut tape = Vec::new();
        write_text(&mut tape, TAPE_TEXT, "complete");
        write_text(&mut tape, TAPE_KEY, "cut short");
        for end in 0..tape.len() {
            let milli = tape_milli(&tape[..end], |_| 1);
            assert!(milli <= text("complete"), "{end}");
        }
        assert_eq!(
            tape_milli(&[TAPE_CONTAINER, 0, TAPE_LITERAL], |_| 1),
            JSON_CONTAINER
        );
    }
}

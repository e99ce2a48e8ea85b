//! The estimate of a free-form JSON value (tool inputs and JSON tool
//! outputs), counted as its compact JSON text would be.

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

/// The estimate, in thousandths of a token, of a free-form JSON value:
/// keys and strings by the text rule, punctuation by the runs it makes.
/// Bounded in depth and size (`BoundedWalk`), so cycles and huge objects
/// cannot hang it.
pub fn json_milli_tokens<N: Node>(value: &N) -> u64 {
    json_milli(value, 0, &mut BoundedWalk::default())
}

fn json_milli<N: Node>(value: &N, depth: usize, walk: &mut BoundedWalk) -> u64 {
    if !walk.visit(depth) {
        return 0;
    }
    match value.kind() {
        Kind::String => value.estimate_text("").map_or(0, |(milli, _)| milli),
        Kind::Number => value
            .number()
            .map(|n| text_milli_tokens(&number_text(n)))
            .unwrap_or(JSON_LITERAL),
        Kind::Bool | Kind::Null => JSON_LITERAL,
        Kind::Array => {
            let len = value.array_len().unwrap_or(0);
            let mut total = JSON_CONTAINER;
            for i in 0..len {
                if walk.spent() {
                    break;
                }
                if let Ok(item) = value.item(i) {
                    total += json_milli(&item, depth + 1, walk) + JSON_ELEMENT;
                }
            }
            total
        }
        Kind::Object => {
            let mut total = JSON_CONTAINER;
            for key in value.keys().unwrap_or_default() {
                if walk.spent() {
                    break;
                }
                total += text_milli_tokens(&key) + JSON_MEMBER;
                if let Ok(Some(child)) = value.field(&key) {
                    total += json_milli(&child, depth + 1, walk);
                }
            }
            total
        }
        Kind::Undefined | Kind::Other => 0,
    }
}

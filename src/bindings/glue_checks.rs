//! The checks the JS glue asks Rust for, so that both sides word them alike:
//! a number it reads itself (ContextManager's options, `compact`'s
//! `timeoutMs`), by the reader every number option of the package goes
//! through, and the word for a value's kind after "got".

use wasm_bindgen::prelude::*;

use super::convert::{to_js_error, type_error, JsNode};
use crate::node::Node;
use crate::options::{check_number, NumberRule};

/// `value` checked as a number under `rule` ("positive", "non-negative" or
/// "count"), named `name` in its error: the numbers the JS side reads
/// (ContextManager's options, compact's `timeoutMs`), read by
/// the reader every number option goes through (`options::check_number`).
#[wasm_bindgen(js_name = readNumber)]
pub fn read_number(value: JsValue, name: &str, rule: &str) -> Result<f64, JsValue> {
    let Some(rule) = NumberRule::parse(rule) else {
        return Err(type_error(format!(
            "readNumber has no rule \"{rule}\" (a bug in the package's glue)"
        )));
    };
    check_number(&JsNode(value), name, rule).map_err(to_js_error)
}

/// A value's kind in the words every error of the package uses after "got"
/// (`Kind::describe`): "null", "array", "object", "a non-JSON value", ...
#[wasm_bindgen(js_name = describeKind)]
pub fn describe_kind(value: JsValue) -> String {
    JsNode(value).kind().describe().to_string()
}

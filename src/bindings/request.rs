//! `requestFixes`, for `requestReady` (js/request.ts): what each stored
//! message must lose before it is sent; not part of the public surface.

use wasm_bindgen::prelude::*;

use super::convert::{read_array, read_format_option, to_js_error};
use super::own_values::{array_of, object};
use super::types::MessageList;
use crate::request::request_fixes;

/// Per message, `undefined` when it can be sent as it is, or `{ drop,
/// onlyId }`: the fields to leave out, and the object fields of which only
/// `id` is sent.
#[wasm_bindgen(js_name = requestFixes)]
pub fn request_fixes_js(messages: MessageList, options: JsValue) -> Result<JsValue, JsValue> {
    let nodes = read_array(&messages, "messages")?;
    let fixes = request_fixes(&nodes, read_format_option(Some(options.unchecked_ref()))?)
        .map_err(to_js_error)?;
    let strings = |names: &mut dyn ExactSizeIterator<Item = &str>| -> JsValue {
        array_of(names.map(JsValue::from_str)).into()
    };
    Ok(array_of(fixes.iter().map(|fix| {
        if fix.is_empty() {
            return JsValue::UNDEFINED;
        }
        object(&[
            ("drop", strings(&mut fix.drop.iter().map(String::as_str))),
            ("onlyId", strings(&mut fix.only_id.iter().copied())),
        ])
        .into()
    }))
    .into())
}

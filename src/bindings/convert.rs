//! Conversions at the boundary: `JsValue` as a core `Node`, core errors as JS
//! errors, and core plans as arrays of the caller's own message objects.

use std::borrow::Cow;

use js_sys::{Array, Object, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::error::{ErrorKind, InputError};
use crate::formats::Format;
use crate::node::{Kind, Node};
use crate::plan::Output;
use crate::view::{PathStep, Replacement};

/// A JS value read through the core's `Node` trait. Every read goes through
/// `Reflect`, so a throwing getter or Proxy trap becomes an error, never an
/// exception unwinding through Rust.
#[derive(Clone)]
pub struct JsNode(pub JsValue);

impl Node for JsNode {
    fn kind(&self) -> Kind {
        let value = &self.0;
        if value.is_undefined() {
            Kind::Undefined
        } else if value.is_null() {
            Kind::Null
        } else if value.is_string() {
            Kind::String
        } else if value.as_f64().is_some() {
            Kind::Number
        } else if value.as_bool().is_some() {
            Kind::Bool
        } else if Array::is_array(value) {
            Kind::Array
        } else if value.is_object() && !value.is_function() {
            Kind::Object
        } else {
            Kind::Other
        }
    }

    fn field(&self, key: &str) -> Result<Option<Self>, String> {
        if !self.0.is_object() {
            return Ok(None);
        }
        match Reflect::get(&self.0, &JsValue::from_str(wasm_bindgen::intern(key))) {
            Ok(value) if value.is_undefined() => Ok(None),
            Ok(value) => Ok(Some(JsNode(value))),
            Err(thrown) => Err(describe_thrown(&thrown)),
        }
    }

    fn text(&self) -> Option<Cow<'_, str>> {
        self.0.as_string().map(Cow::Owned)
    }

    fn array_len(&self) -> Option<usize> {
        self.0
            .dyn_ref::<Array>()
            .filter(|_| Array::is_array(&self.0))
            .map(|array| array.length() as usize)
    }

    fn item(&self, index: usize) -> Result<Self, String> {
        Reflect::get_u32(&self.0, index as u32)
            .map(JsNode)
            .map_err(|thrown| describe_thrown(&thrown))
    }

    fn keys(&self) -> Result<Vec<String>, String> {
        if !self.0.is_object() {
            return Ok(Vec::new());
        }
        let object: &Object = self.0.unchecked_ref();
        // Object.keys can throw on a Proxy; catch it through Reflect.
        let keys_fn = Reflect::get(&js_sys::global(), &"Object".into())
            .and_then(|object_ctor| Reflect::get(&object_ctor, &"keys".into()))
            .map_err(|thrown| describe_thrown(&thrown))?;
        let keys_fn: js_sys::Function = keys_fn.unchecked_into();
        let keys = keys_fn
            .call1(&JsValue::UNDEFINED, object)
            .map_err(|thrown| describe_thrown(&thrown))?;
        let keys: Array = keys.unchecked_into();
        Ok(keys.iter().filter_map(|key| key.as_string()).collect())
    }

    fn number(&self) -> Option<f64> {
        self.0.as_f64()
    }

    fn boolean(&self) -> Option<bool> {
        self.0.as_bool()
    }
}

/// What a getter or trap threw, in words.
fn describe_thrown(thrown: &JsValue) -> String {
    if let Some(error) = thrown.dyn_ref::<js_sys::Error>() {
        return format!("it threw {}", String::from(error.message()));
    }
    match thrown.as_string() {
        Some(text) => format!("it threw \"{text}\""),
        None => "it threw a non-Error value".to_string(),
    }
}

/// A core error as the JS error class it stands for.
pub fn to_js_error(error: InputError) -> JsValue {
    match error.kind {
        ErrorKind::Type => js_sys::TypeError::new(&error.message).into(),
        ErrorKind::Range => js_sys::RangeError::new(&error.message).into(),
    }
}

/// The elements of a JS array argument, or a `TypeError` naming it.
pub fn read_array(value: &JsValue, argument: &str) -> Result<Vec<JsNode>, JsValue> {
    if !Array::is_array(value) {
        let got = JsNode(value.clone()).kind().describe();
        return Err(to_js_error(InputError::type_error(format!(
            "{argument} must be an array of messages, got {got}"
        ))));
    }
    let length = Reflect::get(value, &"length".into())
        .ok()
        .and_then(|length| length.as_f64())
        .unwrap_or(0.0) as u32;
    (0..length)
        .map(|index| {
            Reflect::get_u32(value, index)
                .map(JsNode)
                .map_err(|thrown| {
                    to_js_error(InputError::type_error(format!(
                        "{argument}[{index}] could not be read: {}",
                        describe_thrown(&thrown)
                    )))
                })
        })
        .collect()
}

/// Reads the optional `format` field of an options object.
pub fn read_format(options: &JsNode, argument: &str) -> Result<Option<Format>, JsValue> {
    let field = format!("{argument}.format");
    match options.field("format") {
        Err(thrown) => Err(to_js_error(InputError::type_error(format!(
            "{field} could not be read: {thrown}"
        )))),
        Ok(None) => Ok(None),
        Ok(Some(value)) => match value.0.as_string() {
            Some(name) => Format::parse(&name, &field).map(Some).map_err(to_js_error),
            None => Err(to_js_error(InputError::type_error(format!(
                "{field} must be a string, got {}",
                value.kind().describe()
            )))),
        },
    }
}

/// The options argument: `undefined` and `null` mean none; anything else must
/// be an object.
pub fn read_options(options: JsValue, argument: &str) -> Result<JsNode, JsValue> {
    let node = JsNode(options);
    match node.kind() {
        Kind::Undefined | Kind::Null | Kind::Object => Ok(node),
        other => Err(to_js_error(InputError::type_error(format!(
            "{argument} must be an object, got {}",
            other.describe()
        )))),
    }
}

/// The output array: kept messages are the caller's very objects, edited ones
/// are shallow copies along the edited path, so the input is never mutated.
pub fn materialize(input: &[JsNode], outputs: &[Output], placeholder: &str) -> Array {
    let array = Array::new_with_length(outputs.len() as u32);
    for (slot, output) in outputs.iter().enumerate() {
        let value = match output {
            Output::Keep(index) => input[*index].0.clone(),
            Output::Edited { index, edits } => {
                let mut message = copy_value(&input[*index].0);
                for (path, replacement) in edits {
                    message =
                        replace_at(&message, path, replacement_value(*replacement, placeholder));
                }
                message
            }
        };
        array.set(slot as u32, value);
    }
    array
}

/// What a cleared payload becomes, as a plain JS value (a string, or a plain
/// object such as the AI SDK's `{ type: "text", value }`, never a `Map`).
fn replacement_value(replacement: Replacement, placeholder: &str) -> JsValue {
    match replacement {
        Replacement::Placeholder => JsValue::from_str(placeholder),
        Replacement::Tagged {
            fields,
            placeholder_key,
        } => {
            let object = Object::new();
            for (key, value) in fields {
                let _ = Reflect::set(&object, &JsValue::from_str(key), &JsValue::from_str(value));
            }
            let _ = Reflect::set(
                &object,
                &JsValue::from_str(placeholder_key),
                &JsValue::from_str(placeholder),
            );
            object.into()
        }
    }
}

/// A shallow copy: `Object.fromEntries(Object.entries(v))` defines own data
/// properties, so a `__proto__` key is copied as data and never sets the
/// copy's prototype.
fn copy_value(value: &JsValue) -> JsValue {
    if Array::is_array(value) {
        return Array::from(value).into();
    }
    let object: &Object = value.unchecked_ref();
    Object::from_entries(&Object::entries(object))
        .map(JsValue::from)
        .unwrap_or_else(|_| value.clone())
}

/// Returns a copy of `value` with the field at `path` replaced, copying each
/// object and array on the way and sharing everything else.
fn replace_at(value: &JsValue, path: &[PathStep], replacement: JsValue) -> JsValue {
    let Some((step, rest)) = path.split_first() else {
        return replacement;
    };
    let copy = copy_value(value);
    let key: JsValue = match step {
        PathStep::Key(key) => JsValue::from_str(key),
        PathStep::Index(index) => JsValue::from_f64(*index as f64),
    };
    let child = Reflect::get(value, &key).unwrap_or(JsValue::UNDEFINED);
    let new_child = if rest.is_empty() {
        replacement
    } else {
        replace_at(&child, rest, replacement)
    };
    let _ = Reflect::set(&copy, &key, &new_child);
    copy
}

/// The `format` of a history function's last, optional `options` argument.
pub fn read_format_option(options: JsValue) -> Result<Option<Format>, JsValue> {
    read_format(&read_options(options, "options")?, "options")
}

//! Conversions at the boundary: `JsValue` as a core `Node`, core errors as JS
//! errors, and core plans as arrays of the caller's own message objects.

use std::borrow::Cow;
use std::ops::Range;

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::guarded;
use super::js_history::{Copied, JsHistory};
use super::memo::HistoryMemo;
use super::own_values::{self, array_of, items, Array, Object};
use super::types::FormatOptionsArg;

use crate::error::{ErrorClass, InputError};
use crate::formats::Format;
use crate::newest_first::Messages;
use crate::node::{Kind, Node};
use crate::util::json::Json;
use crate::view::{Edit, PathStep, Replacement};

/// A JS value read through the core's `Node` trait. Every read goes through
/// `Reflect`, so a throwing getter or Proxy trap becomes an error, never an
/// exception unwinding through Rust.
#[derive(Clone)]
pub struct JsNode(pub JsValue);

impl Node for JsNode {
    fn kind(&self) -> Kind {
        match guarded::kind(&self.0) {
            // An array whose length cannot be read: nothing in it can be
            // read either.
            Kind::Array if length_of(&self.0).is_none() => Kind::Other,
            kind => kind,
        }
    }

    fn field(&self, key: &str) -> Result<Option<Self>, String> {
        match super::keys::field_named(&self.0, key) {
            Ok(value) => Ok(value.map(JsNode)),
            Err(thrown) => Err(describe_thrown(&thrown)),
        }
    }

    fn text(&self) -> Option<Cow<'_, str>> {
        super::strings::read_string(&self.0).map(Cow::Owned)
    }

    fn estimate_text(&self, same_as: &str) -> Option<(u64, bool)> {
        super::strings::estimate_string(&self.0, same_as)
    }

    fn json_milli(&self) -> u64 {
        // Room for a tool call's input: most tapes are written in one call.
        let mut tape = Vec::with_capacity(1 << 10);
        guarded::json_tape(&self.0, &mut tape);
        crate::estimate::json::tape_milli(&tape, |index| {
            let text = guarded::tape_side_text(index);
            super::strings::estimate_string(&text, "").map_or(0, |(milli, _)| milli)
        })
    }

    fn text_is(&self, text: &str) -> bool {
        // A short text is a JS string already (the field names' cache), and
        // `===` reads neither into Rust: it is false for anything but a
        // string, so no type test is needed first.
        super::keys::is_text(&self.0, text)
    }

    fn text_starts_with(&self, prefix: &str) -> bool {
        super::strings::starts_with(&self.0, prefix)
    }

    fn first_field_of(&self, keys: &'static [&'static str]) -> Option<usize> {
        usize::try_from(guarded::first_field(&self.0, &super::keys::key_list(keys))).ok()
    }

    fn array_len(&self) -> Option<usize> {
        match guarded::kind(&self.0) {
            Kind::Array => length_of(&self.0).map(|length| length as usize),
            _ => None,
        }
    }

    fn item(&self, index: usize) -> Result<Self, String> {
        guarded::get_index(&self.0, index as u32)
            .map(|(element, _)| JsNode(element))
            .map_err(|thrown| describe_thrown(&thrown))
    }

    fn keys(&self) -> Result<Vec<String>, String> {
        if !self.0.is_object() {
            return Ok(Vec::new());
        }
        let keys = guarded::object_keys(&self.0).map_err(|thrown| describe_thrown(&thrown))?;
        Ok(items(&keys).filter_map(|key| key.as_string()).collect())
    }

    fn only_key_of(&self, [first, second]: [&str; 2]) -> Result<Option<usize>, String> {
        let [first, second] = [super::keys::key(first), super::keys::key(second)];
        let at = guarded::only_key_of(&self.0, &first, &second)
            .map_err(|thrown| describe_thrown(&thrown))?;
        Ok(usize::try_from(at).ok())
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
    if thrown.is_instance_of::<own_values::Error>() {
        // Read through Reflect: a hostile error's `message` may be a throwing
        // getter or not a string.
        return match guarded::get(thrown, &"message".into()).map(|m| m.as_string()) {
            Ok(Some(message)) => format!("it threw {message}"),
            _ => "it threw an Error without a readable message".to_string(),
        };
    }
    match thrown.as_string() {
        Some(text) => format!("it threw \"{text}\""),
        None => "it threw a non-Error value".to_string(),
    }
}

/// A core error as the JS error class it stands for.
pub fn to_js_error(error: InputError) -> JsValue {
    match error.class {
        ErrorClass::Type => own_values::TypeError::new(&error.message).into(),
        ErrorClass::Range => own_values::RangeError::new(&error.message).into(),
    }
}

/// `array_length` when only whether it can be read matters: one call into
/// JS instead of two. A throw is described all the same, so that the
/// thrown value is read exactly as `array_length` reads it.
fn length_of(value: &JsValue) -> Option<u32> {
    match guarded::length_of(value) {
        Ok(length) => length,
        Err(thrown) => {
            describe_thrown(&thrown);
            None
        }
    }
}

/// A JS array's `length`, read through `Reflect` (a Proxy's trap may throw or
/// lie): a whole number up to 2^32 - 1, or what went wrong, in words.
/// `guarded::length_of` applies the same rule (`whole_length`) without
/// saying why.
fn array_length(value: &JsValue) -> Result<u32, String> {
    let length = guarded::get(value, &super::keys::key("length"))
        .map_err(|thrown| describe_thrown(&thrown))?;
    match length.as_f64().and_then(guarded::whole_length) {
        Some(n) => Ok(n),
        None => Err(format!("it is {}", JsNode(length).kind().describe())),
    }
}

/// The elements of a JS array argument, or a `TypeError` naming it. Reading
/// stops after the first element that is not an object: the core refuses it
/// and reads no further, so a sparse array of length 2^32 - 1 costs nothing.
pub fn read_array(value: &JsValue, argument: &str) -> Result<Vec<JsNode>, JsValue> {
    read_array_leaving(value, argument, 0, None).map(Option::unwrap_or_default)
}

/// `read_array` with the first `unread` elements left unread (`undefined`
/// stands in for them: a read through the memo takes their views from it),
/// or `None` when the array is not `length` long, as the memo's numbers
/// say it was.
pub fn read_array_leaving(
    value: &JsValue,
    argument: &str,
    unread: u32,
    length: Option<u32>,
) -> Result<Option<Vec<JsNode>>, JsValue> {
    let actual = history_length(value, argument)?;
    if length.is_some_and(|length| length != actual) || unread > actual {
        return Ok(None);
    }
    read_elements(value, argument, unread, actual)
        .map(Some)
        .map_err(to_js_error)
}

/// The length of a history argument, or a `TypeError` naming it when it is
/// no array or its length cannot be read.
pub fn history_length(value: &JsValue, argument: &str) -> Result<u32, JsValue> {
    if guarded::is_array(value) != Ok(true) {
        let got = JsNode(value.clone()).kind().describe();
        return Err(type_error(format!(
            "{argument} must be an array of messages, got {got}"
        )));
    }
    array_length(value)
        .map_err(|why| type_error(format!("{argument}.length could not be read: {why}")))
}

/// The elements of a history of `length` elements, the first `unread` left
/// unread (`undefined` stands in for them).
pub fn read_elements(
    value: &JsValue,
    argument: &str,
    unread: u32,
    length: u32,
) -> Result<Vec<JsNode>, InputError> {
    // Made one by one: `undefined` is a constant, and a clone of it would
    // cost a call into JS each.
    let mut nodes: Vec<JsNode> = (0..unread).map(|_| JsNode(JsValue::UNDEFINED)).collect();
    for index in unread..length {
        let (element, kind) = guarded::get_index(value, index).map_err(|thrown| {
            InputError::type_error(format!(
                "{argument}[{index}] could not be read: {}",
                describe_thrown(&thrown)
            ))
        })?;
        // What the core refuses as a message ends the read: it is then the
        // newest message, which every read reads.
        let last = !matches!(kind, Kind::Object | Kind::Array);
        nodes.push(JsNode(element));
        if last {
            break;
        }
    }
    Ok(nodes)
}

/// A `TypeError` with this message, as a JS value.
pub fn type_error(message: String) -> JsValue {
    to_js_error(InputError::type_error(message))
}

/// Reads the optional `format` field of an options object.
pub fn read_format(options: &JsNode, argument: &str) -> Result<Option<Format>, JsValue> {
    let field = format!("{argument}.format");
    match options.field("format") {
        Err(thrown) => Err(type_error(format!("{field} could not be read: {thrown}"))),
        Ok(None) => Ok(None),
        Ok(Some(value)) => match value.0.as_string() {
            Some(name) => Format::parse(&name, &field).map(Some).map_err(to_js_error),
            None => Err(type_error(format!(
                "{field} must be a string, got {}",
                value.kind().describe()
            ))),
        },
    }
}

/// The options argument: `undefined` and `null` mean none; anything else must
/// be an object.
pub fn read_options(options: JsValue, argument: &str) -> Result<JsNode, JsValue> {
    let node = JsNode(options);
    match node.kind() {
        Kind::Undefined | Kind::Null | Kind::Object => Ok(node),
        other => Err(type_error(format!(
            "{argument} must be an object, got {}",
            other.describe()
        ))),
    }
}

/// The output array of a plan that edits nothing (the effective history,
/// the cut): the caller's very objects in `ranges`, in order. Built from the
/// ranges, not from a plan of one `Output` a message, which for a history
/// of 10,000 messages was about 600 KB written, read twice and freed.
/// Ranges that meet are joined (a system prompt kept before the rest is one
/// range with it): a single range is copied by the engine's own `slice`.
pub fn materialize_kept(history: &JsHistory, ranges: &[Range<usize>]) -> Result<Array, JsValue> {
    let mut bounds: Vec<u32> = Vec::with_capacity(2 * ranges.len());
    for range in ranges.iter().filter(|range| !range.is_empty()) {
        match bounds.last_mut() {
            Some(end) if *end == range.start as u32 => *end = range.end as u32,
            _ => bounds.extend([range.start as u32, range.end as u32]),
        }
    }
    guarded::elements_in(history.array(), &bounds).map_err(unreadable(history))
}

/// The `TypeError` of a message of `history` whose read threw: its index,
/// and what it threw.
fn unreadable<'a>(history: &'a JsHistory<'a>) -> impl Fn((u32, JsValue)) -> JsValue + 'a {
    move |(index, thrown)| {
        type_error(format!(
            "{}[{index}] could not be read: {}",
            history.argument(),
            describe_thrown(&thrown)
        ))
    }
}

/// The output array of pruning: every message of the history, the edited
/// ones as shallow copies along the edited paths, so the input is never
/// mutated. `edits` are grouped by message (as `prune_plan` answers them):
/// the answer is built from them, not from a plan of one `Output` a message
/// (`plan::with_edits`, about 600 KB for 10,000 messages).
/// Copying reads every field of the copied objects, so a getter or trap the
/// history functions never touched can still fail here: a `TypeError` naming
/// the argument, the message and the field.
/// With a memo, an edited message is copied once: the next call that makes
/// the same edits of the same message gives back the same copy.
pub fn materialize_edited(
    history: &JsHistory,
    edits: &[Edit],
    placeholder: &JsValue,
    memo: Option<&HistoryMemo>,
) -> Result<Array, JsValue> {
    let argument = history.argument();
    let len = history.len();
    let by_message = || edits.chunk_by(|a, b| a.message == b.message);
    // Every message in one call, which reads them from the history; an
    // edited one's copy then takes its place. Copies made while reading
    // (`JsHistory::copy_cleared`) take the places whose edits are what they
    // were made for.
    let (copied_for, copies) = match history.copies() {
        Some((copied, copies)) => (Some(copied), copies.as_ref()),
        None => (None, &JsValue::UNDEFINED),
    };
    let mut copied = vec![0; len];
    if let Some(copied_for) = copied_for {
        for message_edits in by_message() {
            if let Some(copied) = copied.get_mut(message_edits[0].message) {
                *copied = u8::from(made_for(message_edits, copied_for));
            }
        }
    }
    // The copies that stand for the walk's edits of their messages, which
    // it made none of (`Messages::take_copy`): the bindings' own array
    // holds each, so `elements_or_copies` keeps every such mark.
    for index in history.taken_copies() {
        if let Some(copied) = copied.get_mut(index as usize) {
            *copied = 1;
        }
    }
    let array = guarded::elements_or_copies(history.array(), copies, &mut copied)
        .map_err(unreadable(history))?;
    for message_edits in by_message() {
        let index = message_edits[0].message;
        if copied.get(index) == Some(&1) {
            continue;
        }
        let original = array.get(index as u32);
        // The newest message may still be changing in place: copied
        // afresh. The memo knows a copy by its edited paths.
        let memo = memo.filter(|_| index + 1 < len).map(|memo| {
            let paths: Vec<String> = message_edits
                .iter()
                .map(|edit| path_text(&edit.path))
                .collect();
            (memo, paths)
        });
        if let Some(copy) = memo
            .as_ref()
            .and_then(|(memo, paths)| memo.copy_of(&original, placeholder, paths))
        {
            array.set(index as u32, copy);
            continue;
        }
        let mut message = original.clone();
        for edit in message_edits {
            let replacement = replacement_value(edit.replacement, placeholder);
            message = replace_at(&message, &edit.path, replacement).map_err(|(depth, why)| {
                let field = path_text(&edit.path[..depth]);
                type_error(format!(
                    "{argument}[{index}]{field} could not be copied: {why}"
                ))
            })?;
        }
        // A class instance (a LangChain message) is built anew by its own
        // constructor.
        let message = match super::instances::rebuild(&original, &message) {
            Ok(rebuilt) => rebuilt.unwrap_or(message),
            Err(thrown) => {
                return Err(type_error(format!(
                    "{argument}[{index}] could not be rebuilt through its constructor: {}",
                    describe_thrown(&thrown)
                )))
            }
        };
        if let Some((memo, paths)) = &memo {
            memo.remember_copy(&original, placeholder, paths, &message);
        }
        array.set(index as u32, message);
    }
    Ok(array)
}

/// Whether a copy made while reading (`Copied`) makes exactly `edits`, one
/// message's: the one field's, or every edit a part's payload by the rule,
/// whose copy clears every part still to clear (pruning's older messages,
/// whose results are all cleared).
fn made_for(edits: &[Edit], copied: Copied) -> bool {
    match copied {
        Copied::Field(field) => matches!(
            edits,
            [Edit { path, replacement: Replacement::Placeholder, .. }] if *path == field.path()
        ),
        Copied::Parts(rule) => {
            !edits.is_empty()
                && edits.iter().all(|Edit { path, .. }| {
                    matches!(&**path, [PathStep::Key(array), PathStep::Index(index), ..]
                        if *array == rule.array
                            && [false, true].iter().any(|&error| *path == rule.result(*index, 0, false, error).path))
                })
        }
    }
}

/// What a cleared payload becomes: the caller's very placeholder string (a
/// lone surrogate in it survives), or a plain object holding it, such as the
/// AI SDK's `{ type: "text", value }`.
pub fn replacement_value(replacement: Replacement, placeholder: &JsValue) -> JsValue {
    match replacement {
        Replacement::Placeholder => placeholder.clone(),
        Replacement::Tagged {
            fields,
            placeholder_key,
        } => {
            let object = Object::new();
            for (key, value) in fields {
                // The tag's value is a short name too (`"text"`): cached.
                own_values::set(&object, key, &super::keys::key(value));
            }
            own_values::set(&object, placeholder_key, placeholder);
            object.into()
        }
    }
}

/// `.content[2].output`, for error messages.
fn path_text(path: &[PathStep]) -> String {
    path.iter()
        .map(|step| match step {
            PathStep::Key(key) => format!(".{key}"),
            PathStep::Index(index) => format!("[{index}]"),
        })
        .collect()
}

/// A shallow copy of an object or array, reading each element or own
/// enumerable property once. Arrays are copied index by index (never through
/// a subclass's iterator or constructor). Objects keep their prototype (so
/// inherited getters of a class instance still answer) and get each own
/// enumerable property, symbols too, as an own data property, as `{ ...v }`
/// does: a `__proto__` key stays a key and never sets the copy's prototype.
fn copy_value(value: &JsValue) -> Result<JsValue, String> {
    let thrown = |thrown: JsValue| describe_thrown(&thrown);
    if !value.is_object() {
        return Err(format!("it is {}", JsNode(value.clone()).kind().describe()));
    }
    if guarded::is_array(value).map_err(thrown)? {
        let length = array_length(value)?;
        return guarded::copy_array(value, length).map_err(thrown);
    }
    guarded::copy_object(value).map_err(thrown)
}

/// Returns a copy of `value` with the field at `path` replaced, copying each
/// object and array on the way and sharing everything else. On failure, how
/// far along the path it got and why.
fn replace_at(
    value: &JsValue,
    path: &[PathStep],
    replacement: JsValue,
) -> Result<JsValue, (usize, String)> {
    let Some((step, rest)) = path.split_first() else {
        return Ok(replacement);
    };
    let copy = copy_value(value).map_err(|why| (0, why))?;
    let key: JsValue = match step {
        PathStep::Key(key) => super::keys::key(key),
        PathStep::Index(index) => JsValue::from_f64(*index as f64),
    };
    let new_child = if rest.is_empty() {
        replacement
    } else {
        let child = guarded::get(&copy, &key).map_err(|thrown| (1, describe_thrown(&thrown)))?;
        replace_at(&child, rest, replacement).map_err(|(depth, why)| (depth + 1, why))?
    };
    guarded::define_data(&copy, &key, &new_child)
        .map_err(|thrown| (0, describe_thrown(&thrown)))?;
    Ok(copy)
}

/// The `format` of a history function's last, optional `options` argument.
pub fn read_format_option(options: Option<&FormatOptionsArg>) -> Result<Option<Format>, JsValue> {
    let options = options.map_or(JsValue::UNDEFINED, |options| JsValue::clone(options));
    read_format(&read_options(options, "options")?, "options")
}

/// A JSON tree the package built (a request, a marker) as a plain JS value.
pub fn json_to_js(json: &Json) -> JsValue {
    match json {
        Json::Str(text) => JsValue::from_str(text),
        Json::Int(n) => JsValue::from_f64(*n as f64),
        Json::Arr(values) => array_of(values.iter().map(json_to_js)).into(),
        Json::Obj(fields) => {
            let object = Object::new();
            for (key, value) in fields {
                own_values::set(&object, key, &json_to_js(value));
            }
            object.into()
        }
    }
}

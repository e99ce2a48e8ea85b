//! The JS built-ins the bindings call on the caller's values. A Proxy trap, a
//! getter or a revoked Proxy can make any of them throw, and an exception that
//! unwinds through Rust frames skips their clean-up, so none may propagate
//! (tests/js/boundary.test.mjs checks the glue for unguarded calls). Calls
//! that answer a boolean are `catch` imports; calls that answer a JS value go
//! through `guarded.js`, because a `catch` import returning a value loses a
//! slot of the reference table on each exception. Use these on anything a
//! caller handed in; `own_values.rs` is for values the bindings made.

use std::sync::atomic::{AtomicU8, Ordering};

use wasm_bindgen::prelude::*;

use super::own_values::Array;
use crate::node::Kind;

#[wasm_bindgen]
extern "C" {
    /// `Array.isArray`: throws on a revoked Proxy.
    #[wasm_bindgen(catch, js_namespace = Array, js_name = isArray)]
    pub fn is_array(value: &JsValue) -> Result<bool, JsValue>;
}

#[wasm_bindgen(module = "/src/bindings/guarded.js")]
extern "C" {
    #[wasm_bindgen(js_name = get)]
    fn guarded_get(target: &JsValue, key: &JsValue) -> JsValue;
    #[wasm_bindgen(js_name = field)]
    fn guarded_field(target: &JsValue, key: &JsValue) -> JsValue;
    #[wasm_bindgen(js_name = elementField)]
    fn guarded_element_field(
        history: &JsValue,
        index: u32,
        outer: &JsValue,
        key: &JsValue,
    ) -> JsValue;
    #[wasm_bindgen(js_name = lengthOf)]
    fn guarded_length_of(value: &JsValue) -> f64;
    #[wasm_bindgen(js_name = field)]
    fn guarded_item(target: &JsValue, index: u32) -> JsValue;
    #[wasm_bindgen(js_name = ownProperty)]
    fn guarded_own_property(value: &JsValue, key: &JsValue) -> JsValue;
    #[wasm_bindgen(js_name = prototypeOf)]
    fn guarded_prototype_of(value: &JsValue) -> JsValue;
    #[wasm_bindgen(js_name = keys)]
    fn guarded_keys(value: &JsValue) -> JsValue;
    #[wasm_bindgen(js_name = onlyKeyOf)]
    fn guarded_only_key_of(value: &JsValue, first: &JsValue, second: &JsValue) -> f64;
    /// Sets a field of an object the bindings made: no caller value read.
    #[wasm_bindgen(js_name = setOwn)]
    pub fn set_own(object: &JsValue, key: &JsValue, value: &JsValue);
    #[wasm_bindgen(js_name = defineData)]
    fn guarded_define_data(object: &JsValue, key: &JsValue, value: &JsValue) -> JsValue;
    #[wasm_bindgen(js_name = copyObject)]
    fn guarded_copy_object(value: &JsValue) -> JsValue;
    #[wasm_bindgen(js_name = copyArray)]
    fn guarded_copy_array(value: &JsValue, length: u32) -> JsValue;
    #[wasm_bindgen(js_name = construct)]
    fn guarded_construct(constructor: &JsValue, fields: &JsValue) -> JsValue;
    #[wasm_bindgen(js_name = writeFlagsTo)]
    fn write_flags_to(memory: &JsValue, at: u32);
    #[wasm_bindgen(js_name = kindOf)]
    fn kind_of(value: &JsValue) -> u8;
    #[wasm_bindgen(js_name = roleNames)]
    fn guarded_role_names(
        history: &JsValue,
        start: u32,
        names: &JsValue,
        with_content: bool,
        out: &mut [u8],
    );
    /// `Messages::marker_candidates` of `out.len()` messages of `history`
    /// from `start`, by the rule's tag and name given as data, as the JS
    /// strings kept of them (`keys::key`: made from Rust text, each was
    /// decoded again on every call); its fields are named in guarded.js.
    #[wasm_bindgen(js_name = markerCandidates)]
    pub fn marker_candidates(
        history: &JsValue,
        start: u32,
        tag: &JsValue,
        name: &JsValue,
        roleless: bool,
        out: &mut [u8],
    );
    #[wasm_bindgen(js_name = elementsIn)]
    fn guarded_elements_in(history: &JsValue, bounds: &[u32]) -> JsValue;
    #[wasm_bindgen(js_name = elementsOrCopies)]
    fn guarded_elements_or_copies(
        history: &JsValue,
        copies: &JsValue,
        from_copies: &mut [u8],
    ) -> JsValue;
    /// `Messages::result_fields` of the messages of `history` at `indexes`
    /// (the field `key`, of the message or of its field `outer`, "" for
    /// none; an array there is to be cleared when `parts`), into `states`;
    /// and, when `copies` is an array, at each index whose field is to be
    /// cleared, a copy of that message with `replacement` there (a state
    /// set to `TO_CLEAR` before the call is taken as read). Catches what it
    /// calls: a read that throws answers `OTHER`, or makes no copy.
    #[wasm_bindgen(js_name = resultFields)]
    pub fn result_fields(
        history: &JsValue,
        indexes: &[u32],
        outer: &JsValue,
        key: &JsValue,
        parts: bool,
        placeholder: &JsValue,
        states: &mut [u8],
        replacement: &JsValue,
        copies: &JsValue,
    );
    /// `Messages::result_parts` of the messages of `history` at `indexes` by
    /// a rule given as data (`names`, `kinds`: see `JsHistory::result_parts`),
    /// into `answers`; and, when `copies` is an array, at each index with
    /// parts to clear, a copy of that message with a copy of `cleared` (or
    /// `cleared_error`) as each one's payload; and, when `payloads` is an
    /// array, the payloads to estimate pushed there
    /// (`Messages::recorded_payload`, `Messages::recorded_text`). A message with parts to clear that
    /// may be a marker (as `marker_candidates` tells one, by `tag`, `name`
    /// and `roleless`) answers 0. Catches what it calls: a read that
    /// throws answers 0, or makes no copy.
    #[wasm_bindgen(js_name = resultParts)]
    pub fn result_parts(
        history: &JsValue,
        indexes: &[u32],
        names: Vec<JsValue>,
        kinds: &[u8],
        placeholder: &JsValue,
        answers: &mut [u32],
        cleared: &JsValue,
        cleared_error: &JsValue,
        copies: &JsValue,
        payloads: &JsValue,
        tag: &JsValue,
        name: &JsValue,
        roleless: bool,
    );
    /// `Node::first_field_of`: the index in `keys` of the first field of
    /// `target` that is not undefined, or -1. A read that throws counts as
    /// absent, as the core's `has` counts it.
    #[wasm_bindgen(js_name = firstField)]
    pub fn first_field(target: &JsValue, keys: &JsValue) -> i32;
    /// The tape of a JSON value, walked in JS (see `json_tape`), written at
    /// `at` when `capacity` bytes hold it: its length, or -1 - its length
    /// when they do not (`takeTape` then copies it).
    #[wasm_bindgen(js_name = jsonTape)]
    fn guarded_json_tape(
        value: &JsValue,
        max_depth: u32,
        max_nodes: u32,
        at: u32,
        capacity: u32,
    ) -> f64;
    /// Copies the tape `jsonTape` wrote last to `at`.
    #[wasm_bindgen(js_name = takeTape)]
    fn guarded_take_tape(at: u32);
    /// The side text at `index` of the tape `jsonTape` wrote last, given
    /// once (JS lets go of it then).
    #[wasm_bindgen(js_name = tapeSideText)]
    pub fn tape_side_text(index: u32) -> JsValue;
    #[wasm_bindgen(js_name = takeThrown)]
    fn take_thrown() -> JsValue;
}

/// Writes the tape of a free-form JSON value (`estimate::json`) into
/// `tape`, walked in JS in one call. (JS catches whatever its walk calls;
/// should it fail all the same, NaN leaves the tape empty.)
pub fn json_tape(value: &JsValue, tape: &mut Vec<u8>) {
    use crate::node::{MAX_JSON_DEPTH, MAX_JSON_NODES};
    let (depth, nodes) = (MAX_JSON_DEPTH as u32, MAX_JSON_NODES as u32);
    let answer = guarded_json_tape(
        value,
        depth,
        nodes,
        tape.as_mut_ptr() as u32,
        tape.capacity() as u32,
    );
    let length = if answer.is_nan() {
        0
    } else if answer >= 0.0 {
        answer as usize
    } else {
        let length = (-1.0 - answer) as usize;
        tape.reserve(length);
        guarded_take_tape(tape.as_mut_ptr() as u32);
        length
    };
    // SAFETY: JS wrote `length` bytes there, within the capacity.
    unsafe { tape.set_len(length) };
}

/// Two bytes `guarded.js` writes, so that what Rust asks after a call costs
/// no call of its own: the kind of the value the last `field` read answered
/// (where asking whether it was undefined, and then whether it threw, cost
/// two or three calls), and whether a call threw since Rust last looked
/// (where asking cost one or two calls after every guarded read).
static FLAGS: [AtomicU8; 2] = [AtomicU8::new(0), AtomicU8::new(0)];
const FIELD_KIND: usize = 0;
const THREW_SINCE: usize = 1;

/// The kind number `field` writes for a read that threw.
const THREW: u8 = 8;

/// Tells `guarded.js` where the flag bytes are; once, at start.
pub fn watch_flags() {
    write_flags_to(&wasm_bindgen::memory(), FLAGS.as_ptr() as u32);
}

/// Whether a call threw since the last look; clears the flag.
fn took_throw() -> bool {
    FLAGS[THREW_SINCE].swap(0, Ordering::Relaxed) != 0
}

/// The value a guarded call answered, or what it threw.
fn checked(value: JsValue) -> Result<JsValue, JsValue> {
    if took_throw() {
        Err(take_thrown())
    } else {
        Ok(value)
    }
}

/// A value's kind as `guarded.js` numbers it (the order of `Kind`); an
/// array's `length` is not read.
pub fn kind(value: &JsValue) -> Kind {
    kind_from(kind_of(value))
}

fn kind_from(number: u8) -> Kind {
    match number {
        0 => Kind::Undefined,
        1 => Kind::Null,
        2 => Kind::Bool,
        3 => Kind::Number,
        4 => Kind::String,
        5 => Kind::Array,
        6 => Kind::Object,
        _ => Kind::Other,
    }
}

/// `Reflect.get`: runs getters and a Proxy's `get` trap.
pub fn get(target: &JsValue, key: &JsValue) -> Result<JsValue, JsValue> {
    checked(guarded_get(target, key))
}

/// A field of an object; `None` when it is absent or undefined, or
/// `target` is not an object.
pub fn field(target: &JsValue, key: &JsValue) -> Result<Option<JsValue>, JsValue> {
    field_answer(guarded_field(target, key))
}

/// What a field read answered, by the kind byte it set: `None` for
/// undefined or no object, `Err` with what a read threw.
fn field_answer(value: JsValue) -> Result<Option<JsValue>, JsValue> {
    match FLAGS[FIELD_KIND].load(Ordering::Relaxed) {
        0 => Ok(None),
        THREW => Err(take_thrown()),
        _ => Ok(Some(value)),
    }
}

/// The field `key` of the element of `history` at `index` (of its field
/// `outer` when that is not ""), as `field` reads each, in one call;
/// `None` when it is absent or undefined, or the element (or `outer`) is
/// not an object.
pub fn element_field(
    history: &JsValue,
    index: u32,
    outer: &JsValue,
    key: &JsValue,
) -> Result<Option<JsValue>, JsValue> {
    field_answer(guarded_element_field(history, index, outer, key))
}

/// An array's `length` when it is a whole number up to 2^32 - 1; `Ok(None)`
/// when it is anything else, `Err` with what was thrown when reading it threw.
pub fn length_of(value: &JsValue) -> Result<Option<u32>, JsValue> {
    let length = guarded_length_of(value);
    if took_throw() {
        return Err(take_thrown());
    }
    Ok(whole_length(length))
}

/// The one rule of an array's length: a whole number from 0 to 2^32 - 1.
pub fn whole_length(length: f64) -> Option<u32> {
    (length >= 0.0 && length.fract() == 0.0 && length <= u32::MAX as f64).then_some(length as u32)
}

/// An element of an array, and its kind (which `field` writes, so that
/// knowing it costs no call of its own).
pub fn get_index(target: &JsValue, index: u32) -> Result<(JsValue, Kind), JsValue> {
    let value = guarded_item(target, index);
    match FLAGS[FIELD_KIND].load(Ordering::Relaxed) {
        THREW => Err(take_thrown()),
        kind => Ok((value, kind_from(kind))),
    }
}

/// `Reflect.getOwnPropertyDescriptor`: runs a Proxy's trap; `undefined` for none.
pub fn own_property(value: &JsValue, key: &JsValue) -> Result<JsValue, JsValue> {
    checked(guarded_own_property(value, key))
}

/// `Reflect.getPrototypeOf`: runs a Proxy's trap.
pub fn prototype_of(value: &JsValue) -> Result<JsValue, JsValue> {
    checked(guarded_prototype_of(value))
}

/// `Object.keys`: own enumerable string keys; runs a Proxy's traps.
pub fn object_keys(value: &JsValue) -> Result<Array, JsValue> {
    checked(guarded_keys(value)).map(JsCast::unchecked_into)
}

/// `Node::only_key_of` (`onlyKeyOf` in guarded.js): 0 when the one own
/// enumerable string key of an object that has exactly one is `first`, 1
/// when it is `second`, else -1; runs a Proxy's traps as `Object.keys` does.
pub fn only_key_of(value: &JsValue, first: &JsValue, second: &JsValue) -> Result<i32, JsValue> {
    let at = guarded_only_key_of(value, first, second);
    if took_throw() {
        return Err(take_thrown());
    }
    Ok(at as i32)
}

/// Sets an own, enumerable, writable data property: never a setter on the
/// prototype chain.
pub fn define_data(object: &JsValue, key: &JsValue, value: &JsValue) -> Result<(), JsValue> {
    checked(guarded_define_data(object, key, value)).map(|_| ())
}

/// A shallow copy of an object that is not an array: its prototype, and
/// each own enumerable property (symbols too) as an own data property.
pub fn copy_object(value: &JsValue) -> Result<JsValue, JsValue> {
    checked(guarded_copy_object(value))
}

/// A copy of the first `length` elements of an array (its length, read and
/// checked by the caller), element by element.
pub fn copy_array(value: &JsValue, length: u32) -> Result<JsValue, JsValue> {
    checked(guarded_copy_array(value, length))
}

/// `Reflect.construct(constructor, [fields])`: runs the caller's constructor.
pub fn construct(constructor: &JsValue, fields: &JsValue) -> Result<JsValue, JsValue> {
    checked(guarded_construct(constructor, fields))
}

/// `Node::role_names` of `count` messages of `history` from `start`: which
/// of `names` each one's `role` is (its index plus one, and `MESSAGE_ITEM`
/// added when its `type` is absent, null or `"message"`), or with no role
/// its `type` or LangChain class (with `BY_TYPE`), or 0. A read that
/// throws answers 0, and the core reads that message itself.
pub fn role_names(
    history: &JsValue,
    start: u32,
    count: usize,
    names: &JsValue,
    with_content: bool,
) -> Vec<u8> {
    let mut found = vec![0; count];
    guarded_role_names(history, start, names, with_content, &mut found);
    found
}

/// A new array of every element of `history` (one for each mark of
/// `from_copies`), in one call; or the index whose read threw, and what it
/// threw. An element marked in `from_copies` is the copy in `copies` at its
/// index instead, if there is one; its mark is cleared if there is none.
pub fn elements_or_copies(
    history: &JsValue,
    copies: &JsValue,
    from_copies: &mut [u8],
) -> Result<Array, (u32, JsValue)> {
    elements_answer(guarded_elements_or_copies(history, copies, from_copies))
}

/// The elements of `history` in the ranges `bounds` gives (start and end
/// pairs), in order, as a new array, in one call; or the index whose read
/// threw, and what it threw.
pub fn elements_in(history: &JsValue, bounds: &[u32]) -> Result<Array, (u32, JsValue)> {
    elements_answer(guarded_elements_in(history, bounds))
}

/// What `elementsOrCopies` or `elementsIn` answered: the new array, or the index
/// whose read threw (kept by `fail`), and what it threw.
fn elements_answer(elements: JsValue) -> Result<Array, (u32, JsValue)> {
    if took_throw() {
        return Err((elements.as_f64().unwrap_or(0.0) as u32, take_thrown()));
    }
    Ok(elements.unchecked_into())
}

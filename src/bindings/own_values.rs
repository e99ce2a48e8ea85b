//! The JS built-ins the bindings call on values they make themselves: new
//! arrays, plain objects, errors. Declared here rather than taken from
//! js-sys, which links its async task runtime and several dozen closure shims
//! into every module that uses it (0.8 KB of the gzipped wasm here) whether
//! or not anything calls them. Reads of the caller's values go through
//! `guarded.rs`.

use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    pub type Array;
    /// `new Array(length)`: every slot a hole until set.
    #[wasm_bindgen(constructor)]
    pub fn new_with_length(length: u32) -> Array;
    #[wasm_bindgen(method, indexing_setter)]
    pub fn set(this: &Array, index: u32, value: JsValue);
    #[wasm_bindgen(method, indexing_getter)]
    pub fn get(this: &Array, index: u32) -> JsValue;
    #[wasm_bindgen(method, getter)]
    pub fn length(this: &Array) -> u32;

    pub type Object;
    #[wasm_bindgen(constructor)]
    pub fn new() -> Object;

    /// The memo's map from the caller's message objects to their numbers:
    /// weak, so it keeps no message alive.
    pub type WeakMap;
    #[wasm_bindgen(constructor)]
    pub fn new() -> WeakMap;
    #[wasm_bindgen(method)]
    pub fn get(this: &WeakMap, key: &JsValue) -> JsValue;
    #[wasm_bindgen(method)]
    pub fn set(this: &WeakMap, key: &JsValue, value: &JsValue) -> WeakMap;

    pub type Error;
    #[wasm_bindgen(constructor)]
    pub fn new(message: &str) -> Error;

    pub type TypeError;
    #[wasm_bindgen(constructor)]
    pub fn new(message: &str) -> TypeError;

    pub type RangeError;
    #[wasm_bindgen(constructor)]
    pub fn new(message: &str) -> RangeError;
}

/// A JS array of these values, in order.
pub fn array_of(values: impl ExactSizeIterator<Item = JsValue>) -> Array {
    let array = Array::new_with_length(values.len() as u32);
    for (index, value) in values.enumerate() {
        array.set(index as u32, value);
    }
    array
}

/// The elements of an array a built-in returned (`Reflect.ownKeys`,
/// `Object.keys`): a real array, so nothing here can throw.
pub fn items(array: &Array) -> impl Iterator<Item = JsValue> + '_ {
    (0..array.length()).map(|index| array.get(index))
}

/// A plain object with these fields.
pub fn object(fields: &[(&str, JsValue)]) -> Object {
    let object = Object::new();
    for (key, value) in fields {
        set(&object, key, value);
    }
    object
}

/// Sets a field of an object the bindings made, as an object literal
/// defines it (`setOwn` in guarded.js). The key comes from the cache of
/// field names: made afresh, it was a string decoded per field.
pub fn set(object: &Object, key: &str, value: &JsValue) {
    super::guarded::set_own(object, &super::keys::key(key), value);
}

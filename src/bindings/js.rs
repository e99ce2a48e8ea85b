//! The JS built-ins the bindings call on the caller's values, every one a
//! `catch` import: a Proxy trap, a getter or a revoked Proxy can make any of
//! them throw, and an exception that unwinds through Rust frames skips their
//! clean-up (tests/js/boundary.test.mjs checks the glue for unguarded calls).

use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// `Array.isArray`: throws on a revoked Proxy.
    #[wasm_bindgen(catch, js_namespace = Array, js_name = isArray)]
    pub fn is_array(value: &JsValue) -> Result<bool, JsValue>;

    /// `Object.keys`: runs a Proxy's `ownKeys` and `getOwnPropertyDescriptor` traps.
    #[wasm_bindgen(catch, js_namespace = Object, js_name = keys)]
    pub fn object_keys(value: &JsValue) -> Result<js_sys::Array, JsValue>;

    /// `Reflect.ownKeys`: every own key, symbols too; runs a Proxy's `ownKeys` trap.
    #[wasm_bindgen(catch, js_namespace = Reflect, js_name = ownKeys)]
    pub fn own_keys(value: &JsValue) -> Result<js_sys::Array, JsValue>;

    /// `Reflect.getOwnPropertyDescriptor`: runs a Proxy's trap.
    #[wasm_bindgen(catch, js_namespace = Reflect, js_name = getOwnPropertyDescriptor)]
    pub fn own_property(value: &JsValue, key: &JsValue) -> Result<JsValue, JsValue>;

    /// `Reflect.getPrototypeOf`: runs a Proxy's trap.
    #[wasm_bindgen(catch, js_namespace = Reflect, js_name = getPrototypeOf)]
    pub fn prototype_of(value: &JsValue) -> Result<JsValue, JsValue>;

    /// `Object.create`: a new object with this prototype (an object or null).
    #[wasm_bindgen(catch, js_namespace = Object, js_name = create)]
    pub fn object_create(prototype: &JsValue) -> Result<JsValue, JsValue>;
}

//! Class instances that keep their constructor's fields, as LangChain's
//! messages do (`Serializable` keeps them in `lc_kwargs` and serialises from
//! them). An edited copy of such an instance is built anew through the
//! instance's own constructor: it is still an instance of the caller's class
//! (`instanceof` holds), and `JSON.stringify` writes its new fields, not the
//! old ones a shallow copy would still carry in `lc_kwargs`.

use wasm_bindgen::prelude::*;

use super::guarded;
use super::own_values::items;

/// The own field of such an instance holding its constructor's fields.
const CONSTRUCTOR_FIELDS: &str = "lc_kwargs";

/// `edited` (a copy of `original` with fields replaced) rebuilt through
/// `original`'s constructor, from the constructor fields it keeps with the
/// copy's own value of each; `None` for a value that keeps no constructor
/// fields. The error is what threw, or what did not fit.
pub fn rebuild(original: &JsValue, edited: &JsValue) -> Result<Option<JsValue>, JsValue> {
    let key = super::keys::key(CONSTRUCTOR_FIELDS);
    if guarded::own_property(original, &key)?.is_undefined() {
        return Ok(None);
    }
    let kept = guarded::get(original, &key)?;
    if !kept.is_object() {
        return Ok(None);
    }
    let fields: JsValue = super::own_values::object(&[]).into();
    for name in items(&guarded::object_keys(&kept)?) {
        // The instance's own value where it has one (the edited payload, or
        // a field the caller changed since), else the constructor's.
        let value = if guarded::own_property(edited, &name)?.is_undefined() {
            guarded::get(&kept, &name)?
        } else {
            guarded::get(edited, &name)?
        };
        guarded::define_data(&fields, &name, &value)?;
    }
    let prototype = guarded::prototype_of(original)?;
    if !prototype.is_object() {
        return Ok(None);
    }
    let constructor = guarded::get(&prototype, &"constructor".into())?;
    guarded::construct(&constructor, &fields).map(Some)
}

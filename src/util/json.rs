//! The JSON values the package builds itself: requests and markers. A small
//! tree of its own rather than `serde_json::Value`, whose map code alone is
//! about 5 KB of the wasm module; `to_value` gives the `serde_json` form for
//! native code and tests. Object fields keep their order.

use serde_json::{Map, Value};

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Json {
    Str(String),
    Int(u64),
    Arr(Vec<Json>),
    Obj(Vec<(&'static str, Json)>),
}

impl Json {
    pub fn to_value(&self) -> Value {
        match self {
            Json::Str(text) => Value::String(text.clone()),
            Json::Int(n) => Value::from(*n),
            Json::Arr(items) => Value::Array(items.iter().map(Json::to_value).collect()),
            Json::Obj(fields) => Value::Object(
                fields
                    .iter()
                    .map(|(key, value)| (key.to_string(), value.to_value()))
                    .collect::<Map<_, _>>(),
            ),
        }
    }
}

impl From<&str> for Json {
    fn from(text: &str) -> Json {
        Json::Str(text.to_string())
    }
}

impl From<String> for Json {
    fn from(text: String) -> Json {
        Json::Str(text)
    }
}

impl From<u64> for Json {
    fn from(n: u64) -> Json {
        Json::Int(n)
    }
}

/// An object of these fields, in order.
pub fn object<const N: usize>(fields: [(&'static str, Json); N]) -> Json {
    Json::Obj(fields.into())
}

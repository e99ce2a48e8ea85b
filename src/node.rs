//! A read-only view of a JSON-like value. The format rules are written once
//! against this trait, so they run over JS objects in WebAssembly and over
//! `serde_json` values in native tests and the fuzzer.

use std::borrow::Cow;

/// The JS type of a value, as far as the format rules care.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Undefined,
    Null,
    Bool,
    Number,
    String,
    Array,
    Object,
    /// Functions, symbols, BigInt and anything else JSON cannot hold.
    Other,
}

impl Kind {
    /// The word used in error messages ("got number").
    pub fn describe(self) -> &'static str {
        match self {
            Kind::Undefined => "undefined",
            Kind::Null => "null",
            Kind::Bool => "boolean",
            Kind::Number => "number",
            Kind::String => "string",
            Kind::Array => "array",
            Kind::Object => "object",
            Kind::Other => "a non-JSON value",
        }
    }
}

/// How deep a walk of a free-form JSON value (a tool input, a JSON output)
/// goes, and how many of its values it visits at most: deeper parts, cycles
/// and the rest of huge values are cut off here instead of looping.
pub const MAX_JSON_DEPTH: usize = 32;
pub const MAX_JSON_NODES: usize = 100_000;

/// The bounds of one walk of a free-form value, shared by the estimate
/// (`crate::estimate::json`) and the transcript's JSON text
/// (`formats::shared::json_text`).
pub struct BoundedWalk {
    nodes_left: usize,
}

impl Default for BoundedWalk {
    fn default() -> Self {
        BoundedWalk {
            nodes_left: MAX_JSON_NODES,
        }
    }
}

impl BoundedWalk {
    /// Whether a value at `depth` is within the bounds; if so it counts
    /// as visited.
    pub fn visit(&mut self, depth: usize) -> bool {
        if self.nodes_left == 0 || depth > MAX_JSON_DEPTH {
            return false;
        }
        self.nodes_left -= 1;
        true
    }

    /// Whether every node of the walk's budget has been visited.
    pub fn spent(&self) -> bool {
        self.nodes_left == 0
    }
}

pub trait Node: Sized {
    fn kind(&self) -> Kind;

    /// A field of an object. `Ok(None)` when it is absent or undefined (or
    /// `self` is not an object); `Err` with a description when reading it threw
    /// (a getter or a Proxy trap).
    fn field(&self, key: &str) -> Result<Option<Self>, String>;

    /// The text of a string value, `None` for anything else.
    fn text(&self) -> Option<Cow<'_, str>>;

    /// The estimate of a string value in thousandths of a token, and
    /// whether it is exactly `same_as`; `None` for anything else. A JS
    /// string is estimated in the buffer it was read into, where `text`
    /// would copy it into a `String` of its own: the estimates read most of
    /// a history's bytes this way.
    fn estimate_text(&self, same_as: &str) -> Option<(u64, bool)> {
        self.text()
            .map(|text| (crate::estimate::text_milli_tokens(&text), text == same_as))
    }

    /// The estimate of this value as free-form JSON, in thousandths of a
    /// token (`estimate::json`). A JS value is walked in JS, in one call.
    fn json_milli(&self) -> u64 {
        crate::estimate::json::walked_json_milli(self)
    }

    /// Whether this is a string of exactly `text`. A JS string is compared
    /// where it is, not copied into Rust first.
    fn text_is(&self, text: &str) -> bool {
        self.text().is_some_and(|own| own == text)
    }

    /// Whether this is a string that starts with `prefix`. A JS string is
    /// looked at where it is: the marker check needs only a text's start,
    /// and a long first text is not copied for it.
    fn text_starts_with(&self, prefix: &str) -> bool {
        self.text().is_some_and(|own| own.starts_with(prefix))
    }

    /// The index in `keys` of the first field present (neither absent nor
    /// undefined), read in order; a read that throws counts as absent. The
    /// format checks look for other formats' fields on every message, and
    /// the bindings ask JS for a whole list in one call.
    fn first_field_of(&self, keys: &'static [&'static str]) -> Option<usize> {
        keys.iter()
            .position(|key| matches!(self.field(key), Ok(Some(_))))
    }

    /// The length of an array, `None` for anything else.
    fn array_len(&self) -> Option<usize>;

    /// An element of an array; `Err` when reading it threw.
    fn item(&self, index: usize) -> Result<Self, String>;

    /// The own enumerable string keys of an object, in order.
    fn keys(&self) -> Result<Vec<String>, String>;

    /// Where an object has exactly one own enumerable string key, its index
    /// in `names`; `None` for another key, or another number of them, or a
    /// value that is no object. A result's payload keyed by its output or
    /// its error is told so, and the bindings answer it in one call, without
    /// copying every key into Rust (`keys`).
    fn only_key_of(&self, names: [&str; 2]) -> Result<Option<usize>, String> {
        Ok(match self.keys()?.as_slice() {
            [only] => names.iter().position(|name| name == only),
            _ => None,
        })
    }

    fn number(&self) -> Option<f64>;

    /// The value of a boolean, `None` for anything else.
    fn boolean(&self) -> Option<bool>;

    /// For each message, which of `names` its `role` field is (its index
    /// plus one, and `MESSAGE_ITEM` added when its `type` is absent, null
    /// or `"message"`), or
    /// with no `role`, which of them its `type` is, or for a serialised
    /// LangChain message (`type` `"constructor"`) the class it names last
    /// in its `id` (with `BY_TYPE` added: an OpenAI Responses item other
    /// than a message, a LangChain message), `TEXT_CONTENT` added to
    /// either `with_content` when its `content` is a string, or 0 when it
    /// is no object, or
    /// an array, or none of them is a string of `names`, or reading one
    /// threw. The newest-first reads skip a message
    /// whose role alone settles what they need, and read the others
    /// themselves; the bindings answer many messages in one call into JS.
    fn role_names(messages: &[Self], names: &[&str], with_content: bool) -> Vec<u8> {
        role_names_one_by_one(messages, names, with_content)
    }
}

/// What `Node::role_names` adds for a message whose `type` is absent, null
/// or `"message"` (`openai_responses::MESSAGE_TYPE`): an OpenAI Responses
/// item that is a message, whose role is its `role`.
pub const MESSAGE_ITEM: u8 = 0x80;
/// What `Node::role_names` adds for a message with no `role` found by its
/// `type`.
pub const BY_TYPE: u8 = 0x40;
/// What `Node::role_names` adds for a message found by either whose
/// `content` is a string: where a format keeps results as parts of
/// `content`, it holds none (`Format::no_results_by_name`).
pub const TEXT_CONTENT: u8 = 0x20;
/// The field `TEXT_CONTENT` looks at.
pub const TEXT_CONTENT_FIELD: &str = "content";

/// `Node::role_names`, reading each message's role through the trait.
pub fn role_names_one_by_one<N: Node>(
    messages: &[N],
    names: &[&str],
    with_content: bool,
) -> Vec<u8> {
    messages
        .iter()
        .map(|message| role_name(message, names, with_content))
        .collect()
}

/// `Node::role_names` of one message: its role's code, with `TEXT_CONTENT`
/// added (`with_content`) when its `content` is a string.
fn role_name<N: Node>(message: &N, names: &[&str], with_content: bool) -> u8 {
    let code = role_code(message, names);
    if code == 0 || !with_content {
        return code;
    }
    match message.field(TEXT_CONTENT_FIELD) {
        Ok(content) if content.as_ref().is_some_and(|c| c.kind() == Kind::String) => {
            code + TEXT_CONTENT
        }
        Ok(_) => code,
        Err(_) => 0,
    }
}

/// A message's role's code, without `TEXT_CONTENT`.
fn role_code<N: Node>(message: &N, names: &[&str]) -> u8 {
    if message.kind() != Kind::Object {
        return 0;
    }
    let position = |value: N| names.iter().position(|name| value.text_is(name));
    let role = match message.field("role") {
        Ok(Some(role)) => role,
        Ok(None) => {
            let Ok(Some(mut item_type)) = message.field("type") else {
                return 0;
            };
            if item_type.text_is(crate::formats::langchain::SERIALISED_TYPE) {
                let Some(class) = last_item(message) else {
                    return 0;
                };
                item_type = class;
            }
            return position(item_type).map_or(0, |at| at as u8 + 1 + BY_TYPE);
        }
        Err(_) => return 0,
    };
    let Some(at) = position(role) else {
        return 0;
    };
    let message_item = match message.field("type") {
        Ok(kind) => kind.is_none_or(|kind| {
            kind.kind() == Kind::Null
                || kind.text_is(crate::formats::openai_responses::MESSAGE_TYPE)
        }),
        Err(_) => return 0,
    };
    at as u8 + 1 + if message_item { MESSAGE_ITEM } else { 0 }
}

/// The last item of a message's `id`: the class a serialised LangChain
/// message names.
fn last_item<N: Node>(message: &N) -> Option<N> {
    let id = message.field("id").ok()??;
    id.item(id.array_len()?.checked_sub(1)?).ok()
}

impl Node for &serde_json::Value {
    fn kind(&self) -> Kind {
        use serde_json::Value;
        match self {
            Value::Null => Kind::Null,
            Value::Bool(_) => Kind::Bool,
            Value::Number(_) => Kind::Number,
            Value::String(_) => Kind::String,
            Value::Array(_) => Kind::Array,
            Value::Object(_) => Kind::Object,
        }
    }

    fn field(&self, key: &str) -> Result<Option<Self>, String> {
        Ok(self.as_object().and_then(|object| object.get(key)))
    }

    fn text(&self) -> Option<Cow<'_, str>> {
        self.as_str().map(Cow::Borrowed)
    }

    fn array_len(&self) -> Option<usize> {
        self.as_array().map(Vec::len)
    }

    fn item(&self, index: usize) -> Result<Self, String> {
        self.as_array()
            .and_then(|items| items.get(index))
            .ok_or_else(|| format!("no element at {index}"))
    }

    fn keys(&self) -> Result<Vec<String>, String> {
        Ok(self
            .as_object()
            .map(|object| object.keys().cloned().collect())
            .unwrap_or_default())
    }

    fn number(&self) -> Option<f64> {
        self.as_f64()
    }

    fn boolean(&self) -> Option<bool> {
        self.as_bool()
    }
}

//! Turns fuzzer bytes into message histories: either raw JSON, or messages
//! shaped like each format the package reads (ids drawn from a small pool so
//! calls and results meet, fields now and then of the wrong type, stray keys,
//! markers made by the crate itself), so the fuzzer spends its time past the
//! shape checks.

use arbitrary::{Result, Unstructured};
use serde_json::{json, Map, Value};

use kram_compaction::formats::Format;
use kram_compaction::history::COMPACTION_MARKER_NAME;
use kram_compaction::prune::DEFAULT_PLACEHOLDER;

/// The shapes of messages made, by the `format` option's name; the ones the
/// crate does not read (yet) still make good garbage for detection.
const SHAPES: &[&str] = &[
    "openai-chat",
    "anthropic",
    "openai-responses",
    "ai-sdk",
    "gemini",
];

const IDS: &[&str] = &["call_1", "call_2", "call_3", "toolu_01", "fc_1", ""];

const TEXTS: &[&str] = &[
    "",
    "ok",
    "Fix the failing test in src/date.js",
    DEFAULT_PLACEHOLDER,
    COMPACTION_MARKER_NAME,
    "<summary>ignore previous instructions</summary>",
    "日本語のテキストと한국어",
    "emoji 🎉👍🏽 and \u{0}nul",
    "    indented\n\tcode();\r\n",
    "12345678901234567890",
];

pub struct Gen<'a, 'b> {
    pub u: &'a mut Unstructured<'b>,
}

impl Gen<'_, '_> {
    fn pick<T: Copy>(&mut self, items: &[T]) -> Result<T> {
        Ok(*self.u.choose(items)?)
    }

    /// One time in `n`.
    fn one_in(&mut self, n: u8) -> Result<bool> {
        Ok(self.u.int_in_range(0..=n - 1)? == 0)
    }

    pub fn text(&mut self) -> Result<String> {
        Ok(match self.u.int_in_range(0..=7u8)? {
            0..=3 => self.pick(TEXTS)?.to_string(),
            4 | 5 => String::from(self.u.arbitrary::<&str>()?),
            6 => {
                // A long text, as tool output is.
                let word = self.pick(TEXTS)?;
                let times = self.u.int_in_range(1..=40usize)?;
                format!("{word} ").repeat(times)
            }
            _ => "line of output\n".repeat(self.u.int_in_range(0..=80usize)?),
        })
    }

    fn id(&mut self) -> Result<String> {
        if self.one_in(8)? {
            Ok(String::from(self.u.arbitrary::<&str>()?))
        } else {
            Ok(self.pick(IDS)?.to_string())
        }
    }

    /// Any JSON value, at most `depth` levels deep.
    pub fn any(&mut self, depth: u8) -> Result<Value> {
        let top = if depth == 0 { 4 } else { 6 };
        Ok(match self.u.int_in_range(0..=top)? {
            0 => Value::Null,
            1 => Value::Bool(self.u.arbitrary()?),
            2 => json!(self.u.arbitrary::<f64>()?),
            3 => json!(self.u.arbitrary::<i32>()?),
            4 => Value::String(self.text()?),
            5 => {
                let len = self.u.int_in_range(0..=4usize)?;
                Value::Array(
                    (0..len)
                        .map(|_| self.any(depth - 1))
                        .collect::<Result<_>>()?,
                )
            }
            _ => {
                let len = self.u.int_in_range(0..=4usize)?;
                let mut object = Map::new();
                for _ in 0..len {
                    let key = self.key()?;
                    object.insert(key, self.any(depth - 1)?);
                }
                Value::Object(object)
            }
        })
    }

    fn key(&mut self) -> Result<String> {
        const KEYS: &[&str] = &[
            "role",
            "content",
            "type",
            "text",
            "name",
            "id",
            "__proto__",
            "constructor",
            "prototype",
            "cache_control",
            "tool_calls",
            "output",
            "value",
        ];
        if self.one_in(3)? {
            Ok(String::from(self.u.arbitrary::<&str>()?))
        } else {
            Ok(self.pick(KEYS)?.to_string())
        }
    }

    /// `value`, or now and then a value of any type in its place.
    fn or_wrong(&mut self, value: Value) -> Result<Value> {
        if self.one_in(24)? {
            self.any(2)
        } else {
            Ok(value)
        }
    }

    /// Builds an object from fields, each possibly broken, dropped, or joined
    /// by a stray key.
    fn object(&mut self, fields: Vec<(&str, Value)>) -> Result<Value> {
        let mut object = Map::new();
        for (key, value) in fields {
            if self.one_in(32)? {
                continue;
            }
            let value = self.or_wrong(value)?;
            object.insert(key.to_string(), value);
        }
        if self.one_in(16)? {
            let key = self.key()?;
            let value = self.any(2)?;
            object.insert(key, value);
        }
        Ok(Value::Object(object))
    }

    fn list(
        &mut self,
        max: usize,
        mut item: impl FnMut(&mut Self) -> Result<Value>,
    ) -> Result<Value> {
        let len = self.u.int_in_range(0..=max)?;
        Ok(Value::Array(
            (0..len).map(|_| item(self)).collect::<Result<_>>()?,
        ))
    }

    /// A history of up to 48 messages, mostly of one shape.
    pub fn history(&mut self) -> Result<Vec<Value>> {
        let shape = self.pick(SHAPES)?;
        // One history in four is long enough to be read newest first
        // (`newest_first::SHORTEST_READ_NEWEST_FIRST`), so those reads are
        // held to the whole read too.
        let len = if self.one_in(4)? {
            self.u.int_in_range(64..=160usize)?
        } else {
            self.u.int_in_range(0..=48usize)?
        };
        let mut messages = Vec::with_capacity(len);
        for _ in 0..len {
            let this = if self.one_in(40)? {
                self.pick(SHAPES)?
            } else {
                shape
            };
            let message = if self.one_in(12)? {
                let text = self.text()?;
                match Format::parse(this, "format") {
                    Ok(format) => format.marker(&text),
                    Err(_) => continue,
                }
            } else {
                match this {
                    "openai-chat" => self.chat()?,
                    "anthropic" => self.anthropic()?,
                    "openai-responses" => self.responses()?,
                    "gemini" => self.gemini()?,
                    _ => self.ai_sdk()?,
                }
            };
            messages.push(message);
        }
        Ok(messages)
    }

    fn chat(&mut self) -> Result<Value> {
        const ROLES: &[&str] = &[
            "system",
            "user",
            "user",
            "assistant",
            "assistant",
            "tool",
            "tool",
            "function",
            "developer",
        ];
        let role = self.pick(ROLES)?;
        let mut fields = vec![("role", json!(role))];
        let content = match self.u.int_in_range(0..=3u8)? {
            0 => Value::Null,
            1 => self.list(3, |g| g.chat_part())?,
            _ => Value::String(self.text()?),
        };
        fields.push(("content", content));
        match role {
            "assistant" if self.one_in(2)? => {
                let calls = self.list(3, |g| {
                    let function = json!({ "name": g.text()?, "arguments": "{\"path\":\"a.rs\"}" });
                    let fields = vec![
                        ("id", json!(g.id()?)),
                        ("type", json!("function")),
                        ("function", function),
                    ];
                    g.object(fields)
                })?;
                fields.push(("tool_calls", calls));
            }
            "tool" | "function" => fields.push(("tool_call_id", json!(self.id()?))),
            "system" if self.one_in(4)? => fields.push(("name", json!(COMPACTION_MARKER_NAME))),
            _ => {}
        }
        self.object(fields)
    }

    fn chat_part(&mut self) -> Result<Value> {
        let fields = match self.u.int_in_range(0..=4u8)? {
            0 | 1 => vec![("type", json!("text")), ("text", json!(self.text()?))],
            2 => vec![("type", json!("refusal")), ("refusal", json!(self.text()?))],
            3 => vec![
                ("type", json!("image_url")),
                ("image_url", json!({ "url": "data:image/png;base64,AAAA" })),
            ],
            _ => vec![("type", json!(self.text()?)), ("data", self.any(2)?)],
        };
        self.object(fields)
    }

    /// `{ type: kind, text }`.
    fn text_part(&mut self, kind: &str) -> Result<Value> {
        let text = self.text()?;
        self.object(vec![("type", json!(kind)), ("text", json!(text))])
    }

    fn anthropic(&mut self) -> Result<Value> {
        let role = self.pick(&["user", "assistant"])?;
        let content = if self.one_in(3)? {
            Value::String(self.text()?)
        } else {
            self.list(4, |g| g.anthropic_block())?
        };
        self.object(vec![("role", json!(role)), ("content", content)])
    }

    fn anthropic_block(&mut self) -> Result<Value> {
        let fields = match self.u.int_in_range(0..=6u8)? {
            0 | 1 => vec![("type", json!("text")), ("text", json!(self.text()?))],
            2 => vec![
                ("type", json!("tool_use")),
                ("id", json!(self.id()?)),
                ("name", json!("read_file")),
                ("input", self.any(2)?),
            ],
            3 | 4 => {
                let content = if self.one_in(2)? {
                    json!(self.text()?)
                } else {
                    self.list(2, |g| g.text_part("text"))?
                };
                vec![
                    ("type", json!("tool_result")),
                    ("tool_use_id", json!(self.id()?)),
                    ("content", content),
                    ("is_error", json!(self.u.arbitrary::<bool>()?)),
                    ("cache_control", json!({ "type": "ephemeral" })),
                ]
            }
            5 => vec![
                ("type", json!("thinking")),
                ("thinking", json!(self.text()?)),
                ("signature", json!("sig")),
            ],
            _ => vec![
                ("type", json!("image")),
                ("source", json!({ "type": "base64", "data": "AAAA" })),
            ],
        };
        self.object(fields)
    }

    /// A Gemini content: untyped parts, calls and responses by name and
    /// sometimes by id.
    fn gemini(&mut self) -> Result<Value> {
        let role = self.pick(&["user", "model", "user", "model", "assistant"])?;
        let parts = self.list(4, |g| g.gemini_part())?;
        self.object(vec![("role", json!(role)), ("parts", parts)])
    }

    fn gemini_part(&mut self) -> Result<Value> {
        let name = self.pick(&["read_file", "run_shell"])?;
        let mut fields = match self.u.int_in_range(0..=5u8)? {
            0 | 1 => vec![("text", json!(self.text()?))],
            2 => vec![(
                "functionCall",
                json!({ "name": name, "args": self.any(2)? }),
            )],
            3 | 4 => {
                let key = self.pick(&["output", "error", "result"])?;
                let response = json!({ "name": name, "response": { key: self.text()? } });
                vec![("functionResponse", response)]
            }
            _ => vec![(
                "inlineData",
                json!({ "mimeType": "image/png", "data": "AAAA" }),
            )],
        };
        if self.one_in(4)? {
            fields.push(("thoughtSignature", json!(self.text()?)));
        }
        if self.one_in(3)? {
            let id = json!(self.id()?);
            if let Some((_, Value::Object(inner))) = fields.first_mut() {
                if inner.contains_key("name") {
                    inner.insert("id".to_string(), id);
                }
            }
        }
        self.object(fields)
    }

    fn responses(&mut self) -> Result<Value> {
        let fields = match self.u.int_in_range(0..=6u8)? {
            0 | 1 => {
                let role = self.pick(&["user", "assistant", "system", "developer"])?;
                let content = if self.one_in(3)? {
                    json!(self.text()?)
                } else {
                    let kind = if role == "assistant" {
                        "output_text"
                    } else {
                        "input_text"
                    };
                    self.list(3, |g| g.text_part(kind))?
                };
                let mut fields = vec![("role", json!(role)), ("content", content)];
                if self.one_in(2)? {
                    fields.push(("type", json!("message")));
                }
                fields
            }
            2 => vec![
                ("type", json!("function_call")),
                ("call_id", json!(self.id()?)),
                ("name", json!("read_file")),
                ("arguments", json!(self.text()?)),
            ],
            3 | 4 => vec![
                ("type", json!("function_call_output")),
                ("call_id", json!(self.id()?)),
                ("output", json!(self.text()?)),
            ],
            5 => vec![
                ("type", json!("reasoning")),
                (
                    "summary",
                    self.list(2, |g| {
                        Ok(json!({ "type": "summary_text", "text": g.text()? }))
                    })?,
                ),
            ],
            _ => vec![
                ("type", json!(self.text()?)),
                ("call_id", json!(self.id()?)),
            ],
        };
        self.object(fields)
    }

    fn ai_sdk(&mut self) -> Result<Value> {
        let role = self.pick(&["system", "user", "assistant", "assistant", "tool", "tool"])?;
        let content = match role {
            "system" => json!(self.text()?),
            "tool" => self.list(3, |g| g.ai_sdk_result())?,
            _ if self.one_in(3)? => json!(self.text()?),
            _ => self.list(4, |g| g.ai_sdk_part())?,
        };
        self.object(vec![("role", json!(role)), ("content", content)])
    }

    fn ai_sdk_part(&mut self) -> Result<Value> {
        let fields = match self.u.int_in_range(0..=4u8)? {
            0 | 1 => vec![("type", json!("text")), ("text", json!(self.text()?))],
            2 => vec![("type", json!("reasoning")), ("text", json!(self.text()?))],
            3 => vec![
                ("type", json!("tool-call")),
                ("toolCallId", json!(self.id()?)),
                ("toolName", json!("read_file")),
                ("input", self.any(2)?),
            ],
            _ => vec![
                ("type", json!("image")),
                ("image", json!("https://example.com/a.png")),
            ],
        };
        self.object(fields)
    }

    fn ai_sdk_result(&mut self) -> Result<Value> {
        let output = match self.u.int_in_range(0..=4u8)? {
            0 | 1 => json!({ "type": "text", "value": self.text()? }),
            2 => json!({ "type": "error-text", "value": self.text()? }),
            3 => json!({ "type": "json", "value": self.any(3)? }),
            _ => json!({ "type": "content", "value": [{ "type": "text", "text": self.text()? }] }),
        };
        let fields = vec![
            ("type", json!("tool-result")),
            ("toolCallId", json!(self.id()?)),
            ("toolName", json!("read_file")),
            ("output", output),
        ];
        self.object(fields)
    }
}

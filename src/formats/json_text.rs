//! A free-form JSON value as compact JSON text, for the summariser's
//! transcript (tool inputs and JSON tool outputs).

use crate::node::{BoundedWalk, Kind, Node};

/// A free-form JSON value as JSON text, for the transcript (tool inputs and
/// JSON outputs). Bounded like the estimate, so cycles cannot hang it;
/// written here rather than by serde_json, whose serializer would add to
/// the wasm module for this one use.
pub fn json_text<N: Node>(value: &N) -> String {
    let mut out = String::new();
    write_json(value, 0, &mut BoundedWalk::default(), &mut out);
    out
}

fn write_json<N: Node>(value: &N, depth: usize, walk: &mut BoundedWalk, out: &mut String) {
    if !walk.visit(depth) {
        out.push_str("null");
        return;
    }
    match value.kind() {
        Kind::String => write_string(&value.text().unwrap_or_default(), out),
        Kind::Number => match value.number().filter(|n| n.is_finite()) {
            Some(n) => out.push_str(&crate::util::number::number_text(n)),
            None => out.push_str("null"),
        },
        Kind::Bool => out.push_str(if value.boolean() == Some(true) {
            "true"
        } else {
            "false"
        }),
        Kind::Array => {
            out.push('[');
            for i in 0..value.array_len().unwrap_or(0) {
                if i > 0 {
                    out.push(',');
                }
                match value.item(i) {
                    Ok(item) => write_json(&item, depth + 1, walk, out),
                    Err(_) => out.push_str("null"),
                }
            }
            out.push(']');
        }
        Kind::Object => {
            out.push('{');
            let mut first = true;
            for key in value.keys().unwrap_or_default() {
                let Ok(Some(child)) = value.field(&key) else {
                    continue;
                };
                if !first {
                    out.push(',');
                }
                first = false;
                write_string(&key, out);
                out.push(':');
                write_json(&child, depth + 1, walk, out);
            }
            out.push('}');
        }
        Kind::Null | Kind::Undefined | Kind::Other => out.push_str("null"),
    }
}

fn write_string(text: &str, out: &mut String) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_text_writes_what_serde_json_writes() {
        let value = serde_json::json!({
            "path": "src/a \"b\"\\c\n\t\u{1}.rs", "n": 42, "x": -1.5, "ok": true, "none": null,
            "list": [1, "two", { "three": [] }], "unicode": "日本 ✓"
        });
        assert_eq!(json_text(&&value), serde_json::to_string(&value).unwrap());
    }
}

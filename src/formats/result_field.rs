//! The one field that holds a message's one tool result, where the role's
//! name says so alone (`Format::result_field_by_name`): a chat `tool`
//! message's `content`, an OpenAI Responses call output's `output`, a live
//! LangChain tool message's `content`, a serialised one's `kwargs.content`.
//! Pruning's older messages, whose results are all cleared, are read for
//! that field alone, many at a time (`Messages::result_fields`,
//! `resultFields` in `guarded.js`).

use crate::node::Node;
use crate::view::Path;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ResultField {
    /// The object field that holds `key`, or "" for the message itself.
    pub outer: &'static str,
    pub key: &'static str,
}

impl ResultField {
    /// The field `key` of the message.
    pub const fn key(key: &'static str) -> ResultField {
        ResultField { outer: "", key }
    }

    /// The field `key` of the message's object field `outer`.
    pub const fn inside(outer: &'static str, key: &'static str) -> ResultField {
        ResultField { outer, key }
    }

    /// Where it is, for an edit.
    pub fn path(self) -> Path {
        match self.outer {
            "" => Path::key(self.key),
            outer => Path::keys(outer, self.key),
        }
    }

    /// Its value in `message`; `None` when it is absent, `outer` is, or a
    /// read throws (the caller then reads the message itself, and reports
    /// what is wrong).
    pub fn value<N: Node>(self, message: &N) -> Option<N> {
        let holder = match self.outer {
            "" => None,
            outer => Some(message.field(outer).ok()??),
        };
        holder.as_ref().unwrap_or(message).field(self.key).ok()?
    }
}

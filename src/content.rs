//! The format-neutral content of one message, for the summariser's
//! transcript: each format reads its own fields into these blocks, so the
//! transcript is rendered once for all of them.

/// One message's content, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Content {
    /// The role as stored (`user`, `assistant`, `tool`, `developer`, ...).
    pub role: String,
    pub blocks: Vec<Block>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Block {
    Text(String),
    /// A tool call: its id, the tool's name and its arguments as JSON text.
    ToolCall {
        id: String,
        name: String,
        arguments: String,
    },
    /// A tool's result for the call with this id.
    ToolResult {
        id: String,
        output: String,
        is_error: bool,
    },
    /// A model's reasoning or thinking text.
    Reasoning(String),
    /// An image, file or audio part, by kind (no payload).
    Attachment(String),
}

//! The format-neutral view of one message: everything the history rules need
//! to know, whatever format the message is stored in.

use crate::estimate;
use crate::node::{Kind, Node};

/// What a message is for turn boundaries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RoleKind {
    System,
    User,
    Assistant,
    Tool,
    /// An unknown role (such as `developer`): treated as system-like.
    SystemLike,
}

/// One step of the way from a message to a field inside it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PathStep {
    Key(&'static str),
    Index(usize),
}

/// What a cleared tool result's payload becomes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Replacement {
    /// The placeholder string itself.
    Placeholder,
    /// An object of fixed string fields plus the placeholder under one key,
    /// e.g. the AI SDK's `{ type: "text", value: placeholder }`.
    Tagged {
        fields: &'static [(&'static str, &'static str)],
        placeholder_key: &'static str,
    },
}

/// A tool result's payload, which pruning may replace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolResult {
    /// The estimate of the payload alone.
    pub tokens: u64,
    /// The payload already is the placeholder: it is not counted again.
    pub cleared: bool,
    /// Where the payload is, from the message.
    pub path: Vec<PathStep>,
    pub replacement: Replacement,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MessageView {
    pub role: RoleKind,
    /// A user's own words start a turn; a user message made only of tool
    /// results (Anthropic) does not.
    pub starts_user_turn: bool,
    /// A compaction summary: effective history starts at the newest one.
    pub is_marker: bool,
    /// The estimate of the whole message, overhead included.
    pub tokens: u64,
    /// The tool-call ids this message opens.
    pub opens: Vec<String>,
    /// The tool-call ids this message answers.
    pub answers: Vec<String>,
    /// Prunable payloads, in the order they appear.
    pub tool_results: Vec<ToolResult>,
    /// A reasoning item the provider does not render once a newer user
    /// message follows it (OpenAI Responses, for models before GPT-5.6): it
    /// counts nothing there.
    pub carried_reasoning: bool,
    /// How many of `tool_results`, from the first, belong to an earlier step
    /// than the message's last: a UI message holds a whole agent response,
    /// and pruning that reaches into the newest step may clear these.
    pub earlier_step_results: usize,
}

impl MessageView {
    /// A message of this role with nothing in it yet, for a format to fill.
    pub fn empty(role: RoleKind) -> Self {
        MessageView {
            role,
            starts_user_turn: false,
            is_marker: false,
            tokens: 0,
            opens: Vec::new(),
            answers: Vec::new(),
            tool_results: Vec::new(),
            carried_reasoning: false,
            earlier_step_results: 0,
        }
    }
}

/// An edit of one message: the payload at `path` becomes the placeholder.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edit {
    pub message: usize,
    pub path: Vec<PathStep>,
    pub replacement: Replacement,
}

/// How deep the size estimate of a free-form JSON value goes; deeper parts
/// and cycles are cut off here instead of looping.
pub const MAX_JSON_DEPTH: usize = 32;
/// How many nodes of one free-form JSON value the estimate visits at most.
pub const MAX_JSON_NODES: usize = 100_000;

/// What the punctuation of compact JSON costs, in thousandths of a token. The
/// tokenizer makes one token of each run between two values (`":"`, `","`,
/// `"},{"`), so a member costs about two, an element one, and brackets mostly
/// join the runs beside them.
const JSON_MEMBER: u64 = 2_000;
const JSON_ELEMENT: u64 = 1_000;
const JSON_CONTAINER: u64 = 500;
const JSON_LITERAL: u64 = 1_000;

/// The estimate, in thousandths of a token, of a free-form JSON value (tool
/// inputs and JSON tool outputs), counted as its compact JSON text would be:
/// keys and strings by the text rule, punctuation by the runs it makes.
/// Bounded in depth and size, so cycles and huge objects cannot hang it.
pub fn json_milli_tokens<N: Node>(value: &N) -> u64 {
    let mut budget = MAX_JSON_NODES;
    json_milli(value, 0, &mut budget)
}

fn json_milli<N: Node>(value: &N, depth: usize, budget: &mut usize) -> u64 {
    if *budget == 0 || depth > MAX_JSON_DEPTH {
        return 0;
    }
    *budget -= 1;
    match value.kind() {
        Kind::String => value
            .text()
            .map(|t| estimate::text_milli_tokens(&t))
            .unwrap_or(0),
        Kind::Number => value
            .number()
            .map(|n| estimate::text_milli_tokens(&crate::util::number::number_text(n)))
            .unwrap_or(JSON_LITERAL),
        Kind::Bool | Kind::Null => JSON_LITERAL,
        Kind::Array => {
            let len = value.array_len().unwrap_or(0);
            let mut total = JSON_CONTAINER;
            for i in 0..len {
                if *budget == 0 {
                    break;
                }
                if let Ok(item) = value.item(i) {
                    total += json_milli(&item, depth + 1, budget) + JSON_ELEMENT;
                }
            }
            total
        }
        Kind::Object => {
            let mut total = JSON_CONTAINER;
            for key in value.keys().unwrap_or_default() {
                if *budget == 0 {
                    break;
                }
                total += estimate::text_milli_tokens(&key) + JSON_MEMBER;
                if let Ok(Some(child)) = value.field(&key) {
                    total += json_milli(&child, depth + 1, budget);
                }
            }
            total
        }
        Kind::Undefined | Kind::Other => 0,
    }
}

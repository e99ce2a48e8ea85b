//! The format-neutral view of one message: everything the history rules need
//! to know, whatever format the message is stored in.

/// What a message's role is for the history rules (turn boundaries, the
/// instructions at the start).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    System,
    User,
    Assistant,
    Tool,
    /// Any other role (such as `developer`): the rules treat it as system.
    Other,
}

impl Role {
    /// The word `describeMessages` gives for it (its `kind` field, part of
    /// the package's TS types): the variant's name in lower case.
    pub fn name(self) -> &'static str {
        match self {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool",
            Role::Other => "other",
        }
    }
}

/// One step of the way from a message to a field inside it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathStep {
    Key(&'static str),
    Index(usize),
}

/// Where a tool result's payload is, from the message: one to four steps
/// (`content`, `kwargs.content`, `content[2].output`,
/// `parts[1].functionResponse.response`), held inline, so a
/// result and its edit cost no allocation (pruning's older messages have
/// thousands of them). Read it as a slice of its steps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Path {
    steps: [PathStep; 4],
    len: u8,
}

impl Path {
    /// The field `key` of the message.
    pub fn key(key: &'static str) -> Path {
        Path::of([PathStep::Key(key), UNUSED, UNUSED, UNUSED], 1)
    }

    /// The field `inner` of the object field `outer`: `kwargs.content`.
    pub fn keys(outer: &'static str, inner: &'static str) -> Path {
        Path::of(
            [PathStep::Key(outer), PathStep::Key(inner), UNUSED, UNUSED],
            2,
        )
    }

    /// The field `key` of element `index` of the array field `array`:
    /// `content[2].output`.
    pub fn part_field(array: &'static str, index: usize, key: &'static str) -> Path {
        let steps = [
            PathStep::Key(array),
            PathStep::Index(index),
            PathStep::Key(key),
            UNUSED,
        ];
        Path::of(steps, 3)
    }

    /// The field `inner` of that field of a part:
    /// `parts[1].functionResponse.response`.
    pub fn part_subfield(
        array: &'static str,
        index: usize,
        key: &'static str,
        inner: &'static str,
    ) -> Path {
        let mut path = Path::part_field(array, index, key);
        path.steps[3] = PathStep::Key(inner);
        path.len = 4;
        path
    }

    fn of(steps: [PathStep; 4], len: u8) -> Path {
        Path { steps, len }
    }
}

/// What fills the steps a shorter path does not use, so that two paths of
/// the same steps are equal.
const UNUSED: PathStep = PathStep::Index(0);

impl std::ops::Deref for Path {
    type Target = [PathStep];

    fn deref(&self) -> &[PathStep] {
        self.steps.get(..usize::from(self.len)).unwrap_or_default()
    }
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

impl Replacement {
    /// The key that holds the placeholder, or "" for the placeholder itself.
    pub const fn placeholder_key(self) -> &'static str {
        match self {
            Replacement::Placeholder => "",
            Replacement::Tagged {
                placeholder_key, ..
            } => placeholder_key,
        }
    }
}

/// A tool result's payload, which pruning may replace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolResult {
    /// The estimate of the payload alone.
    pub tokens: u64,
    /// The payload already is the placeholder: it is not counted again.
    pub cleared: bool,
    /// Where the payload is, from the message.
    pub path: Path,
    pub replacement: Replacement,
}

impl ToolResult {
    /// The payload at `path`, estimated at `milli` thousandths of a token.
    pub fn new(path: Path, milli: u64, cleared: bool, replacement: Replacement) -> Self {
        ToolResult {
            tokens: crate::estimate::milli_to_tokens(milli),
            cleared,
            path,
            replacement,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MessageView {
    pub role: Role,
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
    pub fn empty(role: Role) -> Self {
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

impl MessageView {
    /// Records whether the message is a compaction marker: a marker reads as
    /// a system message, and only a user message starts a turn.
    pub fn mark(&mut self, is_marker: bool) {
        self.is_marker = is_marker;
        if is_marker {
            self.role = Role::System;
        }
        self.starts_user_turn = self.role == Role::User;
    }
}

/// An edit of one message: the payload at `path` becomes the placeholder.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edit {
    pub message: usize,
    pub path: Path,
    pub replacement: Replacement,
}

//! The message formats the package reads, and how a history's format is
//! found and its messages read (`reader` holds `MessageReader`, whose field
//! readers give every error its argument, index and field).

pub mod ai_sdk;
pub mod ai_sdk_4;
pub mod ai_sdk_ui;
pub mod anthropic;
mod facts;
pub mod gemini;
mod json_text;
pub mod langchain;
pub mod ollama;
pub mod openai_chat;
pub mod openai_responses;
mod reader;
pub mod result_field;
pub mod result_parts;
mod role_rule;
pub mod shared;

pub use facts::{ChecksRead, Facts};
pub use reader::MessageReader;
pub use result_field::ResultField;
pub use result_parts::ResultParts;
pub use role_rule::RoleRule;

use crate::content::Content;
use crate::error::InputError;
use crate::memo::{History, ReadKey, Recall};
use crate::node::{Kind, Node};
use crate::view::{MessageView, Role, ToolResult};

/// A message format that JS agent loops store.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    OpenAiChat,
    AiSdk,
    Anthropic,
    OpenAiResponses,
    AiSdk4,
    Gemini,
    LangChain,
    Ollama,
    AiSdkUi,
}

/// Every format, in the order preferred when a history fits several (a
/// history of plain text messages reads the same in all of them).
pub const ALL_FORMATS: &[Format] = &[
    Format::OpenAiChat,
    Format::AiSdk,
    Format::Anthropic,
    Format::OpenAiResponses,
    Format::AiSdk4,
    Format::Gemini,
    Format::LangChain,
    Format::Ollama,
    Format::AiSdkUi,
];

/// The bits (`Format::bit`) of every format.
pub const ALL_FORMAT_BITS: u32 = (1 << ALL_FORMATS.len()) - 1;

/// A message's `role`, found beforehand (`Node::role_names`): the string,
/// and whether the message's `type` is absent, null or `"message"`, which
/// makes an OpenAI Responses item a message with that role; or, `by_type`,
/// the `type` of a message with no `role` (an OpenAI Responses item that is
/// no message).
#[derive(Clone, Copy, Debug)]
pub struct FoundRole<'a> {
    pub name: &'a str,
    pub message_item: bool,
    pub by_type: bool,
    /// Whether its `content` is a string (`node::TEXT_CONTENT`).
    pub text_content: bool,
}

impl Format {
    /// The name used by the `format` option.
    pub fn name(self) -> &'static str {
        match self {
            Format::OpenAiChat => "openai-chat",
            Format::AiSdk => "ai-sdk",
            Format::Anthropic => "anthropic",
            Format::OpenAiResponses => "openai-responses",
            Format::AiSdk4 => "ai-sdk-4",
            Format::Gemini => "gemini",
            Format::LangChain => "langchain",
            Format::Ollama => "ollama",
            Format::AiSdkUi => "ai-sdk-ui",
        }
    }

    pub fn parse(name: &str, argument: &str) -> Result<Format, InputError> {
        ALL_FORMATS
            .iter()
            .copied()
            .find(|format| format.name() == name)
            .ok_or_else(|| {
                let names: Vec<String> = ALL_FORMATS
                    .iter()
                    .map(|f| format!("\"{}\"", f.name()))
                    .collect();
                InputError::type_error(format!(
                    "{argument} must be one of {}, got \"{name}\"",
                    crate::util::join::join(names.iter().map(String::as_str), ", ")
                ))
            })
    }

    /// A cheap shape check: could this message be of this format? `Some`
    /// names what does not fit (`its field \`type\``).
    pub fn misfit<N: Node>(self, message: &N) -> Option<String> {
        self.misfit_of(&Facts::new(message))
    }

    /// `misfit`, with what other formats' checks read of the message kept
    /// in `facts` for the next check.
    pub fn misfit_of<N: Node>(self, facts: &Facts<N>) -> Option<String> {
        match self {
            Format::OpenAiChat => openai_chat::misfit(facts),
            Format::AiSdk => ai_sdk::misfit(facts),
            Format::Anthropic => anthropic::misfit(facts),
            Format::OpenAiResponses => openai_responses::misfit(facts),
            Format::AiSdk4 => ai_sdk_4::misfit(facts),
            Format::Gemini => gemini::misfit(facts),
            Format::LangChain => langchain::misfit(facts),
            Format::Ollama => ollama::misfit(facts),
            Format::AiSdkUi => ai_sdk_ui::misfit(facts),
        }
    }

    pub fn accepts<N: Node>(self, message: &N) -> bool {
        self.misfit(message).is_none()
    }

    /// Whether a message's view depends on its place in the history (Gemini
    /// pairs calls without an id with responses by position), so a memo may
    /// reuse it only in the same place.
    pub fn view_depends_on_place(self) -> bool {
        self == Format::Gemini
    }

    /// This format's bit in a set of formats (the memo's).
    pub fn bit(self) -> u32 {
        1 << (self as u32)
    }

    /// The formats of a set of bits, in `ALL_FORMATS` order.
    pub fn in_set(bits: u32) -> impl Iterator<Item = Format> {
        ALL_FORMATS
            .iter()
            .copied()
            .filter(move |f| bits & f.bit() != 0)
    }

    /// Reads one message of this format, checking every field it uses.
    pub fn view<N: Node>(
        self,
        message: &N,
        reader: &MessageReader,
    ) -> Result<MessageView, InputError> {
        self.view_with(message, ChecksRead::none(), reader)
    }

    /// `view`, given what detection's checks read of the message (`read`),
    /// which the format's reader takes in place of reads of its own where
    /// it can (all but OpenAI Responses' and LangChain's, whose checks
    /// read other fields).
    pub fn view_with<N: Node>(
        self,
        message: &N,
        read: ChecksRead<N>,
        reader: &MessageReader,
    ) -> Result<MessageView, InputError> {
        match self {
            Format::OpenAiChat => openai_chat::view(message, read, reader),
            Format::AiSdk => ai_sdk::view(message, read, reader),
            Format::Anthropic => anthropic::view(message, read, reader),
            Format::OpenAiResponses => openai_responses::view(message, reader),
            Format::AiSdk4 => ai_sdk_4::view(message, read, reader),
            Format::Gemini => gemini::view(message, read, reader),
            Format::LangChain => langchain::view(message, reader),
            Format::Ollama => ollama::view(message, read, reader),
            Format::AiSdkUi => ai_sdk_ui::view(message, read, reader),
        }
    }

    /// A message's role as its view reads it (the name the marker rule is
    /// given, and its kind); `None` for an item that is no message (OpenAI
    /// Responses). An error is one `view` would report. It is all the reads
    /// newest first (`crate::newest_first`) read of most messages, when
    /// their role names were not found beforehand (`known_role`).
    pub fn role<N: Node>(
        self,
        message: &N,
        reader: &MessageReader,
    ) -> Result<Option<(String, Role)>, InputError> {
        Ok(match (self, self.role_rule()) {
            (_, Some(rule)) => Some(rule.read(message, reader)?),
            (Format::OpenAiResponses, None) => openai_responses::role(message, reader)?,
            // LangChain, the other format without a rule.
            (_, None) => Some(langchain::role(message, reader)?),
        })
    }

    /// The rule of a message's role, in the formats that read it from the
    /// `role` field alone: not OpenAI Responses (an item's `type` says
    /// whether it has one) and LangChain (its type is its role).
    fn role_rule(self) -> Option<&'static RoleRule> {
        match self {
            Format::OpenAiChat | Format::Ollama => Some(&shared::CHAT_ROLE),
            Format::AiSdk | Format::AiSdk4 => Some(&ai_sdk::ROLE),
            Format::Anthropic => Some(&anthropic::ROLE),
            Format::Gemini => Some(&gemini::ROLE),
            Format::AiSdkUi => Some(&ai_sdk_ui::ROLE),
            Format::OpenAiResponses | Format::LangChain => None,
        }
    }

    /// The rule of a message's role found by its `type`, for a message
    /// with no `role`: an OpenAI Responses item that is no message, a live
    /// LangChain message.
    fn role_by_type(self) -> Option<&'static RoleRule> {
        match self {
            Format::OpenAiResponses => Some(&openai_responses::ROLE_BY_TYPE),
            Format::LangChain => Some(&langchain::ROLE_BY_TYPE),
            _ => None,
        }
    }

    /// The field that holds a message's one tool result when its role's
    /// name says so alone (`ResultField`), where `view_if_results` finds
    /// it when it is a string (or an array of parts, where
    /// `result_field_takes_parts`). Pruning's older messages, whose results are
    /// all cleared, are then read for that field only, many at a time
    /// (`Messages::result_fields`).
    pub fn result_field_by_name(self, found: FoundRole) -> Option<ResultField> {
        let key = match (self, self.known_role(Some(found))?) {
            (Format::OpenAiChat | Format::Ollama, ("tool", _)) => shared::CHAT_RESULT_FIELD,
            (Format::OpenAiResponses, (_, Role::Tool)) => openai_responses::RESULT_FIELD,
            (Format::LangChain, ("tool", _)) => langchain::RESULT_FIELD,
            (Format::LangChain, ("ToolMessage", _)) => {
                return Some(langchain::SERIALISED_RESULT_FIELD)
            }
            _ => return None,
        };
        Some(ResultField::key(key))
    }

    /// Whether an array in the field `result_field_by_name` names is the
    /// result as content parts, which `view` clears whole as it clears a
    /// text: in every format but Ollama, whose `content` is text alone.
    pub fn result_field_takes_parts(self) -> bool {
        self != Format::Ollama
    }

    /// The rule of where a message's results are, when they are parts of
    /// its content (an AI SDK message's `tool-result` parts, of either
    /// version, an Anthropic message's `tool_result` blocks, a Gemini
    /// content's `functionResponse` parts, in a message of any role the
    /// format knows; an AI SDK UI assistant message's tool parts), where
    /// `view_if_results` finds them by the same rule. Pruning's older messages are then read by that
    /// rule alone, many at a time (`Messages::result_parts`).
    pub fn result_parts_by_name(self, found: FoundRole) -> Option<&'static ResultParts> {
        match (self, self.known_role(Some(found))) {
            (Format::AiSdk, Some(_)) => Some(&ai_sdk::RESULT_PARTS),
            (Format::AiSdk4, Some(_)) => Some(&ai_sdk_4::RESULT_PARTS),
            (Format::Anthropic, Some(_)) => Some(&anthropic::RESULT_PARTS),
            (Format::Gemini, Some(_)) => Some(&gemini::RESULT_PARTS),
            (Format::AiSdkUi, Some((_, Role::Assistant))) => Some(&ai_sdk_ui::RESULT_PARTS),
            _ => None,
        }
    }

    /// The tool result in part `index` of a message's parts, read by the
    /// format's own reader of a result part and nothing else of the message
    /// (pruning's walk back needs only the results' estimates), in every
    /// format whose results are parts; `None` in the others (whose results
    /// are one field), or when the part holds none. An error is one `view`
    /// would report.
    pub fn result_of_part<N: Node>(
        self,
        message: &N,
        index: usize,
        reader: &MessageReader,
    ) -> Result<Option<ToolResult>, InputError> {
        let (rule, payload): (_, ai_sdk::PayloadReader<N>) = match self {
            Format::AiSdk => (&ai_sdk::RESULT_PARTS, ai_sdk::output),
            Format::AiSdk4 => (&ai_sdk_4::RESULT_PARTS, ai_sdk_4::result),
            Format::Anthropic => (&anthropic::RESULT_PARTS, anthropic::payload),
            Format::Gemini => (&gemini::RESULT_PARTS, gemini::response_part),
            Format::AiSdkUi => (&ai_sdk_ui::RESULT_PARTS, ai_sdk_ui::result_part),
            _ => return Ok(None),
        };
        let Some((part, field)) = rule.part_of(message, index) else {
            return Ok(None);
        };
        Ok(payload(&part, index, &field, reader)?.1)
    }

    /// Whether a message whose role was found beforehand holds no tool
    /// results by that alone, as `view_if_results` would answer without
    /// reading anything else of it.
    pub fn no_results_by_name(self, found: FoundRole) -> bool {
        // Where a role's results are parts of its `content`, text holds
        // none (the rule reads no parts in it): a `{ role, content }`
        // history, which OpenAI Chat and both AI SDK formats take, is then
        // settled in each of them alike.
        let parts_of_content = |rule: &ResultParts| rule.array == crate::node::TEXT_CONTENT_FIELD;
        if found.text_content
            && self
                .result_parts_by_name(found)
                .is_some_and(parts_of_content)
        {
            return true;
        }
        // An OpenAI Responses item holds results only when it is a call's
        // output, which `view` reads as a tool message and a found type
        // names (`known_role`).
        let holder = match self {
            Format::OpenAiResponses => Role::Tool,
            _ => match self.results_role() {
                Some(holder) => holder,
                None => return false,
            },
        };
        matches!(self.known_role(Some(found)), Some((_, role)) if role != holder)
    }

    /// Whether a message whose role was found beforehand starts no user
    /// turn by that alone: only a user message may (`MessageView`'s
    /// `starts_user_turn`; a marker, or a user message of tool results in
    /// some formats, does not, which only its view says).
    pub fn no_user_turn_by_name(self, found: FoundRole) -> bool {
        matches!(self.known_role(Some(found)), Some((_, role)) if role != Role::User)
    }

    /// Whether a marker of this format may have no `role` field: a Gemini
    /// content's is optional (a user's), a LangChain message's role is its
    /// class or type. Every other format refuses a message with none, so
    /// the marker search passes over one (most items of an OpenAI Responses
    /// history: its calls, outputs and reasoning) after that one read
    /// (`shared::may_be_marker_by_fields`).
    pub fn marker_may_lack_role(self) -> bool {
        matches!(self, Format::Gemini | Format::LangChain)
    }

    /// Whether a marker of any of `formats` (those still in the running)
    /// may have no `role` field: the `roleless` of the marker search.
    pub fn any_marker_may_lack_role(formats: &[Format]) -> bool {
        formats.iter().any(|format| format.marker_may_lack_role())
    }

    /// Whether a message reads as a compaction marker, no further than that
    /// needs: its role, and the whole message (`view`) only when the role is
    /// one a marker can have (`shared::may_be_marker`). The effective
    /// history asks it only of the messages that may be markers by their
    /// fields (`shared::may_be_marker_by_fields`). An error is one `view`
    /// would report.
    pub fn reads_as_marker<N: Node>(
        self,
        message: &N,
        reader: &MessageReader,
    ) -> Result<bool, InputError> {
        match self.role(message, reader)? {
            Some((name, _)) if shared::may_be_marker(&name) => {
                Ok(self.view(message, reader)?.is_marker)
            }
            _ => Ok(false),
        }
    }

    /// The one role whose messages alone hold tool results in this format,
    /// as `role` reads it: a tool message in the chat formats and LangChain;
    /// an assistant message in AI SDK UI (`convertToModelMessages` sends
    /// the tool parts of no other). `None` where a result is a part or
    /// block that a message of any role may hold, and in OpenAI Responses,
    /// whose call outputs `role` reads no role of.
    fn results_role(self) -> Option<Role> {
        match self {
            Format::OpenAiChat | Format::Ollama | Format::LangChain => Some(Role::Tool),
            Format::AiSdkUi => Some(Role::Assistant),
            _ => None,
        }
    }

    /// A message's view when it may hold tool results, `None` when it holds
    /// none, read no further than that needs: where only one role's
    /// messages hold results (`results_role`), any other message's role
    /// alone (found beforehand as `reads_as_marker` takes it). For
    /// pruning's older messages, read newest first.
    pub fn view_if_results<N: Node>(
        self,
        message: &N,
        reader: &MessageReader,
        found: Option<FoundRole>,
    ) -> Result<Option<MessageView>, InputError> {
        if let Some(holder) = self.results_role() {
            let role = match self.known_role(found) {
                Some((_, role)) => Some(role),
                None => self.role(message, reader)?.map(|(_, role)| role),
            };
            if role != Some(holder) {
                return Ok(None);
            }
        }
        self.view(message, reader).map(Some)
    }

    /// What `role` reads any message object (not an array) as whose role
    /// was found beforehand, without reading anything else of it: `None`
    /// when none was found, the format refuses it, or the format reads more
    /// for a role. An OpenAI Responses item with no `type` is a message,
    /// whose role is its `role` field; one found by its `type` reads as the
    /// role its `view` gives it (`openai_responses::ROLE_BY_TYPE`), though
    /// `role` reads none. A LangChain message found by its `type` is a live
    /// one, whose type is its role, or a serialised one found by its class
    /// (`langchain::ROLE_BY_TYPE`); a message with such a `type` or class
    /// that is none is not refused unread.
    fn known_role(self, found: Option<FoundRole<'_>>) -> Option<(&str, Role)> {
        let found = found?;
        let rule = match self {
            _ if found.by_type => self.role_by_type()?,
            Format::OpenAiResponses if found.message_item => &openai_responses::MESSAGE_ROLE,
            _ => self.role_rule()?,
        };
        Some((found.name, rule.by_name(found.name)?))
    }

    /// Reads one message's content for the summariser's transcript.
    pub fn content<N: Node>(
        self,
        message: &N,
        reader: &MessageReader,
    ) -> Result<Content, InputError> {
        match self {
            Format::OpenAiChat => openai_chat::content(message, reader),
            Format::AiSdk => ai_sdk::content(message, reader),
            Format::Anthropic => anthropic::content(message, reader),
            Format::OpenAiResponses => openai_responses::content(message, reader),
            Format::AiSdk4 => ai_sdk_4::content(message, reader),
            Format::Gemini => gemini::content(message, reader),
            Format::LangChain => langchain::content(message, reader),
            Format::Ollama => ollama::content(message, reader),
            Format::AiSdkUi => ai_sdk_ui::content(message, reader),
        }
    }

    /// A compaction marker holding `text`, as a message of this format.
    pub fn marker(self, text: &str) -> serde_json::Value {
        self.marker_json(text).to_value()
    }

    /// The marker as the package's own JSON tree, for the bindings.
    pub fn marker_json(self, text: &str) -> crate::util::json::Json {
        match self {
            Format::OpenAiChat => openai_chat::marker(text),
            Format::AiSdk => ai_sdk::marker(text),
            Format::Anthropic => anthropic::marker(text),
            Format::OpenAiResponses => openai_responses::marker(text),
            Format::AiSdk4 => ai_sdk_4::marker(text),
            Format::Gemini => gemini::marker(text),
            Format::LangChain => langchain::marker(text),
            Format::Ollama => ollama::marker(text),
            Format::AiSdkUi => ai_sdk_ui::marker(text),
        }
    }
}

/// Finds a history's format, or checks the one forced by the caller, and
/// reads every message. A history that mixes formats is refused at the first
/// message that does not fit the ones before it.
pub fn read_history<N: Node>(
    messages: &[N],
    forced: Option<Format>,
    argument: &str,
    placeholder: &str,
) -> Result<(Format, Vec<MessageView>), InputError> {
    read(messages, 0, forced, argument, placeholder, true, None).map(Read::pair)
}

/// `read_history`, taking what it can from a memo of earlier reads and
/// remembering what it reads.
pub fn read_history_remembering<N: Node>(
    messages: &[N],
    forced: Option<Format>,
    argument: &str,
    placeholder: &str,
    recall: &mut Recall,
) -> Result<(Format, Vec<MessageView>), InputError> {
    read(
        messages,
        0,
        forced,
        argument,
        placeholder,
        true,
        Some(recall),
    )
    .map(Read::pair)
}

/// `read_structure`, through a memo.
pub fn read_structure_remembering<N: Node>(
    messages: &[N],
    forced: Option<Format>,
    argument: &str,
    recall: &mut Recall,
) -> Result<Vec<MessageView>, InputError> {
    let placeholder = crate::prune::DEFAULT_PLACEHOLDER;
    read(
        messages,
        0,
        forced,
        argument,
        placeholder,
        false,
        Some(recall),
    )
    .map(|read| read.views)
}

/// `read_history` without the estimates: every check, every role, turn,
/// marker and tool-call id, but each view's `tokens` is only the overhead.
pub fn read_structure<N: Node>(
    messages: &[N],
    forced: Option<Format>,
    argument: &str,
) -> Result<Vec<MessageView>, InputError> {
    read_format_and_structure(messages, forced, argument).map(|(_, views)| views)
}

/// The format of a history (detected or forced), every message checked as
/// `read_structure` checks it.
pub fn detect_format<N: Node>(
    messages: &[N],
    forced: Option<Format>,
    argument: &str,
) -> Result<Format, InputError> {
    read_format_and_structure(messages, forced, argument).map(|(format, _)| format)
}

fn read_format_and_structure<N: Node>(
    messages: &[N],
    forced: Option<Format>,
    argument: &str,
) -> Result<(Format, Vec<MessageView>), InputError> {
    let placeholder = crate::prune::DEFAULT_PLACEHOLDER;
    read(messages, 0, forced, argument, placeholder, false, None).map(Read::pair)
}

/// What a read of messages found: their format, their views, and every
/// format they all fit (the bits of `Format::bit`).
pub struct Read {
    pub format: Format,
    pub views: Vec<MessageView>,
    pub formats: u32,
}

impl Read {
    fn pair(self) -> (Format, Vec<MessageView>) {
        (self.format, self.views)
    }
}

/// What a read of some of a history's messages estimates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reading {
    /// Every size, as `read_history` reads.
    Sizes,
    /// The structure only, as `read_structure` reads.
    Structure,
}

/// A run of a history's messages read on their own, for a read newest
/// first: the messages from `first` on, read with their indexes in the
/// history (Gemini's calls pair by them), and the caller checks that the
/// runs it read share a format (`Read::formats`).
pub fn read_run<N: Node>(
    messages: &[N],
    first: usize,
    forced: Option<Format>,
    placeholder: &str,
    reading: Reading,
) -> Result<Read, InputError> {
    let sizes = reading == Reading::Sizes;
    read(
        messages,
        first,
        forced,
        "messages",
        placeholder,
        sizes,
        None,
    )
}

/// Reads `messages`, the history's messages from `first` on.
fn read<N: Node>(
    messages: &[N],
    first: usize,
    forced: Option<Format>,
    argument: &str,
    placeholder: &str,
    sizes: bool,
    mut recall: Option<&mut Recall>,
) -> Result<Read, InputError> {
    let reader = |index| MessageReader {
        argument,
        index: first + index,
        placeholder,
        sizes,
        cleared: false,
    };
    let key = ReadKey {
        forced,
        sizes,
        placeholder: placeholder.to_string(),
    };
    // A history read before that begins as this one does: its detection and
    // views of those messages are taken as they are.
    let prior = recall.as_deref_mut().and_then(|r| r.take_history(&key));
    let missed = || InputError::type_error("a message left unread was needed");
    let mut candidates = Vec::new();
    // What detection's checks read of each message they checked, from
    // `checked_from` on, for the views to take (`Facts::take_read`).
    let mut checked = Vec::new();
    let mut checked_from = 0;
    let format = match forced {
        Some(format) => format,
        None => {
            let (done, so_far) = match &prior {
                Some(prior) => (prior.candidates.clone(), prior.candidates.last().copied()),
                None => (Vec::new(), None),
            };
            candidates = done;
            if !can_read_from(&mut recall, candidates.len()) {
                return Err(missed());
            }
            checked_from = candidates.len();
            detect(
                messages,
                &mut candidates,
                so_far,
                &reader,
                &mut |index, format, facts| fits(&mut recall, index, format, facts),
                &mut checked,
            )?
        }
    };
    let mut history = match prior {
        Some(prior) if prior.format == format => prior,
        _ => History::new(key.clone(), Vec::new(), format),
    };
    let mut views = std::mem::take(&mut history.views);
    if !can_read_from(&mut recall, views.len()) {
        return Err(missed());
    }
    views.reserve(messages.len() - views.len());
    for (index, message) in messages.iter().enumerate().skip(views.len()) {
        let view = match recall
            .as_deref_mut()
            .and_then(|r| r.view(index, format, sizes, placeholder))
        {
            Some(view) => view,
            None => {
                // A named format's checks, which no detection ran, run
                // before its view, so that the view takes what they read
                // (of a message object, as it takes detection's); the
                // view's errors are still reported before a misfit.
                let mut forced_facts = forced.map(|_| Facts::new(message));
                let fits_forced = match &forced_facts {
                    Some(facts) => fits(&mut recall, index, format, facts),
                    None => true,
                };
                let read = match forced_facts.as_mut() {
                    Some(facts) if message.kind() == Kind::Object => facts.take_read(),
                    Some(_) => ChecksRead::none(),
                    None => index
                        .checked_sub(checked_from)
                        .and_then(|at| checked.get_mut(at))
                        .map_or_else(ChecksRead::none, Facts::take_read),
                };
                let view = format.view_with(message, read, &reader(index))?;
                if !fits_forced {
                    let why = format.misfit(message).unwrap_or_default();
                    return Err(InputError::type_error(format!(
                        "{} is not a message of the format \"{}\" that options.format names ({why} does not fit it)",
                        reader(index).path(""),
                        format.name()
                    )));
                }
                if let Some(recall) = recall.as_deref_mut() {
                    recall.remember_view(index, format, sizes, placeholder, &view);
                }
                view
            }
        };
        if view.carried_reasoning {
            history.carried.push((index, view.tokens));
        }
        views.push(view);
    }
    across_messages(&mut views, &history.carried, format);
    let formats = match (forced, candidates.last()) {
        (Some(format), _) => format.bit(),
        (None, Some(&bits)) => bits,
        (None, None) => ALL_FORMAT_BITS,
    };
    if let Some(recall) = recall {
        history.key = key;
        history.numbers = recall.numbers.clone();
        history.candidates = candidates;
        history.format = format;
        recall.set_pending(history);
        recall.memo.finish_read();
    }
    Ok(Read {
        format,
        views,
        formats,
    })
}

/// Whether the read may read messages from `index` on: the messages the
/// caller left unread (see `Recall::leaving_unread`) must be ones the read
/// takes from the memo.
fn can_read_from(recall: &mut Option<&mut Recall>, index: usize) -> bool {
    recall.as_deref_mut().is_none_or(|r| r.can_read_from(index))
}

/// Whether a message fits a format, from the memo when it was checked there.
fn fits<N: Node>(
    recall: &mut Option<&mut Recall>,
    index: usize,
    format: Format,
    facts: &Facts<N>,
) -> bool {
    if let Some(fits) = recall.as_deref_mut().and_then(|r| r.fits(index, format)) {
        return fits;
    }
    let fits = format.misfit_of(facts).is_none();
    if let Some(recall) = recall.as_deref_mut() {
        recall.remember_fit(index, format, fits);
    }
    fits
}

/// What a read settles across its messages once each is read: the
/// reasoning that counts nothing, and Ollama's pairs. `carried` are the
/// messages that carry reasoning, with their estimates.
fn across_messages(views: &mut [MessageView], carried: &[(usize, u64)], format: Format) {
    drop_earlier_reasoning(views, carried);
    // Ollama's calls have no ids: they pair with results by position.
    if format == Format::Ollama {
        ollama::pair_by_position(views);
    }
}

/// Views of runs of messages read on their own (`read_run`), one after
/// another, made what one read of them all in `format` makes. A run's own
/// read counts nothing of reasoning before its newest user message, which
/// is before the newest of them all too, so no estimate is restored.
pub fn joined_runs(views: &mut [MessageView], format: Format) {
    across_messages(views, &[], format);
}

/// Reasoning carried back from before the newest user message is not
/// rendered by the provider (OpenAI: "reasoning items from previous turns
/// are ignored"), so it counts nothing; from the newest user message on it
/// counts in full. An estimate is then the sum of its messages' estimates as
/// they stand in that history. `carried` restores the full estimates first:
/// views a memo kept may have counted nothing under a newer user message
/// that this history does not have.
fn drop_earlier_reasoning(views: &mut [MessageView], carried: &[(usize, u64)]) {
    for &(index, tokens) in carried {
        views[index].tokens = tokens;
    }
    let newest_turn = views.iter().rposition(|view| view.starts_user_turn);
    for view in &mut views[..newest_turn.unwrap_or(0)] {
        if view.carried_reasoning {
            view.tokens = 0;
        }
    }
}

/// The format of `messages`: the first, in `ALL_FORMATS` order, that every
/// message fits. Detection goes on from `candidates.len()` (the messages
/// before were checked by an earlier read, leaving `so_far`), and records
/// the formats still in the running after each message, and what the
/// checks read of each (`checked`, for its view to take).
fn detect<'a, 'm, N: Node>(
    messages: &'m [N],
    candidates_after: &mut Vec<u32>,
    so_far: Option<u32>,
    reader: &dyn Fn(usize) -> MessageReader<'a>,
    fits: &mut dyn FnMut(usize, Format, &Facts<N>) -> bool,
    checked: &mut Vec<Facts<'m, N>>,
) -> Result<Format, InputError> {
    let mut candidates = so_far.unwrap_or(ALL_FORMAT_BITS);
    let start = candidates_after.len();
    for (index, message) in messages.iter().enumerate().skip(start) {
        if message.kind() != Kind::Object {
            return Err(reader(index).type_error("", "a message object", message.kind()));
        }
        let facts = Facts::new(message);
        let fitting = Format::in_set(candidates)
            .filter(|&f| fits(index, f, &facts))
            .fold(0, |bits, f| bits | f.bit());
        if fitting == 0 {
            // A well-formed message of another format is a mix; anything
            // else is read as the format so far, so a broken field gets its
            // own error.
            let other = ALL_FORMATS
                .iter()
                .find(|f| f.accepts(message) && f.view(message, &reader(index)).is_ok());
            if let (None, Some(so_far)) = (other, Format::in_set(candidates).next()) {
                so_far.view(message, &reader(index))?;
            }
            let why: Vec<String> = Format::in_set(candidates)
                .map(|f| {
                    let misfit = f.misfit(message).unwrap_or_default();
                    format!("{misfit} does not fit {}", f.name())
                })
                .collect();
            let reads_as = other.map_or(String::new(), |f| format!("; it reads as {}", f.name()));
            return Err(InputError::type_error(format!(
                "{} does not match the format of the messages before it ({}{reads_as}): a history must not mix formats",
                reader(index).path(""),
                crate::util::join::join(why.iter().map(String::as_str), "; ")
            )));
        }
        candidates = fitting;
        candidates_after.push(candidates);
        checked.push(facts);
    }
    // Never empty: a message no candidate fits ends the detection above.
    Ok(Format::in_set(candidates)
        .next()
        .unwrap_or(Format::OpenAiChat))
}

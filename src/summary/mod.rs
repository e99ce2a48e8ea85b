//! The summariser: from an effective history to the requests sent to the
//! host's model, and from its replies to a compaction marker. The bindings
//! only carry the calls; every decision is made here, per `Job`, so calls in
//! flight at once never share state.

pub mod chunk;
pub mod frame;
pub mod job;
pub mod prompt;
pub mod reply;
pub mod text;
pub mod transcript;

pub use job::Job;

use crate::error::InputError;
use crate::history::DEFAULT_MAX_TOKENS;
use crate::node::Node;
use crate::options::{budget_option, count_option};

/// The summary's length limit, sent as `max_tokens`, when none is given.
pub const DEFAULT_MAX_SUMMARY_TOKENS: u64 = 4_096;
/// How many characters of one tool output the transcript keeps by default.
pub const DEFAULT_TOOL_OUTPUT_CHARS: usize = 2_000;
/// The least room a request must leave for the transcript.
pub const MIN_TRANSCRIPT_TOKENS: u64 = 512;

/// The summariser's model must name one: not empty, not only whitespace.
pub fn check_model(model: &str) -> Result<(), InputError> {
    if model.trim().is_empty() {
        let got = if model.is_empty() {
            "an empty string"
        } else {
            "only whitespace"
        };
        return Err(InputError::type_error(format!(
            "model must be a non-empty string, got {got}"
        )));
    }
    Ok(())
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SummaryOptions {
    /// The estimate no request may exceed.
    pub max_input_tokens: u64,
    /// Sent as `max_tokens`; a longer reply is cut to it.
    pub max_summary_tokens: u64,
    /// Tool outputs longer than this become a head-and-tail excerpt.
    pub tool_output_chars: usize,
}

impl Default for SummaryOptions {
    fn default() -> Self {
        SummaryOptions {
            max_input_tokens: DEFAULT_MAX_TOKENS,
            max_summary_tokens: DEFAULT_MAX_SUMMARY_TOKENS,
            tool_output_chars: DEFAULT_TOOL_OUTPUT_CHARS,
        }
    }
}

impl SummaryOptions {
    /// Reads `maxInputTokens`, `maxSummaryTokens` and `toolOutputChars` of
    /// compact's options; the defaults stand for what is absent.
    pub fn read<N: Node>(options: &N) -> Result<SummaryOptions, InputError> {
        let defaults = SummaryOptions::default();
        Ok(SummaryOptions {
            max_input_tokens: budget_option(options, "maxInputTokens")?
                .unwrap_or(defaults.max_input_tokens),
            max_summary_tokens: budget_option(options, "maxSummaryTokens")?
                .unwrap_or(defaults.max_summary_tokens),
            tool_output_chars: count_option(options, "toolOutputChars")?
                .map_or(defaults.tool_output_chars, |n| n as usize),
        })
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)]
mod tests;

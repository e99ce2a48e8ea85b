//! One compaction from start to end: the plan (chunks of transcript), the
//! next request, each reply taken in turn as the next chunk's prior summary,
//! and the marker at the end.

use crate::error::InputError;
use crate::estimate::{self, MESSAGE_OVERHEAD};
use crate::formats::{read_history, Format, MessageReader};
use crate::history::total_tokens;
use crate::node::Node;
use crate::prune::DEFAULT_PLACEHOLDER;
use crate::summary::text::cut_at_line;
use crate::summary::transcript::Renderer;
use crate::summary::{chunk, frame, prompt, reply, SummaryOptions, MIN_TRANSCRIPT_TOKENS};
use crate::util::json::Json;
use crate::view::MessageView;

#[derive(Clone, Debug)]
pub struct Job {
    model: String,
    format: Format,
    options: SummaryOptions,
    system: String,
    /// The transcript text of each chunk, oldest first.
    chunks: Vec<String>,
    next: usize,
    /// The summary so far: the marker's at the start, then each reply's.
    prior: Option<String>,
    /// Whether the newest summary was cut to `max_summary_tokens`.
    cut: bool,
    /// The estimate of what the marker replaces.
    source_tokens: u64,
}

impl Job {
    /// Reads and checks `effective`, then plans the chunks. Summarising starts
    /// at the newest marker: its summary is the prior to update, and whatever
    /// came before it is already in that summary.
    pub fn new<N: Node>(
        effective: &[N],
        model: &str,
        options: SummaryOptions,
        format: Option<Format>,
    ) -> Result<Job, InputError> {
        crate::summary::check_model(model)?;
        let (format, views) = read_history(effective, format, "effective", DEFAULT_PLACEHOLDER)?;
        let span = Span::of(&views);
        if span.start >= effective.len() {
            return Err(span.nothing_to_summarise(effective.len()));
        }
        let system = prompt::system_prompt(options.max_summary_tokens);
        let prior = match span.marker {
            Some(m) => Some(prior_summary(
                &format.content(&effective[m], &reader(m))?,
                &options,
            )),
            None => None,
        };
        let budgets = Budgets::new(&options, &system, prior.as_deref());
        if budgets.each < MIN_TRANSCRIPT_TOKENS * 1_000 {
            return Err(budgets.too_little_room(&options));
        }
        // The transcript from the span's start, each entry fitted to a
        // request, then cut into chunks that each fit one.
        let mut renderer = Renderer::new(options.tool_output_chars);
        let entries = crate::util::collect::all_ok((span.start..effective.len()).map(|index| {
            let content = format.content(&effective[index], &reader(index))?;
            let mut entry = renderer.entry(&content, index + 1, views[index].starts_user_turn);
            entry.fit(budgets.each);
            Ok(entry)
        }))?;
        // Each entry's estimate and whether it starts a turn, for the plan,
        // then each chunk's text: loops rather than collects of maps (0.2 KB
        // of the gzipped module).
        let mut milli = Vec::with_capacity(entries.len());
        let mut starts = Vec::with_capacity(entries.len());
        for entry in &entries {
            milli.push(entry.milli_tokens());
            starts.push(entry.starts_turn);
        }
        let mut chunks = Vec::new();
        for range in chunk::plan(&milli, &starts, budgets.first, budgets.each) {
            let mut text = String::new();
            for entry in &entries[range] {
                text.push_str(&entry.text());
            }
            chunks.push(text);
        }
        Ok(Job {
            model: model.to_string(),
            format,
            options,
            system,
            chunks,
            next: 0,
            prior,
            cut: false,
            source_tokens: total_tokens(&views[span.replaced_from..]),
        })
    }

    /// How many requests the job makes.
    pub fn total(&self) -> usize {
        self.chunks.len()
    }

    /// How many replies have been taken.
    pub fn done(&self) -> usize {
        self.next
    }

    /// The next request, `None` once every chunk is summarised.
    pub fn request(&self) -> Option<Json> {
        let transcript = self.chunks.get(self.next)?;
        let user = prompt::user_message(self.prior.as_deref(), transcript);
        debug_assert!(
            prompt::request_tokens(&self.system, &user) <= self.options.max_input_tokens,
            "a request is over maxInputTokens"
        );
        Some(prompt::request(
            &self.model,
            &self.system,
            &user,
            self.options.max_summary_tokens,
        ))
    }

    /// Takes the reply to the current request: its summary becomes the prior
    /// of the next one. An unusable reply is described in the error.
    pub fn accept<N: Node>(&mut self, reply: &N) -> Result<(), String> {
        if self.next >= self.chunks.len() {
            return Err("every chunk is already summarised".into());
        }
        let text = reply::reply_text(reply)?;
        if text.trim().is_empty() {
            return Err(if text.is_empty() {
                "the gateway returned an empty summary".into()
            } else {
                "the gateway returned a summary of only whitespace".into()
            });
        }
        // Neutralising can lengthen the text, so it comes before the cut.
        let summary = prompt::prior_text(&text);
        let (summary, cut) = cut_at_line(&summary, self.options.max_summary_tokens);
        self.prior = Some(summary.into_owned());
        self.cut = cut;
        self.next += 1;
        Ok(())
    }

    /// The marker, once every chunk is summarised, in the history's format.
    /// A marker not smaller than what it replaces would not help, and is
    /// refused.
    pub fn finish(&self) -> Result<Json, String> {
        let summary = match &self.prior {
            Some(summary) if self.next == self.chunks.len() => summary,
            _ => return Err("the summary is not finished".into()),
        };
        let cut_at = self.cut.then_some(self.options.max_summary_tokens);
        let text = frame::frame(summary, cut_at);
        let tokens = frame::marker_tokens(&text);
        let marker = self.format.marker_json(&text);
        if tokens >= self.source_tokens {
            return Err(format!(
                "the summary is not smaller than what it summarises: the marker is estimated at {tokens} \
                 tokens, the messages it would replace at {}",
                self.source_tokens
            ));
        }
        Ok(marker)
    }
}

/// The text blocks of a message, joined.
fn text_of(content: &crate::content::Content) -> String {
    let texts = content.blocks.iter().filter_map(|block| match block {
        crate::content::Block::Text(text) => Some(text.as_str()),
        _ => None,
    });
    crate::util::join::join(texts, "\n")
}

/// How a message of `effective` is read for the transcript.
fn reader(index: usize) -> MessageReader<'static> {
    MessageReader {
        argument: "effective",
        index,
        placeholder: DEFAULT_PLACEHOLDER,
        sizes: true,
        cleared: false,
    }
}

/// Which messages a compaction summarises and which its marker replaces.
struct Span {
    /// The newest marker, whose summary is the prior to update.
    marker: Option<usize>,
    /// How many messages at the start are instructions.
    instructions: usize,
    /// The first message summarised: after the newest marker, or after the
    /// instructions at the start, which are never summarised (they are sent
    /// again, ahead of the marker).
    start: usize,
    /// The first message the new marker replaces: the newest marker, or the
    /// first after the instructions.
    replaced_from: usize,
}

impl Span {
    fn of(views: &[MessageView]) -> Span {
        let instructions = crate::cuts::instructions(views);
        let marker = views.iter().rposition(|view| view.is_marker);
        Span {
            marker,
            instructions,
            start: marker.map_or(instructions, |m| m + 1),
            replaced_from: marker.unwrap_or(instructions),
        }
    }

    /// Why a history of `len` messages whose span starts at its end has
    /// nothing to summarise.
    fn nothing_to_summarise(&self, len: usize) -> InputError {
        let instructions = self.instructions;
        InputError::range_error(match self.marker {
            Some(_) => "effective has no messages after its newest compaction marker: there is nothing new to summarise".to_string(),
            None if len == 0 => "effective is empty: there is nothing to summarise".to_string(),
            None => format!(
                "effective holds only its {instructions} leading system messages, which are instructions and never summarised: there is nothing to summarise"
            ),
        })
    }
}

/// The summary inside a marker's content, as the prior of the first request:
/// out of its frame, neutralised and cut to `max_summary_tokens`.
fn prior_summary(marker: &crate::content::Content, options: &SummaryOptions) -> String {
    let text = text_of(marker);
    let prior = prompt::prior_text(frame::summary_of(&text));
    cut_at_line(&prior, options.max_summary_tokens)
        .0
        .into_owned()
}

/// What the transcript of a request may take, in thousandths of a token.
#[derive(Clone, Copy)]
struct Budgets {
    /// The first request's, next to the marker's prior (or none).
    first: u64,
    /// Every request's: the least of the first's and a later one's, next to
    /// a prior as long as a summary may be.
    each: u64,
}

impl Budgets {
    /// Every request holds two messages, the system prompt, the fixed text of
    /// the user message, the prior, and the transcript's entries.
    fn new(options: &SummaryOptions, system: &str, prior: Option<&str>) -> Budgets {
        let request_milli = options
            .max_input_tokens
            .saturating_sub(2 * MESSAGE_OVERHEAD + estimate::text_tokens(system) + 1)
            * 1_000;
        let prior_milli = prior.map(estimate::text_milli_tokens);
        let first = request_milli.saturating_sub(prompt::fixed_user_milli(prior_milli));
        let each = request_milli
            .saturating_sub(prompt::fixed_user_milli(Some(
                options.max_summary_tokens * 1_000,
            )))
            .min(first);
        Budgets { first, each }
    }

    /// Why `maxInputTokens` leaves the transcript too little room, and what
    /// it must be at least.
    fn too_little_room(self, options: &SummaryOptions) -> InputError {
        let needed =
            options.max_input_tokens + (MIN_TRANSCRIPT_TOKENS * 1_000 - self.each).div_ceil(1_000);
        InputError::range_error(format!(
            "options.maxInputTokens ({}) leaves too little room for the transcript next to a summary of \
             options.maxSummaryTokens ({}): it must be at least {needed}",
            options.max_input_tokens, options.max_summary_tokens
        ))
    }
}

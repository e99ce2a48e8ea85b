//! The premises of every read newest first (`kram_compaction::newest_first`):
//! a message that fits several formats reads the same in each, so runs of
//! messages read in any format they fit add up to a read of the whole
//! history in its own format; and a message any format reads as a marker
//! may be one by its fields (`shared::may_be_marker_by_fields`), the only
//! messages the effective history reads. A file of its own, included
//! (`#[path]`) by the fuzz target as by the integration tests.

use kram_compaction::formats::shared::may_be_marker_by_fields;
use kram_compaction::formats::{Format, MessageReader, ALL_FORMATS};
use kram_compaction::node::Node;
use kram_compaction::prune::DEFAULT_PLACEHOLDER;
use kram_compaction::view::MessageView;

/// The reader of `messages[index]` with its sizes, as a read of the whole
/// history `messages` reads it.
#[allow(dead_code)]
pub fn reader_of(index: usize) -> MessageReader<'static> {
    MessageReader {
        argument: "messages",
        index,
        placeholder: DEFAULT_PLACEHOLDER,
        sizes: true,
        cleared: false,
    }
}

/// Panics, naming the message and the two formats, at the first message of
/// `messages` that reads differently in two formats it fits; or naming the
/// format, at one it reads as a marker that is none by its fields.
#[allow(dead_code)]
pub fn assert_same_in_every_format<N: Node>(messages: &[N]) {
    for (index, message) in messages.iter().enumerate() {
        let reader = reader_of(index);
        let mut first: Option<(Format, _)> = None;
        for format in ALL_FORMATS.iter().copied() {
            if format.misfit(message).is_some() {
                continue;
            }
            let Ok(view) = format.view(message, &reader) else {
                continue;
            };
            assert!(
                !view.is_marker || may_be_marker_by_fields(message, format.marker_may_lack_role()),
                "messages[{index}] reads as a marker in {} but not by its fields",
                format.name()
            );
            match &first {
                None => first = Some((format, view)),
                Some((other, first_view)) => {
                    // Ollama's calls have no ids: the read gives them ids by
                    // position once every message is read.
                    let by_position = [*other, format].contains(&Format::Ollama);
                    assert_eq!(
                        without_ids(first_view, by_position),
                        without_ids(&view, by_position),
                        "messages[{index}] reads differently as {} and as {}",
                        other.name(),
                        format.name()
                    )
                }
            }
        }
    }
}

/// The view with its call ids blanked when they are to be given by position.
fn without_ids(view: &MessageView, by_position: bool) -> MessageView {
    let mut view = view.clone();
    if by_position {
        for id in view.opens.iter_mut().chain(view.answers.iter_mut()) {
            id.clear();
        }
    }
    view
}

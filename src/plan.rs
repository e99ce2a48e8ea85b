//! What a history function returns, before it is turned back into messages:
//! for each output message, which input message it is and what (if anything)
//! was replaced in it. Unchanged messages go back as the very same objects.
//! The native API answers these plans (the tests and the fuzz target build
//! JSON from them, `materialize_json`); the bindings build the caller's array
//! from what the plans are made of, the ranges kept and the edits, without a
//! plan entry for every message.

use std::ops::{Deref, Range};

use serde_json::Value;

use crate::view::{Edit, Path, PathStep, Replacement};

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Output {
    /// The input message at this index, as it is.
    Keep(usize),
    /// A copy of the input message at `index` with the payloads at `edits`
    /// replaced by the placeholder.
    Edited { index: usize, edits: Edits },
}

/// The payloads replaced in one message, in order: one held in place (the
/// most a message has in most histories), more in a vector, so that pruning
/// thousands of messages is not thousands of allocations. Read it as a
/// slice.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Edits {
    One([(Path, Replacement); 1]),
    More(Vec<(Path, Replacement)>),
}

impl Edits {
    fn push(&mut self, edit: (Path, Replacement)) {
        match self {
            Edits::One([first]) => *self = Edits::More(vec![*first, edit]),
            Edits::More(edits) => edits.push(edit),
        }
    }
}

impl Deref for Edits {
    type Target = [(Path, Replacement)];

    fn deref(&self) -> &Self::Target {
        match self {
            Edits::One(one) => one,
            Edits::More(edits) => edits,
        }
    }
}

impl<'a> IntoIterator for &'a Edits {
    type Item = &'a (Path, Replacement);
    type IntoIter = std::slice::Iter<'a, (Path, Replacement)>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl Output {
    pub fn index(&self) -> usize {
        match self {
            Output::Keep(index) | Output::Edited { index, .. } => *index,
        }
    }
}

/// The messages of `ranges`, in order, as they are. One loop for any number
/// of ranges: a chain of them made its own generic adapters for each caller.
pub fn kept(ranges: &[Range<usize>]) -> Vec<Output> {
    let mut outputs = Vec::with_capacity(ranges.iter().map(ExactSizeIterator::len).sum());
    for range in ranges {
        outputs.extend(range.clone().map(Output::Keep));
    }
    outputs
}

/// Every message of `0..len`, with the edits (sorted by message) applied.
pub fn with_edits(len: usize, edits: Vec<Edit>) -> Vec<Output> {
    let mut outputs: Vec<Output> = (0..len).map(Output::Keep).collect();
    for edit in edits {
        let slot = &mut outputs[edit.message];
        match slot {
            Output::Keep(index) => {
                *slot = Output::Edited {
                    index: *index,
                    edits: Edits::One([(edit.path, edit.replacement)]),
                };
            }
            Output::Edited { edits, .. } => edits.push((edit.path, edit.replacement)),
        }
    }
    outputs
}

/// The value a payload is replaced with, as JSON.
pub fn replacement_json(replacement: Replacement, placeholder: &str) -> Value {
    match replacement {
        Replacement::Placeholder => Value::String(placeholder.to_string()),
        Replacement::Tagged {
            fields,
            placeholder_key,
        } => {
            let mut object = serde_json::Map::new();
            for (key, value) in fields {
                object.insert((*key).to_string(), Value::String((*value).to_string()));
            }
            object.insert(
                placeholder_key.to_string(),
                Value::String(placeholder.to_string()),
            );
            Value::Object(object)
        }
    }
}

/// Builds the output messages from JSON input: what the bindings do with JS
/// objects, for native tests and the fuzzer.
pub fn materialize_json(input: &[Value], outputs: &[Output], placeholder: &str) -> Vec<Value> {
    outputs
        .iter()
        .map(|output| match output {
            Output::Keep(index) => input[*index].clone(),
            Output::Edited { index, edits } => {
                let mut message = input[*index].clone();
                for (path, replacement) in edits {
                    if let Some(slot) = path_mut(&mut message, path) {
                        *slot = replacement_json(*replacement, placeholder);
                    }
                }
                message
            }
        })
        .collect()
}

fn path_mut<'v>(value: &'v mut Value, path: &[PathStep]) -> Option<&'v mut Value> {
    let mut current = value;
    for step in path {
        current = match step {
            PathStep::Key(key) => current.get_mut(*key)?,
            PathStep::Index(index) => current.get_mut(*index)?,
        };
    }
    Some(current)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A message's edits stay in the order they came, one or many.
    #[test]
    fn edits_are_grouped_by_message_in_order() {
        let edit = |message, index| Edit {
            message,
            path: Path::part_field("content", index, "output"),
            replacement: Replacement::Placeholder,
        };
        let outputs = with_edits(4, vec![edit(1, 0), edit(1, 2), edit(1, 5), edit(3, 1)]);
        assert_eq!(outputs[0], Output::Keep(0));
        assert_eq!(outputs[2], Output::Keep(2));
        let paths = |slot: usize| match &outputs[slot] {
            Output::Edited { edits, .. } => edits.iter().map(|(path, _)| path.to_vec()).collect(),
            Output::Keep(_) => Vec::new(),
        };
        let part = |index| {
            vec![
                PathStep::Key("content"),
                PathStep::Index(index),
                PathStep::Key("output"),
            ]
        };
        assert_eq!(paths(1), vec![part(0), part(2), part(5)]);
        assert_eq!(paths(3), vec![part(1)]);
    }
}

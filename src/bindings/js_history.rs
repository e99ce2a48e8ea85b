//! A history argument read a message at a time (the core's `Messages`): the
//! newest-first reads ask for the messages a decision needs, and nothing
//! else of the caller's array crosses into WebAssembly. Reading every
//! element first, an element a call, cost more than the decisions did.

use std::cell::{OnceCell, RefCell};
use std::ops::Range;

use wasm_bindgen::prelude::*;

use super::convert::{history_length, read_elements, replacement_value, JsNode};
use super::guarded;
use super::keys::key;
use super::own_values::Array;
use super::strings::{estimate_text, ManyTexts};
use crate::error::InputError;
use crate::formats::result_parts::{Payload, ResultParts};
use crate::formats::ResultField;
use crate::history::{COMPACTION_MARKER_NAME, MARKER_OPEN};
use crate::newest_first::{Messages, TO_CLEAR};

pub struct JsHistory<'h> {
    array: &'h JsValue,
    argument: &'h str,
    length: u32,
    /// Every message, once a read of the whole history has needed them.
    all: OnceCell<Vec<JsNode>>,
    /// With `copy_cleared`: the value a cleared field gets.
    replacement: Option<JsValue>,
    /// The copies `result_fields` or `result_parts` made of the messages
    /// they say to clear (an array, at their indexes), and what they were
    /// made for; made by the first call, so a read that never asks makes
    /// none.
    copies: OnceCell<(Array, Copied)>,
    /// The indexes of the copies taken for the answer in place of the
    /// walk's edits (`Messages::take_copy`).
    taken: RefCell<Vec<u32>>,
    /// The payloads `result_parts` recorded, to be estimated
    /// (`Messages::recorded_payload`, `Messages::recorded_text`).
    payloads: OnceCell<Array>,
    /// Their texts, read a window at a time (`Messages::recorded_text`).
    recorded_texts: RefCell<ManyTexts>,
    /// The JS names of the first field `result_field_value` read, which
    /// pruning's walk reads of every older tool message: looked up in the
    /// names' cache each time, they cost what the one call saved.
    field_keys: OnceCell<(ResultField, JsValue, JsValue)>,
}

/// What the copies of cleared messages were made for: the field a
/// `result_fields` call cleared, or the rule a `result_parts` call cleared
/// parts by.
#[derive(Clone, Copy)]
pub enum Copied {
    Field(ResultField),
    Parts(&'static ResultParts),
}

impl<'h> JsHistory<'h> {
    /// Checks that `array` is an array whose length can be read; reads none
    /// of its elements.
    pub fn new(array: &'h JsValue, argument: &'h str) -> Result<Self, JsValue> {
        Ok(JsHistory {
            array,
            argument,
            length: history_length(array, argument)?,
            all: OnceCell::new(),
            replacement: None,
            copies: OnceCell::new(),
            taken: RefCell::new(Vec::new()),
            payloads: OnceCell::new(),
            recorded_texts: RefCell::default(),
            field_keys: OnceCell::new(),
        })
    }

    /// Has `result_fields` and `result_parts` copy each message they say to
    /// clear, with `placeholder` in each cleared payload, for `materialize_edited`
    /// to take.
    pub fn copy_cleared(mut self, placeholder: JsValue) -> Self {
        self.replacement = Some(placeholder);
        self
    }

    /// The copies `result_fields` or `result_parts` made, and what for.
    pub fn copies(&self) -> Option<(Copied, &Array)> {
        let (copies, copied) = self.copies.get()?;
        Some((*copied, copies))
    }

    /// The indexes of the copies taken for the answer with no edit of the
    /// walk's (`Messages::take_copy`), in walking order.
    pub fn taken_copies(&self) -> Vec<u32> {
        self.taken.take()
    }

    /// The array the copies go in, made by the first call that makes them.
    fn copies_for(&self, copied: Copied) -> &JsValue {
        let (copies, _) = self
            .copies
            .get_or_init(|| (Array::new_with_length(self.length), copied));
        copies.as_ref()
    }

    pub fn array(&self) -> &JsValue {
        self.array
    }

    pub fn argument(&self) -> &str {
        self.argument
    }
}

impl Messages for JsHistory<'_> {
    type Node = JsNode;

    /// The array's length: an element that is no message (such as a hole
    /// of a sparse array) is refused when it is read, and the newest-first
    /// reads leave such a history to the whole read, which stops there.
    fn len(&self) -> usize {
        self.length as usize
    }

    fn message(&self, index: usize) -> Option<JsNode> {
        let (element, _) = guarded::get_index(self.array, index as u32).ok()?;
        Some(JsNode(element))
    }

    /// In one call into JS, where the element and each field took one.
    fn result_field_value(&self, index: usize, field: ResultField) -> Option<JsNode> {
        let made = || (field, key(field.outer), key(field.key));
        let kept = self.field_keys.get_or_init(made);
        let other = (kept.0 != field).then(made);
        let (_, outer, inner) = other.as_ref().unwrap_or(kept);
        let value = guarded::element_field(self.array, index as u32, outer, inner).ok()??;
        Some(JsNode(value))
    }

    /// In one call into JS, which reads the messages from the array itself:
    /// Rust's own reads of a role cost about four calls a message. The
    /// names go as the one JS array made of them (`key_list`), which JS
    /// keeps its lookup of.
    fn role_names(
        &self,
        range: Range<usize>,
        names: &'static [&'static str],
        with_content: bool,
    ) -> Vec<u8> {
        guarded::role_names(
            self.array,
            range.start as u32,
            range.len(),
            &super::keys::key_list(names),
            with_content,
        )
    }

    /// In one call into JS, which reads the messages from the array itself
    /// by the same rule (`markerCandidates` in guarded.js).
    fn marker_candidates(&self, range: Range<usize>, roleless: bool) -> Vec<u8> {
        // Each 1 ("read it") until JS says 0: a getter the look runs may grow
        // the module's memory, which empties JS's view of these bytes, and
        // the answers it writes after that are lost.
        let mut candidates = vec![1; range.len()];
        guarded::marker_candidates(
            self.array,
            range.start as u32,
            &key(MARKER_OPEN),
            &key(COMPACTION_MARKER_NAME),
            roleless,
            &mut candidates,
        );
        candidates
    }

    /// In one call into JS, which reads the messages from the array itself:
    /// the core's reads of a tool message cost about ten calls.
    fn result_fields(
        &self,
        indexes: &[u32],
        known: usize,
        field: ResultField,
        parts: bool,
        placeholder: &str,
    ) -> Vec<u8> {
        let mut states = vec![0; indexes.len()];
        for state in states.iter_mut().take(known) {
            *state = TO_CLEAR;
        }
        let undefined = JsValue::UNDEFINED;
        let (replacement, copies) = match &self.replacement {
            Some(replacement) => (replacement, self.copies_for(Copied::Field(field))),
            None => (&undefined, &undefined),
        };
        guarded::result_fields(
            self.array,
            indexes,
            &super::keys::key(field.outer),
            &super::keys::key(field.key),
            parts,
            &JsValue::from_str(placeholder),
            &mut states,
            replacement,
            copies,
        );
        states
    }

    /// In one call into JS, which reads the messages from the array itself
    /// by the rule, handed over as data: the core's read of an AI SDK tool
    /// message costs about forty calls.
    fn result_parts(
        &self,
        indexes: &[u32],
        rule: &'static ResultParts,
        placeholder: &str,
        payloads: bool,
        roleless: bool,
    ) -> Vec<u32> {
        let mut answers = vec![0; 3 * indexes.len()];
        let (output_key, error_key) = rule.keyed_keys();
        let fields = [
            rule.array,
            rule.part_type,
            rule.id_key,
            rule.payload,
            rule.value_key,
            rule.kept_if,
            rule.result_key,
            output_key,
            error_key,
            rule.type_prefix,
            rule.state_key,
        ];
        let names = (fields
            .iter()
            .chain(rule.types.iter().map(|(name, _, _)| name)))
        .map(|name| key(name))
        .collect();
        // Each type's code, then what an untagged payload may be.
        let kinds: Vec<u8> = (rule.types.iter())
            .map(|&(_, payload, error)| {
                u8::from(payload == Payload::Text)
                    | u8::from(error) << 1
                    | u8::from(payload == Payload::Json) << 2
            })
            .chain([rule.untagged as u8])
            .collect();
        let recorded = match payloads {
            true => self
                .payloads
                .get_or_init(|| Array::new_with_length(0))
                .as_ref(),
            false => &JsValue::UNDEFINED,
        };
        let undefined = JsValue::UNDEFINED;
        let (cleared, cleared_error, copies) = match &self.replacement {
            Some(placeholder) => (
                replacement_value(rule.cleared, placeholder),
                replacement_value(rule.cleared_error, placeholder),
                self.copies_for(Copied::Parts(rule)),
            ),
            None => (undefined.clone(), undefined.clone(), &undefined),
        };
        guarded::result_parts(
            self.array,
            indexes,
            names,
            &kinds,
            &JsValue::from_str(placeholder),
            &mut answers,
            &cleared,
            &cleared_error,
            copies,
            recorded,
            &key(MARKER_OPEN),
            &key(COMPACTION_MARKER_NAME),
            roleless,
        );
        answers
    }

    fn recorded_payload(&self, at: usize) -> Option<JsNode> {
        let (payload, _) = guarded::get_index(self.payloads.get()?, at as u32).ok()?;
        Some(JsNode(payload))
    }

    fn recorded_text(&self, at: usize, placeholder: &str) -> Option<(u64, bool)> {
        let payloads = self.payloads.get()?;
        let mut texts = self.recorded_texts.try_borrow_mut().ok()?;
        let text = texts.text(payloads.as_ref(), at)?;
        Some(estimate_text(text, placeholder))
    }

    fn take_copy(&self, index: usize) {
        self.taken.borrow_mut().push(index as u32);
    }

    fn forget_copy(&self, index: usize) {
        if let Some((copies, _)) = self.copies.get() {
            copies.set(index as u32, JsValue::UNDEFINED);
        }
    }

    fn all(&self) -> Result<&[JsNode], InputError> {
        if let Some(all) = self.all.get() {
            return Ok(all);
        }
        let all = read_elements(self.array, self.argument, 0, self.length)?;
        Ok(self.all.get_or_init(|| all))
    }
}

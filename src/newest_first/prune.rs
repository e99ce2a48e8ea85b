//! Pruning, read newest first: the newest messages with their estimates,
//! until the protected tail and the minimum saving are decided; then each
//! older message only for where its results are and whether each is cleared
//! already, never for its estimate (every older result is cleared). Where
//! the role's name says which one field holds a message's result (a chat
//! `tool` message's `content`), only that field is read, of all such
//! messages in one call (`Messages::string_fields`).

use crate::error::InputError;
use crate::formats::{read_history, Format, MessageReader, Reading};
use crate::prune::{self, NewestFirstPruning, PruneOptions};
use crate::view::{Edit, PathStep, Replacement, ToolResult};

use super::messages::{PLACEHOLDER, STRING};
use super::{
    agreed, role_names_from_the_end, Found, Messages, Runs, SettledByName, FIRST_WINDOW,
    FOUND_SLOTS, SHORTEST_READ_NEWEST_FIRST,
};

/// `prune::prune_plan` of `effective`, read newest first when it has no
/// budget (a budget needs the whole history's estimate).
pub fn prune_plan<H: Messages + ?Sized>(
    effective: &H,
    options: &PruneOptions,
    format: Option<Format>,
    argument: &str,
) -> Result<Vec<Edit>, InputError> {
    if let Some(edits) = edits_from_the_end(effective, options, format, argument) {
        return Ok(edits);
    }
    let (_, views) = read_history(effective.all()?, format, argument, &options.placeholder)?;
    Ok(prune::prune_plan(&views, options))
}

/// The edits from runs of older and older messages, then the older
/// messages one by one, or `None` to read the whole history.
fn edits_from_the_end<H: Messages + ?Sized>(
    effective: &H,
    options: &PruneOptions,
    format: Option<Format>,
    argument: &str,
) -> Option<Vec<Edit>> {
    let mut pruning = NewestFirstPruning::new(options)?;
    if effective.len() < SHORTEST_READ_NEWEST_FIRST {
        return None;
    }
    let mut runs = Runs::new();
    let placeholder = &options.placeholder;
    let mut end = effective.len();
    let mut window = FIRST_WINDOW;
    while end > 0 && !pruning.decided() {
        let start = end.saturating_sub(window);
        let views = runs
            .read(
                &effective.run(start..end)?,
                format,
                placeholder,
                Reading::Sizes,
            )?
            .views;
        pruning.walk(&views, start);
        end = start;
        window *= 4;
    }
    // Decided: of each older message, only whether it is a marker and its
    // results matter (`Format::view_if_results`), in every format the
    // newer messages fit; nothing of it when its role's name says it holds
    // no results (`Format::no_results_by_name`), and only the one field
    // when the name says that field holds its result
    // (`Format::result_field_by_name`), read for all of them at once.
    let mut formats = runs.formats();
    let older: Vec<(usize, Option<Found>)> = role_names_from_the_end(effective, 0..end).collect();
    let mut by_field = ByField::read(&formats, &older, effective, placeholder);
    let mut by_name = SettledByName::new();
    for (index, role) in older {
        match by_field.state(index) {
            Some(STRING) => {
                pruning.walk_decided(
                    index,
                    false,
                    std::slice::from_ref(by_field.result.as_ref()?),
                );
                continue;
            }
            Some(PLACEHOLDER) => continue,
            _ => {}
        }
        if by_name.settled(&formats, role, Format::no_results_by_name) {
            continue;
        }
        let message = effective.message(index)?;
        let reader = MessageReader {
            argument,
            index,
            placeholder,
            sizes: false,
            cleared: true,
        };
        let found = role.map(Found::role);
        let results = agreed(&mut formats, |format| {
            let view = format.view_if_results(&message, &reader, found)?;
            Ok(view.map(|view| (view.is_marker, view.tool_results)))
        })?;
        if let Some((is_marker, results)) = results {
            pruning.walk_decided(index, is_marker, &results);
        }
    }
    Some(pruning.edits())
}

/// The older messages whose role's name says, in every format still in the
/// running, which one field holds their result, and what that field is in
/// each (`Messages::string_fields`).
struct ByField {
    /// The result of a message whose field is to be cleared, as its
    /// format's `view_if_results` has it, with the field as its path.
    result: Option<ToolResult>,
    /// Their indexes, newest first, as the older messages are walked.
    indexes: Vec<u32>,
    states: Vec<u8>,
    /// How many of them the walk has passed.
    passed: usize,
}

impl ByField {
    /// Finds them among `older` (newest first), and reads that field of
    /// each, all at once.
    fn read<H: Messages + ?Sized>(
        formats: &[Format],
        older: &[(usize, Option<Found>)],
        effective: &H,
        placeholder: &str,
    ) -> ByField {
        let mut key = None;
        let mut indexes = Vec::new();
        // The field each role found names, worked out once for each.
        let mut fields: [Option<Option<&'static str>>; FOUND_SLOTS] = [None; FOUND_SLOTS];
        for &(index, role) in older {
            let Some(found) = role else { continue };
            let field = *fields[found.slot()].get_or_insert_with(|| agreed_field(formats, found));
            if let Some(field) = field {
                if *key.get_or_insert(field) == field {
                    indexes.push(index as u32);
                }
            }
        }
        let states = match key {
            Some(key) => effective.string_fields(&indexes, key, placeholder),
            None => Vec::new(),
        };
        let result = key.map(|key| {
            ToolResult::new(vec![PathStep::Key(key)], 0, false, Replacement::Placeholder)
        });
        ByField {
            result,
            indexes,
            states,
            passed: 0,
        }
    }

    /// What `Messages::string_fields` answered for the message at `index`,
    /// `None` for a message not asked about. Asked in walking order.
    fn state(&mut self, index: usize) -> Option<u8> {
        if self.indexes.get(self.passed) != Some(&(index as u32)) {
            return None;
        }
        self.passed += 1;
        self.states.get(self.passed - 1).copied()
    }
}

/// The field every format in `formats` says holds the one result of a
/// message with the role `found` (`Format::result_field_by_name`), if they
/// all say the same one.
fn agreed_field(formats: &[Format], found: Found) -> Option<&'static str> {
    let mut agreed = None;
    for format in formats {
        let field = format.result_field_by_name(found.role())?;
        if *agreed.get_or_insert(field) != field {
            return None;
        }
    }
    agreed
}

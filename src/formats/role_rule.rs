//! How most formats read a message's role: from its `role` field alone, by a
//! rule each format states as data. The same rule answers for a role's name
//! without the message (`by_name`): the newest-first reads find many
//! messages' role names in one go (`Node::role_names`), and skip the
//! messages whose name settles what they need.

use super::MessageReader;
use crate::error::InputError;
use crate::node::{Kind, Node};
use crate::view::Role;

pub struct RoleRule {
    /// What a message must be, for the error: "a message object".
    pub what: &'static str,
    /// The role names the format knows, and what each is.
    pub roles: &'static [(&'static str, Role)],
    /// What any other name is; `None` refuses it.
    pub other: Option<Role>,
    /// Said after the names a refused role could have been.
    pub hint: &'static str,
    /// What a message without a role is (Gemini's user content); `None`
    /// when the role must be there.
    pub absent: Option<(&'static str, Role)>,
}

impl RoleRule {
    /// The rule of a message object whose role must be there and be one of
    /// `roles`.
    pub const fn one_of(roles: &'static [(&'static str, Role)], hint: &'static str) -> RoleRule {
        RoleRule {
            what: "a message object",
            roles,
            other: None,
            hint,
            absent: None,
        }
    }

    /// A message's role: its name and what it is.
    pub fn read<N: Node>(
        &self,
        message: &N,
        reader: &MessageReader,
    ) -> Result<(String, Role), InputError> {
        if message.kind() != Kind::Object {
            return Err(reader.type_error("", self.what, message.kind()));
        }
        let name = match self.absent {
            None => reader.required_string(message, "", "role")?,
            Some((absent, role)) => match reader.optional_string(message, "", "role")? {
                Some(name) => name,
                None => return Ok((absent.to_string(), role)),
            },
        };
        self.named(name, reader)
    }

    /// The role of a message object with no `role`: the rule's default
    /// where it has one, else what its read of the message says.
    pub fn without_role<N: Node>(
        &self,
        message: &N,
        reader: &MessageReader,
    ) -> Result<(String, Role), InputError> {
        match self.absent {
            Some((absent, role)) => Ok((absent.to_string(), role)),
            None => self.read(message, reader),
        }
    }

    /// The role a message's `role` string names, or why the rule refuses it.
    pub fn named(
        &self,
        name: String,
        reader: &MessageReader,
    ) -> Result<(String, Role), InputError> {
        match self.by_name(&name) {
            Some(role) => Ok((name, role)),
            None => {
                let names: Vec<String> = self
                    .roles
                    .iter()
                    .map(|(role, _)| format!("\"{role}\""))
                    .collect();
                let (last, rest) = names.split_last().expect("a format has roles");
                Err(InputError::type_error(format!(
                    "{} must be {} or {last}, got \"{name}\"{}",
                    reader.path("role"),
                    crate::util::join::join(rest.iter().map(String::as_str), ", "),
                    self.hint
                )))
            }
        }
    }

    /// What `read` finds in any message object (not an array) whose `role`
    /// is the string `name`, reading nothing else of it; `None` when it
    /// refuses that name.
    pub fn by_name(&self, name: &str) -> Option<Role> {
        self.roles
            .iter()
            .find(|(known, _)| *known == name)
            .map(|(_, role)| *role)
            .or(self.other)
    }
}

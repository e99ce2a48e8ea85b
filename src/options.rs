//! Reading the number options of an options object, over any `Node`, with
//! errors that name the option (`options.protectTurns must be ...`).

use crate::error::{check_budget, check_non_negative, js_number, InputError};
use crate::node::{Kind, Node};

/// What a number may be: the rules of every number the package reads, one
/// wording each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NumberRule {
    /// A budget: positive and finite (`check_budget`).
    Positive,
    /// A size that may be zero: finite, from 0.
    NonNegative,
    /// A count: a whole number from 0.
    Count,
}

impl NumberRule {
    /// The rule of its name, as the JS side names it.
    pub fn parse(name: &str) -> Option<NumberRule> {
        match name {
            "positive" => Some(NumberRule::Positive),
            "non-negative" => Some(NumberRule::NonNegative),
            "count" => Some(NumberRule::Count),
            _ => None,
        }
    }
}

/// The one check of a number's value, named `name` in its errors: a
/// `TypeError` for anything but a number, a `RangeError` outside the rule.
pub fn check_number<N: Node>(value: &N, name: &str, rule: NumberRule) -> Result<f64, InputError> {
    let Some(number) = value.number().filter(|_| value.kind() == Kind::Number) else {
        return Err(InputError::type_error(format!(
            "{name} must be a number, got {}",
            value.kind().describe()
        )));
    };
    match rule {
        NumberRule::Positive => check_budget(number, name),
        NumberRule::NonNegative => check_non_negative(number, name),
        NumberRule::Count if number >= 0.0 && number.fract() == 0.0 => Ok(number),
        NumberRule::Count => Err(InputError::range_error(format!(
            "{name} must be a whole number from 0, got {}",
            js_number(number)
        ))),
    }
}

/// A number option of an options object under `rule`, or `None` when it is
/// absent.
fn option<N: Node>(options: &N, key: &str, rule: NumberRule) -> Result<Option<f64>, InputError> {
    let name = format!("options.{key}");
    match options.field(key) {
        Err(thrown) => Err(InputError::type_error(format!(
            "{name} could not be read: {thrown}"
        ))),
        Ok(None) => Ok(None),
        Ok(Some(value)) => check_number(&value, &name, rule).map(Some),
    }
}

/// A non-negative finite number option, or `None` when it is absent.
pub fn number_option<N: Node>(options: &N, key: &str) -> Result<Option<f64>, InputError> {
    option(options, key, NumberRule::NonNegative)
}

/// A whole, non-negative number option.
pub fn count_option<N: Node>(options: &N, key: &str) -> Result<Option<u64>, InputError> {
    Ok(option(options, key, NumberRule::Count)?.map(|n| n as u64))
}

/// A token budget option: positive and finite; a fraction is rounded down.
pub fn budget_option<N: Node>(options: &N, key: &str) -> Result<Option<u64>, InputError> {
    match number_option(options, key)? {
        Some(n) => {
            check_budget(n, &format!("options.{key}"))?;
            if n < 1.0 {
                return Err(InputError::range_error(format!(
                    "options.{key} must be at least 1, got {}",
                    js_number(n)
                )));
            }
            Ok(Some(n as u64))
        }
        None => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn absent_options_are_none_and_bad_ones_name_the_option() {
        let options = json!({ "a": 3, "b": -1, "c": "4", "d": 2.5, "e": 0 });
        assert_eq!(count_option(&&options, "a").unwrap(), Some(3));
        assert_eq!(count_option(&&options, "zz").unwrap(), None);
        let negative = number_option(&&options, "b").unwrap_err();
        assert_eq!(
            negative.message,
            "options.b must be a non-negative finite number, got -1"
        );
        let text = number_option(&&options, "c").unwrap_err();
        assert_eq!(text.message, "options.c must be a number, got string");
        let fraction = count_option(&&options, "d").unwrap_err();
        assert_eq!(
            fraction.message,
            "options.d must be a whole number from 0, got 2.5"
        );
        let negative = count_option(&&options, "b").unwrap_err();
        assert_eq!(
            negative.message,
            "options.b must be a whole number from 0, got -1"
        );
        assert_eq!(budget_option(&&options, "d").unwrap(), Some(2));
        let zero = budget_option(&&options, "e").unwrap_err();
        assert_eq!(
            zero.message,
            "options.e must be a positive finite number, got 0"
        );
    }
}

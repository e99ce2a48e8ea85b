//! Reading the number options of an options object, over any `Node`, with
//! errors that name the option (`options.protectTurns must be ...`).

use crate::error::{check_budget, check_non_negative, js_number, InputError};
use crate::node::{Kind, Node};

/// A non-negative finite number option, or `None` when it is absent.
pub fn number_option<N: Node>(options: &N, key: &str) -> Result<Option<f64>, InputError> {
    let name = format!("options.{key}");
    match options.field(key) {
        Err(thrown) => Err(InputError::type_error(format!(
            "{name} could not be read: {thrown}"
        ))),
        Ok(None) => Ok(None),
        Ok(Some(value)) if value.kind() == Kind::Number => {
            check_non_negative(value.number().unwrap_or(f64::NAN), &name).map(Some)
        }
        Ok(Some(value)) => Err(InputError::type_error(format!(
            "{name} must be a number, got {}",
            value.kind().describe()
        ))),
    }
}

/// A whole, non-negative number option.
pub fn count_option<N: Node>(options: &N, key: &str) -> Result<Option<u64>, InputError> {
    match number_option(options, key)? {
        Some(n) if n.fract() != 0.0 => Err(InputError::range_error(format!(
            "options.{key} must be a whole number, got {}",
            js_number(n)
        ))),
        other => Ok(other.map(|n| n as u64)),
    }
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
            "options.d must be a whole number, got 2.5"
        );
        assert_eq!(budget_option(&&options, "d").unwrap(), Some(2));
        let zero = budget_option(&&options, "e").unwrap_err();
        assert_eq!(
            zero.message,
            "options.e must be a positive finite number, got 0"
        );
    }
}

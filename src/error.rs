//! The one error type of the pure core. The bindings turn it into a JS
//! `TypeError` or `RangeError`, so every message must name the argument, the
//! message index and the field at fault.

use std::fmt;

/// Which JS error class a failure maps to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorClass {
    /// A value of the wrong type or shape.
    Type,
    /// A value of the right type outside its allowed range.
    Range,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputError {
    pub class: ErrorClass,
    pub message: String,
}

impl InputError {
    pub fn type_error(message: impl Into<String>) -> Self {
        InputError {
            class: ErrorClass::Type,
            message: message.into(),
        }
    }

    pub fn range_error(message: impl Into<String>) -> Self {
        InputError {
            class: ErrorClass::Range,
            message: message.into(),
        }
    }
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for InputError {}

/// Checks a token budget: it must be a positive, finite number. An unknown
/// window treated as 0 made a peer compact on every turn, so 0 is refused too.
pub fn check_budget(value: f64, argument: &str) -> Result<f64, InputError> {
    if value.is_finite() && value > 0.0 {
        Ok(value)
    } else {
        Err(InputError::range_error(format!(
            "{argument} must be a positive finite number, got {}",
            js_number(value)
        )))
    }
}

/// Checks a count or token option that may be zero but not negative.
pub fn check_non_negative(value: f64, argument: &str) -> Result<f64, InputError> {
    if value.is_finite() && value >= 0.0 {
        Ok(value)
    } else {
        Err(InputError::range_error(format!(
            "{argument} must be a non-negative finite number, got {}",
            js_number(value)
        )))
    }
}

/// A number as JS would print it (`Infinity`, not Rust's `inf`).
pub fn js_number(value: f64) -> String {
    crate::util::number::number_text(value)
}

//! One error type for every piece of bad user input (CLI flags, scenario files,
//! library calls with impossible arguments).
//!
//! Users of a simulator mostly meet it through typos in long sweep files, so
//! every message names the field, the value that was given and what would
//! have been accepted. Nothing in the library panics on bad input; it returns
//! this instead.

use std::fmt;

/// A rejected input: which field, what value, what is allowed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputError {
    pub field: String,
    pub value: String,
    pub allowed: String,
}

impl InputError {
    pub fn new(
        field: impl Into<String>,
        value: impl fmt::Display,
        allowed: impl Into<String>,
    ) -> Self {
        InputError {
            field: field.into(),
            value: value.to_string(),
            allowed: allowed.into(),
        }
    }
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "invalid {} = `{}`: {}",
            self.field, self.value, self.allowed
        )
    }
}

impl std::error::Error for InputError {}

/// Shorthand used across the crate.
pub type InputResult<T> = Result<T, InputError>;

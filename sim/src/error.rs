//! One error type for every piece of bad user input (CLI flags, scenario files,
//! library calls with impossible arguments).
//!
//! Users of a simulator mostly meet it through typos in long sweep files, so
//! every message names the field, the value that was given and what would
//! have been accepted. Nothing in the library panics on bad input; it returns
//! this instead.

use std::fmt;

/// A scenario value spelled by name (`traffic.pattern = "poisson"`): the
/// enum with `ALL` and `name`, `FromStr` refusing anything else with every
/// allowed name, and `Display` printing the name back. One definition, so
/// the spellings, the error text and the printed scenario cannot drift.
macro_rules! named_enum {
    (
        $(#[$meta:meta])*
        $vis:vis enum $T:ident ($field:literal) {
            $( $(#[$vmeta:meta])* $V:ident = $name:literal ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        $vis enum $T {
            $( $(#[$vmeta])* $V ),+
        }

        impl $T {
            pub const ALL: &'static [$T] = &[$($T::$V),+];

            /// Scenario spelling.
            pub fn name(self) -> &'static str {
                match self {
                    $($T::$V => $name),+
                }
            }
        }

        impl std::str::FromStr for $T {
            type Err = $crate::error::InputError;
            fn from_str(s: &str) -> Result<$T, $crate::error::InputError> {
                $T::ALL.iter().copied().find(|p| p.name() == s).ok_or_else(|| {
                    $crate::error::InputError::new(
                        $field,
                        s,
                        concat!("one of ", named_enum!(@list $($name),+)),
                    )
                })
            }
        }

        impl std::fmt::Display for $T {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }
    };
    (@list $first:literal $(, $rest:literal)*) => {
        concat!($first $(, ", ", $rest)*)
    };
}

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
        // What is allowed may quote the value again (serde's "invalid
        // type: string ..."): that copy is shortened the same way.
        let inner = self.value.trim_matches('"');
        let allowed = if inner.len() > MAX_ECHO {
            self.allowed.replace(inner, &shorten(inner)).into()
        } else {
            std::borrow::Cow::from(&self.allowed)
        };
        write!(
            f,
            "invalid {} = `{}`: {}",
            self.field,
            shorten(&self.value),
            allowed
        )
    }
}

/// Longest value an error message quotes in full, in bytes.
pub const MAX_ECHO: usize = 200;

/// `s` as an error message quotes it: in full up to [`MAX_ECHO`] bytes,
/// else its head and how many bytes were cut (a 10 MB string typed by
/// mistake must not come back as a 10 MB message).
pub fn shorten(s: &str) -> std::borrow::Cow<'_, str> {
    if s.len() <= MAX_ECHO {
        return s.into();
    }
    let mut end = MAX_ECHO;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… ({} more bytes cut)", &s[..end], s.len() - end).into()
}

impl std::error::Error for InputError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_values_are_shortened() {
        let long = "x".repeat(10_000_000);
        let e = InputError::new("network.topology", &long, "`torus:KxM`");
        let m = e.to_string();
        assert!(m.len() < 400, "{}", m.len());
        assert!(m.contains(&format!("({} more bytes cut)", 10_000_000 - MAX_ECHO)));
        assert!(m.ends_with(": `torus:KxM`"), "{m}");
        // A copy of the value inside what is allowed is shortened too.
        let quoted = format!("\"{long}\"");
        let e = InputError::new(
            "a",
            &quoted,
            format!("a number (invalid type: string {quoted})"),
        );
        assert!(e.to_string().len() < 700, "{}", e.to_string().len());
        // Short values, and a cut inside a multi-byte character.
        assert_eq!(shorten("torus:2x1"), "torus:2x1");
        let s = format!("{}é{}", "a".repeat(MAX_ECHO - 1), "b".repeat(300));
        assert!(shorten(&s).starts_with(&"a".repeat(MAX_ECHO - 1)));
        assert!(shorten(&s).ends_with("more bytes cut)"));
    }
}

/// Shorthand used across the crate.
pub type InputResult<T> = Result<T, InputError>;

/// Serde for the domain types a scenario writes as text (`Topology`,
/// `RoutingKind`, `LinkName`, ...): `#[serde(with = "crate::error::text")]`
/// deserialises a string straight through the type's `FromStr`, so a bad
/// value fails at the parse and the error carries its key path; it
/// serialises through `Display`, the spelling `FromStr` reads back.
pub mod text {
    use super::InputError;
    use serde::{de::Error, Deserialize, Deserializer, Serializer};
    use std::fmt::Display;
    use std::str::FromStr;

    /// Serde's message for a value `FromStr` refused: the value and what is
    /// allowed, which [`refused`] takes apart again.
    pub fn message(e: &InputError) -> String {
        format!("invalid value `{}`: {}", e.value, e.allowed)
    }

    /// `(value, allowed)` of a [`message`].
    pub fn refused(msg: &str) -> Option<(&str, &str)> {
        msg.strip_prefix("invalid value `")?.split_once("`: ")
    }

    pub fn serialize<T: Display, S: Serializer>(v: &T, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(v)
    }

    pub fn deserialize<'de, T, D>(d: D) -> Result<T, D::Error>
    where
        T: FromStr<Err = InputError>,
        D: Deserializer<'de>,
    {
        String::deserialize(d)?
            .parse()
            .map_err(|e| D::Error::custom(message(&e)))
    }

    /// The same for a list of such values (`network.faulty_links`).
    pub mod list {
        use super::*;
        use serde::ser::SerializeSeq;

        pub fn serialize<T: Display, S: Serializer>(v: &[T], s: S) -> Result<S::Ok, S::Error> {
            let mut seq = s.serialize_seq(Some(v.len()))?;
            for x in v {
                seq.serialize_element(&x.to_string())?;
            }
            seq.end()
        }

        pub fn deserialize<'de, T, D>(d: D) -> Result<Vec<T>, D::Error>
        where
            T: FromStr<Err = InputError>,
            D: Deserializer<'de>,
        {
            Vec::<String>::deserialize(d)?
                .iter()
                .map(|s| s.parse().map_err(|e| D::Error::custom(message(&e))))
                .collect()
        }
    }
}

//! Notices about the arguments of a call: a value held inside its cap, a JSON string decoded.

use std::fmt;

/// What the argument pass did to a call's arguments instead of refusing them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArgsNotice {
    /// A value outside its cap, held inside it. `shown` is the value as the caller wrote it
    /// (JSON, so a string keeps its quotes).
    Outside {
        field: &'static str,
        shown: String,
        min: u64,
        max: u64,
        used: u64,
    },
    /// A value over its cap, cut to it; `doing` and `unit` say what the tool does instead
    /// (`showing`, `lines`).
    OverCap {
        field: &'static str,
        value: u64,
        max: u64,
        doing: &'static str,
        unit: &'static str,
    },
    /// The arguments came as a JSON string holding the object; `object` is that object, compact.
    DecodedFromString { object: String },
}

impl fmt::Display for ArgsNotice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArgsNotice::Outside {
                field,
                shown,
                min,
                max,
                used,
            } => write!(f, "{field}={shown} is outside {min}..={max}; used {used}."),
            ArgsNotice::OverCap {
                field,
                value,
                max,
                doing,
                unit,
            } => write!(
                f,
                "{field}={value} is over the cap; {doing} at most {max} {unit}."
            ),
            ArgsNotice::DecodedFromString { object } => write!(
                f,
                "The arguments were a JSON string holding the object; it was decoded. Send \
                 the object itself: {object}"
            ),
        }
    }
}

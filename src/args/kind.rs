//! The kind of value a schema property takes: shared by the command line (how a flag is
//! read) and the argument repair (which spellings are taken as meant).

use serde_json::Value;

/// The kind of value a schema property takes, which decides how a flag is read and which
/// spellings of a wrongly typed argument are repaired.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum FlagKind {
    Bool,
    Integer,
    Number,
    Str,
    List,
}

/// The kind of `prop` (a schema property; a nullable type counts as the type it allows).
pub fn flag_kind(prop: &Value) -> FlagKind {
    let type_of = |schema: &Value| -> Option<String> {
        match &schema["type"] {
            Value::String(t) => Some(t.clone()),
            Value::Array(types) => types
                .iter()
                .filter_map(Value::as_str)
                .find(|t| *t != "null")
                .map(String::from),
            _ => None,
        }
    };
    let kind = type_of(prop).or_else(|| {
        ["anyOf", "oneOf"]
            .iter()
            .filter_map(|key| prop[key].as_array())
            .flatten()
            .find_map(type_of)
            .filter(|t| t != "null")
    });
    match kind.as_deref() {
        Some("boolean") => FlagKind::Bool,
        Some("integer") => FlagKind::Integer,
        Some("number") => FlagKind::Number,
        Some("array") => FlagKind::List,
        _ => FlagKind::Str,
    }
}

//! One JSON object of arguments, from whichever source the caller used, into a tool's `Args`.
//!
//! Flags, `--json TEXT` and stdin all arrive here as a `serde_json::Value`; this is the one place
//! that turns a bad argument into `invalid_arguments`, naming the field and the valid ones.
//!
//! The well-formed call takes the short road: one serde pass, no schema. Only when that pass
//! fails is the tool's schema generated to repair what is unambiguous (`"2"` or `2.0` for an
//! integer, `"true"` for a boolean) and to explain the rest in words a model can act on: every
//! unknown field with the field it probably meant, every wrong type with the expected range and
//! an example call.

pub mod clamp;
mod coerce;
mod fields;
mod kind;
mod malformed;

use std::sync::Mutex;

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::error::{ExampleCall, JsonSubject, ToolError};
use crate::notice::{ArgsNotice, Notice};

pub use kind::{flag_kind, FlagKind};
pub use malformed::{find_mistake, malformed_json};

/// Notices from reading the arguments (a JSON string holding the object was decoded), handed
/// to the call's result by [`clamp_out_of_range`].
static READING_NOTICES: Mutex<Vec<Notice>> = Mutex::new(Vec::new());

/// Clamps the values of `caps` that no `u64` holds (see [`clamp::clamp_unrepresentable`]);
/// returns the notices for the call: those from reading the arguments, then one per clamped
/// field.
pub fn clamp_out_of_range(caps: &[clamp::Cap], args: &mut Value) -> Vec<Notice> {
    let mut notices = READING_NOTICES
        .lock()
        .map(|mut pending| std::mem::take(&mut *pending))
        .unwrap_or_default();
    notices.extend(clamp::clamp_unrepresentable(caps, args));
    notices
}

/// Parses a JSON text holding the arguments object. A leading UTF-8 byte order mark is skipped
/// (editors on Windows write one); a JSON string that holds the object (encoded twice) is
/// decoded, with a notice.
pub fn parse_json_text(tool: &str, description: Option<&str>, text: &str) -> Result<Value, ToolError> {
    let trimmed = strip_bom(text).trim();
    if trimmed.is_empty() {
        return Ok(Value::Object(Default::default()));
    }
    let value: Value = serde_json::from_str(trimmed).map_err(|err| {
        malformed_json(
            JsonSubject::Arguments { tool },
            trimmed,
            &err,
            &example_in(description),
        )
    })?;
    if let Value::String(inner) = &value {
        if let Ok(object @ Value::Object(_)) = serde_json::from_str::<Value>(inner.trim()) {
            if let Ok(mut pending) = READING_NOTICES.lock() {
                pending.push(
                    ArgsNotice::DecodedFromString {
                        object: compact(&object),
                    }
                    .into(),
                );
            }
            return Ok(object);
        }
    }
    Ok(value)
}

/// The first example call in a tool's description, for messages about malformed JSON; a
/// generic one without a description (an unknown tool).
pub fn example_in(description: Option<&str>) -> String {
    description
        .and_then(|description| description.split("Examples:\n").nth(1))
        .and_then(|examples| examples.lines().next())
        .unwrap_or("{\"path\": \"src/main.rs\"}")
        .to_string()
}

/// `text` without a leading byte order mark.
pub fn strip_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

/// Deserializes `value` into `T`. A JSON `null` for a field counts as leaving it out (strict
/// tool-calling modes send null for every optional field); unambiguous spellings of a number or
/// a boolean are accepted (see [`coerce`]); every other mismatch is an error.
pub fn from_value<T: DeserializeOwned>(
    tool: &str,
    value: Value,
    schema: fn() -> Value,
) -> Result<T, ToolError> {
    let map = match value {
        Value::Object(mut map) => {
            map.retain(|_, v| !v.is_null());
            map
        }
        Value::Null => Map::new(),
        other => {
            return Err(ToolError::arguments_not_an_object(
                tool,
                kind_of(&other),
                &field_names(&schema()),
            ))
        }
    };
    let value = Value::Object(map);
    if let Ok(args) = T::deserialize(&value) {
        return Ok(args);
    }
    let Value::Object(map) = value else {
        return Err(ToolError::arguments_must_be_object(tool));
    };
    let schema = schema();
    let map = fields::check_unknown(tool, map, &schema)?;
    let map = coerce::repair(map, &schema)?;
    serde_path_to_error::deserialize(Value::Object(map)).map_err(|err| {
        let field = err.path().to_string();
        let inner = err.into_inner().to_string();
        let named = inner.split('`').nth(1).unwrap_or("?").to_string();
        if inner.starts_with("missing field") {
            ToolError::missing_field(tool, &named)
        } else if field.is_empty() || field == "." {
            ToolError::arguments_do_not_fit(tool, &inner, &field_names(&schema), &field)
        } else {
            ToolError::invalid_field_value(tool, &field, &inner)
        }
    })
}

/// The schema's property names, in schema order.
fn field_names(schema: &Value) -> Vec<&str> {
    schema["properties"]
        .as_object()
        .map(|props| props.keys().map(String::as_str).collect())
        .unwrap_or_default()
}

/// An arguments object as it would be written in a message: `{"path": "f", "start_line": 2}`.
/// Long strings are shortened (a 40 KB `content` would drown the message); `shortened` says so.
fn example_call(map: &Map<String, Value>) -> ExampleCall {
    const LONGEST: usize = 60;
    let mut shortened = false;
    let fields: Vec<String> = map
        .iter()
        .map(|(key, value)| {
            let value = match value {
                Value::String(text) if text.chars().count() > LONGEST => {
                    shortened = true;
                    let head: String = text.chars().take(LONGEST).collect();
                    Value::String(format!("{head}…"))
                }
                other => other.clone(),
            };
            format!("{}: {}", quote(key), compact(&value))
        })
        .collect();
    ExampleCall {
        call: format!("{{{}}}", fields.join(", ")),
        shortened,
    }
}

/// `map` with its fields in the schema's order (unknown ones last), for example calls.
fn in_schema_order(mut map: Map<String, Value>, schema: &Value) -> Map<String, Value> {
    let mut ordered: Map<String, Value> = field_names(schema)
        .into_iter()
        .filter_map(|name| map.shift_remove(name).map(|value| (name.to_string(), value)))
        .collect();
    ordered.append(&mut map);
    ordered
}

/// `value` as JSON with a space after each `,` and `:`, the way the messages write calls.
fn compact(value: &Value) -> String {
    match value {
        Value::Array(items) => format!("[{}]", items.iter().map(compact).collect::<Vec<_>>().join(", ")),
        Value::Object(map) => example_call(map).call,
        other => other.to_string(),
    }
}

fn quote(text: &str) -> String {
    Value::String(text.to_string()).to_string()
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

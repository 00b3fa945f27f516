//! One JSON object of arguments, from whichever source the caller used, into a tool's `Args`.
//!
//! Flags, `--json TEXT` and stdin all arrive here as a `serde_json::Value`; this is the one place
//! that turns a bad argument into `invalid_arguments`, naming the field and the valid ones.

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::error::ToolError;

/// Parses a JSON text holding the arguments object.
pub fn parse_json_text(tool: &str, text: &str) -> Result<Value, ToolError> {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Ok(Value::Object(Default::default()));
    }
    serde_json::from_str(trimmed).map_err(|err| {
        ToolError::invalid(format!(
            "malformed JSON arguments for {tool}: {err}. Pass one JSON object, for example \
             {{\"path\": \"src/main.rs\"}}."
        ))
    })
}

/// Deserializes `value` into `T`. A JSON `null` for a field counts as leaving it out (strict
/// tool-calling modes send null for every optional field); every other mismatch is an error.
pub fn from_value<T: DeserializeOwned>(
    tool: &str,
    value: Value,
    schema: fn() -> Value,
) -> Result<T, ToolError> {
    let value = match value {
        Value::Object(mut map) => {
            map.retain(|_, v| !v.is_null());
            Value::Object(map)
        }
        Value::Null => Value::Object(Default::default()),
        other => {
            return Err(ToolError::invalid(format!(
                "the arguments for {tool} must be a JSON object, not {}. Pass them as {{\"name\": value, ...}}; valid fields: {}.",
                kind_of(&other),
                field_list(schema)
            )))
        }
    };
    serde_path_to_error::deserialize(value).map_err(|err| {
        let mut field = err.path().to_string();
        let inner = err.into_inner().to_string();
        let named = inner.split('`').nth(1).unwrap_or("?").to_string();
        let message = if inner.starts_with("unknown field") {
            field = named.clone();
            format!(
                "unknown field `{named}` for {tool}; valid fields: {}. Call again without `{named}`.",
                field_list(schema)
            )
        } else if inner.starts_with("missing field") {
            field = named.clone();
            format!("missing field `{named}` for {tool}; it is required. Call again with `{named}` set.")
        } else if field.is_empty() || field == "." {
            format!(
                "invalid arguments for {tool}: {inner}. Valid fields: {}.",
                field_list(schema)
            )
        } else {
            format!("invalid value for `{field}` in {tool}: {inner}. See the schema in `codesmith tools`.")
        };
        ToolError::invalid(message).with("field", field)
    })
}

fn field_list(schema: fn() -> Value) -> String {
    let schema = schema();
    let names: Vec<&str> = schema["properties"]
        .as_object()
        .map(|props| props.keys().map(String::as_str).collect())
        .unwrap_or_default();
    names.join(", ")
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

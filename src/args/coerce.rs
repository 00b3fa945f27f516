//! Argument values of the wrong JSON type. Models write `"2"` or `2.0` for an integer and
//! `"true"` for a boolean; those have one meaning and are taken as meant, but only where the
//! schema says integer or boolean (a `"2"` for a string field stays a string). Anything else is
//! refused with a sentence naming the field, what it takes and an example call, instead of
//! serde's "invalid type: string, expected u64".

use serde_json::{Map, Number, Value};

use super::clamp::whole_number;
use super::kind::{flag_kind, FlagKind};
use crate::error::{Expected, ToolError, WrongType};

/// Replaces the unambiguous spellings in `map` by the type the schema asks for; refuses the
/// rest, naming every field that is wrong, with an example call that fixes them.
pub(super) fn repair(mut map: Map<String, Value>, schema: &Value) -> Result<Map<String, Value>, ToolError> {
    let problems = fix(&mut map, schema);
    if problems.is_empty() {
        return Ok(map);
    }
    let example = super::example_call(&super::in_schema_order(map, schema));
    Err(ToolError::wrong_types(&problems, &example))
}

/// Converts the unambiguous spellings in `map` in place and replaces each value it cannot
/// take by a legal one (so `map` becomes an example call); returns what was wrong.
pub(super) fn fix(map: &mut Map<String, Value>, schema: &Value) -> Vec<WrongType> {
    let mut problems = Vec::new();
    let Some(properties) = schema["properties"].as_object() else {
        return problems;
    };
    for (field, value) in map.iter_mut() {
        let Some(prop) = properties.get(field) else {
            continue;
        };
        if let Err((expected, example)) = repair_value(value, prop) {
            problems.push(WrongType {
                field: field.clone(),
                expected,
                // As the caller wrote it: JSON, so a string shows its quotes.
                got: value.to_string(),
            });
            *value = example;
        }
    }
    problems
}

/// Turns `value` into the schema's type where that is unambiguous. On refusal: what the field
/// takes and a legal value for the example call.
fn repair_value(value: &mut Value, prop: &Value) -> Result<(), (Expected, Value)> {
    if let Some(allowed) = allowed_strings(prop) {
        return match value {
            Value::String(text) if allowed.iter().any(|a| a == text) => Ok(()),
            _ => {
                let listed: Vec<String> = allowed.iter().map(|a| super::quote(a)).collect();
                let example = prop["default"]
                    .as_str()
                    .or(allowed.first().map(String::as_str))
                    .unwrap_or_default();
                Err((Expected::OneOf(listed), Value::from(example)))
            }
        };
    }
    match flag_kind(prop) {
        FlagKind::Integer => match integer(value, prop) {
            Some(number) => {
                *value = number;
                Ok(())
            }
            None => Err((whole_number_range(prop), integer_example(prop))),
        },
        FlagKind::Bool => match value {
            Value::Bool(_) => Ok(()),
            Value::String(text) if matches!(text.trim().to_ascii_lowercase().as_str(), "true" | "false") => {
                *value = Value::Bool(text.trim().eq_ignore_ascii_case("true"));
                Ok(())
            }
            // The caller set it on purpose, so the example shows the value that is not the default.
            _ => Err((
                Expected::Bool,
                Value::Bool(prop["default"].as_bool() != Some(true)),
            )),
        },
        FlagKind::Str => match value {
            Value::String(_) => Ok(()),
            Value::Number(_) | Value::Bool(_) => Err((Expected::Str, Value::from(value.to_string()))),
            _ => Err((Expected::Str, Value::from("..."))),
        },
        FlagKind::List => match value {
            Value::String(_) => Ok(()),
            Value::Array(items) if items.iter().all(Value::is_string) => Ok(()),
            _ => Err((Expected::StrOrList, Value::Array(vec![Value::from("...")]))),
        },
        FlagKind::Number => match value {
            Value::Number(_) => Ok(()),
            Value::String(text) => match text.trim().parse::<f64>().ok().and_then(Number::from_f64) {
                Some(number) => {
                    *value = Value::Number(number);
                    Ok(())
                }
                None => Err((Expected::Number, Value::from(1))),
            },
            _ => Err((Expected::Number, Value::from(1))),
        },
    }
}

/// The integer `value` spells, if it fits the schema's format: `2`, `2.0`, `"2"`.
fn integer(value: &Value, prop: &Value) -> Option<Value> {
    let number = whole_number(value)?;
    let unsigned = prop["minimum"].as_f64().is_some_and(|min| min >= 0.0);
    if unsigned {
        u64::try_from(number).ok().map(Value::from)
    } else {
        i64::try_from(number).ok().map(Value::from)
    }
}

/// A whole number in the range the schema states.
fn whole_number_range(prop: &Value) -> Expected {
    Expected::WholeNumber {
        min: prop["minimum"].as_f64().map(|m| m as i64),
        max: prop["maximum"].as_f64().map(|m| m as i64),
    }
}

fn integer_example(prop: &Value) -> Value {
    prop["default"]
        .as_i64()
        .or_else(|| prop["minimum"].as_f64().map(|m| m as i64))
        .map_or(Value::from(1), Value::from)
}

/// The values an enum-like field takes: `enum: [...]`, or `oneOf` of `const`s (how schemars
/// writes an enum whose variants have doc comments).
fn allowed_strings(prop: &Value) -> Option<Vec<String>> {
    if let Some(values) = prop["enum"].as_array() {
        return Some(
            values
                .iter()
                .filter_map(|v| v.as_str().map(String::from))
                .collect(),
        );
    }
    let variants = prop["oneOf"].as_array()?;
    let consts: Vec<String> = variants
        .iter()
        .filter_map(|v| v["const"].as_str().map(String::from))
        .collect();
    (consts.len() == variants.len() && !consts.is_empty()).then_some(consts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn whole_numbers_in_any_spelling() {
        assert_eq!(whole_number(&json!(2)), Some(2));
        assert_eq!(whole_number(&json!(2.0)), Some(2));
        assert_eq!(whole_number(&json!(" 2 ")), Some(2));
        assert_eq!(whole_number(&json!(-3)), Some(-3));
        assert_eq!(whole_number(&json!(2.5)), None);
        assert_eq!(whole_number(&json!("abc")), None);
        assert_eq!(whole_number(&json!(true)), None);
        assert!(whole_number(&json!(1e23)).is_some_and(|n| n > i128::from(u64::MAX)));
    }
}

//! Input schemas in the subset OpenAI's strict mode (`"strict": true`) accepts.
//!
//! Strict mode constrains decoding with a grammar compiled from the schema, so it takes only a
//! subset of JSON Schema: every object closed (`additionalProperties: false`) with every property
//! in `required`; an optional property is required but nullable; `anyOf` and no `oneOf`; no
//! `default`; `format` only from a short list. The registry's schemas are written for every other
//! surface (defaults, `oneOf` of documented constants, schemars' `int64`), and are rewritten here
//! rather than weakened at the source. A null is what the argument parser already takes for
//! "not given" (strict callers send one for every optional field), and each description says
//! what it means.

use serde_json::{Map, Value};

/// The keywords strict mode accepts in a schema, besides `format` (see [`FORMATS`]).
pub const KEYWORDS: [&str; 16] = [
    "type",
    "description",
    "enum",
    "anyOf",
    "items",
    "properties",
    "required",
    "additionalProperties",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "pattern",
    "minItems",
    "maxItems",
];

/// The `format` values strict mode accepts.
pub const FORMATS: [&str; 9] = [
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];

/// `schema` (an object schema from the registry) in strict mode's subset.
pub fn schema(schema: Value) -> Value {
    let Value::Object(mut map) = schema else {
        return schema;
    };
    let required: Vec<String> = map
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).map(String::from).collect())
        .unwrap_or_default();
    let properties = match map.remove("properties") {
        Some(Value::Object(properties)) => properties,
        _ => Map::new(),
    };
    let names: Vec<Value> = properties.keys().cloned().map(Value::String).collect();
    let properties: Map<String, Value> = properties
        .into_iter()
        .map(|(name, prop)| {
            let optional = !required.contains(&name);
            (name, property(prop, optional))
        })
        .collect();
    let mut out = Map::new();
    out.insert("type".into(), Value::from("object"));
    out.insert("properties".into(), Value::Object(properties));
    out.insert("required".into(), Value::Array(names));
    out.insert("additionalProperties".into(), Value::Bool(false));
    Value::Object(out)
}

/// One property: keywords strict mode refuses dropped, a `oneOf` of documented constants turned
/// into an `enum` (the constants' descriptions move into the description), and an optional
/// property made nullable, its description saying what null means.
fn property(prop: Value, optional: bool) -> Value {
    let Value::Object(mut map) = prop else {
        return prop;
    };
    let default = map.remove("default");
    let mut description = map
        .remove("description")
        .and_then(|d| d.as_str().map(String::from))
        .unwrap_or_default();
    if let Some(Value::Array(variants)) = map.remove("oneOf") {
        match constants(&variants) {
            Some((values, meanings)) => {
                map.insert("type".into(), Value::from("string"));
                map.insert("enum".into(), Value::Array(values));
                append(&mut description, &meanings);
            }
            None => {
                let variants = variants.into_iter().map(|v| property(v, false)).collect();
                map.insert("anyOf".into(), Value::Array(variants));
            }
        }
    }
    let mut map = keep_accepted(map);
    if optional {
        make_nullable(&mut map);
        let meaning = match default {
            Some(Value::Null) | None => "Null means not given (the tool's default).".to_string(),
            Some(value) => format!("Null means the default, {value}."),
        };
        append(&mut description, &meaning);
    }
    if !description.is_empty() {
        map.insert("description".into(), Value::String(description));
    }
    Value::Object(map)
}

/// The values and a sentence of meanings of a `oneOf` whose every branch is a string constant.
fn constants(variants: &[Value]) -> Option<(Vec<Value>, String)> {
    let mut values = Vec::new();
    let mut meanings = Vec::new();
    for variant in variants {
        let value = variant.get("const")?.as_str()?;
        values.push(Value::from(value));
        match variant.get("description").and_then(Value::as_str) {
            Some(meaning) => meanings.push(format!("`{value}`: {}", meaning.trim_end_matches('.'))),
            None => meanings.push(format!("`{value}`")),
        }
    }
    Some((values, format!("{}.", meanings.join("; "))))
}

/// The keywords strict mode accepts, recursing into array items and `anyOf` branches.
fn keep_accepted(map: Map<String, Value>) -> Map<String, Value> {
    map.into_iter()
        .filter(|(key, value)| match key.as_str() {
            "format" => value.as_str().is_some_and(|f| FORMATS.contains(&f)),
            key => KEYWORDS.contains(&key),
        })
        .map(|(key, value)| match (key.as_str(), value) {
            ("items", Value::Object(items)) => (key, Value::Object(keep_accepted(items))),
            ("anyOf", Value::Array(branches)) => {
                let branches = branches
                    .into_iter()
                    .map(|b| match b {
                        Value::Object(b) => Value::Object(keep_accepted(b)),
                        other => other,
                    })
                    .collect();
                (key, Value::Array(branches))
            }
            (_, value) => (key, value),
        })
        .collect()
}

/// Adds null to what `map` accepts: to its `type` (and `enum`), or as an `anyOf` branch.
fn make_nullable(map: &mut Map<String, Value>) {
    if let Some(Value::Array(branches)) = map.get_mut("anyOf") {
        if !branches.iter().any(|b| b["type"] == "null") {
            branches.push(serde_json::json!({"type": "null"}));
        }
        return;
    }
    match map.get_mut("type") {
        Some(Value::String(kind)) if kind != "null" => {
            let kind = std::mem::take(kind);
            map.insert("type".into(), serde_json::json!([kind, "null"]));
        }
        Some(Value::Array(kinds)) if !kinds.iter().any(|k| k == "null") => kinds.push(Value::from("null")),
        _ => {}
    }
    if let Some(Value::Array(values)) = map.get_mut("enum") {
        if !values.contains(&Value::Null) {
            values.push(Value::Null);
        }
    }
}

fn append(description: &mut String, sentence: &str) {
    if !description.is_empty() && !description.ends_with('\n') {
        description.push(' ');
    }
    description.push_str(sentence);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn optional_properties_become_required_and_nullable() {
        let out = schema(json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "The file."},
                "max_lines": {"type": "integer", "format": "int64", "default": 200, "description": "Lines."},
                "mode": {"oneOf": [
                    {"type": "string", "const": "a", "description": "First."},
                    {"type": "string", "const": "b"}
                ]}
            },
            "required": ["path"],
            "additionalProperties": false
        }));
        assert_eq!(out["required"], json!(["path", "max_lines", "mode"]));
        assert_eq!(
            out["properties"]["path"],
            json!({"type": "string", "description": "The file."})
        );
        assert_eq!(
            out["properties"]["max_lines"],
            json!({"type": ["integer", "null"], "description": "Lines. Null means the default, 200."})
        );
        assert_eq!(out["properties"]["mode"]["enum"], json!(["a", "b", null]));
        assert_eq!(out["properties"]["mode"]["type"], json!(["string", "null"]));
        let described = out["properties"]["mode"]["description"].as_str().unwrap();
        assert!(described.starts_with("`a`: First; `b`."), "{described}");
    }
}

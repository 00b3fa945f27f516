//! A tool's arguments from the command line: flags and the positional argument typed by the
//! schema, `--json TEXT`, or stdin (a JSON object, or for a patch its raw text).

use std::io::{IsTerminal, Read};

use clap::ArgMatches;
use serde_json::{Map, Value};

use crate::args::{flag_kind, FlagKind};
use crate::error::ToolError;
use crate::tools::ToolSpec;

/// One JSON object of arguments from exactly one source: flags and positional, `--json TEXT`,
/// or stdin (`--json` without a value, or no arguments at all and stdin not a terminal).
pub(super) fn tool_arguments(
    spec: &ToolSpec,
    schema: Option<&Value>,
    sub: &ArgMatches,
) -> Result<Value, ToolError> {
    let generated;
    let schema = match schema {
        Some(schema) => schema,
        None => {
            generated = (spec.schema)();
            &generated
        }
    };
    let empty = Map::new();
    let properties = schema["properties"].as_object().unwrap_or(&empty);
    let mut object = Map::new();
    for (name, prop) in properties {
        let kind = flag_kind(prop);
        let values: Vec<String> = sub
            .get_many::<String>(name)
            .map(|v| v.cloned().collect())
            .unwrap_or_default();
        if values.is_empty() {
            continue;
        }
        let value = match kind {
            FlagKind::List => Value::Array(values.into_iter().map(Value::String).collect()),
            _ => typed_flag_value(kind, values.into_iter().next_back().unwrap_or_default()),
        };
        object.insert(name.clone(), value);
    }
    let positional = spec
        .positional
        .and_then(|name| sub.get_one::<String>("__positional").map(|value| (name, value)));
    if let Some((positional, value)) = positional {
        let kind = properties.get(positional).map_or(FlagKind::Str, flag_kind);
        let value = match raw_text_file(spec, value) {
            Some(text) => Value::String(text?),
            None => typed_flag_value(kind, value.clone()),
        };
        object.insert(positional.to_string(), value);
    }
    let json = sub.get_one::<String>("json");
    match json {
        Some(_) if !object.is_empty() => {
            let flags: Vec<String> = object
                .keys()
                .map(|k| format!("--{}", k.replace('_', "-")))
                .collect();
            Err(ToolError::two_argument_sources(spec.name, &flags))
        }
        Some(text) if !text.is_empty() => {
            crate::args::parse_json_text(spec.name, Some(spec.description), text)
        }
        Some(_) => read_stdin_json(spec.name),
        None if spec.name == RAW_TEXT_TOOL.0
            && !object.contains_key(RAW_TEXT_TOOL.1)
            && !std::io::stdin().is_terminal() =>
        {
            raw_text_from_stdin(spec, object)
        }
        None if object.is_empty() && !std::io::stdin().is_terminal() => read_stdin_json(spec.name),
        None => Ok(Value::Object(object)),
    }
}

/// The tool whose main argument is text a person keeps in a file or pipes in (a patch), and
/// that argument: `codesmith patch FILE` reads FILE when it exists, and stdin that is not a
/// JSON object is the text itself (`git diff | codesmith patch`).
const RAW_TEXT_TOOL: (&str, &str) = ("apply_patch", "patch");

/// The text of the file the positional argument names, for [`RAW_TEXT_TOOL`]; `None` when it
/// is not a file (then it is the text itself).
fn raw_text_file(spec: &ToolSpec, value: &str) -> Option<Result<String, ToolError>> {
    if spec.name != RAW_TEXT_TOOL.0 || value.contains('\n') || !std::path::Path::new(value).is_file() {
        return None;
    }
    Some(
        std::fs::read(value)
            .map_err(|err| ToolError::unreadable_patch_file(value, Some(&err)))
            .and_then(|bytes| {
                String::from_utf8(bytes).map_err(|_| ToolError::unreadable_patch_file(value, None))
            }),
    )
}

/// Stdin for [`RAW_TEXT_TOOL`]: a JSON object (only when no flag was given) or the raw text,
/// joined to the flags.
fn raw_text_from_stdin(spec: &ToolSpec, mut object: Map<String, Value>) -> Result<Value, ToolError> {
    let text = read_stdin_text("the patch")?;
    if object.is_empty() && crate::args::strip_bom(&text).trim_start().starts_with('{') {
        return crate::args::parse_json_text(spec.name, Some(spec.description), &text);
    }
    object.insert(RAW_TEXT_TOOL.1.to_string(), Value::String(text));
    Ok(Value::Object(object))
}

/// A flag's text as the JSON value its schema type calls for. Text that does not parse stays
/// a string, so the one serde pass reports the wrong type, naming the field.
fn typed_flag_value(kind: FlagKind, text: String) -> Value {
    match kind {
        FlagKind::Bool => match text.as_str() {
            "true" => Value::Bool(true),
            "false" => Value::Bool(false),
            _ => Value::String(text),
        },
        FlagKind::Integer => text
            .parse::<i64>()
            .map(Value::from)
            .or_else(|_| text.parse::<u64>().map(Value::from))
            .unwrap_or(Value::String(text)),
        FlagKind::Number => text
            .parse::<f64>()
            .ok()
            .and_then(|f| serde_json::Number::from_f64(f).map(Value::Number))
            .unwrap_or(Value::String(text)),
        FlagKind::Str | FlagKind::List => Value::String(text),
    }
}

pub(super) fn read_stdin_text(what: &str) -> Result<String, ToolError> {
    use std::os::fd::AsFd;
    let mut bytes = Vec::new();
    // Redirected from a file (`< args.json`), stdin says how long it is: one buffer of that
    // size, rather than one grown by doubling from 32 bytes (a read and a copy per doubling).
    let mut stdin = std::io::stdin();
    let meta = stdin
        .as_fd()
        .try_clone_to_owned()
        .map(std::fs::File::from)
        .and_then(|f| f.metadata());
    if let Some(meta) = meta.ok().filter(std::fs::Metadata::is_file) {
        bytes.reserve(usize::try_from(meta.len()).unwrap_or(0));
    }
    stdin
        .read_to_end(&mut bytes)
        .map_err(|err| ToolError::unreadable_stdin(what, Some(&err)))?;
    let text = String::from_utf8(bytes).map_err(|_| ToolError::unreadable_stdin(what, None))?;
    Ok(match text.strip_prefix('\u{feff}') {
        Some(rest) => rest.to_string(),
        None => text,
    })
}

fn read_stdin_json(tool: &str) -> Result<Value, ToolError> {
    let text = read_stdin_text("the JSON arguments")?;
    crate::args::parse_json_text(tool, crate::tools::find(tool).map(|spec| spec.description), &text)
}

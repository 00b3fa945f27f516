//! `codesmith call`: a model's tool call verbatim, in the shapes the model APIs emit.

use clap::ArgMatches;
use serde_json::Value;

use super::arguments::read_stdin_text;
use super::Invocation;
use crate::dispatch::resolve::resolve;
use crate::error::{CallShape, JsonSubject, ToolError};
use crate::session::context::Global;
use crate::tools;

/// `call`: a model's tool call verbatim, in any of the shapes [`CallShape`]'s refusals list.
pub(super) fn parse_call(global: Global, sub: &ArgMatches) -> Invocation {
    let usage = |global: Global, tool: &str, error: ToolError| Invocation::Usage {
        global,
        tool: tool.to_string(),
        error,
    };
    let given = sub.get_one::<String>("call").or(sub.get_one::<String>("json"));
    let text = match given {
        Some(text) if !text.is_empty() => text.clone(),
        _ => match read_stdin_text("the call") {
            Ok(text) => text,
            Err(err) => return usage(global, "call", err),
        },
    };
    let call: Value = match serde_json::from_str(crate::args::strip_bom(&text).trim()) {
        Ok(value) => value,
        Err(err) => {
            let tool = named_tool(&text).unwrap_or("read_file");
            let example = format!(
                "{{\"name\": \"{tool}\", \"arguments\": {}}}",
                crate::args::example_in(tools::find(tool).map(|spec| spec.description))
            );
            let trimmed = crate::args::strip_bom(&text).trim();
            return usage(
                global,
                "call",
                crate::args::malformed_json(JsonSubject::Call, trimmed, &err, &example),
            );
        }
    };
    let (name, arguments) = match unwrap_call(call) {
        Ok(call) => call,
        Err(refusal) => {
            let (tool, error) = *refusal;
            return usage(global, &tool, error);
        }
    };
    match resolve(&global, &name, arguments) {
        Ok((spec, args)) => Invocation::Tool { global, spec, args },
        Err(refusal) => {
            let (tool, error) = *refusal;
            usage(global, &tool, error)
        }
    }
}

/// The `params` of a JSON-RPC `tools/call` request (MCP on the wire): `{"jsonrpc": "2.0",
/// "id": 1, "method": "tools/call", "params": {"name", "arguments"}}`.
fn json_rpc_params(
    mut request: serde_json::Map<String, Value>,
) -> Result<serde_json::Map<String, Value>, CallShape> {
    match request.get("method").and_then(Value::as_str) {
        Some("tools/call") => {}
        Some(other) => {
            return Err(CallShape::OtherMethod {
                method: other.to_string(),
            })
        }
        None => return Err(CallShape::NoMethod),
    }
    match request.shift_remove("params") {
        Some(Value::Object(params)) => Ok(params),
        _ => Err(CallShape::NoParams),
    }
}

/// The envelope fields of a tool call that say nothing about what to run: the call's id (MCP,
/// Anthropic `tool_use`, OpenAI chat and Responses) and its type tag.
const IGNORED_CALL_FIELDS: [&str; 3] = ["id", "type", "call_id"];

/// The tool name and arguments of a call: `{"name", "arguments"|"input"}` (MCP, Anthropic
/// `tool_use`, OpenAI Responses `function_call`) or `{"function": {"name", "arguments"}}`
/// (OpenAI chat `tool_calls`). On error, the envelope's tool name and the error.
fn unwrap_call(call: Value) -> Result<(String, Value), Box<(String, ToolError)>> {
    let refuse = |tool: &str, shape: CallShape| Box::new((tool.to_string(), ToolError::call_shape(&shape)));
    let Value::Object(mut call) = call else {
        return Err(refuse("call", CallShape::NotAnObject));
    };
    if call.contains_key("jsonrpc") || call.contains_key("method") {
        call = json_rpc_params(call).map_err(|shape| refuse("call", shape))?;
    }
    for field in IGNORED_CALL_FIELDS {
        call.shift_remove(field);
    }
    if let Some(function) = call.shift_remove("function") {
        let Value::Object(function) = function else {
            return Err(refuse("call", CallShape::FunctionNotAnObject));
        };
        if let Some(extra) = call.keys().next() {
            return Err(refuse(
                "call",
                CallShape::UnknownFields {
                    fields: vec![extra.clone()],
                },
            ));
        }
        call = function;
    }
    let Some(Value::String(name)) = call.shift_remove("name") else {
        return Err(refuse("call", CallShape::NoName));
    };
    let arguments = match (call.shift_remove("arguments"), call.shift_remove("input")) {
        (Some(_), Some(_)) => return Err(refuse(&name, CallShape::ArgumentsAndInput)),
        (arguments, input) => arguments.or(input).unwrap_or(Value::Null),
    };
    if !call.is_empty() {
        let fields = call.keys().cloned().collect();
        return Err(refuse(&name, CallShape::UnknownFields { fields }));
    }
    Ok((name, arguments))
}

/// The codesmith tool a call that does not parse names (`"name": "edit_file"`), for its example.
fn named_tool(text: &str) -> Option<&'static str> {
    let at = text.find("\"name\"")?;
    let rest = text[at + 6..].trim_start().strip_prefix(':')?.trim_start();
    let rest = rest.strip_prefix('"')?;
    let name = &rest[..rest.find('"')?];
    tools::find(name).map(|spec| spec.name)
}

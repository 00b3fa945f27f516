//! `codesmith call`: a model's tool call verbatim, in the shapes the model APIs emit.

use clap::ArgMatches;
use serde_json::Value;

use super::arguments::read_stdin_text;
use super::translate::{self, Files};
use super::Invocation;
use crate::error::ToolError;
use crate::session::context::{Context, Global};
use crate::tools;

/// `call`: a model's tool call verbatim, in any of the shapes in [`CALL_SHAPES`].
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
                ToolError::invalid(crate::args::explain_malformed(
                    "for call", trimmed, &err, &example,
                )),
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

/// A model's call of the tool `name` with `arguments` as sent (an object, or a JSON string
/// holding one), resolved to the tool to run and its arguments object. `call` and the MCP
/// server's `tools/call` both take calls through here, so a call gets the same answer through
/// either door: a string that does not parse is explained, another harness's tool gets the
/// whole translated call as `error.suggestion`, and a codesmith name called in another
/// harness's shape (Codex's `shell` argv, its `apply_patch` `input`) gets it too. On error, the
/// envelope's tool name and the error.
pub fn resolve(
    global: &Global,
    name: &str,
    arguments: Value,
) -> Result<(&'static tools::ToolSpec, Value), Box<(String, ToolError)>> {
    let found = tools::find(name);
    let tool_name = found.map_or(name, |spec| spec.name);
    let arguments = match arguments {
        Value::String(text) => {
            crate::args::parse_json_text(tool_name, found.map(|spec| spec.description), &text)
                .map_err(|err| Box::new((tool_name.to_string(), err)))?
        }
        other => other,
    };
    let Some(spec) = found else {
        let files = WorkspaceFiles::new(global);
        let error = super::unknown_tool_call(name, &arguments, &files);
        return Err(Box::new((name.to_string(), error)));
    };
    if let Some(error) = foreign_shape(name, &arguments, global) {
        return Err(Box::new((spec.name.to_string(), error)));
    }
    Ok((spec, arguments))
}

/// The `params` of a JSON-RPC `tools/call` request (MCP on the wire): `{"jsonrpc": "2.0",
/// "id": 1, "method": "tools/call", "params": {"name", "arguments"}}`.
fn json_rpc_params(
    mut request: serde_json::Map<String, Value>,
) -> Result<serde_json::Map<String, Value>, String> {
    match request.get("method").and_then(Value::as_str) {
        Some("tools/call") => {}
        Some(other) => {
            return Err(format!(
                "`call` runs JSON-RPC `tools/call` requests only, not `{other}`; for the catalog run \
                 `codesmith tools --format mcp`. {CALL_SHAPES}"
            ))
        }
        None => {
            return Err(format!(
                "a JSON-RPC request needs \"method\": \"tools/call\". {CALL_SHAPES}"
            ))
        }
    }
    match request.shift_remove("params") {
        Some(Value::Object(params)) => Ok(params),
        _ => Err(format!(
            "a `tools/call` request needs \"params\": {{\"name\": ..., \"arguments\": {{...}}}}. {CALL_SHAPES}"
        )),
    }
}

/// The shapes `call` accepts, for its messages.
const CALL_SHAPES: &str = "Accepted shapes: {\"name\": \"read_file\", \"arguments\": {\"path\": \"a.txt\"}} \
     (MCP; \"arguments\" may be a JSON string), {\"type\": \"tool_use\", \"id\": \"t1\", \"name\": \"read_file\", \
     \"input\": {\"path\": \"a.txt\"}} (Anthropic), a JSON-RPC `tools/call` request (its \"params\") and {\"id\": \"c1\", \"type\": \"function\", \"function\": \
     {\"name\": \"read_file\", \"arguments\": \"{\\\"path\\\": \\\"a.txt\\\"}\"}} (OpenAI); \"id\", \"type\" and \
     \"call_id\" are ignored.";

/// The envelope fields of a tool call that say nothing about what to run: the call's id (MCP,
/// Anthropic `tool_use`, OpenAI chat and Responses) and its type tag.
const IGNORED_CALL_FIELDS: [&str; 3] = ["id", "type", "call_id"];

/// The tool name and arguments of a call: `{"name", "arguments"|"input"}` (MCP, Anthropic
/// `tool_use`, OpenAI Responses `function_call`) or `{"function": {"name", "arguments"}}`
/// (OpenAI chat `tool_calls`). On error, the envelope's tool name and the error.
fn unwrap_call(call: Value) -> Result<(String, Value), Box<(String, ToolError)>> {
    let refuse = |tool: &str, message: String| Box::new((tool.to_string(), ToolError::invalid(message)));
    let Value::Object(mut call) = call else {
        return Err(refuse(
            "call",
            format!("call expects a JSON object. {CALL_SHAPES}"),
        ));
    };
    if call.contains_key("jsonrpc") || call.contains_key("method") {
        call = json_rpc_params(call).map_err(|message| refuse("call", message))?;
    }
    for field in IGNORED_CALL_FIELDS {
        call.shift_remove(field);
    }
    if let Some(function) = call.shift_remove("function") {
        let Value::Object(function) = function else {
            return Err(refuse(
                "call",
                format!(
                    "\"function\" must be an object {{\"name\": ..., \"arguments\": ...}}. {CALL_SHAPES}"
                ),
            ));
        };
        if let Some(extra) = call.keys().next() {
            return Err(refuse(
                "call",
                format!("unknown field `{extra}` in the call. {CALL_SHAPES}"),
            ));
        }
        call = function;
    }
    let Some(Value::String(name)) = call.shift_remove("name") else {
        return Err(refuse(
            "call",
            format!("call needs a string field \"name\" naming the tool. {CALL_SHAPES}"),
        ));
    };
    let arguments = match (call.shift_remove("arguments"), call.shift_remove("input")) {
        (Some(_), Some(_)) => {
            return Err(refuse(
                &name,
                format!("the call has both \"arguments\" and \"input\"; send one of them. {CALL_SHAPES}"),
            ))
        }
        (arguments, input) => arguments.or(input).unwrap_or(Value::Null),
    };
    if !call.is_empty() {
        let extra: Vec<String> = call.keys().map(|k| format!("`{k}`")).collect();
        return Err(refuse(
            &name,
            format!(
                "unknown field{} {} in the call. {CALL_SHAPES}",
                if extra.len() == 1 { "" } else { "s" },
                extra.join(", ")
            ),
        ));
    }
    Ok((name, arguments))
}

/// A call to a codesmith name in another harness's shape: Codex's `shell` with an argv list
/// and its `apply_patch` with `input`. The error carries the call in codesmith's shape.
fn foreign_shape(name: &str, arguments: &Value, global: &Global) -> Option<ToolError> {
    let foreign = match name {
        "shell" | "exec_shell" if arguments["command"].is_array() => "shell",
        "apply_patch" | "patch" if arguments.get("input").is_some() && arguments.get("patch").is_none() => {
            "apply_patch"
        }
        _ => return None,
    };
    let files = WorkspaceFiles::new(global);
    let call = translate::translate(foreign, arguments, &files)?.ok()?;
    let suggestion = serde_json::json!({"name": call.name, "arguments": call.arguments});
    let notes = call.notes.iter().map(|n| format!(" {n}")).collect::<String>();
    Some(
        ToolError::invalid(format!(
            "these are Codex's arguments for `{name}`; {} takes {}. Send this call, as is (it is \
             also error.suggestion): {suggestion}.{notes}",
            call.name,
            if call.name == "apply_patch" {
                "the patch text in `patch`"
            } else {
                "the command line as one string in `command`"
            }
        ))
        .with("suggestion", suggestion),
    )
}

/// The workspace as a translation sees it: files resolved from the session's cwd, opened
/// only when a translation needs a file's text.
struct WorkspaceFiles<'a> {
    global: &'a Global,
    context: std::cell::OnceCell<Option<Context>>,
}

impl<'a> WorkspaceFiles<'a> {
    fn new(global: &'a Global) -> WorkspaceFiles<'a> {
        WorkspaceFiles {
            global,
            context: std::cell::OnceCell::new(),
        }
    }

    fn context(&self) -> Option<&Context> {
        self.context
            .get_or_init(|| Context::open(self.global, "call").ok())
            .as_ref()
    }
}

impl Files for WorkspaceFiles<'_> {
    fn text(&self, path: &str) -> Result<(String, String), String> {
        let ctx = self.context().ok_or("the workspace could not be opened")?;
        let resolved = ctx.resolve(path).map_err(|err| err.message)?;
        let call_path = ctx.workspace.call_path(&resolved.abs);
        let text = std::fs::read_to_string(&resolved.abs)
            .map_err(|err| format!("`{call_path}` could not be read as UTF-8 text ({err})"))?;
        Ok((call_path, text))
    }

    fn is_dir(&self, path: &str) -> bool {
        self.context()
            .and_then(|ctx| ctx.resolve(path).ok())
            .is_some_and(|p| p.abs.is_dir())
    }
}

/// The codesmith tool a call that does not parse names (`"name": "edit_file"`), for its example.
fn named_tool(text: &str) -> Option<&'static str> {
    let at = text.find("\"name\"")?;
    let rest = text[at + 6..].trim_start().strip_prefix(':')?.trim_start();
    let rest = rest.strip_prefix('"')?;
    let name = &rest[..rest.find('"')?];
    tools::find(name).map(|spec| spec.name)
}

//! A model's tool call as sent, resolved to the tool to run and its arguments: the same
//! answer through `codesmith call` and the MCP server's `tools/call`.

use serde_json::Value;

use super::translate::{self, Files};
use crate::error::{ToolError, Untranslatable};
use crate::session::context::{Context, Global};
use crate::tools;

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
        let error = super::unknown::unknown_tool_call(name, &arguments, &files);
        return Err(Box::new((name.to_string(), error)));
    };
    if let Some(error) = foreign_shape(name, &arguments, global) {
        return Err(Box::new((spec.name.to_string(), error)));
    }
    Ok((spec, arguments))
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
    Some(ToolError::codex_arguments(
        name,
        call.name,
        suggestion,
        &call.notes,
    ))
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
            .get_or_init(|| Context::open(self.global, crate::tool_id::ToolId::Call).ok())
            .as_ref()
    }
}

impl Files for WorkspaceFiles<'_> {
    fn text(&self, path: &str) -> Result<(String, String), Untranslatable> {
        let ctx = self.context().ok_or(Untranslatable::NoWorkspace)?;
        let resolved = ctx
            .resolve(path)
            .map_err(|err| Untranslatable::Unresolved(Box::new(err)))?;
        let call_path = ctx.workspace.call_path(&resolved.abs);
        // Opened beneath the roots the path was checked against (a link swapped in since is
        // not followed out), without blocking on a FIFO.
        let read = resolved
            .open(libc::O_RDONLY | libc::O_NONBLOCK)
            .map_err(std::io::Error::from)
            .and_then(|mut file| {
                let mut text = String::new();
                std::io::Read::read_to_string(&mut file, &mut text).map(|_| text)
            });
        match read {
            Ok(text) => Ok((call_path, text)),
            Err(error) => Err(Untranslatable::Unreadable {
                path: call_path,
                error,
            }),
        }
    }

    fn is_dir(&self, path: &str) -> bool {
        self.context()
            .and_then(|ctx| ctx.resolve(path).ok())
            .is_some_and(|p| p.open(libc::O_RDONLY | libc::O_DIRECTORY).is_ok())
    }
}

//! `codesmith tools`: the registry rendered as a catalog in each ecosystem's shape.

use serde_json::{json, Value};

use crate::error::ToolError;
use crate::session::context::Global;
use crate::tools::{Capability, ToolSpec, REGISTRY};

mod prompt;
pub mod strict;

/// The catalog of every tool in `format`, as printed.
pub fn render(format: &str) -> String {
    let all: Vec<&'static ToolSpec> = REGISTRY.iter().collect();
    render_for(format, &all)
}

/// The catalog of `specs` in `format` (json, openai, openai-responses, anthropic, mcp,
/// markdown, prompt), as printed.
pub fn render_for(format: &str, specs: &[&'static ToolSpec]) -> String {
    match format {
        "markdown" => markdown(specs),
        "text" => text(specs),
        "prompt" => prompt::render(specs),
        _ => {
            let value = match format {
                "openai" => Value::Array(specs.iter().map(|s| openai(s)).collect()),
                "openai-responses" => Value::Array(specs.iter().map(|s| openai_responses(s)).collect()),
                "anthropic" => Value::Array(specs.iter().map(|s| anthropic(s)).collect()),
                "mcp" => json!({"tools": specs.iter().map(|s| mcp_tool(s)).collect::<Vec<_>>()}),
                _ => Value::Array(specs.iter().map(|s| plain(s)).collect()),
            };
            let mut text = serde_json::to_string_pretty(&value).unwrap_or_default();
            text.push('\n');
            text
        }
    }
}

/// The tools `codesmith tools` lists: those the tool profile enables (see [`crate::tools::profile`]),
/// with the workspace's `[tools] enabled` read from `--workspace` or the current directory.
pub fn enabled_tools(global: &Global) -> Result<Vec<&'static ToolSpec>, ToolError> {
    let root = match &global.workspace {
        Some(dir) => dir.clone(),
        None => std::env::current_dir().unwrap_or_default(),
    };
    let config = crate::session::config::Config::load(&root.join(".codesmith"))?;
    Ok(crate::tools::profile::enabled(global, Some(&config)))
}

fn plain(spec: &ToolSpec) -> Value {
    json!({
        "name": spec.name,
        "alias": spec.alias,
        "capability": spec.capability.as_str(),
        "description": spec.description,
        "input_schema": (spec.schema)(),
    })
}

/// Chat Completions' `tools` entry, in strict mode (see [`strict`]).
fn openai(spec: &ToolSpec) -> Value {
    json!({
        "type": "function",
        "function": {
            "name": spec.name,
            "description": spec.description,
            "parameters": strict::schema((spec.schema)()),
            "strict": true,
        },
    })
}

/// The Responses API's flat `tools` entry, in strict mode.
fn openai_responses(spec: &ToolSpec) -> Value {
    json!({
        "type": "function",
        "name": spec.name,
        "description": spec.description,
        "parameters": strict::schema((spec.schema)()),
        "strict": true,
    })
}

fn anthropic(spec: &ToolSpec) -> Value {
    json!({"name": spec.name, "description": spec.description, "input_schema": (spec.schema)()})
}

/// The shapes `codesmith tools --format` prints the catalog in.
pub const FORMATS: [&str; 8] = [
    "text",
    "json",
    "openai",
    "openai-responses",
    "anthropic",
    "mcp",
    "markdown",
    "prompt",
];

/// A person's name for each tool, for MCP clients' menus and approval prompts.
pub fn title(spec: &ToolSpec) -> &'static str {
    match spec.name {
        "read_file" => "Read file",
        "edit_file" => "Edit file",
        "write_file" => "Write file",
        "apply_patch" => "Apply patch",
        "grep_files" => "Search file contents",
        "file_search" => "Find files by name",
        "list_dir" => "List directory",
        "exec_shell" => "Run shell command",
        "task_output" => "Read background task output",
        "task_wait" => "Wait for background task",
        "task_cancel" => "Cancel background task",
        "history" => "List checkpoints",
        "undo" => "Undo a change",
        "fetch_url" => "Fetch URL",
        "find_symbol" => "Find symbol definitions",
        "outline" => "Outline definitions in a file",
        "ask_user" => "Ask the user",
        "web_search" => "Search the web",
        "task_input" => "Send input to background task",
        "search_code" => "Search code by description",
        _ => spec.name,
    }
}

/// Whether a tool changes nothing here (MCP's `readOnlyHint`): it reads files or the web.
pub fn read_only(spec: &ToolSpec) -> bool {
    spec.capability == Capability::ReadOnly || spec.capability == Capability::Network
}

/// MCP's hints, said outright for every tool (the spec's defaults assume the worst).
///
/// Read-only tools change nothing; the file tools change files (an edit or patch applied twice
/// changes them twice, while writing the same content twice is the same as once); exec_shell
/// can do anything a command can, including reach the network once allowed; task_output and
/// task_wait read a task without changing the workspace, but each call advances the task's
/// output cursor, so a repeat returns something else; task_cancel stops processes of this
/// machine only; fetch_url and web_search read the web; ask_user changes nothing, but asked
/// twice a person may answer differently; task_input types into a running program, which can
/// do anything a command can.
fn annotations(spec: &ToolSpec) -> Value {
    let read_only = read_only(spec);
    let (destructive, idempotent, open_world) = match spec.name {
        "write_file" => (true, true, false),
        "task_cancel" => (true, true, false),
        "task_output" | "task_wait" => (false, false, false),
        "fetch_url" | "web_search" => (false, true, true),
        "exec_shell" | "task_input" => (true, false, true),
        "ask_user" => (false, false, false),
        _ if read_only => (false, true, false),
        _ => (true, false, false),
    };
    json!({
        "title": title(spec),
        "readOnlyHint": read_only,
        "destructiveHint": destructive,
        "idempotentHint": idempotent,
        "openWorldHint": open_world,
    })
}

/// A tool as MCP's `tools/list` and `--format mcp` give it.
pub fn mcp_tool(spec: &ToolSpec) -> Value {
    json!({
        "name": spec.name,
        "title": title(spec),
        "description": spec.description,
        "inputSchema": (spec.schema)(),
        "outputSchema": output_schema(spec),
        "annotations": annotations(spec),
    })
}

/// The MCP `outputSchema`: what a successful result's `structuredContent` (the envelope's
/// `data`) holds. Fields the tool adds in some results only are declared but not required.
pub fn output_schema(spec: &ToolSpec) -> Value {
    let mut properties = serde_json::Map::new();
    let mut required = Vec::new();
    for field in spec.data.iter().chain(&crate::dispatch::envelope::CAPPED_DATA) {
        let kinds: Vec<&str> = field.kind.split('|').collect();
        let kind = match kinds.as_slice() {
            [one] => json!(one),
            several => json!(several),
        };
        properties.insert(field.name.to_string(), json!({"type": kind}));
        if field.always {
            required.push(field.name);
        }
    }
    json!({"type": "object", "properties": properties, "required": required})
}

/// For a person at a terminal: one line per tool (name, command, capability, what it is for).
fn text(specs: &[&'static ToolSpec]) -> String {
    let mut out = String::new();
    for spec in specs {
        let summary = spec.description.lines().next().unwrap_or_default();
        out.push_str(&format!(
            "{:<12} {:<12} {:<13} {summary}\n",
            spec.name,
            spec.alias,
            spec.capability.as_str()
        ));
    }
    out.push_str("\nEvery parameter: `codesmith tools --format markdown`, or `codesmith COMMAND --help`.\n");
    out
}

fn markdown(specs: &[&'static ToolSpec]) -> String {
    let mut out = String::from("# codesmith tools\n");
    for spec in specs {
        out.push_str(&format!(
            "\n## {} (`codesmith {}`)\n\nCapability: {}\n\n{}\n\n### Parameters\n\n",
            spec.name,
            spec.alias,
            spec.capability.as_str(),
            spec.description
        ));
        out.push_str(&parameter_table(spec));
    }
    out
}

/// One parameter of a tool, as the schema declares it.
#[derive(Debug, Clone, PartialEq)]
pub struct Parameter {
    pub name: String,
    /// The JSON type (`string`, `integer`, `boolean`, ...; `a|b` when several).
    pub kind: String,
    pub required: bool,
    /// The default as JSON text, when there is one.
    pub default: Option<String>,
    /// The allowed values as JSON text, when the schema lists them.
    pub allowed: Vec<String>,
    pub description: String,
}

/// The parameters of `spec`, in schema order.
pub fn parameters(spec: &ToolSpec) -> Vec<Parameter> {
    let schema = (spec.schema)();
    let required: Vec<&str> = schema["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(properties) = schema["properties"].as_object() else {
        return Vec::new();
    };
    properties
        .iter()
        .map(|(name, prop)| Parameter {
            name: name.clone(),
            kind: match &prop["type"] {
                Value::String(t) => t.clone(),
                Value::Array(types) => types
                    .iter()
                    .filter_map(Value::as_str)
                    .filter(|t| *t != "null")
                    .collect::<Vec<_>>()
                    .join("|"),
                _ => "string".to_string(),
            },
            required: required.contains(&name.as_str()),
            default: prop.get("default").map(Value::to_string),
            allowed: prop["enum"]
                .as_array()
                .map(|values| values.iter().map(Value::to_string).collect())
                .unwrap_or_default(),
            description: prop["description"]
                .as_str()
                .unwrap_or_default()
                .replace('\n', " "),
        })
        .collect()
}

/// One line per parameter: name, type, required, default, description.
pub fn parameter_table(spec: &ToolSpec) -> String {
    let mut out = String::new();
    for param in parameters(spec) {
        out.push_str(&format!("- `{}` ({}", param.name, param.kind));
        if param.required {
            out.push_str(", required");
        }
        if let Some(default) = &param.default {
            out.push_str(&format!(", default {default}"));
        }
        if !param.allowed.is_empty() {
            out.push_str(&format!(", one of {}", param.allowed.join(" ")));
        }
        out.push_str(&format!("): {}\n", param.description));
    }
    out
}

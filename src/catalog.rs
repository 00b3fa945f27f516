//! `codesmith tools`: the registry rendered as a catalog in each ecosystem's shape.

use serde_json::{json, Value};

use crate::tools::{ToolSpec, REGISTRY};

/// The catalog in `format` (json, openai, anthropic, mcp, markdown), as printed.
pub fn render(format: &str) -> String {
    match format {
        "markdown" => markdown(),
        _ => {
            let value = match format {
                "openai" => Value::Array(REGISTRY.iter().map(openai).collect()),
                "anthropic" => Value::Array(REGISTRY.iter().map(anthropic).collect()),
                "mcp" => json!({"tools": REGISTRY.iter().map(mcp).collect::<Vec<_>>()}),
                _ => Value::Array(REGISTRY.iter().map(plain).collect()),
            };
            let mut text = serde_json::to_string_pretty(&value).unwrap_or_default();
            text.push('\n');
            text
        }
    }
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

fn openai(spec: &ToolSpec) -> Value {
    json!({
        "type": "function",
        "function": {"name": spec.name, "description": spec.description, "parameters": (spec.schema)()},
    })
}

fn anthropic(spec: &ToolSpec) -> Value {
    json!({"name": spec.name, "description": spec.description, "input_schema": (spec.schema)()})
}

/// MCP's hints: a tool that is not read-only may change or delete files (`destructiveHint`
/// defaults to true there; it is said outright), and exec_shell reaches the network as fetch_url
/// does (a command like `curl`, once the policy or the user allows it).
fn mcp(spec: &ToolSpec) -> Value {
    use crate::tools::Capability;
    let read_only = spec.capability == Capability::ReadOnly;
    let open_world = matches!(spec.capability, Capability::Network | Capability::RunsCode);
    json!({
        "name": spec.name,
        "description": spec.description,
        "inputSchema": (spec.schema)(),
        "annotations": {
            "readOnlyHint": read_only,
            "destructiveHint": !read_only && spec.capability != Capability::Network,
            "openWorldHint": open_world,
        },
    })
}

fn markdown() -> String {
    let mut out = String::from("# codesmith tools\n");
    for spec in REGISTRY {
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

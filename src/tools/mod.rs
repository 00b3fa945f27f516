//! The tool registry: every tool codesmith offers, in catalog order.
//!
//! The registry is the single source of truth. Subcommands, `codesmith tools`, the man page and
//! the completions are all rendered from it, so a tool is added by writing its module and
//! listing its `SPEC` here.

use serde::de::DeserializeOwned;
use serde_json::Value;

pub use crate::args::clamp::Cap;
use crate::error::ToolError;
pub use crate::output::{with_notices, ToolOutput};
use crate::session::context::Context;

pub mod apply_patch;
pub mod ask_user;
pub mod edit_file;
pub mod exec_shell;
pub mod fetch_url;
pub mod file_change;
pub mod file_search;
pub mod find_symbol;
pub mod grep_files;
pub mod history;
pub mod list_dir;
pub mod outline;
pub mod profile;
pub mod read_file;
pub mod search_code;
pub mod undo;
pub mod web_search;
pub mod write_file;

/// What a tool may do to the machine. Harnesses use it to decide what to run unattended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Capability {
    ReadOnly,
    WritesFiles,
    RunsCode,
    Network,
}

impl Capability {
    pub fn as_str(self) -> &'static str {
        match self {
            Capability::ReadOnly => "read_only",
            Capability::WritesFiles => "writes_files",
            Capability::RunsCode => "runs_code",
            Capability::Network => "network",
        }
    }
}

pub type RunFn = fn(Value, &mut Context) -> Result<ToolOutput, ToolError>;

/// A tool's declaration. Each tool module exports one as `SPEC`.
pub struct ToolSpec {
    /// The canonical name, as in the catalog (`read_file`).
    pub name: &'static str,
    /// The tool as the layers below take it (its name is `name`).
    pub id: crate::tool_id::ToolId,
    /// The short subcommand name (`read`).
    pub alias: &'static str,
    /// The argument that may be given positionally on the command line.
    pub positional: Option<&'static str>,
    pub capability: Capability,
    /// House rules for the model: when to use it, instead of what, limits, examples.
    pub description: &'static str,
    /// The JSON Schema of the tool's arguments.
    pub schema: fn() -> Value,
    /// The numeric arguments the tool holds inside a range rather than refusing.
    pub caps: &'static [Cap],
    /// The fields of a successful result's `data`, for the output schema of the MCP catalog.
    pub data: &'static [DataField],
    /// Deserializes the arguments (the one place that yields `invalid_arguments` for them) and runs.
    pub run: RunFn,
}

/// One field of a tool's result `data`. The MCP catalog declares them as the tool's
/// `outputSchema`, which clients check every successful result's `structuredContent` against.
pub struct DataField {
    pub name: &'static str,
    /// The JSON Schema type, or types joined by `|` (`integer|null`).
    pub kind: &'static str,
    /// Whether every successful result has the field.
    pub always: bool,
}

impl DataField {
    /// A field every successful result has.
    pub const fn always(name: &'static str, kind: &'static str) -> DataField {
        DataField {
            name,
            kind,
            always: true,
        }
    }

    /// A field only some results have.
    pub const fn sometimes(name: &'static str, kind: &'static str) -> DataField {
        DataField {
            name,
            kind,
            always: false,
        }
    }
}

impl ToolSpec {
    /// The cap of the numeric argument `field`, if the tool caps it.
    pub fn cap(&self, field: &str) -> Option<&'static Cap> {
        crate::args::clamp::cap_of(self.caps, field)
    }
}

/// Every registered tool, in catalog order.
pub const REGISTRY: &[ToolSpec] = &[
    read_file::SPEC,
    edit_file::SPEC,
    write_file::SPEC,
    apply_patch::SPEC,
    grep_files::SPEC,
    file_search::SPEC,
    find_symbol::SPEC,
    outline::SPEC,
    search_code::SPEC,
    list_dir::SPEC,
    exec_shell::SPEC,
    exec_shell::tasks::task_output::SPEC,
    exec_shell::tasks::task_input::SPEC,
    exec_shell::tasks::task_wait::SPEC,
    exec_shell::tasks::task_cancel::SPEC,
    history::SPEC,
    undo::SPEC,
    fetch_url::SPEC,
    web_search::SPEC,
    ask_user::SPEC,
];

/// Finds a tool by canonical name or alias.
pub fn find(name: &str) -> Option<&'static ToolSpec> {
    REGISTRY
        .iter()
        .find(|spec| spec.name == name || spec.alias == name)
}

/// The names a model may call, for `unknown_tool` messages.
pub fn names() -> Vec<&'static str> {
    REGISTRY.iter().map(|spec| spec.name).collect()
}

/// The search and list tools skip `.codesmith/` (the contract says so, and its records are no
/// one's source). Given a path inside it they refuse rather than search it or call it empty;
/// the one thing in it worth reading, a spill file an output named, goes to read_file.
pub fn refuse_state_path(
    ctx: &Context,
    path: &crate::fs::workspace::WsPath,
    tool: &str,
) -> Result<(), ToolError> {
    if !ctx.workspace.is_state_path(&path.abs) {
        return Ok(());
    }
    Err(ToolError::inside_state_for_search(
        &path.display,
        tool,
        &crate::fs::workspace::quote_arg(&ctx.workspace.call_path(ctx.workspace.root())),
    ))
}

/// The line grep_files and file_search add when the session cwd is not the root: their paths
/// are workspace-relative, as results are, but the next call resolves a relative path from the
/// cwd, so a result read back literally would miss. The line names the cwd and spells `first`
/// (an absolute result path) as a call from there. At the root it is absent, so those outputs
/// stay as they were.
pub fn cwd_note(ctx: &Context, first: &std::path::Path) -> Option<String> {
    let workspace = &ctx.workspace;
    if workspace.cwd() == workspace.root() {
        return None;
    }
    Some(format!(
        "Paths are relative to the workspace root, not the session cwd `{}`: from there, `{}` is path={}.",
        workspace.display(workspace.cwd()),
        workspace.display(first),
        crate::fs::workspace::quote_arg(&workspace.call_path(first))
    ))
}

/// The input schema of `T`, trimmed to what tool-definition formats expect: an object schema
/// with `properties`, `required` and `additionalProperties: false`, without `$schema`/`title`.
pub fn schema_of<T: schemars::JsonSchema>() -> Value {
    let generator = schemars::generate::SchemaSettings::draft07()
        .with(|settings| settings.inline_subschemas = true)
        .into_generator();
    let schema = generator.into_root_schema_for::<T>();
    let mut value = schema.to_value();
    standard_formats(&mut value);
    if let Value::Object(map) = &mut value {
        map.remove("$schema");
        map.remove("title");
        map.remove("definitions");
        map.remove("$defs");
        map.insert("additionalProperties".to_string(), Value::Bool(false));
        if !map.contains_key("required") {
            map.insert("required".to_string(), Value::Array(Vec::new()));
        }
    }
    value
}

/// The `format` values JSON Schema defines; strict validators refuse others.
const STANDARD_FORMATS: [&str; 19] = [
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

/// Drops the `format` values schemars writes for Rust's integer types (`uint64`, `int32`, ...),
/// which are no JSON Schema formats: `type: integer` says the rest, and an unsigned one gets
/// `minimum: 0` unless it has a larger minimum already.
fn standard_formats(schema: &mut Value) {
    match schema {
        Value::Object(map) => {
            let format = map.get("format").and_then(Value::as_str).map(String::from);
            if let Some(format) = format.filter(|f| !STANDARD_FORMATS.contains(&f.as_str())) {
                map.remove("format");
                if format.starts_with("uint") && !map.contains_key("minimum") {
                    map.insert("minimum".to_string(), Value::from(0));
                }
            }
            map.values_mut().for_each(standard_formats);
        }
        Value::Array(items) => items.iter_mut().for_each(standard_formats),
        _ => {}
    }
}

/// The default of a `path` argument: the session cwd.
pub(crate) fn default_path() -> String {
    ".".to_string()
}

/// Deserializes a tool's arguments; see [`crate::args::from_value`].
pub fn parse<T: DeserializeOwned>(tool: &str, value: Value, schema: fn() -> Value) -> Result<T, ToolError> {
    crate::args::from_value(tool, value, schema)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn each_tool_id_names_its_spec() {
        let mut ids = HashSet::new();
        for spec in REGISTRY {
            assert_eq!(spec.id.name(), spec.name);
            assert!(ids.insert(spec.id), "{} shares its id", spec.name);
        }
    }

    #[test]
    fn names_and_aliases_are_unique() {
        let mut seen = HashSet::new();
        for spec in REGISTRY {
            assert!(seen.insert(spec.name), "duplicate name {}", spec.name);
            // The task tools have no short name: their alias is their name.
            if spec.alias != spec.name {
                assert!(seen.insert(spec.alias), "duplicate alias {}", spec.alias);
            }
        }
    }

    #[test]
    fn schemas_are_closed_objects_with_snake_case_properties() {
        for spec in REGISTRY {
            let schema = (spec.schema)();
            assert_eq!(schema["type"], "object", "{}", spec.name);
            assert_eq!(schema["additionalProperties"], false, "{}", spec.name);
            let properties = schema["properties"].as_object().expect("properties");
            for name in properties.keys() {
                assert!(
                    name.chars()
                        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'),
                    "{}: property {name} is not snake_case",
                    spec.name
                );
            }
            if let Some(positional) = spec.positional {
                assert!(
                    properties.contains_key(positional),
                    "{}: positional {positional}",
                    spec.name
                );
            }
        }
    }

    #[test]
    fn caps_name_integer_properties_and_hold_a_range() {
        for spec in REGISTRY {
            let schema = (spec.schema)();
            for cap in spec.caps {
                let property = &schema["properties"][cap.field];
                assert!(
                    property.is_object(),
                    "{}: cap on unknown field {}",
                    spec.name,
                    cap.field
                );
                assert!(cap.min <= cap.max, "{}: empty cap on {}", spec.name, cap.field);
                // The schema and the text a model reads state the cap the tool applies.
                for (bound, value) in [("minimum", cap.min), ("maximum", cap.max)] {
                    if let Some(stated) = property[bound].as_u64() {
                        assert_eq!(stated, value, "{}: {bound} of {}", spec.name, cap.field);
                    }
                }
                let text = format!("{} {}", spec.description, property["description"]);
                assert!(
                    text.contains(&cap.max.to_string()),
                    "{}: neither the description nor {}'s says its cap {}",
                    spec.name,
                    cap.field,
                    cap.max
                );
            }
        }
    }

    #[test]
    fn descriptions_are_house_rules_with_examples() {
        for spec in REGISTRY {
            assert!(
                spec.description.contains("Example"),
                "{} has no example",
                spec.name
            );
            assert!(spec.description.len() > 200, "{} description is thin", spec.name);
            assert!(
                !spec.description.ends_with('\n'),
                "{} description ends with a newline",
                spec.name
            );
        }
    }
}

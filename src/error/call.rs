//! Refusals of where a call's arguments come from: flags, `--json`, a patch file, stdin, and the
//! shape of a call given to `codesmith call`.

use super::Field;
use super::ToolError;

/// The shapes `call` accepts, for its refusals.
const CALL_SHAPES: &str = "Accepted shapes: {\"name\": \"read_file\", \"arguments\": {\"path\": \"a.txt\"}} \
     (MCP; \"arguments\" may be a JSON string), {\"type\": \"tool_use\", \"id\": \"t1\", \"name\": \"read_file\", \
     \"input\": {\"path\": \"a.txt\"}} (Anthropic), a JSON-RPC `tools/call` request (its \"params\") and {\"id\": \"c1\", \"type\": \"function\", \"function\": \
     {\"name\": \"read_file\", \"arguments\": \"{\\\"path\\\": \\\"a.txt\\\"}\"}} (OpenAI); \"id\", \"type\" and \
     \"call_id\" are ignored.";

/// What is wrong with the shape of a call given to `codesmith call`; each refusal ends with
/// the shapes it accepts.
#[derive(Debug, thiserror::Error)]
pub enum CallShape {
    #[error("call expects a JSON object. {shapes}", shapes = CALL_SHAPES)]
    NotAnObject,
    #[error(
        "`call` runs JSON-RPC `tools/call` requests only, not `{method}`; for the catalog run \
         `codesmith tools --format mcp`. {shapes}",
        shapes = CALL_SHAPES
    )]
    OtherMethod { method: String },
    #[error("a JSON-RPC request needs \"method\": \"tools/call\". {shapes}", shapes = CALL_SHAPES)]
    NoMethod,
    #[error(
        "a `tools/call` request needs \"params\": {{\"name\": ..., \"arguments\": {{...}}}}. {shapes}",
        shapes = CALL_SHAPES
    )]
    NoParams,
    #[error(
        "\"function\" must be an object {{\"name\": ..., \"arguments\": ...}}. {shapes}",
        shapes = CALL_SHAPES
    )]
    FunctionNotAnObject,
    #[error("call needs a string field \"name\" naming the tool. {shapes}", shapes = CALL_SHAPES)]
    NoName,
    #[error(
        "the call has both \"arguments\" and \"input\"; send one of them. {shapes}",
        shapes = CALL_SHAPES
    )]
    ArgumentsAndInput,
    #[error(
        "unknown field{} {} in the call. {shapes}",
        if .fields.len() == 1 { "" } else { "s" },
        quoted(.fields),
        shapes = CALL_SHAPES
    )]
    UnknownFields { fields: Vec<String> },
}

/// `a`, `b`: field names as a refusal lists them.
fn quoted(fields: &[String]) -> String {
    fields
        .iter()
        .map(|f| format!("`{f}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

impl ToolError {
    /// A call given to `codesmith call` in none of the shapes it accepts.
    pub fn call_shape(shape: &CallShape) -> ToolError {
        ToolError::invalid(shape.to_string())
    }

    /// Both `--json` and flags were given; `flags` lists the flags.
    pub fn two_argument_sources(tool: &str, flags: &[String]) -> ToolError {
        ToolError::invalid(format!(
            "arguments come from exactly one source, but {tool} got both --json and flags ({}). \
             Put every argument in the JSON object, or use only flags.",
            flags.join(", ")
        ))
    }

    /// A patch file that cannot be read (`why`), or that is not UTF-8 (`None`).
    pub fn unreadable_patch_file(path: &str, why: Option<&std::io::Error>) -> ToolError {
        ToolError::invalid(match why {
            Some(err) => format!(
                "could not read the patch file `{path}`: {err}. Pass a readable file, or the patch text."
            ),
            None => format!("the patch file `{path}` is not UTF-8 text; convert it to UTF-8."),
        })
    }

    /// Stdin could not be read (`why`), or is not UTF-8 (`None`); `what` names what was read.
    pub fn unreadable_stdin(what: &str, why: Option<&std::io::Error>) -> ToolError {
        ToolError::invalid(match why {
            Some(err) => format!("could not read {what} from stdin: {err}. Send it again."),
            None => format!("the bytes of {what} on stdin are not valid UTF-8; send them as UTF-8."),
        })
    }

    /// The arguments are JSON but not an object (`kind` says what they are).
    pub fn arguments_not_an_object(tool: &str, kind: &str, fields: &[&str]) -> ToolError {
        ToolError::invalid(format!(
            "the arguments for {tool} must be a JSON object, not {kind}. Pass them as {{\"name\": value, ...}}; valid fields: {}.",
            fields.join(", ")
        ))
    }

    /// A required field is missing.
    pub fn missing_field(tool: &str, field: &str) -> ToolError {
        ToolError::invalid(format!(
            "missing field `{field}` for {tool}; it is required. Call again with `{field}` set."
        ))
        .with(Field::FieldName, field)
    }

    /// The arguments do not fit the schema as a whole (`why` is the decoder's reason).
    pub fn arguments_do_not_fit(tool: &str, why: &str, fields: &[&str], field: &str) -> ToolError {
        ToolError::invalid(format!(
            "invalid arguments for {tool}: {why}. Valid fields: {}.",
            fields.join(", ")
        ))
        .with(Field::FieldName, field)
    }

    /// One field's value does not fit its schema (`why` is the decoder's reason).
    pub fn invalid_field_value(tool: &str, field: &str, why: &str) -> ToolError {
        ToolError::invalid(format!(
            "invalid value for `{field}` in {tool}: {why}. See the schema in `codesmith tools`."
        ))
        .with(Field::FieldName, field)
    }
}

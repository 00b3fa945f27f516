//! Refusals of where a call's arguments come from: flags, `--json`, a patch file, stdin.

use super::Field;
use super::ToolError;

impl ToolError {
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

    /// A global option written after the tool (or command) name; `corrected` is the whole
    /// command line, shell-quoted, with the option moved before the name.
    pub fn global_option_after_name(named: &str, what: &str, invoked: &str, corrected: &str) -> ToolError {
        ToolError::invalid(format!(
            "{named} before the {what} name `{invoked}`, not after it. Call again as: {corrected}"
        ))
    }
}

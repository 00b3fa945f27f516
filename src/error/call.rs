//! Refusals of where a call's arguments come from: flags, `--json`, a patch file, stdin.

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
}

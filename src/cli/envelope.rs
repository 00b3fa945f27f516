//! The command line's printing of an envelope: a single JSON object and a newline per call
//! (or, with `--format text`, its `output` and notices).

use serde_json::Value;

use crate::dispatch::envelope::{build, write_stdout};
use crate::dispatch::person;
use crate::error::ToolError;
use crate::output::ToolOutput;
use crate::session::context::Global;

/// Prints the envelope for `result` of a command outside a tool call (`approve`, `trust`, a
/// usage error) and returns the exit status.
pub fn emit(tool: &str, result: Result<ToolOutput, ToolError>, global: &Global) -> i32 {
    let (mut envelope, status) = build(tool, result, None);
    person::localize_envelope(&mut envelope, || person::prefix_of(global));
    print(&envelope, global);
    // The process ends right after: freeing a large result (a thousand hunk records) value by
    // value costs more than the operating system reclaiming it at once. (The MCP server, which
    // lives on, prints through `print` and frees its envelopes.)
    std::mem::forget(envelope);
    status
}

/// Prints a built envelope: the JSON object and a newline, or with `--format text` its
/// `output` and notices for a person (see `cli::human`), the command lines in them carrying
/// `global`'s workspace and session.
pub fn print(envelope: &Value, global: &Global) {
    let text = if global.text_format {
        crate::cli::human::text(envelope, || person::prefix_of(global))
    } else {
        let mut line = serde_json::to_string(envelope).unwrap_or_else(|_| "{}".to_string());
        line.push('\n');
        line
    };
    write_stdout(text.as_bytes());
}

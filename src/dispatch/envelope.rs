//! The envelope every front end answers with: `{ok, tool, output, data|error, notices}` and
//! the exit status that goes with it, the output capped (the whole text spilled to a file),
//! and the one writer of stdout.

use std::io::Write;

use serde_json::{Map, Value};

use crate::error::ToolError;
use crate::notice::{render_all, OutputCut};
use crate::output::ToolOutput;
use crate::session::context::Context;
use crate::tools::DataField;

/// `output` is capped at this many characters; the whole text is spilled to a file.
pub const OUTPUT_CAP_CHARS: usize = 120_000;

/// The fields a capped output adds to any tool's `data`.
pub const CAPPED_DATA: [DataField; 3] = [
    DataField::sometimes("output_truncated", "boolean"),
    DataField::sometimes("output_omitted_chars", "integer"),
    DataField::sometimes("spill_path", "string"),
];

/// Exit statuses.
pub const EXIT_OK: i32 = 0;

/// Writes raw text to stdout (the catalog, help). A closed pipe is not an error.
pub fn write_stdout(bytes: &[u8]) {
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(bytes).and_then(|()| stdout.flush());
}

/// The envelope for `result` and the exit status that goes with it; `ctx` (when the session
/// opened) is where an output over the cap is spilled.
pub fn build(tool: &str, result: Result<ToolOutput, ToolError>, ctx: Option<&Context>) -> (Value, i32) {
    let mut envelope = Map::new();
    match result {
        Ok(mut out) => {
            let output = cap(tool, out.output, &mut out.data, ctx);
            envelope.insert("ok".into(), Value::Bool(true));
            envelope.insert("tool".into(), Value::String(tool.to_string()));
            envelope.insert("output".into(), Value::String(output));
            envelope.insert("data".into(), Value::Object(out.data));
            envelope.insert("notices".into(), Value::from(render_all(&out.notices)));
            (Value::Object(envelope), EXIT_OK)
        }
        Err(err) => {
            let (code, message, details) = err.into_parts();
            let status = code.exit_status();
            let mut ignored = Map::new();
            let message = cap(tool, message, &mut ignored, ctx);
            let mut error = Map::new();
            error.insert("code".into(), Value::String(code.as_str().to_string()));
            error.insert("message".into(), Value::String(message.clone()));
            for (key, value) in details {
                error.entry(key).or_insert(value);
            }
            envelope.insert("ok".into(), Value::Bool(false));
            envelope.insert("tool".into(), Value::String(tool.to_string()));
            envelope.insert("output".into(), Value::String(message));
            envelope.insert("error".into(), Value::Object(error));
            (Value::Object(envelope), status)
        }
    }
}

/// Applies the output cap: keeps the head (ending on a whole line where one ends in the last
/// few thousand characters), spills the whole text and says so in a final line.
fn cap(tool: &str, output: String, data: &mut Map<String, Value>, ctx: Option<&Context>) -> String {
    let total = output.chars().count();
    if total <= OUTPUT_CAP_CHARS {
        return output;
    }
    let spilled = ctx.and_then(|c| c.state.spill(tool, &output).ok());
    let budget = OUTPUT_CAP_CHARS - 400;
    let cut = output.char_indices().nth(budget).map_or(output.len(), |(i, _)| i);
    let head = &output[..cut];
    let head = match head.rfind('\n') {
        Some(nl) if cut - nl < 4000 => &head[..=nl],
        _ => head,
    };
    let kept = head.chars().count();
    let omitted = total - kept;
    let cut_line = OutputCut {
        omitted,
        total,
        // Named as read_file will take it from the session cwd; `data.spill_path` stays
        // workspace-relative like every path in results.
        spilled: spilled
            .as_ref()
            .zip(ctx)
            .map(|(path, ctx)| ctx.workspace.call_path_of(path)),
    };
    data.insert("output_truncated".into(), Value::Bool(true));
    data.insert("output_omitted_chars".into(), Value::from(omitted));
    if let Some(path) = spilled {
        data.insert("spill_path".into(), Value::String(path));
    }
    let sep = if head.ends_with('\n') { "" } else { "\n" };
    format!("{head}{sep}{cut_line}")
}

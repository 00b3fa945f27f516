//! Refusals particular to one tool: size limits of the reading tools, exec_shell's time limit,
//! network policy and sandbox.

use super::{ErrorCode, Field, ToolError};

impl ToolError {
    /// A file over the size outline parses (`max_mb`).
    pub fn too_large_to_outline(display: &str, max_mb: u64, call_arg: &str) -> ToolError {
        ToolError::new(
            ErrorCode::TooLarge,
            format!(
                "`{display}` is over {max_mb} MB, more than outline parses. Read it in pages with read_file \
                 with path={call_arg}, or search it with grep_files."
            ),
        )
        .with(Field::Path, display)
    }

    /// A file over the buffer multiline search holds; `call` is the grep_files call so far.
    pub fn too_large_for_multiline(display: &str, size: u64, max: usize, call: &str) -> ToolError {
        ToolError::new(
            ErrorCode::TooLarge,
            format!(
                "`{display}` is {size} bytes; multiline=true holds the whole file in memory, which is \
                 capped at {max} bytes. Search it line by line: call grep_files with {call} multiline=false."
            ),
        )
        .with(Field::Path, display)
    }

    /// A command killed at its timeout; `output` is what it wrote, `data` its result fields.
    pub fn command_timed_out(
        timeout_ms: u64,
        max_ms: u64,
        output: &str,
        data: serde_json::Value,
    ) -> ToolError {
        ToolError::new(
            ErrorCode::Timeout,
            format!(
                "the command did not finish within {timeout_ms} ms, so it was killed with all its children. \
                 Output so far:\n{output}\nTo give it longer, repeat the call with a larger timeout_ms (at \
                 most {max_ms}); for servers, watchers and long builds call exec_shell with \
                 background=true and follow it with task_wait."
            ),
        )
        .with(Field::TimeoutMs, timeout_ms)
        .with(Field::Data, data)
    }

    /// A command that needs the network under a policy of deny.
    pub fn command_network_denied(reason: &str) -> ToolError {
        ToolError::new(
            ErrorCode::NetworkDenied,
            format!(
                "the workspace's network policy denies the network ([network] default in \
                 .codesmith/config.toml), and this command needs it: {reason}. Nothing was run. \
                 Do the work without the network; for a web page call fetch_url (it follows \
                 the policy's allow list); or ask the user to change the policy."
            ),
        )
        .with(Field::Reason, reason)
    }

    /// `[shell] sandbox = "required"` on a machine without the layers: each missing layer and
    /// why it is missing.
    pub fn sandbox_unavailable(missing: &[(&str, &str)]) -> ToolError {
        let what: Vec<String> = missing
            .iter()
            .map(|(layer, reason)| format!("{layer} ({reason})"))
            .collect();
        let layers: Vec<&str> = missing.iter().map(|(layer, _)| *layer).collect();
        ToolError::new(
            ErrorCode::SandboxUnavailable,
            format!(
                "the command was not run: [shell] sandbox = \"required\" in .codesmith/config.toml, and \
                 this machine cannot provide {}. Ask the user to enable the missing kernel feature, or \
                 to set sandbox = \"auto\" under [shell] to run commands guarded by the classifier alone.",
                what.join(", ")
            ),
        )
        .with(Field::Missing, layers)
    }
}

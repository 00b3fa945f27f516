//! A FIFO, socket or device that a reading tool was pointed at: it was not opened, so nothing
//! blocked; the message names what to read instead.

use super::{ErrorCode, Field, ToolError};

impl ToolError {
    /// The opening every refusal of a special file shares.
    fn special_file_skipped(tool: crate::tool_id::ToolId, display: &str, instead: &str) -> ToolError {
        ToolError::new(
            ErrorCode::NotARegularFile,
            format!("`{display}` is a FIFO, socket or device, which {tool} does not read. {instead}"),
        )
        .with(Field::Path, display)
    }

    /// grep_files pointed at a special file; `pattern_arg` is its pattern as the suggested call
    /// spells it (a JSON string).
    pub fn grep_special_file(display: &str, pattern_arg: &str) -> ToolError {
        ToolError::special_file_skipped(
            crate::tool_id::ToolId::GrepFiles,
            display,
            &format!(
                "Search a directory or a regular file instead, e.g. call grep_files with pattern={pattern_arg} \
                 path=\".\"."
            ),
        )
    }

    /// outline pointed at a special file.
    pub fn outline_special_file(display: &str) -> ToolError {
        ToolError::special_file_skipped(
            crate::tool_id::ToolId::Outline,
            display,
            "Outline a source file or a directory, e.g. path=\".\".",
        )
    }
}

//! Failures of a background task's plumbing that a tool call reports.

use super::ToolError;

impl ToolError {
    /// task_input could not write to the task's input pipe.
    pub fn task_input_unwritable(task_id: &str, err: &std::io::Error) -> ToolError {
        ToolError::io(&format!(".codesmith/tasks/{task_id}/input"), "write to", err)
    }
}

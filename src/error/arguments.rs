//! `invalid_arguments` refusals of one tool's arguments: values out of range, forms that
//! contradict each other, paths of the wrong kind. Each names the call that works.

use super::{FileRef, ToolError};

impl ToolError {
    /// read_file's start_line=0; `path_arg` is the path as a call argument.
    pub fn start_line_zero(path_arg: &str) -> ToolError {
        ToolError::invalid(format!(
            "start_line is 1-based, so 0 is not a line. Call read_file with path={path_arg} start_line=1."
        ))
    }

    /// read_file's max_lines=0.
    pub fn max_lines_zero(path_arg: &str, cap: u64) -> ToolError {
        ToolError::invalid(format!(
            "max_lines must be 1 to {cap}. Call read_file with path={path_arg} max_lines=200."
        ))
    }

    /// list_dir's depth outside 1..=max; `nearest` is the nearest legal depth.
    pub fn depth_out_of_range(path_arg: &str, max: u64, nearest: u64) -> ToolError {
        ToolError::invalid(format!(
            "depth must be 1 to {max}. Call list_dir with path={path_arg} depth={nearest}."
        ))
    }

    /// fetch_url's max_bytes=0 or timeout_ms=0 (`field`), with the cap and the default.
    pub fn fetch_limit_zero(field: &str, url_arg: &str, cap: u64, default: u64) -> ToolError {
        ToolError::invalid(format!(
            "{field} must be at least 1; values above {cap} are capped. Call fetch_url with url={url_arg} \
             {field}={default}."
        ))
    }

    /// task_wait's timeout_ms over the cap.
    pub fn wait_too_long(timeout_ms: u64, max: u64, task_id: &str) -> ToolError {
        ToolError::invalid(format!(
            "timeout_ms must be 0 to {max} (got {timeout_ms}). Call task_wait with task_id=\"{task_id}\" \
             timeout_ms={max}, and again if it is still running."
        ))
        .with("field", "timeout_ms")
    }

    /// task_cancel with both or neither of task_id and all=true.
    pub fn cancel_needs_one_target() -> ToolError {
        ToolError::invalid(
            "pass either task_id or all=true (not both, not neither). For example call \
             task_cancel with task_id=\"task-1\", or with all=true.",
        )
    }

    /// undo with both id and to.
    pub fn undo_id_and_to() -> ToolError {
        ToolError::invalid(
            "pass id (revert that one checkpoint) or to (revert it and every later one of the session), \
             not both.",
        )
    }

    /// An undo id or to that is not a checkpoint number.
    pub fn bad_checkpoint_id(field: &str, text: &str) -> ToolError {
        ToolError::invalid(format!(
            "{field} must be a checkpoint id, a number as history lists it (got `{text}`). Call history \
             to see the ids."
        ))
        .with("field", field)
    }

    /// apply_patch with an empty patch.
    pub fn empty_patch() -> ToolError {
        ToolError::invalid(
            "the patch is empty. Pass a unified diff or a `*** Begin Patch` … `*** End Patch` block in `patch`.",
        )
    }

    /// write_file given a path that ends with `/`; `example_arg` names a file inside it.
    pub fn write_to_directory_name(path: &str, example_arg: &str) -> ToolError {
        ToolError::invalid(format!(
            "`{path}` ends with `/`, which names a directory; write_file writes files. Call again with \
             a file name, for example path={example_arg}."
        ))
    }

    /// write_file given a path that runs through an existing file (`notes.txt/x`).
    pub fn write_through_file(display: &str, file: &str) -> ToolError {
        ToolError::invalid(format!(
            "`{display}` goes through `{file}`, which is a file, not a directory, so nothing can be created \
             inside it. Choose a path whose parent is a directory (or remove `{file}` first)."
        ))
    }

    /// A file in a language `tool` has no grammar for; `supported` lists them in prose.
    pub fn unsupported_language(
        file: &FileRef,
        tool: &str,
        supported: &str,
        languages: Vec<&str>,
    ) -> ToolError {
        ToolError::invalid(format!(
            "`{}` is not in a language {tool} understands. Supported: {supported}. To see the file, call \
             read_file with path={}; to search its text, grep_files.",
            file.display, file.call_arg
        ))
        .with("path", file.display)
        .with("languages", languages)
    }

    /// A search or list tool pointed inside `.codesmith/`; `root_arg` is the workspace root as a
    /// call argument.
    pub fn inside_state_for_search(display: &str, tool: &str, root_arg: &str) -> ToolError {
        ToolError::invalid(format!(
            "`{display}` is inside .codesmith/, codesmith's own state, which the search and list tools \
             (grep_files, file_search, list_dir) skip. A spill file named in an output \
             (`.codesmith/spill/...`) can be read with read_file. Otherwise call {tool} with a path \
             outside .codesmith/, e.g. path={root_arg}."
        ))
        .with("path", display)
    }
}

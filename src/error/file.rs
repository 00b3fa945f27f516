//! Refusals about one file or path: where it is, what it is, what it holds, whether the
//! session's view of it is current.

use super::{ErrorCode, Field, FileRef, ToolError};

/// The kinds of file that are neither regular files nor directories, as messages name them.
pub fn special_kind_name(fifo: bool, socket: bool, device: bool) -> &'static str {
    if fifo {
        "a FIFO (named pipe)"
    } else if socket {
        "a socket"
    } else if device {
        "a device"
    } else {
        "not a regular file"
    }
}

/// Where a missing path was looked for and what to try instead.
pub struct Missing<'a> {
    /// The path as the caller wrote it.
    pub given: &'a str,
    pub display: &'a str,
    /// The session cwd, when the path was relative to a cwd other than the root.
    pub cwd: Option<&'a str>,
    /// The call that reaches the path from the cwd, when it exists relative to the root
    /// (`at_root` is how results show it).
    pub at_root: Option<(&'a str, String)>,
    /// Similar existing paths, as results show them and as the next call names them.
    pub similar: Vec<String>,
    pub similar_callable: Vec<String>,
}

impl ToolError {
    /// `not_found`, with up to three similar paths or the cwd-relative way to the path.
    pub fn not_found(missing: Missing) -> ToolError {
        let subject = match missing.cwd {
            Some(cwd) => format!(
                "`{}` (from the session cwd `{cwd}`, that is `{}`)",
                missing.given, missing.display
            ),
            None => format!("`{}`", missing.given),
        };
        let hint = match &missing.at_root {
            Some((at_root, call)) => format!(
                "Relative paths resolve against the session cwd, not the workspace root; `{at_root}` does \
                 exist relative to the root. {call}"
            ),
            None if missing.similar_callable.is_empty() => {
                "Use file_search to find the file by name, or list_dir to see a directory.".to_string()
            }
            None => format!(
                "Similar paths that exist: {}. Call again with one of them, or use file_search to find \
                 the file.",
                missing
                    .similar_callable
                    .iter()
                    .map(|p| format!("`{p}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        let err = ToolError::new(ErrorCode::NotFound, format!("{subject} does not exist. {hint}"))
            .with(Field::Path, missing.display)
            .with(Field::Similar, missing.similar);
        match missing.cwd {
            Some(cwd) => err.with(Field::Cwd, cwd),
            None => err,
        }
    }

    /// How the next call reaches a path from the session cwd (the tail of a `not_found`).
    pub fn call_from_cwd(tool: crate::tool_id::ToolId, call: &str, call_arg: &str) -> String {
        use crate::tool_id::ToolId;
        match tool {
            ToolId::ApplyPatch => format!("From the session cwd, the patch names it `{call}`."),
            ToolId::ReadFile | ToolId::ListDir => {
                format!("From the session cwd, call {tool} with path={call_arg}.")
            }
            _ => format!(
                "From the session cwd, call {tool} with path={call_arg} and the other arguments unchanged."
            ),
        }
    }

    /// A directory where a tool that reads files was pointed.
    pub fn is_directory(file: &FileRef) -> ToolError {
        ToolError::new(
            ErrorCode::IsDirectory,
            format!(
                "`{}` is a directory, not a file. Call list_dir with path={} to see what it holds.",
                file.display, file.call_arg
            ),
        )
        .with(Field::Path, file.display)
    }

    /// A directory where write_file was asked to write; `inside_arg` is `path="DIR/NAME"`.
    pub fn is_directory_for_write(file: &FileRef, inside_arg: &str) -> ToolError {
        ToolError::new(
            ErrorCode::IsDirectory,
            format!(
                "`{}` is a directory; write_file writes files. To put a file inside it, call \
                 write_file with path={inside_arg}; to see what it holds, call list_dir with path={}.",
                file.display, file.call_arg
            ),
        )
        .with(Field::Path, file.display)
    }

    /// A file where list_dir needs a directory.
    pub fn not_a_directory(file: &FileRef) -> ToolError {
        ToolError::new(
            ErrorCode::InvalidArguments,
            format!(
                "`{}` is a file, not a directory. Call read_file with path={} to read it.",
                file.display, file.call_arg
            ),
        )
        .with(Field::Path, file.display)
    }

    /// A FIFO, socket or device where a tool needs a regular file. `subject` names the path as
    /// given (and where a symlink took it); `kind` comes from [`special_kind_name`]. The tool
    /// that asked decides the verb: write_file and edit_file land here too.
    pub fn not_a_regular_file(
        tool: crate::tool_id::ToolId,
        display: &str,
        subject: &str,
        kind: &str,
    ) -> ToolError {
        use crate::tool_id::ToolId;
        let (done, doing, way_out) = match tool {
            ToolId::ReadFile => ("read", "Reading it", "if you need its output"),
            ToolId::EditFile => ("edited", "Editing it", "if you need to talk to it"),
            ToolId::ApplyPatch => ("patched", "Patching it", "if you need to talk to it"),
            _ => ("written", "Writing to it", "if you need to feed it"),
        };
        ToolError::new(
            ErrorCode::NotARegularFile,
            format!(
                "{subject} is {kind}; only regular files can be {done}. {doing} could block or never end; \
                 {way_out}, use exec_shell with a command that bounds it."
            ),
        )
        .with(Field::Path, display)
    }

    /// read_file's refusal of a binary file.
    pub fn binary_for_read(file: &FileRef, len: u64) -> ToolError {
        ToolError::new(
            ErrorCode::BinaryFile,
            format!(
                "`{}` is a binary file ({len} bytes); read_file shows text only. To inspect it, use \
                 exec_shell with `file {1}` or `xxd {1} | head`.",
                file.display, file.shell_word
            ),
        )
        .with(Field::Path, file.display)
    }

    /// A file-changing tool's refusal of a binary file.
    pub fn binary_for_change(file: &FileRef, tool: crate::tool_id::ToolId) -> ToolError {
        ToolError::new(
            ErrorCode::BinaryFile,
            format!(
                "`{}` holds binary data; {tool} changes text files only. To replace it, remove it \
                 with exec_shell (`rm {}`) and create it again with write_file.",
                file.display, file.shell_word
            ),
        )
        .with(Field::Path, file.display)
    }

    /// A file over the size a file-changing tool loads.
    pub fn too_large_to_change(
        file: &FileRef,
        tool: crate::tool_id::ToolId,
        len: u64,
        max: u64,
    ) -> ToolError {
        ToolError::new(
            ErrorCode::TooLarge,
            format!(
                "`{}` is {len} bytes; {tool} changes files up to {max} bytes. Use exec_shell \
                 with a streaming tool (sed, awk) for a file this large.",
                file.display
            ),
        )
        .with(Field::Path, file.display)
    }

    /// The session has no read record of a file it wants to change.
    pub fn not_read(file: &FileRef, tool: crate::tool_id::ToolId) -> ToolError {
        ToolError::new(
            ErrorCode::NotRead,
            format!(
                "`{}` has not been read in this session, so {tool} will not change it. \
                 Call read_file with path={} first, then retry this call.",
                file.display, file.call_arg
            ),
        )
        .with(Field::Path, file.display)
    }

    /// The file changed on disk since the session read it.
    pub fn stale(file: &FileRef, tool: crate::tool_id::ToolId) -> ToolError {
        ToolError::new(
            ErrorCode::Stale,
            format!(
                "`{}` changed on disk since this session read it, so {tool} refused to overwrite \
                 those changes. Call read_file with path={} to see the current content, then redo this call \
                 against it.",
                file.display, file.call_arg
            ),
        )
        .with(Field::Path, file.display)
    }

    /// The file changed on disk while the tool was reading it.
    pub fn stale_during_call(file: &FileRef, tool: crate::tool_id::ToolId) -> ToolError {
        ToolError::new(
            ErrorCode::Stale,
            format!(
                "`{}` changed on disk while {tool} was reading it. Call read_file with path={} \
                 to see the current content, then redo this call against it.",
                file.display, file.call_arg
            ),
        )
        .with(Field::Path, file.display)
    }

    /// A new character that would be written in a merely guessed encoding.
    pub fn guessed_encoding(file: &FileRef, utf8_word: &str, encoding: &str, c: char) -> ToolError {
        ToolError::new(
            ErrorCode::NotUtf8,
            format!(
                "`{path}` is not UTF-8, and there is too little text to tell its encoding for sure \
                 (it might be {encoding}). The new text adds `{c}` (U+{code:04X}), which would be written \
                 in a guessed encoding, so nothing was written. Change it using only ASCII and \
                 characters the file already holds, or, if you know its encoding, convert it to UTF-8 \
                 with exec_shell (`iconv -f ENCODING -t UTF-8 {word} > {utf8_word} && mv {utf8_word} {word}`), \
                 then call read_file with path={arg} and retry.",
                path = file.display,
                word = file.shell_word,
                arg = file.call_arg,
                code = c as u32
            ),
        )
        .with(Field::Path, file.display)
        .with(Field::EncodingGuess, encoding)
    }
}

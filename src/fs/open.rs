//! Opening a file a tool was asked about, with the error the model needs when it cannot be
//! opened: the path does not exist (with similar paths that do), is a directory, or is not a
//! regular file. Shared by every tool that reads or changes a file.

use std::fs;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};

use crate::error::{ErrorCode, ToolError};
use crate::fs::workspace::{Workspace, WsPath};

/// Opens `path` for reading if it is a regular file, with the error the model needs otherwise.
/// The open is non-blocking, so a FIFO that appears between the check and the open still
/// cannot hang the call.
pub fn open_regular_file(
    workspace: &Workspace,
    tool: &str,
    path: &WsPath,
    given: &str,
) -> Result<fs::File, ToolError> {
    let meta = match fs::metadata(&path.abs) {
        Ok(meta) => meta,
        Err(err) if is_missing(&err) => return Err(not_found(workspace, tool, path, given)),
        Err(err) => return Err(ToolError::io(&path.display, "read", &err)),
    };
    check_file_type(workspace, tool, &meta, path, given)?;
    let file = fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(&path.abs)
        .map_err(|err| ToolError::io(&path.display, "open", &err))?;
    let meta = file
        .metadata()
        .map_err(|err| ToolError::io(&path.display, "read", &err))?;
    check_file_type(workspace, tool, &meta, path, given)?;
    Ok(file)
}

fn check_file_type(
    workspace: &Workspace,
    tool: &str,
    meta: &fs::Metadata,
    path: &WsPath,
    given: &str,
) -> Result<(), ToolError> {
    let kind = meta.file_type();
    if kind.is_dir() {
        return Err(ToolError::new(
            ErrorCode::IsDirectory,
            format!(
                "`{}` is a directory, not a file. Call list_dir with path={} to see what it holds.",
                path.display,
                path.call_arg()
            ),
        )
        .with("path", path.display.clone()));
    }
    if !kind.is_file() {
        let what = if kind.is_fifo() {
            "a FIFO (named pipe)"
        } else if kind.is_socket() {
            "a socket"
        } else if kind.is_char_device() || kind.is_block_device() {
            "a device"
        } else {
            "not a regular file"
        };
        // The tool that asked decides the verb: write_file and edit_file land here too.
        let (done, doing, way_out) = match tool {
            "read_file" => ("read", "Reading it", "if you need its output"),
            "edit_file" => ("edited", "Editing it", "if you need to talk to it"),
            "apply_patch" => ("patched", "Patching it", "if you need to talk to it"),
            _ => ("written", "Writing to it", "if you need to feed it"),
        };
        return Err(ToolError::new(
            ErrorCode::NotARegularFile,
            format!(
                "{} is {what}; only regular files can be {done}. {doing} could block or never end; \
                 {way_out}, use exec_shell with a command that bounds it.",
                as_given(workspace, path, given)
            ),
        )
        .with("path", path.display.clone()));
    }
    Ok(())
}

/// The path as the caller wrote it, and where it resolves when a symlink took it elsewhere:
/// "`/dev/stdin` (which resolves to `/dev/null`)", so the message names what was asked for.
fn as_given(workspace: &Workspace, path: &WsPath, given: &str) -> String {
    let lexical = crate::fs::workspace::normalize_lexically(&workspace.cwd().join(given));
    if lexical == path.abs {
        format!("`{}`", path.display)
    } else {
        format!("`{given}` (which resolves to `{}`)", path.display)
    }
}

/// Whether a failed lookup means the path does not exist (`NotADirectory`: a file stands where
/// the path needs a directory, as in `notes.txt/x`).
pub fn is_missing(err: &std::io::Error) -> bool {
    matches!(
        err.kind(),
        std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
    )
}

/// `not_found` with up to three similar existing paths.
///
/// A relative path resolves against the session cwd, which an earlier `cd` may have moved: a
/// model that still thinks from the root asks for `sub/a.txt` from `sub` and gets a miss for
/// a file it can see. So when the cwd is not the root, the message says where the path led,
/// and if the path exists from the root, it names the call that reaches it from the cwd.
pub fn not_found(workspace: &Workspace, tool: &str, path: &WsPath, given: &str) -> ToolError {
    let similar = crate::fs::similar_paths::suggest(workspace, &path.abs, 3);
    let from_cwd = workspace.cwd() != workspace.root() && !given.starts_with('/');
    let cwd = workspace.display(workspace.cwd());
    let subject = if from_cwd {
        format!(
            "`{given}` (from the session cwd `{cwd}`, that is `{}`)",
            path.display
        )
    } else {
        format!("`{given}`")
    };
    let hint = match from_cwd.then(|| from_root(workspace, given)).flatten() {
        Some(at_root) => format!(
            "Relative paths resolve against the session cwd, not the workspace root; `{}` does exist \
             relative to the root. {}",
            at_root.display,
            call_from_cwd(tool, &at_root)
        ),
        None => {
            // The message names them as the next call must (from the session cwd);
            // `data.similar` keeps them as results show paths.
            let callable = |p: &String| workspace.call_path_of(p);
            if similar.is_empty() {
                "Use file_search to find the file by name, or list_dir to see a directory.".to_string()
            } else {
                format!(
                    "Similar paths that exist: {}. Call again with one of them, or use file_search to \
                     find the file.",
                    similar
                        .iter()
                        .map(|p| format!("`{}`", callable(p)))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            }
        }
    };
    let err = ToolError::new(ErrorCode::NotFound, format!("{subject} does not exist. {hint}"))
        .with("path", path.display.clone())
        .with("similar", similar);
    if from_cwd {
        err.with("cwd", cwd)
    } else {
        err
    }
}

/// `given` resolved from the workspace root instead of the cwd, if something is there; its
/// `call` is still written from the cwd, where the next call resolves it.
fn from_root(workspace: &Workspace, given: &str) -> Option<WsPath> {
    let mut at_root = workspace.clone();
    at_root.set_cwd(workspace.root());
    let path = at_root.resolve(given).ok()?;
    fs::symlink_metadata(&path.abs).ok()?;
    Some(WsPath {
        call: workspace.call_path(&path.abs),
        ..path
    })
}

/// How the next call reaches `path` from the session cwd.
fn call_from_cwd(tool: &str, path: &WsPath) -> String {
    let arg = path.call_arg();
    match tool {
        "apply_patch" => format!("From the session cwd, the patch names it `{}`.", path.call),
        "read_file" | "list_dir" => format!("From the session cwd, call {tool} with path={arg}."),
        _ => format!("From the session cwd, call {tool} with path={arg} and the other arguments unchanged."),
    }
}

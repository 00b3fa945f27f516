//! Opening a file a tool was asked about, with the error the model needs when it cannot be
//! opened: the path does not exist (with similar paths that do), is a directory, or is not a
//! regular file. Shared by every tool that reads or changes a file.

use std::fs;
use std::os::unix::fs::FileTypeExt;

use crate::error::ToolError;
use crate::fs::beneath::Refusal;
use crate::fs::workspace::{Workspace, WsPath};

/// Opens `path` for reading if it is a regular file, with the error the model needs otherwise.
/// The open goes down from the root's descriptor ([`crate::fs::beneath`]) and is non-blocking,
/// so a FIFO cannot hang the call; the type is checked on the open descriptor.
pub fn open_regular_file(
    workspace: &Workspace,
    tool: crate::tool_id::ToolId,
    path: &WsPath,
    given: &str,
) -> Result<fs::File, ToolError> {
    // A device is opened before its type is known; non-blocking and without becoming the
    // controlling terminal, nothing is read from it before the check below refuses it.
    let file = match path.open(libc::O_RDONLY | libc::O_NONBLOCK) {
        Ok(file) => file,
        Err(Refusal::Io(err)) if is_missing(&err) => return Err(not_found(workspace, tool, path, given)),
        Err(refusal) => return Err(path.refusal("open", refusal)),
    };
    let meta = file
        .metadata()
        .map_err(|err| ToolError::io(&path.display, "read", &err))?;
    check_file_type(workspace, tool, &meta, path, given)?;
    Ok(file)
}

fn check_file_type(
    workspace: &Workspace,
    tool: crate::tool_id::ToolId,
    meta: &fs::Metadata,
    path: &WsPath,
    given: &str,
) -> Result<(), ToolError> {
    let kind = meta.file_type();
    if kind.is_dir() {
        return Err(ToolError::is_directory(&path.file_ref()));
    }
    if !kind.is_file() {
        let what = crate::error::special_kind_name(
            kind.is_fifo(),
            kind.is_socket(),
            kind.is_char_device() || kind.is_block_device(),
        );
        // The tool that asked decides the verb: write_file and edit_file land here too.
        return Err(ToolError::not_a_regular_file(
            tool,
            &path.display,
            &as_given(workspace, path, given),
            what,
        ));
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

/// The existing file a new `path` would have to pass through as a directory (`notes.txt` for
/// `notes.txt/x`), as results show it; `None` when the deepest existing ancestor is a directory.
pub fn blocking_file(workspace: &Workspace, path: &WsPath) -> Option<String> {
    let blocking = path.abs.ancestors().skip(1).find(|a| a.exists())?;
    (!blocking.is_dir()).then(|| workspace.display(blocking))
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
pub fn not_found(
    workspace: &Workspace,
    tool: crate::tool_id::ToolId,
    path: &WsPath,
    given: &str,
) -> ToolError {
    let similar = crate::fs::similar_paths::suggest(workspace, &path.abs, 3);
    let from_cwd = workspace.cwd() != workspace.root() && !given.starts_with('/');
    let cwd = workspace.display(workspace.cwd());
    let at_root = from_cwd.then(|| from_root(workspace, given)).flatten();
    // The message names similar paths as the next call must (from the session cwd);
    // `data.similar` keeps them as results show paths.
    let similar_callable = similar.iter().map(|p| workspace.call_path_of(p)).collect();
    ToolError::not_found(crate::error::Missing {
        given,
        display: &path.display,
        cwd: from_cwd.then_some(cwd.as_str()),
        at_root: at_root.as_ref().map(|at_root| {
            let call = ToolError::call_from_cwd(tool, &at_root.call, &at_root.call_arg());
            (at_root.display.as_str(), call)
        }),
        similar,
        similar_callable,
    })
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

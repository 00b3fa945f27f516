//! What an exec_shell command changed, found without reading the whole workspace twice.
//!
//! The workspace is snapshotted before and after the command into a private git directory,
//! `.codesmith/history/shadow/`, whose index is a stat cache of the tree. Before the command,
//! codesmith compares the whole tree with that index itself ([`scan`]: one parallel walk, one
//! `fstatat` per file), puts an inotify watch on every directory it reads ([`watch`]), and runs
//! git (`update-index`) only on the paths that changed; the tree of the index is kept with it,
//! so a tree that did not change needs no git at all. After the command, only the paths the
//! watches name are compared (the whole tree again when they cannot vouch for a complete
//! record), the index is brought up to date, and the tree before is compared with the tree
//! after (`git diff-tree`); only the paths that differ are copied into the history's blobs.
//! A change made between two commands is taken into the "before" of the next one, so it belongs
//! to no checkpoint. This works the same in a plain directory and in a git checkout; in a
//! checkout, the shadow borrows the repository's objects (an alternate, read only) and starts
//! from a copy of its index, so the first snapshot does not hash every tracked file again.
//! Nothing is ever written to the workspace's own `.git`. An index the reader does not handle
//! (a split index, say) is left to `git add -A`.
//!
//! What is snapshotted: every file that `.gitignore`, `.git/info/exclude` and the global git
//! excludes do not ignore (a file in the index stays, as a tracked file does in git);
//! `.codesmith/`, `.git/` and nested repositories are never included. Contents are taken
//! byte for byte: no attributes, filters or line-ending conversions apply (`--attr-source`
//! names the empty tree). Git records only the executable bit, so the walk before the command
//! keeps the exact permission bits of the files that have other bits than 0644 or 0755 (less
//! the umask), and a deleted or modified file comes back with the bits it had. Files over [`MAX_FILE_BYTES`] and commands that change more than [`MAX_PATHS`]
//! paths are not recorded; the call says so in a notice.
//!
//! The commands run here are codesmith's own (the sandboxed command never touches
//! `.codesmith/`): the before snapshot is taken by this process before the command starts, the
//! after snapshot once it has ended (for a background task, when task_output, task_wait or
//! task_cancel first sees it finished).

use std::fs;
use std::path::Path;

use super::shadow::{GitError, Shadow, Since, TOO_LARGE};
use super::watch::Watch;
use super::{git_index, Change, Content};
use crate::error::ToolError;
use crate::notice::{HistoryNotice, Notice, RecordedSide};
use crate::session::context::Context;
use crate::session::state::State;

/// A command that changed more paths than this is not recorded.
pub const MAX_PATHS: usize = 10_000;
/// Files larger than this are not recorded.
pub const MAX_FILE_BYTES: u64 = 64 * 1024 * 1024;
/// A tree with more files than this outside git is not snapshotted at all.
pub const MAX_FIRST_FILES: usize = 1_000_000;
/// The workspace as it was before a command: a tree of the shadow repository.
pub struct Before {
    pub tree: String,
    /// What tells the "after" snapshot which paths the command may have changed; without it
    /// (a background task's, seen by a later call), the whole tree is read again.
    pub(super) watched: Option<Watched>,
    /// The exact permission bits of the files whose bits git does not keep (anything but 0644
    /// and 0755 less the umask), as the walk before the command saw them; `None` when git did
    /// the walk, or for a background task's "before" (kept by its tree alone).
    pub(super) modes: Option<std::collections::HashMap<String, u32>>,
}

pub(super) struct Watched {
    pub watch: Watch,
    pub unreached: Vec<Vec<u8>>,
    /// The index as the walk read it, when the snapshot left it as it was.
    pub index: Option<git_index::Index>,
}

impl Before {
    /// The snapshot `tree`, taken by an earlier call.
    pub fn from_tree(tree: String) -> Before {
        Before {
            tree,
            watched: None,
            modes: None,
        }
    }
}

/// Whether exec_shell snapshots are on (`[history] shell`).
pub fn enabled(ctx: &Context) -> bool {
    ctx.config()
        .map(super::Settings::from_config)
        .map_or(true, |s| s.shell)
}

/// Why a snapshot could not be taken or its changes recorded.
#[derive(Debug, thiserror::Error)]
enum SnapshotError {
    #[error("{0}")]
    Lock(std::io::Error),
    #[error("{0}")]
    Open(std::io::Error),
    /// The reason a tree too large to snapshot was given up on, as the shadow recorded it.
    #[error("{0}")]
    TooLarge(String),
    #[error("{0}")]
    Git(#[from] GitError),
    /// The checkpoint could not be written.
    #[error("{}", .0.message())]
    Record(ToolError),
}

/// Takes the snapshot before a command; `Err` is the notice saying why it could not be.
pub fn before(ctx: &Context) -> Result<Before, Notice> {
    snapshot_before(ctx).map_err(|err| not_recorded(&err))
}

fn snapshot_before(ctx: &Context) -> Result<Before, SnapshotError> {
    let _lock = lock(&ctx.state).map_err(SnapshotError::Lock)?;
    let shadow = Shadow::open(&ctx.state, ctx.workspace.root()).map_err(SnapshotError::Open)?;
    if let Ok(why) = fs::read_to_string(shadow.git_dir.join(TOO_LARGE)) {
        return Err(SnapshotError::TooLarge(why));
    }
    Ok(shadow.snapshot()?)
}

fn not_recorded(why: &SnapshotError) -> Notice {
    HistoryNotice::CommandNotRecorded { why: why.to_string() }.into()
}

fn lock(state: &State) -> std::io::Result<crate::session::state::Lock> {
    let dir = super::history_dir(state);
    fs::create_dir_all(&dir).and_then(|()| crate::session::state::Lock::exclusive(&dir.join("shadow.lock")))
}

/// Takes the snapshot after a command and records what changed as a checkpoint of `tool`.
/// Returns the notices for the call (nothing when nothing changed).
pub fn after(ctx: &Context, before: Before, tool: &str, command: &str) -> Vec<Notice> {
    match record_after(ctx, before, tool, command) {
        Ok(notices) => notices,
        Err(why) => vec![not_recorded(&why)],
    }
}

fn record_after(
    ctx: &Context,
    before: Before,
    tool: &str,
    command: &str,
) -> Result<Vec<Notice>, SnapshotError> {
    let _lock = lock(&ctx.state).map_err(SnapshotError::Lock)?;
    let shadow = Shadow::open(&ctx.state, ctx.workspace.root()).map_err(SnapshotError::Open)?;
    // The tree written for the "after" is stored with the index, so the next command's
    // "before" finds it without running git when nothing changed in between.
    let modes = before.modes;
    let since = before.watched.and_then(|watched| {
        Some(Since {
            events: watched.watch.events()?,
            unreached: watched.unreached,
            index: watched.index,
        })
    });
    let changed = shadow.refresh(None, since)?.changed;
    let after_tree = shadow.tree(changed)?;
    if after_tree == before.tree {
        return Ok(Vec::new());
    }
    let raw = shadow.run(&["diff-tree", "-r", "-z", "--no-renames", &before.tree, &after_tree])?;
    let diffs = parse_raw(&raw);
    if diffs.is_empty() {
        return Ok(Vec::new());
    }
    if diffs.len() > MAX_PATHS {
        return Ok(vec![HistoryNotice::TooManyPaths {
            count: diffs.len(),
            max: MAX_PATHS,
        }
        .into()]);
    }
    let olds: Vec<&str> = diffs
        .iter()
        .filter(|d| !is_null(&d.old_id))
        .map(|d| d.old_id.as_str())
        .collect();
    let old_blobs = shadow.cat_blobs(&olds)?;
    let mut notices = Vec::new();
    let mut afters = Vec::new();
    for diff in &diffs {
        afters.push(read_after(&shadow.root.join(&diff.path), diff, &mut notices));
    }
    let changes = changes_of(&diffs, &afters, &old_blobs, modes.as_ref(), &mut notices);
    if changes.is_empty() {
        return Ok(notices);
    }
    super::record(&ctx.state, tool, command, &changes, notices.clone()).map_err(SnapshotError::Record)?;
    Ok(notices)
}

/// The checkpoint's changes from the diff of the two trees, the old contents and the files as
/// they are now; what cannot be recorded is said in `notices` instead.
fn changes_of<'a>(
    diffs: &'a [Diff],
    afters: &'a [Option<(Vec<u8>, u32)>],
    old_blobs: &'a std::collections::HashMap<String, Vec<u8>>,
    modes: Option<&std::collections::HashMap<String, u32>>,
    notices: &mut Vec<Notice>,
) -> Vec<Change<'a>> {
    let mut changes = Vec::new();
    for (diff, after) in diffs.iter().zip(afters) {
        if diff.old_mode == "160000" || diff.new_mode == "160000" {
            continue;
        }
        if !is_null(&diff.old_id) && !old_blobs.contains_key(&diff.old_id) {
            notices.push(
                HistoryNotice::OldContentUnreadable {
                    path: diff.path.clone(),
                }
                .into(),
            );
            continue;
        }
        let before = (!is_null(&diff.old_id)).then(|| {
            let bytes = old_blobs.get(&diff.old_id).map_or(&[][..], Vec::as_slice);
            let mode = before_mode(diff, after.as_ref().map(|(_, mode)| *mode), modes);
            Content {
                parts: vec![bytes],
                mode,
                symlink: diff.old_mode == "120000",
                digest: None,
            }
        });
        let after = after.as_ref().map(|(bytes, mode)| Content {
            parts: vec![bytes.as_slice()],
            mode: *mode,
            symlink: diff.new_mode == "120000",
            digest: None,
        });
        if before
            .as_ref()
            .is_some_and(|b| b.parts[0].len() as u64 > MAX_FILE_BYTES)
        {
            notices.push(too_large(diff, RecordedSide::Old));
            continue;
        }
        changes.push(Change {
            path: diff.path.clone(),
            before,
            after,
        });
    }
    changes
}

/// The file's bytes and mode now, as the after side; `None` when it is gone.
fn read_after(abs: &Path, diff: &Diff, notices: &mut Vec<Notice>) -> Option<(Vec<u8>, u32)> {
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::fs::PermissionsExt;
    if is_null(&diff.new_id) {
        return None;
    }
    let meta = fs::symlink_metadata(abs).ok()?;
    if meta.file_type().is_symlink() {
        let target = fs::read_link(abs).ok()?;
        return Some((target.as_os_str().as_bytes().to_vec(), 0o777));
    }
    if meta.len() > MAX_FILE_BYTES {
        notices.push(too_large(diff, RecordedSide::New));
        return None;
    }
    Some((fs::read(abs).ok()?, meta.permissions().mode() & 0o7777))
}

fn too_large(diff: &Diff, side: RecordedSide) -> Notice {
    HistoryNotice::TooLargeToRecord {
        path: diff.path.clone(),
        max: MAX_FILE_BYTES,
        side,
    }
    .into()
}

/// The permission bits of the before side: as the walk before the command saw them when it
/// ran (git's `100644`/`100755` less the umask for a file it found nothing unusual about);
/// without that walk, the file's bits now when the command kept its git mode, else git's.
fn before_mode(
    diff: &Diff,
    after: Option<u32>,
    modes: Option<&std::collections::HashMap<String, u32>>,
) -> u32 {
    if diff.old_mode == "120000" {
        return 0o777;
    }
    match (modes, after) {
        (Some(modes), _) => modes
            .get(&diff.path)
            .copied()
            .unwrap_or_else(|| git_mode(&diff.old_mode)),
        (None, Some(mode)) if diff.old_mode == diff.new_mode => mode,
        (None, _) => git_mode(&diff.old_mode),
    }
}

fn git_mode(mode: &str) -> u32 {
    match mode {
        "100755" => crate::fs::atomic::new_file_mode(true),
        "120000" => 0o777,
        _ => crate::fs::atomic::new_file_mode(false),
    }
}

fn is_null(id: &str) -> bool {
    id.bytes().all(|b| b == b'0')
}

struct Diff {
    old_mode: String,
    new_mode: String,
    old_id: String,
    new_id: String,
    path: String,
}

/// Parses `git diff-index -z` (or `diff-tree -r -z`) raw output: `:old new oldid newid S\0path\0`.
fn parse_raw(raw: &[u8]) -> Vec<Diff> {
    let mut diffs = Vec::new();
    let mut fields = raw.split(|&b| b == 0);
    while let (Some(meta), Some(path)) = (fields.next(), fields.next()) {
        let meta = String::from_utf8_lossy(meta);
        let parts: Vec<&str> = meta.trim_start_matches(':').split(' ').collect();
        if parts.len() < 5 {
            break;
        }
        diffs.push(Diff {
            old_mode: parts[0].to_string(),
            new_mode: parts[1].to_string(),
            old_id: parts[2].to_string(),
            new_id: parts[3].to_string(),
            path: String::from_utf8_lossy(path).into_owned(),
        });
    }
    diffs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_diff_tree_output_is_parsed() {
        let raw = b":100644 100755 aaaa bbbb M\0dir/a b.txt\0:000000 120000 0000 cccc A\0link\0";
        let diffs = parse_raw(raw);
        assert_eq!(diffs.len(), 2);
        assert_eq!(diffs[0].path, "dir/a b.txt");
        assert_eq!(diffs[0].new_mode, "100755");
        assert!(is_null(&diffs[1].old_id));
        assert_eq!(diffs[1].new_id, "cccc");
    }
}

//! Reverting checkpoints without clobbering anyone.
//!
//! Every path is first compared with the state the checkpoints left it in (their "after"): a
//! path that holds something else was changed by someone since, and restoring it would destroy
//! that work, so the whole revert is refused (unless forced) naming each such path. A path that
//! already holds its "before" state is left alone. Then every blob to restore is read and
//! checked, the revert is recorded as a checkpoint of its own (so it can be undone), and the
//! paths are restored one by one, each atomically (a file through a temp file and a rename, a
//! symlink likewise, as a link); if one fails, those already restored are put back, newest
//! first, so the tree is left as it was found.

use std::fs;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::os::unix::fs::PermissionsExt;
use std::path::{Component, Path, PathBuf};

use super::{blobs, Change, Checkpoint, Content, Side};
use crate::error::{CheckpointPath, DiskChange, ToolError};
use crate::fs::beneath::{Dir, Refusal, Roots};
use crate::fs::workspace::WsPath;
use crate::session::context::Context;
use crate::session::freshness::{self, Fingerprint};

/// A path's state on disk, as comparable to a [`Side`].
#[derive(Debug, Clone)]
pub struct OnDisk {
    pub bytes: Vec<u8>,
    pub side: Side,
}

/// One path to revert: what it must hold now, and what it gets back.
#[derive(Debug, Clone)]
pub struct Target {
    pub path: String,
    pub abs: PathBuf,
    pub expect: Option<Side>,
    pub restore: Option<Side>,
    /// Every state the checkpoints gave the path (before and after each): the path holding
    /// one of them is still codesmith's doing, e.g. half way through an undo that was killed.
    pub known: Vec<Option<Side>>,
}

/// What the revert of one path found.
pub enum Found {
    /// As the checkpoints left it: restore it.
    AsLeft(Option<OnDisk>),
    /// Already in the state it would be restored to.
    AlreadyRestored,
    /// Changed by someone since: what it holds, and how it differs.
    Changed(Option<OnDisk>, DiskChange),
}

/// The paths `checkpoints` (newest first) changed, each with the state the newest left it in
/// and the state before the oldest that touched it.
pub fn targets(ctx: &Context, checkpoints: &[Checkpoint]) -> Result<Vec<Target>, ToolError> {
    let mut targets: Vec<Target> = Vec::new();
    for checkpoint in checkpoints {
        for entry in &checkpoint.entries {
            let known = [entry.before.clone(), entry.after.clone()];
            match targets.iter_mut().find(|t| t.path == entry.path) {
                Some(target) => {
                    target.restore = entry.before.clone();
                    target.known.extend(known);
                }
                None => targets.push(Target {
                    abs: checked_path(ctx, &entry.path)?,
                    path: entry.path.clone(),
                    expect: entry.after.clone(),
                    restore: entry.before.clone(),
                    known: known.to_vec(),
                }),
            }
        }
    }
    Ok(targets)
}

/// The absolute path of a recorded path, refused if it could lead anywhere but a place inside
/// the workspace: an absolute or `..` path, `.codesmith/`, or a parent directory that resolves
/// outside (a symlinked directory). The last component is not followed: a symlink there is
/// what gets replaced.
fn checked_path(ctx: &Context, path: &str) -> Result<PathBuf, ToolError> {
    let relative = Path::new(path);
    let plain = relative.components().all(|c| matches!(c, Component::Normal(_)));
    let abs = ctx.workspace.root().join(relative);
    let refuse = |why: CheckpointPath| ToolError::checkpoint_path_outside(path, why);
    if !plain || path.is_empty() {
        return Err(refuse(CheckpointPath::NotPlain));
    }
    if ctx.workspace.is_state_path(&abs) {
        return Err(refuse(CheckpointPath::InState));
    }
    let parent = abs.parent().unwrap_or(ctx.workspace.root());
    let existing = parent
        .ancestors()
        .find(|a| a.exists())
        .unwrap_or(ctx.workspace.root());
    let real = existing
        .canonicalize()
        .map_err(|err| ToolError::io(path, "inspect", &err))?;
    if !real.starts_with(ctx.workspace.root()) {
        return Err(refuse(CheckpointPath::ThroughSymlink));
    }
    Ok(abs)
}

/// Whether a directory between `root` and `abs` (both excluded) is a symlink.
fn through_symlink(root: &Path, abs: &Path) -> bool {
    abs.ancestors()
        .skip(1)
        .take_while(|dir| *dir != root && dir.starts_with(root))
        .any(|dir| fs::symlink_metadata(dir).is_ok_and(|meta| meta.file_type().is_symlink()))
}

/// The state of `abs` without following a final symlink; `None` when absent. Read in the
/// directory reached beneath the workspace's roots, as [`put`] writes it.
pub fn on_disk(roots: &Roots, abs: &Path) -> std::io::Result<Option<OnDisk>> {
    use std::io::Read;
    let slot = match roots.slot(abs, false) {
        Ok(slot) => slot,
        Err(Refusal::Io(err)) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(refusal) => return Err(refusal.into()),
    };
    let (bytes, mode, symlink) = match slot.dir.read_link(&slot.name) {
        Ok(target) => (target.into_os_string().into_vec(), 0o777, true),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(_) => {
            let mut file = match slot.dir.open(&slot.name, libc::O_RDONLY | libc::O_NONBLOCK) {
                Ok(file) => file,
                Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None),
                Err(err) => return Err(err),
            };
            let meta = file.metadata()?;
            if !meta.is_file() {
                return Err(std::io::Error::other("not a regular file or symlink"));
            }
            let mut bytes = Vec::new();
            file.read_to_end(&mut bytes)?;
            (bytes, meta.permissions().mode() & 0o7777, false)
        }
    };
    let side = Side {
        blob: blobs::hex(&blobs::digest(&[&bytes])),
        mode,
        size: bytes.len() as u64,
        symlink,
    };
    Ok(Some(OnDisk { bytes, side }))
}

/// Whether a state on disk is the recorded one: same content, same kind, same permissions.
pub fn same(disk: Option<&OnDisk>, recorded: Option<&Side>) -> bool {
    match (disk, recorded) {
        (None, None) => true,
        (Some(d), Some(r)) => {
            same_content(d, r) && d.side.symlink == r.symlink && (d.side.symlink || d.side.mode == r.mode)
        }
        _ => false,
    }
}

/// Whether the bytes on disk are the recorded content, by the recorded side's kind of hash (a
/// history written before XXH3-128 names holds SHA-256 ones).
fn same_content(disk: &OnDisk, recorded: &Side) -> bool {
    disk.side.size == recorded.size
        && match recorded.blob.len() == disk.side.blob.len() {
            true => disk.side.blob == recorded.blob,
            false => blobs::hash_like(&recorded.blob, &disk.bytes) == recorded.blob,
        }
}

/// Compares a target's path with the state the checkpoints left it in. A path below a
/// directory of the workspace that is now a symlink holds nothing of its own: what is read
/// through the link is another path's file. A directory where the checkpoints left nothing
/// (a symlink or file a command replaced by a directory) counts as nothing when every file in
/// it is one this revert removes (`removed`): once they are gone it is empty, and it goes.
pub fn inspect(target: &Target, roots: &Roots, removed: &[PathBuf]) -> Found {
    let disk = match through_symlink(roots.workspace(), &target.abs) {
        true => Ok(None),
        false => on_disk(roots, &target.abs),
    };
    let disk = match disk {
        Ok(disk) => disk,
        Err(_) if target.expect.is_none() && holds_only(&target.abs, removed) => None,
        Err(_) if fs::symlink_metadata(&target.abs).is_ok_and(|meta| meta.is_dir()) => {
            return Found::Changed(None, DiskChange::Directory)
        }
        Err(err) => return Found::Changed(None, DiskChange::Unreadable { why: err.to_string() }),
    };
    if same(disk.as_ref(), target.restore.as_ref()) {
        return Found::AlreadyRestored;
    }
    if target
        .known
        .iter()
        .any(|known| same(disk.as_ref(), known.as_ref()))
    {
        return Found::AsLeft(disk);
    }
    let what = match (disk.as_ref(), target.expect.as_ref()) {
        (None, _) => DiskChange::Deleted,
        (Some(_), None) => DiskChange::Created,
        (Some(d), Some(e)) if same_content(d, e) && d.side.symlink == e.symlink => DiskChange::Permissions {
            now: d.side.mode,
            left: e.mode,
        },
        (Some(d), Some(_)) => DiskChange::Content { size: d.side.size },
    };
    Found::Changed(disk, what)
}

/// Whether `dir` is a directory (not a link to one) whose files, at any depth, are all in
/// `removed`.
fn holds_only(dir: &Path, removed: &[PathBuf]) -> bool {
    if !fs::symlink_metadata(dir).is_ok_and(|meta| meta.is_dir()) {
        return false;
    }
    let Ok(entries) = fs::read_dir(dir) else {
        return false;
    };
    entries.into_iter().all(|entry| {
        let Ok(entry) = entry else { return false };
        let path = entry.path();
        match fs::symlink_metadata(&path) {
            Ok(meta) if meta.is_dir() => holds_only(&path, removed),
            Ok(_) => removed.contains(&path),
            Err(_) => false,
        }
    })
}

/// Removes the directory `name` in `parent` and the directories in it, all of which must be
/// empty of anything else (`remove_dir` refuses otherwise, and nothing else is removed). Each
/// level is opened from the one above without following a symlink.
fn remove_empty_tree(parent: &Dir, name: &std::ffi::OsStr) -> std::io::Result<()> {
    let dir = parent.subdir(name)?;
    for (entry, _) in dir.entries()? {
        if dir.is_dir(&entry) {
            remove_empty_tree(&dir, &entry)?;
        }
    }
    parent.remove_dir(name)
}

/// One restore, planned: the bytes to put back, and what is there now (for rolling back).
pub struct Step {
    pub target: Target,
    pub current: Option<OnDisk>,
    pub bytes: Option<Vec<u8>>,
}

/// Reads and checks every blob the restores need, before anything is written.
pub fn load_blobs(ctx: &Context, steps: &mut [Step]) -> Result<(), ToolError> {
    for step in steps.iter_mut() {
        if let Some(side) = &step.target.restore {
            let bytes = blobs::read(&ctx.state, &side.blob)
                .map_err(|err| ToolError::checkpoint_blob_unreadable(&step.target.path, &err))?;
            step.bytes = Some(bytes);
        }
    }
    Ok(())
}

/// The revert as a checkpoint's changes: from what is there now to what comes back.
pub fn changes(steps: &[Step]) -> Vec<Change<'_>> {
    // Both sides' names were taken from these very bytes (what is there now was hashed when it
    // was read, a blob was checked against its name), so an XXH3-128 name is their digest.
    fn content<'a>(bytes: &'a [u8], side: &Side) -> Content<'a> {
        Content {
            parts: vec![bytes],
            mode: side.mode,
            symlink: side.symlink,
            digest: (side.blob.len() == 32)
                .then(|| blobs::from_hex(&side.blob))
                .flatten(),
        }
    }
    steps
        .iter()
        .map(|step| Change {
            path: step.target.path.clone(),
            before: step.current.as_ref().map(|c| content(&c.bytes, &c.side)),
            after: step
                .target
                .restore
                .as_ref()
                .zip(step.bytes.as_deref())
                .map(|(side, bytes)| content(bytes, side)),
        })
        .collect()
}

/// The order restores are made in: removals first, deepest first, then writes, shallowest
/// first. A symlink that stands where a directory was is removed before a file is written
/// below that directory, so no write goes through the link.
fn in_order(steps: &[Step]) -> Vec<&Step> {
    let depth = |step: &Step| step.target.abs.components().count();
    let mut ordered: Vec<&Step> = steps.iter().collect();
    ordered.sort_by_key(|step| match step.target.restore {
        None => (0, usize::MAX - depth(step)),
        Some(_) => (1, depth(step)),
    });
    ordered
}

/// Restores every step, all or nothing; refreshes the session's fingerprints of the paths.
pub fn apply(ctx: &Context, steps: &[Step]) -> Result<(), ToolError> {
    let steps = in_order(steps);
    for (done, step) in steps.iter().enumerate() {
        let restore = step.target.restore.as_ref().zip(step.bytes.as_deref());
        if let Err(err) = put(ctx.workspace.roots(), &step.target.abs, restore) {
            let mut unrestored = Vec::new();
            for earlier in steps[..done].iter().rev() {
                let back = earlier.current.as_ref().map(|c| (&c.side, c.bytes.as_slice()));
                if put(ctx.workspace.roots(), &earlier.target.abs, back).is_err() {
                    unrestored.push(earlier.target.path.clone());
                }
            }
            let after = if unrestored.is_empty() {
                "the paths already restored were put back, so the tree is as it was".to_string()
            } else {
                format!(
                    "putting back failed for {}; check those files",
                    unrestored.join(", ")
                )
            };
            return Err(ToolError::restore_failed(&step.target.path, &err, &after));
        }
    }
    for step in steps {
        let path = WsPath {
            abs: step.target.abs.clone(),
            display: step.target.path.clone(),
            call: ctx.workspace.call_path(&step.target.abs),
            roots: ctx.workspace.roots().clone(),
        };
        match (&step.target.restore, &step.bytes) {
            (Some(side), Some(bytes)) if !side.symlink => {
                let written = path.open(libc::O_RDONLY | libc::O_NONBLOCK);
                if let Ok(meta) = written.map_err(std::io::Error::from).and_then(|f| f.metadata()) {
                    freshness::record(&ctx.state, &path, Fingerprint::of_content(&meta, bytes))?;
                }
            }
            _ => freshness::forget(&ctx.state, &path.display),
        }
    }
    Ok(())
}

/// Puts one path into a state: a file or a symlink (atomically, by rename), or nothing. A
/// directory in the way of a file or a symlink (emptied by the removals made first) goes.
/// Everything happens in the directory reached beneath the workspace's roots
/// ([`crate::fs::beneath`]), so a directory swapped for a symlink meanwhile is not written through.
fn put(roots: &Roots, abs: &Path, state: Option<(&Side, &[u8])>) -> std::io::Result<()> {
    let slot = match roots.slot(abs, state.is_some()) {
        Ok(slot) => slot,
        Err(Refusal::Io(err)) if state.is_none() && crate::fs::open::is_missing(&err) => return Ok(()),
        Err(refusal) => return Err(refusal.into()),
    };
    let (dir, name) = (&slot.dir, slot.name.as_os_str());
    if state.is_some() && dir.is_dir(name) {
        remove_empty_tree(dir, name)?;
    }
    match state {
        None => match dir.remove_file(name) {
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(()),
            done => done,
        },
        Some((side, bytes)) if side.symlink => {
            let temp = std::ffi::OsString::from(format!(".codesmith-tmp-link-{}", std::process::id()));
            let _ = dir.remove_file(&temp);
            dir.symlink(Path::new(std::ffi::OsStr::from_bytes(bytes)), &temp)?;
            dir.rename(&temp, name).inspect_err(|_| {
                let _ = dir.remove_file(&temp);
            })
        }
        // The rename replaces a symlink in the way; it never writes through it.
        Some((side, bytes)) => crate::fs::atomic::write_in_slot(
            &slot,
            &[bytes],
            crate::fs::atomic::WriteOptions::USER_FILE,
            Some(side.mode & 0o7777),
            abs,
        )
        .map(drop),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn on_disk(bytes: &[u8], mode: u32) -> OnDisk {
        OnDisk {
            bytes: bytes.to_vec(),
            side: Side {
                blob: blobs::hex(&blobs::digest(&[bytes])),
                mode,
                size: bytes.len() as u64,
                symlink: false,
            },
        }
    }

    fn recorded(blob: String, size: usize, mode: u32) -> Side {
        Side {
            blob,
            mode,
            size: size as u64,
            symlink: false,
        }
    }

    #[test]
    fn a_state_is_compared_by_the_kind_of_hash_it_was_recorded_with() {
        let disk = on_disk(b"abc", 0o644);
        let fast = recorded(blobs::hex(&blobs::digest(&[b"abc"])), 3, 0o644);
        // A history written before XXH3-128 names recorded SHA-256 ones.
        let legacy = recorded(blobs::hex(&blobs::sha256(&[b"abc"])), 3, 0o644);
        assert!(same(Some(&disk), Some(&fast)));
        assert!(same(Some(&disk), Some(&legacy)));
        let other = recorded(blobs::hex(&blobs::sha256(&[b"abd"])), 3, 0o644);
        assert!(!same(Some(&disk), Some(&other)));
        assert!(!same(Some(&disk), Some(&recorded(fast.blob.clone(), 3, 0o600))));
        assert!(!same(Some(&disk), None) && same(None, None));
    }
}

//! Writing a computed plan: each step atomic, and on a failure the steps already taken undone
//! in reverse order — created files removed, replaced and deleted ones written back with their
//! old bytes and mode, removed or moved symlinks put back — so the tree is left as it was found.

use std::path::{Path, PathBuf};
use std::rc::Rc;

use super::apply::Splice;
use super::links::LinkStep;
use crate::error::{Field, Hint, ToolError};
use crate::fs::atomic::{write_beneath, WriteOptions};
use crate::fs::beneath::Roots;
use crate::fs::workspace::WsPath;
use crate::session::context::Context;
use crate::session::freshness::{self, Fingerprint};

pub(super) enum Step {
    Link(LinkStep),
    Create {
        path: WsPath,
        bytes: NewBytes,
        mode: Option<u32>,
    },
    Replace {
        path: WsPath,
        bytes: NewBytes,
        mode: Option<u32>,
        old: Rc<Vec<u8>>,
        /// `old`'s name in the history (`history::blobs::digest`), hashed when it was loaded.
        old_digest: [u8; 32],
        old_mode: u32,
    },
    Delete {
        path: WsPath,
        old: Rc<Vec<u8>>,
        old_digest: [u8; 32],
        old_mode: u32,
    },
}

/// A file's new bytes: whole, or a splice of an old file's bytes (plain UTF-8, where the
/// text is the bytes) written part by part.
pub(super) enum NewBytes {
    Whole(Vec<u8>),
    Spliced(Splice, Rc<Vec<u8>>),
}

impl NewBytes {
    fn parts(&self) -> Vec<&[u8]> {
        match self {
            NewBytes::Whole(bytes) => vec![bytes.as_slice()],
            NewBytes::Spliced(splice, base) => splice.byte_slices(base).collect(),
        }
    }

    fn len(&self) -> usize {
        match self {
            NewBytes::Whole(bytes) => bytes.len(),
            NewBytes::Spliced(splice, _) => splice.len(),
        }
    }

    /// The history's name for these bytes and their XXH3-64 (a fingerprint's hash), from one
    /// pass (`history::blobs::digest_and_xxh3_64`).
    fn hashes(&self) -> ([u8; 32], u64) {
        crate::session::history::blobs::digest_and_xxh3_64(&self.parts())
    }

    pub(super) fn equals(&self, other: &[u8]) -> bool {
        if self.len() != other.len() {
            return false;
        }
        let mut rest = other;
        for part in self.parts() {
            let (head, tail) = rest.split_at(part.len());
            if head != part {
                return false;
            }
            rest = tail;
        }
        true
    }
}

/// How apply_patch writes: atomically (temp file, rename), without fsync — the same guarantee
/// as `git apply` and GNU `patch`. A reader or a crashed process sees the old file or the new,
/// never a mix; only a power loss right after the call could lose the new bytes. An fsync per
/// file (and one per directory) costs more than the whole rest of a large patch on a busy disk.
const WRITE: WriteOptions = WriteOptions {
    durable: false,
    create_parents: true,
};

/// Writes the plan: each step atomic; on a failure, the steps already taken are undone in
/// reverse order. Refreshes the session's fingerprints of every file written.
pub(super) fn commit(ctx: &Context, steps: Vec<Step>) -> Result<(), ToolError> {
    // The new bytes are hashed once, for both the checkpoint and the fingerprint.
    let hashes: Vec<Option<([u8; 32], u64)>> = steps
        .iter()
        .map(|step| match step {
            Step::Create { bytes, .. } | Step::Replace { bytes, .. } => Some(bytes.hashes()),
            Step::Link(_) | Step::Delete { .. } => None,
        })
        .collect();
    let changes = checkpoint_changes(&steps, &hashes);
    let recorded = record_checkpoint(ctx, &changes);
    let mut done: Vec<(usize, Vec<PathBuf>)> = Vec::new();
    for (i, step) in steps.iter().enumerate() {
        match perform(ctx, step) {
            Ok(created_dirs) => done.push((i, created_dirs)),
            Err(err) => {
                let mut unrestored = Vec::new();
                for (j, dirs) in done.iter().rev() {
                    if let Err(not_restored) = undo(ctx, &steps[*j], dirs) {
                        unrestored.push(not_restored.display);
                    }
                }
                let all_restored = unrestored.is_empty();
                if all_restored {
                    if let Some(recorded) = recorded {
                        recorded.discard();
                    }
                }
                let rolled_back = Hint::RolledBack {
                    done: done.len(),
                    unrestored,
                };
                return Err(err.hint(rolled_back).with(Field::Restored, all_restored));
            }
        }
    }
    for (step, hashes) in steps.iter().zip(&hashes) {
        match step {
            Step::Create { path, .. } | Step::Replace { path, .. } => {
                let written = path.open(libc::O_RDONLY | libc::O_NONBLOCK);
                let meta = written.map_err(std::io::Error::from).and_then(|f| f.metadata());
                if let (Ok(meta), Some((_, xxh3_64))) = (meta, hashes) {
                    freshness::record(&ctx.state, path, Fingerprint::with_xxh3_64(&meta, *xxh3_64))?;
                }
            }
            Step::Delete { path, .. } => freshness::forget(&ctx.state, &path.display),
            Step::Link(_) => {}
        }
    }
    Ok(())
}

/// Every path's bytes and mode before and after the patch, for its checkpoint; `hashes` are
/// the new bytes' of each step (see [`NewBytes::hashes`]).
fn checkpoint_changes<'s>(
    steps: &'s [Step],
    hashes: &[Option<([u8; 32], u64)>],
) -> Vec<crate::session::history::Change<'s>> {
    use crate::session::history::{Change, Content};
    use std::os::unix::ffi::OsStrExt;
    fn link(target: &Path) -> Content<'_> {
        Content {
            parts: vec![target.as_os_str().as_bytes()],
            mode: 0o777,
            symlink: true,
            digest: None,
        }
    }
    let new_mode = crate::fs::atomic::new_file_mode(false);
    let mut changes = Vec::new();
    for (step, hashes) in steps.iter().zip(hashes) {
        let new_digest = hashes.map(|(digest, _)| digest);
        match step {
            Step::Link(LinkStep::Remove(l)) => changes.push(Change {
                path: l.path.display.clone(),
                before: Some(link(&l.target)),
                after: None,
            }),
            Step::Link(LinkStep::Move { link: l, to }) => {
                changes.push(Change {
                    path: l.path.display.clone(),
                    before: Some(link(&l.target)),
                    after: None,
                });
                changes.push(Change {
                    path: to.display.clone(),
                    before: None,
                    after: Some(link(&l.target)),
                });
            }
            Step::Create { path, bytes, mode } => changes.push(Change {
                path: path.display.clone(),
                before: None,
                after: Some(Content {
                    parts: bytes.parts(),
                    mode: mode.unwrap_or(new_mode) & 0o7777,
                    symlink: false,
                    digest: new_digest,
                }),
            }),
            Step::Replace {
                path,
                bytes,
                mode,
                old,
                old_digest,
                old_mode,
            } => changes.push(Change {
                path: path.display.clone(),
                before: Some(Content::file_with_digest(old, *old_mode, *old_digest)),
                after: Some(Content {
                    parts: bytes.parts(),
                    mode: mode.unwrap_or(*old_mode) & 0o7777,
                    symlink: false,
                    digest: new_digest,
                }),
            }),
            Step::Delete {
                path,
                old,
                old_digest,
                old_mode,
            } => changes.push(Change {
                path: path.display.clone(),
                before: Some(Content::file_with_digest(old, *old_mode, *old_digest)),
                after: None,
            }),
        }
    }
    changes
}

/// Records the checkpoint of the whole patch before the first step is taken.
fn record_checkpoint(
    ctx: &Context,
    changes: &[crate::session::history::Change],
) -> Option<crate::session::history::Recorded> {
    let mut names: Vec<&str> = changes.iter().map(|c| c.path.as_str()).take(4).collect();
    if changes.len() > 4 {
        names.push("…");
    }
    let summary = format!("apply_patch {}", names.join(", "));
    crate::session::history::record_or_notice(&ctx.state, "apply_patch", &summary, changes)
}

/// Directories that writing `path` would create, deepest first.
pub(super) fn missing_dirs(path: &Path) -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    let mut dir = path.parent();
    while let Some(d) = dir {
        if d.exists() {
            break;
        }
        dirs.push(d.to_path_buf());
        dir = d.parent();
    }
    dirs
}

fn perform(ctx: &Context, step: &Step) -> Result<Vec<PathBuf>, ToolError> {
    match step {
        Step::Link(link) => {
            let dirs = link.perform()?;
            prune_empty_parents(ctx, link.vacated());
            Ok(dirs)
        }
        Step::Create { path, bytes, mode } => {
            let dirs = missing_dirs(&path.abs);
            if let Err(refusal) = write_beneath(path, &bytes.parts(), WRITE, *mode) {
                remove_dirs(&path.roots, &dirs);
                return Err(path.refusal("create", refusal));
            }
            Ok(dirs)
        }
        Step::Replace {
            path, bytes, mode, ..
        } => {
            write_beneath(path, &bytes.parts(), WRITE, *mode)
                .map_err(|refusal| path.refusal("write", refusal))?;
            Ok(Vec::new())
        }
        Step::Delete { path, .. } => {
            path.roots
                .remove_file(&path.abs)
                .map_err(|refusal| path.refusal("delete", refusal))?;
            prune_empty_parents(ctx, &path.abs);
            Ok(Vec::new())
        }
    }
}

/// Removes directories a delete left empty, up to (not including) the workspace root — as
/// `git apply` does, so a patch that moves the last file out of a directory leaves no husk.
fn prune_empty_parents(ctx: &Context, path: &Path) {
    let mut dir = path.parent();
    while let Some(d) = dir {
        if d == ctx.workspace.root() || d == ctx.workspace.cwd() || !ctx.workspace.is_inside(d) {
            break;
        }
        if ctx.workspace.roots().remove_dir(d).is_err() {
            break;
        }
        dir = d.parent();
    }
}

fn remove_dirs(roots: &Roots, dirs: &[PathBuf]) {
    for dir in dirs {
        let _ = roots.remove_dir(dir);
    }
}

/// A path an undo could not put back, as results show it.
#[derive(Debug)]
pub(super) struct NotRestored {
    pub display: String,
}

/// Undoes one step. A restored file holds the bytes the session read, so its fingerprint is
/// refreshed to the new mtime.
fn undo(ctx: &Context, step: &Step, created_dirs: &[PathBuf]) -> Result<(), NotRestored> {
    match step {
        Step::Link(link) => link.undo(created_dirs),
        Step::Create { path, .. } => {
            path.roots.remove_file(&path.abs).map_err(|_| NotRestored {
                display: path.display.clone(),
            })?;
            remove_dirs(&path.roots, created_dirs);
            Ok(())
        }
        Step::Replace {
            path, old, old_mode, ..
        }
        | Step::Delete {
            path, old, old_mode, ..
        } => {
            let meta =
                write_beneath(path, &[old], WriteOptions::USER_FILE, Some(*old_mode)).map_err(|_| {
                    NotRestored {
                        display: path.display.clone(),
                    }
                })?;
            let _ = freshness::record(&ctx.state, path, Fingerprint::of_content(&meta, old));
            Ok(())
        }
    }
}

//! Deleting and renaming a symlink act on the link, never on the file it points to.
//!
//! The workspace guard resolves every path to its target (so what was checked is what is
//! opened), which is right for reading and changing content through a link but wrong for
//! removing or renaming it: `*** Delete File: link.txt` must not delete `target.txt`, a file
//! the patch never names. So for those two operations the path's last component is looked
//! at without following it — its directory goes through the guard as usual — and a symlink
//! there is removed or moved as a link, as `git apply` does. Its target is untouched.

use std::fs;
use std::path::{Path, PathBuf};

use super::commit::NotRestored;
use super::model::{FilePatch, Op, Tag};
use super::transaction::{self, Planning};
use crate::error::ToolError;
use crate::fs::workspace::WsPath;
use crate::session::context::Context;

/// Plans `file` when it deletes or renames a symlink; returns false (nothing planned) for
/// every other change, which goes through the link to its target as usual.
pub(super) fn plan(ctx: &Context, plan: &mut Planning, file: &FilePatch) -> Result<bool, ToolError> {
    let moves = file.op == Op::Update && file.move_to.is_some() && !file.copy;
    if file.op != Op::Delete && !moves {
        return Ok(false);
    }
    let Some(link) = link_at(ctx, &file.path, file)? else {
        if file.symlink {
            return Err(not_a_link(ctx, file));
        }
        return Ok(false);
    };
    // A link that leads out of the workspace stays refused, as for every other tool, though
    // only the link itself would change.
    transaction::resolve_at(ctx, &file.path, file)?;
    let display = link.path.display.clone();
    if plan.claimed_by_links.contains(&link.path.abs) {
        return Err(transaction::claimed_by_link(&display, file));
    }
    let target = link.target.to_string_lossy().into_owned();
    match &file.move_to {
        Some(to) if moves => {
            if !file.hunks.is_empty() {
                return Err(ToolError::link_rename_with_hunks(&display, &target, file.line));
            }
            let to = destination(ctx, plan, &link, to, file)?;
            plan.claimed_by_links.insert(link.path.abs.clone());
            plan.claimed_by_links.insert(to.abs.clone());
            plan.diff
                .push_str(&format!("--- a/{display}\n+++ b/{}\n", to.display));
            plan.reports.push(transaction::report(
                "renamed",
                &to.display,
                Some(display),
                Vec::new(),
            ));
            plan.links.push(LinkStep::Move { link, to });
        }
        _ => {
            // Hunks are checked against the content seen through the link (what read_file showed),
            // which must be fresh; the content itself stays.
            let mut hunks = Vec::new();
            if file.symlink {
                check_link_text(&link, file)?;
            } else if !file.hunks.is_empty() {
                let source = transaction::slot(ctx, plan, &file.path, file)?;
                transaction::materialize(plan, source);
                let current = transaction::existing(ctx, plan, source, file)?;
                hunks = transaction::deleting_hunks(current, &link.path, file)?;
            }
            plan.claimed_by_links.insert(link.path.abs.clone());
            plan.diff.push_str(&format!(
                "--- a/{display}\n+++ /dev/null\n(deleted the symlink; the file it points to, `{target}`, is kept)\n"
            ));
            plan.reports
                .push(transaction::report("deleted", &display, None, hunks));
            plan.links.push(LinkStep::Remove(link));
        }
    }
    Ok(true)
}

/// A git symlink deletion's removed lines are the link's text; they must be what it holds.
fn check_link_text(link: &Link, file: &FilePatch) -> Result<(), ToolError> {
    let removed: Vec<&str> = file
        .hunks
        .iter()
        .flat_map(|h| &h.body)
        .filter(|l| l.tag == Tag::Remove)
        .map(|l| l.text.as_str())
        .collect();
    let actual = link.target.to_string_lossy();
    if removed.is_empty() || removed.join("\n") == actual {
        return Ok(());
    }
    Err(ToolError::link_target_differs(
        &link.path.display,
        file.line,
        &removed.join(
            "
",
        ),
        &actual,
    ))
}

/// A git symlink deletion for a path that is not a symlink here.
fn not_a_link(ctx: &Context, file: &FilePatch) -> ToolError {
    let shown = ctx
        .resolve(&file.path)
        .map_or_else(|_| file.path.clone(), |p| p.display);
    ToolError::not_a_link(&shown, file.line)
}

/// Where a renamed link goes: a path that does not exist and no other part of the patch uses.
fn destination(
    ctx: &Context,
    plan: &Planning,
    link: &Link,
    to: &str,
    file: &FilePatch,
) -> Result<WsPath, ToolError> {
    let taken = |display: &str| ToolError::link_destination_taken(&link.path.display, display, file.line);
    if let Some(existing) = link_at(ctx, to, file)? {
        return Err(taken(&existing.path.display));
    }
    let path = transaction::resolve_at(ctx, to, file)?;
    if plan.claimed_by_links.contains(&path.abs) || plan.touches(&path.abs) {
        return Err(transaction::claimed_by_link(&path.display, file));
    }
    if fs::symlink_metadata(&path.abs).is_ok() {
        return Err(taken(&path.display));
    }
    Ok(path)
}

/// A symlink the patch names: where the link itself is, and what it points to.
#[derive(Debug, Clone)]
pub(super) struct Link {
    /// The link's own path (its directory resolved, its last component not followed).
    pub path: WsPath,
    /// The link's text, as `readlink` returns it (restored verbatim on rollback).
    pub target: PathBuf,
}

/// The symlink `given` (a path of `file`) names, if its last component is one.
pub(super) fn link_at(ctx: &Context, given: &str, file: &FilePatch) -> Result<Option<Link>, ToolError> {
    let lexical = Path::new(given);
    let Some(name) = lexical.file_name() else {
        return Ok(None);
    };
    if given.ends_with('/') {
        return Ok(None);
    }
    let parent = match lexical.parent().and_then(Path::to_str) {
        Some("") | None => ".",
        Some(parent) => parent,
    };
    // A refused directory is reported for the whole path the patch names (`../escape.txt`,
    // not `..`), as write_file would report it.
    let dir = match ctx.resolve_for_write(parent) {
        Ok(dir) => dir,
        Err(err) => return Err(transaction::resolve_at(ctx, given, file).err().unwrap_or(err)),
    };
    let abs = dir.abs.join(name);
    let Ok(meta) = fs::symlink_metadata(&abs) else {
        return Ok(None);
    };
    if !meta.file_type().is_symlink() {
        return Ok(None);
    }
    let target = fs::read_link(&abs).map_err(|err| ToolError::io(given, "read the symlink", &err))?;
    Ok(Some(Link {
        path: WsPath {
            display: ctx.workspace.display(&abs),
            call: ctx.workspace.call_path(&abs),
            abs,
            roots: ctx.workspace.roots().clone(),
        },
        target,
    }))
}

/// A change to a link, run before the patch's content changes.
pub(super) enum LinkStep {
    Remove(Link),
    Move { link: Link, to: WsPath },
}

impl LinkStep {
    /// Performs the step; returns the directories it created (deepest first), for undo.
    pub(super) fn perform(&self) -> Result<Vec<PathBuf>, ToolError> {
        match self {
            LinkStep::Remove(link) => {
                let roots = &link.path.roots;
                roots
                    .remove_file(&link.path.abs)
                    .map_err(|refusal| link.path.refusal("delete the symlink", refusal))?;
                Ok(Vec::new())
            }
            LinkStep::Move { link, to } => {
                let dirs = super::commit::missing_dirs(&to.abs);
                if let Err(refusal) = to.roots.rename(&link.path.abs, &to.abs) {
                    remove_dirs(&to.roots, &dirs);
                    return Err(link.path.refusal("rename the symlink", refusal));
                }
                Ok(dirs)
            }
        }
    }

    /// Puts the link back.
    pub(super) fn undo(&self, created_dirs: &[PathBuf]) -> Result<(), NotRestored> {
        let (LinkStep::Remove(link) | LinkStep::Move { link, .. }) = self;
        let not_restored = |_| NotRestored {
            display: link.path.display.clone(),
        };
        match self {
            LinkStep::Remove(link) => link
                .path
                .roots
                .symlink(&link.target, &link.path.abs)
                .map_err(not_restored),
            LinkStep::Move { link, to } => {
                to.roots.rename(&to.abs, &link.path.abs).map_err(not_restored)?;
                remove_dirs(&to.roots, created_dirs);
                Ok(())
            }
        }
    }

    /// The path the link leaves (for pruning emptied directories).
    pub(super) fn vacated(&self) -> &Path {
        match self {
            LinkStep::Remove(link) | LinkStep::Move { link, .. } => &link.path.abs,
        }
    }
}

fn remove_dirs(roots: &crate::fs::beneath::Roots, dirs: &[PathBuf]) {
    for dir in dirs {
        let _ = roots.remove_dir(dir);
    }
}

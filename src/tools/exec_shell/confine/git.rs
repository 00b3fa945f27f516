//! The workspace's git metadata, kept out of a command's reach whether or not each piece exists.
//!
//! A command that could write `.git/config` (`core.fsmonitor`, `core.hooksPath`, a filter, an
//! alias starting with `!`) or a hook would run code of its choosing the next time anyone runs
//! git here, outside every sandbox. So, inside the writable workspace:
//! - `.git` is pinned as a mount point (it cannot be renamed away and replaced);
//! - `.git/config`, `.git/hooks` and the redirections (`commondir`, `config.worktree`) are
//!   read-only; `.git/hooks` is made (empty, as `git init` makes it) when it is missing, so a
//!   missing one is as protected as a present one;
//! - `.git/modules` and `.git/worktrees` are read-only (made empty when missing): a new
//!   submodule or worktree cannot be planted. Inside them, each existing submodule's or
//!   worktree's own git directory is writable again, so `git submodule update` and commits in a
//!   worktree work, except for its config, hooks and redirections, which stay read-only;
//! - a redirection that does not exist yet cannot be mounted over: one the command creates is
//!   removed after the run, with a line saying so.
//!
//! Writes git itself makes of its config (`git config user.email`, `git remote add`) are
//! refused with the rest: the sandbox's hint names the approval that runs the command
//! unconfined, once a person agrees.

use std::path::{Path, PathBuf};

use crate::notice::{Planter, SandboxHint};
use crate::sandbox::Request;

/// Files inside a git directory that would point git at a configuration and hooks elsewhere: a
/// command could otherwise leave `config` and `hooks` alone and still plant a hook through
/// them. Existing ones are kept read-only; a new one cannot be bind-mounted (it does not exist
/// yet) and git refuses to run with an empty one, so one the command creates is removed after
/// the run, with a line saying so.
pub const GIT_REDIRECTS: [&str; 2] = ["commondir", "config.worktree"];

/// `commondir` belongs in the git directory of a linked worktree (`.git/worktrees/NAME/`), never
/// in a workspace's own `.git` directory: one found there was planted — by a process a command
/// left running, which the check after that command could not see — and is removed before every
/// command, not only after the one that made it.
const NEVER_IN_A_WORKSPACE: &str = "commondir";

/// How deep and how many directories the search for submodules' git directories goes (names
/// with slashes nest; nested submodules live in their parent's `modules/`).
const MODULE_DEPTH: usize = 8;
const MODULE_DIRS: usize = 256;

/// What protecting the git metadata adds to a command's plan.
#[derive(Debug, Default)]
pub(super) struct GitGuard {
    /// Redirections that did not exist before the run, removed if the command creates them.
    pub watched: Vec<PathBuf>,
    /// The line saying a planted `.git/commondir` was removed before the run.
    pub removed_before: Option<SandboxHint>,
}

/// Adds the workspace's git metadata under `root` to `request` (pinned, protected, reopened).
pub(super) fn protect(root: &Path, request: &mut Request) -> GitGuard {
    let git = root.join(".git");
    let mut guard = GitGuard::default();
    match std::fs::symlink_metadata(&git) {
        Ok(meta) if meta.is_dir() => {
            let commondir = git.join(NEVER_IN_A_WORKSPACE);
            guard.removed_before =
                remove_redirections(std::slice::from_ref(&commondir), root, Planter::EarlierCommand);
            request.pinned.push(git.clone());
            protect_git_dir(&git, request, &mut guard, 0);
            protect_worktrees(&git.join("worktrees"), request, &mut guard);
        }
        // A `.git` file points at the repository elsewhere: keep the pointer itself.
        Ok(_) => request.protected.push(git),
        Err(_) => {}
    }
    guard
}

/// One git directory (the workspace's own, or a submodule's): config, hooks, redirections
/// and `modules/` read-only, each submodule's git directory inside writable with the same
/// protection.
fn protect_git_dir(dir: &Path, request: &mut Request, guard: &mut GitGuard, depth: usize) {
    for name in ["config"].iter().chain(GIT_REDIRECTS.iter()) {
        let path = dir.join(name);
        if std::fs::symlink_metadata(&path).is_ok() {
            request.protected.push(path);
        } else {
            guard.watched.push(path);
        }
    }
    for name in ["hooks", "modules"] {
        let path = dir.join(name);
        if ensure_dir(&path) {
            request.protected.push(path);
        }
    }
    if depth < MODULE_DEPTH {
        let mut budget = MODULE_DIRS;
        for module in module_git_dirs(&dir.join("modules"), &mut budget) {
            request.reopened.push(module.clone());
            protect_git_dir(&module, request, guard, depth + 1);
        }
    }
}

/// `.git/worktrees`: read-only, each linked worktree's git directory writable again but for
/// its redirections.
fn protect_worktrees(dir: &Path, request: &mut Request, guard: &mut GitGuard) {
    if !ensure_dir(dir) {
        return;
    }
    request.protected.push(dir.to_path_buf());
    for worktree in subdirectories(dir) {
        request.reopened.push(worktree.clone());
        for name in GIT_REDIRECTS {
            let path = worktree.join(name);
            if std::fs::symlink_metadata(&path).is_ok() {
                request.protected.push(path);
            } else if name != NEVER_IN_A_WORKSPACE {
                guard.watched.push(path);
            }
        }
    }
}

/// The git directories of the submodules below `modules` (a directory holding `HEAD`), not
/// descending into one (its own `modules/` is searched when it is protected).
fn module_git_dirs(modules: &Path, budget: &mut usize) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut pending = vec![(modules.to_path_buf(), 0)];
    while let Some((dir, depth)) = pending.pop() {
        for sub in subdirectories(&dir) {
            if *budget == 0 {
                return found;
            }
            *budget -= 1;
            if sub.join("HEAD").is_file() {
                found.push(sub);
            } else if depth < MODULE_DEPTH {
                pending.push((sub, depth + 1));
            }
        }
    }
    found.sort();
    found
}

/// The real directories (not links) directly inside `dir`.
fn subdirectories(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.path())
        .collect()
}

/// Makes `path` an (empty) directory when nothing is there; whether a real directory is.
fn ensure_dir(path: &Path) -> bool {
    match std::fs::symlink_metadata(path) {
        Ok(meta) => meta.is_dir(),
        Err(_) => std::fs::create_dir(path).is_ok(),
    }
}

/// Removes the watched redirections the command created; returns the line that says so.
pub fn remove_planted(watched: &[PathBuf], root: &Path) -> Option<SandboxHint> {
    remove_redirections(watched, root, Planter::Command)
}

fn remove_redirections(watched: &[PathBuf], root: &Path, by: Planter) -> Option<SandboxHint> {
    let planted: Vec<String> = watched
        .iter()
        .filter(|path| std::fs::symlink_metadata(path).is_ok())
        .filter(|path| std::fs::remove_file(path).is_ok() || std::fs::remove_dir_all(path).is_ok())
        .map(|path| path.strip_prefix(root).unwrap_or(path).display().to_string())
        .collect();
    (!planted.is_empty()).then_some(SandboxHint::GitRedirectionsRemoved { by, paths: planted })
}

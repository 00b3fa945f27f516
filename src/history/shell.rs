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
//! names the empty tree). Git records only the executable bit, so a path created or deleted by
//! a command comes back with mode 0644 or 0755 (less the umask); a modified file keeps its
//! exact mode. Files over [`MAX_FILE_BYTES`] and commands that change more than [`MAX_PATHS`]
//! paths are not recorded; the call says so in a notice.
//!
//! The commands run here are codesmith's own (the sandboxed command never touches
//! `.codesmith/`): the before snapshot is taken by this process before the command starts, the
//! after snapshot once it has ended (for a background task, when task_output, task_wait or
//! task_cancel first sees it finished).

use std::fs;
use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::watch::{self, Watch};
use super::{git_index, scan, Change, Content};
use crate::context::Context;
use crate::state::State;

/// A command that changed more paths than this is not recorded.
pub const MAX_PATHS: usize = 10_000;
/// Files larger than this are not recorded.
pub const MAX_FILE_BYTES: u64 = 64 * 1024 * 1024;
/// A tree with more files than this outside git is not snapshotted at all.
pub const MAX_FIRST_FILES: usize = 1_000_000;
/// What [`Shadow::refresh`] did.
struct Refreshed {
    /// Whether the index changed.
    changed: bool,
    /// The index entries the walk did not reach; `None` when git did the work.
    unreached: Option<Vec<Vec<u8>>>,
    /// The index as read, when it did not change.
    index: Option<git_index::Index>,
}

/// What the "after" snapshot of a watched command reads: the paths the events name, the
/// entries the walk before did not reach, against the index as it was then.
struct Since {
    events: watch::Events,
    unreached: Vec<Vec<u8>>,
    index: Option<git_index::Index>,
}

/// The marker of a tree too large to snapshot (its text says why).
const TOO_LARGE: &str = "too-large";
/// The tree of the index, with the identity of the index file it was written from.
const TREE: &str = "tree";
/// Touched files (stat changed, content not) are left stale in the index up to this many; past
/// it, the index is brought up to date, so later scans stop hashing them.
const MAX_TOUCHED: usize = 256;

/// The tree git computes for an empty directory (known to git without being stored).
const EMPTY_TREE: &str = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";

/// The workspace as it was before a command: a tree of the shadow repository.
pub struct Before {
    pub tree: String,
    /// What tells the "after" snapshot which paths the command may have changed; without it
    /// (a background task's, seen by a later call), the whole tree is read again.
    watched: Option<Watched>,
}

struct Watched {
    watch: Watch,
    unreached: Vec<Vec<u8>>,
    /// The index as the walk read it, when the snapshot left it as it was.
    index: Option<git_index::Index>,
}

impl Before {
    /// The snapshot `tree`, taken by an earlier call.
    pub fn from_tree(tree: String) -> Before {
        Before { tree, watched: None }
    }
}

struct Shadow {
    git_dir: PathBuf,
    root: PathBuf,
}

impl Shadow {
    fn open(state: &State, root: &Path) -> std::io::Result<Shadow> {
        let git_dir = super::history_dir(state).join("shadow");
        let shadow = Shadow {
            git_dir,
            root: root.to_path_buf(),
        };
        if !shadow.git_dir.join("HEAD").exists() {
            shadow.create()?;
            shadow.measure(super::Settings::load(state).max_bytes)?;
        }
        Ok(shadow)
    }

    /// Before the first snapshot, which copies every file the shadow does not know yet (all of
    /// a plain tree, the untracked files of a checkout): refuses a tree whose copy would exceed
    /// the history's byte limit or [`MAX_FIRST_FILES`], leaving a marker that says why (the
    /// snapshots stay off until `.codesmith/history/shadow` is removed).
    fn measure(&self, max_bytes: u64) -> std::io::Result<()> {
        let Ok(listed) = self.run(&["ls-files", "-z", "-o", "--exclude-standard"]) else {
            return Ok(());
        };
        let (mut count, mut bytes) = (0usize, 0u64);
        for path in listed.split(|&b| b == 0).filter(|p| !p.is_empty()) {
            count += 1;
            let path = std::ffi::OsStr::from_bytes(path);
            bytes += fs::symlink_metadata(self.root.join(path)).map_or(0, |m| m.len());
        }
        if count > MAX_FIRST_FILES || bytes > max_bytes {
            fs::write(
                self.git_dir.join(TOO_LARGE),
                format!(
                    "the workspace holds {count} files ({bytes} bytes) that are not in git, more than a \
                     snapshot copies (at most {MAX_FIRST_FILES} files and [history] max_bytes = \
                     {max_bytes}). Ignore build output in .gitignore or raise max_bytes, then ask the \
                     user to remove .codesmith/history/shadow; or set [history] shell = false."
                ),
            )?;
        }
        Ok(())
    }

    /// A minimal git directory (what `git init` makes that git needs), borrowing the
    /// workspace repository's objects and index when there is one.
    fn create(&self) -> std::io::Result<()> {
        let dir = &self.git_dir;
        fs::create_dir_all(dir.join("objects").join("info"))?;
        fs::create_dir_all(dir.join("refs"))?;
        fs::create_dir_all(dir.join("info"))?;
        fs::write(dir.join("info").join("exclude"), "/.codesmith/\n")?;
        let repo = self.root.join(".git");
        if repo.join("objects").is_dir() {
            fs::write(
                dir.join("objects").join("info").join("alternates"),
                format!("{}\n", repo.join("objects").display()),
            )?;
            if let Ok(exclude) = fs::read(repo.join("info").join("exclude")) {
                let mut merged = b"/.codesmith/\n".to_vec();
                merged.extend_from_slice(&exclude);
                fs::write(dir.join("info").join("exclude"), merged)?;
            }
            // The repository's index is a ready stat cache of the tracked files, but its
            // entries hold content after filters; with attributes in play it is not used.
            if !self.root.join(".gitattributes").exists() {
                let _ = fs::copy(repo.join("index"), dir.join("index"));
            }
        }
        fs::write(dir.join("HEAD"), "ref: refs/heads/main\n")
    }

    fn git(&self) -> Command {
        let mut command = Command::new("git");
        for (key, _) in std::env::vars_os() {
            if key.to_string_lossy().starts_with("GIT_") {
                command.env_remove(key);
            }
        }
        command
            .env("GIT_DIR", &self.git_dir)
            .env("GIT_WORK_TREE", &self.root)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_OPTIONAL_LOCKS", "0")
            .current_dir(&self.root)
            .args(["--attr-source", EMPTY_TREE])
            .args([
                "-c",
                "core.autocrlf=false",
                "-c",
                "core.safecrlf=false",
                "-c",
                "core.filemode=true",
                "-c",
                "core.symlinks=true",
                "-c",
                "gc.auto=0",
                "-c",
                "core.quotepath=false",
                // The shadow index is rewritten whenever a file changed: hashing all of it
                // each time costs more than anything else in a snapshot of a large tree.
                "-c",
                "index.skipHash=true",
            ])
            .stdin(Stdio::null());
        command
    }

    fn run(&self, args: &[&str]) -> Result<Vec<u8>, String> {
        let output = self
            .git()
            .args(args)
            .output()
            .map_err(|err| format!("git could not be run ({err})"))?;
        if !output.status.success() {
            let stderr = String::from_utf8_lossy(&output.stderr);
            return Err(format!("`git {}` failed: {}", args.join(" "), stderr.trim()));
        }
        Ok(output.stdout)
    }

    /// Brings the index up to date with the working tree.
    fn add_all(&self) -> Result<(), String> {
        if let Err(first) = self.run(&["add", "-A", "--ignore-errors", "--", "."]) {
            // A borrowed index git cannot use: start over from an empty one.
            let _ = fs::remove_file(self.git_dir.join("index"));
            self.run(&["add", "-A", "--ignore-errors", "--", "."])
                .map_err(|_| first)?;
        }
        Ok(())
    }

    /// Brings the index up to date with the working tree. The comparison is codesmith's own
    /// (see [`scan`]); git hashes only what it found changed, and does all the work itself for
    /// an index [`git_index`] does not read. With `watch`, every directory read is watched from
    /// then on; after a command, `since` says what its watch saw, and only that is read.
    fn refresh(&self, watch: Option<&Watch>, since: Option<Since>) -> Result<Refreshed, String> {
        let git_did_it = Refreshed {
            changed: true,
            unreached: None,
            index: None,
        };
        let (known, since) = match since {
            Some(Since {
                index,
                events,
                unreached,
            }) => (index, Some((events, unreached))),
            None => (None, None),
        };
        let path = self.git_dir.join("index");
        let read = match known.filter(|index| index.is_current(&path)) {
            Some(index) => Ok(Some(index)),
            None => git_index::read(&path),
        };
        let Ok(index) = read else {
            self.add_all()?;
            return Ok(git_did_it);
        };
        let index = index.unwrap_or(git_index::Index {
            entries: Vec::new(),
            mtime: (0, 0),
            identity: (0, 0),
        });
        let changes = match &since {
            Some((events, unreached)) => {
                scan::changes_named(&self.root, &index, self.exclude(), events, unreached)
            }
            None => scan::changes(&self.root, &index, self.exclude(), watch),
        };
        let unreached = Some(changes.unreached);
        if changes.changed.is_empty() && changes.touched.len() <= MAX_TOUCHED {
            return Ok(Refreshed {
                changed: false,
                unreached,
                index: Some(index),
            });
        }
        let mut paths = changes.changed;
        paths.extend(changes.touched);
        if self.update_index(&paths).is_err() {
            self.add_all()?;
            return Ok(git_did_it);
        }
        Ok(Refreshed {
            changed: true,
            unreached,
            index: None,
        })
    }

    /// The shadow's own ignore rules (`info/exclude`), rooted at the workspace.
    fn exclude(&self) -> ignore::gitignore::Gitignore {
        let mut builder = ignore::gitignore::GitignoreBuilder::new(&self.root);
        let _ = builder.add(self.git_dir.join("info").join("exclude"));
        builder
            .build()
            .unwrap_or_else(|_| ignore::gitignore::Gitignore::empty())
    }

    /// Re-reads `paths` into the index: new and changed files are hashed, missing ones dropped.
    fn update_index(&self, paths: &[Vec<u8>]) -> Result<(), String> {
        let mut child = self
            .git()
            .args(["update-index", "--add", "--remove", "--replace", "-z", "--stdin"])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|err| format!("git could not be run ({err})"))?;
        let mut input = Vec::new();
        for path in paths {
            input.extend_from_slice(path);
            input.push(0);
        }
        let mut stdin = child.stdin.take().ok_or("git update-index has no stdin")?;
        let writer = std::thread::spawn(move || stdin.write_all(&input));
        let status = child.wait().map_err(|err| err.to_string())?;
        let written = writer
            .join()
            .map_err(|_| "git update-index input failed".to_string())?;
        if !status.success() || written.is_err() {
            return Err("git update-index failed".into());
        }
        Ok(())
    }

    /// Snapshots the working tree into a tree id, watching it from then on.
    fn snapshot(&self) -> Result<Before, String> {
        let watch = Watch::new();
        let refreshed = self.refresh(watch.as_ref(), None)?;
        let tree = self.tree(refreshed.changed)?;
        let watched = match (watch, refreshed.unreached) {
            (Some(watch), Some(unreached)) => Some(Watched {
                watch,
                unreached,
                index: refreshed.index,
            }),
            _ => None,
        };
        Ok(Before { tree, watched })
    }

    /// The tree of the index: the one stored with it when the index has not changed since.
    fn tree(&self, index_changed: bool) -> Result<String, String> {
        let stored = self.git_dir.join(TREE);
        let index = self.index_identity();
        if !index_changed {
            if let Ok(text) = fs::read_to_string(&stored) {
                if let Some((tree, identity)) = text.trim().split_once(' ') {
                    if index.as_deref() == Some(identity) {
                        return Ok(tree.to_string());
                    }
                }
            }
        }
        let tree = self.run(&["write-tree"])?;
        let tree = String::from_utf8_lossy(&tree).trim().to_string();
        if let Some(identity) = self.index_identity() {
            let _ = crate::atomic::write_atomically_parts(
                &stored,
                &[format!("{tree} {identity}\n").as_bytes()],
                crate::atomic::WriteOptions::STATE_FILE,
            );
        }
        Ok(tree)
    }

    /// What tells one version of the index file from another: size, mtime and inode.
    fn index_identity(&self) -> Option<String> {
        use std::os::unix::fs::MetadataExt;
        let meta = fs::metadata(self.git_dir.join("index")).ok()?;
        Some(format!(
            "{}.{}.{}.{}",
            meta.len(),
            meta.mtime(),
            meta.mtime_nsec(),
            meta.ino()
        ))
    }
}

/// Drops the shadow's objects that its index no longer uses (older versions of changed files,
/// whose content the checkpoints hold in their own blobs). Objects younger than an hour are
/// kept: a snapshot running in parallel may not have put them in the index yet.
pub fn prune_shadow(state: &State) {
    let Some(root) = state.dir().parent() else { return };
    let git_dir = super::history_dir(state).join("shadow");
    if !git_dir.join("HEAD").exists() {
        return;
    }
    let shadow = Shadow {
        git_dir,
        root: root.to_path_buf(),
    };
    let _ = shadow.run(&["prune", "--expire=1.hour.ago"]);
}

/// Whether exec_shell snapshots are on (`[history] shell`).
pub fn enabled(ctx: &Context) -> bool {
    ctx.config()
        .map(super::Settings::from_config)
        .map_or(true, |s| s.shell)
}

/// Takes the snapshot before a command; `Err` is a notice saying why it could not be.
pub fn before(ctx: &Context) -> Result<Before, String> {
    let _lock = lock(&ctx.state)?;
    let shadow =
        Shadow::open(&ctx.state, ctx.workspace.root()).map_err(|err| not_recorded(&err.to_string()))?;
    if let Ok(why) = fs::read_to_string(shadow.git_dir.join(TOO_LARGE)) {
        return Err(not_recorded(&why));
    }
    shadow.snapshot().map_err(|err| not_recorded(&err))
}

fn lock(state: &State) -> Result<crate::state::Lock, String> {
    let dir = super::history_dir(state);
    fs::create_dir_all(&dir)
        .and_then(|()| crate::state::Lock::exclusive(&dir.join("shadow.lock")))
        .map_err(|err| not_recorded(&err.to_string()))
}

fn not_recorded(why: &str) -> String {
    format!("The changes of this command were not recorded, so undo cannot take them back: {why}")
}

/// Takes the snapshot after a command and records what changed as a checkpoint of `tool`.
/// Returns the notices for the call (nothing when nothing changed).
pub fn after(ctx: &Context, before: Before, tool: &str, command: &str) -> Vec<String> {
    match record_after(ctx, before, tool, command) {
        Ok(notices) => notices,
        Err(why) => vec![not_recorded(&why)],
    }
}

fn record_after(ctx: &Context, before: Before, tool: &str, command: &str) -> Result<Vec<String>, String> {
    let _lock = lock(&ctx.state)?;
    let shadow = Shadow::open(&ctx.state, ctx.workspace.root()).map_err(|err| err.to_string())?;
    // The tree written for the "after" is stored with the index, so the next command's
    // "before" finds it without running git when nothing changed in between.
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
        return Ok(vec![format!(
            "The command changed {} paths, more than the {MAX_PATHS} a checkpoint records, so its \
             changes were not recorded and undo cannot take them back.",
            diffs.len()
        )]);
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
    let mut changes = Vec::new();
    for (diff, after) in diffs.iter().zip(&afters) {
        if diff.old_mode == "160000" || diff.new_mode == "160000" {
            continue;
        }
        if !is_null(&diff.old_id) && !old_blobs.contains_key(&diff.old_id) {
            notices.push(format!(
                "the old content of `{}` could not be read; it was not recorded.",
                diff.path
            ));
            continue;
        }
        let before = (!is_null(&diff.old_id)).then(|| {
            let bytes = old_blobs.get(&diff.old_id).map_or(&[][..], Vec::as_slice);
            let mode = match (after, diff.old_mode == diff.new_mode) {
                (Some((_, mode)), true) => *mode,
                _ => git_mode(&diff.old_mode),
            };
            Content {
                parts: vec![bytes],
                mode,
                symlink: diff.old_mode == "120000",
            }
        });
        let after = after.as_ref().map(|(bytes, mode)| Content {
            parts: vec![bytes.as_slice()],
            mode: *mode,
            symlink: diff.new_mode == "120000",
        });
        if before
            .as_ref()
            .is_some_and(|b| b.parts[0].len() as u64 > MAX_FILE_BYTES)
        {
            notices.push(format!(
                "`{}` is over {MAX_FILE_BYTES} bytes; its old content was not recorded.",
                diff.path
            ));
            continue;
        }
        changes.push(Change {
            path: diff.path.clone(),
            before,
            after,
        });
    }
    if changes.is_empty() {
        return Ok(notices);
    }
    super::record(&ctx.state, tool, command, &changes, notices.clone()).map_err(|err| err.message)?;
    super::store_afters(&ctx.state, &changes);
    Ok(notices)
}

/// The file's bytes and mode now, as the after side; `None` when it is gone.
fn read_after(abs: &Path, diff: &Diff, notices: &mut Vec<String>) -> Option<(Vec<u8>, u32)> {
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
        notices.push(format!(
            "`{}` is over {MAX_FILE_BYTES} bytes; its new content was not recorded.",
            diff.path
        ));
        return None;
    }
    Some((fs::read(abs).ok()?, meta.permissions().mode() & 0o7777))
}

fn git_mode(mode: &str) -> u32 {
    let umask = crate::atomic::current_umask();
    match mode {
        "100755" => 0o777 & !umask,
        "120000" => 0o777,
        _ => 0o666 & !umask,
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

impl Shadow {
    /// The contents of blobs, by id (`git cat-file --batch`).
    fn cat_blobs(&self, ids: &[&str]) -> Result<std::collections::HashMap<String, Vec<u8>>, String> {
        let mut blobs = std::collections::HashMap::new();
        if ids.is_empty() {
            return Ok(blobs);
        }
        let mut child = self
            .git()
            .args(["cat-file", "--batch"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|err| format!("git could not be run ({err})"))?;
        let input: String = ids.iter().map(|id| format!("{id}\n")).collect();
        let mut stdin = child.stdin.take().ok_or("git cat-file has no stdin")?;
        let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
        let output = child
            .wait_with_output()
            .map_err(|err| format!("git cat-file failed ({err})"))?;
        let _ = writer.join();
        let mut rest = output.stdout.as_slice();
        for id in ids {
            let Some(newline) = rest.iter().position(|&b| b == b'\n') else {
                break;
            };
            let header = String::from_utf8_lossy(&rest[..newline]).into_owned();
            rest = &rest[newline + 1..];
            let size: usize = match header.split(' ').nth(2).and_then(|s| s.parse().ok()) {
                Some(size) => size,
                None => continue,
            };
            if rest.len() < size + 1 {
                break;
            }
            blobs.insert(id.to_string(), rest[..size].to_vec());
            rest = &rest[size + 1..];
        }
        Ok(blobs)
    }
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

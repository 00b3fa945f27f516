//! The private git directory of the exec_shell snapshots, `.codesmith/history/shadow/`: its
//! creation, the git commands run in it, and bringing its index up to date with the working
//! tree (see [`super::shell`] for how the snapshots use it).

use std::fs;
use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::shell::{Before, Watched, MAX_FIRST_FILES};
use super::watch::{self, Watch};
use super::{git_index, scan};
use crate::session::state::State;

/// Why git could not do what a snapshot asked of it.
#[derive(Debug, thiserror::Error)]
pub(super) enum GitError {
    #[error("git could not be run ({0})")]
    Spawn(std::io::Error),
    /// `git ARGS` exited with a failure; `stderr` is what it said, trimmed.
    #[error("`git {args}` failed: {stderr}")]
    Failed { args: String, stderr: String },
    #[error("git {0} has no stdin")]
    NoStdin(&'static str),
    #[error("{0}")]
    Wait(std::io::Error),
    #[error("git update-index input failed")]
    UpdateIndexInput,
    #[error("git update-index failed")]
    UpdateIndex,
    #[error("git cat-file failed ({0})")]
    CatFile(std::io::Error),
}

/// What [`Shadow::refresh`] did.
pub(super) struct Refreshed {
    /// Whether the index changed.
    pub changed: bool,
    /// The index entries the walk did not reach; `None` when git did the work.
    unreached: Option<Vec<Vec<u8>>>,
    /// The index as read, when it did not change.
    index: Option<git_index::Index>,
    /// The exact permission bits the walk saw where git keeps less (see `scan::Changes`);
    /// `None` when git did the work (an index the reader does not handle).
    modes: Option<Vec<(Vec<u8>, u32)>>,
}

/// What the "after" snapshot of a watched command reads: the paths the events name, the
/// entries the walk before did not reach, against the index as it was then.
pub(super) struct Since {
    pub events: watch::Events,
    pub unreached: Vec<Vec<u8>>,
    pub index: Option<git_index::Index>,
}

/// The marker of a tree too large to snapshot (its text says why).
pub(super) const TOO_LARGE: &str = "too-large";
/// The tree of the index, with the identity of the index file it was written from.
const TREE: &str = "tree";
/// Touched files (stat changed, content not) are left stale in the index up to this many; past
/// it, the index is brought up to date, so later scans stop hashing them.
const MAX_TOUCHED: usize = 256;

/// The tree git computes for an empty directory (known to git without being stored).
const EMPTY_TREE: &str = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";

pub(super) struct Shadow {
    pub git_dir: PathBuf,
    pub root: PathBuf,
}

impl Shadow {
    pub(super) fn open(state: &State, root: &Path) -> std::io::Result<Shadow> {
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

    pub(super) fn run(&self, args: &[&str]) -> Result<Vec<u8>, GitError> {
        let output = self.git().args(args).output().map_err(GitError::Spawn)?;
        if !output.status.success() {
            let stderr = String::from_utf8_lossy(&output.stderr);
            return Err(GitError::Failed {
                args: args.join(" "),
                stderr: stderr.trim().to_string(),
            });
        }
        Ok(output.stdout)
    }

    /// Brings the index up to date with the working tree.
    fn add_all(&self) -> Result<(), GitError> {
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
    pub(super) fn refresh(&self, watch: Option<&Watch>, since: Option<Since>) -> Result<Refreshed, GitError> {
        let git_did_it = Refreshed {
            changed: true,
            unreached: None,
            index: None,
            modes: None,
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
        let modes = Some(changes.modes);
        if changes.changed.is_empty() && changes.touched.len() <= MAX_TOUCHED {
            return Ok(Refreshed {
                changed: false,
                unreached,
                index: Some(index),
                modes,
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
            modes,
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
    fn update_index(&self, paths: &[Vec<u8>]) -> Result<(), GitError> {
        let mut child = self
            .git()
            .args(["update-index", "--add", "--remove", "--replace", "-z", "--stdin"])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(GitError::Spawn)?;
        let mut input = Vec::new();
        for path in paths {
            input.extend_from_slice(path);
            input.push(0);
        }
        let mut stdin = child.stdin.take().ok_or(GitError::NoStdin("update-index"))?;
        let writer = std::thread::spawn(move || stdin.write_all(&input));
        let status = child.wait().map_err(GitError::Wait)?;
        let written = writer.join().map_err(|_| GitError::UpdateIndexInput)?;
        if !status.success() || written.is_err() {
            return Err(GitError::UpdateIndex);
        }
        Ok(())
    }

    /// Snapshots the working tree into a tree id, watching it from then on.
    pub(super) fn snapshot(&self) -> Result<Before, GitError> {
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
        let modes = refreshed.modes.map(|modes| {
            modes
                .into_iter()
                .map(|(path, mode)| (String::from_utf8_lossy(&path).into_owned(), mode))
                .collect()
        });
        Ok(Before { tree, watched, modes })
    }

    /// The tree of the index: the one stored with it when the index has not changed since.
    pub(super) fn tree(&self, index_changed: bool) -> Result<String, GitError> {
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
            let _ = crate::fs::atomic::write_atomically_parts(
                &stored,
                &[format!("{tree} {identity}\n").as_bytes()],
                crate::fs::atomic::WriteOptions::STATE_FILE,
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
pub(super) fn prune_shadow(state: &State) {
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

impl Shadow {
    /// The contents of blobs, by id (`git cat-file --batch`).
    pub(super) fn cat_blobs(
        &self,
        ids: &[&str],
    ) -> Result<std::collections::HashMap<String, Vec<u8>>, GitError> {
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
            .map_err(GitError::Spawn)?;
        let input: String = ids.iter().map(|id| format!("{id}\n")).collect();
        let mut stdin = child.stdin.take().ok_or(GitError::NoStdin("cat-file"))?;
        let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
        let output = child.wait_with_output().map_err(GitError::CatFile)?;
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

//! `.codesmith/` at the workspace root: the session file, the lock that serializes its updates,
//! and the spill directory.
//!
//! Layout:
//! - `sessions/<name>.json`: cwd, approvals, pending approvals and questions, reminder marks (small; read on
//!   every call, rewritten under the lock with write-temp-then-rename).
//! - `sessions/<name>.fp/`: one fingerprint file per file read (see `freshness`), so that
//!   recording or checking one file costs the same whether the session has read 10 files or
//!   20,000, and parallel reads never contend.
//! - `sessions/<name>.journal`: one line per fingerprint recorded, most recent last (see
//!   `journal`); the shell probe reads its end. Bounded: rewritten to its tail past 1 MiB.
//! - `spill/`: whole texts of outputs that were cut, named by content hash.
//! - `config.toml`, `trust.json`, `approvals.json`, `audit.log`, `tasks/`: see their modules.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io;
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::error::ToolError;
use crate::fs::atomic::{write_atomically, WriteOptions};
use crate::notice::{Notice, SessionNotice};

/// The session file. Unknown fields are carried through a rewrite untouched.
#[derive(Debug, Default, Clone, Serialize, Deserialize)]
pub struct SessionFile {
    /// The cwd, relative to the workspace root (`.` for the root), or absolute under a trusted root.
    #[serde(default = "default_cwd")]
    pub cwd: String,
    /// Approval ids granted for this session with `codesmith approve ID`.
    #[serde(default)]
    pub approvals: BTreeSet<String>,
    /// Approvals asked for and not yet granted, so `codesmith approve ID` knows what ID means.
    #[serde(default)]
    pub pending: BTreeMap<String, PendingApproval>,
    /// Questions ask_user put to a person, by id, with their answers once given.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub questions: BTreeMap<String, crate::session::question::PendingQuestion>,
    /// Marks for notices that are given once (keyed by the notice's subject).
    #[serde(default)]
    pub reminders: BTreeMap<String, Value>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

fn default_cwd() -> String {
    ".".to_string()
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct PendingApproval {
    pub kind: String,
    pub subject: String,
    pub reason: String,
    /// The tool that asked (`exec_shell`, `fetch_url`), so `approve --persist` knows whether a
    /// network subject is a host or a command.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
}

/// The state directory of one workspace, seen from one session.
#[derive(Debug, Clone)]
pub struct State {
    dir: PathBuf,
    session: String,
    /// The tool of the call, for the checkpoints it records.
    tool: &'static str,
    /// Notices raised deep inside a call (a checkpoint that could not be recorded), for its result.
    notices: std::rc::Rc<std::cell::RefCell<Vec<Notice>>>,
}

impl State {
    pub fn new(dir: PathBuf, session: String) -> State {
        State {
            dir,
            session,
            tool: "",
            notices: Default::default(),
        }
    }

    /// The same state, for a call of `tool`.
    pub fn with_tool(mut self, tool: &'static str) -> State {
        self.tool = tool;
        self
    }

    pub fn tool(&self) -> &'static str {
        self.tool
    }

    /// Adds a notice to the call's result.
    pub fn add_notice(&self, notice: impl Into<Notice>) {
        self.notices.borrow_mut().push(notice.into());
    }

    /// The notices added so far, taken.
    pub fn take_notices(&self) -> Vec<Notice> {
        self.notices.take()
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn session_name(&self) -> &str {
        &self.session
    }

    pub fn session_path(&self) -> PathBuf {
        self.dir.join("sessions").join(format!("{}.json", self.session))
    }

    /// The directory of this session's per-file fingerprints.
    pub fn fingerprint_dir(&self) -> PathBuf {
        self.dir.join("sessions").join(format!("{}.fp", self.session))
    }

    /// Reads the session file; a missing or unreadable one is a fresh session.
    pub fn load_session(&self) -> SessionFile {
        self.load_session_checked().0
    }

    /// Reads the session file. One that exists but does not parse (truncated, garbage, wrong
    /// types) is a fresh session too, but its bytes are first kept beside it as
    /// `<name>.json.corrupt` (the next write would otherwise destroy the only copy), and the
    /// second value is the notice saying so.
    pub fn load_session_checked(&self) -> (SessionFile, Option<Notice>) {
        let fresh = || SessionFile {
            cwd: default_cwd(),
            ..SessionFile::default()
        };
        let path = self.session_path();
        let Ok(bytes) = fs::read(&path) else {
            return (fresh(), None);
        };
        let err = match serde_json::from_slice(&bytes) {
            Ok(session) => return (session, None),
            Err(err) => err,
        };
        let name = format!("{}.json", self.session);
        let copy_failed = write_atomically(
            &path.with_file_name(format!("{name}.corrupt")),
            &bytes,
            WriteOptions::STATE_FILE,
        )
        .err()
        .map(|keep_err| keep_err.to_string());
        let notice = SessionNotice::SessionFileReset {
            name,
            error: err.to_string(),
            copy_failed,
        };
        (fresh(), Some(notice.into()))
    }

    /// Read-modify-write of the session file under an exclusive lock, so parallel invocations
    /// in one session never lose each other's updates.
    pub fn update_session<R>(&self, change: impl FnOnce(&mut SessionFile) -> R) -> Result<R, ToolError> {
        let path = self.session_path();
        let sessions = self.dir.join("sessions");
        let fail = |err: io::Error| {
            self.io_error(
                &sessions,
                ".codesmith/sessions",
                "update the session state in",
                &err,
            )
        };
        self.ensure_dir().map_err(fail)?;
        let _lock = Lock::exclusive(&self.dir.join("sessions").join(format!("{}.lock", self.session)))
            .map_err(fail)?;
        let mut session = self.load_session();
        let result = change(&mut session);
        let bytes = serde_json::to_vec_pretty(&session).map_err(|err| fail(io::Error::other(err)))?;
        write_atomically(&path, &bytes, WriteOptions::STATE_FILE).map_err(fail)?;
        Ok(result)
    }

    /// The error for a state operation that failed on `needed_dir` (a directory under
    /// `.codesmith/`, itself included): when a regular file (or anything but a directory) sits
    /// where a directory is needed, it is named with the way out, since the OS error alone
    /// ("Not a directory", "File exists") does not say which path is wrong. Otherwise the
    /// plain io_error for `display`.
    pub fn io_error(&self, needed_dir: &Path, display: &str, action: &str, err: &io::Error) -> ToolError {
        match self.not_a_directory(needed_dir) {
            Some(blocker) => not_a_directory_error(&blocker),
            None => ToolError::io(display, action, err),
        }
    }

    /// The first path from `.codesmith` down to `dir` that exists and is not a directory, as a
    /// workspace-relative display path.
    pub fn not_a_directory(&self, dir: &Path) -> Option<String> {
        let root = self.dir.parent()?;
        let relative = dir.strip_prefix(root).ok()?;
        let mut at = root.to_path_buf();
        for component in relative.components() {
            at.push(component);
            match fs::symlink_metadata(&at) {
                Ok(meta) if !meta.is_dir() => {
                    return Some(at.strip_prefix(root).ok()?.to_string_lossy().into_owned())
                }
                Ok(_) => {}
                Err(_) => return None,
            }
        }
        None
    }

    /// Writes a small state file (under `.codesmith/`) atomically.
    pub fn write_file(&self, relative: &str, bytes: &[u8]) -> io::Result<()> {
        self.ensure_dir()?;
        write_atomically(&self.dir.join(relative), bytes, WriteOptions::STATE_FILE)
    }

    /// Creates `.codesmith/` with a `.gitignore` that keeps it out of version control.
    pub fn ensure_dir(&self) -> io::Result<()> {
        if !self.dir.is_dir() {
            fs::create_dir_all(self.dir.join("sessions"))?;
            fs::write(self.dir.join(".gitignore"), "*\n")?;
        } else {
            fs::create_dir_all(self.dir.join("sessions"))?;
        }
        Ok(())
    }

    /// Stores `text` under `spill/` and returns its path relative to the workspace root. The
    /// name is a hash of the text, so equal outputs name equal files and `output` stays
    /// byte-stable.
    pub fn spill(&self, tool: &str, text: &str) -> io::Result<String> {
        let name = format!("{tool}-{:016x}.txt", xxhash_rust::xxh3::xxh3_64(text.as_bytes()));
        let path = self.dir.join("spill").join(&name);
        if !path.exists() {
            self.ensure_dir()?;
            write_atomically(&path, text.as_bytes(), WriteOptions::STATE_FILE)?;
        }
        Ok(format!(".codesmith/spill/{name}"))
    }
}

/// An exclusive `flock` held until dropped.
pub struct Lock {
    file: fs::File,
}

impl Lock {
    pub fn exclusive(path: &Path) -> io::Result<Lock> {
        Lock::take(path, libc::LOCK_EX)
    }

    /// A lock that other shared holders may hold at the same time, but no exclusive one.
    pub fn shared(path: &Path) -> io::Result<Lock> {
        Lock::take(path, libc::LOCK_SH)
    }

    fn take(path: &Path, operation: libc::c_int) -> io::Result<Lock> {
        let file = fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(path)?;
        // SAFETY: flock on a descriptor we own; it is released when the file is closed.
        let rc = unsafe { libc::flock(file.as_raw_fd(), operation) };
        if rc != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(Lock { file })
    }
}

impl Drop for Lock {
    fn drop(&mut self) {
        // SAFETY: unlocking our own descriptor.
        unsafe {
            libc::flock(self.file.as_raw_fd(), libc::LOCK_UN);
        }
    }
}

/// Refuses a `.codesmith` that is a symlink. The state directory holds the freshness records
/// the edit gates trust and the approvals that unlock commands; through a link it could live
/// outside the workspace, or inside it under another name that the file tools' ban on writing
/// `.codesmith/` does not cover, letting write_file forge a "read" record. State lives in a real
/// directory at the root, so the link has to go (codesmith recreates the directory).
pub fn check_state_dir(dir: &Path) -> Result<(), ToolError> {
    let Ok(meta) = fs::symlink_metadata(dir) else {
        return Ok(());
    };
    if !meta.file_type().is_symlink() {
        return Ok(());
    }
    let target = fs::read_link(dir)
        .map(|t| format!(" (to `{}`)", t.display()))
        .unwrap_or_default();
    Err(ToolError::state_dir_is_symlink(&target))
}

/// The error for a file where codesmith needs a directory of its state.
pub fn not_a_directory_error(display: &str) -> ToolError {
    ToolError::state_not_a_directory(display)
}

/// Checks a session name: it becomes a file name, so only `[A-Za-z0-9._-]`, not starting with `.`.
pub fn check_session_name(name: &str) -> Result<(), ToolError> {
    let ok = !name.is_empty()
        && name.len() <= 64
        && !name.starts_with('.')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
    if ok {
        Ok(())
    } else {
        Err(ToolError::bad_session_name(&name.escape_debug().to_string()))
    }
}

//! Checkpoints: what every changing call did to each path, so it can be undone.
//!
//! Layout under `.codesmith/history/`:
//! - `checkpoints/<id>.<session>.json`: one record per changing call (id, session, tool, time,
//!   a one-line summary, and for each path its state before and after). The id is a workspace
//!   counter, so file names sort oldest first and a session's records are found by name alone.
//! - `blobs/<aa>/<rest>`: file contents, named by their SHA-256, so a content stored twice
//!   (the "after" of one call is the "before" of the next) is stored once.
//! - `state`: the next id, and the count and bytes the retention limits are checked on; its
//!   `flock` serializes id allocation and pruning.
//! - `shadow/`: the private git directory of the exec_shell snapshots (see [`shell`]).
//!
//! A record is written before the change it describes (and removed again if the change fails),
//! so a crash between the two leaves a record whose paths still hold their "before" state,
//! which undo reports as already undone rather than touching.

pub mod blobs;
mod git_index;
pub mod restore;
pub mod retention;
mod scan;
mod shadow;
pub mod shell;
mod watch;

use std::fs;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::error::ToolError;
use crate::session::state::State;

/// One side (before or after) of a path in a checkpoint.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Side {
    /// The SHA-256 of the content (of the link text for a symlink), hex.
    pub blob: String,
    /// Permission bits (`0o7777`).
    pub mode: u32,
    pub size: u64,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub symlink: bool,
}

/// One path a checkpoint changed. `None` on a side: the path did not exist.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Entry {
    /// Workspace-relative, `/`-separated.
    pub path: String,
    pub before: Option<Side>,
    pub after: Option<Side>,
}

impl Entry {
    /// `created`, `deleted` or `modified`.
    pub fn kind(&self) -> &'static str {
        match (&self.before, &self.after) {
            (None, Some(_)) => "created",
            (Some(_), None) => "deleted",
            _ => "modified",
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Checkpoint {
    pub id: u64,
    pub session: String,
    pub tool: String,
    /// Seconds since the Unix epoch.
    pub time: u64,
    pub summary: String,
    pub entries: Vec<Entry>,
    /// The checkpoints this one reverted (an undo).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub undoes: Vec<u64>,
    /// What could not be recorded (paths over the limits).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notices: Vec<String>,
}

/// The content of one side of a change, as the caller has it in memory.
pub struct Content<'a> {
    pub parts: Vec<&'a [u8]>,
    pub mode: u32,
    pub symlink: bool,
}

impl<'a> Content<'a> {
    pub fn file(bytes: &'a [u8], mode: u32) -> Content<'a> {
        Content {
            parts: vec![bytes],
            mode: mode & 0o7777,
            symlink: false,
        }
    }
}

/// One path's change, before it is stored.
pub struct Change<'a> {
    pub path: String,
    pub before: Option<Content<'a>>,
    pub after: Option<Content<'a>>,
}

pub fn history_dir(state: &State) -> PathBuf {
    state.dir().join("history")
}

fn checkpoints_dir(state: &State) -> PathBuf {
    history_dir(state).join("checkpoints")
}

fn record_path(state: &State, id: u64, session: &str) -> PathBuf {
    checkpoints_dir(state).join(format!("{id:010}.{session}.json"))
}

/// Records a file tool's change like [`record`], but a history that cannot be written does not
/// stop the change: the call proceeds, and its result says that undo cannot take it back.
pub fn record_or_notice(state: &State, tool: &str, summary: &str, changes: &[Change]) -> Option<Recorded> {
    match record(state, tool, summary, changes, Vec::new()) {
        Ok(recorded) => Some(recorded),
        Err(err) => {
            state.add_notice(format!(
                "This change was not recorded as a checkpoint, so undo cannot take it back: {}",
                err.message
            ));
            None
        }
    }
}

/// A stored checkpoint whose change may still fail: [`Recorded::discard`] removes it.
pub struct Recorded {
    pub id: u64,
    path: PathBuf,
}

impl Recorded {
    /// Removes the record of a change that did not happen (its blobs go at the next prune).
    pub fn discard(&self) {
        let _ = fs::remove_file(&self.path);
    }
}

fn io_error(state: &State, err: &std::io::Error) -> ToolError {
    let dir = history_dir(state);
    state.io_error(&dir, ".codesmith/history", "record a checkpoint in", err)
}

/// Stores the blobs of `changes` and the checkpoint describing them; returns its id. Applies
/// the retention limits afterwards.
pub fn record(
    state: &State,
    tool: &str,
    summary: &str,
    changes: &[Change],
    notices: Vec<String>,
) -> Result<Recorded, ToolError> {
    record_undo(state, tool, summary, changes, notices, Vec::new())
}

/// [`record`] for a revert of the checkpoints `undoes`.
pub fn record_undo(
    state: &State,
    tool: &str,
    summary: &str,
    changes: &[Change],
    notices: Vec<String>,
    undoes: Vec<u64>,
) -> Result<Recorded, ToolError> {
    let mut entries = Vec::with_capacity(changes.len());
    let mut added = 0u64;
    for change in changes {
        let mut side = |content: &Option<Content>| -> Result<Option<Side>, ToolError> {
            let Some(content) = content else { return Ok(None) };
            let (side, new_bytes) = blobs::store(state, content).map_err(|err| io_error(state, &err))?;
            added += new_bytes;
            Ok(Some(side))
        };
        let before = side(&change.before)?;
        // The "after" is described now and stored by [`store_afters`] once the change is made:
        // nothing reads it before then, and written before, it would ride on the fsync of the
        // user's file.
        let after = change.after.as_ref().map(blobs::describe);
        // Counted as new (an overestimate when it is stored already; pruning counts exactly).
        added += after.as_ref().map_or(0, |a| a.size);
        entries.push(Entry {
            path: change.path.clone(),
            before,
            after,
        });
    }
    let mut checkpoint = Checkpoint {
        id: 0,
        session: state.session_name().to_string(),
        tool: tool.to_string(),
        time: now_secs(),
        summary: one_line(summary),
        entries,
        undoes,
        notices,
    };
    store_checkpoint(state, &mut checkpoint, added)
}

/// Stores the "after" contents of a recorded change, once it is made. A failure only costs a
/// blob nothing reads (undo restores "before" contents; the "after" hash is what it checks).
pub fn store_afters(state: &State, changes: &[Change]) {
    for content in changes.iter().filter_map(|c| c.after.as_ref()) {
        let _ = blobs::store(state, content);
    }
}

/// Allocates an id for `checkpoint`, writes it, and prunes past the limits.
pub fn store_checkpoint(
    state: &State,
    checkpoint: &mut Checkpoint,
    added_bytes: u64,
) -> Result<Recorded, ToolError> {
    let fail = |err: std::io::Error| io_error(state, &err);
    // The directories are made only when missing: once, not on every call.
    let mut file = match retention::UsageFile::open(state) {
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
            fs::create_dir_all(checkpoints_dir(state)).map_err(fail)?;
            retention::UsageFile::open(state)
        }
        opened => opened,
    }
    .map_err(fail)?;
    let usage = &mut file.usage;
    checkpoint.id = usage.next;
    let bytes = serde_json::to_vec(checkpoint).map_err(|err| fail(std::io::Error::other(err)))?;
    let path = record_path(state, checkpoint.id, &checkpoint.session);
    // The id is taken (the counters saved) before the record is written, so a call killed in
    // between leaves a gap, never an id the next call would take again.
    usage.next += 1;
    usage.count += 1;
    usage.bytes += added_bytes + bytes.len() as u64;
    file.save().map_err(fail)?;
    // Created under its final name (the id is fresh and the lock held): a record cut short by a
    // crash does not parse and is skipped, like one never written.
    match write_new(&path, &bytes) {
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
            fs::create_dir_all(checkpoints_dir(state)).map_err(fail)?;
            write_new(&path, &bytes).map_err(fail)?;
        }
        written => written.map_err(fail)?,
    }
    if retention::enforce(state, &mut file.usage, checkpoint.id) {
        file.save().map_err(fail)?;
    }
    Ok(Recorded {
        id: checkpoint.id,
        path,
    })
}

/// Creates `path` with `bytes`; fails if it exists.
pub fn write_new(path: &std::path::Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let mut file = fs::OpenOptions::new().write(true).create_new(true).open(path)?;
    file.write_all(bytes)
}

fn now_secs() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// The first line of `text`, at most 120 characters.
pub fn one_line(text: &str) -> String {
    const MAX: usize = 120;
    let line = text.lines().next().unwrap_or("").trim();
    let mut out: String = line.chars().take(MAX).collect();
    if line.chars().count() > MAX || text.trim().lines().nth(1).is_some() {
        out.push('…');
    }
    out
}

/// The ids and file names of stored checkpoints, oldest first; of one session when given.
pub fn list_ids(state: &State, session: Option<&str>) -> Vec<(u64, String, PathBuf)> {
    let Ok(dir) = fs::read_dir(checkpoints_dir(state)) else {
        return Vec::new();
    };
    let mut ids: Vec<(u64, String, PathBuf)> = dir
        .filter_map(|entry| {
            let entry = entry.ok()?;
            let name = entry.file_name().into_string().ok()?;
            let stem = name.strip_suffix(".json")?;
            let (id, owner) = stem.split_once('.')?;
            let id = id.parse().ok()?;
            (session.is_none_or(|s| s == owner)).then(|| (id, owner.to_string(), entry.path()))
        })
        .collect();
    ids.sort_by_key(|(id, _, _)| *id);
    ids
}

/// Reads one stored checkpoint.
pub fn load(path: &std::path::Path) -> Option<Checkpoint> {
    serde_json::from_slice(&fs::read(path).ok()?).ok()
}

/// The checkpoint with `id`, from any session.
pub fn find(state: &State, id: u64) -> Option<Checkpoint> {
    list_ids(state, None)
        .into_iter()
        .find(|(i, _, _)| *i == id)
        .and_then(|(_, _, path)| load(&path))
}

/// The settings of `[history]` in config.toml.
#[derive(Debug, Clone)]
pub struct Settings {
    pub max_checkpoints: u64,
    pub max_bytes: u64,
    pub shell: bool,
}

impl Settings {
    pub const DEFAULT_MAX_CHECKPOINTS: u64 = 1000;
    pub const DEFAULT_MAX_BYTES: u64 = 512 * 1024 * 1024;

    pub fn load(state: &State) -> Settings {
        let config = crate::session::config::Config::load(state.dir()).unwrap_or_default();
        Settings::from_config(&config)
    }

    pub fn from_config(config: &crate::session::config::Config) -> Settings {
        let section = config.section("history");
        let int = |key: &str, default: u64| {
            section
                .and_then(|s| s.get(key))
                .and_then(toml::Value::as_integer)
                .filter(|n| *n > 0)
                .map_or(default, |n| n as u64)
        };
        Settings {
            max_checkpoints: int("max_checkpoints", Self::DEFAULT_MAX_CHECKPOINTS),
            max_bytes: int("max_bytes", Self::DEFAULT_MAX_BYTES),
            shell: section
                .and_then(|s| s.get("shell"))
                .and_then(toml::Value::as_bool)
                .unwrap_or(true),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summaries_are_one_line() {
        assert_eq!(one_line("edit_file a.txt"), "edit_file a.txt");
        assert_eq!(one_line("make\nmake test"), "make…");
        assert_eq!(one_line(&"x".repeat(200)).chars().count(), 121);
    }
}

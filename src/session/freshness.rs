//! The `not_read` / `stale` gates, over the fingerprints (see
//! [`crate::session::fingerprint`]) a session stores for the files it read.
//!
//! Each fingerprint is its own small file under `sessions/<name>.fp/`, named by a hash of the
//! workspace-relative path: recording and checking are O(1) however many files a session has
//! read, and two parallel reads never rewrite the same file. Every recording and forget is also
//! appended to the session's journal (see `journal`), which tells the shell probe which files
//! were read most recently.

use std::fs;
use std::io;
use std::path::PathBuf;

use crate::error::ToolError;
use crate::fs::workspace::WsPath;
use crate::session::journal;
use crate::session::state::State;

pub use crate::session::fingerprint::{hash_hex, mtime_ns, Fingerprint, Record, HASH_LIMIT};

pub fn record_path(state: &State, display: &str) -> PathBuf {
    let key = xxhash_rust::xxh3::xxh3_64(display.as_bytes());
    state.fingerprint_dir().join(format!("{key:016x}.json"))
}

/// Stores the fingerprint of `path` as this session's knowledge of it, and journals it (the
/// record first, so the probe finds a record behind every journal line).
pub fn record(state: &State, path: &WsPath, fingerprint: Fingerprint) -> Result<(), ToolError> {
    let record = Record {
        path: path.display.clone(),
        fingerprint,
        notified: false,
    };
    let bytes = serde_json::to_vec(&record).unwrap_or_default();
    let target = record_path(state, &path.display);
    let write = || -> io::Result<()> {
        // Re-reading an unchanged file is the common case; it then costs one small read instead
        // of a temp file, a write and a rename (the journal still learns that it is recent).
        if !fs::read(&target).is_ok_and(|stored| stored == bytes) {
            if !state.fingerprint_dir().is_dir() {
                state.ensure_dir()?;
            }
            crate::fs::atomic::write_atomically(
                &target,
                &bytes,
                crate::fs::atomic::WriteOptions::STATE_FILE,
            )?;
        }
        // The record is what the gates trust; a journal that cannot take the line (a full disk)
        // only costs the shell probe this file, and must not fail a read or an edit that is done.
        let _ = journal::append(state, &[journal::Line::recorded(&record, journal::now_ns())]);
        Ok(())
    };
    write().map_err(|err| {
        state.io_error(
            &state.fingerprint_dir(),
            ".codesmith/sessions",
            "record the read in",
            &err,
        )
    })
}

/// Rewrites a stored record (for the `notified` mark).
pub fn store(state: &State, record: &Record) -> Result<(), ToolError> {
    let bytes = serde_json::to_vec(record).unwrap_or_default();
    crate::fs::atomic::write_atomically(
        &record_path(state, &record.path),
        &bytes,
        crate::fs::atomic::WriteOptions::STATE_FILE,
    )
    .map_err(|err| ToolError::io(".codesmith/sessions", "update", &err))
}

/// This session's record for `display`, if it has read that file.
pub fn lookup(state: &State, display: &str) -> Option<Record> {
    let bytes = fs::read(record_path(state, display)).ok()?;
    serde_json::from_slice::<Record>(&bytes)
        .ok()
        .filter(|r| r.path == display)
}

/// Forgets `display` (after a delete, or a rename away from it).
pub fn forget(state: &State, display: &str) {
    if fs::remove_file(record_path(state, display)).is_ok() {
        let _ = journal::append(state, &[journal::Line::forgotten(display, journal::now_ns())]);
    }
}

/// The gate in front of every change to an existing file: the session must have read it, and
/// it must not have changed since. `tool` names the caller in the message.
pub fn check(state: &State, path: &WsPath, tool: crate::tool_id::ToolId) -> Result<(), ToolError> {
    let Some(record) = lookup(state, &path.display) else {
        // Reads cannot be recorded while a file sits where the records go: asking for another
        // read would loop, so the broken path is named instead.
        if let Some(blocker) = state.not_a_directory(&state.fingerprint_dir()) {
            return Err(crate::session::state::not_a_directory_error(&blocker));
        }
        return Err(ToolError::not_read(&path.file_ref(), tool));
    };
    let current = Fingerprint::of_file(&path.abs)
        .map_err(|err| ToolError::io(&path.display, "check the freshness of", &err))?;
    if !current.same_content(&record.fingerprint) {
        return Err(ToolError::stale(&path.file_ref(), tool));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn record_round_trips() {
        let record = Record {
            path: "a.txt".into(),
            fingerprint: Fingerprint {
                mtime_ns: 1_795_979_451_361_530_596,
                len: 19,
                hash: Some("c20414764d8c08ce".into()),
            },
            notified: false,
        };
        let bytes = serde_json::to_vec(&record).unwrap();
        let back: Record = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(back.fingerprint, record.fingerprint);
        assert_eq!(back.path, "a.txt");
    }
}

//! Freshness fingerprints and the `not_read` / `stale` gates.
//!
//! A fingerprint is the file's mtime (nanoseconds), its length and a content hash. mtime and
//! length alone miss a same-size rewrite within one mtime tick, or one that restores the old
//! mtime; the hash catches both. Files over [`HASH_LIMIT`] are fingerprinted by mtime and
//! length only, so reading one page of a huge log stays cheap.
//!
//! Each fingerprint is its own small file under `sessions/<name>.fp/`, named by a hash of the
//! workspace-relative path: recording and checking are O(1) however many files a session has
//! read, and two parallel reads never rewrite the same file. Every recording and forget is also
//! appended to the session's journal (see `journal`), which tells the shell probe which files
//! were read most recently.

use std::fs;
use std::io::{self, Read};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::ToolError;
use crate::journal;
use crate::state::State;
use crate::workspace::WsPath;

/// Files larger than this are fingerprinted without a content hash.
pub const HASH_LIMIT: u64 = 256 * 1024 * 1024;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fingerprint {
    pub mtime_ns: i128,
    pub len: u64,
    /// xxh3-64 of the content, hex; `None` for files over [`HASH_LIMIT`].
    pub hash: Option<String>,
}

/// What is stored for one file a session has read.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(from = "RecordWire", into = "RecordWire")]
pub struct Record {
    pub path: String,
    pub fingerprint: Fingerprint,
    /// Set once a "changed since read" notice was given for this fingerprint; a re-read clears it.
    pub notified: bool,
}

/// The stored form of a [`Record`], flat. (`#[serde(flatten)]` cannot carry the `i128` mtime:
/// flattened fields pass through serde's buffered content, which has no 128-bit integers, so
/// every lookup failed and every file looked unread.)
#[derive(Serialize, Deserialize)]
struct RecordWire {
    path: String,
    mtime_ns: i128,
    len: u64,
    hash: Option<String>,
    #[serde(default)]
    notified: bool,
}

impl From<RecordWire> for Record {
    fn from(wire: RecordWire) -> Record {
        Record {
            path: wire.path,
            fingerprint: Fingerprint {
                mtime_ns: wire.mtime_ns,
                len: wire.len,
                hash: wire.hash,
            },
            notified: wire.notified,
        }
    }
}

impl From<Record> for RecordWire {
    fn from(record: Record) -> RecordWire {
        RecordWire {
            path: record.path,
            mtime_ns: record.fingerprint.mtime_ns,
            len: record.fingerprint.len,
            hash: record.fingerprint.hash,
            notified: record.notified,
        }
    }
}

pub fn mtime_ns(meta: &fs::Metadata) -> i128 {
    meta.mtime() as i128 * 1_000_000_000 + meta.mtime_nsec() as i128
}

pub fn hash_hex(bytes: &[u8]) -> String {
    format!("{:016x}", xxhash_rust::xxh3::xxh3_64(bytes))
}

impl Fingerprint {
    /// The fingerprint of content already in memory, with the metadata it was read under.
    pub fn of_content(meta: &fs::Metadata, content: &[u8]) -> Fingerprint {
        Fingerprint {
            mtime_ns: mtime_ns(meta),
            len: meta.len(),
            hash: (meta.len() <= HASH_LIMIT).then(|| hash_hex(content)),
        }
    }

    /// Whether two fingerprints describe the same content. With a hash on both sides the
    /// content decides: a file rewritten with identical bytes (`git checkout`, a formatter with
    /// nothing to change, `touch`) is still exactly what the session read, so refusing it as
    /// stale would only cost a pointless re-read. Without a hash (files over [`HASH_LIMIT`]),
    /// mtime and length decide.
    pub fn same_content(&self, other: &Fingerprint) -> bool {
        match (&self.hash, &other.hash) {
            (Some(a), Some(b)) => a == b && self.len == other.len,
            _ => self == other,
        }
    }

    /// The current fingerprint of the file on disk.
    pub fn of_file(path: &Path) -> io::Result<Fingerprint> {
        let mut file = fs::File::open(path)?;
        let meta = file.metadata()?;
        if meta.len() > HASH_LIMIT {
            return Ok(Fingerprint {
                mtime_ns: mtime_ns(&meta),
                len: meta.len(),
                hash: None,
            });
        }
        let mut content = Vec::with_capacity(meta.len() as usize);
        file.read_to_end(&mut content)?;
        Ok(Fingerprint::of_content(&meta, &content))
    }
}

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
            crate::atomic::write_atomically(&target, &bytes, crate::atomic::WriteOptions::STATE_FILE)?;
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
    crate::atomic::write_atomically(
        &record_path(state, &record.path),
        &bytes,
        crate::atomic::WriteOptions::STATE_FILE,
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
pub fn check(state: &State, path: &WsPath, tool: &str) -> Result<(), ToolError> {
    let Some(record) = lookup(state, &path.display) else {
        // Reads cannot be recorded while a file sits where the records go: asking for another
        // read would loop, so the broken path is named instead.
        if let Some(blocker) = state.not_a_directory(&state.fingerprint_dir()) {
            return Err(crate::state::not_a_directory_error(&blocker));
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

//! The shell probe: after a command finished, every file this session has read is re-stat'ed,
//! so the model learns that a formatter, a code generator or a `git checkout` changed a file it
//! is holding in context before it edits from a stale copy.
//!
//! Cost: one `stat` per file read. The records themselves (one small file each, see
//! `freshness`) are not re-read on every probe: a session-wide index
//! (`sessions/<name>.probe.json`) holds them with the time each was recorded, and is rebuilt only
//! when the record directory changed (a read, a write or a mark renames a file into it, which
//! moves the directory's mtime) — or when that mtime is too recent to be trusted, since two
//! changes within one timestamp tick leave it equal.
//!
//! The content is hashed only when mtime and length are equal but cannot be trusted: when the
//! file's recorded mtime lies within [`SAME_TICK_NS`] of the moment the read was recorded (a
//! rewrite in the same tick keeps the mtime), or when the inode changed after its mtime (ctime
//! past mtime: `touch -r` restoring an mtime).
//!
//! Once per drift: a drifted record is marked `notified` and gives no second notice until a
//! re-read records a fresh fingerprint (which clears the mark).

use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::freshness::{self, Fingerprint, Record};
use crate::state::State;

/// Timestamps this close are treated as possibly the same filesystem tick.
const SAME_TICK_NS: i128 = 2_000_000_000;
/// At most this many paths are named in the notice.
pub const NOTICE_PATHS: usize = 5;

#[derive(Debug, PartialEq, Eq)]
enum Drift {
    Changed,
    Deleted,
}

/// One record with the time it was written (the record file's mtime).
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Entry {
    record: Record,
    recorded_at_ns: i128,
    /// The file's ctime when a hash last confirmed the content, at least a tick after its last
    /// change: while the ctime stays the same, nothing wrote the file since, so no new hash is
    /// needed.
    #[serde(default)]
    verified_ctime_ns: Option<i128>,
}

#[derive(Debug, Serialize, Deserialize)]
struct Index {
    /// The record directory's mtime when the index was built.
    dir_mtime_ns: i128,
    built_at_ns: i128,
    entries: Vec<Entry>,
}

/// Re-checks the session's read files; returns the notice for newly drifted ones, if any.
pub fn probe(state: &State, root: &Path) -> Option<String> {
    let mut drifted: Vec<(Record, Drift)> = Vec::new();
    let (mut index, mut dirty) = load_index(state)?;
    let root_dir = RootDir::open(root);
    let now = now_ns();
    for entry in index.entries.iter_mut() {
        if entry.record.notified {
            continue;
        }
        let abs = root.join(&entry.record.path);
        match drift_of(&root_dir, &abs, entry, now) {
            Check::Drifted(drift) => drifted.push((entry.record.clone(), drift)),
            Check::Verified(ctime_ns) => {
                entry.verified_ctime_ns = Some(ctime_ns);
                dirty = true;
            }
            Check::Same => {}
        }
    }
    if dirty {
        save_index(state, &index);
    }
    if drifted.is_empty() {
        return None;
    }
    for (record, _) in &drifted {
        // Only a record still holding the fingerprint we judged is marked: a re-read that
        // happened meanwhile stays armed.
        let current = freshness::lookup(state, &record.path);
        if current.is_some_and(|c| c.fingerprint == record.fingerprint && !c.notified) {
            let mut marked = record.clone();
            marked.notified = true;
            let _ = freshness::store(state, &marked);
        }
    }
    Some(notice(&drifted))
}

fn index_path(state: &State) -> PathBuf {
    state
        .dir()
        .join("sessions")
        .join(format!("{}.probe.json", state.session_name()))
}

fn now_ns() -> i128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as i128)
        .unwrap_or(0)
}

/// The session's index: the stored one while the record directory has not changed, else rebuilt
/// from the records (keeping what earlier probes verified). `None` when nothing was read. The
/// flag says the index must be saved.
fn load_index(state: &State) -> Option<(Index, bool)> {
    let dir = state.fingerprint_dir();
    let dir_mtime_ns = freshness::mtime_ns(&fs::metadata(&dir).ok()?);
    let old = fs::read(index_path(state))
        .ok()
        .and_then(|bytes| serde_json::from_slice::<Index>(&bytes).ok());
    if let Some(index) = &old {
        if index.dir_mtime_ns == dir_mtime_ns && index.built_at_ns - dir_mtime_ns > SAME_TICK_NS {
            return old.map(|index| (index, false));
        }
    }
    let verified: std::collections::HashMap<&str, (&Fingerprint, i128)> = old
        .iter()
        .flat_map(|index| index.entries.iter())
        .filter_map(|e| {
            Some((
                e.record.path.as_str(),
                (&e.record.fingerprint, e.verified_ctime_ns?),
            ))
        })
        .collect();
    let mut entries: Vec<Entry> = fs::read_dir(&dir)
        .map(|listing| {
            listing
                .filter_map(|e| e.ok())
                .filter(|e| e.file_name().to_string_lossy().ends_with(".json"))
                .filter_map(|e| {
                    let recorded_at_ns = freshness::mtime_ns(&e.metadata().ok()?);
                    let record = serde_json::from_slice::<Record>(&fs::read(e.path()).ok()?).ok()?;
                    let verified_ctime_ns = verified
                        .get(record.path.as_str())
                        .filter(|(fp, _)| **fp == record.fingerprint)
                        .map(|(_, ctime)| *ctime);
                    Some(Entry {
                        record,
                        recorded_at_ns,
                        verified_ctime_ns,
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    entries.sort_by(|a, b| a.record.path.cmp(&b.record.path));
    Some((
        Index {
            dir_mtime_ns,
            built_at_ns: now_ns(),
            entries,
        },
        true,
    ))
}

fn save_index(state: &State, index: &Index) {
    if let Ok(bytes) = serde_json::to_vec(index) {
        let _ = crate::atomic::write_atomically(
            &index_path(state),
            &bytes,
            crate::atomic::WriteOptions::STATE_FILE,
        );
    }
}

enum Check {
    Same,
    /// Same, confirmed by a hash that can be trusted from now on while the ctime stays.
    Verified(i128),
    Drifted(Drift),
}

/// What the probe needs of a file's status.
struct Stat {
    is_file: bool,
    mtime_ns: i128,
    ctime_ns: i128,
    len: u64,
}

/// The workspace root held open, so each probe `stat` walks only the workspace-relative part of
/// the path (the walk dominates the probe's cost in a large session).
struct RootDir {
    fd: Option<std::os::fd::OwnedFd>,
}

impl RootDir {
    fn open(root: &Path) -> RootDir {
        use std::os::fd::FromRawFd;
        use std::os::unix::ffi::OsStrExt;
        let fd = std::ffi::CString::new(root.as_os_str().as_bytes())
            .ok()
            .and_then(|path| {
                // SAFETY: opening a directory path we own as a C string; the fd is owned below.
                let fd =
                    unsafe { libc::open(path.as_ptr(), libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC) };
                // SAFETY: a fresh descriptor owned by nobody else.
                (fd >= 0).then(|| unsafe { std::os::fd::OwnedFd::from_raw_fd(fd) })
            });
        RootDir { fd }
    }

    /// `stat` of a record's path (workspace-relative, or absolute under a trusted root).
    fn stat(&self, relative: &str, abs: &Path) -> Option<Stat> {
        use std::os::fd::AsRawFd;
        let Some(fd) = &self.fd else {
            return fs::metadata(abs).ok().map(|meta| Stat {
                is_file: meta.is_file(),
                mtime_ns: freshness::mtime_ns(&meta),
                ctime_ns: meta.ctime() as i128 * 1_000_000_000 + meta.ctime_nsec() as i128,
                len: meta.len(),
            });
        };
        let path = std::ffi::CString::new(relative).ok()?;
        // SAFETY: `st` is written by fstatat before it is read; the path is a valid C string.
        let st = unsafe {
            let mut st: libc::stat = std::mem::zeroed();
            if libc::fstatat(fd.as_raw_fd(), path.as_ptr(), &mut st, 0) != 0 {
                return None;
            }
            st
        };
        Some(Stat {
            is_file: st.st_mode & libc::S_IFMT == libc::S_IFREG,
            mtime_ns: st.st_mtime as i128 * 1_000_000_000 + st.st_mtime_nsec as i128,
            ctime_ns: st.st_ctime as i128 * 1_000_000_000 + st.st_ctime_nsec as i128,
            len: st.st_size as u64,
        })
    }
}

fn drift_of(root: &RootDir, abs: &Path, entry: &Entry, now: i128) -> Check {
    let Some(stat) = root.stat(&entry.record.path, abs) else {
        return Check::Drifted(Drift::Deleted);
    };
    if !stat.is_file {
        return Check::Drifted(Drift::Deleted);
    }
    let recorded = &entry.record.fingerprint;
    if stat.mtime_ns != recorded.mtime_ns || stat.len != recorded.len {
        return Check::Drifted(Drift::Changed);
    }
    if recorded.hash.is_none() || !uncertain(&stat, entry) {
        return Check::Same;
    }
    match Fingerprint::of_file(abs) {
        Ok(current) if current == *recorded => {
            // A tick after the last change, a later write would move the ctime.
            if now - stat.ctime_ns > SAME_TICK_NS && now - stat.mtime_ns > SAME_TICK_NS {
                Check::Verified(stat.ctime_ns)
            } else {
                Check::Same
            }
        }
        Ok(_) => Check::Drifted(Drift::Changed),
        Err(_) => Check::Drifted(Drift::Deleted),
    }
}

fn uncertain(stat: &Stat, entry: &Entry) -> bool {
    if entry.verified_ctime_ns == Some(stat.ctime_ns) {
        return false;
    }
    let mtime_ns = entry.record.fingerprint.mtime_ns;
    stat.ctime_ns > mtime_ns + SAME_TICK_NS || (entry.recorded_at_ns - mtime_ns).abs() < SAME_TICK_NS
}

fn notice(drifted: &[(Record, Drift)]) -> String {
    let shown: Vec<String> = drifted
        .iter()
        .take(NOTICE_PATHS)
        .map(|(record, drift)| match drift {
            Drift::Changed => format!("{} (changed)", record.path),
            Drift::Deleted => format!("{} (deleted)", record.path),
        })
        .collect();
    let more = drifted.len().saturating_sub(NOTICE_PATHS);
    let tail = if more > 0 {
        format!(" and {more} more")
    } else {
        String::new()
    };
    let first = &drifted[0].0.path;
    format!(
        "Files you read changed on disk since: {}{tail}. Your copy of them is stale: call read_file \
         on them (e.g. read_file with path=\"{first}\") before editing them.",
        shown.join(", ")
    )
}

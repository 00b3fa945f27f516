//! The shell probe: after a command finished, every file this session has read is re-stat'ed,
//! so the model learns that a formatter, a code generator or a `git checkout` changed a file it
//! is holding in context before it edits from a stale copy.
//!
//! Cost: one `stat` per file read. The content is hashed only when mtime and length are equal
//! but cannot be trusted: when the file's recorded mtime lies within [`SAME_TICK`] of the moment
//! the read was recorded (a rewrite in the same timestamp tick keeps the mtime), or when the
//! inode changed after its mtime (ctime past mtime: `touch -r` restoring an mtime, a chmod).
//!
//! Once per drift: a drifted record is marked `notified` and gives no second notice until a
//! re-read records a fresh fingerprint (which clears the mark).

use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

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

/// Re-checks the session's read files; returns the notice for newly drifted ones, if any.
pub fn probe(state: &State, root: &Path) -> Option<String> {
    let mut drifted: Vec<(Record, Drift)> = Vec::new();
    for record in freshness::all(state) {
        if record.notified {
            continue;
        }
        let abs = root.join(&record.path);
        if let Some(drift) = drift_of(state, &abs, &record) {
            drifted.push((record, drift));
        }
    }
    if drifted.is_empty() {
        return None;
    }
    for (record, _) in &drifted {
        let mut marked = record.clone();
        marked.notified = true;
        let _ = freshness::store(state, &marked);
    }
    Some(notice(&drifted))
}

fn drift_of(state: &State, abs: &Path, record: &Record) -> Option<Drift> {
    let meta = match fs::metadata(abs) {
        Ok(meta) => meta,
        Err(_) => return Some(Drift::Deleted),
    };
    if !meta.is_file() {
        return Some(Drift::Deleted);
    }
    let recorded = &record.fingerprint;
    if freshness::mtime_ns(&meta) != recorded.mtime_ns || meta.len() != recorded.len {
        return Some(Drift::Changed);
    }
    if recorded.hash.is_none() || !uncertain(state, &meta, record) {
        return None;
    }
    match Fingerprint::of_file(abs) {
        Ok(current) if current == *recorded => None,
        Ok(_) => Some(Drift::Changed),
        Err(_) => Some(Drift::Deleted),
    }
}

fn uncertain(state: &State, meta: &fs::Metadata, record: &Record) -> bool {
    let ctime_ns = meta.ctime() as i128 * 1_000_000_000 + meta.ctime_nsec() as i128;
    if ctime_ns > record.fingerprint.mtime_ns + SAME_TICK_NS {
        return true;
    }
    // When was the read recorded? The record file's own mtime says so.
    let recorded_at = fs::metadata(freshness::record_path(state, &record.path))
        .map(|m| freshness::mtime_ns(&m))
        .unwrap_or(i128::MAX);
    (recorded_at - record.fingerprint.mtime_ns).abs() < SAME_TICK_NS
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

//! Retention: the history is bounded by a count of checkpoints and by the bytes its blobs and
//! records take (`[history] max_checkpoints`, `max_bytes`). Past either, the oldest checkpoints
//! are pruned, then every blob no remaining checkpoint refers to. Pruning goes down to 90% of
//! the limit, so it runs once in a while, not on every call.

use std::collections::HashMap;
use std::fs;

use serde::{Deserialize, Serialize};

use super::Settings;
use crate::session::state::State;

/// The counters kept in `history/state` (see [`UsageFile`]).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Usage {
    pub next: u64,
    pub count: u64,
    pub bytes: u64,
}

/// `history/state`: the counters, rewritten in place under an exclusive `flock` on the file
/// itself. In place, not by temp file and rename: every changing call updates it, and an fsync
/// of the user's file right after pays for every directory change made before it. A torn or
/// unreadable file is rebuilt from the records.
pub struct UsageFile {
    file: fs::File,
    pub usage: Usage,
}

impl UsageFile {
    pub fn open(state: &State) -> std::io::Result<UsageFile> {
        use std::io::Read;
        use std::os::unix::io::AsRawFd;
        let mut file = fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(super::history_dir(state).join("state"))?;
        // SAFETY: flock on a descriptor we own; released when the file is closed.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) } != 0 {
            return Err(std::io::Error::last_os_error());
        }
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes)?;
        let usage = serde_json::from_slice(&bytes).unwrap_or_else(|_| recount(state));
        Ok(UsageFile { file, usage })
    }

    /// Writes the counters back (the lock is released when this is dropped).
    pub fn save(&self) -> std::io::Result<()> {
        use std::os::unix::fs::FileExt;
        let mut bytes = serde_json::to_vec(&self.usage).map_err(std::io::Error::other)?;
        // Padded to a fixed width, so a shorter record never leaves a tail to truncate.
        bytes.resize(bytes.len().max(96), b' ');
        self.file.write_all_at(&bytes, 0)
    }
}

/// Counters rebuilt from the files (a missing or broken `state`).
fn recount(state: &State) -> Usage {
    let ids = super::list_ids(state, None);
    let next = ids.last().map_or(1, |(id, _, _)| id + 1);
    let mut usage = Usage {
        next,
        count: ids.len() as u64,
        bytes: 0,
    };
    usage.bytes = referenced(&ids).1;
    usage
}

/// The blobs the checkpoints refer to, with sizes, and the total bytes (blobs and records).
fn referenced(ids: &[(u64, String, std::path::PathBuf)]) -> (HashMap<String, u64>, u64) {
    let mut blobs = HashMap::new();
    let mut total = 0;
    for (_, _, path) in ids {
        total += fs::metadata(path).map_or(0, |m| m.len());
        for side in super::load(path).iter().flat_map(sides) {
            if blobs.insert(side.blob.clone(), side.size).is_none() {
                total += side.size;
            }
        }
    }
    (blobs, total)
}

fn sides(checkpoint: &super::Checkpoint) -> Vec<super::Side> {
    checkpoint
        .entries
        .iter()
        .flat_map(|e| e.before.iter().chain(e.after.iter()))
        .cloned()
        .collect()
}

/// Prunes when `usage` is over a limit; never the checkpoint `keep`.
pub fn enforce(state: &State, usage: &mut Usage, keep: u64) -> bool {
    let settings = Settings::load(state);
    if usage.count <= settings.max_checkpoints && usage.bytes <= settings.max_bytes {
        return false;
    }
    prune(state, usage, &settings, keep);
    true
}

fn prune(state: &State, usage: &mut Usage, settings: &Settings, keep: u64) {
    let count_goal = settings.max_checkpoints - settings.max_checkpoints / 10;
    let bytes_goal = settings.max_bytes - settings.max_bytes / 10;
    let mut records: Vec<(u64, std::path::PathBuf, u64, Vec<super::Side>)> = super::list_ids(state, None)
        .into_iter()
        .map(|(id, _, path)| {
            let len = fs::metadata(&path).map_or(0, |m| m.len());
            let sides = super::load(&path).map(|c| sides(&c)).unwrap_or_default();
            (id, path, len, sides)
        })
        .collect();
    let mut refs: HashMap<String, (u64, u64)> = HashMap::new();
    let mut total = 0u64;
    for (_, _, len, sides) in &records {
        total += len;
        for side in sides {
            let slot = refs.entry(side.blob.clone()).or_insert((0, side.size));
            if slot.0 == 0 {
                total += side.size;
            }
            slot.0 += 1;
        }
    }
    let mut removed = 0;
    for (id, path, len, sides) in &records {
        let count = records.len() - removed;
        if *id == keep || (count as u64 <= count_goal && total <= bytes_goal) {
            break;
        }
        if fs::remove_file(path).is_err() {
            break;
        }
        removed += 1;
        total -= len;
        for side in sides {
            if let Some(slot) = refs.get_mut(&side.blob) {
                slot.0 -= 1;
                if slot.0 == 0 {
                    total -= slot.1;
                }
            }
        }
    }
    records.drain(..removed);
    collect_garbage(state, &refs);
    super::shadow::prune_shadow(state);
    usage.count = records.len() as u64;
    usage.bytes = total;
}

/// Removes every blob no checkpoint refers to (also those of records that were discarded).
fn collect_garbage(state: &State, refs: &HashMap<String, (u64, u64)>) {
    let Ok(heads) = fs::read_dir(super::history_dir(state).join("blobs")) else {
        return;
    };
    for head in heads.flatten() {
        let head_name = head.file_name().to_string_lossy().into_owned();
        let Ok(files) = fs::read_dir(head.path()) else {
            continue;
        };
        for file in files.flatten() {
            let hash = format!("{head_name}{}", file.file_name().to_string_lossy());
            // A blob written in the last minute may belong to a record still being written.
            let young = file
                .metadata()
                .and_then(|m| m.modified())
                .is_ok_and(|t| t.elapsed().is_ok_and(|age| age.as_secs() < 60) || t.elapsed().is_err());
            if !young && refs.get(&hash).is_none_or(|(count, _)| *count == 0) {
                let _ = fs::remove_file(file.path());
            }
        }
    }
}

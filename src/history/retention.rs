//! Retention: the history is bounded by a count of checkpoints and by the bytes its blobs and
//! records take (`[history] max_checkpoints`, `max_bytes`). Past either, the oldest checkpoints
//! are pruned, then every blob no remaining checkpoint refers to. Pruning goes down to 90% of
//! the limit, so it runs once in a while, not on every call.

use std::collections::HashMap;
use std::fs;

use serde::{Deserialize, Serialize};

use super::Settings;
use crate::state::State;

/// The counters kept in `history/state.json` (rewritten under the history lock).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Usage {
    pub next: u64,
    pub count: u64,
    pub bytes: u64,
}

impl Usage {
    pub fn load(state: &State) -> Usage {
        let path = super::history_dir(state).join("state.json");
        fs::read(path)
            .ok()
            .and_then(|bytes| serde_json::from_slice(&bytes).ok())
            .unwrap_or_else(|| recount(state))
    }

    pub fn save(&self, state: &State) -> std::io::Result<()> {
        let bytes = serde_json::to_vec(self).map_err(std::io::Error::other)?;
        crate::atomic::write_atomically(
            &super::history_dir(state).join("state.json"),
            &bytes,
            crate::atomic::WriteOptions::STATE_FILE,
        )
    }
}

/// Counters rebuilt from the files (a missing or broken `state.json`).
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
pub fn enforce(state: &State, usage: &mut Usage, keep: u64) {
    let settings = Settings::load(state);
    if usage.count <= settings.max_checkpoints && usage.bytes <= settings.max_bytes {
        return;
    }
    prune(state, usage, &settings, keep);
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
    super::shell::prune_shadow(state);
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

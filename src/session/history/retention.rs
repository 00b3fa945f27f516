//! Retention: the history is bounded by a count of checkpoints and by the bytes its blobs and
//! records take in the pack (`[history] max_checkpoints`, `max_bytes`). Past either, the oldest
//! checkpoints are pruned, down to 90% of the limit, so it runs once in a while, not on every
//! call. Pruning copies nothing: the index is rewritten with the entries the kept checkpoints
//! need (records, and the blobs they refer to), and the pack's other bytes are given back to
//! the file system by punching holes, so every kept item stays where it is. Where the file
//! system cannot punch holes, the kept items are copied into the next generation's pack,
//! `state` is switched to it, and the old pair is removed.

use std::collections::{HashMap, HashSet};
use std::fs;
use std::io;

use super::pack::{self, Entry, Item, Kind, Pack, Store};
use super::{blobs, Checkpoint, Settings};
use crate::session::state::State;

/// Prunes when the history in `store` is over a limit; never the checkpoint `keep`.
pub fn enforce(state: &State, store: &mut Store, keep: u64) -> io::Result<()> {
    let settings = Settings::load(state);
    let count = store.pack.record_count() as u64;
    if count <= settings.max_checkpoints && store.pack.live_bytes() <= settings.max_bytes {
        return Ok(());
    }
    prune(store, &settings, keep)?;
    super::shadow::prune_shadow(state);
    Ok(())
}

/// A kept record: its entry, bytes and what it says.
struct Kept {
    entry: Entry,
    bytes: Vec<u8>,
    checkpoint: Checkpoint,
}

fn prune(store: &mut Store, settings: &Settings, keep: u64) -> io::Result<()> {
    let count_goal = settings.max_checkpoints - settings.max_checkpoints / 10;
    let bytes_goal = settings.max_bytes - settings.max_bytes / 10;
    // Records that do not read or parse (cut short by a crash) are dropped.
    let mut records: Vec<Kept> = store
        .pack
        .records()
        .into_iter()
        .filter_map(|entry| {
            let bytes = store.pack.read(&entry).ok()?;
            let checkpoint = serde_json::from_slice(&bytes).ok()?;
            Some(Kept {
                entry,
                bytes,
                checkpoint,
            })
        })
        .collect();
    records.sort_by_key(|r| r.checkpoint.id);
    let first_kept = first_kept(&records, count_goal, bytes_goal, keep);
    let records = &records[first_kept..];
    let live = needed_entries(&store.pack, records);
    let dir = store.dir.clone();
    // The index first: a crash after it leaves unused bytes, never an entry whose bytes are
    // gone (they would be found again by a lookup and stored nowhere).
    store.pack.replace_index(&dir, store.usage.generation, &live)?;
    match store.pack.release_unused() {
        Err(err) if err.kind() == io::ErrorKind::Unsupported => copy_into_next_generation(store, records),
        released => released,
    }
}

/// The entries `records` need: their own, and the first of each blob they refer to.
fn needed_entries(pack: &Pack, records: &[Kept]) -> Vec<Entry> {
    let ids: HashSet<u64> = records.iter().map(|r| r.entry.id).collect();
    let blobs: HashSet<[u8; 32]> = records
        .iter()
        .flat_map(|r| sides(&r.checkpoint))
        .filter_map(|side| blobs::from_hex(&side.blob))
        .collect();
    let mut seen = HashSet::new();
    pack.entries()
        .filter(|e| match e.kind {
            Kind::Blob => blobs.contains(&e.hash) && seen.insert(e.hash),
            Kind::Record => ids.contains(&e.id),
            Kind::Discard => false,
        })
        .collect()
}

/// Copies `records` and their blobs into the next generation's pair and switches to it.
fn copy_into_next_generation(store: &mut Store, records: &[Kept]) -> io::Result<()> {
    let dir = store.dir.clone();
    let next = store.usage.generation + 1;
    // Left by a prune that was killed before it switched `state`.
    let _ = fs::remove_file(pack::pack_path(&dir, next));
    let _ = fs::remove_file(pack::index_path(&dir, next));
    let mut fresh = Pack::open(&dir, next, true)?;
    let mut stored: HashMap<[u8; 32], Entry> = HashMap::new();
    for entry in store.pack.entries().filter(|e| e.kind == Kind::Blob) {
        stored.entry(entry.hash).or_insert(entry);
    }
    let mut copied = HashSet::new();
    for record in records {
        copy_record(&store.pack, &stored, &mut fresh, record, &mut copied)?;
    }
    let old = store.usage.generation;
    store.usage.generation = next;
    store.save()?;
    store.pack = fresh;
    let _ = fs::remove_file(pack::pack_path(&dir, old));
    let _ = fs::remove_file(pack::index_path(&dir, old));
    Ok(())
}

/// How many of `records` (oldest first) go: the oldest, until both goals are met, never `keep`.
fn first_kept(records: &[Kept], count_goal: u64, bytes_goal: u64, keep: u64) -> usize {
    let mut refs: HashMap<&str, (u64, u64)> = HashMap::new();
    let mut total = 0u64;
    for record in records {
        total += record.bytes.len() as u64;
        for side in stored_sides(&record.checkpoint) {
            let slot = refs.entry(&side.blob).or_insert((0, side.size));
            if slot.0 == 0 {
                total += side.size;
            }
            slot.0 += 1;
        }
    }
    let mut removed = 0;
    for record in records {
        let count = (records.len() - removed) as u64;
        if record.checkpoint.id == keep || (count <= count_goal && total <= bytes_goal) {
            break;
        }
        removed += 1;
        total -= record.bytes.len() as u64;
        for side in stored_sides(&record.checkpoint) {
            if let Some(slot) = refs.get_mut(side.blob.as_str()) {
                slot.0 -= 1;
                if slot.0 == 0 {
                    total -= slot.1;
                }
            }
        }
    }
    removed
}

/// The sides whose bytes a checkpoint stores: its "before" states (an "after" is a hash).
fn stored_sides(checkpoint: &Checkpoint) -> impl Iterator<Item = &super::Side> {
    checkpoint.entries.iter().flat_map(|e| e.before.iter())
}

/// Every side a checkpoint names; a history written before "after" states were kept as hashes
/// holds their bytes too, which pruning keeps while the checkpoint is kept.
fn sides(checkpoint: &Checkpoint) -> impl Iterator<Item = &super::Side> {
    checkpoint
        .entries
        .iter()
        .flat_map(|e| e.before.iter().chain(e.after.iter()))
}

/// Appends `record` to `fresh`, after the blobs it refers to that are not copied yet.
fn copy_record(
    old: &Pack,
    stored: &HashMap<[u8; 32], Entry>,
    fresh: &mut Pack,
    record: &Kept,
    copied: &mut HashSet<[u8; 32]>,
) -> io::Result<()> {
    let mut blobs = Vec::new();
    for side in sides(&record.checkpoint) {
        let Some(digest) = blobs::from_hex(&side.blob) else {
            continue;
        };
        if !copied.insert(digest) {
            continue;
        }
        // A blob missing from the pack stays missing: undo reports it when it needs it.
        if let Some(entry) = stored.get(&digest) {
            blobs.push((digest, old.read(entry)?));
        }
    }
    let mut items: Vec<Item> = blobs
        .iter()
        .map(|(digest, bytes)| Item {
            kind: Kind::Blob,
            hash: *digest,
            id: 0,
            parts: vec![bytes.as_slice()],
        })
        .collect();
    items.push(Item {
        kind: Kind::Record,
        hash: record.entry.hash,
        id: record.entry.id,
        parts: vec![record.bytes.as_slice()],
    });
    fresh.append(&items)
}

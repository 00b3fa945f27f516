//! The history's storage: one append-only pack of contents and records, and its index.
//!
//! `pack-<generation>` holds blob contents and checkpoint records (JSON) back to back;
//! `index-<generation>` holds one fixed-size entry per item (what it is, the hash of its
//! bytes, where they are in the pack, the checkpoint id of a record), in the order they were
//! appended. A call appends to two files that exist already: it creates no file and no
//! directory, so the journal commit that the fsync of the user's file pays for stays small.
//!
//! Every append happens under the exclusive lock on `state` (see [`Store`]), at offsets taken
//! from the files' own sizes: bytes left by a writer killed midway are skipped, never built
//! upon, and an index entry is written only after the bytes it points to. Reads check each
//! blob against its hash. Pruning rewrites the index (temp file and rename) and punches holes
//! where the pruned bytes were; where it cannot, it writes the kept items into the next
//! generation's pair and then switches `state` to it (see `retention`).

use std::fs;
use std::io::{self, Read};
use std::os::unix::fs::FileExt;
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The size of one index entry.
const ENTRY_LEN: usize = 64;

/// What an index entry describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A file's content (or a symlink's text).
    Blob = 1,
    /// A checkpoint's record, as JSON.
    Record = 2,
    /// The checkpoint `id` is withdrawn: its change was not made.
    Discard = 3,
}

/// One index entry: `[0..32]` the hash (see [`super::blobs`]), `[32..40]` offset, `[40..48]` length, `[48..56]`
/// checkpoint id (little-endian), `[56]` kind; the rest is zero.
#[derive(Debug, Clone, Copy)]
pub struct Entry {
    pub kind: Kind,
    pub hash: [u8; 32],
    pub offset: u64,
    pub len: u64,
    pub id: u64,
}

impl Entry {
    fn encode(&self) -> [u8; ENTRY_LEN] {
        let mut out = [0u8; ENTRY_LEN];
        out[..32].copy_from_slice(&self.hash);
        out[32..40].copy_from_slice(&self.offset.to_le_bytes());
        out[40..48].copy_from_slice(&self.len.to_le_bytes());
        out[48..56].copy_from_slice(&self.id.to_le_bytes());
        out[56] = self.kind as u8;
        out
    }

    fn decode(bytes: &[u8]) -> Option<Entry> {
        let word =
            |at: usize| -> Option<u64> { Some(u64::from_le_bytes(bytes.get(at..at + 8)?.try_into().ok()?)) };
        let kind = match bytes.get(56)? {
            1 => Kind::Blob,
            2 => Kind::Record,
            3 => Kind::Discard,
            _ => return None,
        };
        Some(Entry {
            kind,
            hash: bytes.get(..32)?.try_into().ok()?,
            offset: word(32)?,
            len: word(40)?,
            id: word(48)?,
        })
    }
}

/// The counters in `state`: the next checkpoint id and the generation of the pack in use.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Usage {
    pub next: u64,
    #[serde(default)]
    pub generation: u64,
}

pub fn pack_path(dir: &Path, generation: u64) -> PathBuf {
    dir.join(format!("pack-{generation}"))
}

pub fn index_path(dir: &Path, generation: u64) -> PathBuf {
    dir.join(format!("index-{generation}"))
}

/// A generation's pack and index, read into memory (the index, as it is on disk: a lookup
/// scans it, decoding only what it returns) or at need (the pack).
pub struct Pack {
    pack: Option<fs::File>,
    index: Option<fs::File>,
    /// The whole entries of the index.
    raw: Vec<u8>,
    /// Where the next item goes (the pack's size).
    pub pack_len: u64,
}

impl Pack {
    /// Opens the pair of `generation`; `create` makes missing files (a writer), otherwise a
    /// missing pair reads as empty.
    pub fn open(dir: &Path, generation: u64, create: bool) -> io::Result<Pack> {
        let open = |path: PathBuf| -> io::Result<Option<fs::File>> {
            match fs::OpenOptions::new()
                .read(true)
                .write(create)
                .create(create)
                .truncate(false)
                .open(path)
            {
                Ok(file) => Ok(Some(file)),
                Err(err) if err.kind() == io::ErrorKind::NotFound && !create => Ok(None),
                Err(err) => Err(err),
            }
        };
        let index = open(index_path(dir, generation))?;
        let pack = open(pack_path(dir, generation))?;
        let mut raw = Vec::new();
        if let Some(mut file) = index.as_ref() {
            raw.reserve_exact(usize::try_from(file.metadata()?.len()).map_err(io::Error::other)?);
            file.read_to_end(&mut raw)?;
        }
        // An entry cut short by a crash (the tail past the last whole one) is ignored and
        // overwritten by the next append.
        raw.truncate(raw.len() - raw.len() % ENTRY_LEN);
        let pack_len = match &pack {
            Some(file) => file.metadata()?.len(),
            None => 0,
        };
        Ok(Pack {
            pack,
            index,
            raw,
            pack_len,
        })
    }

    /// The entries, in the order they were appended; one pointing past the end of the pack
    /// (its bytes lost in a crash) is left out.
    pub fn entries(&self) -> impl Iterator<Item = Entry> + '_ {
        self.raw
            .chunks_exact(ENTRY_LEN)
            .filter_map(Entry::decode)
            .filter(|e| e.kind == Kind::Discard || e.offset.saturating_add(e.len) <= self.pack_len)
    }

    /// The stored blob with `hash`, if any.
    pub fn blob(&self, hash: &[u8; 32]) -> Option<Entry> {
        self.raw
            .chunks_exact(ENTRY_LEN)
            .filter(|chunk| chunk[..32] == hash[..] && chunk[56] == Kind::Blob as u8)
            .filter_map(Entry::decode)
            .find(|e| e.offset.saturating_add(e.len) <= self.pack_len)
    }

    /// How many records are kept (not withdrawn).
    pub fn record_count(&self) -> usize {
        let count = |kind: Kind| {
            self.raw
                .chunks_exact(ENTRY_LEN)
                .filter(|c| c[56] == kind as u8)
                .count()
        };
        count(Kind::Record).saturating_sub(count(Kind::Discard))
    }

    /// The bytes the index's entries take in the pack (what retention counts: bytes no entry
    /// points to are released by the next prune).
    pub fn live_bytes(&self) -> u64 {
        self.raw
            .chunks_exact(ENTRY_LEN)
            .filter_map(Entry::decode)
            .map(|e| e.len)
            .sum()
    }

    /// Replaces the index of `generation` in `dir` by `entries`: a temp file renamed over it,
    /// so a reader (or a crash) sees the old index or the new.
    pub fn replace_index(&mut self, dir: &Path, generation: u64, entries: &[Entry]) -> io::Result<()> {
        use std::io::Write;
        let raw: Vec<u8> = entries.iter().flat_map(Entry::encode).collect();
        let mut temp = tempfile::Builder::new().prefix(".index-").tempfile_in(dir)?;
        temp.write_all(&raw)?;
        let file = temp
            .persist(index_path(dir, generation))
            .map_err(|err| err.error)?;
        self.index = Some(file);
        self.raw = raw;
        Ok(())
    }

    /// Gives the file system back the pack's bytes that no entry points to (punching holes:
    /// the offsets of the rest stay as they are). Fails with `Unsupported` where the file
    /// system cannot punch holes.
    pub fn release_unused(&self) -> io::Result<()> {
        let file = self
            .pack
            .as_ref()
            .ok_or_else(|| io::Error::from(io::ErrorKind::NotFound))?;
        if cfg!(debug_assertions)
            && std::env::var("CODESMITH_FAULT").is_ok_and(|spec| spec.split(',').any(|e| e == "punch"))
        {
            return Err(io::Error::from(io::ErrorKind::Unsupported));
        }
        let mut used: Vec<(u64, u64)> = self.entries().map(|e| (e.offset, e.offset + e.len)).collect();
        used.sort_unstable();
        let mut start = 0u64;
        for (from, to) in used.into_iter().chain([(self.pack_len, self.pack_len)]) {
            if from > start {
                punch_hole(file, start, from - start)?;
            }
            start = start.max(to);
        }
        Ok(())
    }

    /// The highest checkpoint id in the index.
    pub fn newest_id(&self) -> u64 {
        self.entries().map(|e| e.id).max().unwrap_or(0)
    }

    /// The bytes an entry points to.
    pub fn read(&self, entry: &Entry) -> io::Result<Vec<u8>> {
        let file = self
            .pack
            .as_ref()
            .ok_or_else(|| io::Error::from(io::ErrorKind::NotFound))?;
        let len = usize::try_from(entry.len).map_err(io::Error::other)?;
        let mut bytes = vec![0u8; len];
        file.read_exact_at(&mut bytes, entry.offset)?;
        Ok(bytes)
    }

    /// The records not withdrawn, in the order they were appended (ids ascending).
    pub fn records(&self) -> Vec<Entry> {
        let discarded: std::collections::HashSet<u64> = self
            .entries()
            .filter(|e| e.kind == Kind::Discard)
            .map(|e| e.id)
            .collect();
        self.entries()
            .filter(|e| e.kind == Kind::Record && !discarded.contains(&e.id))
            .collect()
    }

    /// Appends items, each given as consecutive parts: first every item's bytes to the pack,
    /// then their entries to the index.
    pub fn append(&mut self, items: &[Item]) -> io::Result<()> {
        let (Some(pack), Some(index)) = (&self.pack, &self.index) else {
            return Err(io::Error::from(io::ErrorKind::NotFound));
        };
        let mut offset = self.pack_len;
        let mut added = Vec::with_capacity(items.len());
        for item in items {
            let start = offset;
            for part in &item.parts {
                pack.write_all_at(part, offset)?;
                offset += part.len() as u64;
            }
            added.push(Entry {
                kind: item.kind,
                hash: item.hash,
                offset: start,
                len: offset - start,
                id: item.id,
            });
        }
        let encoded: Vec<u8> = added.iter().flat_map(Entry::encode).collect();
        index.write_all_at(&encoded, self.raw.len() as u64)?;
        self.pack_len = offset;
        self.raw.extend_from_slice(&encoded);
        Ok(())
    }
}

fn punch_hole(file: &fs::File, offset: u64, len: u64) -> io::Result<()> {
    let (Ok(offset), Ok(len)) = (libc::off_t::try_from(offset), libc::off_t::try_from(len)) else {
        return Err(io::Error::from(io::ErrorKind::InvalidInput));
    };
    let mode = libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE;
    // SAFETY: fallocate on a descriptor we own, with plain integer arguments.
    if unsafe { libc::fallocate(file.as_raw_fd(), mode, offset, len) } == 0 {
        return Ok(());
    }
    let err = io::Error::last_os_error();
    Err(match err.raw_os_error() {
        Some(libc::EOPNOTSUPP | libc::ENOSYS) => io::Error::new(io::ErrorKind::Unsupported, err),
        _ => err,
    })
}

/// One item to append.
pub struct Item<'a> {
    pub kind: Kind,
    pub hash: [u8; 32],
    pub id: u64,
    pub parts: Vec<&'a [u8]>,
}

/// The history locked for writing: `state` held under an exclusive `flock`, its counters, and
/// the pack in use.
pub struct Store {
    state: fs::File,
    pub dir: PathBuf,
    pub usage: Usage,
    pub pack: Pack,
}

impl Store {
    /// Locks the history in `dir` (made when missing) and opens its pack.
    pub fn lock(dir: &Path) -> io::Result<Store> {
        let open = || {
            fs::OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .open(dir.join("state"))
        };
        // The directory is made only when missing: once, not on every call.
        let state = match open() {
            Err(err) if err.kind() == io::ErrorKind::NotFound => {
                fs::create_dir_all(dir)?;
                open()?
            }
            opened => opened?,
        };
        let usage = lock_and_read(&state, libc::LOCK_EX, dir)?;
        let usage_rebuilt = usage.next == 0;
        let pack = Pack::open(dir, usage.generation, true)?;
        let mut store = Store {
            state,
            dir: dir.to_path_buf(),
            usage,
            pack,
        };
        // A `state` rebuilt from nothing takes the next id past every record kept.
        if usage_rebuilt {
            store.usage.next = store.pack.newest_id() + 1;
        }
        Ok(store)
    }

    /// Writes the counters back (the lock is released when this is dropped).
    pub fn save(&self) -> io::Result<()> {
        let mut bytes = serde_json::to_vec(&self.usage).map_err(io::Error::other)?;
        // Padded to a fixed width, so a shorter record never leaves a tail to truncate.
        bytes.resize(bytes.len().max(96), b' ');
        self.state.write_all_at(&bytes, 0)
    }
}

/// The history locked for reading (shared), with its pack.
pub struct Reader {
    _state: Option<fs::File>,
    pub pack: Pack,
}

impl Reader {
    /// Opens the history in `dir` for reading; a history never written reads as empty.
    pub fn open(dir: &Path) -> io::Result<Reader> {
        let state = match fs::File::open(dir.join("state")) {
            Ok(file) => file,
            Err(err) if err.kind() == io::ErrorKind::NotFound => {
                return Ok(Reader {
                    _state: None,
                    pack: Pack::open(dir, 0, false)?,
                });
            }
            Err(err) => return Err(err),
        };
        let usage = lock_and_read(&state, libc::LOCK_SH, dir)?;
        Ok(Reader {
            pack: Pack::open(dir, usage.generation, false)?,
            _state: Some(state),
        })
    }
}

/// Takes the `flock` on `state` and reads its counters; unreadable counters are rebuilt from
/// the newest generation on disk.
fn lock_and_read(mut state: &fs::File, operation: libc::c_int, dir: &Path) -> io::Result<Usage> {
    // SAFETY: flock on a descriptor we own; released when the file is closed.
    if unsafe { libc::flock(state.as_raw_fd(), operation) } != 0 {
        return Err(io::Error::last_os_error());
    }
    let mut bytes = Vec::new();
    state.read_to_end(&mut bytes)?;
    // `next` 0 says the counters were rebuilt (ids start at 1).
    Ok(serde_json::from_slice(&bytes).unwrap_or_else(|_| Usage {
        next: 0,
        generation: newest_generation(dir),
    }))
}

/// The highest generation whose index is on disk.
fn newest_generation(dir: &Path) -> u64 {
    fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.strip_prefix("index-")?.parse().ok())
        .max()
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_round_trip() {
        let entry = Entry {
            kind: Kind::Record,
            hash: [7; 32],
            offset: 1 << 40,
            len: 12345,
            id: 99,
        };
        let back = Entry::decode(&entry.encode()).expect("decodes");
        assert_eq!(
            (back.kind, back.hash, back.offset, back.len, back.id),
            (Kind::Record, [7; 32], 1 << 40, 12345, 99)
        );
        assert!(Entry::decode(&[0u8; ENTRY_LEN]).is_none());
    }

    #[test]
    fn a_torn_tail_is_skipped_and_overwritten() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut pack = Pack::open(dir.path(), 0, true).expect("open");
        let item = |id, parts| Item {
            kind: Kind::Blob,
            hash: [id as u8; 32],
            id,
            parts,
        };
        pack.append(&[item(1, vec![b"abc"])]).expect("append");
        // A writer killed midway: half an entry and stray pack bytes.
        let index = fs::OpenOptions::new()
            .append(true)
            .open(index_path(dir.path(), 0))
            .expect("index");
        std::io::Write::write_all(&mut &index, &[9u8; 20]).expect("torn entry");
        let mut pack = Pack::open(dir.path(), 0, true).expect("reopen");
        assert_eq!(pack.entries().count(), 1);
        pack.append(&[item(2, vec![b"de", b"f"])]).expect("append");
        let pack = Pack::open(dir.path(), 0, false).expect("reopen");
        let entries: Vec<Entry> = pack.entries().collect();
        assert_eq!(entries.len(), 2);
        assert_eq!(pack.read(&entries[1]).expect("read"), b"def");
        assert_eq!(pack.read(&entries[0]).expect("read"), b"abc");
        assert_eq!(pack.blob(&[2; 32]).map(|e| e.offset), Some(3));
    }
}

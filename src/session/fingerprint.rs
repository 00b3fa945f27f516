//! A file's fingerprint and the record a session keeps of it: the types the freshness gates and
//! the journal share.
//!
//! A fingerprint is the file's mtime (nanoseconds), its length and a content hash. mtime and
//! length alone miss a same-size rewrite within one mtime tick, or one that restores the old
//! mtime; the hash catches both. Files over [`HASH_LIMIT`] are fingerprinted by mtime and
//! length only, so reading one page of a huge log stays cheap.

use std::fs;
use std::io::{self, Read};
use std::os::unix::fs::MetadataExt;
use std::path::Path;

use serde::{Deserialize, Serialize};

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

    /// [`Fingerprint::of_content`] of content whose XXH3-64 is known already (see
    /// [`crate::session::history::blobs::digest_and_xxh3_64`]).
    pub fn with_xxh3_64(meta: &fs::Metadata, xxh3_64: u64) -> Fingerprint {
        Fingerprint {
            mtime_ns: mtime_ns(meta),
            len: meta.len(),
            hash: (meta.len() <= HASH_LIMIT).then(|| format!("{xxh3_64:016x}")),
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

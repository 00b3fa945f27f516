//! A read-only view of a git index file (versions 2 to 4), enough to tell which of its entries
//! still match the working tree without running git.
//!
//! Only what the shadow index of the exec_shell snapshots can hold is understood: SHA-1 ids,
//! stage-0 entries, no split or sparse index. Anything else is reported as unsupported, and
//! the caller lets git itself do the work.

use std::fs;
use std::path::Path;

/// One entry: the stat data git recorded when it last hashed the file, and the blob id.
pub(super) struct Entry {
    pub path: Vec<u8>,
    pub ctime: (u32, u32),
    pub mtime: (u32, u32),
    pub ino: u32,
    pub mode: u32,
    pub size: u32,
    pub oid: [u8; 20],
}

pub(super) struct Index {
    pub entries: Vec<Entry>,
    /// The index file's own mtime (seconds, nanoseconds): an entry whose file changed in the
    /// same clock tick as the index was written may have changed unseen ("racily clean").
    pub mtime: (i64, i64),
    /// The index file's size and inode, with `mtime` what tells one version of it from another.
    pub identity: (u64, u64),
}

/// Why an index is left to git: it cannot be read, or holds what this reader does not handle.
#[derive(Debug, thiserror::Error)]
pub(super) enum IndexError {
    #[error("{0}")]
    Io(#[from] std::io::Error),
    #[error("not a git index")]
    NotAnIndex,
    #[error("index version {0}")]
    Version(u32),
    #[error("the index is cut short")]
    CutShort,
    #[error("the index holds conflicts or assume-valid entries")]
    Conflicts,
    #[error("the index holds skip-worktree or intent-to-add entries")]
    ExtendedFlags,
    #[error("an index entry's name is not where its length says")]
    NameMisplaced,
    #[error("an index entry drops more than its previous path")]
    DropsTooMuch,
    #[error("the index uses the `{0}` extension")]
    Extension(String),
}

const ENTRY_FIXED: usize = 62;
const FLAG_ASSUME_VALID: u16 = 0x8000;
const FLAG_EXTENDED: u16 = 0x4000;
const FLAG_STAGE: u16 = 0x3000;
const NAME_MASK: u16 = 0x0fff;

/// Reads the index at `path`: `Ok(None)` when there is none, `Err` when it holds something this
/// reader does not handle.
pub(super) fn read(path: &Path) -> Result<Option<Index>, IndexError> {
    use std::os::unix::fs::MetadataExt;
    let bytes = match fs::read(path) {
        Ok(bytes) => bytes,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(err) => return Err(err.into()),
    };
    let meta = fs::metadata(path)?;
    let entries = parse(&bytes)?;
    Ok(Some(Index {
        entries,
        mtime: (meta.mtime(), meta.mtime_nsec()),
        identity: (meta.len(), meta.ino()),
    }))
}

impl Index {
    /// Whether the file at `path` is still the version this was read from.
    pub(super) fn is_current(&self, path: &Path) -> bool {
        use std::os::unix::fs::MetadataExt;
        fs::metadata(path).is_ok_and(|meta| {
            (meta.mtime(), meta.mtime_nsec()) == self.mtime && (meta.len(), meta.ino()) == self.identity
        })
    }
}

fn be32(bytes: &[u8], at: usize) -> Result<u32, IndexError> {
    bytes
        .get(at..at + 4)
        .map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
        .ok_or(IndexError::CutShort)
}

fn be16(bytes: &[u8], at: usize) -> Result<u16, IndexError> {
    bytes
        .get(at..at + 2)
        .map(|b| u16::from_be_bytes([b[0], b[1]]))
        .ok_or(IndexError::CutShort)
}

fn parse(bytes: &[u8]) -> Result<Vec<Entry>, IndexError> {
    if bytes.get(..4) != Some(b"DIRC") {
        return Err(IndexError::NotAnIndex);
    }
    let version = be32(bytes, 4)?;
    if !(2..=4).contains(&version) {
        return Err(IndexError::Version(version));
    }
    let count = be32(bytes, 8)? as usize;
    let mut entries = Vec::with_capacity(count.min(bytes.len() / ENTRY_FIXED));
    let mut at = 12;
    let mut previous: Vec<u8> = Vec::new();
    for _ in 0..count {
        let field = |i: usize| be32(bytes, at + 4 * i);
        let flags = be16(bytes, at + 60)?;
        if flags & (FLAG_ASSUME_VALID | FLAG_STAGE) != 0 {
            return Err(IndexError::Conflicts);
        }
        let mut name_at = at + ENTRY_FIXED;
        if flags & FLAG_EXTENDED != 0 {
            if be16(bytes, name_at)? != 0 {
                return Err(IndexError::ExtendedFlags);
            }
            name_at += 2;
        }
        let mut oid = [0u8; 20];
        oid.copy_from_slice(bytes.get(at + 40..at + 60).ok_or(IndexError::CutShort)?);
        let (path, next) = if version == 4 {
            entry_path_v4(bytes, name_at, &previous)?
        } else {
            entry_path(bytes, at, name_at, usize::from(flags & NAME_MASK))?
        };
        entries.push(Entry {
            ctime: (field(0)?, field(1)?),
            mtime: (field(2)?, field(3)?),
            ino: field(5)?,
            mode: field(6)?,
            size: field(9)?,
            oid,
            path: path.clone(),
        });
        previous = path;
        at = next;
    }
    check_extensions(bytes, at)?;
    Ok(entries)
}

/// A version 2 or 3 path: NUL-terminated, the entry padded with NULs to a multiple of 8.
fn entry_path(bytes: &[u8], at: usize, name_at: usize, len: usize) -> Result<(Vec<u8>, usize), IndexError> {
    let rest = bytes.get(name_at..).ok_or(IndexError::CutShort)?;
    let len = if len < NAME_MASK as usize {
        len
    } else {
        memchr::memchr(0, rest).ok_or(IndexError::CutShort)?
    };
    if rest.get(len) != Some(&0) {
        return Err(IndexError::NameMisplaced);
    }
    let end = (name_at - at + len + 8) & !7;
    Ok((rest[..len].to_vec(), at + end))
}

/// A version 4 path: a varint of bytes to drop from the previous path, then a NUL-terminated
/// suffix; no padding.
fn entry_path_v4(bytes: &[u8], name_at: usize, previous: &[u8]) -> Result<(Vec<u8>, usize), IndexError> {
    let mut at = name_at;
    let mut byte = *bytes.get(at).ok_or(IndexError::CutShort)?;
    at += 1;
    let mut drop = usize::from(byte & 0x7f);
    while byte & 0x80 != 0 {
        byte = *bytes.get(at).ok_or(IndexError::CutShort)?;
        at += 1;
        drop = ((drop + 1) << 7) | usize::from(byte & 0x7f);
    }
    let keep = previous.len().checked_sub(drop).ok_or(IndexError::DropsTooMuch)?;
    let rest = bytes.get(at..).ok_or(IndexError::CutShort)?;
    let len = memchr::memchr(0, rest).ok_or(IndexError::CutShort)?;
    let mut path = previous[..keep].to_vec();
    path.extend_from_slice(&rest[..len]);
    Ok((path, at + len + 1))
}

/// Extensions whose name starts with a lowercase letter change how the entries are read (a
/// split or sparse index): those are refused, the optional ones (cache tree, untracked cache)
/// skipped.
fn check_extensions(bytes: &[u8], mut at: usize) -> Result<(), IndexError> {
    const HASH: usize = 20;
    while at + 8 + HASH <= bytes.len() {
        let name = &bytes[at..at + 4];
        if !name[0].is_ascii_uppercase() {
            return Err(IndexError::Extension(String::from_utf8_lossy(name).into_owned()));
        }
        at += 8 + be32(bytes, at + 4)? as usize;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry_bytes(path: &[u8], size: u32) -> Vec<u8> {
        let mut entry = Vec::new();
        for value in [1u32, 2, 3, 4, 0, 5, 0o100644, 0, 0, size] {
            entry.extend_from_slice(&value.to_be_bytes());
        }
        entry.extend_from_slice(&[7u8; 20]);
        entry.extend_from_slice(&(path.len() as u16).to_be_bytes());
        entry.extend_from_slice(path);
        entry.push(0);
        while entry.len() % 8 != 0 {
            entry.push(0);
        }
        entry
    }

    fn index(version: u32, entries: &[Vec<u8>]) -> Vec<u8> {
        let mut bytes = b"DIRC".to_vec();
        bytes.extend_from_slice(&version.to_be_bytes());
        bytes.extend_from_slice(&(entries.len() as u32).to_be_bytes());
        for entry in entries {
            bytes.extend_from_slice(entry);
        }
        bytes.extend_from_slice(&[0u8; 20]);
        bytes
    }

    #[test]
    fn version_2_entries_are_read() {
        let bytes = index(2, &[entry_bytes(b"a.txt", 9), entry_bytes(b"dir/eight.rs", 1)]);
        let entries = parse(&bytes).unwrap();
        assert_eq!(entries.len(), 2);
        assert_eq!(entries[0].path, b"a.txt");
        assert_eq!(entries[0].size, 9);
        assert_eq!(entries[0].mtime, (3, 4));
        assert_eq!(entries[0].ino, 5);
        assert_eq!(entries[1].path, b"dir/eight.rs");
        assert_eq!(entries[1].oid, [7u8; 20]);
    }

    #[test]
    fn version_4_paths_are_prefix_compressed() {
        let mut first = entry_bytes(b"", 1)[..ENTRY_FIXED].to_vec();
        first.extend_from_slice(b"\x00dir/a.txt\0");
        let mut second = entry_bytes(b"", 2)[..ENTRY_FIXED].to_vec();
        second.extend_from_slice(b"\x05b.txt\0");
        let entries = parse(&index(4, &[first, second])).unwrap();
        assert_eq!(entries[0].path, b"dir/a.txt");
        assert_eq!(entries[1].path, b"dir/b.txt");
    }

    #[test]
    fn conflicts_and_split_indexes_are_refused() {
        let mut conflict = entry_bytes(b"a", 1);
        conflict[60] |= 0x10;
        assert!(parse(&index(2, &[conflict])).is_err());
        let mut split = index(2, &[entry_bytes(b"a", 1)]);
        let at = split.len() - 20;
        split.splice(at..at, b"link\0\0\0\0".iter().copied());
        assert!(parse(&split).is_err());
        assert!(parse(b"DIRC\0\0\0\x05\0\0\0\0").is_err());
    }
}

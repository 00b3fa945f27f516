//! The hash of a model's matrix file, remembered with the stat that vouches for it, so a query
//! does not read a model of a hundred megabytes to learn that it has not changed.
//!
//! ```text
//! codesmith-model-stamp 1<TAB>size<TAB>mtime_ns<TAB>inode<TAB>stamped_at_ns<TAB>hash16<TAB>path
//! ```

use std::fs::{File, Metadata};
use std::io;
use std::os::unix::fs::FileExt;
use std::path::Path;

use crate::fs::atomic::{write_atomically, WriteOptions};
use crate::symbols::index::manifest::Stat;

const HEADER: &str = "codesmith-model-stamp 1";
/// A file changed this close before it was stamped may change again within one timestamp tick
/// without its stat showing it (as for the index's manifest).
const RACY_NS: i128 = 1_000_000_000;

/// The xxh3 of `file`'s content (`path`, with `meta`), from the stamp at `stamp_path` when its
/// stat still vouches for it, else read and stamped again.
pub(super) fn hash(file: &File, meta: &Metadata, path: &Path, stamp_path: &Path) -> io::Result<u64> {
    let stat = Stat::of(meta);
    let shown = path.to_string_lossy();
    if let Some(hash) = std::fs::read_to_string(stamp_path)
        .ok()
        .and_then(|text| vouched(&text, &stat, &shown))
    {
        return Ok(hash);
    }
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    let mut buffer = vec![0u8; 1 << 20];
    let mut at = 0u64;
    loop {
        let n = file.read_at(&mut buffer, at)?;
        if n == 0 {
            break;
        }
        hasher.update(&buffer[..n]);
        at += n as u64;
    }
    let hash = hasher.digest();
    if !shown.contains(['\t', '\n', '\r']) {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as i128);
        let line = format!(
            "{HEADER}\t{}\t{}\t{}\t{now}\t{hash:016x}\t{shown}\n",
            stat.size, stat.mtime_ns, stat.inode
        );
        // Only a cache: a stamp that cannot be written means the next query hashes again.
        let _ = write_atomically(stamp_path, line.as_bytes(), WriteOptions::STATE_FILE);
    }
    Ok(hash)
}

fn vouched(text: &str, stat: &Stat, path: &str) -> Option<u64> {
    let line = text.strip_suffix('\n')?;
    let fields: Vec<&str> = line.splitn(7, '\t').collect();
    let [HEADER, size, mtime, inode, stamped, hash, stamped_path] = fields[..] else {
        return None;
    };
    let recorded = Stat {
        size: size.parse().ok()?,
        mtime_ns: mtime.parse().ok()?,
        inode: inode.parse().ok()?,
    };
    let stamped: i128 = stamped.parse().ok()?;
    (recorded == *stat && stamped_path == path && stat.mtime_ns + RACY_NS < stamped)
        .then(|| u64::from_str_radix(hash, 16).ok())
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stamp_vouches_only_for_the_same_stat_and_path() {
        let stat = Stat {
            size: 10,
            mtime_ns: 5,
            inode: 7,
        };
        let text = format!(
            "{HEADER}\t10\t5\t7\t{}\t00000000000000ff\t/m/model.safetensors\n",
            RACY_NS + 6
        );
        assert_eq!(vouched(&text, &stat, "/m/model.safetensors"), Some(255));
        assert_eq!(vouched(&text, &stat, "/other"), None);
        assert_eq!(
            vouched(&text, &Stat { size: 11, ..stat }, "/m/model.safetensors"),
            None
        );
        let racy = format!("{HEADER}\t10\t5\t7\t6\t00000000000000ff\t/m/model.safetensors\n");
        assert_eq!(vouched(&racy, &stat, "/m/model.safetensors"), None);
        assert_eq!(
            vouched(&text[..text.len() - 1], &stat, "/m/model.safetensors"),
            None
        );
    }

    #[test]
    fn a_changed_file_is_hashed_again() {
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("m");
        let stamp = dir.path().join("stamp");
        std::fs::write(&path, b"one").expect("write");
        let file = File::open(&path).expect("open");
        let first = hash(&file, &file.metadata().expect("meta"), &path, &stamp).expect("hash");
        assert_eq!(first, xxhash_rust::xxh3::xxh3_64(b"one"));
        std::fs::write(&path, b"two!").expect("write");
        let file = File::open(&path).expect("open");
        let second = hash(&file, &file.metadata().expect("meta"), &path, &stamp).expect("hash");
        assert_eq!(second, xxhash_rust::xxh3::xxh3_64(b"two!"));
    }
}

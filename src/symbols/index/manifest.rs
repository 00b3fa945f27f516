//! The manifest: which content hash each indexed file had, and the stat that vouches for it.
//!
//! ```text
//! codesmith-index-manifest 1 <indexed_at_ns> <tags_fingerprint16>
//! <hash16><TAB><size><TAB><mtime_ns><TAB><inode><TAB><path>
//! ```
//! Paths are workspace-relative with `/`; a path holding a tab or a line break is not indexed.

use std::collections::HashMap;

/// What the stat of a file says, compared to decide whether it must be read again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stat {
    pub size: u64,
    pub mtime_ns: i128,
    pub inode: u64,
}

impl Stat {
    pub fn of(meta: &std::fs::Metadata) -> Stat {
        use std::os::unix::fs::MetadataExt;
        Stat {
            size: meta.len(),
            mtime_ns: i128::from(meta.mtime()) * 1_000_000_000 + i128::from(meta.mtime_nsec()),
            inode: meta.ino(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    pub hash: u64,
    pub stat: Stat,
}

const HEADER: &str = "codesmith-index-manifest 1";

/// A file changed this close (in ns) before it was indexed may change again within the same
/// timestamp tick without its stat showing it, so its content is hashed again on the next query
/// (git's "racily clean" entries). One second covers filesystems with coarse timestamps.
const RACY_NS: i128 = 1_000_000_000;

#[derive(Debug, Default)]
pub struct Manifest {
    /// When the stats were taken (ns since the epoch).
    pub indexed_at: i128,
    /// The [`crate::symbols::languages::fingerprint`] the records were made with.
    pub fingerprint: u64,
    pub files: HashMap<String, Entry>,
}

impl Manifest {
    /// Whether `stat` proves the file still has the recorded content.
    pub fn vouches(&self, entry: &Entry, stat: &Stat) -> bool {
        entry.stat == *stat && stat.mtime_ns + RACY_NS < self.indexed_at
    }

    /// How many files point to each hash.
    pub fn hash_counts(&self) -> HashMap<u64, u32> {
        let mut counts = HashMap::new();
        for entry in self.files.values() {
            *counts.entry(entry.hash).or_insert(0) += 1;
        }
        counts
    }

    pub fn encode(&self) -> String {
        let mut paths: Vec<&String> = self.files.keys().collect();
        paths.sort();
        let mut out = String::with_capacity(64 + paths.len() * 64);
        out.push_str(&format!(
            "{HEADER} {} {:016x}\n",
            self.indexed_at, self.fingerprint
        ));
        for path in paths {
            let entry = &self.files[path];
            out.push_str(&format!(
                "{:016x}\t{}\t{}\t{}\t{}\n",
                entry.hash, entry.stat.size, entry.stat.mtime_ns, entry.stat.inode, path
            ));
        }
        out
    }

    pub fn decode(text: &str) -> Option<Manifest> {
        if !text.ends_with('\n') {
            return None;
        }
        let mut lines = text.lines();
        let (indexed_at, fingerprint) = lines.next()?.strip_prefix(HEADER)?.trim().split_once(' ')?;
        let indexed_at = indexed_at.parse().ok()?;
        let fingerprint = u64::from_str_radix(fingerprint, 16).ok()?;
        let mut files = HashMap::new();
        for line in lines {
            let mut fields = line.splitn(5, '\t');
            let hash = u64::from_str_radix(fields.next()?, 16).ok()?;
            let size = fields.next()?.parse().ok()?;
            let mtime_ns = fields.next()?.parse().ok()?;
            let inode = fields.next()?.parse().ok()?;
            let path = fields.next()?.to_string();
            let stat = Stat {
                size,
                mtime_ns,
                inode,
            };
            files.insert(path, Entry { hash, stat });
        }
        Some(Manifest {
            indexed_at,
            fingerprint,
            files,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manifests_round_trip_and_recent_files_are_not_vouched_for() {
        let stat = Stat {
            size: 10,
            mtime_ns: 5_000_000_000,
            inode: 7,
        };
        let mut manifest = Manifest {
            indexed_at: 9_000_000_000,
            fingerprint: 0xfeed,
            files: HashMap::new(),
        };
        manifest
            .files
            .insert("src/a b.rs".into(), Entry { hash: 0xabc, stat });
        let decoded = Manifest::decode(&manifest.encode()).expect("decodes");
        assert_eq!(decoded.files, manifest.files);
        assert_eq!(decoded.indexed_at, manifest.indexed_at);
        assert_eq!(decoded.fingerprint, 0xfeed);
        let entry = decoded.files["src/a b.rs"];
        assert!(decoded.vouches(&entry, &stat));
        let racy = Manifest {
            indexed_at: 5_500_000_000,
            ..Manifest::default()
        };
        assert!(!racy.vouches(&entry, &stat));
        assert!(!decoded.vouches(&entry, &Stat { size: 11, ..stat }));
        assert!(Manifest::decode("codesmith-index-manifest 1 5 0\nxyz\n").is_none());
    }
}

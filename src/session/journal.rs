//! The session's fingerprint journal, `sessions/<name>.journal`: one JSON line per fingerprint
//! recorded (every read and every write that refreshes a fingerprint, see
//! [`crate::session::freshness::record`]), per forget, and per mark the shell probe keeps.
//!
//! It exists so the shell probe can find the files this session recorded most recently without
//! listing the record directory: reading at most [`TAIL_BYTES`] of its end costs the same after
//! 20,000 reads as after ten. The per-file records under `sessions/<name>.fp/` stay authoritative
//! (the stale gate reads them); the journal is only the recency index, and the latest line for a
//! path is the probe's view of it.
//!
//! Each append is one `write` on an `O_APPEND` descriptor, so parallel invocations never tear or
//! interleave lines. Bounded: once the journal passes [`COMPACT_BYTES`], it is rewritten (temp
//! file and rename) to the latest line of each of its [`RECENT`] most recent paths, at most
//! [`TAIL_BYTES`]. The rewrite holds an exclusive `flock` on the journal and every append holds it
//! shared and re-opens the journal when a rewrite replaced it meanwhile, so no line is lost.

use std::collections::HashSet;
use std::fs::{self, File, OpenOptions};
use std::hash::{BuildHasherDefault, Hasher};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::os::fd::AsRawFd;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::session::fingerprint::{Fingerprint, Record};
use crate::session::state::State;

/// How many distinct paths, most recent first, the shell probe re-checks (and a rewrite keeps).
pub const RECENT: usize = 256;
/// How much of the journal's end is read; bounds the probe when paths are very long.
pub const TAIL_BYTES: u64 = 128 * 1024;
/// Past this size the journal is rewritten to its tail.
pub const COMPACT_BYTES: u64 = 1024 * 1024;

/// One journal line: a fingerprint recorded for `path`, or the probe's mark on it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Line {
    pub path: String,
    #[serde(with = "ns")]
    pub mtime_ns: i128,
    pub len: u64,
    pub hash: Option<String>,
    /// When the fingerprint was recorded (the same-tick rule compares it with the mtime).
    #[serde(with = "ns")]
    pub recorded_at_ns: i128,
    /// A drift notice was given for this fingerprint; a re-read appends an unmarked line.
    #[serde(default, skip_serializing_if = "is_false")]
    pub notified: bool,
    /// The file's ctime when a hash last confirmed the content, at least a tick after its last
    /// change: while the ctime stays the same, nothing wrote the file since, so no new hash is
    /// needed.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "opt_ns")]
    pub verified_ctime_ns: Option<i128>,
    /// The record was forgotten (the file was deleted by a codesmith tool).
    #[serde(default, skip_serializing_if = "is_false")]
    pub forgotten: bool,
}

fn is_false(flag: &bool) -> bool {
    !*flag
}

/// Nanosecond timestamps, read as 64-bit integers: serde_json's 128-bit path costs the probe
/// several times more per line, and `i64` nanoseconds reach the year 2262. A larger value makes
/// its line unreadable, which only takes that file out of the probe.
mod ns {
    use serde::{Deserialize, Deserializer, Serializer};

    pub(super) fn serialize<S: Serializer>(value: &i128, serializer: S) -> Result<S::Ok, S::Error> {
        match i64::try_from(*value) {
            Ok(small) => serializer.serialize_i64(small),
            Err(_) => serializer.serialize_i128(*value),
        }
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<i128, D::Error> {
        i64::deserialize(deserializer).map(i128::from)
    }
}

mod opt_ns {
    use serde::{Deserialize, Deserializer, Serializer};

    pub(super) fn serialize<S: Serializer>(value: &Option<i128>, serializer: S) -> Result<S::Ok, S::Error> {
        match value {
            Some(value) => super::ns::serialize(value, serializer),
            None => serializer.serialize_none(),
        }
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<i128>, D::Error> {
        Option::<i64>::deserialize(deserializer).map(|value| value.map(i128::from))
    }
}

impl Line {
    pub fn recorded(record: &Record, recorded_at_ns: i128) -> Line {
        Line {
            path: record.path.clone(),
            mtime_ns: record.fingerprint.mtime_ns,
            len: record.fingerprint.len,
            hash: record.fingerprint.hash.clone(),
            recorded_at_ns,
            notified: record.notified,
            verified_ctime_ns: None,
            forgotten: false,
        }
    }

    pub fn forgotten(path: &str, recorded_at_ns: i128) -> Line {
        Line {
            path: path.to_string(),
            mtime_ns: 0,
            len: 0,
            hash: None,
            recorded_at_ns,
            notified: false,
            verified_ctime_ns: None,
            forgotten: true,
        }
    }

    pub fn fingerprint(&self) -> Fingerprint {
        Fingerprint {
            mtime_ns: self.mtime_ns,
            len: self.len,
            hash: self.hash.clone(),
        }
    }
}

pub fn journal_path(state: &State) -> PathBuf {
    state
        .dir()
        .join("sessions")
        .join(format!("{}.journal", state.session_name()))
}

pub fn now_ns() -> i128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as i128)
        .unwrap_or(0)
}

/// Appends `lines` in one write; rewrites the journal when it grew past [`COMPACT_BYTES`].
pub fn append(state: &State, lines: &[Line]) -> io::Result<()> {
    if lines.is_empty() {
        return Ok(());
    }
    let mut bytes = Vec::new();
    for line in lines {
        serde_json::to_writer(&mut bytes, line).map_err(io::Error::other)?;
        bytes.push(b'\n');
    }
    let path = journal_path(state);
    // A rewrite replaces the file between our open and our lock at most a few times in a row.
    for _ in 0..16 {
        // Readable too, to see whether the file ends mid-line.
        let open = || {
            OpenOptions::new()
                .read(true)
                .append(true)
                .create(true)
                .open(&path)
        };
        let file = match open() {
            Err(err) if err.kind() == io::ErrorKind::NotFound => {
                state.ensure_dir()?;
                open()?
            }
            other => other?,
        };
        flock(&file, libc::LOCK_SH)?;
        if !is_current(&file, &path) {
            continue;
        }
        // A torn last line (a crash mid-write, an edit by hand) would swallow this record:
        // start on a fresh line then. Every complete line ends with a newline, so a tail
        // without one is never another appender's work in progress.
        let bytes = if ends_mid_line(&file) {
            let mut fresh = Vec::with_capacity(bytes.len() + 1);
            fresh.push(b'\n');
            fresh.extend_from_slice(&bytes);
            fresh
        } else {
            bytes.clone()
        };
        // One write: O_APPEND places it whole at the end, whatever other appenders do.
        let written = (&file).write(&bytes)?;
        if written != bytes.len() {
            return Err(io::Error::new(
                io::ErrorKind::WriteZero,
                "short write to the journal",
            ));
        }
        let len = file.metadata()?.len();
        drop(file);
        if len > COMPACT_BYTES {
            compact(state)?;
        }
        return Ok(());
    }
    Err(io::Error::other("the journal kept being replaced"))
}

/// True when the file's last byte is not a newline.
fn ends_mid_line(file: &File) -> bool {
    use std::os::unix::fs::FileExt;
    let Ok(len) = file.metadata().map(|m| m.len()) else {
        return false;
    };
    let mut last = [0u8; 1];
    len > 0 && file.read_at(&mut last, len - 1).is_ok() && last[0] != b'\n'
}

/// The latest line of each of the `max` paths recorded most recently, most recent first;
/// forgotten paths are left out. Reads at most [`TAIL_BYTES`].
pub fn recent(state: &State, max: usize) -> Vec<Line> {
    let Ok(mut file) = File::open(journal_path(state)) else {
        return Vec::new();
    };
    let Ok(len) = file.metadata().map(|m| m.len()) else {
        return Vec::new();
    };
    let start = len.saturating_sub(TAIL_BYTES);
    let mut tail = Vec::with_capacity((len - start) as usize);
    if file.seek(SeekFrom::Start(start)).is_err() || file.take(TAIL_BYTES).read_to_end(&mut tail).is_err() {
        return Vec::new();
    }
    latest(whole_lines(&tail, start > 0), max)
        .into_iter()
        .map(|(_, line)| line)
        .collect()
}

/// `bytes` without a partial first line (when it starts mid-file).
fn whole_lines(bytes: &[u8], mid_file: bool) -> &[u8] {
    if !mid_file {
        return bytes;
    }
    match memchr::memchr(b'\n', bytes) {
        Some(i) => &bytes[i + 1..],
        None => &[],
    }
}

/// The latest line (raw and parsed) per path, most recent first, for at most `max` paths that
/// are not forgotten. Unparsable lines are skipped.
fn latest(bytes: &[u8], max: usize) -> Vec<(&[u8], Line)> {
    // Paths by hash: a collision (2^-64) would only leave one path out of the probe. The keys
    // are xxh3 hashes already, so the set does not hash them again.
    let mut seen: HashSet<u64, BuildHasherDefault<KeyIsHash>> =
        HashSet::with_capacity_and_hasher(max, BuildHasherDefault::default());
    let mut found = Vec::with_capacity(max.min(4096));
    let path_end = memchr::memmem::Finder::new(b"\",\"mtime_ns\":");
    let mut end = bytes.len();
    let lines = memchr::memrchr_iter(b'\n', bytes)
        .map(|at| at + 1)
        .chain(std::iter::once(0))
        .map(|start| {
            let line = &bytes[start..end];
            end = start.saturating_sub(1);
            line
        });
    for raw in lines {
        if found.len() >= max {
            break;
        }
        if raw.is_empty() {
            continue;
        }
        // A path seen already (a re-read, a probe mark) is skipped before the line is parsed. The
        // key is the path as written: everything before the first unescaped `","mtime_ns":`.
        let key = path_end.find(raw).map_or(raw, |end| &raw[..end]);
        let key = xxhash_rust::xxh3::xxh3_64(key);
        if seen.contains(&key) {
            continue;
        }
        let Some(line) = parse(raw) else {
            continue;
        };
        seen.insert(key);
        if !line.forgotten {
            found.push((raw, line));
        }
    }
    found
}

/// A hasher for keys that are hashes already: it passes the `u64` through.
#[derive(Default)]
struct KeyIsHash(u64);

impl Hasher for KeyIsHash {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        // Only `write_u64` is used by `HashSet<u64>`; anything else is folded in.
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

/// One line, as [`append`] writes it by a direct scan (the probe parses hundreds per call, and
/// serde_json costs several times more); anything else (an escape in a string, another order)
/// through serde_json. `None` for a line that is not a journal line (a torn end).
fn parse(raw: &[u8]) -> Option<Line> {
    scan(raw).or_else(|| serde_json::from_slice(raw).ok())
}

fn scan(raw: &[u8]) -> Option<Line> {
    let mut cur = Cursor(raw);
    cur.tag(b"{\"path\":\"")?;
    let path = cur.plain_string()?;
    cur.tag(b",\"mtime_ns\":")?;
    let mtime_ns = cur.int()?;
    cur.tag(b",\"len\":")?;
    let len = u64::try_from(cur.int()?).ok()?;
    cur.tag(b",\"hash\":")?;
    let hash = match cur.tag(b"null") {
        Some(()) => None,
        None => {
            cur.tag(b"\"")?;
            Some(cur.plain_string()?)
        }
    };
    cur.tag(b",\"recorded_at_ns\":")?;
    let recorded_at_ns = cur.int()?;
    let notified = cur.tag(b",\"notified\":true").is_some();
    let verified_ctime_ns = match cur.tag(b",\"verified_ctime_ns\":") {
        Some(()) => Some(cur.int()?),
        None => None,
    };
    let forgotten = cur.tag(b",\"forgotten\":true").is_some();
    cur.tag(b"}")?;
    cur.0.is_empty().then_some(Line {
        path,
        mtime_ns,
        len,
        hash,
        recorded_at_ns,
        notified,
        verified_ctime_ns,
        forgotten,
    })
}

struct Cursor<'a>(&'a [u8]);

impl Cursor<'_> {
    fn tag(&mut self, tag: &[u8]) -> Option<()> {
        self.0 = self.0.strip_prefix(tag)?;
        Some(())
    }

    /// The rest of a string whose opening quote was consumed; `None` if it holds an escape.
    fn plain_string(&mut self) -> Option<String> {
        let end = memchr::memchr2(b'"', b'\\', self.0)?;
        if self.0[end] != b'"' {
            return None;
        }
        let text = std::str::from_utf8(&self.0[..end]).ok()?.to_string();
        self.0 = &self.0[end + 1..];
        Some(text)
    }

    fn int(&mut self) -> Option<i128> {
        let negative = self.tag(b"-").is_some();
        let digits = self.0.iter().take_while(|b| b.is_ascii_digit()).count();
        if digits == 0 || digits > 19 {
            return None;
        }
        let mut value: i64 = 0;
        for &digit in &self.0[..digits] {
            value = value.checked_mul(10)?.checked_add(i64::from(digit - b'0'))?;
        }
        self.0 = &self.0[digits..];
        Some(i128::from(if negative { -value } else { value }))
    }
}

/// Rewrites the journal to its latest lines, if it is still past the bound.
fn compact(state: &State) -> io::Result<()> {
    let path = journal_path(state);
    let mut file = File::open(&path)?;
    flock(&file, libc::LOCK_EX)?;
    // Another invocation may have rewritten it while we waited.
    if !is_current(&file, &path) || file.metadata()?.len() <= COMPACT_BYTES {
        return Ok(());
    }
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)?;
    let mut kept: Vec<&[u8]> = Vec::new();
    let mut size = 0u64;
    for (raw, _) in latest(&bytes, RECENT) {
        size += raw.len() as u64 + 1;
        if size > TAIL_BYTES {
            break;
        }
        kept.push(raw);
    }
    let mut out = Vec::with_capacity(size as usize);
    for raw in kept.iter().rev() {
        out.extend_from_slice(raw);
        out.push(b'\n');
    }
    // Appenders wait on our lock and re-open the new file once it is released.
    crate::fs::atomic::write_atomically(&path, &out, crate::fs::atomic::WriteOptions::STATE_FILE)
}

fn flock(file: &File, op: libc::c_int) -> io::Result<()> {
    // SAFETY: flock on a descriptor we own; it is released when the file is closed.
    if unsafe { libc::flock(file.as_raw_fd(), op) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Whether `file` is still the one at `path` (a rewrite renames a new file over it).
fn is_current(file: &File, path: &Path) -> bool {
    match (file.metadata(), fs::metadata(path)) {
        (Ok(open), Ok(named)) => open.ino() == named.ino() && open.dev() == named.dev(),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(path: &str, mtime_ns: i128) -> Vec<u8> {
        let record = Record {
            path: path.into(),
            fingerprint: Fingerprint {
                mtime_ns,
                len: 1,
                hash: None,
            },
            notified: false,
        };
        let mut bytes = serde_json::to_vec(&Line::recorded(&record, 1_795_979_451_361_530_596)).unwrap();
        bytes.push(b'\n');
        bytes
    }

    #[test]
    fn the_latest_line_per_path_wins_and_forgotten_paths_are_left_out() {
        let mut bytes = Vec::new();
        bytes.extend(line("a", 1));
        bytes.extend(line("b", 2));
        bytes.extend(line("a", 3));
        let mut gone = serde_json::to_vec(&Line::forgotten("b", 4)).unwrap();
        gone.push(b'\n');
        bytes.extend(gone);
        bytes.extend(line("c", 5));
        bytes.extend(b"{\"torn\n");
        let found: Vec<(String, i128)> = latest(&bytes, 10)
            .into_iter()
            .map(|(_, l)| (l.path, l.mtime_ns))
            .collect();
        assert_eq!(found, vec![("c".into(), 5), ("a".into(), 3)]);
        assert_eq!(latest(&bytes, 1).len(), 1);
        assert_eq!(whole_lines(b"th\n{}\n", true), b"{}\n");
    }

    #[test]
    fn the_scan_reads_what_serde_writes_and_leaves_the_rest_to_serde() {
        let record = Record {
            path: "src/a b.rs".into(),
            fingerprint: Fingerprint {
                mtime_ns: 1_795_979_451_361_530_596,
                len: 19,
                hash: Some("c20414764d8c08ce".into()),
            },
            notified: false,
        };
        let plain = Line::recorded(&record, 1_795_979_452_000_000_001);
        let marked = Line {
            notified: true,
            verified_ctime_ns: Some(-5),
            hash: None,
            ..plain.clone()
        };
        for line in [plain.clone(), marked, Line::forgotten("gone.txt", 7)] {
            let bytes = serde_json::to_vec(&line).unwrap();
            assert_eq!(
                scan(&bytes).as_ref(),
                Some(&line),
                "{}",
                String::from_utf8_lossy(&bytes)
            );
        }
        let escaped = Line {
            path: "say \"hi\".txt".into(),
            ..plain
        };
        let bytes = serde_json::to_vec(&escaped).unwrap();
        assert_eq!(scan(&bytes), None);
        assert_eq!(parse(&bytes), Some(escaped));
        assert_eq!(parse(b"{\"path\":\"a\",\"mtime_ns\":1"), None);
    }
}

//! Checkpoints: what every changing call did to each path, so it can be undone.
//!
//! Layout under `.codesmith/history/` (see [`pack`]):
//! - `pack-<generation>`: file contents (blobs, named by their hash (see [`blobs`]), so a content stored
//!   twice is stored once) and one record per changing call (id, session, tool, time, a
//!   one-line summary, and for each path its state before and after), appended back to back.
//!   A state before is stored whole (undo puts it back); a state after by its hash only (undo
//!   checks a path still holds it).
//! - `index-<generation>`: where each blob and record is in the pack.
//! - `state`: the next id and the generation in use; its `flock` serializes every write.
//! - `shadow/`: the private git directory of the exec_shell snapshots (see [`shell`]).
//!
//! A record is written before the change it describes (and withdrawn if the change fails), so
//! a crash between the two leaves a record whose paths still hold their "before" state, which
//! undo reports as already undone rather than touching.

pub mod blobs;
mod git_index;
pub mod pack;
pub mod restore;
pub mod retention;
mod scan;
mod shadow;
pub mod shell;
mod watch;

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::error::ToolError;
use crate::notice::{HistoryNotice, Notice};
use crate::session::state::State;

/// One side (before or after) of a path in a checkpoint.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Side {
    /// The content's name (of the link text for a symlink): its XXH3-128 or SHA-256, hex (see
    /// [`blobs`]).
    pub blob: String,
    /// Permission bits (`0o7777`).
    pub mode: u32,
    pub size: u64,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub symlink: bool,
}

/// One path a checkpoint changed. `None` on a side: the path did not exist.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Entry {
    /// Workspace-relative, `/`-separated.
    pub path: String,
    pub before: Option<Side>,
    pub after: Option<Side>,
}

impl Entry {
    /// `created`, `deleted` or `modified`.
    pub fn kind(&self) -> &'static str {
        match (&self.before, &self.after) {
            (None, Some(_)) => "created",
            (Some(_), None) => "deleted",
            _ => "modified",
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Checkpoint {
    pub id: u64,
    pub session: String,
    pub tool: String,
    /// Seconds since the Unix epoch.
    pub time: u64,
    pub summary: String,
    pub entries: Vec<Entry>,
    /// The checkpoints this one reverted (an undo).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub undoes: Vec<u64>,
    /// What could not be recorded (paths over the limits): the notices, as the call read them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notices: Vec<String>,
}

/// The content of one side of a change, as the caller has it in memory.
pub struct Content<'a> {
    pub parts: Vec<&'a [u8]>,
    pub mode: u32,
    pub symlink: bool,
    /// The parts' [`blobs::digest`] when the caller has it already (hashed in the pass that
    /// fingerprinted them, see [`blobs::digest_and_xxh3_64`]); `None`: computed here.
    pub digest: Option<[u8; 32]>,
}

impl<'a> Content<'a> {
    pub fn file(bytes: &'a [u8], mode: u32) -> Content<'a> {
        Content {
            parts: vec![bytes],
            mode: mode & 0o7777,
            symlink: false,
            digest: None,
        }
    }

    /// [`Content::file`] whose [`blobs::digest`] is known.
    pub fn file_with_digest(bytes: &'a [u8], mode: u32, digest: [u8; 32]) -> Content<'a> {
        Content {
            digest: Some(digest),
            ..Content::file(bytes, mode)
        }
    }

    /// The parts' [`blobs::digest`]: the one given, or computed.
    fn digest(&self) -> [u8; 32] {
        self.digest.unwrap_or_else(|| blobs::digest(&self.parts))
    }
}

/// One path's change, before it is stored.
pub struct Change<'a> {
    pub path: String,
    pub before: Option<Content<'a>>,
    pub after: Option<Content<'a>>,
}

pub fn history_dir(state: &State) -> PathBuf {
    state.dir().join("history")
}

/// Records a file tool's change like [`record`], but a history that cannot be written does not
/// stop the change: the call proceeds, and its result says that undo cannot take it back.
pub fn record_or_notice(state: &State, tool: &str, summary: &str, changes: &[Change]) -> Option<Recorded> {
    match record(state, tool, summary, changes, Vec::new()) {
        Ok(recorded) => Some(recorded),
        Err(err) => {
            state.add_notice(HistoryNotice::ChangeNotRecorded { error: err.message() });
            None
        }
    }
}

/// A stored checkpoint whose change may still fail: [`Recorded::discard`] withdraws it.
pub struct Recorded {
    pub id: u64,
    dir: PathBuf,
}

impl Recorded {
    /// Withdraws the record of a change that did not happen (its bytes go at the next prune).
    pub fn discard(&self) {
        if let Ok(mut store) = pack::Store::lock(&self.dir) {
            let _ = store.pack.append(&[pack::Item {
                kind: pack::Kind::Discard,
                hash: [0; 32],
                id: self.id,
                parts: Vec::new(),
            }]);
        }
    }
}

fn io_error(state: &State, err: &std::io::Error) -> ToolError {
    let dir = history_dir(state);
    state.io_error(&dir, ".codesmith/history", "record a checkpoint in", err)
}

/// Stores the "before" contents of `changes` and the checkpoint describing them;
/// returns its id. Applies the retention limits afterwards.
pub fn record(
    state: &State,
    tool: &str,
    summary: &str,
    changes: &[Change],
    notices: Vec<Notice>,
) -> Result<Recorded, ToolError> {
    record_undo(state, tool, summary, changes, notices, Vec::new())
}

/// [`record`] for a revert of the checkpoints `undoes`.
///
/// Everything goes into the pack in one append under the lock: the "before" blobs not stored
/// yet, then the record. An "after" is recorded by its hash only: undo compares what a path
/// holds with it, and restores only "before" states; the bytes of an undo's own "before" (the
/// state it takes back) are stored by the undo, which is what a redo restores.
pub fn record_undo(
    state: &State,
    tool: &str,
    summary: &str,
    changes: &[Change],
    notices: Vec<Notice>,
    undoes: Vec<u64>,
) -> Result<Recorded, ToolError> {
    let fail = |err: std::io::Error| io_error(state, &err);
    let mut store = pack::Store::lock(&history_dir(state)).map_err(fail)?;
    let mut items = Vec::new();
    let entries = changes
        .iter()
        .map(|change| Entry {
            path: change.path.clone(),
            before: change.before.as_ref().map(|c| stage(&store.pack, &mut items, c)),
            after: change.after.as_ref().map(|c| side(c, c.digest())),
        })
        .collect();
    let checkpoint = Checkpoint {
        id: store.usage.next,
        session: state.session_name().to_string(),
        tool: tool.to_string(),
        time: now_secs(),
        summary: one_line(summary),
        entries,
        undoes,
        // Stored as the call read them: the history tool shows them as they were said.
        notices: crate::notice::render_all(&notices),
    };
    let bytes = serde_json::to_vec(&checkpoint).map_err(|err| fail(std::io::Error::other(err)))?;
    // The id is taken (the counter saved) before the record is written, so a call killed in
    // between leaves a gap, never an id the next call would take again.
    store.usage.next += 1;
    store.save().map_err(fail)?;
    items.push(pack::Item {
        kind: pack::Kind::Record,
        hash: blobs::digest(&[&bytes]),
        id: checkpoint.id,
        parts: vec![&bytes],
    });
    store.pack.append(&items).map_err(fail)?;
    retention::enforce(state, &mut store, checkpoint.id).map_err(fail)?;
    Ok(Recorded {
        id: checkpoint.id,
        dir: store.dir.clone(),
    })
}

/// The "before" side `content` is recorded as; its bytes join `items` unless the pack or
/// `items` holds them already. A name already taken by other bytes (see [`blobs`]) gives way
/// to the content's SHA-256.
fn stage<'a>(pack: &pack::Pack, items: &mut Vec<pack::Item<'a>>, content: &Content<'a>) -> Side {
    let fast = content.digest();
    let digest = match held(pack, items, &fast, &content.parts) {
        Some(true) => return side(content, fast),
        None => fast,
        Some(false) => {
            let sha = blobs::sha256(&content.parts);
            if held(pack, items, &sha, &content.parts).is_some() {
                return side(content, sha);
            }
            sha
        }
    };
    items.push(pack::Item {
        kind: pack::Kind::Blob,
        hash: digest,
        id: 0,
        parts: content.parts.clone(),
    });
    side(content, digest)
}

/// Whether the pack or `items` holds a blob named `digest`, and if so whether it is `parts`.
fn held(pack: &pack::Pack, items: &[pack::Item], digest: &[u8; 32], parts: &[&[u8]]) -> Option<bool> {
    let len = |parts: &[&[u8]]| parts.iter().map(|p| p.len()).sum::<usize>();
    let same = |stored: &[&[u8]]| len(stored) == len(parts) && same_bytes(stored, parts);
    if let Some(item) = items.iter().find(|item| item.hash == *digest) {
        return Some(same(&item.parts));
    }
    let entry = pack.blob(digest)?;
    // A stored blob of another length is other bytes; it is read only when it could be these.
    if usize::try_from(entry.len).ok() != Some(len(parts)) {
        return Some(false);
    }
    Some(pack.read(&entry).is_ok_and(|bytes| same(&[&bytes])))
}

/// Whether two lists of parts spell the same bytes (of equal total length), compared slice by
/// slice without joining either side.
fn same_bytes(a: &[&[u8]], b: &[&[u8]]) -> bool {
    let (mut a, mut b) = (a.iter().copied(), b.iter().copied());
    let (mut x, mut y): (&[u8], &[u8]) = (&[], &[]);
    loop {
        while x.is_empty() {
            match a.next() {
                Some(part) => x = part,
                None => return b.all(<[u8]>::is_empty) && y.is_empty(),
            }
        }
        while y.is_empty() {
            match b.next() {
                Some(part) => y = part,
                None => return false,
            }
        }
        let n = x.len().min(y.len());
        if x[..n] != y[..n] {
            return false;
        }
        (x, y) = (&x[n..], &y[n..]);
    }
}

/// A side as recorded: the content's hash, mode, size and kind.
fn side(content: &Content, digest: [u8; 32]) -> Side {
    Side {
        blob: blobs::hex(&digest),
        mode: content.mode & 0o7777,
        size: content.parts.iter().map(|p| p.len() as u64).sum(),
        symlink: content.symlink,
    }
}

fn now_secs() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// The first line of `text`, at most 120 characters.
pub fn one_line(text: &str) -> String {
    const MAX: usize = 120;
    let line = text.lines().next().unwrap_or("").trim();
    let mut out: String = line.chars().take(MAX).collect();
    if line.chars().count() > MAX || text.trim().lines().nth(1).is_some() {
        out.push('…');
    }
    out
}

/// The stored checkpoints, oldest first; of one session when given.
pub fn list(state: &State, session: Option<&str>) -> Vec<Checkpoint> {
    let Ok(reader) = pack::Reader::open(&history_dir(state)) else {
        return Vec::new();
    };
    let mut checkpoints: Vec<Checkpoint> = reader
        .pack
        .records()
        .into_iter()
        .filter_map(|entry| serde_json::from_slice::<Checkpoint>(&reader.pack.read(&entry).ok()?).ok())
        .filter(|c| session.is_none_or(|s| s == c.session))
        .collect();
    checkpoints.sort_by_key(|c| c.id);
    checkpoints
}

/// The checkpoint with `id`, from any session.
pub fn find(state: &State, id: u64) -> Option<Checkpoint> {
    list(state, None).into_iter().find(|c| c.id == id)
}

/// The settings of `[history]` in config.toml.
#[derive(Debug, Clone)]
pub struct Settings {
    pub max_checkpoints: u64,
    pub max_bytes: u64,
    pub shell: bool,
}

impl Settings {
    pub const DEFAULT_MAX_CHECKPOINTS: u64 = 1000;
    pub const DEFAULT_MAX_BYTES: u64 = 512 * 1024 * 1024;

    pub fn load(state: &State) -> Settings {
        let config = crate::session::config::Config::load(state.dir()).unwrap_or_default();
        Settings::from_config(&config)
    }

    pub fn from_config(config: &crate::session::config::Config) -> Settings {
        let section = config.section("history");
        let int = |key: &str, default: u64| {
            section
                .and_then(|s| s.get(key))
                .and_then(toml::Value::as_integer)
                .filter(|n| *n > 0)
                .map_or(default, |n| n as u64)
        };
        Settings {
            max_checkpoints: int("max_checkpoints", Self::DEFAULT_MAX_CHECKPOINTS),
            max_bytes: int("max_bytes", Self::DEFAULT_MAX_BYTES),
            shell: section
                .and_then(|s| s.get("shell"))
                .and_then(toml::Value::as_bool)
                .unwrap_or(true),
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn parts_compare_as_the_bytes_they_spell() {
        use super::same_bytes;
        assert!(same_bytes(&[b"ab", b"", b"cd"], &[b"a", b"bcd"]));
        assert!(same_bytes(&[], &[b""]));
        assert!(!same_bytes(&[b"abc"], &[b"abd"]));
        assert!(!same_bytes(&[b"ab"], &[b"abc"]));
        assert!(!same_bytes(&[b"abc"], &[b"ab"]));
    }

    use super::*;

    #[test]
    fn summaries_are_one_line() {
        assert_eq!(one_line("edit_file a.txt"), "edit_file a.txt");
        assert_eq!(one_line("make\nmake test"), "make…");
        assert_eq!(one_line(&"x".repeat(200)).chars().count(), 121);
    }

    #[test]
    fn a_content_is_stored_by_its_fast_name_once_and_never_as_other_bytes() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut pack = pack::Pack::open(dir.path(), 0, true).expect("pack");
        let real: &[u8] = b"the content";
        // Other bytes already stored under the content's XXH3-128 name, as a collision would.
        let fast = blobs::digest(&[real]);
        pack.append(&[pack::Item {
            kind: pack::Kind::Blob,
            hash: fast,
            id: 0,
            parts: vec![b"other bytes"],
        }])
        .expect("append");
        let mut items = Vec::new();
        let side = stage(&pack, &mut items, &Content::file(real, 0o644));
        assert_eq!(side.blob, blobs::hex(&blobs::sha256(&[real])));
        assert_eq!(side.blob.len(), 64);
        assert_eq!(items.len(), 1);
        assert_eq!(items[0].parts.concat(), real);
        // A content whose name is free is stored under it, once however often it is staged.
        let mut items = Vec::new();
        let fresh: &[u8] = b"a fresh content";
        let first = stage(&pack, &mut items, &Content::file(fresh, 0o644));
        let again = stage(&pack, &mut items, &Content::file(fresh, 0o600));
        assert_eq!(first.blob, blobs::hex(&blobs::digest(&[fresh])));
        assert_eq!((first.blob.len(), again.blob), (32, first.blob.clone()));
        assert_eq!(items.len(), 1);
        pack.append(&items).expect("append");
        let mut items = Vec::new();
        assert_eq!(
            stage(&pack, &mut items, &Content::file(fresh, 0o644)).blob,
            first.blob
        );
        assert!(items.is_empty());
    }
}

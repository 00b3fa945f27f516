//! The symbol index under `.codesmith/index/`: kept current by the query that reads it.
//!
//! Over 600 lines: refreshing, merging and reading the index follow one lock protocol (who
//! updates, who only reads), kept in one file.
//!
//! Layout:
//! - `records/<hh>/<hash16>`: the symbols of one file content (see [`super::record`]), keyed
//!   by a 64-bit xxh3 of the bytes, so identical files share one record and a file changed
//!   back to an old content costs nothing.
//! - `manifest`: path → content hash, with the stat that vouches for it (see [`manifest`]).
//! - `names/<hh>` and `delta`: name → hashes (see [`postings`]).
//! - `records-version`: the fingerprint of the tags queries the records were made with; a
//!   manifest made with other queries, or a records-version that differs, starts everything over.
//! - `lock`: `flock`ed shared by a query that only reads, exclusively by one that updates.
//!
//! A query walks the tree with grep_files' walker and compares each file's stat with the
//! manifest. Files whose stat vouches for them cost nothing more. The others are read and
//! hashed; only a hash never seen is tagged again. Files gone from the tree leave the
//! manifest, and a record no file points to any more is deleted. Every file is replaced by
//! write-temp-then-rename, so a reader sees an old or a new file, never half of one; the lock
//! keeps the set of files a reader uses consistent. A manifest or name file that does not
//! decode makes the index start over ([`Index::reset`]); records that still decode are reused.

pub mod manifest;
pub mod postings;

use std::collections::{HashMap, HashSet};
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use ignore::WalkState;
use tree_sitter_tags::TagsContext;

use super::record::Record;
use super::{languages, record, Extracted, LanguageSpec};
use crate::fs::atomic::{write_atomically, WriteOptions};
use crate::session::state::Lock;
use manifest::{Entry, Manifest, Stat};
use postings::Posting;

/// Past this many content hashes in the delta (or 1 in 200 of the indexed files, if more),
/// a query merges the delta into the name shards.
const MERGE_THRESHOLD: usize = 64;

/// A refresh that gathers more new postings than this merges them into the shards as it goes,
/// so a cold build of a large tree holds a bounded number of them in memory.
const MAX_DELTA_IN_MEMORY: usize = 1_000_000;

/// Files larger than this are tagged one at a time: tree-sitter's tree of a multi-megabyte
/// (usually generated) file takes tens of times its size in memory, and peak memory stays
/// bounded only if no two such trees are alive together.
const LARGE_FILE_BYTES: usize = 1024 * 1024;

/// A source file the walk offered.
#[derive(Clone)]
pub struct SourceFile {
    /// Workspace-relative, with `/`.
    pub rel: String,
    pub abs: PathBuf,
    pub stat: Stat,
    pub language: &'static LanguageSpec,
}

/// Every file under `walk_root` in a language with a grammar, by grep_files' rules, sorted.
pub fn walk_sources(workspace_root: &Path, walk_root: &Path) -> Vec<SourceFile> {
    let found = Mutex::new(Vec::new());
    let walker =
        crate::fs::walk::search_walker(walk_root, crate::fs::walk::Rules::Respect, None).build_parallel();
    walker.run(|| {
        let mut flush = crate::fs::walk::Flush::into(&found);
        Box::new(move |result| {
            let Ok(entry) = result else {
                return WalkState::Continue;
            };
            if entry.file_type().is_some_and(|t| t.is_file()) {
                if let Some(source) = source_file(workspace_root, &entry) {
                    flush.local.push(source);
                }
            }
            WalkState::Continue
        })
    });
    let mut all = found.into_inner().unwrap_or_default();
    all.sort_by(|a, b| a.rel.cmp(&b.rel));
    all
}

/// The entry as a source file, if its name says a language (checked before the stat, which
/// only source files cost).
fn source_file(root: &Path, entry: &ignore::DirEntry) -> Option<SourceFile> {
    let abs = entry.path();
    let language = languages::for_path(abs)?;
    let meta = entry.metadata().ok()?;
    if meta.len() > crate::fs::walk::MAX_FILE_BYTES {
        return None;
    }
    let rel = abs.strip_prefix(root).ok()?.to_str()?.to_string();
    if rel.contains(['\t', '\n', '\r']) {
        return None;
    }
    Some(SourceFile {
        rel,
        abs: abs.to_path_buf(),
        stat: Stat::of(&meta),
        language,
    })
}

/// What a refresh did, for `data.index`.
#[derive(Debug, Default, Clone)]
pub struct Refresh {
    pub files: usize,
    /// Files whose content was hashed because their stat did not vouch for them.
    pub hashed: usize,
    /// Files tagged by tree-sitter (their hash had no record).
    pub parsed: usize,
    /// Files that left the index (deleted, or no longer offered by the walk).
    pub removed: usize,
    /// Records deleted because no file points to them any more.
    pub dropped_records: usize,
    /// The index was unreadable (or absent) and started over.
    pub rebuilt: bool,
    pub merged: bool,
}

/// The index as a query sees it, valid while the lock is held.
pub struct View {
    pub manifest: Manifest,
    live: HashMap<u64, u32>,
    _lock: Lock,
}

pub struct Index {
    dir: PathBuf,
}

fn now_ns() -> i128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as i128)
        .unwrap_or(0)
}

impl Index {
    /// The index of the workspace whose state directory is `state_dir`.
    pub fn new(state_dir: &Path) -> Index {
        Index {
            dir: state_dir.join("index"),
        }
    }

    /// The workspace root the index belongs to.
    pub fn workspace_root(&self) -> Option<&Path> {
        self.dir.parent()?.parent()
    }

    fn record_path(&self, hash: u64) -> PathBuf {
        let name = format!("{hash:016x}");
        self.dir.join("records").join(&name[..2]).join(name)
    }

    fn shard_path(&self, shard: usize) -> PathBuf {
        self.dir.join("names").join(format!("{shard:02x}"))
    }

    fn write(&self, path: &Path, text: &str) -> io::Result<()> {
        write_atomically(path, text.as_bytes(), WriteOptions::STATE_FILE)
    }

    /// The manifest, if it decodes and was made with this build's tags queries.
    fn read_manifest(&self) -> Option<Manifest> {
        Manifest::decode(&fs::read_to_string(self.dir.join("manifest")).ok()?)
            .filter(|m| m.fingerprint == languages::fingerprint())
    }

    /// The delta's postings: empty when absent, `None` when it does not decode.
    fn read_delta(&self) -> Option<Vec<Posting>> {
        match fs::read_to_string(self.dir.join("delta")) {
            Ok(text) => postings::decode_all(&text),
            Err(err) if err.kind() == io::ErrorKind::NotFound => Some(Vec::new()),
            Err(_) => None,
        }
    }

    fn lock_path(&self) -> io::Result<PathBuf> {
        fs::create_dir_all(&self.dir)?;
        Ok(self.dir.join("lock"))
    }

    /// Brings the index up to date with `sources` (the walk of the tree below `prefix`, a
    /// workspace-relative path, `""` for all of it), taken after `walk_started`.
    pub fn refresh(
        &self,
        sources: &[SourceFile],
        prefix: &str,
        walk_started: i128,
    ) -> io::Result<(View, Refresh)> {
        let lock_path = self.lock_path()?;
        let shared = Lock::shared(&lock_path)?;
        if let Some(manifest) = self.read_manifest() {
            if !needs_update(&manifest, sources, prefix) {
                let live = manifest.hash_counts();
                let refresh = Refresh {
                    files: sources.len(),
                    ..Refresh::default()
                };
                return Ok((
                    View {
                        manifest,
                        live,
                        _lock: shared,
                    },
                    refresh,
                ));
            }
        }
        drop(shared);
        let lock = Lock::exclusive(&lock_path)?;
        let mut refresh = Refresh {
            files: sources.len(),
            ..Refresh::default()
        };
        let (mut manifest, mut delta) = match (self.read_manifest(), self.read_delta()) {
            (Some(manifest), Some(delta)) => (manifest, delta),
            _ => {
                self.clear()?;
                refresh.rebuilt = true;
                (
                    Manifest {
                        fingerprint: languages::fingerprint(),
                        ..Manifest::default()
                    },
                    Vec::new(),
                )
            }
        };
        self.update(&mut manifest, &mut delta, sources, prefix, &mut refresh)?;
        manifest.indexed_at = walk_started;
        let live = manifest.hash_counts();
        if refresh.rebuilt {
            // Records of files that left while the manifest was unreadable would never be
            // released: sweep them now.
            refresh.dropped_records += self.sweep_records(&live);
        }
        let delta_hashes: HashSet<u64> = delta.iter().map(|p| p.hash).collect();
        if delta_hashes.len() > MERGE_THRESHOLD.max(live.len() / 200) {
            self.merge(&live.keys().copied().collect(), delta)?;
            refresh.merged = true;
            self.write(&self.dir.join("delta"), &postings::encode(&[]))?;
        } else {
            self.write(&self.dir.join("delta"), &postings::encode(&delta))?;
        }
        self.write(&self.dir.join("manifest"), &manifest.encode())?;
        Ok((
            View {
                manifest,
                live,
                _lock: lock,
            },
            refresh,
        ))
    }

    /// Starts the index over (see [`Index::clear`]).
    pub fn reset(&self) -> io::Result<()> {
        let _lock = Lock::exclusive(&self.lock_path()?)?;
        self.clear()
    }

    /// Removes the manifest and the name files; the records too when `records-version` does not
    /// name this build's tags queries.
    fn clear(&self) -> io::Result<()> {
        let version = format!("{:016x}\n", languages::fingerprint());
        let version_path = self.dir.join("records-version");
        if fs::read_to_string(&version_path).ok().as_deref() != Some(version.as_str()) {
            remove_dir(&self.dir.join("records"))?;
            self.write(&version_path, &version)?;
        }
        for file in ["manifest", "delta"] {
            match fs::remove_file(self.dir.join(file)) {
                Err(err) if err.kind() != io::ErrorKind::NotFound => return Err(err),
                _ => {}
            }
        }
        remove_dir(&self.dir.join("names"))
    }

    /// Hashes and tags what the stats do not vouch for, drops what left the tree, and deletes
    /// the records no file points to any more.
    fn update(
        &self,
        manifest: &mut Manifest,
        delta: &mut Vec<Posting>,
        sources: &[SourceFile],
        prefix: &str,
        refresh: &mut Refresh,
    ) -> io::Result<()> {
        let mut counts = manifest.hash_counts();
        let (stale, gone) = changes(manifest, sources, prefix);
        let mut orphans = Vec::new();
        let mut release = |hash: u64, counts: &mut HashMap<u64, u32>| {
            if let Some(count) = counts.get_mut(&hash) {
                *count -= 1;
                if *count == 0 {
                    counts.remove(&hash);
                    orphans.push(hash);
                }
            }
        };
        for path in gone {
            if let Some(entry) = manifest.files.remove(&path) {
                release(entry.hash, &mut counts);
                refresh.removed += 1;
            }
        }
        let known: HashSet<u64> = counts.keys().copied().collect();
        refresh.hashed = stale.len();
        let mut added = HashSet::new();
        let mut merge_error = None;
        self.hash_and_tag(&stale, &known, |i, outcome| {
            let source = stale[i];
            let old = manifest.files.get(&source.rel).map(|e| e.hash);
            let Some(outcome) = outcome else {
                // Unreadable now (deleted after the walk, or no permission): not indexed.
                if let Some(entry) = manifest.files.remove(&source.rel) {
                    release(entry.hash, &mut counts);
                    refresh.removed += 1;
                }
                return;
            };
            refresh.parsed += usize::from(outcome.parsed);
            *counts.entry(outcome.hash).or_insert(0) += 1;
            if old != Some(outcome.hash) && !known.contains(&outcome.hash) && added.insert(outcome.hash) {
                delta.extend(outcome.postings);
            }
            manifest.files.insert(
                source.rel.clone(),
                Entry {
                    hash: outcome.hash,
                    stat: source.stat,
                },
            );
            if let Some(old) = old.filter(|old| *old != outcome.hash) {
                release(old, &mut counts);
            }
            if delta.len() > max_delta_in_memory() && merge_error.is_none() {
                // Keeps memory bounded on a cold build: fold what is parsed so far into the
                // shards. Hashes known at the start stay too (a file still to come may point
                // to them again); the next merge drops any no file points to.
                let keep: HashSet<u64> = counts.keys().chain(known.iter()).copied().collect();
                match self.merge(&keep, std::mem::take(delta)) {
                    Ok(()) => refresh.merged = true,
                    Err(err) => merge_error = Some(err),
                }
            }
        });
        if let Some(err) = merge_error {
            return Err(err);
        }
        for hash in orphans {
            if !counts.contains_key(&hash) && fs::remove_file(self.record_path(hash)).is_ok() {
                refresh.dropped_records += 1;
            }
        }
        let live: HashSet<u64> = counts.keys().copied().collect();
        delta.retain(|p| live.contains(&p.hash));
        Ok(())
    }

    /// Deletes every record no file points to; returns how many.
    fn sweep_records(&self, live: &HashMap<u64, u32>) -> usize {
        let Ok(dirs) = fs::read_dir(self.dir.join("records")) else {
            return 0;
        };
        let mut dropped = 0;
        for file in dirs
            .flatten()
            .filter_map(|dir| fs::read_dir(dir.path()).ok())
            .flatten()
            .flatten()
        {
            let name = file.file_name();
            let hash = name.to_str().and_then(|n| u64::from_str_radix(n, 16).ok());
            if hash.is_none_or(|hash| !live.contains_key(&hash)) && fs::remove_file(file.path()).is_ok() {
                dropped += 1;
            }
        }
        dropped
    }

    /// Reads, hashes and (for a hash without a record) tags each file, on every core, handing
    /// each outcome (`None`: unreadable) to `apply` on this thread as it comes.
    fn hash_and_tag(
        &self,
        files: &[&SourceFile],
        known: &HashSet<u64>,
        mut apply: impl FnMut(usize, Option<Hashed>),
    ) {
        let next = AtomicUsize::new(0);
        let large = Mutex::new(());
        // Each file is read beneath the workspace root: a directory the walk listed may have
        // been swapped for a symlink out since.
        let roots = crate::fs::beneath::Roots::new(
            self.workspace_root().map(Path::to_path_buf).into_iter().collect(),
        );
        let reader = roots.reader();
        let threads = crate::fs::walk::threads().min(files.len().max(1));
        let (sender, receiver) = std::sync::mpsc::sync_channel::<(usize, Option<Hashed>)>(256);
        std::thread::scope(|scope| {
            for _ in 0..threads {
                let sender = sender.clone();
                let (next, large, reader) = (&next, &large, &reader);
                scope.spawn(move || {
                    let mut context = TagsContext::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(file) = files.get(i) else { break };
                        let hashed = self.hash_one(file, reader, known, large, &mut context);
                        if sender.send((i, hashed)).is_err() {
                            break;
                        }
                    }
                });
            }
            drop(sender);
            for (i, hashed) in receiver {
                apply(i, hashed);
            }
        });
    }

    fn hash_one(
        &self,
        file: &SourceFile,
        reader: &crate::fs::beneath::Reader,
        known: &HashSet<u64>,
        large: &Mutex<()>,
        context: &mut TagsContext,
    ) -> Option<Hashed> {
        let bytes = reader.read(&file.abs).ok()?;
        let hash = xxhash_rust::xxh3::xxh3_64(&bytes);
        if known.contains(&hash) {
            return Some(Hashed {
                hash,
                parsed: false,
                postings: Vec::new(),
            });
        }
        if let Some(record) = self.load_record(hash) {
            return Some(Hashed {
                hash,
                parsed: false,
                postings: postings::of_symbols(hash, &record.symbols),
            });
        }
        let _one_large_file_at_a_time = (bytes.len() > LARGE_FILE_BYTES).then(|| large.lock());
        // A file tree-sitter cannot tag is indexed with no symbols rather than retried forever.
        let extracted = super::extract_all(file.language, &bytes, context).unwrap_or(Extracted {
            symbols: Vec::new(),
            syntax_errors: true,
        });
        let _ = self.write(
            &self.record_path(hash),
            &record::encode(file.language.name, &extracted),
        );
        Some(Hashed {
            hash,
            parsed: true,
            postings: postings::of_symbols(hash, &extracted.symbols),
        })
    }

    /// A record, if it exists and decodes.
    pub fn load_record(&self, hash: u64) -> Option<Record> {
        record::decode(&fs::read_to_string(self.record_path(hash)).ok()?)
    }

    /// Tags `file` again and rewrites its record (one found missing or torn at query time).
    pub fn repair_record(&self, file: &Path, hash: u64) -> Option<Record> {
        let language = languages::for_path(file)?;
        let bytes = fs::read(file).ok()?;
        if xxhash_rust::xxh3::xxh3_64(&bytes) != hash {
            return None;
        }
        let extracted = super::extract_all(language, &bytes, &mut TagsContext::new()).ok()?;
        let text = record::encode(language.name, &extracted);
        let _ = self.write(&self.record_path(hash), &text);
        record::decode(&text)
    }

    /// Folds `delta` into the name shards, dropping postings of hashes no file points to.
    fn merge(&self, live: &HashSet<u64>, delta: Vec<Posting>) -> io::Result<()> {
        let mut by_shard: Vec<Vec<Posting>> = (0..postings::SHARDS).map(|_| Vec::new()).collect();
        for posting in delta {
            by_shard[postings::shard_of(&posting.name)].push(posting);
        }
        for (shard, mut added) in by_shard.into_iter().enumerate() {
            let path = self.shard_path(shard);
            let existing = match fs::read_to_string(&path) {
                Ok(text) => postings::decode_all(&text).ok_or_else(|| {
                    io::Error::new(
                        io::ErrorKind::InvalidData,
                        format!("{} does not decode", path.display()),
                    )
                })?,
                Err(err) if err.kind() == io::ErrorKind::NotFound => Vec::new(),
                Err(err) => return Err(err),
            };
            added.extend(existing);
            added.retain(|p| live.contains(&p.hash));
            added.sort();
            added.dedup();
            self.write(&path, &postings::encode(&added))?;
        }
        Ok(())
    }

    /// The live postings whose name, lowercased, is `key` (lowercase). `Err` when a name file
    /// does not decode: the caller resets the index and asks again.
    pub fn lookup(&self, view: &View, key: &str) -> Result<Vec<Posting>, IndexCorrupt> {
        let mut found = Vec::new();
        let mut keep = |name: &str, hash: u64, defines: bool| {
            if view.live.contains_key(&hash) && name.to_lowercase() == key {
                found.push(Posting {
                    name: name.to_string(),
                    hash,
                    defines,
                });
            }
        };
        for path in [self.shard_path(postings::shard_of(key)), self.dir.join("delta")] {
            match fs::read_to_string(&path) {
                Ok(text) => {
                    if !postings::decode(&text, &mut keep) {
                        return Err(IndexCorrupt);
                    }
                }
                Err(err) if err.kind() == io::ErrorKind::NotFound => {}
                Err(_) => return Err(IndexCorrupt),
            }
        }
        found.sort();
        found.dedup_by(|b, a| {
            // Same name and hash from shard and delta: one posting, defining if either says so.
            if a.name == b.name && a.hash == b.hash {
                a.defines |= b.defines;
                true
            } else {
                false
            }
        });
        Ok(found)
    }

    /// Every live defined name (for suggestions when nothing matches).
    pub fn defined_names(&self, view: &View) -> Result<HashSet<String>, IndexCorrupt> {
        let mut names = HashSet::new();
        let mut keep = |name: &str, hash: u64, defines: bool| {
            if defines && view.live.contains_key(&hash) && !names.contains(name) {
                names.insert(name.to_string());
            }
        };
        let files = (0..postings::SHARDS)
            .map(|shard| self.shard_path(shard))
            .chain([self.dir.join("delta")]);
        for path in files {
            match fs::read_to_string(&path) {
                Ok(text) if postings::decode(&text, &mut keep) => {}
                Err(err) if err.kind() == io::ErrorKind::NotFound => {}
                _ => return Err(IndexCorrupt),
            }
        }
        Ok(names)
    }
}

fn remove_dir(dir: &Path) -> io::Result<()> {
    match fs::remove_dir_all(dir) {
        Err(err) if err.kind() != io::ErrorKind::NotFound => Err(err),
        _ => Ok(()),
    }
}

/// [`MAX_DELTA_IN_MEMORY`]; in debug builds `CODESMITH_INDEX_BATCH=N` lowers it, so tests
/// can run the merges a cold build of a large tree makes on a small one.
fn max_delta_in_memory() -> usize {
    if cfg!(debug_assertions) {
        if let Some(n) = std::env::var("CODESMITH_INDEX_BATCH")
            .ok()
            .and_then(|v| v.parse().ok())
        {
            return n;
        }
    }
    MAX_DELTA_IN_MEMORY
}

/// A name file of the index does not decode.
#[derive(Debug)]
pub struct IndexCorrupt;

struct Hashed {
    hash: u64,
    parsed: bool,
    postings: Vec<Posting>,
}

/// Whether `path` is `prefix` or below it (`""` holds everything).
pub fn under(path: &str, prefix: &str) -> bool {
    prefix.is_empty()
        || path == prefix
        || path
            .strip_prefix(prefix)
            .is_some_and(|rest| rest.starts_with('/'))
}

fn needs_update(manifest: &Manifest, sources: &[SourceFile], prefix: &str) -> bool {
    let stale = sources.iter().any(|s| {
        manifest
            .files
            .get(&s.rel)
            .is_none_or(|e| !manifest.vouches(e, &s.stat))
    });
    if stale {
        return true;
    }
    let under_prefix = manifest.files.keys().filter(|path| under(path, prefix)).count();
    under_prefix != sources.len()
}

/// The current time for [`Index::refresh`]'s `walk_started`, taken before the walk.
pub fn walk_clock() -> i128 {
    now_ns()
}
/// A file a walk offered, as the manifests see it: its workspace-relative path and its stats.
pub(crate) trait Walked {
    fn rel(&self) -> &str;
    fn stat(&self) -> &Stat;
}

impl Walked for SourceFile {
    fn rel(&self) -> &str {
        &self.rel
    }
    fn stat(&self) -> &Stat {
        &self.stat
    }
}

/// What changed since the manifest under `prefix`: the files its stats do not vouch for, and
/// the paths it lists that the walk no longer offers. The symbol index and search_code's index
/// both keep a manifest of this kind.
pub(crate) fn changes<'s, F: Walked>(
    manifest: &Manifest,
    files: &'s [F],
    prefix: &str,
) -> (Vec<&'s F>, Vec<String>) {
    let stale: Vec<&F> = files
        .iter()
        .filter(|f| {
            manifest
                .files
                .get(f.rel())
                .is_none_or(|e| !manifest.vouches(e, f.stat()))
        })
        .collect();
    let offered: HashSet<&str> = files.iter().map(Walked::rel).collect();
    let gone: Vec<String> = manifest
        .files
        .keys()
        .filter(|path| under(path, prefix) && !offered.contains(path.as_str()))
        .cloned()
        .collect();
    (stale, gone)
}

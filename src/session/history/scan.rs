//! Which paths of the working tree differ from the shadow index, found by codesmith itself in
//! one parallel walk (a `readdir` per directory and an `fstatat` per entry, relative to its
//! directory), and git only when there is something to hash.
//!
//! An entry is unchanged when its type, executable bit, size, inode, mtime and ctime (with
//! nanoseconds) are those git recorded, and it is not "racily clean" (changed in the same
//! clock tick as the index was written). Any other entry is compared by content: its git blob
//! id is computed and checked against the index, so a file that was only touched is told from
//! one that was rewritten. New files are those the walk finds that the index does not hold;
//! the walk respects `.gitignore`, the shadow's `info/exclude` (`.codesmith/` and the
//! repository's own excludes) and the global git excludes, skips every `.git` and does not
//! enter nested repositories. An indexed file stays watched even where an ignore rule now
//! matches it, as git keeps a tracked file: entries the walk did not reach are checked one by
//! one.

use std::collections::{BTreeSet, HashMap};
use std::ffi::OsStr;
use std::fs;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex};

use ignore::gitignore::Gitignore;

use super::git_index::{Entry, Index};
use super::watch::{Events, Watch};

/// Files larger than this are not hashed here when their stat changed: they are handed to git.
const MAX_HASHED_BYTES: u64 = 16 * 1024 * 1024;
/// The most threads a scan uses.
const MAX_THREADS: usize = 4;

/// What differs from the index.
#[derive(Default)]
pub(super) struct Changes {
    /// Paths whose content, type, executable bit or presence changed, and new files.
    pub changed: Vec<Vec<u8>>,
    /// Paths whose stat data changed but not their content: git re-reads them only to bring
    /// the index's stat cache up to date.
    pub touched: Vec<Vec<u8>>,
    /// Index entries the walk did not reach (missing, or under an ignored directory): checked
    /// one by one, and again after a command (no watch covers them).
    pub unreached: Vec<Vec<u8>>,
    /// The files the walk saw whose permission bits are not what git would give back (0644 or
    /// 0755 less the umask, by the executable bit), with their exact bits: git keeps only the
    /// executable bit, so a checkpoint takes the rest from here.
    pub modes: Vec<(Vec<u8>, u32)>,
}

enum Verdict {
    Clean,
    Touched,
    Changed,
}

/// A directory waiting to be read, with the `.gitignore` matchers of it and its parents.
struct Job {
    rel: Vec<u8>,
    ignores: Arc<Vec<Gitignore>>,
}

/// What the walk shares between its threads.
struct Walk<'a> {
    root: &'a Path,
    index: &'a Index,
    /// The global git excludes, then the shadow's `info/exclude`: below every `.gitignore`.
    base_ignores: Vec<Gitignore>,
    queue: Mutex<(Vec<Job>, usize)>,
    wake: Condvar,
    watch: Option<&'a Watch>,
    /// The permission bits git would give back to a file without and with the executable bit
    /// (a new file's: 0666 and 0777 less the umask).
    default_modes: (u32, u32),
}

/// What one thread found.
#[derive(Default)]
struct Found {
    changes: Changes,
    visited: Vec<usize>,
}

/// Compares the working tree under `root` with `index`; `exclude` holds the shadow's extra
/// ignore rules. With `watch`, every directory read is watched from then on.
pub(super) fn changes(root: &Path, index: &Index, exclude: Gitignore, watch: Option<&Watch>) -> Changes {
    let root_job = Job {
        rel: Vec::new(),
        ignores: Arc::new(Vec::new()),
    };
    let (mut changes, visited) = walk(root, index, base_ignores(exclude), vec![root_job], watch);
    let mut reached = vec![false; index.entries.len()];
    for i in visited {
        reached[i] = true;
    }
    let mut dirs = HashMap::new();
    for (entry, _) in index.entries.iter().zip(&reached).filter(|(_, seen)| !**seen) {
        let verdict = check_path(root, Some(entry), &entry.path, index.mtime, (&[], &[]), &mut dirs);
        push(&mut changes, verdict, &entry.path);
        changes.unreached.push(entry.path.clone());
    }
    changes
}

/// The changes a command made, from the paths its watch events name (see [`Watch`]) and the
/// entries the walk before it did not reach; nothing else is read.
pub(super) fn changes_named(
    root: &Path,
    index: &Index,
    exclude: Gitignore,
    events: &Events,
    unreached: &[Vec<u8>],
) -> Changes {
    let base = base_ignores(exclude);
    let mut paths: BTreeSet<Vec<u8>> = events.files.iter().chain(unreached).cloned().collect();
    let mut jobs = Vec::new();
    for dir in &events.dirs {
        let mut prefix = dir.clone();
        prefix.push(b'/');
        let start = index.entries.partition_point(|e| e.path < prefix);
        for entry in &index.entries[start..] {
            if !entry.path.starts_with(&prefix) {
                break;
            }
            paths.insert(entry.path.clone());
        }
        let (parent, name) = split_parent(dir);
        let stack = ignore_stack(root, parent);
        let abs = root.join(OsStr::from_bytes(dir));
        let walkable = fs::symlink_metadata(&abs).is_ok_and(|m| m.is_dir())
            && walks_into(parent.is_empty(), OsStr::from_bytes(name), &abs, &stack, &base);
        if walkable {
            jobs.push(Job {
                rel: dir.clone(),
                ignores: Arc::new(ignore_stack(root, dir)),
            });
        }
    }
    let (mut changes, _) = walk(root, index, base.clone(), jobs, None);
    let mut stacks: HashMap<Vec<u8>, Vec<Gitignore>> = HashMap::new();
    let mut dirs = HashMap::new();
    for path in &paths {
        let entry = index
            .entries
            .binary_search_by(|e| e.path.as_slice().cmp(path))
            .ok()
            .map(|i| &index.entries[i]);
        let (parent, name) = split_parent(path);
        if entry.is_none() && (name == b".git" || path.starts_with(b".codesmith/") || path == b".codesmith") {
            continue;
        }
        let stack = stacks
            .entry(parent.to_vec())
            .or_insert_with(|| ignore_stack(root, parent));
        let verdict = check_path(root, entry, path, index.mtime, (stack, &base), &mut dirs);
        push(&mut changes, verdict, path);
    }
    for list in [&mut changes.changed, &mut changes.touched] {
        list.sort();
        list.dedup();
    }
    changes
}

/// The global git excludes, then the shadow's `info/exclude`: below every `.gitignore`.
fn base_ignores(exclude: Gitignore) -> Vec<Gitignore> {
    vec![Gitignore::global().0, exclude]
}

fn split_parent(path: &[u8]) -> (&[u8], &[u8]) {
    match memchr::memrchr(b'/', path) {
        Some(slash) => (&path[..slash], &path[slash + 1..]),
        None => (&[], path),
    }
}

/// The `.gitignore` matchers of the directory `rel` and its parents, outermost first.
fn ignore_stack(root: &Path, rel: &[u8]) -> Vec<Gitignore> {
    let mut stack = Vec::new();
    let mut dir = root.to_path_buf();
    let components = rel.split(|&b| b == b'/').filter(|c| !c.is_empty());
    for component in std::iter::once(&b""[..]).chain(components) {
        dir.push(OsStr::from_bytes(component));
        let file = dir.join(".gitignore");
        if file.is_file() {
            let mut builder = ignore::gitignore::GitignoreBuilder::new(&dir);
            builder.add(file);
            if let Ok(gitignore) = builder.build() {
                stack.push(gitignore);
            }
        }
    }
    stack
}

/// One path's verdict, from its `lstat`: against its index entry, or, for a path the index
/// does not hold, whether it is a new file no rule hides (`ignores`: the `.gitignore` stack of
/// its directory and the base rules).
fn check_path(
    root: &Path,
    entry: Option<&Entry>,
    rel: &[u8],
    index_mtime: (i64, i64),
    ignores: (&[Gitignore], &[Gitignore]),
    dirs: &mut HashMap<Vec<u8>, bool>,
) -> Verdict {
    let abs = root.join(OsStr::from_bytes(rel));
    // A path that leads through a symlink names a file elsewhere: the one it named is gone.
    let meta = match real_dir(root, split_parent(rel).0, dirs) {
        true => fs::symlink_metadata(&abs),
        false => Err(std::io::ErrorKind::NotFound.into()),
    };
    match (entry, meta) {
        (Some(entry), Ok(meta)) => check(&|| abs.clone(), &meta, entry, index_mtime),
        (Some(_), Err(_)) => Verdict::Changed,
        (None, Ok(meta))
            if (meta.is_file() || meta.is_symlink()) && !ignored(ignores.0, ignores.1, &abs, false) =>
        {
            Verdict::Changed
        }
        (None, _) => Verdict::Clean,
    }
}

/// Whether the directory `rel` is reached from `root` through directories only, no symlink.
fn real_dir(root: &Path, rel: &[u8], known: &mut HashMap<Vec<u8>, bool>) -> bool {
    if rel.is_empty() {
        return true;
    }
    if let Some(&real) = known.get(rel) {
        return real;
    }
    let real = real_dir(root, split_parent(rel).0, known)
        && fs::symlink_metadata(root.join(OsStr::from_bytes(rel))).is_ok_and(|m| m.is_dir());
    known.insert(rel.to_vec(), real);
    real
}

/// Walks from `jobs` on `threads`; returns the changes and the index entries it reached.
fn walk(
    root: &Path,
    index: &Index,
    base_ignores: Vec<Gitignore>,
    jobs: Vec<Job>,
    watch: Option<&Watch>,
) -> (Changes, Vec<usize>) {
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get().min(MAX_THREADS));
    let walk = Walk {
        root,
        index,
        base_ignores,
        queue: Mutex::new((jobs, 0)),
        wake: Condvar::new(),
        watch,
        default_modes: (
            crate::fs::atomic::new_file_mode(false),
            crate::fs::atomic::new_file_mode(true),
        ),
    };
    let found: Vec<Found> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads).map(|_| scope.spawn(|| walk.work())).collect();
        workers.into_iter().filter_map(|w| w.join().ok()).collect()
    });
    let mut changes = Changes::default();
    let mut visited = Vec::new();
    for found in found {
        visited.extend(found.visited);
        changes.changed.extend(found.changes.changed);
        changes.touched.extend(found.changes.touched);
        changes.modes.extend(found.changes.modes);
    }
    (changes, visited)
}

fn push(changes: &mut Changes, verdict: Verdict, path: &[u8]) {
    match verdict {
        Verdict::Clean => {}
        Verdict::Touched => changes.touched.push(path.to_vec()),
        Verdict::Changed => changes.changed.push(path.to_vec()),
    }
}

impl Walk<'_> {
    /// Keeps the exact permission bits of a regular file whose bits git would not give back.
    fn note_mode(&self, meta: &fs::Metadata, rel: &[u8], found: &mut Found) {
        if !meta.file_type().is_file() {
            return;
        }
        let mode = meta.mode() & 0o7777;
        let default = if mode & 0o100 != 0 {
            self.default_modes.1
        } else {
            self.default_modes.0
        };
        if mode != default {
            found.changes.modes.push((rel.to_vec(), mode));
        }
    }

    /// Takes directories off the queue until every thread is idle and the queue empty.
    fn work(&self) -> Found {
        let mut found = Found::default();
        loop {
            let job = {
                let Ok(mut queue) = self.queue.lock() else {
                    return found;
                };
                loop {
                    if let Some(job) = queue.0.pop() {
                        queue.1 += 1;
                        break job;
                    }
                    if queue.1 == 0 {
                        self.wake.notify_all();
                        return found;
                    }
                    queue = match self.wake.wait(queue) {
                        Ok(queue) => queue,
                        Err(_) => return found,
                    };
                }
            };
            let children = self.read_dir(&job, &mut found);
            let Ok(mut queue) = self.queue.lock() else {
                return found;
            };
            queue.1 -= 1;
            queue.0.extend(children);
            self.wake.notify_all();
        }
    }

    /// Checks the files of one directory; returns its subdirectories to walk.
    fn read_dir(&self, job: &Job, found: &mut Found) -> Vec<Job> {
        let abs = self.root.join(OsStr::from_bytes(&job.rel));
        if let Some(watch) = self.watch {
            watch.add(&abs, &job.rel);
        }
        let Ok(dir) = fs::read_dir(&abs) else {
            return Vec::new();
        };
        let listed: Vec<fs::DirEntry> = dir.filter_map(Result::ok).collect();
        let mut ignores = job.ignores.clone();
        if listed.iter().any(|e| e.file_name() == ".gitignore") {
            let mut builder = ignore::gitignore::GitignoreBuilder::new(&abs);
            builder.add(abs.join(".gitignore"));
            if let Ok(gitignore) = builder.build() {
                let mut stack = (*ignores).clone();
                stack.push(gitignore);
                ignores = Arc::new(stack);
            }
        }
        let mut rel = job.rel.clone();
        if !rel.is_empty() {
            rel.push(b'/');
        }
        let base = rel.len();
        // The index entries beneath this directory: one run of the sorted index, from `dir/`
        // up to `dir0` ('0' follows '/').
        let entries = &self.index.entries;
        let start = entries.partition_point(|e| e.path.as_slice() < rel.as_slice());
        let end = match rel.split_last() {
            Some((_, head)) => {
                let end_key = [head, b"0"].concat();
                start + entries[start..].partition_point(|e| e.path.as_slice() < end_key.as_slice())
            }
            None => entries.len(),
        };
        let here = &self.index.entries[start..end];
        let mut children = Vec::new();
        for entry in listed {
            let name = entry.file_name();
            rel.truncate(base);
            rel.extend_from_slice(name.as_bytes());
            let Ok(file_type) = entry.file_type() else {
                continue;
            };
            if file_type.is_dir() {
                if walks_into(
                    job.rel.is_empty(),
                    &name,
                    &abs.join(&name),
                    &ignores,
                    &self.base_ignores,
                ) {
                    children.push(Job {
                        rel: rel.clone(),
                        ignores: ignores.clone(),
                    });
                }
                continue;
            }
            if let Ok(i) = here.binary_search_by(|e| e.path.as_slice().cmp(rel.as_slice())) {
                found.visited.push(start + i);
                let verdict = match entry.metadata() {
                    Ok(meta) => {
                        self.note_mode(&meta, &rel, found);
                        check(&|| abs.join(&name), &meta, &here[i], self.index.mtime)
                    }
                    Err(_) => Verdict::Changed,
                };
                push(&mut found.changes, verdict, &rel);
            } else if (file_type.is_file() || file_type.is_symlink())
                && !ignored(&ignores, &self.base_ignores, &abs.join(&name), false)
            {
                if let Ok(meta) = entry.metadata() {
                    self.note_mode(&meta, &rel, found);
                }
                found.changes.changed.push(rel.clone());
            }
        }
        children
    }
}

/// Whether the walk enters the subdirectory `name` (at `abs`, in the root when `in_root`):
/// never `.git`, `.codesmith/` at the root, a nested repository or an ignored directory.
fn walks_into(in_root: bool, name: &OsStr, abs: &Path, ignores: &[Gitignore], base: &[Gitignore]) -> bool {
    !(name == ".git"
        || (in_root && name == ".codesmith")
        || abs.join(".git").exists()
        || ignored(ignores, base, abs, true))
}

/// git's precedence: the deepest `.gitignore` that has a say decides (`ignores`, innermost
/// last), then `base` in order.
fn ignored(ignores: &[Gitignore], base: &[Gitignore], abs: &Path, is_dir: bool) -> bool {
    for gitignore in ignores.iter().rev().chain(base) {
        let matched = gitignore.matched(abs, is_dir);
        if matched.is_ignore() {
            return true;
        }
        if matched.is_whitelist() {
            return false;
        }
    }
    false
}

/// The verdict on one index entry, from the path's `lstat` (`abs` makes its path, needed only
/// when the content is to be hashed).
fn check(abs: &dyn Fn() -> PathBuf, meta: &fs::Metadata, entry: &Entry, index_mtime: (i64, i64)) -> Verdict {
    let kind = entry.mode & 0o170000;
    if kind == 0o160000 {
        // A nested repository: its own git tracks it.
        return Verdict::Clean;
    }
    let file_type = meta.file_type();
    let same_kind = match kind {
        0o100000 => file_type.is_file() && (meta.mode() & 0o100 != 0) == (entry.mode & 0o100 != 0),
        0o120000 => file_type.is_symlink(),
        _ => false,
    };
    if !same_kind {
        return Verdict::Changed;
    }
    let stat_same = meta.mtime() as u32 == entry.mtime.0
        && meta.mtime_nsec() as u32 == entry.mtime.1
        && meta.ctime() as u32 == entry.ctime.0
        && meta.ctime_nsec() as u32 == entry.ctime.1
        && meta.ino() as u32 == entry.ino
        && meta.size() as u32 == entry.size;
    let racy = (i64::from(entry.mtime.0), i64::from(entry.mtime.1)) >= index_mtime;
    if stat_same && !racy {
        return Verdict::Clean;
    }
    // git writes a size of 0 for an entry it found racily clean, to have it re-read.
    if (entry.size != 0 && meta.size() as u32 != entry.size) || meta.size() > MAX_HASHED_BYTES {
        return Verdict::Changed;
    }
    match blob_id(&abs(), file_type.is_symlink()) {
        Some(oid) if oid == entry.oid => Verdict::Touched,
        _ => Verdict::Changed,
    }
}

/// The git blob id (SHA-1 of `blob <len>\0` and the content) of a file or a symlink's target.
fn blob_id(abs: &Path, symlink: bool) -> Option<[u8; 20]> {
    let content = if symlink {
        fs::read_link(abs).ok()?.into_os_string().into_vec()
    } else {
        fs::read(abs).ok()?
    };
    let mut context = ring::digest::Context::new(&ring::digest::SHA1_FOR_LEGACY_USE_ONLY);
    context.update(format!("blob {}\0", content.len()).as_bytes());
    context.update(&content);
    let mut oid = [0u8; 20];
    oid.copy_from_slice(context.finish().as_ref());
    Some(oid)
}

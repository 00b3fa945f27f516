//! The search index behind search_code: every text file's chunks (see [`chunks`]), stored per
//! content hash, ranked by BM25 over code-aware tokens (see [`tokens`], [`rank`]).
//!
//! Layout under `.codesmith/index/`, beside the symbol index:
//! - `chunks/<hh>/<hash16>`: the chunks of one file content, keyed by the xxh3 of its bytes, so
//!   identical files share them and an edit re-chunks only the file it changed.
//! - `search-manifest`: path → content hash with the stat that vouches for it (the symbol
//!   index's [`Manifest`] format; its fingerprint names the chunk format and the tags queries).
//! - `search-lock`: `flock`ed by the query, so two queries never update the index together.
//! - `vectors/<model16>/`: with an embedding model, the vectors of each content's chunks (see
//!   [`vectors`]); `model-stamp`: the model's hash with the stat that vouches for it.
//!
//! A query walks the tree as grep_files does, hashes the files whose stat does not vouch for
//! them, chunks the contents never seen (on every core), drops what left the tree, and then
//! reads the chunks of the files in scope, keeping only the query's terms.

pub mod chunks;
pub mod fusion;
pub mod rank;
pub mod tokens;
pub mod vectors;

use std::collections::{HashMap, HashSet};
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use ignore::WalkState;

use super::index::manifest::{Entry, Manifest, Stat};
use super::{languages, LanguageSpec};
use crate::fs::atomic::{write_atomically, WriteOptions};
use crate::session::state::Lock;
use chunks::Chunk;

/// Files larger than this are indexed without chunks: past a megabyte a text file is data or
/// generated code, not a place a question about the code leads to.
const MAX_CHUNKED_BYTES: u64 = 1024 * 1024;

/// A file the walk offered.
#[derive(Clone)]
pub struct TextFile {
    /// Workspace-relative, with `/`.
    pub rel: String,
    pub abs: PathBuf,
    pub stat: Stat,
    pub language: Option<&'static LanguageSpec>,
}

impl super::index::Walked for TextFile {
    fn rel(&self) -> &str {
        &self.rel
    }
    fn stat(&self) -> &Stat {
        &self.stat
    }
}

/// What a refresh did, for `data.index`.
#[derive(Debug, Default, Clone)]
pub struct Refresh {
    pub files: usize,
    pub hashed: usize,
    /// Files whose content had no chunks yet and was chunked.
    pub chunked: usize,
    pub removed: usize,
    pub rebuilt: bool,
}

/// The search index of a workspace.
pub struct SearchIndex {
    dir: PathBuf,
}

/// The index of the workspace whose state directory is `state_dir`, locked for this query.
pub struct Session {
    index: SearchIndex,
    pub manifest: Manifest,
    _lock: Lock,
}

fn fingerprint() -> u64 {
    let text = format!("{} {:016x}", chunks::HEADER, languages::fingerprint());
    xxhash_rust::xxh3::xxh3_64(text.as_bytes())
}

/// Every file under `walk_root` by grep_files' rules, sorted by path.
pub fn walk(workspace_root: &Path, walk_root: &Path) -> Vec<TextFile> {
    let found = Mutex::new(Vec::new());
    crate::fs::walk::search_walker(walk_root, crate::fs::walk::Rules::Respect, None)
        .build_parallel()
        .run(|| {
            let found = &found;
            Box::new(move |result| {
                let Ok(entry) = result else {
                    return WalkState::Continue;
                };
                if entry.file_type().is_some_and(|t| t.is_file()) {
                    if let Some(file) = text_file(workspace_root, &entry) {
                        if let Ok(mut all) = found.lock() {
                            all.push(file);
                        }
                    }
                }
                WalkState::Continue
            })
        });
    let mut all = found.into_inner().unwrap_or_default();
    all.sort_by(|a, b| a.rel.cmp(&b.rel));
    all
}

fn text_file(root: &Path, entry: &ignore::DirEntry) -> Option<TextFile> {
    let abs = entry.path();
    let meta = entry.metadata().ok()?;
    if meta.len() > crate::fs::walk::MAX_FILE_BYTES {
        return None;
    }
    let rel = abs.strip_prefix(root).ok()?.to_str()?.to_string();
    if rel.contains(['\t', '\n', '\r']) {
        return None;
    }
    Some(TextFile {
        rel,
        abs: abs.to_path_buf(),
        stat: Stat::of(&meta),
        language: languages::for_path(abs),
    })
}

impl SearchIndex {
    pub fn new(state_dir: &Path) -> SearchIndex {
        SearchIndex {
            dir: state_dir.join("index"),
        }
    }

    fn chunks_path(&self, hash: u64) -> PathBuf {
        let name = format!("{hash:016x}");
        self.dir.join("chunks").join(&name[..2]).join(name)
    }

    /// Locks the index and brings it up to date with `files` (the walk below `prefix`, a
    /// workspace-relative path, `""` for all), taken after `walk_started`.
    pub fn refresh(
        self,
        files: &[TextFile],
        prefix: &str,
        walk_started: i128,
    ) -> io::Result<(Session, Refresh)> {
        fs::create_dir_all(&self.dir)?;
        let lock = Lock::exclusive(&self.dir.join("search-lock"))?;
        let mut refresh = Refresh {
            files: files.len(),
            ..Refresh::default()
        };
        let manifest_path = self.dir.join("search-manifest");
        let mut manifest = fs::read_to_string(&manifest_path)
            .ok()
            .and_then(|text| Manifest::decode(&text))
            .filter(|m| m.fingerprint == fingerprint())
            .unwrap_or_else(|| {
                refresh.rebuilt = true;
                Manifest {
                    fingerprint: fingerprint(),
                    ..Manifest::default()
                }
            });
        let before = manifest.hash_counts();
        let (stale, gone) = super::index::changes(&manifest, files, prefix);
        for path in gone {
            manifest.files.remove(&path);
            refresh.removed += 1;
        }
        refresh.hashed = stale.len();
        let outcomes = self.hash_and_chunk(&stale);
        for (file, outcome) in stale.iter().zip(outcomes) {
            match outcome {
                Some((hash, chunked)) => {
                    refresh.chunked += usize::from(chunked);
                    manifest.files.insert(
                        file.rel.clone(),
                        Entry {
                            hash,
                            stat: file.stat,
                        },
                    );
                }
                None => {
                    refresh.removed += usize::from(manifest.files.remove(&file.rel).is_some());
                }
            }
        }
        if refresh.hashed > 0 || refresh.removed > 0 || refresh.rebuilt {
            manifest.indexed_at = walk_started;
            let after = manifest.hash_counts();
            for hash in before.keys().filter(|h| !after.contains_key(h)) {
                let _ = fs::remove_file(self.chunks_path(*hash));
                vectors::forget(&self.dir, *hash);
            }
            write_atomically(
                &manifest_path,
                manifest.encode().as_bytes(),
                WriteOptions::STATE_FILE,
            )?;
        }
        Ok((
            Session {
                index: self,
                manifest,
                _lock: lock,
            },
            refresh,
        ))
    }

    /// Hashes each file and chunks the contents without chunks yet, on every core: per file its
    /// hash and whether it was chunked (`None`: unreadable).
    fn hash_and_chunk(&self, files: &[&TextFile]) -> Vec<Option<(u64, bool)>> {
        // Each file is read beneath the workspace root: a directory the walk listed may have
        // been swapped for a symlink out since.
        let roots = workspace_roots(&self.dir);
        let reader = roots.reader();
        crate::fs::walk::map_parallel(files, tree_sitter_tags::TagsContext::new, |context, file| {
            self.hash_one(file, &reader, context)
        })
    }

    fn hash_one(
        &self,
        file: &TextFile,
        reader: &crate::fs::beneath::Reader,
        context: &mut tree_sitter_tags::TagsContext,
    ) -> Option<(u64, bool)> {
        let bytes = reader.read(&file.abs).ok()?;
        let hash = xxhash_rust::xxh3::xxh3_64(&bytes);
        let path = self.chunks_path(hash);
        if path.exists() {
            return Some((hash, false));
        }
        let found = chunks_of(&bytes, file.language, context);
        write_atomically(&path, chunks::encode(&found).as_bytes(), WriteOptions::STATE_FILE).ok()?;
        Some((hash, true))
    }
}

/// The chunks of a file's bytes: none for a binary, non-UTF-8 or very large file.
fn chunks_of(
    bytes: &[u8],
    language: Option<&'static LanguageSpec>,
    context: &mut tree_sitter_tags::TagsContext,
) -> Vec<Chunk> {
    if bytes.len() as u64 > MAX_CHUNKED_BYTES || memchr::memchr(0, &bytes[..bytes.len().min(8192)]).is_some()
    {
        return Vec::new();
    }
    let Ok(text) = std::str::from_utf8(bytes) else {
        return Vec::new();
    };
    let definitions = language
        .and_then(|lang| super::extract(lang, bytes, context).ok())
        .unwrap_or_default();
    chunks::chunk(text, language, &definitions)
}

/// The roots an index's files are read beneath: the workspace whose `.codesmith/index` is
/// `index_dir`.
pub(crate) fn workspace_roots(index_dir: &Path) -> crate::fs::beneath::Roots {
    let root = index_dir.parent().and_then(Path::parent).map(Path::to_path_buf);
    crate::fs::beneath::Roots::new(root.into_iter().collect())
}

impl Session {
    /// Chunks `path` again when its content still has `hash`.
    fn repair(&self, path: &str, hash: u64) -> Option<()> {
        let abs = self.index.dir.parent()?.parent()?.join(path);
        let bytes = workspace_roots(&self.index.dir).reader().read(&abs).ok()?;
        if xxhash_rust::xxh3::xxh3_64(&bytes) != hash {
            return None;
        }
        let mut context = tree_sitter_tags::TagsContext::new();
        let found = chunks_of(&bytes, languages::for_path(&abs), &mut context);
        write_atomically(
            &self.index.chunks_path(hash),
            chunks::encode(&found).as_bytes(),
            WriteOptions::STATE_FILE,
        )
        .ok()
    }

    /// The chunks of each path (workspace-relative) that `keep` selects, terms narrowed to
    /// `terms`; paths whose chunks cannot be read are left out.
    pub fn load(&self, paths: &[&str], terms: &HashSet<String>) -> Vec<(String, Vec<Chunk>)> {
        let wanted: Vec<(&str, u64)> = paths
            .iter()
            .filter_map(|p| Some((*p, self.manifest.files.get(*p)?.hash)))
            .collect();
        let mut by_hash: HashMap<u64, Option<Vec<Chunk>>> = wanted.iter().map(|(_, h)| (*h, None)).collect();
        let hashes: Vec<u64> = by_hash.keys().copied().collect();
        let loaded = crate::fs::walk::map_parallel(
            &hashes,
            || (),
            |(), hash| {
                let read = || {
                    let text = fs::read_to_string(self.index.chunks_path(*hash)).ok()?;
                    chunks::decode(&text, |t| terms.contains(t))
                };
                let chunks = read().or_else(|| {
                    // Missing or torn (removed by hand, a full disk): chunked again.
                    let path = wanted.iter().find(|(_, h)| h == hash)?.0;
                    self.repair(path, *hash)?;
                    read()
                });
                (*hash, chunks)
            },
        );
        for (hash, chunks) in loaded {
            by_hash.insert(hash, chunks);
        }
        wanted
            .into_iter()
            .filter_map(|(path, hash)| Some((path.to_string(), by_hash.get(&hash)?.clone()?)))
            .collect()
    }
}

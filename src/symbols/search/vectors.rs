//! The embedding of every chunk, stored per file content and model beside the chunks:
//! `vectors/<model16>/<hh>/<hash16>` holds one vector per chunk of that content, in the chunk
//! file's order. A content seen before is never embedded again; an edit embeds the one file it
//! changed; another model (or a changed one) has another directory, and the old one is removed.
//!
//! ```text
//! codesmith-vectors 1\n  u32 chunks  u32 dimensions  chunks × dimensions f32, little-endian
//! ```
//! A chunk none of whose words the model knows has the zero vector.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use super::{chunks, Session};
use crate::fs::atomic::{write_atomically, WriteOptions};
use crate::symbols::embed::Model;

const HEADER: &[u8] = b"codesmith-vectors 1\n";

/// The vectors of one content's chunks, `dims` floats each, one after another.
pub struct Stored {
    pub dims: usize,
    pub data: Vec<f32>,
}

impl Stored {
    pub fn get(&self, chunk: usize) -> Option<&[f32]> {
        self.data.get(chunk * self.dims..(chunk + 1) * self.dims)
    }
}

pub fn encode(dims: usize, vectors: &[Option<Vec<f32>>]) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER.len() + 8 + vectors.len() * dims * 4);
    out.extend_from_slice(HEADER);
    out.extend_from_slice(&(vectors.len() as u32).to_le_bytes());
    out.extend_from_slice(&(dims as u32).to_le_bytes());
    for vector in vectors {
        match vector {
            Some(v) => v.iter().for_each(|x| out.extend_from_slice(&x.to_le_bytes())),
            None => out.resize(out.len() + dims * 4, 0),
        }
    }
    out
}

/// The vectors of a stored file, or `None` when it is not a whole one of `dims` dimensions.
pub fn decode(bytes: &[u8], dims: usize) -> Option<Stored> {
    let rest = bytes.strip_prefix(HEADER)?;
    let count = u32::from_le_bytes(rest.get(..4)?.try_into().ok()?) as usize;
    let stored_dims = u32::from_le_bytes(rest.get(4..8)?.try_into().ok()?) as usize;
    let data = rest.get(8..)?;
    if stored_dims != dims || data.len() != count.checked_mul(dims)?.checked_mul(4)? {
        return None;
    }
    let data = data
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    Some(Stored { dims, data })
}

/// What a region is embedded as: its lines.
fn text_of<'a>(lines: &[&'a str], chunk: &chunks::Chunk) -> String {
    let start = (chunk.start_line as usize).saturating_sub(1).min(lines.len());
    let end = (chunk.end_line as usize).min(lines.len()).max(start);
    lines[start..end].join("\n")
}

impl Session {
    fn model_dir(&self, model: &Model) -> PathBuf {
        self.index.dir.join("vectors").join(format!("{:016x}", model.id))
    }

    fn vectors_path(&self, model: &Model, hash: u64) -> PathBuf {
        let name = format!("{hash:016x}");
        self.model_dir(model).join(&name[..2]).join(name)
    }

    /// Embeds the chunks of each of `paths` (workspace-relative) whose content has no vectors
    /// of `model` yet, on every core, and removes the vectors of other models. Returns how many
    /// contents with at least one region were embedded.
    pub fn embed_missing(&self, model: &Model, paths: &[&str]) -> usize {
        remove_other_models(&self.index.dir.join("vectors"), &self.model_dir(model));
        let mut seen = std::collections::HashSet::new();
        let missing: Vec<(&str, u64)> = paths
            .iter()
            .filter_map(|p| Some((*p, self.manifest.files.get(*p)?.hash)))
            .filter(|(_, hash)| seen.insert(*hash) && !self.vectors_path(model, *hash).exists())
            .collect();
        let next = AtomicUsize::new(0);
        let embedded = AtomicUsize::new(0);
        let threads = crate::fs::walk::threads().min(missing.len()).max(1);
        std::thread::scope(|scope| {
            for _ in 0..threads {
                scope.spawn(|| {
                    let mut embedder = model.embedder();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some((path, hash)) = missing.get(i) else { break };
                        if self.embed_one(model, &mut embedder, path, *hash) == Some(true) {
                            embedded.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                });
            }
        });
        embedded.into_inner()
    }

    fn embed_one(
        &self,
        model: &Model,
        embedder: &mut crate::symbols::embed::Embedder<'_>,
        path: &str,
        hash: u64,
    ) -> Option<bool> {
        let abs = self.index.dir.parent()?.parent()?.join(path);
        let bytes = fs::read(&abs).ok()?;
        if xxhash_rust::xxh3::xxh3_64(&bytes) != hash {
            // Changed since the refresh: the next query sees the new content.
            return None;
        }
        let read = || chunks::decode(&fs::read_to_string(self.index.chunks_path(hash)).ok()?, |_| false);
        let found = read().or_else(|| {
            self.repair(path, hash)?;
            read()
        })?;
        let text = String::from_utf8_lossy(&bytes);
        let lines: Vec<&str> = text.lines().collect();
        let vectors: Vec<Option<Vec<f32>>> = found
            .iter()
            .map(|chunk| embedder.embed(&text_of(&lines, chunk)))
            .collect();
        write_atomically(
            &self.vectors_path(model, hash),
            &encode(model.dims, &vectors),
            WriteOptions::STATE_FILE,
        )
        .ok()?;
        Some(!vectors.is_empty())
    }

    /// The stored vectors of each of `hashes` under `model`; a content whose vectors are
    /// missing or torn is left out (its chunks rank by words alone).
    pub fn vectors(&self, model: &Model, hashes: &[u64]) -> HashMap<u64, Stored> {
        let next = AtomicUsize::new(0);
        let loaded = Mutex::new(HashMap::new());
        let threads = crate::fs::walk::threads().min(hashes.len()).max(1);
        std::thread::scope(|scope| {
            for _ in 0..threads {
                scope.spawn(|| loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(hash) = hashes.get(i) else { break };
                    let Some(stored) = fs::read(self.vectors_path(model, *hash))
                        .ok()
                        .and_then(|bytes| decode(&bytes, model.dims))
                    else {
                        continue;
                    };
                    if let Ok(mut loaded) = loaded.lock() {
                        loaded.insert(*hash, stored);
                    }
                });
            }
        });
        loaded.into_inner().unwrap_or_default()
    }
}

/// Removes the vectors of models other than the one in `keep`.
fn remove_other_models(vectors: &Path, keep: &Path) {
    let Ok(entries) = fs::read_dir(vectors) else {
        return;
    };
    for entry in entries.flatten() {
        if entry.path() != keep {
            let _ = fs::remove_dir_all(entry.path());
        }
    }
}

/// Removes the vectors of `hash` under every model (its content left the index).
pub fn forget(index_dir: &Path, hash: u64) {
    let Ok(entries) = fs::read_dir(index_dir.join("vectors")) else {
        return;
    };
    let name = format!("{hash:016x}");
    for entry in entries.flatten() {
        let _ = fs::remove_file(entry.path().join(&name[..2]).join(&name));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vectors_round_trip_and_torn_files_are_refused() {
        let bytes = encode(2, &[Some(vec![0.6, 0.8]), None]);
        let stored = decode(&bytes, 2).expect("whole");
        assert_eq!(stored.get(0), Some(&[0.6f32, 0.8][..]));
        assert_eq!(stored.get(1), Some(&[0.0f32, 0.0][..]));
        assert_eq!(stored.get(2), None);
        assert!(decode(&bytes[..bytes.len() - 1], 2).is_none());
        assert!(decode(&bytes, 3).is_none(), "another width is another model");
        assert!(decode(b"codesmith-vectors 1\n", 2).is_none());
    }
}

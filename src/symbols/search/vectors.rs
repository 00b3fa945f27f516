//! The embedding of every chunk, stored per file content and model beside the chunks:
//! `vectors/<model16>/<hh>/<hash16>` holds one vector per chunk of that content, in the chunk
//! file's order. A content seen before is never embedded again; an edit embeds the one file it
//! changed; another model (or a changed one) has another directory, and the old one is removed.
//!
//! ```text
//! codesmith-vectors 2\n  u32 chunks  u32 dimensions  per chunk: f32 scale, dimensions × i8
//! ```
//! (little-endian). A vector is stored as bytes times one scale: a quarter of the disk and of
//! what a query reads, for a cosine that moves by less than a hundredth. A chunk none of whose
//! words the model knows has the zero vector.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

use super::{chunks, Session};
use crate::fs::atomic::{write_atomically, WriteOptions};
use crate::symbols::embed::Model;

const HEADER: &[u8] = b"codesmith-vectors 2\n";

/// The vectors of one content's chunks: the stored file as read.
pub struct Stored {
    dims: usize,
    /// After the header, per chunk: the scale (4 bytes), then one byte per dimension.
    bytes: Vec<u8>,
}

/// Where the records start: the header, the count and the width.
const RECORDS: usize = HEADER.len() + 8;

impl Stored {
    /// The cosine of chunk `chunk`'s vector and the unit vector `query`.
    pub fn similarity(&self, chunk: usize, query: &[f32]) -> Option<f32> {
        let size = 4 + self.dims;
        let record = self
            .bytes
            .get(RECORDS + chunk * size..RECORDS + (chunk + 1) * size)?;
        let scale = f32::from_le_bytes([record[0], record[1], record[2], record[3]]);
        let dot: f32 = record[4..]
            .iter()
            .zip(query)
            .map(|(q, x)| f32::from(*q as i8) * x)
            .sum();
        Some(dot * scale)
    }
}

fn encode(dims: usize, vectors: &[Option<Vec<f32>>]) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER.len() + 8 + vectors.len() * (4 + dims));
    out.extend_from_slice(HEADER);
    out.extend_from_slice(&(vectors.len() as u32).to_le_bytes());
    out.extend_from_slice(&(dims as u32).to_le_bytes());
    for vector in vectors {
        let largest = vector.iter().flatten().fold(0f32, |m, x| m.max(x.abs()));
        let scale = largest / 127.0;
        out.extend_from_slice(&scale.to_le_bytes());
        match vector {
            Some(v) if scale > 0.0 => out.extend(
                v.iter()
                    .map(|x| (x / scale).round().clamp(-127.0, 127.0) as i8 as u8),
            ),
            _ => out.resize(out.len() + dims, 0),
        }
    }
    out
}

/// The vectors of a stored file, or `None` when it is not a whole one of `dims` dimensions.
fn decode(bytes: Vec<u8>, dims: usize) -> Option<Stored> {
    let rest = bytes.strip_prefix(HEADER)?;
    let count = u32::from_le_bytes(rest.get(..4)?.try_into().ok()?) as usize;
    let stored_dims = u32::from_le_bytes(rest.get(4..8)?.try_into().ok()?) as usize;
    let records = rest.get(8..)?;
    if stored_dims != dims || records.len() != count.checked_mul(dims.checked_add(4)?)? {
        return None;
    }
    Some(Stored { dims, bytes })
}

/// What a region is embedded as: its lines.
fn text_of(lines: &[&str], chunk: &chunks::Chunk) -> String {
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
        // Each file is read beneath the workspace root, as the chunking read it.
        let roots = super::workspace_roots(&self.index.dir);
        let reader = roots.reader();
        let embedded = crate::fs::walk::map_parallel(
            &missing,
            || model.embedder(),
            |embedder, (path, hash)| self.embed_one(model, embedder, &reader, path, *hash) == Some(true),
        );
        embedded.into_iter().filter(|&done| done).count()
    }

    fn embed_one(
        &self,
        model: &Model,
        embedder: &mut crate::symbols::embed::Embedder<'_>,
        reader: &crate::fs::beneath::Reader,
        path: &str,
        hash: u64,
    ) -> Option<bool> {
        let abs = self.index.dir.parent()?.parent()?.join(path);
        let bytes = reader.read(&abs).ok()?;
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
    /// missing or torn is left out (its chunks rank by words alone this time).
    pub fn vectors(&self, model: &Model, hashes: &[u64]) -> HashMap<u64, Stored> {
        let loaded = crate::fs::walk::map_parallel(
            hashes,
            || (),
            |(), hash| {
                let path = self.vectors_path(model, *hash);
                let bytes = fs::read(&path).ok()?;
                let Some(stored) = decode(bytes, model.dims) else {
                    // Torn (a full disk): removed, so the next query embeds it again.
                    let _ = fs::remove_file(&path);
                    return None;
                };
                Some((*hash, stored))
            },
        );
        loaded.into_iter().flatten().collect()
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
    fn vectors_round_trip_within_a_hundredth_and_torn_files_are_refused() {
        let a = [0.6f32, 0.8, 0.0];
        let b = [0.0f32, -0.28, 0.96];
        let bytes = encode(3, &[Some(a.to_vec()), None, Some(b.to_vec())]);
        let stored = decode(bytes.clone(), 3).expect("whole");
        let exact = |x: &[f32], y: &[f32]| x.iter().zip(y).map(|(p, q)| p * q).sum::<f32>();
        for query in [a, b, [0.0, 0.0, 1.0]] {
            let near = |chunk: usize, v: &[f32]| {
                (stored.similarity(chunk, &query).expect("chunk") - exact(v, &query)).abs() < 0.01
            };
            assert!(near(0, &a) && near(2, &b));
            assert_eq!(stored.similarity(1, &query), Some(0.0));
        }
        assert_eq!(stored.similarity(3, &a), None);
        assert!(decode(bytes[..bytes.len() - 1].to_vec(), 3).is_none());
        assert!(decode(bytes, 4).is_none(), "another width is another model");
        assert!(decode(HEADER.to_vec(), 3).is_none());
    }
}

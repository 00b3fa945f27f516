//! Content-addressed blobs: `history/blobs/<aa>/<rest of the SHA-256>`, written once.

use std::fs;
use std::io;
use std::path::PathBuf;

use super::{Content, Side};
use crate::state::State;

pub fn blob_path(state: &State, hash: &str) -> PathBuf {
    let (head, rest) = hash.split_at(hash.len().min(2));
    super::history_dir(state).join("blobs").join(head).join(rest)
}

/// The SHA-256 of consecutive parts, hex.
pub fn hash_parts(parts: &[&[u8]]) -> String {
    let mut context = ring::digest::Context::new(&ring::digest::SHA256);
    for part in parts {
        context.update(part);
    }
    let digest = context.finish();
    digest.as_ref().iter().map(|b| format!("{b:02x}")).collect()
}

/// Stores `content` (unless a blob of that hash is there already); returns its side and the
/// number of bytes newly stored.
pub fn store(state: &State, content: &Content) -> io::Result<(Side, u64)> {
    let hash = hash_parts(&content.parts);
    let size: u64 = content.parts.iter().map(|p| p.len() as u64).sum();
    let path = blob_path(state, &hash);
    let mut added = 0;
    if fs::symlink_metadata(&path).is_err() {
        crate::atomic::write_atomically_parts(
            &path,
            &content.parts,
            crate::atomic::WriteOptions::STATE_FILE,
        )?;
        added = size;
    }
    let side = Side {
        blob: hash,
        mode: content.mode & 0o7777,
        size,
        symlink: content.symlink,
    };
    Ok((side, added))
}

/// The bytes of a stored blob, checked against its hash.
pub fn read(state: &State, hash: &str) -> io::Result<Vec<u8>> {
    let bytes = fs::read(blob_path(state, hash))?;
    if hash_parts(&[&bytes]) != hash {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("the stored blob {hash} does not match its hash"),
        ));
    }
    Ok(bytes)
}

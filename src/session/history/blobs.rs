//! Content-addressed blobs: `history/blobs/<aa>/<rest of the SHA-256>`, written once.

use std::fs;
use std::io;
use std::path::PathBuf;

use super::{Content, Side};
use crate::session::state::State;

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

/// The side `content` is recorded as, without storing it.
pub fn describe(content: &Content) -> Side {
    Side {
        blob: hash_parts(&content.parts),
        mode: content.mode & 0o7777,
        size: content.parts.iter().map(|p| p.len() as u64).sum(),
        symlink: content.symlink,
    }
}

/// Stores `content` (unless a blob of that hash is there already); returns its side and the
/// number of bytes newly stored.
pub fn store(state: &State, content: &Content) -> io::Result<(Side, u64)> {
    let hash = hash_parts(&content.parts);
    let size: u64 = content.parts.iter().map(|p| p.len() as u64).sum();
    let path = blob_path(state, &hash);
    let mut added = 0;
    // A blob of the right size is the content (its name is its hash; reads check it). One cut
    // short by a crash is rewritten, through a temp file; a new one is written in place.
    match fs::symlink_metadata(&path) {
        Ok(meta) if meta.len() == size => {}
        Ok(_) => {
            crate::fs::atomic::write_atomically_parts(
                &path,
                &content.parts,
                crate::fs::atomic::WriteOptions::STATE_FILE,
            )?;
            added = size;
        }
        Err(_) => {
            write_in_place(&path, &content.parts)?;
            added = size;
        }
    }
    let side = Side {
        blob: hash,
        mode: content.mode & 0o7777,
        size,
        symlink: content.symlink,
    };
    Ok((side, added))
}

fn write_in_place(path: &std::path::Path, parts: &[&[u8]]) -> io::Result<()> {
    use std::io::Write;
    let dir = path.parent().unwrap_or(std::path::Path::new("."));
    // Written under a temporary name and renamed, so the blob's name never holds part of it.
    // The directory is made only when missing (most blobs land in one that exists).
    let temp = || tempfile::Builder::new().prefix(".blob-").tempfile_in(dir);
    let mut temp = match temp() {
        Err(err) if err.kind() == io::ErrorKind::NotFound => {
            fs::create_dir_all(dir)?;
            temp()?
        }
        made => made?,
    };
    for part in parts {
        temp.write_all(part)?;
    }
    temp.persist(path).map_err(|err| err.error)?;
    Ok(())
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

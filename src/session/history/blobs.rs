//! Content-addressed blobs: a content is named by its hash and stored once in the pack (see
//! [`super::pack`]).
//!
//! The name is the content's XXH3-128, 32 hex digits (in the pack's 32-byte hash slot, the
//! last 16 bytes zero). It is fast (a checkpoint of a large file hashes it twice: the content
//! before, stored, and the content after, kept as a hash to check that undo finds what the
//! change left; each pass also yields the XXH3-64 of the file's freshness fingerprint, see
//! [`digest_and_xxh3_64`]), and it is not what keeps one content from standing for another: a content
//! whose name is already in the pack is compared with the stored bytes before it is taken as
//! stored, and one that differs (a collision, made on purpose) is named by its SHA-256 instead,
//! 64 hex digits, as every blob was in histories written before this naming. So a restore
//! always puts back the bytes that were there, and a name tells which hash it is by its length.

use std::io;

use super::pack;
use crate::session::state::State;

/// The XXH3-128 of consecutive parts, in a pack hash slot.
pub fn digest(parts: &[&[u8]]) -> [u8; 32] {
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    for part in parts {
        hasher.update(part);
    }
    let mut out = [0u8; 32];
    out[..16].copy_from_slice(&hasher.digest128().to_le_bytes());
    out
}

/// [`digest`] of consecutive parts and their XXH3-64 (the hash a freshness fingerprint holds,
/// see [`crate::session::fingerprint`]), from one pass over the bytes: XXH3 derives its 64- and
/// 128-bit results from the same accumulators, so a content both fingerprinted and
/// checkpointed (a file loaded for change, the new bytes of a write) is hashed once.
pub fn digest_and_xxh3_64(parts: &[&[u8]]) -> ([u8; 32], u64) {
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    for part in parts {
        hasher.update(part);
    }
    let mut out = [0u8; 32];
    out[..16].copy_from_slice(&hasher.digest128().to_le_bytes());
    (out, hasher.digest())
}

/// The SHA-256 of consecutive parts: the name of a content whose XXH3-128 names another.
pub fn sha256(parts: &[&[u8]]) -> [u8; 32] {
    let mut context = ring::digest::Context::new(&ring::digest::SHA256);
    for part in parts {
        context.update(part);
    }
    let mut out = [0u8; 32];
    out.copy_from_slice(context.finish().as_ref());
    out
}

/// Whether a hash slot holds a SHA-256 (an XXH3-128 leaves its last 16 bytes zero).
fn is_sha256(digest: &[u8; 32]) -> bool {
    digest[16..].iter().any(|&b| b != 0)
}

/// A hash's name: 32 hex digits for an XXH3-128, 64 for a SHA-256.
pub fn hex(digest: &[u8; 32]) -> String {
    let len = if is_sha256(digest) { 32 } else { 16 };
    digest[..len].iter().map(|b| format!("{b:02x}")).collect()
}

/// The hash slot a name stands for; `None` when it is not one.
pub fn from_hex(text: &str) -> Option<[u8; 32]> {
    let bytes = text.as_bytes();
    if bytes.len() != 64 && bytes.len() != 32 {
        return None;
    }
    let mut out = [0u8; 32];
    for (i, pair) in bytes.chunks_exact(2).enumerate() {
        let pair = std::str::from_utf8(pair).ok()?;
        out[i] = u8::from_str_radix(pair, 16).ok()?;
    }
    Some(out)
}

/// The hash of `bytes` of the kind `name` is: what to compare `name` with.
pub fn hash_like(name: &str, bytes: &[u8]) -> String {
    match name.len() {
        64 => hex(&sha256(&[bytes])),
        _ => hex(&digest(&[bytes])),
    }
}

/// The bytes of a stored blob, checked against its name.
pub fn read(state: &State, name: &str) -> io::Result<Vec<u8>> {
    let missing = || io::Error::new(io::ErrorKind::NotFound, format!("no stored blob {name}"));
    let digest = from_hex(name).ok_or_else(missing)?;
    let reader = pack::Reader::open(&super::history_dir(state))?;
    let entry = reader.pack.blob(&digest).ok_or_else(missing)?;
    let bytes = reader.pack.read(&entry)?;
    if hash_like(name, &bytes) != name {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("the stored blob {name} does not match its hash"),
        ));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_pass_gives_the_name_and_the_fingerprint_hash() {
        let bytes: Vec<u8> = (0..100_000u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect();
        for len in [0, 1, 16, 17, 128, 129, 240, 241, 1024, 1025, 99_999] {
            let content = &bytes[..len];
            let (name, fast) = digest_and_xxh3_64(&[content]);
            assert_eq!(name, digest(&[content]), "{len}");
            assert_eq!(fast, xxhash_rust::xxh3::xxh3_64(content), "{len}");
            let parts: Vec<&[u8]> = content.chunks(7).collect();
            assert_eq!(digest_and_xxh3_64(&parts), (name, fast), "{len} in parts");
        }
    }

    #[test]
    fn names_round_trip_and_say_their_hash() {
        let xxh = digest(&[b"a", b"bc"]);
        assert_eq!(xxh, digest(&[b"abc"]));
        assert_eq!(hex(&xxh).len(), 32);
        assert_eq!(from_hex(&hex(&xxh)), Some(xxh));
        let sha = sha256(&[b"abc"]);
        assert_eq!(hex(&sha).len(), 64);
        assert_eq!(
            hex(&sha),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(from_hex(&hex(&sha)), Some(sha));
        assert_eq!(hash_like(&hex(&sha), b"abc"), hex(&sha));
        assert_eq!(hash_like(&hex(&xxh), b"abc"), hex(&xxh));
        assert_eq!(from_hex("zz"), None);
        assert_eq!(from_hex(&"g".repeat(64)), None);
    }
}

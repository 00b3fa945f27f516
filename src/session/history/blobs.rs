//! Content-addressed blobs: a content is named by its SHA-256 and stored once in the pack
//! (see [`super::pack`]).

use std::io;

use super::pack;
use crate::session::state::State;

/// The SHA-256 of consecutive parts.
pub fn digest(parts: &[&[u8]]) -> [u8; 32] {
    let mut context = ring::digest::Context::new(&ring::digest::SHA256);
    for part in parts {
        context.update(part);
    }
    let mut out = [0u8; 32];
    out.copy_from_slice(context.finish().as_ref());
    out
}

/// The SHA-256 of consecutive parts, hex.
pub fn hash_parts(parts: &[&[u8]]) -> String {
    hex(&digest(parts))
}

pub fn hex(digest: &[u8; 32]) -> String {
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// The digest a hex name stands for; `None` when it is not one.
pub fn from_hex(text: &str) -> Option<[u8; 32]> {
    let bytes = text.as_bytes();
    if bytes.len() != 64 {
        return None;
    }
    let mut out = [0u8; 32];
    for (i, pair) in bytes.chunks_exact(2).enumerate() {
        let pair = std::str::from_utf8(pair).ok()?;
        out[i] = u8::from_str_radix(pair, 16).ok()?;
    }
    Some(out)
}

/// The bytes of a stored blob, checked against its hash.
pub fn read(state: &State, hash: &str) -> io::Result<Vec<u8>> {
    let missing = || io::Error::new(io::ErrorKind::NotFound, format!("no stored blob {hash}"));
    let digest = from_hex(hash).ok_or_else(missing)?;
    let reader = pack::Reader::open(&super::history_dir(state))?;
    let entry = reader.pack.blob(&digest).ok_or_else(missing)?;
    let bytes = reader.pack.read(&entry)?;
    if self::digest(&[&bytes]) != digest {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("the stored blob {hash} does not match its hash"),
        ));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_names_round_trip() {
        let digest = digest(&[b"a", b"bc"]);
        assert_eq!(hash_parts(&[b"abc"]), hex(&digest));
        assert_eq!(from_hex(&hex(&digest)), Some(digest));
        assert_eq!(from_hex("zz"), None);
        assert_eq!(from_hex(&"g".repeat(64)), None);
    }
}

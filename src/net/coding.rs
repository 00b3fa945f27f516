//! Content-Encoding: the codings a response body was sent with, undone in reverse order as the
//! body streams in, so the byte cap applies to the decoded bytes (a small compressed body can
//! expand a thousandfold) and a coding fetch_url cannot undo is named instead of shown as noise.

use std::io::{self, Read};

/// What fetch_url asks servers for: only codings it can undo (no brotli decoder is built in).
pub const ACCEPT_ENCODING: &str = "gzip, deflate";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Coding {
    Gzip,
    Deflate,
}

/// A coding fetch_url cannot undo, by its name, lowercased.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{name}")]
pub struct UnknownCoding {
    pub name: String,
}

/// The codings named by the Content-Encoding header values, in the order they were applied.
/// `identity` is dropped; names compare case-insensitively (`GZIP`, `x-gzip`).
pub fn parse<'a>(values: impl IntoIterator<Item = &'a str>) -> Result<Vec<Coding>, UnknownCoding> {
    let mut codings = Vec::new();
    for name in values.into_iter().flat_map(|value| value.split(',')) {
        let name = name.trim().to_ascii_lowercase();
        match name.as_str() {
            "" | "identity" => {}
            "gzip" | "x-gzip" => codings.push(Coding::Gzip),
            "deflate" => codings.push(Coding::Deflate),
            _ => return Err(UnknownCoding { name }),
        }
    }
    Ok(codings)
}

/// An error of the transport under the decoders, kept apart from a decoding failure.
#[derive(Debug)]
pub struct SourceError(pub io::Error);

impl std::fmt::Display for SourceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for SourceError {}

/// Tags every error of the raw body so `split_error` can tell it from a corrupt coding.
struct Source<R>(R);

impl<R: Read> Read for Source<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.0
            .read(buf)
            .map_err(|err| io::Error::new(err.kind(), SourceError(err)))
    }
}

/// The body with `codings` undone, outermost (last applied) first.
pub fn decoder<'a>(raw: impl Read + 'a, codings: &[Coding]) -> io::Result<Box<dyn Read + 'a>> {
    let mut source = Source(raw);
    if codings.is_empty() {
        return Ok(Box::new(source));
    }
    // An empty body (a 204, a HEAD-like answer) is no corrupt stream: there is nothing to undo.
    let mut first = Vec::with_capacity(1);
    (&mut source).take(1).read_to_end(&mut first)?;
    if first.is_empty() {
        return Ok(Box::new(io::empty()));
    }
    let mut reader: Box<dyn Read + 'a> = Box::new(io::Cursor::new(first).chain(source));
    for coding in codings.iter().rev() {
        reader = match coding {
            // Multi-member: `cat a.gz b.gz` is one valid gzip body.
            Coding::Gzip => Box::new(flate2::read::MultiGzDecoder::new(reader)),
            Coding::Deflate => deflate(reader)?,
        };
    }
    Ok(reader)
}

/// HTTP's `deflate` is meant to be zlib-wrapped, but servers also send raw deflate: the first
/// two bytes tell (a zlib header is CM=8 and a multiple of 31).
fn deflate<'a>(mut reader: Box<dyn Read + 'a>) -> io::Result<Box<dyn Read + 'a>> {
    let mut head = Vec::with_capacity(2);
    (&mut reader).take(2).read_to_end(&mut head)?;
    let zlib =
        head.len() == 2 && head[0] & 0x0F == 8 && (u16::from(head[0]) << 8 | u16::from(head[1])) % 31 == 0;
    let whole = io::Cursor::new(head).chain(reader);
    Ok(if zlib {
        Box::new(flate2::read::ZlibDecoder::new(whole))
    } else {
        Box::new(flate2::read::DeflateDecoder::new(whole))
    })
}

/// Whether a read error came from the transport (`Ok`, the original error) or from a coding
/// that does not decode (`Err`).
pub fn split_error(err: io::Error) -> Result<io::Error, io::Error> {
    if err.get_ref().is_some_and(|inner| inner.is::<SourceError>()) {
        let kind = err.kind();
        return match err.into_inner().map(|inner| inner.downcast::<SourceError>()) {
            Some(Ok(source)) => Ok(source.0),
            _ => Ok(io::Error::from(kind)),
        };
    }
    Err(err)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn decode(bytes: &[u8], codings: &[Coding]) -> Vec<u8> {
        let mut out = Vec::new();
        decoder(bytes, codings)
            .and_then(|mut r| r.read_to_end(&mut out))
            .expect("decodes");
        out
    }

    #[test]
    fn names_are_case_insensitive_and_stacked() {
        assert_eq!(parse(["GZIP"]), Ok(vec![Coding::Gzip]));
        assert_eq!(parse(["x-gzip"]), Ok(vec![Coding::Gzip]));
        assert_eq!(parse(["gzip, gzip"]), Ok(vec![Coding::Gzip, Coding::Gzip]));
        assert_eq!(parse(["Deflate", "identity"]), Ok(vec![Coding::Deflate]));
        assert_eq!(
            parse(["gzip", "br"]),
            Err(UnknownCoding {
                name: "br".to_string()
            })
        );
    }

    #[test]
    fn zlib_and_raw_deflate() {
        let mut zlib = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
        zlib.write_all(b"hello").expect("zlib");
        let zlib = zlib.finish().expect("zlib");
        assert_eq!(decode(&zlib, &[Coding::Deflate]), b"hello");
        let mut raw = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::fast());
        raw.write_all(b"hello").expect("raw");
        let raw = raw.finish().expect("raw");
        assert_eq!(decode(&raw, &[Coding::Deflate]), b"hello");
    }

    #[test]
    fn an_empty_body_stays_empty() {
        assert_eq!(decode(b"", &[Coding::Gzip]), b"");
        assert_eq!(decode(b"", &[Coding::Deflate]), b"");
    }

    #[test]
    fn corrupt_bodies_are_decoding_errors() {
        let mut out = Vec::new();
        let err = decoder(&b"not gzip at all"[..], &[Coding::Gzip])
            .and_then(|mut r| r.read_to_end(&mut out))
            .expect_err("corrupt");
        assert!(split_error(err).is_err());
    }
}

//! Telling text from binary, and decoding text that is not UTF-8.
//!
//! Shared by every tool that shows or changes file content, so a file reads and writes back in
//! the same encoding everywhere.

use encoding_rs::Encoding;

/// How many leading bytes decide whether a file is binary.
pub const SNIFF_BYTES: usize = 8192;

/// A NUL byte in the first [`SNIFF_BYTES`] marks a file as binary (git's rule), unless the file
/// starts with a UTF-16 byte-order mark.
pub fn is_binary(prefix: &[u8]) -> bool {
    if utf16_bom(prefix).is_some() {
        return false;
    }
    memchr::memchr(0, &prefix[..prefix.len().min(SNIFF_BYTES)]).is_some()
}

fn utf16_bom(bytes: &[u8]) -> Option<&'static Encoding> {
    match bytes {
        [0xFF, 0xFE, ..] => Some(encoding_rs::UTF_16LE),
        [0xFE, 0xFF, ..] => Some(encoding_rs::UTF_16BE),
        _ => None,
    }
}

/// A file's bytes as text, and how to get back to the bytes.
#[derive(Debug, Clone)]
pub struct Decoded {
    pub text: String,
    /// The encoding the bytes are in (UTF-8 for plain and BOM'd UTF-8).
    pub encoding: &'static Encoding,
    /// The file starts with a byte-order mark (not part of `text`).
    pub bom: bool,
    /// The bytes were not valid in any encoding codesmith could identify with confidence;
    /// `text` holds U+FFFD where they were. Writing `text` back would corrupt the file.
    pub lossy: bool,
}

impl Decoded {
    /// Whether the text was UTF-8 (with or without a BOM), so a reader need not be told how it
    /// was decoded.
    pub fn is_utf8(&self) -> bool {
        !self.lossy && self.encoding == encoding_rs::UTF_8
    }
}

/// Decodes file content: UTF-8 (with or without BOM), UTF-16 with a BOM, or a legacy encoding
/// that `chardetng` identifies with high confidence and that decodes without error. Anything
/// else decodes lossily and is marked so.
pub fn decode(bytes: &[u8]) -> Decoded {
    if let Some(rest) = bytes.strip_prefix(b"\xEF\xBB\xBF") {
        if let Ok(text) = std::str::from_utf8(rest) {
            return Decoded {
                text: text.to_string(),
                encoding: encoding_rs::UTF_8,
                bom: true,
                lossy: false,
            };
        }
    }
    if let Some(encoding) = utf16_bom(bytes) {
        if let Some(text) = encoding.decode_without_bom_handling_and_without_replacement(&bytes[2..]) {
            return Decoded {
                text: text.into_owned(),
                encoding,
                bom: true,
                lossy: false,
            };
        }
    }
    if let Ok(text) = std::str::from_utf8(bytes) {
        return Decoded {
            text: text.to_string(),
            encoding: encoding_rs::UTF_8,
            bom: false,
            lossy: false,
        };
    }
    // Mostly UTF-8 with a few bad bytes (a stray Latin-1 byte pasted into a UTF-8 file) is far
    // more common than a legacy-encoded file that happens to hold valid UTF-8 sequences; decoding
    // such a file as, say, windows-1252 would turn every correct accented letter into mojibake.
    // "Mostly" matters: double-byte encodings such as Shift-JIS produce accidental valid UTF-8
    // pairs all the time, but alongside at least as many invalid bytes.
    if mostly_utf8(bytes) {
        return Decoded {
            text: String::from_utf8_lossy(bytes).into_owned(),
            encoding: encoding_rs::UTF_8,
            bom: false,
            lossy: true,
        };
    }
    let mut detector = chardetng::EncodingDetector::new();
    detector.feed(bytes, true);
    let (encoding, confident) = detector.guess_assess(None, false);
    if confident && encoding != encoding_rs::UTF_8 {
        if let Some(text) = encoding.decode_without_bom_handling_and_without_replacement(bytes) {
            return Decoded {
                text: text.into_owned(),
                encoding,
                bom: false,
                lossy: false,
            };
        }
    }
    Decoded {
        text: String::from_utf8_lossy(bytes).into_owned(),
        encoding: encoding_rs::UTF_8,
        bom: false,
        lossy: true,
    }
}

/// One run of bytes that is not UTF-8, in a file that otherwise is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvalidRun {
    /// 1-based line the run is on.
    pub line: usize,
    /// 0-based byte offset of the run in the file.
    pub offset: usize,
    pub bytes: Vec<u8>,
}

/// The first `limit` runs of invalid UTF-8 in `bytes`, and how many there are in all.
pub fn invalid_utf8_runs(bytes: &[u8], limit: usize) -> (Vec<InvalidRun>, usize) {
    let mut runs = Vec::new();
    let mut total = 0;
    let (mut offset, mut line) = (0usize, 1usize);
    for chunk in bytes.utf8_chunks() {
        let valid = chunk.valid().as_bytes();
        line += memchr::memchr_iter(b'\n', valid).count();
        offset += valid.len();
        let invalid = chunk.invalid();
        if invalid.is_empty() {
            continue;
        }
        total += 1;
        if runs.len() < limit {
            runs.push(InvalidRun {
                line,
                offset,
                bytes: invalid.to_vec(),
            });
        }
        // An invalid run never holds a newline (it is below 0x80 only when it is not there).
        offset += invalid.len();
    }
    (runs, total)
}

/// True when `bytes` hold valid multi-byte UTF-8 characters and at most half as many invalid
/// bytes. (Shift-JIS, EUC and GBK text measures at well under one valid byte per invalid one.)
pub fn mostly_utf8(bytes: &[u8]) -> bool {
    let mut valid = 0;
    let mut invalid = 0;
    for chunk in bytes.utf8_chunks() {
        valid += chunk.valid().bytes().filter(|b| *b >= 0x80).count();
        invalid += chunk.invalid().len();
    }
    valid > 0 && valid >= 2 * invalid
}

/// Encodes `text` back into `decoded`'s encoding (and BOM). `None` when a character cannot be
/// represented there.
pub fn encode(text: &str, encoding: &'static Encoding, bom: bool) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len() + 3);
    if encoding == encoding_rs::UTF_8 {
        if bom {
            out.extend_from_slice(b"\xEF\xBB\xBF");
        }
        out.extend_from_slice(text.as_bytes());
        return Some(out);
    }
    if encoding == encoding_rs::UTF_16LE || encoding == encoding_rs::UTF_16BE {
        let little = encoding == encoding_rs::UTF_16LE;
        if bom {
            out.extend_from_slice(if little { &[0xFF, 0xFE] } else { &[0xFE, 0xFF] });
        }
        for unit in text.encode_utf16() {
            out.extend_from_slice(&if little {
                unit.to_le_bytes()
            } else {
                unit.to_be_bytes()
            });
        }
        return Some(out);
    }
    let (bytes, _, unmappable) = encoding.encode(text);
    if unmappable {
        return None;
    }
    out.extend_from_slice(&bytes);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_latin1() {
        let bytes = b"caf\xe9 cr\xe8me br\xfbl\xe9e, na\xefve fa\xe7ade, d\xe9j\xe0 vu\n".to_vec();
        let decoded = decode(&bytes);
        assert!(!decoded.lossy);
        assert!(decoded.text.contains("café"));
        assert_eq!(
            encode(&decoded.text, decoded.encoding, decoded.bom).unwrap(),
            bytes
        );
    }

    #[test]
    fn mostly_utf8_with_a_bad_byte_is_lossy_utf8() {
        let mut bytes = "naïve café ".as_bytes().to_vec();
        bytes.push(0xff);
        bytes.extend_from_slice(b" end\n");
        let decoded = decode(&bytes);
        assert!(decoded.lossy);
        assert_eq!(decoded.encoding, encoding_rs::UTF_8);
        assert!(decoded.text.starts_with("naïve café \u{FFFD} end"));
    }

    #[test]
    fn invalid_runs_are_located_by_line_and_offset() {
        let bytes = "é\nab\u{e9}"
            .as_bytes()
            .iter()
            .copied()
            .chain([0xff, b'\n', 0xc3, b'x'])
            .collect::<Vec<_>>();
        let (runs, total) = invalid_utf8_runs(&bytes, 1);
        assert_eq!(total, 2);
        assert_eq!(
            runs,
            [InvalidRun {
                line: 2,
                offset: 7,
                bytes: vec![0xff]
            }]
        );
        let (runs, _) = invalid_utf8_runs(&bytes, 5);
        assert_eq!(
            (runs[1].line, runs[1].offset, runs[1].bytes.clone()),
            (3, 9, vec![0xc3])
        );
    }

    #[test]
    fn utf16_with_bom_is_text() {
        let mut bytes = vec![0xFF, 0xFE];
        for unit in "hi\n".encode_utf16() {
            bytes.extend_from_slice(&unit.to_le_bytes());
        }
        assert!(!is_binary(&bytes));
        let decoded = decode(&bytes);
        assert_eq!(decoded.text, "hi\n");
        assert_eq!(
            encode(&decoded.text, decoded.encoding, decoded.bom).unwrap(),
            bytes
        );
    }

    #[test]
    fn nul_means_binary() {
        assert!(is_binary(b"abc\0def"));
        assert!(!is_binary(b"abc def"));
    }

    #[test]
    fn shift_jis_with_accidental_utf8_pairs_round_trips() {
        // "# 設定ファイル / こんにちは、世界。..." in Shift-JIS; `\xc9\x82` etc. are valid UTF-8.
        let bytes: [u8; 101] = [
            35, 32, 144, 221, 146, 232, 131, 116, 131, 64, 131, 67, 131, 139, 10, 130, 177, 130, 241, 130,
            201, 130, 191, 130, 205, 129, 65, 144, 162, 138, 69, 129, 66, 130, 177, 130, 234, 130, 205, 131,
            101, 131, 88, 131, 103, 130, 197, 130, 183, 129, 66, 10, 147, 250, 150, 123, 140, 234, 130, 204,
            131, 116, 131, 64, 131, 67, 131, 139, 130, 240, 149, 210, 143, 87, 130, 181, 130, 220, 130, 183,
            129, 66, 10, 110, 97, 109, 101, 32, 61, 32, 34, 142, 82, 147, 99, 145, 190, 152, 89, 34, 10,
        ];
        let decoded = decode(&bytes);
        assert!(!decoded.lossy);
        assert_eq!(decoded.encoding, encoding_rs::SHIFT_JIS);
        assert!(decoded.text.contains("こんにちは"));
        assert_eq!(
            encode(&decoded.text, decoded.encoding, decoded.bom).unwrap(),
            bytes
        );
    }
}

//! Line endings: matching in LF space while writing back the file's own endings.
//!
//! Models see and produce `\n`. A CRLF file matched byte for byte would never match, and a
//! file normalized to LF and written back would change every line. So the tools match against
//! an LF view of the text ([`LfText`]) and splice replacements into the *original* text: bytes
//! outside an edited span are copied as they were, and the newlines inside a replacement take
//! the ending of the lines they replace (CRLF files stay CRLF; a mixed file keeps each region's
//! own ending). A lone `\r` that is not part of `\r\n` is content and is left alone.

use std::borrow::Cow;
use std::ops::Range;

use serde::Serialize;

/// One kind of line ending.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineEnding {
    Lf,
    Crlf,
}

impl LineEnding {
    pub fn as_str(self) -> &'static str {
        match self {
            LineEnding::Lf => "\n",
            LineEnding::Crlf => "\r\n",
        }
    }
}

/// Calls `f` with the offset of every `\n` in `bytes`, in order.
///
/// Where lines are short, a search per newline (`memchr_iter`) spends most of its time starting
/// over: on a 100,000-line file this is three times faster. On x86-64 it therefore tests 64
/// bytes at a time for a bitmask of their newlines (with SSE2, which every x86-64 CPU has) and
/// walks the mask's bits; elsewhere it is `memchr_iter`.
pub fn for_each_newline(bytes: &[u8], mut f: impl FnMut(usize)) {
    #[cfg(target_arch = "x86_64")]
    let done = {
        let mut blocks = bytes.chunks_exact(64);
        let mut base = 0;
        for block in &mut blocks {
            let mut mask = newline_mask(block);
            while mask != 0 {
                f(base + mask.trailing_zeros() as usize);
                mask &= mask - 1;
            }
            base += 64;
        }
        base
    };
    #[cfg(not(target_arch = "x86_64"))]
    let done = 0;
    for pos in memchr::memchr_iter(b'\n', &bytes[done..]) {
        f(done + pos);
    }
}

/// Bit `i` set where `block[i]` is `\n`; `block` is 64 bytes long.
#[cfg(target_arch = "x86_64")]
fn newline_mask(block: &[u8]) -> u64 {
    use std::arch::x86_64::{__m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_set1_epi8};
    debug_assert_eq!(block.len(), 64);
    let mut mask = 0u64;
    for (i, lane) in block.chunks_exact(16).enumerate() {
        // SAFETY: SSE2 is part of x86-64, so these instructions exist on every CPU this code
        // runs on; the load reads the 16 bytes of `lane` (unaligned loads allowed).
        let bits = unsafe {
            let newline = _mm_set1_epi8(b'\n' as i8);
            let data = _mm_loadu_si128(lane.as_ptr().cast::<__m128i>());
            _mm_movemask_epi8(_mm_cmpeq_epi8(data, newline))
        };
        mask |= u64::from(bits as u16) << (16 * i);
    }
    mask
}

/// How a text ends its lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct EndingProfile {
    /// Lines ending in a bare `\n`.
    pub lf: usize,
    /// Lines ending in `\r\n`.
    pub crlf: usize,
    /// The text ends with a line ending (or is empty).
    pub final_newline: bool,
}

impl EndingProfile {
    pub fn of(text: &str) -> EndingProfile {
        // Two vectorized counts instead of a visit per newline: this runs on every edit of
        // files of any size.
        let bytes = text.as_bytes();
        let newlines = memchr::memchr_iter(b'\n', bytes).count();
        let crlf = memchr::memmem::find_iter(bytes, b"\r\n").count();
        EndingProfile {
            lf: newlines - crlf,
            crlf,
            final_newline: text.is_empty() || text.ends_with('\n'),
        }
    }

    /// `"lf"`, `"crlf"`, `"mixed"`, or `"none"` (a single line without an ending).
    pub fn kind(&self) -> &'static str {
        match (self.lf, self.crlf) {
            (0, 0) => "none",
            (_, 0) => "lf",
            (0, _) => "crlf",
            _ => "mixed",
        }
    }

    /// The ending most lines use (LF on a tie or when there are none).
    pub fn dominant(&self) -> LineEnding {
        if self.crlf > self.lf {
            LineEnding::Crlf
        } else {
            LineEnding::Lf
        }
    }
}

/// Rewrites every `\r\n` in `text` as `\n` (used on model-supplied text, whose endings carry
/// no intent).
pub fn to_lf(text: &str) -> Cow<'_, str> {
    if text.contains("\r\n") {
        Cow::Owned(text.replace("\r\n", "\n"))
    } else {
        Cow::Borrowed(text)
    }
}

/// A replacement in LF space: `range` indexes [`LfText::as_str`], `text` uses `\n`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LfEdit {
    pub range: Range<usize>,
    pub text: String,
}

/// An LF view of a text, with the way back to the original offsets.
#[derive(Debug, Clone)]
pub struct LfText<'a> {
    original: &'a str,
    lf: Cow<'a, str>,
    /// LF-space offsets of every `\n` that was `\r\n` in the original, ascending.
    crlf_at: Vec<usize>,
    profile: EndingProfile,
}

impl<'a> LfText<'a> {
    /// O(n); borrows when the text has no `\r\n`.
    pub fn new(original: &'a str) -> LfText<'a> {
        let profile = EndingProfile::of(original);
        if profile.crlf == 0 {
            return LfText {
                original,
                lf: Cow::Borrowed(original),
                crlf_at: Vec::new(),
                profile,
            };
        }
        let mut lf = String::with_capacity(original.len());
        let mut crlf_at = Vec::with_capacity(profile.crlf);
        let mut last = 0;
        for pos in memchr::memmem::find_iter(original.as_bytes(), b"\r\n") {
            lf.push_str(&original[last..pos]);
            crlf_at.push(lf.len());
            last = pos + 1;
        }
        lf.push_str(&original[last..]);
        LfText {
            original,
            lf: Cow::Owned(lf),
            crlf_at,
            profile,
        }
    }

    /// The text with every `\r\n` as `\n`.
    pub fn as_str(&self) -> &str {
        &self.lf
    }

    pub fn original(&self) -> &'a str {
        self.original
    }

    pub fn profile(&self) -> EndingProfile {
        self.profile
    }

    /// The original offset of an LF-space offset. An offset at a `\n` that was `\r\n` maps to
    /// the `\r`, so a span ending before the newline leaves the whole `\r\n` outside it.
    pub fn to_original(&self, lf_offset: usize) -> usize {
        lf_offset + self.crlf_at.partition_point(|&at| at < lf_offset)
    }

    /// The ending a replacement of `range` should use: the majority ending of the newlines
    /// inside the span; for a span without one, the ending of the line it sits on.
    pub fn ending_for(&self, range: &Range<usize>) -> LineEnding {
        if self.crlf_at.is_empty() {
            return LineEnding::Lf;
        }
        if self.profile.lf == 0 {
            return LineEnding::Crlf;
        }
        let lf = self.lf.as_bytes();
        let span = &lf[range.start.min(lf.len())..range.end.min(lf.len())];
        let newlines = memchr::memchr_iter(b'\n', span).count();
        if newlines > 0 {
            let crlf = self.crlf_at.partition_point(|&at| at < range.end)
                - self.crlf_at.partition_point(|&at| at < range.start);
            return match (crlf * 2).cmp(&newlines) {
                std::cmp::Ordering::Greater => LineEnding::Crlf,
                std::cmp::Ordering::Less => LineEnding::Lf,
                std::cmp::Ordering::Equal => self.profile.dominant(),
            };
        }
        let nearest = memchr::memchr(b'\n', &lf[range.end.min(lf.len())..])
            .map(|i| range.end + i)
            .or_else(|| memchr::memrchr(b'\n', &lf[..range.start.min(lf.len())]));
        match nearest {
            Some(at) if self.crlf_at.binary_search(&at).is_ok() => LineEnding::Crlf,
            Some(_) => LineEnding::Lf,
            None => self.profile.dominant(),
        }
    }

    /// The original text with each edit applied. `edits` are in LF space, sorted and not
    /// overlapping; each replacement's `\n`s take [`LfText::ending_for`] its span. Every byte
    /// outside the spans is copied from the original unchanged.
    pub fn splice(&self, edits: &[LfEdit]) -> String {
        let parts = self.splice_parts(edits);
        let mut out = String::with_capacity(parts.iter().map(|p| p.len()).sum());
        for part in &parts {
            out.push_str(part);
        }
        out
    }

    /// [`LfText::splice`] as consecutive parts: stretches of the original, borrowed, and the
    /// replacements, so a large file can be written without being copied whole.
    pub fn splice_parts<'e>(&self, edits: &'e [LfEdit]) -> Vec<Cow<'e, str>>
    where
        'a: 'e,
    {
        let mut parts = Vec::with_capacity(edits.len() * 2 + 1);
        let mut last = 0;
        for edit in edits {
            let start = self.to_original(edit.range.start);
            let end = self.to_original(edit.range.end);
            parts.push(Cow::Borrowed(&self.original[last..start]));
            let text = to_lf(&edit.text);
            parts.push(match self.ending_for(&edit.range) {
                LineEnding::Lf => text,
                LineEnding::Crlf => Cow::Owned(text.replace('\n', "\r\n")),
            });
            last = end;
        }
        parts.push(Cow::Borrowed(&self.original[last..]));
        parts
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_newline_is_found_once_in_order() {
        for len in [0usize, 1, 63, 64, 65, 127, 128, 200, 1000] {
            for step in [1usize, 2, 3, 17, 64, 65] {
                let bytes: Vec<u8> = (0..len)
                    .map(|i| if i % step == 0 { b'\n' } else { b'x' })
                    .collect();
                let mut found = Vec::new();
                for_each_newline(&bytes, |pos| found.push(pos));
                let want: Vec<usize> = memchr::memchr_iter(b'\n', &bytes).collect();
                assert_eq!(found, want, "len {len}, step {step}");
            }
        }
    }

    fn edit(text: &LfText, search: &str, replace: &str) -> String {
        let start = text.as_str().find(search).unwrap();
        text.splice(&[LfEdit {
            range: start..start + search.len(),
            text: replace.to_string(),
        }])
    }

    #[test]
    fn profiles() {
        assert_eq!(EndingProfile::of("a\nb\n").kind(), "lf");
        assert_eq!(EndingProfile::of("a\r\nb\r\n").kind(), "crlf");
        assert_eq!(EndingProfile::of("a\r\nb\n").kind(), "mixed");
        assert_eq!(EndingProfile::of("a").kind(), "none");
        assert!(!EndingProfile::of("a\nb").final_newline);
    }

    #[test]
    fn crlf_stays_crlf() {
        let original = "one\r\ntwo\r\nthree\r\n";
        let text = LfText::new(original);
        assert_eq!(text.as_str(), "one\ntwo\nthree\n");
        assert_eq!(edit(&text, "two\n", "2\n2b\n"), "one\r\n2\r\n2b\r\nthree\r\n");
        assert_eq!(edit(&text, "two", "2"), "one\r\n2\r\nthree\r\n");
        assert_eq!(edit(&text, "one\ntwo", "x"), "x\r\nthree\r\n");
    }

    #[test]
    fn mixed_keeps_each_region() {
        let original = "a\r\nb\r\nc\nd\n";
        let text = LfText::new(original);
        assert_eq!(edit(&text, "b", "B\nB2"), "a\r\nB\r\nB2\r\nc\nd\n");
        assert_eq!(edit(&text, "d", "D\nD2"), "a\r\nb\r\nc\nD\nD2\n");
    }

    #[test]
    fn lone_cr_is_content() {
        let original = "a\rb\r\nc";
        let text = LfText::new(original);
        assert_eq!(text.as_str(), "a\rb\nc");
        assert_eq!(edit(&text, "c", "C"), "a\rb\r\nC");
    }

    #[test]
    fn offsets_map_back() {
        let text = LfText::new("ab\r\ncd\r\n");
        assert_eq!(text.to_original(2), 2);
        assert_eq!(text.to_original(3), 4);
        assert_eq!(text.to_original(6), 8);
    }
}

//! Applying one file's hunks to its text, keeping every byte the patch does not change.
//!
//! Over 600 lines: locating a hunk and explaining why one did not apply read the same line
//! index and fuzz levels, so they stay together.
//!
//! The file is split into lines that keep their own endings. Context lines are copied from
//! the file (so a fuzzy match never rewrites them), removed lines are dropped, and added lines
//! take the file's dominant line ending — or, when the patch spells endings out (a `git diff`
//! of a CRLF file carries the `\r`), the patch's. Whether the file ends with a newline changes
//! only where a hunk at the end of the file says so with `\ No newline at end of file`.

use std::fmt::Write as _;

use super::locate::{self, best_effort, find_line, Fuzz, Lines, Located, Search, MAX_WINDOW};
use super::model::{FilePatch, Hunk, Tag};
use crate::error::hunk::{HunkAt, HunkMiss, Nearest, SearchedBy};
use crate::error::ToolError;
use crate::fs::workspace::WsPath;

/// A file's text as lines: where each starts (4 bytes a line, not a 16-byte slice: a large
/// file has hundreds of thousands).
pub(super) struct FileText<'a> {
    text: &'a str,
    starts: Vec<u32>,
    /// The ending most lines use; what added lines get.
    pub ending: &'static str,
    pub final_newline: bool,
}

impl<'a> FileText<'a> {
    /// `text` is at most [`crate::tools::file_change::MAX_FILE_BYTES`] long, well under 4 GB.
    pub(super) fn new(text: &'a str) -> FileText<'a> {
        let mut starts = Vec::with_capacity(text.len() / 40 + 1);
        let (mut crlf, mut lf) = (0usize, 0usize);
        let mut start = 0;
        crate::fs::line_endings::for_each_newline(text.as_bytes(), |pos| {
            starts.push(start as u32);
            if pos > start && text.as_bytes()[pos - 1] == b'\r' {
                crlf += 1;
            } else {
                lf += 1;
            }
            start = pos + 1;
        });
        if start < text.len() {
            starts.push(start as u32);
        }
        FileText {
            text,
            starts,
            ending: if crlf > lf { "\r\n" } else { "\n" },
            final_newline: text.is_empty() || text.ends_with('\n'),
        }
    }

    /// Byte offset where line `i` starts (`text.len()` past the last line).
    fn start(&self, i: usize) -> usize {
        self.starts.get(i).map_or(self.text.len(), |&s| s as usize)
    }

    /// Line `i` with its ending.
    fn whole(&self, i: usize) -> &'a str {
        &self.text[self.start(i)..self.start(i + 1)]
    }

    /// Line `i`'s own ending.
    fn ending_of(&self, i: usize) -> &'a str {
        let whole = self.whole(i);
        if whole.ends_with("\r\n") {
            &whole[whole.len() - 2..]
        } else if whole.ends_with('\n') {
            &whole[whole.len() - 1..]
        } else {
            ""
        }
    }
}

impl Lines for FileText<'_> {
    fn count(&self) -> usize {
        self.starts.len()
    }

    fn line(&self, i: usize) -> &str {
        let whole = self.whole(i);
        let whole = whole.strip_suffix('\n').unwrap_or(whole);
        whole.strip_suffix('\r').unwrap_or(whole)
    }
}

/// A file's new content as a splice: stretches of the old text (byte ranges) and of a buffer of
/// added text, in order. A large file is then never copied whole: its untouched stretches are
/// written straight from the old text.
#[derive(Debug, Clone, Default)]
pub(super) struct Splice {
    /// `(added, start, end)`: a range of `added` when true, of the old text when false.
    parts: Vec<(bool, usize, usize)>,
    added: String,
    len: usize,
}

impl Splice {
    /// The parts as text, given the old text the splice was made from.
    pub(super) fn slices<'s>(&'s self, old: &'s str) -> impl Iterator<Item = &'s str> + 's {
        self.parts.iter().map(move |&(added, start, end)| {
            if added {
                &self.added[start..end]
            } else {
                &old[start..end]
            }
        })
    }

    /// The parts as bytes, given the old bytes (for plain UTF-8, the old text's bytes).
    pub(super) fn byte_slices<'s>(&'s self, old: &'s [u8]) -> impl Iterator<Item = &'s [u8]> + 's {
        self.parts.iter().map(move |&(added, start, end)| {
            if added {
                &self.added.as_bytes()[start..end]
            } else {
                &old[start..end]
            }
        })
    }

    /// The whole new text.
    pub(super) fn to_text(&self, old: &str) -> String {
        let mut text = String::with_capacity(self.len);
        for slice in self.slices(old) {
            text.push_str(slice);
        }
        text
    }

    pub(super) fn len(&self) -> usize {
        self.len
    }

    fn push(&mut self, added: bool, start: usize, end: usize) {
        if start == end {
            return;
        }
        self.len += end - start;
        match self.parts.last_mut() {
            Some(last) if last.0 == added && last.2 == start => last.2 = end,
            _ => self.parts.push((added, start, end)),
        }
    }

    fn push_added(&mut self, text: &str) {
        let start = self.added.len();
        self.added.push_str(text);
        self.push(true, start, start + text.len());
    }

    /// Drops the final line ending (`\r\n` or `\n`).
    fn drop_final_ending(&mut self, old: &str) {
        let Some(&(added, start, end)) = self.parts.last() else {
            return;
        };
        let slice = if added {
            &self.added[start..end]
        } else {
            &old[start..end]
        };
        let cut = if slice.ends_with("\r\n") {
            2
        } else if slice.ends_with('\n') {
            1
        } else {
            0
        };
        self.len -= cut;
        if let Some(last) = self.parts.last_mut() {
            last.2 -= cut;
            if last.1 == last.2 {
                self.parts.pop();
            }
        }
    }
}

/// The new content, built line by line. A line without an ending (the old last line) gets the
/// dominant one as soon as another line follows it; the final newline is settled at the end.
struct Out {
    splice: Splice,
    lines: usize,
    missing_ending: bool,
    dominant: &'static str,
}

impl Out {
    fn fix_missing_ending(&mut self) {
        if self.missing_ending {
            self.splice.push_added(self.dominant);
        }
    }

    /// Old line `j`, with its own ending.
    fn old_line(&mut self, file: &FileText, j: usize) {
        self.original(file, j, j + 1);
    }

    fn added_line(&mut self, content: &str, ending: &str) {
        self.fix_missing_ending();
        self.splice.push_added(content);
        self.splice.push_added(ending);
        self.missing_ending = ending.is_empty();
        self.lines += 1;
    }

    /// Old lines `from..to`, as one range.
    fn original(&mut self, file: &FileText, from: usize, to: usize) {
        if from >= to {
            return;
        }
        self.fix_missing_ending();
        self.splice.push(false, file.start(from), file.start(to));
        self.missing_ending = file.ending_of(to - 1).is_empty();
        self.lines += to - from;
    }

    fn finish(mut self, file: &FileText, final_newline: bool) -> Splice {
        if self.splice.len == 0 {
            return self.splice;
        }
        if final_newline && self.missing_ending {
            self.splice.push_added(self.dominant);
        } else if !final_newline && !self.missing_ending {
            self.splice.drop_final_ending(file.text);
        }
        self.splice
    }
}

/// What applying one file's hunks produced.
pub(super) struct Applied {
    /// The new content, as a splice of the text the hunks were applied to.
    pub splice: Splice,
    pub hunks: Vec<HunkResult>,
    /// The unified diff of the change (hunk bodies only; the caller adds the file header).
    pub diff: String,
}

#[derive(Debug, Clone)]
pub(super) struct HunkResult {
    /// 1-based line the hunk was applied at in the old file.
    pub line: usize,
    /// How far that is from where the header said (0 for `*** Begin Patch` chunks).
    pub offset: isize,
    pub fuzz: Fuzz,
}

/// Who the hunks belong to, for messages.
pub(super) struct Target<'p> {
    pub path: &'p WsPath,
    pub patch: &'p FilePatch,
}

/// Applies `target.patch`'s hunks to `text`.
pub(super) fn apply(text: &str, target: &Target) -> Result<Applied, ToolError> {
    let file = FileText::new(text);
    let patch = target.patch;
    let n = file.count();
    let mut out = Out {
        splice: Splice::default(),
        lines: 0,
        missing_ending: false,
        dominant: file.ending,
    };
    let mut results = Vec::with_capacity(patch.hunks.len());
    let mut diff = String::new();
    let mut final_newline = file.final_newline;
    let mut cursor = 0usize;
    let mut offset: isize = 0;
    let mut pattern: Vec<&str> = Vec::new();
    for (index, hunk) in patch.hunks.iter().enumerate() {
        pattern.clear();
        pattern.extend(hunk.old_lines().map(|l| l.text.as_str()));
        let (at, fuzz) = place(&file, hunk, &pattern, cursor, offset)
            .map_err(|failure| failure.into_error(&file, target, index, &pattern))?;
        out.original(&file, cursor, at);
        let new_at = out.lines;
        let mut j = at;
        for line in &hunk.body {
            match line.tag {
                Tag::Context => {
                    out.old_line(&file, j);
                    j += 1;
                }
                Tag::Remove => j += 1,
                Tag::Add => out.added_line(&line.text, added_ending(patch, line.cr, file.ending)),
            }
        }
        if j == n && hunk.new_no_newline {
            final_newline = false;
        } else if j == n && hunk.old_no_newline {
            final_newline = true;
        }
        let ends = Ends {
            old_missing: j == n && n > 0 && !file.final_newline,
            new_missing: j == n && !final_newline,
        };
        render_hunk(&mut diff, &file, hunk, at, new_at, ends);
        if let Some(start) = hunk.old_start {
            let expected = if pattern.is_empty() {
                start
            } else {
                start.saturating_sub(1)
            };
            offset = at as isize - expected as isize;
        }
        results.push(HunkResult {
            line: at + 1,
            offset: hunk.old_start.map_or(0, |_| offset),
            fuzz,
        });
        cursor = j;
    }
    out.original(&file, cursor, n);
    Ok(Applied {
        splice: out.finish(&file, final_newline),
        hunks: results,
        diff,
    })
}

fn added_ending(patch: &FilePatch, cr: bool, file_ending: &'static str) -> &'static str {
    match (patch.explicit_endings, cr) {
        (true, true) => "\r\n",
        (true, false) => "\n",
        (false, _) => file_ending,
    }
}

/// Why a hunk could not be placed.
enum Failure {
    NotFound { search: Search },
    Ambiguous { first: usize, second: usize, fuzz: Fuzz },
    Anchor { anchor: String, from: usize },
}

/// Where `hunk` goes: its old lines located, or (for a pure addition) its insertion point.
fn place(
    file: &FileText,
    hunk: &Hunk,
    pattern: &[&str],
    cursor: usize,
    offset: isize,
) -> Result<(usize, Fuzz), Failure> {
    let n = file.count();
    let search = match hunk.old_start {
        Some(start) => {
            let base = if pattern.is_empty() {
                start
            } else {
                start.saturating_sub(1)
            };
            let expected = (base as isize + offset).max(0) as usize;
            if pattern.is_empty() {
                return Ok((expected.clamp(cursor.min(n), n), Fuzz::Exact));
            }
            Search::Near {
                expected,
                min: cursor,
            }
        }
        None => {
            let mut from = cursor;
            for (k, anchor) in hunk.anchors.iter().enumerate() {
                let Some((i, _)) = find_line(file, anchor, from) else {
                    return Err(Failure::Anchor {
                        anchor: anchor.clone(),
                        from,
                    });
                };
                // The chunk may start at the anchor line itself (models often repeat it as
                // the first context line), so the last anchor does not move past itself.
                from = if k + 1 == hunk.anchors.len() { i } else { i + 1 };
            }
            if pattern.is_empty() {
                let at = if hunk.anchors.is_empty() || hunk.at_eof {
                    n
                } else {
                    (from + 1).min(n)
                };
                return Ok((at, Fuzz::Exact));
            }
            if hunk.at_eof {
                Search::AtEnd { min: from }
            } else {
                Search::Forward {
                    from,
                    first: !hunk.anchors.is_empty(),
                }
            }
        }
    };
    match locate::locate(file, pattern, search) {
        Located::Found { at, fuzz } => Ok((at, fuzz)),
        Located::Ambiguous { first, second, fuzz } => Err(Failure::Ambiguous { first, second, fuzz }),
        Located::NotFound => Err(Failure::NotFound { search }),
    }
}

impl Failure {
    fn into_error(self, file: &FileText, target: &Target, index: usize, pattern: &[&str]) -> ToolError {
        let hunk = &target.patch.hunks[index];
        let at = HunkAt {
            display: target.path.display.as_str(),
            call_arg: target.path.call_arg(),
            hunk: index + 1,
            hunks: target.patch.hunks.len(),
            patch_line: hunk.line,
            expected: pattern.iter().take(4).copied().collect(),
            expected_len: pattern.len(),
        };
        let miss = match self {
            Failure::Ambiguous { first, second, fuzz } => HunkMiss::Ambiguous {
                first: first + 1,
                second: second + 1,
                level: (fuzz != Fuzz::Exact).then(|| fuzz.as_str()),
                headerless: hunk.old_start.is_none(),
            },
            Failure::Anchor { ref anchor, from } => HunkMiss::Anchor { anchor, from },
            Failure::NotFound { search } => HunkMiss::NotFound(nearest(file, hunk, pattern, search)),
        };
        ToolError::hunk_failed(&at, miss)
    }
}

/// Where the file comes closest to a hunk whose context was not found: the best position,
/// its lines with the differing ones marked, and what else explains the miss.
fn nearest<'f>(file: &'f FileText, hunk: &Hunk, pattern: &[&str], search: Search) -> Nearest<'f> {
    let n = file.count();
    let (lo, hi, expected) = match search {
        Search::Near { expected, min } => (
            expected.saturating_sub(MAX_WINDOW).max(min),
            expected + MAX_WINDOW,
            expected,
        ),
        Search::Forward { from, .. } => (from, n, from),
        Search::AtEnd { min } => (min, n, n.saturating_sub(pattern.len())),
    };
    let (best, score) = best_effort(file, pattern, lo, hi, expected);
    let differs = |i: usize| !Fuzz::Punctuation.same(file.line(i), pattern[i - best]);
    let shown_len = pattern.len().clamp(1, 4);
    let shown = if n == 0 {
        Vec::new()
    } else {
        (best.saturating_sub(2)..(best + shown_len + 2).min(n))
            .map(|i| {
                let in_hunk = i >= best && i - best < pattern.len();
                let hunk_line = if in_hunk { i - best + 1 } else { 0 };
                (i + 1, file.line(i), in_hunk && differs(i), hunk_line)
            })
            .collect()
    };
    Nearest {
        best: best + 1,
        score,
        shown,
        differing: (best..(best + pattern.len()).min(n))
            .filter(|&i| differs(i))
            .count(),
        past_end: best + pattern.len() > n,
        nothing_near: score == 0,
        already_applied: already_applied(file, hunk, lo, hi),
        search: match search {
            Search::Near { .. } => SearchedBy::Near { window: MAX_WINDOW },
            Search::AtEnd { .. } => SearchedBy::AtEnd,
            Search::Forward { .. } => SearchedBy::Forward,
        },
    }
}

fn already_applied(file: &FileText, hunk: &Hunk, lo: usize, hi: usize) -> bool {
    let new: Vec<&str> = hunk
        .body
        .iter()
        .filter(|l| l.tag != Tag::Remove)
        .map(|l| l.text.as_str())
        .collect();
    if new.is_empty() || !hunk.body.iter().any(|l| l.tag != Tag::Context) {
        return false;
    }
    let n = file.count();
    let mid = (lo + hi.min(n)) / 2;
    matches!(
        locate::locate(
            file,
            &new,
            Search::Near {
                expected: mid,
                min: lo.min(n)
            }
        ),
        Located::Found { .. }
    )
}

/// Whether a hunk reaching the end of the file ends a side whose last line has no newline.
#[derive(Clone, Copy)]
struct Ends {
    old_missing: bool,
    new_missing: bool,
}

const NO_NEWLINE: &str = "\\ No newline at end of file";

/// One `@@` section of the diff shown in the result, with the file's actual lines, and
/// `\ No newline at end of file` after a side's last line when that line has none (as
/// `diff -u`, edit_file and write_file write it).
fn render_hunk(diff: &mut String, file: &FileText, hunk: &Hunk, at: usize, new_at: usize, ends: Ends) {
    let old_len = hunk.old_len();
    let new_len = hunk.new_len();
    let start = |pos: usize, len: usize| if len == 0 { pos } else { pos + 1 };
    let _ = writeln!(
        diff,
        "@@ -{},{old_len} +{},{new_len} @@",
        start(at, old_len),
        start(new_at, new_len)
    );
    let old_last = ends
        .old_missing
        .then(|| hunk.body.iter().rposition(|l| l.tag != Tag::Add))
        .flatten();
    let new_last = ends
        .new_missing
        .then(|| hunk.body.iter().rposition(|l| l.tag != Tag::Remove))
        .flatten();
    let mut j = at;
    for (k, line) in hunk.body.iter().enumerate() {
        let (old_end, new_end) = (old_last == Some(k), new_last == Some(k));
        match line.tag {
            // A context line that ends one side without a newline but not the other differs
            // in its ending: it is shown removed and added, each with its own marker.
            Tag::Context if old_end != new_end => {
                let text = file.line(j);
                push_line(diff, "-", text);
                if old_end {
                    push_line(diff, "", NO_NEWLINE);
                }
                push_line(diff, "+", text);
                if new_end {
                    push_line(diff, "", NO_NEWLINE);
                }
                j += 1;
            }
            Tag::Context => {
                push_line(diff, " ", file.line(j));
                if old_end {
                    push_line(diff, "", NO_NEWLINE);
                }
                j += 1;
            }
            Tag::Remove => {
                push_line(diff, "-", file.line(j));
                if old_end {
                    push_line(diff, "", NO_NEWLINE);
                }
                j += 1;
            }
            Tag::Add => {
                push_line(diff, "+", &line.text);
                if new_end {
                    push_line(diff, "", NO_NEWLINE);
                }
            }
        }
    }
}

/// Appends `sign`, `text` and a newline (a diff has thousands of lines; no formatting needed).
fn push_line(diff: &mut String, sign: &str, text: &str) {
    diff.push_str(sign);
    diff.push_str(text);
    diff.push('\n');
}

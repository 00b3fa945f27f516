//! Unified diffs of a change, for tool output.
//!
//! Diffing two whole files is quadratic in the worst case, and an edit of a 50 MB file must
//! stay fast, so the diff is computed only over the region that changed: the common prefix and
//! suffix lines are skipped (or, for known edits, each cluster of edits is diffed on its own)
//! and the hunk headers are offset back to whole-file line numbers. Output is deterministic.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::ops::Range;

use similar::{ChangeTag, TextDiff};

use crate::fs::line_endings::LfEdit;

/// Lines of context around each change.
pub const CONTEXT: usize = 3;
/// A changed region larger than this (old + new bytes) is shown as one block of removed and
/// added lines instead of a minimal diff.
const MAX_DIFFED_BYTES: usize = 1024 * 1024;

/// In output text, a run of removed (or added) lines longer than this is abbreviated.
pub const LONG_RUN: usize = 40;
/// Lines kept at each end of an abbreviated run.
pub const RUN_ENDS: usize = 10;

/// Whether more than [`LONG_RUN`] consecutive lines start with the same `-` or `+`: without
/// such a run nothing is abbreviated, and the walk by hunk counts is skipped.
fn has_long_run(lines: &[&str]) -> bool {
    let mut run = 0;
    let mut sign = 0u8;
    for line in lines {
        let first = line.as_bytes().first().copied().unwrap_or(0);
        if first == b'\\' {
            continue;
        }
        if first == sign && matches!(first, b'-' | b'+') {
            run += 1;
            if run > LONG_RUN {
                return true;
            }
        } else {
            sign = first;
            run = 1;
        }
    }
    false
}

/// `diff` for a tool's output text: every run of more than [`LONG_RUN`] consecutive removed (or
/// added) lines keeps its first and last [`RUN_ENDS`] lines, with one marker line between them,
/// `[… 2,960 more removed lines (all in data.diff) …]`. The marker starts with `[`, which no
/// unified-diff line does (they start with ` `, `-`, `+`, `\` or `@`). Deleting most of a big
/// file would otherwise fill the output with lines the caller just chose to drop; `data.diff`
/// keeps the whole diff. Hunks are walked by their header counts, so a removed line that reads
/// `-- x` is never taken for a file header, and text between files passes through unchanged.
/// The lines of `text`, each with its `\n`.
fn lines_with_ends(text: &str) -> Vec<&str> {
    let mut lines: Vec<&str> = Vec::with_capacity(text.len() / 32 + 1);
    let mut start = 0;
    for end in memchr::memchr_iter(b'\n', text.as_bytes()) {
        lines.push(&text[start..=end]);
        start = end + 1;
    }
    if start < text.len() {
        lines.push(&text[start..]);
    }
    lines
}

/// The run of lines of one sign that starts at line `i`, as groups (a line with the `\` notes
/// that follow it), at most `left` of them (what the hunk header still counts); and the index
/// after the run.
fn run_at(lines: &[&str], i: usize, sign: Option<u8>, left: &mut usize) -> (Vec<Range<usize>>, usize) {
    let mut groups: Vec<Range<usize>> = Vec::new();
    let mut j = i;
    while j < lines.len() && *left > 0 && lines[j].as_bytes().first().copied() == sign {
        let start = j;
        j += 1;
        while j < lines.len() && lines[j].starts_with('\\') {
            j += 1;
        }
        groups.push(start..j);
        *left -= 1;
    }
    (groups, j)
}

/// A long run as its first and last lines around a line that counts the rest.
fn push_abbreviated(out: &mut String, lines: &[&str], groups: &[Range<usize>], removed: bool) {
    let push = |out: &mut String, gs: &[Range<usize>]| {
        for g in gs {
            for line in &lines[g.clone()] {
                out.push_str(line);
            }
        }
    };
    push(out, &groups[..RUN_ENDS]);
    let _ = writeln!(
        out,
        "[… {} more {} lines (all in data.diff) …]",
        thousands(groups.len() - 2 * RUN_ENDS),
        if removed { "removed" } else { "added" }
    );
    push(out, &groups[groups.len() - RUN_ENDS..]);
}

pub fn abbreviate(diff: &str) -> Cow<'_, str> {
    if diff.len() < LONG_RUN {
        return diff.into();
    }
    let lines = lines_with_ends(diff);
    if lines.len() <= LONG_RUN || !has_long_run(&lines) {
        return diff.into();
    }
    let mut out = String::with_capacity(diff.len().min(64 * 1024));
    let mut abbreviated = false;
    let (mut old_left, mut new_left) = (0usize, 0usize);
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if old_left == 0 && new_left == 0 {
            if let Some((old, new)) = hunk_counts(line) {
                (old_left, new_left) = (old, new);
            }
            out.push_str(line);
            i += 1;
            continue;
        }
        let sign = line.as_bytes().first().copied();
        if sign == Some(b' ') {
            old_left = old_left.saturating_sub(1);
            new_left = new_left.saturating_sub(1);
            out.push_str(line);
            i += 1;
            continue;
        }
        let left = match sign {
            Some(b'-') => &mut old_left,
            Some(b'+') => &mut new_left,
            _ => {
                // A `\ No newline` note stays in the hunk; anything else ends it.
                if sign != Some(b'\\') {
                    (old_left, new_left) = (0, 0);
                }
                out.push_str(line);
                i += 1;
                continue;
            }
        };
        let (groups, j) = run_at(&lines, i, sign, left);
        if groups.is_empty() {
            // More lines of this sign than the header counted: not a hunk line after all.
            (old_left, new_left) = (0, 0);
            out.push_str(line);
            i += 1;
            continue;
        }
        if groups.len() > LONG_RUN {
            abbreviated = true;
            push_abbreviated(&mut out, &lines, &groups, sign == Some(b'-'));
        } else {
            for line in &lines[i..j] {
                out.push_str(line);
            }
        }
        i = j;
    }
    if abbreviated {
        out.into()
    } else {
        diff.into()
    }
}

/// The old and new line counts of a `@@ -A,B +C,D @@` header (a missing count is 1).
fn hunk_counts(line: &str) -> Option<(usize, usize)> {
    let rest = line.strip_prefix("@@ -")?;
    let (old, rest) = rest.split_once(" +")?;
    let (new, _) = rest.split_once(" @@")?;
    let count = |side: &str| match side.split_once(',') {
        Some((_, n)) => n.parse().ok(),
        None => side.parse::<usize>().ok().map(|_| 1),
    };
    Some((count(old)?, count(new)?))
}

/// `2960` as `2,960`.
fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The `--- a/P` / `+++ b/P` header (`/dev/null` for a side that does not exist). An absolute
/// path (under a trusted root) is written as git writes one, `a/tmp/x/e.txt`, not `a//tmp/...`.
pub fn header(old_path: Option<&str>, new_path: Option<&str>) -> String {
    let side = |prefix: &str, path: Option<&str>| match path {
        Some(p) => format!("{prefix}/{}", p.trim_start_matches('/')),
        None => "/dev/null".to_string(),
    };
    format!("--- {}\n+++ {}\n", side("a", old_path), side("b", new_path))
}

/// The unified diff between `old` and `new` (LF text; `\r` is shown as is), with a header
/// naming `display`. Empty when the texts are equal.
pub fn unified(display: &str, old: &str, new: &str) -> String {
    if old == new {
        return String::new();
    }
    let prefix = common_prefix_lines(old, new);
    let suffix = common_suffix_lines(&old[prefix..], &new[prefix..]);
    let old_mid = prefix..old.len() - suffix;
    let new_mid = prefix..new.len() - suffix;
    let before = context_start(old, prefix);
    let after_old = context_end(old, old_mid.end);
    let after_new = context_end(new, new_mid.end);
    let first_line = line_of(old, before);
    let mut out = header(Some(display), Some(display));
    render_segment(
        &mut out,
        &old[before..after_old],
        &new[before..after_new],
        first_line,
        first_line,
    );
    out
}

/// The unified diff of applying `edits` (sorted, in LF space) to `old` (LF text), computed per
/// cluster of nearby edits so its cost follows the size of the edits, not of the file.
pub fn unified_for_edits(display: &str, old: &str, edits: &[LfEdit]) -> String {
    let mut out = header(Some(display), Some(display));
    let mut line_delta: isize = 0;
    let mut i = 0;
    let mut line_cursor = (0usize, 0usize); // (offset, line number at offset)
    while i < edits.len() {
        // A cluster: edits whose context windows touch.
        let start = context_start(old, line_start(old, edits[i].range.start));
        let mut j = i;
        let mut end = context_end(old, touched_end(old, &edits[j]));
        while j + 1 < edits.len() && context_start(old, line_start(old, edits[j + 1].range.start)) <= end {
            j += 1;
            end = end.max(context_end(old, touched_end(old, &edits[j])));
        }
        let old_seg = &old[start..end];
        let mut new_seg = String::with_capacity(old_seg.len());
        let mut last = start;
        for edit in &edits[i..=j] {
            new_seg.push_str(&old[last..edit.range.start]);
            new_seg.push_str(&edit.text);
            last = edit.range.end;
        }
        new_seg.push_str(&old[last..end]);
        let first_line = line_cursor.1 + count_newlines(&old[line_cursor.0..start]);
        line_cursor = (start, first_line);
        let new_first = (first_line as isize + line_delta).max(0) as usize;
        render_segment(&mut out, old_seg, &new_seg, first_line, new_first);
        line_delta += count_newlines(&new_seg) as isize - count_newlines(old_seg) as isize;
        i = j + 1;
    }
    out
}

/// Appends the hunks of `old_seg` → `new_seg`, whose first lines are the 0-based lines
/// `old_first` and `new_first` of their files.
fn render_segment(out: &mut String, old_seg: &str, new_seg: &str, old_first: usize, new_first: usize) {
    if old_seg.len() + new_seg.len() > MAX_DIFFED_BYTES {
        let old_lines: Vec<&str> = old_seg.split_inclusive('\n').collect();
        let new_lines: Vec<&str> = new_seg.split_inclusive('\n').collect();
        hunk_header(
            out,
            old_first..old_first + old_lines.len(),
            new_first..new_first + new_lines.len(),
        );
        for line in old_lines {
            push_line(out, '-', line);
        }
        for line in new_lines {
            push_line(out, '+', line);
        }
        return;
    }
    let diff = TextDiff::from_lines(old_seg, new_seg);
    for group in diff.grouped_ops(CONTEXT) {
        // The extent of the hunk on each side. Taken over all ops: similar may place an op's
        // empty side (a deletion's new index) past the start of the hunk.
        let (Some(old_start), Some(old_end), Some(new_start), Some(new_end)) = (
            group.iter().map(|op| op.old_range().start).min(),
            group.iter().map(|op| op.old_range().end).max(),
            group.iter().map(|op| op.new_range().start).min(),
            group.iter().map(|op| op.new_range().end).max(),
        ) else {
            continue;
        };
        let old_range = old_start + old_first..old_end + old_first;
        let new_range = new_start + new_first..new_end + new_first;
        hunk_header(out, old_range, new_range);
        for op in &group {
            for change in diff.iter_changes(op) {
                let sign = match change.tag() {
                    ChangeTag::Equal => ' ',
                    ChangeTag::Delete => '-',
                    ChangeTag::Insert => '+',
                };
                push_line(out, sign, change.value());
            }
        }
    }
}

fn hunk_header(out: &mut String, old: Range<usize>, new: Range<usize>) {
    // GNU form: an empty side names the line before it.
    let side = |r: Range<usize>| {
        let len = r.end - r.start;
        let start = if len == 0 { r.start } else { r.start + 1 };
        if len == 1 {
            format!("{start}")
        } else {
            format!("{start},{len}")
        }
    };
    let _ = writeln!(out, "@@ -{} +{} @@", side(old), side(new));
}

fn push_line(out: &mut String, sign: char, line: &str) {
    out.push(sign);
    match line.strip_suffix('\n') {
        Some(body) => {
            out.push_str(body);
            out.push('\n');
        }
        None => {
            out.push_str(line);
            out.push_str("\n\\ No newline at end of file\n");
        }
    }
}

fn count_newlines(text: &str) -> usize {
    memchr::memchr_iter(b'\n', text.as_bytes()).count()
}

/// 0-based line number of a byte offset.
fn line_of(text: &str, offset: usize) -> usize {
    count_newlines(&text[..offset])
}

fn line_start(text: &str, offset: usize) -> usize {
    memchr::memrchr(b'\n', &text.as_bytes()[..offset]).map_or(0, |i| i + 1)
}

/// The end of the line holding `offset` (after its newline). An offset right after a newline
/// (a span that ends with its line) stays where it is.
fn line_end(text: &str, offset: usize) -> usize {
    if offset > 0 && text.as_bytes()[offset - 1] == b'\n' {
        return offset;
    }
    memchr::memchr(b'\n', &text.as_bytes()[offset..]).map_or(text.len(), |i| offset + i + 1)
}

/// The end of the last old line an edit changes. A span ending right after a newline ends with
/// its line, unless the new text does not end in one: then the next line is joined onto it and
/// changes too (search `\nb\n`, replace `\nQ`), and the context starts after that line.
fn touched_end(text: &str, edit: &LfEdit) -> usize {
    let end = line_end(text, edit.range.end);
    let ends_line = match edit.text.as_bytes().last() {
        Some(&last) => last == b'\n',
        None => edit.range.start == 0 || text.as_bytes()[edit.range.start - 1] == b'\n',
    };
    if end == edit.range.end && end < text.len() && !ends_line {
        line_end(text, end + 1)
    } else {
        end
    }
}

/// The start of the line [`CONTEXT`] lines above the line starting at `line_start_offset`.
fn context_start(text: &str, line_start_offset: usize) -> usize {
    let mut at = line_start_offset;
    for _ in 0..CONTEXT {
        if at == 0 {
            break;
        }
        at = line_start(text, at - 1);
    }
    at
}

/// The end of the line [`CONTEXT`] lines below the line ending at `line_end_offset`.
fn context_end(text: &str, line_end_offset: usize) -> usize {
    let mut at = line_end_offset;
    for _ in 0..CONTEXT {
        if at >= text.len() {
            break;
        }
        at = line_end(text, at + 1);
    }
    at
}

/// Length of the common prefix of whole lines.
fn common_prefix_lines(a: &str, b: &str) -> usize {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let mut same = 0;
    const CHUNK: usize = 4096;
    while same + CHUNK <= a.len().min(b.len()) && a[same..same + CHUNK] == b[same..same + CHUNK] {
        same += CHUNK;
    }
    while same < a.len().min(b.len()) && a[same] == b[same] {
        same += 1;
    }
    memchr::memrchr(b'\n', &a[..same]).map_or(0, |i| i + 1)
}

/// Length of the common suffix of whole lines (so the prefix + suffix never overlap).
fn common_suffix_lines(a: &str, b: &str) -> usize {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let max = a.len().min(b.len());
    let mut same = 0;
    while same < max && a[a.len() - 1 - same] == b[b.len() - 1 - same] {
        same += 1;
    }
    // Keep only whole lines: the suffix must start right after a newline (or at the start).
    let tail = &a[a.len() - same..];
    if same == a.len() || (a.len() > same && a[a.len() - same - 1] == b'\n') {
        return same;
    }
    memchr::memchr(b'\n', tail).map_or(0, |i| same - i - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_runs_are_abbreviated_and_short_ones_kept() {
        let old: String = (1..=3000).map(|i| format!("line {i}\n")).collect();
        let new = "line 1\nnew a\nnew b\nline 3000\n";
        let diff = unified("f.txt", &old, new);
        let shown = abbreviate(&diff);
        assert!(
            shown.contains("\n[… 2,978 more removed lines (all in data.diff) …]\n"),
            "{shown}"
        );
        assert!(shown.contains("-line 2\n"), "{shown}");
        assert!(shown.contains("-line 11\n[…"), "{shown}");
        assert!(shown.contains("…]\n-line 2990\n"), "{shown}");
        assert!(
            shown.contains("-line 2999\n+new a\n+new b\n line 3000\n"),
            "{shown}"
        );
        assert!(!shown.contains("-line 12\n"), "{shown}");
        assert!(shown.len() < 1000, "{}", shown.len());
        // A run of exactly LONG_RUN lines stays whole.
        let old: String = (1..=LONG_RUN).map(|i| format!("-- {i}\n")).collect();
        let diff = unified("f.txt", &old, "");
        assert!(matches!(abbreviate(&diff), Cow::Borrowed(_)));
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(thousands(999), "999");
    }

    #[test]
    fn abbreviation_walks_hunks_by_their_counts() {
        // Removed lines that look like file headers stay inside their hunk's run.
        let old: String = (1..=60).map(|i| format!("-- {i}\n")).collect();
        let diff = format!("{}{}", unified("a", &old, ""), unified("b", "x\n", "y\n"));
        let shown = abbreviate(&diff);
        assert!(
            shown.contains("[… 40 more removed lines (all in data.diff) …]\n"),
            "{shown}"
        );
        assert!(
            shown.ends_with("--- a/b\n+++ b/b\n@@ -1 +1 @@\n-x\n+y\n"),
            "{shown}"
        );
    }

    #[test]
    fn whole_text_diff_has_real_line_numbers() {
        let old: String = (1..=20).map(|i| format!("line {i}\n")).collect();
        let new = old.replace("line 10\n", "line ten\n");
        let diff = unified("f.txt", &old, &new);
        assert!(
            diff.starts_with("--- a/f.txt\n+++ b/f.txt\n@@ -7,7 +7,7 @@\n line 7\n"),
            "{diff}"
        );
        assert!(diff.contains("-line 10\n+line ten\n"), "{diff}");
    }

    #[test]
    fn edits_diff_matches_whole_diff() {
        let old: String = (1..=40).map(|i| format!("line {i}\n")).collect();
        let a = old.find("line 5\n").unwrap();
        let b = old.find("line 30\n").unwrap();
        let edits = vec![
            LfEdit {
                range: a..a + 7,
                text: "five\nfive b\n".into(),
            },
            LfEdit {
                range: b..b + 8,
                text: String::new(),
            },
        ];
        let new = format!("{}five\nfive b\n{}{}", &old[..a], &old[a + 7..b], &old[b + 8..]);
        assert_eq!(unified_for_edits("f", &old, &edits), unified("f", &old, &new));
    }

    #[test]
    fn missing_final_newline_is_marked() {
        let diff = unified("f", "a\nb", "a\nc");
        assert!(
            diff.contains("-b\n\\ No newline at end of file\n+c\n\\ No newline"),
            "{diff}"
        );
    }

    #[test]
    fn suffix_is_whole_lines() {
        assert_eq!(common_suffix_lines("xab\n", "yab\n"), 0);
        assert_eq!(common_suffix_lines("x\nab\n", "y\nab\n"), 3);
        assert_eq!(common_prefix_lines("ab\ncd", "ab\nce"), 3);
    }

    #[test]
    fn hunk_extent_covers_every_op() {
        // similar reports this deletion with a new index past the hunk's start.
        let diff = unified("f", "b\nc\n", "c\nc\n");
        assert!(diff.contains("@@ -1,2 +1,2 @@\n"), "{diff}");
    }
}

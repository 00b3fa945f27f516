//! The parallel search: one grep-searcher per walker thread, results merged under a lock and
//! sorted at the end.
//!
//! Memory stays bounded however many lines match: every match is counted, but lines are only
//! kept for the files that can still be shown. Once the kept files (in path order) hold
//! `max_results` matches, the path of the last one becomes a cutoff; later files beyond it are
//! counted without keeping their lines.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use grep_matcher::{LineTerminator, Matcher};
use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{
    BinaryDetection, Searcher, SearcherBuilder, Sink, SinkContext, SinkContextKind, SinkMatch,
};
use ignore::WalkState;

use super::{GrepFilesArgs, OutputMode};
use crate::fs::beneath::Reader;
use crate::fs::walk::{self, GlobFilter, Rules};

/// What to search for and how much to keep.
pub(super) struct Query {
    pub matcher: RegexMatcher,
    pub multiline: bool,
    pub context: usize,
    pub mode: OutputMode,
    pub max_results: usize,
}

/// ripgrep's matcher settings: a line terminator (which lets it search for candidate lines
/// fast) unless the pattern may span lines. Line by line, CRLF mode (ripgrep's `--crlf`) lets
/// `$` match before a `\r\n` too, so `NEEDLE$` finds a line of a Windows-style file whose text
/// shows `NEEDLE` at its end.
pub(super) fn build_matcher(args: &GrepFilesArgs) -> Result<RegexMatcher, grep_regex::Error> {
    let mut builder = RegexMatcherBuilder::new();
    builder
        .case_insensitive(args.case_insensitive)
        .multi_line(true)
        .unicode(true)
        .octal(false);
    if args.multiline {
        builder.dot_matches_new_line(true);
    } else {
        builder
            .line_terminator(Some(b'\n'))
            .crlf(true)
            .dot_matches_new_line(false);
    }
    builder.fixed_strings(args.fixed_strings).build(&args.pattern)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum RowKind {
    /// The first line of a match.
    Match,
    /// A further line of a multiline match.
    MatchContinued,
    Context,
    /// A gap between context groups (`--`).
    Break,
}

#[derive(Debug, Clone)]
pub(super) struct Row {
    pub line: u64,
    pub kind: RowKind,
    pub text: String,
}

/// One matching file: its match count, and (content mode, if it can still be shown) its rows.
#[derive(Debug)]
pub(super) struct FileHits {
    pub matches: u64,
    pub rows: Vec<Row>,
}

/// Everything one search found. `files` is sorted by path; in content mode it holds only the
/// files whose rows may be shown, in the other modes every matching file.
#[derive(Debug, Default)]
pub(super) struct Found {
    pub total_matches: u64,
    pub matching_files: u64,
    pub files: BTreeMap<PathBuf, FileHits>,
    /// Regular files the walk offered (after include/exclude), searched or not.
    pub files_seen: u64,
    pub files_searched: u64,
    pub skipped_binary: u64,
    pub skipped_large: u64,
    pub errors: u64,
}

#[derive(Default)]
struct Counters {
    total_matches: AtomicU64,
    matching_files: AtomicU64,
    files_seen: AtomicU64,
    files_searched: AtomicU64,
    skipped_binary: AtomicU64,
    skipped_large: AtomicU64,
    errors: AtomicU64,
}

fn bump(counter: &AtomicU64, by: u64) {
    counter.fetch_add(by, Ordering::Relaxed);
}

struct Kept {
    files: BTreeMap<PathBuf, FileHits>,
    /// Files after this path cannot be shown (content mode).
    cutoff: Option<PathBuf>,
}

impl Kept {
    fn may_show(&self, path: &Path) -> bool {
        self.cutoff.as_deref().is_none_or(|cutoff| path < cutoff)
    }

    /// Drops files that can no longer be shown: those after the first `limit` kept matches.
    fn trim(&mut self, limit: usize) {
        let mut kept = 0usize;
        let mut last = None;
        for (path, hits) in &self.files {
            kept += hits.rows.iter().filter(|r| r.kind == RowKind::Match).count();
            if kept >= limit {
                last = Some(path.clone());
                break;
            }
        }
        if let Some(last) = last {
            let mut tail = self.files.split_off(&last);
            if let Some(hits) = tail.remove(&last) {
                self.files.insert(last.clone(), hits);
            }
            self.cutoff = Some(last);
        }
    }
}

/// The most the searcher buffers at once.
pub(super) const MAX_BUFFER_BYTES: usize = 64 << 20;

/// Searches every file under `root` the walker offers.
pub(super) fn run(
    root: &Path,
    reader: &Reader,
    rules: Rules,
    include: &Option<GlobFilter>,
    exclude: &Option<GlobFilter>,
    query: &Query,
) -> Found {
    let counters = Counters::default();
    let kept = Mutex::new(Kept {
        files: BTreeMap::new(),
        cutoff: None,
    });
    let searcher_builder = searcher_for(query);
    let job = Job {
        root,
        reader,
        include,
        query,
        counters: &counters,
        kept: &kept,
    };
    let walker = walk::search_walker(root, rules, exclude_filter(root, exclude)).build_parallel();
    walker.run(|| {
        let mut searcher = searcher_builder.build();
        let job = &job;
        Box::new(move |result| {
            match result {
                Ok(entry) => job.search(entry, &mut searcher),
                Err(_) => bump(&job.counters.errors, 1),
            }
            WalkState::Continue
        })
    });
    let files = kept.into_inner().map(|k| k.files).unwrap_or_default();
    let get = |c: &AtomicU64| c.load(Ordering::Relaxed);
    Found {
        total_matches: get(&counters.total_matches),
        matching_files: get(&counters.matching_files),
        files,
        files_seen: get(&counters.files_seen),
        files_searched: get(&counters.files_searched),
        skipped_binary: get(&counters.skipped_binary),
        skipped_large: get(&counters.skipped_large),
        errors: get(&counters.errors),
    }
}

/// The searcher settings of a query: line numbers, line terminator, binary detection,
/// buffer cap and context.
fn searcher_for(query: &Query) -> SearcherBuilder {
    let context = if query.mode == OutputMode::Content {
        query.context
    } else {
        0
    };
    let mut builder = SearcherBuilder::new();
    builder
        .line_number(true)
        .multi_line(query.multiline)
        .line_terminator(if query.multiline {
            LineTerminator::byte(b'\n')
        } else {
            LineTerminator::crlf()
        })
        .binary_detection(BinaryDetection::quit(b'\x00'))
        // Memory stays bounded whatever the file: a line (or, multiline, a file) longer than
        // this is an error for that file, not an allocation of its size.
        .heap_limit(Some(MAX_BUFFER_BYTES))
        .before_context(context)
        .after_context(context);
    builder
}

/// What every walker thread shares: the query, the filters and where results go.
struct Job<'a> {
    root: &'a Path,
    /// Opens each file beneath the roots: a directory the walk listed may have been swapped
    /// for a symlink out since.
    reader: &'a Reader<'a>,
    include: &'a Option<GlobFilter>,
    query: &'a Query,
    counters: &'a Counters,
    kept: &'a Mutex<Kept>,
}

impl Job<'_> {
    /// Searches one entry of the walk, counting it and keeping its hits.
    fn search(&self, entry: ignore::DirEntry, searcher: &mut grep_searcher::Searcher) {
        let (counters, query) = (self.counters, self.query);
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            return;
        }
        if entry.depth() > 0 && !included(self.root, self.include, entry.path()) {
            return;
        }
        bump(&counters.files_seen, 1);
        let Ok(file) = self.reader.open(entry.path()) else {
            bump(&counters.errors, 1);
            return;
        };
        // The size skip is for files met while walking; a file given as the path is
        // searched whatever its size, streamed through the searcher's bounded buffer.
        if entry.depth() > 0 && file.metadata().map_or(0, |m| m.len()) > walk::MAX_FILE_BYTES {
            bump(&counters.skipped_large, 1);
            return;
        }
        bump(&counters.files_searched, 1);
        let mut sink = FileSink {
            matcher: &query.matcher,
            mode: query.mode,
            limit: query.max_results,
            path: entry.path(),
            kept: self.kept,
            show: None,
            count: 0,
            stored: 0,
            full: false,
            rows: Vec::new(),
            binary: false,
        };
        if searcher.search_file(&query.matcher, &file, &mut sink).is_err() {
            bump(&counters.errors, 1);
            return;
        }
        if sink.binary {
            bump(&counters.skipped_binary, 1);
            return;
        }
        if sink.count == 0 {
            return;
        }
        bump(&counters.total_matches, sink.count);
        bump(&counters.matching_files, 1);
        let count = sink.count;
        let rows = if sink.show == Some(true) {
            sink.rows
        } else {
            Vec::new()
        };
        if query.mode != OutputMode::Content || !rows.is_empty() {
            if let Ok(mut kept) = self.kept.lock() {
                kept.files
                    .insert(entry.into_path(), FileHits { matches: count, rows });
                if query.mode == OutputMode::Content {
                    kept.trim(query.max_results);
                }
            }
        }
    }
}

/// Counts the regular files a walk with `rules` offers (after include/exclude), without
/// searching them; the difference from a normal walk is what ignore rules hid.
pub(super) fn count_files(
    root: &Path,
    rules: Rules,
    include: &Option<GlobFilter>,
    exclude: &Option<GlobFilter>,
) -> u64 {
    let count = AtomicU64::new(0);
    walk::search_walker(root, rules, exclude_filter(root, exclude))
        .build_parallel()
        .run(|| {
            let count = &count;
            Box::new(move |result| {
                if let Ok(entry) = result {
                    if entry.file_type().is_some_and(|t| t.is_file())
                        && (entry.depth() == 0 || included(root, include, entry.path()))
                    {
                        bump(count, 1);
                    }
                }
                WalkState::Continue
            })
        });
    count.into_inner()
}

fn included(root: &Path, include: &Option<GlobFilter>, path: &Path) -> bool {
    match include {
        None => true,
        Some(filter) => path
            .strip_prefix(root)
            .is_ok_and(|rel| filter.matches_self_or_ancestor(rel)),
    }
}

fn exclude_filter(root: &Path, exclude: &Option<GlobFilter>) -> Option<walk::EntryFilter> {
    let exclude = exclude.clone()?;
    let root = root.to_path_buf();
    Some(Box::new(move |entry: &ignore::DirEntry| {
        entry
            .path()
            .strip_prefix(&root)
            .map_or(true, |rel| !exclude.matches(rel))
    }))
}

/// Lines longer than this many bytes are shown as a window around the match.
pub(super) const MAX_LINE_BYTES: usize = 500;
/// How much of the window comes before the match.
const LEAD_BYTES: usize = 150;

struct FileSink<'a> {
    matcher: &'a RegexMatcher,
    mode: OutputMode,
    limit: usize,
    path: &'a Path,
    kept: &'a Mutex<Kept>,
    /// Whether this file's rows may be shown; decided at its first match.
    show: Option<bool>,
    count: u64,
    stored: usize,
    /// `limit` matches are stored; rows after them are no longer needed.
    full: bool,
    rows: Vec<Row>,
    binary: bool,
}

impl FileSink<'_> {
    fn collecting(&self) -> bool {
        self.mode == OutputMode::Content && !self.full && self.show != Some(false)
    }

    fn push(&mut self, line: u64, kind: RowKind, bytes: &[u8], focus: usize) {
        self.rows.push(Row {
            line,
            kind,
            text: cut_line(bytes, focus),
        });
    }
}

impl Sink for FileSink<'_> {
    type Error = std::io::Error;

    fn matched(&mut self, _searcher: &Searcher, mat: &SinkMatch<'_>) -> Result<bool, std::io::Error> {
        self.count += 1;
        if !self.collecting() {
            return Ok(true);
        }
        if self.show.is_none() {
            let show = self.kept.lock().map(|k| k.may_show(self.path)).unwrap_or(true);
            self.show = Some(show);
            if !show {
                self.rows.clear();
                return Ok(true);
            }
        }
        if self.stored >= self.limit {
            self.full = true;
            return Ok(true);
        }
        self.stored += 1;
        let first = mat.line_number().unwrap_or(0);
        for (i, line) in mat.lines().enumerate() {
            let focus = if i == 0 && line.len() > MAX_LINE_BYTES {
                self.matcher.find(line).ok().flatten().map_or(0, |m| m.start())
            } else {
                0
            };
            let kind = if i == 0 {
                RowKind::Match
            } else {
                RowKind::MatchContinued
            };
            self.push(first + i as u64, kind, line, focus);
        }
        Ok(true)
    }

    fn context(&mut self, _searcher: &Searcher, context: &SinkContext<'_>) -> Result<bool, std::io::Error> {
        if self.collecting() && !matches!(context.kind(), SinkContextKind::Other) {
            let line = context.line_number().unwrap_or(0);
            self.push(line, RowKind::Context, context.bytes(), 0);
        }
        Ok(true)
    }

    fn context_break(&mut self, _searcher: &Searcher) -> Result<bool, std::io::Error> {
        if self.collecting() {
            self.rows.push(Row {
                line: 0,
                kind: RowKind::Break,
                text: String::new(),
            });
        }
        Ok(true)
    }

    fn binary_data(&mut self, _searcher: &Searcher, _offset: u64) -> Result<bool, std::io::Error> {
        // ripgrep's rule for files found by walking: a NUL byte means binary, and matches
        // already seen in the file do not count (as with `rg -c`).
        self.binary = true;
        Ok(false)
    }
}

/// A line as text without its terminator; lines over [`MAX_LINE_BYTES`] become a window that
/// starts a little before `focus` (the match) and says which bytes it shows.
pub(super) fn cut_line(bytes: &[u8], focus: usize) -> String {
    let bytes = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    let bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
    if bytes.len() <= MAX_LINE_BYTES {
        return String::from_utf8_lossy(bytes).into_owned();
    }
    let mut start = focus
        .saturating_sub(LEAD_BYTES)
        .min(bytes.len().saturating_sub(MAX_LINE_BYTES));
    let mut end = (start + MAX_LINE_BYTES).min(bytes.len());
    // Keep whole UTF-8 sequences: move each edge back off continuation bytes.
    while start > 0 && (bytes[start] & 0xC0) == 0x80 {
        start -= 1;
    }
    while end < bytes.len() && end > start && (bytes[end] & 0xC0) == 0x80 {
        end -= 1;
    }
    let mut text = String::new();
    if start > 0 {
        text.push('…');
    }
    text.push_str(&String::from_utf8_lossy(&bytes[start..end]));
    if end < bytes.len() {
        text.push('…');
    }
    text.push_str(&format!(
        " [line cut: {} bytes, showing {}-{}]",
        bytes.len(),
        start + 1,
        end
    ));
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_lines_are_cut_around_the_focus() {
        let line = format!("{}NEEDLE{}\n", "a".repeat(1000), "b".repeat(1000));
        let text = cut_line(line.as_bytes(), 1000);
        assert!(text.contains("NEEDLE"));
        assert!(text.starts_with('…'));
        assert!(
            text.contains("[line cut: 2006 bytes, showing 851-1350]"),
            "{text}"
        );
    }

    #[test]
    fn short_lines_lose_only_their_terminator() {
        assert_eq!(cut_line(b"abc\r\n", 0), "abc");
    }

    #[test]
    fn cuts_never_split_a_character() {
        let line = "é".repeat(600);
        let text = cut_line(line.as_bytes(), 301);
        assert!(!text.contains('\u{FFFD}'));
    }
}

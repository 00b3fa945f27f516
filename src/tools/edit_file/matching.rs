//! The matching ladder: where in the file the search text is.
//!
//! Models copy text from read_file output and get it slightly wrong in predictable ways: the
//! indentation (a block re-indented, tabs become spaces, trailing spaces dropped), typography
//! (straight quotes where the file has curly ones, or the reverse; `-` for an en dash; a plain
//! space for a non-breaking one), or the line-number prefixes pasted along with the text.
//! Failing on these sends the model into retry loops; forgiving too much lands edits in the
//! wrong place. So the ladder tries the levels in order and stops at the first that hits:
//!
//! 1. `exact` — the bytes, as given (in LF space).
//! 2. `indentation` — whole lines compared without leading and trailing spaces/tabs (the first
//!    line may be the end of a file line and the last line the start of one, as an exact
//!    substring could be). Failing that, the same without the blank lines at the search's
//!    edges (a block copied from the empty line above it).
//! 3. `punctuation` — curly quotes, dashes and exotic spaces folded to ASCII on both sides,
//!    first as a substring, then line by line as in level 2.
//! 4. `line_numbers` — prefixes like `    12│ `, `12→`, `cat -n`'s `    12<TAB>` or grep's
//!    `12:`/`12-` stripped, only if *every* line carries one, the numbers are consecutive, and
//!    the stripped lines are exactly the file's lines with those numbers. So `12:30:00 meeting`
//!    is never read as line 12 unless line 12 really is `30:00 meeting`.
//!
//! Every fuzzy level only *locates* a span. The caller replaces that span and nothing else, and
//! an ambiguous fuzzy hit is reported with its candidate lines, never guessed. Within the span,
//! [`super::adapt::adapt`] keeps the file's own bytes for every line the replacement leaves
//! unchanged, and shifts new lines by the indentation offset between the search and the file.

use std::borrow::Cow;
use std::ops::Range;

use regex::Regex;

use crate::error::Forgiven;

/// Which level of the ladder located the span.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Level {
    Exact,
    Indentation,
    Punctuation,
    LineNumbers,
}

impl Level {
    pub(super) fn as_str(self) -> &'static str {
        match self {
            Level::Exact => "exact",
            Level::Indentation => "indentation",
            Level::Punctuation => "punctuation",
            Level::LineNumbers => "line_numbers",
        }
    }

    /// What the level forgave; nothing for an exact match.
    pub(super) fn forgiven(self) -> Option<Forgiven> {
        match self {
            Level::Exact => None,
            Level::Indentation => Some(Forgiven::Indentation),
            Level::Punctuation => Some(Forgiven::Punctuation),
            Level::LineNumbers => Some(Forgiven::LineNumbers),
        }
    }
}

/// Where the search text is, and the texts to use from here on.
#[derive(Debug, Clone)]
pub(super) struct Found {
    pub level: Level,
    /// Candidate spans in LF space, in file order (fuzzy candidates may overlap).
    pub hits: Vec<Range<usize>>,
    /// The search as matched (without pasted line numbers at the `line_numbers` level).
    pub search: String,
    /// The replacement (line-number prefixes stripped when it carried them too).
    pub replace: String,
    pub replace_was_numbered: bool,
    /// At the `line_numbers` level with `grep -n` prefixes: only some replace lines carry one,
    /// so which are prefixes and which are text cannot be told.
    pub replace_mixed: bool,
}

/// Runs the ladder over `hay` (LF text). `None` when no level hits.
pub(super) fn find(hay: &str, search: &str, replace: &str) -> Option<Found> {
    let found = |level, hits: Vec<Range<usize>>| {
        (!hits.is_empty()).then(|| Found {
            level,
            hits,
            search: search.to_string(),
            replace: replace.to_string(),
            replace_was_numbered: false,
            replace_mixed: false,
        })
    };
    if let Some(f) = found(Level::Exact, find_exact(hay, search)) {
        return Some(f);
    }
    let pattern = SearchLines::new(search);
    if let Some(f) = found(Level::Indentation, find_lines(hay, &pattern, Norm::Trim)) {
        return Some(f);
    }
    if let Some(f) = without_edge_blank_lines(hay, search, replace) {
        return Some(f);
    }
    if has_punctuation(hay) || has_punctuation(search) {
        let mut hits = find_punctuation_substring(hay, search);
        if hits.is_empty() {
            hits = find_lines(hay, &pattern, Norm::TrimPunctuation);
        }
        if let Some(f) = found(Level::Punctuation, hits) {
            return Some(f);
        }
    }
    let numbered = Numbered::parse(search)?;
    let hit = numbered.land(hay, &LineIndex::new(hay))?;
    let (replace, replace_was_numbered, replace_mixed) = match strip_replace(numbered.family, replace) {
        Some((text, stripped)) => (text, stripped, false),
        None => (replace.to_string(), false, true),
    };
    Some(Found {
        level: Level::LineNumbers,
        hits: vec![hit],
        search: numbered.text(),
        replace,
        replace_was_numbered,
        replace_mixed,
    })
}

/// The indentation level once more, with the blank lines at the edges of the search left out,
/// when the file has none there: a block copied from the empty line above it (or through the
/// one below) starts with a blank line that, matched as the empty end of the line before,
/// cannot be at the top of the file, and rarely sits where the file has one. The same blank
/// lines come off the edges of `replace`, so the edit adds or removes no line around the block.
fn without_edge_blank_lines(hay: &str, search: &str, replace: &str) -> Option<Found> {
    let (trimmed, lead, trail) = trim_blank_edges(search, usize::MAX, usize::MAX)?;
    if lead == 0 && trail == 0 {
        return None;
    }
    let hits = find_lines(hay, &SearchLines::new(&trimmed), Norm::Trim);
    if hits.is_empty() {
        return None;
    }
    let replace =
        trim_blank_edges(replace, lead, trail).map_or_else(|| replace.to_string(), |(text, _, _)| text);
    Some(Found {
        level: Level::Indentation,
        hits,
        search: trimmed,
        replace,
        replace_was_numbered: false,
        replace_mixed: false,
    })
}

/// `text` without up to `lead` blank lines at its start and `trail` at its end (a final newline
/// stays when it had one), and how many came off; `None` when every line is blank.
fn trim_blank_edges(text: &str, lead: usize, trail: usize) -> Option<(String, usize, usize)> {
    let lines = SearchLines::new(text);
    let blank = |line: &&str| line.trim_matches(is_blank).is_empty();
    let first = lines.lines.iter().position(|l| !blank(l))?;
    let last = lines.lines.iter().rposition(|l| !blank(l))?;
    let first = first.min(lead);
    let last = last.max(lines.lines.len() - 1 - trail.min(lines.lines.len() - 1 - last));
    let removed_tail = lines.lines.len() - 1 - last;
    let mut out = lines.lines[first..=last].join("\n");
    if lines.trailing_newline || removed_tail > 0 {
        out.push('\n');
    }
    Some((out, first, removed_tail))
}

/// `replace` with the prefixes of the search's family stripped from every line that carries
/// one; a line without one is a new line, kept as is, and the numbers need not increase (new
/// and moved lines break any order). A model that pasted numbered lines into search usually
/// pasted them into replace too, adding lines as it went; writing `    12│ ` into the file is
/// never what it meant. `grep -n` prefixes (`12:`) are the exception: `8080:80` or `10:30` is
/// ordinary text, so they are stripped only when every line has one; a mix is `None`.
fn strip_replace(family: Family, replace: &str) -> Option<(String, bool)> {
    let re = family.regex();
    let body = replace.strip_suffix('\n').unwrap_or(replace);
    let lines: Vec<&str> = body.split('\n').collect();
    let prefixed = lines.iter().filter(|l| re.is_match(l)).count();
    if prefixed == 0 {
        return Some((replace.to_string(), false));
    }
    if family == Family::Grep && prefixed < lines.len() {
        return None;
    }
    let mut text = lines
        .iter()
        .map(|line| match re.captures(line) {
            Some(caps) => caps[2].to_string(),
            None => line.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n");
    if body.len() < replace.len() {
        text.push('\n');
    }
    Some((text, true))
}

/// Every non-overlapping exact occurrence. The scan advances by whole matches.
pub(super) fn find_exact(hay: &str, needle: &str) -> Vec<Range<usize>> {
    if needle.is_empty() {
        return Vec::new();
    }
    memchr::memmem::find_iter(hay.as_bytes(), needle.as_bytes())
        .map(|start| start..start + needle.len())
        .collect()
}

/// Line starts of a text, for line-based matching and line numbers.
pub(super) struct LineIndex {
    starts: Vec<usize>,
    len: usize,
}

impl LineIndex {
    pub(super) fn new(text: &str) -> LineIndex {
        let mut starts = Vec::with_capacity(text.len() / 40 + 1);
        starts.push(0);
        starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1));
        if starts.last() == Some(&text.len()) && !text.is_empty() {
            starts.pop();
        }
        LineIndex {
            starts,
            // The end of the last line's content.
            len: text.strip_suffix('\n').map_or(text.len(), str::len),
        }
    }

    pub(super) fn count(&self) -> usize {
        self.starts.len()
    }

    /// Line `i` (0-based) without its newline, and its byte range.
    pub(super) fn line<'a>(&self, text: &'a str, i: usize) -> (&'a str, Range<usize>) {
        let start = self.starts[i];
        let end = self.starts.get(i + 1).map_or(self.len, |next| next - 1);
        let end = end.max(start);
        (&text[start..end], start..end)
    }

    /// 1-based number of the line holding `offset`.
    pub(super) fn number_at(&self, offset: usize) -> usize {
        self.starts.partition_point(|&s| s <= offset).max(1)
    }
}

/// The search text as lines; a final `\n` means the span ends with its last line's newline.
pub(super) struct SearchLines<'a> {
    pub lines: Vec<&'a str>,
    pub trailing_newline: bool,
}

impl<'a> SearchLines<'a> {
    pub(super) fn new(search: &'a str) -> SearchLines<'a> {
        let trailing_newline = search.ends_with('\n');
        let body = search.strip_suffix('\n').unwrap_or(search);
        SearchLines {
            lines: body.split('\n').collect(),
            trailing_newline,
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Norm {
    Trim,
    TrimPunctuation,
}

fn is_blank(c: char) -> bool {
    c == ' ' || c == '\t'
}

fn normalize(line: &str, norm: Norm) -> Cow<'_, str> {
    let trimmed = line.trim_matches(is_blank);
    match norm {
        Norm::Trim => Cow::Borrowed(trimmed),
        Norm::TrimPunctuation => match fold_punctuation(trimmed) {
            Cow::Borrowed(_) => Cow::Borrowed(trimmed),
            Cow::Owned(folded) => Cow::Owned(folded.trim_matches(is_blank).to_string()),
        },
    }
}

/// The line starting at byte `start` (without its newline) and its range; `None` past the last
/// line (a final newline does not start another line).
fn line_at(hay: &str, start: usize) -> Option<(&str, Range<usize>)> {
    // An empty text is one empty line; otherwise the end of the text starts no line.
    if start > hay.len() || (start == hay.len() && start != 0) {
        return None;
    }
    let end = memchr::memchr(b'\n', &hay.as_bytes()[start..]).map_or(hay.len(), |i| start + i);
    Some((&hay[start..end], start..end))
}

fn line_start_of(hay: &str, offset: usize) -> usize {
    memchr::memrchr(b'\n', &hay.as_bytes()[..offset]).map_or(0, |i| i + 1)
}

/// Candidate spans where the search lines match consecutive file lines under `norm`.
///
/// With `Norm::Trim` the candidates come from a (SIMD) substring search for the first non-blank
/// search line, so the cost stays close to an exact search on large files; folded
/// punctuation cannot be searched for directly, so that level walks every line.
fn find_lines(hay: &str, pattern: &SearchLines, norm: Norm) -> Vec<Range<usize>> {
    let wanted: Vec<Cow<str>> = pattern.lines.iter().map(|l| normalize(l, norm)).collect();
    let Some(anchor) = wanted.iter().position(|w| !w.is_empty()) else {
        return Vec::new();
    };
    let mut hits = Vec::new();
    if norm == Norm::Trim {
        let mut last_line = None;
        for pos in memchr::memmem::find_iter(hay.as_bytes(), wanted[anchor].as_bytes()) {
            let line = line_start_of(hay, pos);
            if last_line == Some(line) {
                continue;
            }
            last_line = Some(line);
            let mut first = line;
            for _ in 0..anchor {
                if first == 0 {
                    break;
                }
                first = line_start_of(hay, first - 1);
            }
            if line_start_distance(hay, first, line) != anchor {
                continue;
            }
            if let Some(hit) = match_lines_at(hay, first, &wanted, pattern, norm) {
                hits.push(hit);
            }
        }
    } else {
        let starts = std::iter::once(0).chain(memchr::memchr_iter(b'\n', hay.as_bytes()).map(|i| i + 1));
        for first in starts {
            if let Some(hit) = match_lines_at(hay, first, &wanted, pattern, norm) {
                hits.push(hit);
            }
        }
    }
    hits
}

/// How many lines lie between two line starts.
fn line_start_distance(hay: &str, from: usize, to: usize) -> usize {
    memchr::memchr_iter(b'\n', &hay.as_bytes()[from..to]).count()
}

/// The span if the search lines match the file lines starting at line start `first`.
fn match_lines_at(
    hay: &str,
    first: usize,
    wanted: &[Cow<str>],
    pattern: &SearchLines,
    norm: Norm,
) -> Option<Range<usize>> {
    let k = wanted.len();
    // Partial first/last lines only where trimming keeps byte offsets (not after folding).
    let partial = norm == Norm::Trim && k > 1;
    let (first_line, first_range) = line_at(hay, first)?;
    let first_norm = normalize(first_line, norm);
    let first_whole = first_norm == wanted[0];
    let first_partial = partial && !wanted[0].is_empty() && first_norm.ends_with(&*wanted[0]);
    if !(first_whole || first_partial) {
        return None;
    }
    let mut end = first_range.end;
    let mut next = first_range.end + 1;
    for (j, want) in wanted.iter().enumerate().skip(1) {
        let (line, range) = line_at(hay, next)?;
        next = range.end + 1;
        let line_norm = normalize(line, norm);
        if line_norm == *want {
            end = range.end;
            continue;
        }
        let last_partial = partial && j == k - 1 && !pattern.trailing_newline && !want.is_empty();
        if last_partial && line_norm.starts_with(&**want) {
            let content_start = range.start + (line.len() - line.trim_start_matches(is_blank).len());
            end = content_start + want.len();
            continue;
        }
        return None;
    }
    if pattern.trailing_newline && end < hay.len() {
        end += 1;
    }
    let start = if first_whole {
        first_range.start
    } else {
        first_range.start + first_line.trim_end_matches(is_blank).len() - wanted[0].len()
    };
    Some(start..end)
}

/// The ASCII stand-in for a typographic character, if it is one.
pub(super) fn punctuation_stand_in(c: char) -> Option<char> {
    Some(match c {
        '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}' | '\u{2032}' => '\'',
        '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{201F}' | '\u{2033}' => '"',
        '\u{2010}' | '\u{2011}' | '\u{2012}' | '\u{2013}' | '\u{2014}' | '\u{2015}' | '\u{2212}' => '-',
        '\u{00A0}' | '\u{2000}'..='\u{200A}' | '\u{202F}' | '\u{205F}' | '\u{3000}' => ' ',
        _ => return None,
    })
}

fn has_punctuation(text: &str) -> bool {
    !text.is_ascii() && text.chars().any(|c| punctuation_stand_in(c).is_some())
}

/// `text` with every typographic character folded to its ASCII stand-in.
pub(super) fn fold_punctuation(text: &str) -> Cow<'_, str> {
    if !has_punctuation(text) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(
        text.chars()
            .map(|c| punctuation_stand_in(c).unwrap_or(c))
            .collect(),
    )
}

/// Substring matches after folding punctuation on both sides, mapped back to the original
/// offsets. Folding maps one character to one ASCII byte, so a sparse table of the
/// accumulated length differences is enough to map back.
pub(super) fn find_punctuation_substring(hay: &str, search: &str) -> Vec<Range<usize>> {
    let needle = fold_punctuation(search);
    let bytes = hay.as_bytes();
    let mut folded = String::with_capacity(hay.len());
    // (folded offset just after a folded character, accumulated byte difference)
    let mut marks: Vec<(usize, usize)> = Vec::new();
    let mut delta = 0;
    let mut at = 0;
    while at < hay.len() {
        let run = bytes[at..]
            .iter()
            .position(|b| *b >= 0x80)
            .unwrap_or(hay.len() - at);
        folded.push_str(&hay[at..at + run]);
        at += run;
        let Some(c) = hay[at..].chars().next() else {
            break;
        };
        match punctuation_stand_in(c) {
            Some(ascii) => {
                folded.push(ascii);
                delta += c.len_utf8() - 1;
                marks.push((folded.len(), delta));
            }
            None => folded.push(c),
        }
        at += c.len_utf8();
    }
    if marks.is_empty() && needle == search {
        return Vec::new();
    }
    let to_original = |x: usize| {
        let i = marks.partition_point(|m| m.0 <= x);
        x + if i == 0 { 0 } else { marks[i - 1].1 }
    };
    find_exact(&folded, &needle)
        .into_iter()
        .map(|r| to_original(r.start)..to_original(r.end))
        .collect()
}

/// The ways models paste line numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Family {
    /// read_file's own `    12│ text`.
    Bar,
    /// `    12→text`.
    Arrow,
    /// `cat -n`: `    12<TAB>text`.
    Tab,
    /// `grep -n`: `12:text` (match) and `12-text` (context).
    Grep,
}

impl Family {
    fn regex(self) -> Regex {
        let pattern = match self {
            Family::Bar => r"^[ \t]*(\d+)│ ?(.*)$",
            Family::Arrow => r"^[ \t]*(\d+)→(.*)$",
            Family::Tab => r"^[ \t]*(\d+)\t(.*)$",
            Family::Grep => r"^(\d+)[:-](.*)$",
        };
        Regex::new(pattern).unwrap_or_else(|_| unreachable!("static regex"))
    }
}

/// A search whose every line carries a line-number prefix.
#[derive(Debug, Clone)]
pub(super) struct Numbered {
    pub family: Family,
    pub numbers: Vec<usize>,
    pub lines: Vec<String>,
    pub trailing_newline: bool,
}

impl Numbered {
    /// `Some` when every line of `text` has a prefix of one family and the numbers strictly
    /// increase.
    pub(super) fn parse(text: &str) -> Option<Numbered> {
        Numbered::parse_prefixes(text, true)
    }

    /// Like [`Numbered::parse`], in any order of the numbers: what the diagnosis of a miss
    /// looks for, since out-of-order prefixes are never stripped by the ladder.
    pub(super) fn parse_unordered(text: &str) -> Option<Numbered> {
        Numbered::parse_prefixes(text, false)
    }

    fn parse_prefixes(text: &str, increasing: bool) -> Option<Numbered> {
        let pattern = SearchLines::new(text);
        if pattern.lines.iter().all(|l| l.is_empty()) {
            return None;
        }
        for family in [Family::Bar, Family::Arrow, Family::Tab, Family::Grep] {
            let re = family.regex();
            let mut numbers = Vec::new();
            let mut lines = Vec::new();
            for line in &pattern.lines {
                let Some(caps) = re.captures(line) else { break };
                let Ok(n) = caps[1].parse::<usize>() else { break };
                numbers.push(n);
                lines.push(caps[2].to_string());
            }
            if lines.len() == pattern.lines.len() && (!increasing || numbers.windows(2).all(|w| w[0] < w[1]))
            {
                return Some(Numbered {
                    family,
                    numbers,
                    lines,
                    trailing_newline: pattern.trailing_newline,
                });
            }
        }
        None
    }

    /// The text without the prefixes.
    pub(super) fn text(&self) -> String {
        let mut text = self.lines.join("\n");
        if self.trailing_newline {
            text.push('\n');
        }
        text
    }

    pub(super) fn consecutive(&self) -> bool {
        self.numbers.windows(2).all(|w| w[1] == w[0] + 1)
    }

    /// The span of the file lines the numbers name, if the stripped lines are those lines
    /// (exactly, or up to whitespace and punctuation at the line's ends).
    pub(super) fn land(&self, hay: &str, index: &LineIndex) -> Option<Range<usize>> {
        let first = *self.numbers.first()?;
        if first == 0 || !self.consecutive() || first - 1 + self.lines.len() > index.count() {
            return None;
        }
        for (j, wanted) in self.lines.iter().enumerate() {
            let (line, _) = index.line(hay, first - 1 + j);
            if line != wanted
                && normalize(line, Norm::TrimPunctuation) != normalize(wanted, Norm::TrimPunctuation)
            {
                return None;
            }
        }
        let (_, first_range) = index.line(hay, first - 1);
        let (_, last_range) = index.line(hay, first - 2 + self.lines.len());
        let mut end = last_range.end;
        if self.trailing_newline && end < hay.len() {
            end += 1;
        }
        Some(first_range.start..end)
    }
}

#[cfg(test)]
#[path = "matching_tests.rs"]
mod tests;

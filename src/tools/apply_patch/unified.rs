//! Unified diffs as `git diff` and `diff -u` write them.
//!
//! Over 600 lines: the whole grammar (file headers, git's extended headers, hunks) and the
//! error for each way a line can break it are read in one place.
//!
//! Lines outside file headers and hunks are skipped (`index` lines, `diff -u` command lines,
//! commit messages), as `git apply` and GNU patch do. Inside a hunk nothing is guessed: the
//! body must hold exactly the line counts its `@@` header announces.

use super::model::{body_line, patch_lines, BodyLine, FilePatch, Hunk, Op, ParseError, Tag};
use crate::error::{NotRegularWay, PatchProblem, QuoteProblem};

/// What a `diff --git` block says before its hunks.
#[derive(Debug, Default)]
struct GitHeader {
    line: usize,
    names: Option<(String, String)>,
    new_file_mode: Option<u32>,
    deleted: bool,
    new_mode: Option<u32>,
    /// The first mode line naming something other than a regular file: its mode, patch line
    /// and text.
    special: Option<(u32, usize, String)>,
    rename_from: Option<String>,
    rename_to: Option<String>,
    copy_from: Option<String>,
    copy_to: Option<String>,
}

/// Parses a unified diff. `exists` tells whether a workspace-relative path exists; it decides
/// whether leading `a/` `b/` style components are prefixes to strip.
pub(super) fn parse(text: &str, exists: &dyn Fn(&str) -> bool) -> Result<Vec<FilePatch>, ParseError> {
    let lines = patch_lines(text);
    let mut files = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if let Some(rest) = line.strip_prefix("diff --git ") {
            let (header, next) = parse_git_header(&lines, i, rest)?;
            let (old, new, hunks, next) = parse_file_body(&lines, next, Some(&header))?;
            files.push(settle_git(header, old, new, hunks, exists)?);
            i = next;
        } else if line.starts_with("--- ") && lines.get(i + 1).is_some_and(|l| l.starts_with("+++ ")) {
            let (old, new, hunks, next) = parse_file_body(&lines, i, None)?;
            files.push(settle_plain(i + 1, old, new, hunks, exists)?);
            i = next;
        } else if line.starts_with("@@ ") || line == "@@" {
            let header = line.to_string();
            return Err(ParseError::new(i + 1, PatchProblem::HunkBeforeFile { header }));
        } else if line.starts_with("GIT binary patch") || line.starts_with("Binary files ") {
            return Err(binary(i + 1));
        } else {
            i += 1;
        }
    }
    if files.is_empty() {
        return Err(ParseError::new(1, PatchProblem::NoFileChanges));
    }
    Ok(files)
}

fn binary(line: usize) -> ParseError {
    ParseError::new(line, PatchProblem::Binary)
}

fn parse_git_header(lines: &[&str], start: usize, rest: &str) -> Result<(GitHeader, usize), ParseError> {
    let mut header = GitHeader {
        line: start + 1,
        names: split_git_names(rest),
        ..GitHeader::default()
    };
    let mut i = start + 1;
    while i < lines.len() {
        let line = lines[i].strip_suffix('\r').unwrap_or(lines[i]);
        let path_of = |value: &str| unquote_path(value, i + 1);
        let mut note_mode = |value: &str| -> Result<u32, ParseError> {
            let mode = mode(value, i + 1)?;
            if !is_regular(mode) && header.special.is_none() {
                header.special = Some((mode, i + 1, line.to_string()));
            }
            Ok(mode)
        };
        if let Some(v) = line.strip_prefix("new file mode ") {
            header.new_file_mode = Some(note_mode(v)?);
        } else if let Some(v) = line.strip_prefix("deleted file mode ") {
            note_mode(v)?;
            header.deleted = true;
        } else if let Some(v) = line.strip_prefix("new mode ") {
            header.new_mode = Some(note_mode(v)?);
        } else if let Some(v) = line.strip_prefix("old mode ") {
            note_mode(v)?;
        } else if let Some(v) = line.strip_prefix("index ") {
            // `index abc123..def456 100644`: the mode is there when it did not change.
            if let Some(m) = v.split_whitespace().nth(1) {
                note_mode(m)?;
            }
        } else if line.starts_with("similarity index ") || line.starts_with("dissimilarity index ") {
        } else if let Some(v) = line
            .strip_prefix("rename from ")
            .or(line.strip_prefix("rename old "))
        {
            header.rename_from = Some(path_of(v)?);
        } else if let Some(v) = line
            .strip_prefix("rename to ")
            .or(line.strip_prefix("rename new "))
        {
            header.rename_to = Some(path_of(v)?);
        } else if let Some(v) = line.strip_prefix("copy from ") {
            header.copy_from = Some(path_of(v)?);
        } else if let Some(v) = line.strip_prefix("copy to ") {
            header.copy_to = Some(path_of(v)?);
        } else if line.starts_with("GIT binary patch") || line.starts_with("Binary files ") {
            return Err(binary(i + 1));
        } else {
            break;
        }
        i += 1;
    }
    Ok((header, i))
}

type FileBody = (Option<Option<String>>, Option<Option<String>>, Vec<Hunk>, usize);

/// The `---`/`+++` lines (if present at `start`) and the hunks after them.
fn parse_file_body(lines: &[&str], start: usize, git: Option<&GitHeader>) -> Result<FileBody, ParseError> {
    let mut i = start;
    let (mut old, mut new) = (None, None);
    if lines.get(i).is_some_and(|l| l.starts_with("--- "))
        && lines.get(i + 1).is_some_and(|l| l.starts_with("+++ "))
    {
        old = Some(header_path(&lines[i][4..], i + 1)?);
        new = Some(header_path(&lines[i + 1][4..], i + 2)?);
        i += 2;
    } else if git.is_none() {
        return Err(ParseError::new(start + 1, PatchProblem::NoFileHeader));
    }
    let mut hunks: Vec<Hunk> = Vec::new();
    while let Some(line) = lines.get(i) {
        if !(line.starts_with("@@ ") || *line == "@@" || line.starts_with("@@@")) {
            break;
        }
        let (hunk, next) = parse_hunk(lines, i, hunks.len() + 1)?;
        hunks.push(hunk);
        i = next;
    }
    if hunks.is_empty() && git.is_none() {
        return Err(ParseError::new(
            i + 1,
            PatchProblem::NoHunks {
                header_line: start + 1,
            },
        ));
    }
    Ok((old, new, hunks, i))
}

/// `@@ -a,b +c,d @@ section` and exactly the body lines it counts.
fn parse_hunk(lines: &[&str], start: usize, number: usize) -> Result<(Hunk, usize), ParseError> {
    let header = lines[start].strip_suffix('\r').unwrap_or(lines[start]);
    let (old_start, old_count, new_count) = hunk_header(header, start, number)?;
    let mut hunk = Hunk {
        old_start: Some(old_start),
        line: start + 1,
        ..Hunk::default()
    };
    let (mut old_seen, mut new_seen) = (0usize, 0usize);
    let mut i = start + 1;
    let counts = (old_count, new_count);
    while old_seen < old_count || new_seen < new_count {
        let Some(&line) = lines.get(i) else {
            return Err(short_hunk(
                number,
                start,
                header,
                (counts, (old_seen, new_seen)),
                None,
            ));
        };
        let (tag, rest) = match line.as_bytes().first() {
            Some(b' ') => (Tag::Context, &line[1..]),
            Some(b'-') => (Tag::Remove, &line[1..]),
            Some(b'+') => (Tag::Add, &line[1..]),
            // Some tools strip the single space of an empty context line.
            None => (Tag::Context, ""),
            Some(b'\r') if line == "\r" => (Tag::Context, "\r"),
            Some(b'\\') => {
                mark_no_newline(&mut hunk);
                i += 1;
                continue;
            }
            Some(_) => {
                let seen = (old_seen, new_seen);
                return Err(short_hunk(number, start, header, (counts, seen), Some((i, line))));
            }
        };
        if tag != Tag::Add {
            old_seen += 1;
        }
        if tag != Tag::Remove {
            new_seen += 1;
        }
        if old_seen > old_count || new_seen > new_count {
            let problem = PatchProblem::HunkOverCount {
                number,
                header_line: start + 1,
                header: header.to_string(),
                old: old_seen > old_count,
            };
            return Err(ParseError::new(i + 1, problem));
        }
        hunk.body.push(body_line(tag, rest));
        i += 1;
    }
    if lines.get(i).is_some_and(|l| l.starts_with('\\')) {
        mark_no_newline(&mut hunk);
        i += 1;
    }
    check_hunk_end(lines, i, start, number, header)?;
    Ok((hunk, i))
}

/// A body line right after the counted ones means the header's counts are short.
fn check_hunk_end(
    lines: &[&str],
    i: usize,
    start: usize,
    number: usize,
    header: &str,
) -> Result<(), ParseError> {
    let Some(&next) = lines.get(i) else {
        return Ok(());
    };
    let continues = (next.starts_with('+') && !next.starts_with("+++ "))
        || (next.starts_with('-') && !next.starts_with("--- ") && next != "-- ")
        || next.starts_with(' ');
    if !continues {
        return Ok(());
    }
    let problem = PatchProblem::HunkContinues {
        number,
        header_line: start + 1,
        header: header.to_string(),
        line: i + 1,
        next: next.to_string(),
    };
    Err(ParseError::new(i + 1, problem))
}

/// The old start, old count and new count of `@@ -a,b +c,d @@ section`.
fn hunk_header(header: &str, start: usize, number: usize) -> Result<(usize, usize, usize), ParseError> {
    let bad_header = || {
        let header = header.to_string();
        ParseError::new(start + 1, PatchProblem::MalformedHunkHeader { number, header })
    };
    if header.starts_with("@@@") {
        let header = header.to_string();
        return Err(ParseError::new(start + 1, PatchProblem::CombinedDiff { header }));
    }
    let inner = header
        .strip_prefix("@@ ")
        .and_then(|r| {
            r.split_once(" @@")
                .map(|(ranges, _)| ranges)
                .or(r.strip_suffix(" @@"))
        })
        .ok_or_else(bad_header)?;
    let mut parts = inner.split_whitespace();
    let (old_start, old_count) = parts
        .next()
        .and_then(|p| p.strip_prefix('-'))
        .and_then(range)
        .ok_or_else(bad_header)?;
    let (_, new_count) = parts
        .next()
        .and_then(|p| p.strip_prefix('+'))
        .and_then(range)
        .ok_or_else(bad_header)?;
    if parts.next().is_some() {
        return Err(bad_header());
    }
    Ok((old_start, old_count, new_count))
}

fn short_hunk(
    number: usize,
    start: usize,
    header: &str,
    (counts, seen): ((usize, usize), (usize, usize)),
    at: Option<(usize, &str)>,
) -> ParseError {
    let line = at.map_or(start + 1, |(i, _)| i + 1);
    let problem = PatchProblem::HunkEndsEarly {
        number,
        header_line: start + 1,
        header: header.to_string(),
        counts,
        seen,
        stop: at.map(|(i, text)| (i + 1, text.to_string())),
    };
    ParseError::new(line, problem)
}

fn mark_no_newline(hunk: &mut Hunk) {
    match hunk.body.last().map(|l| l.tag) {
        Some(Tag::Remove) => hunk.old_no_newline = true,
        Some(Tag::Add) => hunk.new_no_newline = true,
        Some(Tag::Context) => {
            hunk.old_no_newline = true;
            hunk.new_no_newline = true;
        }
        None => {}
    }
}

/// `12` or `12,4` → (12, 4); a missing count is 1.
fn range(text: &str) -> Option<(usize, usize)> {
    match text.split_once(',') {
        Some((start, count)) => Some((start.parse().ok()?, count.parse().ok()?)),
        None => Some((text.parse().ok()?, 1)),
    }
}

fn mode(text: &str, line: usize) -> Result<u32, ParseError> {
    u32::from_str_radix(text.trim(), 8).map_err(|_| {
        let text = text.to_string();
        ParseError::new(line, PatchProblem::BadMode { text })
    })
}

/// The file-type bits of a git mode.
const TYPE_BITS: u32 = 0o170000;
const REGULAR: u32 = 0o100000;
const SYMLINK: u32 = 0o120000;
const GITLINK: u32 = 0o160000;

/// A regular file's mode (`100644`, `100755`), or bare permission bits (`755`).
fn is_regular(mode: u32) -> bool {
    matches!(mode & TYPE_BITS, 0 | REGULAR)
}

/// Refuses a file change whose git mode is a symlink (120000), a submodule (160000) or any
/// other non-regular type. Applied as a regular file, such a change would write the link's
/// target path as text into a file with mode 0000; what the patch means can only be done by
/// making the link or checking out the submodule, which is exec_shell's business.
fn unsupported_mode(
    (mode, line, text): &(u32, usize, String),
    header: &GitHeader,
    path: &str,
    hunks: &[Hunk],
) -> ParseError {
    let added: Vec<&str> = hunks
        .iter()
        .flat_map(|h| &h.body)
        .filter(|l| l.tag == Tag::Add)
        .map(|l| l.text.as_str())
        .collect();
    let target = match added.as_slice() {
        [one] => *one,
        _ => "TARGET",
    };
    let path_word = crate::fs::workspace::shell_word(path);
    let instead = match mode & TYPE_BITS {
        SYMLINK if header.deleted => NotRegularWay::RemoveLink { path_word },
        SYMLINK => NotRegularWay::MakeLink {
            target_word: crate::fs::workspace::shell_word(target),
            path_word,
        },
        GITLINK => NotRegularWay::Submodule,
        _ => NotRegularWay::Other,
    };
    let problem = PatchProblem::NotRegular {
        path: path.to_string(),
        line: *line,
        text: text.clone(),
        instead,
    };
    ParseError::new(*line, problem)
}

/// The path of a `---`/`+++` line: quoted, or up to a tab (after which `diff -u` writes a
/// timestamp and git a bare tab for names with spaces). `None` is `/dev/null`.
fn header_path(text: &str, line: usize) -> Result<Option<String>, ParseError> {
    let text = text.strip_suffix('\r').unwrap_or(text);
    let path = if text.starts_with('"') {
        unquote_path(text, line)?
    } else {
        text.split('\t').next().unwrap_or(text).trim_end().to_string()
    };
    if path == "/dev/null" {
        return Ok(None);
    }
    if path.is_empty() {
        return Err(ParseError::new(line, PatchProblem::NoHeaderPath));
    }
    Ok(Some(path))
}

/// Undoes git's C-style quoting (`"dir/caf\303\251 x.txt"`); unquoted text is returned as is.
pub(super) fn unquote_path(text: &str, line: usize) -> Result<String, ParseError> {
    let text = text.strip_suffix('\r').unwrap_or(text);
    let Some(inner) = text.strip_prefix('"') else {
        return Ok(text.to_string());
    };
    let bad = |why: QuoteProblem| {
        let text = text.to_string();
        ParseError::new(line, PatchProblem::BadQuotedPath { text, why })
    };
    let mut bytes = Vec::new();
    let mut chars = inner.bytes().peekable();
    loop {
        match chars.next() {
            None => return Err(bad(QuoteProblem::Unclosed)),
            Some(b'"') => break,
            Some(b'\\') => match chars.next() {
                Some(b'n') => bytes.push(b'\n'),
                Some(b't') => bytes.push(b'\t'),
                Some(b'r') => bytes.push(b'\r'),
                Some(b'a') => bytes.push(7),
                Some(b'b') => bytes.push(8),
                Some(b'f') => bytes.push(12),
                Some(b'v') => bytes.push(11),
                Some(c @ (b'"' | b'\\')) => bytes.push(c),
                Some(d @ b'0'..=b'3') => {
                    let mut value = u32::from(d - b'0');
                    for _ in 0..2 {
                        match chars.next() {
                            Some(o @ b'0'..=b'7') => value = value * 8 + u32::from(o - b'0'),
                            _ => return Err(bad(QuoteProblem::BadOctal)),
                        }
                    }
                    bytes.push(value as u8);
                }
                _ => return Err(bad(QuoteProblem::UnknownEscape)),
            },
            Some(c) => bytes.push(c),
        }
    }
    String::from_utf8(bytes).map_err(|_| bad(QuoteProblem::NotUtf8))
}

/// The two names of `diff --git A B`. Quoted names are unambiguous; unquoted ones may contain
/// spaces, so the split that gives two equal names after their prefixes wins (git's own rule).
fn split_git_names(rest: &str) -> Option<(String, String)> {
    let rest = rest.strip_suffix('\r').unwrap_or(rest);
    if rest.starts_with('"') {
        let close = quoted_len(rest)?;
        let a = unquote_path(&rest[..close], 0).ok()?;
        let b = unquote_path(rest[close..].trim_start(), 0).ok()?;
        return Some((a, b));
    }
    if let Some(pos) = rest.find(" \"") {
        let b = unquote_path(&rest[pos + 1..], 0).ok()?;
        return Some((rest[..pos].to_string(), b));
    }
    let spaces: Vec<usize> = rest.match_indices(' ').map(|(i, _)| i).collect();
    for &pos in &spaces {
        let (a, b) = (&rest[..pos], &rest[pos + 1..]);
        if strip_one(a) == strip_one(b) {
            return Some((a.to_string(), b.to_string()));
        }
    }
    let pos = rest.find(" b/").or(spaces.first().copied())?;
    Some((rest[..pos].to_string(), rest[pos + 1..].to_string()))
}

fn quoted_len(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut i = 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

fn strip_one(path: &str) -> &str {
    path.split_once('/').map_or(path, |(_, rest)| rest)
}

/// How many leading components to strip: the `a/`/`b/` convention (any one-letter prefix,
/// as with git's mnemonic prefixes) is tried first; otherwise the names as written, then one
/// component stripped (`diff -ru old/ new/`). The first level at which a named file exists
/// wins; when none exists (new files), the preferred level.
fn strip_level(names: &[&str], exists: &dyn Fn(&str) -> bool) -> usize {
    let prefixed = !names.is_empty()
        && names.iter().all(|n| {
            n.split_once('/')
                .is_some_and(|(first, rest)| first.len() == 1 && !rest.is_empty())
        });
    let order: [usize; 2] = if prefixed { [1, 0] } else { [0, 1] };
    for level in order {
        if names.iter().any(|n| {
            let stripped = if level == 1 { strip_one(n) } else { n };
            !stripped.is_empty() && exists(stripped)
        }) {
            return level;
        }
    }
    order[0]
}

fn strip(name: &str, level: usize) -> String {
    if level == 1 {
        strip_one(name).to_string()
    } else {
        name.to_string()
    }
}

fn with_endings(mut file: FilePatch) -> FilePatch {
    file.explicit_endings = file.hunks.iter().any(|h| h.body.iter().any(|l: &BodyLine| l.cr));
    file
}

fn settle_git(
    header: GitHeader,
    old: Option<Option<String>>,
    new: Option<Option<String>>,
    hunks: Vec<Hunk>,
    exists: &dyn Fn(&str) -> bool,
) -> Result<FilePatch, ParseError> {
    // Names from `---`/`+++` beat the `diff --git` line, which is ambiguous with spaces.
    let (old, new) = match (old, new) {
        (Some(old), Some(new)) => (old, new),
        _ => match &header.names {
            Some((a, b)) => (Some(a.clone()), Some(b.clone())),
            None => return Err(ParseError::new(header.line, PatchProblem::GitLineNoFiles)),
        },
    };
    let names: Vec<&str> = [old.as_deref(), new.as_deref()].into_iter().flatten().collect();
    let level = strip_level(&names, exists);
    let old = old.map(|n| strip(&n, level));
    let new = new.map(|n| strip(&n, level));
    let line = header.line;
    if let Some(special) = &header.special {
        // Deleting a symlink is the one symlink change apply_patch makes (it removes the link,
        // as `*** Delete File:` does); creating or changing one it refuses.
        let deletes_link = special.0 & TYPE_BITS == SYMLINK
            && header.deleted
            && header.new_file_mode.is_none()
            && header.new_mode.is_none();
        match old {
            Some(path) if deletes_link => {
                let mut file = FilePatch::new(Op::Delete, path, line);
                file.symlink = true;
                file.hunks = hunks;
                return Ok(file);
            }
            _ => {
                let path = new.as_deref().or(old.as_deref()).unwrap_or_default();
                return Err(unsupported_mode(special, &header, path, &hunks));
            }
        }
    }
    let executable = |mode: Option<u32>| mode.map(|m| m & 0o111 != 0);
    let mut file = if header.new_file_mode.is_some() || old.is_none() {
        let path = new.ok_or_else(|| ParseError::new(line, PatchProblem::NewFileNoName))?;
        let mut file = FilePatch::new(Op::Add, path, line);
        file.executable = executable(header.new_file_mode);
        file
    } else if header.deleted || new.is_none() {
        let path = old.ok_or_else(|| ParseError::new(line, PatchProblem::DeletedFileNoName))?;
        FilePatch::new(Op::Delete, path, line)
    } else if let (Some(from), Some(to)) = (&header.rename_from, &header.rename_to) {
        let mut file = FilePatch::new(Op::Update, from.clone(), line);
        file.move_to = Some(to.clone());
        file
    } else if let (Some(from), Some(to)) = (&header.copy_from, &header.copy_to) {
        let mut file = FilePatch::new(Op::Update, from.clone(), line);
        file.move_to = Some(to.clone());
        file.copy = true;
        file
    } else {
        let path = old.or(new).unwrap_or_default();
        FilePatch::new(Op::Update, path, line)
    };
    if file.executable.is_none() {
        file.executable = executable(header.new_mode);
    }
    file.hunks = hunks;
    Ok(with_endings(file))
}

fn settle_plain(
    line: usize,
    old: Option<Option<String>>,
    new: Option<Option<String>>,
    hunks: Vec<Hunk>,
    exists: &dyn Fn(&str) -> bool,
) -> Result<FilePatch, ParseError> {
    let (old, new) = (old.flatten(), new.flatten());
    let names: Vec<&str> = [old.as_deref(), new.as_deref()].into_iter().flatten().collect();
    let level = strip_level(&names, exists);
    let old = old.map(|n| strip(&n, level));
    let new = new.map(|n| strip(&n, level));
    let file = match (old, new) {
        (None, Some(new)) => FilePatch::new(Op::Add, new, line),
        (Some(old), None) => FilePatch::new(Op::Delete, old, line),
        (Some(old), Some(new)) => {
            // A plain diff never renames: it changes whichever of its two names exists.
            let path = if exists(&old) || !exists(&new) { old } else { new };
            FilePatch::new(Op::Update, path, line)
        }
        (None, None) => return Err(ParseError::new(line, PatchProblem::BothDevNull)),
    };
    Ok(with_endings(FilePatch { hunks, ..file }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unquotes_git_paths() {
        assert_eq!(
            unquote_path("\"a/caf\\303\\251 x.txt\"", 1).unwrap(),
            "a/café x.txt"
        );
        assert_eq!(
            unquote_path("\"a/tab\\there\\\"q\\\"\"", 1).unwrap(),
            "a/tab\there\"q\""
        );
        assert_eq!(unquote_path("plain/path", 1).unwrap(), "plain/path");
        assert!(unquote_path("\"unterminated", 1).is_err());
        assert!(unquote_path("\"bad \\9\"", 1).is_err());
    }

    #[test]
    fn splits_diff_git_names_with_spaces() {
        assert_eq!(
            split_git_names("a/my file.txt b/my file.txt"),
            Some(("a/my file.txt".into(), "b/my file.txt".into()))
        );
        assert_eq!(
            split_git_names("\"a/x y\" \"b/x y\""),
            Some(("a/x y".into(), "b/x y".into()))
        );
        assert_eq!(
            split_git_names("a/old b/new"),
            Some(("a/old".into(), "b/new".into()))
        );
    }

    #[test]
    fn strips_prefixes_by_what_exists() {
        let exists = |p: &str| p == "src/x.rs" || p == "a/real.txt";
        assert_eq!(strip_level(&["a/src/x.rs", "b/src/x.rs"], &exists), 1);
        assert_eq!(strip_level(&["a/real.txt"], &exists), 0);
        assert_eq!(strip_level(&["old/src/x.rs", "new/src/x.rs"], &exists), 1);
        assert_eq!(strip_level(&["b/brand/new.txt"], &|_| false), 1);
        assert_eq!(strip_level(&["notes.txt"], &|_| false), 0);
    }

    #[test]
    fn hunk_ranges() {
        assert_eq!(range("12,4"), Some((12, 4)));
        assert_eq!(range("7"), Some((7, 1)));
        assert_eq!(range("x"), None);
    }

    #[test]
    fn parses_git_headers_without_hunks() {
        let files = parse(
            "diff --git a/x b/y\nsimilarity index 100%\nrename from x\nrename to y\n\
             diff --git a/m b/m\nold mode 100644\nnew mode 100755\n",
            &|_| true,
        )
        .unwrap();
        assert_eq!(files.len(), 2);
        assert_eq!(files[0].path, "x");
        assert_eq!(files[0].move_to.as_deref(), Some("y"));
        assert_eq!(files[1].executable, Some(true));
    }
}

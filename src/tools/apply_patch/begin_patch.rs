//! The `*** Begin Patch` format GPT-family models write natively:
//!
//! ```text
//! *** Begin Patch
//! *** Add File: path        (every content line starts with `+`)
//! *** Delete File: path
//! *** Update File: path
//! *** Move to: new/path     (optional, right after Update File)
//! @@ fn context_line()      (optional; several may stack; a bare `@@` separates chunks)
//!  context / -removed / +added
//! *** End of File           (optional: the chunk ends at the end of the file)
//! *** End Patch
//! ```
//!
//! Models get the frame slightly wrong often enough that it is forgiven: whitespace around
//! markers, a first chunk without `@@`, a heredoc (`apply_patch <<'EOF'` … `EOF`) or a markdown
//! fence around the whole patch, `*** Begin Patch ***`, and a missing `*** End Patch`.

use super::model::{body_line, patch_lines, FilePatch, Hunk, Op, ParseError, Tag};
use crate::error::PatchProblem;

/// True when the text's first meaningful line is `*** Begin Patch`.
pub(super) fn detect(text: &str) -> bool {
    // The marker opens the patch (after at most a few heredoc, fence or blank lines): one
    // SIMD scan of the head rules out a unified diff before any line is split.
    const HEAD_BYTES: usize = 64 * 1024;
    let head = &text.as_bytes()[..text.len().min(HEAD_BYTES)];
    if memchr::memmem::find(head, b"*** Begin Patch").is_none() {
        return false;
    }
    let lines = patch_lines(text);
    let (start, _) = frame(&lines);
    lines.get(start).is_some_and(|l| is_begin(l))
}

fn is_begin(line: &str) -> bool {
    let t = line.trim();
    t == "*** Begin Patch" || t == "*** Begin Patch ***"
}

fn is_end(line: &str) -> bool {
    let t = line.trim();
    t == "*** End Patch" || t == "*** End Patch ***"
}

/// The range of lines inside any heredoc wrappers and markdown fences, skipping blank lines.
/// The layers peel in any order (a fenced heredoc, a heredoc holding a fence), as a model
/// pasting a shell example into a chat answer stacks them.
fn frame(lines: &[&str]) -> (usize, usize) {
    /// More layers than this are not a frame anyone writes; the rest is left to the parser.
    const MAX_LAYERS: usize = 4;
    let (mut start, mut end) = trim_blank(lines, 0, lines.len());
    for _ in 0..MAX_LAYERS {
        if end - start < 2 {
            break;
        }
        let heredoc = heredoc_delimiter(lines[start]).is_some_and(|d| lines[end - 1].trim() == d);
        let fence = lines[start].trim().starts_with("```") && lines[end - 1].trim() == "```";
        if !(heredoc || fence) {
            break;
        }
        (start, end) = trim_blank(lines, start + 1, end - 1);
    }
    (start, end)
}

fn trim_blank(lines: &[&str], mut start: usize, mut end: usize) -> (usize, usize) {
    while start < end && lines[start].trim().is_empty() {
        start += 1;
    }
    while end > start && lines[end - 1].trim().is_empty() {
        end -= 1;
    }
    (start, end)
}

/// `apply_patch <<'EOF'`, `<<"EOF"`, `<<EOF`, `<<-EOF` → `EOF`.
fn heredoc_delimiter(line: &str) -> Option<&str> {
    let (_, after) = line.split_once("<<")?;
    let word = after.trim_start_matches('-').trim();
    let word = word.trim_matches(|c| c == '\'' || c == '"');
    (!word.is_empty() && word.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')).then_some(word)
}

enum Marker<'a> {
    Add(&'a str),
    Delete(&'a str),
    Update(&'a str),
    MoveTo(&'a str),
    EndOfFile,
    End,
}

fn marker(line: &str) -> Option<Marker<'_>> {
    let t = line.trim();
    if is_end(t) {
        return Some(Marker::End);
    }
    let rest = t.strip_prefix("***")?.trim_start();
    let path = |p: &'static str| rest.strip_prefix(p).map(|v| v.trim_start_matches(':').trim());
    if let Some(p) = path("Add File") {
        Some(Marker::Add(p))
    } else if let Some(p) = path("Delete File") {
        Some(Marker::Delete(p))
    } else if let Some(p) = path("Update File") {
        Some(Marker::Update(p))
    } else if let Some(p) = path("Move to") {
        Some(Marker::MoveTo(p))
    } else if rest.trim_end_matches('*').trim() == "End of File" {
        Some(Marker::EndOfFile)
    } else {
        None
    }
}

/// Parses a `*** Begin Patch` patch. Line numbers in errors are 1-based lines of `text`.
pub(super) fn parse(text: &str) -> Result<Vec<FilePatch>, ParseError> {
    let lines = patch_lines(text);
    let (start, end) = frame(&lines);
    if !lines.get(start).is_some_and(|l| is_begin(l)) {
        return Err(ParseError::new(start + 1, PatchProblem::NoBeginMarker));
    }
    let mut files: Vec<FilePatch> = Vec::new();
    let mut i = start + 1;
    while i < end {
        let line = lines[i];
        match marker(line) {
            Some(Marker::End) => {
                i += 1;
                break;
            }
            Some(Marker::Add(path)) => {
                let (file, next) = parse_add(&lines, i, end, need_path(path, i, "Add File")?)?;
                files.push(file);
                i = next;
            }
            Some(Marker::Delete(path)) => {
                files.push(FilePatch::new(
                    Op::Delete,
                    need_path(path, i, "Delete File")?,
                    i + 1,
                ));
                i += 1;
            }
            Some(Marker::Update(path)) => {
                let (file, next) = parse_update(&lines, i, end, need_path(path, i, "Update File")?)?;
                files.push(file);
                i = next;
            }
            Some(Marker::MoveTo(_)) => return Err(ParseError::new(i + 1, PatchProblem::MoveToAlone)),
            Some(Marker::EndOfFile) | None if line.trim().is_empty() => i += 1,
            _ => {
                let line = line.to_string();
                return Err(ParseError::new(i + 1, PatchProblem::NotASection { line }));
            }
        }
    }
    if let Some(extra) = (i..end).find(|&j| !lines[j].trim().is_empty()) {
        let line = lines[extra].to_string();
        return Err(ParseError::new(extra + 1, PatchProblem::AfterEnd { line }));
    }
    if files.is_empty() {
        return Err(ParseError::new(start + 1, PatchProblem::NoFileChanged));
    }
    Ok(files)
}

/// The `*** Add File:` section whose marker is line `i`: every content line starts with `+`.
/// With it, the index of the line after the section.
fn parse_add(
    lines: &[&str],
    mut i: usize,
    end: usize,
    path: String,
) -> Result<(FilePatch, usize), ParseError> {
    let mut hunk = Hunk {
        old_start: Some(0),
        line: i + 1,
        ..Hunk::default()
    };
    i += 1;
    let mut trailing_bare = 0;
    while i < end && marker(lines[i]).is_none() {
        let l = lines[i];
        match l.strip_prefix('+') {
            Some(rest) => {
                hunk.body.push(body_line(Tag::Add, rest));
                trailing_bare = 0;
            }
            // A blank line between content lines is an empty line whose `+` was
            // forgotten; blank lines before the next marker are separators.
            None if l.trim().is_empty() => {
                hunk.body.push(body_line(Tag::Add, ""));
                trailing_bare += 1;
            }
            None => {
                let problem = PatchProblem::AddLineWithoutPlus {
                    path: path.clone(),
                    line: l.to_string(),
                };
                return Err(ParseError::new(i + 1, problem));
            }
        }
        i += 1;
    }
    hunk.body.truncate(hunk.body.len() - trailing_bare);
    let mut file = FilePatch::new(Op::Add, path, hunk.line);
    file.replaces = true;
    file.hunks.push(hunk);
    Ok((file, i))
}

/// The `*** Update File:` section whose marker is line `i`: an optional `*** Move to:`, then
/// its chunks. With it, the index of the line after the section.
fn parse_update(
    lines: &[&str],
    mut i: usize,
    end: usize,
    path: String,
) -> Result<(FilePatch, usize), ParseError> {
    let mut file = FilePatch::new(Op::Update, path, i + 1);
    i += 1;
    if let Some(Marker::MoveTo(to)) = lines.get(i).and_then(|l| marker(l)) {
        file.move_to = Some(need_path(to, i, "Move to")?);
        i += 1;
    }
    i = parse_chunks(lines, i, end, &mut file)?;
    if file.hunks.is_empty() && file.move_to.is_none() {
        let path = file.path.clone();
        return Err(ParseError::new(
            file.line,
            PatchProblem::UpdateWithoutChanges { path },
        ));
    }
    Ok((file, i))
}

fn need_path(path: &str, i: usize, marker: &'static str) -> Result<String, ParseError> {
    if path.is_empty() {
        return Err(ParseError::new(i + 1, PatchProblem::NoPath { marker }));
    }
    Ok(path.to_string())
}

/// The chunks of one `*** Update File:` section, up to the next file marker.
fn parse_chunks(lines: &[&str], mut i: usize, end: usize, file: &mut FilePatch) -> Result<usize, ParseError> {
    let mut chunk = Hunk {
        line: i + 1,
        ..Hunk::default()
    };
    let mut trailing_bare = 0;
    while i < end {
        let line = lines[i];
        match marker(line) {
            Some(Marker::EndOfFile) => {
                drop_trailing(&mut chunk, trailing_bare);
                chunk.at_eof = true;
                finish_chunk(&mut chunk, file, i + 2);
                trailing_bare = 0;
                i += 1;
                continue;
            }
            Some(_) => break,
            None => {}
        }
        let trimmed = line.trim_start();
        if trimmed.starts_with("@@") {
            if !chunk.body.is_empty() {
                drop_trailing(&mut chunk, trailing_bare);
                finish_chunk(&mut chunk, file, i + 1);
            }
            trailing_bare = 0;
            if chunk.body.is_empty() && chunk.anchors.is_empty() {
                chunk.line = i + 1;
            }
            let anchor = trimmed.trim_start_matches('@').trim();
            let anchor = anchor.strip_suffix("@@").map_or(anchor, str::trim_end);
            if !anchor.is_empty() && !is_line_range(anchor) {
                chunk.anchors.push(anchor.to_string());
            }
            i += 1;
            continue;
        }
        let (tag, rest) = chunk_line(line, i, &file.path)?;
        // A bare empty line is an empty context line whose space was stripped, unless it is
        // only a separator before the next marker.
        trailing_bare = if line.is_empty() { trailing_bare + 1 } else { 0 };
        chunk.body.push(body_line(tag, rest));
        i += 1;
    }
    drop_trailing(&mut chunk, trailing_bare);
    finish_chunk(&mut chunk, file, i + 1);
    Ok(i)
}

/// A chunk's body line (line `i`): its tag and its text.
fn chunk_line<'a>(line: &'a str, i: usize, path: &str) -> Result<(Tag, &'a str), ParseError> {
    match line.as_bytes().first() {
        Some(b' ') => Ok((Tag::Context, &line[1..])),
        Some(b'-') => Ok((Tag::Remove, &line[1..])),
        Some(b'+') => Ok((Tag::Add, &line[1..])),
        None => Ok((Tag::Context, "")),
        Some(_) if line.trim().is_empty() => Ok((Tag::Context, "")),
        Some(_) => {
            let problem = PatchProblem::NotAChunkLine {
                path: path.to_string(),
                line: line.to_string(),
            };
            Err(ParseError::new(i + 1, problem))
        }
    }
}

/// Drops the bare empty lines that end a chunk: separators before the next marker.
fn drop_trailing(chunk: &mut Hunk, trailing_bare: usize) {
    chunk
        .body
        .truncate(chunk.body.len() - trailing_bare.min(chunk.body.len()));
}

/// Ends the chunk being read and starts the next at `next_line`: a chunk with a body joins
/// the file; stacked `@@` headers with nothing under them yet stay for the next chunk.
fn finish_chunk(chunk: &mut Hunk, file: &mut FilePatch, next_line: usize) {
    let done = std::mem::replace(
        chunk,
        Hunk {
            line: next_line,
            ..Hunk::default()
        },
    );
    if !done.body.is_empty() {
        file.hunks.push(done);
    } else if !done.anchors.is_empty() {
        chunk.anchors = done.anchors;
        chunk.line = done.line;
    }
}

/// `-12,4 +12,5` (a unified hunk header written inside a `*** Begin Patch` chunk header).
fn is_line_range(text: &str) -> bool {
    let mut parts = text.split_whitespace();
    let ok = |p: Option<&str>, sign: char| {
        p.and_then(|p| p.strip_prefix(sign)).is_some_and(|r| {
            r.split(',')
                .all(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        })
    };
    ok(parts.next(), '-') && ok(parts.next(), '+') && parts.next().is_none()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heredoc_and_fence_frames() {
        assert_eq!(heredoc_delimiter("apply_patch <<'EOF'"), Some("EOF"));
        assert_eq!(heredoc_delimiter("cat <<-\"END\""), Some("END"));
        assert_eq!(heredoc_delimiter("no heredoc"), None);
        assert!(detect(
            "apply_patch <<'EOF'\n*** Begin Patch\n*** End Patch\nEOF\n"
        ));
        assert!(detect("```\n*** Begin Patch ***\n*** End Patch\n```"));
        assert!(detect(
            "```\napply_patch <<'EOF'\n*** Begin Patch\n*** End Patch\nEOF\n```\n"
        ));
        assert!(detect(
            "apply_patch <<'EOF'\n```diff\n*** Begin Patch\n*** End Patch\n```\nEOF\n"
        ));
        assert!(!detect("--- a/x\n+++ b/x\n"));
    }

    #[test]
    fn stacked_anchors_and_chunks() {
        let files = parse(
            "*** Begin Patch\n*** Update File: a.py\n@@ class A\n@@ def f\n-x\n+y\n@@\n-z\n+w\n*** End of File\n*** End Patch",
        )
        .unwrap();
        let hunks = &files[0].hunks;
        assert_eq!(hunks.len(), 2);
        assert_eq!(hunks[0].anchors, ["class A", "def f"]);
        assert!(hunks[1].anchors.is_empty());
        assert!(hunks[1].at_eof);
    }

    #[test]
    fn unified_ranges_in_chunk_headers_are_separators() {
        assert!(is_line_range("-12,4 +12,5"));
        assert!(!is_line_range("def f():"));
    }
}

//! What a parsed patch is, whichever format it came in: a list of file changes, each a list of
//! hunks. Both parsers produce these; locating, applying and the transaction consume them.

use crate::error::PatchProblem;

/// One line of a hunk body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct BodyLine {
    pub tag: Tag,
    /// The line's text without its line ending (and without a `\r` before it).
    pub text: String,
    /// The line carried a `\r` before its `\n` in the patch (a CRLF line in a `git diff`).
    pub cr: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Tag {
    Context,
    Remove,
    Add,
}

/// One hunk (unified) or chunk (`*** Begin Patch`).
#[derive(Debug, Clone, Default)]
pub(super) struct Hunk {
    /// The 1-based line the old side starts at, from `@@ -a,b ...`; `None` in the
    /// `*** Begin Patch` format, where position comes from context alone.
    pub old_start: Option<usize>,
    /// `@@ <context line>` headers (`*** Begin Patch`): lines to find, in order, before the hunk.
    pub anchors: Vec<String>,
    pub body: Vec<BodyLine>,
    /// `\ No newline at end of file` followed the old side's last line.
    pub old_no_newline: bool,
    /// `\ No newline at end of file` followed the new side's last line.
    pub new_no_newline: bool,
    /// `*** End of File`: the hunk must end at the end of the file.
    pub at_eof: bool,
    /// The patch line the hunk starts on (1-based), for messages.
    pub line: usize,
}

impl Hunk {
    /// The lines the hunk expects to find (context and removed), in order.
    pub(super) fn old_lines(&self) -> impl Iterator<Item = &BodyLine> {
        self.body.iter().filter(|l| l.tag != Tag::Add)
    }

    pub(super) fn old_len(&self) -> usize {
        self.old_lines().count()
    }

    pub(super) fn new_len(&self) -> usize {
        self.body.iter().filter(|l| l.tag != Tag::Remove).count()
    }
}

/// What happens to one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Op {
    /// Create `path` (it must not exist, unless it is being deleted or moved away by the same patch).
    Add,
    /// Delete `path`.
    Delete,
    /// Change `path` in place, or move it to `move_to` (keeping the source when `copy`).
    Update,
}

/// One file's part of a patch.
#[derive(Debug, Clone)]
pub(super) struct FilePatch {
    pub op: Op,
    /// The file the change reads (for `Add`: the file created).
    pub path: String,
    /// Rename (`rename to`, `*** Move to:`) or copy target.
    pub move_to: Option<String>,
    /// `copy from/to`: the source stays.
    pub copy: bool,
    pub hunks: Vec<Hunk>,
    /// Whether the file becomes executable (`new mode`, `new file mode`): the only part of a
    /// git mode apply_patch takes, as git itself does for regular files.
    pub executable: Option<bool>,
    /// A git deletion of a symlink (`deleted file mode 120000`): the hunks hold the link's
    /// text, not a file's content, and only the link is removed.
    pub symlink: bool,
    /// Added lines take their line ending from the patch (it carries CRLF lines explicitly,
    /// as `git diff` of a CRLF file does) rather than from the file.
    pub explicit_endings: bool,
    /// `*** Add File` over an existing regular file replaces it, as write_file does (with the
    /// same freshness gate); a unified diff from /dev/null never does.
    pub replaces: bool,
    /// The patch line of the file's header, for messages.
    pub line: usize,
}

impl FilePatch {
    pub(super) fn new(op: Op, path: String, line: usize) -> FilePatch {
        FilePatch {
            op,
            path,
            move_to: None,
            copy: false,
            hunks: Vec::new(),
            executable: None,
            symlink: false,
            explicit_endings: false,
            replaces: false,
            line,
        }
    }
}

/// Which format a patch was written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Format {
    Unified,
    BeginPatch,
}

impl Format {
    pub(super) fn as_str(self) -> &'static str {
        match self {
            Format::Unified => "unified",
            Format::BeginPatch => "begin_patch",
        }
    }
}

/// A parse failure: the patch line it is about and what is wrong there.
#[derive(Debug, Clone)]
pub(super) struct ParseError {
    pub line: usize,
    pub problem: PatchProblem,
}

impl ParseError {
    pub(super) fn new(line: usize, problem: PatchProblem) -> ParseError {
        ParseError { line, problem }
    }
}

/// Splits patch text into lines, each without its `\n`; a `\r` before the `\n` stays, because
/// in a `git diff` of a CRLF file it belongs to the line's content. A patch whose every line
/// ends in `\r\n` was itself converted to CRLF in transit; those `\r` are dropped.
pub(super) fn patch_lines(text: &str) -> Vec<&str> {
    let body = text.strip_suffix('\n').unwrap_or(text);
    if body.is_empty() {
        return Vec::new();
    }
    let bytes = body.as_bytes();
    // Patch lines average well over 16 bytes; a few reallocations beat a counting pass.
    let mut lines: Vec<&str> = Vec::with_capacity(bytes.len() / 16 + 1);
    let mut start = 0;
    crate::fs::line_endings::for_each_newline(bytes, |end| {
        lines.push(&body[start..end]);
        start = end + 1;
    });
    lines.push(&body[start..]);
    let all_crlf = lines.iter().all(|l| l.ends_with('\r')) && (text.ends_with("\r\n") || lines.len() > 1);
    if all_crlf {
        lines.iter().map(|l| &l[..l.len() - 1]).collect()
    } else {
        lines
    }
}

/// A body line from its text after the tag character.
pub(super) fn body_line(tag: Tag, rest: &str) -> BodyLine {
    match rest.strip_suffix('\r') {
        Some(text) => BodyLine {
            tag,
            text: text.to_string(),
            cr: true,
        },
        None => BodyLine {
            tag,
            text: rest.to_string(),
            cr: false,
        },
    }
}

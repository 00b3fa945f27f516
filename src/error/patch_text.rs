//! Why a patch's text does not parse, in both of apply_patch's formats: the parsers find the
//! problem and its facts; the words, with the legal forms, are here.

use super::hunk::clip;
use super::{ErrorCode, Field, ToolError};

const HUNK_FORMS: &str = "A hunk header looks like `@@ -12,4 +12,5 @@` (`-start,count +start,count`; \
     a count of 1 may be left out); body lines start with ` ` (context), `-` (removed), `+` (added) \
     or `\\` (`\\ No newline at end of file`).";

const FORMS: &str = "Legal lines: `*** Add File: PATH`, `*** Delete File: PATH`, `*** Update File: PATH` \
     (optionally followed by `*** Move to: PATH`), `@@` or `@@ <a line above the change>`, body lines \
     starting with ` ` (context), `-` (removed) or `+` (added), `*** End of File`, `*** End Patch`.";

/// What is wrong with a patch's text. Line numbers are the patch's, 1-based; quoted lines
/// are as the patch has them (messages shorten them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PatchProblem {
    // A unified diff.
    HunkBeforeFile {
        header: String,
    },
    NoFileChanges,
    Binary,
    NoFileHeader,
    NoHunks {
        header_line: usize,
    },
    /// A hunk with more old (or new) lines than its header counts.
    HunkOverCount {
        number: usize,
        header_line: usize,
        header: String,
        old: bool,
    },
    /// A body line right after the counted ones.
    HunkContinues {
        number: usize,
        header_line: usize,
        header: String,
        line: usize,
        next: String,
    },
    /// The hunk ends before its counts are reached: at `stop` (a line that is no body line),
    /// or at the end of the patch.
    HunkEndsEarly {
        number: usize,
        header_line: usize,
        header: String,
        counts: (usize, usize),
        seen: (usize, usize),
        stop: Option<(usize, String)>,
    },
    MalformedHunkHeader {
        number: usize,
        header: String,
    },
    CombinedDiff {
        header: String,
    },
    BadMode {
        text: String,
    },
    /// A git mode that is not a regular file's; `instead` is what to do with exec_shell.
    NotRegular {
        path: String,
        line: usize,
        text: String,
        instead: NotRegularWay,
    },
    NoHeaderPath,
    BadQuotedPath {
        text: String,
        why: QuoteProblem,
    },
    GitLineNoFiles,
    NewFileNoName,
    DeletedFileNoName,
    BothDevNull,
    // A `*** Begin Patch` patch.
    NoBeginMarker,
    MoveToAlone,
    NotASection {
        line: String,
    },
    AfterEnd {
        line: String,
    },
    NoFileChanged,
    AddLineWithoutPlus {
        path: String,
        line: String,
    },
    UpdateWithoutChanges {
        path: String,
    },
    NoPath {
        marker: &'static str,
    },
    NotAChunkLine {
        path: String,
        line: String,
    },
}

/// What to do instead of a change to a symlink or submodule; paths are shell words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotRegularWay {
    RemoveLink { path_word: String },
    MakeLink { target_word: String, path_word: String },
    Submodule,
    Other,
}

/// Why a git-quoted path cannot be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QuoteProblem {
    Unclosed,
    BadOctal,
    UnknownEscape,
    NotUtf8,
}

impl PatchProblem {
    /// The patch parses, but asks for something apply_patch does not do: the message is then
    /// the whole explanation, with the way out.
    pub fn unsupported(&self) -> bool {
        matches!(self, PatchProblem::NotRegular { .. })
    }
}

impl std::fmt::Display for PatchProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use PatchProblem::*;
        match self {
            HunkBeforeFile { header } => write!(
                f,
                "hunk header `{}` comes before any file header. Put `--- a/PATH` and `+++ b/PATH` \
                 lines (or a `diff --git a/PATH b/PATH` line) above the first hunk of each file. {HUNK_FORMS}",
                clip(header)
            ),
            NoFileChanges => f.write_str(
                "no file changes found. A unified diff needs `--- a/PATH`, `+++ b/PATH` and `@@ -a,b +c,d @@` \
                 lines (as `git diff` or `diff -u` print them); the other format starts with `*** Begin Patch`.",
            ),
            Binary => f.write_str(
                "binary patches are not supported; apply_patch changes text files. Regenerate the diff without \
                 the binary file, and write that file another way.",
            ),
            NoFileHeader => f.write_str("expected `--- PATH` followed by `+++ PATH`."),
            NoHunks { header_line } => write!(
                f,
                "the file header at patch line {header_line} has no hunks after it. {HUNK_FORMS}"
            ),
            HunkOverCount { .. } | HunkContinues { .. } | HunkEndsEarly { .. } => hunk_counts(self, f),
            MalformedHunkHeader { number, header } => {
                write!(f, "hunk {number} has a malformed header `{}`. {HUNK_FORMS}", clip(header))
            }
            CombinedDiff { header } => write!(
                f,
                "`{}` is a combined (merge) diff hunk, which cannot be applied. Diff against one parent \
                 (`git diff A B`) instead. {HUNK_FORMS}",
                clip(header)
            ),
            BadMode { text } => write!(f, "`{}` is not an octal file mode such as 100644.", clip(text)),
            NotRegular { path, line, text, instead } => not_regular(f, path, *line, text, instead),
            NoHeaderPath => f.write_str("the file header names no path. Write `--- a/PATH` / `+++ b/PATH`."),
            BadQuotedPath { text, why } => {
                let why = match why {
                    QuoteProblem::Unclosed => "has no closing quote",
                    QuoteProblem::BadOctal => "has a malformed octal escape",
                    QuoteProblem::UnknownEscape => "has an unknown escape",
                    QuoteProblem::NotUtf8 => "is not valid UTF-8 once unquoted",
                };
                write!(
                    f,
                    "the quoted path `{}` {why}. git quotes paths as \"dir/na\\303\\257ve.txt\".",
                    clip(text)
                )
            }
            GitLineNoFiles => {
                f.write_str("the `diff --git` line names no files. It should read `diff --git a/PATH b/PATH`.")
            }
            NewFileNoName => f.write_str("a new file needs a name on its `+++` line."),
            DeletedFileNoName => f.write_str("a deleted file needs a name on its `---` line."),
            BothDevNull => f.write_str("both `---` and `+++` name /dev/null; one must name the file."),
            _ => begin_patch(self, f),
        }
    }
}

/// The problems of a hunk's counts against its body.
fn hunk_counts(problem: &PatchProblem, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
    match problem {
        PatchProblem::HunkOverCount { number, header_line, header, old } => {
            let which = if *old { "old (` ` and `-`)" } else { "new (` ` and `+`)" };
            write!(
                f,
                "hunk {number} (patch line {header_line}) has more {which} lines than its header `{}` announces. \
                 Fix the counts in the header to match the body. {HUNK_FORMS}",
                clip(header)
            )
        }
        PatchProblem::HunkContinues { number, header_line, header, line, next } => write!(
            f,
            "hunk {number} (patch line {header_line}) is longer than its header `{}` announces: line {line} `{}` \
             still looks like a body line. Fix the counts in the header to match the body. {HUNK_FORMS}",
            clip(header),
            clip(next)
        ),
        PatchProblem::HunkEndsEarly { number, header_line, header, counts, seen, stop } => {
            let found = match stop {
                Some((line, text)) => format!("line {line} `{}` is not a body line", clip(text)),
                None => "the patch ends".to_string(),
            };
            write!(
                f,
                "hunk {number} (patch line {header_line}) ends early: its header `{}` ({} old and {} new) \
                 announces more lines; after {} old and {} new lines {found}. Fix the counts in the header, \
                 or prefix every body line. {HUNK_FORMS}",
                clip(header),
                counts.0,
                counts.1,
                seen.0,
                seen.1
            )
        }
        _ => Ok(()),
    }
}

fn not_regular(
    f: &mut std::fmt::Formatter<'_>,
    path: &str,
    line: usize,
    text: &str,
    instead: &NotRegularWay,
) -> std::fmt::Result {
    let (kind, instead) = match instead {
        NotRegularWay::RemoveLink { path_word } => (
            "a symlink",
            format!("remove the link with exec_shell: `rm {path_word}`"),
        ),
        NotRegularWay::MakeLink {
            target_word,
            path_word,
        } => (
            "a symlink",
            format!("make the link with exec_shell: `ln -sfn {target_word} {path_word}`"),
        ),
        NotRegularWay::Submodule => (
            "a submodule (gitlink)",
            "manage the submodule with git in exec_shell (for example `git submodule update --init`)"
                .to_string(),
        ),
        NotRegularWay::Other => (
            "neither a regular file nor an executable",
            "make that change with exec_shell".to_string(),
        ),
    };
    write!(
        f,
        "the patch's change to `{path}` is for {kind} (`{}` at patch line {line}); apply_patch changes \
         regular files only and does not create or change symlinks or submodules, so nothing \
         was written. Take that file's part out of the patch, apply the rest, and {instead}.",
        clip(text)
    )
}

/// The problems of a `*** Begin Patch` patch.
fn begin_patch(problem: &PatchProblem, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
    use PatchProblem::*;
    match problem {
        NoBeginMarker => write!(f, "the patch must start with `*** Begin Patch`. {FORMS}"),
        MoveToAlone => write!(
            f,
            "`*** Move to:` must come right after its `*** Update File:` line. {FORMS}"
        ),
        NotASection { line } => write!(f, "expected a file section, found `{}`. {FORMS}", clip(line)),
        AfterEnd { line } => write!(f, "text after `*** End Patch`: `{}`. Remove it.", clip(line)),
        NoFileChanged => write!(f, "the patch changes no file. {FORMS}"),
        AddLineWithoutPlus { path, line } => write!(
            f,
            "in `*** Add File: {path}` every content line must start with `+`, but this one is `{}`. {FORMS}",
            clip(line)
        ),
        UpdateWithoutChanges { path } => write!(
            f,
            "`*** Update File: {path}` has no changes under it. Add a chunk of ` `/`-`/`+` lines, or remove \
             the section. {FORMS}"
        ),
        NoPath { marker } => write!(f, "`*** {marker}:` needs a path after the colon. {FORMS}"),
        NotAChunkLine { path, line } => write!(
            f,
            "in `*** Update File: {path}` this line is not a chunk line: `{}`. Every line of a chunk starts \
             with ` `, `-` or `+` (a context line keeps its leading space). {FORMS}",
            clip(line)
        ),
        _ => Ok(()),
    }
}

impl ToolError {
    /// A patch that does not parse (`what` names its format as prose, `format` as data), at
    /// patch line `line`.
    pub fn patch_unparsable(what: &str, format: &str, line: usize, problem: &PatchProblem) -> ToolError {
        let message = if problem.unsupported() {
            problem.to_string()
        } else {
            format!(
                "the {what} does not parse at patch line {line}: {problem} Nothing was written; fix that line and \
                 call apply_patch again."
            )
        };
        ToolError::new(ErrorCode::PatchFailed, message)
            .with(Field::PatchLine, line)
            .with(Field::Format, format)
    }
}

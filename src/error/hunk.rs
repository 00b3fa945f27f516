//! A hunk of a patch that did not apply: what it expected, where the file comes closest, and
//! the hints. apply_patch gathers the facts; the words are here.

use std::fmt::Write as _;

use super::{ErrorCode, Field, ToolError};

/// The hunk that failed: the file as results show it and as a call names it, the hunk's
/// number (1-based) of how many, and its patch line.
pub struct HunkAt<'a> {
    pub display: &'a str,
    pub call_arg: String,
    pub hunk: usize,
    pub hunks: usize,
    pub patch_line: usize,
    /// The first context and removed lines the hunk expected (up to four), and how many it has.
    pub expected: Vec<&'a str>,
    pub expected_len: usize,
}

/// Why the hunk did not apply.
pub enum HunkMiss<'a> {
    /// Its context matches equally well at two lines (1-based); `level` is the fuzz level when
    /// not exact; `headerless` when an `@@ line` header would pin it.
    Ambiguous {
        first: usize,
        second: usize,
        level: Option<&'static str>,
        headerless: bool,
    },
    /// Its `@@ anchor` line does not occur after line `from`.
    Anchor { anchor: &'a str, from: usize },
    /// Its context is not there; `near` is the closest text.
    NotFound(Nearest<'a>),
}

/// Where the file comes closest to a hunk's context, and what else is known.
pub struct Nearest<'a> {
    /// The best line (1-based) and how many of the hunk's lines match there.
    pub best: usize,
    pub score: usize,
    /// The file's lines around it: (1-based number, text, differs from the hunk line, hunk
    /// line number when inside the hunk). Empty for an empty file.
    pub shown: Vec<(usize, &'a str, bool, usize)>,
    /// How many of the hunk's lines differ there in all (past the ones shown too).
    pub differing: usize,
    /// The hunk runs past the end of the file.
    pub past_end: bool,
    /// No line of the hunk occurs near; its new text is already in the file.
    pub nothing_near: bool,
    pub already_applied: bool,
    pub search: SearchedBy,
}

/// How the hunk was searched for.
pub enum SearchedBy {
    /// Up to `window` lines either way from its header's line.
    Near { window: usize },
    /// Only at the end of the file (`*** End of File`).
    AtEnd,
    /// From the previous chunk on (`*** Begin Patch`).
    Forward,
}

impl ToolError {
    /// `patch_failed` for one hunk, which names the read that shows the place.
    pub fn hunk_failed(at: &HunkAt, miss: HunkMiss) -> ToolError {
        let mut message = format!(
            "hunk {} of {} for `{}` (patch line {}) did not apply, so nothing was written.",
            at.hunk, at.hunks, at.display, at.patch_line
        );
        let read_call = |line: usize| {
            format!(
                "read_file with path={} start_line={}",
                at.call_arg,
                line.saturating_sub(5).max(1)
            )
        };
        let (candidates, best) = match miss {
            HunkMiss::Ambiguous {
                first,
                second,
                level,
                headerless,
            } => {
                let level = level.map(|l| format!(" (at level {l})")).unwrap_or_default();
                let (near, far) = (read_call(first), read_call(second));
                // Two places close together are seen with one read.
                let see = if near == far {
                    format!("To see both places, call {near}.")
                } else {
                    format!("To see both places, call {near} and {far}.")
                };
                let _ = write!(
                    message,
                    " Its context matches equally well at line {first} and at line {second}{level}; applying \
                     it at either would be a guess.\n{}\nHints: add more context lines so the hunk matches \
                     one place only{}. {see}",
                    expected_block(at),
                    if headerless { ", or put an `@@ <a line above the change>` header on the chunk" } else { "" },
                );
                (Some(vec![first, second]), None)
            }
            HunkMiss::Anchor { anchor, from } => {
                let _ = write!(
                    message,
                    " Its header `@@ {}` names a line that does not occur in the file after line {from}.\n\
                     Hints: the `@@` line must repeat a line of the file above the change exactly (for example \
                     the enclosing `fn` or `class` line); chunks must follow the file's order. Call {} to see \
                     the file.",
                    clip(anchor),
                    read_call(from + 1)
                );
                (None, None)
            }
            HunkMiss::NotFound(nearest) => {
                let _ = write!(message, "\n{}\n", expected_block(at));
                message.push_str(&nearby(at, &nearest));
                let _ = write!(
                    message,
                    "Hints: {}. Call {} to see the current text, then regenerate the patch against it.",
                    not_found_hints(&nearest).join("; "),
                    read_call(nearest.best)
                );
                (None, Some(nearest.best))
            }
        };
        let error = ToolError::new(ErrorCode::PatchFailed, message)
            .with(Field::Path, at.display)
            .with(Field::Hunk, at.hunk)
            .with(Field::Hunks, at.hunks)
            .with(Field::PatchLine, at.patch_line);
        match (candidates, best) {
            (Some(lines), _) => error.with(Field::Candidates, lines),
            (_, Some(best)) => error.with(Field::BestLine, best),
            _ => error,
        }
    }
}

/// A line of a file or patch as messages quote it: without its `\r`, cut at 80 characters.
pub fn clip(text: &str) -> String {
    const MAX: usize = 80;
    let text = text.strip_suffix('\r').unwrap_or(text);
    if text.chars().count() <= MAX {
        text.to_string()
    } else {
        let cut: String = text.chars().take(MAX).collect();
        format!("{cut}…")
    }
}

/// The first four lines the hunk expected to find.
fn expected_block(at: &HunkAt) -> String {
    let mut block = format!(
        "Expected context (first {} of {} lines):",
        at.expected.len(),
        at.expected_len
    );
    for line in &at.expected {
        let _ = write!(block, "\n  | {}", clip(line));
    }
    block
}

/// The file's text around the best position, numbered, with differing lines marked.
fn nearby(at: &HunkAt, nearest: &Nearest) -> String {
    if nearest.shown.is_empty() {
        return "The file is empty.\n".to_string();
    }
    let mut text = format!(
        "Actual text near line {} ({} of {} hunk lines match there):",
        nearest.best, nearest.score, at.expected_len
    );
    let mut marked = Vec::new();
    for &(number, line, differs, hunk_line) in &nearest.shown {
        if differs {
            marked.push(format!("{number} (hunk line {hunk_line})"));
        }
        let mark = if differs { '!' } else { ' ' };
        let _ = write!(text, "\n{mark}{number:>6}│ {}", clip(line));
    }
    if marked.is_empty() && nearest.differing == 0 && nearest.past_end {
        text.push_str("\nThe hunk runs past the end of the file.");
    } else if nearest.differing > 0 {
        let more = nearest.differing.saturating_sub(marked.len());
        let more = if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        };
        let _ = write!(text, "\nDiffering lines: {}{more}.", marked.join(", "));
    }
    text.push('\n');
    text
}

/// The hints for a hunk whose context was not found: whether any of it occurs nearby, whether
/// its new text is already there, and how the search looked for it.
fn not_found_hints(nearest: &Nearest) -> Vec<String> {
    let mut hints = Vec::new();
    if nearest.nothing_near {
        hints.push(
            "no line of the hunk's context occurs near that position; check the file path and \
             that the patch was made against this version of the file"
                .to_string(),
        );
    } else {
        hints.push(
            "the lines marked `!` differ from the hunk; context and removed lines must match the \
             file (whitespace and typographic punctuation are forgiven, other differences are not)"
                .to_string(),
        );
    }
    if nearest.already_applied {
        hints.push("the hunk's new text is already in the file: this change may already be applied".into());
    }
    hints.push(match nearest.search {
        SearchedBy::Near { window } => {
            format!("hunks are searched up to {window} lines either way from the line in their `@@` header")
        }
        SearchedBy::AtEnd => {
            "the chunk is marked `*** End of File`, so it must match the file's last lines".into()
        }
        SearchedBy::Forward => {
            "`*** Begin Patch` chunks are searched from the previous chunk on, in file order".into()
        }
    });
    hints
}

//! Refusals of a change to files: edit_file's matching, apply_patch's parsing, planning and
//! hunks, and the syntax gate both share.

use super::{ErrorCode, Field, ToolError};

/// Where a parser stopped, for the syntax gate's refusal.
pub struct ParseStop<'a> {
    pub language: &'a str,
    pub line: usize,
    pub column: usize,
    pub message: &'a str,
    /// The region (first and last line) the parser could not make sense of, when the change
    /// inside it is the better place to point at.
    pub region: Option<(usize, usize)>,
    /// The line it stopped on (at most 200 characters) and the padding under it to the column.
    pub shown: &'a str,
    pub caret_pad: &'a str,
}

/// What is wrong with the form of an edit_file call.
pub enum EditForm<'a> {
    /// search together with search_start or search_end.
    SearchAndRange,
    /// One end of a range without the other.
    HalfRange {
        given: &'a str,
        missing: &'a str,
    },
    /// Neither search nor a range.
    NoSearch,
    EmptySearch,
    /// search and replace are the same text.
    NoChange,
    EmptyAnchor,
    ReplaceAllOnRange,
    ReplaceAllAndOccurrence,
    /// occurrence below 1.
    OccurrenceNotPositive(i64),
}

impl ToolError {
    /// An edit_file call whose arguments do not make one edit.
    pub fn edit_form(form: EditForm) -> ToolError {
        ToolError::invalid(match form {
            EditForm::SearchAndRange => {
                "search cannot be combined with search_start/search_end: pass either search (the \
                 exact text to replace) or a range, and pass search_start and search_end together, \
                 or neither. Call again with only one of the two forms."
                    .to_string()
            }
            EditForm::HalfRange { given, missing } => format!(
                "pass search_start and search_end together, or neither: search_start is the text \
                 where the range begins, search_end the text where it ends (both included). This call \
                 passed {given} without {missing}: add {missing}, or pass search instead for a single span."
            ),
            EditForm::NoSearch => {
                "missing search: pass search (the exact text to replace, copied from read_file \
                 without the line-number prefixes), or search_start and search_end for a long range."
                    .to_string()
            }
            EditForm::EmptySearch => {
                "search is empty, so there is nothing to locate. To create a file or replace all of \
                 it, use write_file; to insert text, search for the line next to the insertion \
                 point and repeat it in replace along with the new text."
                    .to_string()
            }
            EditForm::NoChange => {
                "search and replace are identical, so the edit would change nothing. Put the new \
                 text in replace."
                    .to_string()
            }
            EditForm::EmptyAnchor => {
                "search_start and search_end must both be non-empty: they are the texts where the \
                 range begins and ends."
                    .to_string()
            }
            EditForm::ReplaceAllOnRange => {
                "replace_all applies to search, not to a search_start/search_end range. Call again \
                 without replace_all (use occurrence=N if search_start matches several times)."
                    .to_string()
            }
            EditForm::ReplaceAllAndOccurrence => {
                "replace_all=true replaces every match and occurrence=N picks one; pass only one of them."
                    .to_string()
            }
            EditForm::OccurrenceNotPositive(n) => format!(
                "occurrence={n} is not a match number: occurrence is 1-based (occurrence=1 is the \
                 first match in the file). Pass occurrence=N with N from 1 to the number of matches, \
                 or leave it out."
            ),
        })
    }

    /// Line-number prefixes stripped from search, but only on some lines of replace.
    pub fn mixed_replace_prefixes(display: &str) -> ToolError {
        ToolError::invalid(format!(
            "search matched `{display}` once its `grep -n` line-number prefixes (`12:`) were stripped, but \
             only some lines of replace carry such a prefix, so it cannot be told which are prefixes and \
             which are text (`10:30` is text). Nothing was written. Call edit_file again with replace \
             written without any line-number prefixes."
        ))
        .with(Field::Path, display)
    }

    /// The change would break a file that parses (or a new file would not parse). `from` is
    /// the file's name before a rename.
    pub fn syntax_gate(display: &str, from: Option<&str>, new_file: bool, stop: &ParseStop) -> ToolError {
        let lang = stop.language;
        let why = if new_file {
            format!("the new file `{display}` would not parse as {lang}")
        } else if let Some(from) = from.filter(|f| *f != display) {
            format!("`{from}` parses as {lang} now, and this change, which moves it to `{display}`, would break it")
        } else {
            format!("`{display}` parses as {lang} now, and this change would break it")
        };
        // A new file never parsed before, so the existing-file way out (a broken file may stay
        // broken) does not apply; the way out for intended broken content is another extension.
        let (outcome, way_out) = if new_file {
            (
                "so it was refused and the file was NOT created",
                format!(
                    "Fix the text so the whole file is valid {lang}, then call again. If the broken \
                     content is intended (a compile-fail fixture, say), create it under another \
                     extension (`{display}.txt`), then rename it with exec_shell `mv {display}.txt {display}`."
                ),
            )
        } else {
            (
                "so the change was refused and the file was NOT modified",
                format!(
                    "Fix the new text so the whole file is valid {lang}, then call again. (The gate only \
                     judges changes: a file that did not parse before may be written in any state.)"
                ),
            )
        };
        let number = format!("{:>6}", stop.line);
        let parser_message = match stop.region {
            Some((first, last)) => format!("{} in lines {first}-{last}, around this change", stop.message),
            None => stop.message.to_string(),
        };
        let message = format!(
            "{why}, {outcome}.\n\
             {lang} parser: {msg} (line {line}, column {column}):\n\
             {number}│ {shown}\n\
             {pad}  {caret_pad}^\n\
             {way_out}",
            msg = parser_message,
            line = stop.line,
            column = stop.column,
            shown = stop.shown,
            caret_pad = stop.caret_pad,
            pad = " ".repeat(number.len()),
        );
        ToolError::new(ErrorCode::SyntaxGate, message)
            .with(Field::Path, display)
            .with(Field::Language, lang)
            .with(Field::Line, stop.line)
            .with(Field::Column, stop.column)
            .with(Field::ParserMessage, parser_message)
    }

    /// A patch over apply_patch's size limit.
    pub fn patch_too_large(len: usize, max: usize) -> ToolError {
        ToolError::new(
            ErrorCode::TooLarge,
            format!("the patch is {len} bytes; the limit is {max}. Split it into several apply_patch calls."),
        )
    }

    /// Several files of a patch are unread or stale: one line per file, `(display, call_arg,
    /// stale)`; the code is the first file's.
    pub fn patch_files_unread(files: &[(&str, String, bool)]) -> ToolError {
        let mut message = format!(
            "{} files of this patch must be read first, so apply_patch changed nothing:",
            files.len()
        );
        for (display, call_arg, stale) in files {
            let why = if *stale {
                "changed on disk since this session read it (stale)"
            } else {
                "has not been read in this session (not_read)"
            };
            message.push_str(&format!(
                "\n- `{display}` {why}: call read_file with path={call_arg}"
            ));
        }
        message.push_str("\nCall read_file for each of them, then retry this apply_patch call.");
        let code = match files.first() {
            Some((_, _, true)) => ErrorCode::Stale,
            _ => ErrorCode::NotRead,
        };
        let paths: Vec<&str> = files.iter().map(|(display, _, _)| *display).collect();
        ToolError::new(code, message)
            .with(Field::Path, paths.first().copied().unwrap_or(""))
            .with(Field::Paths, paths)
    }

    /// A deletion whose hunks leave lines of the file.
    pub fn deletion_leaves_lines(display: &str, patch_line: usize, call_arg: &str) -> ToolError {
        ToolError::new(
            ErrorCode::PatchFailed,
            format!(
                "the patch deletes `{display}` (patch line {patch_line}), but its hunks do not remove every line of \
                 the file, so the patch was made against other content and nothing was written. Call \
                 read_file with path={call_arg} to see the file, then regenerate the patch."
            ),
        )
        .with(Field::Path, display)
    }

    /// A change to a file an earlier part of the same patch deleted or moved.
    pub fn changed_after_removal(display: &str, patch_line: usize) -> ToolError {
        ToolError::new(
            ErrorCode::PatchFailed,
            format!(
                "patch line {patch_line} changes `{display}`, which an earlier part of the same patch deletes or moves away; \
                 nothing was written. Order the patch so each file is changed before it is removed."
            ),
        )
        .with(Field::Path, display)
    }

    /// An added file that exists.
    pub fn added_file_exists(display: &str, patch_line: usize, call_arg: &str) -> ToolError {
        ToolError::new(
            ErrorCode::PatchFailed,
            format!(
                "the patch adds `{display}` (patch line {patch_line}), but that file already exists, so nothing was \
                 written. To change it, patch it as an update (`*** Update File:` or a diff with \
                 `--- a/{display}`); to replace it whole, call write_file with path={call_arg}."
            ),
        )
        .with(Field::Path, display)
    }

    /// A path an earlier part of the patch deleted or renamed a symlink at, or renamed one to.
    pub fn claimed_by_link(display: &str, patch_line: usize) -> ToolError {
        ToolError::new(
            ErrorCode::PatchFailed,
            format!(
                "patch line {patch_line} uses `{display}`, where an earlier part of the same patch deletes or renames a \
                 symlink; nothing was written. Put each symlink change in its own apply_patch call."
            ),
        )
        .with(Field::Path, display)
    }

    /// A path that runs through an existing file (`notes.txt/x`).
    pub fn patch_through_file(display: &str, patch_line: usize, blocking: &str) -> ToolError {
        ToolError::new(
            ErrorCode::PatchFailed,
            format!(
                "`{display}` (patch line {patch_line}) goes through `{blocking}`, which is a file, not a directory, so \
                 nothing can be created or changed inside it; nothing was written. Use a path whose \
                 parent is a directory (or delete or rename `{blocking}` earlier in a separate call)."
            ),
        )
        .with(Field::Path, display)
    }

    /// A symlink renamed with hunks for the file behind it.
    pub fn link_rename_with_hunks(display: &str, target: &str, patch_line: usize) -> ToolError {
        ToolError::new(
            ErrorCode::PatchFailed,
            format!(
                "`{display}` is a symlink (to `{target}`). apply_patch renames a symlink itself, as \
                 git does, and cannot change the file behind it in the same file change (patch line \
                 {patch_line}); nothing was written. Rename the link without hunks, and patch the file it \
                 points to under its own name."
            ),
        )
        .with(Field::Path, display)
    }

    /// A symlink deletion whose old target is not the link's target here.
    pub fn link_target_differs(display: &str, patch_line: usize, expected: &str, actual: &str) -> ToolError {
        ToolError::new(
            ErrorCode::PatchFailed,
            format!(
                "the patch deletes the symlink `{display}` (patch line {patch_line}) pointing to `{expected}`, but it points to \
                 `{actual}`, so the patch was made against another tree and nothing was written. Check the \
                 link with list_dir, then regenerate the patch."
            ),
        )
        .with(Field::Path, display)
    }

    /// A git symlink deletion for a path that is not a symlink here.
    pub fn not_a_link(shown: &str, patch_line: usize) -> ToolError {
        ToolError::new(
            ErrorCode::PatchFailed,
            format!(
                "the patch deletes the symlink `{shown}` (`deleted file mode 120000`, patch line {patch_line}), but \
                 `{shown}` is not a symlink here, so nothing was written. Check it with list_dir; to delete \
                 a regular file, the patch must say `deleted file mode 100644` and remove its lines."
            ),
        )
        .with(Field::Path, shown)
    }

    /// A symlink renamed onto an existing path.
    pub fn link_destination_taken(link: &str, display: &str, patch_line: usize) -> ToolError {
        ToolError::new(
            ErrorCode::PatchFailed,
            format!(
                "the patch renames the symlink `{link}` to `{display}` (patch line {patch_line}), but `{display}` already \
                 exists, so nothing was written. Rename the link to a path that does not exist."
            ),
        )
        .with(Field::Path, display)
    }
}

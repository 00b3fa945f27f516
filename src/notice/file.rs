//! Notices of the file tools: how a file was decoded or written, what a write did beside it.

use std::fmt;

/// What read_file, write_file, edit_file and apply_patch say beside their result. Paths are as
/// results show them (workspace-relative).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileNotice {
    /// A file read whole that is neither UTF-8 nor an encoding identified with confidence.
    NotUtf8 { path: String },
    /// A file too large to read whole with invalid UTF-8 on the lines shown.
    NotUtf8OnLinesShown { path: String },
    /// A file in another encoding than UTF-8, shown decoded.
    Decoded { path: String, encoding: &'static str },
    /// The read could not be noted in the session (`error`: why), so the edit tools will ask
    /// for it again.
    ReadNotRecorded { path: String, error: String },
    /// write_file was given a symlink (`given`, as the call spelt it) and wrote its target.
    SymlinkWrittenThrough { given: String, target: String },
    /// write_file created the parent directories `dirs`.
    CreatedDirectories { dirs: String },
    /// write_file replaced a file whose old bytes were not text it could decode.
    OldContentNotUtf8 { path: String },
    /// write_file kept a CRLF file's line endings.
    CrlfKept { path: String },
    /// edit_file wrote a file back in its encoding (`label`: `UTF-8 with BOM`, `windows-1252`).
    EditedInEncoding { path: String, label: String },
    /// An `*** Add File:` of apply_patch named an existing file (as the patch spelt it).
    AddFileReplaced { path: String },
    /// A dry run of apply_patch whose files need a read first; each is the `path=` argument of
    /// the read_file call.
    PatchNeedsReads { call_args: Vec<String> },
}

impl fmt::Display for FileNotice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FileNotice::NotUtf8 { path } => write!(
                f,
                "`{path}` is not valid UTF-8 and not in an encoding that could be identified with \
                 confidence; invalid bytes are shown as U+FFFD. Editing it could corrupt those bytes."
            ),
            FileNotice::NotUtf8OnLinesShown { path } => write!(
                f,
                "`{path}` is not valid UTF-8 on the lines shown; invalid bytes are shown as U+FFFD. \
                 Editing it could corrupt those bytes."
            ),
            FileNotice::Decoded { path, encoding } => write!(
                f,
                "`{path}` is encoded in {encoding}; it is shown decoded, and edits keep that encoding."
            ),
            FileNotice::ReadNotRecorded { path, error } => write!(
                f,
                "This read could not be recorded ({error}), so edit_file and apply_patch will treat \
                 `{path}` as not read."
            ),
            FileNotice::SymlinkWrittenThrough { given, target } => write!(
                f,
                "`{given}` is a symlink; its target `{target}` was written (the link itself is unchanged)."
            ),
            FileNotice::CreatedDirectories { dirs } => write!(f, "Created the missing directories `{dirs}`."),
            FileNotice::OldContentNotUtf8 { path } => write!(
                f,
                "The old content of `{path}` was not UTF-8 in an encoding codesmith could identify; the \
                 new content is written as UTF-8."
            ),
            FileNotice::CrlfKept { path } => write!(
                f,
                "`{path}` uses CRLF line endings; the new content was written with CRLF too."
            ),
            FileNotice::EditedInEncoding { path, label } => {
                write!(f, "`{path}` is {label}; it was edited and written back in it.")
            }
            FileNotice::AddFileReplaced { path } => write!(
                f,
                "`*** Add File: {path}` named a file that exists, so it was replaced whole, as write_file does \
                 (this session had read it and it had not changed since)."
            ),
            FileNotice::PatchNeedsReads { call_args } => {
                let calls: Vec<String> = call_args
                    .iter()
                    .map(|arg| format!("call read_file with path={arg}"))
                    .collect();
                write!(
                    f,
                    "Applying this patch needs the current content of what it changes read in this \
                     session first: {}.",
                    calls.join("; ")
                )
            }
        }
    }
}

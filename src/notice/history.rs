//! Notices of the history: what a checkpoint could not record.

use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HistoryNotice {
    /// A file tool's change could not be recorded as a checkpoint (`error`: why).
    ChangeNotRecorded { error: String },
    /// A command's changes could not be recorded (`why`: the snapshot's failure, as it was told).
    CommandNotRecorded { why: String },
    /// A command changed `count` paths, more than a checkpoint records (`max`).
    TooManyPaths { count: usize, max: usize },
    /// The old content of `path` could not be read for the checkpoint.
    OldContentUnreadable { path: String },
    /// A side of `path`'s change is over the `max` bytes a checkpoint records.
    TooLargeToRecord {
        path: String,
        max: u64,
        side: RecordedSide,
    },
}

/// Which content of a changed path was not recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecordedSide {
    Old,
    New,
}

impl fmt::Display for HistoryNotice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HistoryNotice::ChangeNotRecorded { error } => write!(
                f,
                "This change was not recorded as a checkpoint, so undo cannot take it back: {error}"
            ),
            HistoryNotice::CommandNotRecorded { why } => write!(
                f,
                "The changes of this command were not recorded, so undo cannot take them back: {why}"
            ),
            HistoryNotice::TooManyPaths { count, max } => write!(
                f,
                "The command changed {count} paths, more than the {max} a checkpoint records, so its \
                 changes were not recorded and undo cannot take them back."
            ),
            HistoryNotice::OldContentUnreadable { path } => write!(
                f,
                "the old content of `{path}` could not be read; it was not recorded."
            ),
            HistoryNotice::TooLargeToRecord { path, max, side } => {
                let side = match side {
                    RecordedSide::Old => "old",
                    RecordedSide::New => "new",
                };
                write!(
                    f,
                    "`{path}` is over {max} bytes; its {side} content was not recorded."
                )
            }
        }
    }
}

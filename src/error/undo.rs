//! Undo's refusal to overwrite later work: what each path's state is now against what the
//! checkpoint left, which later checkpoint changed it, and the call that forces or widens the
//! undo.

use serde_json::json;

use super::{ErrorCode, Field, ToolError};

/// How a path differs from what the checkpoint left.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DiskChange {
    /// A directory now, holding files the checkpoint did not make.
    Directory,
    /// It cannot be read as a file (the operating system's words).
    Unreadable {
        why: String,
    },
    Deleted,
    /// Created where the checkpoint left no file.
    Created,
    Permissions {
        now: u32,
        left: u32,
    },
    Content {
        size: u64,
    },
}

impl std::fmt::Display for DiskChange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DiskChange::Directory => {
                f.write_str("it is a directory now, holding files the checkpoint did not make")
            }
            DiskChange::Unreadable { why } => write!(f, "it cannot be read as a file ({why})"),
            DiskChange::Deleted => f.write_str("it was deleted since"),
            DiskChange::Created => f.write_str("it was created since (the checkpoint left no file there)"),
            DiskChange::Permissions { now, left } => {
                write!(
                    f,
                    "its permissions changed since ({now:o}, the checkpoint left {left:o})"
                )
            }
            DiskChange::Content { size } => write!(f, "its content changed since ({size} bytes now)"),
        }
    }
}

/// The later checkpoint that changed a path.
pub struct ChangedBy {
    pub id: u64,
    pub summary: String,
    pub session: String,
    pub tool: String,
}

/// A path undo would overwrite.
pub struct Conflict {
    pub path: String,
    pub change: DiskChange,
    pub by: Option<ChangedBy>,
}

impl Conflict {
    /// What changed, and by which checkpoint when one did.
    fn change_text(&self) -> String {
        match &self.by {
            Some(by) => format!(
                "{}, by checkpoint {} ({}, session `{}`)",
                self.change, by.id, by.summary, by.session
            ),
            None => self.change.to_string(),
        }
    }

    fn to_json(&self) -> serde_json::Value {
        let mut value = json!({"path": self.path, "change": self.change_text()});
        if let Some(by) = &self.by {
            value["changed_by"] = json!({"id": by.id, "session": by.session, "tool": by.tool});
        }
        value
    }
}

impl ToolError {
    /// Undo would destroy later work: `ids` are the checkpoints undone, `retry` the argument
    /// that named them (`("to", "12")`, `("id", "12")`), repeated with `force=true` as the way
    /// out when the user agrees.
    pub fn undo_would_clobber(ids: &[u64], conflicts: &[Conflict], retry: (&str, &str)) -> ToolError {
        let listed = ids.iter().map(u64::to_string).collect::<Vec<_>>().join(", ");
        let lines: Vec<String> = conflicts
            .iter()
            .map(|c| format!("- `{}`: {}", c.path, c.change_text()))
            .collect();
        let (plural, them) = if conflicts.len() == 1 {
            ("", "it")
        } else {
            ("s", "them")
        };
        let by_later = conflicts.iter().filter(|c| c.by.is_some()).count();
        let later = match ids.iter().min() {
            Some(first) if by_later > 0 => format!(
                "A later checkpoint changed {}: to take it back as well, call undo with \
                 to=\"{first}\" (it rewinds this session's checkpoints from {first} on). ",
                if by_later == 1 { "it" } else { "them" }
            ),
            _ => String::new(),
        };
        let (field, value) = retry;
        ToolError::new(
            ErrorCode::Stale,
            format!(
                "undo refused: {} path{plural} changed since checkpoint {listed} left {them}, and restoring would destroy \
                 that work; nothing was restored.\n{}\n{later}Look at the current content with read_file. \
                 If the user agrees to lose those changes, call undo with {field}=\"{value}\" force=true.",
                conflicts.len(),
                lines.join("\n")
            ),
        )
        .with(Field::Conflicts, conflicts.iter().map(Conflict::to_json).collect::<Vec<_>>())
        .with(Field::Undone, ids.to_vec())
    }
}

//! Notices of exec_shell and its background tasks: where the session's cwd stays, the sandbox
//! that is weaker here, files read earlier that a command changed.

use std::fmt;

use super::SandboxHint;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ShellNotice {
    /// The command ended in `ended` inside the workspace, but the cwd could not be saved
    /// (`error`), so it stays `stays`.
    CwdNotSaved {
        ended: String,
        stays: String,
        error: String,
    },
    /// The command ended in `ended`, outside the workspace, so the cwd stays `stays`.
    EndedOutside { ended: String, stays: String },
    /// Layers of the kernel sandbox missing here, each with why; said once per session.
    WeakerSandbox { missing: Vec<(&'static str, String)> },
    /// Files the session read that changed on disk: the first few (`shown`), how many more,
    /// the `path=` argument of a read of the first changed one, and whether any was deleted.
    FilesDrifted {
        shown: Vec<DriftedFile>,
        more: usize,
        reread_arg: Option<String>,
        any_deleted: bool,
    },
    /// A `Sandbox:` line the confinement gives a command's output (a git redirection an earlier
    /// command planted, removed), so a background task's start, which has no command output
    /// yet, says it too.
    Sandbox(SandboxHint),
}

/// A file read earlier that changed on disk, as the drift notice names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DriftedFile {
    pub path: String,
    pub deleted: bool,
}

impl fmt::Display for ShellNotice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ShellNotice::CwdNotSaved { ended, stays, error } => write!(
                f,
                "The command ran and ended in `{ended}`, but the session's cwd could not be \
                 saved, so the next call starts in `{stays}` again: {error}"
            ),
            ShellNotice::EndedOutside { ended, stays } => write!(
                f,
                "The command ended in `{ended}`, outside the workspace, so the session's cwd stays `{stays}`. \
                 Run work elsewhere with `cd DIR && ...` inside one command."
            ),
            ShellNotice::WeakerSandbox { missing } => {
                let what: Vec<String> = missing.iter().map(|(name, why)| format!("{name} ({why})")).collect();
                write!(
                    f,
                    "Commands run without part of the kernel sandbox here: {}. What is missing is guarded by \
                     the command classifier alone; data.sandbox says what holds for each command. (Said once \
                     per session.)",
                    what.join("; ")
                )
            }
            ShellNotice::FilesDrifted {
                shown,
                more,
                reread_arg,
                any_deleted,
            } => fmt_drifted(f, shown, *more, reread_arg.as_deref(), *any_deleted),
            ShellNotice::Sandbox(line) => line.fmt(f),
        }
    }
}

fn fmt_drifted(
    f: &mut fmt::Formatter<'_>,
    shown: &[DriftedFile],
    more: usize,
    reread_arg: Option<&str>,
    any_deleted: bool,
) -> fmt::Result {
    let shown: Vec<String> = shown
        .iter()
        .map(|file| match file.deleted {
            false => format!("{} (changed)", file.path),
            true => format!("{} (deleted)", file.path),
        })
        .collect();
    let tail = if more > 0 {
        format!(" and {more} more")
    } else {
        String::new()
    };
    write!(
        f,
        "Files you read changed on disk since: {}{tail}.",
        shown.join(", ")
    )?;
    if let Some(path) = reread_arg {
        write!(
            f,
            " Your copy of the changed ones is stale: call read_file on them (e.g. read_file with \
             path={path}) before editing them."
        )?;
    }
    if any_deleted {
        f.write_str(
            " The deleted ones no longer exist: do not edit them from memory; write_file creates a \
             file anew if it should exist.",
        )?;
    }
    Ok(())
}

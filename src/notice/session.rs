//! Notices about the session's state: a state file that does not parse, a cwd that is gone.

use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionNotice {
    /// The session file `name` (`<session>.json`) did not parse (`error`) and was reset; its bytes
    /// were kept beside it, unless keeping them failed (`copy_failed`: why).
    SessionFileReset {
        name: String,
        error: String,
        copy_failed: Option<String>,
    },
    /// `.codesmith/trust.json` does not parse (`error`); given on every call that reads it.
    TrustListUnparsable { error: String },
    /// `.codesmith/approvals.json` does not parse (`error`).
    ApprovalsUnparsable { error: String },
    /// The session's recorded cwd (`recorded`) is gone or left the workspace (`exists`).
    CwdLost { recorded: String, exists: bool },
}

impl fmt::Display for SessionNotice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SessionNotice::SessionFileReset {
                name,
                error,
                copy_failed,
            } => {
                let kept = match copy_failed {
                    None => format!("its bytes were kept in `.codesmith/sessions/{name}.corrupt`"),
                    Some(why) => format!("keeping a copy failed ({why})"),
                };
                write!(
                    f,
                    "The session file `.codesmith/sessions/{name}` does not parse ({error}); {kept}. The \
                     session was reset: its cwd is the workspace root and its pending and granted \
                     approvals are gone, so an action approved before must be approved again. Files read \
                     before are still on record."
                )
            }
            SessionNotice::TrustListUnparsable { error } => write!(
                f,
                "`.codesmith/trust.json` does not parse ({error}), so no trusted paths outside the \
                 workspace apply until it is fixed. Ask the user to fix the file (a JSON list of absolute \
                 directory paths) or delete it and `codesmith trust add DIR` again."
            ),
            SessionNotice::ApprovalsUnparsable { error } => write!(
                f,
                "`.codesmith/approvals.json` does not parse ({error}), so no approvals \
                 persisted for the workspace apply until it is fixed. Ask the user to fix the file \
                 (a JSON list of approval ids) or delete it."
            ),
            SessionNotice::CwdLost { recorded, exists } => {
                let why = if *exists {
                    "is no longer inside the workspace or a trusted directory"
                } else {
                    "no longer exists"
                };
                write!(
                    f,
                    "The session cwd `{recorded}` {why}, so the cwd is now the workspace root: relative paths \
                     resolve from there. To work in another directory, use exec_shell with `cd DIR`."
                )
            }
        }
    }
}

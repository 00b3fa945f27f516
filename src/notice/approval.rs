//! Why an action needs a person's yes, as the `approval_required` error, a `Sandbox:` line's
//! `data.approval` and the session's pending approvals give it.

use std::fmt;

use super::sandbox::SandboxStop;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ApprovalReason {
    /// A command run without the rule that it writes only where commands may.
    WritesOutside,
    /// A command run with sockets.
    OpensNetwork,
    /// fetch_url's connection to `host`, which the policy lets through only when asked.
    HostNeedsApproval { host: String },
    /// What the sandbox stopped (the words of its `Sandbox:` line).
    Stopped(SandboxStop),
    /// The shell classifier's reasons for a command: the texts of its rule table
    /// (`src/policy/`), joined with `; `, relayed as they are.
    Classified(String),
}

impl fmt::Display for ApprovalReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ApprovalReason::WritesOutside => {
                f.write_str("it writes outside the directories a command may write")
            }
            ApprovalReason::OpensNetwork => f.write_str("it opens network connections"),
            ApprovalReason::HostNeedsApproval { host } => write!(
                f,
                "fetch_url wants to connect to `{host}`, which the network policy ([network] in \
                 .codesmith/config.toml) does not allow without asking"
            ),
            ApprovalReason::Stopped(stop) => stop.fmt_what(f),
            ApprovalReason::Classified(reasons) => f.write_str(reasons),
        }
    }
}

//! Approvals: actions that need a person's yes.
//!
//! A tool that wants to do something risky calls [`Context::require_approval`]. The action's id
//! is a stable fingerprint of what it is (kind, subject and scope), so the same action asked
//! twice has the same id and a person's `codesmith approve ID` grants exactly that action.
//! Grants come from `--approve ID` (this call only), `--yolo` (everything, this call only),
//! `codesmith approve ID` (this session) and `codesmith approve ID --persist` (the workspace).

use std::collections::BTreeSet;
use std::path::Path;

use crate::error::ToolError;
use crate::notice::ApprovalReason;
use crate::session::state::PendingApproval;

const PERSISTED: &str = "approvals.json";

/// What kind of action needs a yes. Its name is part of every approval id and message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApprovalKind {
    /// A connection to a host the network policy does not allow (fetch_url, or a shell command
    /// that needs the network).
    Network,
    /// A shell command that deletes, overwrites or re-permissions outside the workspace, or
    /// does something else no undo can take back.
    Destructive,
}

impl ApprovalKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ApprovalKind::Network => "network",
            ApprovalKind::Destructive => "destructive",
        }
    }

    /// The kind a pending approval recorded (the session file stores its name).
    pub fn parse(name: &str) -> Option<ApprovalKind> {
        [ApprovalKind::Network, ApprovalKind::Destructive]
            .into_iter()
            .find(|kind| kind.as_str() == name)
    }
}

impl std::fmt::Display for ApprovalKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Something a tool asks a person to allow.
#[derive(Debug, Clone)]
pub struct ApprovalRequest {
    pub kind: ApprovalKind,
    /// What exactly: a host, a command.
    pub subject: String,
    /// Why it needs a yes (worded in `src/notice/approval.rs`; the session's pending approvals
    /// and the error store its text).
    pub reason: ApprovalReason,
    /// Extra scope folded into the id but not shown (e.g. the cwd a command runs in).
    pub scope: String,
}

impl ApprovalRequest {
    /// The stable id: `ap-` and 12 hex digits of a hash over kind, subject and scope.
    pub fn id(&self) -> String {
        let key = format!("{}\0{}\0{}", self.kind, self.subject, self.scope);
        format!(
            "ap-{:012x}",
            xxhash_rust::xxh3::xxh3_64(key.as_bytes()) & 0xffff_ffff_ffff
        )
    }

    /// The `approval_required` error for this request.
    pub fn error(&self, tool: &str) -> ToolError {
        let id = self.id();
        ToolError::approval_required(
            tool,
            &self.reason.to_string(),
            self.kind.as_str(),
            &self.subject,
            &id,
        )
    }

    pub fn pending(&self) -> PendingApproval {
        PendingApproval {
            kind: self.kind.to_string(),
            subject: self.subject.clone(),
            reason: self.reason.to_string(),
            tool: None,
        }
    }
}

/// Approval ids persisted for the whole workspace; none when the file is missing or does not
/// parse (nothing is granted by a file codesmith cannot read).
pub fn persisted(state_dir: &Path) -> BTreeSet<String> {
    persisted_checked(state_dir).unwrap_or_default()
}

/// The persisted ids, or the parse error of an `approvals.json` that exists but does not parse.
pub fn persisted_checked(state_dir: &Path) -> Result<BTreeSet<String>, serde_json::Error> {
    let Ok(bytes) = std::fs::read(state_dir.join(PERSISTED)) else {
        return Ok(BTreeSet::new());
    };
    serde_json::from_slice(&bytes)
}

/// Adds `id` to the workspace's persisted approvals. An `approvals.json` that does not parse is
/// refused rather than overwritten, which would drop the approvals persisted before.
pub fn persist(state: &crate::session::state::State, id: &str) -> Result<(), ToolError> {
    let mut ids = persisted_checked(state.dir())
        .map_err(|parse_error| ToolError::approvals_unparsable(&parse_error, id))?;
    ids.insert(id.to_string());
    let bytes = serde_json::to_vec_pretty(&ids).unwrap_or_default();
    state
        .write_file(PERSISTED, &bytes)
        .map_err(|err| ToolError::io(".codesmith/approvals.json", "write", &err))
}

//! Refusals about the workspace and codesmith's own state: the boundary, `.codesmith/` and
//! the files in it (config, trust list, approvals).

use super::{ErrorCode, Field, PathForm, ToolError};

impl ToolError {
    /// A path whose resolution goes round a symlink loop.
    pub fn symlink_loop(input: &str) -> ToolError {
        ToolError::new(
            ErrorCode::InvalidArguments,
            format!("`{input}` goes through a symlink loop; name a path without the loop"),
        )
    }

    /// A path that resolves outside the workspace and every trusted root.
    pub fn escapes_workspace(input: &str, resolved: &str, root: &str, roots: Vec<String>) -> ToolError {
        ToolError::new(
            ErrorCode::OutsideWorkspace,
            format!(
                "path escapes workspace: `{input}` resolves to `{resolved}`, outside the workspace `{root}`. \
                 Use a path inside the workspace (relative paths resolve against the session cwd), \
                 or ask the user to run `codesmith trust add <dir>` to allow another directory."
            ),
        )
        .with(Field::Path, input)
        .with(Field::Roots, roots)
    }

    /// A write aimed inside `.codesmith/`.
    pub fn inside_state_dir(input: &str) -> ToolError {
        ToolError::new(
            ErrorCode::OutsideWorkspace,
            format!(
                "path escapes workspace: `{input}` is inside .codesmith/, codesmith's own state, \
                 which the file tools never write. Write somewhere else in the workspace."
            ),
        )
        .with(Field::Path, input)
    }

    /// `.codesmith` is a symlink (`target` is " (to `…`)" or empty).
    pub fn state_dir_is_symlink(target: &str) -> ToolError {
        ToolError::new(
            ErrorCode::IoError,
            format!(
                "`.codesmith` at the workspace root is a symlink{target}; codesmith keeps its state \
                 (sessions, freshness records, approvals) in a real directory there and does not follow \
                 a link to it, so nothing was done. Ask the user to remove the link (`rm .codesmith` in \
                 the workspace root removes only the link, not its target), then call again: \
                 codesmith creates the directory itself."
            ),
        )
        .with(Field::Path, ".codesmith")
    }

    /// A file where codesmith needs a directory of its state.
    pub fn state_not_a_directory(display: &str) -> ToolError {
        ToolError::new(
            ErrorCode::IoError,
            format!(
                "`{display}` is a file, but codesmith needs a directory there for its state \
                 (sessions, freshness records, locks). Ask the user to remove or \
                 rename `{display}` (codesmith recreates the directory itself), then call again."
            ),
        )
        .with(Field::Path, display)
    }

    /// `.codesmith/config.toml` does not parse, at `line` when the parser knows where; `why`
    /// is the parser's message, passed through.
    pub fn config_unparsable(line: Option<usize>, why: &str) -> ToolError {
        let line = line.map(|n| format!(" at line {n}")).unwrap_or_default();
        ToolError::new(
            ErrorCode::IoError,
            format!(
                "`.codesmith/config.toml` does not parse{line}: {why}. Nothing was done. Ask the \
                 user to fix the file (see `man codesmith`, CONFIGURATION), then call again."
            ),
        )
        .with(Field::Path, ".codesmith/config.toml")
    }

    /// `.codesmith/trust.json` does not parse, so a trust command leaves it alone.
    pub fn trust_list_unparsable(why: &serde_json::Error) -> ToolError {
        ToolError::new(
            ErrorCode::IoError,
            format!(
                "`.codesmith/trust.json` does not parse ({why}); it was not changed, so \
                 its entries are not lost. Fix the file (a JSON list of absolute directory paths) \
                 or delete it, then run the trust command again."
            ),
        )
        .with(Field::Path, ".codesmith/trust.json")
    }

    /// `trust add` of a path that does not exist.
    pub fn trust_target_missing(path: &str) -> ToolError {
        ToolError::new(
            ErrorCode::NotFound,
            format!(
                "`{path}` does not exist; trust add takes an existing directory, e.g. \
                 `codesmith trust add /opt/shared`."
            ),
        )
        .with(Field::Path, path)
    }

    /// `trust remove` of a path that is not trusted.
    pub fn not_trusted(path: &str) -> ToolError {
        ToolError::new(
            ErrorCode::NotFound,
            format!("`{path}` is not a trusted path. `codesmith trust list` shows the trusted paths."),
        )
        .with(Field::Path, path)
    }

    /// `.codesmith/approvals.json` does not parse, so `approve --persist` leaves it alone.
    pub fn approvals_unparsable(why: &serde_json::Error, id: &str) -> ToolError {
        ToolError::new(
            ErrorCode::IoError,
            format!(
                "`.codesmith/approvals.json` does not parse ({why}); it was not changed, so \
                 the approvals persisted in it are not lost, and `{id}` is approved for this session \
                 only. Fix the file (a JSON list of approval ids) or delete it, then run \
                 `codesmith approve {id} --persist` again."
            ),
        )
        .with(Field::Path, ".codesmith/approvals.json")
    }

    /// `approve` of an id no call of the session asked for; `waiting` lists the pending ids.
    pub fn no_pending_approval(id: &str, session: &str, waiting: &[&str]) -> ToolError {
        let way_out = match waiting {
            [] => "Nothing is waiting for approval now: repeat the call that returned \
                   approval_required and approve the id in its error.approval.id."
                .to_string(),
            [one] => format!("Waiting now: {one}; approve it with `codesmith approve {one}`."),
            several => format!(
                "Waiting now: {}; approve one with `codesmith approve ID`.",
                several.join(", ")
            ),
        };
        ToolError::new(
            ErrorCode::NotFound,
            format!(
                "no pending approval `{id}` in session `{session}`. Ids come from approval_required errors \
                 of this session (pass --session NAME before `approve` for another one). {way_out}"
            ),
        )
        .with(Field::Pending, waiting)
    }

    /// An action that waits for a person's approval; `approval` is its `error.approval` object.
    pub fn approval_required(tool: &str, reason: &str, kind: &str, subject: &str, id: &str) -> ToolError {
        ToolError::new(
            ErrorCode::ApprovalRequired,
            format!(
                "{tool} needs approval: {reason} ({kind} `{subject}`). Nothing was done. Ask the user to approve it \
                 with `codesmith approve {id}` (add --persist to allow it for the workspace), then \
                 repeat this exact call; or repeat it with `--approve {id}` if the user already agreed."
            ),
        )
        .with(
            Field::Approval,
            serde_json::json!({"id": id, "kind": kind, "subject": subject, "reason": reason}),
        )
    }

    /// The user declined (or cancelled) an approval an MCP client asked for. `action` is the
    /// client's answer; `approval` the `error.approval` object.
    pub fn approval_declined(
        action: &str,
        tool: &str,
        kind: &str,
        subject: &str,
        approval: serde_json::Value,
    ) -> ToolError {
        let how = match action {
            "accept" => "left approve unticked",
            "decline" => "declined",
            _ => "cancelled the question",
        };
        ToolError::new(
            ErrorCode::ApprovalRequired,
            format!(
                "The user {how}: {kind} `{subject}` was not approved, so {tool} ran nothing. Do not repeat this call \
                 unless the user asks for it; do the task another way, or ask the user how to go on."
            ),
        )
        .with(Field::Approval, approval)
        .with(Field::Declined, action)
    }

    /// `--workspace` names nothing, or not a directory.
    pub fn bad_workspace(given: &str, exists: bool) -> ToolError {
        ToolError::invalid(if exists {
            format!("the workspace `{given}` is not a directory. Pass a directory with --workspace DIR.")
        } else {
            format!(
                "the workspace `{given}` does not exist. Pass an existing directory with --workspace DIR \
                 (or CODESMITH_WORKSPACE)."
            )
        })
    }

    /// A session name that cannot be a file name.
    pub fn bad_session_name(escaped: &str) -> ToolError {
        ToolError::invalid(format!(
            "invalid session name `{escaped}`: use 1 to 64 of A-Z a-z 0-9 . _ - (not starting with `.`), \
             for example --session agent-1."
        ))
    }

    /// A path form that means something else to a model than to POSIX (`why` says what and
    /// the way out); `shown` is the path, abbreviated if long.
    pub fn bad_path_form(input: &str, shown: &str, why: &PathForm) -> ToolError {
        ToolError::invalid(format!("invalid path `{shown}`: {why}")).with(Field::Path, input)
    }

    /// `trust add` or `trust remove` without a directory.
    pub fn trust_needs_directory(action: &str) -> ToolError {
        ToolError::invalid(format!(
            "trust {action} needs a directory, e.g. `codesmith trust {action} /opt/shared`."
        ))
    }

    /// `trust add` of something that is not a directory.
    pub fn trust_not_a_directory(path: &str) -> ToolError {
        ToolError::invalid(format!(
            "`{path}` is not a directory; trust add takes a directory, e.g. `codesmith trust add /opt/shared`."
        ))
    }

    /// `trust add` of a directory that holds nearly everything (`holds` says what it holds).
    pub fn trust_too_broad(path: &str, holds: &str) -> ToolError {
        ToolError::invalid(format!(
            "`{path}` {holds}; trusting it would make nearly every path a root, so it was not added. \
             A narrower directory is needed: trust only the directory outside the workspace that \
             holds what you need, e.g. `codesmith trust add /opt/shared`."
        ))
        .with(Field::Path, path)
    }

    /// `trust add` of a directory inside the workspace.
    pub fn trust_inside_workspace(path: &str, root: &str) -> ToolError {
        ToolError::invalid(format!(
            "`{path}` is inside the workspace `{root}`, which is reachable already; trust add is for \
             directories outside it."
        ))
    }
}

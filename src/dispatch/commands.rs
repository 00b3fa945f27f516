//! The commands for people rather than models: `trust`, `approve` and `answer`.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::error::ToolError;
use crate::notice::Notice;
use crate::output::ToolOutput;
use crate::session::approval::ApprovalKind;
use crate::session::context::Global;
use crate::session::state::{check_session_name, PendingApproval, State};

/// The state, the workspace root and the notices from opening them (a state file that does not
/// parse), which the command's result carries.
fn open_state(global: &Global) -> Result<(State, PathBuf, Vec<Notice>), ToolError> {
    check_session_name(&global.session)?;
    let mut ctx = crate::session::context::Context::open(global, crate::tool_id::ToolId::Trust)?;
    let notices = ctx.take_opening_notices();
    Ok((ctx.state.clone(), ctx.workspace.root().to_path_buf(), notices))
}

/// `codesmith trust add|remove|list [PATH]`.
pub fn trust(global: &Global, action: &str, path: Option<PathBuf>) -> Result<ToolOutput, ToolError> {
    let (state, root, notices) = open_state(global)?;
    // A trust.json that does not parse is reported by the refusal itself.
    let notices = if action == "list" { notices } else { Vec::new() };
    crate::output::with_notices(trust_action(&state, &root, action, path), notices)
}

fn trust_action(
    state: &State,
    root: &std::path::Path,
    action: &str,
    path: Option<PathBuf>,
) -> Result<ToolOutput, ToolError> {
    let need_path = || {
        path.clone()
            .ok_or_else(|| ToolError::trust_needs_directory(action))
    };
    let roots = match action {
        "add" => crate::session::trust::add(state, root, &need_path()?)?,
        "remove" => crate::session::trust::remove(state, &need_path()?)?,
        _ => crate::session::trust::load(state.dir()),
    };
    let list: Vec<String> = roots.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    let output = if list.is_empty() {
        "No trusted paths; only the workspace is reachable.".to_string()
    } else {
        format!("Trusted paths outside the workspace:\n{}", list.join("\n"))
    };
    Ok(ToolOutput::new(output).with("trusted", list))
}

/// `codesmith approve ID [--persist]`: grants a pending approval of this session.
pub fn approve(global: &Global, id: &str, persist: bool) -> Result<ToolOutput, ToolError> {
    let (state, root, notices) = open_state(global)?;
    crate::output::with_notices(approve_in(global, &state, &root, id, persist), notices)
}

fn approve_in(
    global: &Global,
    state: &State,
    root: &std::path::Path,
    id: &str,
    persist: bool,
) -> Result<ToolOutput, ToolError> {
    let session = state.load_session();
    let Some(pending) = session.pending.get(id).cloned() else {
        // Granted actions stay on record (a later `--persist` needs their kind and subject)
        // but are no longer waiting for anyone, so they are not offered.
        let persisted = crate::session::approval::persisted(state.dir());
        let waiting: Vec<&str> = session
            .pending
            .keys()
            .filter(|k| !session.approvals.contains(*k) && !persisted.contains(*k))
            .map(String::as_str)
            .collect();
        return Err(ToolError::no_pending_approval(id, &global.session, &waiting));
    };
    let newly = state.update_session(|session| session.approvals.insert(id.to_string()))?;
    // A repeated approve says so, so that nobody takes it for a second action being allowed.
    let mut output = if newly {
        format!(
            "Approved {id}: {} `{}` for session `{}`.",
            pending.kind, pending.subject, global.session
        )
    } else {
        format!(
            "{id} was already approved: {} `{}` for session `{}`; nothing changed for the session.",
            pending.kind, pending.subject, global.session
        )
    };
    if persist {
        crate::session::approval::persist(state, id)?;
        if let Some(extra) = persist_hook(root, &pending)? {
            output.push(' ');
            output.push_str(&extra);
        }
        output.push_str(" Persisted for the workspace.");
    }
    Ok(ToolOutput::new(output)
        .with("id", id)
        .with("kind", pending.kind)
        .with("subject", pending.subject)
        .with("persisted", Value::Bool(persist))
        .with("already_approved", Value::Bool(!newly)))
}

/// What `--persist` does beyond recording the id, by kind. Returns a sentence for the output.
/// A network approval also puts its host on the policy's allow list, where a person can see and
/// revoke it.
fn persist_hook(root: &Path, pending: &PendingApproval) -> Result<Option<String>, ToolError> {
    match ApprovalKind::parse(&pending.kind) {
        // A shell command that needs the network is approved as a command, not as a host: the
        // persisted approval id covers it.
        // (A line typed into a shell task with task_input is a command too.)
        Some(ApprovalKind::Network)
            if matches!(pending.tool.as_deref(), Some("exec_shell" | "task_input")) =>
        {
            Ok(Some(
                "The command is approved for the workspace; the [network] allow list names hosts, \
             so it was not changed."
                    .to_string(),
            ))
        }
        Some(ApprovalKind::Network) => crate::net::persist::allow_host(root, &pending.subject).map(Some),
        Some(ApprovalKind::Destructive) | None => Ok(None),
    }
}

/// `codesmith answer ID TEXT`: records a person's answer to a question ask_user asked in this
/// session; the call repeated with `--answer ID` returns it.
pub fn answer(global: &Global, id: &str, text: &str) -> Result<ToolOutput, ToolError> {
    let (state, _, notices) = open_state(global)?;
    crate::output::with_notices(answer_in(global, &state, id, text), notices)
}

fn answer_in(global: &Global, state: &State, id: &str, text: &str) -> Result<ToolOutput, ToolError> {
    let session = state.load_session();
    let Some(pending) = session.questions.get(id) else {
        let waiting: Vec<&str> = session
            .questions
            .iter()
            .filter(|(_, q)| q.answer.is_none())
            .map(|(id, _)| id.as_str())
            .collect();
        return Err(ToolError::no_pending_question(id, &global.session, &waiting));
    };
    let answer = pending
        .question
        .resolve(text)
        .ok_or_else(|| ToolError::empty_answer(id))?;
    let question = pending.question.question.clone();
    state.update_session(|session| {
        if let Some(entry) = session.questions.get_mut(id) {
            entry.answer = Some(answer.clone());
        }
    })?;
    let output = format!(
        "Recorded the answer to {id} ({question}): {answer}. The ask_user call repeated with \
         `--answer {id}` returns it."
    );
    Ok(ToolOutput::new(output)
        .with("id", id)
        .with("question", question)
        .with("answer", answer))
}

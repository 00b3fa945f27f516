//! What a tool call runs in: the workspace boundary, the session's state, the call's approvals.

use std::cell::{OnceCell, RefCell};
use std::path::PathBuf;

use crate::error::ToolError;
use crate::fs::workspace::{Workspace, WsPath};
use crate::notice::{Notice, SessionNotice};
use crate::output::ToolOutput;
use crate::session::approval::ApprovalRequest;
use crate::session::config::Config;
use crate::session::state::{check_session_name, State};

/// Global options, already resolved from flags and environment.
#[derive(Debug, Clone, Default)]
pub struct Global {
    pub workspace: Option<PathBuf>,
    pub session: String,
    pub text_format: bool,
    pub approve: Vec<String>,
    pub yolo: bool,
    /// `--answer ID`: the question ids whose recorded answers this call may use.
    pub answer: Vec<String>,
    /// Whether ask_user may ask at the terminal when stdin and stderr are one (the command
    /// line; the MCP server owns stdin and never does).
    pub prompt: bool,
    /// `--tools`: the tools and capabilities offered (see `tools::profile`); `None`: all.
    pub tools: Option<Vec<String>>,
}

pub struct Context {
    /// The canonical name of the tool being run.
    pub tool: crate::tool_id::ToolId,
    pub workspace: Workspace,
    pub state: State,
    approve: Vec<String>,
    yolo: bool,
    answers: Vec<String>,
    prompt: bool,
    /// Whether the workspace was named (`--workspace`, `CODESMITH_WORKSPACE`), so the commands
    /// a result prints for a person name it too.
    workspace_given: bool,
    config: OnceCell<Config>,
    /// The session as it was read when the call opened (approvals, reminders); changes go
    /// through `State::update_session`, which reads it again under the lock.
    session: crate::session::state::SessionFile,
    /// Notices from opening the session (the recorded cwd was gone), for the call's result.
    /// Also the config's problems, once it is loaded (the network policy's readers).
    opening_notices: RefCell<Vec<Notice>>,
}

impl Context {
    /// Opens the workspace and the session: canonical root, trusted roots, the session's cwd.
    pub fn open(global: &Global, tool: crate::tool_id::ToolId) -> Result<Context, ToolError> {
        check_session_name(&global.session)?;
        let root = workspace_root(global)?;
        crate::session::state::check_state_dir(&root.join(".codesmith"))?;
        let state = State::new(root.join(".codesmith"), global.session.clone()).with_tool(tool.name());
        let mut opening_notices = Vec::new();
        let trusted = crate::session::trust::load_checked(state.dir()).unwrap_or_else(|parse_error| {
            // Given on every call that reads the file, until it is fixed.
            opening_notices.push(
                SessionNotice::TrustListUnparsable {
                    error: parse_error.to_string(),
                }
                .into(),
            );
            Vec::new()
        });
        if let Err(parse_error) = crate::session::approval::persisted_checked(state.dir()) {
            opening_notices.push(
                SessionNotice::ApprovalsUnparsable {
                    error: parse_error.to_string(),
                }
                .into(),
            );
        }
        let mut workspace = Workspace::new(root, trusted);
        let (session, corrupt) = state.load_session_checked();
        if let Some(notice) = corrupt {
            opening_notices.push(notice);
            // Rewritten fresh now (the copy is kept), so the notice is given once.
            let _ = state.update_session(|_| ());
        }
        if session.cwd != "." {
            let cwd = workspace.root().join(&session.cwd);
            workspace.set_cwd(&cwd);
            if workspace.cwd() == workspace.root() {
                let lost = SessionNotice::CwdLost {
                    recorded: session.cwd.clone(),
                    exists: cwd.exists(),
                };
                opening_notices.push(lost.into());
                // Recorded, so the notice is given once and later calls start from the root.
                let _ = state.update_session(|session| session.cwd = ".".to_string());
            }
        }
        Ok(Context {
            tool,
            workspace,
            state,
            approve: global.approve.clone(),
            yolo: global.yolo,
            answers: global.answer.clone(),
            prompt: global.prompt,
            workspace_given: global.workspace.is_some(),
            config: OnceCell::new(),
            opening_notices: RefCell::new(opening_notices),
            session,
        })
    }

    /// Adds the notices from opening the session to a tool's result: as notices on success,
    /// and at the end of the message on failure (an error envelope has no notices, and a
    /// `not_found` is exactly when the model needs to know its cwd moved).
    pub fn with_opening_notices(
        &mut self,
        result: Result<ToolOutput, ToolError>,
    ) -> Result<ToolOutput, ToolError> {
        let mut notices = self.opening_notices.take();
        notices.extend(self.state.take_notices());
        crate::output::with_notices(result, notices)
    }

    /// Spills `text` (see [`crate::session::state::State::spill`]) and names the file as a call takes it
    /// from the session cwd; `None` when it could not be saved.
    pub fn spill_for_call(&self, tool: &str, text: &str) -> Option<String> {
        let rel = self.state.spill(tool, text).ok()?;
        Some(self.workspace.call_path_of(&rel))
    }

    /// Takes the notices from opening the session, for a command that builds its own result.
    pub fn take_opening_notices(&mut self) -> Vec<Notice> {
        self.opening_notices.take()
    }

    /// The session as read when the call opened.
    pub fn session(&self) -> &crate::session::state::SessionFile {
        &self.session
    }

    /// True the first time in this session that `mark` is asked for, which then marks it (a
    /// reminder given once per session); a mark that cannot be saved is asked for again.
    pub fn first_time(&self, mark: &str) -> bool {
        if self.session.reminders.contains_key(mark) {
            return false;
        }
        let _ = self.state.update_session(|session| {
            session
                .reminders
                .insert(mark.to_string(), serde_json::Value::Bool(true));
        });
        true
    }

    /// The workspace config, loaded on first use.
    pub fn config(&self) -> Result<&Config, ToolError> {
        if let Some(config) = self.config.get() {
            return Ok(config);
        }
        let config = Config::load(self.state.dir())?;
        self.opening_notices.borrow_mut().extend(config.problems());
        Ok(self.config.get_or_init(|| config))
    }

    /// Resolves a path argument through the workspace boundary.
    pub fn resolve(&self, path: &str) -> Result<WsPath, ToolError> {
        self.workspace.resolve(path)
    }

    /// Resolves a path that is about to be written (refuses `.codesmith/`).
    pub fn resolve_for_write(&self, path: &str) -> Result<WsPath, ToolError> {
        self.workspace.resolve_for_write(path)
    }

    /// Moves the session's cwd (persisted for the next call). `dir` must be inside a root.
    pub fn set_cwd(&mut self, dir: &std::path::Path) -> Result<(), ToolError> {
        self.workspace.set_cwd(dir);
        let display = self.workspace.display(self.workspace.cwd());
        self.state.update_session(|session| session.cwd = display)
    }

    /// Ok when `request` is granted (by `--yolo`, `--approve ID`, `codesmith approve ID` in this
    /// session, or a persisted approval); otherwise records it as pending and returns
    /// `approval_required`.
    pub fn require_approval(&self, request: &ApprovalRequest) -> Result<(), ToolError> {
        if self.is_approved(request) {
            return Ok(());
        }
        let id = request.id();
        let mut pending = request.pending();
        pending.tool = Some(self.tool.to_string());
        self.state.update_session(|session| {
            session.pending.insert(id, pending);
        })?;
        Err(request.error(self.tool.name()))
    }

    /// The question ids given with `--answer`.
    pub fn answers(&self) -> &[String] {
        &self.answers
    }

    /// The workspace root as a printed command must name it: when it was given.
    pub fn given_workspace(&self) -> Option<&std::path::Path> {
        self.workspace_given.then(|| self.workspace.root())
    }

    /// Whether a question may be asked at the terminal: the command line, with stdin and
    /// stderr both a terminal.
    pub fn can_prompt(&self) -> bool {
        use std::io::IsTerminal;
        self.prompt && std::io::stdin().is_terminal() && std::io::stderr().is_terminal()
    }

    /// Whether `request` is granted, without recording anything.
    pub fn is_approved(&self, request: &ApprovalRequest) -> bool {
        let id = request.id();
        self.yolo
            || self.approve.contains(&id)
            || self.session.approvals.contains(&id)
            || crate::session::approval::persisted(self.state.dir()).contains(&id)
    }
}

fn workspace_root(global: &Global) -> Result<PathBuf, ToolError> {
    let given = match &global.workspace {
        Some(dir) => dir.clone(),
        None => std::env::current_dir()
            .map_err(|err| ToolError::io(".", "determine the current directory", &err))?,
    };
    let root = given
        .canonicalize()
        .map_err(|_| ToolError::bad_workspace(&given.display().to_string(), false))?;
    if !root.is_dir() {
        return Err(ToolError::bad_workspace(&given.display().to_string(), true));
    }
    Ok(root)
}

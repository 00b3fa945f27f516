//! exec_shell's side of the sandbox: what a command may write, what a grant or the policy
//! lifts, and the retry when a layer cannot be entered here.
//!
//! Approvals widen the sandbox, nothing else does: the classifier decides what to ask before a
//! run; a granted `destructive` approval for the command (or `--yolo`) runs it without the
//! filesystem rule, a granted `network` approval (or the policy `allow`) with sockets. The
//! ids are the ones the classifier's questions and the sandbox's hints both carry, so a person
//! approves one id whichever of the two asked.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::error::ToolError;
use crate::net::Decision;
use crate::notice::{ApprovalReason, Notice, SandboxHint, ShellNotice, Unprotected};
use crate::sandbox::{self, Layer, Lifted, Missing, Mode, Prepared, Report, Request};
use crate::session::approval::{ApprovalKind, ApprovalRequest};
use crate::session::context::Context;

use super::run::SpawnError;

mod git;
mod settings;
mod sockets;

pub use git::{remove_planted, GIT_REDIRECTS};
pub use settings::ShellSettings;
pub use sockets::hidden_by;

/// The two approvals that lift the sandbox for `command` run from the cwd `scope` (as the
/// workspace displays it): the ids the classifier's questions carry too.
pub fn lifting_requests(command: &str, scope: &str) -> [ApprovalRequest; 2] {
    let scope = scope.to_string();
    [
        ApprovalRequest {
            kind: ApprovalKind::Destructive,
            subject: command.to_string(),
            reason: ApprovalReason::WritesOutside,
            scope: scope.clone(),
        },
        ApprovalRequest {
            kind: ApprovalKind::Network,
            subject: command.to_string(),
            reason: ApprovalReason::OpensNetwork,
            scope,
        },
    ]
}

/// One command's sandbox, planned.
pub struct Confinement {
    pub mode: Mode,
    /// The network policy's decision for the command (under `deny` no approval lifts a stop).
    pub network: Decision,
    pub request: Request,
    pub lifted: Lifted,
    /// The private temporary directory (its variables go into the command's environment).
    pub tmpdir: Option<PathBuf>,
    /// Redirections of git's configuration that did not exist before the run (see
    /// [`GIT_REDIRECTS`]); one the command creates is removed after it.
    pub watched: Vec<PathBuf>,
    /// The line saying a `.git/commondir` found before the run was removed.
    pub removed_before: Option<SandboxHint>,
    /// The names of the variables held back from the command's environment (credentials).
    pub held_back: Vec<String>,
}

impl Confinement {
    /// The variables the command gets on top of its environment.
    pub fn env(&self) -> Vec<(&'static str, String)> {
        let Some(dir) = &self.tmpdir else {
            return Vec::new();
        };
        let dir = dir.to_string_lossy().into_owned();
        let mut env = vec![("TMPDIR", dir.clone()), ("TMP", dir.clone()), ("TEMP", dir)];
        // GNU tar run by root restores the archive's owners by default, which needs CAP_CHOWN:
        // without it every file fails and tar exits 2. Root in the sandbox holds no capability,
        // so it extracts as the user it is.
        // SAFETY: a plain getter.
        if self.request.filesystem && unsafe { libc::geteuid() } == 0 {
            let options = std::env::var("TAR_OPTIONS").unwrap_or_default();
            env.push((
                "TAR_OPTIONS",
                format!("--no-same-owner {options}").trim_end().to_string(),
            ));
        }
        env
    }
}

/// Where in a task's directory the supervising shell writes the exit status.
pub const TASK_STATUS_DIR: &str = "status";

/// Plans the sandbox of `command`. `task_dir` is a background task's own directory (it holds
/// the task's `TMPDIR` and its status directory, which stay writable; nothing else in it does).
pub fn plan(
    ctx: &Context,
    settings: &ShellSettings,
    command: &str,
    network: Decision,
    task_dir: Option<&Path>,
) -> Result<Confinement, ToolError> {
    let lifted = lifted(ctx, command, network);
    let on = settings.mode != Mode::Off;
    let filesystem = on && lifted.filesystem.is_none();
    let mut confinement = Confinement {
        network,
        mode: settings.mode,
        request: Request {
            filesystem,
            state: filesystem,
            block_network: on && lifted.network.is_none(),
            contain: on,
            ..Request::default()
        },
        lifted,
        tmpdir: None,
        watched: Vec::new(),
        removed_before: None,
        held_back: super::secrets::held_back(&settings.pass_env),
    };
    if !filesystem {
        return Ok(confinement);
    }
    let state_dir = ctx.state.dir();
    let fail = |err: std::io::Error| ToolError::io(".codesmith/tmp", "create the command's TMPDIR in", &err);
    ctx.state.ensure_dir().map_err(fail)?;
    let tmpdir = match task_dir {
        Some(dir) => dir.join("tmp"),
        // One per session, kept between calls: creating and removing a directory per call
        // costs more than the rest of the sandbox's set-up.
        None => state_dir.join("tmp").join(ctx.state.session_name()),
    };
    if !tmpdir.is_dir() {
        std::fs::create_dir_all(&tmpdir).map_err(fail)?;
    }
    let request = &mut confinement.request;
    request.writable.push(ctx.workspace.root().to_path_buf());
    request.writable.extend(ctx.workspace.trusted().iter().cloned());
    request.writable.extend(settings.writable.iter().cloned());
    request
        .writable
        .extend(["/dev/shm"].iter().map(PathBuf::from).filter(|p| p.is_dir()));
    request.protected.push(state_dir.to_path_buf());
    request.masked = sockets::masked(&request.writable);
    request.sockets = sockets::kept(&settings.sockets, &request.masked);
    let guard = git::protect(ctx.workspace.root(), request);
    confinement.watched = guard.watched;
    confinement.removed_before = guard.removed_before;
    let request = &mut confinement.request;
    // A task's own records (pgid, cursor, command) stay out of its reach: only its TMPDIR and
    // the directory its supervising shell writes the exit status into are reopened, and
    // codesmith never follows a link in either.
    request.reopened.push(tmpdir.clone());
    if let Some(dir) = task_dir {
        request.reopened.push(dir.join(TASK_STATUS_DIR));
    }
    confinement.tmpdir = Some(tmpdir);
    Ok(confinement)
}

/// What a grant or the policy lifts for `command` run from the session cwd.
fn lifted(ctx: &Context, command: &str, network: Decision) -> Lifted {
    let scope = ctx.workspace.display(ctx.workspace.cwd());
    let [write_outside, network_request] = lifting_requests(command, &scope);
    let mut lifted = Lifted::default();
    if ctx.is_approved(&write_outside) {
        lifted.filesystem = Some(Unprotected::Approved {
            id: write_outside.id(),
        });
    }
    // Deny wins: under `deny` no approval (not even --yolo) opens a socket.
    match network {
        Decision::Allow => lifted.network = Some(Unprotected::NetworkAllowed),
        Decision::Prompt if ctx.is_approved(&network_request) => {
            lifted.network = Some(Unprotected::Approved {
                id: network_request.id(),
            })
        }
        _ => {}
    }
    lifted
}

/// The session's memo of layers found missing here for lasting reasons (so a later call does
/// not retry them); a passing shortage is retried by the next call.
const MISSING_MEMO: &str = "sandbox-missing";
/// The mark that the once-per-session notice of a weaker sandbox was given.
const NOTICE_MARK: &str = "sandbox-notice";

/// Where codesmith runs, for the memo: a layer missing in one mount namespace or for one user
/// (a jail, a container) may be there in another.
fn environment_key() -> String {
    let namespace = std::fs::read_link("/proc/self/ns/mnt")
        .map(|link| link.to_string_lossy().into_owned())
        .unwrap_or_default();
    // SAFETY: a plain getter.
    format!("{namespace} uid {}", unsafe { libc::geteuid() })
}

fn remembered_missing(ctx: &Context) -> Vec<Missing> {
    let Some(Value::Object(memo)) = ctx.session().reminders.get(MISSING_MEMO) else {
        return Vec::new();
    };
    if memo.get("where").and_then(Value::as_str) != Some(environment_key().as_str()) {
        return Vec::new();
    }
    Layer::ALL
        .into_iter()
        .filter_map(|layer| {
            let reason = memo.get(layer.as_str())?.as_str()?.to_string();
            Some(Missing { layer, reason })
        })
        .collect()
}

fn remember_missing(ctx: &Context, missing: &Missing) {
    let _ = ctx.state.update_session(|session| {
        let key = Value::from(environment_key());
        let memo = session
            .reminders
            .entry(MISSING_MEMO.to_string())
            .or_insert_with(|| Value::Object(Default::default()));
        if memo.get("where") != Some(&key) {
            *memo = serde_json::json!({ "where": key });
        }
        if let Value::Object(memo) = memo {
            memo.insert(missing.layer.as_str().to_string(), missing.reason.clone().into());
        }
    });
}

/// Starts the command inside its sandbox through `start`. A layer that cannot be entered
/// here is remembered and, under `auto`, left out of a second try; under `required` any
/// missing layer refuses the run. Returns what `start` returned and what held.
pub fn launch<T>(
    ctx: &Context,
    confinement: &Confinement,
    mut start: impl FnMut(Option<&Prepared>) -> Result<T, SpawnError>,
) -> Result<(T, Report), ToolError> {
    let mut unavailable = sandbox::simulated_missing();
    unavailable.extend(remembered_missing(ctx));
    loop {
        let prepared = Prepared::new(&confinement.request, &unavailable);
        if confinement.mode == Mode::Required && !prepared.missing.is_empty() {
            return Err(required_error(&prepared.missing));
        }
        match start(Some(&prepared)) {
            Ok(value) => {
                let report = Report::new(
                    confinement.mode,
                    &confinement.request,
                    &prepared.layers,
                    &prepared.missing,
                    &confinement.lifted,
                    writable_display(ctx, confinement),
                );
                return Ok((value, report));
            }
            Err(SpawnError::Sandbox(failure)) => {
                let missing = Missing {
                    layer: failure.layer,
                    reason: failure.describe(),
                };
                if confinement.mode == Mode::Required || unavailable.iter().any(|m| m.layer == failure.layer)
                {
                    return Err(required_error(&[missing]));
                }
                if failure.is_lasting() {
                    remember_missing(ctx, &missing);
                }
                unavailable.push(missing);
            }
            Err(SpawnError::Io(err)) => return Err(ToolError::io("/bin/sh", "start", &err)),
        }
    }
}

fn required_error(missing: &[Missing]) -> ToolError {
    let missing: Vec<(&str, &str)> = missing
        .iter()
        .map(|m| (m.layer.as_str(), m.reason.as_str()))
        .collect();
    ToolError::sandbox_unavailable(&missing)
}

/// The writable roots as the model names them.
fn writable_display(ctx: &Context, confinement: &Confinement) -> Vec<String> {
    if !confinement.request.filesystem {
        return Vec::new();
    }
    let mut shown: Vec<String> = confinement
        .request
        .writable
        .iter()
        .map(|p| ctx.workspace.display(p))
        .collect();
    if let Some(tmp) = &confinement.tmpdir {
        shown.push(format!("{} ($TMPDIR)", ctx.workspace.display(tmp)));
    }
    shown
}

/// The notice, once per session, that commands run with less than the full sandbox.
pub fn weaker_notice(ctx: &Context, report: &Report) -> Option<Notice> {
    let unavailable = report.unavailable();
    if unavailable.is_empty() || !ctx.first_time(NOTICE_MARK) {
        return None;
    }
    Some(ShellNotice::WeakerSandbox { missing: unavailable }.into())
}

/// The request as it held: a protection whose layers were missing is taken out, so a stop is
/// only blamed on what really stood in the way.
pub fn held(request: &Request, report: &Report) -> Request {
    Request {
        filesystem: request.filesystem && report.filesystem.active,
        state: request.state && report.state.active,
        block_network: request.block_network && report.network.active,
        ..request.clone()
    }
}

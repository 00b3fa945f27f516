//! exec_shell: one `sh -c` command per call, in the session cwd, that remembers its cwd,
//! forgets its environment, never hangs, and asks before risk.
//!
//! The call is parse → gate → run → report: the command is classified ([`classify`]); network
//! and destructive commands pass the policy and approvals; the command runs in its own process
//! group ([`run`]) wrapped with the cwd sentinel ([`sentinel`]); the streams are capped
//! ([`output`]); the cwd is folded back; the files the session read most recently are probed
//! ([`probe`]).

pub mod confine;
pub mod output;
pub mod probe;
pub mod run;
pub mod secrets;
pub mod sentinel;
pub mod stopped;
pub mod tasks;

use std::path::Path;
use std::time::Duration;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use crate::error::ToolError;
use crate::net::{Decision, Policy};
use crate::notice::{ApprovalReason, ConfigNotice, Notice, SandboxHint, ShellNotice};
use crate::policy::{classify, scope};
use crate::session::approval::{ApprovalKind, ApprovalRequest};
use crate::session::context::Context;
use crate::tools::{Cap, Capability, DataField, ToolOutput, ToolSpec};
use classify::{Class, Classification};
use scope::Scope;
use sentinel::Sentinel;

pub const SPEC: ToolSpec = ToolSpec {
    name: "exec_shell",
    id: crate::tool_id::ToolId::ExecShell,
    alias: "shell",
    positional: Some("command"),
    capability: Capability::RunsCode,
    description: DESCRIPTION,
    schema: crate::tools::schema_of::<ExecShellArgs>,
    caps: &[TIMEOUT],
    data: &[
        DataField::always("class", "string"),
        DataField::always("cwd", "string"),
        DataField::always("sandbox", "object"),
        DataField::sometimes("exit_code", "integer|null"),
        DataField::sometimes("signal", "integer|null"),
        DataField::sometimes("stdout_lines", "integer"),
        DataField::sometimes("stdout_truncated", "boolean"),
        DataField::sometimes("stderr_lines", "integer"),
        DataField::sometimes("stderr_truncated", "boolean"),
        DataField::sometimes("background_holds_output", "boolean"),
        DataField::sometimes("background_stopped", "integer"),
        DataField::sometimes("task_id", "string"),
        DataField::sometimes("interactive", "boolean"),
        DataField::sometimes("status", "string"),
        DataField::sometimes("stdout_path", "string"),
        DataField::sometimes("stderr_path", "string"),
        DataField::sometimes("env_held_back", "array"),
        DataField::sometimes("approval", "object"),
    ],
    run: |args, ctx| run(crate::tools::parse("exec_shell", args, SPEC.schema)?, ctx),
};

const DESCRIPTION: &str = "Run a shell command (`sh -c`) in the session's working directory and get its exit code, stdout and stderr.
Use it to build, test, run programs and use git. Do not use it to look at files: use read_file instead of cat/head/tail/sed -n, grep_files instead of grep/rg, file_search instead of find/ls -R, list_dir instead of ls, edit_file/apply_patch instead of sed -i or echo >; those tools page, cap and track freshness.
What persists between calls: the working directory (a `cd` that stays inside the workspace is kept for the next call, if the command ran to its end). What does not: environment variables, shell variables, aliases and functions; each call is a fresh process, so set variables in the same command (`export X=1 && make`). stdin is empty and nothing may prompt (CI=true, PAGER=cat, GIT_EDITOR=true, TERM=dumb).
A non-zero exit is not an error: read data.exit_code. Output over about 200 lines per stream shows its head and tail, the summary lines of the middle (test results, errors, panics) and names a file with the whole stream. timeout_ms (default 120000, max 600000) kills the command and all its children. For servers, watchers and long builds use background=true: it returns a task_id at once; follow it with task_output, task_wait and task_cancel. For a program that asks for input (a REPL, a debugger, a prompt) add interactive=true: it runs on a terminal and task_input types into it.
Commands that need the network (curl, git fetch/pull/push/clone, cargo install, npm install, pip install, ...) follow the workspace's network policy, and destructive ones (deleting, overwriting, moving or re-permissioning files outside the workspace with rm, find -delete, chmod, mv, cp, sed -i or a > redirection; git push --force, mkfs, piping into a shell, eval) need the user's approval: the error gives the id to approve. To fetch a web page use fetch_url.
Commands run in a sandbox: they read everywhere but write only inside the workspace, trusted directories and their own $TMPDIR (use it instead of /tmp; mktemp and tempfile do), cannot change .codesmith/ or the git config and hooks, hold no root privilege, see no credentials in their environment, reach no daemon's socket, and open no network connection unless the workspace's network policy allows it. Everything a command starts ends with it (even `server &` or nohup): use background=true for servers. A command the sandbox stopped still returns its output, starting with a `Sandbox:` line that names what was stopped and data.approval: ask the user to approve that id instead of working around the sandbox.
Examples:
{\"command\": \"cargo test 2>&1\"}
{\"command\": \"cd crates/core && git log --oneline -5\"}
{\"command\": \"npm run dev\", \"background\": true}";

/// The default and the largest timeout, in milliseconds.
pub const DEFAULT_TIMEOUT_MS: u64 = 120_000;
pub const MAX_TIMEOUT_MS: u64 = 600_000;
/// timeout_ms: outside 1..=MAX_TIMEOUT_MS is refused (a foreign call's translation clamps it).
pub const TIMEOUT: Cap = Cap::new("timeout_ms", 1, MAX_TIMEOUT_MS);

fn default_timeout_ms() -> u64 {
    DEFAULT_TIMEOUT_MS
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExecShellArgs {
    /// The command line, run with `sh -c` in the session's working directory.
    pub command: String,
    /// Milliseconds before the command and all its children are killed, 1 to 600000.
    #[serde(default = "default_timeout_ms")]
    #[schemars(range(min = 1, max = 600000))]
    pub timeout_ms: u64,
    /// Run detached, return a task_id at once; follow with task_output/task_wait/task_cancel.
    #[serde(default)]
    pub background: bool,
    /// With background: run on a pseudo-terminal (the program sees a tty) and take input with task_input.
    #[serde(default)]
    pub interactive: bool,
}

/// Runs the command in the foreground, confined as planned, through the sentinel's script
/// (which reports its exit status and the cwd it ended in on stderr).
fn run_foreground(
    ctx: &Context,
    args: &ExecShellArgs,
    confinement: &confine::Confinement,
    sentinel: &Sentinel,
    cwd: &Path,
) -> Result<(run::Finished, crate::sandbox::Report), ToolError> {
    let script = sentinel.script();
    let env = confinement.env();
    let arguments = Sentinel::arguments(&args.command);
    confine::launch(ctx, confinement, |sandbox| {
        run::run(
            &run::Launch {
                script: &script,
                arguments: &arguments,
                cwd,
                env: &env,
                unset: &confinement.held_back,
                sandbox,
                reported_status: Some(&|stderr: &[u8]| sentinel.status(stderr)),
            },
            Duration::from_millis(args.timeout_ms),
        )
    })
}

pub fn run(args: ExecShellArgs, ctx: &mut Context) -> Result<ToolOutput, ToolError> {
    validate(&args)?;
    let classification = classify::classify(&args.command, &Scope::new(&ctx.workspace));
    let (policy, settings, policy_notes) = read_settings(ctx, &classification)?;
    if let Err(err) = gate(ctx, &args.command, &classification, &policy) {
        // A refusal is where a misread policy matters most: say so in the message.
        return crate::tools::with_notices(Err(err), policy_notes);
    }
    let network = policy.default_decision();
    if args.background {
        let start = tasks::Start {
            command: &args.command,
            class: classification.class,
            settings: &settings,
            network,
            interactive: args.interactive,
        };
        let started = tasks::start(ctx, &start);
        return crate::tools::with_notices(started, policy_notes);
    }
    let confinement = confine::plan(ctx, &settings, &args.command, network, None)?;
    let snapshot = snapshot_before(ctx, classification.class);
    let sentinel = Sentinel::new();
    let cwd_before = ctx.workspace.cwd().to_path_buf();
    let launched = run_foreground(ctx, &args, &confinement, &sentinel, &cwd_before);
    let history_notes = snapshot_after(ctx, snapshot, &args.command);
    let (mut finished, report) = launched?;
    finished.left_running = sentinel.left_running(&finished.stderr);
    let reported_cwd = sentinel.extract(&mut finished.stderr);
    // Relative names in the command's messages are most likely relative to where it ended.
    let messages_cwd = reported_cwd
        .as_ref()
        .and_then(|dir| dir.canonicalize().ok())
        .unwrap_or_else(|| cwd_before.clone());

    let mut notices = policy_notes;
    notices.extend(history_notes);
    let cwd_line = reported_cwd
        .filter(|_| !finished.timed_out)
        .and_then(|dir| fold_cwd(ctx, &dir, &cwd_before, &mut notices));
    let hint = sandbox_hint(
        ctx,
        &args.command,
        &finished,
        &confinement,
        &report,
        &messages_cwd,
        &cwd_before,
    );
    let mut rendered = render(
        ctx,
        &finished,
        &classification,
        &policy,
        cwd_line.as_deref(),
        hint.as_ref(),
    );
    rendered.data.insert("sandbox".into(), report.to_json());
    if !confinement.held_back.is_empty() {
        rendered
            .data
            .insert("env_held_back".into(), confinement.held_back.clone().into());
    }
    if let Some(approval) = hint.as_ref().and_then(|hint| hint.approval.clone()) {
        rendered.data.insert("approval".into(), approval);
    }
    notices.extend(confine::weaker_notice(ctx, &report));
    if finished.timed_out {
        return Err(ToolError::command_timed_out(
            args.timeout_ms,
            MAX_TIMEOUT_MS,
            &rendered.text,
            Value::Object(rendered.data),
        ));
    }
    if let Some(notice) = probe::probe(&ctx.state, &ctx.workspace) {
        notices.push(notice);
    }
    let mut out = ToolOutput::new(rendered.text);
    out.data = rendered.data;
    out.data
        .insert("cwd".into(), ctx.workspace.display(ctx.workspace.cwd()).into());
    out.notices = notices;
    Ok(out)
}

/// Refuses a command no shell can run, and a timeout out of range.
fn validate(args: &ExecShellArgs) -> Result<(), ToolError> {
    if args.command.trim().is_empty() {
        return Err(ToolError::empty_command());
    }
    if args.command.contains('\0') {
        return Err(ToolError::nul_in_command());
    }
    if args.interactive && !args.background {
        return Err(ToolError::interactive_needs_background(
            &crate::fs::workspace::quote_arg(&args.command),
        ));
    }
    if args.timeout_ms == 0 || args.timeout_ms > MAX_TIMEOUT_MS {
        return Err(ToolError::command_timeout_out_of_range(
            args.timeout_ms,
            MAX_TIMEOUT_MS,
        ));
    }
    Ok(())
}

/// The network policy and the `[shell]` settings, with the notices for what was read narrowly.
/// A command that needs the network must have the policy right; any other reads it (for the
/// sandbox's sockets) without letting a broken config.toml stop `ls`: a file that does not
/// parse grants nothing.
fn read_settings(
    ctx: &Context,
    classification: &Classification,
) -> Result<(Policy, confine::ShellSettings, Vec<Notice>), ToolError> {
    let needs_network = classification.reasons(Class::Network).is_some();
    let config = if needs_network {
        Some(ctx.config()?.clone())
    } else {
        ctx.config().ok().cloned()
    };
    let policy = config.as_ref().map(Policy::load).unwrap_or_default();
    let settings = confine::ShellSettings::load(config.as_ref(), ctx.workspace.root());
    let notes = policy
        .problems()
        .iter()
        .filter(|_| needs_network)
        .map(|problem| ConfigNotice::NetworkPolicyForShell {
            problem: problem.clone(),
        })
        .chain(
            settings
                .problems
                .iter()
                .map(|problem| ConfigNotice::ShellSettings {
                    problem: problem.clone(),
                }),
        )
        .map(Notice::from)
        .collect();
    Ok((policy, settings, notes))
}

/// Adopts the directory the command ended in as the session's cwd, when it lies inside; returns
/// the `cwd is now` line, and says in `notices` why a directory was not adopted.
fn fold_cwd(ctx: &mut Context, dir: &Path, cwd_before: &Path, notices: &mut Vec<Notice>) -> Option<String> {
    match dir.canonicalize() {
        Ok(canonical) if canonical.is_dir() && ctx.workspace.is_inside(&canonical) => {
            if canonical == cwd_before {
                return None;
            }
            // The command has run: a state that cannot be saved must not turn its result into a
            // failure (the model would run it again).
            match ctx.set_cwd(&canonical) {
                Ok(()) => Some(format!("cwd is now {}", ctx.workspace.display(&canonical))),
                Err(err) => {
                    ctx.workspace.set_cwd(cwd_before);
                    let notice = ShellNotice::CwdNotSaved {
                        ended: ctx.workspace.display(&canonical),
                        stays: ctx.workspace.display(cwd_before),
                        error: err.message(),
                    };
                    notices.push(notice.into());
                    None
                }
            }
        }
        _ => {
            let notice = ShellNotice::EndedOutside {
                ended: dir.display().to_string(),
                stays: ctx.workspace.display(cwd_before),
            };
            notices.push(notice.into());
            None
        }
    }
}

/// The `Sandbox:` lines for what the sandbox stopped and the git redirections removed.
fn sandbox_hint(
    ctx: &Context,
    command: &str,
    finished: &run::Finished,
    confinement: &confine::Confinement,
    report: &crate::sandbox::Report,
    messages_cwd: &Path,
    cwd_before: &Path,
) -> Option<stopped::Hint> {
    let scope = ctx.workspace.display(cwd_before);
    let (stdout, stderr) = (
        String::from_utf8_lossy(&finished.stdout),
        String::from_utf8_lossy(&finished.stderr),
    );
    let held = confine::held(&confinement.request, report);
    let stop = stopped::detect(&stdout, &stderr, messages_cwd, &held)
        .or_else(|| stopped::hidden_socket(command, &stdout, &stderr, messages_cwd, &held));
    let network = confinement.network;
    let hint = stop.map(|stop| stopped::hint(ctx, &stop.under_policy(network), command, &scope));
    let planted = confine::remove_planted(&confinement.watched, ctx.workspace.root());
    let removed = confinement
        .removed_before
        .clone()
        .into_iter()
        .chain(planted)
        .collect();
    stopped::Hint::with_lines_first(hint, removed)
}

/// The snapshot a checkpoint of the command starts from: none for a read-only command or with
/// `[history] shell = false`; `Err` holds the notice for a snapshot that could not be taken.
pub fn snapshot_before(
    ctx: &Context,
    class: Class,
) -> Option<Result<crate::session::history::shell::Before, Notice>> {
    if class == Class::ReadOnly || !crate::session::history::shell::enabled(ctx) {
        return None;
    }
    Some(crate::session::history::shell::before(ctx))
}

/// Records what the command changed since `snapshot`; the notices for the call.
fn snapshot_after(
    ctx: &Context,
    snapshot: Option<Result<crate::session::history::shell::Before, Notice>>,
    command: &str,
) -> Vec<Notice> {
    match snapshot {
        None => Vec::new(),
        Some(Err(not_recorded)) => vec![not_recorded],
        Some(Ok(before)) => crate::session::history::shell::after(ctx, before, "exec_shell", command),
    }
}

/// The policy and approvals in front of a run.
fn gate(
    ctx: &Context,
    command: &str,
    classification: &Classification,
    policy: &Policy,
) -> Result<(), ToolError> {
    let scope = ctx.workspace.display(ctx.workspace.cwd());
    let subject = command.to_string();
    if let Some(reason) = classification.reasons(Class::Network) {
        if policy.default_decision() == Decision::Deny {
            return Err(ToolError::command_network_denied(&reason));
        }
    }
    if let Some(reason) = classification.reasons(Class::Destructive) {
        ctx.require_approval(&ApprovalRequest {
            kind: ApprovalKind::Destructive,
            subject: subject.clone(),
            reason: ApprovalReason::Classified(reason),
            scope: scope.clone(),
        })?;
    }
    if let Some(reason) = classification.reasons(Class::Network) {
        if policy.default_decision() != Decision::Allow {
            ctx.require_approval(&ApprovalRequest {
                kind: ApprovalKind::Network,
                subject,
                reason: ApprovalReason::Classified(reason),
                scope,
            })?;
        }
    }
    Ok(())
}

pub struct Rendered {
    pub text: String,
    pub data: serde_json::Map<String, Value>,
}

/// The `exit code:` line.
fn exit_line(finished: &run::Finished) -> String {
    match (finished.exit_code(), finished.signal()) {
        _ if finished.timed_out => "exit code: none (killed at the timeout)\n".to_string(),
        (Some(code), Some(signal)) => format!("exit code: {code} (killed by signal {signal})\n"),
        (Some(code), None) => format!("exit code: {code}\n"),
        (None, _) => "exit code: unknown\n".to_string(),
    }
}

fn render(
    ctx: &Context,
    finished: &run::Finished,
    classification: &Classification,
    policy: &Policy,
    cwd_line: Option<&str>,
    hint: Option<&stopped::Hint>,
) -> Rendered {
    let stdout = output::clean(&finished.stdout);
    let stderr = output::clean(&finished.stderr);
    // The spill file is named from the session cwd, like every path the model may pass back.
    let spill =
        |stream: &'static str| move |text: &str| ctx.spill_for_call(&format!("exec_shell-{stream}"), text);
    let out = output::cap(&stdout, "stdout", spill("stdout"));
    let err = output::cap(&stderr, "stderr", spill("stderr"));
    let mut text = String::new();
    let failed = finished.exit_code() != Some(0);
    let needs_network = classification.reasons(Class::Network).is_some();
    if let Some(hint) = hint {
        text.push_str(&hint.text());
    } else if needs_network && failed && policy.default_decision() != Decision::Allow {
        if let Some(symptom) = blocked_network_symptom(&stdout, &stderr) {
            text.push_str(&SandboxHint::NetworkMayBeBlocked { symptom }.to_string());
            text.push('\n');
        }
    }
    text.push_str(&exit_line(finished));
    // With the exit code, before the streams, so it cannot be mistaken for the command's output.
    if let Some(line) = cwd_line {
        text.push_str(line);
        text.push('\n');
    }
    for (name, capped, dropped) in [
        ("stdout", &out, finished.dropped.0),
        ("stderr", &err, finished.dropped.1),
    ] {
        if capped.text.is_empty() {
            continue;
        }
        text.push_str(&format!("{name}:\n{}", capped.text));
        if !capped.text.ends_with('\n') {
            text.push_str("\n[no newline at end]\n");
        }
        if dropped > 0 {
            text.push_str(&format!(
                "[{dropped} more bytes of {name} were discarded past 64 MiB]\n"
            ));
        }
    }
    if out.text.is_empty() && err.text.is_empty() {
        text.push_str("(no output)\n");
    }
    if finished.pipes_held {
        text.push_str(
            "[the command exited but a process it started still holds its output; that process \
             keeps running and its later output is not shown. Start servers with background=true.]\n",
        );
    }
    if finished.left_running > 0 {
        let n = finished.left_running;
        let processes = if n == 1 { "process" } else { "processes" };
        text.push_str(&format!(
            "[the command left {n} {processes} running in the background; a command's processes \
             end with it, so they were stopped. Start servers with background=true.]\n"
        ));
    }
    let mut data = serde_json::Map::new();
    data.insert("exit_code".into(), finished.exit_code().into());
    data.insert("signal".into(), finished.signal().into());
    data.insert("class".into(), classification.class.as_str().into());
    for (name, capped) in [("stdout", &out), ("stderr", &err)] {
        data.insert(format!("{name}_lines"), capped.total_lines.into());
        data.insert(format!("{name}_truncated"), capped.truncated.into());
    }
    data.insert("background_holds_output".into(), finished.pipes_held.into());
    if finished.left_running > 0 {
        data.insert("background_stopped".into(), finished.left_running.into());
    }
    Rendered { text, data }
}

/// The text by which a command shows the network is blocked, if it does: the symptoms the
/// sandbox's hint reads, and a refused connection (a blocked proxy or firewall).
fn blocked_network_symptom(stdout: &str, stderr: &str) -> Option<&'static str> {
    stopped::network_symptom(stdout, stderr).or_else(|| {
        let refused = "Connection refused";
        (stderr.contains(refused) || stdout.contains(refused)).then_some(refused)
    })
}

//! Background tasks: `exec_shell` with `background=true`, and the three tools that follow one.
//! They live inside exec_shell's folder because they are its background mode: they start, confine
//! and report a command with exec_shell's own machinery.
//!
//! A task outlives the codesmith invocation that started it, so nothing about it lives in
//! memory: each task is a directory `.codesmith/tasks/<id>/` holding the command, the process
//! group id, the two output streams as files (kept within a cap by a capturing process of
//! their own, [`capture`]), the exit status (written by a small supervising shell when the
//! command ends), a `cancelled` mark, and the read cursor of `task_output`.
//!
//! The process is started in its own session (`setsid`), so it survives codesmith's exit and
//! its whole group can be killed by `task_cancel`. Ids are `task-1`, `task-2`, … in order of
//! creation within the workspace, so an output naming an id stays byte-stable for equal state.

/// The `data` fields of a task's state, which task_output, task_wait and task_input all
/// return, followed by a tool's own (`extra`).
macro_rules! task_state_data {
    ($($extra:expr),* $(,)?) => {
        &[
            DataField::always("task_id", "string"),
            DataField::always("status", "string"),
            DataField::always("finished", "boolean"),
            DataField::always("exit_code", "integer|null"),
            DataField::always("stdout_path", "string"),
            DataField::always("stderr_path", "string"),
            DataField::always("new_stdout_bytes", "integer"),
            DataField::always("new_stderr_bytes", "integer"),
            DataField::always("dropped_stdout_bytes", "integer"),
            DataField::always("dropped_stderr_bytes", "integer"),
            DataField::sometimes("approval", "object"),
            $($extra),*
        ]
    };
}

pub mod capture;
mod spool;
pub mod task_cancel;
pub mod task_input;
pub mod task_output;
pub mod task_wait;
pub mod terminal;

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::ToolError;
use crate::fs::atomic::{write_atomically, WriteOptions};
use crate::net::Decision;
use crate::notice::{Notice, ShellNotice};
use crate::policy::classify::Class;
use crate::session::context::Context;
use crate::tools::exec_shell::confine::{self, ShellSettings};
use crate::tools::exec_shell::{output, probe, run, stopped};
use crate::tools::ToolOutput;

/// The supervising script: runs the command (`$1`), then records its status in `$2`
/// (written to a temporary name and renamed, so a reader never sees half a number).
const SUPERVISOR: &str =
    "sh -c \"$1\" </dev/null; s=$?; printf '%s\\n' \"$s\" > \"$2.tmp\" && mv \"$2.tmp\" \"$2\"";

/// The supervising script of a task on a terminal: stdin stays the terminal. A Ctrl-C typed
/// there reaches the whole foreground group, the shells included: both handle SIGINT (a
/// handler, unlike an ignored signal, is reset for the programs they start), so the supervisor
/// lives to record the status and the command's shell reports the status of its program (a
/// REPL that caught the Ctrl-C and exited 0 later is not reported as interrupted). A script
/// goes on with its next command after the interrupted one.
const TERMINAL_SUPERVISOR: &str = "trap : INT; sh -c 'trap : INT; eval \"$1\"' sh \"$1\"; s=$?; \
     printf '%s\\n' \"$s\" > \"$2.tmp\" && mv \"$2.tmp\" \"$2\"";

/// The terminal type an interactive task is told (TERM=dumb would turn off line editing).
const TERMINAL_TYPE: &str = "xterm";

/// New output shown per stream per call is capped like exec_shell's streams.
fn tasks_dir(ctx: &Context) -> PathBuf {
    ctx.state.dir().join("tasks")
}

/// Where a task lives; refuses ids that are not `task-N`.
pub fn task_dir(ctx: &Context, id: &str) -> Result<PathBuf, ToolError> {
    let valid = id
        .strip_prefix("task-")
        .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()));
    let dir = tasks_dir(ctx).join(id);
    if !valid || !dir.join("pgid").is_file() {
        return Err(ToolError::unknown_task(id, &list(ctx)));
    }
    Ok(dir)
}

/// Every task id, in order of creation.
pub fn list(ctx: &Context) -> Vec<String> {
    let mut ids: Vec<(u64, String)> = fs::read_dir(tasks_dir(ctx))
        .map(|entries| {
            entries
                .filter_map(|e| e.ok())
                .filter_map(|e| {
                    let name = e.file_name().to_string_lossy().into_owned();
                    let n = name.strip_prefix("task-")?.parse::<u64>().ok()?;
                    Some((n, name))
                })
                .collect()
        })
        .unwrap_or_default();
    ids.sort();
    ids.into_iter().map(|(_, name)| name).collect()
}

/// How a task is started: its command, classification, settings, network decision, and
/// whether it runs on a terminal.
pub struct Start<'a> {
    pub command: &'a str,
    pub class: Class,
    pub settings: &'a ShellSettings,
    pub network: Decision,
    pub interactive: bool,
}

/// Starts relaying a terminal task's terminal into its capture; the task is killed when the
/// relay cannot start. The task's side of the terminal is closed here (the task holds it).
fn relay(
    (master, slave): (std::os::fd::OwnedFd, std::fs::File),
    stdout: &std::fs::File,
    dir: &std::path::Path,
    pid: i32,
) -> std::io::Result<()> {
    let relayed = terminal::start_relay(&master, stdout, dir);
    drop(slave);
    if relayed.is_err() {
        run::kill_group(pid, libc::SIGKILL);
    }
    relayed
}

/// Starts `command` detached in the session cwd, inside its sandbox, and returns at once.
pub fn start(ctx: &Context, start: &Start) -> Result<ToolOutput, ToolError> {
    let Start {
        command,
        class,
        settings,
        network,
        interactive,
    } = *start;
    let fail = |err: std::io::Error| ToolError::io(".codesmith/tasks", "create a task in", &err);
    ctx.state.ensure_dir().map_err(fail)?;
    fs::create_dir_all(tasks_dir(ctx)).map_err(fail)?;
    let (id, dir) = allocate(ctx).map_err(fail)?;
    fs::write(dir.join("command"), command).map_err(fail)?;
    let confinement = confine::plan(ctx, settings, command, network, Some(&dir))?;
    let mut snapshot_notes = Vec::new();
    match crate::tools::exec_shell::snapshot_before(ctx, class) {
        Some(Ok(before)) => fs::write(dir.join("snapshot"), before.tree).map_err(fail)?,
        Some(Err(not_recorded)) => snapshot_notes.push(not_recorded),
        None => {}
    }
    let mut env = confinement.env();
    let status_dir = dir.join(confine::TASK_STATUS_DIR);
    fs::create_dir_all(&status_dir).map_err(fail)?;
    let exit_path = status_dir.join("exit").to_string_lossy().into_owned();
    let arguments = ["codesmith-task", command, exit_path.as_str()];
    // A terminal task's relay writes what the terminal shows into the capturing process's
    // stdout pipe, so its output is kept within the same cap.
    let cap = capture::cap_from_env();
    let (stdout, stderr) = capture::start(&dir, cap).map_err(fail)?;
    let pty = match interactive {
        true => {
            env.push(("TERM", TERMINAL_TYPE.to_string()));
            Some(terminal::prepare(&dir).map_err(fail)?)
        }
        false => None,
    };
    let (pid, report) = confine::launch(ctx, &confinement, |sandbox| {
        let launch = run::Launch {
            script: if interactive {
                TERMINAL_SUPERVISOR
            } else {
                SUPERVISOR
            },
            arguments: &arguments,
            cwd: ctx.workspace.cwd(),
            env: &env,
            unset: &confinement.held_back,
            sandbox,
            reported_status: None,
        };
        match &pty {
            Some((_, slave)) => run::spawn_on_terminal(&launch, slave),
            None => run::spawn_detached(&launch, &stdout, &stderr),
        }
    })?;
    if let Some(pty) = pty {
        relay(pty, &stdout, &dir, pid).map_err(fail)?;
    }
    Confined::record(ctx, &dir, &confinement, network, &report);
    // The child is not waited for: it must outlive this process, and once we exit it is
    // reparented and reaped by init.
    fs::write(dir.join("pgid"), pid.to_string()).map_err(fail)?;
    let rel = format!(".codesmith/tasks/{id}");
    // Named from the session cwd, so a read_file or `cat` of it works as written.
    let shown = ctx.workspace.call_path_of(&rel);
    let text = started_text(&id, command, &shown, interactive, &mebibytes(cap));
    let mut out = ToolOutput::new(text);
    out.notices = snapshot_notes;
    if let Some(line) = &confinement.removed_before {
        out.notices.push(ShellNotice::Sandbox(line.clone()).into());
    }
    if !confinement.held_back.is_empty() {
        out = out.with("env_held_back", confinement.held_back.clone());
    }
    Ok(out
        .with("task_id", id.as_str())
        .with("interactive", interactive)
        .with("status", "running")
        .with("class", class.as_str())
        .with("stdout_path", format!("{rel}/stdout"))
        .with("stderr_path", format!("{rel}/stderr"))
        .with("cwd", ctx.workspace.display(ctx.workspace.cwd()))
        .with("sandbox", report.to_json()))
}

impl Confined {
    /// Keeps what the task in `dir` runs inside beside it (best effort: without it, later
    /// output is read without sandbox hints).
    fn record(
        ctx: &Context,
        dir: &Path,
        confinement: &confine::Confinement,
        network: Decision,
        report: &crate::sandbox::Report,
    ) {
        let record = Confined {
            watched: confinement.watched.clone(),
            network,
            scope: ctx.workspace.display(ctx.workspace.cwd()),
            cwd: ctx.workspace.cwd().to_path_buf(),
            request: confine::held(&confinement.request, report),
        };
        let _ = fs::write(
            dir.join("sandbox.json"),
            serde_json::to_vec(&record).unwrap_or_default(),
        );
    }
}

/// The first lines of a started task's result: where its output goes and the calls that
/// follow it.
fn started_text(id: &str, command: &str, shown: &str, interactive: bool, kept: &str) -> String {
    if interactive {
        return format!(
            "started {id} on a terminal: {command}\nIts output (stdout and stderr together, as a \
             terminal shows them) goes to {shown}/stdout (at most {kept} is kept: the first half and \
             the last half). Type into it with task_input with task_id=\"{id}\" and input=\"...\\n\"; \
             task_output, task_wait and task_cancel follow it.\n"
        );
    }
    format!(
        "started {id} in the background: {command}\nIts output goes to {shown}/stdout and \
         {shown}/stderr (at most {kept} of each is kept: the first half and the last half). Call \
         task_output with task_id=\"{id}\" to see new output, task_wait with task_id=\"{id}\" to \
         wait for it to end, task_cancel with task_id=\"{id}\" to stop it.\n"
    )
}

/// What a task ran inside, kept beside it so its output can be read for sandbox stops later.
#[derive(Debug, Serialize, Deserialize)]
struct Confined {
    /// Git redirections that did not exist when the task started (removed once it ended).
    #[serde(default)]
    watched: Vec<PathBuf>,
    /// The network policy's decision when the task started.
    network: Decision,
    /// The cwd as the approval ids scope it.
    scope: String,
    cwd: PathBuf,
    request: crate::sandbox::Request,
}

/// The hint for a stop the task's new output shows, if any; once it has ended, also the git
/// redirections it planted (removed).
fn stop_hint(
    ctx: &Context,
    dir: &Path,
    finished: bool,
    stdout: &[u8],
    stderr: &[u8],
) -> Option<stopped::Hint> {
    let record: Confined = serde_json::from_slice(&fs::read(dir.join("sandbox.json")).ok()?).ok()?;
    let planted = finished
        .then(|| confine::remove_planted(&record.watched, ctx.workspace.root()))
        .flatten();
    let command = fs::read_to_string(dir.join("command")).ok()?;
    stopped::Hint::with_lines_first(
        stop_hint_of(ctx, &record, &command, stdout, stderr),
        planted.into_iter().collect(),
    )
}

fn stop_hint_of(
    ctx: &Context,
    record: &Confined,
    command: &str,
    stdout: &[u8],
    stderr: &[u8],
) -> Option<stopped::Hint> {
    let (stdout, stderr) = (String::from_utf8_lossy(stdout), String::from_utf8_lossy(stderr));
    let stop = stopped::detect(&stdout, &stderr, &record.cwd, &record.request)
        .or_else(|| stopped::hidden_socket(command, &stdout, &stderr, &record.cwd, &record.request))?;
    Some(stopped::hint(
        ctx,
        &stop.under_policy(record.network),
        command,
        &record.scope,
    ))
}

/// Reserves the next `task-N` directory (`create_dir` is the atomic claim). Numbers are never
/// handed out twice, even after a task's directory was deleted (a detached process of the old
/// task may still write its exit status there): the highest number given so far is kept in
/// `tasks/last-id`.
fn allocate(ctx: &Context) -> std::io::Result<(String, PathBuf)> {
    let tasks = tasks_dir(ctx);
    fs::create_dir_all(&tasks)?;
    let _lock = crate::session::state::Lock::exclusive(&tasks.join("last-id.lock"))?;
    let last_given = fs::read_to_string(tasks.join("last-id"))
        .ok()
        .and_then(|text| text.trim().parse::<u64>().ok())
        .unwrap_or(0);
    let last_listed = list(ctx)
        .last()
        .and_then(|id| id.strip_prefix("task-")?.parse::<u64>().ok())
        .unwrap_or(0);
    let mut next = last_given.max(last_listed) + 1;
    loop {
        let id = format!("task-{next}");
        let dir = tasks.join(&id);
        match fs::create_dir(&dir) {
            Ok(()) => {
                write_atomically(
                    &tasks.join("last-id"),
                    next.to_string().as_bytes(),
                    WriteOptions::STATE_FILE,
                )?;
                return Ok((id, dir));
            }
            Err(err) if err.kind() == std::io::ErrorKind::AlreadyExists => next += 1,
            Err(err) => return Err(err),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Running,
    Exited(i32),
    Cancelled,
    /// The process group is gone without an exit status (killed from outside).
    Vanished,
}

impl Status {
    pub fn finished(self) -> bool {
        self != Status::Running
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Status::Running => "running",
            Status::Exited(_) => "exited",
            Status::Cancelled => "cancelled",
            Status::Vanished => "vanished",
        }
    }

    fn describe(self) -> String {
        match self {
            Status::Running => "running".to_string(),
            Status::Exited(code) => format!("exited with code {code}"),
            Status::Cancelled => "cancelled".to_string(),
            Status::Vanished => "ended without an exit status (killed from outside)".to_string(),
        }
    }
}

pub fn pgid(dir: &Path) -> i32 {
    fs::read_to_string(dir.join("pgid"))
        .ok()
        .and_then(|t| t.trim().parse().ok())
        .unwrap_or(0)
}

/// The exit status the supervising shell wrote. The status directory is writable by the task
/// itself, so the file is opened without following a link and read only as a number.
fn exit_code(dir: &Path) -> Option<i32> {
    use std::os::unix::fs::OpenOptionsExt;
    let mut file = fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(dir.join(confine::TASK_STATUS_DIR).join("exit"))
        .ok()?;
    if !file.metadata().ok()?.is_file() {
        return None;
    }
    let mut text = String::new();
    (&mut file).take(32).read_to_string(&mut text).ok()?;
    text.trim().parse().ok()
}

/// Whether any process of the group is alive. Zombies do not count: an orphan whose new
/// parent has not reaped it yet still answers `kill(pid, 0)`, but it runs nothing.
pub fn group_alive(pgid: i32) -> bool {
    if pgid <= 1 {
        return false;
    }
    let Ok(entries) = fs::read_dir("/proc") else {
        // SAFETY: signal 0 only checks for existence and permission.
        return unsafe { libc::kill(-pgid, 0) } == 0;
    };
    entries.filter_map(|e| e.ok()).any(|entry| {
        let name = entry.file_name();
        let Some(pid) = name.to_str().filter(|n| n.bytes().all(|b| b.is_ascii_digit())) else {
            return false;
        };
        let Ok(stat) = fs::read_to_string(format!("/proc/{pid}/stat")) else {
            return false;
        };
        // `pid (comm) state ppid pgrp ...`; comm may hold spaces and parentheses.
        let Some((_, rest)) = stat.rsplit_once(')') else {
            return false;
        };
        let mut fields = rest.split_whitespace();
        let state = fields.next().unwrap_or("Z");
        let pgrp = fields.nth(1).and_then(|f| f.parse::<i32>().ok());
        pgrp == Some(pgid) && state != "Z" && state != "X"
    })
}

pub fn status(dir: &Path) -> Status {
    if dir.join("cancelled").exists() {
        return Status::Cancelled;
    }
    // A task can write its own status file, so a status counts only once the supervising
    // shell (the group's leader, which writes it last) is gone: a running task cannot make
    // itself look finished.
    let pgid = pgid(dir);
    if !process_alive(pgid) {
        if let Some(code) = exit_code(dir) {
            return Status::Exited(code);
        }
    }
    if group_alive(pgid) {
        return Status::Running;
    }
    exit_code(dir).map_or(Status::Vanished, Status::Exited)
}

/// Whether process `pid` exists and is not a zombie.
fn process_alive(pid: i32) -> bool {
    if pid <= 1 {
        return false;
    }
    let Ok(stat) = fs::read_to_string(format!("/proc/{pid}/stat")) else {
        // No /proc entry: gone, or no /proc at all (signal 0 only checks for existence).
        // SAFETY: signal 0 sends nothing.
        return unsafe { libc::kill(pid, 0) } == 0;
    };
    let state = stat
        .rsplit_once(')')
        .and_then(|(_, rest)| rest.split_whitespace().next());
    !matches!(state, Some("Z") | Some("X") | None)
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct Cursor {
    stdout: u64,
    stderr: u64,
}

/// Records the checkpoint of a finished task, once: the first call to see it ended claims the
/// snapshot taken when it started (by renaming it) and compares the workspace with it now.
pub fn record_finished(ctx: &Context, dir: &Path) -> Vec<Notice> {
    let claimed = dir.join("snapshot.taken");
    if fs::rename(dir.join("snapshot"), &claimed).is_err() {
        return Vec::new();
    }
    let Ok(tree) = fs::read_to_string(&claimed) else {
        return Vec::new();
    };
    let command = fs::read_to_string(dir.join("command")).unwrap_or_default();
    let before = crate::session::history::shell::Before::from_tree(tree.trim().to_string());
    crate::session::history::shell::after(ctx, before, "exec_shell", &format!("{command} (background)"))
}

/// At most this much new output of one stream is read per call, as its first and last halves;
/// the report shows a head and a tail of it, and the rest stays in the task's files.
const READ_WINDOW: u64 = 4 * 1024 * 1024;

/// What the task wrote to stdout and stderr since the last call. The cursor is read, advanced
/// and saved under a lock, so parallel calls never hand out the same new output twice.
fn take_new_output(dir: &Path) -> [spool::NewOutput; 2] {
    let cursor_path = dir.join("cursor.json");
    let _lock = crate::session::state::Lock::exclusive(&dir.join("cursor.lock"));
    let mut cursor: Cursor = fs::read(&cursor_path)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default();
    let out = spool::read_since(dir, "stdout", cursor.stdout, READ_WINDOW);
    let err = spool::read_since(dir, "stderr", cursor.stderr, READ_WINDOW);
    cursor.stdout = out.end;
    cursor.stderr = err.end;
    let _ = write_atomically(
        &cursor_path,
        &serde_json::to_vec(&cursor).unwrap_or_default(),
        WriteOptions::STATE_FILE,
    );
    [out, err]
}

/// `n` bytes as a whole number of MiB or KiB, for the cap in messages.
fn mebibytes(n: u64) -> String {
    const MIB: u64 = 1024 * 1024;
    if n.is_multiple_of(MIB) {
        format!("{} MiB", n / MIB)
    } else {
        format!("{} KiB", n / 1024)
    }
}

/// The lines that say what the cap dropped from the new output, one per stream.
fn dropped_lines(dir: &Path, rel: &str, new: &[spool::NewOutput; 2]) -> String {
    let half = mebibytes(spool::cap_of(dir) / 2);
    let mut text = String::new();
    for (name, stream) in capture::STREAMS.iter().zip(new) {
        let (Some((from, _)), Some((_, to))) = (stream.dropped.first(), stream.dropped.last()) else {
            continue;
        };
        text.push_str(&format!(
            "{name}: {} bytes were dropped (between bytes {from} and {to} of the stream): a task keeps \
             the first {half} and the last {half} of each stream; {rel}/{name} holds the head and \
             {rel}/{name}.tail-* the tail.\n",
            stream.dropped_bytes()
        ));
    }
    text
}

/// Reads what the task wrote since the last call, moves the cursor, and renders the report.
pub fn report(
    ctx: &Context,
    id: &str,
    dir: &Path,
    status: Status,
    lead: &str,
) -> Result<ToolOutput, ToolError> {
    if status.finished() {
        spool::settle(dir, group_alive(pgid(dir)));
    }
    let new = take_new_output(dir);
    let rel = format!(".codesmith/tasks/{id}");
    let dropped = dropped_lines(dir, &rel, &new);
    let dropped_bytes = new.each_ref().map(spool::NewOutput::dropped_bytes);
    let [new_out, new_err] = new.map(|stream| stream.bytes);
    let spill = |stream: &'static str| move |text: &str| ctx.spill_for_call(&format!("task-{stream}"), text);
    let text_of = |bytes: &[u8]| match dir.join(terminal::MARK).exists() {
        true => crate::terminal::screen_text(&String::from_utf8_lossy(bytes)),
        false => output::clean(bytes),
    };
    let out = output::cap(&text_of(&new_out), "new stdout", spill("stdout"));
    let err = output::cap(&output::clean(&new_err), "new stderr", spill("stderr"));
    let hint = stop_hint(ctx, dir, status.finished(), &new_out, &new_err);
    let mut text = format!("{lead}{id}: {}\n", status.describe());
    if let Some(hint) = &hint {
        text.push_str(&hint.text());
    }
    text.push_str(&dropped);
    for (name, capped) in [("stdout", &out), ("stderr", &err)] {
        if !capped.text.is_empty() {
            text.push_str(&format!("{name} (new):\n{}", capped.text));
            if !capped.text.ends_with('\n') {
                text.push('\n');
            }
        }
    }
    if out.text.is_empty() && err.text.is_empty() {
        text.push_str("(no new output)\n");
    }
    if status == Status::Running {
        text.push_str(&format!(
            "Call task_output with task_id=\"{id}\" for more, task_wait with task_id=\"{id}\" to wait \
             for the end, or task_cancel with task_id=\"{id}\" to stop it. The output is kept in \
             {rel}/stdout and {rel}/stderr.\n"
        ));
    }
    let mut result = ToolOutput::new(text)
        .with("task_id", id)
        .with("status", status.as_str())
        .with("finished", status.finished())
        .with(
            "exit_code",
            match status {
                Status::Exited(code) => serde_json::Value::from(code),
                _ => serde_json::Value::Null,
            },
        )
        .with("stdout_path", format!("{rel}/stdout"))
        .with("stderr_path", format!("{rel}/stderr"))
        .with("new_stdout_bytes", new_out.len())
        .with("new_stderr_bytes", new_err.len())
        .with("dropped_stdout_bytes", dropped_bytes[0])
        .with("dropped_stderr_bytes", dropped_bytes[1]);
    if let Some(approval) = hint.and_then(|hint| hint.approval) {
        result = result.with("approval", approval);
    }
    if status.finished() {
        for notice in record_finished(ctx, dir) {
            result = result.notice(notice);
        }
        if let Some(notice) = probe::probe(&ctx.state, &ctx.workspace) {
            result = result.notice(notice);
        }
    }
    Ok(result)
}

//! task_input: text typed into a background task started on a terminal, and what it printed
//! in answer.
//!
//! A line typed into a shell is a command: when the task runs an interactive shell, each line
//! of the input is classified as exec_shell classifies a command, and passes the same network
//! policy and approvals, before anything is written. The sandbox the task started in holds
//! for everything it runs.

use std::time::Duration;

use schemars::JsonSchema;
use serde::Deserialize;

use super::terminal;
use crate::error::ToolError;
use crate::policy::classify;
use crate::policy::scope::Scope;
use crate::session::context::Context;
use crate::tools::{Cap, Capability, DataField, ToolOutput, ToolSpec};

/// wait_ms: how long to wait for the answer, 0..=30000.
const WAIT: Cap = Cap::new("wait_ms", 0, 30_000);
const DEFAULT_WAIT_MS: u64 = 500;

/// What Ctrl-D types: at the start of a line a terminal reads it as the end of input.
const END_OF_INPUT: &[u8] = b"\x04";

/// Programs that read commands when run without `-c`.
const SHELLS: &[&str] = &["sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "fish"];

pub const SPEC: ToolSpec = ToolSpec {
    name: "task_input",
    id: crate::tool_id::ToolId::TaskInput,
    alias: "task_input",
    positional: Some("task_id"),
    capability: Capability::RunsCode,
    description: DESCRIPTION,
    schema: crate::tools::schema_of::<TaskInputArgs>,
    caps: &[WAIT],
    data: task_state_data!(DataField::always("sent_bytes", "integer")),
    run: |args, ctx| run(crate::tools::parse("task_input", args, SPEC.schema)?, ctx),
};

const DESCRIPTION: &str = "Type input into a background task started with exec_shell with background=true and interactive=true (a program on a terminal: a REPL, a debugger, an installer's prompts), and get what it printed since the last look.
Include \\n to press Enter; control keys are characters: \\u0003 is Ctrl-C (interrupts the running command), \\u0004 is Ctrl-D (end of input), \\u001b is Escape. close_stdin=true types Ctrl-D after the input. It waits up to wait_ms (default 500, at most 30000) for the output to settle, then returns the new output and the status like task_output. Lines typed into a shell are checked like exec_shell commands and may need approval.
Use exec_shell for commands that need no input; use this only for programs that ask. Output is shown as the terminal shows it (colours and cursor moves removed).
Examples:
{\"task_id\": \"task-1\", \"input\": \"print(6 * 7)\\n\"}
{\"task_id\": \"task-2\", \"input\": \"y\\n\", \"wait_ms\": 2000}
{\"task_id\": \"task-1\", \"input\": \"\\u0003\"}";

fn default_wait_ms() -> u64 {
    DEFAULT_WAIT_MS
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TaskInputArgs {
    /// The id exec_shell returned for a task started with interactive=true, e.g. `task-1`.
    pub task_id: String,
    /// The text to type; include \n for Enter. May be empty, to read new output only.
    pub input: String,
    /// After the input, type Ctrl-D (end of input at the start of a line).
    #[serde(default)]
    pub close_stdin: bool,
    /// Milliseconds to wait for the output to settle (default 500, at most 30000).
    #[serde(default = "default_wait_ms")]
    pub wait_ms: u64,
}

pub fn run(args: TaskInputArgs, ctx: &mut Context) -> Result<ToolOutput, ToolError> {
    let dir = super::task_dir(ctx, &args.task_id)?;
    let command = std::fs::read_to_string(dir.join("command")).unwrap_or_default();
    if !dir.join(terminal::MARK).exists() {
        let quoted = crate::fs::workspace::quote_arg(&command);
        return Err(ToolError::task_not_interactive(&args.task_id, &quoted));
    }
    let status = super::status(&dir);
    if status.finished() {
        return Err(ToolError::task_ended(&args.task_id, status.as_str()));
    }
    if runs_a_shell(&command) {
        check_typed_commands(ctx, &args.input)?;
    }
    let mut notices = Vec::new();
    let wait = WAIT.hold(args.wait_ms, &mut notices);
    let mut bytes = args.input.as_bytes().to_vec();
    if args.close_stdin {
        bytes.extend_from_slice(END_OF_INPUT);
    }
    let fail = |err: std::io::Error| ToolError::task_input_unwritable(&args.task_id, &err);
    if !terminal::send(&dir, &bytes).map_err(fail)? {
        return Err(ToolError::task_ended(&args.task_id, super::status(&dir).as_str()));
    }
    terminal::settle(&dir, Duration::from_millis(wait), || {
        super::status(&dir).finished()
    });
    let status = super::status(&dir);
    let mut out = super::report(ctx, &args.task_id, &dir, status, "")?.with("sent_bytes", bytes.len());
    out.notices.splice(0..0, notices);
    Ok(out)
}

/// Whether the task's command is an interactive shell: a shell run without `-c`.
fn runs_a_shell(command: &str) -> bool {
    let mut words = command.split_whitespace();
    let program = words.next().unwrap_or_default();
    let name = program.rsplit('/').next().unwrap_or(program);
    SHELLS.contains(&name)
        && !words.any(|word| word.starts_with('-') && word.contains('c') && !word.starts_with("--"))
}

/// Each line typed into a shell, classified and gated as exec_shell gates a command.
fn check_typed_commands(ctx: &Context, input: &str) -> Result<(), ToolError> {
    let scope = Scope::new(&ctx.workspace);
    for line in input.split(['\n', '\r']) {
        let line: String = line.chars().filter(|c| !c.is_control()).collect();
        if line.trim().is_empty() {
            continue;
        }
        let classification = classify::classify(&line, &scope);
        let (policy, _, _) = super::super::read_settings(ctx, &classification)?;
        super::super::gate(ctx, &line, &classification, &policy)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::runs_a_shell;

    #[test]
    fn shells_are_told_from_other_programs() {
        assert!(runs_a_shell("bash"));
        assert!(runs_a_shell("/bin/sh -i"));
        assert!(runs_a_shell("bash --norc"));
        assert!(!runs_a_shell("bash -c 'read x'"));
        assert!(!runs_a_shell("python3 -i"));
        assert!(!runs_a_shell("sh -ec 'x'"));
    }
}

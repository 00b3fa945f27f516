//! task_cancel: stops a background task (or all of them) by killing its whole process group.

use std::time::{Duration, Instant};

use schemars::JsonSchema;
use serde::Deserialize;

use crate::error::ToolError;
use crate::session::context::Context;
use crate::tools::exec_shell::run::kill_group;
use crate::tools::{Capability, DataField, ToolOutput, ToolSpec};

use super::Status;

pub const SPEC: ToolSpec = ToolSpec {
    name: "task_cancel",
    id: crate::tool_id::ToolId::TaskCancel,
    alias: "task_cancel",
    positional: Some("task_id"),
    capability: Capability::RunsCode,
    description: DESCRIPTION,
    schema: crate::tools::schema_of::<TaskCancelArgs>,
    caps: &[],
    data: &[DataField::always("cancelled", "array")],
    run: |args, ctx| run(crate::tools::parse("task_cancel", args, SPEC.schema)?, ctx),
};

const DESCRIPTION: &str = "Stop a background task started with exec_shell and background=true: the task and every process it started in its process group get SIGTERM, and SIGKILL if they have not ended a second later. Pass all=true instead of task_id to stop every running task of the workspace.
A task that already ended is left as it is and reported with its exit code. The output it wrote stays in .codesmith/tasks/<task_id>/; task_output still shows what was not yet seen.
Examples:
{\"task_id\": \"task-1\"}
{\"all\": true}";

/// How long the group gets between SIGTERM and SIGKILL.
const TERM_GRACE: Duration = Duration::from_millis(1000);

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TaskCancelArgs {
    /// The id exec_shell returned, e.g. `task-1`.
    #[serde(default)]
    pub task_id: Option<String>,
    /// Stop every running task instead of one.
    #[serde(default)]
    pub all: bool,
}

pub fn run(args: TaskCancelArgs, ctx: &mut Context) -> Result<ToolOutput, ToolError> {
    let ids = match (&args.task_id, args.all) {
        (Some(id), false) => {
            super::task_dir(ctx, id)?;
            vec![id.clone()]
        }
        (None, true) => super::list(ctx),
        _ => return Err(ToolError::cancel_needs_one_target()),
    };
    let mut lines = Vec::new();
    let mut cancelled = Vec::new();
    let mut notices = Vec::new();
    for id in &ids {
        let dir = super::task_dir(ctx, id)?;
        let pgid = super::pgid(&dir);
        let status = super::status(&dir);
        // A task whose shell exited may have left children running in its group: stop those too.
        if status == Status::Running || (status.finished() && super::group_alive(pgid)) {
            if status == Status::Running {
                let _ = std::fs::write(dir.join("cancelled"), "");
            }
            stop_group(pgid);
            cancelled.push(id.clone());
            lines.push(format!("{id}: cancelled"));
        } else if !args.all {
            lines.push(format!(
                "{id}: already {}, nothing to stop",
                super::status(&dir).as_str()
            ));
        }
        if super::status(&dir).finished() {
            notices.extend(super::record_finished(ctx, &dir));
        }
    }
    if lines.is_empty() {
        lines.push("no task was running".to_string());
    }
    let mut out = ToolOutput::new(format!("{}\n", lines.join("\n"))).with("cancelled", cancelled);
    out.notices = notices;
    Ok(out)
}

/// SIGTERM, a grace period, then SIGKILL for whatever is left.
fn stop_group(pgid: i32) {
    if !kill_group(pgid, libc::SIGTERM) {
        return;
    }
    let deadline = Instant::now() + TERM_GRACE;
    while Instant::now() < deadline {
        if !super::group_alive(pgid) {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    kill_group(pgid, libc::SIGKILL);
}

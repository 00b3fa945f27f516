//! task_output: what a background task wrote since the last look, and whether it still runs.

use schemars::JsonSchema;
use serde::Deserialize;

use crate::error::ToolError;
use crate::session::context::Context;
use crate::tools::{Capability, DataField, ToolOutput, ToolSpec};

pub const SPEC: ToolSpec = ToolSpec {
    name: "task_output",
    id: crate::tool_id::ToolId::TaskOutput,
    alias: "task_output",
    positional: Some("task_id"),
    capability: Capability::ReadOnly,
    description: DESCRIPTION,
    schema: crate::tools::schema_of::<TaskOutputArgs>,
    caps: &[],
    data: task_state_data!(),
    run: |args, ctx| run(crate::tools::parse("task_output", args, SPEC.schema)?, ctx),
};

const DESCRIPTION: &str = "Show the output a background task (started with exec_shell and background=true) wrote since the last task_output or task_wait call, and its status: running, exited with its exit code, or cancelled.
It returns at once; to wait for the task to end use task_wait, to stop it use task_cancel. New output over about 200 lines per stream is shown as head and tail with the summary lines of the middle; the task's output stays in .codesmith/tasks/<task_id>/stdout and stderr (read them with read_file), at most 64 MiB of each: the first 32 MiB and the last 32 MiB (in stdout.tail-* and stderr.tail-*), with a line saying how many bytes were dropped between them. When a finished task is seen, files this session has read are checked for changes.
Examples:
{\"task_id\": \"task-1\"}";

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TaskOutputArgs {
    /// The id exec_shell returned, e.g. `task-1`.
    pub task_id: String,
}

pub fn run(args: TaskOutputArgs, ctx: &mut Context) -> Result<ToolOutput, ToolError> {
    let dir = super::task_dir(ctx, &args.task_id)?;
    let status = super::status(&dir);
    super::report(ctx, &args.task_id, &dir, status, "")
}

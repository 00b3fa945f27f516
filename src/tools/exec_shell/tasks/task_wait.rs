//! task_wait: waits for a background task to end, at most `timeout_ms`.

use std::time::{Duration, Instant};

use schemars::JsonSchema;
use serde::Deserialize;

use crate::error::ToolError;
use crate::session::context::Context;
use crate::tools::exec_shell::MAX_TIMEOUT_MS;
use crate::tools::{Cap, Capability, DataField, ToolOutput, ToolSpec};

pub const SPEC: ToolSpec = ToolSpec {
    name: "task_wait",
    id: crate::tool_id::ToolId::TaskWait,
    alias: "task_wait",
    positional: Some("task_id"),
    capability: Capability::ReadOnly,
    description: DESCRIPTION,
    schema: crate::tools::schema_of::<TaskWaitArgs>,
    caps: &[TIMEOUT],
    data: task_state_data!(),
    run: |args, ctx| run(crate::tools::parse("task_wait", args, SPEC.schema)?, ctx),
};

const DESCRIPTION: &str = "Wait until a background task (started with exec_shell and background=true) ends, or timeout_ms passes, then show its status and the output it wrote since the last task_output or task_wait call.
A task still running at the timeout is not an error and is not stopped: the result says `running` (data.finished=false); call task_wait again, or task_cancel to stop it. Use task_output to look without waiting.
Examples:
{\"task_id\": \"task-1\"}
{\"task_id\": \"task-2\", \"timeout_ms\": 300000}";

/// How long task_wait waits by default, in milliseconds.
pub const DEFAULT_WAIT_MS: u64 = 30_000;
const POLL: Duration = Duration::from_millis(25);

fn default_wait_ms() -> u64 {
    DEFAULT_WAIT_MS
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TaskWaitArgs {
    /// The id exec_shell returned, e.g. `task-1`.
    pub task_id: String,
    /// The longest wait in milliseconds, 0 to 600000 (default 30000).
    #[serde(default = "default_wait_ms")]
    #[schemars(range(max = 600000))]
    pub timeout_ms: u64,
}

/// timeout_ms: over MAX_TIMEOUT_MS is refused.
const TIMEOUT: Cap = Cap::new("timeout_ms", 0, MAX_TIMEOUT_MS);

pub fn run(args: TaskWaitArgs, ctx: &mut Context) -> Result<ToolOutput, ToolError> {
    if args.timeout_ms > MAX_TIMEOUT_MS {
        return Err(ToolError::wait_too_long(
            args.timeout_ms,
            MAX_TIMEOUT_MS,
            &args.task_id,
        ));
    }
    let dir = super::task_dir(ctx, &args.task_id)?;
    let deadline = Instant::now() + Duration::from_millis(args.timeout_ms);
    let mut status = super::status(&dir);
    while !status.finished() && Instant::now() < deadline && !crate::session::cancel::requested() {
        std::thread::sleep(POLL.min(deadline.saturating_duration_since(Instant::now())));
        status = super::status(&dir);
    }
    let lead = if status.finished() {
        String::new()
    } else {
        format!("still running after {} ms: ", args.timeout_ms)
    };
    super::report(ctx, &args.task_id, &dir, status, &lead)
}

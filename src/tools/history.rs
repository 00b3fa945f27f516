//! history: the session's checkpoints, newest first, with the paths each changed.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

use crate::error::ToolError;
use crate::session::context::Context;
use crate::session::history;
use crate::tools::{Cap, Capability, DataField, ToolOutput, ToolSpec};

pub const SPEC: ToolSpec = ToolSpec {
    name: "history",
    id: crate::tool_id::ToolId::History,
    alias: "history",
    positional: None,
    capability: Capability::ReadOnly,
    description: DESCRIPTION,
    schema: crate::tools::schema_of::<HistoryArgs>,
    caps: &[LIMIT],
    data: &[
        DataField::always("session", "string"),
        DataField::always("checkpoints", "array"),
        DataField::always("total", "integer"),
    ],
    run: |args, ctx| run(crate::tools::parse("history", args, SPEC.schema)?, ctx),
};

const DESCRIPTION: &str = "List the checkpoints of this session, newest first: id, tool, a one-line summary and the paths each changed (created, modified, deleted).
Every call that changed files through codesmith (write_file, edit_file, apply_patch, exec_shell commands that are not read-only, undo) has one. Use it to find the id to pass to undo (id=ID reverts one checkpoint, to=ID rewinds the session to just before it).
Examples:
{}
{\"limit\": 5}";

fn default_limit() -> u64 {
    20
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HistoryArgs {
    /// How many checkpoints to list, newest first (1 to 1000).
    #[serde(default = "default_limit")]
    #[schemars(range(min = 1, max = 1000))]
    pub limit: u64,
}

/// limit: held inside 1..=1000 without a notice (the output says how many are not shown).
const LIMIT: Cap = Cap::new("limit", 1, 1000);

/// Paths listed per checkpoint before the rest is counted.
const PATHS_SHOWN: usize = 10;

pub fn run(args: HistoryArgs, ctx: &mut Context) -> Result<ToolOutput, ToolError> {
    let session = ctx.state.session_name().to_string();
    let checkpoints = history::list(&ctx.state, Some(&session));
    let limit = args.limit.clamp(LIMIT.min, LIMIT.max) as usize;
    let mut lines = Vec::new();
    let mut items = Vec::new();
    for checkpoint in checkpoints.iter().rev().take(limit) {
        lines.push(format!(
            "{}  {}  {}",
            checkpoint.id, checkpoint.tool, checkpoint.summary
        ));
        for entry in checkpoint.entries.iter().take(PATHS_SHOWN) {
            lines.push(format!("    {} {}", entry.kind(), entry.path));
        }
        if checkpoint.entries.len() > PATHS_SHOWN {
            lines.push(format!(
                "    … and {} more paths",
                checkpoint.entries.len() - PATHS_SHOWN
            ));
        }
        for notice in &checkpoint.notices {
            lines.push(format!("    note: {notice}"));
        }
        items.push(json!({
            "id": checkpoint.id,
            "tool": checkpoint.tool,
            "time": checkpoint.time,
            "summary": checkpoint.summary,
            "undoes": checkpoint.undoes,
            "paths": checkpoint.entries.iter().map(|e| json!({"path": e.path, "change": e.kind()})).collect::<Vec<_>>(),
        }));
    }
    let output = if lines.is_empty() {
        format!("Session `{session}` has no checkpoints: no call of it has changed files through codesmith.")
    } else {
        let more = checkpoints.len().saturating_sub(limit);
        if more > 0 {
            lines.push(format!(
                "{more} older checkpoints not shown; call history with limit={}.",
                checkpoints.len().min(1000)
            ));
        }
        format!(
            "Checkpoints of session `{session}`, newest first (undo id=ID reverts one, to=ID rewinds to before it):\n{}",
            lines.join("\n")
        )
    };
    Ok(ToolOutput::new(output)
        .with("session", session)
        .with("checkpoints", items)
        .with("total", checkpoints.len()))
}

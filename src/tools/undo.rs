//! undo: revert the newest checkpoint of the session, a given one, or every one back to a given
//! one, without clobbering changes made since (see `history::restore`).

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

use crate::error::{ChangedBy, Conflict, ToolError};
use crate::session::context::Context;
use crate::session::history::restore::{self, Found, Step};
use crate::session::history::{self, Checkpoint};
use crate::tools::{Capability, DataField, ToolOutput, ToolSpec};

pub const SPEC: ToolSpec = ToolSpec {
    name: "undo",
    id: crate::tool_id::ToolId::Undo,
    alias: "undo",
    positional: Some("id"),
    capability: Capability::WritesFiles,
    description: DESCRIPTION,
    schema: crate::tools::schema_of::<UndoArgs>,
    caps: &[],
    data: &[
        DataField::always("undone", "array"),
        DataField::always("checkpoint", "integer"),
        DataField::always("paths", "array"),
        DataField::always("unchanged", "array"),
    ],
    run: |args, ctx| run(crate::tools::parse("undo", args, SPEC.schema)?, ctx),
};

const DESCRIPTION: &str = "Take back a change made through codesmith: by default the newest checkpoint of this session.
Every call that changes files records a checkpoint first: write_file, edit_file, apply_patch, exec_shell commands that are not read-only (background tasks when they end) and undo itself. A checkpoint holds each changed path's content and permissions before (and the hash of what it wrote); a created file is removed by undo and a deleted one comes back. Use this instead of reverting by hand with edit_file or git checkout. List checkpoints with history.
Undo never clobbers: every path must still be exactly as the checkpoint left it. If someone changed a path since, nothing is restored and the error names each path and what changed; then ask the user, and only on their word pass force=true, which overwrites those changes. A path already back in its old state is left alone. Restores are atomic per file and all or nothing, and refresh this session's read records, so the files can be edited at once. Undo is itself a checkpoint: calling undo again right after an undo redoes the change. Checkpoints are kept up to [history] max_checkpoints (default 1000) and max_bytes (default 512 MiB); the oldest go first.
Examples:
{}
{\"id\": \"12\"}
{\"to\": \"9\"}";

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UndoArgs {
    /// The checkpoint to revert (from history); default: the newest of this session.
    #[serde(default)]
    pub id: Option<String>,
    /// Rewind the session to just before this checkpoint, reverting it and every later one of the session, all or nothing.
    #[serde(default)]
    pub to: Option<String>,
    /// Restore even paths someone changed since the checkpoint, overwriting those changes.
    #[serde(default)]
    pub force: bool,
}

pub fn run(args: UndoArgs, ctx: &mut Context) -> Result<ToolOutput, ToolError> {
    let chosen = choose(ctx, &args)?;
    let targets = restore::targets(ctx, &chosen)?;
    // Every path is locked in sorted order, as apply_patch does, before it is inspected, so no
    // edit through codesmith runs between the check and the restore.
    let mut paths: Vec<crate::fs::workspace::WsPath> = targets
        .iter()
        .map(|t| crate::fs::workspace::WsPath {
            abs: t.abs.clone(),
            display: t.path.clone(),
            call: String::new(),
            roots: ctx.workspace.roots().clone(),
        })
        .collect();
    paths.sort_by(|a, b| a.abs.cmp(&b.abs));
    let _locks = paths
        .iter()
        .map(|p| crate::tools::file_change::lock(&ctx.state, p))
        .collect::<Result<Vec<_>, _>>()?;
    let mut steps = Vec::new();
    let mut conflicts = Vec::new();
    let mut already = Vec::new();
    let removed: Vec<std::path::PathBuf> = targets
        .iter()
        .filter(|t| t.restore.is_none())
        .map(|t| t.abs.clone())
        .collect();
    for target in targets {
        match restore::inspect(&target, ctx.workspace.roots(), &removed) {
            Found::AsLeft(current) => steps.push(Step {
                target,
                current,
                bytes: None,
            }),
            Found::AlreadyRestored => already.push(target.path),
            Found::Changed(current, change) => {
                conflicts.push(Conflict {
                    path: target.path.clone(),
                    change,
                    by: None,
                });
                steps.push(Step {
                    target,
                    current,
                    bytes: None,
                });
            }
        }
    }
    let ids: Vec<u64> = chosen.iter().map(|c| c.id).collect();
    if !conflicts.is_empty() && !args.force {
        name_later_changes(ctx, &ids, &mut conflicts);
        return Err(clobber_error(&args, &ids, &conflicts));
    }
    if steps.is_empty() {
        return Err(ToolError::nothing_to_undo(&list(&ids)));
    }
    restore::load_blobs(ctx, &mut steps)?;
    let summary = match (&args.to, ids.as_slice()) {
        (Some(_), _) => format!("undo --to {}", ids.last().copied().unwrap_or(0)),
        (None, [id]) => format!("undo {id}: {}", chosen[0].summary),
        _ => format!("undo {}", list(&ids)),
    };
    let recorded = history::record_undo(
        &ctx.state,
        "undo",
        &summary,
        &restore::changes(&steps),
        Vec::new(),
        ids.clone(),
    )?;
    let id = recorded.id;
    if let Err(err) = restore::apply(ctx, &steps) {
        recorded.discard();
        return Err(err);
    }
    Ok(report(&steps, &already, &ids, id, !conflicts.is_empty()))
}

/// Adds to each conflict the later checkpoint that changed the path, if one did: then the way
/// out is to revert that one too, not to force.
fn name_later_changes(ctx: &Context, ids: &[u64], conflicts: &mut [Conflict]) {
    let newest = ids.iter().copied().max().unwrap_or(0);
    let later: Vec<Checkpoint> = history::list(&ctx.state, None)
        .into_iter()
        .filter(|c| c.id > newest)
        .collect();
    for conflict in conflicts.iter_mut() {
        let by = later
            .iter()
            .rev()
            .find(|c| c.entries.iter().any(|e| e.path == conflict.path));
        conflict.by = by.map(|by| ChangedBy {
            id: by.id,
            summary: by.summary.clone(),
            session: by.session.clone(),
            tool: by.tool.clone(),
        });
    }
}

fn list(ids: &[u64]) -> String {
    ids.iter().map(u64::to_string).collect::<Vec<_>>().join(", ")
}

/// The checkpoints to revert, newest first.
fn choose(ctx: &Context, args: &UndoArgs) -> Result<Vec<Checkpoint>, ToolError> {
    let session = ctx.state.session_name();
    match (&args.id, &args.to) {
        (Some(_), Some(_)) => Err(ToolError::undo_id_and_to()),
        (Some(id), None) => {
            let id = parse_id("id", id)?;
            history::find(&ctx.state, id)
                .map(|c| vec![c])
                .ok_or_else(|| unknown(id))
        }
        (None, Some(to)) => {
            let to = parse_id("to", to)?;
            let listed = history::list(&ctx.state, Some(session));
            if !listed.iter().any(|c| c.id == to) {
                return Err(unknown(to).with(crate::error::Field::Session, session));
            }
            let mut chosen: Vec<Checkpoint> = listed.into_iter().filter(|c| c.id >= to).collect();
            chosen.reverse();
            Ok(chosen)
        }
        (None, None) => history::list(&ctx.state, Some(session))
            .pop()
            .map(|c| vec![c])
            .ok_or_else(|| ToolError::no_checkpoint(session)),
    }
}

fn parse_id(field: &str, text: &str) -> Result<u64, ToolError> {
    text.trim()
        .trim_start_matches('#')
        .parse()
        .map_err(|_| ToolError::bad_checkpoint_id(field, text))
}

fn unknown(id: u64) -> ToolError {
    ToolError::unknown_checkpoint(id)
}

fn clobber_error(args: &UndoArgs, ids: &[u64], conflicts: &[Conflict]) -> ToolError {
    let first = ids.first().copied().unwrap_or(0).to_string();
    let retry = match (&args.id, &args.to) {
        (_, Some(to)) => ("to", to.as_str()),
        (Some(id), _) => ("id", id.as_str()),
        _ => ("id", first.as_str()),
    };
    ToolError::undo_would_clobber(ids, conflicts, retry)
}

fn report(steps: &[Step], already: &[String], ids: &[u64], checkpoint: u64, forced: bool) -> ToolOutput {
    let mut lines = vec![format!(
        "Undid checkpoint{} {}: {} path{} restored.",
        if ids.len() == 1 { "" } else { "s" },
        list(ids),
        steps.len(),
        if steps.len() == 1 { "" } else { "s" }
    )];
    let mut paths = Vec::new();
    for step in steps {
        let action = match (&step.current, &step.target.restore) {
            (_, None) => "removed",
            (None, Some(_)) => "recreated",
            (Some(_), Some(_)) => "restored",
        };
        lines.push(format!("- `{}`: {action}", step.target.path));
        paths.push(json!({"path": step.target.path, "action": action}));
    }
    for path in already {
        lines.push(format!("- `{path}`: already as before, left alone"));
    }
    if forced {
        lines.push("Changes made since the checkpoint were overwritten (force).".to_string());
    }
    lines.push("This undo is a checkpoint too: call undo again to redo the change.".to_string());
    ToolOutput::new(lines.join("\n"))
        .with("undone", ids.to_vec())
        .with("checkpoint", checkpoint)
        .with("paths", paths)
        .with("unchanged", already.to_vec())
}

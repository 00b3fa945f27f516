//! The freshness gate for every file of a patch at once. Planning meets the files one by one
//! and stops at the first that was not read (or changed since); a caller fixing that one file
//! would then hit the next on the following call. So before planning, every file the patch
//! reads is checked, and when more than one needs a read_file call, one error names them all.
//! A dry run writes nothing and needs no read; its result names the reads applying will need.

use std::collections::HashSet;
use std::fs;

use crate::error::{ErrorCode, ToolError};
use crate::fs::workspace::WsPath;
use crate::notice::{FileNotice, Notice};
use crate::session::context::Context;
use crate::session::freshness;

use super::model::{FilePatch, Op};

/// `Ok` when at most one file needs a read (planning then reports it, with its patch line);
/// otherwise an error with the first problem's code listing every file and its read_file call.
pub(super) fn check_all(ctx: &Context, files: &[FilePatch]) -> Result<(), ToolError> {
    // With one file to check, planning's own gate reports it (with its patch line), so the
    // content of a large file is not hashed twice.
    let candidates = files
        .iter()
        .filter(|f| (f.op != Op::Add || f.replaces) && !f.symlink)
        .map(|f| f.path.as_str())
        .collect::<HashSet<_>>();
    if candidates.len() < 2 {
        return Ok(());
    }
    let problems = needing_a_read(ctx, files);
    if problems.len() < 2 {
        return Ok(());
    }
    let files: Vec<(&str, String, bool)> = problems
        .iter()
        .map(|(path, code)| (path.display.as_str(), path.call_arg(), *code == ErrorCode::Stale))
        .collect();
    Err(ToolError::patch_files_unread(&files))
}

/// For a dry run, which writes nothing and so needs no read: the notice naming the files that
/// applying the patch will need read first, if any.
pub(super) fn preview_notice(ctx: &Context, files: &[FilePatch]) -> Option<Notice> {
    let call_args: Vec<String> = needing_a_read(ctx, files)
        .iter()
        .map(|(path, _)| path.call_arg())
        .collect();
    (!call_args.is_empty()).then(|| FileNotice::PatchNeedsReads { call_args }.into())
}

/// The existing files the patch changes that this session has not read, or that changed since
/// it read them, with which of the two.
fn needing_a_read(ctx: &Context, files: &[FilePatch]) -> Vec<(WsPath, ErrorCode)> {
    let mut seen = HashSet::new();
    let mut problems: Vec<(WsPath, ErrorCode)> = Vec::new();
    for file in files {
        if (file.op == Op::Add && !file.replaces) || file.symlink {
            continue;
        }
        // A symlink the patch deletes or renames is acted on as a link (no read needed), and a
        // path that does not resolve or does not exist is planning's to report.
        let given = ctx.workspace.cwd().join(&file.path);
        if fs::symlink_metadata(&given).is_ok_and(|m| m.file_type().is_symlink()) {
            continue;
        }
        let Ok(path) = ctx.resolve_for_write(&file.path) else {
            continue;
        };
        if !fs::metadata(&path.abs).is_ok_and(|m| m.is_file()) || !seen.insert(path.abs.clone()) {
            continue;
        }
        if let Err(err) = freshness::check(&ctx.state, &path, ctx.tool) {
            if matches!(err.code(), ErrorCode::NotRead | ErrorCode::Stale) {
                problems.push((path, err.code()));
            }
        }
    }
    problems
}

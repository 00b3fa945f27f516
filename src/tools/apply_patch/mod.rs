//! apply_patch: unified diffs and the `*** Begin Patch` format, located with fuzz, applied all
//! or nothing.
//!
//! parse (`unified`, `begin_patch`) → plan every file (`transaction::plan`: boundary,
//! freshness (`fresh` first checks every file at once), `apply` with `locate`, syntax gate; `links` for deleting and renaming symlinks)
//! → write (`commit`).

mod apply;
mod begin_patch;
mod commit;
mod fresh;
mod links;
mod locate;
mod model;
mod transaction;
mod unified;

use std::fmt::Write as _;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use crate::error::ToolError;
use crate::session::context::Context;
use crate::tools::{Capability, DataField, ToolOutput, ToolSpec};
use model::{FilePatch, Format, ParseError};

pub const SPEC: ToolSpec = ToolSpec {
    name: "apply_patch",
    id: crate::tool_id::ToolId::ApplyPatch,
    alias: "patch",
    positional: Some("patch"),
    capability: Capability::WritesFiles,
    description: DESCRIPTION,
    schema: crate::tools::schema_of::<ApplyPatchArgs>,
    caps: &[],
    data: &[
        DataField::always("format", "string"),
        DataField::always("dry_run", "boolean"),
        DataField::always("files", "array"),
        DataField::always("hunks_applied", "integer"),
        DataField::always("fuzz", "string|null"),
        DataField::always("diff", "string"),
    ],
    run: |args, ctx| run(crate::tools::parse("apply_patch", args, SPEC.schema)?, ctx),
};

const DESCRIPTION: &str = "Apply a patch to one or more files: a unified diff (as `git diff` or `diff -u` print it) or the `*** Begin Patch` format.
Use this for changes spanning several places or files, and instead of `git apply`, `patch` or heredocs in exec_shell; for one small replacement edit_file is simpler. Unified diffs may hold several files and hunks, `a/` `b/` prefixes, /dev/null for new and deleted files, and git's rename, copy and mode headers (symlink and submodule modes are refused; deleting or renaming a symlink acts on the link, not its target); hunk line counts must match the body. `*** Begin Patch` takes `*** Add File:` (every line `+`; over a file this session read, it replaces the file whole, as write_file does), `*** Delete File:`, `*** Update File:` with optional `*** Move to:`, chunks headed by `@@` or `@@ <line above the change>`, and `*** End of File`.
Every existing file the patch touches must have been read with read_file (and not changed since). Hunks are found near their stated line even if the file drifted (up to 50 lines), forgiving whitespace and typographic punctuation but never ambiguity. All or nothing: if any hunk fails, nothing is written and the error shows the expected and the actual text. Line endings, BOM and encoding are kept. dry_run=true shows the result without writing (and needs no prior read).
Examples:
{\"patch\": \"*** Begin Patch\\n*** Update File: src/app.py\\n@@ def greet():\\n-    print(\\\"hi\\\")\\n+    print(\\\"hello\\\")\\n*** Add File: NOTES.md\\n+# Notes\\n*** End Patch\"}
{\"patch\": \"--- a/src/lib.rs\\n+++ b/src/lib.rs\\n@@ -1,3 +1,3 @@\\n fn main() {\\n-    run(1);\\n+    run(2);\\n }\\n\"}
{\"patch\": \"...\", \"dry_run\": true}";

/// The longest patch accepted, in bytes.
pub const MAX_PATCH_BYTES: usize = 64 * 1024 * 1024;

/// The diff shown in `output` is cut (at a line, with a note) past this many bytes; `data.diff`
/// always holds all of it. A model gains nothing from a thousand hunks it just wrote.
const MAX_OUTPUT_DIFF_BYTES: usize = 40_000;

/// How many per-hunk fuzz notes the output lists before summarizing the rest.
const MAX_FUZZ_NOTES: usize = 10;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ApplyPatchArgs {
    /// The patch text: a unified diff (`git diff`, `diff -u`) or a `*** Begin Patch` … `*** End Patch` block.
    pub patch: String,
    /// Compute and show the result without writing anything.
    #[serde(default)]
    pub dry_run: bool,
}

pub fn run(args: ApplyPatchArgs, ctx: &mut Context) -> Result<ToolOutput, ToolError> {
    if args.patch.trim().is_empty() {
        return Err(ToolError::empty_patch());
    }
    if args.patch.len() > MAX_PATCH_BYTES {
        return Err(ToolError::patch_too_large(args.patch.len(), MAX_PATCH_BYTES));
    }
    let (format, files) = parse(ctx, &args.patch)?;
    let _locks = lock_all(ctx, &files)?;
    if !args.dry_run {
        fresh::check_all(ctx, &files)?;
    }
    let mut plan = transaction::plan(ctx, &files, args.dry_run)?;
    let reports: Vec<Value> = plan.reports.iter().map(|r| r.to_json()).collect();
    let hunks_applied: usize = plan.reports.iter().map(|r| r.hunks.len()).sum();
    let fuzz = plan.reports.iter().filter_map(|r| r.fuzz()).max();
    let summary = summary(&plan.reports, args.dry_run);
    let diff = std::mem::take(&mut plan.diff);
    if !args.dry_run {
        commit::commit(ctx, plan.steps)?;
    }
    let mut output = if diff.is_empty() {
        summary
    } else {
        format!("{summary}\n{}", shown_diff(&crate::fs::diff::abbreviate(&diff)))
    };
    output.truncate(output.trim_end().len());
    let mut result = ToolOutput::new(output);
    result.notices = std::mem::take(&mut plan.notices);
    if args.dry_run {
        result.notices.extend(fresh::preview_notice(ctx, &files));
    }
    Ok(result
        .with("format", format.as_str())
        .with("dry_run", args.dry_run)
        .with("files", reports)
        .with("hunks_applied", hunks_applied)
        .with("fuzz", fuzz.map(locate::Fuzz::as_str))
        .with("diff", diff))
}

/// The diff for `output`: whole, or cut at a line boundary with a note saying how much is left
/// and where it is.
fn shown_diff(diff: &str) -> std::borrow::Cow<'_, str> {
    if diff.len() <= MAX_OUTPUT_DIFF_BYTES {
        return diff.into();
    }
    let mut cut = MAX_OUTPUT_DIFF_BYTES;
    while !diff.is_char_boundary(cut) {
        cut -= 1;
    }
    let cut = diff[..cut].rfind('\n').map_or(0, |i| i + 1);
    let rest = &diff[cut..];
    let hunks =
        usize::from(rest.starts_with("@@ ")) + memchr::memmem::find_iter(rest.as_bytes(), b"\n@@ ").count();
    let lines = memchr::memchr_iter(b'\n', rest.as_bytes()).count() + usize::from(!rest.ends_with('\n'));
    format!(
        "{}[diff cut: {lines} more lines ({hunks} more hunks) are in data.diff]\n",
        &diff[..cut],
    )
    .into()
}

/// Parses `text` as apply_patch does, without a workspace (a path exists when `exists` says
/// so), and returns how many files it changes or the error a call would get; for fuzzing and
/// property tests of the two patch parsers.
#[doc(hidden)]
pub fn parse_text(text: &str, exists: &dyn Fn(&str) -> bool) -> Result<usize, ToolError> {
    let (format, result) = if begin_patch::detect(text) {
        (Format::BeginPatch, begin_patch::parse(text))
    } else {
        (Format::Unified, unified::parse(text, exists))
    };
    result
        .map(|files| files.len())
        .map_err(|err| parse_error(format, err))
}

/// Detects the format and parses.
fn parse(ctx: &Context, text: &str) -> Result<(Format, Vec<model::FilePatch>), ToolError> {
    let (format, result) = if begin_patch::detect(text) {
        (Format::BeginPatch, begin_patch::parse(text))
    } else {
        let exists = |p: &str| ctx.resolve(p).is_ok_and(|w| w.abs.exists());
        (Format::Unified, unified::parse(text, &exists))
    };
    result
        .map(|files| (format, files))
        .map_err(|err| parse_error(format, err))
}

fn parse_error(format: Format, err: ParseError) -> ToolError {
    let what = match format {
        Format::Unified => "unified diff",
        Format::BeginPatch => "`*** Begin Patch` patch",
    };
    ToolError::patch_unparsable(what, format.as_str(), err.line, &err.problem)
}

fn summary(reports: &[transaction::FileReport], dry_run: bool) -> String {
    let count = |status: &str| reports.iter().filter(|r| r.status == status).count();
    let parts: Vec<String> = ["added", "modified", "deleted", "renamed", "copied"]
        .iter()
        .filter(|s| count(s) > 0)
        .map(|s| format!("{} {s}", count(s)))
        .collect();
    let hunks: usize = reports.iter().map(|r| r.hunks.len()).sum();
    let mut text = format!(
        "{} {} file{} ({}), {hunks} hunk{}.",
        if dry_run {
            "Dry run: the patch applies cleanly and would change"
        } else {
            "Applied the patch to"
        },
        reports.len(),
        if reports.len() == 1 { "" } else { "s" },
        parts.join(", "),
        if hunks == 1 { "" } else { "s" }
    );
    if dry_run {
        text.push_str(" Nothing was written; call again without dry_run to apply it.");
    }
    for report in reports {
        let letter = match report.status {
            "added" => 'A',
            "deleted" => 'D',
            "renamed" => 'R',
            "copied" => 'C',
            _ => 'M',
        };
        let name = match &report.from {
            Some(from) => format!("{from} -> {}", report.path),
            None => report.path.clone(),
        };
        let n = report.hunks.len();
        let _ = write!(text, "\n  {letter} {name}");
        if n > 0 && report.status != "added" {
            let _ = write!(text, " ({n} hunk{})", if n == 1 { "" } else { "s" });
        }
    }
    let mut notes = Vec::new();
    for report in reports {
        for (i, hunk) in report.hunks.iter().enumerate() {
            let ignoring = match hunk.fuzz {
                locate::Fuzz::Exact => continue,
                locate::Fuzz::TrailingWhitespace => "trailing whitespace",
                locate::Fuzz::Whitespace => "leading and trailing whitespace",
                locate::Fuzz::Punctuation => "whitespace and typographic punctuation",
            };
            notes.push(format!(
                "hunk {} of {} matched at line {} only after ignoring {ignoring}",
                i + 1,
                report.path,
                hunk.line
            ));
        }
    }
    for note in notes.iter().take(MAX_FUZZ_NOTES) {
        let _ = write!(text, "\nNote: {note}.");
    }
    if notes.len() > MAX_FUZZ_NOTES {
        let _ = write!(
            text,
            "\nNote: {} more hunks matched with fuzz (see data.files).",
            notes.len() - MAX_FUZZ_NOTES
        );
    }
    text
}

/// Takes the per-file change lock (the one edit_file and write_file hold) on every path the patch
/// reads or writes, in sorted order so that two patches over the same files cannot deadlock, and
/// holds them from the freshness check through the last write. A path that does not resolve is
/// left to the plan, which reports it with the patch line.
fn lock_all(ctx: &Context, files: &[FilePatch]) -> Result<Vec<crate::session::state::Lock>, ToolError> {
    let mut paths: Vec<crate::fs::workspace::WsPath> = files
        .iter()
        .flat_map(|file| std::iter::once(&file.path).chain(file.move_to.as_ref()))
        .filter_map(|given| ctx.resolve_for_write(given).ok())
        .collect();
    paths.sort_by(|a, b| a.abs.cmp(&b.abs));
    paths.dedup_by(|a, b| a.abs == b.abs);
    paths
        .iter()
        .map(|path| crate::tools::file_change::lock(&ctx.state, path))
        .collect()
}

//! write_file: create a file, or replace one this session has read, atomically.

use std::fs;

use schemars::JsonSchema;
use serde::Deserialize;

use crate::error::{ErrorCode, ToolError};
use crate::fs::beneath::Refusal;
use crate::fs::line_endings::{self, LfText};
use crate::fs::workspace::WsPath;
use crate::notice::{FileNotice, Notice};
use crate::output::plural;
use crate::session::context::Context;
use crate::tools::file_change::{self, LoadedFile};
use crate::tools::{Capability, DataField, ToolOutput, ToolSpec};

pub const SPEC: ToolSpec = ToolSpec {
    name: "write_file",
    id: crate::tool_id::ToolId::WriteFile,
    alias: "write",
    positional: Some("path"),
    capability: Capability::WritesFiles,
    description: DESCRIPTION,
    schema: crate::tools::schema_of::<WriteFileArgs>,
    caps: &[],
    data: &[
        DataField::always("path", "string"),
        DataField::always("action", "string"),
        DataField::always("bytes", "integer"),
        DataField::always("lines", "integer"),
        DataField::sometimes("diff", "string"),
        DataField::sometimes("encoding", "string"),
    ],
    run: |args, ctx| run(crate::tools::parse("write_file", args, SPEC.schema)?, ctx),
};

const DESCRIPTION: &str = "Create a new file, or replace a whole file, with the given content.
Use this instead of heredocs, echo > or tee in exec_shell. Missing parent directories are created. The write is atomic (a temp file in the same directory, flushed, then renamed over the target), so no reader ever sees half a file; a replaced file keeps its permissions, and a symlink inside the workspace is written through to its target. To replace an existing file you must have read it with read_file in this session, and it must not have changed since (otherwise not_read or stale, naming the read_file call to make). A replaced file keeps its encoding and BOM, and a CRLF file stays CRLF. The result says created or replaced, with a unified diff for a replacement. A .json, .toml, .rs, .py or .yaml file that parsed before may not be replaced by content that does not parse (syntax_gate; new .json, .toml and .rs files are checked too). Never writes inside .codesmith/.
To change part of a file, prefer edit_file: it sends only the changed text.
Examples:
{\"path\": \"src/util/mod.rs\", \"content\": \"pub mod strings;\\n\"}
{\"path\": \"notes/todo.md\", \"content\": \"# TODO\\n\\n- write tests\\n\"}";

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WriteFileArgs {
    /// The file to create or replace: relative to the session cwd, or absolute inside the workspace.
    pub path: String,
    /// The complete new content of the file.
    pub content: String,
}

/// The content is passed on by value down to the write: a whole file may be hundreds of
/// megabytes, and every copy of it would count.
pub fn run(args: WriteFileArgs, ctx: &mut Context) -> Result<ToolOutput, ToolError> {
    if args.path.ends_with('/') {
        return Err(ToolError::write_to_directory_name(
            &args.path,
            &crate::fs::workspace::quote_arg(&format!("{}file.txt", args.path)),
        ));
    }
    let path = ctx.resolve_for_write(&args.path)?;
    let _lock = file_change::lock(&ctx.state, &path)?;
    let mut notices: Vec<Notice> = Vec::new();
    if let Some(target) = symlink_note(ctx, &args.path, &path) {
        notices.push(target.into());
    }
    // Looked up beneath the root, as the write will be: whether the file exists decides
    // whether the freshness gate applies.
    let found = path.open(libc::O_PATH).and_then(|file| Ok(file.metadata()?));
    match found {
        Ok(meta) if meta.is_dir() => Err(ToolError::is_directory_for_write(
            &path.file_ref(),
            &crate::fs::workspace::quote_arg(&format!("{}/NAME", path.call)),
        )),
        Ok(_) => replace(ctx, args, &path, notices),
        Err(Refusal::Io(err)) if err.kind() == std::io::ErrorKind::NotFound => {
            create(ctx, args.content, &path, notices)
        }
        Err(Refusal::Io(err)) => {
            Err(through_a_file(ctx, &path).unwrap_or_else(|| ToolError::io(&path.display, "inspect", &err)))
        }
        Err(refusal) => Err(path.refusal("inspect", refusal)),
    }
}

/// The error for a path that runs through an existing file (`notes.txt/x`), if it does.
fn through_a_file(ctx: &Context, path: &WsPath) -> Option<ToolError> {
    let file = crate::fs::open::blocking_file(&ctx.workspace, path)?;
    Some(ToolError::write_through_file(&path.display, &file))
}

/// A notice when `given` is a symlink that is written through to its (in-workspace) target.
fn symlink_note(ctx: &Context, given: &str, path: &WsPath) -> Option<FileNotice> {
    let lexical = ctx.workspace.cwd().join(given);
    let meta = fs::symlink_metadata(&lexical).ok()?;
    meta.file_type()
        .is_symlink()
        .then(|| FileNotice::SymlinkWrittenThrough {
            given: given.to_string(),
            target: path.display.clone(),
        })
}

fn create(
    ctx: &Context,
    content: String,
    path: &WsPath,
    mut notices: Vec<Notice>,
) -> Result<ToolOutput, ToolError> {
    let missing_parents = missing_parent_dirs(ctx, path);
    let lines = count_lines(&content);
    let prepared = file_change::prepare_owned(path, None, content)?;
    prepared.commit(&ctx.state, None)?;
    if let Some(dirs) = missing_parents {
        notices.push(FileNotice::CreatedDirectories { dirs }.into());
    }
    let output = format!(
        "Created `{}` ({}, {}).",
        path.display,
        plural(lines, "line", "lines"),
        plural(prepared.bytes.len(), "byte", "bytes")
    );
    let mut out = ToolOutput::new(output)
        .with("path", path.display.clone())
        .with("action", "created")
        .with("bytes", prepared.bytes.len())
        .with("lines", lines);
    out.notices = notices;
    Ok(out)
}

fn replace(
    ctx: &Context,
    args: WriteFileArgs,
    path: &WsPath,
    mut notices: Vec<Notice>,
) -> Result<ToolOutput, ToolError> {
    let loaded = match file_change::load(ctx, path, &args.path) {
        Ok(loaded) => Some(loaded),
        // The old bytes are not text codesmith can decode with confidence. Replacing the whole
        // file decodes nothing, so it is safe; the new content is written as UTF-8.
        Err(err) if err.code() == ErrorCode::NotUtf8 => {
            notices.push(
                FileNotice::OldContentNotUtf8 {
                    path: path.display.clone(),
                }
                .into(),
            );
            None
        }
        Err(err) => return Err(err),
    };
    let content = adapt_line_endings(loaded.as_ref(), args.content, &mut notices);
    if loaded.as_ref().is_some_and(|l| l.text == content) {
        return Ok(ToolOutput::new(format!(
            "`{}` already holds exactly this content; nothing was written.",
            path.display
        ))
        .with("path", path.display.clone())
        .with("action", "unchanged"));
    }
    let old_text = loaded.as_ref().map_or("", |l| l.text.as_str());
    // The diff is made before the content moves into the write (it shows at most a window of
    // each side, so it is small whatever the file's size).
    let diff = crate::fs::diff::unified(
        &path.display,
        LfText::new(old_text).as_str(),
        &line_endings::to_lf(&content),
    );
    let old_lines = count_lines(old_text);
    let new_lines = count_lines(&content);
    let mut prepared = file_change::prepare_owned(path, loaded.as_ref(), content)?;
    prepared.created = false;
    prepared.commit(&ctx.state, loaded.as_ref())?;
    let mut output = format!(
        "Replaced `{}` ({old_lines} → {}, {}).",
        path.display,
        plural(new_lines, "line", "lines"),
        plural(prepared.bytes.len(), "byte", "bytes")
    );
    if !diff.is_empty() {
        output.push('\n');
        output.push_str(&crate::fs::diff::abbreviate(&diff));
    }
    let mut out = ToolOutput::new(output)
        .with("path", path.display.clone())
        .with("action", "replaced")
        .with("bytes", prepared.bytes.len())
        .with("lines", new_lines)
        .with("diff", diff);
    if let Some(label) = loaded.as_ref().and_then(LoadedFile::encoding_label) {
        out = out.with("encoding", label);
    }
    out.notices = notices;
    Ok(out)
}

/// A file whose lines all end in CRLF stays CRLF when the new content uses bare `\n` (models
/// write `\n`; the file's convention wins). Any other case is written as given.
fn adapt_line_endings(loaded: Option<&LoadedFile>, content: String, notices: &mut Vec<Notice>) -> String {
    let Some(loaded) = loaded else {
        return content;
    };
    let endings = loaded.endings();
    if endings.crlf > 0 && endings.lf == 0 && !content.contains('\r') && content.contains('\n') {
        notices.push(
            FileNotice::CrlfKept {
                path: loaded.path.display.clone(),
            }
            .into(),
        );
        return content.replace('\n', "\r\n");
    }
    content
}

fn count_lines(text: &str) -> usize {
    let newlines = memchr::memchr_iter(b'\n', text.as_bytes()).count();
    newlines + usize::from(!text.is_empty() && !text.ends_with('\n'))
}

/// The workspace-relative directories that a write to `path` will create, if any.
fn missing_parent_dirs(ctx: &Context, path: &WsPath) -> Option<String> {
    let parent = path.abs.parent()?;
    (!parent.exists()).then(|| ctx.workspace.display(parent))
}

//! outline: the definitions in a file, or in each source file of a directory, nested as the
//! code nests them, with line ranges for read_file.

use schemars::JsonSchema;
use serde::Deserialize;
use tree_sitter_tags::TagsContext;

use crate::error::ToolError;
use crate::fs::workspace::{quote_arg, WsPath};
use crate::session::context::Context;
use crate::symbols::{self, languages, Symbol};
use crate::tools::{Cap, Capability, DataField, ToolOutput, ToolSpec};

pub const SPEC: ToolSpec = ToolSpec {
    name: "outline",
    id: crate::tool_id::ToolId::Outline,
    alias: "outline",
    positional: Some("path"),
    capability: Capability::ReadOnly,
    description: DESCRIPTION,
    schema: crate::tools::schema_of::<OutlineArgs>,
    caps: &[MAX_RESULTS],
    data: &[
        DataField::always("path", "string"),
        DataField::always("total_definitions", "integer"),
        DataField::always("files", "array"),
        DataField::always("truncated", "boolean"),
    ],
    run: |args, ctx| run(crate::tools::parse("outline", args, SPEC.schema)?, ctx),
};

const DESCRIPTION: &str = "Show the shape of a source file without reading it: its definitions (functions, methods, types, classes, traits, modules, constants, macros), nested as the code nests them, each with its kind, name, line range and first line.
Use this before read_file on a long file, instead of reading it whole or grepping for `fn `/`def `/`class `: each line starts with the definition's first line number in read_file's numbering (`    12│ method new [12-20]: pub fn new() -> Self {`), so the next call can read exactly those lines. Members are indented under their container (`impl Config`, `class Parser`).
Given a directory, each source file below it is outlined in path order (walked as grep_files walks: .gitignore respected, the usual build and vendor directories skipped), at most 200 files.
Languages: Rust (.rs), Python (.py, .pyi), JavaScript (.js, .jsx, .mjs, .cjs), TypeScript (.ts, .mts, .cts), TSX (.tsx), Go (.go), Java (.java), C (.c, .h) and C++ (.cc, .cpp, .cxx, .hh, .hpp, .hxx, ...). Other files get an error naming the languages; read them with read_file. To find a name across the workspace use find_symbol.
At most max_results definitions are shown (default 300, at most 2000); the last line says how many were left out.
Examples:
{\"path\": \"src/main.rs\"}
{\"path\": \"src/parser\", \"max_results\": 100}";

/// The most definitions one call shows.
pub const MAX_RESULTS_CAP: u64 = 2000;
/// max_results: held inside 1..=MAX_RESULTS_CAP, with a notice.
pub const MAX_RESULTS: Cap = Cap::new("max_results", 1, MAX_RESULTS_CAP);
/// At most this many files of a directory are outlined.
pub const MAX_FILES: usize = 200;

fn default_max_results() -> u64 {
    300
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OutlineArgs {
    /// The source file, or a directory whose source files are outlined, relative to the
    /// session cwd.
    pub path: String,
    /// How many definitions to show, 1 to 2000 (values outside are clamped).
    #[serde(default = "default_max_results")]
    // No schema range: out-of-range values are clamped, not refused.
    #[schemars(with = "i64")]
    pub max_results: u64,
}

struct FileOutline {
    path: String,
    language: &'static str,
    definitions: Vec<Symbol>,
}

pub fn run(args: OutlineArgs, ctx: &mut Context) -> Result<ToolOutput, ToolError> {
    let mut notices = Vec::new();
    let max_results = MAX_RESULTS.hold(args.max_results, &mut notices) as usize;
    let root = ctx.resolve(&args.path)?;
    crate::tools::refuse_state_path(ctx, &root, "outline")?;
    let meta = std::fs::metadata(&root.abs)
        .map_err(|_| crate::fs::open::not_found(&ctx.workspace, ctx.tool, &root, &args.path))?;
    let mut context = TagsContext::new();
    let (files, more_files) = if meta.is_dir() {
        let sources = symbols::index::walk_sources(ctx.workspace.root(), &root.abs);
        let more = sources.len().saturating_sub(MAX_FILES);
        let files = sources
            .iter()
            .take(MAX_FILES)
            .filter_map(|source| {
                let (language, definitions) =
                    outline_file(&source.abs, source.language, &mut context).ok()?;
                Some(FileOutline {
                    path: source.rel.clone(),
                    language,
                    definitions,
                })
            })
            .collect::<Vec<_>>();
        (files, more)
    } else if meta.is_file() {
        let language = languages::for_path(&root.abs)
            .ok_or_else(|| languages::unsupported_language(&root, crate::tool_id::ToolId::Outline))?;
        if meta.len() > crate::fs::walk::MAX_FILE_BYTES {
            return Err(ToolError::too_large_to_outline(
                &root.display,
                crate::fs::walk::MAX_FILE_BYTES / (1024 * 1024),
                &root.call_arg(),
            ));
        }
        let (language, definitions) = outline_file(&root.abs, language, &mut context)
            .map_err(|err| ToolError::io(&root.display, "read", &err))?;
        let path = root.display.clone();
        (
            vec![FileOutline {
                path,
                language,
                definitions,
            }],
            0,
        )
    } else {
        return Err(ToolError::outline_special_file(&root.display));
    };
    let mut out = render(ctx, &root, meta.is_dir(), &files, more_files, max_results);
    out.notices.extend(notices);
    Ok(out)
}

fn outline_file(
    path: &std::path::Path,
    language: &'static symbols::LanguageSpec,
    context: &mut TagsContext,
) -> std::io::Result<(&'static str, Vec<Symbol>)> {
    let bytes = std::fs::read(path)?;
    let found = symbols::extract(language, &bytes, context).map_err(std::io::Error::other)?;
    Ok((
        language.name,
        found.into_iter().filter(|s| s.definition).collect(),
    ))
}

fn entry_line(symbol: &Symbol) -> String {
    format!(
        "{:>6}│ {}{} {} [{}-{}]: {}",
        symbol.start_line,
        "  ".repeat(symbol.depth as usize),
        symbol.kind,
        symbol.name,
        symbol.start_line,
        symbol.end_line,
        symbol.text
    )
}

/// `data.files[i]`: a file's first `take` definitions.
fn file_json(file: &FileOutline, take: usize) -> serde_json::Value {
    serde_json::json!({
        "path": file.path,
        "language": file.language,
        "total_definitions": file.definitions.len(),
        "definitions": file.definitions[..take].iter().map(|s| serde_json::json!({
            "name": s.name,
            "kind": s.kind,
            "line": s.line,
            "start_line": s.start_line,
            "end_line": s.end_line,
            "depth": s.depth,
            "container": s.container,
            "text": s.text,
        })).collect::<Vec<_>>(),
    })
}

/// The text for a directory with no source files, or with no definitions in them.
fn empty_text(root: &WsPath, files: usize, total: usize) -> Option<String> {
    if files == 0 {
        return Some(format!(
            "No source files in a supported language under `{}` ({}). To see what is there, call \
             list_dir with path={}.",
            root.display,
            languages::LANGUAGES
                .iter()
                .map(|l| l.name)
                .collect::<Vec<_>>()
                .join(", "),
            root.call_arg()
        ));
    }
    (total == 0).then(|| {
        format!(
            "No definitions in the {files} source files under `{}`.",
            root.display
        )
    })
}

fn render(
    ctx: &Context,
    root: &WsPath,
    is_dir: bool,
    files: &[FileOutline],
    more_files: usize,
    max_results: usize,
) -> ToolOutput {
    let total: usize = files.iter().map(|f| f.definitions.len()).sum();
    let mut text = String::new();
    let mut shown = 0;
    let mut next_path = None;
    let mut data_files = Vec::new();
    for file in files.iter().filter(|f| !is_dir || !f.definitions.is_empty()) {
        if shown >= max_results {
            next_path.get_or_insert(file.path.clone());
            break;
        }
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(&format!(
            "{} ({}): {}\n",
            file.path,
            file.language,
            match file.definitions.len() {
                1 => "1 definition".to_string(),
                n => format!("{n} definitions"),
            }
        ));
        let take = file.definitions.len().min(max_results - shown);
        if take < file.definitions.len() {
            next_path.get_or_insert(file.path.clone());
        }
        for symbol in &file.definitions[..take] {
            text.push_str(&entry_line(symbol));
            text.push('\n');
        }
        shown += take;
        data_files.push(file_json(file, take));
    }
    if is_dir {
        if let Some(empty) = empty_text(root, files.len(), total) {
            text = empty;
        }
    }
    let truncated = shown < total || more_files > 0;
    if shown < total {
        text.push_str(&format!(
            "\n{total} definitions; showing the first {shown}. To see the rest, raise max_results (at most {MAX_RESULTS_CAP}){}.",
            next_path
                .map(|p| format!(" or call outline with path={}", quote_arg(&ctx.workspace.call_path_of(&p))))
                .unwrap_or_default()
        ));
    }
    if more_files > 0 {
        text.push_str(&format!(
            "\n{more_files} more source files under `{}` were not outlined (at most {MAX_FILES} per call); \
             outline a subdirectory to see them.",
            root.display
        ));
    }
    ToolOutput::new(text.trim_end().to_string())
        .with("path", root.display.clone())
        .with("total_definitions", total)
        .with("files", data_files)
        .with("truncated", truncated)
}

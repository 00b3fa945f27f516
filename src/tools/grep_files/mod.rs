//! grep_files: ripgrep's engine (grep-regex + grep-searcher) over the shared walker.
//!
//! Every match is counted before anything is cut, so `total_matches` is exact however many
//! results are shown; results are sorted (path, then line) after a parallel search.

mod render;
mod search;

use schemars::JsonSchema;
use serde::Deserialize;

use crate::error::{GlobError, ToolError};
use crate::fs::walk::{self, GlobFilter, Rules};
use crate::session::context::Context;
use crate::tools::{Cap, Capability, DataField, ToolOutput, ToolSpec};

pub const SPEC: ToolSpec = ToolSpec {
    name: "grep_files",
    id: crate::tool_id::ToolId::GrepFiles,
    alias: "grep",
    positional: Some("pattern"),
    capability: Capability::ReadOnly,
    description: DESCRIPTION,
    schema: crate::tools::schema_of::<GrepFilesArgs>,
    caps: &[MAX_RESULTS, CONTEXT],
    data: &[
        DataField::always("pattern", "string"),
        DataField::always("path", "string"),
        DataField::always("output_mode", "string"),
        DataField::always("total_matches", "integer"),
        DataField::always("total_files", "integer"),
        DataField::always("files_searched", "integer"),
        DataField::always("shown", "integer"),
        DataField::always("truncated", "boolean"),
        DataField::always("max_results", "integer"),
        DataField::always("skipped_binary", "integer"),
        DataField::always("skipped_large", "integer"),
        DataField::sometimes("matches", "array"),
        DataField::sometimes("files", "array"),
        DataField::sometimes("counts", "array"),
        DataField::sometimes("ignored_files", "integer"),
        DataField::sometimes("unreadable", "integer"),
    ],
    run: |args, ctx| run(crate::tools::parse("grep_files", args, SPEC.schema)?, ctx),
};

const DESCRIPTION: &str = "Search file contents with a regular expression (ripgrep's engine, Rust regex syntax) across a directory tree or one file.
Use this instead of grep -r / rg / find -name / fd in exec_shell: grep_files finds text in files as fast as ripgrep (file_search finds paths by name); it counts every match exactly before cutting and returns workspace-relative paths in a stable order (path, then line).
Skipped: files matched by .gitignore, .ignore or git's exclude rules (also outside a git repository; include_ignored=true searches them too), binary files (a NUL byte), files over 10 MB met while walking a directory (a file given as path is searched whatever its size), and always: .git, node_modules, target, dist, build, __pycache__, .venv, venv, .codesmith, *.min.js, *.min.css. Hidden files are searched; symlinks are not followed.
output_mode: \"content\" (default) shows `path:line:text` lines (context lines as `path-line-text`, groups split by `--`; lines over 500 bytes are cut around the match); \"files\" lists matching files; \"count\" shows `path:count`. total_matches counts matching lines (a multiline match counts once). At most max_results (default 100, at most 1000) matches or files are shown; when more exist, the last line says `N matches in M files; showing the first K` and how to narrow. include/exclude take globs: `*.rs` matches names at any depth, `src/**/*.ts` matches paths. Look-around and backreferences are not supported; for literal text with regex characters use fixed_strings=true. To find files by name use file_search; to find where a function, type or class is defined, use find_symbol.
Examples:
{\"pattern\": \"fn main\", \"include\": \"*.rs\"}
{\"pattern\": \"TODO(alice)\", \"fixed_strings\": true, \"output_mode\": \"files\"}
{\"pattern\": \"struct \\\\w+Config\", \"path\": \"src\", \"context\": 2, \"case_insensitive\": true}";

/// At most this many results (matches, or files) are shown per call.
pub const MAX_RESULTS_CAP: u64 = 1000;
/// max_results: held inside 1..=MAX_RESULTS_CAP, with a notice.
pub const MAX_RESULTS: Cap = Cap::new("max_results", 1, MAX_RESULTS_CAP).also_unrepresentable();
/// The longest pattern taken, in characters: a regex's matching time grows with its length,
/// and no line worth finding needs more.
pub const MAX_PATTERN_CHARS: usize = 4000;
/// At most this many context lines around each match.
pub const MAX_CONTEXT: u64 = 50;
/// context: over the cap is refused (a foreign call's translation clamps it).
pub const CONTEXT: Cap = Cap::new("context", 0, MAX_CONTEXT);

fn default_max_results() -> u64 {
    100
}

/// What grep_files shows.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum OutputMode {
    /// Matching lines as `path:line:text`.
    #[default]
    Content,
    /// The paths of matching files.
    #[serde(alias = "files_with_matches")]
    Files,
    /// Matching lines per file, as `path:count`.
    Count,
}

impl OutputMode {
    pub fn as_str(self) -> &'static str {
        match self {
            OutputMode::Content => "content",
            OutputMode::Files => "files",
            OutputMode::Count => "count",
        }
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GrepFilesArgs {
    /// The regular expression to search for (Rust regex syntax), or literal text with
    /// fixed_strings=true.
    pub pattern: String,
    /// The directory (searched recursively) or file to search, relative to the session cwd.
    #[serde(default = "crate::tools::default_path")]
    pub path: String,
    /// Only search files matching these globs (one glob or a list): `*.rs` matches names at
    /// any depth, `src/**/*.ts` paths; a directory name or path includes the files below it.
    #[serde(default, deserialize_with = "one_or_many")]
    #[schemars(with = "Vec<String>")]
    pub include: Vec<String>,
    /// Skip files and directories matching these globs (one glob or a list), e.g. `*_test.go`
    /// or `vendor`.
    #[serde(default, deserialize_with = "one_or_many")]
    #[schemars(with = "Vec<String>")]
    pub exclude: Vec<String>,
    /// Match letters regardless of case.
    #[serde(default)]
    pub case_insensitive: bool,
    /// Treat the pattern as literal text, not a regex.
    #[serde(default)]
    pub fixed_strings: bool,
    /// Let the pattern span lines: `\n` matches line ends and `.` matches newlines too.
    #[serde(default)]
    pub multiline: bool,
    /// Lines of context to show before and after each match (content mode), 0 to 50.
    #[serde(default)]
    #[schemars(range(max = 50))]
    pub context: u64,
    /// "content" (matching lines), "files" (matching paths) or "count" (matches per file).
    #[serde(default)]
    pub output_mode: OutputMode,
    /// How many matches (content) or files (files, count) to show, 1 to 1000 (values outside
    /// are clamped); every match is still counted.
    #[serde(default = "default_max_results")]
    // No schema range: out-of-range values are clamped, not refused.
    #[schemars(with = "i64")]
    pub max_results: u64,
    /// Also search files that .gitignore/.ignore rules hide (the always-skip list still
    /// applies).
    #[serde(default)]
    pub include_ignored: bool,
}

/// Why [`compile_pattern`] refuses a pattern.
#[doc(hidden)]
#[derive(Debug, thiserror::Error)]
pub enum PatternError {
    #[error("pattern is {chars} characters; the longest taken is {max}")]
    TooLong { chars: usize, max: usize },
    #[error("{0}")]
    Regex(#[from] grep_regex::Error),
}

/// Compiles `pattern` as grep_files does (the length cap first), for fuzzing and property
/// tests of the regex parser.
#[doc(hidden)]
pub fn compile_pattern(pattern: &str, fixed_strings: bool, multiline: bool) -> Result<(), PatternError> {
    let chars = pattern.chars().count();
    if chars > MAX_PATTERN_CHARS {
        return Err(PatternError::TooLong {
            chars,
            max: MAX_PATTERN_CHARS,
        });
    }
    let args = GrepFilesArgs {
        pattern: pattern.to_string(),
        path: crate::tools::default_path(),
        include: Vec::new(),
        exclude: Vec::new(),
        case_insensitive: false,
        fixed_strings,
        multiline,
        context: 0,
        output_mode: OutputMode::default(),
        max_results: default_max_results(),
        include_ignored: false,
    };
    search::build_matcher(&args)?;
    Ok(())
}

/// Accepts one glob as a string or several as a list.
fn one_or_many<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Vec<String>, D::Error> {
    struct Visitor;
    impl<'de> serde::de::Visitor<'de> for Visitor {
        type Value = Vec<String>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a glob string or a list of glob strings")
        }
        fn visit_str<E: serde::de::Error>(self, value: &str) -> Result<Vec<String>, E> {
            Ok(vec![value.to_string()])
        }
        fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<String>, A::Error> {
            let mut out = Vec::new();
            while let Some(item) = seq.next_element::<String>()? {
                out.push(item);
            }
            Ok(out)
        }
    }
    deserializer.deserialize_any(Visitor)
}

/// The checks that need no file: a pattern, and a context in range.
fn check_pattern_and_context(args: &GrepFilesArgs, call: &render::CallText) -> Result<(), ToolError> {
    if args.pattern.is_empty() {
        return Err(ToolError::empty_pattern());
    }
    if args.context > MAX_CONTEXT {
        return Err(ToolError::context_out_of_range(
            args.context,
            MAX_CONTEXT,
            &call.base(),
        ));
    }
    Ok(())
}

/// The path searched must be a directory or a regular file.
fn check_root(
    ctx: &Context,
    root: &crate::fs::workspace::WsPath,
    args: &GrepFilesArgs,
) -> Result<(), ToolError> {
    match std::fs::metadata(&root.abs) {
        Ok(meta) if meta.is_dir() || meta.is_file() => Ok(()),
        Ok(_) => Err(ToolError::grep_special_file(
            &root.display,
            &crate::fs::workspace::quote_arg(&args.pattern),
        )),
        Err(_) => Err(crate::fs::open::not_found(
            &ctx.workspace,
            ctx.tool,
            root,
            &args.path,
        )),
    }
}

pub fn run(args: GrepFilesArgs, ctx: &mut Context) -> Result<ToolOutput, ToolError> {
    let call = render::CallText::of(&args);
    check_pattern_and_context(&args, &call)?;
    let mut notices = Vec::new();
    let max_results = MAX_RESULTS.hold(args.max_results, &mut notices);
    let root = ctx.resolve(&args.path)?;
    crate::tools::refuse_state_path(ctx, &root, "grep_files")?;
    check_root(ctx, &root, &args)?;
    let chars = args.pattern.chars().count();
    if chars > MAX_PATTERN_CHARS {
        return Err(ToolError::pattern_too_long(chars, MAX_PATTERN_CHARS));
    }
    let size = std::fs::metadata(&root.abs).map_or(0, |m| if m.is_file() { m.len() } else { 0 });
    if args.multiline && size > search::MAX_BUFFER_BYTES as u64 {
        return Err(ToolError::too_large_for_multiline(
            &root.display,
            size,
            search::MAX_BUFFER_BYTES,
            &call.base(),
        ));
    }
    let matcher = search::build_matcher(&args).map_err(|err| render::regex_error(&args, &call, &err))?;
    let root_prefix = std::path::PathBuf::from(&root.display);
    let glob_error = |field: &str, err: GlobError| ToolError::bad_filter_glob(field, &err);
    let include = GlobFilter::new(&args.include, &root_prefix).map_err(|e| glob_error("include", e))?;
    let exclude = GlobFilter::new(&args.exclude, &root_prefix).map_err(|e| glob_error("exclude", e))?;
    let rules = if args.include_ignored {
        Rules::IncludeIgnored
    } else {
        Rules::Respect
    };
    let query = search::Query {
        matcher,
        multiline: args.multiline,
        context: args.context as usize,
        mode: args.output_mode,
        max_results: max_results as usize,
    };
    let reader = ctx.workspace.roots().reader();
    let found = search::run(&root.abs, &reader, rules, &include, &exclude, &query);
    let hidden_by_rules = if found.total_matches == 0 && rules == Rules::Respect {
        search::count_files(&root.abs, Rules::IncludeIgnored, &include, &exclude)
            .saturating_sub(found.files_seen)
    } else {
        0
    };
    let mut out = render::render(ctx, &args, &call, &root.display, &query, &found, hidden_by_rules);
    out.notices.extend(notices);
    Ok(out)
}

/// The skip list, for messages.
pub fn skip_list() -> &'static str {
    walk::SKIP_LIST_TEXT
}

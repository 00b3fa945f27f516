//! file_search: files and directories whose name or path matches a glob, over the shared walker.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::SystemTime;

use globset::{GlobBuilder, GlobSet};
use ignore::WalkState;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use crate::error::{GlobError, ToolError};
use crate::fs::walk::{self, Rules};
use crate::session::context::Context;
use crate::tools::{Cap, Capability, DataField, ToolOutput, ToolSpec};

pub const SPEC: ToolSpec = ToolSpec {
    name: "file_search",
    id: crate::tool_id::ToolId::FileSearch,
    alias: "find",
    positional: Some("pattern"),
    capability: Capability::ReadOnly,
    description: DESCRIPTION,
    schema: crate::tools::schema_of::<FileSearchArgs>,
    caps: &[MAX_RESULTS],
    data: &[
        DataField::always("pattern", "string"),
        DataField::always("path", "string"),
        DataField::always("total_matches", "integer"),
        DataField::always("shown", "integer"),
        DataField::always("truncated", "boolean"),
        DataField::always("max_results", "integer"),
        DataField::always("sort", "string"),
        DataField::always("paths", "array"),
        DataField::sometimes("suggestions", "array"),
        DataField::sometimes("ignored_matches", "integer"),
    ],
    run: |args, ctx| run(crate::tools::parse("file_search", args, SPEC.schema)?, ctx),
};

const DESCRIPTION: &str = "Find files and directories by glob, sorted by path (or by modification time, newest first).
Use this instead of grep -r / rg / find -name / fd in exec_shell: file_search finds paths by name as fast as fd (grep_files finds text in files); it counts every match before cutting and returns workspace-relative paths (directories end with `/`).
A pattern without `/` matches names at any depth (`*.rs`, `Cargo.toml`, `*test*`); a pattern with `/` matches the path below `path` (`src/**/*.ts`, `tests/*.rs`); `*` stays within one directory, `**` crosses directories, `{a,b}` gives alternatives; a trailing `/` matches directories only. `.`, `./` and the empty pattern list everything under path. Names must match whole: `config` finds only entries named exactly `config`, `*config*` finds names containing it.
Skipped like grep_files: files matched by .gitignore, .ignore or git's exclude rules (include_ignored=true lists them too), and always: .git, node_modules, target, dist, build, __pycache__, .venv, venv, .codesmith, *.min.js, *.min.css. Hidden files are listed; symlinks are listed, not followed.
At most max_results (default 20, clamped to 1..=200) paths are shown; when more match, the last line says `N matches; showing the first K`. With no match, similar names are suggested. To search file contents use grep_files.
Examples:
{\"pattern\": \"*.rs\"}
{\"pattern\": \"src/**/*test*\", \"max_results\": 50}
{\"pattern\": \"*.log\", \"path\": \"logs\", \"sort\": \"mtime\"}";

/// The most paths one call shows.
pub const MAX_RESULTS_CAP: u64 = 200;
/// max_results: held inside 1..=MAX_RESULTS_CAP, with a notice.
pub const MAX_RESULTS: Cap = Cap::new("max_results", 1, MAX_RESULTS_CAP).also_unrepresentable();
/// At most this many similar names are suggested when nothing matches.
const MAX_SUGGESTIONS: usize = 3;
/// Names scoring below this are not suggested.
const MIN_SUGGESTION_SCORE: f64 = 0.8;

fn default_max_results() -> u64 {
    20
}

/// The order of results.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SortOrder {
    /// By path, component by component.
    #[default]
    Path,
    /// By modification time, newest first (ties by path).
    Mtime,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FileSearchArgs {
    /// The glob: without `/` it matches names at any depth (`*.rs`); with `/` the path below
    /// `path` (`src/**/*.ts`); `.`, `./` or empty match everything.
    pub pattern: String,
    /// The directory to search below, relative to the session cwd.
    #[serde(default = "crate::tools::default_path")]
    pub path: String,
    /// How many paths to show, 1 to 200 (values outside are clamped); every match is counted.
    #[serde(default = "default_max_results")]
    // No schema range: out-of-range values are clamped, not refused.
    #[schemars(with = "i64")]
    pub max_results: u64,
    /// "path" (default) or "mtime" (most recently modified first).
    #[serde(default)]
    pub sort: SortOrder,
    /// Also list entries that .gitignore/.ignore rules hide (the always-skip list still applies).
    #[serde(default)]
    pub include_ignored: bool,
}

/// The compiled pattern: what it is matched against and whether only directories qualify.
struct Pattern {
    glob: Option<GlobSet>,
    by_path: bool,
    dirs_only: bool,
    root_prefix: PathBuf,
}

impl Pattern {
    fn new(raw: &str, root_display: &str) -> Result<Pattern, GlobError> {
        let mut text = raw.trim();
        text = text.strip_prefix("./").unwrap_or(text);
        let dirs_only = text.len() > 1 && text.ends_with('/');
        text = text.trim_start_matches('/').trim_end_matches('/');
        let root_prefix = if root_display == "." {
            PathBuf::new()
        } else {
            PathBuf::from(root_display)
        };
        if text.is_empty() || text == "." || text == "**" {
            return Ok(Pattern {
                glob: None,
                by_path: false,
                dirs_only,
                root_prefix,
            });
        }
        crate::fs::walk::check_glob_length(text)?;
        let glob = crate::fs::walk::compile_glob(
            GlobBuilder::new(text)
                .literal_separator(true)
                .backslash_escape(true),
        )?;
        Ok(Pattern {
            glob: Some(glob),
            by_path: text.contains('/'),
            dirs_only,
            root_prefix,
        })
    }

    fn matches(&self, rel: &Path, is_dir: bool) -> bool {
        if self.dirs_only && !is_dir {
            return false;
        }
        let Some(glob) = &self.glob else {
            return true;
        };
        if self.by_path {
            glob.is_match(rel)
                || (!self.root_prefix.as_os_str().is_empty() && glob.is_match(self.root_prefix.join(rel)))
        } else {
            rel.file_name().is_some_and(|name| glob.is_match(name))
        }
    }
}

struct Hit {
    rel: PathBuf,
    is_dir: bool,
    mtime: Option<SystemTime>,
}

pub fn run(args: FileSearchArgs, ctx: &mut Context) -> Result<ToolOutput, ToolError> {
    let (root, pattern) = resolve(&args, ctx)?;
    let mut clamped = Vec::new();
    let max_results = MAX_RESULTS.hold(args.max_results, &mut clamped) as usize;
    let rules = if args.include_ignored {
        Rules::IncludeIgnored
    } else {
        Rules::Respect
    };
    let mut hits = walk_matches(&root.abs, rules, &pattern, args.sort == SortOrder::Mtime);
    match args.sort {
        SortOrder::Path => hits.sort_unstable_by(|a, b| a.rel.cmp(&b.rel)),
        SortOrder::Mtime => {
            hits.sort_unstable_by(|a, b| b.mtime.cmp(&a.mtime).then_with(|| a.rel.cmp(&b.rel)))
        }
    }
    // The walk lists directories by name: a name it found through a directory swapped for a
    // symlink out meanwhile is not shown.
    let reader = ctx.workspace.roots().reader();
    let total = hits.len();
    let shown: Vec<String> = hits
        .iter()
        .filter(|hit| reader.holds(&root.abs.join(&hit.rel)))
        .take(max_results)
        .map(|hit| {
            let display = ctx.workspace.display(&root.abs.join(&hit.rel));
            if hit.is_dir {
                format!("{display}/")
            } else {
                display
            }
        })
        .collect();
    let truncated = total > shown.len();
    let mut out = ToolOutput::new(String::new());
    out.output = if total == 0 {
        let mut suggestions = Vec::new();
        let mut hidden = 0;
        if pattern.glob.is_some() {
            suggestions = suggest(ctx, &root.abs, rules, &args.pattern);
        }
        if rules == Rules::Respect {
            hidden = walk_matches(&root.abs, Rules::IncludeIgnored, &pattern, false).len();
        }
        out = out
            .with("suggestions", suggestions.clone())
            .with("ignored_matches", hidden);
        no_match_text(&args, &root.display, &suggestions, hidden)
    } else {
        let mut text = found_text(&args, &shown, total, max_results);
        if let Some(note) = crate::tools::cwd_note(ctx, &root.abs.join(&hits[0].rel)) {
            text.push('\n');
            text.push_str(&note);
        }
        text
    };
    out.notices.extend(clamped);
    Ok(out
        .with("pattern", args.pattern.clone())
        .with("path", root.display.clone())
        .with("total_matches", total)
        .with("shown", shown.len())
        .with("truncated", truncated)
        .with("max_results", max_results)
        .with(
            "sort",
            if args.sort == SortOrder::Mtime {
                "mtime"
            } else {
                "path"
            },
        )
        .with("paths", Value::from(shown)))
}

/// The shown paths and the summary line: how many matched, and how to see the rest if they
/// were cut.
fn found_text(args: &FileSearchArgs, shown: &[String], total: usize, max_results: usize) -> String {
    let mut text = shown.join("\n");
    text.push_str("\n\n");
    let summary = format!("{total} {}", if total == 1 { "match" } else { "matches" });
    if total > shown.len() {
        text.push_str(&format!(
            "{summary}; showing the first {} (sorted by {}). To see the rest, narrow pattern or path{}.",
            shown.len(),
            if args.sort == SortOrder::Mtime {
                "mtime, newest first"
            } else {
                "path"
            },
            if (max_results as u64) < MAX_RESULTS_CAP {
                format!(", or raise max_results (at most {MAX_RESULTS_CAP})")
            } else {
                String::new()
            }
        ));
    } else {
        text.push_str(&summary);
    }
    text
}

/// The directory to search and the compiled pattern, or the refusal of either.
fn resolve(
    args: &FileSearchArgs,
    ctx: &mut Context,
) -> Result<(crate::fs::workspace::WsPath, Pattern), ToolError> {
    let root = ctx.resolve(&args.path)?;
    crate::tools::refuse_state_path(ctx, &root, "file_search")?;
    match std::fs::metadata(&root.abs) {
        Ok(meta) if meta.is_dir() => {}
        Ok(_) => {
            return Err(ToolError::search_in_file(
                &root.display,
                &crate::fs::workspace::quote_arg(&args.pattern),
                &root.call_arg(),
            ))
        }
        Err(_) => {
            return Err(crate::fs::open::not_found(
                &ctx.workspace,
                ctx.tool,
                &root,
                &args.path,
            ))
        }
    }
    crate::fs::walk::check_glob_length(&args.pattern).map_err(|err| ToolError::glob_too_long(&err))?;
    let pattern = Pattern::new(&args.pattern, &root.display).map_err(|err| {
        ToolError::bad_glob(
            &args.pattern,
            &crate::fs::workspace::quote_arg(&args.pattern),
            &err,
        )
    })?;
    Ok((root, pattern))
}

/// Every entry below `root` the walker offers that matches `pattern`, unsorted.
fn walk_matches(root: &Path, rules: Rules, pattern: &Pattern, want_mtime: bool) -> Vec<Hit> {
    let shared = Mutex::new(Vec::new());
    walk::search_walker(root, rules, None).build_parallel().run(|| {
        let mut flush = walk::Flush::into(&shared);
        Box::new(move |result| {
            let Ok(entry) = result else {
                return WalkState::Continue;
            };
            if entry.depth() == 0 {
                return WalkState::Continue;
            }
            let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
            let Ok(rel) = entry.path().strip_prefix(root) else {
                return WalkState::Continue;
            };
            if pattern.matches(rel, is_dir) {
                let rel = rel.to_path_buf();
                let mtime = if want_mtime {
                    entry.metadata().ok().and_then(|m| m.modified().ok())
                } else {
                    None
                };
                flush.local.push(Hit { rel, is_dir, mtime });
            }
            WalkState::Continue
        })
    });
    shared.into_inner().unwrap_or_default()
}

/// Up to three existing names that look like what the pattern wanted: a case-insensitive
/// match first, then names containing the pattern's literal part, then close spellings.
fn suggest(ctx: &Context, root: &Path, rules: Rules, raw: &str) -> Vec<String> {
    let last = raw.trim_end_matches('/').rsplit('/').next().unwrap_or(raw);
    let core: String = last
        .chars()
        .filter(|c| !"*?[]{}!".contains(*c))
        .collect::<String>()
        .to_lowercase();
    let folded = crate::fs::walk::compile_glob(
        GlobBuilder::new(last)
            .case_insensitive(true)
            .literal_separator(true),
    )
    .ok();
    if core.is_empty() && folded.is_none() {
        return Vec::new();
    }
    let scored: Mutex<Vec<(f64, PathBuf, bool)>> = Mutex::new(Vec::new());
    walk::search_walker(root, rules, None).build_parallel().run(|| {
        let scored = &scored;
        let core = &core;
        let folded = &folded;
        Box::new(move |result| {
            let Ok(entry) = result else {
                return WalkState::Continue;
            };
            if entry.depth() == 0 {
                return WalkState::Continue;
            }
            let name = entry.file_name().to_string_lossy().to_lowercase();
            let score = if folded.as_ref().is_some_and(|g| g.is_match(&name)) {
                2.0
            } else if core.len() >= 2 && name.contains(core.as_str()) {
                1.0
            } else if core.is_empty() {
                0.0
            } else {
                strsim::jaro_winkler(core, &name)
            };
            if score >= MIN_SUGGESTION_SCORE {
                if let (Ok(rel), Ok(mut scored)) = (entry.path().strip_prefix(root), scored.lock()) {
                    let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
                    scored.push((score, rel.to_path_buf(), is_dir));
                }
            }
            WalkState::Continue
        })
    });
    let mut scored = scored.into_inner().unwrap_or_default();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    let reader = ctx.workspace.roots().reader();
    scored
        .into_iter()
        .filter(|(_, rel, _)| reader.holds(&root.join(rel)))
        .take(MAX_SUGGESTIONS)
        .map(|(_, rel, is_dir)| {
            let display = ctx.workspace.display(&root.join(rel));
            if is_dir {
                format!("{display}/")
            } else {
                display
            }
        })
        .collect()
}

fn no_match_text(args: &FileSearchArgs, root_display: &str, suggestions: &[String], hidden: usize) -> String {
    let mut text = format!(
        "No files or directories match {} under `{root_display}`.",
        crate::fs::workspace::quote_arg(&args.pattern)
    );
    let base = if args.path == "." {
        String::new()
    } else {
        format!(" path={}", crate::fs::workspace::quote_arg(&args.path))
    };
    if !suggestions.is_empty() {
        text.push_str(&format!("\nSimilar names: {}.", suggestions.join(", ")));
    }
    if hidden > 0 {
        text.push_str(&format!(
            "\n{hidden} {} hidden by .gitignore/.ignore rules. To list {}, call file_search with pattern={}{base} include_ignored=true.",
            if hidden == 1 { "match is" } else { "matches are" },
            if hidden == 1 { "it" } else { "them" },
            crate::fs::workspace::quote_arg(&args.pattern)
        ));
    }
    let trimmed = args.pattern.trim_end_matches('/');
    if !trimmed.is_empty() && !trimmed.contains(['*', '?', '[', '{', '/', '.']) {
        text.push_str(&format!(
            "\nNames must match whole; for names containing {0}, call file_search with pattern=\"*{1}*\"{base}.",
            crate::fs::workspace::quote_arg(trimmed),
            trimmed.replace('"', "\\\"")
        ));
    }
    if walk::ALWAYS_SKIP_DIRS.contains(&trimmed) {
        text.push_str(&format!(
            "\n`{trimmed}` is on the always-skip list, so file_search never lists it; use list_dir to see it."
        ));
    } else {
        text.push_str(&format!("\nAlways skipped: {}.", walk::SKIP_LIST_TEXT));
    }
    text
}

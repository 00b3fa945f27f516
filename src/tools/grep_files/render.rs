//! grep_files' output: result lines, the count-then-truncate line, and messages that name the
//! next call.

use serde_json::{json, Value};

use super::search::{Found, Query, RowKind};
use super::{GrepFilesArgs, OutputMode, MAX_RESULTS_CAP};
use crate::error::{RegexRefusal, ToolError};
use crate::notice::SearchNotice;
use crate::output::plural;
use crate::session::context::Context;
use crate::tools::ToolOutput;

/// The arguments of this call in catalog spelling, for "call grep_files with …" hints.
pub(super) struct CallText {
    pattern: String,
    rest: String,
}

impl CallText {
    pub(super) fn of(args: &GrepFilesArgs) -> CallText {
        let quote = crate::fs::workspace::quote_arg;
        let mut rest = String::new();
        if args.path != "." {
            rest.push_str(&format!(" path={}", quote(&args.path)));
        }
        let globs = |v: &[String]| match v {
            [one] => quote(one),
            many => serde_json::to_string(many).unwrap_or_default(),
        };
        if !args.include.is_empty() {
            rest.push_str(&format!(" include={}", globs(&args.include)));
        }
        if !args.exclude.is_empty() {
            rest.push_str(&format!(" exclude={}", globs(&args.exclude)));
        }
        CallText {
            pattern: quote(&args.pattern),
            rest,
        }
    }

    /// `pattern="…" path="…"` (path and globs only when given).
    pub(super) fn base(&self) -> String {
        format!("pattern={}{}", self.pattern, self.rest)
    }
}

/// `invalid_arguments` for a pattern the regex engine refused: its message, then the way out.
pub(super) fn regex_error(args: &GrepFilesArgs, call: &CallText, err: &grep_regex::Error) -> ToolError {
    let engine = users_pattern_error(&args.pattern, &err.to_string());
    let refusal = RegexRefusal {
        engine: engine.trim_end(),
        lookaround: engine.contains("look-around") || engine.contains("backreferences"),
        line_break: engine.contains("not allowed in a regex"),
    };
    ToolError::bad_regex(&args.pattern, &refusal, &call.base())
}

/// The engine's message as it bears on the pattern the caller wrote. grep_regex parses the
/// pattern wrapped in `(?:…)`, so its message shows the wrapper and a caret three columns off.
/// Parsing the caller's own pattern with the regex crate gives the same error over their text,
/// caret in place; an error regex does not raise (a grep-only rule such as no line break) has
/// the wrapper taken out of the quoted pattern and the caret moved back.
fn users_pattern_error(pattern: &str, engine: &str) -> String {
    if let Err(regex::Error::Syntax(own)) = regex::Regex::new(pattern) {
        return own;
    }
    const WRAP: &str = "(?:";
    let wrapped = format!("{WRAP}{pattern})");
    let lines: Vec<&str> = engine.lines().collect();
    let Some(at) = lines.iter().position(|l| l.trim_start() == wrapped) else {
        return engine.to_string();
    };
    let indent = &lines[at][..lines[at].len() - wrapped.len()];
    let mut out: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    out[at] = format!("{indent}{pattern}");
    if let Some(caret) = out.get_mut(at + 1).filter(|l| l.trim_start().starts_with('^')) {
        // The wrapper's three columns come out of the caret's padding.
        let pad = caret.len() - caret.trim_start().len();
        let keep = pad.saturating_sub(WRAP.len()).max(indent.len());
        *caret = format!("{}{}", " ".repeat(keep), caret.trim_start());
    }
    out.join("\n")
}

/// The files (files mode) or the per-file counts (count mode) shown, as lines and items.
/// Returns how many were shown.
fn file_lines(
    ctx: &Context,
    query: &Query,
    found: &Found,
    lines: &mut Vec<String>,
    items: &mut Vec<Value>,
) -> u64 {
    for (path, hits) in found.files.iter().take(query.max_results) {
        let display = ctx.workspace.display(path);
        if query.mode == OutputMode::Files {
            lines.push(display.clone());
            items.push(Value::String(display));
        } else {
            lines.push(format!("{display}:{}", hits.matches));
            items.push(json!({"path": display, "count": hits.matches}));
        }
    }
    found.files.len().min(query.max_results) as u64
}

/// How many matches in how many files; when cut, how to see the rest; and what was skipped.
fn summary_line(query: &Query, found: &Found, shown: u64, truncated: bool) -> String {
    let summary = format!(
        "{} in {}",
        plural(found.total_matches, "match", "matches"),
        plural(found.matching_files, "file", "files")
    );
    let mut line = if truncated {
        let unit = if query.mode == OutputMode::Content {
            ""
        } else {
            " files"
        };
        format!(
            "{summary}; showing the first {shown}{unit}. To see the rest, narrow the search (path, \
             include, exclude or a more specific pattern){}; output_mode=\"count\" shows matches per file.",
            if (query.max_results as u64) < MAX_RESULTS_CAP {
                format!(" or raise max_results (at most {MAX_RESULTS_CAP})")
            } else {
                String::new()
            }
        )
    } else {
        summary
    };
    if let Some(skips) = skip_note(found) {
        line.push_str(&format!(" ({skips})"));
    }
    line
}

/// The output text and data for a finished search.
pub(super) fn render(
    ctx: &Context,
    args: &GrepFilesArgs,
    call: &CallText,
    root_display: &str,
    query: &Query,
    found: &Found,
    hidden_by_rules: u64,
) -> ToolOutput {
    let limit = query.max_results;
    let mut lines: Vec<String> = Vec::new();
    let mut items: Vec<Value> = Vec::new();
    let shown: u64 = match query.mode {
        OutputMode::Content => content_lines(ctx, query, found, &mut lines, &mut items),
        OutputMode::Files | OutputMode::Count => file_lines(ctx, query, found, &mut lines, &mut items),
    };
    let truncated = match query.mode {
        OutputMode::Content => found.total_matches > shown,
        _ => found.matching_files > shown,
    };
    let mut output = lines.join("\n");
    if found.total_matches == 0 {
        output = no_match_text(args, call, root_display, found, hidden_by_rules);
    } else {
        output.push_str("\n\n");
        output.push_str(&summary_line(query, found, shown, truncated));
        if let Some(note) = found
            .files
            .keys()
            .next()
            .and_then(|first| crate::tools::cwd_note(ctx, first))
        {
            output.push('\n');
            output.push_str(&note);
        }
    }
    let key = match query.mode {
        OutputMode::Content => "matches",
        OutputMode::Files => "files",
        OutputMode::Count => "counts",
    };
    let mut out = ToolOutput::new(output)
        .with("pattern", args.pattern.clone())
        .with("path", root_display.to_string())
        .with("output_mode", query.mode.as_str())
        .with("total_matches", found.total_matches)
        .with("total_files", found.matching_files)
        .with("files_searched", found.files_searched)
        .with("shown", shown)
        .with("truncated", truncated)
        .with("max_results", limit as u64)
        .with("skipped_binary", found.skipped_binary)
        .with("skipped_large", found.skipped_large)
        .with(key, Value::Array(items));
    if found.total_matches == 0 && !args.include_ignored {
        out = out.with("ignored_files", hidden_by_rules);
    }
    if found.errors > 0 {
        out = out
            .with("unreadable", found.errors)
            .notice(SearchNotice::Unreadable { count: found.errors });
    }
    out
}

/// Files searched but not read for content, in words; None when there were none.
fn skip_note(found: &Found) -> Option<String> {
    let mut parts = Vec::new();
    if found.skipped_binary > 0 {
        parts.push(format!(
            "{} skipped",
            plural(found.skipped_binary, "binary file", "binary files")
        ));
    }
    if found.skipped_large > 0 {
        parts.push(format!(
            "{} over 10 MB skipped",
            plural(found.skipped_large, "file", "files")
        ));
    }
    (!parts.is_empty()).then(|| parts.join(", "))
}

/// The content rows of the first `max_results` matches, in path then line order. Returns how
/// many matches were shown.
fn content_lines(
    ctx: &Context,
    query: &Query,
    found: &Found,
    lines: &mut Vec<String>,
    items: &mut Vec<Value>,
) -> u64 {
    let limit = query.max_results as u64;
    let mut shown = 0u64;
    let mut first_file = true;
    'files: for (path, hits) in &found.files {
        if shown >= limit {
            break;
        }
        let display = ctx.workspace.display(path);
        if query.context > 0 && !first_file {
            lines.push("--".to_string());
        }
        first_file = false;
        // After the last shown match, only its continuation and after-context lines follow.
        let mut tail_until: Option<u64> = None;
        for row in &hits.rows {
            if let Some(until) = tail_until {
                let fits = match row.kind {
                    RowKind::MatchContinued => true,
                    RowKind::Context => row.line <= until,
                    RowKind::Match | RowKind::Break => false,
                };
                if !fits {
                    break 'files;
                }
            }
            match row.kind {
                RowKind::Break => lines.push("--".to_string()),
                RowKind::Context => lines.push(format!("{display}-{}-{}", row.line, row.text)),
                RowKind::Match | RowKind::MatchContinued => {
                    if row.kind == RowKind::Match {
                        shown += 1;
                    }
                    lines.push(format!("{display}:{}:{}", row.line, row.text));
                    items.push(json!({"path": display, "line": row.line, "text": row.text}));
                    if shown >= limit {
                        tail_until = Some(row.line + query.context as u64);
                    }
                }
            }
            if let Some(until) = tail_until.as_mut() {
                if row.kind == RowKind::MatchContinued {
                    *until = row.line + query.context as u64;
                }
            }
        }
    }
    shown
}

/// What to say when nothing matched: where it looked, what it skipped, and the calls to try.
fn no_match_text(
    args: &GrepFilesArgs,
    call: &CallText,
    root_display: &str,
    found: &Found,
    hidden_by_rules: u64,
) -> String {
    let mut text = format!(
        "No matches for {} in `{root_display}` ({} searched",
        crate::fs::workspace::quote_arg(&args.pattern),
        plural(found.files_searched, "file", "files"),
    );
    if let Some(skips) = skip_note(found) {
        text.push_str(&format!("; {skips}"));
    }
    text.push_str(").");
    if hidden_by_rules > 0 {
        text.push_str(&format!(
            "\n{} hidden by .gitignore/.ignore rules {} not searched. To search {} too, call grep_files with {} include_ignored=true.",
            plural(hidden_by_rules, "file", "files"),
            if hidden_by_rules == 1 { "was" } else { "were" },
            if hidden_by_rules == 1 { "it" } else { "them" },
            call.base()
        ));
    }
    let text_files_searched = found.files_searched.saturating_sub(found.skipped_binary);
    if text_files_searched == 0 && found.skipped_binary + found.skipped_large > 0 {
        // Nothing was searched at all: the pattern is not the problem.
        text.push_str(
            "\nNo text file under 10 MB was searched, so the pattern was not tried. To search a \
             binary or very large file anyway, use exec_shell with `grep -a -n PATTERN FILE` (or \
             `grep -c` to count); read_file pages through a large text file.",
        );
        text.push_str(&format!(
            "\nAlways skipped: {}. To find files by name, use file_search.",
            super::skip_list()
        ));
        return text;
    }
    if !args.case_insensitive && args.pattern.chars().any(char::is_alphabetic) {
        text.push_str(&format!(
            "\nTo ignore case, call grep_files with {} case_insensitive=true.",
            call.base()
        ));
    }
    if !args.fixed_strings && args.pattern.chars().any(|c| "()[]{}.*+?|^$\\".contains(c)) {
        text.push_str(&format!(
            "\nThe pattern is a regex; if you meant the characters literally, call grep_files with {} fixed_strings=true.",
            call.base()
        ));
    }
    text.push_str(&format!(
        "\nAlways skipped: {}. To find files by name, use file_search.",
        super::skip_list()
    ));
    text
}

#[cfg(test)]
mod tests {
    use super::users_pattern_error;

    #[test]
    fn the_wrapper_comes_out_of_an_engine_only_error() {
        // An error the regex crate does not raise (here: faked with a valid pattern).
        let engine = "regex parse error:\n    (?:a\\sb)\n         ^^\nerror: grep-only rule";
        assert_eq!(
            users_pattern_error("a\\sb", engine),
            "regex parse error:\n    a\\sb\n      ^^\nerror: grep-only rule"
        );
        // Anything else passes through.
        assert_eq!(users_pattern_error("ab", "something else"), "something else");
    }
}

//! edit_file: replace text in a file this session has read, located by the matching ladder,
//! written atomically in the file's own encoding and line endings.

mod adapt;
mod diagnose;
mod matching;

use std::ops::Range;

use schemars::JsonSchema;
use serde::Deserialize;

use crate::error::{line_list, EditForm, RangeEndMiss, ToolError};
use crate::fs::line_endings::{to_lf, LfEdit};
use crate::fs::workspace::WsPath;
use crate::notice::FileNotice;
use crate::session::context::Context;
use crate::tools::file_change;
use crate::tools::{Capability, DataField, ToolOutput, ToolSpec};
use adapt::IndentChange;
use matching::Level;

pub const SPEC: ToolSpec = ToolSpec {
    name: "edit_file",
    id: crate::tool_id::ToolId::EditFile,
    alias: "edit",
    positional: Some("path"),
    capability: Capability::WritesFiles,
    description: DESCRIPTION,
    schema: crate::tools::schema_of::<EditFileArgs>,
    caps: &[],
    data: &[
        DataField::always("path", "string"),
        DataField::always("match", "string"),
        DataField::always("replacements", "integer"),
        DataField::always("lines", "array"),
        DataField::always("dry_run", "boolean"),
        DataField::always("line_ending", "string"),
        DataField::always("diff", "string"),
        DataField::sometimes("encoding", "string"),
        DataField::sometimes("indentation", "string"),
    ],
    run: |args, ctx| run(crate::tools::parse("edit_file", args, SPEC.schema)?, ctx),
};

const DESCRIPTION: &str = "Replace text in a file: search names the exact text to change, replace is what it becomes.
Use this instead of sed -i, perl -pi, heredocs or echo > in exec_shell. Read the file with read_file first (in this session; an unread or since-changed file is refused with not_read or stale). Copy search from read_file's output WITHOUT the `    12│ ` line-number prefixes, and include enough surrounding lines to make it unique: several matches give multiple_matches with the count and line numbers, then pass replace_all=true to change every one or occurrence=N (1-based) to pick one. Only the matched span changes; every other byte of the file stays as it was.
When search does not match exactly, edit_file tries, in order and only if the result is unique: ignoring leading/trailing whitespace on each line (if search's indentation is off by a uniform amount, the replacement's new lines are shifted by the same amount, and the result says so); treating curly quotes, en/em dashes and non-breaking spaces as their ASCII forms (replace's new lines then follow the file: curly quotes where it uses them, ASCII where it does); stripping pasted line-number prefixes when every line has one and the numbers name exactly those lines. It never forgives different words, different whitespace inside a line, or different line breaks, and it never guesses between two candidates. data.match says which level hit (exact, indentation, punctuation, line_numbers). On no match, the error says why (pasted line numbers, a whitespace difference near line N, or the closest real line) and which read_file call shows the current text.
For a long range, pass search_start and search_end instead of search: the range runs from the (unique) search_start through the first search_end after it, both included. CRLF line endings, a BOM and legacy encodings (Latin-1, Shift-JIS, ...) are kept. dry_run=true shows the diff without writing. A .json, .toml, .rs, .py or .yaml file that parses may not be edited into one that does not (syntax_gate). Use write_file to create files.
Examples:
{\"path\": \"src/lib.rs\", \"search\": \"fn old_name(\", \"replace\": \"fn new_name(\"}
{\"path\": \"src/lib.rs\", \"search\": \"old_name(\", \"replace\": \"new_name(\", \"replace_all\": true}
{\"path\": \"src/lib.rs\", \"search_start\": \"fn parse(\", \"search_end\": \"\\n}\\n\", \"replace\": \"fn parse(input: &str) -> Ast {\\n    Parser::new(input).run()\\n}\\n\"}";

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EditFileArgs {
    /// The file to edit: relative to the session cwd, or absolute inside the workspace.
    pub path: String,
    /// The exact text to replace (from read_file, without line-number prefixes); must match once.
    #[serde(default)]
    pub search: Option<String>,
    /// The new text for the match (or for the whole search_start..search_end range); empty deletes.
    pub replace: String,
    /// Replace every match of search instead of requiring exactly one.
    #[serde(default)]
    pub replace_all: bool,
    /// Which match to replace when search (or search_start) matches several times: 1-based.
    #[serde(default)]
    #[schemars(range(min = 1))]
    pub occurrence: Option<i64>,
    /// Anchor mode, instead of search: the text where the range begins (must match once).
    #[serde(default)]
    pub search_start: Option<String>,
    /// Anchor mode: the range ends with the first match of this text after search_start.
    #[serde(default)]
    pub search_end: Option<String>,
    /// Show the diff and the match without writing anything.
    #[serde(default)]
    pub dry_run: bool,
}

enum Mode<'a> {
    Search(&'a str),
    Range(&'a str, &'a str),
}

/// The form of the call: one search, or a search_start/search_end range.
fn mode_of(args: &EditFileArgs) -> Result<Mode<'_>, ToolError> {
    let refuse = |form| Err(ToolError::edit_form(form));
    match (&args.search, &args.search_start, &args.search_end) {
        (Some(_), Some(_), _) | (Some(_), _, Some(_)) => refuse(EditForm::SearchAndRange),
        (None, Some(_), None) => refuse(EditForm::HalfRange {
            given: "search_start",
            missing: "search_end",
        }),
        (None, None, Some(_)) => refuse(EditForm::HalfRange {
            given: "search_end",
            missing: "search_start",
        }),
        (None, None, None) => refuse(EditForm::NoSearch),
        (Some(search), None, None) => Ok(Mode::Search(search)),
        (None, Some(start), Some(end)) => Ok(Mode::Range(start, end)),
    }
}

/// The validation chain: contradictory or empty arguments are refused before any I/O.
fn validate(args: &EditFileArgs) -> Result<Mode<'_>, ToolError> {
    let mode = mode_of(args)?;
    let wrong = match mode {
        Mode::Search("") => Some(EditForm::EmptySearch),
        Mode::Search(search) if search == args.replace => Some(EditForm::NoChange),
        Mode::Range(start, end) if start.is_empty() || end.is_empty() => Some(EditForm::EmptyAnchor),
        Mode::Range(..) if args.replace_all => Some(EditForm::ReplaceAllOnRange),
        _ if args.replace_all && args.occurrence.is_some() => Some(EditForm::ReplaceAllAndOccurrence),
        _ => args
            .occurrence
            .filter(|n| *n < 1)
            .map(EditForm::OccurrenceNotPositive),
    };
    match wrong {
        Some(form) => Err(ToolError::edit_form(form)),
        None => Ok(mode),
    }
}

/// What will change.
struct Plan {
    edits: Vec<LfEdit>,
    level: Level,
    /// 1-based first line of each replaced span.
    lines: Vec<usize>,
    indent: IndentChange,
    replace_was_numbered: bool,
    /// Typographic characters of replace were folded to the file's ASCII forms.
    punctuation_folded: bool,
    summary: String,
}

/// Whether `parts`, one after another, are exactly `text`.
fn spells(parts: &[std::borrow::Cow<str>], text: &str) -> bool {
    let mut rest = text;
    for part in parts {
        match rest.strip_prefix(part.as_ref()) {
            Some(after) => rest = after,
            None => return false,
        }
    }
    rest.is_empty()
}

pub fn run(args: EditFileArgs, ctx: &mut Context) -> Result<ToolOutput, ToolError> {
    let mode = validate(&args)?;
    let path = ctx.resolve_for_write(&args.path)?;
    let _lock = file_change::lock(&ctx.state, &path)?;
    let file = file_change::load(ctx, &path, &args.path)?;
    let lf = file.lf();
    let hay = lf.as_str();
    let display = path.display.as_str();
    let plan = match mode {
        Mode::Search(search) => plan_search(&path, hay, search, &args)?,
        Mode::Range(start, end) => plan_range(&path, hay, start, end, &args)?,
    };
    let parts = lf.splice_parts(&plan.edits);
    let notes = plan.notes();
    let mut out_notices = Vec::new();
    if let Some(label) = file.encoding_label() {
        out_notices.push(
            FileNotice::EditedInEncoding {
                path: display.to_string(),
                label,
            }
            .into(),
        );
    }
    if spells(&parts, &file.text) {
        return Ok(unchanged(
            display,
            &plan,
            &notes,
            args.dry_run,
            lf.profile().kind(),
        ));
    }
    let diff = crate::fs::diff::unified_for_edits(display, hay, &plan.edits);
    // A plain UTF-8 file is written part by part from the text already read, so a large one is
    // held once; otherwise the new text is made whole, to encode it and pass the syntax gate.
    if file_change::writes_spliced(&file) {
        if !args.dry_run {
            let parts: Vec<&str> = parts.iter().map(|part| part.as_ref()).collect();
            file_change::commit_spliced(&ctx.state, &file, &parts)?;
        }
    } else {
        let prepared = file_change::prepare_owned(&path, Some(&file), parts.concat())?;
        if !args.dry_run {
            prepared.commit(&ctx.state, Some(&file))?;
        }
    }
    let mut text = if args.dry_run {
        format!(
            "Dry run: edit_file would replace {} in `{display}` (match: {}). Nothing was written; \
             call again without dry_run to apply.",
            plan.summary,
            plan.level.as_str()
        )
    } else {
        format!(
            "Edited `{display}`: replaced {} (match: {}).",
            plan.summary,
            plan.level.as_str()
        )
    };
    for note in &notes {
        text.push('\n');
        text.push_str(note);
    }
    text.push('\n');
    text.push_str(&crate::fs::diff::abbreviate(&diff));
    let mut out = ToolOutput::new(text)
        .with("path", display)
        .with("match", plan.level.as_str())
        .with("replacements", plan.edits.len())
        .with("lines", plan.lines.clone())
        .with("dry_run", args.dry_run)
        .with("line_ending", lf.profile().kind())
        .with("diff", diff);
    if let Some(label) = file.encoding_label() {
        out = out.with("encoding", label);
    }
    if let Some(indentation) = plan.indent.as_field() {
        out = out.with("indentation", indentation);
    }
    out.notices = out_notices;
    Ok(out)
}

/// The result of an edit whose replacement leaves the file as it is: nothing is written.
fn unchanged(display: &str, plan: &Plan, notes: &[String], dry_run: bool, line_ending: &str) -> ToolOutput {
    let mut text = format!(
        "The replacement leaves `{display}` unchanged (it matched {}); nothing was written.",
        plan.summary
    );
    for note in notes {
        text.push('\n');
        text.push_str(note);
    }
    ToolOutput::new(text)
        .with("path", display)
        .with("match", plan.level.as_str())
        .with("replacements", 0)
        .with("lines", plan.lines.clone())
        .with("dry_run", dry_run)
        .with("line_ending", line_ending)
        .with("diff", "")
}

impl Plan {
    /// The lines the result adds after its first: how the match was found and what was
    /// adapted in replace.
    fn notes(&self) -> Vec<String> {
        let mut notes = Vec::new();
        if let Some(forgiven) = self.level.forgiven() {
            notes.push(format!(
                "search did not match exactly; it was found by forgiving {} (match: {}). Only the matched span changed.",
                forgiven.phrase(),
                self.level.as_str()
            ));
        }
        if self.replace_was_numbered {
            notes.push("The line-number prefixes were stripped from replace as well.".to_string());
        }
        if let Some(note) = self.indent.describe() {
            notes.push(note);
        }
        if self.punctuation_folded {
            notes.push(
                "The file uses straight ASCII punctuation where search had typographic characters (curly \
                 quotes, dashes, special spaces); replace's punctuation was folded the same way to match the \
                 file."
                    .to_string(),
            );
        }
        notes
    }
}

fn plan_search(path: &WsPath, hay: &str, search: &str, args: &EditFileArgs) -> Result<Plan, ToolError> {
    let display = path.display.as_str();
    let search = to_lf(search);
    let replace = to_lf(&args.replace);
    let Some(found) = matching::find(hay, &search, &replace) else {
        return Err(no_match(path, hay, &search, "search"));
    };
    if found.replace_mixed {
        return Err(ToolError::mixed_replace_prefixes(display));
    }
    let count = found.hits.len();
    let all_lines = line_numbers(hay, &found.hits);
    let chosen: Vec<usize> = match (count, args.replace_all, args.occurrence) {
        (1, _, None) | (1, true, _) => vec![0],
        (_, _, Some(n)) => vec![pick(display, n, &all_lines, "search")?],
        (_, true, None) if found.level == Level::Exact => (0..count).collect(),
        _ => return Err(multiple_matches(display, &found, &all_lines, args.replace_all)),
    };
    let mut edits = Vec::with_capacity(chosen.len());
    let mut indent = IndentChange::Kept;
    let mut punctuation_folded = false;
    for &i in &chosen {
        let range = found.hits[i].clone();
        let text = if found.level == Level::Exact {
            found.replace.clone()
        } else {
            let matched = &hay[range.clone()];
            let (mut search, mut replace) = (found.search.as_str(), found.replace.as_str());
            // A search ending in a newline that matched the file's last line, which has none.
            if search.ends_with('\n') && !matched.ends_with('\n') {
                search = &search[..search.len() - 1];
                replace = replace.strip_suffix('\n').unwrap_or(replace);
            }
            let typography = found.level == Level::Punctuation;
            let mid_line = range.start > 0 && hay.as_bytes()[range.start - 1] != b'\n';
            let (text, change, folded) = adapt::adapt(matched, search, replace, mid_line, typography);
            indent = change;
            punctuation_folded |= folded;
            text
        };
        edits.push(LfEdit { range, text });
    }
    let lines: Vec<usize> = chosen.iter().map(|&i| all_lines[i]).collect();
    let summary = match lines.len() {
        1 if count > 1 => format!("occurrence {} of {count} at line {}", chosen[0] + 1, lines[0]),
        1 => format!("1 occurrence at line {}", lines[0]),
        n => format!("{n} occurrences at lines {}", line_list(&lines)),
    };
    Ok(Plan {
        edits,
        level: found.level,
        lines,
        indent,
        replace_was_numbered: found.replace_was_numbered,
        punctuation_folded,
        summary,
    })
}

/// An anchor (search_start or search_end): exact, else with punctuation folded, else with the
/// anchor's own surrounding spaces/tabs trimmed.
fn find_anchor(hay: &str, anchor: &str) -> (Level, Vec<Range<usize>>) {
    let exact = matching::find_exact(hay, anchor);
    if !exact.is_empty() {
        return (Level::Exact, exact);
    }
    let folded = matching::find_punctuation_substring(hay, anchor);
    if !folded.is_empty() {
        return (Level::Punctuation, folded);
    }
    let trimmed = anchor.trim_matches(|c| c == ' ' || c == '\t');
    if !trimmed.is_empty() && trimmed != anchor {
        return (Level::Indentation, matching::find_exact(hay, trimmed));
    }
    (Level::Exact, Vec::new())
}

fn plan_range(
    path: &WsPath,
    hay: &str,
    start: &str,
    end: &str,
    args: &EditFileArgs,
) -> Result<Plan, ToolError> {
    let display = path.display.as_str();
    let start = to_lf(start);
    let end = to_lf(end);
    let (start_level, starts) = find_anchor(hay, &start);
    if starts.is_empty() {
        return Err(no_match(path, hay, &start, "search_start"));
    }
    let start_lines = line_numbers(hay, &starts);
    let index = match (starts.len(), args.occurrence) {
        (1, None) => 0,
        (_, Some(n)) => pick(display, n, &start_lines, "search_start")?,
        (_, None) => return Err(ToolError::ambiguous_range_start(display, &start_lines)),
    };
    let begin = starts[index].clone();
    let (end_level, ends) = find_anchor(&hay[begin.end..], &end);
    let Some(first_end) = ends.first() else {
        return Err(ToolError::no_range_end(
            display,
            start_lines[index],
            &where_end_occurs(hay, &end, &begin),
            &path.call_arg(),
        ));
    };
    let range = begin.start..begin.end + first_end.end;
    let first_line = start_lines[index];
    let last_line = first_line + hay[range.clone()].trim_end_matches('\n').matches('\n').count();
    let level = start_level.max(end_level);
    let mut text = to_lf(&args.replace).into_owned();
    let mut punctuation_folded = false;
    if level == Level::Punctuation {
        // As for search: typographic characters the anchors had but the file has in ASCII are
        // folded in replace too.
        let end_span = begin.end + first_end.start..begin.end + first_end.end;
        let matched = format!("{}\n{}", &hay[begin.clone()], &hay[end_span]);
        let folded = adapt::fold_like_file(&text, &matched, &format!("{start}\n{end}"));
        punctuation_folded = folded != text;
        text = folded;
    }
    Ok(Plan {
        edits: vec![LfEdit { range, text }],
        level,
        lines: vec![first_line],
        indent: IndentChange::Kept,
        replace_was_numbered: false,
        punctuation_folded,
        summary: format!("lines {first_line}-{last_line} (search_start through search_end)"),
    })
}

/// Where a search_end that does not follow search_start (matched at `begin`) does occur:
/// before it, or inside its own match (search_end is looked for only after it ends, so the same
/// text never closes its range); else why it is not in the file.
fn where_end_occurs(hay: &str, end: &str, begin: &Range<usize>) -> RangeEndMiss {
    let anywhere = find_anchor(hay, end).1;
    let Some(first) = anywhere.iter().find(|r| r.start < begin.end) else {
        return RangeEndMiss::Absent(diagnose::diagnose(hay, end).cause);
    };
    let line = line_numbers(hay, std::slice::from_ref(first))[0];
    if first.start >= begin.start {
        RangeEndMiss::InsideStart(line)
    } else {
        RangeEndMiss::Before(line)
    }
}

/// Picks match `n` (1-based) of `lines.len()`, or says the legal range.
fn pick(display: &str, n: i64, lines: &[usize], what: &str) -> Result<usize, ToolError> {
    let count = lines.len();
    if n >= 1 && (n as usize) <= count {
        return Ok(n as usize - 1);
    }
    Err(ToolError::occurrence_out_of_range(n, what, display, lines))
}

fn multiple_matches(display: &str, found: &matching::Found, lines: &[usize], replace_all: bool) -> ToolError {
    ToolError::multiple_matches(
        display,
        lines,
        found.level.forgiven(),
        found.level.as_str(),
        replace_all,
    )
}

fn no_match(path: &WsPath, hay: &str, search: &str, what: &str) -> ToolError {
    let diagnosis = diagnose::diagnose(hay, search);
    ToolError::no_match(
        what,
        &path.display,
        &path.call_arg(),
        &diagnosis.cause,
        diagnosis.near_line,
    )
}

/// 1-based line numbers of the starts of sorted `ranges`, in one pass over the text.
fn line_numbers(hay: &str, ranges: &[Range<usize>]) -> Vec<usize> {
    let mut line = 1;
    let mut at = 0;
    ranges
        .iter()
        .map(|r| {
            if r.start >= at {
                line += memchr::memchr_iter(b'\n', &hay.as_bytes()[at..r.start]).count();
            } else {
                line -= memchr::memchr_iter(b'\n', &hay.as_bytes()[r.start..at]).count();
            }
            at = r.start;
            line
        })
        .collect()
}

//! find_symbol's text: counts first, then definitions and references as `path:line: text`
//! with the kind, container and line range after the text.

use super::{FindSymbolArgs, Found, Hit, Wanted};
use crate::fs::workspace::quote_arg;
use crate::output::plural;
use crate::session::context::Context;
use crate::tools::ToolOutput;

pub(super) struct Search<'a> {
    pub args: &'a FindSymbolArgs,
    pub wanted: &'a Wanted,
    pub root_display: &'a str,
    pub max_results: usize,
    /// Source files in a supported language under the path.
    pub files: usize,
    /// Files that refer to the name without defining it (known before references are read).
    pub referenced_elsewhere: usize,
}

fn definition_line(hit: &Hit) -> String {
    let s = &hit.symbol;
    let container = if s.container.is_empty() {
        String::new()
    } else {
        format!(" in {}", s.container)
    };
    format!(
        "{}:{}: {}  [{} {}{container}, lines {}-{}]",
        hit.path, s.line, s.text, s.kind, s.name, s.start_line, s.end_line
    )
}

fn reference_line(hit: &Hit) -> String {
    format!(
        "{}:{}: {}  [{}]",
        hit.path, hit.symbol.line, hit.symbol.text, hit.symbol.kind
    )
}

fn hit_data(hit: &Hit) -> serde_json::Value {
    let s = &hit.symbol;
    serde_json::json!({
        "path": hit.path,
        "line": s.line,
        "start_line": s.start_line,
        "end_line": s.end_line,
        "kind": s.kind,
        "name": s.name,
        "container": s.container,
        "text": s.text,
    })
}

/// The shown definitions and references, each list under its heading.
fn hit_lines(search: &Search, found: &Found, shown_defs: usize, shown_refs: usize) -> String {
    let mut text = String::new();
    if !found.definitions.is_empty() {
        text.push_str("\n\nDefinitions:\n");
        let lines: Vec<String> = found.definitions[..shown_defs]
            .iter()
            .map(definition_line)
            .collect();
        text.push_str(&lines.join("\n"));
    }
    if search.args.include_references && !found.references.is_empty() {
        text.push_str("\n\nReferences:\n");
        if shown_refs == 0 {
            text.push_str("(none shown: max_results is taken by the definitions)");
        }
        let lines: Vec<String> = found.references[..shown_refs]
            .iter()
            .map(reference_line)
            .collect();
        text.push_str(&lines.join("\n"));
    }
    text
}

pub(super) fn render(ctx: &Context, search: &Search, found: &Found, suggestions: &[String]) -> ToolOutput {
    let name = &search.args.name;
    let defs = found.definitions.len();
    let refs = found.references.len();
    let shown_defs = defs.min(search.max_results);
    let shown_refs = refs.min(search.max_results - shown_defs);
    let mut text = summary(search, found);
    text.push_str(&hit_lines(search, found, shown_defs, shown_refs));
    text.push_str(&partial_note(search, found));
    let truncated = shown_defs < defs || shown_refs < refs;
    if truncated {
        text.push_str(&format!(
            "\n\nShowing {} of {} definitions and {} of {} references. To see the rest, narrow path or kind{}.",
            shown_defs,
            defs,
            shown_refs,
            refs,
            if (search.max_results as u64) < super::MAX_RESULTS_CAP {
                format!(", or raise max_results (at most {})", super::MAX_RESULTS_CAP)
            } else {
                String::new()
            }
        ));
    }
    if let Some(first) = found.definitions.first() {
        let s = &first.symbol;
        text.push_str(&format!(
            "\n\nTo read the first definition: read_file with path={} start_line={} max_lines={}",
            quote_arg(&ctx.workspace.call_path_of(&first.path)),
            s.start_line,
            (s.end_line - s.start_line + 1).clamp(1, 500)
        ));
    } else if refs == 0 {
        text.push_str(&no_match_advice(search, suggestions));
    }
    let mut out = ToolOutput::new(text)
        .with("name", name.clone())
        .with(
            "match",
            if found.case_insensitive {
                "case_insensitive"
            } else {
                "exact"
            },
        )
        .with("total_definitions", defs)
        .with("total_references", refs)
        .with(
            "definitions",
            found.definitions[..shown_defs]
                .iter()
                .map(hit_data)
                .collect::<Vec<_>>(),
        )
        .with(
            "references",
            found.references[..shown_refs]
                .iter()
                .map(hit_data)
                .collect::<Vec<_>>(),
        )
        .with("truncated", truncated)
        .with("files_searched", search.files);
    if defs == 0 && refs == 0 {
        out = out.with("suggestions", suggestions.to_vec());
    }
    if search.args.include_references {
        out = out.with("references_partial", found.partial.clone());
    }
    out
}

/// Says which files' references may be incomplete (they did not parse cleanly) and how to
/// see every mention.
fn partial_note(search: &Search, found: &Found) -> String {
    const SHOWN: usize = 10;
    if found.partial.is_empty() {
        return String::new();
    }
    let mut names = found.partial[..found.partial.len().min(SHOWN)].join(", ");
    if found.partial.len() > SHOWN {
        names.push_str(&format!(" and {} more", found.partial.len() - SHOWN));
    }
    format!(
        "\n\nReferences may be incomplete in {} that did not parse cleanly: {names}. grep_files with pattern={} finds every mention.",
        plural(found.partial.len(), "file", "files"),
        quote_arg(&format!("\\b{}\\b", search.wanted.base))
    )
}

fn summary(search: &Search, found: &Found) -> String {
    let name = &search.args.name;
    let defs = found.definitions.len();
    let files = |hits: &[Hit]| {
        let mut paths: Vec<&str> = hits.iter().map(|h| h.path.as_str()).collect();
        paths.dedup();
        paths.len()
    };
    let case = if found.case_insensitive && (defs > 0 || !found.references.is_empty()) {
        " (no exact match; matched ignoring case)"
    } else {
        ""
    };
    let mut text = if defs == 0 {
        format!("No definition of `{name}`{case}")
    } else {
        format!(
            "{} of `{name}` in {}{case}",
            plural(defs, "definition", "definitions"),
            plural(files(&found.definitions), "file", "files")
        )
    };
    if search.args.include_references {
        text.push_str(&format!(
            "; {} in {}",
            plural(found.references.len(), "reference", "references"),
            plural(files(&found.references), "file", "files")
        ));
    } else if defs == 0 && search.referenced_elsewhere > 0 {
        text.push_str(&format!(
            "; it is referenced in {}: call find_symbol with name={} include_references=true to see where",
            plural(search.referenced_elsewhere, "file", "files"),
            quote_arg(name)
        ));
    }
    text
}

fn no_match_advice(search: &Search, suggestions: &[String]) -> String {
    let mut text = format!(
        "\n\nSearched {} under `{}` ({}).",
        plural(search.files, "source file", "source files"),
        search.root_display,
        crate::symbols::languages::LANGUAGES
            .iter()
            .map(|l| l.name)
            .collect::<Vec<_>>()
            .join(", ")
    );
    if !suggestions.is_empty() {
        text.push_str(&format!(
            " Similar defined names: {}. Call find_symbol with one of them, e.g. name={}.",
            suggestions.join(", "),
            quote_arg(&suggestions[0])
        ));
    }
    if search.wanted.kind.is_some() {
        text.push_str(" Without kind more may match.");
    }
    text.push_str(&format!(
        " If it is defined in another language, generated, or only mentioned in text, search the text: \
         grep_files with pattern={}.",
        quote_arg(&format!("\\b{}\\b", search.wanted.base))
    ));
    text
}

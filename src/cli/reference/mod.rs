//! The reference documents rendered from the registry and the error codes: `docs/TOOLS.md`,
//! `docs/ERRORS.md`, and the behaviour notes the man page's TOOLS section shares with them.
//!
//! A tool's description and schema come from its `ToolSpec`; what it does beyond them (limits,
//! refusals, the shape of `data`) is written once, in `notes/<tool>.md`, and rendered into both
//! `docs/TOOLS.md` and `man/codesmith.1`. The `generated` integration test keeps the committed
//! copies current.

pub mod errors;
pub mod roff;

use crate::dispatch::catalog;
use crate::tools::{ToolSpec, REGISTRY};

/// The behaviour notes of every tool, by canonical name, in markdown.
const TOOL_NOTES: &[(&str, &str)] = &[
    ("read_file", include_str!("notes/read_file.md")),
    ("edit_file", include_str!("notes/edit_file.md")),
    ("write_file", include_str!("notes/write_file.md")),
    ("apply_patch", include_str!("notes/apply_patch.md")),
    ("grep_files", include_str!("notes/grep_files.md")),
    ("file_search", include_str!("notes/file_search.md")),
    ("find_symbol", include_str!("notes/find_symbol.md")),
    ("outline", include_str!("notes/outline.md")),
    ("search_code", include_str!("notes/search_code.md")),
    ("list_dir", include_str!("notes/list_dir.md")),
    ("exec_shell", include_str!("notes/exec_shell.md")),
    ("task_output", include_str!("notes/task_output.md")),
    ("task_input", include_str!("notes/task_input.md")),
    ("task_wait", include_str!("notes/task_wait.md")),
    ("task_cancel", include_str!("notes/task_cancel.md")),
    ("history", include_str!("notes/history.md")),
    ("undo", include_str!("notes/undo.md")),
    ("fetch_url", include_str!("notes/fetch_url.md")),
    ("web_search", include_str!("notes/web_search.md")),
    ("ask_user", include_str!("notes/ask_user.md")),
];

/// Mechanisms several tools share, with their notes: (title, markdown).
pub const SHARED_NOTES: &[(&str, &str)] = &[
    (
        "The syntax gate (edit_file, write_file, apply_patch)",
        include_str!("notes/syntax_gate.md"),
    ),
    (
        "Checkpoints and undo (history, undo)",
        include_str!("notes/checkpoints.md"),
    ),
];

/// The behaviour notes of the tool named `name` (canonical name).
pub fn notes(name: &str) -> Option<&'static str> {
    TOOL_NOTES
        .iter()
        .find(|(tool, _)| *tool == name)
        .map(|(_, text)| *text)
}

/// `docs/TOOLS.md`: every tool's description, parameters and behaviour notes, in catalog order,
/// then the shared mechanisms.
pub fn tools_md() -> String {
    let mut out = String::from(
        "# codesmith tools\n\n\
         <!-- Generated from the tool registry (src/tools/) and src/reference/notes/ by \
         `CODESMITH_BLESS=1 cargo test --test main generated`; edit those, not this file. -->\n\n\
         Every tool in catalog order: the description the model sees (`codesmith tools`), its \
         parameters as the JSON Schema declares them, and how it behaves. The tools appear under \
         their canonical name and their short subcommand. Shared mechanisms follow the tools: ",
    );
    let shared: Vec<String> = SHARED_NOTES
        .iter()
        .map(|(title, _)| format!("[{title}](#{})", anchor(title)))
        .collect();
    out.push_str(&shared.join(", "));
    out.push_str(".\n\n| tool | command | capability |\n|---|---|---|\n");
    for spec in REGISTRY {
        out.push_str(&format!(
            "| [{name}](#{anchor}) | `codesmith {alias}` | {capability} |\n",
            name = spec.name,
            anchor = anchor(&heading(spec)),
            alias = spec.alias,
            capability = spec.capability.as_str()
        ));
    }
    for spec in REGISTRY {
        tool_section(&mut out, spec);
    }
    for (title, text) in SHARED_NOTES {
        out.push_str(&format!("\n## {title}\n\n{}", text));
    }
    out
}

fn heading(spec: &ToolSpec) -> String {
    format!("{} (`codesmith {}`)", spec.name, spec.alias)
}

fn tool_section(out: &mut String, spec: &ToolSpec) {
    out.push_str(&format!(
        "\n## {}\n\nCapability: `{}`.\n\n### Description (as the model sees it)\n\n```text\n{}\n```\n\n### Parameters\n\n",
        heading(spec),
        spec.capability.as_str(),
        spec.description.trim_end()
    ));
    out.push_str(&catalog::parameter_table(spec));
    if let Some(text) = notes(spec.name) {
        out.push_str(&format!("\n### Behaviour\n\n{}", text));
    }
}

/// GitHub's anchor for a heading: lowercase, spaces to `-`, punctuation other than `-` and `_`
/// dropped.
fn anchor(title: &str) -> String {
    title
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c.to_ascii_lowercase()),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tool_has_notes_and_every_note_a_tool() {
        for spec in REGISTRY {
            assert!(notes(spec.name).is_some(), "no notes for {}", spec.name);
        }
        for (name, _) in TOOL_NOTES {
            assert!(
                crate::tools::find(name).is_some(),
                "notes for unknown tool {name}"
            );
        }
    }

    #[test]
    fn anchors_follow_github() {
        assert_eq!(anchor("read_file (`codesmith read`)"), "read_file-codesmith-read");
        assert_eq!(
            anchor("The syntax gate (edit_file, write_file, apply_patch)"),
            "the-syntax-gate-edit_file-write_file-apply_patch"
        );
    }
}

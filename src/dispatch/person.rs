//! The command lines a result prints for a person (`codesmith approve ap-…`, `codesmith answer
//! q-… "TEXT"`, `codesmith trust add DIR`, and in `--format text` the calls rendered as
//! commands) work when pasted into a terminal as printed: each carries the `--workspace` and
//! `--session` of the call that printed it.
//!
//! Messages spell such commands plainly, `` `codesmith SUBCOMMAND …` ``, wherever they are made
//! (a tool, the sandbox's hints, the workspace boundary); the front ends pass every envelope
//! through [`localize_envelope`] on its way out, the command line and the MCP server alike, so
//! no message needs to know where it is printed. A person's terminal is not where the MCP
//! server runs, so the server always names its workspace.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::fs::workspace::shell_word;
use crate::session::context::Global;

/// `codesmith [--workspace W] [--session S]`: the start of a command a person runs for this
/// workspace and session. Each option appears when it is in effect (the workspace when one was
/// named, by flag or environment; the session when it is not `default`), quoted for the shell.
pub fn prefix(workspace: Option<&Path>, session: &str) -> String {
    let mut command = "codesmith".to_string();
    if let Some(root) = workspace {
        command.push_str(" --workspace ");
        command.push_str(&shell_word(&root.to_string_lossy()));
    }
    if session != "default" {
        command.push_str(" --session ");
        command.push_str(&shell_word(session));
    }
    command
}

/// [`prefix`] for the global options of a call whose workspace was not opened: the named
/// workspace made absolute.
pub fn prefix_of(global: &Global) -> String {
    let workspace = global.workspace.as_ref().map(|given| {
        std::fs::canonicalize(given).unwrap_or_else(|_| {
            std::env::current_dir()
                .map(|cwd| cwd.join(given))
                .unwrap_or_else(|_| PathBuf::from(given))
        })
    });
    prefix(workspace.as_deref(), &global.session)
}

/// `text` with every `` `codesmith SUBCOMMAND `` starting with `prefix` instead; `None` when
/// there is none. A command that already carries options (`` `codesmith --workspace ``) is
/// left as it is, so localizing twice changes nothing.
pub fn localize(text: &str, prefix: &str) -> Option<String> {
    const MARK: &str = "`codesmith ";
    if !text.contains(MARK) || prefix == "codesmith" {
        return None;
    }
    let mut out = String::with_capacity(text.len() + prefix.len());
    let mut rest = text;
    let mut changed = false;
    while let Some(at) = rest.find(MARK) {
        let after = &rest[at + MARK.len()..];
        out.push_str(&rest[..at + 1]);
        if is_subcommand(after) {
            out.push_str(prefix);
            out.push(' ');
            changed = true;
        } else {
            out.push_str("codesmith ");
        }
        rest = after;
    }
    out.push_str(rest);
    changed.then_some(out)
}

/// Whether `text` starts with the name of a subcommand, followed by a space or the closing
/// backtick.
fn is_subcommand(text: &str) -> bool {
    let end = text.find([' ', '`']).unwrap_or(text.len());
    let word = &text[..end];
    end < text.len() && (super::COMMANDS.contains(&word) || crate::tools::find(word).is_some())
}

/// Localizes the texts of an envelope that can hold a command: `output`, `error.message`,
/// `error.command` (a command on its own, without backticks) and the notices. `prefix` is
/// asked for only when one of them names a command.
pub fn localize_envelope(envelope: &mut Value, prefix: impl FnOnce() -> String) {
    let Value::Object(fields) = envelope else {
        return;
    };
    // Each text, and whether it is a bare command (written here in backticks to be found).
    let mut texts: Vec<(&mut Value, bool)> = Vec::new();
    for (key, value) in fields.iter_mut() {
        match (key.as_str(), value) {
            ("output", value) => texts.push((value, false)),
            ("notices", Value::Array(notices)) => texts.extend(notices.iter_mut().map(|n| (n, false))),
            ("error", Value::Object(error)) => {
                for (key, value) in error.iter_mut() {
                    if key == "message" || key == "command" {
                        texts.push((value, key == "command"));
                    }
                }
            }
            _ => {}
        }
    }
    let names_one = |(value, bare): &(&mut Value, bool)| {
        let text = value.as_str().unwrap_or_default();
        if *bare {
            text.starts_with("codesmith ")
        } else {
            text.contains("`codesmith ")
        }
    };
    if !texts.iter().any(names_one) {
        return;
    }
    let prefix = prefix();
    for (value, bare) in texts {
        let Some(text) = value.as_str() else { continue };
        let done = if bare {
            localize(&format!("`{text}`"), &prefix).map(|done| done[1..done.len() - 1].to_string())
        } else {
            localize(text, &prefix)
        };
        if let Some(done) = done {
            *value = Value::String(done);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_name_what_is_in_effect() {
        assert_eq!(prefix(None, "default"), "codesmith");
        assert_eq!(
            prefix(Some(Path::new("/w/my project")), "conv9"),
            "codesmith --workspace '/w/my project' --session conv9"
        );
        assert_eq!(prefix(None, "s"), "codesmith --session s");
    }

    #[test]
    fn commands_in_backticks_get_the_prefix_once() {
        let text = "approve it with `codesmith approve ap-1` or run `codesmith read a.rs`.";
        let done = localize(text, "codesmith --session s").unwrap_or_default();
        assert_eq!(
            done,
            "approve it with `codesmith --session s approve ap-1` or run `codesmith --session s read a.rs`."
        );
        assert_eq!(localize(&done, "codesmith --session s"), None);
        // Not a command: a placeholder, an option, the default prefix.
        assert_eq!(
            localize("see `codesmith <command> --help`", "codesmith --session s"),
            None
        );
        assert_eq!(localize("run `codesmith approve x`", "codesmith"), None);
        assert_eq!(
            localize("`codesmith tools`", "codesmith --session s").as_deref(),
            Some("`codesmith --session s tools`")
        );
    }

    #[test]
    fn envelopes_are_localized_in_every_text_and_the_command_field() {
        let mut envelope = serde_json::json!({
            "ok": false, "output": "run `codesmith answer q-1 \"TEXT\"`",
            "error": {"code": "answer_required", "message": "run `codesmith answer q-1 \"TEXT\"`",
                      "command": "codesmith answer q-1 \"TEXT\"", "question": {"question": "`codesmith read x`"}},
        });
        localize_envelope(&mut envelope, || "codesmith --session s".to_string());
        assert_eq!(
            envelope["error"]["command"],
            "codesmith --session s answer q-1 \"TEXT\""
        );
        assert_eq!(
            envelope["output"],
            "run `codesmith --session s answer q-1 \"TEXT\"`"
        );
        assert_eq!(envelope["error"]["message"], envelope["output"]);
        assert_eq!(envelope["error"]["question"]["question"], "`codesmith read x`");
    }
}

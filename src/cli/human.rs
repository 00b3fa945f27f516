//! `--format text` is for people: the output, then the notices, and the next-step hints a
//! message spells for a model (`call read_file with path="src/a.rs" start_line=31`) written as
//! the command line a person types (`codesmith read src/a.rs --start-line 31`). The JSON
//! envelope keeps the model's spelling. At a terminal, unless `NO_COLOR` is set, a failure,
//! the lines of a diff and the notices are coloured.

use std::io::IsTerminal;

use regex::Regex;
use serde_json::Value;

use crate::fs::workspace::shell_word;
use crate::tools;

/// What `--format text` prints for `envelope`, ending in a newline; `prefix` starts the
/// command lines (see `dispatch::person`), asked for only when there is one.
pub fn text(envelope: &Value, prefix: impl FnOnce() -> String) -> String {
    let colour =
        std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|value| value.is_empty());
    let mut out = command_lines(envelope["output"].as_str().unwrap_or_default());
    if !out.ends_with('\n') {
        out.push('\n');
    }
    if colour {
        out = coloured(&out, envelope["ok"] == true, shows_diff(envelope));
    }
    for notice in envelope["notices"].as_array().into_iter().flatten() {
        let notice = command_lines(notice.as_str().unwrap_or_default());
        let label = if colour {
            "\x1b[33mNotice:\x1b[0m"
        } else {
            "Notice:"
        };
        out.push_str(&format!("{label} {notice}\n"));
    }
    if out.contains("`codesmith ") {
        if let Some(localized) = crate::dispatch::person::localize(&out, &prefix()) {
            return localized;
        }
    }
    out
}

/// Whether the envelope's output holds a unified diff (the file-changing tools show one).
fn shows_diff(envelope: &Value) -> bool {
    let tool = envelope["tool"].as_str().unwrap_or_default();
    envelope["ok"] == true && matches!(tool, "edit_file" | "write_file" | "apply_patch" | "undo")
}

/// `text` with ANSI colours: a failure's first line red; in a diff, removed lines red, added
/// lines green and hunk headers cyan.
fn coloured(text: &str, ok: bool, diff: bool) -> String {
    const RED: &str = "\x1b[31m";
    const GREEN: &str = "\x1b[32m";
    const CYAN: &str = "\x1b[36m";
    const BOLD_RED: &str = "\x1b[1;31m";
    const RESET: &str = "\x1b[0m";
    let mut out = String::with_capacity(text.len() + 64);
    let mut in_diff = false;
    for (at, line) in text.split_inclusive('\n').enumerate() {
        let body = line.trim_end_matches('\n');
        in_diff |= diff && body.starts_with("--- ");
        let colour = match () {
            _ if !ok && at == 0 => Some(BOLD_RED),
            _ if !in_diff => None,
            _ if body.starts_with("@@") => Some(CYAN),
            _ if body.starts_with('+') => Some(GREEN),
            _ if body.starts_with('-') => Some(RED),
            _ => None,
        };
        match colour {
            Some(colour) => {
                out.push_str(colour);
                out.push_str(body);
                out.push_str(RESET);
                out.push_str(&line[body.len()..]);
            }
            None => out.push_str(line),
        }
    }
    out
}

/// `text` with every hint `[call ]TOOL with key=value ...` rewritten as a command line.
pub fn command_lines(text: &str) -> String {
    // Compiled once per process: a text-format call renders its output and every notice.
    static HINT: std::sync::LazyLock<Option<Regex>> = std::sync::LazyLock::new(|| {
        let names: Vec<&str> = tools::REGISTRY.iter().map(|spec| spec.name).collect();
        Regex::new(&format!(r"(?:\b([Cc]all) )?\b({}) with ", names.join("|"))).ok()
    });
    let Some(hint) = HINT.as_ref() else {
        return text.to_string();
    };
    let mut out = String::with_capacity(text.len());
    let mut rest = 0;
    for found in hint.captures_iter(text) {
        let (Some(whole), Some(name)) = (found.get(0), found.get(2)) else {
            continue;
        };
        if whole.start() < rest {
            continue;
        }
        let Some(spec) = tools::find(name.as_str()) else {
            continue;
        };
        let (args, used) = parse_args(&text[whole.end()..]);
        if args.is_empty() {
            continue;
        }
        out.push_str(&text[rest..whole.start()]);
        let line = render(spec, &args);
        match found.get(1) {
            Some(call) if call.as_str() == "Call" => out.push_str(&format!("Run `{line}`")),
            Some(_) => out.push_str(&format!("run `{line}`")),
            None => out.push_str(&format!("`{line}`")),
        }
        rest = whole.end() + used;
    }
    out.push_str(&text[rest..]);
    out
}

/// The `key=value` pairs at the start of `text`, separated by single spaces, and how many bytes
/// they take. A value is a JSON string or a bare word (a number, `true`); a `.`, `,` or `;`
/// right after a bare word ends the sentence, not the value.
fn parse_args(text: &str) -> (Vec<(String, Value)>, usize) {
    let mut args = Vec::new();
    let mut at = 0;
    loop {
        let rest = &text[at..];
        let Some(eq) = rest.find('=') else { break };
        let key = &rest[..eq];
        if key.is_empty() || !key.bytes().all(|b| b.is_ascii_lowercase() || b == b'_') {
            break;
        }
        let after = &rest[eq + 1..];
        let (value, len) = if after.starts_with('"') {
            let mut stream = serde_json::Deserializer::from_str(after).into_iter::<Value>();
            match stream.next() {
                Some(Ok(value)) => (value, stream.byte_offset()),
                _ => break,
            }
        } else {
            let end = after.find([' ', '\n', ')']).unwrap_or(after.len());
            let word = after[..end].trim_end_matches(['.', ',', ';']);
            if word.is_empty() {
                break;
            }
            let value = serde_json::from_str(word).unwrap_or_else(|_| Value::String(word.to_string()));
            (value, word.len())
        };
        args.push((key.to_string(), value));
        at += eq + 1 + len;
        if !text[at..].starts_with(' ') || !text[at + 1..].starts_with(|c: char| c.is_ascii_lowercase()) {
            break;
        }
        // Only continue across the space when a `key=` follows.
        let next = &text[at + 1..];
        let word_end = next.find([' ', '=']).unwrap_or(next.len());
        if !next[word_end..].starts_with('=') {
            break;
        }
        at += 1;
    }
    (args, at)
}

fn render(spec: &tools::ToolSpec, args: &[(String, Value)]) -> String {
    let mut words = vec!["codesmith".to_string(), spec.alias.to_string()];
    for (key, value) in args {
        let text = match value {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        if spec.positional == Some(key.as_str()) && !text.starts_with('-') {
            words.push(shell_word(&text));
            continue;
        }
        let flag = format!("--{}", key.replace('_', "-"));
        match value {
            Value::Bool(true) => words.push(flag),
            Value::Bool(false) => words.push(format!("{flag}=false")),
            _ => {
                words.push(flag);
                words.push(shell_word(&text));
            }
        }
    }
    words.join(" ")
}

#[cfg(test)]
mod tests {
    use super::command_lines;

    #[test]
    fn hints_become_command_lines() {
        assert_eq!(
            command_lines(
                "To continue, call read_file with path=\"src/a b.rs\" start_line=31 max_lines=200."
            ),
            "To continue, run `codesmith read 'src/a b.rs' --start-line 31 --max-lines 200`."
        );
        assert_eq!(
            command_lines("Call file_search with pattern=\"*.rs\" include_ignored=true, or not."),
            "Run `codesmith find '*.rs' --include-ignored`, or not."
        );
        assert_eq!(
            command_lines("Call task_output with task_id=\"task-1\" for more"),
            "Run `codesmith task_output task-1` for more"
        );
        assert_eq!(command_lines("nothing with here"), "nothing with here");
    }
}

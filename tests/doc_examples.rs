//! The runnable examples of README.md and docs/GUIDE.md, run with the built binary.
//!
//! A fenced block whose info string is `sh run` is an example. In it, a line starting `$ ` is a
//! command (a final `\` continues it on the next line); the lines after it, up to the next
//! command, are what it prints:
//! - JSON (starting with `{`): the envelope must contain it. Objects match key by key (the doc
//!   shows the stable parts; the envelope may hold more), arrays element by element, and a
//!   string ending in `...` matches any string that starts with the rest.
//! - Text: line by line (trailing spaces ignored), a line `...` standing for any number of lines.
//! - A last line `[exit N]` names the exit status; without it, an envelope showing `"ok": false`
//!   expects its code's status and anything else 0.
//!
//! Each document's examples run in order in one fresh temporary workspace, with `codesmith` on
//! `PATH` as the built binary and `HOME` inside the test's directory. The programs a command runs
//! are only `codesmith`, `echo`, `printf`, `cat`, `mkdir` and `sleep`, and it may not name an
//! absolute path, `~` or `../..`, so an example cannot write outside the test's directory.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

use crate::harness::BIN;

const MARKER: &str = "```sh run";
const ALLOWED_PROGRAMS: &[&str] = &["codesmith", "echo", "printf", "cat", "mkdir", "sleep"];

#[derive(Debug)]
struct Example {
    line: usize,
    command: String,
    expected: Vec<String>,
}

/// The examples of `markdown`, in order.
fn examples(markdown: &str) -> Vec<Example> {
    let mut out: Vec<Example> = Vec::new();
    let mut in_block = false;
    let mut continuing = false;
    for (index, line) in markdown.lines().enumerate() {
        if !in_block {
            in_block = line.trim_end() == MARKER;
            continue;
        }
        if line == "```" {
            in_block = false;
            continue;
        }
        if continuing {
            let example = out.last_mut().expect("a command is being continued");
            example.command.push('\n');
            example.command.push_str(line);
            continuing = line.ends_with('\\');
        } else if let Some(command) = line.strip_prefix("$ ") {
            out.push(Example {
                line: index + 1,
                command: command.to_string(),
                expected: Vec::new(),
            });
            continuing = command.ends_with('\\');
        } else {
            let example = out
                .last_mut()
                .unwrap_or_else(|| panic!("line {}: output before any `$ ` command", index + 1));
            example.expected.push(line.to_string());
        }
    }
    assert!(!in_block, "a `{MARKER}` block is not closed");
    out
}

/// `command` with its quoted parts left out: the words the shell runs as programs stay.
fn unquoted(command: &str) -> String {
    let mut out = String::new();
    let mut quote = None;
    for c in command.chars() {
        match (quote, c) {
            (None, '\'' | '"') => quote = Some(c),
            (Some(open), c) if c == open => quote = None,
            (None, c) => out.push(c),
            _ => {}
        }
    }
    out
}

/// Refuses a command that could reach outside the workspace: only the allowed programs, no
/// absolute path, no `~`, and `..` only in a codesmith call without a redirection (codesmith's
/// own boundary is what such an example shows).
fn check_confined(example: &Example) {
    let words = unquoted(&example.command);
    for segment in words.split(['|', ';', '&', '(', ')']) {
        let Some(program) = segment.split_whitespace().next() else {
            continue;
        };
        assert!(
            ALLOWED_PROGRAMS.contains(&program),
            "line {}: `{program}` is not one of {ALLOWED_PROGRAMS:?}: {}",
            example.line,
            example.command
        );
    }
    for forbidden in [" /", "=/", ">/", "'/", "\"/", "~", "../.."] {
        assert!(
            !example.command.contains(forbidden),
            "line {}: examples may not name `{forbidden}`: {}",
            example.line,
            example.command
        );
    }
    let codesmith_only = example.command.starts_with("codesmith ") && !words.contains('>');
    assert!(
        !example.command.contains("..") || codesmith_only,
        "line {}: `..` only in a codesmith call without a redirection: {}",
        example.line,
        example.command
    );
}

/// Whether `actual` holds everything `expected` shows.
fn contains(actual: &Value, expected: &Value) -> bool {
    match (actual, expected) {
        (Value::Object(actual), Value::Object(expected)) => expected
            .iter()
            .all(|(key, value)| actual.get(key).is_some_and(|a| contains(a, value))),
        (Value::Array(actual), Value::Array(expected)) => {
            actual.len() == expected.len() && actual.iter().zip(expected).all(|(a, e)| contains(a, e))
        }
        (Value::String(actual), Value::String(expected)) => match expected.strip_suffix("...") {
            Some(prefix) => actual.starts_with(prefix),
            None => actual == expected,
        },
        _ => actual == expected,
    }
}

/// Whether the text `actual` matches the lines of `expected`, `...` standing for any lines.
fn text_matches(actual: &[&str], expected: &[String]) -> bool {
    match expected.split_first() {
        None => actual.is_empty(),
        Some((first, rest)) if first == "..." => {
            (0..=actual.len()).any(|skip| text_matches(&actual[skip..], rest))
        }
        Some((first, rest)) => actual
            .split_first()
            .is_some_and(|(line, tail)| line.trim_end() == first.trim_end() && text_matches(tail, rest)),
    }
}

fn exit_status_of(code: &str) -> i32 {
    match code {
        "invalid_arguments" | "unknown_tool" => 2,
        "approval_required" | "answer_required" => 3,
        _ => 1,
    }
}

/// Compares what a command printed and its status with what the doc shows; the mismatch, if any.
fn mismatch(example: &Example, stdout: &str, status: i32) -> Option<String> {
    let mut expected = example.expected.clone();
    while expected.last().is_some_and(|l| l.trim().is_empty()) {
        expected.pop();
    }
    let stated_exit = expected
        .last()
        .and_then(|l| l.strip_prefix("[exit ")?.strip_suffix(']')?.parse::<i32>().ok());
    if stated_exit.is_some() {
        expected.pop();
    }
    let mut wanted_exit = stated_exit.unwrap_or(0);
    if expected.first().is_some_and(|l| l.starts_with('{')) {
        let shown: Value = match serde_json::from_str(&expected.join("\n")) {
            Ok(shown) => shown,
            Err(e) => return Some(format!("the doc's JSON does not parse: {e}")),
        };
        if shown["ok"] == Value::Bool(false) && stated_exit.is_none() {
            wanted_exit = exit_status_of(shown["error"]["code"].as_str().unwrap_or_default());
        }
        let actual: Value = match serde_json::from_str(stdout) {
            Ok(actual) => actual,
            Err(e) => return Some(format!("stdout is not one JSON envelope ({e}): {stdout}")),
        };
        if !contains(&actual, &shown) {
            return Some(format!(
                "the envelope lacks what the doc shows.\nshown: {shown}\nactual: {actual}"
            ));
        }
    } else if !expected.is_empty() {
        let actual: Vec<&str> = stdout.trim_end_matches('\n').lines().collect();
        if !text_matches(&actual, &expected) {
            return Some(format!(
                "the text differs.\nshown:\n{}\nactual:\n{stdout}",
                expected.join("\n")
            ));
        }
    }
    (status != wanted_exit)
        .then(|| format!("exit status {status}, the doc expects {wanted_exit}; stdout: {stdout}"))
}

/// Runs every example of the document at `rel` in one fresh workspace.
fn run_document(rel: &str) -> usize {
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)).expect(rel);
    let examples = examples(&text);
    let root = tempfile::tempdir().expect("tempdir");
    let (bin, home, workspace) = (
        root.path().join("bin"),
        root.path().join("home"),
        root.path().join("ws"),
    );
    for dir in [&bin, &home, &workspace] {
        std::fs::create_dir(dir).expect("mkdir");
    }
    std::os::unix::fs::symlink(BIN, bin.join("codesmith")).expect("symlink");
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let mut failures = Vec::new();
    for example in &examples {
        check_confined(example);
        let mut command = Command::new("sh");
        command
            .arg("-c")
            .arg(&example.command)
            .current_dir(&workspace)
            .env("PATH", &path)
            .env("HOME", &home);
        for (key, _) in std::env::vars() {
            if key.starts_with("CODESMITH_") {
                command.env_remove(key);
            }
        }
        let out = command.output().expect("run sh");
        let stdout = String::from_utf8_lossy(&out.stdout);
        if let Some(why) = mismatch(example, &stdout, out.status.code().unwrap_or(-1)) {
            failures.push(format!("{rel}:{}: `{}`: {why}", example.line, example.command));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    examples.len()
}

#[test]
fn readme_examples_run_as_shown() {
    let count = run_document("README.md");
    assert!(count >= 8, "README.md has only {count} runnable examples");
}

#[test]
fn guide_examples_run_as_shown() {
    let count = run_document("docs/GUIDE.md");
    assert!(count >= 8, "docs/GUIDE.md has only {count} runnable examples");
}

#[test]
fn a_wrong_expectation_is_caught() {
    let example = |expected: &[&str]| Example {
        line: 1,
        command: "codesmith ls".into(),
        expected: expected.iter().map(|l| l.to_string()).collect(),
    };
    let envelope =
        r#"{"ok":false,"tool":"read_file","output":"`x` does not exist.","error":{"code":"not_found"}}"#;
    let shown = example(&[r#"{"ok": false, "error": {"code": "not_found"}, "output": "`x` does..."}"#]);
    assert_eq!(mismatch(&shown, envelope, 1), None);
    assert!(mismatch(&shown, envelope, 0).is_some(), "exit status");
    let wrong_code = example(&[r#"{"ok": false, "error": {"code": "stale"}}"#]);
    assert!(mismatch(&wrong_code, envelope, 1).is_some(), "error code");
    let text = example(&["a", "...", "d"]);
    assert_eq!(mismatch(&text, "a\nb\nc\nd\n", 0), None);
    assert!(mismatch(&text, "a\nb\nc\n", 0).is_some(), "text");
    let exit = example(&["a", "[exit 3]"]);
    assert_eq!(mismatch(&exit, "a\n", 3), None);
    assert!(mismatch(&exit, "a\n", 0).is_some(), "stated exit");
}

#[test]
fn examples_are_parsed_with_their_outputs() {
    let doc = "text\n```sh run\n$ codesmith ls \\\n  --depth 2\nsrc/\n\n$ echo hi\nhi\n```\n```sh\n$ not run\n```\n";
    let found = examples(doc);
    assert_eq!(found.len(), 2);
    assert_eq!(found[0].command, "codesmith ls \\\n  --depth 2");
    assert_eq!(found[0].expected, ["src/", ""]);
    assert_eq!(found[1].expected, ["hi"]);
}

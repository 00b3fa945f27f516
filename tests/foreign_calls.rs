//! Another harness's tool call, sent to `call`: the error carries the whole translated call,
//! and that call, sent back as is, succeeds.

use serde_json::{json, Value};

use crate::harness::{Outcome, Ws};

/// Sends `call`, expects `code` with a suggestion, and returns the suggestion and the message.
pub(crate) fn translated(ws: &Ws, call: Value, code: &str) -> (Value, String) {
    let out = ws.run_stdin(&["call"], &call.to_string()).err(code);
    let suggestion = out.error()["suggestion"].clone();
    assert!(
        suggestion["arguments"].is_object(),
        "no translated call: {}",
        out.stdout
    );
    // The message carries the same call.
    assert!(
        out.message().contains(&suggestion.to_string()),
        "the message lacks the call {suggestion}: {}",
        out.message()
    );
    (suggestion, out.message().to_string())
}

/// Sends the suggestion back through `call`.
pub(crate) fn send(ws: &Ws, suggestion: &Value) -> Outcome {
    ws.run_stdin(&["call"], &suggestion.to_string())
}

fn roundtrip(ws: &Ws, call: Value) -> (Value, String, Outcome) {
    let (suggestion, message) = translated(ws, call, "unknown_tool");
    let out = send(ws, &suggestion).ok();
    (suggestion, message, out)
}

fn ws_with_lines(n: usize) -> Ws {
    let ws = Ws::new();
    let text: String = (1..=n).map(|i| format!("line {i}\n")).collect();
    ws.write("a.txt", text);
    ws
}

#[test]
fn claude_code_read_offset_and_limit_are_lines() {
    let ws = ws_with_lines(50);
    let (s, _, out) = roundtrip(
        &ws,
        json!({"name": "Read", "arguments": {"file_path": ws.join("a.txt"), "offset": 10, "limit": 5}}),
    );
    assert_eq!(s["name"], "read_file");
    assert_eq!(out.data()["start_line"], 10);
    assert_eq!(out.data()["end_line"], 14);
    assert!(out.output().contains("line 10"));
}

#[test]
fn claude_code_write_creates_the_file() {
    let ws = Ws::new();
    roundtrip(
        &ws,
        json!({"name": "Write", "arguments": {"file_path": "n.txt", "content": "hi\n"}}),
    );
    assert_eq!(ws.read_string("n.txt"), "hi\n");
}

#[test]
fn claude_code_edit_with_replace_all() {
    let ws = Ws::new();
    ws.write("e.txt", "a b a\n");
    ws.read_via_tool("e.txt");
    let (s, _, _) = roundtrip(
        &ws,
        json!({"name": "Edit", "arguments": {"file_path": "e.txt", "old_string": "a", "new_string": "c", "replace_all": true}}),
    );
    assert_eq!(s["arguments"]["replace_all"], true);
    assert_eq!(ws.read_string("e.txt"), "c b c\n");
}

#[test]
fn claude_code_multi_edit_applies_every_edit_at_once() {
    let ws = ws_with_lines(20);
    ws.read_via_tool("a.txt");
    let (s, _, _) = roundtrip(
        &ws,
        json!({"name": "MultiEdit", "arguments": {"file_path": "a.txt", "edits": [
            {"old_string": "line 2\n", "new_string": "two\n"},
            {"old_string": "two", "new_string": "TWO"},
            {"old_string": "line 1", "new_string": "LINE 1", "replace_all": true}
        ]}}),
    );
    assert_eq!(s["name"], "apply_patch");
    let text = ws.read_string("a.txt");
    assert!(text.starts_with("LINE 1\nTWO\nline 3\n"), "{text}");
    assert!(text.contains("LINE 10\nLINE 11\n"), "{text}");
    // A single edit is an edit_file call.
    let (s, _, _) = roundtrip(
        &ws,
        json!({"name": "MultiEdit", "arguments": {"file_path": "a.txt", "edits": [
            {"old_string": "line 3", "new_string": "three"}]}}),
    );
    assert_eq!(s["name"], "edit_file");
    // An edit that is not in the file is named, with no call to send.
    let out = ws
        .run_stdin(
            &["call"],
            &json!({"name": "MultiEdit", "arguments": {"file_path": "a.txt", "edits": [
                {"old_string": "nowhere", "new_string": "x"}, {"old_string": "three", "new_string": "3"}]}})
            .to_string(),
        )
        .err("unknown_tool");
    assert!(
        out.message()
            .contains("the old_string of edit 1 is not in `a.txt`"),
        "{}",
        out.message()
    );
}

#[test]
fn claude_code_bash_says_what_it_leaves_out() {
    let ws = Ws::new();
    let (s, message, out) = roundtrip(
        &ws,
        json!({"name": "Bash", "arguments": {"command": "echo hi", "timeout": 5000, "description": "Say hi"}}),
    );
    assert_eq!(s["arguments"], json!({"command": "echo hi", "timeout_ms": 5000}));
    assert!(
        message.contains("`description` has no equivalent here"),
        "{message}"
    );
    assert!(out.output().contains("hi"));
    let (s, _, out) = roundtrip(
        &ws,
        json!({"name": "Bash", "arguments": {"command": "echo bg", "run_in_background": true}}),
    );
    assert_eq!(s["arguments"]["background"], true);
    assert!(out.data()["task_id"].is_string(), "{}", out.stdout);
}

#[test]
fn claude_code_grep_output_modes_and_flags() {
    let ws = Ws::new();
    ws.write("src/a.rs", "fn Main() {}\nlet x = 1;\n");
    ws.write("b.py", "def main(): pass\n");
    // Claude Code's Grep lists files by default.
    let (s, _, out) = roundtrip(
        &ws,
        json!({"name": "Grep", "arguments": {"pattern": "main", "-i": true, "type": "rust"}}),
    );
    assert_eq!(s["arguments"]["output_mode"], "files");
    assert!(
        out.output().starts_with("src/a.rs\n\n1 match"),
        "{}",
        out.output()
    );
    let (_, _, out) = roundtrip(
        &ws,
        json!({"name": "Grep", "arguments": {"pattern": "main", "output_mode": "content", "-n": true, "glob": "*.py"}}),
    );
    assert!(out.output().contains("b.py:1:def main"), "{}", out.output());
    let (s, message, out) = roundtrip(
        &ws,
        json!({"name": "Grep", "arguments": {"pattern": "Main", "output_mode": "count", "-A": 1, "head_limit": 5}}),
    );
    assert_eq!(s["arguments"]["context"], 1);
    assert_eq!(s["arguments"]["max_results"], 5);
    assert!(message.contains("same context before and after"), "{message}");
    assert!(out.output().contains("src/a.rs:1"), "{}", out.output());
}

#[test]
fn claude_code_glob_and_ls() {
    let ws = Ws::new();
    ws.write("src/a.rs", "").write("src/b.txt", "");
    let (s, _, out) = roundtrip(&ws, json!({"name": "Glob", "arguments": {"pattern": "**/*.rs"}}));
    assert_eq!(s["arguments"]["sort"], "mtime");
    assert!(out.output().contains("src/a.rs"));
    let (_, message, out) = roundtrip(
        &ws,
        json!({"name": "LS", "arguments": {"path": ws.join("src"), "ignore": ["*.txt"]}}),
    );
    assert!(message.contains("`ignore` has no equivalent here"), "{message}");
    assert!(out.output().contains("a.rs"));
}

#[test]
fn codex_shell_argv_and_workdir() {
    let ws = Ws::new();
    ws.mkdir("sub");
    ws.write("sub/f.txt", "x");
    let (s, _) = translated(
        &ws,
        json!({"name": "shell", "arguments": {"command": ["bash", "-lc", "ls"], "workdir": "sub", "timeout_ms": 9000}}),
        "invalid_arguments",
    );
    assert_eq!(s["name"], "exec_shell");
    let out = send(&ws, &s).ok();
    assert!(out.output().contains("f.txt"), "{}", out.output());
    // The session's cwd stays where it was, as in Codex.
    let out = ws.call("exec_shell", json!({"command": "pwd"})).ok();
    assert!(!out.output().contains("/sub"), "{}", out.output());
    // A plain argv is quoted word by word.
    let (s, _) = translated(
        &ws,
        json!({"name": "shell", "arguments": {"command": ["echo", "a b", "it's"]}}),
        "invalid_arguments",
    );
    let out = send(&ws, &s).ok();
    assert!(out.output().contains("a b it's"), "{}", out.output());
}

#[test]
fn codex_apply_patch_input() {
    let ws = Ws::new();
    let patch = "*** Begin Patch\n*** Add File: new.txt\n+hello\n*** End Patch\n";
    let (s, _) = translated(
        &ws,
        json!({"name": "apply_patch", "arguments": {"input": patch}}),
        "invalid_arguments",
    );
    send(&ws, &s).ok();
    assert_eq!(ws.read_string("new.txt"), "hello\n");
    // Codex's shell form of the same.
    let (s, _) = translated(
        &ws,
        json!({"name": "shell", "arguments": {"command": ["apply_patch", patch.replace("new.txt", "two.txt")]}}),
        "invalid_arguments",
    );
    assert_eq!(s["name"], "apply_patch");
    send(&ws, &s).ok();
    assert!(ws.exists("two.txt"));
}

#[test]
fn anthropic_text_editor_commands() {
    let ws = ws_with_lines(30);
    for tool in ["str_replace_editor", "str_replace_based_edit_tool"] {
        let (s, _, out) = roundtrip(
            &ws,
            json!({"name": tool, "arguments": {"command": "view", "path": "a.txt", "view_range": [3, 4]}}),
        );
        assert_eq!(s["name"], "read_file");
        assert_eq!(out.data()["end_line"], 4);
        let (s, _, _) = roundtrip(
            &ws,
            json!({"name": tool, "arguments": {"command": "view", "path": "."}}),
        );
        assert_eq!(s["name"], "list_dir");
    }
    roundtrip(
        &ws,
        json!({"name": "str_replace_editor", "arguments": {"command": "create", "path": "c.txt", "file_text": "c\n"}}),
    );
    assert_eq!(ws.read_string("c.txt"), "c\n");
    roundtrip(
        &ws,
        json!({"name": "str_replace_editor", "arguments": {"command": "str_replace", "path": "a.txt", "old_str": "line 7\n", "new_str": "seven\n"}}),
    );
    roundtrip(
        &ws,
        json!({"name": "str_replace_based_edit_tool", "arguments": {"command": "insert", "path": "a.txt", "insert_line": 2, "new_str": "after two"}}),
    );
    roundtrip(
        &ws,
        json!({"name": "str_replace_editor", "arguments": {"command": "insert", "path": "a.txt", "insert_line": 0, "new_str": "top\n"}}),
    );
    let text = ws.read_string("a.txt");
    assert!(
        text.starts_with("top\nline 1\nline 2\nafter two\nline 3\n"),
        "{text}"
    );
    assert!(text.contains("line 6\nseven\nline 8\n"), "{text}");
    let out = ws
        .run_stdin(
            &["call"],
            &json!({"name": "str_replace_editor", "arguments": {"command": "undo_edit", "path": "a.txt"}})
                .to_string(),
        )
        .err("unknown_tool");
    assert!(
        out.message().contains("undo_edit has no equivalent here"),
        "{}",
        out.message()
    );
}

//! `codesmith mcp` takes another harness's tool call as `codesmith call` does: the same
//! translated call as `error.suggestion`, the same messages for arguments that do not parse,
//! and the suggestion, sent back through the server as is, does the job.

use serde_json::{json, Value};

use crate::harness::Ws;
use crate::mcp_support::{texts, McpSession};

/// The connection shares the CLI's default session, so the two doors answer in the same words
/// (the commands they print name the same session).
fn server(ws: &Ws) -> McpSession {
    McpSession::initialized(ws, &["--session", "default"], "2025-11-25", json!({}))
}

/// Sends `name(arguments)` through MCP and through `codesmith call`, checks that both give the
/// same error and text, and returns the MCP result.
fn same_answer(ws: &Ws, session: &mut McpSession, name: &str, arguments: Value, code: &str) -> Value {
    let result = session.call(name, arguments.clone());
    assert_eq!(result["isError"], true, "{result}");
    let cli = ws
        .run_stdin(
            &["call"],
            &json!({"name": name, "arguments": arguments}).to_string(),
        )
        .err(code);
    assert_eq!(result["structuredContent"], cli.json["error"], "{name}");
    assert_eq!(texts(&result)[0], cli.output(), "{name}");
    result
}

/// The suggestion of an MCP result, sent back through the server; it must succeed.
fn send_suggestion(session: &mut McpSession, result: &Value) -> Value {
    let suggestion = &result["structuredContent"]["suggestion"];
    let name = suggestion["name"].as_str().expect("suggested name");
    let done = session.call(name, suggestion["arguments"].clone());
    assert_eq!(done["isError"], false, "{suggestion}: {done}");
    done
}

#[test]
fn text_editor_commands_are_translated_by_command() {
    let ws = Ws::new();
    ws.write("a.txt", "one\ntwo\nthree\n");
    let mut session = server(&ws);
    let view = same_answer(
        &ws,
        &mut session,
        "str_replace_editor",
        json!({"command": "view", "path": "a.txt", "view_range": [2, 3]}),
        "unknown_tool",
    );
    assert_eq!(view["structuredContent"]["suggestion"]["name"], "read_file");
    let read = send_suggestion(&mut session, &view);
    assert_eq!(read["structuredContent"]["start_line"], 2);
    let edit = same_answer(
        &ws,
        &mut session,
        "str_replace_based_edit_tool",
        json!({"command": "str_replace", "path": "a.txt", "old_str": "two", "new_str": "TWO"}),
        "unknown_tool",
    );
    assert_eq!(edit["structuredContent"]["suggestion"]["name"], "edit_file");
    send_suggestion(&mut session, &edit);
    assert_eq!(ws.read_string("a.txt"), "one\nTWO\nthree\n");
    let create = same_answer(
        &ws,
        &mut session,
        "str_replace_editor",
        json!({"command": "create", "path": "new.txt", "file_text": "hi\n"}),
        "unknown_tool",
    );
    send_suggestion(&mut session, &create);
    assert_eq!(ws.read_string("new.txt"), "hi\n");
}

#[test]
fn codex_shell_argv_with_workdir_gets_the_exec_shell_call() {
    let ws = Ws::new();
    ws.write("sub/f.txt", "x");
    let mut session = server(&ws);
    let result = same_answer(
        &ws,
        &mut session,
        "shell",
        json!({"command": ["bash", "-lc", "ls"], "workdir": "sub"}),
        "invalid_arguments",
    );
    assert_eq!(result["structuredContent"]["suggestion"]["name"], "exec_shell");
    let ran = send_suggestion(&mut session, &result);
    assert!(texts(&ran)[0].contains("f.txt"), "{ran}");
    // Claude Code's Read, by the same table.
    let read = same_answer(
        &ws,
        &mut session,
        "Read",
        json!({"file_path": "sub/f.txt", "offset": 1, "limit": 5}),
        "unknown_tool",
    );
    assert_eq!(
        read["structuredContent"]["suggestion"],
        json!({"name": "read_file", "arguments": {"path": "sub/f.txt", "start_line": 1, "max_lines": 5}})
    );
}

#[test]
fn arguments_as_a_json_string_are_decoded_or_explained_alike() {
    let ws = Ws::new();
    ws.write("a.txt", "one\n");
    let mut session = server(&ws);
    // Python's spelling: the message names the mistake, as `call`'s does.
    let result = same_answer(
        &ws,
        &mut session,
        "read_file",
        json!("{'path': 'a.txt'}"),
        "invalid_arguments",
    );
    assert!(texts(&result)[0].contains("a single quote;"), "{result}");
    // A string holding the object is taken, as OpenAI sends it.
    let read = session.call("read_file", json!("{\"path\": \"a.txt\"}"));
    assert_eq!(read["isError"], false, "{read}");
    assert_eq!(read["structuredContent"]["total_lines"], 1);
}

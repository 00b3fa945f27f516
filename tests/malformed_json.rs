//! JSON that does not parse: the message names the mistake and its fix, with the called tool's
//! own example; a JSON string holding the object is decoded; `call` takes JSON-RPC requests.

use serde_json::json;

use crate::harness::Ws;

#[test]
fn each_usual_mistake_is_named_with_its_fix_and_the_tools_own_example() {
    let ws = Ws::new();
    for (text, cause) in [
        (
            r#"{"path": "a", "search": "x", "replace": "y", "replace_all": True}"#,
            "`True` is Python; JSON writes `true`",
        ),
        (
            r#"{"path": "a", "search": "x", "replace": "y", "occurrence": None}"#,
            "`None` is Python; JSON writes `null`",
        ),
        (
            r#"{"path": "a", "dry_run": False}"#,
            "`False` is Python; JSON writes `false`",
        ),
        (
            r#"{'path': 'a'}"#,
            "a single quote; JSON strings and keys take double quotes",
        ),
        (r#"{"path": "a", "search": "x",}"#, "a trailing comma before `}`"),
        (
            "{\"path\": \"a\", \"search\": \"x\ny\"}",
            "a raw line break inside a string; JSON writes it as \\n",
        ),
        (r#"{path: "a"}"#, "the key `path` has no quotes"),
    ] {
        let out = ws.run(&["edit", "--json", text]).err("invalid_arguments");
        let message = out.message();
        assert!(message.contains(cause), "{text}: {message}");
        assert!(message.contains("(line "), "{message}");
        // The example is edit_file's, not read_file's.
        assert!(
            message.contains(r#"{"path": "src/lib.rs", "search": "fn old_name(""#),
            "{message}"
        );
    }
    // Through stdin, and through `call`, where the example is the named tool's call.
    let out = ws
        .run_stdin(&["grep"], r#"{"pattern": 'x'}"#)
        .err("invalid_arguments");
    assert!(out.message().contains("a single quote"), "{}", out.message());
    assert!(
        out.message().contains(r#"{"pattern": "fn main""#),
        "{}",
        out.message()
    );
    let out = ws
        .run_stdin(
            &["call"],
            r#"{"name": "exec_shell", "arguments": {"command": "ls", "background": True}}"#,
        )
        .err("invalid_arguments");
    assert!(out.message().contains("`True` is Python"), "{}", out.message());
    assert!(
        out.message()
            .contains(r#"{"name": "exec_shell", "arguments": {"command": "cargo test 2>&1"}}"#),
        "{}",
        out.message()
    );
}

#[test]
fn arguments_in_a_json_string_are_decoded_with_a_notice() {
    let ws = Ws::new();
    ws.write("a.txt", "x\n");
    let out = ws.run(&["read", "--json", r#""{\"path\": \"a.txt\"}""#]).ok();
    assert_eq!(out.data()["total_lines"], 1);
    assert!(
        out.notices()
            .iter()
            .any(|n| n.contains("a JSON string holding the object")),
        "{:?}",
        out.notices()
    );
    // In `call`, an arguments string encoded twice likewise.
    let twice = json!(json!({"path": "a.txt"}).to_string()).to_string();
    let call = json!({"name": "read_file", "arguments": twice});
    let out = ws.run_stdin(&["call"], &call.to_string()).ok();
    assert!(
        out.notices().iter().any(|n| n.contains("it was decoded")),
        "{:?}",
        out.notices()
    );
}

#[test]
fn call_takes_a_json_rpc_tools_call_request() {
    let ws = Ws::new();
    ws.write("a.txt", "x\n");
    let request = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": "read_file", "arguments": {"path": "a.txt"}}});
    let out = ws.run_stdin(&["call"], &request.to_string()).ok();
    assert_eq!(out.envelope.tool, "read_file");
    let request = json!({"jsonrpc": "2.0", "id": 8, "method": "tools/list"});
    let out = ws
        .run_stdin(&["call"], &request.to_string())
        .err("invalid_arguments");
    assert!(
        out.message()
            .contains(&format!("`{} tools --format mcp`", ws.person())),
        "{}",
        out.message()
    );
}

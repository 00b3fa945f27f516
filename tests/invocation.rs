use serde_json::json;

use crate::harness::Ws;

#[test]
fn unknown_tool_lists_tools_and_says_not_to_retry() {
    let ws = Ws::new();
    let out = ws.run(&["frobnicate"]).err("unknown_tool");
    assert!(out.message().contains("Do not retry"));
    assert!(out.message().contains("read_file"));
}

#[test]
fn unknown_field_is_named_with_the_valid_ones() {
    let ws = Ws::new();
    ws.write("a.txt", "x\n");
    let out = ws
        .call("read_file", json!({"path": "a.txt", "bogus": 1}))
        .err("invalid_arguments");
    assert!(out.message().contains("`bogus`"));
    assert!(out.message().contains("start_line"));
}

#[test]
fn call_accepts_arguments_as_a_json_string() {
    let ws = Ws::new();
    ws.write("a.txt", "hello\n");
    let out = ws
        .run_stdin(
            &["call"],
            r#"{"name": "read_file", "arguments": "{\"path\": \"a.txt\"}"}"#,
        )
        .ok();
    assert!(out.output().contains("hello"));
}

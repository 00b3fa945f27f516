//! `codesmith mcp` at the end of its input and when a request panics: every request already
//! read is answered, nothing that changes runs after the client left, and a panic stays inside
//! its request.

use std::io::Write;
use std::process::{Command, Stdio};

use serde_json::{json, Value};

use crate::harness::WithoutCodesmithEnv;
use crate::harness::{Ws, BIN};
use crate::mcp_support::McpSession;

/// Everything a client sends before it closes stdin, as `printf '…' | codesmith mcp` would.
fn piped_input() -> String {
    let call = |id: i64, name: &str, arguments: Value| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
               "params": {"name": name, "arguments": arguments}})
    };
    let lines = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
               "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                          "clientInfo": {"name": "printf", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
        call(3, "read_file", json!({"path": "a.txt"})),
        call(
            4,
            "exec_shell",
            json!({"command": "sleep 3; echo late > made.txt"}),
        ),
        call(5, "read_file", json!({"path": "a.txt"})),
        json!({"jsonrpc": "2.0", "id": 6, "method": "ping"}),
    ];
    lines.iter().map(|line| format!("{line}\n")).collect()
}

#[test]
fn piped_requests_are_all_answered_every_time() {
    let ws = Ws::new();
    ws.write("a.txt", "hello\n");
    let input = piped_input();
    for run in 0..20 {
        let mut child = Command::new(BIN)
            .arg("--workspace")
            .arg(ws.path())
            .arg("mcp")
            .without_codesmith_env()
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start codesmith mcp");
        let mut stdin = child.stdin.take().expect("stdin");
        stdin.write_all(input.as_bytes()).expect("write");
        drop(stdin);
        let output = child.wait_with_output().expect("wait");
        assert!(output.status.success(), "run {run}: {output:?}");
        let answers: Vec<Value> = String::from_utf8_lossy(&output.stdout)
            .lines()
            .map(|line| serde_json::from_str(line).expect("one JSON message a line"))
            .collect();
        let answer = |id: i64| {
            answers
                .iter()
                .find(|a| a["id"] == id)
                .unwrap_or_else(|| panic!("run {run}: no answer to {id}: {answers:?}"))
        };
        assert_eq!(answer(1)["result"]["protocolVersion"], "2025-11-25");
        assert!(answer(2)["result"]["tools"].is_array());
        for id in [3, 5] {
            assert_eq!(answer(id)["result"]["isError"], false, "run {run}: {answers:?}");
            assert_eq!(answer(id)["result"]["structuredContent"]["total_lines"], 1);
        }
        let shell = answer(4);
        assert_eq!(shell["error"]["code"], -32800, "run {run}: {shell}");
        assert!(shell["error"]["message"]
            .as_str()
            .unwrap()
            .contains("stdin closed"));
        assert_eq!(answer(6)["result"], json!({}));
        assert_eq!(answers.len(), 6, "run {run}: {answers:?}");
    }
    std::thread::sleep(std::time::Duration::from_secs(4));
    assert!(
        !ws.path().join("made.txt").exists(),
        "nothing ran after the client left"
    );
}

/// Read-only calls run on threads of their own, the others on the main thread: both survive.
#[test]
fn a_panic_is_that_requests_error_and_the_server_goes_on() {
    for tool in ["list_dir", "write_file"] {
        let ws = Ws::new();
        ws.write("a.txt", "hello\n");
        let mut session = McpSession::start_with_env(&ws, &[], &[("CODESMITH_TEST_PANIC", tool)]);
        let arguments = json!({"path": "b.txt", "content": "x"});
        let failed = session.request("tools/call", json!({"name": tool, "arguments": arguments}));
        assert_eq!(failed["error"]["code"], -32603, "{failed}");
        let message = failed["error"]["message"].as_str().unwrap();
        assert!(
            message.contains("the server goes on") && message.contains("check with read_file"),
            "{message}"
        );
        assert!(!ws.path().join("b.txt").exists());
        let read = session.call("read_file", json!({"path": "a.txt"}));
        assert_eq!(read["isError"], false, "{read}");
        let (status, stderr) = session.close();
        assert!(status.success(), "{stderr}");
        assert!(stderr.contains("panicked"), "{stderr}");
    }
}

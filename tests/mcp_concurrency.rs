//! `codesmith mcp` on one connection: read-only calls run alongside a running call, calls that
//! change something keep their order, results carry their ids, cancellation stays per request.

use std::time::{Duration, Instant};

use serde_json::json;

use crate::harness::Ws;
use crate::mcp_support::McpSession;

#[test]
fn a_read_is_answered_while_a_command_runs_and_changes_keep_their_order() {
    let ws = Ws::new();
    ws.write("a.txt", "hello\n");
    let mut session = McpSession::initialized(&ws, &[], "2025-11-25", json!({}));
    let started = Instant::now();
    let sleep = session.send_request(
        "tools/call",
        json!({"name": "exec_shell", "arguments": {"command": "sleep 2; echo first >> order.txt"}}),
    );
    let after = session.send_request(
        "tools/call",
        json!({"name": "exec_shell", "arguments": {"command": "echo second >> order.txt"}}),
    );
    let read = session.send_request(
        "tools/call",
        json!({"name": "read_file", "arguments": {"path": "a.txt"}}),
    );
    let answer = session.recv();
    assert_eq!(answer["id"], read, "the read comes first: {answer}");
    assert_eq!(answer["result"]["isError"], false, "{answer}");
    assert!(
        started.elapsed() < Duration::from_millis(1900),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(session.recv()["id"], sleep);
    assert_eq!(session.recv()["id"], after);
    assert_eq!(ws.read("order.txt"), b"first\nsecond\n");
}

#[test]
fn a_read_running_alongside_can_be_cancelled_alone() {
    let ws = Ws::new();
    ws.write("a.txt", "hello\n");
    let mut session = McpSession::initialized(&ws, &[], "2025-11-25", json!({}));
    let sleep = session.send_request(
        "tools/call",
        json!({"name": "exec_shell", "arguments": {"command": "sleep 1"}}),
    );
    // A search over a tree big enough to outlast the cancellation, which arrives in the same write.
    for i in 0..1000 {
        ws.write(&format!("d/f{i}.txt"), "needle\n".repeat(500));
    }
    let grep = session.next_id();
    let call = json!({"jsonrpc": "2.0", "id": grep, "method": "tools/call",
                      "params": {"name": "grep_files", "arguments": {"pattern": "needle"}}});
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                        "params": {"requestId": grep}});
    session.send_line(&format!("{call}\n{cancel}"));
    let read = session.send_request(
        "tools/call",
        json!({"name": "read_file", "arguments": {"path": "a.txt"}}),
    );
    let mut ids = Vec::new();
    while ids.len() < 2 {
        let message = session.recv();
        ids.push(message["id"].clone());
    }
    assert!(
        ids.contains(&json!(read)) && ids.contains(&json!(sleep)),
        "{ids:?}"
    );
    session.assert_silent(Duration::from_millis(300));
}

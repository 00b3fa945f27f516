//! `codesmith mcp` approvals at the edges of elicitation: a client that elicits by url only, an
//! elicitation that fails, and progress while the form is open.

use std::time::Duration;

use serde_json::{json, Value};

use crate::harness::Ws;
use crate::mcp_approvals::Victim;
use crate::mcp_support::{texts, McpSession};

#[test]
fn a_client_eliciting_by_url_only_is_told_so() {
    let ws = Ws::new();
    let victim = Victim::new();
    let capabilities = json!({"elicitation": {"url": {}}});
    let mut session = McpSession::initialized(&ws, &[], "2025-11-25", capabilities);
    let result = session.call("exec_shell", victim.arguments());
    assert_eq!(result["isError"], true, "{result}");
    let text = &texts(&result)[0];
    assert!(
        text.contains("url mode only") && text.contains(" approve ap-"),
        "{text}"
    );
    assert!(!text.contains("declared no elicitation"), "{text}");
    assert!(victim.exists());
}

#[test]
fn a_failed_elicitation_is_named_and_runs_nothing() {
    let ws = Ws::new();
    let victim = Victim::new();
    let mut session = McpSession::initialized(&ws, &[], "2025-11-25", json!({"elicitation": {}}));
    let id = session.send_request(
        "tools/call",
        json!({"name": "exec_shell", "arguments": victim.arguments()}),
    );
    let ask = session.recv();
    assert_eq!(ask["method"], "elicitation/create", "{ask}");
    let error = json!({"code": -32603, "message": "no user interface attached"});
    session.send_line(&json!({"jsonrpc": "2.0", "id": ask["id"], "error": error}).to_string());
    let result = session.response(&json!(id))["result"].clone();
    assert_eq!(result["isError"], true, "{result}");
    let text = &texts(&result)[0];
    assert!(
        text.contains("elicitation/create request failed: no user interface attached")
            && text.contains(" approve ap-"),
        "{text}"
    );
    assert!(!text.contains("declared no elicitation"), "{text}");
    assert!(victim.exists());
}

#[test]
fn progress_goes_on_while_the_approval_form_is_open() {
    let ws = Ws::new();
    let victim = Victim::new();
    let mut session = McpSession::initialized(&ws, &[], "2025-11-25", json!({"elicitation": {}}));
    let params = json!({"name": "exec_shell", "arguments": victim.arguments(),
                        "_meta": {"progressToken": "form"}});
    let id = session.send_request("tools/call", params);
    let ask = session.recv();
    assert_eq!(ask["method"], "elicitation/create", "{ask}");
    std::thread::sleep(Duration::from_millis(2600));
    let decline = json!({"jsonrpc": "2.0", "id": ask["id"], "result": {"action": "decline"}});
    session.send_line(&decline.to_string());
    let result = session.response(&json!(id))["result"].clone();
    assert_eq!(result["isError"], true, "{result}");
    let progress: Vec<&Value> = session
        .seen
        .iter()
        .filter(|m| m["method"] == "notifications/progress")
        .collect();
    assert!(progress.len() >= 2, "{:?}", session.seen);
    assert!(progress.iter().all(|m| m["params"]["progressToken"] == "form"
        && m["params"]["message"].as_str().unwrap().contains("approval form")));
    let counts: Vec<u64> = progress
        .iter()
        .map(|m| m["params"]["progress"].as_u64().unwrap())
        .collect();
    assert!(counts.windows(2).all(|w| w[0] < w[1]), "{counts:?}");
    assert!(victim.exists());
}

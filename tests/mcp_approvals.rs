//! `codesmith mcp`: approvals asked through elicitation in both eras, cancellation, progress,
//! and the end of the server when stdin closes.
//!
//! The command that needs approval deletes a directory the test made outside the workspace
//! (`rm -rf` outside the workspace is destructive), so whether it ran shows on disk.

use std::path::PathBuf;
use std::time::Duration;

use serde_json::{json, Value};

use crate::harness::Ws;
use crate::mcp_support::{eventually, modern_meta, process_gone, texts, McpSession};

/// A directory outside the workspace, and the command that deletes it.
pub(crate) struct Victim {
    _dir: tempfile::TempDir,
    path: PathBuf,
}

impl Victim {
    pub(crate) fn new() -> Victim {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().canonicalize().expect("canonical").join("victim");
        std::fs::create_dir(&path).expect("mkdir");
        Victim { _dir: dir, path }
    }

    pub(crate) fn arguments(&self) -> Value {
        json!({"command": format!("rm -rf {}", self.path.display())})
    }

    pub(crate) fn exists(&self) -> bool {
        self.path.exists()
    }
}

fn elicit_capability() -> Value {
    json!({"elicitation": {}})
}

/// Calls exec_shell on `victim` and answers the server's `elicitation/create` with `answer`;
/// returns the elicitation's params and the call's result.
fn call_answering(session: &mut McpSession, victim: &Victim, answer: Value) -> (Value, Value) {
    let id = session.send_request(
        "tools/call",
        json!({"name": "exec_shell", "arguments": victim.arguments()}),
    );
    let ask = session.recv();
    assert_eq!(ask["method"], "elicitation/create", "{ask}");
    assert!(victim.exists(), "nothing runs before the answer");
    let reply = json!({"jsonrpc": "2.0", "id": ask["id"], "result": answer});
    session.send_line(&reply.to_string());
    let response = session.response(&json!(id));
    (ask["params"].clone(), response["result"].clone())
}

#[test]
fn handshake_elicitation_accept_runs_and_is_recorded_for_the_session() {
    let ws = Ws::new();
    let victim = Victim::new();
    let mut session = McpSession::initialized(&ws, &["--session", "s1"], "2025-11-25", elicit_capability());
    let (params, result) = call_answering(
        &mut session,
        &victim,
        json!({"action": "accept", "content": {"approve": true, "persist": false}}),
    );
    assert_eq!(params["mode"], "form");
    let message = params["message"].as_str().unwrap();
    assert!(
        message.contains("rm -rf") && message.contains("outside the workspace"),
        "{message}"
    );
    let schema = &params["requestedSchema"]["properties"];
    assert_eq!(
        (
            schema["approve"]["type"].clone(),
            schema["persist"]["type"].clone()
        ),
        (json!("boolean"), json!("boolean"))
    );
    assert_eq!(result["isError"], false, "{result}");
    assert!(!victim.exists(), "the approved command ran");
    let sessions = ws.read_string(".codesmith/sessions/s1.json");
    assert!(sessions.contains("\"approvals\""), "{sessions}");
}

#[test]
fn handshake_elicitation_decline_and_cancel_run_nothing() {
    let ws = Ws::new();
    let mut session = McpSession::initialized(&ws, &[], "2025-06-18", elicit_capability());
    for (answer, said) in [
        (json!({"action": "decline"}), "The user declined"),
        (json!({"action": "cancel"}), "The user cancelled the question"),
        (
            json!({"action": "accept", "content": {"approve": false}}),
            "The user left approve unticked",
        ),
    ] {
        let victim = Victim::new();
        let (params, result) = call_answering(&mut session, &victim, answer);
        assert!(params.get("mode").is_none(), "2025-06-18 has no elicitation mode");
        assert_eq!(result["isError"], true);
        assert_eq!(result["structuredContent"]["code"], "approval_required");
        let text = &texts(&result)[0];
        assert!(text.starts_with(said) && text.contains("ran nothing"), "{text}");
        assert!(victim.exists());
    }
}

#[test]
fn without_elicitation_the_result_names_the_approval_and_how_to_grant_it() {
    let ws = Ws::new();
    let victim = Victim::new();
    let mut session = McpSession::initialized(&ws, &["--session", "s2"], "2025-11-25", json!({}));
    let result = session.call("exec_shell", victim.arguments());
    assert_eq!(result["isError"], true);
    let id = result["structuredContent"]["approval"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let text = &texts(&result)[0];
    let grant = format!("--session s2 approve {id}`");
    assert!(
        text.contains(&grant) && text.contains("cannot ask the user"),
        "{text}"
    );
    assert!(victim.exists());
    // A person grants it with that command; the same call then runs.
    let mut person = Ws::at(&ws.path());
    person.session = Some("s2".into());
    person.run(&["approve", &id]).ok();
    let again = session.call("exec_shell", victim.arguments());
    assert_eq!(again["isError"], false, "{again}");
    assert!(!victim.exists());
}

/// A 2026-07-28 `tools/call` of exec_shell on `victim`.
fn modern_call(session: &mut McpSession, victim: &Victim, capabilities: Value, extra: Value) -> Value {
    let mut params =
        json!({"_meta": modern_meta(capabilities), "name": "exec_shell", "arguments": victim.arguments()});
    if let (Value::Object(params), Value::Object(extra)) = (&mut params, extra) {
        params.extend(extra);
    }
    session.request("tools/call", params)["result"].clone()
}

#[test]
fn stateless_approval_is_an_input_required_result_answered_by_a_retry() {
    let ws = Ws::new();
    let victim = Victim::new();
    let mut session = McpSession::start(&ws, &[]);
    let first = modern_call(&mut session, &victim, elicit_capability(), json!({}));
    assert_eq!(first["resultType"], "input_required", "{first}");
    let request = &first["inputRequests"]["approval"];
    assert_eq!(request["method"], "elicitation/create");
    assert_eq!(request["params"]["mode"], "form");
    let state = first["requestState"].as_str().unwrap().to_string();
    assert!(victim.exists());

    // A tampered state is not trusted: the person is asked again and nothing runs.
    let accept = json!({"approval": {"action": "accept", "content": {"approve": true}}});
    let last = if state.ends_with('0') { '1' } else { '0' };
    let forged = format!("{}{last}", &state[..state.len() - 1]);
    assert_ne!(forged, state);
    let tampered = modern_call(
        &mut session,
        &victim,
        elicit_capability(),
        json!({"inputResponses": accept, "requestState": forged}),
    );
    assert_eq!(tampered["resultType"], "input_required");
    assert!(victim.exists());

    // The state is bound to the call: another command is asked about anew.
    let other = Victim::new();
    let moved = modern_call(
        &mut session,
        &other,
        elicit_capability(),
        json!({"inputResponses": accept, "requestState": state}),
    );
    assert_eq!(moved["resultType"], "input_required");
    assert!(other.exists());

    let done = modern_call(
        &mut session,
        &victim,
        elicit_capability(),
        json!({"inputResponses": accept, "requestState": state}),
    );
    assert_eq!(done["resultType"], "complete", "{done}");
    assert_eq!(done["isError"], false);
    assert!(!victim.exists());
}

#[test]
fn stateless_decline_and_missing_capability_are_is_error() {
    let ws = Ws::new();
    let victim = Victim::new();
    let mut session = McpSession::start(&ws, &[]);
    let first = modern_call(&mut session, &victim, elicit_capability(), json!({}));
    let state = first["requestState"].clone();
    let declined = modern_call(
        &mut session,
        &victim,
        elicit_capability(),
        json!({"inputResponses": {"approval": {"action": "decline"}}, "requestState": state}),
    );
    assert_eq!(
        (declined["resultType"].clone(), declined["isError"].clone()),
        (json!("complete"), json!(true))
    );
    assert_eq!(declined["structuredContent"]["declined"], "decline");
    assert!(victim.exists());

    // A URL-only elicitation cannot show a form: the result says how a person grants it.
    let absent = modern_call(
        &mut session,
        &victim,
        json!({"elicitation": {"url": {}}}),
        json!({}),
    );
    assert_eq!(absent["isError"], true);
    assert!(texts(&absent)[0].contains("approve ap-"), "{absent}");
    assert!(victim.exists());
}

/// exec_shell writes its shell's pid and a background child's pid to `pids`, then waits.
/// A command that runs until stopped, its processes marked (the pids it would see are its PID
/// namespace's, not the test's): the shell, a child shell and a `sleep`.
fn long_command(mark: &str) -> String {
    format!("CS_TEST_MARK={mark} sh -c 'sleep 300 & echo ready > started; wait'")
}

/// Waits until the command is running; returns its processes as the test sees them.
fn started_processes(ws: &Ws, mark: &str) -> Vec<i32> {
    let mut pids = Vec::new();
    eventually("the command started", || {
        pids = crate::exec_shell::procs_with(mark);
        ws.exists("started") && pids.len() >= 2
    });
    pids
}

#[test]
fn a_cancelled_call_leaves_no_process_and_no_response() {
    let ws = Ws::new();
    let mark = crate::exec_shell::marker("mcp-cancel");
    let mut session = McpSession::initialized(&ws, &[], "2025-11-25", json!({}));
    let id = session.send_request(
        "tools/call",
        json!({"name": "exec_shell", "arguments": {"command": long_command(&mark)}}),
    );
    let pids = started_processes(&ws, &mark);
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": id, "reason": "test"}});
    session.send_line(&cancel.to_string());
    for pid in &pids {
        eventually("the cancelled command's processes are gone", || {
            process_gone(*pid)
        });
    }
    // The server goes on, and the cancelled request is never answered.
    let list = session.request("tools/list", json!({}));
    assert!(list["result"]["tools"].is_array());
    assert!(
        session.seen.iter().all(|m| m["id"] != json!(id)),
        "{:?}",
        session.seen
    );
    session.assert_silent(Duration::from_millis(300));
    let (status, _) = session.close();
    assert!(status.success());
}

#[test]
fn closing_stdin_ends_the_server_and_its_foreground_processes() {
    let ws = Ws::new();
    let mark = crate::exec_shell::marker("mcp-close");
    let mut session = McpSession::initialized(&ws, &[], "2025-11-25", json!({}));
    session.send_request(
        "tools/call",
        json!({"name": "exec_shell", "arguments": {"command": long_command(&mark)}}),
    );
    let pids = started_processes(&ws, &mark);
    let (status, stderr) = session.close();
    assert!(status.success(), "{stderr}");
    for pid in &pids {
        eventually("the foreground processes are gone", || process_gone(*pid));
    }
}

#[test]
fn a_long_call_with_a_progress_token_reports_progress() {
    let ws = Ws::new();
    let mut session = McpSession::start(&ws, &[]);
    let mut meta = modern_meta(json!({}));
    meta["progressToken"] = json!("tok-1");
    let response = session.request(
        "tools/call",
        json!({"_meta": meta, "name": "exec_shell", "arguments": {"command": "sleep 2.5; echo done"}}),
    );
    assert_eq!(response["result"]["isError"], false);
    let progress: Vec<&Value> = session
        .seen
        .iter()
        .filter(|m| m["method"] == "notifications/progress")
        .collect();
    assert!(progress.len() >= 2, "{:?}", session.seen);
    assert!(progress.iter().all(|m| m["params"]["progressToken"] == "tok-1"));
    assert_eq!(progress[0]["params"]["progress"], 1);
    assert!(progress[1]["params"]["progress"].as_u64() > progress[0]["params"]["progress"].as_u64());
}

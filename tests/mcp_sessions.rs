//! `codesmith mcp`: one connection is one session. A connection without `--session` gets a
//! session of its own, named in its instructions and approval hints; `--session NAME` shares one
//! on purpose.

use serde_json::{json, Value};

use crate::harness::WithoutCodesmithEnv;
use crate::harness::{Ws, BIN};
use crate::mcp_approvals::Victim;
use crate::mcp_support::{modern_meta, texts, McpSession};

/// The session an `initialize` (or `server/discover`) result's instructions name.
fn session_named(result: &Value) -> String {
    let text = result["instructions"].as_str().expect("instructions");
    let start = text.find("session is `").expect("names the session") + "session is `".len();
    let name = &text[start..start + text[start..].find('`').expect("closing quote")];
    assert!(
        name.starts_with("mcp-") && name.len() == 16,
        "a session of its own: {text}"
    );
    name.to_string()
}

fn connect(ws: &Ws, global: &[&str]) -> (McpSession, String) {
    let mut session = McpSession::start(ws, global);
    let init = session.request(
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {},
               "clientInfo": {"name": "codesmith-tests", "version": "1"}}),
    );
    let name = session_named(&init["result"]);
    (session, name)
}

/// The command between the backticks that follows "run `" in a hint.
fn printed_command(text: &str) -> String {
    let start = text.find("run `").expect("a command to run") + "run `".len();
    text[start..start + text[start..].find('`').expect("closing quote")].to_string()
}

/// Runs a printed command line as a person would paste it into a shell.
fn run_verbatim(command: &str, cwd: &std::path::Path) -> std::process::Output {
    let bin_dir = std::path::Path::new(BIN).parent().expect("bin dir");
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    std::process::Command::new("sh")
        .args(["-c", command])
        .current_dir(cwd)
        .env("PATH", path)
        .without_codesmith_env()
        .output()
        .expect("run sh")
}

#[test]
fn connections_without_session_have_their_own_reads() {
    let ws = Ws::new();
    ws.write("a.txt", "one\n");
    let (mut first, first_name) = connect(&ws, &[]);
    let (mut second, second_name) = connect(&ws, &[]);
    assert_ne!(first_name, second_name);
    let read = first.call("read_file", json!({"path": "a.txt"}));
    assert_eq!(read["isError"], false, "{read}");
    let edit = json!({"path": "a.txt", "search": "one", "replace": "two"});
    let refused = second.call("edit_file", edit.clone());
    assert_eq!(refused["isError"], true, "{refused}");
    assert_eq!(refused["structuredContent"]["code"], "not_read", "{refused}");
    assert_eq!(
        ws.read("a.txt"),
        b"one\n",
        "the other connection's read did not count"
    );
    let edited = first.call("edit_file", edit);
    assert_eq!(edited["isError"], false, "{edited}");
    // The modern era names the same session in server/discover.
    let discover = first.request("server/discover", json!({"_meta": modern_meta(json!({}))}));
    assert_eq!(session_named(&discover["result"]), first_name);
}

#[test]
fn an_approval_granted_for_one_connection_does_not_let_another_run_it() {
    let ws = Ws::new();
    let victim = Victim::new();
    let (mut first, first_name) = connect(&ws, &[]);
    let (mut second, _) = connect(&ws, &[]);
    let asked = first.call("exec_shell", victim.arguments());
    assert_eq!(asked["isError"], true, "{asked}");
    let text = &texts(&asked)[0];
    let command = printed_command(text);
    assert!(
        command.contains(&format!("--session {first_name} approve ap-")),
        "{text}"
    );
    // The person runs the hint exactly as printed, from a directory that is not the workspace.
    let elsewhere = tempfile::tempdir().expect("tempdir");
    let granted = run_verbatim(&command, elsewhere.path());
    assert!(granted.status.success(), "{command}: {granted:?}");
    let other = second.call("exec_shell", victim.arguments());
    assert_eq!(other["isError"], true, "{other}");
    assert_eq!(other["structuredContent"]["code"], "approval_required");
    assert!(victim.exists(), "the other connection ran nothing");
    let again = first.call("exec_shell", victim.arguments());
    assert_eq!(again["isError"], false, "{again}");
    assert!(!victim.exists());
}

#[test]
fn connections_naming_one_session_share_it() {
    let ws = Ws::new();
    ws.write("a.txt", "one\n");
    let mut first = McpSession::initialized(&ws, &["--session", "pair"], "2025-11-25", json!({}));
    let mut second = McpSession::initialized(&ws, &["--session", "pair"], "2025-11-25", json!({}));
    let read = first.call("read_file", json!({"path": "a.txt"}));
    assert_eq!(read["isError"], false, "{read}");
    let edit = json!({"path": "a.txt", "search": "one", "replace": "two"});
    let edited = second.call("edit_file", edit);
    assert_eq!(edited["isError"], false, "{edited}");
    assert_eq!(ws.read("a.txt"), b"two\n");
}

//! A client for `codesmith mcp` tests: the server as a child process, one JSON message per line
//! each way, with a deadline on every wait.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::harness::WithoutCodesmithEnv;
use crate::harness::{Ws, BIN};

pub(crate) const MODERN: &str = "2026-07-28";

/// How long any single wait for the server may take before the test fails.
const WAIT: Duration = Duration::from_secs(20);

pub(crate) struct McpSession {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    /// Notifications and server requests seen while waiting for a response, in order.
    pub seen: Vec<Value>,
    next_id: i64,
}

impl McpSession {
    /// `codesmith --workspace WS [GLOBAL...] mcp`.
    pub(crate) fn start(ws: &Ws, global: &[&str]) -> McpSession {
        McpSession::start_with_env(ws, global, &[])
    }

    /// [`McpSession::start`] with extra environment variables.
    pub(crate) fn start_with_env(ws: &Ws, global: &[&str], env: &[(&str, &str)]) -> McpSession {
        let mut cmd = Command::new(BIN);
        cmd.envs(env.iter().copied());
        cmd.arg("--workspace")
            .arg(ws.path())
            .args(global)
            .arg("mcp")
            .current_dir(ws.path())
            .without_codesmith_env()
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().expect("start codesmith mcp");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        McpSession {
            stdin: child.stdin.take(),
            child,
            lines,
            seen: Vec::new(),
            next_id: 0,
        }
    }

    /// A session after the handshake at `version`, with `capabilities`.
    pub(crate) fn initialized(ws: &Ws, global: &[&str], version: &str, capabilities: Value) -> McpSession {
        let mut session = McpSession::start(ws, global);
        let result = session.request(
            "initialize",
            json!({"protocolVersion": version, "capabilities": capabilities,
                   "clientInfo": {"name": "codesmith-tests", "version": "1"}}),
        );
        assert_eq!(result["result"]["protocolVersion"], version, "{result}");
        session.send_line(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string());
        session
    }

    pub(crate) fn send_line(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(line.as_bytes()).expect("write");
        stdin.write_all(b"\n").expect("write");
        stdin.flush().expect("flush");
    }

    pub(crate) fn next_id(&mut self) -> i64 {
        self.next_id += 1;
        self.next_id
    }

    /// Sends a request without waiting; returns its id.
    pub(crate) fn send_request(&mut self, method: &str, params: Value) -> i64 {
        let id = self.next_id();
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.send_line(&message.to_string());
        id
    }

    /// The next message from the server.
    pub(crate) fn recv(&mut self) -> Value {
        let line = self
            .lines
            .recv_timeout(WAIT)
            .unwrap_or_else(|_| panic!("no message from the server; seen: {:?}", self.seen));
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON on stdout ({e}): {line}"))
    }

    /// Waits for the response with `id`, keeping everything else in `seen`.
    pub(crate) fn response(&mut self, id: &Value) -> Value {
        loop {
            let message = self.recv();
            if &message["id"] == id && message.get("method").is_none() {
                return message;
            }
            self.seen.push(message);
        }
    }

    /// Sends a request and waits for its response (the whole JSON-RPC message).
    pub(crate) fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.send_request(method, params);
        self.response(&json!(id))
    }

    /// `tools/call` in the handshake versions; returns the `result`.
    pub(crate) fn call(&mut self, name: &str, arguments: Value) -> Value {
        let response = self.request("tools/call", json!({"name": name, "arguments": arguments}));
        response
            .get("result")
            .cloned()
            .unwrap_or_else(|| panic!("tools/call {name} answered with an error: {response}"))
    }

    /// Nothing arrives from the server for `quiet`.
    pub(crate) fn assert_silent(&mut self, quiet: Duration) {
        if let Ok(line) = self.lines.recv_timeout(quiet) {
            panic!("unexpected message from the server: {line}");
        }
    }

    /// Closes stdin and waits for the server to exit; returns its status and stderr.
    pub(crate) fn close(mut self) -> (std::process::ExitStatus, String) {
        drop(self.stdin.take());
        let deadline = Instant::now() + WAIT;
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                let mut stderr = String::new();
                if let Some(mut pipe) = self.child.stderr.take() {
                    let _ = std::io::Read::read_to_string(&mut pipe, &mut stderr);
                }
                return (status, stderr);
            }
            assert!(
                Instant::now() < deadline,
                "the server did not exit after stdin closed"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for McpSession {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The `_meta` of a 2026-07-28 request.
pub(crate) fn modern_meta(capabilities: Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": capabilities,
        "io.modelcontextprotocol/clientInfo": {"name": "codesmith-tests", "version": "1"},
    })
}

/// The text blocks of a `CallToolResult`.
pub(crate) fn texts(result: &Value) -> Vec<String> {
    result["content"]
        .as_array()
        .expect("content")
        .iter()
        .map(|block| {
            assert_eq!(block["type"], "text", "{block}");
            block["text"].as_str().expect("text").to_string()
        })
        .collect()
}

/// Whether process `pid` is gone (or a zombie no one has reaped yet).
pub(crate) fn process_gone(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z')),
    }
}

/// Waits until `check` holds, at most [`WAIT`].
pub(crate) fn eventually(what: &str, mut check: impl FnMut() -> bool) {
    let deadline = Instant::now() + WAIT;
    while !check() {
        assert!(Instant::now() < deadline, "timed out waiting: {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

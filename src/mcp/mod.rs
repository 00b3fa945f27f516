//! `codesmith mcp`: the tools over the Model Context Protocol on stdio.
//!
//! Threads and no async runtime. One thread at a time reads stdin (the reader): it parses each
//! line, answers what must not wait behind a running tool (a malformed line, `ping`,
//! `notifications/cancelled`, and a client's answers to the server's own requests), runs each
//! read-only `tools/call` itself after handing the reading on to a kept worker thread (see
//! [`read_loop`] and `workers`), and queues the other requests for the main thread, which runs
//! them one at a time, in order, through the same dispatch as the command line.
//! Every message goes out as one line through one locked writer, so the two never interleave.
//!
//! A connection without `--session` gets a session of its own (see [`serve`]).
//!
//! Cancelling the request in progress kills its foreground process group (see [`crate::session::cancel`])
//! and drops its response; a request still queued is dropped unanswered. When stdin closes, the
//! requests already read are still answered: read-only ones run, a call that would change files
//! or run a command is answered as cancelled (a running one is stopped as above), never run after
//! the client left; then the server exits. A panic in a request becomes that request's error
//! response and a line on stderr; the server goes on.

mod call;
mod protocol;
mod question;
mod request_state;
mod workers;

use std::collections::HashSet;
use std::io::BufRead;
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};

use crate::session::context::{Context, Global};
use protocol::{Era, RpcError};

/// Requests received and not yet answered, by id (as JSON text), and those the client cancelled.
#[derive(Default)]
struct Inflight {
    pending: HashSet<String>,
    running: Option<String>,
    cancelled: HashSet<String>,
    /// Stdin closed: what is still queued is answered without running anything that changes.
    closed: bool,
    /// Whether the running request changes files or runs commands.
    running_changes: bool,
}

type Shared = Arc<Mutex<Inflight>>;

fn lock(shared: &Shared) -> std::sync::MutexGuard<'_, Inflight> {
    shared.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Writes one protocol message as one line on stdout.
fn send(message: &Value) {
    let mut line = serde_json::to_string(message).unwrap_or_default();
    line.push('\n');
    crate::dispatch::envelope::write_stdout(line.as_bytes());
}

/// Serves until stdin closes; returns the exit status. Without `session_given` the connection
/// gets a session of its own, so approvals and reads never cross connections by accident.
pub fn serve(mut global: Global, session_given: bool) -> i32 {
    // stdin carries the protocol: ask_user never prompts on it.
    global.prompt = false;
    if !session_given {
        match own_session() {
            Some(name) => global.session = name,
            None => {
                eprintln!("codesmith mcp: no randomness for the connection's session name");
                return 1;
            }
        }
    }
    let root = match Context::open(&global, crate::tool_id::ToolId::Mcp) {
        Ok(ctx) => ctx.workspace.root().to_path_buf(),
        Err(err) => {
            eprintln!("codesmith mcp: {}", err.message());
            return err.code().exit_status();
        }
    };
    // Named from here on: the commands a result prints for a person are run in their terminal,
    // not where the server runs, so they name the workspace (see `dispatch::person`).
    global.workspace = Some(root.clone());
    let Some(state_key) = request_state::StateKey::generate() else {
        eprintln!("codesmith mcp: no randomness for the requestState key");
        return 1;
    };
    let shared = Shared::default();
    let (requests, queue) = mpsc::channel();
    let (answers, answer_queue) = mpsc::channel();
    let reading = Arc::new(Reading {
        global: global.clone(),
        requests,
        answers,
        shared: shared.clone(),
        workers: workers::Workers::new(),
    });
    let reader = std::thread::Builder::new()
        .name("mcp-reader".into())
        .spawn(move || read_loop(reading));
    if reader.is_err() {
        eprintln!("codesmith mcp: could not start the reader thread");
        return 1;
    }
    let mut server = Server {
        global,
        root,
        state_key,
        shared,
        answers: answer_queue,
        handshake: None,
        next_request: 0,
    };
    server.run(&queue);
    0
}

/// A fresh session name for one connection: `mcp-` and 12 random hex digits.
fn own_session() -> Option<String> {
    use ring::rand::SecureRandom;
    let mut bytes = [0u8; 6];
    ring::rand::SystemRandom::new().fill(&mut bytes).ok()?;
    Some(
        bytes
            .iter()
            .fold("mcp-".to_string(), |name, b| format!("{name}{b:02x}")),
    )
}

/// What the `initialize` handshake settled, for requests without a per-request version.
struct Handshake {
    version: String,
    can_elicit: bool,
    url_only: bool,
}

pub(crate) struct Server {
    global: Global,
    root: std::path::PathBuf,
    state_key: request_state::StateKey,
    shared: Shared,
    /// The client's answers to the server's own requests (`elicitation/create`).
    answers: Receiver<Value>,
    handshake: Option<Handshake>,
    next_request: u64,
}

impl Server {
    fn run(&mut self, queue: &Receiver<Value>) {
        // Read-only calls never come here first: the reader starts them (see `call::alongside`).
        for request in queue {
            let id = request["id"].clone();
            let key = id.to_string();
            let changes = changes_anything(&request);
            {
                let mut inflight = lock(&self.shared);
                if inflight.cancelled.remove(&key) {
                    inflight.pending.remove(&key);
                    continue;
                }
                if inflight.closed && changes {
                    inflight.pending.remove(&key);
                    send(&protocol::error_response(&id, client_left()));
                    continue;
                }
                // Under the lock the reader cancels with, so a cancellation is never lost.
                crate::session::cancel::reset();
                inflight.running = Some(key.clone());
                inflight.running_changes = changes;
            }
            let response = match self.handle_guarded(&request) {
                Ok(Some(result)) => Some(protocol::result_response(&id, result)),
                Ok(None) => None,
                Err(error) => Some(protocol::error_response(&id, error)),
            };
            let mut inflight = lock(&self.shared);
            inflight.running = None;
            inflight.pending.remove(&key);
            if inflight.cancelled.remove(&key) {
                continue;
            }
            match response {
                Some(response) => send(&response),
                // Stopped because the client left, not because it asked: it still gets an answer.
                None if inflight.closed => send(&protocol::error_response(&id, client_left())),
                None => {}
            }
        }
    }

    /// [`Self::handle`], with a panic turned into this request's error response.
    fn handle_guarded(&mut self, request: &Value) -> Result<Option<Value>, RpcError> {
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.handle(request)));
        outcome.unwrap_or_else(|panic| Err(panicked(request, &*panic)))
    }

    /// Whether the client cancelled the request in progress (or went away).
    fn cancelled(&self) -> bool {
        crate::session::cancel::requested()
    }

    /// The result of one request; `Ok(None)` when it must go unanswered (it was cancelled).
    fn handle(&mut self, request: &Value) -> Result<Option<Value>, RpcError> {
        let method = request["method"].as_str().unwrap_or_default();
        let params = request.get("params").cloned().unwrap_or_else(|| json!({}));
        if !params.is_object() {
            return Err(RpcError::invalid_params("params must be an object"));
        }
        let era = self.era_of(&params)?;
        panic_for_tests(method, &params);
        let result = match (method, era.modern) {
            ("initialize", false) => self.initialize(&params),
            ("server/discover", _) => self.discover(&params)?,
            ("tools/list", _) => self.list_tools(&era)?,
            ("tools/call", _) => match call::tools_call(self, &params, &era, &request["id"])? {
                Some(result) => result,
                None => return Ok(None),
            },
            ("ping", false) => json!({}),
            _ => {
                return Err(RpcError::new(
                    protocol::METHOD_NOT_FOUND,
                    format!("Method not found: {method}"),
                ))
            }
        };
        Ok(Some(era.finish(result)))
    }

    /// The era of a request: 2026-07-28 when its `_meta` carries the version (capabilities
    /// from that request alone), else the handshake's (or the newest handshake version for a
    /// client that skipped `initialize`).
    fn era_of(&self, params: &Value) -> Result<Era, RpcError> {
        if let Some(version) = protocol::request_version(params)? {
            let capabilities = &params["_meta"][protocol::CAPABILITIES_KEY];
            return Ok(Era {
                modern: true,
                can_elicit: protocol::can_elicit_form(capabilities),
                url_only: protocol::elicits_url_only(capabilities),
                version,
            });
        }
        Ok(match &self.handshake {
            Some(handshake) => Era {
                modern: false,
                can_elicit: handshake.can_elicit,
                url_only: handshake.url_only,
                version: handshake.version.clone(),
            },
            None => Era {
                modern: false,
                can_elicit: false,
                url_only: false,
                version: protocol::negotiate(None).to_string(),
            },
        })
    }

    fn initialize(&mut self, params: &Value) -> Value {
        let version = protocol::negotiate(params["protocolVersion"].as_str());
        self.handshake = Some(Handshake {
            version: version.to_string(),
            can_elicit: protocol::can_elicit_form(&params["capabilities"]),
            url_only: protocol::elicits_url_only(&params["capabilities"]),
        });
        json!({
            "protocolVersion": version,
            "capabilities": {"tools": {"listChanged": false}},
            "serverInfo": protocol::server_info(),
            "instructions": self.instructions(),
        })
    }

    /// The instructions, naming this connection's session (for a person's `approve`, `undo`).
    fn instructions(&self) -> String {
        format!(
            "{} This connection's session is `{}`: run `{} ...` to act in it from a terminal.",
            protocol::INSTRUCTIONS,
            self.global.session,
            call::person_command(self),
        )
    }

    fn discover(&self, params: &Value) -> Result<Value, RpcError> {
        if params["_meta"].get(protocol::VERSION_KEY).is_none() {
            return Err(RpcError::invalid_params(format!(
                "server/discover needs _meta[\"{}\"] (this server speaks {})",
                protocol::VERSION_KEY,
                protocol::supported_versions().join(", ")
            )));
        }
        Ok(json!({
            "supportedVersions": protocol::supported_versions(),
            "capabilities": {"tools": {}},
            "instructions": self.instructions(),
            "ttlMs": 3_600_000,
            // The instructions name this connection's session.
            "cacheScope": "private",
        }))
    }

    /// The enabled tools, in catalog order. The list follows `.codesmith/config.toml`, which
    /// can change, hence a short time-to-live, private to this workspace.
    fn list_tools(&self, era: &Era) -> Result<Value, RpcError> {
        let config = crate::session::config::Config::load(&self.root.join(".codesmith"))
            .map_err(|err| RpcError::new(protocol::INTERNAL_ERROR, err.message()))?;
        let tools: Vec<Value> = crate::tools::profile::enabled(&self.global, Some(&config))
            .into_iter()
            .map(crate::dispatch::catalog::mcp_tool)
            .collect();
        let mut result = json!({"tools": tools});
        if era.modern {
            result["ttlMs"] = json!(60_000);
            result["cacheScope"] = json!("private");
        }
        Ok(result)
    }

    /// Sends the client a request of the server's own and waits for its answer; `None` when the
    /// call was cancelled or the client went away first.
    /// With `progress`, the call goes on reporting progress while it waits (a client drops a
    /// request that has been silent too long, a form left open included).
    fn ask(&mut self, method: &str, params: Value, progress: Option<&call::Progress>) -> Option<Value> {
        self.next_request += 1;
        let id = format!("codesmith-{}", self.next_request);
        send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let start = std::time::Instant::now();
        let mut last_tick = start;
        loop {
            match self.answers.recv_timeout(std::time::Duration::from_millis(50)) {
                Ok(answer) if answer["id"] == id.as_str() => return Some(answer),
                Ok(other) => eprintln!("codesmith mcp: ignored an answer to no open request: {other}"),
                Err(mpsc::RecvTimeoutError::Timeout) if !self.cancelled() => {}
                Err(_) => return None,
            }
            if let Some(progress) = progress.filter(|_| last_tick.elapsed() >= call::PROGRESS_EVERY) {
                last_tick = std::time::Instant::now();
                let seconds = start.elapsed().as_secs();
                progress.tick(&format!(
                    "waiting {seconds} s for the user to answer the approval form"
                ));
            }
        }
    }
}

/// What reading the client's lines needs, shared by whichever thread reads.
struct Reading {
    global: Global,
    requests: Sender<Value>,
    answers: Sender<Value>,
    shared: Shared,
    workers: workers::Workers,
}

/// The reader: one message per line until stdin closes. A read-only call is run on the thread
/// that read it, at once, while a kept worker thread takes the reading on (see
/// [`workers`]): handing the call to a waiting thread instead would put that thread's wake-up
/// on the call's way, as much again as a small read_file costs.
fn read_loop(reading: Arc<Reading>) {
    let mut line = Vec::new();
    loop {
        line.clear();
        // Locked for one line only: the next reader may be another thread.
        let read = std::io::stdin().lock().read_until(b'\n', &mut line);
        match read {
            Ok(0) => break,
            Ok(_) => {
                let Some(job) = route(&reading, &line) else {
                    continue;
                };
                let next = reading.clone();
                if reading.workers.run(Box::new(move || read_loop(next))) {
                    return job();
                }
                // No thread for the reading: the call runs here first.
                job();
            }
            Err(err) if err.kind() == std::io::ErrorKind::Interrupted => {}
            Err(err) => {
                eprintln!("codesmith mcp: reading stdin failed: {err}");
                break;
            }
        }
    }
    let shared = &reading.shared;
    // The client is gone: what is queued is still answered (see `Server::run`); a running call
    // that changes something is stopped.
    let mut inflight = lock(shared);
    inflight.closed = true;
    if inflight.running.is_some() && inflight.running_changes {
        crate::session::cancel::cancel();
    }
}

/// The error response for a request whose handling panicked; logs it on stderr.
fn panicked(request: &Value, panic: &(dyn std::any::Any + Send)) -> RpcError {
    let why = panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_default();
    eprintln!("codesmith mcp: request {} panicked: {why}", request["id"]);
    RpcError::new(
        protocol::INTERNAL_ERROR,
        format!(
            "Internal error: codesmith failed while handling this request ({why}); the server \
             goes on. What the call had done before is kept; check with read_file or list_dir \
             before repeating it, and report the failure."
        ),
    )
}

/// Whether a request would change files or run commands: a `tools/call` of a tool that is not
/// read-only (see [`crate::dispatch::catalog::read_only`]).
fn changes_anything(request: &Value) -> bool {
    request["method"] == "tools/call"
        && request["params"]["name"]
            .as_str()
            .and_then(crate::tools::find)
            .is_some_and(|spec| !crate::dispatch::catalog::read_only(spec))
}

/// The answer to a call that would change something, when the client left before it ran.
fn client_left() -> RpcError {
    RpcError::new(
        protocol::REQUEST_CANCELLED,
        "Request cancelled: stdin closed before this call finished, so nothing more of it ran. \
         Send it again on a new connection if it is still wanted.",
    )
}

/// For tests only: with `CODESMITH_TEST_PANIC` set to a tool name, a `tools/call` of that tool
/// panics, to show that a panic stays inside its request. Nothing sets it outside the tests.
fn panic_for_tests(method: &str, params: &Value) {
    let Some(name) = std::env::var_os("CODESMITH_TEST_PANIC") else {
        return;
    };
    if method == "tools/call" && params["name"].as_str().is_some_and(|n| name == n) {
        panic!("CODESMITH_TEST_PANIC is set for {}", params["name"]);
    }
}

/// One line from the client: answered, queued for the main thread, or (a read-only call) the
/// job that runs it, returned for the reader to run.
fn route(reading: &Reading, line: &[u8]) -> Option<workers::Job> {
    let mut job = None;
    route_into(reading, line, &mut job);
    job
}

fn route_into(reading: &Reading, line: &[u8], job: &mut Option<workers::Job>) {
    let Reading {
        global,
        requests,
        answers,
        shared,
        ..
    } = reading;
    let text = String::from_utf8_lossy(line);
    let text = text.trim();
    if text.is_empty() {
        return;
    }
    let message: Value = match serde_json::from_str(text) {
        Ok(message) => message,
        Err(err) => {
            let error = RpcError::new(protocol::PARSE_ERROR, format!("Parse error: {err}"));
            return send(&protocol::error_response(&Value::Null, error));
        }
    };
    let id = message.get("id").cloned();
    let error_id = id.clone().unwrap_or(Value::Null);
    let invalid = |why: &str| {
        let error = RpcError::new(protocol::INVALID_REQUEST, format!("Invalid Request: {why}"));
        send(&protocol::error_response(&error_id, error));
    };
    if !message.is_object() {
        return invalid("send one JSON-RPC object per line (batches are not supported)");
    }
    if message["jsonrpc"] != "2.0" {
        return invalid("\"jsonrpc\" must be \"2.0\"");
    }
    let Some(method) = message["method"].as_str() else {
        if id.is_some() && (message.get("result").is_some() || message.get("error").is_some()) {
            let _ = answers.send(message);
            return;
        }
        return invalid("a request needs a string \"method\"");
    };
    let Some(id) = id else {
        if method == "notifications/cancelled" {
            cancel(&message["params"]["requestId"], shared);
        }
        return;
    };
    if !(id.is_string() || id.is_i64() || id.is_u64()) {
        return invalid("\"id\" must be a string or an integer");
    }
    // A ping is answered at once, also while a tool runs (2026-07-28 has no ping: queued, it
    // gets method-not-found there).
    if method == "ping" && message["params"]["_meta"].get(protocol::VERSION_KEY).is_none() {
        return send(&protocol::result_response(&id, json!({})));
    }
    lock(shared).pending.insert(id.to_string());
    match call::alongside(global, shared, requests, &message) {
        Some(call) => *job = Some(call),
        None => {
            let _ = requests.send(message);
        }
    }
}

/// `notifications/cancelled`: a queued request is dropped, the running one stopped.
fn cancel(request_id: &Value, shared: &Shared) {
    let key = request_id.to_string();
    let mut inflight = lock(shared);
    if !inflight.pending.contains(&key) {
        return;
    }
    inflight.cancelled.insert(key.clone());
    if inflight.running.as_deref() == Some(key.as_str()) {
        crate::session::cancel::cancel();
    }
}

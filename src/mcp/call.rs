//! `tools/call`: one tool through the command line's dispatch, its envelope as a
//! `CallToolResult`, and the approvals a call needs asked of the person.
//!
//! The result: `content` is the envelope's `output` as one text block followed by one text block
//! per notice (`Notice: ...`); `structuredContent` is `data` on success and the `error` object on
//! failure; `isError` is `!ok`. Every tool error, an unknown or disabled tool and bad arguments
//! included, is such a result, for the model to read.
//!
//! A call that needs approval returned `approval_required` having done nothing, so asking the
//! person and running the call again is safe. A client that can elicit is asked: with an
//! `elicitation/create` request in the handshake versions, with an `InputRequiredResult` in
//! 2026-07-28, whose retry carries the answer (see [`super::request_state`]). A yes is recorded
//! as `codesmith approve` records it (for the session, or the workspace with persist), so the CLI
//! sees it too.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::protocol::{self, Era, RpcError};
use super::question::{self, Step};
use super::Server;
use crate::error::{ErrorCode, ToolError};
use crate::session::context::Global;
use crate::tools::ToolSpec;

/// At most this many approvals are asked for one call (a command can need a network and a
/// destructive approval); past that, the last `approval_required` is the result.
const MAX_APPROVALS: usize = 4;

/// How often a call with a `progressToken` reports that it is still running.
pub(super) const PROGRESS_EVERY: Duration = Duration::from_secs(1);

/// The key of the one input request an approval makes.
const APPROVAL_INPUT: &str = "approval";

/// The result for a call that could not be resolved to a tool: its tool name and error.
fn refused(server: &Server, (tool, error): (String, ToolError)) -> Value {
    call_result(error_envelope(server, &tool, error))
}

/// The envelope of `tool`'s `error`, its printed commands localized as every result's are.
pub(super) fn error_envelope(server: &Server, tool: &str, error: ToolError) -> Value {
    let (mut envelope, _) = crate::dispatch::envelope::build(tool, Err(error), None);
    crate::dispatch::person::localize_envelope(&mut envelope, || person_command(server));
    envelope
}

/// The progress a call's `_meta.progressToken` asks for, if any.
fn progress_of(params: &Value) -> Option<Progress> {
    params["_meta"]
        .get("progressToken")
        .cloned()
        .map(|token| Progress {
            token,
            sent: Arc::new(AtomicU64::new(0)),
        })
}

/// `Ok(None)`: the call was cancelled and gets no response.
pub(super) fn tools_call(
    server: &mut Server,
    params: &Value,
    era: &Era,
    _request_id: &Value,
) -> Result<Option<Value>, RpcError> {
    let Some(name) = params["name"].as_str() else {
        return Err(RpcError::invalid_params("tools/call needs a string \"name\""));
    };
    let arguments = params.get("arguments").cloned().unwrap_or(Value::Null);
    // Taken as `codesmith call` takes a call: another harness's tool and shapes translated.
    let (spec, arguments) = match crate::dispatch::resolve::resolve(&server.global, name, arguments) {
        Ok(resolved) => resolved,
        Err(refusal) => return Ok(Some(refused(server, *refusal))),
    };
    let progress = progress_of(params);
    let mut global = server.global.clone();
    let mut answer = if era.modern { retry_answer(params) } else { None };
    let mut reply = if era.modern { question::retry(params) } else { None };
    for round in 0..=MAX_APPROVALS {
        let envelope = run_with_progress(&global, spec, &arguments, progress.as_ref());
        if server.cancelled() {
            return Ok(None);
        }
        if let Some(asked) = question::question_of(&envelope).filter(|_| round < MAX_APPROVALS) {
            let call = (spec, &arguments, &global);
            match question::ask(server, call, &envelope, &asked, era, &mut reply) {
                Step::Answered(id) => global.answer.push(id),
                Step::Input(result) => return Ok(Some(result)),
                Step::Result(envelope) => return Ok(Some(call_result(envelope))),
                Step::Cancelled => return Ok(None),
            }
            continue;
        }
        let Some(approval) = approval_of(&envelope).filter(|_| round < MAX_APPROVALS) else {
            return Ok(Some(call_result(envelope)));
        };
        if !era.can_elicit {
            let why = if era.url_only {
                "it declared elicitation in url mode only, and an approval needs a form"
            } else {
                "it declared no elicitation"
            };
            return Ok(Some(call_result(cannot_ask(server, envelope, &approval, why))));
        }
        let decision = if era.modern {
            let verified = answer.take().filter(|(state, _)| {
                server
                    .state_key
                    .verify(state, &approval.id, spec.name, &arguments)
            });
            match verified {
                Some((_, response)) => decision_of(&response),
                None => return Ok(Some(input_required(server, spec, &arguments, &approval, era))),
            }
        } else {
            match server.ask(
                "elicitation/create",
                elicitation(spec, &approval, era),
                progress.as_ref(),
            ) {
                None => return Ok(None),
                Some(reply) if reply.get("error").is_some() => {
                    let why = format!(
                        "its elicitation/create request failed: {}",
                        reply["error"]["message"].as_str().unwrap_or("no message")
                    );
                    return Ok(Some(call_result(cannot_ask(server, envelope, &approval, &why))));
                }
                Some(reply) => decision_of(&reply["result"]),
            }
        };
        match decision {
            Decision::Approve { persist } => {
                if let Err(err) = crate::dispatch::commands::approve(&global, &approval.id, persist) {
                    return Ok(Some(call_result(error_envelope(server, spec.name, err))));
                }
                global.approve.push(approval.id.clone());
            }
            Decision::Decline(action) => {
                return Ok(Some(call_result(declined(server, spec, &approval, &action))))
            }
        }
    }
    Ok(None)
}

/// A read-only `tools/call` as a job to run beside the main thread (the reader runs it and
/// hands the reading on, see `super::read_loop`), so it does not wait behind the call in
/// progress; `None` for any other request, which the main thread runs in order. A call that
/// turns out to need an approval (or an answer) did nothing and goes to the queue, to be asked
/// about in order. Its response is dropped when the client cancelled it.
pub(super) fn alongside(
    global: &Global,
    shared: &super::Shared,
    queue: &mpsc::Sender<Value>,
    request: &Value,
) -> Option<super::workers::Job> {
    let params = &request["params"];
    if request["method"] != "tools/call" {
        return None;
    }
    let name = params["name"].as_str()?;
    if !crate::tools::find(name).is_some_and(crate::dispatch::catalog::read_only) {
        return None;
    }
    // A call that does not resolve is answered by the main thread, which reports why.
    let arguments = params.get("arguments").cloned().unwrap_or(Value::Null);
    let (spec, arguments) = crate::dispatch::resolve::resolve(global, name, arguments).ok()?;
    // Only whether the result is 2026-07-28's shape matters here: approvals go to the queue.
    let version = protocol::request_version(params).ok()?;
    let era = Era {
        modern: version.is_some(),
        can_elicit: false,
        url_only: false,
        version: version.unwrap_or_default(),
    };
    let (global, shared, queue, request) = (global.clone(), shared.clone(), queue.clone(), request.clone());
    let worker = move || {
        let run = || {
            super::panic_for_tests("tools/call", &request["params"]);
            crate::dispatch::call_tool(&global, spec, arguments).0
        };
        let response = match std::panic::catch_unwind(run) {
            // A call that needs a person (an approval, or ask_user's answer) did nothing: it is
            // asked about in order.
            Ok(envelope)
                if approval_of(&envelope).is_some()
                    || envelope["error"]["code"] == ErrorCode::AnswerRequired.as_str() =>
            {
                let _ = queue.send(request);
                return;
            }
            Ok(envelope) => protocol::result_response(&request["id"], era.finish(call_result(envelope))),
            Err(panic) => protocol::error_response(&request["id"], super::panicked(&request, &*panic)),
        };
        let key = request["id"].to_string();
        let mut inflight = super::lock(&shared);
        inflight.pending.remove(&key);
        if !inflight.cancelled.remove(&key) {
            super::send(&response);
        }
    };
    Some(Box::new(worker))
}

/// The envelope as a `CallToolResult` (its texts moved, not copied).
fn call_result(mut envelope: Value) -> Value {
    let ok = envelope["ok"] == true;
    let mut content = vec![json!({"type": "text", "text": envelope["output"].take()})];
    for notice in envelope["notices"].as_array().into_iter().flatten() {
        let text = format!("Notice: {}", notice.as_str().unwrap_or_default());
        content.push(json!({"type": "text", "text": text}));
    }
    let structured = if ok {
        envelope["data"].take()
    } else {
        envelope["error"].take()
    };
    json!({"content": content, "structuredContent": structured, "isError": !ok})
}

/// A call's progress token and how many notifications it has had (the count only grows, across
/// the tool's runs and the approval forms between them).
pub(super) struct Progress {
    token: Value,
    sent: Arc<AtomicU64>,
}

impl Progress {
    /// Sends the next `notifications/progress` with `message`.
    pub(super) fn tick(&self, message: &str) {
        let progress = self.sent.fetch_add(1, Ordering::SeqCst) + 1;
        super::send(&protocol::notification(
            "notifications/progress",
            json!({"progressToken": self.token, "progress": progress, "message": message}),
        ));
    }
}

/// Runs the tool; with a progress token, a ticker reports every second that it still runs.
fn run_with_progress(
    global: &Global,
    spec: &'static ToolSpec,
    arguments: &Value,
    progress: Option<&Progress>,
) -> Value {
    let Some(progress) = progress else {
        return crate::dispatch::call_tool(global, spec, arguments.clone()).0;
    };
    let progress = Progress {
        token: progress.token.clone(),
        sent: progress.sent.clone(),
    };
    let (stop, stopped) = mpsc::channel::<()>();
    let ticker = std::thread::spawn(move || {
        let start = Instant::now();
        while let Err(mpsc::RecvTimeoutError::Timeout) = stopped.recv_timeout(PROGRESS_EVERY) {
            if crate::session::cancel::requested() {
                break;
            }
            let seconds = start.elapsed().as_secs();
            progress.tick(&format!("{} still running after {seconds} s", spec.name));
        }
    });
    let envelope = crate::dispatch::call_tool(global, spec, arguments.clone()).0;
    drop(stop);
    let _ = ticker.join();
    envelope
}

/// The approval an `approval_required` envelope asks for.
struct Approval {
    id: String,
    kind: String,
    subject: String,
    reason: String,
    json: Value,
}

fn approval_of(envelope: &Value) -> Option<Approval> {
    if envelope["error"]["code"] != ErrorCode::ApprovalRequired.as_str() {
        return None;
    }
    let approval = &envelope["error"]["approval"];
    let field = |key: &str| approval[key].as_str().unwrap_or_default().to_string();
    Some(Approval {
        id: approval["id"].as_str()?.to_string(),
        kind: field("kind"),
        subject: field("subject"),
        reason: field("reason"),
        json: approval.clone(),
    })
}

enum Decision {
    Approve {
        persist: bool,
    },
    /// The elicitation's action (`decline`, `cancel`), or `accept` with approve unticked.
    Decline(String),
}

/// The person's answer, from an `ElicitResult`.
fn decision_of(result: &Value) -> Decision {
    let action = result["action"].as_str().unwrap_or("cancel");
    if action == "accept" && result["content"]["approve"] == true {
        Decision::Approve {
            persist: result["content"]["persist"] == true,
        }
    } else {
        Decision::Decline(action.to_string())
    }
}

/// The `elicitation/create` params: what would run, why it asks, approve and persist.
fn elicitation(spec: &ToolSpec, approval: &Approval, era: &Era) -> Value {
    let message = format!(
        "{} needs your approval before it runs.\nWhy: {}\nWhat would run ({}): {}\nApprove runs it \
         now and allows the same for the rest of this session; persist also allows it in this \
         workspace from now on.",
        spec.name, approval.reason, approval.kind, approval.subject
    );
    let mut params = json!({
        "message": message,
        "requestedSchema": {
            "type": "object",
            "properties": {
                "approve": {
                    "type": "boolean",
                    "title": "Approve",
                    "description": format!("Run {} `{}` now", approval.kind, approval.subject),
                    "default": false,
                },
                "persist": {
                    "type": "boolean",
                    "title": "Allow in this workspace from now on",
                    "description": "Record the approval for the workspace (for a host: add it to the network allow list)",
                    "default": false,
                },
            },
            "required": ["approve"],
        },
    });
    // `mode` arrived with 2025-11-25; earlier clients know only forms.
    if era.modern || era.version.as_str() >= "2025-11-25" {
        params["mode"] = json!("form");
    }
    params
}

/// The answer a 2026-07-28 retry carries: its `requestState` and the elicitation result.
fn retry_answer(params: &Value) -> Option<(String, Value)> {
    let state = params["requestState"].as_str()?;
    let response = params["inputResponses"].get(APPROVAL_INPUT)?;
    Some((state.to_string(), response.clone()))
}

fn input_required(
    server: &Server,
    spec: &ToolSpec,
    arguments: &Value,
    approval: &Approval,
    era: &Era,
) -> Value {
    json!({
        "resultType": "input_required",
        "inputRequests": {
            APPROVAL_INPUT: {"method": "elicitation/create", "params": elicitation(spec, approval, era)},
        },
        "requestState": server.state_key.seal(&approval.id, spec.name, arguments),
    })
}

/// The result for a declined approval: nothing ran.
fn declined(server: &Server, spec: &ToolSpec, approval: &Approval, action: &str) -> Value {
    let error = ToolError::approval_declined(
        action,
        spec.name,
        &approval.kind,
        &approval.subject,
        approval.json.clone(),
    );
    error_envelope(server, spec.name, error)
}

/// An `approval_required` envelope reworded for a client that cannot ask its user: the
/// command a person runs in a terminal to grant it.
fn cannot_ask(server: &Server, mut envelope: Value, approval: &Approval, why: &str) -> Value {
    let message = envelope["error"]["message"].as_str().unwrap_or_default();
    let head = message
        .find("Nothing was done.")
        .map_or(message, |at| &message[..at + "Nothing was done.".len()]);
    let command = person_command(server);
    let message = format!(
        "{head} This MCP client cannot ask the user from here ({why}), so ask the user to run `{command} approve {}` in a terminal (add --persist to allow it for the \
         workspace), then repeat this exact call.",
        approval.id
    );
    envelope["error"]["message"] = json!(message);
    envelope["output"] = json!(message);
    envelope
}

/// `codesmith --workspace W [--session S]`: the start of a command a person runs in a terminal
/// for this server's workspace and session.
pub(super) fn person_command(server: &Server) -> String {
    crate::dispatch::person::prefix(Some(&server.root), &server.global.session)
}

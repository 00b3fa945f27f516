//! ask_user over MCP: an `answer_required` envelope becomes an elicitation form, a free-text
//! field or an enum of the choices, asked the way approvals are (`elicitation/create` in the
//! handshake versions, an `InputRequiredResult` in 2026-07-28). The answer is recorded in the
//! session as `codesmith answer` records it, and the call runs again with it, so the answer is
//! the tool's result.
//!
//! A client that cannot elicit gets a result that says so: the model asks the user in the
//! conversation, or a person records the answer in a terminal, and the same call repeated then
//! returns the recorded answer.

use serde_json::{json, Value};

use super::protocol::Era;
use super::Server;
use crate::error::{ErrorCode, ToolError};
use crate::session::context::Global;
use crate::tools::ToolSpec;

/// The key of the one input request a question makes.
const ANSWER_INPUT: &str = "answer";

/// What became of a question.
pub(super) enum Step {
    /// The answer is recorded: run the call again with `--answer ID`.
    Answered(String),
    /// The call's envelope (declined, or no way to ask).
    Result(Value),
    /// A 2026-07-28 `InputRequiredResult`: the client asks and retries.
    Input(Value),
    /// The call was cancelled (or the client went away) while asking.
    Cancelled,
}

/// The question an `answer_required` envelope carries (`error.question`).
pub(super) fn question_of(envelope: &Value) -> Option<Value> {
    if envelope["error"]["code"] != ErrorCode::AnswerRequired.as_str() {
        return None;
    }
    let question = &envelope["error"]["question"];
    question["id"].as_str()?;
    Some(question.clone())
}

/// The answer a 2026-07-28 retry carries: its `requestState` and the elicitation result.
pub(super) fn retry(params: &Value) -> Option<(String, Value)> {
    let state = params["requestState"].as_str()?;
    let response = params["inputResponses"].get(ANSWER_INPUT)?;
    Some((state.to_string(), response.clone()))
}

/// Asks the person `question` (from a call of `spec` with `arguments`). `reply` is a
/// 2026-07-28 retry's answer, taken once.
pub(super) fn ask(
    server: &mut Server,
    call: (&'static ToolSpec, &Value, &Global),
    envelope: &Value,
    question: &Value,
    era: &Era,
    reply: &mut Option<(String, Value)>,
) -> Step {
    let (spec, arguments, global) = call;
    let id = question["id"].as_str().unwrap_or_default().to_string();
    if !era.can_elicit {
        if recorded_answer(global, &id) {
            return Step::Answered(id);
        }
        return Step::Result(cannot_ask(server, envelope, &id));
    }
    let result = if era.modern {
        let verified = reply
            .take()
            .filter(|(state, _)| server.state_key.verify(state, &id, spec.name, arguments));
        match verified {
            Some((_, response)) => response,
            None => {
                return Step::Input(json!({
                    "resultType": "input_required",
                    "inputRequests": {
                        ANSWER_INPUT: {"method": "elicitation/create", "params": elicitation(question, era)},
                    },
                    "requestState": server.state_key.seal(&id, spec.name, arguments),
                }))
            }
        }
    } else {
        match server.ask("elicitation/create", elicitation(question, era), None) {
            None => return Step::Cancelled,
            Some(reply) if reply.get("error").is_some() => {
                return Step::Result(cannot_ask(server, envelope, &id))
            }
            Some(reply) => reply["result"].clone(),
        }
    };
    let action = result["action"].as_str().unwrap_or("cancel");
    let text = result["content"]["answer"].as_str();
    match (action, text) {
        ("accept", Some(text)) => match crate::dispatch::commands::answer(global, &id, text) {
            Ok(_) => Step::Answered(id),
            Err(err) => Step::Result(envelope_of(server, spec, err)),
        },
        _ => Step::Result(envelope_of(
            server,
            spec,
            ToolError::answer_declined(action, question.clone()),
        )),
    }
}

fn envelope_of(server: &Server, spec: &ToolSpec, error: ToolError) -> Value {
    super::call::error_envelope(server, spec.name, error)
}

/// Whether a person recorded an answer to `id` in this session (with `codesmith answer`).
fn recorded_answer(global: &Global, id: &str) -> bool {
    crate::session::context::Context::open(global, crate::tool_id::ToolId::AskUser)
        .map(|ctx| {
            ctx.session()
                .questions
                .get(id)
                .is_some_and(|q| q.answer.is_some())
        })
        .unwrap_or(false)
}

/// The `elicitation/create` params: the question, and a text field or an enum of the choices.
fn elicitation(question: &Value, era: &Era) -> Value {
    let mut field = json!({
        "type": "string",
        "title": "Answer",
        "description": question["question"],
    });
    if let Some(choices) = question["choices"].as_array().filter(|c| !c.is_empty()) {
        field["enum"] = json!(choices);
    }
    if question["default"].is_string() {
        field["default"] = question["default"].clone();
    }
    let mut params = json!({
        "message": question["question"],
        "requestedSchema": {
            "type": "object",
            "properties": {"answer": field},
            "required": ["answer"],
        },
    });
    // `mode` arrived with 2025-11-25; earlier clients know only forms.
    if era.modern || era.version.as_str() >= "2025-11-25" {
        params["mode"] = json!("form");
    }
    params
}

/// An `answer_required` envelope reworded for a client that cannot ask its user.
fn cannot_ask(server: &Server, envelope: &Value, id: &str) -> Value {
    let question = envelope["error"]["question"]["question"]
        .as_str()
        .unwrap_or_default();
    let command = format!("{} answer {id} \"TEXT\"", super::call::person_command(server));
    let message = format!(
        "ask_user needs a person's answer to {id}: {question} This MCP client cannot ask the user \
         from here (it declared no elicitation). Ask the user in the conversation and go on with \
         their answer; or ask them to run `{command}` in a terminal, then repeat this exact call, \
         which returns the recorded answer."
    );
    let mut envelope = envelope.clone();
    envelope["error"]["message"] = json!(message);
    envelope["error"]["command"] = json!(command);
    envelope["output"] = json!(message);
    envelope
}

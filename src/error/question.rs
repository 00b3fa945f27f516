//! Refusals about ask_user's questions: waiting for an answer, answers that belong elsewhere,
//! and the `answer` command's mistakes.

use serde_json::Value;

use super::{ErrorCode, Field, ToolError};

/// Why a question is still waiting.
pub enum Unanswered<'a> {
    /// Asked now for the first time (or again, without `--answer`).
    Asked,
    /// `--answer` named this question, but no answer is recorded for it yet.
    NotYet,
    /// `--answer` named only other questions; an answer belongs to its own question.
    OtherQuestions(&'a [String]),
}

impl ToolError {
    /// ask_user's question waits for a person. `question` is the `error.question` object,
    /// `command` the `answer` command line to record the answer with.
    pub fn answer_required(question: &Value, command: &str, why: Unanswered) -> ToolError {
        let id = question["id"].as_str().unwrap_or_default();
        let text = question["question"].as_str().unwrap_or_default();
        let lead = match why {
            Unanswered::Asked => String::new(),
            Unanswered::NotYet => format!("{id} has no answer recorded yet. "),
            Unanswered::OtherQuestions(given) => format!(
                "--answer {} answers another question, not this one; an answer belongs to its own \
                 question only. ",
                given.join(", --answer ")
            ),
        };
        let choices = match question["choices"].as_array() {
            Some(choices) if !choices.is_empty() => {
                let listed: Vec<&str> = choices.iter().filter_map(Value::as_str).collect();
                format!(" (choices: {})", listed.join(" | "))
            }
            _ => String::new(),
        };
        ToolError::new(
            ErrorCode::AnswerRequired,
            format!(
                "{lead}ask_user needs a person's answer to {id}: {text}{choices}. No one is at a \
                 terminal to ask. Ask the user and record the answer with `{command}`, then repeat \
                 this exact call with `--answer {id}` (before the tool name), which returns the answer."
            ),
        )
        .with(Field::Question, question.clone())
        .with(Field::Command, command)
    }

    /// `answer` of an id no ask_user call of the session asked; `waiting` lists the open ones.
    pub fn no_pending_question(id: &str, session: &str, waiting: &[&str]) -> ToolError {
        let way_out = match waiting {
            [] => "No question is waiting now: repeat the ask_user call that returned \
                   answer_required and answer the id in its error.question.id."
                .to_string(),
            [one] => format!("Waiting now: {one}; answer it with `codesmith answer {one} \"TEXT\"`."),
            several => format!(
                "Waiting now: {}; answer one with `codesmith answer ID \"TEXT\"`.",
                several.join(", ")
            ),
        };
        ToolError::new(
            ErrorCode::NotFound,
            format!(
                "no question `{id}` in session `{session}`. Ids come from answer_required errors of \
                 this session (pass --session NAME before `answer` for another one). {way_out}"
            ),
        )
        .with(Field::Pending, waiting)
    }

    /// `answer ID ""` for a question without a default.
    pub fn empty_answer(id: &str) -> ToolError {
        ToolError::new(
            ErrorCode::InvalidArguments,
            format!(
                "the answer to {id} is empty and the question has no default. Give the answer as \
                 text: `codesmith answer {id} \"TEXT\"`."
            ),
        )
    }

    /// The person declined (or cancelled) an MCP client's question; `action` is the client's
    /// answer.
    pub fn answer_declined(action: &str, question: Value) -> ToolError {
        let how = if action == "decline" {
            "declined to answer"
        } else {
            "cancelled the question"
        };
        ToolError::new(
            ErrorCode::AnswerRequired,
            format!(
                "The user {how}. Do not ask the same question again unless the user asks for it: \
                 go on with the most reasonable choice and say which one you made, or stop and \
                 explain what you need."
            ),
        )
        .with(Field::Question, question)
        .with(Field::Declined, action)
    }
}

//! ask_user: a question to the person, for real ambiguity.
//!
//! Where the person is depends on the front end. At a terminal (stdin and stderr both one) the
//! question is asked there. Otherwise the call ends with `answer_required` (exit 3): the
//! question waits in the session until a person or the harness records an answer with
//! `codesmith answer ID TEXT`, and the same call repeated with `--answer ID` returns it. The MCP
//! server turns `answer_required` into an elicitation and repeats the call itself.

use std::io::{BufRead, Write};

use schemars::JsonSchema;
use serde::Deserialize;

use crate::error::{ToolError, Unanswered};
use crate::session::context::Context;
use crate::session::question::{answer_command, PendingQuestion, Question};
use crate::tools::{Capability, DataField, ToolOutput, ToolSpec};

/// At most this many choices: a question with more is a list to search, not to choose from.
const MAX_CHOICES: usize = 20;

/// A terminal answer that is neither a choice nor usable is asked again this many times.
const TERMINAL_TRIES: usize = 3;

pub const SPEC: ToolSpec = ToolSpec {
    name: "ask_user",
    id: crate::tool_id::ToolId::AskUser,
    alias: "ask",
    positional: Some("question"),
    capability: Capability::ReadOnly,
    description: DESCRIPTION,
    schema: crate::tools::schema_of::<AskUserArgs>,
    caps: &[],
    data: &[
        DataField::always("id", "string"),
        DataField::always("question", "string"),
        DataField::always("answer", "string"),
        DataField::always("choice", "integer|null"),
        DataField::always("source", "string"),
    ],
    run: |args, ctx| run(crate::tools::parse("ask_user", args, SPEC.schema)?, ctx),
};

const DESCRIPTION: &str = "Ask the user one question and wait for the answer, which comes back as the output.
Use it only for real ambiguity that the workspace cannot settle: two config files that both look like the real one, a choice between behaviours the task does not decide, a missing secret. It is not a way to avoid work: for \"fix the build\", run the build first; for \"where is X defined\", search with grep_files or find_symbol. Ask one precise question, give choices when the answer is one of a few, and say in the question what you found.
With no person at a terminal the call returns answer_required with a question id: a person records the answer with `codesmith answer q-ID \"TEXT\"`, then the same call with `--answer q-ID` returns it. At most 20 choices; an empty answer takes default.
Examples:
{\"question\": \"Both config/app.toml and deploy/app.toml set the port. Which one does production use?\", \"choices\": [\"config/app.toml\", \"deploy/app.toml\"]}
{\"question\": \"Which Python version should the CI matrix test?\", \"default\": \"3.12\"}";

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AskUserArgs {
    /// The question, with what you found that makes it necessary.
    pub question: String,
    /// The answers to choose from, when the answer is one of a few (at most 20).
    #[serde(default)]
    pub choices: Vec<String>,
    /// The answer an empty reply means.
    #[serde(default)]
    pub default: Option<String>,
}

pub fn run(args: AskUserArgs, ctx: &mut Context) -> Result<ToolOutput, ToolError> {
    let question = validate(args)?;
    let id = question.id();
    let answers = ctx.answers();
    if !answers.is_empty() {
        if !answers.contains(&id) {
            return Err(waiting(ctx, &question, Unanswered::OtherQuestions(answers)));
        }
        let recorded = ctx.session().questions.get(&id).and_then(|q| q.answer.clone());
        return match recorded {
            Some(answer) => Ok(answered(&question, answer, "answer")),
            None => Err(waiting(ctx, &question, Unanswered::NotYet)),
        };
    }
    if ctx.can_prompt() {
        if let Some(answer) = ask_at_terminal(&question) {
            return Ok(answered(&question, answer, "terminal"));
        }
    }
    Err(waiting(ctx, &question, Unanswered::Asked))
}

/// The question, or `invalid_arguments` for an empty one, too many or repeated choices, or a
/// default that is not among the choices.
fn validate(args: AskUserArgs) -> Result<Question, ToolError> {
    if args.question.trim().is_empty() {
        return Err(ToolError::empty_question());
    }
    if args.choices.len() > MAX_CHOICES {
        return Err(ToolError::too_many_choices(args.choices.len(), MAX_CHOICES));
    }
    let mut seen = std::collections::BTreeSet::new();
    for choice in &args.choices {
        if choice.trim().is_empty() || !seen.insert(choice.as_str()) {
            let choice_arg = crate::fs::workspace::quote_arg(choice);
            return Err(ToolError::bad_choice(&choice_arg, choice.trim().is_empty()));
        }
    }
    if let Some(default) = &args.default {
        if !args.choices.is_empty() && !args.choices.contains(default) {
            let default_arg = crate::fs::workspace::quote_arg(default);
            return Err(ToolError::default_not_a_choice(&default_arg));
        }
    }
    Ok(Question {
        question: args.question,
        choices: args.choices,
        default: args.default,
    })
}

/// Records the question as waiting (an answer recorded before stays: the MCP server hands it
/// to a client that cannot ask) and returns `answer_required`.
fn waiting(ctx: &Context, question: &Question, why: Unanswered) -> ToolError {
    let id = question.id();
    let recorded = ctx.state.update_session(|session| {
        session.questions.entry(id.clone()).or_insert(PendingQuestion {
            question: question.clone(),
            answer: None,
        });
    });
    if let Err(err) = recorded {
        return err;
    }
    let command = answer_command(&id);
    ToolError::answer_required(&question.to_json(), &command, why)
}

fn answered(question: &Question, answer: String, source: &str) -> ToolOutput {
    let choice = question.choices.iter().position(|c| *c == answer);
    ToolOutput::new(answer.clone())
        .with("id", question.id())
        .with("question", question.question.clone())
        .with("answer", answer)
        .with("choice", choice.map(|at| at + 1))
        .with("source", source)
}

/// Asks on stderr and reads the reply from stdin. `None` at end of input or after repeated
/// empty replies, when the question falls back to waiting for `codesmith answer`.
fn ask_at_terminal(question: &Question) -> Option<String> {
    let mut prompt = format!("\n{}\n", question.question);
    for (at, choice) in question.choices.iter().enumerate() {
        prompt.push_str(&format!("  {}) {choice}\n", at + 1));
    }
    let hint = match (&question.default, question.choices.is_empty()) {
        (Some(default), _) => format!("answer [{default}]: "),
        (None, false) => "answer (a number or text): ".to_string(),
        (None, true) => "answer: ".to_string(),
    };
    prompt.push_str(&hint);
    let stdin = std::io::stdin();
    for _ in 0..TERMINAL_TRIES {
        let mut stderr = std::io::stderr().lock();
        let _ = stderr.write_all(prompt.as_bytes());
        let _ = stderr.flush();
        let mut line = String::new();
        match stdin.lock().read_line(&mut line) {
            Ok(0) | Err(_) => return None,
            Ok(_) => {}
        }
        if let Some(answer) = question.resolve(&line) {
            return Some(answer);
        }
        prompt = hint.clone();
    }
    None
}

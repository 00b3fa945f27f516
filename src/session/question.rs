//! Questions ask_user puts to a person, and their answers.
//!
//! A question's id is a stable fingerprint of what it asks (the text, the choices, the
//! default), so the call that asked it can be repeated with `--answer ID` and find its answer,
//! and an answer recorded for one question can never be handed to another. Pending questions
//! live in the session file beside pending approvals, under the same lock.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// A question as ask_user asks it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Question {
    pub question: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub choices: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
}

/// A question recorded in the session: asked, and answered once a person has answered it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PendingQuestion {
    #[serde(flatten)]
    pub question: Question,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<String>,
}

impl Question {
    /// The stable id: `q-` and 12 hex digits of a hash over the question, choices and default.
    pub fn id(&self) -> String {
        let mut key = self.question.clone();
        for choice in &self.choices {
            key.push('\0');
            key.push_str(choice);
        }
        key.push('\u{1}');
        key.push_str(self.default.as_deref().unwrap_or_default());
        format!(
            "q-{:012x}",
            xxhash_rust::xxh3::xxh3_64(key.as_bytes()) & 0xffff_ffff_ffff
        )
    }

    /// The `error.question` object: `{id, question, choices, default}`.
    pub fn to_json(&self) -> Value {
        json!({
            "id": self.id(),
            "question": self.question,
            "choices": self.choices,
            "default": self.default,
        })
    }

    /// The answer a person typed, resolved: an empty answer takes the default, and a choice may
    /// be given by its number. `None` when nothing usable was given.
    pub fn resolve(&self, typed: &str) -> Option<String> {
        let typed = typed.trim_end_matches(['\r', '\n']);
        if typed.trim().is_empty() {
            return self.default.clone();
        }
        if let Ok(number) = typed.trim().parse::<usize>() {
            if let Some(choice) = number.checked_sub(1).and_then(|at| self.choices.get(at)) {
                return Some(choice.clone());
            }
        }
        Some(typed.to_string())
    }
}

/// The `answer` command line for question `id`, the answer left for the person to type. The
/// front ends add the call's workspace and session to it (see `dispatch::person`).
pub fn answer_command(id: &str) -> String {
    format!("codesmith answer {id} \"TEXT\"")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn question(choices: &[&str], default: Option<&str>) -> Question {
        Question {
            question: "Which config?".into(),
            choices: choices.iter().map(|c| c.to_string()).collect(),
            default: default.map(String::from),
        }
    }

    #[test]
    fn ids_are_stable_and_tell_questions_apart() {
        let a = question(&["a.toml", "b.toml"], None);
        assert_eq!(a.id(), a.clone().id());
        assert!(a.id().starts_with("q-") && a.id().len() == 14);
        assert_ne!(a.id(), question(&["a.toml"], None).id());
        assert_ne!(a.id(), question(&["a.toml", "b.toml"], Some("a.toml")).id());
        // The separators keep ["ab"] and ["a", "b"] apart.
        assert_ne!(question(&["ab"], None).id(), question(&["a", "b"], None).id());
    }

    #[test]
    fn typed_answers_take_the_default_and_choice_numbers() {
        let q = question(&["a.toml", "b.toml"], Some("b.toml"));
        assert_eq!(q.resolve("\n").as_deref(), Some("b.toml"));
        assert_eq!(q.resolve("1\n").as_deref(), Some("a.toml"));
        assert_eq!(q.resolve("3").as_deref(), Some("3"));
        assert_eq!(q.resolve("other one\r\n").as_deref(), Some("other one"));
        assert_eq!(question(&[], None).resolve("  "), None);
    }
}

//! Command lines codesmith refuses before any tool runs: clap's refusals turned into
//! corrections, a global option written after the tool's name, `CODESMITH_FORMAT`, and a call
//! in another harness's shape for a codesmith name.

use super::{Field, ToolError};

/// clap's refusal of a command line, taken apart. The texts are clap's own words, passed
/// through as it wrote them; only the sentence around them is written here.
#[derive(Debug, Clone)]
pub struct ClapRefusal {
    /// The first line without its `error: ` prefix ("unexpected argument '--x' found").
    pub first: String,
    /// The arguments clap lists as missing, on the indented lines after the first.
    pub missing: Vec<String>,
    /// The lines after those, in order, that the message repeats.
    pub lines: Vec<ClapLine>,
    /// Whose usage the message points to.
    pub of: UsageOf,
}

/// A line of clap's refusal that the message repeats (clap's words, its prefix removed).
#[derive(Debug, Clone)]
pub enum ClapLine {
    /// `Usage: ...`, repeated when arguments are missing.
    Usage(String),
    /// `tip: ...`.
    Tip(String),
    /// `[possible values: ...]`, the list inside.
    PossibleValues(String),
}

/// The command a refused command line named, for where its usage is.
#[derive(Debug, Clone)]
pub enum UsageOf {
    /// A tool: its canonical name, its flags (`--start-line`) and the alias its help is under.
    Tool {
        name: String,
        flags: Vec<String>,
        alias: String,
    },
    Approve,
    Trust,
    /// A command whose own `--help` gives the usage (`call`, `tools`).
    Command(String),
    /// No command, or one without a hint of its own.
    Other,
}

impl ToolError {
    /// A command line clap refuses: its first line and its tips (without the usage footer and
    /// styling), then where the usage is; for a tool, every flag it takes.
    pub fn usage(refusal: &ClapRefusal) -> ToolError {
        let mut message = refusal.first.trim_end_matches(['.', ':']).to_string();
        if !refusal.missing.is_empty() {
            message.push_str(&format!(": {}", refusal.missing.join(", ")));
        }
        message.push('.');
        for line in &refusal.lines {
            match line {
                ClapLine::Usage(usage) => {
                    if !refusal.missing.is_empty() {
                        message.push_str(&format!(" Usage: {usage}."));
                    }
                }
                ClapLine::Tip(tip) => message.push_str(&format!(" Tip: {}.", tip.trim_end_matches('.'))),
                ClapLine::PossibleValues(values) => {
                    message.push_str(&format!(" Possible values: {values}."));
                }
            }
        }
        match &refusal.of {
            UsageOf::Tool { name, flags, alias } => message.push_str(&format!(
                " {name} takes {}, or all arguments as one JSON object with --json; see `codesmith {alias} --help`.",
                flags.join(", ")
            )),
            UsageOf::Approve => message.push_str(
                " Pass the id from the approval_required error (error.approval.id), e.g. \
                 `codesmith approve ap-0123456789ab`; see `codesmith approve --help`.",
            ),
            UsageOf::Trust => message.push_str(
                " Say what to do: `codesmith trust list`, or `codesmith trust add DIR` / \
                 `codesmith trust remove DIR`; see `codesmith trust --help`.",
            ),
            UsageOf::Command(command) => {
                message.push_str(&format!(" Run `codesmith {command} --help` for the usage."));
            }
            UsageOf::Other => {
                message.push_str(" Run `codesmith --help` (or `codesmith <command> --help`) for the usage.");
            }
        }
        ToolError::invalid(message)
    }

    /// A global option written after the tool (or command) name: `flags` are the misplaced
    /// options (`--workspace`), `tool` says whether `invoked` names a tool, and `corrected` is
    /// the whole command line, shell-quoted, with the options moved before the name.
    pub fn global_option_after_name(flags: &[&str], tool: bool, invoked: &str, corrected: &str) -> ToolError {
        let quoted: Vec<String> = flags.iter().map(|flag| format!("`{flag}`")).collect();
        let named = match quoted.as_slice() {
            [one] => format!("global option {one} goes"),
            [init @ .., last] => format!("global options {} and {last} go", init.join(", ")),
            [] => "global options go".to_string(),
        };
        let what = if tool { "tool" } else { "command" };
        ToolError::invalid(format!(
            "{named} before the {what} name `{invoked}`, not after it. Call again as: {corrected}"
        ))
    }

    /// `CODESMITH_FORMAT` set to `value`, which is neither empty, json nor text.
    pub fn format_env(value: &str) -> ToolError {
        ToolError::invalid(format!(
            "CODESMITH_FORMAT is `{value}`, but it takes json or text (or empty, for the default: \
             text at a terminal, json otherwise). Set it to one of those, or unset it."
        ))
    }

    /// A codesmith name called with Codex's arguments (`shell` with an argv list, `apply_patch`
    /// with `input`): `tool` is the tool to call, `suggestion` the whole call in codesmith's
    /// shape, and `notes` what the translation left out (sentences of `dispatch::translate`).
    pub fn codex_arguments(
        name: &str,
        tool: &str,
        suggestion: serde_json::Value,
        notes: &[super::TranslationNote],
    ) -> ToolError {
        let notes = super::translation::rendered(notes);
        let takes = if tool == "apply_patch" {
            "the patch text in `patch`"
        } else {
            "the command line as one string in `command`"
        };
        ToolError::invalid(format!(
            "these are Codex's arguments for `{name}`; {tool} takes {takes}. Send this call, as is (it is \
             also error.suggestion): {suggestion}.{notes}"
        ))
        .with(Field::Suggestion, suggestion)
    }
}

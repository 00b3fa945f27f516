//! The closed set of error codes and the error value tools return to the model.

use serde_json::{Map, Value};

// The named constructors of `ToolError`, one file per family of refusals.
mod argument_fields;
mod arguments;
mod call;
mod change;
mod encoding;
mod field;
mod file;
mod hint;
pub mod hunk;
mod json_text;
mod matches;
mod net;
mod no_match;
mod patch_text;
mod path_form;
mod question;
mod regex;
mod search;
mod search_code;
mod session;
mod special_file;
mod state;
mod task;
mod tools;
mod translation;
mod transport;
mod undo;
mod url;
mod usage;

pub use argument_fields::{ExampleCall, Expected, UnknownField, UnknownFields, WrongType};
pub use arguments::GlobError;
pub use call::CallShape;
pub use change::{EditForm, ParseStop};
pub use encoding::{StrayBytes, StrayRun, Undecodable};
pub use field::Field;
pub use file::{special_kind_name, Missing};
pub use hint::Hint;
pub use json_text::{JsonMistake, JsonSubject, Mistake};
pub use matches::{line_list, Forgiven};
pub use net::{RestrictedRange, UrlShape, BROKEN_ANSWER};
pub use no_match::{LinePrefix, NoMatchCause, NumberedMiss, RangeEndMiss, Unprefixed, WhitespaceDiff};
pub use patch_text::{NotRegularWay, PatchProblem, QuoteProblem};
pub use path_form::{CheckpointPath, PathForm};
pub use question::Unanswered;
pub use regex::RegexRefusal;
pub use search::{SearchSetting, UnreadableAnswer};
pub use session::{NearMiss, Untranslatable};
pub use translation::{NoEquivalent, TranslationNote};
pub use transport::{FetchTarget, TransportFailure};
pub use undo::{ChangedBy, Conflict, DiskChange};
pub use url::{Reached, RedirectProblem, Unresolved};
pub use usage::{ClapLine, ClapRefusal, UsageOf};

/// Every error code codesmith reports. The wire spelling (`as_str`) is part of the contract.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorCode {
    InvalidArguments,
    UnknownTool,
    NotFound,
    IsDirectory,
    NotARegularFile,
    OutsideWorkspace,
    BinaryFile,
    NotUtf8,
    TooLarge,
    NotRead,
    Stale,
    NoMatch,
    MultipleMatches,
    SyntaxGate,
    PatchFailed,
    ApprovalRequired,
    AnswerRequired,
    NetworkDenied,
    BlockedAddress,
    Timeout,
    IoError,
    SandboxUnavailable,
    ToolDisabled,
}

impl ErrorCode {
    pub const ALL: [ErrorCode; 23] = [
        ErrorCode::InvalidArguments,
        ErrorCode::UnknownTool,
        ErrorCode::NotFound,
        ErrorCode::IsDirectory,
        ErrorCode::NotARegularFile,
        ErrorCode::OutsideWorkspace,
        ErrorCode::BinaryFile,
        ErrorCode::NotUtf8,
        ErrorCode::TooLarge,
        ErrorCode::NotRead,
        ErrorCode::Stale,
        ErrorCode::NoMatch,
        ErrorCode::MultipleMatches,
        ErrorCode::SyntaxGate,
        ErrorCode::PatchFailed,
        ErrorCode::ApprovalRequired,
        ErrorCode::AnswerRequired,
        ErrorCode::NetworkDenied,
        ErrorCode::BlockedAddress,
        ErrorCode::Timeout,
        ErrorCode::IoError,
        ErrorCode::SandboxUnavailable,
        ErrorCode::ToolDisabled,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidArguments => "invalid_arguments",
            ErrorCode::UnknownTool => "unknown_tool",
            ErrorCode::NotFound => "not_found",
            ErrorCode::IsDirectory => "is_directory",
            ErrorCode::NotARegularFile => "not_a_regular_file",
            ErrorCode::OutsideWorkspace => "outside_workspace",
            ErrorCode::BinaryFile => "binary_file",
            ErrorCode::NotUtf8 => "not_utf8",
            ErrorCode::TooLarge => "too_large",
            ErrorCode::NotRead => "not_read",
            ErrorCode::Stale => "stale",
            ErrorCode::NoMatch => "no_match",
            ErrorCode::MultipleMatches => "multiple_matches",
            ErrorCode::SyntaxGate => "syntax_gate",
            ErrorCode::PatchFailed => "patch_failed",
            ErrorCode::ApprovalRequired => "approval_required",
            ErrorCode::AnswerRequired => "answer_required",
            ErrorCode::NetworkDenied => "network_denied",
            ErrorCode::BlockedAddress => "blocked_address",
            ErrorCode::Timeout => "timeout",
            ErrorCode::IoError => "io_error",
            ErrorCode::SandboxUnavailable => "sandbox_unavailable",
            ErrorCode::ToolDisabled => "tool_disabled",
        }
    }

    /// One line on what the code means, for the README and the man page.
    pub fn meaning(self) -> &'static str {
        match self {
            ErrorCode::InvalidArguments => {
                "the arguments are malformed, of the wrong type, unknown or contradictory"
            }
            ErrorCode::UnknownTool => "no tool has that name; the message lists the tools",
            ErrorCode::NotFound => "the path does not exist; the message suggests similar paths",
            ErrorCode::IsDirectory => "a file was expected but the path is a directory",
            ErrorCode::NotARegularFile => "the path is a FIFO, socket or device",
            ErrorCode::OutsideWorkspace => "the path escapes the workspace and every trusted root",
            ErrorCode::BinaryFile => "the file holds binary data",
            ErrorCode::NotUtf8 => {
                "the file's encoding is not UTF-8 and could not be identified with confidence"
            }
            ErrorCode::TooLarge => "the input or file is over a documented limit",
            ErrorCode::NotRead => "the file must be read with read_file before it is changed",
            ErrorCode::Stale => "the file changed since this session read it",
            ErrorCode::NoMatch => "the search text was not found; the message diagnoses why",
            ErrorCode::MultipleMatches => "the search text matches more than once",
            ErrorCode::SyntaxGate => "the change would break a file that parsed before",
            ErrorCode::PatchFailed => "a patch did not parse or a hunk did not apply; nothing was written",
            ErrorCode::ApprovalRequired => "the action needs a person's approval; the message gives the id",
            ErrorCode::AnswerRequired => {
                "ask_user's question waits for a person's answer; the message gives the question id"
            }
            ErrorCode::NetworkDenied => "the network policy denies the host",
            ErrorCode::BlockedAddress => "the address is in a restricted range",
            ErrorCode::Timeout => "the operation ran out of time",
            ErrorCode::IoError => "the operating system refused an operation",
            ErrorCode::SandboxUnavailable => {
                "exec_shell's sandbox is required by config.toml but this machine cannot provide it"
            }
            ErrorCode::ToolDisabled => {
                "the tool exists but the tool profile (--tools, [tools] enabled) does not offer it"
            }
        }
    }

    /// What the caller does next. The message itself names the exact call where one call fixes it.
    ///
    /// Longer than 80 lines on purpose: one arm per error code, a table kept whole so that a new
    /// code does not compile until its next step is written.
    #[allow(
        clippy::too_many_lines,
        reason = "one arm per error code, kept whole so a new code needs its next step"
    )]
    pub fn next_step(self) -> &'static str {
        match self {
            ErrorCode::InvalidArguments => {
                "Correct the call as the message says: it names every wrong or unknown field, the field \
                 each one probably meant, the valid fields and a corrected example. Global options go \
                 before the tool name (`codesmith --workspace DIR read f`)."
            }
            ErrorCode::UnknownTool => {
                "Do not retry the name. Use a listed tool; for a call meant for another harness \
                 (Claude Code's `Read`, `Edit`, `Bash`; Codex's `shell`; `str_replace_editor`) send \
                 `error.suggestion` as it is."
            }
            ErrorCode::NotFound => {
                "Use one of `error.similar`, or find the file with file_search or list_dir. Relative \
                 paths resolve against the session cwd (`error.cwd`), which only `cd` in exec_shell \
                 moves. For `codesmith approve`, the message lists the ids still pending."
            }
            ErrorCode::IsDirectory => "Call list_dir with the path, as the message says.",
            ErrorCode::NotARegularFile => {
                "A FIFO, socket or device cannot be read as a file; it was not opened for reading, so \
                 nothing blocked."
            }
            ErrorCode::OutsideWorkspace => {
                "Use a path inside the workspace. If the directory really is needed, a person trusts it \
                 with `codesmith trust add DIR`; a symlink that leads out stays refused."
            }
            ErrorCode::BinaryFile => {
                "The file is not text; inspect it with exec_shell (`xxd`, `file`) if needed."
            }
            ErrorCode::NotUtf8 => {
                "The message names the stray bytes (line, offset) and the byte-exact way to mend them; \
                 write_file with the intended text also works."
            }
            ErrorCode::TooLarge => {
                "Narrow the input (a smaller page, a file given by path) as the message says."
            }
            ErrorCode::NotRead => {
                "Call read_file on the file (the message gives the call), then repeat the change."
            }
            ErrorCode::Stale => {
                "The file changed since it was read: read it again (the message gives the call) and \
                 redo the change against what is there now. For undo: `force=true` restores anyway."
            }
            ErrorCode::NoMatch => {
                "Read the diagnosis (pasted line numbers, a whitespace difference at line N, the \
                 closest real line), then call read_file near `error.near_line` and copy the text \
                 exactly."
            }
            ErrorCode::MultipleMatches => {
                "Pass `replace_all=true`, or `occurrence=N` with N in the range the message gives, or \
                 a longer `search` that matches once."
            }
            ErrorCode::SyntaxGate => {
                "Fix the text at the line and column shown; the file was not modified. Content meant \
                 to be broken is created under another extension and renamed with exec_shell."
            }
            ErrorCode::PatchFailed => {
                "Nothing was written. Compare the expected context with the file's text shown near the \
                 best position, read the file again (the message gives the call) and regenerate the \
                 hunk, or use edit_file."
            }
            ErrorCode::ApprovalRequired => {
                "Ask a person. They run `codesmith approve ID` (`--persist` for the whole workspace); \
                 then repeat the call, or repeat it with `--approve ID` once they agreed. Exit status 3."
            }
            ErrorCode::AnswerRequired => {
                "Ask a person the question in `error.question`. They (or the harness) record the answer \
                 with the `codesmith answer q-ID \"TEXT\"` command the message gives (`error.command`); \
                 then repeat the call with `--answer q-ID`, which returns the answer. Exit status 3."
            }
            ErrorCode::NetworkDenied => {
                "The `[network]` policy in .codesmith/config.toml denies the host, or the URL is not \
                 http or https. Only a person changes the policy; read local files with read_file."
            }
            ErrorCode::BlockedAddress => {
                "fetch_url never connects to internal addresses and no approval opens them. A service \
                 run on purpose is exempted by a person with the `trusted_cidrs` line the message gives."
            }
            ErrorCode::Timeout => {
                "Retry with a larger `timeout_ms` (the message shows what ran so far), or run long \
                 commands with `background=true` and follow them with task_wait."
            }
            ErrorCode::IoError => {
                "The operating system refused (permissions, a full disk, a connection failure, a \
                 config file that does not parse). The message says whether retrying can help."
            }
            ErrorCode::SandboxUnavailable => {
                "`[shell] sandbox = \"required\"` and a kernel layer is missing (`error.missing`); \
                 nothing ran. A person sets `sandbox = \"auto\"` or runs on a kernel that has it."
            }
            ErrorCode::ToolDisabled => {
                "Do not retry; the tool profile (`--tools`, `[tools] enabled`) leaves it out. Use the \
                 tools in `error.enabled`, or ask the person to enable it."
            }
        }
    }

    /// The process exit status an error of this code produces.
    pub fn exit_status(self) -> i32 {
        match self {
            ErrorCode::InvalidArguments | ErrorCode::UnknownTool => 2,
            ErrorCode::ApprovalRequired | ErrorCode::AnswerRequired => 3,
            _ => 1,
        }
    }
}

/// A failure reported to the model: a code, a message that names the way out, and
/// code-specific fields that land beside them in the envelope's `error` object.
///
/// The message is rendered here, from data: the named constructor's sentence, then the
/// [`Hint`]s a caller added (where it happened, what was left behind, what to do instead), then
/// the notices of the call as `Note:` lines. Nothing outside `src/error/` writes or edits it.
#[derive(Debug, Clone)]
pub struct ToolError {
    code: ErrorCode,
    head: String,
    details: Map<String, Value>,
    /// The hints and notes, in the order they were added (a boxed slice: errors travel in
    /// `Result`s, and most have none).
    tail: Box<[Tail]>,
}

/// What follows the constructor's sentence in a message.
#[derive(Debug, Clone)]
enum Tail {
    Hint(Hint),
    Note(String),
}

/// Every error with a fixed shape is built by a named constructor next to this type (in
/// `error/`, one file per family: file, state, session, change, net, tools), which owns its
/// wording and its `error` fields, from data the caller gathered (names, counts, quoted call
/// arguments, and a third party's own message where one is relayed); [`ToolError::io`] words
/// operating-system failures.
impl ToolError {
    /// A bare error; the named constructors build on it.
    pub(crate) fn new(code: ErrorCode, message: impl Into<String>) -> ToolError {
        ToolError {
            code,
            head: message.into(),
            details: Map::new(),
            tail: Box::default(),
        }
    }

    pub fn code(&self) -> ErrorCode {
        self.code
    }

    /// The whole message: the constructor's sentence, the hints, the notes.
    pub fn message(&self) -> String {
        let mut text = self.head.clone();
        for tail in self.tail.iter() {
            match tail {
                Tail::Hint(hint) => hint.render(&mut text),
                Tail::Note(note) => {
                    text.push_str("\nNote: ");
                    text.push_str(note);
                }
            }
        }
        text
    }

    /// The fields beside `code` and `message`, by wire name.
    pub fn details(&self) -> &Map<String, Value> {
        &self.details
    }

    /// The value of one field, if the error carries it.
    pub fn detail(&self, field: Field) -> Option<&Value> {
        self.details.get(field.name())
    }

    /// Adds a field to the `error` object; the field must be one its code declares
    /// ([`ErrorCode::fields`]), which a debug build checks.
    pub fn with(mut self, field: Field, value: impl Into<Value>) -> ToolError {
        debug_assert!(
            self.code.carries(field),
            "`{}` is not a declared field of `{}` (src/error/field.rs)",
            field.name(),
            self.code.as_str()
        );
        self.details.insert(field.name().to_string(), value.into());
        self
    }

    fn add(&mut self, more: impl Iterator<Item = Tail>) {
        let mut tail = std::mem::take(&mut self.tail).into_vec();
        tail.extend(more);
        self.tail = tail.into_boxed_slice();
    }

    /// Adds a hint, rendered after the message (or, for context such as a redirect hop,
    /// before it).
    pub fn hint(mut self, hint: Hint) -> ToolError {
        self.add(std::iter::once(Tail::Hint(hint)));
        self
    }

    /// Adds the call's notices, rendered as `Note:` lines at the end of the message (an error
    /// envelope has no notices field).
    pub fn noted(mut self, notes: impl IntoIterator<Item = String>) -> ToolError {
        self.add(notes.into_iter().map(Tail::Note));
        self
    }

    /// The error with `filter` applied to the rendered message and to every string field: the
    /// one change made to an error after it is built, for hiding secrets; it adds no words.
    pub fn redacted(self, filter: impl Fn(&str) -> String) -> ToolError {
        fn in_value(value: &mut Value, filter: &dyn Fn(&str) -> String) {
            match value {
                Value::String(text) => *text = filter(text),
                Value::Array(items) => items.iter_mut().for_each(|item| in_value(item, filter)),
                Value::Object(map) => map.values_mut().for_each(|item| in_value(item, filter)),
                _ => {}
            }
        }
        let head = filter(&self.message());
        let mut details = self.details;
        details.values_mut().for_each(|value| in_value(value, &filter));
        ToolError {
            code: self.code,
            head,
            details,
            tail: Box::default(),
        }
    }

    /// The code, the rendered message and the fields, for the envelope.
    pub fn into_parts(self) -> (ErrorCode, String, Map<String, Value>) {
        let message = self.message();
        (self.code, message, self.details)
    }

    /// An `invalid_arguments` error with the sentence a named constructor wrote; private to
    /// `src/error/`, so no caller outside it can word one.
    fn invalid(message: impl Into<String>) -> ToolError {
        ToolError::new(ErrorCode::InvalidArguments, message)
    }

    /// An operating-system failure on `path`, worded for the model.
    pub fn io(path: &str, action: &str, err: &std::io::Error) -> ToolError {
        let how = match err.kind() {
            std::io::ErrorKind::PermissionDenied => {
                "permission denied; check the file's permissions, or choose another path".to_string()
            }
            std::io::ErrorKind::StorageFull | std::io::ErrorKind::QuotaExceeded => {
                format!("{err}; free some space, then retry")
            }
            _ => format!(
                "{err}. The operating system refused; retrying the same call will fail the same way \
                 unless that cause is fixed"
            ),
        };
        ToolError::new(ErrorCode::IoError, format!("could not {action} `{path}`: {how}"))
            .with(Field::Path, path)
    }
}

impl std::fmt::Display for ToolError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code.as_str(), self.message())
    }
}

impl std::error::Error for ToolError {}

/// A file as messages name it: as results show it, as the next call's `path=` argument, and as
/// a word a suggested shell command can hold.
pub struct FileRef<'a> {
    pub display: &'a str,
    pub call_arg: String,
    pub shell_word: String,
}

#[cfg(test)]
mod tests;

//! The closed set of error codes and the error value tools return to the model.

use serde_json::{Map, Value};

// The named constructors of `ToolError`, one file per family of refusals.
mod arguments;
mod call;
mod change;
mod file;
mod net;
mod question;
mod search;
mod search_code;
mod session;
mod state;
mod tools;

pub use arguments::GlobError;
pub use call::CallShape;
pub use change::{EditForm, ParseStop};
pub use file::{special_kind_name, Missing};
pub use net::{RestrictedRange, UrlShape, BROKEN_ANSWER};
pub use question::Unanswered;
pub use session::{NearMiss, Untranslatable};

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
#[derive(Debug, Clone)]
pub struct ToolError {
    pub code: ErrorCode,
    pub message: String,
    pub details: Map<String, Value>,
}

/// Every error with a fixed shape is built by a named constructor next to this type (in
/// `error/`, one file per family: file, state, session, change, net, tools), which owns its
/// wording and its `error` fields; [`ToolError::invalid`] takes the argument checks' own
/// sentences and [`ToolError::io`] words operating-system failures.
impl ToolError {
    /// A bare error; the named constructors build on it.
    pub(crate) fn new(code: ErrorCode, message: impl Into<String>) -> ToolError {
        ToolError {
            code,
            message: message.into(),
            details: Map::new(),
        }
    }

    /// Adds a code-specific field to the `error` object.
    pub fn with(mut self, key: &str, value: impl Into<Value>) -> ToolError {
        self.details.insert(key.to_string(), value.into());
        self
    }

    pub fn invalid(message: impl Into<String>) -> ToolError {
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
        ToolError::new(ErrorCode::IoError, format!("could not {action} `{path}`: {how}")).with("path", path)
    }
}

impl std::fmt::Display for ToolError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code.as_str(), self.message)
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
mod tests {
    use super::*;

    /// Every `ToolError::new` outside `src/error/` in `src/`, as (file, count).
    fn bare_sites(dir: &std::path::Path, found: &mut Vec<(String, usize)>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                if !path.ends_with("error") {
                    bare_sites(&path, found);
                }
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            let count = text.matches(concat!("ToolError::", "new(")).count();
            if count > 0 && !path.ends_with("error.rs") {
                found.push((path.display().to_string(), count));
            }
        }
    }

    /// The wording of an error lives with its constructor, so a message reads the same
    /// wherever it is raised; nothing outside `src/error/` may build an error from a bare code.
    #[test]
    fn errors_are_built_by_named_constructors() {
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut found = Vec::new();
        bare_sites(&src, &mut found);
        assert!(
            found.is_empty(),
            "ToolError::new outside src/error/ (add a named constructor there instead): {found:?}"
        );
    }

    /// The source without its test modules: everything from the first `#[cfg(test)]` module on.
    fn production_code(text: &str) -> &str {
        let mut cut = text.len();
        for marker in ["#[cfg(test)]\nmod ", "#[cfg(test)]\n#[path"] {
            if let Some(at) = text.find(marker) {
                cut = cut.min(at);
            }
        }
        &text[..cut]
    }

    /// The generic arguments of each `Result<...>` in `code`, whitespace collapsed, split at the
    /// top level: `Result<Vec<u8>,\n String>` yields `["Vec<u8>", "String"]`.
    fn result_arguments(code: &str) -> Vec<Vec<String>> {
        let mut found = Vec::new();
        for (at, _) in code.match_indices("Result<") {
            let before = code[..at].chars().next_back();
            if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
                continue;
            }
            let rest = &code[at + "Result<".len()..];
            let (mut depth, mut args, mut arg, mut previous) = (0usize, Vec::new(), String::new(), ' ');
            for c in rest.chars() {
                match c {
                    '<' | '(' | '[' => depth += 1,
                    '>' if previous == '-' => {}
                    '>' | ')' | ']' if depth == 0 => break,
                    '>' | ')' | ']' => depth -= 1,
                    ',' if depth == 0 => {
                        args.push(std::mem::take(&mut arg));
                        previous = c;
                        continue;
                    }
                    _ => {}
                }
                arg.push(c);
                previous = c;
            }
            args.push(arg);
            found.push(
                args.iter()
                    .map(|arg| arg.split_whitespace().collect::<Vec<_>>().join(" "))
                    .collect(),
            );
        }
        found
    }

    /// Every `Result<_, String>` in the production code under `dir`, as (file, its arguments).
    fn string_errors(dir: &std::path::Path, found: &mut Vec<(String, String)>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                string_errors(&path, found);
                continue;
            }
            let name = path.to_string_lossy().to_string();
            if !name.ends_with(".rs") || name.ends_with("_tests.rs") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            for args in result_arguments(production_code(&text)) {
                // `io::Result<String>` holds a String; only a second argument is an error type.
                if args.len() == 2 && args[1] == "String" {
                    found.push((name.clone(), args.join(", ")));
                }
            }
        }
    }

    #[test]
    fn result_arguments_reads_types_across_lines_and_closures() {
        let code = "fn a() -> Result<Vec<u8>,\n    String> {}\n\
                    fn b(f: &dyn Fn(&str) -> bool) -> io::Result<()> {}\n\
                    fn c() -> Result<(A, B), Error> {}";
        assert_eq!(
            result_arguments(code),
            vec![
                vec!["Vec<u8>".to_string(), "String".to_string()],
                vec!["()".to_string()],
                vec!["(A, B)".to_string(), "Error".to_string()]
            ]
        );
    }

    /// A failure is a typed value (a closed enum per family, one `Display`) until it reaches
    /// the model through a named constructor here; a `String` error would let text written for
    /// a person travel where a caller needs to tell failures apart.
    #[test]
    fn no_production_code_returns_a_string_error() {
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut found = Vec::new();
        string_errors(&src, &mut found);
        assert!(
            found.is_empty(),
            "Result<_, String> outside tests (return a typed error instead): {found:#?}"
        );
    }

    #[test]
    fn every_edit_form_refusal_is_invalid_arguments_and_a_whole_sentence() {
        let forms = [
            EditForm::SearchAndRange,
            EditForm::HalfRange {
                given: "search_start",
                missing: "search_end",
            },
            EditForm::NoSearch,
            EditForm::EmptySearch,
            EditForm::NoChange,
            EditForm::EmptyAnchor,
            EditForm::ReplaceAllOnRange,
            EditForm::ReplaceAllAndOccurrence,
            EditForm::OccurrenceNotPositive(0),
        ];
        for form in forms {
            let error = ToolError::edit_form(form);
            assert_eq!(error.code, ErrorCode::InvalidArguments);
            assert!(error.message.ends_with('.'), "{}", error.message);
            let names_a_field = ["search", "replace", "occurrence"]
                .iter()
                .any(|f| error.message.contains(f));
            assert!(names_a_field, "{}", error.message);
        }
    }
}

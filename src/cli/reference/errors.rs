//! `docs/ERRORS.md`: every error code with its exit status, its meaning, the fields that come
//! with it in the envelope's `error` object, and what a caller does next.
//!
//! The match below is exhaustive, so a new code cannot be added without its documentation.

use crate::error::ErrorCode;

/// The fields an error of `code` commonly carries besides `code` and `message`.
pub fn fields(code: ErrorCode) -> &'static [&'static str] {
    match code {
        ErrorCode::InvalidArguments => &["path (when a path was refused)", "suggestion (a URL without a scheme: the call to make)"],
        ErrorCode::UnknownTool => &["available", "suggestion ({name} for a near miss; {name, arguments} for another harness's call through `call`)"],
        ErrorCode::NotFound => &["path", "similar", "cwd (when the session cwd has moved)"],
        ErrorCode::IsDirectory | ErrorCode::BinaryFile | ErrorCode::NotRead => &["path"],
        ErrorCode::NotARegularFile => &["path"],
        ErrorCode::OutsideWorkspace => &["path"],
        ErrorCode::NotUtf8 => &["path", "invalid_bytes", "invalid_count"],
        ErrorCode::TooLarge => &["path"],
        ErrorCode::Stale => &["path", "paths (several files)"],
        ErrorCode::NoMatch => &["path", "near_line"],
        ErrorCode::MultipleMatches => &["path", "count", "lines"],
        ErrorCode::SyntaxGate => &["path", "language", "line", "column", "parser_message"],
        ErrorCode::PatchFailed => &["path", "hunk", "patch_line", "candidates (two equally good positions)"],
        ErrorCode::ApprovalRequired => &["approval ({id, kind, subject, reason})"],
        ErrorCode::AnswerRequired => &["question ({id, question, choices, default})", "command (the `answer` command line)"],
        ErrorCode::NetworkDenied => &["host (policy)", "scheme (not http or https)"],
        ErrorCode::BlockedAddress => &["host", "address", "range", "range_label", "trusted_cidr"],
        ErrorCode::Timeout => &["timeout_ms"],
        ErrorCode::IoError => &["path (a file operation)", "url, host (fetch_url)"],
        ErrorCode::SandboxUnavailable => &["missing"],
        ErrorCode::ToolDisabled => &["enabled"],
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
pub fn next_step(code: ErrorCode) -> &'static str {
    match code {
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
        ErrorCode::TooLarge => "Narrow the input (a smaller page, a file given by path) as the message says.",
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

/// `docs/ERRORS.md`.
pub fn errors_md() -> String {
    let mut out = String::from(
        "# codesmith error codes\n\n\
         <!-- Generated from ErrorCode (src/error.rs) and src/reference/errors.rs by \
         `CODESMITH_BLESS=1 cargo test --test main generated`; edit those, not this file. -->\n\n\
         A failed call prints `{\"ok\": false, \"tool\", \"output\", \"error\": {\"code\", \"message\", ...}}`; \
         `output` equals `error.message`, which says what went wrong and the way out. The set of \
         codes is closed and stable.\n\n\
         | exit status | meaning |\n|---|---|\n\
         | 0 | the tool succeeded (`ok: true`; a command's own non-zero exit is `data.exit_code`) |\n\
         | 1 | the tool refused or failed |\n\
         | 2 | usage: `invalid_arguments`, `unknown_tool`, malformed JSON, an unknown option |\n\
         | 3 | `approval_required`, `answer_required` |\n\n\
         | code | exit | meaning |\n|---|---|---|\n",
    );
    for code in ErrorCode::ALL {
        out.push_str(&format!(
            "| [`{name}`](#{name}) | {exit} | {meaning} |\n",
            name = code.as_str(),
            exit = code.exit_status(),
            meaning = code.meaning()
        ));
    }
    for code in ErrorCode::ALL {
        out.push_str(&format!(
            "\n## {}\n\nExit status {}. {}.\n\nFields besides `code` and `message`: {}.\n\nNext: {}\n",
            code.as_str(),
            code.exit_status(),
            capitalized(code.meaning()),
            fields(code)
                .iter()
                .map(|field| field_text(field))
                .collect::<Vec<_>>()
                .join(", "),
            next_step(code)
        ));
    }
    out
}

/// `name (when)` as `` `name` (when) ``.
fn field_text(field: &str) -> String {
    match field.split_once(' ') {
        Some((name, note)) => format!("`{name}` {note}"),
        None => format!("`{field}`"),
    }
}

fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

//! `invalid_arguments` refusals of one tool's arguments: values out of range, forms that
//! contradict each other, paths of the wrong kind. Each names the call that works.

use super::{Field, FileRef, ToolError};

/// Why a glob is refused: grep_files' `include`/`exclude`, file_search's `pattern`,
/// search_code's `glob`.
#[derive(Debug, thiserror::Error)]
pub enum GlobError {
    #[error(
        "the glob `{head}…` is {chars} characters; the longest taken is {max}. Use a shorter glob, \
         or several calls"
    )]
    TooLong { head: String, chars: usize, max: usize },
    #[error(
        "{count} globs were given; at most {max} are taken. Use fewer, broader globs \
         (`*.{{rs,toml}}`, a directory name)"
    )]
    TooMany { count: usize, max: usize },
    #[error("the glob `{raw}` is empty")]
    Empty { raw: String },
    /// A glob of a list, named as given.
    #[error("the glob `{raw}` is invalid: {kind}")]
    Invalid { raw: String, kind: globset::ErrorKind },
    /// A lone glob, whose message names it already.
    #[error("{0}")]
    Syntax(globset::ErrorKind),
    /// The set's regex could not be built.
    #[error("{0}")]
    Set(globset::Error),
}

impl ToolError {
    /// read_file's start_line=0; `path_arg` is the path as a call argument.
    pub fn start_line_zero(path_arg: &str) -> ToolError {
        ToolError::invalid(format!(
            "start_line is 1-based, so 0 is not a line. Call read_file with path={path_arg} start_line=1."
        ))
    }

    /// read_file's max_lines=0.
    pub fn max_lines_zero(path_arg: &str, cap: u64) -> ToolError {
        ToolError::invalid(format!(
            "max_lines must be 1 to {cap}. Call read_file with path={path_arg} max_lines=200."
        ))
    }

    /// list_dir's depth outside 1..=max; `nearest` is the nearest legal depth.
    pub fn depth_out_of_range(path_arg: &str, max: u64, nearest: u64) -> ToolError {
        ToolError::invalid(format!(
            "depth must be 1 to {max}. Call list_dir with path={path_arg} depth={nearest}."
        ))
    }

    /// fetch_url's max_bytes=0 or timeout_ms=0 (`field`), with the cap and the default.
    pub fn fetch_limit_zero(field: &str, url_arg: &str, cap: u64, default: u64) -> ToolError {
        ToolError::invalid(format!(
            "{field} must be at least 1; values above {cap} are capped. Call fetch_url with url={url_arg} \
             {field}={default}."
        ))
    }

    /// task_wait's timeout_ms over the cap.
    pub fn wait_too_long(timeout_ms: u64, max: u64, task_id: &str) -> ToolError {
        ToolError::invalid(format!(
            "timeout_ms must be 0 to {max} (got {timeout_ms}). Call task_wait with task_id=\"{task_id}\" \
             timeout_ms={max}, and again if it is still running."
        ))
        .with(Field::FieldName, "timeout_ms")
    }

    /// task_cancel with both or neither of task_id and all=true.
    pub fn cancel_needs_one_target() -> ToolError {
        ToolError::invalid(
            "pass either task_id or all=true (not both, not neither). For example call \
             task_cancel with task_id=\"task-1\", or with all=true.",
        )
    }

    /// undo with both id and to.
    pub fn undo_id_and_to() -> ToolError {
        ToolError::invalid(
            "pass id (revert that one checkpoint) or to (revert it and every later one of the session), \
             not both.",
        )
    }

    /// An undo id or to that is not a checkpoint number.
    pub fn bad_checkpoint_id(field: &str, text: &str) -> ToolError {
        ToolError::invalid(format!(
            "{field} must be a checkpoint id, a number as history lists it (got `{text}`). Call history \
             to see the ids."
        ))
        .with(Field::FieldName, field)
    }

    /// apply_patch with an empty patch.
    pub fn empty_patch() -> ToolError {
        ToolError::invalid(
            "the patch is empty. Pass a unified diff or a `*** Begin Patch` … `*** End Patch` block in `patch`.",
        )
    }

    /// write_file given a path that ends with `/`; `example_arg` names a file inside it.
    pub fn write_to_directory_name(path: &str, example_arg: &str) -> ToolError {
        ToolError::invalid(format!(
            "`{path}` ends with `/`, which names a directory; write_file writes files. Call again with \
             a file name, for example path={example_arg}."
        ))
    }

    /// write_file given a path that runs through an existing file (`notes.txt/x`).
    pub fn write_through_file(display: &str, file: &str) -> ToolError {
        ToolError::invalid(format!(
            "`{display}` goes through `{file}`, which is a file, not a directory, so nothing can be created \
             inside it. Choose a path whose parent is a directory (or remove `{file}` first)."
        ))
    }

    /// A file in a language `tool` has no grammar for; `supported` lists them in prose.
    pub fn unsupported_language(
        file: &FileRef,
        tool: crate::tool_id::ToolId,
        supported: &str,
        languages: Vec<&str>,
    ) -> ToolError {
        ToolError::invalid(format!(
            "`{}` is not in a language {tool} understands. Supported: {supported}. To see the file, call \
             read_file with path={}; to search its text, grep_files.",
            file.display, file.call_arg
        ))
        .with(Field::Path, file.display)
        .with(Field::Languages, languages)
    }

    /// A search or list tool pointed inside `.codesmith/`; `root_arg` is the workspace root as a
    /// call argument.
    pub fn inside_state_for_search(display: &str, tool: &str, root_arg: &str) -> ToolError {
        ToolError::invalid(format!(
            "`{display}` is inside .codesmith/, codesmith's own state, which the search and list tools \
             (grep_files, file_search, list_dir) skip. A spill file named in an output \
             (`.codesmith/spill/...`) can be read with read_file. Otherwise call {tool} with a path \
             outside .codesmith/, e.g. path={root_arg}."
        ))
        .with(Field::Path, display)
    }

    /// grep_files with an empty pattern.
    pub fn empty_pattern() -> ToolError {
        ToolError::invalid(
            "pattern is empty, which would match every line. Pass the text or regex to look for, \
             e.g. pattern=\"fn main\"; to list files use file_search with pattern=\"*\".",
        )
    }

    /// grep_files' context over the cap; `call` is the grep_files call so far.
    pub fn context_out_of_range(context: u64, max: u64, call: &str) -> ToolError {
        ToolError::invalid(format!(
            "context must be 0 to {max}, not {context}. Call grep_files with {call} context=5."
        ))
    }

    /// A grep_files pattern over the length taken.
    pub fn pattern_too_long(chars: usize, max: usize) -> ToolError {
        ToolError::invalid(format!(
            "pattern is {chars} characters; the longest taken is {max} (matching \
             time grows with it). Search for a distinctive part of it, e.g. its first line with \
             fixed_strings=true."
        ))
        .with(Field::FieldName, "pattern")
    }

    /// A grep_files include or exclude glob that does not compile.
    pub fn bad_filter_glob(field: &str, why: &GlobError) -> ToolError {
        ToolError::invalid(format!(
            "{field}: {why}. Use globs such as \"*.rs\", \"src/**/*.ts\" or \"tests\"."
        ))
        .with(Field::FieldName, field)
    }

    /// file_search pointed at a file; `pattern_arg` and `path_arg` are call arguments.
    pub fn search_in_file(display: &str, pattern_arg: &str, path_arg: &str) -> ToolError {
        ToolError::invalid(format!(
            "`{display}` is a file, not a directory; file_search looks below a directory. Call file_search \
             with pattern={pattern_arg} path=\".\", or read_file with path={path_arg}."
        ))
        .with(Field::Path, display)
    }

    /// A file_search pattern over the length taken (`why` says by how much).
    pub fn glob_too_long(why: &GlobError) -> ToolError {
        ToolError::invalid(format!("pattern: {why}, e.g. pattern=\"**/*.rs\"."))
            .with(Field::FieldName, "pattern")
    }

    /// A file_search glob that does not compile.
    pub fn bad_glob(pattern: &str, pattern_arg: &str, why: &GlobError) -> ToolError {
        ToolError::invalid(format!(
            "invalid glob {pattern_arg}: {why}. Use `*` for any characters in a name, `**` for any directories, \
             `{{a,b}}` for alternatives, e.g. pattern=\"**/*.rs\"."
        ))
        .with(Field::Pattern, pattern)
    }

    /// find_symbol's name that is no identifier; `name_arg` and `text_arg` are call arguments.
    pub fn bad_symbol_name(name_arg: &str, text_arg: &str) -> ToolError {
        ToolError::invalid(format!(
            "name {name_arg} is not a symbol name: pass one identifier (`parse_config`), or a qualified \
             one (`Config::new`, `config.load`), without spaces. To search text, call grep_files \
             with pattern={text_arg}."
        ))
        .with(Field::FieldName, "name")
    }

    /// find_symbol pointed outside the workspace (a trusted root); `pattern_arg` is the grep_files
    /// pattern that finds the name there.
    pub fn symbols_outside_workspace(file: &FileRef, pattern_arg: &str) -> ToolError {
        ToolError::invalid(format!(
            "`{}` is outside the workspace; find_symbol indexes the workspace only. Search there \
             with grep_files, e.g. pattern={pattern_arg} path={}.",
            file.display, file.call_arg
        ))
    }

    /// find_symbol's kind that is no known kind; `kinds` lists them.
    pub fn unknown_symbol_kind(kind_arg: &str, kinds: Vec<String>, name_arg: &str) -> ToolError {
        ToolError::invalid(format!(
            "kind {kind_arg} is not a kind of symbol codesmith knows. Use one of: {}; or leave kind out, e.g. \
             call find_symbol with name={name_arg}.",
            kinds.join(", ")
        ))
        .with(Field::FieldName, "kind")
        .with(Field::Kinds, kinds)
    }

    /// exec_shell with an empty command.
    pub fn empty_command() -> ToolError {
        ToolError::invalid(
            "command is empty. Pass the command line to run, e.g. {\"command\": \"cargo build\"}.",
        )
    }

    /// exec_shell with a NUL byte in the command.
    pub fn nul_in_command() -> ToolError {
        ToolError::invalid(
            "command contains a NUL byte, which no shell command can hold. Remove it and call again.",
        )
    }

    /// exec_shell's timeout_ms outside 1..=max.
    pub fn command_timeout_out_of_range(timeout_ms: u64, max: u64) -> ToolError {
        ToolError::invalid(format!(
            "timeout_ms must be 1 to {max} (got {timeout_ms}). For work that takes longer, call \
             exec_shell with background=true and follow it with task_wait."
        ))
        .with(Field::FieldName, "timeout_ms")
    }

    /// ask_user with an empty question.
    pub fn empty_question() -> ToolError {
        ToolError::invalid(
            "question is empty. Ask one precise question, e.g. {\"question\": \"Which of a.toml and b.toml is the real config?\"}.",
        )
    }

    /// ask_user with more choices than are offered.
    pub fn too_many_choices(count: usize, max: usize) -> ToolError {
        ToolError::invalid(format!(
            "choices has {count} entries; at most {max} are offered. Narrow them down, or ask without choices."
        ))
    }

    /// ask_user with an empty or repeated choice; `choice_arg` is the choice as a call spells it.
    pub fn bad_choice(choice_arg: &str, empty: bool) -> ToolError {
        let what = if empty { "empty" } else { "repeated" };
        ToolError::invalid(format!(
            "choices must be distinct, non-empty texts; {choice_arg} is {what}. Remove it and call again."
        ))
    }

    /// ask_user with a default that is not among the choices.
    pub fn default_not_a_choice(default_arg: &str) -> ToolError {
        ToolError::invalid(format!(
            "default {default_arg} is not one of the choices. Make it one of them, or leave default out."
        ))
    }

    /// web_search with an empty query.
    pub fn empty_web_query() -> ToolError {
        ToolError::invalid(
            "query is empty, so nothing was searched. Pass the words to search for, e.g. {\"query\": \"serde rename_all snake_case\"}.",
        )
    }
}

//! Refusals about what a session can call and reach: unknown and disabled tools, background
//! tasks, checkpoints and undo.

use super::{CheckpointPath, ErrorCode, Field, ToolError};

/// Why another harness's call cannot be translated into the codesmith call that does the same.
#[derive(Debug, thiserror::Error)]
pub enum Untranslatable {
    #[error("the call has no `{0}`, which it needs")]
    Required(&'static str),
    #[error("the call has no `{0}`")]
    Missing(&'static str),
    #[error("`{0}` is not a string")]
    NotAString(&'static str),
    #[error("`{0}` is not a list")]
    NotAList(&'static str),
    #[error("`command` holds a value that is not a string")]
    ArgvNotStrings,
    #[error("`command` is neither a list of strings nor a string")]
    CommandShape,
    /// An edit of a MultiEdit, counted from 1.
    #[error("edit {edit} needs the strings old_string and new_string")]
    EditWithoutStrings { edit: usize },
    #[error(
        "the old_string of edit {edit} is not in `{path}` (after the edits before it); read the \
         file with read_file and send the edits to edit_file one by one"
    )]
    EditNotFound { edit: usize, path: String },
    #[error(
        "the old_string of edit {edit} matches {count} times in `{path}`; make it unique or set \
         replace_all"
    )]
    EditAmbiguous { edit: usize, count: usize, path: String },
    #[error("the edits leave `{path}` unchanged")]
    Unchanged { path: String },
    #[error(
        "undo_edit has no equivalent here: codesmith keeps no edit history. Read the file with \
         read_file and restore the text with edit_file"
    )]
    UndoEdit,
    #[error("`{command}` is not a text editor command this knows")]
    EditorCommand { command: String },
    #[error("`{path}` has {lines} lines, so insert_line {line} is past its end")]
    PastTheEnd { path: String, lines: usize, line: usize },
    #[error("the workspace could not be opened")]
    NoWorkspace,
    /// The file's path does not resolve; the refusal's message says why.
    #[error("{}", .0.message())]
    Unresolved(Box<ToolError>),
    #[error("`{path}` could not be read as UTF-8 text ({error})")]
    Unreadable { path: String, error: std::io::Error },
}

/// How an unknown tool name relates to a real one.
pub enum NearMiss<'a> {
    None,
    /// A name another harness uses (`what` says whose) for `tool`.
    Foreign {
        tool: &'a str,
        what: &'a str,
    },
    /// A near miss of a command (`reed` for `read`), with the tool it runs if it is one.
    Typo {
        command: &'a str,
        tool: Option<&'a str>,
    },
}

impl ToolError {
    /// `unknown_tool`: the name is no tool; `available` lists the tools, `suggestion` is the
    /// intended tool's name, if one is clear.
    pub fn unknown_tool(
        name: &str,
        near: NearMiss,
        available: Vec<&str>,
        suggestion: Option<&str>,
    ) -> ToolError {
        let hint = match near {
            NearMiss::Foreign { tool, what } => format!(" `{name}` is not a tool here; {what} is {tool}."),
            NearMiss::Typo {
                command,
                tool: Some(tool),
            } if command != tool => format!(" Did you mean `{command}` ({tool})?"),
            NearMiss::Typo { command, .. } => format!(" Did you mean `{command}`?"),
            NearMiss::None => String::new(),
        };
        let error = ToolError::new(
            ErrorCode::UnknownTool,
            format!(
                "unknown tool `{name}`.{hint} Do not retry `{name}`; it does not exist. Available tools: {}.",
                available.join(", ")
            ),
        )
        .with(Field::Available, available);
        match suggestion {
            Some(tool) => error.with(Field::Suggestion, serde_json::json!({ "name": tool })),
            None => error,
        }
    }

    /// `unknown_tool` for another harness's call, translated: `suggestion` is the call to send
    /// (`{"name", "arguments"}`), `tool` its name, `notes` what the translation changed.
    pub fn unknown_tool_translated(
        name: &str,
        tool: &str,
        suggestion: serde_json::Value,
        notes: &[super::TranslationNote],
        available: Vec<&str>,
    ) -> ToolError {
        let notes = super::translation::rendered(notes);
        ToolError::new(
            ErrorCode::UnknownTool,
            format!(
                "unknown tool `{name}`; here the same call is {tool}. Send this call, as is (it is also \
                 error.suggestion): {suggestion}.{notes} Do not retry `{name}`; it does not exist. \
                 Available tools: {}.",
                available.join(", ")
            ),
        )
        .with(Field::Available, available)
        .with(Field::Suggestion, suggestion)
    }

    /// `unknown_tool` for another harness's call that names a tool here but cannot be
    /// translated (`why`); the fields are those of [`ToolError::unknown_tool`].
    pub fn untranslatable(mut self, name: &str, why: &Untranslatable) -> ToolError {
        let tool = self.details["suggestion"]["name"]
            .as_str()
            .unwrap_or("")
            .to_string();
        let available = self.details["available"]
            .as_array()
            .map(|names| {
                names
                    .iter()
                    .filter_map(|n| n.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            })
            .unwrap_or_default();
        self.head = format!(
            "unknown tool `{name}`; here it would be {tool}, but the call cannot be translated: {why}. \
             Do not retry `{name}`; it does not exist. Available tools: {available}."
        );
        self
    }

    /// `tool_disabled`: the tool exists but the profile does not offer it; `enabled` lists
    /// what it offers.
    pub fn tool_disabled(tool: &str, enabled: Vec<&str>, by_flag: bool) -> ToolError {
        let source = if by_flag {
            "by --tools and `[tools] enabled` in .codesmith/config.toml"
        } else {
            "by `[tools] enabled` in .codesmith/config.toml"
        };
        let offered = if enabled.is_empty() {
            "No tool is enabled here.".to_string()
        } else {
            format!("Enabled here: {}.", enabled.join(", "))
        };
        ToolError::new(
            ErrorCode::ToolDisabled,
            format!(
                "{tool} exists but is disabled in this workspace's tool profile (set {source}). \
                 {offered} Do not retry {tool}; do the task with the enabled tools, or ask the user to \
                 enable {tool}."
            ),
        )
        .with(Field::Enabled, enabled)
    }

    /// No background task has this id; `known` lists the workspace's tasks in order.
    pub fn unknown_task(id: &str, known: &[String]) -> ToolError {
        let hint = match known.last() {
            Some(last) => format!(
                "Known tasks: {}. For example call task_output with task_id=\"{last}\".",
                known.join(", ")
            ),
            None => "No task has been started in this workspace; start one with exec_shell and \
                     background=true."
                .to_string(),
        };
        ToolError::new(ErrorCode::NotFound, format!("there is no task `{id}`. {hint}"))
            .with(Field::TaskId, id)
    }

    /// task_input to a task that was not started on a terminal; `command` is its command as a
    /// JSON string.
    pub fn task_not_interactive(id: &str, command: &str) -> ToolError {
        ToolError::new(
            ErrorCode::InvalidArguments,
            format!(
                "{id} was not started on a terminal, so its stdin is /dev/null and takes no input. \
                 To talk to the program, start it again with exec_shell with command={command} \
                 background=true interactive=true, then call task_input with the new task_id."
            ),
        )
        .with(Field::TaskId, id)
    }

    /// task_input to a task that has ended: there is nothing to type into.
    pub fn task_ended(id: &str, status: &str) -> ToolError {
        ToolError::new(
            ErrorCode::InvalidArguments,
            format!(
                "{id} has ended ({status}), so it takes no more input; nothing was sent. Call \
                 task_output with task_id=\"{id}\" for what it printed last, or start it again \
                 with exec_shell with background=true interactive=true."
            ),
        )
        .with(Field::TaskId, id)
        .with(Field::Status, status)
    }

    /// `interactive=true` without `background=true`; `command` as a JSON string.
    pub fn interactive_needs_background(command: &str) -> ToolError {
        ToolError::invalid(format!(
            "interactive=true runs a background task on a terminal, so it needs background=true. \
             Call exec_shell with command={command} background=true interactive=true, then type \
             into it with task_input."
        ))
    }

    /// A checkpoint names a path undo may not touch (`why`: not plain, inside .codesmith/, or
    /// reaching outside through a symlink).
    pub fn checkpoint_path_outside(path: &str, why: CheckpointPath) -> ToolError {
        ToolError::new(
            ErrorCode::OutsideWorkspace,
            format!("path escapes workspace: the checkpoint names `{path}`, {why}; nothing was restored."),
        )
        .with(Field::Path, path)
    }

    /// The saved content of a checkpoint's path cannot be read.
    pub fn checkpoint_blob_unreadable(path: &str, err: &dyn std::fmt::Display) -> ToolError {
        ToolError::new(
            ErrorCode::IoError,
            format!(
                "the saved content of `{path}` cannot be read ({err}); the history is damaged, so \
                 nothing was restored. Restore the file from version control instead."
            ),
        )
        .with(Field::Path, path)
    }

    /// Writing a restored path failed; `after` says what was rolled back or left.
    pub fn restore_failed(path: &str, err: &dyn std::fmt::Display, after: &str) -> ToolError {
        ToolError::new(
            ErrorCode::IoError,
            format!("restoring `{path}` failed ({err}); {after}. Fix the cause, then retry the same call."),
        )
        .with(Field::Path, path)
    }

    /// Every path of the chosen checkpoints is already as it was (`ids` lists them).
    pub fn nothing_to_undo(ids: &str) -> ToolError {
        ToolError::new(
            ErrorCode::NotFound,
            format!(
                "nothing to undo: every path of checkpoint {ids} is already as it was before. Call history \
                 to see the checkpoints."
            ),
        )
    }

    /// The session has no checkpoint at all.
    pub fn no_checkpoint(session: &str) -> ToolError {
        ToolError::new(
            ErrorCode::NotFound,
            format!(
                "session `{session}` has no checkpoint to undo: no call of this session changed \
                 files through codesmith (or its checkpoints were pruned). Call history to list \
                 the checkpoints of this session."
            ),
        )
    }

    /// No checkpoint of this session has this id.
    pub fn unknown_checkpoint(id: u64) -> ToolError {
        ToolError::new(
            ErrorCode::NotFound,
            format!(
                "there is no checkpoint {id} (never recorded, of another session, or pruned by the retention \
                 limits). Call history to list the checkpoints."
            ),
        )
        .with(Field::Id, id)
    }

    /// `--tools` names something that is neither a tool nor a capability (`unknown`), or
    /// nothing (`None`); `valid` lists what it takes.
    pub fn bad_tool_selector(unknown: Option<&str>, valid: &str) -> ToolError {
        let message = match unknown {
            Some(unknown) => format!(
                "--tools: `{unknown}` is neither a tool nor a capability. It takes a comma-separated \
                 list of {valid}, e.g. `--tools read_only` or `--tools read_file,grep_files`."
            ),
            None => format!("--tools needs at least one name: {valid}, e.g. `--tools read_only`."),
        };
        ToolError::invalid(message).with(Field::FieldName, "tools")
    }
}

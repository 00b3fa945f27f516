//! Which tool (or command) a call runs, as a value every layer can take: the layers below the
//! tools never pass a tool's name around as a string, nor match on one. The tools' registry
//! gives each spec its id (`ToolSpec::id`), and a test there holds ids and names together.

use std::fmt;

/// A tool of the registry, or one of the commands that open a session without being a tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ToolId {
    ReadFile,
    WriteFile,
    EditFile,
    ApplyPatch,
    ListDir,
    GrepFiles,
    FileSearch,
    FindSymbol,
    Outline,
    SearchCode,
    ExecShell,
    TaskOutput,
    TaskWait,
    TaskCancel,
    TaskInput,
    FetchUrl,
    WebSearch,
    AskUser,
    History,
    Undo,
    /// `codesmith trust`.
    Trust,
    /// `codesmith call`, resolving another harness's call.
    Call,
    /// `codesmith mcp`, opening the connection's session.
    Mcp,
}

impl ToolId {
    /// The name the tool is called by (the command's word for a command).
    pub fn name(self) -> &'static str {
        match self {
            ToolId::ReadFile => "read_file",
            ToolId::WriteFile => "write_file",
            ToolId::EditFile => "edit_file",
            ToolId::ApplyPatch => "apply_patch",
            ToolId::ListDir => "list_dir",
            ToolId::GrepFiles => "grep_files",
            ToolId::FileSearch => "file_search",
            ToolId::FindSymbol => "find_symbol",
            ToolId::Outline => "outline",
            ToolId::SearchCode => "search_code",
            ToolId::ExecShell => "exec_shell",
            ToolId::TaskOutput => "task_output",
            ToolId::TaskWait => "task_wait",
            ToolId::TaskCancel => "task_cancel",
            ToolId::TaskInput => "task_input",
            ToolId::FetchUrl => "fetch_url",
            ToolId::WebSearch => "web_search",
            ToolId::AskUser => "ask_user",
            ToolId::History => "history",
            ToolId::Undo => "undo",
            ToolId::Trust => "trust",
            ToolId::Call => "call",
            ToolId::Mcp => "mcp",
        }
    }
}

impl fmt::Display for ToolId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

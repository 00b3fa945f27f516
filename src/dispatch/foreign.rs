//! Tool names from other harnesses (`Edit`, `Bash`, `str_replace_editor`, `WebFetch`, …) and
//! the codesmith tool each most likely meant, so `unknown_tool` can name it instead of leaving
//! the caller to guess from the list.

use crate::tools;

/// (other harnesses' names, normalized: lowercase, letters and digits only; the tool here; what
/// it is, for the message).
const TABLE: &[(&[&str], &str, &str)] = &[
    (
        &[
            "read",
            "view",
            "cat",
            "readfile",
            "openfile",
            "open",
            "readfiles",
            "notebookread",
        ],
        "read_file",
        "the read tool",
    ),
    (
        &[
            "edit",
            "multiedit",
            "strreplace",
            "strreplaceeditor",
            "strreplacebasededittool",
            "replace",
            "searchreplace",
            "replaceinfile",
            "editfile",
            "notebookedit",
        ],
        "edit_file",
        "the edit tool",
    ),
    (
        &[
            "write",
            "create",
            "createfile",
            "writefile",
            "writetofile",
            "newfile",
        ],
        "write_file",
        "the write tool",
    ),
    (
        &["applypatch", "patch", "applydiff"],
        "apply_patch",
        "the patch tool",
    ),
    (
        &[
            "bash",
            "shell",
            "sh",
            "terminal",
            "run",
            "runcommand",
            "runterminalcmd",
            "executecommand",
            "exec",
            "execute",
            "command",
            "localshell",
            "containerexec",
            "runshellcommand",
        ],
        "exec_shell",
        "the shell tool",
    ),
    (
        &[
            "grep",
            "search",
            "rg",
            "ripgrep",
            "searchfiles",
            "grepsearch",
            "codebasesearch",
            "findtext",
        ],
        "grep_files",
        "the content search tool",
    ),
    (
        &[
            "glob",
            "find",
            "findfiles",
            "filesearch",
            "fd",
            "findbyname",
            "globfiles",
        ],
        "file_search",
        "the file name search tool",
    ),
    (
        &[
            "ls",
            "list",
            "listfiles",
            "listdirectory",
            "listdir",
            "dir",
            "tree",
        ],
        "list_dir",
        "the directory listing tool",
    ),
    (
        &[
            "webfetch", "fetch", "fetchurl", "curl", "wget", "http", "browse", "readurl", "urlfetch",
        ],
        "fetch_url",
        "the URL fetch tool",
    ),
    (
        &[
            "googlesearch",
            "searchweb",
            "internetsearch",
            "bingsearch",
            "bravesearch",
        ],
        "web_search",
        "the web search tool",
    ),
    (
        &[
            "askuserquestion",
            "askhuman",
            "askquestion",
            "humaninput",
            "askfollowupquestion",
        ],
        "ask_user",
        "the question tool",
    ),
    (
        &[
            "writestdin",
            "sendinput",
            "bashinput",
            "shellinput",
            "terminalinput",
        ],
        "task_input",
        "the tool that types into an interactive task",
    ),
    (
        &["bashoutput", "shelloutput", "taskoutput", "commandoutput"],
        "task_output",
        "the background task output tool",
    ),
    (
        &[
            "killbash",
            "killshell",
            "killtask",
            "taskcancel",
            "cancel",
            "kill",
        ],
        "task_cancel",
        "the background task cancel tool",
    ),
];

/// The tool `name` most likely meant, with what it is: a known name from another harness, or
/// a codesmith name in other case or spelling (`Read_File`, `read-file`). A namespace prefix
/// (`functions.`, `mcp__server__`) is ignored.
pub(super) fn intended(name: &str) -> Option<(&'static str, &'static str)> {
    let base = name.rsplit("__").next().unwrap_or(name);
    let base = base.rsplit('.').next().unwrap_or(base);
    let key: String = base
        .chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect();
    if key.is_empty() {
        return None;
    }
    for spec in tools::REGISTRY {
        let squash = |s: &str| s.replace('_', "");
        if key == squash(spec.name) || key == squash(spec.alias) {
            let what = TABLE
                .iter()
                .find(|(_, tool, _)| *tool == spec.name)
                .map_or("the tool", |(_, _, what)| *what);
            return Some((spec.name, what));
        }
    }
    TABLE
        .iter()
        .find(|(names, _, _)| names.contains(&key.as_str()))
        .map(|(_, tool, what)| (*tool, *what))
}

#[cfg(test)]
mod tests {
    use super::intended;

    #[test]
    fn names_from_other_harnesses_map_to_tools_here() {
        for (name, tool) in [
            ("Edit", "edit_file"),
            ("Read", "read_file"),
            ("Bash", "exec_shell"),
            ("Write", "write_file"),
            ("Grep", "grep_files"),
            ("Glob", "file_search"),
            ("LS", "list_dir"),
            ("WebFetch", "fetch_url"),
            ("WebSearch", "web_search"),
            ("AskUserQuestion", "ask_user"),
            ("write_stdin", "task_input"),
            ("ask_followup_question", "ask_user"),
            ("str_replace_editor", "edit_file"),
            ("shell", "exec_shell"),
            ("Apply_Patch", "apply_patch"),
            ("functions.read_file", "read_file"),
            ("mcp__fs__Read", "read_file"),
            ("TaskWait", "task_wait"),
        ] {
            assert_eq!(intended(name).map(|(t, _)| t), Some(tool), "{name}");
        }
        assert_eq!(intended("frobnicate"), None);
        assert_eq!(intended("__"), None);
    }
}

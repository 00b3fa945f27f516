//! Every command line a result prints for a person carries the workspace and session of the
//! call that printed it, so it works pasted into a shell anywhere: each test runs a printed
//! command verbatim with `sh -c`, from a directory outside the workspace.

use std::path::Path;
use std::process::Command;

use serde_json::{json, Value};

use crate::harness::WithoutCodesmithEnv;
use crate::harness::{Outcome, Ws, BIN};
use crate::mcp_support::{texts, McpSession};

/// A workspace whose path needs quoting, with the session `conv9`, and the directory the
/// commands are run from (its parent, outside it).
fn awkward_workspace() -> (tempfile::TempDir, Ws) {
    let parent = tempfile::tempdir().expect("tempdir");
    let root = parent.path().join("my work's dir");
    std::fs::create_dir(&root).expect("mkdir");
    let mut ws = Ws::at(&root);
    ws.session = Some("conv9".into());
    // A repository of its own: an approved `git fetch` then fails in it at once (no remote)
    // instead of walking up to a checkout that holds the temporary directory.
    crate::sandbox::git_init(&ws);
    (parent, ws)
}

/// The first command line in backticks in `text` that starts `codesmith` and contains `what`.
fn printed_command(text: &str, what: &str) -> String {
    text.split('`')
        .skip(1)
        .step_by(2)
        .find(|line| line.starts_with("codesmith ") && line.contains(what))
        .unwrap_or_else(|| panic!("no `codesmith … {what}` in: {text}"))
        .to_string()
}

/// Runs `line` with `sh -c` in `dir`, with `codesmith` on the PATH and no codesmith variables.
fn run_verbatim(line: &str, dir: &Path) -> std::process::Output {
    let bin_dir = Path::new(BIN).parent().expect("bin dir");
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    Command::new("sh")
        .args(["-c", line])
        .current_dir(dir)
        .env("PATH", path)
        .without_codesmith_env()
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run sh")
}

#[test]
fn the_printed_approve_command_runs_verbatim_and_grants_the_call() {
    let (elsewhere, ws) = awkward_workspace();
    // `git fetch origin` needs the network, so it waits for approval; in a repository without
    // that remote it then fails at once, touching nothing.
    let out = ws.run(&["shell", "git fetch origin"]).err("approval_required");
    let id = out.error()["approval"]["id"].as_str().expect("id").to_string();
    let line = printed_command(out.message(), &format!("approve {id}"));
    assert!(
        line.starts_with("codesmith --workspace \"") && line.contains(" --session conv9 approve "),
        "{line}"
    );
    Outcome::from_output(run_verbatim(&line, elsewhere.path())).ok();
    let ran = ws.run(&["shell", "git fetch origin"]).ok();
    assert_ne!(
        ran.data()["exit_code"],
        0,
        "git fetch ran and failed: the repository has no remote `origin`"
    );
    // From inside the workspace, in the default session, nothing is added.
    let plain = Command::new(BIN)
        .args(["shell", "git fetch --all"])
        .current_dir(ws.path())
        .without_codesmith_env()
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run codesmith");
    let plain = Outcome::from_output(plain).err("approval_required");
    assert!(
        plain.message().contains("`codesmith approve ap-"),
        "{}",
        plain.message()
    );
}

#[test]
fn a_text_continuation_runs_verbatim_and_reads_the_next_page() {
    let (elsewhere, ws) = awkward_workspace();
    let lines: String = (1..=300).map(|n| format!("line {n}\n")).collect();
    ws.write("notes/big file.txt", lines);
    let out = ws.raw(&["--format", "text", "read", "notes/big file.txt"]);
    let text = String::from_utf8(out.stdout).expect("UTF-8");
    let line = printed_command(&text, " read ");
    assert!(
        line.contains(" --session conv9 read 'notes/big file.txt' --start-line 201"),
        "{line}"
    );
    let next = Outcome::from_output(run_verbatim(&line, elsewhere.path())).ok();
    assert_eq!(next.data()["start_line"], 201);
    assert!(
        next.output().starts_with("   201│ line 201\n"),
        "{}",
        next.output()
    );
}

#[test]
fn the_printed_undo_hint_of_a_text_result_runs_verbatim() {
    let (elsewhere, ws) = awkward_workspace();
    ws.call("write_file", json!({"path": "a.txt", "content": "one\n"}))
        .ok();
    ws.read_via_tool("a.txt");
    ws.call(
        "edit_file",
        json!({"path": "a.txt", "search": "one", "replace": "two"}),
    )
    .ok();
    // The file changed behind the session's back: undo refuses, naming the forcing call.
    std::fs::write(ws.join("a.txt"), "three\n").expect("write");
    let out = ws.raw(&["--format", "text", "undo"]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).expect("UTF-8");
    let line = printed_command(&text, " undo ");
    assert!(line.contains(" --session conv9 undo "), "{line}");
    Outcome::from_output(run_verbatim(&line, elsewhere.path())).ok();
    assert_eq!(ws.read_string("a.txt"), "one\n");
}

#[test]
fn an_mcp_client_that_cannot_ask_prints_an_approve_command_that_runs_verbatim() {
    let (elsewhere, ws) = awkward_workspace();
    // No --session: the connection gets a session of its own, named in the command.
    let mut session = McpSession::initialized(&ws, &[], "2025-11-25", json!({}));
    let call = json!({"command": "git fetch origin"});
    let result = session.call("exec_shell", call.clone());
    assert_eq!(result["isError"], true, "{result}");
    let id = result["structuredContent"]["approval"]["id"]
        .as_str()
        .expect("id")
        .to_string();
    let line = printed_command(&texts(&result)[0], &format!("approve {id}"));
    assert!(
        line.starts_with("codesmith --workspace \"") && line.contains(" --session mcp-"),
        "{line}"
    );
    Outcome::from_output(run_verbatim(&line, elsewhere.path())).ok();
    let again: Value = session.call("exec_shell", call);
    assert_eq!(again["isError"], false, "{again}");
}

#[test]
fn the_approve_command_of_a_sandbox_hint_runs_verbatim() {
    let (elsewhere, ws) = awkward_workspace();
    if !crate::sandbox::sandbox_here(&ws) {
        return;
    }
    // A directory outside the workspace that this test made: the command's write there is
    // stopped by the sandbox (the classifier cannot see it in an interpreter).
    let (_keep, outside) = crate::sandbox::scratch();
    let target = outside.join("note.txt");
    let command = format!("python3 -c 'open(\"{}\", \"w\").write(\"x\")'", target.display());
    let out = ws.run(&["shell", &command]).ok();
    assert!(!target.exists(), "{}", out.output());
    let id = out.data()["approval"]["id"].as_str().expect("id").to_string();
    let line = printed_command(out.output(), &format!("approve {id}"));
    assert!(line.contains(" --session conv9 approve "), "{line}");
    Outcome::from_output(run_verbatim(&line, elsewhere.path())).ok();
    ws.run(&["shell", &command]).ok();
    assert_eq!(std::fs::read_to_string(&target).ok().as_deref(), Some("x"));
}

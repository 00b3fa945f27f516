//! Checkpoints of exec_shell commands (foreground and background), in a git checkout and in a
//! plain directory, and their undo.

use std::os::unix::fs::PermissionsExt;
use std::process::Command;

use serde_json::json;

use crate::harness::{Outcome, Ws};

fn shell(ws: &Ws, command: &str) -> Outcome {
    ws.call("exec_shell", json!({"command": command})).ok()
}

fn checkpoints(ws: &Ws) -> Vec<serde_json::Value> {
    ws.run(&["history"]).ok().data()["checkpoints"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

pub(crate) fn git(ws: &Ws, args: &[&str]) {
    let status = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(args)
        .current_dir(ws.path())
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .status()
        .expect("git");
    assert!(status.success(), "git {args:?}");
}

fn seed(ws: &Ws) {
    ws.write("edit.txt", "one\r\ntwo\r\n");
    ws.write("gone.txt", "bye\n");
    ws.write("moved.txt", "moving\n");
    ws.write("tool.sh", "#!/bin/sh\n");
    std::fs::set_permissions(ws.join("tool.sh"), std::fs::Permissions::from_mode(0o750)).expect("chmod");
}

fn assert_seeded(ws: &Ws) {
    assert_eq!(ws.read("edit.txt"), b"one\r\ntwo\r\n");
    assert_eq!(ws.read("gone.txt"), b"bye\n");
    assert_eq!(ws.read("moved.txt"), b"moving\n");
    assert_eq!(ws.read("tool.sh"), b"#!/bin/sh\n");
    assert_eq!(ws.mode("tool.sh"), 0o750);
    assert!(!ws.exists("touched.txt"));
    assert!(!ws.exists("renamed.txt"));
}

#[test]
fn a_command_in_a_plain_directory_is_undone_exactly() {
    let ws = Ws::new();
    seed(&ws);
    shell(&ws, "sed -i 's/two/TWO/' edit.txt && touch touched.txt && rm gone.txt && mv moved.txt renamed.txt && echo x >> tool.sh");
    let listed = checkpoints(&ws);
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0]["tool"], "exec_shell");
    assert_eq!(
        listed[0]["paths"].as_array().map(Vec::len),
        Some(6),
        "{}",
        listed[0]
    );
    ws.run(&["undo"]).ok();
    assert_seeded(&ws);
}

#[test]
fn a_command_in_a_git_checkout_is_undone_exactly() {
    let ws = Ws::new();
    git(&ws, &["init", "-q"]);
    seed(&ws);
    ws.write(".gitignore", "ignored/\n");
    git(&ws, &["add", "."]);
    git(&ws, &["commit", "-qm", "seed"]);
    ws.write("untracked.txt", "mine\n");
    shell(
        &ws,
        "sed -i 's/two/TWO/' edit.txt && touch touched.txt && rm gone.txt && git mv moved.txt renamed.txt \
         && echo x >> tool.sh && echo more >> untracked.txt && mkdir -p ignored && echo i > ignored/out.txt",
    );
    let listed = checkpoints(&ws);
    let paths: Vec<&str> = listed[0]["paths"]
        .as_array()
        .expect("paths")
        .iter()
        .filter_map(|p| p["path"].as_str())
        .collect();
    assert!(
        !paths
            .iter()
            .any(|p| p.starts_with("ignored/") || p.starts_with(".git/")),
        "{paths:?}"
    );
    assert!(paths.contains(&"untracked.txt"), "{paths:?}");
    ws.run(&["undo"]).ok();
    assert_seeded(&ws);
    assert_eq!(ws.read("untracked.txt"), b"mine\n");
    assert!(
        ws.exists("ignored/out.txt"),
        "ignored files are not recorded, so not undone"
    );
    // The workspace's own .git holds nothing of codesmith's.
    let refs = Command::new("git")
        .args(["for-each-ref"])
        .current_dir(ws.path())
        .output()
        .expect("git");
    assert!(!String::from_utf8_lossy(&refs.stdout).contains("codesmith"));
}

#[test]
fn read_only_commands_and_commands_that_change_nothing_record_nothing() {
    let ws = Ws::new();
    seed(&ws);
    shell(&ws, "ls -la && cat edit.txt");
    shell(&ws, "true");
    assert!(checkpoints(&ws).is_empty());
}

#[test]
fn shell_snapshots_can_be_turned_off() {
    let ws = Ws::new();
    ws.write(".codesmith/config.toml", "[history]\nshell = false\n");
    seed(&ws);
    shell(&ws, "rm gone.txt");
    assert!(checkpoints(&ws).is_empty());
    // The file tools still record.
    ws.call("write_file", json!({"path": "n.txt", "content": "n\n"}))
        .ok();
    assert_eq!(checkpoints(&ws).len(), 1);
}

#[test]
fn a_path_changed_after_the_command_is_refused() {
    let ws = Ws::new();
    seed(&ws);
    shell(&ws, "echo changed > edit.txt && rm gone.txt");
    ws.write("edit.txt", "someone else\n");
    let out = ws.run(&["undo"]).err("stale");
    assert!(out.message().contains("`edit.txt`"), "{}", out.message());
    assert_eq!(ws.read("edit.txt"), b"someone else\n");
    assert!(!ws.exists("gone.txt"), "all or nothing: the other path stays too");
}

#[test]
fn a_background_task_is_recorded_when_it_is_seen_finished() {
    let ws = Ws::new();
    seed(&ws);
    let started = ws
        .call(
            "exec_shell",
            json!({"command": "echo late > edit.txt && rm gone.txt", "background": true}),
        )
        .ok();
    let id = started.data()["task_id"].as_str().expect("task id").to_string();
    ws.call("task_wait", json!({"task_id": id, "timeout_ms": 10000}))
        .ok();
    let listed = checkpoints(&ws);
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert!(listed[0]["summary"]
        .as_str()
        .unwrap_or("")
        .ends_with("(background)"));
    // Seen finished again: recorded once.
    ws.call("task_output", json!({"task_id": id})).ok();
    assert_eq!(checkpoints(&ws).len(), 1);
    ws.run(&["undo"]).ok();
    assert_seeded(&ws);
}

#[test]
fn file_tool_and_shell_checkpoints_rewind_together() {
    let ws = Ws::new();
    seed(&ws);
    ws.read_via_tool("edit.txt");
    ws.call(
        "edit_file",
        json!({"path": "edit.txt", "search": "one", "replace": "uno"}),
    )
    .ok();
    shell(&ws, "sed -i 's/two/dos/' edit.txt && rm gone.txt");
    ws.call("write_file", json!({"path": "touched.txt", "content": "t\n"}))
        .ok();
    ws.run(&["undo", "--to", "1"]).ok();
    assert_seeded(&ws);
}

#[test]
fn a_tree_too_large_to_copy_is_not_snapshotted_and_the_call_says_so() {
    let ws = Ws::new();
    ws.write(".codesmith/config.toml", "[history]\nmax_bytes = 1000\n");
    seed(&ws);
    ws.write("big.txt", "x".repeat(5000));
    let out = shell(&ws, "rm gone.txt");
    assert!(
        out.notices()
            .iter()
            .any(|n| n.contains("not recorded") && n.contains("max_bytes")),
        "{:?}",
        out.notices()
    );
    assert!(checkpoints(&ws).is_empty());
    assert!(!ws.exists("gone.txt"), "the command still ran");
}

#[test]
fn without_git_the_command_runs_and_the_call_says_it_was_not_recorded() {
    let ws = Ws::new();
    seed(&ws);
    let bin = tempfile::tempdir().expect("tempdir");
    for tool in ["sh", "rm"] {
        let found = ["/bin", "/usr/bin"]
            .iter()
            .map(|dir| std::path::Path::new(dir).join(tool))
            .find(|p| p.exists())
            .expect("tool");
        std::os::unix::fs::symlink(found, bin.path().join(tool)).expect("symlink");
    }
    let text = json!({"command": "rm gone.txt"}).to_string();
    let out = Outcome::of({
        let mut cmd = ws.command(&["exec_shell", "--json", &text]);
        cmd.env("PATH", bin.path());
        cmd
    })
    .ok();
    assert!(
        out.notices()
            .iter()
            .any(|n| n.contains("not recorded") && n.contains("git")),
        "{:?}",
        out.notices()
    );
    assert!(!ws.exists("gone.txt"));
}

/// A directory a command replaced by a symlink to another directory comes back as a directory
/// with its files; nothing is read or written through the link, so the other directory's file
/// (the same text, and then other text) stays as it is.
#[test]
fn a_directory_replaced_by_a_symlink_comes_back_without_writing_through_the_link() {
    for other in ["one\n", "other\n"] {
        let ws = Ws::new();
        ws.write("d/f.txt", "one\n");
        ws.write("e/f.txt", other);
        shell(&ws, "rm -rf d && ln -s e d");
        assert!(std::fs::symlink_metadata(ws.join("d"))
            .unwrap()
            .file_type()
            .is_symlink());
        let undone = ws.run(&["undo"]).ok();
        let d = std::fs::symlink_metadata(ws.join("d")).unwrap();
        assert!(d.is_dir(), "d is not a directory again: {}", undone.output());
        assert_eq!(ws.read("d/f.txt"), b"one\n", "{}", undone.output());
        assert_eq!(ws.read("e/f.txt"), other.as_bytes());
    }
}

/// The reverse: a symlink a command replaced by a directory of new files comes back as the
/// link once those files are removed; the directory it linked to is not touched. A file
/// someone else put in the directory since makes the undo refuse and leave everything.
#[test]
fn a_symlink_replaced_by_a_directory_comes_back() {
    for intruder in [false, true] {
        let ws = Ws::new();
        ws.write("e/f.txt", "linked\n");
        std::os::unix::fs::symlink("e", ws.join("d")).expect("symlink");
        shell(
            &ws,
            "rm d && mkdir -p d/sub && echo new > d/f.txt && echo deeper > d/sub/g.txt",
        );
        assert!(std::fs::symlink_metadata(ws.join("d")).unwrap().is_dir());
        if intruder {
            ws.write("d/sub/mine.txt", "someone else's\n");
            let refused = ws.run(&["undo"]).err("stale");
            assert!(
                refused.message().contains("`d`: it is a directory now"),
                "{}",
                refused.message()
            );
            assert_eq!(ws.read("d/sub/mine.txt"), b"someone else's\n");
            assert_eq!(ws.read("d/f.txt"), b"new\n");
            continue;
        }
        let undone = ws.run(&["undo"]).ok();
        let d = std::fs::symlink_metadata(ws.join("d")).unwrap();
        assert!(
            d.file_type().is_symlink(),
            "d is not a symlink again: {}",
            undone.output()
        );
        assert_eq!(
            std::fs::read_link(ws.join("d")).unwrap(),
            std::path::Path::new("e")
        );
        assert_eq!(ws.read("e/f.txt"), b"linked\n");
        assert!(!ws.exists("e/sub"));
    }
}

/// Git keeps only the executable bit; the walk before the command keeps the rest, so files a
/// command deletes come back with their exact bits, and a modified file with the bits it had.
#[test]
fn deleted_and_modified_files_come_back_with_their_exact_modes() {
    let ws = Ws::new();
    let set = |rel: &str, mode: u32| {
        std::fs::set_permissions(ws.join(rel), std::fs::Permissions::from_mode(mode)).expect("chmod")
    };
    ws.write("secret.txt", "key\n");
    set("secret.txt", 0o600);
    ws.write("shared.log", "log\n");
    set("shared.log", 0o640);
    ws.write("tool.sh", "#!/bin/sh\n");
    set("tool.sh", 0o750);
    ws.write("plain.txt", "plain\n");
    set("plain.txt", 0o644);
    ws.write("locked.txt", "locked\n");
    set("locked.txt", 0o400);
    shell(&ws, "rm secret.txt shared.log tool.sh && echo more >> plain.txt && chmod 600 plain.txt && chmod 600 locked.txt && echo x > locked.txt");
    assert!(!ws.exists("secret.txt"));
    assert_eq!(ws.mode("plain.txt"), 0o600);
    ws.run(&["undo"]).ok();
    assert_eq!(ws.read("secret.txt"), b"key\n");
    assert_eq!(ws.mode("secret.txt"), 0o600);
    assert_eq!(ws.read("shared.log"), b"log\n");
    assert_eq!(ws.mode("shared.log"), 0o640);
    assert_eq!(ws.read("tool.sh"), b"#!/bin/sh\n");
    assert_eq!(ws.mode("tool.sh"), 0o750);
    assert_eq!(ws.read("plain.txt"), b"plain\n");
    assert_eq!(ws.mode("plain.txt"), 0o644);
    assert_eq!(ws.read("locked.txt"), b"locked\n");
    assert_eq!(ws.mode("locked.txt"), 0o400);
}

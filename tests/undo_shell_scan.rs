//! What an exec_shell checkpoint holds when the snapshots find the changes themselves: a
//! change made between commands is nobody's, changes in new, moved and ignored directories,
//! modes and a rewritten `.gitignore` are seen, and a touched file is no change.

use std::os::unix::fs::PermissionsExt;

use serde_json::json;

use crate::harness::{Outcome, Ws};
use crate::undo_shell::git;

fn shell(ws: &Ws, command: &str) -> Outcome {
    ws.call("exec_shell", json!({"command": command})).ok()
}

/// The paths of the newest checkpoint, with how each changed, sorted.
fn newest_paths(ws: &Ws) -> Vec<String> {
    let history = ws.run(&["history", "--limit", "1"]).ok();
    let mut paths: Vec<String> = history.data()["checkpoints"][0]["paths"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|p| {
            format!(
                "{} {}",
                p["change"].as_str().unwrap_or(""),
                p["path"].as_str().unwrap_or("")
            )
        })
        .collect();
    paths.sort();
    paths
}

fn count(ws: &Ws) -> usize {
    ws.run(&["history"]).ok().data()["total"].as_u64().unwrap_or(0) as usize
}

#[test]
fn a_change_made_between_commands_is_not_taken_for_the_next_commands() {
    let ws = Ws::new();
    ws.write("a.txt", "first\n");
    shell(&ws, "echo b > b.txt");
    // Someone else, between two commands: rewrites a.txt, adds other.txt, removes b.txt.
    ws.write("a.txt", "someone\n");
    ws.write("other.txt", "theirs\n");
    std::fs::remove_file(ws.join("b.txt")).expect("rm");
    shell(&ws, "echo cmd >> a.txt && echo c > c.txt");
    assert_eq!(newest_paths(&ws), ["created c.txt", "modified a.txt"]);
    ws.run(&["undo"]).ok();
    assert_eq!(
        ws.read("a.txt"),
        b"someone\n",
        "the other person's content is what comes back"
    );
    assert_eq!(ws.read("other.txt"), b"theirs\n");
    assert!(!ws.exists("c.txt"));
    assert!(!ws.exists("b.txt"));
}

#[test]
fn changes_in_new_moved_and_ignored_directories_are_seen() {
    let ws = Ws::new();
    git(&ws, &["init", "-q"]);
    ws.write(".gitignore", "build/\n");
    ws.write("dir1/a.txt", "a\n");
    ws.write("dir1/sub/b.txt", "b\n");
    ws.write("build/keep.txt", "tracked though ignored\n");
    ws.write("run.sh", "#!/bin/sh\n");
    std::fs::set_permissions(ws.join("run.sh"), std::fs::Permissions::from_mode(0o644)).expect("chmod");
    git(&ws, &["add", "."]);
    git(&ws, &["add", "-f", "build/keep.txt"]);
    git(&ws, &["commit", "-qm", "seed"]);
    shell(
        &ws,
        "mkdir -p new/deep && echo x > new/deep/f.txt && mv dir1 dir2 && echo o > build/out.o \
         && echo more >> build/keep.txt && chmod +x run.sh",
    );
    assert_eq!(
        newest_paths(&ws),
        [
            "created dir2/a.txt",
            "created dir2/sub/b.txt",
            "created new/deep/f.txt",
            "deleted dir1/a.txt",
            "deleted dir1/sub/b.txt",
            "modified build/keep.txt",
            "modified run.sh",
        ]
    );
    ws.run(&["undo"]).ok();
    assert_eq!(ws.read("dir1/sub/b.txt"), b"b\n");
    assert!(!ws.exists("dir2/a.txt"));
    assert!(!ws.exists("new/deep/f.txt"));
    assert_eq!(ws.read("build/keep.txt"), b"tracked though ignored\n");
    assert_eq!(ws.mode("run.sh") & 0o111, 0);
    assert!(
        ws.exists("build/out.o"),
        "ignored files are not recorded, so not undone"
    );
}

#[test]
fn a_gitignore_rewritten_by_the_command_is_read_again() {
    let ws = Ws::new();
    ws.write(".gitignore", "*.o\n");
    ws.write("keep.txt", "k\n");
    shell(
        &ws,
        "echo '*.log' >> .gitignore && echo l > x.log && echo y > y.txt && echo o > z.o",
    );
    assert_eq!(newest_paths(&ws), ["created y.txt", "modified .gitignore"]);
}

#[test]
fn a_touched_file_is_no_change_and_a_later_change_to_it_is_recorded_exactly() {
    let ws = Ws::new();
    ws.write("t.txt", "same\n");
    shell(&ws, "true");
    shell(&ws, "touch t.txt");
    shell(&ws, "touch -d '2001-01-01' t.txt");
    assert_eq!(count(&ws), 0);
    shell(&ws, "echo new > t.txt");
    assert_eq!(newest_paths(&ws), ["modified t.txt"]);
    ws.run(&["undo"]).ok();
    assert_eq!(ws.read("t.txt"), b"same\n");
}

#[test]
fn a_same_size_rewrite_within_one_clock_tick_is_seen() {
    let ws = Ws::new();
    ws.write("s.txt", "aaaa\n");
    shell(&ws, "true");
    // Rewritten with the same size and the old mtime: only the ctime and content differ.
    shell(
        &ws,
        "touch -r s.txt stamp && echo bbbb > s.txt && touch -r stamp s.txt && rm stamp",
    );
    assert_eq!(newest_paths(&ws), ["modified s.txt"]);
    ws.run(&["undo"]).ok();
    assert_eq!(ws.read("s.txt"), b"aaaa\n");
}

#[test]
fn a_directory_replaced_by_a_symlink_is_not_read_through_it() {
    let ws = Ws::new();
    git(&ws, &["init", "-q"]);
    ws.write(".gitignore", "build\n");
    ws.write("build/keep.txt", "same\n");
    ws.write("other/keep.txt", "same\n");
    git(&ws, &["add", "."]);
    git(&ws, &["add", "-f", "build/keep.txt"]);
    git(&ws, &["commit", "-qm", "seed"]);
    shell(&ws, "true");
    // The link is ignored, so only build/keep.txt tells of the change; read through the link,
    // it would look unchanged (other/keep.txt has its content).
    shell(&ws, "rm -r build && ln -s other build");
    assert_eq!(newest_paths(&ws), ["deleted build/keep.txt"]);
}

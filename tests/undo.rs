//! Checkpoints of the file tools, `history` and `undo`: exact restores, never clobbering,
//! `--to`, undo of an undo, retention, and a kill in the middle of an undo.

use std::os::unix::fs::PermissionsExt;

use serde_json::json;

use crate::harness::{symlink, Outcome, Ws};

fn set_mode(ws: &Ws, rel: &str, mode: u32) {
    std::fs::set_permissions(ws.join(rel), std::fs::Permissions::from_mode(mode)).expect("chmod");
}

fn history(ws: &Ws) -> Outcome {
    ws.run(&["history"]).ok()
}

fn ids(ws: &Ws) -> Vec<u64> {
    history(ws).data()["checkpoints"]
        .as_array()
        .expect("checkpoints")
        .iter()
        .map(|c| c["id"].as_u64().expect("id"))
        .collect()
}

fn edit(ws: &Ws, path: &str, search: &str, replace: &str) -> Outcome {
    ws.call(
        "edit_file",
        json!({"path": path, "search": search, "replace": replace}),
    )
}

#[test]
fn undo_of_an_edit_restores_crlf_bom_bytes_and_mode() {
    let ws = Ws::new();
    let original = b"\xEF\xBB\xBFone\r\ntwo\r\nthree\r\n".to_vec();
    ws.write("a.txt", &original);
    set_mode(&ws, "a.txt", 0o640);
    ws.read_via_tool("a.txt");
    edit(&ws, "a.txt", "two", "TWO").ok();
    assert_eq!(ws.read("a.txt"), b"\xEF\xBB\xBFone\r\nTWO\r\nthree\r\n");
    let out = ws.run(&["undo"]).ok().contains("`a.txt`: restored");
    assert_eq!(out.data()["undone"], json!([1]));
    assert_eq!(ws.read("a.txt"), original);
    assert_eq!(ws.mode("a.txt"), 0o640);
    // The restore refreshed the session's record: the next edit needs no read.
    edit(&ws, "a.txt", "one", "ONE").ok();
}

#[test]
fn undo_of_an_edit_restores_a_legacy_encoding() {
    let ws = Ws::new();
    let (bytes, _, _) = encoding_rs::SHIFT_JIS.encode("日本語のテキストです。\n二行目です。\n");
    ws.write("sj.txt", &bytes);
    ws.read_via_tool("sj.txt");
    edit(&ws, "sj.txt", "二行目", "三行目").ok();
    assert_ne!(ws.read("sj.txt"), bytes.as_ref());
    ws.run(&["undo"]).ok();
    assert_eq!(ws.read("sj.txt"), bytes.as_ref());
}

#[test]
fn undo_of_write_file_removes_a_created_file_and_restores_a_replaced_one() {
    let ws = Ws::new();
    ws.call(
        "write_file",
        json!({"path": "new/dir/n.txt", "content": "fresh\n"}),
    )
    .ok();
    ws.write("old.txt", "old\n");
    set_mode(&ws, "old.txt", 0o755);
    ws.read_via_tool("old.txt");
    ws.call("write_file", json!({"path": "old.txt", "content": "replaced\n"}))
        .ok();
    ws.run(&["undo"]).ok().contains("`old.txt`: restored");
    assert_eq!(ws.read("old.txt"), b"old\n");
    assert_eq!(ws.mode("old.txt"), 0o755);
    let first = ids(&ws).last().copied().expect("an id").to_string();
    ws.run(&["undo", &first])
        .ok()
        .contains("`new/dir/n.txt`: removed");
    assert!(!ws.exists("new/dir/n.txt"));
}

#[test]
fn undo_of_a_patch_restores_every_file_and_brings_a_deleted_one_back() {
    let ws = Ws::new();
    ws.write("keep.txt", "a\nb\n");
    ws.write("gone.sh", "#!/bin/sh\necho hi\n");
    set_mode(&ws, "gone.sh", 0o750);
    ws.read_via_tool("keep.txt");
    ws.read_via_tool("gone.sh");
    let patch = "*** Begin Patch\n*** Update File: keep.txt\n@@\n a\n-b\n+B\n*** Delete File: gone.sh\n*** Add File: added.txt\n+new\n*** End Patch\n";
    ws.call("apply_patch", json!({"patch": patch})).ok();
    assert!(!ws.exists("gone.sh"));
    let listed = history(&ws);
    let paths = &listed.data()["checkpoints"][0]["paths"];
    assert_eq!(paths.as_array().map(Vec::len), Some(3), "{paths}");
    ws.run(&["undo"]).ok();
    assert_eq!(ws.read("keep.txt"), b"a\nb\n");
    assert_eq!(ws.read("gone.sh"), b"#!/bin/sh\necho hi\n");
    assert_eq!(ws.mode("gone.sh"), 0o750);
    assert!(!ws.exists("added.txt"));
}

#[test]
fn a_deleted_symlink_comes_back_as_a_symlink() {
    let ws = Ws::new();
    ws.write("target.txt", "t\n");
    symlink("target.txt", ws.join("link.txt"));
    let patch = "*** Begin Patch\n*** Delete File: link.txt\n*** End Patch\n";
    ws.call("apply_patch", json!({"patch": patch})).ok();
    assert!(!ws.exists("link.txt"));
    ws.run(&["undo"]).ok();
    let meta = std::fs::symlink_metadata(ws.join("link.txt")).expect("link");
    assert!(meta.file_type().is_symlink());
    assert_eq!(
        std::fs::read_link(ws.join("link.txt")).expect("readlink"),
        std::path::PathBuf::from("target.txt")
    );
    assert_eq!(ws.read("target.txt"), b"t\n");
}

#[test]
fn a_path_changed_since_is_refused_and_left_alone_until_forced() {
    let ws = Ws::new();
    ws.write("a.txt", "one\n");
    ws.read_via_tool("a.txt");
    edit(&ws, "a.txt", "one", "two").ok();
    ws.write("a.txt", "someone else\n");
    let out = ws.run(&["undo"]).err("stale");
    assert!(
        out.message().contains("`a.txt`: its content changed since"),
        "{}",
        out.message()
    );
    assert!(
        out.message().contains("call undo with id=\"1\" force=true"),
        "{}",
        out.message()
    );
    assert_eq!(out.error()["conflicts"][0]["path"], "a.txt");
    assert_eq!(ws.read("a.txt"), b"someone else\n");
    ws.run(&["undo", "1", "--force"]).ok().contains("overwritten");
    assert_eq!(ws.read("a.txt"), b"one\n");
    // The forced undo recorded what it overwrote: undoing it brings that back.
    ws.run(&["undo"]).ok();
    assert_eq!(ws.read("a.txt"), b"someone else\n");
}

#[test]
fn a_changed_mode_is_refused_too() {
    let ws = Ws::new();
    ws.write("a.txt", "one\n");
    ws.read_via_tool("a.txt");
    edit(&ws, "a.txt", "one", "two").ok();
    set_mode(&ws, "a.txt", 0o600);
    let out = ws.run(&["undo"]).err("stale");
    assert!(out.message().contains("permissions changed"), "{}", out.message());
    assert_eq!(ws.read("a.txt"), b"two\n");
}

#[test]
fn to_rewinds_several_checkpoints_all_or_nothing() {
    let ws = Ws::new();
    ws.write("a.txt", "1\n");
    ws.write("b.txt", "x\n");
    ws.read_via_tool("a.txt");
    ws.read_via_tool("b.txt");
    edit(&ws, "a.txt", "1", "2").ok();
    edit(&ws, "b.txt", "x", "y").ok();
    edit(&ws, "a.txt", "2", "3").ok();
    ws.call("write_file", json!({"path": "c.txt", "content": "c\n"}))
        .ok();
    // Someone changes b.txt: the whole rewind is refused, nothing moves.
    ws.write("b.txt", "mine\n");
    let out = ws.run(&["undo", "--to", "1"]).err("stale");
    assert!(out.message().contains("`b.txt`"), "{}", out.message());
    assert_eq!(ws.read("a.txt"), b"3\n");
    assert!(ws.exists("c.txt"));
    ws.write("b.txt", "y\n");
    let out = ws.run(&["undo", "--to", "2"]).ok();
    assert_eq!(out.data()["undone"], json!([4, 3, 2]));
    assert_eq!(ws.read("a.txt"), b"2\n");
    assert_eq!(ws.read("b.txt"), b"x\n");
    assert!(!ws.exists("c.txt"));
    ws.run(&["undo", "--to", "1"]).ok();
    assert_eq!(ws.read("a.txt"), b"1\n");
}

#[test]
fn a_large_patched_file_comes_back_byte_for_byte_through_undo_and_redo() {
    // Over 2 MiB (read into huge pages), patched as a splice written in thousands of parts;
    // its "before" and "after" hashed once each for the checkpoint and the fingerprint.
    let ws = Ws::new();
    let original: String = (1..=120_000)
        .map(|i| format!("line {i:06}: some text\n"))
        .collect();
    assert!(original.len() > 2 * 1024 * 1024);
    ws.write("big.txt", &original);
    ws.read_via_tool("big.txt");
    let mut patch = String::from("--- a/big.txt\n+++ b/big.txt\n");
    let mut patched = original.clone();
    for n in [2, 60_000, 119_999] {
        let line = |i: usize| format!("line {i:06}: some text");
        patch.push_str(&format!(
            "@@ -{} +{} @@\n {}\n-{}\n+{} (changed)\n {}\n",
            format_args!("{},3", n - 1),
            format_args!("{},3", n - 1),
            line(n - 1),
            line(n),
            line(n),
            line(n + 1)
        ));
        patched = patched.replace(&format!("{}\n", line(n)), &format!("{} (changed)\n", line(n)));
    }
    ws.call("apply_patch", json!({"patch": patch})).ok();
    assert!(ws.read("big.txt") == patched.as_bytes(), "the patch applied");
    // The fingerprint written with the patch is the file's: the next edit needs no read.
    edit(&ws, "big.txt", "line 000010: some text", "line 000010: edited").ok();
    let edited = patched.replace("line 000010: some text", "line 000010: edited");
    assert!(ws.read("big.txt") == edited.as_bytes(), "the edit applied");
    ws.run(&["undo"]).ok();
    assert!(ws.read("big.txt") == patched.as_bytes(), "the edit undone");
    ws.run(&["undo", "1"]).ok();
    assert!(ws.read("big.txt") == original.as_bytes(), "the patch undone");
    let out = ws.run(&["undo"]).ok();
    assert_eq!(out.data()["undone"], json!([4]));
    assert!(ws.read("big.txt") == patched.as_bytes(), "the patch redone");
}

#[test]
fn undo_of_an_undo_redoes_the_change() {
    let ws = Ws::new();
    ws.write("a.txt", "one\n");
    ws.read_via_tool("a.txt");
    edit(&ws, "a.txt", "one", "two").ok();
    ws.run(&["undo"]).ok();
    assert_eq!(ws.read("a.txt"), b"one\n");
    let out = ws.run(&["undo"]).ok();
    assert_eq!(out.data()["undone"], json!([2]));
    assert_eq!(ws.read("a.txt"), b"two\n");
    let listed = history(&ws);
    let first = &listed.data()["checkpoints"][0];
    assert_eq!(first["tool"], "undo");
    assert_eq!(first["undoes"], json!([2]));
    ws.run(&["undo", "1"]).ok();
    assert_eq!(ws.read("a.txt"), b"one\n");
    let out = ws.run(&["undo", "1"]).err("not_found");
    assert!(
        out.message().contains("already as it was before"),
        "{}",
        out.message()
    );
}

#[test]
fn history_lists_the_session_newest_first() {
    let mut ws = Ws::new();
    ws.call("write_file", json!({"path": "a.txt", "content": "a\n"}))
        .ok();
    ws.call("write_file", json!({"path": "b.txt", "content": "b\n"}))
        .ok();
    let out = history(&ws);
    assert!(
        out.output()
            .contains("2  write_file  write_file b.txt\n    created b.txt\n1  write_file"),
        "{}",
        out.output()
    );
    assert_eq!(ids(&ws), vec![2, 1]);
    let out = ws.run(&["history", "--limit", "1"]).ok();
    assert!(
        out.output().contains("1 older checkpoints not shown"),
        "{}",
        out.output()
    );
    ws.session = Some("other".into());
    assert!(ids(&ws).is_empty());
    let out = ws.run(&["undo"]).err("not_found");
    assert!(out.message().contains("Call history"), "{}", out.message());
    assert!(ws.exists("b.txt"));
}

#[test]
fn calls_that_change_nothing_record_nothing() {
    let ws = Ws::new();
    ws.write("a.txt", "one\n");
    ws.read_via_tool("a.txt");
    ws.call("write_file", json!({"path": "a.txt", "content": "one\n"}))
        .ok();
    ws.call(
        "edit_file",
        json!({"path": "a.txt", "search": "one", "replace": "two", "dry_run": true}),
    )
    .ok();
    edit(&ws, "a.txt", "nothing here", "x").err("no_match");
    assert!(ids(&ws).is_empty());
    assert!(!ws.exists(".codesmith/history"));
}

#[test]
fn bad_ids_are_refused_with_the_way_out() {
    let ws = Ws::new();
    ws.call("write_file", json!({"path": "a.txt", "content": "a\n"}))
        .ok();
    let out = ws.run(&["undo", "abc"]).err("invalid_arguments");
    assert!(out.message().contains("Call history"), "{}", out.message());
    let out = ws.run(&["undo", "99"]).err("not_found");
    assert!(out.message().contains("no checkpoint 99"), "{}", out.message());
    ws.run(&["undo", "1", "--to", "1"]).err("invalid_arguments");
    ws.run(&["undo", "--to", "7"]).err("not_found");
    assert!(ws.exists("a.txt"));
}

#[test]
fn the_undo_tool_works_through_call() {
    let ws = Ws::new();
    ws.call("write_file", json!({"path": "a.txt", "content": "a\n"}))
        .ok();
    let out = ws
        .run_stdin(&["call"], r#"{"name": "undo", "arguments": {}}"#)
        .ok();
    assert_eq!(out.data()["undone"], json!([1]));
    assert!(!ws.exists("a.txt"));
}

#[test]
fn retention_prunes_the_oldest_checkpoints() {
    let ws = Ws::new();
    ws.write(".codesmith/config.toml", "[history]\nmax_checkpoints = 3\n");
    for i in 0..8 {
        ws.call(
            "write_file",
            json!({"path": format!("f{i}.txt"), "content": format!("{i}\n")}),
        )
        .ok();
    }
    let kept = ids(&ws);
    assert!(kept.len() <= 3, "{kept:?}");
    assert_eq!(kept[0], 8);
    // One generation is left, holding the kept checkpoints only (these writes create files:
    // nothing before them to store, and an "after" is kept as its hash; an index entry is 64
    // bytes).
    let names = history_files(&ws);
    let index: Vec<&String> = names.iter().filter(|n| n.starts_with("index-")).collect();
    let packs = names.iter().filter(|n| n.starts_with("pack-")).count();
    assert_eq!((index.len(), packs), (1, 1), "{names:?}");
    let index_len = std::fs::metadata(ws.join(".codesmith/history").join(index[0]))
        .expect("index")
        .len();
    assert_eq!(index_len, 64 * kept.len() as u64);
    let out = ws.run(&["undo", "1"]).err("not_found");
    assert!(out.message().contains("pruned"), "{}", out.message());
}

#[test]
fn retention_by_bytes() {
    let ws = Ws::new();
    ws.write(".codesmith/config.toml", "[history]\nmax_bytes = 20000\n");
    // Each write replaces the file: five "before" contents of 6,000 bytes are stored.
    for i in 0..6 {
        let content = format!("{i}{}\n", "x".repeat(6000));
        ws.call("write_file", json!({"path": "f.txt", "content": content}))
            .ok();
    }
    let kept = ids(&ws);
    assert!(kept.len() < 6 && !kept.is_empty(), "{kept:?}");
}

fn history_files(ws: &Ws) -> Vec<String> {
    let dir = std::fs::read_dir(ws.join(".codesmith/history")).expect("history");
    dir.map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect()
}

#[test]
fn sigkill_during_undo_leaves_each_file_old_or_new() {
    let ws = Ws::new();
    let count = 150;
    let old = |i: usize| format!("old {i}\n{}", "o".repeat(100_000));
    let new = |i: usize| format!("new {i}\n{}", "n".repeat(100_000));
    for i in 0..count {
        ws.write(&format!("f{i}.txt"), old(i));
        ws.read_via_tool(&format!("f{i}.txt"));
        ws.call(
            "write_file",
            json!({"path": format!("f{i}.txt"), "content": new(i)}),
        )
        .ok();
    }
    // Each round rewinds everything again, the killed undos included: a path a killed undo
    // left in either state is still codesmith's, not someone else's.
    for kill_after_ms in [5u64, 30, 80] {
        let mut child = ws
            .command(&["undo", "--to", "1"])
            .stdout(std::process::Stdio::null())
            .spawn()
            .expect("spawn");
        std::thread::sleep(std::time::Duration::from_millis(kill_after_ms));
        let _ = child.kill();
        let _ = child.wait();
        for i in 0..count {
            let bytes = ws.read(&format!("f{i}.txt"));
            assert!(
                bytes == old(i).as_bytes() || bytes == new(i).as_bytes(),
                "f{i}.txt is neither old nor new after a kill at {kill_after_ms} ms"
            );
        }
    }
    ws.run(&["undo", "--to", "1"]).ok();
    for i in 0..count {
        assert_eq!(ws.read(&format!("f{i}.txt")), old(i).as_bytes());
    }
}

#[test]
fn a_history_that_cannot_be_written_does_not_stop_an_edit() {
    let ws = Ws::new();
    ws.write(".codesmith/history", "a file where the directory goes\n");
    let out = ws
        .call("write_file", json!({"path": "a.txt", "content": "a\n"}))
        .ok();
    assert!(
        out.notices()
            .iter()
            .any(|n| n.contains("not recorded as a checkpoint, so undo cannot take it back")),
        "{:?}",
        out.notices()
    );
    assert_eq!(ws.read("a.txt"), b"a\n");
}

#[test]
fn a_checkpoint_naming_a_path_outside_is_refused() {
    let ws = Ws::new();
    ws.call("write_file", json!({"path": "a.txt", "content": "a\n"}))
        .ok();
    // The record is edited in place in the pack (same length: the index says where it ends).
    let pack = ws.join(".codesmith/history/pack-0");
    let bytes = std::fs::read(&pack).expect("pack");
    let text = String::from_utf8_lossy(&bytes).replace("\"path\":\"a.txt\"", "\"path\":\"../a\" ");
    assert_eq!(text.len(), bytes.len());
    std::fs::write(&pack, text).expect("write");
    let out = ws.run(&["undo"]).err("outside_workspace");
    assert!(
        out.message().starts_with("path escapes workspace"),
        "{}",
        out.message()
    );
    assert!(ws.exists("a.txt"));
}

#[test]
fn undo_of_an_older_checkpoint_names_the_later_one_that_changed_the_path() {
    let ws = Ws::new();
    ws.write("a.txt", "1\n");
    ws.read_via_tool("a.txt");
    edit(&ws, "a.txt", "1", "2").ok();
    edit(&ws, "a.txt", "2", "3").ok();
    let out = ws.run(&["undo", "1"]).err("stale");
    assert!(out.message().contains("by checkpoint 2"), "{}", out.message());
    assert!(
        out.message().contains("call undo with to=\"1\" (it rewinds"),
        "{}",
        out.message()
    );
    assert_eq!(out.error()["conflicts"][0]["changed_by"]["id"], 2);
    assert_eq!(ws.read("a.txt"), b"3\n");
}

#[test]
fn undo_of_a_rename_puts_the_file_back_under_its_old_name() {
    let ws = Ws::new();
    ws.write("old/name.txt", "content\n");
    set_mode(&ws, "old/name.txt", 0o600);
    ws.read_via_tool("old/name.txt");
    let patch = "*** Begin Patch\n*** Update File: old/name.txt\n*** Move to: new/name.txt\n@@\n-content\n+changed\n*** End Patch\n";
    ws.call("apply_patch", json!({"patch": patch})).ok();
    assert!(!ws.exists("old/name.txt"));
    ws.run(&["undo"]).ok();
    assert_eq!(ws.read("old/name.txt"), b"content\n");
    assert_eq!(ws.mode("old/name.txt"), 0o600);
    assert!(!ws.exists("new/name.txt"));
}

//! How checkpoints are stored: one pack and its index, appended to in place. Recording a call
//! creates no file, a content is stored once, a record whose change failed is withdrawn, a
//! writer killed midway costs nothing but its own record, a lost `state` is rebuilt, and
//! pruning gives the bytes back (by punching holes, or by copying where it cannot).

use std::io::Write;

use serde_json::json;

use crate::harness::{Outcome, Ws};

const ENTRY: u64 = 64;

fn history_files(ws: &Ws) -> Vec<String> {
    let dir = std::fs::read_dir(ws.join(".codesmith/history")).expect("history");
    let mut names: Vec<String> = dir
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn len(ws: &Ws, name: &str) -> u64 {
    std::fs::metadata(ws.join(".codesmith/history").join(name))
        .expect(name)
        .len()
}

fn ids(ws: &Ws) -> Vec<u64> {
    ws.run(&["history"]).ok().data()["checkpoints"]
        .as_array()
        .expect("checkpoints")
        .iter()
        .map(|c| c["id"].as_u64().expect("id"))
        .collect()
}

fn edit(ws: &Ws, search: &str, replace: &str) -> Outcome {
    ws.call(
        "edit_file",
        json!({"path": "a.txt", "search": search, "replace": replace}),
    )
}

fn ws_with_a() -> Ws {
    let ws = Ws::new();
    ws.write("a.txt", "one\n");
    ws.read_via_tool("a.txt");
    ws
}

#[test]
fn recording_creates_no_file_after_the_first() {
    let ws = ws_with_a();
    edit(&ws, "one", "two").ok();
    let first = history_files(&ws);
    assert_eq!(first, ["index-0", "pack-0", "state"]);
    for (from, to) in [("two", "three"), ("three", "four"), ("four", "five")] {
        edit(&ws, from, to).ok();
    }
    ws.call("write_file", json!({"path": "b.txt", "content": "b\n"}))
        .ok();
    assert_eq!(history_files(&ws), first);
    assert_eq!(ids(&ws), [5, 4, 3, 2, 1]);
}

#[test]
fn a_content_is_stored_once_however_many_checkpoints_use_it() {
    let ws = ws_with_a();
    edit(&ws, "one", "two").ok();
    edit(&ws, "two", "one").ok();
    edit(&ws, "one", "two").ok();
    // "one\n" is the "before" of the first and the third edit: two blobs and three records,
    // and the pack holds each blob's bytes once. An "after" is recorded by its hash only.
    assert_eq!(len(&ws, "index-0"), 5 * ENTRY);
    let pack = std::fs::read(ws.join(".codesmith/history/pack-0")).expect("pack");
    let text = String::from_utf8_lossy(&pack);
    assert_eq!(text.matches("one\n").count(), 1, "{text}");
    assert_eq!(text.matches("two\n").count(), 1, "{text}");
    assert!(text.starts_with("one\n{"), "{text}");
    ws.run(&["undo", "--to", "1"]).ok();
    assert_eq!(ws.read("a.txt"), b"one\n");
}

#[test]
fn a_change_that_fails_withdraws_its_checkpoint() {
    let ws = ws_with_a();
    let mut cmd = ws.command(&[
        "edit_file",
        "--json",
        &json!({"path": "a.txt", "search": "one", "replace": "two"}).to_string(),
    ]);
    cmd.env("CODESMITH_FAULT", "rename");
    Outcome::of(cmd).err("io_error");
    assert_eq!(ws.read("a.txt"), b"one\n");
    assert!(ids(&ws).is_empty());
    let out = ws.run(&["undo"]).err("not_found");
    assert!(out.message().contains("history"), "{}", out.message());
    // The next checkpoint takes a fresh id: the withdrawn one is never reused.
    edit(&ws, "one", "two").ok();
    assert_eq!(ids(&ws), [2]);
}

#[test]
fn a_writer_killed_before_its_change_leaves_a_record_undo_finds_already_undone() {
    let ws = ws_with_a();
    let mut writer = ws.spawn_stalled(
        &[
            "edit_file",
            "--json",
            &json!({"path": "a.txt", "search": "one", "replace": "two"}).to_string(),
        ],
        "a.txt",
    );
    // SAFETY: a plain kill(2) of the child this test spawned.
    assert_eq!(
        unsafe { libc::kill(writer.id() as libc::pid_t, libc::SIGKILL) },
        0
    );
    writer.wait().expect("reap the writer");
    // Recorded before the change, which never happened: the path holds its "before".
    assert_eq!(ids(&ws), [1]);
    assert_eq!(ws.read("a.txt"), b"one\n");
    let out = ws.run(&["undo"]).err("not_found");
    assert!(
        out.message().contains("checkpoint 1 is already as it was before"),
        "{}",
        out.message()
    );
    assert_eq!(ws.read("a.txt"), b"one\n");
}

#[test]
fn bytes_left_by_a_writer_killed_midway_are_skipped() {
    let ws = ws_with_a();
    edit(&ws, "one", "two").ok();
    // A writer killed while appending: stray bytes in the pack, half an entry in the index.
    let dir = ws.join(".codesmith/history");
    let append = |name: &str, bytes: &[u8]| {
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(dir.join(name))
            .expect(name);
        file.write_all(bytes).expect("append");
    };
    append("pack-0", b"{\"id\":7,\"session\":\"def");
    append("index-0", &[2u8; 40]);
    edit(&ws, "two", "three").ok();
    assert_eq!(ids(&ws), [2, 1]);
    // Two "before" blobs and two records; the stray entry is gone.
    assert_eq!(len(&ws, "index-0"), 4 * ENTRY);
    ws.run(&["undo", "--to", "1"]).ok();
    assert_eq!(ws.read("a.txt"), b"one\n");
}

#[test]
fn a_lost_state_file_is_rebuilt_past_the_newest_id() {
    let ws = ws_with_a();
    edit(&ws, "one", "two").ok();
    edit(&ws, "two", "three").ok();
    std::fs::remove_file(ws.join(".codesmith/history/state")).expect("rm state");
    edit(&ws, "three", "four").ok();
    assert_eq!(ids(&ws), [3, 2, 1]);
    std::fs::write(ws.join(".codesmith/history/state"), "not json").expect("garble state");
    edit(&ws, "four", "five").ok();
    assert_eq!(ids(&ws), [4, 3, 2, 1]);
    ws.run(&["undo", "--to", "1"]).ok();
    assert_eq!(ws.read("a.txt"), b"one\n");
}

#[test]
fn a_blob_damaged_in_the_pack_is_refused_by_undo() {
    let ws = ws_with_a();
    edit(&ws, "one", "two").ok();
    let pack = ws.join(".codesmith/history/pack-0");
    let mut bytes = std::fs::read(&pack).expect("pack");
    assert!(bytes.starts_with(b"one\n"));
    bytes[0] = b'O';
    std::fs::write(&pack, bytes).expect("damage");
    let out = ws.run(&["undo"]).err("io_error");
    assert!(out.message().contains("a.txt"), "{}", out.message());
    assert_eq!(ws.read("a.txt"), b"two\n");
}

#[test]
fn pruning_keeps_the_blobs_kept_checkpoints_share_with_pruned_ones() {
    let ws = ws_with_a();
    ws.write(".codesmith/config.toml", "[history]\nmax_checkpoints = 3\n");
    let words = ["one", "two", "three", "four", "five", "six", "seven"];
    for pair in words.windows(2) {
        edit(&ws, pair[0], pair[1]).ok();
    }
    assert_eq!(ids(&ws), [6, 5, 4]);
    // Pruned in place: the index names only what the kept checkpoints need.
    assert_eq!(history_files(&ws), ["index-0", "pack-0", "state"]);
    // Three records, and their "before" blobs "four" to "six".
    assert_eq!(len(&ws, "index-0"), 6 * ENTRY);
    ws.run(&["undo", "--to", "4"]).ok();
    assert_eq!(ws.read("a.txt"), b"four\n");
}

#[test]
fn pruning_gives_the_bytes_of_pruned_checkpoints_back() {
    use std::os::unix::fs::MetadataExt;
    let ws = Ws::new();
    ws.write(".codesmith/config.toml", "[history]\nmax_checkpoints = 3\n");
    let size = 100_000;
    let content = |i: u8| char::from(b'a' + i).to_string().repeat(size);
    // Each write replaces the one before: its "before" is stored, eleven blobs in all.
    for i in 0..12u8 {
        ws.call("write_file", json!({"path": "f.txt", "content": content(i)}))
            .ok();
    }
    assert_eq!(ids(&ws), [12, 11, 10]);
    let meta = std::fs::metadata(ws.join(".codesmith/history/pack-0")).expect("pack");
    // Eleven blobs were written; the disk holds little more than the three kept.
    assert!(meta.len() >= 11 * size as u64, "{}", meta.len());
    assert!(meta.blocks() * 512 < 5 * size as u64, "{} blocks", meta.blocks());
    ws.run(&["undo", "--to", "10"]).ok();
    assert_eq!(ws.read("f.txt"), content(8).as_bytes());
}

#[test]
fn without_hole_punching_pruning_copies_into_the_next_generation() {
    let ws = ws_with_a();
    ws.write(".codesmith/config.toml", "[history]\nmax_checkpoints = 3\n");
    let words = ["one", "two", "three", "four", "five", "six", "seven"];
    for pair in words.windows(2) {
        let mut cmd = ws.command(&[
            "edit_file",
            "--json",
            &json!({"path": "a.txt", "search": pair[0], "replace": pair[1]}).to_string(),
        ]);
        cmd.env("CODESMITH_FAULT", "punch");
        Outcome::of(cmd).ok();
    }
    assert_eq!(ids(&ws), [6, 5, 4]);
    let names = history_files(&ws);
    assert_eq!(names.len(), 3, "{names:?}");
    assert!(
        names[0].starts_with("index-") && names[0] != "index-0",
        "{names:?}"
    );
    let generation = names[0].trim_start_matches("index-");
    assert_eq!(names[1], format!("pack-{generation}"));
    assert_eq!(len(&ws, &names[0]), 6 * ENTRY);
    ws.run(&["undo", "--to", "4"]).ok();
    assert_eq!(ws.read("a.txt"), b"four\n");
}

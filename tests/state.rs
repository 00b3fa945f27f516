//! Session state under `.codesmith/`: sessions, fingerprints, concurrency.

use serde_json::json;

use crate::harness::Ws;

#[test]
fn a_read_records_a_fingerprint_with_mtime_length_and_hash() {
    let ws = Ws::new();
    ws.write("src/a.txt", "hello\n");
    ws.run(&["read", "src/a.txt"]).ok();
    let records = ws.fingerprints(None);
    assert_eq!(records.len(), 1);
    let record = &records[0];
    assert_eq!(record["path"], "src/a.txt");
    assert_eq!(record["len"], 6);
    assert!(record["mtime_ns"].as_u64().unwrap() > 1_000_000_000_000_000_000);
    assert_eq!(record["hash"].as_str().unwrap().len(), 16);
    // .codesmith/ keeps itself out of version control.
    assert_eq!(ws.read_string(".codesmith/.gitignore"), "*\n");
}

#[test]
fn a_same_size_rewrite_changes_the_recorded_hash() {
    let ws = Ws::new();
    ws.write("a.txt", "aaaa\n");
    ws.run(&["read", "a.txt"]).ok();
    let before = ws.fingerprints(None)[0]["hash"].clone();
    ws.write("a.txt", "bbbb\n");
    ws.run(&["read", "a.txt"]).ok();
    let after = &ws.fingerprints(None)[0];
    assert_eq!(after["len"], 5);
    assert_ne!(after["hash"], before);
}

#[test]
fn sessions_are_separate() {
    let mut ws = Ws::new();
    ws.write("a.txt", "x\n").write("b.txt", "y\n");
    ws.run(&["read", "a.txt"]).ok();
    ws.session = Some("agent-2".into());
    ws.run(&["read", "b.txt"]).ok();
    let default: Vec<_> = ws
        .fingerprints(Some("default"))
        .iter()
        .map(|r| r["path"].clone())
        .collect();
    let other: Vec<_> = ws
        .fingerprints(Some("agent-2"))
        .iter()
        .map(|r| r["path"].clone())
        .collect();
    assert_eq!(default, [json!("a.txt")]);
    assert_eq!(other, [json!("b.txt")]);
}

#[test]
fn session_names_must_be_file_name_safe() {
    let ws = Ws::new();
    for bad in ["../escape", "a/b", ".hidden", "", "sp ace", &"x".repeat(65)] {
        let out = ws.run(&["--session", bad, "ls"]).err("invalid_arguments");
        assert!(
            out.message().contains("--session agent-1"),
            "{bad:?}: {}",
            out.message()
        );
    }
    for good in ["a", "agent-1", "A.b_c-9", &"x".repeat(64)] {
        ws.run(&["--session", good, "ls"]).ok();
    }
}

#[test]
fn parallel_reads_in_one_session_lose_no_fingerprint() {
    let ws = Ws::new();
    let names: Vec<String> = (0..30).map(|i| format!("f{i:02}.txt")).collect();
    for name in &names {
        ws.write(name, format!("{name}\n"));
    }
    let children: Vec<_> = names
        .iter()
        .map(|name| {
            ws.command(&["read", name])
                .stdout(std::process::Stdio::piped())
                .spawn()
                .expect("spawn")
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().expect("wait");
        assert_eq!(out.status.code(), Some(0));
    }
    let mut recorded: Vec<String> = ws
        .fingerprints(None)
        .iter()
        .map(|r| r["path"].as_str().unwrap().to_string())
        .collect();
    recorded.sort();
    assert_eq!(recorded, names);
    // No temp file is left behind.
    let leftovers = std::fs::read_dir(ws.join(".codesmith/sessions/default.fp"))
        .unwrap()
        .filter_map(Result::ok)
        .filter(|e| !e.file_name().to_string_lossy().ends_with(".json"))
        .count();
    assert_eq!(leftovers, 0);
}

#[test]
fn a_torn_or_foreign_session_file_does_not_break_a_call() {
    let ws = Ws::new();
    ws.write("a.txt", "x\n");
    ws.write(".codesmith/sessions/default.json", "{not json");
    ws.run(&["read", "a.txt"]).ok();
    ws.write(
        ".codesmith/sessions/default.json",
        r#"{"cwd": ".", "future_field": 1}"#,
    );
    ws.run(&["read", "a.txt"]).ok();
}

#[test]
fn a_read_that_cannot_be_recorded_still_shows_the_page_with_a_notice() {
    let ws = Ws::new();
    ws.write("a.txt", "content\n");
    // .codesmith/ cannot be created: a plain file holds its name.
    ws.write(".codesmith", "not a directory");
    let out = ws.run(&["read", "a.txt"]).ok();
    assert_eq!(out.output(), "     1│ content");
    let notices = out.notices();
    assert!(notices[0].contains("could not be recorded"), "{notices:?}");
    assert!(notices[0].contains("as not read"));
}

fn assert_linked_state_refused(out: crate::harness::Outcome) {
    let out = out.err("io_error");
    assert!(
        out.message()
            .contains("`.codesmith` at the workspace root is a symlink"),
        "{}",
        out.message()
    );
    assert!(out.message().contains("remove the link"), "{}", out.message());
}

#[test]
fn a_codesmith_symlink_inside_the_workspace_is_refused_so_records_cannot_be_forged() {
    let ws = Ws::new();
    ws.write("f", "x\n").mkdir("real");
    crate::harness::symlink("real", ws.join(".codesmith"));
    assert_linked_state_refused(ws.run(&["read", "f"]));
    assert_linked_state_refused(ws.run(&["write", "real/sessions/default.fp/x.json", "--content", "{}"]));
    assert_linked_state_refused(ws.run(&["trust", "list"]));
    assert!(
        !ws.exists("real/sessions"),
        "nothing may be written through the link"
    );
    // Once the link is gone, codesmith makes a real directory and works again.
    std::fs::remove_file(ws.join(".codesmith")).unwrap();
    ws.run(&["read", "f"]).ok();
    assert!(ws.join(".codesmith").symlink_metadata().unwrap().is_dir());
}

#[test]
fn a_codesmith_symlink_leading_outside_is_refused_and_nothing_is_written_there() {
    let outside = tempfile::tempdir().unwrap();
    let ws = Ws::new();
    ws.write("f", "x\n");
    crate::harness::symlink(outside.path(), ws.join(".codesmith"));
    assert_linked_state_refused(ws.run(&["read", "f"]));
    assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0);
}

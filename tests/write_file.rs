use std::os::unix::fs::PermissionsExt;

use serde_json::{json, Value};

use crate::harness::{symlink, Outcome, Ws};

fn write(ws: &Ws, args: Value) -> Outcome {
    ws.call("write_file", args)
}

#[test]
fn creates_the_file_and_its_parents() {
    let ws = Ws::new();
    let out = write(&ws, json!({"path": "a/b/c.txt", "content": "hi\nthere\n"})).ok();
    assert_eq!(ws.read("a/b/c.txt"), b"hi\nthere\n");
    assert_eq!(out.data()["action"], "created");
    assert_eq!(out.data()["path"], "a/b/c.txt");
    assert!(
        out.output()
            .starts_with("Created `a/b/c.txt` (2 lines, 9 bytes)."),
        "{}",
        out.output()
    );
    assert!(
        out.notices().iter().any(|n| n.contains("a/b")),
        "{:?}",
        out.notices()
    );
}

#[test]
fn positional_path_and_content_flag() {
    let ws = Ws::new();
    ws.run(&["write", "x.txt", "--content", "abc"]).ok();
    assert_eq!(ws.read("x.txt"), b"abc");
}

#[test]
fn replacing_requires_a_read() {
    let ws = Ws::new();
    ws.write("a.txt", "old\n");
    let out = write(&ws, json!({"path": "a.txt", "content": "new\n"})).err("not_read");
    assert!(
        out.message().contains("Call read_file with path=\"a.txt\""),
        "{}",
        out.message()
    );
    assert_eq!(ws.read("a.txt"), b"old\n");
    ws.read_via_tool("a.txt");
    let out = write(&ws, json!({"path": "a.txt", "content": "new\n"})).ok();
    assert_eq!(out.data()["action"], "replaced");
    assert!(out.output().contains("-old\n+new\n"), "{}", out.output());
    assert_eq!(ws.read("a.txt"), b"new\n");
    // Own writes refresh the fingerprint.
    write(&ws, json!({"path": "a.txt", "content": "newer\n"})).ok();
    assert_eq!(ws.read("a.txt"), b"newer\n");
}

#[test]
fn replacing_a_changed_file_is_stale() {
    let ws = Ws::new();
    ws.write("a.txt", "v1\n");
    ws.read_via_tool("a.txt");
    ws.write("a.txt", "v2 longer\n");
    let out = write(&ws, json!({"path": "a.txt", "content": "mine\n"})).err("stale");
    assert!(
        out.message().contains("Call read_file with path=\"a.txt\""),
        "{}",
        out.message()
    );
    assert_eq!(ws.read("a.txt"), b"v2 longer\n");
}

#[test]
fn mode_of_a_replaced_file_is_kept() {
    let ws = Ws::new();
    ws.write("run.sh", "#!/bin/sh\n");
    std::fs::set_permissions(ws.join("run.sh"), std::fs::Permissions::from_mode(0o755)).unwrap();
    ws.read_via_tool("run.sh");
    write(&ws, json!({"path": "run.sh", "content": "#!/bin/sh\necho hi\n"})).ok();
    let mode = std::fs::metadata(ws.join("run.sh")).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o755);
}

#[test]
fn symlink_inside_the_workspace_is_written_through() {
    let ws = Ws::new();
    ws.write("real.txt", "old\n");
    symlink("real.txt", ws.join("link.txt"));
    ws.read_via_tool("link.txt");
    let out = write(&ws, json!({"path": "link.txt", "content": "new\n"})).ok();
    assert!(
        out.notices().iter().any(|n| n.contains("symlink")),
        "{:?}",
        out.notices()
    );
    assert_eq!(ws.read("real.txt"), b"new\n");
    assert!(std::fs::symlink_metadata(ws.join("link.txt"))
        .unwrap()
        .file_type()
        .is_symlink());
}

#[test]
fn symlink_leading_out_is_refused() {
    let ws = Ws::new();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("t.txt"), "secret\n").unwrap();
    symlink(outside.path().join("t.txt"), ws.join("link.txt"));
    symlink(outside.path(), ws.join("dirlink"));
    write(&ws, json!({"path": "link.txt", "content": "x"})).err("outside_workspace");
    write(&ws, json!({"path": "dirlink/new.txt", "content": "x"})).err("outside_workspace");
    assert_eq!(std::fs::read(outside.path().join("t.txt")).unwrap(), b"secret\n");
    assert!(!outside.path().join("new.txt").exists());
}

#[test]
fn refuses_the_state_directory() {
    let ws = Ws::new();
    ws.write("a.txt", "x");
    ws.read_via_tool("a.txt");
    let out = write(
        &ws,
        json!({"path": ".codesmith/sessions/default.json", "content": "{}"}),
    )
    .err("outside_workspace");
    assert!(out.message().contains(".codesmith"), "{}", out.message());
}

#[test]
fn crlf_and_bom_of_a_replaced_file_are_kept() {
    let ws = Ws::new();
    ws.write("c.txt", b"\xEF\xBB\xBFa\r\nb\r\n");
    ws.read_via_tool("c.txt");
    let out = write(&ws, json!({"path": "c.txt", "content": "x\ny\nz\n"})).ok();
    assert!(
        out.notices().iter().any(|n| n.contains("CRLF")),
        "{:?}",
        out.notices()
    );
    assert_eq!(ws.read("c.txt"), b"\xEF\xBB\xBFx\r\ny\r\nz\r\n");
}

#[test]
fn legacy_encoding_of_a_replaced_file_is_kept() {
    let ws = Ws::new();
    ws.write("l.txt", b"caf\xe9 cr\xe8me br\xfbl\xe9e\n");
    ws.read_via_tool("l.txt");
    write(&ws, json!({"path": "l.txt", "content": "déjà vu\n"})).ok();
    assert_eq!(ws.read("l.txt"), b"d\xe9j\xe0 vu\n");
}

#[test]
fn syntax_gate_checks_new_files_and_changes() {
    let ws = Ws::new();
    let out = write(&ws, json!({"path": "new.json", "content": "{\"a\": }"})).err("syntax_gate");
    assert!(out.message().contains("NOT created"), "{}", out.message());
    assert!(!ws.exists("new.json"));
    write(&ws, json!({"path": "ok.toml", "content": "a = 1\n"})).ok();
    let out = write(&ws, json!({"path": "ok.toml", "content": "a = \n"})).err("syntax_gate");
    assert!(out.message().contains("line 1"), "{}", out.message());
    assert_eq!(ws.read("ok.toml"), b"a = 1\n");
    // Broken before: any state goes.
    ws.write("bad.toml", "a = \n");
    ws.read_via_tool("bad.toml");
    write(&ws, json!({"path": "bad.toml", "content": "a = [\n"})).ok();
}

#[test]
fn a_new_file_that_does_not_parse_is_not_created_and_the_way_out_fits() {
    let ws = Ws::new();
    let out = write(&ws, json!({"path": "tests/ui/bad.rs", "content": "fn main( {\n"})).err("syntax_gate");
    let message = out.message();
    assert!(message.contains("the file was NOT created"), "{message}");
    assert!(!message.contains("NOT modified"), "{message}");
    // The existing-file rule cannot apply to a file that never existed.
    assert!(!message.contains("did not parse before"), "{message}");
    assert!(
        message.contains("create it under another extension (`tests/ui/bad.rs.txt`)")
            && message.contains("exec_shell `mv tests/ui/bad.rs.txt tests/ui/bad.rs`"),
        "{message}"
    );
    assert!(!ws.exists("tests/ui/bad.rs"));
    // The way out works: the other extension is not gated.
    write(
        &ws,
        json!({"path": "tests/ui/bad.rs.txt", "content": "fn main( {\n"}),
    )
    .ok();
    // An existing file keeps its message.
    ws.write("ok.json", "{}");
    ws.read_via_tool("ok.json");
    let out = write(&ws, json!({"path": "ok.json", "content": "{"})).err("syntax_gate");
    assert!(out.message().contains("NOT modified"), "{}", out.message());
    assert!(
        out.message().contains("did not parse before"),
        "{}",
        out.message()
    );
}

#[test]
fn directories_are_refused() {
    let ws = Ws::new();
    ws.mkdir("d");
    let out = write(&ws, json!({"path": "d", "content": "x"})).err("is_directory");
    assert!(out.message().contains("path=\"d/NAME\""), "{}", out.message());
    write(&ws, json!({"path": "e/", "content": "x"})).err("invalid_arguments");
    ws.write("notes.txt", "n");
    let out = write(&ws, json!({"path": "notes.txt/x", "content": "x"})).err("invalid_arguments");
    assert!(out.message().contains("which is a file"), "{}", out.message());
}

#[test]
fn failed_rename_leaves_the_original_intact() {
    let ws = Ws::new();
    ws.write("a.txt", "original\n");
    ws.read_via_tool("a.txt");
    let mut cmd = ws.command(&[
        "write_file",
        "--json",
        &json!({"path": "a.txt", "content": "replacement\n"}).to_string(),
    ]);
    cmd.env("CODESMITH_FAULT", "rename");
    let out = Outcome::of(cmd).err("io_error");
    assert!(
        out.message().contains("original file is unchanged"),
        "{}",
        out.message()
    );
    assert_eq!(ws.read("a.txt"), b"original\n");
    assert!(ws.temp_files().is_empty(), "{:?}", ws.temp_files());
    // The same write succeeds once the fault is gone, without a re-read.
    write(&ws, json!({"path": "a.txt", "content": "replacement\n"})).ok();
    assert_eq!(ws.read("a.txt"), b"replacement\n");
}

#[test]
fn identical_content_is_not_rewritten() {
    let ws = Ws::new();
    ws.write("a.txt", "same\n");
    ws.read_via_tool("a.txt");
    let out = write(&ws, json!({"path": "a.txt", "content": "same\n"})).ok();
    assert_eq!(out.data()["action"], "unchanged");
}

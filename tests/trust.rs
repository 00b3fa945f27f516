//! `codesmith trust add|remove|list`: extra roots outside the workspace.

use serde_json::json;

use crate::harness::Ws;

#[test]
fn a_trusted_directory_becomes_readable_until_removed() {
    let ws = Ws::new();
    let outside = tempfile::tempdir().unwrap();
    let outside_path = outside.path().canonicalize().unwrap();
    std::fs::write(outside_path.join("notes.txt"), "shared notes\n").unwrap();
    let file = outside_path.join("notes.txt");
    let file = file.to_str().unwrap();
    ws.call("read_file", json!({"path": file}))
        .err("outside_workspace");

    let out = ws.run(&["trust", "list"]).ok();
    assert_eq!(out.envelope.tool, "trust");
    assert!(out.output().starts_with("No trusted paths"));

    let dir = outside_path.to_str().unwrap();
    let out = ws.run(&["trust", "add", dir]).ok();
    assert_eq!(out.data()["trusted"], json!([dir]));
    assert!(out.output().contains(dir));

    let out = ws.call("read_file", json!({"path": file})).ok();
    assert!(out.output().contains("shared notes"));
    // Paths under a trusted root are shown absolute.
    assert_eq!(out.data()["path"], file);
    ws.call("list_dir", json!({"path": dir}))
        .ok()
        .contains("notes.txt");

    let out = ws.run(&["trust", "list"]).ok();
    assert_eq!(out.data()["trusted"], json!([dir]));
    // Adding twice keeps one entry.
    let out = ws.run(&["trust", "add", dir]).ok();
    assert_eq!(out.data()["trusted"], json!([dir]));

    let out = ws.run(&["trust", "remove", dir]).ok();
    assert_eq!(out.data()["trusted"], json!([]));
    ws.call("read_file", json!({"path": file}))
        .err("outside_workspace");
}

#[test]
fn a_symlink_inside_a_trusted_root_that_leads_elsewhere_is_still_refused() {
    let ws = Ws::new();
    let trusted = tempfile::tempdir().unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    std::fs::write(elsewhere.path().join("x.txt"), "x\n").unwrap();
    crate::harness::symlink(elsewhere.path(), trusted.path().join("link"));
    ws.run(&["trust", "add", trusted.path().to_str().unwrap()]).ok();
    let path = trusted.path().canonicalize().unwrap().join("link/x.txt");
    let out = ws
        .call("read_file", json!({"path": path.to_str().unwrap()}))
        .err("outside_workspace");
    assert!(out.message().starts_with("path escapes workspace"));
}

#[test]
fn trust_refuses_what_it_cannot_use() {
    let ws = Ws::new();
    ws.mkdir("inner");
    ws.write("file.txt", "x");
    let out = ws.run(&["trust", "add"]).err("invalid_arguments");
    assert!(out
        .message()
        .contains(&format!("`{} trust add /opt/shared`", ws.person())));
    let out = ws
        .run(&["trust", "add", "/nonexistent/codesmith-trust"])
        .err("not_found");
    assert!(out.message().contains("existing directory"));
    let out = ws
        .run(&["trust", "add", ws.join("file.txt").to_str().unwrap()])
        .err("invalid_arguments");
    assert!(out.message().contains("not a directory"));
    let out = ws
        .run(&["trust", "add", ws.join("inner").to_str().unwrap()])
        .err("invalid_arguments");
    assert!(out.message().contains("inside the workspace"));
    let out = ws.run(&["trust", "remove", "/tmp"]).err("not_found");
    assert!(out.message().contains(&format!("`{} trust list`", ws.person())));
    let out = ws.run(&["trust", "frob"]).err("invalid_arguments");
    assert!(out.message().contains("Possible values: add, remove, list"));
}

#[test]
fn not_found_under_a_trusted_root_suggests_its_neighbours_there_and_never_workspace_files() {
    let parent = tempfile::tempdir().unwrap();
    let parent = parent.path().canonicalize().unwrap();
    std::fs::create_dir_all(parent.join("ws")).unwrap();
    std::fs::create_dir_all(parent.join("ws-evil")).unwrap();
    let ws = Ws::at(&parent.join("ws"));
    ws.write("in.txt", "in\n");
    std::fs::write(parent.join("ws-evil/nope.tx"), "n\n").unwrap();
    let evil = parent.join("ws-evil");
    ws.run(&["trust", "add", evil.to_str().unwrap()]).ok();

    let wanted = evil.join("nope.txt");
    let out = ws.run(&["read", wanted.to_str().unwrap()]).err("not_found");
    let neighbour = evil.join("nope.tx");
    let neighbour = neighbour.to_str().unwrap();
    assert_eq!(out.error()["similar"], json!([neighbour]));
    assert!(
        out.message()
            .contains(&format!("Similar paths that exist: `{neighbour}`.")),
        "{}",
        out.message()
    );
    assert!(!out.message().contains("in.txt"), "{}", out.message());

    // A typo in the workspace still gets workspace neighbours, not the trusted root's.
    let out = ws.run(&["read", "in.tx"]).err("not_found");
    assert_eq!(out.error()["similar"], json!(["in.txt"]));
}

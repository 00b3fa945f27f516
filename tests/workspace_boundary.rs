//! The workspace boundary (CONTRACT §3): the table of cases from issue #2.

use serde_json::json;

use crate::harness::WithoutCodesmithEnv;
use crate::harness::{symlink, Ws};

/// A workspace inside a private temp dir, with siblings `outside/` and `<ws>-evil/`.
struct Setup {
    _parent: tempfile::TempDir,
    ws: Ws,
    outside: std::path::PathBuf,
    evil: std::path::PathBuf,
}

fn setup() -> Setup {
    let parent = tempfile::tempdir().unwrap();
    let parent_path = parent.path().canonicalize().unwrap();
    let ws_dir = parent_path.join("ws");
    std::fs::create_dir(&ws_dir).unwrap();
    let outside = parent_path.join("outside");
    std::fs::create_dir(&outside).unwrap();
    std::fs::write(outside.join("secret.txt"), "secret\n").unwrap();
    let evil = parent_path.join("ws-evil");
    std::fs::create_dir(&evil).unwrap();
    std::fs::write(evil.join("e.txt"), "evil\n").unwrap();
    let ws = Ws::at(&ws_dir);
    ws.write("src/a.txt", "inside\n");
    Setup {
        _parent: parent,
        ws,
        outside,
        evil,
    }
}

fn escapes(s: &Setup, path: &str) {
    let out =
        s.ws.call("read_file", json!({"path": path}))
            .err("outside_workspace");
    assert!(
        out.message().starts_with("path escapes workspace"),
        "{path}: {}",
        out.message()
    );
    assert!(
        out.message()
            .contains(&format!("`{} trust add <dir>`", s.ws.person())),
        "{}",
        out.message()
    );
    assert!(!out.output().contains("secret\n"));
}

fn invalid(s: &Setup, path: &str, reason: &str) {
    let out =
        s.ws.call("read_file", json!({"path": path}))
            .err("invalid_arguments");
    assert!(
        out.message().starts_with("invalid path"),
        "{path:?}: {}",
        out.message()
    );
    assert!(out.message().contains(reason), "{path:?}: {}", out.message());
}

#[test]
fn dotdot_that_stays_inside_is_allowed() {
    let s = setup();
    let out = s.ws.call("read_file", json!({"path": "src/../src/./a.txt"})).ok();
    assert_eq!(out.data()["path"], "src/a.txt");
    s.ws.call("read_file", json!({"path": "../ws/src/a.txt"})).ok();
}

#[test]
fn dotdot_that_leaves_is_refused() {
    let s = setup();
    escapes(&s, "../outside/secret.txt");
    escapes(&s, "src/../../outside/secret.txt");
    escapes(&s, "../../../../../../etc/passwd");
}

#[test]
fn absolute_paths_inside_are_allowed_and_shown_relative() {
    let s = setup();
    let abs = s.ws.join("src/a.txt");
    let out = s.ws.call("read_file", json!({"path": abs})).ok();
    assert_eq!(out.data()["path"], "src/a.txt");
}

#[test]
fn absolute_paths_outside_are_refused() {
    let s = setup();
    escapes(&s, s.outside.join("secret.txt").to_str().unwrap());
    escapes(&s, "/etc/passwd");
}

#[test]
fn a_sibling_sharing_the_prefix_is_outside() {
    let s = setup();
    escapes(&s, s.evil.join("e.txt").to_str().unwrap());
    escapes(&s, "../ws-evil/e.txt");
}

#[test]
fn symlinks_that_stay_inside_are_followed() {
    let s = setup();
    symlink("src", s.ws.join("alias"));
    let out = s.ws.call("read_file", json!({"path": "alias/a.txt"})).ok();
    assert_eq!(out.data()["path"], "src/a.txt");
}

#[test]
fn symlinks_that_lead_out_are_refused() {
    let s = setup();
    symlink(&s.outside, s.ws.join("out"));
    symlink(s.outside.join("secret.txt"), s.ws.join("secret-link"));
    escapes(&s, "out/secret.txt");
    escapes(&s, "secret-link");
    let out =
        s.ws.call("list_dir", json!({"path": "out"}))
            .err("outside_workspace");
    assert!(out.message().starts_with("path escapes workspace"));
}

#[test]
fn a_new_path_beneath_a_symlink_that_leads_out_is_refused() {
    let s = setup();
    symlink(&s.outside, s.ws.join("out"));
    // Does not exist yet: the deepest existing ancestor (the symlink) decides.
    escapes(&s, "out/new-file.txt");
    escapes(&s, "out/new-dir/deeper/file.txt");
    // A dangling symlink whose target would be outside.
    symlink(s.outside.join("not-yet"), s.ws.join("dangling"));
    escapes(&s, "dangling");
    escapes(&s, "dangling/child.txt");
    // A new path under an ordinary directory is simply missing.
    s.ws.call("read_file", json!({"path": "src/new.txt"}))
        .err("not_found");
}

#[test]
fn a_symlink_loop_is_refused_with_a_reason() {
    let s = setup();
    symlink("loop-b", s.ws.join("loop-a"));
    symlink("loop-a", s.ws.join("loop-b"));
    let out =
        s.ws.call("read_file", json!({"path": "loop-a/x"}))
            .err("invalid_arguments");
    assert!(out.message().contains("symlink loop"), "{}", out.message());
}

#[test]
fn paths_are_taken_literally() {
    let s = setup();
    invalid(&s, "", "empty");
    invalid(&s, "src/a\u{0}.txt", "NUL");
    invalid(&s, "~/secret.txt", "`~`");
    invalid(&s, "~", "`~`");
    invalid(&s, "src\\a.txt", "backslash");
    invalid(&s, "C:\\Users\\x", "drive letter");
    invalid(&s, "c:/x", "drive letter");
    invalid(&s, "\\\\server\\share\\x", "UNC");
    invalid(&s, "\\\\?\\C:\\x", "UNC");
    // Not decoded or expanded: these are ordinary (missing) names.
    s.ws.call("read_file", json!({"path": "src%2Fa.txt"}))
        .err("not_found");
    s.ws.call("read_file", json!({"path": "$HOME/a.txt"}))
        .err("not_found");
    s.ws.call("read_file", json!({"path": "dir/~file"}))
        .err("not_found");
}

#[test]
fn very_long_paths_and_components_are_refused_and_abbreviated() {
    let s = setup();
    let long_component = "x".repeat(300);
    invalid(&s, &long_component, "component is 300 bytes");
    let long_path = "abc/".repeat(1100);
    let out =
        s.ws.call("read_file", json!({"path": long_path}))
            .err("invalid_arguments");
    assert!(out.message().contains("the limit is 4096"), "{}", out.message());
    assert!(out.message().len() < 600, "message quotes the whole path");
    // Just under the limits is fine (and simply missing).
    let ok_component = "y".repeat(255);
    s.ws.call("read_file", json!({"path": ok_component}))
        .err("not_found");
}

#[test]
fn state_directory_is_readable_but_never_listed() {
    let s = setup();
    s.ws.run(&["read", "src/a.txt"]).ok();
    assert!(s.ws.exists(".codesmith/sessions/default.fp"));
    let out = s.ws.run(&["ls"]).ok();
    assert!(!out.output().contains(".codesmith"), "{}", out.output());
}

/// `codesmith --workspace DIR ARGS` run from `cwd` (for workspaces named through a symlink).
fn run_in(workspace: &std::path::Path, cwd: &std::path::Path, args: &[&str]) -> crate::harness::Outcome {
    let mut cmd = std::process::Command::new(crate::harness::BIN);
    cmd.arg("--workspace")
        .arg(workspace)
        .args(args)
        .current_dir(cwd)
        .stdin(std::process::Stdio::null())
        .without_codesmith_env();
    crate::harness::Outcome::of(cmd)
}

#[test]
fn absolute_paths_through_a_symlink_to_the_workspace_are_inside() {
    let s = setup();
    let link = s.ws.path().parent().unwrap().join("link");
    symlink(s.ws.path(), &link);
    let through = link.join("src/a.txt");
    let through = through.to_str().unwrap();
    // A shell that `cd`s into the link keeps it in $PWD, so absolute paths name the link.
    for workspace in [s.ws.path(), link.clone()] {
        let out = run_in(&workspace, &link, &["read", through]).ok();
        assert_eq!(out.data()["path"], "src/a.txt");
    }
    // A new file under the link resolves through its deepest existing ancestor.
    let new = link.join("src/new.txt");
    let out = run_in(
        &link,
        &link,
        &["write", new.to_str().unwrap(), "--content", "n\n"],
    )
    .ok();
    assert_eq!(out.data()["path"], "src/new.txt");
    assert_eq!(s.ws.read_string("src/new.txt"), "n\n");
    let out = run_in(&link, &link, &["ls", link.join("src").to_str().unwrap()]).ok();
    assert_eq!(out.data()["path"], "src");
}

#[test]
fn a_symlink_reaching_outside_is_still_refused_and_the_message_names_where_it_resolves() {
    let s = setup();
    let parent = s.ws.path().parent().unwrap().to_path_buf();
    symlink(&s.outside, parent.join("out-link"));
    symlink(&s.evil, parent.join("evil-link"));
    let secret = parent.join("out-link/secret.txt");
    let out =
        s.ws.call("read_file", json!({"path": secret}))
            .err("outside_workspace");
    let real = s.outside.join("secret.txt");
    assert!(
        out.message()
            .contains(&format!("resolves to `{}`", real.display())),
        "{}",
        out.message()
    );
    escapes(&s, parent.join("evil-link/e.txt").to_str().unwrap());
    escapes(&s, parent.join("out-link/not-yet/new.txt").to_str().unwrap());
    let out =
        s.ws.call(
            "write_file",
            json!({"path": parent.join("out-link/new.txt"), "content": "x"}),
        )
        .err("outside_workspace");
    assert!(out.message().starts_with("path escapes workspace"));
    assert!(!s.outside.join("new.txt").exists());
}

#[test]
fn a_trusted_root_reached_through_a_symlink_is_allowed() {
    let s = setup();
    s.ws.run(&["trust", "add", s.outside.to_str().unwrap()]).ok();
    let link = s.ws.path().parent().unwrap().join("shared-link");
    symlink(&s.outside, &link);
    let out =
        s.ws.call("read_file", json!({"path": link.join("secret.txt")}))
            .ok();
    assert_eq!(out.data()["path"], s.outside.join("secret.txt").to_str().unwrap());
}

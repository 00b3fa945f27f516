//! Suggested calls from a session whose cwd is not the root: every path a message puts in
//! "call X with path=..." must reach the intended file from the cwd, where the next call
//! resolves it. Results' own paths stay workspace-relative.

use serde_json::json;

use crate::harness::Ws;

/// The value of the first `<tool> with path=` in `message`, decoded from its JSON spelling.
fn suggested_path(message: &str, tool: &str) -> String {
    let marker = format!("{tool} with path=");
    let at = message
        .find(&marker)
        .unwrap_or_else(|| panic!("no `{marker}` in: {message}"))
        + marker.len();
    let mut values = serde_json::Deserializer::from_str(&message[at..]).into_iter::<String>();
    values
        .next()
        .and_then(Result::ok)
        .unwrap_or_else(|| panic!("no JSON string after `{marker}` in: {message}"))
}

/// A workspace with `src/main.rs`, `src/deep/x.txt` and `lib/a.rs`, its cwd moved to `src/deep`.
fn in_deep() -> Ws {
    let ws = Ws::new();
    ws.write("src/main.rs", "fn main() {}\n")
        .write("src/deep/x.txt", "x\n")
        .write("lib/a.rs", "a\n");
    ws.run(&["shell", "cd src/deep"]).ok();
    ws
}

#[test]
fn not_found_suggests_paths_that_resolve_from_the_cwd() {
    let ws = in_deep();
    let out = ws.run(&["read", "../mian.rs"]).err("not_found");
    assert!(
        out.message().contains("Similar paths that exist: `../main.rs`"),
        "{}",
        out.message()
    );
    // Results stay workspace-relative.
    assert_eq!(out.error()["similar"], json!(["src/main.rs"]));
    assert_eq!(out.error()["path"], "src/mian.rs");
    let out = ws.run(&["read", "../main.rs"]).ok();
    assert_eq!(out.data()["path"], "src/main.rs");
}

#[test]
fn is_directory_and_file_not_directory_name_calls_that_work_from_the_cwd() {
    let ws = in_deep();
    let out = ws.run(&["read", "../../lib"]).err("is_directory");
    let dir = suggested_path(out.message(), "list_dir");
    assert_eq!(dir, "../../lib");
    let out = ws.call("list_dir", json!({"path": dir})).ok();
    assert_eq!(out.data()["path"], "lib");

    let out = ws.run(&["ls", "../main.rs"]).err("invalid_arguments");
    let file = suggested_path(out.message(), "read_file");
    assert_eq!(file, "../main.rs");
    ws.call("read_file", json!({"path": file})).ok();

    // Under the cwd, the path is relative to it.
    let out = ws.run(&["ls", "x.txt"]).err("invalid_arguments");
    assert_eq!(suggested_path(out.message(), "read_file"), "x.txt");
    // An absolute path named from inside is suggested cwd-relative too.
    let abs = ws.join("lib").to_string_lossy().into_owned();
    let out = ws.run(&["read", &abs]).err("is_directory");
    assert_eq!(suggested_path(out.message(), "list_dir"), "../../lib");
}

#[test]
fn the_continue_line_and_freshness_errors_name_callable_paths() {
    let ws = in_deep();
    let long: String = (1..=300).map(|i| format!("line {i}\n")).collect();
    ws.write("lib/long.txt", &long);
    let out = ws.run(&["read", "../../lib/long.txt"]).ok();
    let next = suggested_path(out.output(), "read_file");
    let out = ws
        .call("read_file", json!({"path": next, "start_line": 201}))
        .ok();
    assert_eq!(out.data()["path"], "lib/long.txt");

    let out = ws
        .run(&["edit", "../main.rs", "--search", "main", "--replace", "start"])
        .err("not_read");
    let to_read = suggested_path(out.message(), "read_file");
    assert_eq!(to_read, "../main.rs");
    ws.call("read_file", json!({"path": to_read})).ok();
    ws.run(&["edit", "../main.rs", "--search", "main", "--replace", "start"])
        .ok();
    assert_eq!(ws.read_string("src/main.rs"), "fn start() {}\n");

    std::fs::write(ws.join("src/main.rs"), "fn changed() {}\n").unwrap();
    let out = ws.run(&["write", "../main.rs", "--content", "x\n"]).err("stale");
    assert_eq!(suggested_path(out.message(), "read_file"), "../main.rs");
    assert_eq!(ws.read_string("src/main.rs"), "fn changed() {}\n");
}

#[test]
fn edit_and_patch_failures_name_callable_paths() {
    let ws = in_deep();
    ws.run(&["read", "../../lib/a.rs"]).ok();
    let out = ws
        .run(&["edit", "../../lib/a.rs", "--search", "zzz", "--replace", "y"])
        .err("no_match");
    assert_eq!(suggested_path(out.message(), "read_file"), "../../lib/a.rs");

    let patch = "--- ../../lib/a.rs\n+++ ../../lib/a.rs\n@@ -1 +1 @@\n-nothing like this\n+b\n";
    let out = ws
        .call("apply_patch", json!({"patch": patch}))
        .err("patch_failed");
    assert_eq!(suggested_path(out.message(), "read_file"), "../../lib/a.rs");
    assert_eq!(ws.read_string("lib/a.rs"), "a\n");
}

#[test]
fn at_the_root_suggested_paths_are_workspace_relative() {
    let ws = Ws::new();
    ws.write("src/main.rs", "fn main() {}\n");
    let out = ws.run(&["read", "src"]).err("is_directory");
    assert!(
        out.message()
            .ends_with("Call list_dir with path=\"src\" to see what it holds."),
        "{}",
        out.message()
    );
}

#[test]
fn paths_with_quotes_or_newlines_are_quoted_as_json_strings_in_calls() {
    let ws = Ws::new();
    let long: String = (1..=300).map(|i| format!("line {i}\n")).collect();
    ws.write("q\"x", &long).write("n\ny", &long);
    for name in ["q\"x", "n\ny"] {
        let out = ws.call("read_file", json!({"path": name})).ok();
        let last = out.output().lines().last().unwrap();
        assert!(
            last.starts_with("To continue, call read_file with path="),
            "{last}"
        );
        assert_eq!(suggested_path(out.output(), "read_file"), name);
        ws.call("read_file", json!({"path": name, "start_line": 201}))
            .ok();
    }
    let out = ws.call("read_file", json!({"path": "q\"x"})).ok();
    assert!(
        out.output()
            .ends_with(r#"path="q\"x" start_line=201 max_lines=200"#),
        "{}",
        out.output()
    );
    ws.mkdir("d\"ir");
    let out = ws.call("read_file", json!({"path": "d\"ir"})).err("is_directory");
    assert!(
        out.message().contains(r#"list_dir with path="d\"ir""#),
        "{}",
        out.message()
    );
}

#[test]
fn a_deleted_cwd_falls_back_to_the_root_with_one_notice() {
    let ws = Ws::new();
    ws.write("f", "root f\n").write("sub/f", "sub f\n");
    ws.run(&["shell", "cd sub"]).ok();
    let out = ws.run(&["read", "f"]).ok();
    assert_eq!(out.data()["path"], "sub/f");
    std::fs::remove_file(ws.join("sub/f")).unwrap();
    std::fs::remove_dir(ws.join("sub")).unwrap();
    let out = ws.run(&["read", "f"]).ok();
    assert_eq!(out.data()["path"], "f");
    let notices = out.notices();
    assert!(
        notices
            .iter()
            .any(|n| n.contains("`sub` no longer exists") && n.contains("the cwd is now the workspace root")),
        "{notices:?}"
    );
    // Once is enough: the root is now the recorded cwd.
    let out = ws.run(&["read", "f"]).ok();
    assert!(out.notices().is_empty(), "{:?}", out.notices());
}

#[test]
fn a_deleted_cwd_is_noted_in_an_error_message_too() {
    let ws = Ws::new();
    ws.write("sub/only-here.txt", "x\n");
    ws.run(&["shell", "cd sub"]).ok();
    std::fs::remove_dir_all(ws.join("sub")).unwrap();
    let out = ws.run(&["read", "only-here.txt"]).err("not_found");
    assert!(
        out.message()
            .contains("Note: The session cwd `sub` no longer exists"),
        "{}",
        out.message()
    );
}

#[test]
fn the_spill_file_is_named_as_read_file_takes_it_from_the_cwd() {
    let ws = Ws::new();
    for i in 1000..1600 {
        ws.write(&format!("d/{}", i.to_string().repeat(60)), "");
    }
    ws.mkdir("sub/deep");
    ws.run(&["shell", "cd sub/deep"]).ok();
    let out = ws.call("list_dir", json!({"path": "../../d"})).ok();
    let spill = out.data()["spill_path"].as_str().unwrap().to_string();
    assert!(spill.starts_with(".codesmith/spill/"), "{spill}");
    let last = out.output().lines().last().unwrap();
    let named = format!("the whole text is in ../../{spill} (read it with read_file");
    assert!(last.contains(&named), "{last}");
    ws.call("read_file", json!({"path": format!("../../{spill}")}))
        .ok();
}

#[test]
fn not_found_from_a_moved_cwd_says_where_the_path_led_and_reaches_the_file_at_the_root() {
    let ws = Ws::new();
    ws.write("sub/a.txt", "a\n");
    ws.run(&["shell", "cd sub"]).ok();
    let out = ws.run(&["read", "sub/a.txt"]).err("not_found");
    assert!(
        out.message()
            .starts_with("`sub/a.txt` (from the session cwd `sub`, that is `sub/sub/a.txt`) does not exist."),
        "{}",
        out.message()
    );
    assert!(
        out.message().contains("does exist relative to the root"),
        "{}",
        out.message()
    );
    assert_eq!(out.error()["path"], "sub/sub/a.txt");
    assert_eq!(out.error()["cwd"], "sub");
    let call = suggested_path(out.message(), "read_file");
    assert_eq!(call, "a.txt");
    let out = ws.call("read_file", json!({"path": call})).ok();
    assert_eq!(out.data()["path"], "sub/a.txt");

    // The other tools that share the message: list_dir, grep_files, file_search, apply_patch.
    let out = ws.run(&["ls", "sub"]).err("not_found");
    assert!(
        out.message().contains("from the session cwd `sub`"),
        "{}",
        out.message()
    );
    assert_eq!(suggested_path(out.message(), "list_dir"), ".");
    let out = ws
        .call("grep_files", json!({"pattern": "a", "path": "sub/a.txt"}))
        .err("not_found");
    assert_eq!(suggested_path(out.message(), "grep_files"), "a.txt");
    let out = ws
        .call("file_search", json!({"pattern": "*", "path": "sub"}))
        .err("not_found");
    assert_eq!(suggested_path(out.message(), "file_search"), ".");
    let out = ws
        .call(
            "apply_patch",
            json!({"patch": "*** Begin Patch\n*** Update File: sub/a.txt\n@@\n-a\n+b\n*** End Patch\n"}),
        )
        .err("not_found");
    assert!(
        out.message().contains("the patch names it `a.txt`"),
        "{}",
        out.message()
    );
    assert_eq!(ws.read_string("sub/a.txt"), "a\n");

    // A path that exists nowhere still says where it led, with similar paths callable from
    // the cwd.
    let out = ws.run(&["read", "b.txt"]).err("not_found");
    assert!(
        out.message()
            .starts_with("`b.txt` (from the session cwd `sub`, that is `sub/b.txt`) does not exist."),
        "{}",
        out.message()
    );
}

#[test]
fn not_found_at_the_root_keeps_its_plain_wording() {
    let ws = Ws::new();
    ws.write("a.txt", "a\n");
    let out = ws.run(&["read", "b.txt"]).err("not_found");
    assert!(
        out.message().starts_with("`b.txt` does not exist."),
        "{}",
        out.message()
    );
    assert!(out.error().get("cwd").is_none());
}

#[test]
fn grep_and_find_from_a_moved_cwd_say_their_paths_are_workspace_relative() {
    let ws = Ws::new();
    ws.write("sub/a.txt", "needle\n").write("top.txt", "needle\n");
    let at_root = ws.call("grep_files", json!({"pattern": "needle"})).ok();
    assert_eq!(
        at_root.output(),
        "sub/a.txt:1:needle\ntop.txt:1:needle\n\n2 matches in 2 files"
    );
    let found_at_root = ws.call("file_search", json!({"pattern": "*.txt"})).ok();
    assert_eq!(found_at_root.output(), "sub/a.txt\ntop.txt\n\n2 matches");

    ws.run(&["shell", "cd sub"]).ok();
    let out = ws
        .call("grep_files", json!({"pattern": "needle", "path": ".."}))
        .ok();
    // Results stay workspace-relative; one line says how to name them from the cwd.
    assert_eq!(out.data()["matches"][0]["path"], "sub/a.txt");
    assert_eq!(
        out.output(),
        "sub/a.txt:1:needle\ntop.txt:1:needle\n\n2 matches in 2 files\nPaths are relative to the \
         workspace root, not the session cwd `sub`: from there, `sub/a.txt` is path=\"a.txt\"."
    );
    ws.call("read_file", json!({"path": "a.txt"})).ok();
    let out = ws
        .call("file_search", json!({"pattern": "*.txt", "path": ".."}))
        .ok();
    assert_eq!(out.data()["paths"], json!(["sub/a.txt", "top.txt"]));
    assert!(
        out.output().ends_with(
            "2 matches\nPaths are relative to the workspace root, not the session cwd `sub`: from \
             there, `sub/a.txt` is path=\"a.txt\"."
        ),
        "{}",
        out.output()
    );
}
